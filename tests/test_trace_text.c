/*
 * test_trace_text.c -- sc_trace_json (src/trace/trace_text.c): the text
 * is what sc_report_trace_replay writes for the same load and replays
 * (as `stepcast trace --format json` does), with and without a what-if;
 * the Perfetto file is sc_trace_write_perfetto's; sc_trace_json_warn's
 * warnings are sc_trace_warnings' after the same replays; bad input, an
 * unwritable Perfetto path and a failing allocation at every point return
 * their codes with nothing in *out (the sanitizer build checks leaks).
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/mem.h"
#include "stepcast.h"

#define DATA SC_SOURCE_DIR "/tests/data/trace/"

static const char *const files[] = {DATA "synth_2rank_r0.json", DATA "synth_2rank_r1.json"};

/* What the command does: load, replay as traced and under w, report. The
 * schedule of the last replay to perf when not NULL. malloc'd. */
static char *by_hand(const sc_trace_whatif *w, FILE *perf) {
  sc_trace *t;
  sc_error err = {0};
  cr_assert_eq(sc_trace_load(files, 2, NULL, NULL, &t, &err), SC_OK, "%s", err.msg);
  sc_trace_result base, x;
  sc_trace_whatif none;
  sc_trace_whatif_default(&none);
  cr_assert_eq(sc_trace_replay(t, NULL, &base, &err), SC_OK, "%s", err.msg);
  if (w) cr_assert_eq(sc_trace_replay(t, w, &x, &err), SC_OK, "%s", err.msg);
  char *buf = NULL;
  size_t len = 0;
  FILE *m = open_memstream(&buf, &len);
  cr_assert_not_null(m);
  sc_report_trace_replay(m, SC_FORMAT_JSON, t, &base, w ? w : &none, w ? &x : NULL);
  fclose(m);
  if (perf) sc_trace_write_perfetto(t, perf);
  sc_trace_close(t);
  return buf;
}

static sc_trace_whatif dp4(void) {
  sc_trace_whatif w;
  sc_trace_whatif_default(&w);
  w.dp_scale = 4, w.comm_model = 1, w.nic_bw = 12.5e9;
  return w;
}

Test(trace_text, is_the_report_of_the_command) {
  sc_trace_whatif w = dp4();
  for (int k = 0; k < 2; k++) {
    char *out = NULL, *want = by_hand(k ? &w : NULL, NULL);
    sc_error err = {0};
    cr_assert_eq(sc_trace_json(files, 2, k ? &w : NULL, NULL, &out, &err), SC_OK, "%s", err.msg);
    cr_expect_str_eq(out, want);
    cr_expect_eq(strstr(out, "\"whatif\"") != NULL, k);
    sc_free(out);
    free(want);
  }
}

static char *slurp(FILE *f) {
  rewind(f);
  char *buf = NULL;
  size_t len = 0;
  FILE *m = open_memstream(&buf, &len);
  for (int c; (c = fgetc(f)) != EOF;) fputc(c, m);
  fclose(m);
  return buf;
}

Test(trace_text, writes_the_perfetto_schedule) {
  sc_trace_whatif w = dp4();
  char path[] = "/tmp/sc_trace_text_XXXXXX";
  int fd = mkstemp(path);
  cr_assert_geq(fd, 0);
  FILE *want = tmpfile(), *got;
  free(by_hand(&w, want));
  char *out = NULL;
  sc_error err = {0};
  cr_assert_eq(sc_trace_json(files, 2, &w, path, &out, &err), SC_OK, "%s", err.msg);
  sc_free(out);
  cr_assert_not_null(got = fdopen(fd, "r"));
  char *a = slurp(want), *b = slurp(got);
  cr_expect_str_eq(b, a);
  cr_expect_not_null(strstr(b, "\"traceEvents\""));
  free(a), free(b), fclose(want), fclose(got), remove(path);
}

Test(trace_text, errors_leave_nothing) {
  char *out = (char *)1;
  sc_error err = {0};
  cr_expect_eq(sc_trace_json(files, 0, NULL, NULL, &out, &err), SC_EINPUT);
  cr_expect_null(out);
  const char *missing[] = {DATA "no_such_trace.json"};
  cr_expect_eq(sc_trace_json(missing, 1, NULL, NULL, &out, &err), SC_EIO);
  cr_expect_null(out);
  cr_expect_eq(sc_trace_json(files, 2, NULL, "-", &out, &err), SC_EINPUT);
  cr_expect_eq(sc_trace_json(files, 2, NULL, "/nonexistent/dir/p.json", &out, &err), SC_EIO);
  cr_expect_null(out);
  cr_expect_not_null(strstr(err.msg, "/nonexistent/dir/p.json"), "%s", err.msg);
  sc_trace_whatif w = dp4();
  w.gpu = "h900";
  cr_expect_eq(sc_trace_json(files, 2, &w, NULL, &out, &err), SC_EINPUT);
  cr_expect_null(out);
  cr_expect_not_null(strstr(err.msg, "h900"), "%s", err.msg);
}

Test(trace_text, every_allocation_fails_cleanly) {
  sc_trace_whatif w = dp4();
  char *want = by_hand(&w, NULL), *out;
  sc_error err = {0};
  if (!mem_fail_after(0)) { /* no injector in this build */
    free(want);
    return;
  }
  mem_fail_after(-1);
  for (long n = 0; n < 100000; n++) {
    char *warned = (char *)1;
    out = (char *)1;
    mem_fail_after(n);
    int rc = sc_trace_json_warn(files, 2, &w, NULL, &out, &warned, &err);
    mem_fail_after(-1);
    if (rc == SC_OK) {
      cr_expect_str_eq(out, want, "after %ld allocations", n);
      cr_expect_gt(n, 10);
      cr_expect_not_null(warned);
      sc_free(out);
      sc_free(warned);
      free(want);
      return;
    }
    cr_assert_eq(rc, SC_ENOMEM, "allocation %ld failing gave %d: %s", n + 1, rc, err.msg);
    cr_assert_null(out);
    cr_assert_null(warned, "allocation %ld failing left warnings", n + 1);
  }
  cr_assert_fail("never succeeded");
}

/* sc_trace_json_warn: the same document, and the warnings `stepcast trace`
 * prints (sc_trace_warnings after its replays): here that 2 of the job's
 * 128 ranks are given (hta/trace_filter; needs ../shared). */
Test(trace_text, warnings_are_the_commands) {
#define HTA_FILTER SC_SHARED_DIR "/traces/hta/trace_filter/"
  static const char *const hta[] = {HTA_FILTER "sampled_rank-0.json.gz",
                                    HTA_FILTER "sampled_rank-1.json.gz"};
  for (int i = 0; i < 2; i++) {
    FILE *f = fopen(hta[i], "rb");
    cr_assert_not_null(f, "%s: missing (../shared/traces is needed)", hta[i]);
    fclose(f);
  }
  sc_trace_whatif w = dp4();
  sc_trace *t;
  sc_trace_result base, x;
  sc_error err = {0};
  cr_assert_eq(sc_trace_load(hta, 2, NULL, NULL, &t, &err), SC_OK, "%s", err.msg);
  cr_assert_eq(sc_trace_replay(t, NULL, &base, &err), SC_OK, "%s", err.msg);
  cr_assert_eq(sc_trace_replay(t, &w, &x, &err), SC_OK, "%s", err.msg);
  char *out = NULL, *plain = NULL, *warned = NULL;
  cr_assert_eq(sc_trace_json_warn(hta, 2, &w, NULL, &out, &warned, &err), SC_OK, "%s", err.msg);
  cr_assert_eq(sc_trace_json(hta, 2, &w, NULL, &plain, &err), SC_OK, "%s", err.msg);
  cr_expect_str_eq(out, plain);
  cr_expect_str_eq(warned, sc_trace_warnings(t));
  cr_expect_not_null(strstr(warned, "2 of the job's 128 ranks"), "%s", warned);
  sc_trace_close(t);
  sc_free(out), sc_free(plain), sc_free(warned);
  cr_assert_eq(sc_trace_json_warn(files, 2, NULL, NULL, &out, &warned, &err), SC_OK, "%s",
               err.msg);
  cr_expect_str_eq(warned, "", "the synthetic job warns of nothing");
  sc_free(out), sc_free(warned);
}
