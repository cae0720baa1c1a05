/*
 * rs_text.c -- JSON text out of a recsys job file, for bindings
 * (sc_rs_predict_json, sc_rs_plan_json and their _ex forms with --set
 * overrides and the planner's options; stepcast_recsys.h): the same
 * documents as `stepcast recsys predict|plan --format json`.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

int sc_rs_predict_json(const char *path, const char *sharding, char **out, sc_error *err) {
  return sc_rs_predict_json_ex(path, NULL, 0, sharding, out, err);
}

int sc_rs_predict_json_ex(const char *path, const char *const *overrides, size_t n_overrides,
                          const char *sharding, char **out, sc_error *err) {
  *out = NULL;
  sc_rs_job j;
  sc_rs_plan p;
  int autop;
  int rc = sc_rs_job_load_file_ex(path, overrides, n_overrides, &j, &p, &autop, err);
  if (rc) return rc;
  if (sharding) rc = uniform(&j, sharding, &p, err);
  else if (p.n == 0) rc = best(&j, &p, err);
  sc_rs_result r = {0};
  if (!rc) rc = sc_rs_evaluate(&j, &p, &r, err);
  mstream m;
  if (!rc && !(rc = mstream_open(&m, err))) {
    sc_rs_report_result(m.f, SC_FORMAT_JSON, &j, &p, &r);
    rc = mstream_close(&m, out, err);
  }
  sc_rs_result_free(&r);
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
  return sc_rs_plan_json_ex(path, NULL, 0, &o, out, err);
}

int sc_rs_plan_json_ex(const char *path, const char *const *overrides, size_t n_overrides,
                       const sc_rs_plan_opts *o, char **out, sc_error *err) {
  *out = NULL;
  sc_rs_job j;
  sc_rs_plan p;
  int autop;
  int rc = sc_rs_job_load_file_ex(path, overrides, n_overrides, &j, &p, &autop, err);
  if (rc) return rc;
  sc_rs_plan_free(&p);
  sc_rs_plans ps;
  rc = sc_rs_plan_search(&j, o, &ps, err);
  mstream m;
  if (!rc && !(rc = mstream_open(&m, err))) {
    sc_rs_report_plans(m.f, SC_FORMAT_JSON, &j, &ps);
    rc = mstream_close(&m, out, err);
  }
  sc_rs_plans_free(&ps); /* zeroed by the search even when it fails */
  sc_rs_job_free(&j);
  return rc;
}
