/*
 * rsjob.h -- the recommendation job the recsys tests build on
 * (test_recsys.c, test_recsys_trace.c, test_recsys_budget.c,
 * test_recsys_order.c): `spec`
 * tables (the `tables` grammar) with 13 dense features and a 256-1 top
 * MLP over their concatenation, on n A100 80 GB, 8 a node, 25 GB/s NICs.
 * Header-only: each test executable includes it once.
 */
#ifndef SC_TESTS_RSJOB_H
#define SC_TESTS_RSJOB_H

#include <criterion/criterion.h>

#include "stepcast_recsys.h"

static inline void rs_test_job(sc_rs_job *j, const char *spec, int n, sc_rs_dist d,
                               double alpha) {
  sc_rs_job_default(j);
  j->model.inter = SC_RS_CONCAT;
  j->model.dense_features = 13;
  j->model.n_top = 2;
  j->model.top[0] = 256;
  j->model.top[1] = 1;
  j->gpus = n;
  j->gpus_per_node = n < 8 ? n : 8;
  j->nic_bw = 25e9;
  sc_error e = {0};
  int rc = sc_rs_tables_parse(spec, d, alpha, &j->model, &e);
  cr_assert_eq(rc, SC_OK, "%s: %s", spec, e.msg);
}

/* *p: every table of j sharded as kind k (split: sc_rs_plan_uniform's),
 * asserted to plan; the caller frees it (sc_rs_plan_free). */
static inline void rs_test_plan(const sc_rs_job *j, sc_rs_shard_kind k, int split,
                                sc_rs_plan *p) {
  sc_error e = {0};
  cr_assert_eq(sc_rs_plan_uniform(j, k, split, p, &e), SC_OK, "%s", e.msg);
}

/* *r: j predicted under p, asserted to evaluate; the caller frees it
 * (sc_rs_result_free). */
static inline void rs_test_eval(const sc_rs_job *j, const sc_rs_plan *p, sc_rs_result *r) {
  sc_error e = {0};
  cr_assert_eq(sc_rs_evaluate(j, p, r, &e), SC_OK, "%s", e.msg);
}

/* The example jobs the tests load (a sharding given in each). */
static const char *const rs_test_examples[] = {"examples/recsys/dlrm_criteo_8gpu.json",
                                               "examples/recsys/my_tables.json"};
#define RS_TEST_EXAMPLES 2

/* Job and sharding of the job file at path, asserted to load. */
static inline void rs_test_load(const char *path, sc_rs_job *j, sc_rs_plan *p) {
  int autop;
  sc_error e = {0};
  cr_assert_eq(sc_rs_job_load_file(path, j, p, &autop, &e), SC_OK, "%s: %s", path, e.msg);
}

#endif
