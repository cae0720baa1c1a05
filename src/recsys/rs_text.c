/*
 * rs_text.c -- JSON text out of a recsys job file, for bindings
 * (sc_rs_predict_json, sc_rs_plan_json and their _ex forms with --set
 * overrides, the planner's options and --trace; sc_rs_row_json;
 * stepcast_recsys.h): the same documents as `stepcast recsys
 * predict|plan|row --format json`.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/file.h"
#include "core/mstream.h"
#include "stepcast_recsys.h"

/* The plan of `sharding` (a kind name, "table_wise+split") into p. */
static int uniform(const sc_rs_job *j, const char *sharding, sc_rs_plan *p, sc_error *err) {
  int split = !strcmp(sharding, "table_wise+split");
  int k = split ? SC_RS_TABLE_WISE : sc_rs_shard_from_name(sharding);
  if (k < 0)
    return sc_error_set(err, SC_EINPUT, "sharding '%s': valid: data_parallel, table_wise, "
                        "table_wise+split, row_wise, column_wise, table_row_wise", sharding);
  sc_rs_plan_free(p);
  return sc_rs_plan_uniform(j, (sc_rs_shard_kind)k, split, p, err);
}

/* The planner's best plan of j into p. */
static int best(const sc_rs_job *j, sc_rs_plan *p, sc_error *err) {
  sc_rs_plans ps;
  int rc = sc_rs_plan_search(j, NULL, &ps, err);
  if (rc) return rc;
  if (ps.n == 0) return sc_error_set(err, SC_EINPUT, "the planner found no plan");
  *p = ps.plan[0];
  ps.plan[0] = (sc_rs_plan){0};
  sc_rs_plans_free(&ps);
  return SC_OK;
}

/* What a recsys trace is written from: plan p of job j. */
typedef struct rs_trace_of {
  const sc_rs_job *j;
  const sc_rs_plan *p;
} rs_trace_of;

static int trace_of(FILE *f, const void *ctx, sc_error *err) {
  const rs_trace_of *c = ctx;
  return sc_rs_report_trace(f, c->j, c->p, NULL, err);
}

/* The document of plan p of j (evaluated), and its trace. */
static int predict_doc(const sc_rs_job *j, const sc_rs_plan *p, const char *trace, char **out,
                       sc_error *err) {
  sc_rs_result r = {0};
  mstream m;
  int rc = sc_rs_evaluate(j, p, &r, err);
  if (!rc && !(rc = mstream_open(&m, err))) {
    sc_rs_report_result(m.f, SC_FORMAT_JSON, j, p, &r);
    rc = mstream_close(&m, out, err);
  }
  sc_rs_result_free(&r);
  rs_trace_of c = {j, p};
  return rc ? rc : file_write_beside(out, trace, "trace", trace_of, &c, err);
}

/* The job of the file at path with its overrides and the sharding the
 * file gives (none or "auto": p->n 0), once trace (a file to write, or
 * NULL) is a valid name; on SC_OK the caller frees both. */
static int load(const char *path, const char *const *overrides, size_t n_overrides,
                const char *trace, sc_rs_job *j, sc_rs_plan *p, sc_error *err) {
  int autop;
  int rc = file_name_check(trace, "trace", err);
  return rc ? rc : sc_rs_job_load_file_ex(path, overrides, n_overrides, j, p, &autop, err);
}

int sc_rs_predict_json(const char *path, const char *sharding, char **out, sc_error *err) {
  return sc_rs_predict_json_ex(path, NULL, 0, sharding, NULL, out, err);
}

int sc_rs_predict_json_ex(const char *path, const char *const *overrides, size_t n_overrides,
                          const char *sharding, const char *trace, char **out, sc_error *err) {
  *out = NULL;
  sc_rs_job j;
  sc_rs_plan p;
  int rc = load(path, overrides, n_overrides, trace, &j, &p, err);
  if (rc) return rc;
  if (sharding) rc = uniform(&j, sharding, &p, err);
  else if (p.n == 0) rc = best(&j, &p, err);
  if (!rc) rc = predict_doc(&j, &p, trace, out, err);
  sc_rs_plan_free(&p);
  sc_rs_job_free(&j);
  return rc;
}

int sc_rs_plan_json(const char *path, int top, double max_seconds, long max_evals, char **out,
                    sc_error *err) {
  sc_rs_plan_opts o;
  sc_rs_plan_opts_default(&o);
  o.top = top;
  o.max_seconds = max_seconds;
  o.max_evals = max_evals;
  return sc_rs_plan_json_ex(path, NULL, 0, &o, NULL, out, err);
}

int sc_rs_plan_json_ex(const char *path, const char *const *overrides, size_t n_overrides,
                       const sc_rs_plan_opts *o, const char *trace, char **out, sc_error *err) {
  *out = NULL;
  sc_rs_job j;
  sc_rs_plan p;
  int rc = load(path, overrides, n_overrides, trace, &j, &p, err);
  if (rc) return rc;
  sc_rs_plan_free(&p);
  sc_rs_plans ps;
  rc = sc_rs_plan_search(&j, o, &ps, err);
  mstream m;
  if (!rc && !(rc = mstream_open(&m, err))) {
    sc_rs_report_plans(m.f, SC_FORMAT_JSON, &j, &ps);
    rc = mstream_close(&m, out, err);
  }
  /* the trace: the iteration of the best plan found (rank 1) */
  rs_trace_of c = {&j, &ps.plan[0]};
  if (!rc && ps.n > 0) rc = file_write_beside(out, trace, "trace", trace_of, &c, err);
  sc_rs_plans_free(&ps); /* zeroed by the search even when it fails */
  sc_rs_job_free(&j);
  return rc;
}

int sc_rs_row_json(const char *path, const char *id, char **out, sc_error *err) {
  *out = NULL;
  sc_rs_job j;
  sc_rs_plan p;
  int rc = sc_rs_row_job(path, id, &j, &p, err);
  if (!rc) rc = predict_doc(&j, &p, NULL, out, err);
  sc_rs_plan_free(&p);
  sc_rs_job_free(&j);
  return rc;
}
