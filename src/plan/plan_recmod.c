/*
 * plan_recmod.c -- Megatron-Core's selective recompute modules
 * (plan.recompute_modules, TransformerConfig.recompute_modules): their
 * names, the effective set, and the checks Megatron makes (module prefix:
 * plan_).
 *
 * Source: megatron/core/transformer/transformer_config.py (the choices,
 * the default ["core_attn"], which modules discard their output, and
 * __post_init__'s checks), ../shared/reference/megatron-lm. What each
 * module keeps and re-runs is src/lower/recmod.c.
 */
#include <stdio.h>
#include <string.h>

#include "plan/plan.h"

/* In bit order (SC_RECMOD_CORE_ATTN = bit 0, ...). */
const char *const plan_recmod_names[PLAN_RECMODS] = {
    "core_attn", "moe_act", "layernorm", "mla_up_proj", "mlp", "moe", "shared_experts"};

/* Megatron-Core's choices for layers stepcast does not build. */
static const char *const foreign[] = {"gdn_norm_out", "gdp_in_proj", "gdp_qkv", "mhc"};

unsigned plan_recmod_mask(const sc_plan *p) {
  return p->recompute_modules ? p->recompute_modules & ~(unsigned)SC_RECMOD_NONE
                              : SC_RECMOD_CORE_ATTN;
}

int plan_recmod_bit(const char *name, unsigned *bit, sc_error *err, const char *path) {
  for (int i = 0; i < PLAN_RECMODS; i++)
    if (!strcmp(name, plan_recmod_names[i])) {
      *bit = 1u << i;
      return SC_OK;
    }
  char valid[160];
  plan_recmod_list((1u << PLAN_RECMODS) - 1, valid, sizeof valid);
  for (size_t i = 0; i < sizeof foreign / sizeof *foreign; i++)
    if (!strcmp(name, foreign[i]))
      return sc_error_set(err, SC_EINPUT,
                          "%s: \"%s\" recomputes part of a GatedDeltaNet/GatedDeltaProduct or "
                          "hyper-connection layer, which stepcast does not model; valid: %s",
                          path, name, valid);
  return sc_error_set(err, SC_EINPUT, "%s: \"%s\" is not a recompute module; valid: %s", path,
                      name, valid);
}

void plan_recmod_list(unsigned mask, char *buf, size_t cap) {
  size_t n = 0;
  buf[0] = '\0';
  if (mask == SC_RECMOD_NONE) snprintf(buf, cap, "none");
  for (int i = 0; i < PLAN_RECMODS && n < cap; i++)
    if (mask & (1u << i))
      n += (size_t)snprintf(buf + n, cap - n, "%s%s", n ? ", " : "", plan_recmod_names[i]);
}

/* 1 when some layer recomputes selectively (the plan or an override). */
int plan_recmod_used(const sc_plan *p) {
  if (p->recompute == SC_RECOMP_SELECTIVE) return 1;
  for (int i = 0; i < p->n_overrides && i < SC_MAX_OVERRIDES; i++)
    if (p->overrides[i].recompute == SC_RECOMP_SELECTIVE) return 1;
  return 0;
}

/* The model-dependent checks of transformer_config.py, for model m.
 * Modules of parts the model lacks (moe on a dense model, shared_experts
 * without shared experts) Megatron accepts and finds nothing to wrap:
 * they pass, and the report says so (plan_recmod_note). */
static int recmod_model(const sc_scenario *s, unsigned set, sc_error *err) {
  const sc_plan *p = &s->plan;
  const sc_transformer *m = &s->model.tf;
  const char *k = "plan.recompute_modules";
  if (s->model.kind != SC_MODEL_TRANSFORMER && (set & ~SC_RECMOD_CORE_ATTN))
    return sc_error_set(err, SC_EINPUT,
                        "%s: modules other than core_attn need the transformer builder's model "
                        "(model.preset or its keys); valid here: [\"core_attn\"]",
                        k);
  if (s->model.kind != SC_MODEL_TRANSFORMER) return SC_OK;
  if ((set & SC_RECMOD_MOE_ACT) && !p->moe_grouped_gemm)
    return sc_error_set(err, SC_EINPUT,
                        "%s: moe_act needs plan.moe_grouped_gemm true (Megatron: \"moe_act in "
                        "recompute_modules is only supported with moe_grouped_gemm\")",
                        k);
  if ((set & SC_RECMOD_MLA_UP_PROJ) && m->kv_lora_rank < 1)
    return sc_error_set(err, SC_EINPUT,
                        "%s: mla_up_proj needs multi-latent attention (model.kv_lora_rank > 0; "
                        "Megatron: \"only supported with multi_latent_attention\")",
                        k);
  if ((set & (SC_RECMOD_MOE_ACT | SC_RECMOD_LAYERNORM)) && p->dtype == SC_FP8 &&
      p->fp8_recipe == SC_FP8_DELAYED)
    return sc_error_set(err, SC_EINPUT,
                        "%s: moe_act and layernorm with fp8 need a recipe other than delayed "
                        "scaling (Megatron: \"Delayed scaling does not support moe_act and "
                        "layernorm recompute for fp8\"); valid plan.fp8_recipe: current, block, "
                        "mxfp8",
                        k);
  return SC_OK;
}

int plan_recmod(const sc_scenario *s, sc_error *err) {
  const sc_plan *p = &s->plan;
  unsigned set = p->recompute_modules;
  if (set == 0) return SC_OK;
  unsigned all = (1u << PLAN_RECMODS) - 1;
  if ((set & SC_RECMOD_NONE) ? set != SC_RECMOD_NONE : (set & ~all) != 0)
    return sc_error_set(err, SC_EINPUT,
                        "plan.recompute_modules: 0x%x is not a set of modules (bits of 0x%x, "
                        "or 0x%x alone: an empty list)",
                        set, all, (unsigned)SC_RECMOD_NONE);
  /* Megatron checks the list only with selective granularity (and
   * ignores it otherwise: plan_recmod_note) */
  if (!plan_recmod_used(p)) return SC_OK;
  return recmod_model(s, set & all, err);
}

/* The MoE modules the model lacks: all of them on a dense model,
 * shared_experts without shared experts. */
static unsigned recmod_absent(const sc_scenario *s) {
  const sc_transformer *m = &s->model.tf;
  if (s->model.kind != SC_MODEL_TRANSFORMER) return 0;
  if (m->experts <= 1) return SC_RECMOD_MOE | SC_RECMOD_MOE_ACT | SC_RECMOD_SHARED_EXPERTS;
  return m->shared_experts < 1 ? SC_RECMOD_SHARED_EXPERTS : 0;
}

void plan_recmod_note(const sc_scenario *s, char *buf, size_t cap) {
  const sc_plan *p = &s->plan;
  char mods[160];
  buf[0] = '\0';
  if (!p->recompute_modules) return;
  if (!plan_recmod_used(p)) {
    plan_recmod_list(p->recompute_modules, mods, sizeof mods);
    snprintf(buf, cap,
             "recompute modules %s ignored: no layer recomputes selectively (plan.recompute "
             "\"%s\"; Megatron reads --recompute-modules only with granularity selective)",
             mods, plan_recomp_names[p->recompute]);
    return;
  }
  unsigned idle = p->recompute_modules & recmod_absent(s);
  if (!idle) return;
  plan_recmod_list(idle, mods, sizeof mods);
  snprintf(buf, cap, "recompute modules %s wrap nothing: the model has no %s", mods,
           s->model.tf.experts <= 1 ? "experts" : "shared experts");
}
