/*
 * text_api.c -- text in, text out: the entry points of stepcast.h that
 * language bindings call (the Python module, python/stepcast). Each takes
 * a scenario as JSON text or a file path and returns the very document
 * the command prints with --format json (the same writer, so a binding and
 * the CLI agree to the last digit), in a malloc'd string.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/mstream.h"
#include "stepcast.h"

/* Load the scenario of a path, JSON text or neither (the default). */
static int load(sc_scenario *s, const char *path, const char *json,
                const char *const *overrides, size_t n_overrides, unsigned flags,
                sc_error *err) {
  if (path && json)
    return sc_error_set(err, SC_EINPUT, "give a scenario file or JSON text, not both");
  if (path) return sc_scenario_load_file_ex(s, path, overrides, n_overrides, flags, err);
  return sc_scenario_load_string_ex(s, json ? json : "{}", json ? "<scenario>" : "<default scenario>",
                                    overrides, n_overrides, flags, err);
}

int sc_predict_json(const char *path, const char *json, const char *const *overrides,
                    size_t n_overrides, int ops, double train_tokens, char **out,
                    sc_error *err) {
  *out = NULL;
  sc_scenario s;
  sc_result r;
  sc_op_time layer[64], kinds[16];
  int n = 0, nk = 0, rc = load(&s, path, json, overrides, n_overrides, 0, err);
  if (rc == SC_OK && s.dp.scheme[0]) { /* a data-parallel scenario: `predict` prints it so */
    sc_dp_result d;
    mstream m;
    if ((rc = sc_dp_predict(&s, &d, err)) || (rc = mstream_open(&m, err))) return rc;
    sc_report_dp(m.f, SC_FORMAT_JSON, &s, &d, 1);
    return mstream_close(&m, out, err);
  }
  if (rc == SC_OK) rc = sc_predict(&s, &r, err);
  if (rc == SC_OK && ops && (n = sc_explain_layer(&s, layer, 64, err)) < 0) rc = -n;
  if (rc == SC_OK && ops && (nk = sc_explain_kinds(&s, kinds, 16, err)) < 0) rc = -nk;
  mstream m;
  if (rc == SC_OK) rc = mstream_open(&m, err);
  if (rc != SC_OK) return rc;
  sc_report_prediction_kinds(m.f, SC_FORMAT_JSON, &s, &r, train_tokens, ops ? layer : NULL, n,
                             ops ? kinds : NULL, nk);
  return mstream_close(&m, out, err);
}

int sc_dp_json(const char *path, const char *json, const char *const *overrides,
               size_t n_overrides, char **out, sc_error *err) {
  *out = NULL;
  sc_scenario s;
  sc_dp_result r[32];
  int rc = load(&s, path, json ? json : path ? NULL : sc_dp_default_scenario(),
                overrides, n_overrides, SC_LOAD_PLAN_UNCHECKED, err);
  int n = rc == SC_OK ? sc_dp_compare(&s, r, 32, err) : 0;
  if (n < 0) rc = -n;
  mstream m;
  if (rc == SC_OK) rc = mstream_open(&m, err);
  if (rc != SC_OK) return rc;
  sc_report_dp(m.f, SC_FORMAT_JSON, &s, r, n);
  return mstream_close(&m, out, err);
}

int sc_search_json(const char *path, const char *json, const char *const *overrides,
                   size_t n_overrides, const sc_search_opts *opts, int top, char **out,
                   sc_error *err) {
  *out = NULL;
  if (top < 1 || top > 100000)
    return sc_error_set(err, SC_EINPUT, "top: expected 1..100000, got %d", top);
  sc_scenario s;
  int rc = load(&s, path, json, overrides, n_overrides, SC_LOAD_PLAN_UNCHECKED, err);
  if (rc != SC_OK) return rc;
  sc_candidate *best = malloc(sizeof *best * (size_t)top);
  if (!best) return sc_error_set(err, SC_ENOMEM, "out of memory for %d plans", top);
  sc_search_stats st;
  int n = 0;
  mstream m;
  rc = sc_search(&s, opts, best, top, &n, &st, err);
  if (rc == SC_OK) rc = mstream_open(&m, err);
  if (rc == SC_OK) {
    sc_report_search(m.f, SC_FORMAT_JSON, &s, best, n, &st);
    rc = mstream_close(&m, out, err);
  }
  free(best);
  return rc;
}

int sc_validate_json(const char *const *paths, const char *const *names, size_t n, char **out,
                     sc_error *err) {
  *out = NULL;
  sc_validation *sets = calloc(n ? n : 1, sizeof *sets);
  if (!sets) return sc_error_set(err, SC_ENOMEM, "out of memory for %zu sets", n);
  size_t done = 0;
  int rc = SC_OK;
  for (; done < n && rc == SC_OK; done++) {
    if ((rc = sc_validate_file(paths[done], &sets[done], err)) != SC_OK) break;
    if (names && names[done])
      snprintf(sets[done].path, sizeof sets[done].path, "%s", names[done]);
  }
  mstream m;
  if (rc == SC_OK) rc = mstream_open(&m, err);
  if (rc == SC_OK) {
    sc_report_validation(m.f, SC_FORMAT_JSON, sets, (int)n, SC_REPORT_ROWS);
    rc = mstream_close(&m, out, err);
  }
  for (size_t i = 0; i < done; i++) sc_validation_free(&sets[i]);
  free(sets);
  return rc;
}

int sc_collective_json(const sc_coll_sweep_opts *o, char **out, sc_error *err) {
  *out = NULL;
  sc_coll_sweep sw;
  int rc = sc_coll_sweep_run(o, NULL, NULL, &sw, err);
  mstream m;
  if (rc == SC_OK && (rc = mstream_open(&m, err)) == SC_OK) {
    sc_report_collective(m.f, SC_FORMAT_JSON, &sw);
    rc = mstream_close(&m, out, err);
  }
  if (sw.points) sc_coll_sweep_free(&sw);
  return rc;
}

void sc_free(void *p) { free(p); }
