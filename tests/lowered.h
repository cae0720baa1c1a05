/*
 * lowered.h -- a scenario lowered to its execution graph, for the tests
 * that look at the lowering's output (test_lower.c, test_pipeline_layout.c).
 * Header-only: each test executable includes it once.
 */
#ifndef SC_TESTS_LOWERED_H
#define SC_TESTS_LOWERED_H

#include <criterion/criterion.h>
#include <string.h>

#include "exec/xg.h"
#include "lower/lower.h"
#include "model/builder.h"
#include "stepcast.h"

typedef struct lowered {
  sc_scenario s; /* resolved */
  wg_graph *g;   /* owned */
  xg x;
  lower_scratch ls;
} lowered;

/* Resolve `in`, build its transformer graph and lower the plan into *l;
 * any failure fails the test. Free with lowered_done. */
static inline void lowered_make(lowered *l, const sc_scenario *in) {
  sc_error err = {0};
  memset(l, 0, sizeof *l);
  l->s = *in;
  cr_assert_eq(sc_scenario_resolve(&l->s, &err), SC_OK, "%s", err.msg);
  cr_assert_eq(model_transformer.build(&l->s.model, &l->g, &err), SC_OK, "%s", err.msg);
  xg_init(&l->x);
  cr_assert_eq(lower_plan(l->g, &l->s, &l->ls, &l->x, &err), SC_OK, "%s", err.msg);
}

static inline void lowered_done(lowered *l) {
  wg_free(l->g);
  xg_free(&l->x);
  lower_scratch_free(&l->ls);
}

#endif
