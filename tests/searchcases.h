/*
 * searchcases.h -- the scenarios the tests of the search's memos and
 * floors run their spaces on (test_floor.c, test_lcache.c, test_segmemo.c,
 * test_memo_mix.c): a base every cluster accepts, and bench_search's
 * Llama-3 70B cases (default network, fat-tree) and an fp8 MoE case, and
 * the space of a case under the search's bounds. Header-only: each test
 * executable includes it once (Criterion's asserts).
 */
#ifndef SC_TESTS_SEARCHCASES_H
#define SC_TESTS_SEARCHCASES_H

#include <criterion/criterion.h>
#include <stdio.h>

#include "graph/graph.h"
#include "job/job.h"
#include "model/builder.h"
#include "search/space.h"
#include "stepcast.h"
#include "../bench/benchcases.h"

/* in with a plan every such cluster accepts (the space replaces it),
 * resolved, into *base. */
static inline void base_of(const sc_scenario *in, sc_scenario *base) {
  sc_error err = {0};
  *base = *in;
  base->plan.tp = base->plan.pp = base->plan.cp = base->plan.ep = base->plan.vpp = 1;
  base->plan.dp = 0;
  base->plan.micro_batch = 0;
  cr_assert_eq(sc_scenario_resolve(base, &err), SC_OK, "%s", err.msg);
}

/* Llama-3 70B on 512 H100 (400 Gb/s a GPU) with global batch 512
 * (bench_search's case), and the same on its 2:1 fat-tree of 512 hosts. */
static inline sc_scenario llama(void) { return bench_llama(0); }
static inline sc_scenario llama_fat_tree(void) { return bench_llama(1); }

/* An MoE model (ep, etp: the dispatcher adds groups of its own) in fp8
 * with its first and last layers in bf16 (per-layer strategies), on 64
 * H100. */
static inline sc_scenario moe_fp8(void) {
  sc_scenario s;
  sc_scenario_default(&s);
  s.model = *sc_model_preset("mixtral-8x7b");
  s.cluster.gpu = *sc_gpu_preset("h100-sxm5-80gb");
  s.cluster.gpus = 64;
  s.plan.global_batch = 256;
  s.plan.dtype = SC_FP8;
  s.plan.bf16_first_layers = s.plan.bf16_last_layers = 1;
  return s;
}

/* The search space of base on graph g (the search's default options, up
 * to tp max_tp, pp max_pp, micro-batch max_mb and vpp max_vpp) into *pts
 * (owned), *n points. */
static inline void space_of(const sc_scenario *base, const wg_graph *g, int max_tp, int max_pp,
                            int max_mb, int max_vpp, space_pt **pts, long *n) {
  sc_error err = {0};
  sc_search_opts o;
  sc_search_opts_default(&o);
  o.max_tp = max_tp;
  o.max_pp = max_pp;
  o.max_micro_batch = max_mb;
  o.max_vpp = max_vpp;
  *pts = NULL;
  *n = 0;
  cr_assert_eq(space_build(base, g, &o, pts, n, &err), SC_OK, "%s", err.msg);
}

/* The workload graph of base (built by its model's builder; the caller
 * frees it with wg_free). */
static inline wg_graph *graph_of(const sc_scenario *base) {
  sc_error err = {0};
  wg_graph *g = NULL;
  cr_assert_eq(model_builder_for(base->model.kind)->build(&base->model, &g, &err), SC_OK, "%s",
               err.msg);
  return g;
}

/* Two jobs on base: *a for the path under test, *b for the reference
 * (the caller closes both with sc_job_close). */
static inline void two_jobs(const sc_scenario *base, sc_job **a, sc_job **b) {
  sc_error err = {0};
  cr_assert_eq(sc_job_open(base, a, &err), SC_OK, "%s", err.msg);
  cr_assert_eq(sc_job_open(base, b, &err), SC_OK, "%s", err.msg);
}

#endif
