/*
 * test_text_opts.c -- the text-out entries with the command's other
 * options (sc_predict_json_ex, sc_search_json_ex, sc_validate_json_ex,
 * sc_validate_row_json, sc_collective_json_ex, sc_rs_plan_json_ex,
 * sc_rs_row_json, sc_trace_json_ex): each file they write is what the writer of the
 * command writes for the same input, the document is unchanged by it, a
 * recsys headroom keeps its memory free, and refusals and unwritable
 * files return their codes with nothing in *out (the sanitizer build
 * checks leaks; a failing allocation at every point of predict with its
 * files, too).
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/mem.h"
#include "stepcast.h"
#include "stepcast_recsys.h"

#define EX SC_SOURCE_DIR "/examples/"
#define MPT EX "mpt-7b-fsdp-8-a100.json"
#define DLRM EX "recsys/dlrm_criteo_8gpu.json"
#define SC21 SC_SOURCE_DIR "/data/validation/training/megatron_sc21_table1.csv"
#define BAD_DIR "/nonexistent/dir/f.json"

/* A fresh file name under /tmp (the file exists, empty); the caller removes it. */
static void temp_name(char *path) {
  strcpy(path, "/tmp/sc_text_opts_XXXXXX");
  int fd = mkstemp(path);
  cr_assert_geq(fd, 0);
  fclose(fdopen(fd, "w"));
}

/* The whole file at path, malloc'd. */
static char *slurp(const char *path) {
  FILE *f = fopen(path, "rb");
  cr_assert_not_null(f, "%s", path);
  char *buf = NULL;
  size_t len = 0;
  FILE *m = open_memstream(&buf, &len);
  for (int c; (c = fgetc(f)) != EOF;) fputc(c, m);
  fclose(m);
  fclose(f);
  return buf;
}

/* What the command writes with --trace and --html for the scenario at path. */
static void by_hand(const char *path, char **trace, char **html) {
  sc_scenario s;
  sc_result r;
  sc_error err = {0};
  cr_assert_eq(sc_scenario_load_file_ex(&s, path, NULL, 0, 0, &err), SC_OK, "%s", err.msg);
  cr_assert_eq(sc_predict(&s, &r, &err), SC_OK, "%s", err.msg);
  sc_span *spans = NULL;
  size_t n = 0, len = 0;
  double step = 0;
  cr_assert_eq(sc_timeline(&s, &spans, &n, &step, &err), SC_OK, "%s", err.msg);
  FILE *m = open_memstream(trace, &len);
  sc_report_trace_step(m, &s, spans, n, r.step_s); /* covering the step (cmd_predict.c) */
  fclose(m);
  m = open_memstream(html, &len);
  sc_html_prediction(m, &s, &r, spans, n);
  fclose(m);
  free(spans);
}

Test(text_opts, predict_writes_the_commands_files) {
  char tp[64], hp[64], *want_t, *want_h, *plain = NULL, *out = NULL;
  temp_name(tp), temp_name(hp);
  by_hand(MPT, &want_t, &want_h);
  sc_error err = {0};
  sc_predict_json_opts o = {.trace = tp, .html = hp};
  cr_assert_eq(sc_predict_json_ex(MPT, NULL, NULL, 0, &o, &out, &err), SC_OK, "%s", err.msg);
  cr_assert_eq(sc_predict_json(MPT, NULL, NULL, 0, 0, 0, &plain, &err), SC_OK, "%s", err.msg);
  cr_expect_str_eq(out, plain, "the files leave the document as it is");
  char *got_t = slurp(tp), *got_h = slurp(hp);
  cr_expect_str_eq(got_t, want_t);
  cr_expect_str_eq(got_h, want_h);
  free(got_t), free(got_h), free(want_t), free(want_h), sc_free(out), sc_free(plain);
  remove(tp), remove(hp);
}

Test(text_opts, predict_event_is_the_event_engines) {
  sc_scenario s;
  sc_result r;
  sc_event_pred *p = NULL;
  sc_error err = {0};
  sc_event_opts eo = {1, 0};
  cr_assert_eq(sc_scenario_load_file_ex(&s, MPT, NULL, 0, 0, &err), SC_OK, "%s", err.msg);
  cr_assert_eq(sc_predict_event(&s, &eo, &r, &p, &err), SC_OK, "%s", err.msg);
  char *want = NULL, *out = NULL;
  size_t len = 0;
  FILE *m = open_memstream(&want, &len);
  sc_report_event(m, SC_FORMAT_JSON, &s, &r, p);
  fclose(m);
  sc_event_pred_free(p);
  sc_predict_json_opts o = {.event = 1};
  cr_assert_eq(sc_predict_json_ex(MPT, NULL, NULL, 0, &o, &out, &err), SC_OK, "%s", err.msg);
  cr_expect_str_eq(out, want);
  cr_expect_not_null(strstr(out, "\"critical_path\""));
  sc_free(out), free(want);
}

Test(text_opts, predict_refusals_leave_nothing) {
  struct { sc_predict_json_opts o; const char *path, *needle; int code; } bad[] = {
      {{.train_tokens = -1}, MPT, "train_tokens: expected", SC_EINPUT},
      {{.train_tokens = 0.5}, MPT, "train_tokens: expected", SC_EINPUT},
      {{.event = 1, .ops = 1}, MPT, "event: ", SC_EINPUT},
      {{.event = 1, .html = "x.html"}, MPT, "event: ", SC_EINPUT},
      {{.ops = 1}, EX "dp/resnet50-8-p100-ps.json", "dp.scheme: ", SC_EINPUT},
      {{.trace = "-"}, MPT, "trace: expected a file name", SC_EINPUT},
      {{.html = ""}, MPT, "html: expected a file name", SC_EINPUT},
      {{.trace = BAD_DIR}, MPT, "trace: cannot write " BAD_DIR, SC_EIO},
      {{.event = 1, .trace = BAD_DIR}, MPT, "trace: cannot write " BAD_DIR, SC_EIO},
      {{.html = BAD_DIR}, MPT, "html: cannot write " BAD_DIR, SC_EIO},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    char *out = (char *)1;
    sc_error err = {0};
    cr_expect_eq(sc_predict_json_ex(bad[i].path, NULL, NULL, 0, &bad[i].o, &out, &err),
                 bad[i].code, "case %zu: %s", i, err.msg);
    cr_expect_null(out, "case %zu", i);
    cr_expect_not_null(strstr(err.msg, bad[i].needle), "case %zu: %s", i, err.msg);
  }
}

Test(text_opts, predict_with_files_fails_cleanly_at_every_allocation) {
  char tp[64], *out;
  temp_name(tp);
  sc_predict_json_opts o = {.trace = tp};
  sc_error err = {0};
  if (!mem_fail_after(0)) { /* no injector in this build */
    remove(tp);
    return;
  }
  mem_fail_after(-1);
  for (long n = 0; n < 100000; n++) {
    out = (char *)1;
    mem_fail_after(n);
    int rc = sc_predict_json_ex(MPT, NULL, NULL, 0, &o, &out, &err);
    mem_fail_after(-1);
    if (rc == SC_OK) {
      cr_expect_not_null(out);
      cr_expect_gt(n, 20, "the prediction and its trace allocate: %ld", n);
      sc_free(out);
      remove(tp);
      return;
    }
    cr_assert_eq(rc, SC_ENOMEM, "allocation %ld failing gave %d: %s", n + 1, rc, err.msg);
    cr_assert_null(out);
  }
  cr_assert_fail("never succeeded");
}

Test(text_opts, validate_html_and_row) {
  char hp[64], *out = NULL, *plain = NULL;
  temp_name(hp);
  const char *paths[] = {SC21};
  sc_validate_json_opts o = {.html = hp};
  sc_error err = {0};
  cr_assert_eq(sc_validate_json_ex(paths, NULL, 1, &o, &out, &err), SC_OK, "%s", err.msg);
  cr_assert_eq(sc_validate_json(paths, NULL, 1, &plain, &err), SC_OK, "%s", err.msg);
  cr_expect_str_eq(out, plain);
  sc_validation v;
  cr_assert_eq(sc_validate_file(SC21, &v, &err), SC_OK, "%s", err.msg);
  char *want = NULL, *got = slurp(hp);
  size_t len = 0;
  FILE *m = open_memstream(&want, &len);
  sc_html_validation(m, &v, 1);
  fclose(m);
  cr_expect_str_eq(got, want);
  sc_validation_free(&v);
  free(want), free(got), sc_free(out), sc_free(plain), remove(hp);
  cr_assert_eq(sc_validate_row_json(SC21, "sc21-t1-2", 0, 1, &out, &err), SC_OK, "%s", err.msg);
  cr_expect_not_null(strstr(out, "\"op_kinds\""), "--row --ops: the step by kind too");
  sc_free(out);
  out = (char *)1;
  cr_expect_eq(sc_validate_row_json(SC21, "sc21-t1-2", 1, 1, &out, &err), SC_EINPUT);
  cr_expect_null(out);
  cr_expect_eq(sc_validate_row_json(SC21, "no-such-row", 0, 0, &out, &err), SC_EINPUT);
  cr_expect_null(out);
}

Test(text_opts, search_page_is_the_commands) {
  char hp[64], *out = NULL, *plain = NULL;
  temp_name(hp);
  sc_search_opts so;
  sc_search_opts_default(&so);
  so.tp = 8, so.rerank = 0;
  sc_error err = {0};
  const char *ov[] = {"plan.global_batch=1024"};
  cr_assert_eq(sc_search_json_ex(EX "llama3-70b-512-h100.json", NULL, ov, 1, &so, 3, hp, &out,
                                 &err), SC_OK, "%s", err.msg);
  cr_assert_eq(sc_search_json(EX "llama3-70b-512-h100.json", NULL, ov, 1, &so, 3, &plain, &err),
               SC_OK, "%s", err.msg);
  /* the documents differ in the wall time only: compare up to it */
  cr_expect_eq(strncmp(out, plain, (size_t)(strstr(plain, "\"seconds\"") - plain)), 0);
  char *page = slurp(hp);
  cr_expect_not_null(strstr(page, "data-chart=\"pareto\""), "the plan-space chart");
  free(page), sc_free(out), sc_free(plain), remove(hp);
  out = (char *)1;
  cr_expect_eq(sc_search_json_ex(NULL, NULL, NULL, 0, &so, 1, BAD_DIR, &out, &err), SC_EIO);
  cr_expect_null(out);
}

Test(text_opts, recsys_headroom_overrides_trace_and_row) {
  const char *two[] = {"cluster.gpus=2", "cluster.gpus_per_node=2"};
  sc_rs_plan_opts o;
  sc_rs_plan_opts_default(&o);
  o.headroom_bytes = 25.0 * (1 << 30);
  char tp[64], *out = NULL;
  temp_name(tp);
  sc_error err = {0};
  cr_assert_eq(sc_rs_plan_json_ex(DLRM, two, 2, &o, tp, &out, &err), SC_OK, "%s", err.msg);
  cr_expect_not_null(strstr(out, "\"headroom_bytes\": 26843545600"), "%s", out);
  cr_expect_null(strstr(out, "\"fits\": false"), "every plan listed fits within the headroom");
  char *trace = slurp(tp);
  cr_expect_not_null(strstr(trace, "\"traceEvents\""));
  free(trace), sc_free(out), remove(tp);
  out = (char *)1;
  o.headroom_frac = 1;
  cr_expect_eq(sc_rs_plan_json_ex(DLRM, two, 2, &o, NULL, &out, &err), SC_EINPUT);
  cr_expect_null(out);
  const char *bad[] = {"cluster.gpuz=2"};
  cr_expect_eq(sc_rs_predict_json_ex(DLRM, bad, 1, NULL, NULL, &out, &err), SC_EINPUT);
  cr_expect_not_null(strstr(err.msg, "cluster.gpuz"), "%s", err.msg);
  cr_expect_eq(sc_rs_predict_json_ex(DLRM, NULL, 0, NULL, BAD_DIR, &out, &err), SC_EIO);
  cr_expect_null(out);
  cr_expect_eq(sc_rs_predict_json_ex(DLRM, NULL, 0, NULL, "-", &out, &err), SC_EINPUT);
  cr_assert_eq(sc_rs_row_json(SC_SOURCE_DIR "/data/validation/recsys/mlperf_dlrm_v0.7-v2.1.csv",
                              "mlperf-dlrm-001", &out, &err), SC_OK, "%s", err.msg);
  cr_expect_not_null(strstr(out, "\"iter_s\""));
  sc_free(out);
}

Test(text_opts, trace_graph_files) {
  char name[64];
  cr_expect_eq(sc_trace_graph_name("g.json", 1, 2, name, sizeof name), 12);
  cr_expect_str_eq(name, "g-rank1.json");
  sc_trace_graph_name("g.json", 0, 1, name, sizeof name);
  cr_expect_str_eq(name, "g.json");
  sc_trace_graph_name("graph", 3, 4, name, sizeof name);
  cr_expect_str_eq(name, "graph-rank3");
  cr_expect_geq(sc_trace_graph_name("g.json", 1, 2, name, 4), 4, "cut: the whole length");
  cr_expect_str_eq(name, "g-r");
  const char *one[] = {EX "traces/rank0.json"};
  char gp[64], *out = NULL;
  temp_name(gp);
  sc_error err = {0};
  cr_assert_eq(sc_trace_json_ex(one, 1, NULL, NULL, gp, &out, NULL, &err), SC_OK, "%s", err.msg);
  sc_trace *t;
  cr_assert_eq(sc_trace_load(one, 1, NULL, NULL, &t, &err), SC_OK, "%s", err.msg);
  char *want = NULL, *got = slurp(gp);
  size_t len = 0;
  FILE *m = open_memstream(&want, &len);
  cr_assert_eq(sc_trace_write_graph(t, 0, m, &err), SC_OK, "%s", err.msg);
  fclose(m);
  cr_expect_str_eq(got, want);
  sc_trace_close(t);
  free(want), free(got), sc_free(out), remove(gp);
  out = (char *)1;
  cr_expect_eq(sc_trace_json_ex(one, 1, NULL, NULL, BAD_DIR, &out, NULL, &err), SC_EIO);
  cr_expect_null(out);
}

Test(text_opts, collective_page) {
  sc_coll_sweep_opts o;
  sc_coll_sweep_default(&o);
  o.max_bytes = 1 << 20;
  char hp[64], *out = NULL, *plain = NULL;
  temp_name(hp);
  sc_error err = {0};
  cr_assert_eq(sc_collective_json_ex(&o, hp, &out, &err), SC_OK, "%s", err.msg);
  cr_assert_eq(sc_collective_json(&o, &plain, &err), SC_OK, "%s", err.msg);
  cr_expect_str_eq(out, plain);
  char *page = slurp(hp);
  cr_expect_not_null(strstr(page, "<svg"), "the bus-bandwidth chart");
  free(page), sc_free(out), sc_free(plain), remove(hp);
  out = (char *)1;
  cr_expect_eq(sc_collective_json_ex(&o, BAD_DIR, &out, &err), SC_EIO);
  cr_expect_null(out);
  cr_expect_eq(sc_collective_json_ex(&o, "-", &out, &err), SC_EINPUT);
}
