/*
 * test_report.c -- the writers programs read: CSV fields are quoted per
 * RFC 4180 and read back whole, the text-in text-out entries return the
 * bytes the reports write, a collective sweep refuses ranges it cannot
 * finish, and the HTML pages hold every chart with the series it declares.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stepcast.h"

/* What f(out) writes, as a malloc'd string. */
#define CAPTURE(buf, stmt)                                   \
  do {                                                       \
    size_t len_ = 0;                                         \
    FILE *out = open_memstream(&(buf), &len_);               \
    cr_assert_not_null(out);                                 \
    stmt;                                                    \
    fclose(out);                                             \
  } while (0)

static int count(const char *hay, const char *needle) {
  int n = 0;
  for (const char *p = hay; (p = strstr(p, needle)); p++) n++;
  return n;
}

/* A training set of one predicted and one skipped row whose id and reason
 * hold commas, quotes and a line break. */
static void hostile_set(sc_validation *v, sc_validation_row *rows) {
  memset(v, 0, sizeof *v);
  memset(rows, 0, 2 * sizeof *rows);
  snprintf(v->path, sizeof v->path, "dir,with \"quotes\"/set.csv");
  snprintf(rows[0].id, sizeof rows[0].id, "a,b");
  rows[0].measured = 2, rows[0].predicted = 2.2, rows[0].ape = 0.1;
  rows[0].fit = -1; /* the memory model's false "does not fit" */
  snprintf(rows[1].id, sizeof rows[1].id, "q\"x\"");
  rows[1].measured = 3, rows[1].predicted = -1;
  snprintf(rows[1].skipped, sizeof rows[1].skipped, "line one,\nline \"two\"");
  v->rows = rows;
  v->n = v->cap = 2;
  v->predicted = v->skipped = 1;
}

Test(report, csv_fields_are_quoted_per_rfc4180) {
  sc_validation v;
  sc_validation_row rows[2];
  hostile_set(&v, rows);
  char *csv = NULL;
  CAPTURE(csv, sc_report_validation(out, SC_FORMAT_CSV, &v, 1, 0));
  cr_expect(strstr(csv, "\"dir,with \"\"quotes\"\"/set.csv\",training,\"a,b\",2,2.2,0.1,,no,0\n"),
            "%s", csv);
  cr_expect(strstr(csv, ",\"q\"\"x\"\"\",3,,,\"line one,\nline \"\"two\"\"\",,\n"), "%s", csv);
  free(csv);
  char *json = NULL;
  CAPTURE(json, sc_report_validation(out, SC_FORMAT_JSON, &v, 1, SC_REPORT_ROWS));
  cr_expect(strstr(json, "\"skipped\": \"line one,\\nline \\\"two\\\"\""), "%s", json);
  cr_expect(!strstr(json, "\"seconds\""), "wall time without SC_REPORT_TIMINGS: %s", json);
  free(json);
  CAPTURE(json, sc_report_validation(out, SC_FORMAT_JSON, &v, 1, SC_REPORT_TIMINGS));
  cr_expect(strstr(json, "\"seconds\": "), "%s", json);
  free(json);
}

Test(report, predict_json_is_the_report) {
  sc_scenario s;
  sc_result r;
  sc_error err = {0};
  const char *ov[] = {"plan.recompute=full"};
  cr_assert_eq(sc_scenario_load_string(&s, "{}", "<t>", ov, 1, &err), SC_OK, "%s", err.msg);
  cr_assert_eq(sc_predict(&s, &r, &err), SC_OK, "%s", err.msg);
  sc_op_time ops[64], kinds[16];
  int n = sc_explain_layer(&s, ops, 64, &err);
  cr_assert(n > 0, "%s", err.msg);
  int nk = sc_explain_kinds(&s, kinds, 16, &err);
  cr_assert(nk > 0, "%s", err.msg);
  char *want = NULL, *got = NULL;
  CAPTURE(want, sc_report_prediction_kinds(out, SC_FORMAT_JSON, &s, &r, 1e12, ops, n, kinds, nk));
  cr_assert_eq(sc_predict_json(NULL, NULL, ov, 1, 1, 1e12, &got, &err), SC_OK, "%s", err.msg);
  cr_expect_str_eq(got, want);
  sc_free(got);
  free(want);
}

Test(report, json_entries_fail_with_messages) {
  char *out = (char *)1;
  sc_error err = {0};
  cr_expect_eq(sc_predict_json(NULL, "{\"plan\": {\"tpp\": 1}}", NULL, 0, 0, 0, &out, &err),
               SC_EINPUT);
  cr_expect_null(out);
  cr_expect(strstr(err.msg, "plan.tpp: unknown key"), "%s", err.msg);
  cr_expect_eq(sc_predict_json("/nonexistent.json", NULL, NULL, 0, 0, 0, &out, &err), SC_EIO);
  cr_expect_eq(sc_predict_json("a.json", "{}", NULL, 0, 0, 0, &out, &err), SC_EINPUT);
  sc_search_opts so;
  sc_search_opts_default(&so);
  cr_expect_eq(sc_search_json(NULL, NULL, NULL, 0, &so, 0, &out, &err), SC_EINPUT);
  cr_expect(strstr(err.msg, "top"), "%s", err.msg);
  const char *none[] = {"/nonexistent.csv"};
  cr_expect_eq(sc_validate_json(none, NULL, 1, &out, &err), SC_EIO);
  cr_expect_null(out);
}

Test(report, sweep_refuses_what_it_cannot_finish) {
  sc_coll_sweep_opts o;
  sc_coll_sweep sw;
  sc_error err = {0};
  struct { const char *what; double min, max, factor; int ranks, ppn; const char *needle; } bad[] = {
      {"infinite max", 1024, INFINITY, 2, 8, 8, "max_bytes <= 2^50"},
      {"huge max", 1024, 1e300, 2, 8, 8, "max_bytes <= 2^50"},
      {"factor 1", 1024, 1 << 20, 1, 8, 8, "factor"},
      {"factor near 1", 1, 1e15, 1.0000001, 8, 8, "at most"},
      {"NaN factor", 1024, 1 << 20, NAN, 8, 8, "factor"},
      {"min > max", 4096, 1024, 2, 8, 8, "min_bytes <= max_bytes"},
      {"no ranks", 1024, 4096, 2, 0, 1, "ranks must be"},
      {"ppn", 1024, 4096, 2, 8, 3, "must divide"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    sc_coll_sweep_default(&o);
    o.min_bytes = bad[i].min, o.max_bytes = bad[i].max, o.factor = bad[i].factor;
    o.ranks = bad[i].ranks, o.ranks_per_node = bad[i].ppn;
    cr_expect_eq(sc_coll_sweep_run(&o, NULL, NULL, &sw, &err), SC_EINPUT, "%s", bad[i].what);
    cr_expect(strstr(err.msg, bad[i].needle), "%s: %s", bad[i].what, err.msg);
    cr_expect_null(sw.points, "%s", bad[i].what);
  }
  sc_coll_sweep_default(&o);
  cr_assert_eq(sc_coll_sweep_run(&o, NULL, NULL, &sw, &err), SC_OK, "%s", err.msg);
  cr_expect_eq(sw.n, 21, "1 KiB to 1 GiB by 2");
  for (int i = 1; i < sw.n; i++) cr_expect(sw.points[i].bytes == 2 * sw.points[i - 1].bytes);
  sc_coll_sweep_free(&sw);
}

/* `stepcast collective --topo` on one DGX A100 (8 GPUs, NVLink 300 GB/s):
 * NCCL's schedule scaled to the closed form agrees with it; a plug-in's
 * schedule alone (--algo ring) runs at the links' 300 GB/s in the flow
 * engine, but no faster than the GPU's memory lets NCCL's kernels move a
 * ring all-reduce, 790.1 GB/s over 2 + 8/7 bytes a bus byte = 251.4 GB/s
 * (coll_nccl_mem_bw); an H100, with no measured figure, keeps the links'. */
Test(report, collective_on_a_topology_keeps_the_memory_bound) {
  sc_coll_sweep_opts o;
  sc_coll_sweep sw;
  sc_error err = {0};
  sc_coll_sweep_default(&o);
  o.min_bytes = o.max_bytes = 1 << 30;
  snprintf(o.topo, sizeof o.topo, "rail:nodes=1,gpus=8,nvlink=300");
  cr_assert_eq(sc_coll_sweep_run(&o, NULL, NULL, &sw, &err), SC_OK, "%s", err.msg);
  double model = sw.points[0].busbw, nccl = sw.points[0].flow_busbw;
  cr_expect(fabs(nccl - model) <= 1e-6 * model, "NCCL's schedule %g, closed form %g GB/s",
            nccl / 1e9, model / 1e9);
  sc_coll_sweep_free(&sw);
  snprintf(o.algo, sizeof o.algo, "ring");
  cr_assert_eq(sc_coll_sweep_run(&o, NULL, NULL, &sw, &err), SC_OK, "%s", err.msg);
  double ring = sw.points[0].flow_busbw, bound = 4.0 * 536870912.0 / 2718e-6 / (2 + 8.0 / 7);
  cr_expect(fabs(ring - bound) <= 1e-6 * bound, "A100 ring %g GB/s, memory bound %g",
            ring / 1e9, bound / 1e9);
  sc_coll_sweep_free(&sw);
  o.arch = 90;
  cr_assert_eq(sc_coll_sweep_run(&o, NULL, NULL, &sw, &err), SC_OK, "%s", err.msg);
  cr_expect(sw.points[0].flow_busbw > 290e9, "H100 ring %g GB/s: the links' alone",
            sw.points[0].flow_busbw / 1e9);
  sc_coll_sweep_free(&sw);
}

Test(report, html_pages_hold_their_charts) {
  sc_scenario s;
  sc_result r;
  sc_error err = {0};
  sc_scenario_default(&s);
  cr_assert_eq(sc_scenario_resolve(&s, &err), SC_OK, "%s", err.msg);
  cr_assert_eq(sc_predict(&s, &r, &err), SC_OK, "%s", err.msg);
  sc_span *spans = NULL;
  size_t n = 0;
  double step = 0;
  cr_assert_eq(sc_timeline(&s, &spans, &n, &step, &err), SC_OK, "%s", err.msg);
  char *page = NULL;
  CAPTURE(page, sc_html_prediction(out, &s, &r, spans, n));
  free(spans);
  cr_expect_eq(count(page, "<svg class=\"chart\""), 3);
  cr_expect(strstr(page, "data-chart=\"timeline\" data-series=\"4\""));
  cr_expect_eq(count(page, "class=\"series\""), 7 + 4 + 5, "breakdown 7, timeline 4, memory 5");
  cr_expect(!strstr(page, "<script") && !strstr(page, "nan") && !strstr(page, "inf\""));
  cr_expect_eq(count(page, "</html>"), 1);
  free(page);
  /* the same page twice: deterministic */
  char *again = NULL, *first = NULL;
  sc_validation v;
  sc_validation_row rows[2];
  hostile_set(&v, rows);
  CAPTURE(first, sc_html_validation(out, &v, 1));
  CAPTURE(again, sc_html_validation(out, &v, 1));
  cr_expect_str_eq(first, again);
  cr_expect(strstr(first, "dir,with &quot;quotes&quot;/set.csv"), "escaped in HTML");
  cr_expect_eq(count(first, "class=\"series\""), 2, "bands and rows");
  free(first);
  free(again);
}

/* The validation page's summary counts the marginal memory verdicts of a
 * training set beside its false ones: rows with a verdict whose total is
 * within SC_MEMORY_BAND of capacity, either side; a skipped row (no
 * verdict) is not counted whatever its totals. A set of another kind has
 * neither count; an unsupported set spans every column. */
Test(report, html_validation_counts_marginal_verdicts) {
  const double gib = 1073741824.0;
  sc_validation_row rows[4];
  memset(rows, 0, sizeof rows);
  double total[4] = {39.2, 40.8, 30, 39.5}; /* of 40 GiB */
  int fit[4] = {1, -1, 1, 0};               /* the last one skipped */
  for (int i = 0; i < 4; i++) {
    snprintf(rows[i].id, sizeof rows[i].id, "r%d", i);
    rows[i].measured = 1, rows[i].predicted = fit[i] ? 1.1 : -1, rows[i].ape = 0.1;
    rows[i].fit = fit[i];
    rows[i].mem_total = total[i] * gib, rows[i].mem_capacity = 40 * gib;
  }
  snprintf(rows[3].skipped, sizeof rows[3].skipped, "no time");
  sc_validation v[3];
  memset(v, 0, sizeof v);
  snprintf(v[0].path, sizeof v[0].path, "train.csv");
  v[0].kind = SC_VALIDATION_TRAINING;
  v[0].rows = rows, v[0].n = v[0].cap = 4, v[0].predicted = 3, v[0].skipped = 1, v[0].no_fit = 1;
  snprintf(v[1].path, sizeof v[1].path, "coll.csv");
  v[1].kind = SC_VALIDATION_COLLECTIVE;
  snprintf(v[2].path, sizeof v[2].path, "later.csv");
  v[2].kind = SC_VALIDATION_UNSUPPORTED, v[2].n = 5;
  char *page = NULL;
  CAPTURE(page, sc_html_validation(out, v, 3));
  cr_expect(strstr(page, "<th>do not fit (ran: false verdicts)</th><th>marginal (within the "
                         "memory model's 3 % band)</th></tr>"), "%s", page);
  cr_expect(strstr(page, "<td>train.csv</td>") && strstr(page, "<td>1</td><td>2</td></tr>"),
            "1 false verdict, 2 marginal (39.2 and 40.8 of 40 GiB): %s", page);
  cr_expect(strstr(page, "<td>coll.csv</td>") && strstr(page, "<td>-</td><td>-</td></tr>"), "%s",
            page);
  cr_expect(strstr(page, "<td colspan=\"8\">not supported yet: 5 rows</td>"), "%s", page);
  const char *hdr = strstr(page, "<tr><th>set</th>");
  cr_assert(hdr);
  int th = 0;
  for (const char *p = hdr; p < strstr(hdr, "</tr>"); p++) th += !strncmp(p, "<th>", 4);
  cr_expect_eq(th, 10, "10 columns, as the unsupported row: set, rows and a span of 8");
  free(page);
}

Test(report, empty_search_page_has_finite_axes) {
  sc_scenario s;
  sc_scenario_default(&s);
  sc_search_stats st;
  memset(&st, 0, sizeof st);
  st.tried = 10;
  st.seconds = 0.1;
  char *page = NULL;
  CAPTURE(page, sc_html_search(out, &s, NULL, 0, -1, &st));
  cr_expect(strstr(page, "data-chart=\"pareto\" data-series=\"0\""), "%s", page);
  cr_expect(!strstr(page, "nan") && !strstr(page, "inf"), "non-finite coordinates");
  free(page);
}

/* search --html draws the headroom a search keeps free (--headroom 10:
 * GiB) as a second line below the GPU's memory, at the capacity less it
 * (80 - 10 = 70 GiB on the default A100 80GB), and says it above the
 * chart; without a headroom neither. */
Test(report, search_page_draws_the_headroom) {
  sc_scenario s;
  sc_scenario_default(&s);
  cr_assert_float_eq(s.cluster.gpu.hbm_bytes, 80 * 1073741824.0, 1, "an 80 GiB GPU");
  for (int with = 0; with < 2; with++) {
    sc_search_opts o;
    sc_search_opts_default(&o);
    sc_error err = {0};
    cr_assert_eq(sc_search_opts_set(&o, "max_plans", "200", &err), SC_OK, "%s", err.msg);
    if (with) cr_assert_eq(sc_search_opts_set(&o, "headroom", "10", &err), SC_OK, "%s", err.msg);
    char *page = NULL;
    int rc = 0;
    CAPTURE(page, rc = sc_html_search_space(out, &s, &o, NULL, &err));
    cr_assert_eq(rc, SC_OK, "%s", err.msg);
    const char *line = strstr(page, "stroke=\"#e69f00\" stroke-dasharray=\"4 3\"/><text");
    const char *label = strstr(page, ">headroom: plans fit under 70.0 GiB</text>");
    const char *said = strstr(page, "Memory headroom: 10.0 GiB of each GPU's 80.0 GiB kept free");
    cr_expect_eq(line != NULL && label != NULL && said != NULL, with,
                 "headroom %d: line %d, label %d, summary %d", with, line != NULL, label != NULL,
                 said != NULL);
    free(page);
  }
}
