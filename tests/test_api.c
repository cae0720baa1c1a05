/*
 * test_api.c -- the collective, topology and report entry points of
 * stepcast.h: the public mirrors agree with the module functions behind
 * them, errors are values with messages that say what would be valid, and
 * a collective run on a topology gives the time of its closed form where
 * that is exact.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "coll/coll.h"
#include "coll/sched.h"
#include "core/mem.h"
#include "stepcast.h"

Test(api, coll_op_names_round_trip) {
  for (int op = 0; op < SC_COLL_OP_COUNT; op++) {
    const char *name = sc_coll_op_name((sc_coll_op)op);
    cr_expect_eq(sc_coll_op_from_name(name), op, "op %d '%s'", op, name);
    cr_expect_str_eq(name, coll_op_name((coll_op)op), "op %d", op);
  }
  cr_expect_eq(sc_coll_op_from_name("allreduce"), SC_COLL_ALL_REDUCE);
  cr_expect_eq(sc_coll_op_from_name("nosuch"), -1);
}

Test(api, nccl_time_is_the_module_cost) {
  sc_coll_group g = {16, 8, 80, 300e9, 25e9, 0.6e-6, 2.7e-6, 8, 1, 0, 0, SC_CPU_INTEL};
  coll_group cg = {16, 8, 80, 300e9, 25e9, 0.6e-6, 2.7e-6, 8, 1, 0, 0, SC_CPU_INTEL};
  for (int op = 0; op < SC_COLL_OP_COUNT; op++)
    for (double bytes = 1024; bytes <= 1 << 30; bytes *= 32) {
      sc_coll_cost a = sc_coll_nccl_time((sc_coll_op)op, bytes, &g);
      coll_cost b = coll_nccl_time((coll_op)op, bytes, &cg);
      cr_expect(a.time == b.time && a.launch == b.launch && a.channels == b.channels &&
                    !strcmp(a.algo, b.algo) && !strcmp(a.proto, b.proto),
                "%s %g B: api %g s %s/%s, module %g s %s/%s", sc_coll_op_name((sc_coll_op)op),
                bytes, a.time, a.algo, a.proto, b.time, b.algo, b.proto);
      cr_expect_eq(sc_coll_busbw_factor((sc_coll_op)op, 16), coll_busbw_factor((coll_op)op, 16));
    }
}

Test(api, algorithm_plugins_are_the_modules) {
  cr_assert_eq(sc_coll_algo_count(), coll_alg_count());
  for (int i = 0; i < sc_coll_algo_count(); i++) {
    cr_expect_str_eq(sc_coll_algo_name(i), coll_alg_at(i)->name, "plug-in %d", i);
    cr_expect_eq((int)sc_coll_algo_op(i), (int)coll_alg_at(i)->op, "plug-in %d", i);
    int found = sc_coll_algo_find(sc_coll_algo_op(i), sc_coll_algo_name(i), NULL);
    cr_expect_eq(coll_alg_at(found), coll_alg_find(coll_alg_at(i)->op, coll_alg_at(i)->name),
                 "plug-in %d (%s)", i, sc_coll_algo_name(i));
  }
  cr_expect_eq(sc_coll_algo_find(SC_COLL_ALL_REDUCE, NULL, NULL), 0, "default all_reduce");
  sc_error e = {0};
  cr_expect_eq(sc_coll_algo_find(SC_COLL_ALL_GATHER, "nope", &e), -1);
  cr_expect_eq(e.code, SC_EINPUT);
  cr_expect_str_eq(e.msg, "no algorithm 'nope' for all_gather (valid: ring direct rails)");
}

Test(api, format_names) {
  cr_expect_eq(sc_format_from_name("table"), SC_FORMAT_TABLE);
  cr_expect_eq(sc_format_from_name("json"), SC_FORMAT_JSON);
  cr_expect_eq(sc_format_from_name("csv"), SC_FORMAT_CSV);
  cr_expect_eq(sc_format_from_name("text"), -1);
}

/* Bytes written by f(t, out) to a temporary file. */
static long written(const sc_topo *t, void (*f)(const sc_topo *, FILE *)) {
  FILE *out = tmpfile();
  cr_assert(out);
  f(t, out);
  long n = ftell(out);
  fclose(out);
  return n;
}

Test(api, topology_load_describe_check) {
  sc_topo *t = NULL;
  sc_error e = {0};
  cr_assert_eq(sc_topo_load("rail:nodes=2,gpus=8", &t, &e), SC_OK, "%s", e.msg);
  cr_expect_eq(sc_topo_gpus(t), 16);
  char warn[256] = "x";
  cr_expect_eq(sc_topo_check(t, &e, warn, sizeof warn), SC_OK, "%s", e.msg);
  cr_expect_str_eq(warn, "");
  cr_expect_gt(written(t, sc_topo_describe), 0);
  cr_expect_gt(written(t, sc_topo_write_dot), 0);
  sc_topo_free(t);
  sc_topo_free(NULL);

  t = (sc_topo *)&e;
  cr_expect_eq(sc_topo_load("ring:n=0", &t, &e), SC_EINPUT);
  cr_expect(t == NULL && strstr(e.msg, "n=0 must be >= 2"), "%s", e.msg);
  cr_expect_eq(sc_topo_load("/nonexistent/topo.json", &t, &e), SC_EIO, "%s", e.msg);
  cr_expect_null(t);
}

/* Progress reports seen by a run: how many, and whether they only grew. */
typedef struct seen {
  int calls, monotone;
  double last;
} seen;

static void on_progress(void *ud, double done) {
  seen *s = ud;
  if (done < s->last || done > 1) s->monotone = 0;
  s->last = done;
  s->calls++;
}

Test(api, ring_allreduce_on_a_ring_takes_its_closed_form) {
  sc_topo *t = NULL;
  sc_error e = {0};
  cr_assert_eq(sc_topo_load("ring:n=8,bw=25,lat=1", &t, &e), SC_OK, "%s", e.msg);
  /* 2 (n-1) steps of bytes/n over 25 GB/s links, 1 us each */
  double bytes = 1e9, closed = 14 * (bytes / 8 / 25e9 + 1e-6);
  for (int run = 0; run < 2; run++) { /* the second reuses the routes */
    seen s = {0, 1, 0};
    double sec = -1;
    cr_assert_eq(sc_coll_simulate(t, SC_COLL_ALL_REDUCE, "ring", bytes, 8, 8, 1, on_progress,
                                  &s, &sec, &e),
                 SC_OK, "%s", e.msg);
    cr_expect(fabs(sec - closed) <= 0.02 * closed, "run %d: flow %.9g s, closed %.9g s", run,
              sec, closed);
    cr_expect(s.calls > 0 && s.monotone && s.last == 1.0, "run %d: %d reports, last %g", run,
              s.calls, s.last);
  }
  sc_topo_free(t);
}

Test(api, simulate_errors_say_what_is_valid) {
  sc_topo *t = NULL;
  sc_error e = {0};
  cr_assert_eq(sc_topo_load("ring:n=8", &t, &e), SC_OK, "%s", e.msg);
  double sec = -1;
  cr_expect_eq(sc_coll_simulate(t, SC_COLL_ALL_GATHER, "nope", 1e6, 8, 8, 1, NULL, NULL, &sec,
                                &e),
               SC_EINPUT);
  cr_expect_str_eq(e.msg, "no algorithm 'nope' for all_gather (valid: ring direct rails)");
  cr_expect_eq(sc_coll_simulate(t, SC_COLL_ALL_REDUCE, "ring", 1e6, 16, 8, 1, NULL, NULL, &sec,
                                &e),
               SC_EINPUT);
  cr_expect(strstr(e.msg, "ranks 16") && strstr(e.msg, "valid: 1..8"), "%s", e.msg);
  cr_expect_eq(sc_coll_simulate(t, SC_COLL_ALL_REDUCE, "ring", 1e6, 8, 3, 1, NULL, NULL, &sec,
                                &e),
               SC_EINPUT);
  cr_expect(strstr(e.msg, "ranks_per_node 3 must divide ranks 8"), "%s", e.msg);
  cr_expect_eq(sc_coll_simulate(t, SC_COLL_BROADCAST, NULL, 1e6, 8, 8, 0, NULL, NULL, &sec, &e),
               SC_EINPUT);
  cr_expect(strstr(e.msg, "chunks 0"), "%s", e.msg);
  cr_expect_eq(sec, -1, "failed runs leave *seconds alone");
  sc_topo_free(t);
}

/* Load a topology and run a collective on it, the n-th allocation failing:
 * SC_ENOMEM and nothing leaked (ASan), until n is large enough to succeed.
 * Only in builds with SC_ALLOC_FAULTS. */
Test(api, out_of_memory_is_an_error_value) {
  if (!mem_fail_after(-1)) cr_skip_test("built without SC_ALLOC_FAULTS");
  int rc = SC_ENOMEM;
  for (long n = 0; n < 100000 && rc == SC_ENOMEM; n++) {
    sc_topo *t = NULL;
    sc_error e = {0};
    double sec = 0;
    mem_fail_after(n);
    rc = sc_topo_load("fat_tree:hosts=16,radix=4", &t, &e);
    if (rc == SC_OK)
      rc = sc_coll_simulate(t, SC_COLL_ALL_REDUCE, "ring", 1e6, 16, 4, 1, NULL, NULL, &sec, &e);
    double ex = 0;
    if (rc == SC_OK) rc = sc_topo_exchange(t, &ex, &e);
    mem_fail_after(-1);
    sc_topo_free(t);
    cr_assert(rc == SC_OK || (rc == SC_ENOMEM && e.code == SC_ENOMEM),
              "allocation %ld failing: rc %d, %s", n, rc, e.msg);
  }
  cr_expect_eq(rc, SC_OK);
}

/* Public entry points given values outside their enums (a cast of user
 * input) answer with the documented failure value, never a crash or an
 * assert in debug builds (issue 12, hostile input 16). */
Test(api, out_of_range_enums_are_refused_not_crashed) {
  cr_expect_eq(sc_dtype_bytes((sc_dtype)-1), 0);
  cr_expect_eq(sc_dtype_bytes(SC_DTYPE_COUNT), 0);
  cr_expect_str_eq(sc_dtype_name((sc_dtype)99), "invalid");
  cr_expect_str_eq(sc_coll_op_name((sc_coll_op)-1), "invalid");
  sc_coll_group g = {8, 8, 80, 300e9, 25e9, 0, 0, 8, 1, 0, 0, 0};
  cr_expect_lt(sc_coll_nccl_time((sc_coll_op)42, 1e6, &g).time, 0);
  cr_expect_lt(sc_coll_nccl_time(SC_COLL_ALL_REDUCE, 1e6, NULL).time, 0);
  cr_expect_eq(sc_coll_busbw_factor((sc_coll_op)-3, 8), 0);
  cr_expect_null(sc_coll_algo_name(-1));
  cr_expect_null(sc_coll_algo_name(sc_coll_algo_count()));
  sc_error err = {0};
  cr_expect_lt(sc_coll_algo_find((sc_coll_op)77, "ring", &err), 0);
  cr_expect(strstr(err.msg, "not a collective"), "%s", err.msg);
  sc_scenario s;
  sc_scenario_default(&s);
  s.plan.attention = (sc_attention)99;
  cr_expect_eq(sc_scenario_resolve(&s, &err), SC_EINPUT);
  cr_expect(strstr(err.msg, "plan.attention: 99 is not valid"), "%s", err.msg);
  sc_scenario_default(&s);
  s.plan.dtype = (sc_dtype)-1;
  cr_expect_eq(sc_scenario_resolve(&s, &err), SC_EINPUT);
  cr_expect(strstr(err.msg, "plan.dtype"), "%s", err.msg);
}

/* The half-shift exchange (topo --check): on a non-blocking star every
 * GPU gets its link; two 4-GPU servers on one core switch (hier) send
 * each pair over its own 100 Gb/s NIC. */
Test(api, topo_exchange_is_what_the_links_allow) {
  sc_topo *t = NULL;
  sc_error e = {0};
  double ex = -1;
  cr_assert_eq(sc_topo_load("star:n=8,bw=12.5", &t, &e), SC_OK, "%s", e.msg);
  cr_assert_eq(sc_topo_exchange(t, &ex, &e), SC_OK, "%s", e.msg);
  cr_expect(fabs(ex - 12.5e9) < 0.01 * 12.5e9, "star: %g B/s", ex);
  sc_topo_free(t);
  cr_assert_eq(sc_topo_load("hier:nodes=2,gpus=4,nic=100", &t, &e), SC_OK, "%s", e.msg);
  cr_assert_eq(sc_topo_exchange(t, &ex, &e), SC_OK, "%s", e.msg);
  cr_expect(fabs(ex - 12.5e9) < 0.01 * 12.5e9, "hier: %g B/s", ex);
  sc_topo_free(t);
}
