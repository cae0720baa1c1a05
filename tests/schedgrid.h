/*
 * schedgrid.h -- the pipeline-schedule grid that test_search.c and
 * test_search_space.c compare the closed form with the timeline on: one
 * dense model of 2,048 hidden, tp 8 on 8 x pp GPUs, micro-batch 1, and
 * the two engines' step times of a scenario. Header-only (Criterion's
 * asserts): each test executable includes it once.
 */
#ifndef SC_TESTS_SCHEDGRID_H
#define SC_TESTS_SCHEDGRID_H

#include <criterion/criterion.h>
#include <stdlib.h>

#include "stepcast.h"

/* *s = the grid's scenario with `layers` layers on pp stages of vpp
 * chunks and m micro-batches (interleaved when vpp > 1), not resolved. */
static inline void grid_case(sc_scenario *s, int layers, int pp, int vpp, int m) {
  sc_scenario_default(s);
  s->model.tf.layers = layers;
  s->model.tf.hidden = 2048;
  s->model.tf.heads = 16;
  s->model.tf.kv_heads = 16;
  s->model.tf.head_dim = 128;
  s->model.tf.ffn = 4 * 2048;
  s->cluster.gpus = 8 * pp;
  s->plan.tp = 8;
  s->plan.pp = pp;
  s->plan.dp = 1;
  s->plan.vpp = vpp;
  s->plan.schedule = vpp > 1 ? SC_SCHED_INTERLEAVED : SC_SCHED_1F1B;
  s->plan.micro_batch = 1;
  s->plan.global_batch = m;
}

/* The resolved scenario's step by the closed form into *closed and by
 * the timeline into *timeline (s). */
static inline void grid_both(const sc_scenario *s, double *closed, double *timeline) {
  sc_error err = {0};
  sc_result r;
  sc_span *spans;
  size_t n;
  cr_assert_eq(sc_predict(s, &r, &err), SC_OK, "%s", err.msg);
  cr_assert_eq(sc_timeline(s, &spans, &n, timeline, &err), SC_OK, "%s", err.msg);
  free(spans);
  *closed = r.step_s;
}

#endif
