/*
 * test_recsys_order.c -- the sharding planner does not depend on the order
 * the tables are listed in (rs_plan.c, canon): the example jobs, MLPerf
 * DLRM rows (../shared) whose plan moved by up to 8.3 % with the tables
 * reversed, and jobs with groups of identical tables, each searched as
 * listed, reversed and shuffled, give the same predictions for every plan
 * listed and the same plans up to the permutation (identical tables may
 * trade shards); a bad table is named as listed.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "recsys/rs_emb.h"
#include "rsjob.h"
#include "stepcast_recsys.h"

#define MLPERF SC_SHARED_DIR "/validation/recsys/mlperf_dlrm_v0.7-v2.1.csv"

/* A deterministic generator for the shuffles. */
static unsigned lcg(unsigned long long *s) {
  *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
  return (unsigned)(*s >> 33);
}

/* perm[i]: the index in the listed job of table i of the permuted one;
 * variant 0 reverses, the others shuffle (Fisher-Yates). */
static void permutation(int *perm, int m, int variant) {
  unsigned long long seed = 977u * (unsigned)variant;
  for (int i = 0; i < m; i++) perm[i] = variant ? i : m - 1 - i;
  for (int i = m - 1; variant && i > 0; i--) {
    int k = (int)(lcg(&seed) % (unsigned)(i + 1)), x = perm[i];
    perm[i] = perm[k];
    perm[k] = x;
  }
}

/* Shard a and b are the same. */
static int same_shard(const sc_rs_shard *a, const sc_rs_shard *b) {
  return a->kind == b->kind && a->gpu == b->gpu && a->parts == b->parts;
}

/* Plan q of the permuted job (q.s[i] is for listed table perm[i]) is plan
 * p of the listed one up to identical tables: for every table, the tables
 * of its shape hold each shard as often in both. */
static void same_up_to_identical(const sc_rs_job *j, const sc_rs_plan *p, const sc_rs_plan *q,
                                 const int *perm, const char *what) {
  int m = j->model.n_tables;
  sc_rs_shard *back = calloc((size_t)m, sizeof *back);
  cr_assert(back);
  for (int i = 0; i < m; i++) back[perm[i]] = q->s[i];
  for (int t = 0; t < m; t++) {
    if (same_shard(&p->s[t], &back[t])) continue;
    int np = 0, nq = 0;
    for (int u = 0; u < m; u++) {
      if (!rs_same_shape(&j->model.tables[t], &j->model.tables[u])) continue;
      np += same_shard(&p->s[u], &p->s[t]);
      nq += same_shard(&back[u], &p->s[t]);
    }
    cr_assert_eq(np, nq, "%s: table %d ('%s'): %s on GPU %d as listed, %s on GPU %d permuted, "
                 "and no identical table takes its place", what, t, j->model.tables[t].name,
                 sc_rs_shard_name(p->s[t].kind), p->s[t].gpu, sc_rs_shard_name(back[t].kind),
                 back[t].gpu);
  }
  free(back);
}

/* Search j as listed and with its tables in three other orders: the same
 * plans (up to identical tables) with the same predictions. */
static void order_free(const sc_rs_job *j, const char *what) {
  sc_rs_plans as_listed, other;
  sc_error e = {0};
  cr_assert_eq(sc_rs_plan_search(j, NULL, &as_listed, &e), SC_OK, "%s: %s", what, e.msg);
  cr_assert(as_listed.n >= 1, "%s: no plan", what);
  int m = j->model.n_tables;
  int *perm = calloc((size_t)m, sizeof *perm);
  sc_rs_table *listed = j->model.tables;
  sc_rs_job pj = *j; /* borrows j but for its tables */
  pj.model.tables = calloc((size_t)m, sizeof *pj.model.tables);
  cr_assert(perm && pj.model.tables);
  for (int v = 0; v < 3; v++) {
    permutation(perm, m, v);
    for (int i = 0; i < m; i++) pj.model.tables[i] = listed[perm[i]];
    cr_assert_eq(sc_rs_plan_search(&pj, NULL, &other, &e), SC_OK, "%s: %s", what, e.msg);
    cr_assert_eq(other.n, as_listed.n, "%s, order %d: %d plans, %d as listed", what, v, other.n,
                 as_listed.n);
    cr_assert_eq(other.evaluated, as_listed.evaluated, "%s, order %d", what, v);
    for (int k = 0; k < other.n; k++) {
      cr_assert(other.res[k].iter_s == as_listed.res[k].iter_s &&
                other.res[k].mem_bytes == as_listed.res[k].mem_bytes,
                "%s, order %d, plan %d: %.9g ms, %.0f B; as listed %.9g ms, %.0f B", what, v,
                k + 1, other.res[k].iter_s * 1e3, other.res[k].mem_bytes,
                as_listed.res[k].iter_s * 1e3, as_listed.res[k].mem_bytes);
      same_up_to_identical(j, &as_listed.plan[k], &other.plan[k], perm, what);
    }
    sc_rs_result r; /* the best plan, evaluated in the permuted job's own order */
    cr_assert_eq(sc_rs_evaluate(&pj, &other.plan[0], &r, &e), SC_OK, "%s: %s", what, e.msg);
    cr_assert_float_eq(r.iter_s, as_listed.res[0].iter_s, 1e-12 * r.iter_s, "%s, order %d",
                       what, v);
    sc_rs_result_free(&r);
    sc_rs_plans_free(&other);
  }
  free(pj.model.tables);
  free(perm);
  sc_rs_plans_free(&as_listed);
}

Test(recsys_order, example_jobs_plan_the_same_in_any_order) {
  for (int i = 0; i < RS_TEST_EXAMPLES; i++) {
    sc_rs_job j;
    sc_rs_plan p;
    rs_test_load(rs_test_examples[i], &j, &p);
    order_free(&j, rs_test_examples[i]);
    sc_rs_plan_free(&p);
    sc_rs_job_free(&j);
  }
}

/* Rows whose plan moved most with their 26 tables reversed before: 112
 * and 64 A100 (HugeCTR), 32 H100 (PyTorch: the bottom MLP on GPU 0). */
Test(recsys_order, mlperf_dlrm_rows_plan_the_same_in_any_order, .timeout = 120) {
  cr_assert_eq(access(MLPERF, R_OK), 0, "%s is missing: these tests need ../shared", MLPERF);
  static const char *ids[] = {"mlperf-dlrm-010", "mlperf-dlrm-011", "mlperf-dlrm-051"};
  for (int i = 0; i < 3; i++) {
    sc_rs_job j;
    sc_rs_plan p;
    sc_error e = {0};
    cr_assert_eq(sc_rs_row_job(MLPERF, ids[i], &j, &p, &e), SC_OK, "%s: %s", ids[i], e.msg);
    order_free(&j, ids[i]);
    sc_rs_plan_free(&p);
    sc_rs_job_free(&j);
  }
}

/* Groups of identical tables beside single ones, power-law ids, on 4
 * GPUs (local search) and on 2 (3 tables: exhaustive enumeration, where
 * equal plans tie). */
Test(recsys_order, identical_tables_plan_the_same_in_any_order) {
  static const struct { const char *spec; int gpus; } cases[] = {
      {"3x100000x64@1;1x20000000x64@1;2x2000000x64@20;1x5000000x64@1+8;4x1000x64@3", 4},
      {"2x3000000x32@10;1x20000x32@1", 2},
  };
  for (int i = 0; i < 2; i++) {
    sc_rs_job j;
    rs_test_job(&j, cases[i].spec, cases[i].gpus, SC_RS_POWERLAW, 1.05);
    order_free(&j, cases[i].spec);
    sc_rs_job_free(&j);
  }
}

/* A bad table is named by its place in the user's list, not in the order
 * the search sees (the heaviest table first). */
Test(recsys_order, a_bad_table_is_named_as_listed) {
  sc_rs_job j;
  rs_test_job(&j, "3x1000x16@1;1x50000000x128@20", 2, SC_RS_UNIFORM, 0);
  j.model.tables[2].rows = 0;
  sc_rs_plans ps;
  sc_error e = {0};
  cr_assert_eq(sc_rs_plan_search(&j, NULL, &ps, &e), SC_EINPUT);
  cr_assert(strstr(e.msg, "table 2 ('t2')"), "%s", e.msg);
  sc_rs_job_free(&j);
}
