/*
 * search_limits.c -- the user's constraints on `stepcast search`'s plan
 * space: fixed degrees (--tp, --pp, --dp, --cp, --ep), the ZeRO stages
 * (--zero 1,3), the GEMM types (--dtypes bf16,fp8) and a memory margin
 * (--headroom 4 for GiB, 0.1 or 10% for a fraction). docs/search.md.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "search_limits.h"

void search_limits_help(void) {
  printf("  --tp N, --pp N, --dp N, --cp N, --ep N   fix that degree (the rest is searched)\n"
         "  --zero LIST           ZeRO stages searched, e.g. 1,3 (default 0,1,2,3)\n"
         "  --dtypes LIST         GEMM types searched, e.g. bf16,fp8 (default the scenario's;\n"
         "                        fp8 changes numerics, so it is only searched when asked;\n"
         "                        a type the GPU has no peak for is skipped)\n"
         "  --headroom X          memory kept free on every GPU: GiB (4), or a fraction of\n"
         "                        its memory (0.1 or 10%%)\n");
}

/* A whole number in lo..hi from v; -1 (message printed) when it is not. */
static long whole(const char *opt, const char *v, long lo, long hi) {
  char *end = NULL;
  long x = v ? strtol(v, &end, 10) : 0;
  if (!v || end == v || *end || x < lo || x > hi) {
    fprintf(stderr, "stepcast search: %s expects an integer %ld..%ld, got '%s'\n", opt, lo, hi,
            v ? v : "");
    return -1;
  }
  return x;
}

/* The dtype called name (SC_DTYPE_COUNT if none). */
static int dtype_named(const char *name, size_t len) {
  for (int d = 0; d < SC_DTYPE_COUNT; d++) {
    const char *n = sc_dtype_name((sc_dtype)d);
    if (strlen(n) == len && !strncmp(n, name, len)) return d;
  }
  return SC_DTYPE_COUNT;
}

/* A comma-separated list into a bit mask: ZeRO stages 0..3 (dtypes 0) or
 * dtype names (dtypes 1). 0 (message printed) on a bad item. */
static unsigned mask_of(const char *opt, const char *v, int dtypes) {
  unsigned m = 0;
  if (!v || !*v) goto bad;
  for (const char *p = v; *p;) {
    size_t len = strcspn(p, ",");
    int bit = -1;
    if (dtypes) bit = dtype_named(p, len);
    else if (len == 1 && p[0] >= '0' && p[0] <= '3') bit = p[0] - '0';
    if (bit < 0 || bit >= SC_DTYPE_COUNT || len == 0) goto bad;
    m |= 1u << bit;
    p += len;
    if (*p == ',') p++;
  }
  return m;
bad:
  fprintf(stderr, "stepcast search: %s expects a comma-separated list of %s, got '%s'\n", opt,
          dtypes ? "fp32, tf32, fp16, bf16, fp8, fp4" : "ZeRO stages 0..3", v ? v : "");
  return 0;
}

/* --headroom: GiB (> 1), or a fraction (<= 1, or a percentage). */
static int headroom(const char *v, sc_search_opts *o) {
  char *end = NULL;
  double x = v ? strtod(v, &end) : -1;
  int pct = end && *end == '%';
  if (!v || end == v || (*end && !(pct && end[1] == 0)) || !(x >= 0) || x > 1e6 ||
      (pct && x >= 100)) {
    fprintf(stderr, "stepcast search: --headroom expects GiB (4), a fraction (0.1) or a "
                    "percentage (10%%), got '%s'\n",
            v ? v : "");
    return -1;
  }
  if (pct) o->headroom_frac = x / 100;
  else if (x < 1) o->headroom_frac = x;
  else o->headroom_bytes = x * 1073741824.0;
  return 1;
}

int search_limits_take(int argc, char **argv, int *i, sc_search_opts *o) {
  const char *a = argv[*i], *v = *i + 1 < argc ? argv[*i + 1] : NULL;
  int *deg = !strcmp(a, "--tp")   ? &o->tp
             : !strcmp(a, "--pp") ? &o->pp
             : !strcmp(a, "--dp") ? &o->dp
             : !strcmp(a, "--cp") ? &o->cp
             : !strcmp(a, "--ep") ? &o->ep
                                  : NULL;
  if (deg) {
    (*i)++;
    long x = whole(a, v, 1, 1L << 24);
    return x < 0 ? -1 : (*deg = (int)x, 1);
  }
  if (!strcmp(a, "--zero") || !strcmp(a, "--dtypes")) {
    (*i)++;
    unsigned m = mask_of(a, v, a[2] == 'd');
    if (!m) return -1;
    if (a[2] == 'd') o->dtypes = m;
    else o->zero_stages = m;
    return 1;
  }
  if (!strcmp(a, "--headroom")) {
    (*i)++;
    return headroom(v, o);
  }
  return 0;
}
