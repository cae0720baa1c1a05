/*
 * test_recsys_trace.c -- sc_rs_report_trace: the timeline of a recsys
 * iteration ends at the prediction's iter_s (sc_rs_evaluate's), for every
 * uniform shard kind, a mixed plan, the bottom MLP on GPU 0 and a host-
 * and reader-bound job; no span has a negative or NaN time; a plan that
 * does not fit the job is SC_EINPUT with nothing written.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rsjob.h"
#include "stepcast_recsys.h"

/* A DLRM-like job of `spec` tables on n A100 80 GB: rs_test_job's with
 * a 256-128 bottom MLP and the dot interaction. */
static void job(sc_rs_job *j, const char *spec, int n) {
  rs_test_job(j, spec, n, SC_RS_POWERLAW, 1.05);
  j->model.inter = SC_RS_DOT;
  j->model.n_bottom = 2;
  j->model.bottom[0] = 256;
  j->model.bottom[1] = 128; /* the tables' width (dot interaction) */
}

/* The latest end (ts + dur, us) of the trace's spans in buf; asserts
 * every span's times are finite and not negative; *spans counts them. */
static double last_end(const char *buf, int *spans) {
  double end = 0;
  *spans = 0;
  for (const char *p = strstr(buf, "\"ph\": \"X\""); p; p = strstr(p + 1, "\"ph\": \"X\"")) {
    const char *ts = strstr(p, "\"ts\": "), *dur = strstr(p, "\"dur\": ");
    cr_assert(ts && dur, "span without ts or dur near: %.80s", p);
    double a = strtod(ts + 6, NULL), d = strtod(dur + 7, NULL);
    cr_assert(isfinite(a) && isfinite(d) && a >= 0 && d >= 0, "bad span %.120s", p);
    if (a + d > end) end = a + d;
    (*spans)++;
  }
  return end;
}

/* Trace j under p; assert it ends at iter_s (within 1 us) and agrees with
 * sc_rs_evaluate. */
static void check(const sc_rs_job *j, const sc_rs_plan *p, const char *what) {
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  cr_assert(f);
  sc_rs_result r, ev;
  sc_error e = {0};
  int rc = sc_rs_report_trace(f, j, p, &r, &e);
  fclose(f);
  cr_assert_eq(rc, SC_OK, "%s: %s", what, e.msg);
  cr_assert_eq(sc_rs_evaluate(j, p, &ev, &e), SC_OK, "%s: %s", what, e.msg);
  cr_assert_float_eq(r.iter_s, ev.iter_s, 1e-15, "%s: trace's iter_s %.9g, evaluate's %.9g", what,
                     r.iter_s, ev.iter_s);
  int spans;
  double end = last_end(buf, &spans);
  cr_assert(spans > 0, "%s: no spans", what);
  cr_assert(fabs(end - ev.iter_s * 1e6) <= 1.0, "%s: last end %.3f us, iter_s %.3f us", what, end,
            ev.iter_s * 1e6);
  sc_rs_result_free(&ev);
  free(buf);
}

Test(recsys_trace, ends_at_iter_s_for_every_kind) {
  static const char *kinds[] = {"data_parallel", "table_wise", "row_wise", "column_wise",
                                "table_row_wise"};
  sc_rs_job j;
  job(&j, "4x2000000x128@1;20x10000x128@1+4", 16);
  for (int k = 0; k < 5; k++) {
    sc_rs_plan p = {0};
    int kind = sc_rs_shard_from_name(kinds[k]);
    rs_test_plan(&j, (sc_rs_shard_kind)kind, 0, &p);
    check(&j, &p, kinds[k]);
    if (k == 1) { /* a mix: one table row-wise, one column-wise */
      p.s[0].kind = SC_RS_ROW_WISE;
      p.s[1] = (sc_rs_shard){SC_RS_COLUMN_WISE, 4, 4};
      check(&j, &p, "mixed");
    }
    sc_rs_plan_free(&p);
  }
  sc_rs_job_free(&j);
}

Test(recsys_trace, ends_at_iter_s_with_serial_bottom_host_and_reader) {
  sc_rs_job j;
  job(&j, "8x1000000x128@1", 8);
  sc_rs_plan p = {0};
  rs_test_plan(&j, SC_RS_TABLE_WISE, 0, &p);
  j.bottom_on_gpu0 = 1;
  check(&j, &p, "bottom MLP on GPU 0");
  j.eager = 1;
  j.coll_cycle_s = 1e-3;
  check(&j, &p, "eager, collective cycle");
  j.reader_batch_s = 0.05;
  check(&j, &p, "reader-bound");
  sc_rs_plan_free(&p);
  sc_rs_job_free(&j);
}

Test(recsys_trace, bad_plan_writes_nothing) {
  sc_rs_job j;
  job(&j, "2x1000x128@1", 4);
  sc_rs_plan p = {0};
  cr_assert_eq(sc_rs_plan_alloc(&p, 2), SC_OK);
  p.s[0] = (sc_rs_shard){SC_RS_TABLE_WISE, 9, 1};
  p.s[1] = (sc_rs_shard){SC_RS_TABLE_WISE, 0, 1};
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  sc_error e = {0};
  int rc = sc_rs_report_trace(f, &j, &p, NULL, &e);
  fclose(f);
  cr_assert_eq(rc, SC_EINPUT);
  cr_assert_eq(len, 0, "wrote %zu bytes", len);
  cr_assert(strstr(e.msg, "table 0 ('t0')") && strstr(e.msg, "valid: 0..3"), "message: %s",
            e.msg);
  free(buf);
  sc_rs_plan_free(&p);
  sc_rs_job_free(&j);
}
