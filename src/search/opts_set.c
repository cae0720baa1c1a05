/*
 * opts_set.c -- sc_search_opts_set: one search option from text, as
 * `stepcast search` reads its command line (cli/search_limits.c calls it
 * for the constraints) and as language bindings pass keyword arguments
 * (python/stepcast, docs/python.md). Every bad value is an SC_EINPUT that
 * names the option, what was given and what would be valid.
 */
#include <stdlib.h>
#include <string.h>

#include "core/dtype.h"
#include "stepcast.h"

#define MAX_DEGREE (1L << 24)  /* PLAN_MAX_DEGREE of the scenario loader */

/* A whole number in lo..hi from v into *x; SC_EINPUT (named) if not. */
static int whole(const char *key, const char *v, long lo, long hi, long *x, sc_error *err) {
  char *end = NULL;
  *x = strtol(v, &end, 10);
  if (end == v || *end || *x < lo || *x > hi)
    return sc_error_set(err, SC_EINPUT, "%s: expected an integer %ld..%ld, got '%s'", key, lo,
                        hi, v);
  return SC_OK;
}

/* An int field from a whole number in lo..hi. */
static int set_int(const char *key, const char *v, long lo, long hi, int *dst, sc_error *err) {
  long x = 0;
  int rc = whole(key, v, lo, hi, &x, err);
  if (rc == SC_OK) *dst = (int)x;
  return rc;
}

/* A switch: 1/0, true/false. */
static int set_bool(const char *key, const char *v, int *dst, sc_error *err) {
  if (!strcmp(v, "1") || !strcmp(v, "true")) *dst = 1;
  else if (!strcmp(v, "0") || !strcmp(v, "false")) *dst = 0;
  else return sc_error_set(err, SC_EINPUT, "%s: expected true or false (1 or 0), got '%s'", key, v);
  return SC_OK;
}

/* Seconds in (0, 1e9]. */
static int set_seconds(const char *key, const char *v, double *dst, sc_error *err) {
  char *end = NULL;
  double x = strtod(v, &end);
  if (end == v || *end || !(x > 0) || x > 1e9)
    return sc_error_set(err, SC_EINPUT, "%s: expected seconds > 0, got '%s'", key, v);
  *dst = x;
  return SC_OK;
}

/* A comma-separated list into a bit mask: ZeRO stages 0..3 (dtypes 0) or
 * dtype names (dtypes 1). */
static int set_mask(const char *key, const char *v, int dtypes, unsigned *dst, sc_error *err) {
  unsigned m = 0;
  for (const char *p = v; *p;) {
    size_t len = strcspn(p, ",");
    int bit = -1;
    if (dtypes) bit = dtype_from_name(p, len);
    else if (len == 1 && p[0] >= '0' && p[0] <= '3') bit = p[0] - '0';
    if (bit < 0 || bit >= SC_DTYPE_COUNT || len == 0) m = 0, p = "";
    else m |= 1u << bit, p += len + (p[len] == ',');
  }
  if (!m || !*v || v[strlen(v) - 1] == ',')
    return sc_error_set(err, SC_EINPUT, "%s: expected a comma-separated list of %s, got '%s'",
                        key, dtypes ? "fp32, tf32, fp16, bf16, fp8, fp4" : "ZeRO stages 0..3", v);
  *dst = m;
  return SC_OK;
}

/* headroom: GiB (>= 1), or a fraction (< 1, or a percentage "10%"). */
static int set_headroom(const char *key, const char *v, sc_search_opts *o, sc_error *err) {
  char *end = NULL;
  double x = strtod(v, &end);
  int pct = *end == '%';
  if (end == v || (*end && !(pct && end[1] == 0)) || !(x >= 0) || x > 1e6 || (pct && x >= 100))
    return sc_error_set(err, SC_EINPUT,
                        "%s: expected GiB (4), a fraction (0.1) or a percentage (10%%), got '%s'",
                        key, v);
  o->headroom_bytes = o->headroom_frac = 0;
  if (pct) o->headroom_frac = x / 100;
  else if (x < 1) o->headroom_frac = x;
  else o->headroom_bytes = x * 1073741824.0;
  return SC_OK;
}

/* The int field of a bound or a fixed degree called key; NULL if none. */
static int *int_field(sc_search_opts *o, const char *key, long *hi) {
  static const char *const bounds[] = {"max_tp", "max_pp", "max_micro_batch", "max_vpp",
                                       "threads"};
  static const char *const degrees[] = {"tp", "pp", "dp", "cp", "ep"};
  int *const bf[] = {&o->max_tp, &o->max_pp, &o->max_micro_batch, &o->max_vpp, &o->threads};
  int *const df[] = {&o->tp, &o->pp, &o->dp, &o->cp, &o->ep};
  for (int i = 0; i < 5; i++) {
    if (!strcmp(key, bounds[i])) return *hi = 4096, bf[i];
    if (!strcmp(key, degrees[i])) return *hi = MAX_DEGREE, df[i];
  }
  return NULL;
}

int sc_search_opts_set(sc_search_opts *o, const char *key, const char *value, sc_error *err) {
  if (!key || !value)
    return sc_error_set(err, SC_EINPUT, "search option: a key and a value are needed");
  long hi = 0, n = 0;
  int *f = int_field(o, key, &hi);
  if (f) return set_int(key, value, 1, hi, f, err);
  if (!strcmp(key, "max_plans")) {
    int rc = whole(key, value, 1, 1000000000L, &n, err);
    if (rc == SC_OK) o->max_plans = n;
    return rc;
  }
  if (!strcmp(key, "max_seconds")) return set_seconds(key, value, &o->max_seconds, err);
  if (!strcmp(key, "rerank")) return set_bool(key, value, &o->rerank, err);
  if (!strcmp(key, "all")) {
    int all = 0, rc = set_bool(key, value, &all, err);
    if (rc == SC_OK) o->require_fit = !all;
    return rc;
  }
  if (!strcmp(key, "zero")) return set_mask(key, value, 0, &o->zero_stages, err);
  if (!strcmp(key, "dtypes")) return set_mask(key, value, 1, &o->dtypes, err);
  if (!strcmp(key, "headroom")) return set_headroom(key, value, o, err);
  return sc_error_set(err, SC_EINPUT,
                      "unknown search option '%s'; valid: tp, pp, dp, cp, ep, zero, dtypes, "
                      "headroom, max_tp, max_pp, max_micro_batch, max_vpp, all, rerank, "
                      "threads, max_plans, max_seconds",
                      key);
}
