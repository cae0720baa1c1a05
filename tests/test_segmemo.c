/*
 * test_segmemo.c -- the memo of lowered segments (src/lower/segmemo.h) and
 * the engine's memo of segment queues (src/engine/qmemo.h) change nothing:
 *
 * - every plan of a search space lowered through the memo of segments
 *   alone (no memo of whole plans in front of it, so every plan takes
 *   its segments from it) is, field by field, the graph lower_plan gives,
 *   in the search's order and in reverse, and the memo is hit;
 * - every plan evaluated as the search does (job_lower, job_bound on a
 *   topology, job_finish: both memos and the memo of lowered plans) gives
 *   bit for bit what sc_job_predict gives on another job without them,
 *   and the memo of queues is hit.
 */
#include <criterion/criterion.h>
#include <string.h>

#include "core/mem.h"
#include "exec/xg.h"
#include "job/job.h"
#include "lower/lcache.h"
#include "lower/lower.h"
#include "lower/segmemo.h"
#include "memsame.h"
#include "model/builder.h"
#include "search/space.h"
#include "searchcases.h"
#include "searchcost.h"
#include "stepcast.h"

/* Every valid plan of in's space (in the search's order, or reversed)
 * lowered through one memo of segments and on its own; the memo's hits.
 * Fails the test on the first difference. */
static long lower_space(const sc_scenario *in, int reverse) {
  sc_error err = {0};
  sc_scenario base;
  base_of(in, &base);
  wg_graph *g = graph_of(&base);
  space_pt *pts;
  long n, valid = 0, tagged = 0;
  space_of(&base, g, 8, 64, 8, 4, &pts, &n);
  segm m;
  segm_init(&m);
  lower_scratch ls1 = {0}, ls2 = {0};
  xg got, fresh;
  xg_init(&got);
  xg_init(&fresh);
  for (long k = 0; k < n; k++) {
    long i = reverse ? n - 1 - k : k;
    sc_scenario s = base;
    space_plan(&base.plan, &pts[i], &s.plan);
    if (sc_scenario_resolve(&s, &err) != SC_OK) continue;
    int rc1 = lower_plan_memo(g, &s, &ls1, &m, &got, &err);
    int rc2 = lower_plan(g, &s, &ls2, &fresh, &err);
    cr_assert_eq(rc1, rc2, "point %ld: memo rc %d, lower_plan rc %d", i, rc1, rc2);
    if (rc1 != SC_OK) continue;
    valid++;
    cr_assert(lcache_xg_equal(&got, &fresh),
              "point %ld (tp %d pp %d dp %d ep %d etp %d mb %ld vpp %d zero %d recompute %d/%d):"
              " the graph from the memo of segments differs from lower_plan's",
              i, s.plan.tp, s.plan.pp, s.plan.dp, s.plan.ep, s.plan.etp, s.plan.micro_batch,
              s.plan.vpp, s.plan.zero, (int)s.plan.recompute, s.plan.recompute_layers);
    for (int j = 0; j < got.n_segs; j++) tagged += got.segs[j].memo_id != 0;
  }
  cr_assert_gt(valid, 100, "only %ld valid plans", valid);
  cr_assert_gt(tagged, 0, "no segment numbered by the memo");
  cr_log_info("%ld valid plans: %ld segments from the memo, %ld lowered", valid, m.hits,
              m.misses);
  long hits = m.hits;
  segm_free(&m);
  lower_scratch_free(&ls1);
  lower_scratch_free(&ls2);
  xg_free(&got);
  xg_free(&fresh);
  mem_free(pts);
  wg_free(g);
  return hits;
}

Test(segmemo, llama_space_as_lower_plan) {
  sc_scenario s = llama();
  cr_assert_gt(lower_space(&s, 0), 1000, "the memo of segments is hardly hit");
}

Test(segmemo, llama_space_reversed_as_lower_plan) {
  sc_scenario s = llama();
  cr_assert_gt(lower_space(&s, 1), 1000);
}

Test(segmemo, moe_fp8_space_as_lower_plan) {
  sc_scenario s = moe_fp8();
  cr_assert_gt(lower_space(&s, 0), 100);
}

/* Every plan of s's space as the search evaluates it (job_lower, on a
 * topology job_bound, then job_finish on one job: the memos of plans,
 * segments and queues) and with sc_job_predict on another job (none of
 * them): the same result bit for bit; the memo of queues' hits. */
static long phases_as_predict(const sc_scenario *in) {
  sc_error err = {0};
  sc_scenario base;
  base_of(in, &base);
  sc_job *a, *b;
  two_jobs(&base, &a, &b);
  space_pt *pts;
  long n, costed = 0;
  space_of(&base, job_graph(a), 8, 64, 8, 4, &pts, &n);
  for (long i = 0; i < n; i++) {
    sc_plan p;
    space_plan(&base.plan, &pts[i], &p);
    sc_memory m;
    sc_result r1, r2;
    double bound = 0;
    int rc1 = search_cost(a, &p, &m, &bound, &r1, &err);
    memset(&r2, 0, sizeof r2);
    int rc2 = sc_job_predict(b, &p, &r2, &err);
    cr_assert_eq(rc1, rc2, "plan %ld: phases rc %d, predict rc %d (%s)", i, rc1, rc2, err.msg);
    if (rc1 != SC_OK) continue;
    costed++;
    cr_assert(same_result(&r1, &r2),
              "plan %ld (tp %d pp %d mb %ld vpp %d zero %d recompute %d/%d offload %d): step "
              "%.17g s as the search costs it, %.17g s predicted",
              i, p.tp, p.pp, p.micro_batch, p.vpp, p.zero, (int)p.recompute,
              p.recompute_layers, p.offload_layers, r1.step_s, r2.step_s);
    cr_assert(bound <= r1.step_s, "plan %ld: bound %.17g above the step %.17g", i, bound,
              r1.step_s);
  }
  cr_assert_gt(costed, 100, "only %ld plans costed", costed);
  long hits = job_queue_memo_hits(a);
  cr_log_info("%ld plans costed, %ld segment queues from the memo", costed, hits);
  mem_free(pts);
  sc_job_close(a);
  sc_job_close(b);
  return hits;
}

Test(qmemo, llama_plans_as_predicted) {
  sc_scenario s = llama();
  cr_assert_gt(phases_as_predict(&s), 1000, "the memo of queues is hardly hit");
}

Test(qmemo, moe_fp8_plans_as_predicted) {
  sc_scenario s = moe_fp8();
  cr_assert_gt(phases_as_predict(&s), 100);
}

/* On a topology the bound and the full cost are two modes of the engine:
 * each its own queues in the memo. */
Test(qmemo, llama_fat_tree_plans_as_predicted) {
  sc_scenario s = llama_fat_tree();
  cr_assert_gt(phases_as_predict(&s), 1000);
}

/* Same kind, ranks and stride. */
static int same_group(const xg_group *a, const xg_group *b) {
  return a->kind == b->kind && a->ranks == b->ranks && a->stride == b->stride;
}

/* A hit replays the segment's group calls on the graph it goes into: its
 * collectives run on groups of the same shape, at that graph's indices
 * (here one later than where the segment was lowered). */
Test(segmemo, a_hit_maps_its_groups_into_the_graph) {
  sc_error err = {0};
  sc_scenario s = llama();
  s.plan.tp = 8, s.plan.pp = 1, s.plan.cp = 1, s.plan.ep = 1, s.plan.vpp = 1;
  s.plan.dp = 64, s.plan.micro_batch = 1, s.plan.zero = 3, s.plan.fsdp_shard = 8;
  cr_assert_eq(sc_scenario_resolve(&s, &err), SC_OK, "%s", err.msg);
  wg_graph *g = NULL;
  cr_assert_eq(model_builder_for(s.model.kind)->build(&s.model, &g, &err), SC_OK);
  segm m;
  segm_init(&m);
  lower_scratch ls = {0};
  xg a, b;
  xg_init(&a);
  xg_init(&b);
  cr_assert_eq(lower_plan_memo(g, &s, &ls, &m, &a, &err), SC_OK, "%s", err.msg);
  int layer = -1;
  for (int i = 0; i < a.n_segs; i++)
    if (a.segs[i].role == WG_ROLE_LAYER) layer = i;
  cr_assert_geq(layer, 0);
  const xg_segment *sa = &a.segs[layer];
  cr_assert_neq(sa->memo_id, 0);
  cr_assert_geq(sa->rep_group, 0, "ZeRO 3 with a shard: a replica group");
  cr_assert_geq(xg_add_group(&b, XG_GROUP_PP, 2, 12345), 0); /* a group of its own first */
  strat st = {sa->tp, sa->cp, sa->ep, sa->sp, sa->zero, sa->recompute, sa->hp, sa->etp};
  cr_assert_eq(segm_begin(&m, &s), SC_OK);
  int i = segm_fetch(&m, sa->block, &st, &b);
  cr_assert_geq(i, 0, "the segment lowered just now is not in the memo");
  const xg_segment *sb = &b.segs[i];
  cr_assert_eq(sb->n_tasks, sa->n_tasks);
  cr_assert_eq(sb->memo_id, sa->memo_id);
  cr_assert(same_group(&b.groups[sb->dp_group], &a.groups[sa->dp_group]));
  cr_assert(same_group(&b.groups[sb->rep_group], &a.groups[sa->rep_group]));
  int comms = 0;
  for (int k = 0; k < sa->n_tasks; k++) {
    const xg_task *ta = &a.tasks[sa->first_task + k], *tb = &b.tasks[sb->first_task + k];
    cr_assert_eq(ta->kind, tb->kind, "task %d", k);
    if (ta->kind != XG_COMM) continue;
    comms++;
    cr_assert(same_group(&b.groups[tb->group], &a.groups[ta->group]),
              "task %d: group %d of the graph it went into is not the shape of group %d", k,
              tb->group, ta->group);
    cr_assert_eq(tb->group, ta->group + 1, "task %d: group %d, lowered on %d", k, tb->group,
                 ta->group);
  }
  cr_assert_gt(comms, 0);
  segm_free(&m);
  lower_scratch_free(&ls);
  xg_free(&a);
  xg_free(&b);
  wg_free(g);
}
