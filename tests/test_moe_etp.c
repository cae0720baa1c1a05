/*
 * test_moe_etp.c -- MoE dispatch when the experts are split by expert
 * tensor parallelism etp = tp > 1 (Megatron's default): each rank routes
 * its own sequence-parallel shard, the all-to-all moves its top-k copies,
 * the expert-tensor group all-gathers them (combine: reduce-scatter, then
 * the all-to-all back); the allgather dispatcher gathers over the etp x ep
 * group at once, flex sends each token to all etp ranks of its experts.
 * Bytes by hand on a small model, both engines, etp 1 and sp off as they
 * were.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "lowered.h"

/* lowered_small_moe at tp 2, dp 4, ep 4 (etp = tp), sequence parallel. */
static sc_scenario small(sc_moe_dispatcher d) { return lowered_small_moe(2, 4, d); }

static const double S = 1024, H = 1024, K = 2, E = 2; /* tokens, hidden, top-k, bytes */

/* The layer's tasks from norm2 on, as "name name ...". */
static void moe_names(const lowered *l, char *buf, size_t cap) {
  lowered_names_from(l, "norm2", buf, cap);
}

Test(moe_etp, alltoall_routes_the_shard_then_gathers_over_etp) {
  sc_scenario s = small(SC_MOE_ALLTOALL);
  lowered l;
  lowered_make(&l, &s);
  char got[512];
  moe_names(&l, got, sizeof got);
  /* no tensor-parallel gather before the router, no reduce-scatter after
   * the combine: the dispatcher's legs instead */
  cr_assert_str_eq(got,
                   "norm2 router route ep_dispatch etp_gather ep_sort fc1 swiglu fc2 ep_unsort "
                   "etp_scatter ep_combine unroute bias_dropout_add2");
  /* a rank holds S / tp = 512 tokens; it sends their 2 copies of 1024
   * 16-bit values: 512 x 2 x 1024 x 2 = 2 MiB; the expert-tensor group
   * gathers what its 2 ranks received: 4 MiB (the nccl-tests size, the
   * gathered output) */
  const xg_task *a2a = lowered_task(&l, "ep_dispatch"), *ag = lowered_task(&l, "etp_gather");
  const xg_task *rs = lowered_task(&l, "etp_scatter"), *back = lowered_task(&l, "ep_combine");
  cr_assert(a2a->coll == COLL_ALL_TO_ALL && back->coll == COLL_ALL_TO_ALL);
  cr_assert(ag->coll == COLL_ALL_GATHER && rs->coll == COLL_REDUCE_SCATTER);
  cr_assert_float_eq(a2a->bytes, 2097152, 1e-3, "dispatch %g", a2a->bytes);
  cr_assert_float_eq(back->bytes, 2097152, 1e-3, "combine %g", back->bytes);
  cr_assert_float_eq(a2a->bytes, S / 2 * K * H * E, 1e-3, "dispatch");
  cr_assert_float_eq(ag->bytes, 4194304, 1e-3, "etp gather %g", ag->bytes);
  cr_assert_float_eq(rs->bytes, 4194304, 1e-3, "etp scatter %g", rs->bytes);
  /* the groups: ep 4 ranks tp apart, etp the 2 neighbouring ranks */
  const xg_group *ge = &l.x.groups[a2a->group], *gt = &l.x.groups[ag->group];
  cr_assert(ge->kind == XG_GROUP_EP && ge->ranks == 4 && ge->stride == 2, "ep %d/%d",
            ge->ranks, ge->stride);
  cr_assert(gt->kind == XG_GROUP_EP && gt->ranks == 2 && gt->stride == 1, "etp %d/%d",
            gt->ranks, gt->stride);
  /* the router and route run on the 512 local tokens; the experts on all
   * 1024 x 2 copies of the group: 2 local experts of 1024 rows each, fc1
   * (SwiGLU: 2 x 2048 columns) split over etp 2 */
  cr_assert_float_eq(lowered_task(&l, "router")->m, S / 2, 1e-9, "router rows");
  const xg_task *fc1 = lowered_task(&l, "fc1");
  cr_assert(fc1->batch == 2 && fc1->m == S * K / 2 && fc1->n == 2048 && fc1->k == H,
            "fc1 %g x [%g %g %g]", fc1->batch, fc1->m, fc1->n, fc1->k);
  lowered_done(&l);
}

Test(moe_etp, imbalance_scales_both_legs) {
  sc_scenario s = small(SC_MOE_ALLTOALL);
  s.plan.moe_imbalance = 1.5;
  lowered l;
  lowered_make(&l, &s);
  cr_assert_float_eq(lowered_task(&l, "ep_dispatch")->bytes, 1.5 * 2097152, 1e-3, "a2a");
  cr_assert_float_eq(lowered_task(&l, "etp_gather")->bytes, 1.5 * 4194304, 1e-3, "etp gather");
  lowered_done(&l);
}

Test(moe_etp, allgather_gathers_over_the_etp_x_ep_group_at_once) {
  sc_scenario s = small(SC_MOE_ALLGATHER);
  lowered l;
  lowered_make(&l, &s);
  char got[512];
  moe_names(&l, got, sizeof got);
  cr_assert_str_eq(got, "norm2 router route ep_dispatch fc1 swiglu fc2 ep_combine unroute "
                        "bias_dropout_add2");
  /* the 8 ranks of the expert group each bring 512 tokens once (not
   * top-k copies): 8 x 512 x 1024 x 2 = 8 MiB gathered */
  const xg_task *d = lowered_task(&l, "ep_dispatch"), *c = lowered_task(&l, "ep_combine");
  cr_assert(d->coll == COLL_ALL_GATHER && c->coll == COLL_REDUCE_SCATTER);
  cr_assert_float_eq(d->bytes, 8388608, 1e-3, "%g", d->bytes);
  cr_assert_float_eq(c->bytes, 8388608, 1e-3, "%g", c->bytes);
  const xg_group *g = &l.x.groups[d->group];
  cr_assert(g->kind == XG_GROUP_EP && g->ranks == 8 && g->stride == 1, "%d/%d", g->ranks,
            g->stride);
  lowered_done(&l);
}

Test(moe_etp, flex_sends_each_token_to_all_etp_ranks_of_its_experts) {
  sc_scenario s = small(SC_MOE_FLEX);
  lowered l;
  lowered_make(&l, &s);
  /* one node: no network leg. A token's 2 experts fall on 4 (1 -
   * C(6,2)/C(8,2)) = 13/7 distinct ep ranks, each 2 GPUs: 26/7 GPUs of the
   * 8, 7/8 of them not the token's own: 13/4 NVLink sends of 2 KiB */
  const xg_task *d = lowered_task(&l, "ep_dispatch");
  cr_assert(d->flex && d->flex_inter == 0, "%d %g", d->flex, d->flex_inter);
  cr_assert_float_eq(d->bytes, S / 2 * H * E * 13.0 / 4, 1e-3, "%g", d->bytes);
  cr_assert(!lowered_find(&l, "etp_gather"), "DeepEP delivers to every etp rank itself");
  const xg_group *g = &l.x.groups[d->group];
  cr_assert(g->ranks == 8 && g->stride == 1, "%d/%d", g->ranks, g->stride);
  lowered_done(&l);
}

Test(moe_etp, etp1_and_sp_off_as_before) {
  /* etp 1: ep folds over tp, the experts are token-local: one all-to-all
   * of the shard's copies, no expert-tensor leg */
  sc_scenario s = small(SC_MOE_ALLTOALL);
  s.plan.etp = 1;
  lowered l;
  lowered_make(&l, &s);
  cr_assert_float_eq(lowered_task(&l, "ep_dispatch")->bytes, 2097152, 1e-3, "etp 1");
  cr_assert(!lowered_find(&l, "etp_gather") && !lowered_find(&l, "ag_router"));
  lowered_done(&l);
  /* sequence parallelism off: every tensor-parallel rank holds all 1024
   * tokens and sends their copies, 4 MiB; the partial sums come back and
   * are all-reduced after */
  s = small(SC_MOE_ALLTOALL);
  s.plan.sp = 0;
  lowered_make(&l, &s);
  cr_assert_float_eq(lowered_task(&l, "ep_dispatch")->bytes, 4194304, 1e-3, "sp off");
  cr_assert(!lowered_find(&l, "etp_gather"));
  lowered_done(&l);
}

Test(moe_etp, overlap_ep_hides_the_etp_legs_too) {
  sc_scenario s = small(SC_MOE_ALLTOALL);
  s.plan.overlap_ep = 1;
  lowered l;
  lowered_make(&l, &s);
  cr_assert_eq(lowered_task(&l, "etp_gather")->overlap, XG_OVL_OTHER);
  cr_assert_eq(lowered_task(&l, "etp_scatter")->overlap, XG_OVL_OTHER);
  cr_assert_eq(lowered_task(&l, "ep_dispatch")->overlap, XG_OVL_OTHER);
  lowered_done(&l);
}

Test(moe_etp, engines_agree_and_the_legs_count_as_expert_parallel) {
  for (int d = SC_MOE_ALLTOALL; d <= SC_MOE_FLEX; d++) {
    for (int ov = 0; ov <= 1; ov++) {
      if (ov && d == SC_MOE_ALLGATHER) continue; /* Megatron overlaps only alltoall/flex */
      sc_scenario s = small((sc_moe_dispatcher)d);
      s.plan.overlap_ep = ov;
      sc_result a = lowered_predict(&s, 0), b = lowered_predict(&s, 1);
      cr_assert(a.time.ep_comm > 0, "dispatcher %d", d);
      cr_assert(fabs(b.step_s / a.step_s - 1) < 0.02, "dispatcher %d overlap %d: closed %g, "
                "event %g", d, ov, a.step_s, b.step_s);
    }
  }
  /* the Mixtral example (tp 2, ep 8 over nodes): routing the shard halves
   * what crosses the network, so the all-to-all dispatch beats gathering
   * the sequence over tp first; both engines agree */
  const char *ex[] = {"mixtral-8x7b-h100.json", "mixtral-8x22b-modelzoo-h100.json",
                      "qwen3-235b-modelzoo-h100.json"};
  /* the model zoo's runs with etp 1 swapped for etp = tp (Qwen3's ep 32
   * then no longer divides dp 16) */
  const char *set[][2] = {{"plan.etp=0", "plan.ep=8"},
                          {"plan.etp=2", "plan.ep=8"},
                          {"plan.etp=2", "plan.ep=16"}};
  for (int i = 0; i < 3; i++) {
    char path[512];
    snprintf(path, sizeof path, "%s/examples/%s", SC_SOURCE_DIR, ex[i]);
    sc_scenario s;
    sc_error err = {0};
    cr_assert_eq(sc_scenario_load_file(&s, path, set[i], 2, &err), SC_OK, "%s", err.msg);
    sc_result a = lowered_predict(&s, 0), b = lowered_predict(&s, 1);
    cr_assert(fabs(b.step_s / a.step_s - 1) < 0.02, "%s: closed %g, event %g", ex[i], a.step_s,
              b.step_s);
  }
}

static const char *const FEATURE_SPLIT_GRAPH =
    "{\"seq\": 1024, \"blocks\": [{\"name\": \"moe\", \"repeat\": 2, \"input\": {\"name\": "
    "\"x\", \"shape\": [1024, 1024]}, \"ops\": ["
    "{\"name\": \"router\", \"op\": \"linear\", \"in\": [\"x\"], \"out\": \"r\", "
    "\"out_features\": 8},"
    "{\"name\": \"route\", \"op\": \"moe_route\", \"in\": [\"x\", \"r\"], \"out\": \"xr\", "
    "\"experts\": 8, \"topk\": 2},"
    "{\"name\": \"e1\", \"op\": \"linear\", \"in\": [\"xr\"], \"out\": \"h\", "
    "\"out_features\": 1024, \"expert\": true, \"experts\": 8, \"parallel\": \"column\"},"
    "{\"name\": \"unroute\", \"op\": \"moe_unroute\", \"in\": [\"h\"], \"out\": \"m\", "
    "\"experts\": 8, \"topk\": 2},"
    "{\"name\": \"res\", \"op\": \"add\", \"in\": [\"m\", \"x\"], \"out\": \"y\"}], "
    "\"output\": \"y\"}]}";

/* A JSON graph whose last expert linear is column-parallel (its output
 * split by features, not partial sums): the combine gathers it over the
 * tensor-parallel ranks and re-splits it by sequence instead of reduce-
 * scattering; both engines run it and agree. */
Test(moe_etp, a_graphs_feature_split_expert_output_comes_back_split_by_sequence) {
  const char *path = "moe_etp_graph.json";
  sc_scenario s = small(SC_MOE_ALLTOALL);
  lowered_graph_model(&s, path, FEATURE_SPLIT_GRAPH);
  sc_result a = lowered_predict(&s, 0), b = lowered_predict(&s, 1);
  cr_assert(a.time.ep_comm > 0);
  cr_assert(fabs(b.step_s / a.step_s - 1) < 0.02, "closed %g, event %g", a.step_s, b.step_s);
  /* the lowering: no reduce-scatter of the expert-tensor leg; the 2 x 1024
   * feature-split copies gathered over tp (4 MiB), then the shard's
   * copies sent back (2 MiB) */
  lowered l;
  sc_error err = {0};
  memset(&l, 0, sizeof l);
  l.s = s;
  cr_assert_eq(sc_scenario_resolve(&l.s, &err), SC_OK, "%s", err.msg);
  cr_assert_eq(model_graph.build(&l.s.model, &l.g, &err), SC_OK, "%s", err.msg);
  xg_init(&l.x);
  cr_assert_eq(lower_plan(l.g, &l.s, &l.ls, &l.x, &err), SC_OK, "%s", err.msg);
  char got[512];
  const xg_segment *sg = lowered_layer_seg(&l);
  size_t len = 0;
  for (int i = 0; i < sg->n_tasks; i++) {
    char nm[64];
    lower_task_name(&l.x.tasks[sg->first_task + i], nm, sizeof nm);
    len += (size_t)snprintf(got + len, sizeof got - len, "%s%s", len ? " " : "", nm);
  }
  cr_assert_str_eq(got, "router route ep_dispatch etp_gather ep_sort e1 ag_e1 ep_unsort ep_combine "
                        "unroute res");
  cr_assert_float_eq(lowered_task(&l, "ag_e1")->bytes, 4194304, 1e-3, "%g",
                     lowered_task(&l, "ag_e1")->bytes);
  cr_assert_float_eq(lowered_task(&l, "ep_combine")->bytes, 2097152, 1e-3, "%g",
                     lowered_task(&l, "ep_combine")->bytes);
  lowered_done(&l);
  remove(path);
}

Test(moe_etp, biased_experts_split_by_etp_are_refused_as_megatron_does) {
  sc_scenario s = small(SC_MOE_ALLTOALL);
  s.model.tf.bias = 1;
  sc_result r;
  sc_error err = {0};
  cr_assert_eq(sc_predict(&s, &r, &err), SC_EINPUT);
  cr_assert(strstr(err.msg, "plan.etp: 2") && strstr(err.msg, "only supported when ETP==1") &&
                strstr(err.msg, "valid: plan.etp 1"),
            "%s", err.msg);
  s.plan.etp = 1;
  cr_assert_eq(sc_predict(&s, &r, &err), SC_OK, "%s", err.msg);
  s.plan.etp = 0;
  s.plan.tp = 1; /* etp = tp = 1: whole experts */
  cr_assert_eq(sc_predict(&s, &r, &err), SC_OK, "%s", err.msg);
}
