/*
 * test_moe_dispatch.c -- the MoE token dispatchers (plan.moe_dispatcher)
 * and group-limited routing (plan.moe_router_groups / _group_topk):
 * distinct destinations by hand, the collective each dispatcher lowers
 * to, the flex cost against its two parts, both engines, bad input.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/engine.h"
#include "lower/moe_dispatch.h"
#include "lowered.h"

/* ------------------------------------------------- distinct destinations */

Test(moe_dispatch, distinct_units_by_hand) {
  /* 8 experts on 2 units of 4, top-2, no group limit: a token misses a
   * unit when both picks fall in the other 4: C(4,2)/C(8,2) = 6/28, so
   * 2 (1 - 6/28) = 11/7 units */
  cr_assert_float_eq(moed_distinct(8, 2, 0, 0, 2), 11.0 / 7, 1e-12, "%g",
                     moed_distinct(8, 2, 0, 0, 2));
  /* groups = units, one chosen: both picks in one unit */
  cr_assert_float_eq(moed_distinct(8, 2, 2, 1, 2), 1.0, 1e-12, "node-limited to 1");
  /* 8 experts on 8 units (one each), top-2: always 2 distinct */
  cr_assert_float_eq(moed_distinct(8, 8, 0, 0, 2), 2.0, 1e-12, "one expert a unit");
  /* groups finer than units: 4 experts, 2 units of 2, 4 groups of 1,
   * choose 2 groups and top-2 = exactly those 2 experts, which share a
   * unit with chance 1/3: 1/3 x 1 + 2/3 x 2 = 5/3 */
  cr_assert_float_eq(moed_distinct(4, 2, 4, 2, 2), 5.0 / 3, 1e-12, "%g",
                     moed_distinct(4, 2, 4, 2, 2));
}

/* C(a - b, k) / C(a, k) by the product, for the DeepSeek-V3 numbers */
static double ratio(double a, double b, int k) {
  double r = 1;
  for (int i = 0; i < k; i++) r *= (a - b - i) / (a - i);
  return r;
}

Test(moe_dispatch, deepseek_v3_node_limited_routing) {
  /* 256 experts over ep 64 on 8 nodes (32 experts a node, 4 a GPU),
   * top-8, 8 groups (one a node), 4 chosen: the pool is 4 nodes' 128
   * experts, each node missed with C(96,8)/C(128,8) */
  double nodes = 4 * (1 - ratio(128, 32, 8));
  cr_assert_float_eq(moed_distinct(256, 8, 8, 4, 8), nodes, 1e-12, "%g", nodes);
  cr_assert(fabs(nodes - 3.6290) < 1e-4, "%g", nodes);
  /* without the limit: 8 (1 - C(224,8)/C(256,8)) = 5.2947 nodes */
  double free_nodes = 8 * (1 - ratio(256, 32, 8));
  cr_assert_float_eq(moed_distinct(256, 8, 0, 0, 8), free_nodes, 1e-12, "%g", free_nodes);
  cr_assert(fabs(free_nodes - 5.2947) < 1e-4, "%g", free_nodes);
  /* GPUs: the pool's 32 GPUs, each missed with C(124,8)/C(128,8) */
  double gpus = 32 * (1 - ratio(128, 4, 8));
  cr_assert_float_eq(moed_distinct(256, 64, 8, 4, 8), gpus, 1e-12, "%g", gpus);
  /* the limit never raises what a token reaches */
  cr_assert(nodes < free_nodes && gpus < 8);
}

Test(moe_dispatch, alignment) {
  cr_assert(moed_aligned(256, 8, 8) && moed_aligned(256, 64, 8) && moed_aligned(256, 8, 64));
  cr_assert(moed_aligned(24, 2, 8));  /* 12 experts a unit, 3 a group: nest */
  cr_assert(!moed_aligned(24, 4, 6)); /* 6 a unit, 4 a group: straddle */
}

/* ------------------------------------------------------------- lowering */

/* Mixtral 8x7B (8 experts, top-2, hidden 4096, seq 4096) on 16 GPUs in
 * nodes of 4: tp 1, pp 1, ep 8 spans 2 nodes of 4 ranks. */
static sc_scenario mixtral16(sc_moe_dispatcher d) {
  sc_scenario s;
  sc_scenario_default(&s);
  s.model = *sc_model_preset("mixtral-8x7b");
  s.cluster.gpus = 16;
  s.cluster.gpus_per_node = 4;
  s.cluster.nvlink_domain = 4;
  s.plan.tp = 1;
  s.plan.pp = 1;
  s.plan.dp = 0;
  s.plan.ep = 8;
  s.plan.vpp = 1;
  s.plan.schedule = SC_SCHED_1F1B;
  s.plan.global_batch = 64;
  s.plan.micro_batch = 1;
  s.plan.moe_dispatcher = d;
  return s;
}

static const double T = 4096, H = 4096, E = 2; /* tokens a GPU, hidden, bytes */

Test(moe_dispatch, alltoall_sends_topk_copies_whatever_the_groups) {
  sc_scenario s = mixtral16(SC_MOE_ALLTOALL);
  lowered l;
  lowered_make(&l, &s);
  const xg_task *d = lowered_task(&l, "ep_dispatch");
  cr_assert(d->coll == COLL_ALL_TO_ALL && !d->flex);
  cr_assert_float_eq(d->bytes, T * 2 * H * E, 1, "%g", d->bytes);
  lowered_done(&l);
  /* node-limited routing keeps each token's expected copies on its own
   * node (k/N): the all-to-all's bytes do not move */
  s.plan.moe_router_groups = 2;
  s.plan.moe_router_group_topk = 1;
  lowered_make(&l, &s);
  cr_assert_float_eq(lowered_task(&l, "ep_dispatch")->bytes, T * 2 * H * E, 1, "grouped");
  lowered_done(&l);
}

Test(moe_dispatch, allgather_gathers_every_ranks_tokens_once) {
  sc_scenario s = mixtral16(SC_MOE_ALLGATHER);
  s.plan.moe_imbalance = 1.5; /* every rank gets every token: no effect */
  lowered l;
  lowered_make(&l, &s);
  const xg_task *d = lowered_task(&l, "ep_dispatch"), *c = lowered_task(&l, "ep_combine");
  cr_assert(d->coll == COLL_ALL_GATHER && c->coll == COLL_REDUCE_SCATTER, "%d %d", d->coll,
            c->coll);
  /* 8 ranks x 4096 tokens x 4096 x 2 bytes, not top-2 copies */
  cr_assert_float_eq(d->bytes, 8 * T * H * E, 1, "%g", d->bytes);
  cr_assert_float_eq(c->bytes, 8 * T * H * E, 1, "%g", c->bytes);
  /* backward: the conjugates */
  cr_assert(xg_comm_op(d, 1) == COLL_REDUCE_SCATTER && xg_comm_op(c, 1) == COLL_ALL_GATHER);
  lowered_done(&l);
}

Test(moe_dispatch, flex_sends_once_per_node_then_nvlink) {
  /* 2 nodes of 4 ranks, one expert a rank, top-2, no limit: distinct
   * nodes 2 (1 - C(4,2)/C(8,2)) = 11/7, half of them remote: 11/14
   * network sends a token; distinct GPUs always 2, 3/4 of them not the
   * GPU the token arrives at: 3/2 NVLink sends */
  sc_scenario s = mixtral16(SC_MOE_FLEX);
  lowered l;
  lowered_make(&l, &s);
  const xg_task *d = lowered_task(&l, "ep_dispatch");
  cr_assert(d->coll == COLL_ALL_TO_ALL && d->flex);
  double inter = 11.0 / 14, intra = 1.5;
  cr_assert_float_eq(d->bytes, T * H * E * (inter + intra), 1, "%g", d->bytes);
  cr_assert_float_eq(d->flex_inter, inter / (inter + intra), 1e-12, "%g", d->flex_inter);
  lowered_done(&l);
  /* node-limited to 1 of the 2 nodes: 1 node, remote half the time */
  s.plan.moe_router_groups = 2;
  s.plan.moe_router_group_topk = 1;
  lowered_make(&l, &s);
  d = lowered_task(&l, "ep_dispatch");
  cr_assert_float_eq(d->bytes, T * H * E * (0.5 + 1.5), 1, "%g", d->bytes);
  cr_assert_float_eq(d->flex_inter, 0.25, 1e-12, "%g", d->flex_inter);
  lowered_done(&l);
}

/* --------------------------------------------------------------- engines */

Test(moe_dispatch, flex_cost_is_the_slower_of_network_and_nvlink) {
  sc_scenario s = mixtral16(SC_MOE_FLEX);
  lowered l;
  lowered_make(&l, &s);
  eng e;
  lowered_eng(&l, &e);
  sc_error err = {0};
  cr_assert_eq(eng_prepare(&e, &err), SC_OK, "%s", err.msg);
  const xg_task *d = lowered_task(&l, "ep_dispatch");
  const grp *g = &e.grps[d->group];
  cr_assert(g->g.ranks == 8 && g->g.ranks_per_node == 4, "%d %d", g->g.ranks,
            g->g.ranks_per_node);
  /* the network part: 2 nodes, one rank each, an all-to-all whose
   * remote half is the inter bytes; NVLink: the 4 ranks of a node */
  double inter = d->bytes * d->flex_inter, intra = d->bytes - inter;
  grp gi = *g, ga = *g;
  gi.g.ranks = 2, gi.g.ranks_per_node = 1, gi.stride = 4;
  ga.g.ranks = 4, ga.g.ranks_per_node = 4;
  int sms = l.s.cluster.gpu.sm_count;
  double ti = grp_cost(NULL, sms, &gi, COLL_ALL_TO_ALL, inter * 2, NULL);
  double ta = grp_cost(NULL, sms, &ga, COLL_ALL_TO_ALL, intra * 4 / 3, NULL);
  grp_share sh;
  double t = eng_task_comm_share(&e, d, 0, &sh);
  cr_assert_float_eq(t, fmax(ti, ta), 1e-12, "flex %g, network %g, nvlink %g", t, ti, ta);
  cr_assert(ti > ta, "network-bound at 400 Gb/s a GPU: %g vs %g", ti, ta);
  /* its kernels hold moe_flex_sms SMs */
  cr_assert_float_eq(sh.sm, 20.0 / sms, 1e-12, "%g", sh.sm);
  /* cheaper than the all-to-all of top-2 copies, half of them remote */
  double a2a = grp_cost(NULL, sms, g, COLL_ALL_TO_ALL, T * 2 * H * E, NULL);
  cr_assert(t < a2a, "flex %g vs all-to-all %g", t, a2a);
  eng_free(&e);
  lowered_done(&l);
}

Test(moe_dispatch, engines_agree_for_every_dispatcher) {
  for (int d = SC_MOE_ALLTOALL; d <= SC_MOE_FLEX; d++) {
    sc_scenario s = mixtral16((sc_moe_dispatcher)d);
    s.plan.moe_router_groups = 2;
    s.plan.moe_router_group_topk = 1;
    sc_result a = lowered_predict(&s, 0), b = lowered_predict(&s, 1);
    cr_assert(a.time.ep_comm > 0, "dispatcher %d", d);
    cr_assert(fabs(b.step_s / a.step_s - 1) < 0.02, "dispatcher %d: closed %g, event %g", d,
              a.step_s, b.step_s);
  }
}

Test(moe_dispatch, flex_sms_slow_the_overlapped_compute) {
  sc_scenario s = mixtral16(SC_MOE_FLEX);
  s.plan.overlap_ep = 1;
  s.plan.global_batch = 128;
  sc_result a = lowered_predict(&s, 0);
  s.plan.moe_flex_sms = 64;
  sc_result b = lowered_predict(&s, 0);
  cr_assert(b.step_s > a.step_s, "20 SMs %g, 64 SMs %g", a.step_s, b.step_s);
}

/* ------------------------------------------------------------ bad input */

static void bad(sc_scenario *s, const char *want) {
  sc_result r;
  sc_error err = {0};
  cr_assert_eq(sc_predict(s, &r, &err), SC_EINPUT, "expected an error with '%s'", want);
  cr_assert(strstr(err.msg, want), "'%s' not in: %s", want, err.msg);
}

Test(moe_dispatch, bad_input_names_what_is_valid) {
  sc_scenario s = mixtral16(SC_MOE_FLEX);
  s.plan.ep = 1;
  bad(&s, "needs plan.ep > 1");
  s = mixtral16(SC_MOE_FLEX);
  s.plan.moe_capacity = 1.25;
  bad(&s, "moe_pad_expert_input_to_capacity");
  s = mixtral16(SC_MOE_ALLTOALL);
  s.plan.moe_dispatcher = (sc_moe_dispatcher)7;
  bad(&s, "valid: \"alltoall\", \"allgather\", \"flex\"");
  s = mixtral16(SC_MOE_ALLTOALL);
  s.plan.moe_router_groups = 2;
  s.plan.moe_router_group_topk = 3;
  bad(&s, "valid: 1..2");
  s.plan.moe_router_groups = 3;
  s.plan.moe_router_group_topk = 1;
  bad(&s, "must divide model.experts 8");
  s.plan.moe_router_groups = 0;
  s.plan.moe_router_group_topk = 1;
  bad(&s, "moe_router_num_groups must be specified");
  s = mixtral16(SC_MOE_FLEX);
  s.plan.moe_flex_sms = 100000;
  bad(&s, "plan.moe_flex_sms");
  /* Megatron overlaps the expert-parallel communication only for these two */
  s = mixtral16(SC_MOE_ALLGATHER);
  s.plan.overlap_ep = 1;
  bad(&s, "plan.overlap_ep: needs plan.moe_dispatcher \"alltoall\" or \"flex\"");
  s.plan.moe_dispatcher = SC_MOE_FLEX;
  sc_result r;
  sc_error err = {0};
  cr_assert_eq(sc_predict(&s, &r, &err), SC_OK, "%s", err.msg);
}

/* Groups without a group topk: Megatron-Core neither checks nor limits
 * them (it does only with moe_router_group_topk), so they are taken and
 * cost as unlimited routing, even groups that would not divide the
 * experts; the report says so. */
Test(moe_dispatch, groups_without_group_topk_route_unlimited) {
  sc_scenario s = mixtral16(SC_MOE_FLEX);
  sc_result free_r = lowered_predict(&s, 0);
  s.plan.moe_router_groups = 3;
  sc_result r;
  sc_error err = {0};
  cr_assert_eq(sc_predict(&s, &r, &err), SC_OK, "%s", err.msg);
  cr_assert_float_eq(r.step_s, free_r.step_s, 1e-12 * free_r.step_s, "%g vs unlimited %g",
                     r.step_s, free_r.step_s);
  s.plan.moe_router_groups = 2;
  s.plan.moe_router_group_topk = 1;
  sc_result limited = lowered_predict(&s, 0);
  cr_assert(limited.step_s < free_r.step_s, "the limit cuts flex's sends: %g vs %g",
            limited.step_s, free_r.step_s);
  s.plan.moe_router_group_topk = 0;
  char *text = NULL;
  size_t len = 0;
  FILE *out = open_memstream(&text, &len);
  cr_assert_eq(sc_predict(&s, &r, &err), SC_OK, "%s", err.msg);
  sc_report_prediction(out, SC_FORMAT_TABLE, &s, &r, 0);
  fclose(out);
  cr_assert(strstr(text, "routing unlimited (2 router groups without moe_router_group_topk"),
            "%s", text);
  cr_assert_null(strstr(text, "routing limited"), "%s", text);
  free(text);
}

/* Routing groups that straddle the expert ranks: Megatron takes any group
 * count dividing the experts; only flex's model needs them nested. 24
 * experts on ep 8 (3 a rank, 12 a node of 4 ranks), 6 groups of 4. */
Test(moe_dispatch, straddling_groups_refused_only_for_flex) {
  sc_scenario s = mixtral16(SC_MOE_ALLTOALL);
  s.model.tf.experts = 24;
  s.plan.moe_router_groups = 6;
  s.plan.moe_router_group_topk = 1;
  sc_result a = lowered_predict(&s, 0);
  s.plan.moe_router_groups = s.plan.moe_router_group_topk = 0;
  sc_result b = lowered_predict(&s, 0);
  /* the all-to-all's bytes do not depend on the routing */
  cr_assert_float_eq(a.step_s, b.step_s, 1e-12 * b.step_s, "%g vs %g", a.step_s, b.step_s);
  s.plan.moe_router_groups = 6;
  s.plan.moe_router_group_topk = 1;
  s.plan.moe_dispatcher = SC_MOE_FLEX;
  bad(&s, "straddle expert-parallel ranks or nodes (ep 8 over 2 node(s))");
  bad(&s, "valid: 1, 2, 4, 8, 24, or \"alltoall\"");
}

/* 12 experts (one a rank) over ep 12 on 24 GPUs in nodes of 6: tp 1 x
 * cp 2 puts 6 ranks on a node (2 nodes); an override giving layers 0..3
 * tp 2 (cp 1) puts 3 there (4 nodes). 6 groups of 2 experts nest with 6
 * experts a node, not with 3: Megatron limits every layer's routing the
 * same, and flex's model cannot cost the straddling layers, which are
 * refused rather than run unlimited under a report of limited routing. */
static sc_scenario twelve_experts(sc_moe_dispatcher d) {
  sc_scenario s = mixtral16(d);
  s.model.tf.experts = 12;
  s.cluster.gpus = 24;
  s.cluster.gpus_per_node = s.cluster.nvlink_domain = 6;
  s.plan.cp = 2;
  s.plan.ep = 12;
  s.plan.global_batch = 48;
  s.plan.moe_router_groups = 6;
  s.plan.moe_router_group_topk = 3;
  sc_override_init(&s.plan.overrides[0]);
  s.plan.overrides[0].first = 0;
  s.plan.overrides[0].last = 3;
  s.plan.overrides[0].tp = 2;
  s.plan.n_overrides = 1;
  return s;
}

Test(moe_dispatch, override_layers_the_groups_do_not_fit_are_refused_under_flex) {
  sc_scenario s = twelve_experts(SC_MOE_FLEX);
  bad(&s, "plan.moe_router_groups: 6 splits model.experts 12 into groups that straddle "
          "expert-parallel ranks or nodes (ep 12 over 4 node(s) in layer 0 with tp 2 by "
          "plan.overrides)");
  bad(&s, "valid: 1, 2, 4, 12, or \"alltoall\"");
  s.plan.n_overrides = 0;
  (void)lowered_predict(&s, 0); /* the plan's own layout fits */
  /* the all-to-all keeps the groups in every layer: its bytes do not
   * depend on them */
  s = twelve_experts(SC_MOE_ALLTOALL);
  sc_result limited = lowered_predict(&s, 0);
  s.plan.moe_router_groups = s.plan.moe_router_group_topk = 0;
  sc_result free_r = lowered_predict(&s, 0);
  cr_assert_float_eq(limited.step_s, free_r.step_s, 1e-12 * free_r.step_s, "%g vs %g",
                     limited.step_s, free_r.step_s);
}

/* A graph's experts: ep must divide them (Megatron's rule) at the key
 * that set the layer's ep, and the routing groups must fit each layer's
 * layout as a transformer's do; neither falls back silently. */
static sc_scenario graph_moe(const char *path, int experts) {
  char json[1024];
  snprintf(json, sizeof json,
          "{\"seq\": 1024, \"blocks\": [{\"name\": \"moe\", \"repeat\": 4, \"input\": "
          "{\"name\": \"x\", \"shape\": [1024, 1024]}, \"ops\": ["
          "{\"name\": \"router\", \"op\": \"linear\", \"in\": [\"x\"], \"out\": \"r\", "
          "\"out_features\": %d},"
          "{\"name\": \"route\", \"op\": \"moe_route\", \"in\": [\"x\", \"r\"], \"out\": "
          "\"xr\", \"experts\": %d, \"topk\": 2},"
          "{\"name\": \"e1\", \"op\": \"linear\", \"in\": [\"xr\"], \"out\": \"h\", "
          "\"out_features\": 1024, \"parallel\": \"column\"},"
          "{\"name\": \"unroute\", \"op\": \"moe_unroute\", \"in\": [\"h\"], \"out\": \"m\", "
          "\"experts\": %d, \"topk\": 2},"
          "{\"name\": \"res\", \"op\": \"add\", \"in\": [\"m\", \"x\"], \"out\": \"y\"}], "
          "\"output\": \"y\"}]}",
          experts, experts, experts);
  sc_scenario s = twelve_experts(SC_MOE_FLEX);
  lowered_graph_model(&s, path, json);
  return s;
}

Test(moe_dispatch, a_graphs_experts_ep_does_not_divide_are_refused) {
  const char *path = "moe_dispatch_graph6.json";
  sc_scenario s = graph_moe(path, 6);
  s.plan.n_overrides = 0;
  s.plan.moe_router_groups = s.plan.moe_router_group_topk = 0;
  bad(&s, "plan.ep: 12 does not divide the 6 experts of op 'route' (block 'moe'; Megatron: "
          "\"Number of experts should be a multiple of expert model parallel_size.\"); "
          "valid ep: 1, 2, 3, 6");
  s.plan.ep = 6;
  (void)lowered_predict(&s, 0);
  s.plan.overrides[0].tp = SC_INHERIT;
  s.plan.overrides[0].ep = 4;
  s.plan.n_overrides = 1;
  bad(&s, "plan.overrides[0].ep: 4 does not divide the 6 experts");
  remove(path);
}

Test(moe_dispatch, a_graphs_override_layers_the_groups_do_not_fit_are_refused_under_flex) {
  const char *path = "moe_dispatch_graph12.json";
  sc_scenario s = graph_moe(path, 12);
  bad(&s, "plan.moe_router_groups: 6 splits the 12 experts of op 'route' (block 'moe') into "
          "groups that straddle expert-parallel ranks or nodes (ep 12 over 4 node(s) with tp 2 "
          "by plan.overrides)");
  s.plan.n_overrides = 0;
  (void)lowered_predict(&s, 0);
  s.plan.moe_router_groups = 5;
  bad(&s, "plan.moe_router_groups: 5 must divide the 12 experts of op 'route'");
  remove(path);
}

static const char *const UNROUTED_GRAPH =
    "{\"seq\": 1024, \"blocks\": [{\"name\": \"moe\", \"repeat\": 2, \"input\": "
    "{\"name\": \"x\", \"shape\": [1024, 1024]}, \"ops\": ["
    "{\"name\": \"e1\", \"op\": \"linear\", \"in\": [\"x\"], \"out\": \"h\", "
    "\"out_features\": 1024, \"expert\": true, \"experts\": 8, \"parallel\": \"column\"},"
    "{\"name\": \"e2\", \"op\": \"linear\", \"in\": [\"h\"], \"out\": \"y\", "
    "\"out_features\": 1024, \"expert\": true, \"experts\": 8, \"parallel\": \"row\"}], "
    "\"output\": \"y\"}]}";

/* Expert layers with no moe_route in their block: nothing routes their
 * tokens, which go all-to-all whatever the dispatcher (as before the
 * checks above; flex would otherwise read a routing of 0 experts). */
Test(moe_dispatch, expert_layers_without_routing_go_all_to_all) {
  const char *path = "moe_dispatch_unrouted.json";
  sc_scenario s = mixtral16(SC_MOE_FLEX);
  lowered_graph_model(&s, path, UNROUTED_GRAPH);
  s.plan.moe_router_groups = 2;
  s.plan.moe_router_group_topk = 1;
  sc_result flex = lowered_predict(&s, 0);
  s.plan.moe_dispatcher = SC_MOE_ALLTOALL;
  sc_result a2a = lowered_predict(&s, 0);
  cr_assert(a2a.time.ep_comm > 0);
  cr_assert_float_eq(flex.step_s, a2a.step_s, 1e-12 * a2a.step_s, "flex %g, all-to-all %g",
                     flex.step_s, a2a.step_s);
  remove(path);
}

/* ------------------------------------------------------- validation rows */

#include "validate/rowmoe.h"

Test(moe_dispatch, a_rows_dispatcher_from_its_notes_else_megatrons_default) {
  sc_plan p;
  sc_plan_default(&p);
  cr_assert_eq(rowm_moe("Megatron-Core, --moe-token-dispatcher-type alltoall", ROWD_FW_MCORE, &p),
               0);
  cr_assert_eq(p.moe_dispatcher, SC_MOE_ALLTOALL);
  cr_assert_eq(rowm_moe("token dispatcher: all-gather", ROWD_FW_UNKNOWN, &p), 0);
  cr_assert_eq(p.moe_dispatcher, SC_MOE_ALLGATHER);
  cr_assert_eq(rowm_moe("DeepEP for the all-to-all", ROWD_FW_MCORE, &p), 0);
  cr_assert_eq(p.moe_dispatcher, SC_MOE_FLEX);
  /* nothing named: Megatron's argparse default, said to the row */
  cr_assert_eq(rowm_moe("bf16, distributed optimizer", ROWD_FW_MCORE, &p), 1);
  cr_assert_eq(p.moe_dispatcher, SC_MOE_ALLGATHER);
  /* NeMo's MoE model configs set the all-to-all over that default */
  cr_assert_eq(rowm_moe("NeMo 2.0 recipe, bf16", ROWD_FW_MCORE, &p), 1);
  cr_assert_eq(p.moe_dispatcher, SC_MOE_ALLTOALL);
  /* a model named Nemotron does not make the row NeMo's */
  cr_assert_eq(rowm_moe("Nemotron MoE, Megatron-Core", ROWD_FW_MCORE, &p), 1);
  cr_assert_eq(p.moe_dispatcher, SC_MOE_ALLGATHER);
  /* MaxText is not Megatron: the scenario default stays */
  sc_plan_default(&p);
  cr_assert_eq(rowm_moe("MaxText", ROWD_FW_MAXTEXT, &p), 0);
  cr_assert_eq(p.moe_dispatcher, SC_MOE_ALLTOALL);
  /* group-limited routing in either spelling */
  rowm_moe("--moe-router-num-groups: 8 --moe-router-group-topk: 4 flex dispatcher",
           ROWD_FW_MCORE, &p);
  cr_assert(p.moe_router_groups == 8 && p.moe_router_group_topk == 4 &&
                p.moe_dispatcher == SC_MOE_FLEX,
            "%d %d %d", p.moe_router_groups, p.moe_router_group_topk, p.moe_dispatcher);
  rowm_moe("moe_router_num_groups=16, moe_router_group_topk=2", ROWD_FW_MCORE, &p);
  cr_assert(p.moe_router_groups == 16 && p.moe_router_group_topk == 2);
  /* "num_query_groups" is not a routing group */
  rowm_moe("num_query_groups 8", ROWD_FW_MCORE, &p);
  cr_assert_eq(p.moe_router_groups, 0);
}

Test(moe_dispatch, a_rows_columns_win_over_its_notes) {
  sc_plan p;
  sc_plan_default(&p);
  cr_assert_eq(rowm_moe_columns("DeepEP; num_groups 4 group_topk 2", "alltoall", "8", "3",
                                ROWD_FW_MCORE, &p),
               0);
  cr_assert(p.moe_dispatcher == SC_MOE_ALLTOALL && p.moe_router_groups == 8 &&
                p.moe_router_group_topk == 3,
            "%d %d %d", p.moe_dispatcher, p.moe_router_groups, p.moe_router_group_topk);
  /* blank columns: the notes */
  cr_assert_eq(rowm_moe_columns("DeepEP; num_groups 4 group_topk 2", "", "", "", ROWD_FW_MCORE,
                                &p),
               0);
  cr_assert(p.moe_dispatcher == SC_MOE_FLEX && p.moe_router_groups == 4);
  /* neither: Megatron's default */
  cr_assert_eq(rowm_moe_columns("", "", "", "", ROWD_FW_UNKNOWN, &p), 1);
  cr_assert_eq(p.moe_dispatcher, SC_MOE_ALLGATHER);
  cr_assert_eq(rowm_moe_columns("", "flex", "", "", ROWD_FW_UNKNOWN, &p), 0);
  cr_assert_eq(p.moe_dispatcher, SC_MOE_FLEX);
}

/* ------------------------------------------------- the model zoo examples */

/* The Megatron-MoE model zoo's runs as examples/ writes them: both
 * engines within 2 % for every dispatcher, and DeepSeek-V3's flex with
 * node-limited routing sends less across nodes than its all-to-all. */
Test(moe_dispatch, model_zoo_examples_agree_in_both_engines) {
  const char *ex[] = {"deepseek-v3-modelzoo-h100.json", "qwen3-235b-modelzoo-h100.json",
                      "mixtral-8x22b-modelzoo-h100.json"};
  const char *disp[] = {"plan.moe_dispatcher=\"alltoall\"", "plan.moe_dispatcher=\"allgather\"",
                        "plan.moe_dispatcher=\"flex\""};
  for (int i = 0; i < 3; i++) {
    char path[512];
    snprintf(path, sizeof path, "%s/examples/%s", SC_SOURCE_DIR, ex[i]);
    double ep[3];
    for (int d = 0; d < 3; d++) {
      sc_scenario s;
      sc_error err = {0};
      cr_assert_eq(sc_scenario_load_file(&s, path, &disp[d], 1, &err), SC_OK, "%s", err.msg);
      sc_result a = lowered_predict(&s, 0), b = lowered_predict(&s, 1);
      cr_assert(fabs(b.step_s / a.step_s - 1) < 0.02, "%s %s: closed %g, event %g", ex[i],
                disp[d], a.step_s, b.step_s);
      ep[d] = a.time.ep_comm;
    }
    if (i == 0) cr_assert(ep[2] < 0.6 * ep[0], "DeepSeek-V3 flex %g vs all-to-all %g", ep[2], ep[0]);
    if (i == 2) cr_assert(ep[2] <= ep[0] * (1 + 1e-9), "Mixtral 8x22B: one node, no network leg");
  }
}

#include "validate/rowtext.h"

Test(moe_dispatch, rowtext_near_looks_both_ways_within_the_span) {
  cr_assert(rowtext_near("flex dispatcher", "dispatcher", "flex", 24));
  cr_assert(rowtext_near("Dispatcher type: FLEX", "dispatcher", "flex", 24));
  /* 30 characters away: too far */
  cr_assert(!rowtext_near("flex ------------------------------ dispatcher", "dispatcher", "flex", 24));
  cr_assert(!rowtext_near("dispatcher ------------------------------ flex", "dispatcher", "flex", 24));
  cr_assert(!rowtext_near(NULL, "dispatcher", "flex", 24));
  cr_assert(!rowtext_near("flex", "dispatcher", "flex", 24));
}
