/*
 * searchcost.h -- one plan costed the way the search costs it: job_lower
 * (memory into *m), job_bound on a topology (the time lower bound into
 * *bound, else left as it is), then job_finish into *r (zeroed first).
 * For the tests that compare it with sc_job_predict (test_segmemo.c,
 * test_memo_mix.c). Header-only: each test executable includes it once.
 */
#ifndef SC_TESTS_SEARCHCOST_H
#define SC_TESTS_SEARCHCOST_H

#include <string.h>

#include "job/job.h"
#include "stepcast.h"

static inline int search_cost(sc_job *a, const sc_plan *p, sc_memory *m, double *bound,
                              sc_result *r, sc_error *err) {
  memset(r, 0, sizeof *r);
  int rc = job_lower(a, p, m, err);
  if (rc == SC_OK && job_has_topology(a)) rc = job_bound(a, bound, err);
  if (rc == SC_OK) rc = job_finish(a, r, err);
  return rc;
}

#endif
