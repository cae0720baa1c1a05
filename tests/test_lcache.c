/*
 * test_lcache.c -- the memo of lowered plans (src/lower/lcache.h) gives
 * exactly what lower_plan gives, over whole search spaces: every plan's
 * execution graph from the memo, compared field by field with the plan
 * lowered on its own, in the search's order (so that the ZeRO stages,
 * recomputation modes and offloading variants hit the graphs of their
 * neighbours and get their own stage and mode written back).
 */
#include <criterion/criterion.h>
#include <string.h>

#include "core/mem.h"
#include "exec/xg.h"
#include "job/job.h"
#include "lower/lcache.h"
#include "lower/lower.h"
#include "memsame.h"
#include "search/space.h"
#include "searchcases.h"
#include "stepcast.h"

/* The memo beside a plain lowering: each scenario lowered through both. */
typedef struct twin {
  lcache c;               /* the memo under test */
  lower_scratch ls1, ls2; /* the memo's scratch, lower_plan's */
  xg fresh;               /* lower_plan's graph of the last scenario */
} twin;

static void twin_init(twin *t) {
  lcache_init(&t->c);
  t->ls1 = t->ls2 = (lower_scratch){0};
  xg_init(&t->fresh);
}

static void twin_free(twin *t) {
  lcache_free(&t->c);
  lower_scratch_free(&t->ls1);
  lower_scratch_free(&t->ls2);
  xg_free(&t->fresh);
}

/* s lowered through the memo (its graph in *got) and on its own (into
 * t->fresh); asserts both return the same code, and returns it. */
static int twin_lower(twin *t, const wg_graph *g, const sc_scenario *s, const xg **got,
                      sc_error *err) {
  int rc1 = lcache_lower(&t->c, g, s, &t->ls1, got, err);
  int rc2 = lower_plan(g, s, &t->ls2, &t->fresh, err);
  cr_assert_eq(rc1, rc2, "tp %d pp %d dp %d zero %d: memo rc %d, lower_plan rc %d", s->plan.tp,
               s->plan.pp, s->plan.dp, s->plan.zero, rc1, rc2);
  return rc1;
}

/* Every valid plan of s's space through the memo and on its own; the
 * memo's hit count. Fails the test on the first difference. */
static long compare_space(const sc_scenario *in) {
  sc_error err = {0};
  sc_scenario base;
  base_of(in, &base);
  wg_graph *g = graph_of(&base);
  space_pt *pts;
  long n;
  space_of(&base, g, 8, 64, 16, 4, &pts, &n);
  twin t;
  twin_init(&t);
  long valid = 0;
  for (long i = 0; i < n; i++) {
    sc_scenario s = base;
    space_plan(&base.plan, &pts[i], &s.plan);
    if (sc_scenario_resolve(&s, &err) != SC_OK) {
      if (i == 0) cr_log_info("point 0: %s", err.msg);
      continue;
    }
    const xg *got = NULL;
    if (twin_lower(&t, g, &s, &got, &err) != SC_OK) continue;
    valid++;
    cr_assert(lcache_xg_equal(got, &t.fresh),
              "point %ld (tp %d pp %d dp %d mb %d vpp %d zero %d shard %d recompute %d/%d "
              "offload %d): the memo's graph differs from lower_plan's",
              i, s.plan.tp, s.plan.pp, s.plan.dp, s.plan.micro_batch, s.plan.vpp, s.plan.zero,
              s.plan.fsdp_shard, (int)s.plan.recompute, s.plan.recompute_layers,
              s.plan.offload_layers);
  }
  cr_assert_gt(valid, 100, "only %ld valid plans", valid);
  cr_assert_eq(t.c.hits + t.c.misses, valid);
  cr_log_info("%ld valid plans, %ld from the memo", valid, t.c.hits);
  long hits = t.c.hits;
  twin_free(&t);
  mem_free(pts);
  wg_free(g);
  return hits;
}

/* ZeRO 0-3, HSDP shards, every recomputation mode, offloading. */
Test(lcache, llama_space_as_lower_plan) {
  sc_scenario s = llama();
  long hits = compare_space(&s);
  cr_assert_gt(hits, 500, "the memo found only %ld lowered plans again", hits);
}

Test(lcache, moe_fp8_space_as_lower_plan) {
  sc_scenario s = moe_fp8();
  cr_assert_gt(compare_space(&s), 0);
}

/* Overrides may set their own ZeRO stage and recomputation: then the
 * memo keeps the plan's in its key (a plan differing only there is
 * lowered again, never taken from its neighbour). */
Test(lcache, overrides_keep_zero_and_recompute_in_the_key) {
  sc_scenario s = llama();
  s.plan.n_overrides = 1;
  sc_override *ov = &s.plan.overrides[0];
  sc_override_init(ov);
  ov->first = 0, ov->last = 3;
  ov->recompute = SC_RECOMP_FULL;
  ov->zero = 1;
  compare_space(&s);
}

/* The comparison sees a difference in what the memo writes back. */
Test(lcache, equal_sees_zero_and_recompute) {
  sc_scenario s;
  sc_scenario_default(&s);
  sc_error err = {0};
  cr_assert_eq(sc_scenario_resolve(&s, &err), SC_OK, "%s", err.msg);
  wg_graph *g = graph_of(&s);
  lower_scratch ls = {0};
  xg a, b;
  xg_init(&a);
  xg_init(&b);
  cr_assert_eq(lower_plan(g, &s, &ls, &a, &err), SC_OK);
  cr_assert_eq(lower_plan(g, &s, &ls, &b, &err), SC_OK);
  cr_assert(lcache_xg_equal(&a, &b));
  int layer = -1;
  for (int i = 0; i < b.n_segs; i++)
    if (b.segs[i].role == WG_ROLE_LAYER) layer = i;
  cr_assert_geq(layer, 0);
  b.segs[layer].zero ^= 1;
  cr_assert_not(lcache_xg_equal(&a, &b));
  b.segs[layer].zero ^= 1;
  b.segs[layer].recompute = b.segs[layer].recompute == SC_RECOMP_FULL ? SC_RECOMP_NONE
                                                                       : SC_RECOMP_FULL;
  cr_assert_not(lcache_xg_equal(&a, &b));
  xg_free(&a);
  xg_free(&b);
  lower_scratch_free(&ls);
  wg_free(g);
}

/* ZeRO 3 with an HSDP shard adds the replica group, so the memo keeps
 * the stage in its key there; the plan check refuses a shard under the
 * other stages, so only the ZeRO 3 plan lowers, and lowers as on its
 * own. */
Test(lcache, hsdp_shard_keeps_zero_in_the_key) {
  sc_scenario base = llama();
  base.plan.tp = 8, base.plan.pp = 1, base.plan.cp = 1, base.plan.ep = 1, base.plan.vpp = 1;
  base.plan.dp = 64, base.plan.micro_batch = 1, base.plan.fsdp_shard = 8;
  sc_error err = {0};
  sc_scenario m = base;
  cr_assert_eq(sc_scenario_resolve_model(&m, &err), SC_OK, "%s", err.msg);
  wg_graph *g = graph_of(&m);
  twin t;
  twin_init(&t);
  int lowered = 0;
  for (int zero = 3; zero >= 0; zero--) {
    sc_scenario s = base;
    s.plan.zero = zero;
    if (sc_scenario_resolve(&s, &err) != SC_OK) continue;
    const xg *got;
    cr_assert_eq(twin_lower(&t, g, &s, &got, &err), SC_OK, "%s", err.msg);
    cr_assert(lcache_xg_equal(got, &t.fresh), "zero %d, shard %d", zero, s.plan.fsdp_shard);
    lowered++;
  }
  cr_assert_eq(lowered, 1);
  twin_free(&t);
  wg_free(g);
}

/* ------------------------------------- memory and step through a job */

/* The first `most` valid plans of s's space as the search evaluates them
 * (job_lower from the job's memo, then job_finish) and as sc_job_predict
 * gives them (lowered on its own): the same memory of the most loaded
 * stage and the same result, bit for bit. The memo's hit count. */
static long job_space_as_predict(const sc_scenario *in, long most) {
  sc_error err = {0};
  sc_scenario base;
  base_of(in, &base);
  sc_job *j = NULL;
  cr_assert_eq(sc_job_open(&base, &j, &err), SC_OK, "%s", err.msg);
  space_pt *pts;
  long n, valid = 0, hits = 0;
  space_of(&base, job_graph(j), 8, 64, 8, 2, &pts, &n);
  for (long i = 0; i < n && valid < most; i++) {
    sc_plan p;
    space_plan(&base.plan, &pts[i], &p);
    sc_memory m;
    if (job_lower(j, &p, &m, &err) != SC_OK) continue;
    sc_result a, b;
    cr_assert_eq(job_finish(j, &a, &err), SC_OK, "point %ld: %s", i, err.msg);
    cr_assert_eq(sc_job_predict(j, &p, &b, &err), SC_OK, "point %ld: %s", i, err.msg);
    valid++;
    cr_assert(mem_same(&m, &b.mem) && mem_same(&a.mem, &b.mem),
              "point %ld (tp %d pp %d dp %d zero %d shard %d recompute %d/%d offload %d): "
              "memory %.6g from the memo, %.6g on its own",
              i, p.tp, p.pp, p.dp, p.zero, p.fsdp_shard, (int)p.recompute, p.recompute_layers,
              p.offload_layers, m.total, b.mem.total);
    cr_assert(a.step_s == b.step_s && !memcmp(&a.time, &b.time, sizeof a.time),
              "point %ld (zero %d recompute %d/%d offload %d): step %.9g s from the memo, "
              "%.9g s on its own",
              i, p.zero, (int)p.recompute, p.recompute_layers, p.offload_layers, a.step_s,
              b.step_s);
  }
  hits = job_memo_hits(j);
  cr_log_info("%ld plans evaluated, %ld lowerings from the memo", valid, hits);
  cr_assert_gt(valid, 0, "no valid plan");
  mem_free(pts);
  sc_job_close(j);
  return hits;
}

/* AMP (fp32 weights, 16-bit GEMMs, casts per micro-batch) over ZeRO
 * stages, HSDP shards, partial recomputation and offloading. */
Test(lcache, job_amp_space_as_predict) {
  sc_scenario s = llama();
  s.cluster.gpus = 64;
  s.plan.global_batch = 128;
  s.plan.amp = 1;
  cr_assert_gt(job_space_as_predict(&s, 400), 50);
}

/* MoE in fp8 with bf16 first and last layers (per-layer strategies). */
Test(lcache, job_moe_space_as_predict) {
  sc_scenario s = moe_fp8();
  cr_assert_gt(job_space_as_predict(&s, 300), 0);
}

/* A JSON workload graph (examples/graphs/gpt-2layer.json). */
Test(lcache, job_graph_space_as_predict) {
  sc_scenario s;
  sc_scenario_default(&s);
  s.model.kind = SC_MODEL_GRAPH;
  snprintf(s.model.graph.path, sizeof s.model.graph.path, "%s/examples/graphs/gpt-2layer.json",
           SC_SOURCE_DIR);
  s.cluster.gpu = *sc_gpu_preset("a100-sxm4-80gb");
  s.cluster.gpus = 16;
  s.plan.global_batch = 64;
  cr_assert_gt(job_space_as_predict(&s, 400), 0);
}

/* The memo keeps the scenario outside the plan once (its context): the
 * same plan on another cluster is a miss, lowered as on its own, and
 * every slot of the first cluster is forgotten then (a miss again when
 * it comes back, a hit after that). */
Test(lcache, another_cluster_is_a_miss) {
  sc_scenario base = llama();
  base.plan.tp = 8, base.plan.pp = 1, base.plan.cp = 1, base.plan.ep = 1, base.plan.vpp = 1;
  base.plan.dp = 64, base.plan.micro_batch = 1, base.plan.zero = 1;
  sc_error err = {0};
  sc_scenario a = base, b = base;
  b.cluster.nic_bw *= 2;
  cr_assert_eq(sc_scenario_resolve(&a, &err), SC_OK, "%s", err.msg);
  cr_assert_eq(sc_scenario_resolve(&b, &err), SC_OK, "%s", err.msg);
  wg_graph *g = graph_of(&a);
  twin t;
  twin_init(&t);
  const sc_scenario *order[] = {&a, &b, &a, &a};
  for (int i = 0; i < 4; i++) {
    const xg *got;
    cr_assert_eq(twin_lower(&t, g, order[i], &got, &err), SC_OK, "%s", err.msg);
    cr_assert(lcache_xg_equal(got, &t.fresh), "look-up %d", i);
  }
  cr_assert_eq(t.c.misses, 3);
  cr_assert_eq(t.c.hits, 1);
  twin_free(&t);
  wg_free(g);
}
