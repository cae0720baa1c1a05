/*
 * plan_moe.c -- the plan keys of MoE token dispatch: the dispatcher, the
 * group-limited routing and the flex dispatcher's SMs; their defaults
 * (each sourced) and their checks (module prefix: plan_).
 */
#include <assert.h>
#include <stdio.h>
#include <string.h>

#include "lower/moe_dispatch.h"
#include "plan/plan.h"
#include "plan/strategy.h"

/* DeepEP's SMs: Megatron-Core's moe_flex_dispatcher_num_sms defaults to
 * None ("each backend uses its own default"); the deprecated
 * moe_deepep_num_sms it replaced documents DeepEP's as "historical
 * default 20" (megatron/core/transformer/transformer_config.py,
 * ../shared/reference/megatron-lm) */
#define FLEX_SMS_DEFAULT 20

const char *const plan_moe_dispatcher_names[PLAN_MOE_DISPATCHERS] = {"alltoall", "allgather",
                                                                    "flex"};

void plan_moe_default(sc_plan *p) {
  /* A scenario that names no dispatcher runs the all-to-all: what the
   * Megatron-MoE model zoo runs for most of its models (runtime.conf:
   * Mixtral, DeepSeek-V2, Qwen3-30B; flex for DeepSeek-V3 and
   * Qwen3-235B), while Megatron-Core's own default is "allgather"
   * (transformer_config.py moe_token_dispatcher_type): a measurement
   * row that names none gets the framework's default (validate) */
  p->moe_dispatcher = SC_MOE_ALLTOALL;
  p->moe_router_groups = 0; /* transformer_config.py: None, no group limit */
  p->moe_router_group_topk = 0;
  p->moe_flex_sms = FLEX_SMS_DEFAULT;
}

/* Groups counts that split `experts` evenly, into buf; with nest, only
 * those nesting with both units (ep ranks and their nodes). */
static void aligned_groups(int experts, int ep, int nodes, int nest, char *buf, size_t cap) {
  size_t len = 0;
  buf[0] = '\0';
  for (int g = 1; g <= experts && len + 12 < cap; g++)
    if (experts % g == 0 &&
        (!nest || (moed_aligned(experts, ep, g) && moed_aligned(experts, nodes, g))))
      len += (size_t)snprintf(buf + len, cap - len, "%s%d", len ? ", " : "", g);
}

int plan_moe_groups_fit(const sc_scenario *s, int experts, int topk, int ep, int etp,
                        const char *what, const char *at, sc_error *err) {
  const sc_plan *p = &s->plan;
  int G = p->moe_router_groups, M = p->moe_router_group_topk;
  if (M == 0) return SC_OK; /* no limit (routing_groups) */
  assert(G >= 1 && M <= G);  /* routing_groups refused the rest */
  ep = ep > 0 ? ep : 1;
  int nodes = ep > 1 ? ep / moed_per_node(&s->cluster, ep, etp) : 1;
  char valid[256];
  if (experts % G) {
    aligned_groups(experts, ep, nodes, 0, valid, sizeof valid);
    return sc_error_set(err, SC_EINPUT,
                        "plan.moe_router_groups: %d must divide %s (Megatron splits the "
                        "experts into equal groups); valid: %s",
                        G, what, valid);
  }
  /* only flex reads the groups (moed_distinct needs them nested with the
   * ranks and nodes); the all-to-all and all-gather send the same bytes
   * under any routing, so any group count Megatron takes is accepted */
  if (p->moe_dispatcher == SC_MOE_FLEX &&
      (!moed_aligned(experts, ep, G) || !moed_aligned(experts, nodes, G))) {
    aligned_groups(experts, ep, nodes, 1, valid, sizeof valid);
    return sc_error_set(err, SC_EINPUT,
                        "plan.moe_router_groups: %d splits %s into groups that straddle "
                        "expert-parallel ranks or nodes (ep %d over %d node(s)%s); the flex "
                        "dispatcher's model needs groups that hold whole ranks and nodes or lie "
                        "inside one; valid: %s, or \"alltoall\"",
                        G, what, ep, nodes, at, valid);
  }
  int per_group = experts / G, pool = M * per_group;
  if ((topk > 0 ? topk : 1) > pool)
    return sc_error_set(err, SC_EINPUT,
                        "plan.moe_router_group_topk: %d groups of %d experts hold fewer than "
                        "the top-%d experts of a token (%s); valid: %d..%d",
                        M, per_group, topk, what, (topk + per_group - 1) / per_group, G);
  return SC_OK;
}

/* The groups against every transformer layer whose overrides change its
 * tp or ep: Megatron's router limits them the same in every layer, so a
 * layout they do not fit (under flex) is refused, not run unlimited. */
static int override_groups(const sc_scenario *s, const char *what, sc_error *err) {
  const sc_plan *p = &s->plan;
  for (int l = 0; l < s->model.tf.layers && p->n_overrides > 0; l++) {
    strat st;
    strat_of(p, "layer", l, &st);
    if (st.ep == p->ep && st.etp == (p->etp > 0 ? p->etp : p->tp)) continue; /* checked */
    char at[64];
    snprintf(at, sizeof at, " in layer %d with tp %d by plan.overrides", l, st.tp);
    int rc = plan_moe_groups_fit(s, s->model.tf.experts, s->model.tf.topk, st.ep, st.etp, what,
                                 at, err);
    if (rc) return rc;
  }
  return SC_OK;
}

static int routing_groups(const sc_scenario *s, sc_error *err) {
  const sc_plan *p = &s->plan;
  int G = p->moe_router_groups, M = p->moe_router_group_topk;
  /* groups, limited or not, name a transformer's experts (a graph's:
   * lower_check) */
  if (G > 0 && s->model.kind == SC_MODEL_TRANSFORMER && s->model.tf.experts <= 1)
    return sc_error_set(err, SC_EINPUT,
                        "plan.moe_router_groups: %d needs an MoE model (model.experts > 1); "
                        "valid: 0",
                        G);
  /* Megatron-Core checks the groups and limits the routing only when
   * moe_router_group_topk is set (transformer_config.py __post_init__):
   * groups alone are taken and the routing runs unlimited */
  if (M == 0) return SC_OK;
  if (G < 1)
    return sc_error_set(err, SC_EINPUT,
                        "plan.moe_router_group_topk %d without plan.moe_router_groups: "
                        "Megatron refuses it (\"When using group limited routing, "
                        "moe_router_num_groups must be specified.\"); valid: "
                        "plan.moe_router_groups >= %d dividing the experts (e.g. the nodes of "
                        "the expert group), or plan.moe_router_group_topk 0 (no limit)",
                        M, M);
  if (M > G)
    return sc_error_set(err, SC_EINPUT,
                        "plan.moe_router_group_topk: %d is more than plan.moe_router_groups %d; "
                        "valid: 1..%d",
                        M, G, G);
  if (s->model.kind != SC_MODEL_TRANSFORMER) return SC_OK; /* lower_check: a graph's */
  const sc_transformer *m = &s->model.tf;
  char what[48];
  snprintf(what, sizeof what, "model.experts %d", m->experts);
  int etp = p->etp > 0 ? p->etp : p->tp;
  int rc = plan_moe_groups_fit(s, m->experts, m->topk, p->ep, etp, what, "", err);
  return rc ? rc : override_groups(s, what, err);
}

static int dispatcher(const sc_scenario *s, sc_error *err) {
  const sc_plan *p = &s->plan;
  if ((unsigned)p->moe_dispatcher >= PLAN_MOE_DISPATCHERS) {
    char valid[64] = "";
    for (int i = 0; i < PLAN_MOE_DISPATCHERS; i++)
      snprintf(valid + strlen(valid), sizeof valid - strlen(valid), "%s\"%s\"", i ? ", " : "",
               plan_moe_dispatcher_names[i]);
    return sc_error_set(err, SC_EINPUT, "plan.moe_dispatcher: %d; valid: %s",
                        (int)p->moe_dispatcher, valid);
  }
  int rc = plan_moe_base(s, err);
  if (rc) return rc;
  if (p->moe_dispatcher == SC_MOE_FLEX && p->ep <= 1)
    return sc_error_set(err, SC_EINPUT,
                        "plan.moe_dispatcher: \"flex\" moves tokens between expert-parallel "
                        "ranks and needs plan.ep > 1 (ep is %d); valid: \"alltoall\" or "
                        "\"allgather\", or plan.ep > 1",
                        p->ep);
  return SC_OK;
}

int plan_moe_base(const sc_scenario *s, sc_error *err) {
  const sc_plan *p = &s->plan;
  if (p->overlap_ep && p->moe_dispatcher == SC_MOE_ALLGATHER)
    return sc_error_set(err, SC_EINPUT,
                        "plan.overlap_ep: needs plan.moe_dispatcher \"alltoall\" or \"flex\" "
                        "(Megatron: \"overlap_moe_expert_parallel_comm is supported with "
                        "alltoall/flex token dispatcher\"); valid: plan.overlap_ep false, or "
                        "another dispatcher");
  if (p->moe_shared_expert_overlap && p->moe_dispatcher == SC_MOE_ALLGATHER)
    return sc_error_set(err, SC_EINPUT,
                        "plan.moe_shared_expert_overlap: needs plan.moe_dispatcher \"alltoall\" "
                        "or \"flex\" (Megatron: \"moe_shared_expert_overlap only works with "
                        "alltoall or flex token dispatcher\"); valid: "
                        "plan.moe_shared_expert_overlap false, or another dispatcher");
  if (p->moe_shared_expert_overlap && p->overlap_ep)
    return sc_error_set(err, SC_EINPUT,
                        "plan.moe_shared_expert_overlap: not with plan.overlap_ep (Megatron: "
                        "\"disable moe_shared_expert_overlap when enabling "
                        "overlap_moe_expert_parallel_comm\"); valid: one of the two");
  if (p->moe_dispatcher != SC_MOE_FLEX) return SC_OK; /* moe_flex_sms unread */
  int sms = s->cluster.gpu.sm_count;
  if (p->moe_flex_sms < 1 || (sms > 0 && p->moe_flex_sms > sms))
    return sc_error_set(err, SC_EINPUT, "plan.moe_flex_sms: %d; valid: 1..%d (the GPU's SMs)",
                        p->moe_flex_sms, sms > 0 ? sms : 1024);
  if (p->moe_capacity > 0)
    return sc_error_set(err, SC_EINPUT,
                        "plan.moe_dispatcher: \"flex\" (DeepEP) does not pad experts to "
                        "capacity (Megatron: \"Flex token dispatcher with deepep backend does "
                        "not support moe_pad_expert_input_to_capacity\"); valid: "
                        "plan.moe_capacity 0, or \"alltoall\"");
  return SC_OK;
}

/* Megatron-Core splits biased experts only whole: "Bias in Moe is only
 * supported when ETP==1" (transformer_config.py, add_bias_linear with
 * num_moe_experts). */
static int expert_bias(const sc_scenario *s, sc_error *err) {
  const sc_plan *p = &s->plan;
  if (s->model.kind != SC_MODEL_TRANSFORMER) return SC_OK;
  const sc_transformer *m = &s->model.tf;
  int etp = p->etp > 0 ? p->etp : p->tp;
  if (m->experts <= 1 || !m->bias || etp <= 1) return SC_OK;
  return sc_error_set(err, SC_EINPUT,
                      "plan.etp: %d splits the experts of a model with biases (model.bias), "
                      "which Megatron-Core refuses (\"Bias in Moe is only supported when "
                      "ETP==1\"); valid: plan.etp 1, or model.bias false",
                      etp);
}

int plan_moe(const sc_scenario *s, sc_error *err) {
  int rc = dispatcher(s, err);
  if (rc == SC_OK) rc = expert_bias(s, err);
  return rc ? rc : routing_groups(s, err);
}
