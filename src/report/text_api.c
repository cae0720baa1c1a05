/*
 * text_api.c -- text in, text out: the entry points of stepcast.h that
 * language bindings call (the Python module, python/stepcast). Each takes
 * a scenario as JSON text or a file path and returns the very document
 * the command prints with --format json (the same writer, so a binding and
 * the CLI agree to the last digit), in a malloc'd string; predict also
 * writes the files of --trace and --html.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/file.h"
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

/* The option values of o the command refuses before it loads anything. */
static int predict_opts_values(const sc_predict_json_opts *o, sc_error *err) {
  if (o->train_tokens != 0 && !(o->train_tokens >= 1 && o->train_tokens <= 1e18))
    return sc_error_set(err, SC_EINPUT, "train_tokens: expected a number of tokens in 1..1e18, "
                        "e.g. 15e12 (0: none), got %g", o->train_tokens);
  int rc = file_name_check(o->trace, "trace", err);
  return rc ? rc : file_name_check(o->html, "html", err);
}

/* The combinations of o with the scenario s the command refuses. */
static int predict_opts_fit(const sc_predict_json_opts *o, const sc_scenario *s,
                            sc_error *err) {
  if (o->event && (o->ops || o->train_tokens > 0 || o->html || s->dp.scheme[0]))
    return sc_error_set(err, SC_EINPUT, "event: the event engine writes its document and "
                        "trace; ops, train_tokens, html and data-parallel scenarios (dp.scheme) "
                        "go with the closed form");
  if (s->dp.scheme[0] && (o->ops || o->html))
    return sc_error_set(err, SC_EINPUT, "dp.scheme: ops and html are not available for a "
                        "data-parallel scenario (trace is)");
  return SC_OK;
}

/* What a step's trace and HTML report are written from. */
typedef struct step_files {
  const sc_scenario *s;
  const sc_result *r;        /* the closed form's prediction (the HTML; the trace covers
                                its step_s); NULL for a data-parallel scheme */
  const sc_span *spans;      /* sc_timeline's (or sc_dp_timeline's) n spans */
  size_t n;
  const sc_event_pred *ev;   /* the event engine's run (its trace); NULL otherwise */
  double train_tokens;       /* the HTML summary's time to train (0: none) */
} step_files;

static int trace_of(FILE *f, const void *ctx, sc_error *err) {
  const step_files *c = ctx;
  (void)err;
  if (c->ev) sc_report_event_trace(f, c->s, c->ev);
  else sc_report_trace_step(f, c->s, c->spans, c->n, c->r ? c->r->step_s : 0);
  return SC_OK;
}

static int html_of(FILE *f, const void *ctx, sc_error *err) {
  const step_files *c = ctx;
  (void)err;
  sc_html_prediction_ex(f, c->s, c->r, c->spans, c->n, c->train_tokens);
  return SC_OK;
}

/* The trace and HTML report o names of s (r: the closed form's result;
 * dp: a data-parallel scenario, laid out by sc_dp_timeline); on failure
 * *out, the document already made, is freed. */
static int predict_files(const sc_scenario *s, const sc_result *r, int dp,
                         const sc_predict_json_opts *o, char **out, sc_error *err) {
  if (!o->trace && !o->html) return SC_OK;
  sc_span *spans = NULL;
  size_t n = 0;
  double step = 0;
  int rc = dp ? sc_dp_timeline(s, &spans, &n, &step, err) : sc_timeline(s, &spans, &n, &step, err);
  step_files c = {s, r, spans, n, NULL, o->train_tokens};
  if (rc != SC_OK) { /* no timeline: no document either */
    free(*out);
    *out = NULL;
  }
  if (rc == SC_OK) rc = file_write_beside(out, o->trace, "trace", trace_of, &c, err);
  if (rc == SC_OK) rc = file_write_beside(out, o->html, "html", html_of, &c, err);
  free(spans);
  return rc;
}

/* The document of a data-parallel scenario (its scheme, dp.scheme). */
static int predict_dp(const sc_scenario *s, const sc_predict_json_opts *o, char **out,
                      sc_error *err) {
  sc_dp_result d;
  mstream m;
  int rc = sc_dp_predict(s, &d, err);
  if (rc == SC_OK && (rc = mstream_open(&m, err)) == SC_OK) {
    sc_report_dp(m.f, SC_FORMAT_JSON, s, &d, 1);
    rc = mstream_close(&m, out, err);
  }
  return rc == SC_OK ? predict_files(s, NULL, 1, o, out, err) : rc;
}

/* The closed form's document, with the operators when o->ops. */
static int predict_closed(const sc_scenario *s, const sc_predict_json_opts *o, char **out,
                          sc_error *err) {
  sc_result r;
  sc_op_time layer[64], kinds[16];
  int n = 0, nk = 0, rc = sc_predict(s, &r, err);
  if (rc == SC_OK && o->ops && (n = sc_explain_layer(s, layer, 64, err)) < 0) rc = -n;
  if (rc == SC_OK && o->ops && (nk = sc_explain_kinds(s, kinds, 16, err)) < 0) rc = -nk;
  mstream m;
  if (rc == SC_OK) rc = mstream_open(&m, err);
  if (rc != SC_OK) return rc;
  sc_report_prediction_kinds(m.f, SC_FORMAT_JSON, s, &r, o->train_tokens, o->ops ? layer : NULL,
                             n, o->ops ? kinds : NULL, nk);
  rc = mstream_close(&m, out, err);
  return rc == SC_OK ? predict_files(s, &r, 0, o, out, err) : rc;
}

/* The event engine's document, and its trace when o->trace. */
static int predict_event(const sc_scenario *s, const sc_predict_json_opts *o, char **out,
                         sc_error *err) {
  sc_event_opts eo = {1, o->trace != NULL};
  sc_event_pred *p = NULL;
  sc_result r;
  mstream m;
  int rc = sc_predict_event(s, &eo, &r, &p, err);
  if (rc == SC_OK && (rc = mstream_open(&m, err)) == SC_OK) {
    sc_report_event(m.f, SC_FORMAT_JSON, s, &r, p);
    rc = mstream_close(&m, out, err);
  }
  step_files c = {s, NULL, NULL, 0, p, 0};
  if (rc == SC_OK) rc = file_write_beside(out, o->trace, "trace", trace_of, &c, err);
  sc_event_pred_free(p);
  return rc;
}

int sc_predict_json(const char *path, const char *json, const char *const *overrides,
                    size_t n_overrides, int ops, double train_tokens, char **out,
                    sc_error *err) {
  sc_predict_json_opts o = {.ops = ops, .train_tokens = train_tokens};
  return sc_predict_json_ex(path, json, overrides, n_overrides, &o, out, err);
}

int sc_predict_json_ex(const char *path, const char *json, const char *const *overrides,
                       size_t n_overrides, const sc_predict_json_opts *opts, char **out,
                       sc_error *err) {
  *out = NULL;
  sc_predict_json_opts none = {0};
  const sc_predict_json_opts *o = opts ? opts : &none;
  sc_scenario s;
  int rc = predict_opts_values(o, err);
  if (rc == SC_OK) rc = load(&s, path, json, overrides, n_overrides, 0, err);
  if (rc == SC_OK) rc = predict_opts_fit(o, &s, err);
  if (rc != SC_OK) return rc;
  if (s.dp.scheme[0]) return predict_dp(&s, o, out, err);
  return o->event ? predict_event(&s, o, out, err) : predict_closed(&s, o, out, err);
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

/* What a search's HTML page is written from. */
typedef struct search_page {
  const sc_scenario *s;
  const sc_search_opts *o;
  const sc_candidate *chosen; /* the search's first plan; NULL: none */
} search_page;

static int search_page_of(FILE *f, const void *ctx, sc_error *err) {
  const search_page *c = ctx;
  return sc_html_search_space(f, c->s, c->o, c->chosen, err);
}

int sc_search_json(const char *path, const char *json, const char *const *overrides,
                   size_t n_overrides, const sc_search_opts *opts, int top, char **out,
                   sc_error *err) {
  return sc_search_json_ex(path, json, overrides, n_overrides, opts, top, NULL, out, err);
}

int sc_search_json_ex(const char *path, const char *json, const char *const *overrides,
                      size_t n_overrides, const sc_search_opts *opts, int top, const char *html,
                      char **out, sc_error *err) {
  return sc_searcher_search_json(NULL, path, json, overrides, n_overrides, opts, top, html, out,
                                 err);
}

/* The headroom o asked for (bytes) into the memory of the plans c[0..n)
 * and st's closest, which the search judged under it: their JSON says it
 * (docs/output.md; the CLI's search_limits_mark). */
static void mark_headroom(sc_candidate *c, int n, sc_search_stats *st, const sc_search_opts *o) {
  for (int i = 0; i <= n; i++) {
    sc_memory *m = i < n ? &c[i].result.mem : st->has_closest ? &st->closest.result.mem : NULL;
    if (m) m->headroom = m->capacity - sc_memory_usable(m->capacity, o->headroom_bytes,
                                                        o->headroom_frac);
  }
}

int sc_searcher_search_json(sc_searcher *sr, const char *path, const char *json,
                            const char *const *overrides, size_t n_overrides,
                            const sc_search_opts *opts, int top, const char *html, char **out,
                            sc_error *err) {
  *out = NULL;
  if (top < 1 || top > 100000)
    return sc_error_set(err, SC_EINPUT, "top: expected 1..100000, got %d", top);
  sc_scenario s;
  int rc = file_name_check(html, "html", err);
  if (rc == SC_OK) rc = load(&s, path, json, overrides, n_overrides, SC_LOAD_PLAN_UNCHECKED, err);
  if (rc != SC_OK) return rc;
  sc_candidate *best = malloc(sizeof *best * (size_t)top);
  if (!best) return sc_error_set(err, SC_ENOMEM, "out of memory for %d plans", top);
  sc_search_stats st;
  int n = 0;
  mstream m;
  rc = sc_searcher_search(sr, &s, opts, best, top, &n, &st, err);
  if (rc == SC_OK && opts) mark_headroom(best, n, &st, opts);
  if (rc == SC_OK) rc = mstream_open(&m, err);
  if (rc == SC_OK) {
    sc_report_search(m.f, SC_FORMAT_JSON, &s, best, n, &st);
    rc = mstream_close(&m, out, err);
  }
  sc_search_opts none;
  if (!opts) sc_search_opts_default(&none);
  search_page page = {&s, opts ? opts : &none, n ? best : NULL};
  if (rc == SC_OK) rc = file_write_beside(out, html, "html", search_page_of, &page, err);
  free(best);
  return rc;
}

/* What the HTML report of validated sets is written from. */
typedef struct validated {
  const sc_validation *sets;
  int n;
} validated;

static int html_sets_of(FILE *f, const void *ctx, sc_error *err) {
  const validated *v = ctx;
  (void)err;
  sc_html_validation(f, v->sets, v->n);
  return SC_OK;
}

int sc_validate_json(const char *const *paths, const char *const *names, size_t n, char **out,
                     sc_error *err) {
  return sc_validate_json_ex(paths, names, n, NULL, out, err);
}

int sc_validate_json_ex(const char *const *paths, const char *const *names, size_t n,
                        const sc_validate_json_opts *opts, char **out, sc_error *err) {
  *out = NULL;
  sc_validate_json_opts none = {0};
  const sc_validate_json_opts *o = opts ? opts : &none;
  int rc = file_name_check(o->html, "html", err);
  if (rc != SC_OK) return rc;
  sc_validation *sets = calloc(n ? n : 1, sizeof *sets);
  if (!sets) return sc_error_set(err, SC_ENOMEM, "out of memory for %zu sets", n);
  size_t done = 0;
  for (; done < n && rc == SC_OK; done++) {
    if ((rc = sc_validate_file_engine(paths[done], o->event, &sets[done], err)) != SC_OK) break;
    if (names && names[done])
      snprintf(sets[done].path, sizeof sets[done].path, "%s", names[done]);
  }
  mstream m;
  if (rc == SC_OK) rc = mstream_open(&m, err);
  if (rc == SC_OK) {
    unsigned flags = SC_REPORT_ROWS | (o->timings ? SC_REPORT_TIMINGS : 0);
    sc_report_validation(m.f, SC_FORMAT_JSON, sets, (int)n, flags);
    rc = mstream_close(&m, out, err);
  }
  validated v = {sets, (int)n};
  if (rc == SC_OK) rc = file_write_beside(out, o->html, "html", html_sets_of, &v, err);
  for (size_t i = 0; i < done; i++) sc_validation_free(&sets[i]);
  free(sets);
  return rc;
}

int sc_validate_row_json(const char *path, const char *id, int event, int ops, char **out,
                         sc_error *err) {
  *out = NULL;
  if (event && ops)
    return sc_error_set(err, SC_EINPUT, "ops goes with the closed form, not the event engine");
  sc_scenario s;
  sc_predict_json_opts o = {.ops = ops, .event = event};
  int rc = sc_validate_row_scenario(path, id, &s, err);
  if (rc == SC_OK && s.dp.scheme[0]) {
    o.ops = 0; /* as the command: a data-parallel row's scheme, without operators */
    return predict_dp(&s, &o, out, err);
  }
  if (rc == SC_OK) rc = sc_scenario_resolve(&s, err);
  if (rc != SC_OK) return rc;
  return event ? predict_event(&s, &o, out, err) : predict_closed(&s, &o, out, err);
}

static int html_sweep_of(FILE *f, const void *sweep, sc_error *err) {
  (void)err;
  sc_html_collective(f, sweep);
  return SC_OK;
}

int sc_collective_json(const sc_coll_sweep_opts *o, char **out, sc_error *err) {
  return sc_collective_json_ex(o, NULL, out, err);
}

int sc_collective_json_ex(const sc_coll_sweep_opts *o, const char *html, char **out,
                          sc_error *err) {
  *out = NULL;
  int rc = file_name_check(html, "html", err);
  if (rc != SC_OK) return rc;
  sc_coll_sweep sw;
  rc = sc_coll_sweep_run(o, NULL, NULL, &sw, err);
  mstream m;
  if (rc == SC_OK && (rc = mstream_open(&m, err)) == SC_OK) {
    sc_report_collective(m.f, SC_FORMAT_JSON, &sw);
    rc = mstream_close(&m, out, err);
  }
  if (rc == SC_OK) rc = file_write_beside(out, html, "html", html_sweep_of, &sw, err);
  if (sw.points) sc_coll_sweep_free(&sw);
  return rc;
}

int sc_presets_json(char **out, sc_error *err) {
  *out = NULL;
  mstream m;
  int rc = mstream_open(&m, err);
  if (rc != SC_OK) return rc;
  sc_report_presets(m.f, SC_FORMAT_JSON);
  return mstream_close(&m, out, err);
}

void sc_free(void *p) { free(p); }
