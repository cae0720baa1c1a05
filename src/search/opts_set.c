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
#include "search/space.h"
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

/* The bit of one list item p[0..len) (ZeRO stage; dtype_from_name for
 * the dtypes); -1 if none. */
static int zero_bit(const char *p, size_t len) {
  return len == 1 && p[0] >= '0' && p[0] <= '3' ? p[0] - '0' : -1;
}

/* Recomputation: the sc_recompute names, and "partial" (bit 3). */
static int recompute_bit(const char *p, size_t len) {
  for (int b = 0; b < SPACE_RECOMP_KINDS; b++)
    if (strlen(space_recomp_names[b]) == len && !strncmp(p, space_recomp_names[b], len))
      return b;
  return -1;
}

/* A list option: its items' bits and what the message says is valid. */
typedef struct list_kind {
  int (*bit)(const char *p, size_t len);
  const char *valid;
} list_kind;

static const list_kind zeros = {zero_bit, "ZeRO stages 0..3"};
static const list_kind dtypes = {dtype_from_name, "fp32, tf32, fp16, bf16, fp8, fp4"};
static const list_kind recomputes = {recompute_bit, "none, selective, full, partial"};

/* A comma-separated list of kind k's items into a bit mask. */
static int set_mask(const char *key, const char *v, const list_kind *k, unsigned *dst,
                    sc_error *err) {
  unsigned m = 0;
  for (const char *p = v; *p;) {
    size_t len = strcspn(p, ",");
    int bit = len ? k->bit(p, len) : -1;
    if (bit < 0) m = 0, p = "";
    else m |= 1u << bit, p += len + (p[len] == ',');
  }
  if (!m || !*v || v[strlen(v) - 1] == ',')
    return sc_error_set(err, SC_EINPUT, "%s: expected a comma-separated list of %s, got '%s'",
                        key, k->valid, v);
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

/* The int field of a bound, a fixed degree or a fixed inner dimension
 * called key, and its largest value into *hi; NULL if none. */
static int *int_field(sc_search_opts *o, const char *key, long *hi) {
  const struct {
    const char *key;
    int *f;
    long hi;
  } fs[] = {{"max_tp", &o->max_tp, 4096},      {"max_pp", &o->max_pp, 4096},
            {"max_micro_batch", &o->max_micro_batch, 4096},
            {"max_vpp", &o->max_vpp, 4096},    {"threads", &o->threads, 4096},
            {"tp", &o->tp, MAX_DEGREE},        {"pp", &o->pp, MAX_DEGREE},
            {"dp", &o->dp, MAX_DEGREE},        {"cp", &o->cp, MAX_DEGREE},
            {"ep", &o->ep, MAX_DEGREE},        {"micro_batch", &o->micro_batch, MAX_DEGREE},
            {"vpp", &o->vpp, 4096}};
  for (size_t i = 0; i < sizeof fs / sizeof fs[0]; i++)
    if (!strcmp(key, fs[i].key)) return *hi = fs[i].hi, fs[i].f;
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
  if (!strcmp(key, "zero")) return set_mask(key, value, &zeros, &o->zero_stages, err);
  if (!strcmp(key, "dtypes")) return set_mask(key, value, &dtypes, &o->dtypes, err);
  if (!strcmp(key, "recompute")) return set_mask(key, value, &recomputes, &o->recompute, err);
  if (!strcmp(key, "headroom")) return set_headroom(key, value, o, err);
  return sc_error_set(err, SC_EINPUT,
                      "unknown search option '%s'; valid: tp, pp, dp, cp, ep, micro_batch, "
                      "vpp, recompute, zero, dtypes, headroom, max_tp, max_pp, max_micro_batch, max_vpp, all, rerank, "
                      "threads, max_plans, max_seconds",
                      key);
}

/* stepcast.h */
double sc_memory_usable(double capacity, double headroom_bytes, double headroom_frac) {
  return capacity - headroom_bytes - headroom_frac * capacity;
}
