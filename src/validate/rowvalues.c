/*
 * rowvalues.c -- see rowvalues.h.
 */
#include "validate/rowvalues.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


/* s lowercased, without leading and trailing spaces, into buf (cap
 * bytes); 0 when it does not fit (a cell this long names no value). */
static int lower_trim(const char *s, char *buf, size_t cap) {
  while (isspace((unsigned char)*s)) s++;
  size_t n = strlen(s);
  while (n > 0 && isspace((unsigned char)s[n - 1])) n--;
  if (n + 1 > cap) return 0;
  for (size_t i = 0; i < n; i++) buf[i] = (char)tolower((unsigned char)s[i]);
  buf[n] = '\0';
  return 1;
}

/* 1 when s is one of the NULL-terminated words. */
static int one_of(const char *s, const char *const *words) {
  for (; *words; words++)
    if (!strcmp(s, *words)) return 1;
  return 0;
}

/* Remove the first of the NULL-terminated suffixes that ends buf. */
static void drop_suffix(char *buf, const char *const *suffixes) {
  size_t n = strlen(buf);
  for (; *suffixes; suffixes++) {
    size_t k = strlen(*suffixes);
    if (n > k && !strcmp(buf + n - k, *suffixes)) {
      buf[n - k] = '\0';
      return;
    }
  }
}

int rowv_dtype(const char *s, sc_dtype *d) {
  static const char *const mixed[] = {"-mixed", "_mixed", " mixed", "-amp", " amp", "-true",
                                      NULL};
  static const char *const f32[] = {"fp32", "float32", "32", NULL};
  static const char *const f16[] = {"fp16", "float16", "half", "16", "amp", NULL};
  static const char *const b16[] = {"bf16", "bfloat16", NULL};
  static const char *const f4[] = {"fp4", "nvfp4", "mxfp4", NULL};
  char b[32];
  if (!lower_trim(s, b, sizeof b)) return 0;
  drop_suffix(b, mixed);
  if (one_of(b, f32)) *d = SC_FP32;
  else if (!strcmp(b, "tf32")) *d = SC_TF32;
  else if (one_of(b, f16)) *d = SC_FP16;
  else if (one_of(b, b16)) *d = SC_BF16;
  else if (!strncmp(b, "fp8", 3)) *d = SC_FP8;
  else if (one_of(b, f4)) *d = SC_FP4;
  else return 0;
  return 1;
}

int rowv_recompute(const char *s, sc_recompute *r) {
  static const char *const none[] = {"none", "no", "false", "off", "0", "disabled", NULL};
  static const char *const sel[] = {"selective", "sel", "core_attn", "attention", NULL};
  static const char *const full[] = {"full", "true", "yes", "on", "1", "uniform", "block",
                                     "checkpoint", "checkpointing", "enabled", NULL};
  char b[32];
  if (!lower_trim(s, b, sizeof b)) return 0;
  if (one_of(b, none)) *r = SC_RECOMP_NONE;
  else if (one_of(b, sel)) *r = SC_RECOMP_SELECTIVE;
  else if (one_of(b, full)) *r = SC_RECOMP_FULL;
  else return 0;
  return 1;
}

int rowv_flag(const char *s, int *v) {
  static const char *const on[] = {"1", "true", "yes", "on", "enabled", NULL};
  static const char *const off[] = {"0", "false", "no", "off", "disabled", NULL};
  char b[16];
  if (!lower_trim(s, b, sizeof b)) return 0;
  if (one_of(b, on)) *v = 1;
  else if (one_of(b, off)) *v = 0;
  else return 0;
  return 1;
}

int rowv_zero(const char *s, int *z) {
  static const char *const three[] = {"fsdp", "fsdp2", "full_shard", "hsdp", "hybrid_shard",
                                      NULL};
  static const char *const zero[] = {"ddp", "none", "no", NULL};
  static const char *const prefix[] = {"zero-", "zero_", "zero ", "zero", "stage ", "stage",
                                       "z", NULL};
  char b[24];
  if (!lower_trim(s, b, sizeof b)) return 0;
  if (one_of(b, three)) return *z = 3, 1;
  if (one_of(b, zero)) return *z = 0, 1;
  if (!strcmp(b, "shard_grad_op")) return *z = 2, 1;
  const char *t = b;
  for (const char *const *p = prefix; *p; p++)
    if (!strncmp(t, *p, strlen(*p))) {
      t += strlen(*p);
      break;
    }
  if (t[0] < '0' || t[0] > '3' || t[1]) return 0;
  *z = t[0] - '0';
  return 1;
}

/* ------------------------------------------------------ pipeline layout */

/* Expansion of a layout string: the symbols, the repeats unrolled. */
#define ROWV_LAYOUT_MAX 8192
typedef struct lay {
  const char *s;            /* read cursor */
  char out[ROWV_LAYOUT_MAX];
  size_t n;                 /* symbols in out */
  const char *err;          /* why it failed; NULL while fine */
} lay;

static void lay_seq(lay *l, int depth);

/* The repeat count after an item ("*N"), 1 when none. */
static long lay_repeat(lay *l) {
  while (*l->s == ' ') l->s++;
  if (*l->s != '*') return 1;
  char *end;
  long k = strtol(l->s + 1, &end, 10);
  if (end == l->s + 1 || k < 1 || k > ROWV_LAYOUT_MAX) {
    l->err = "a repeat '*' must be followed by a whole number >= 1";
    return 1;
  }
  l->s = end;
  return k;
}

/* Append k copies of out[from..n) (the item just read). */
static void lay_unroll(lay *l, size_t from, long k) {
  size_t len = l->n - from;
  for (long i = 1; i < k && !l->err; i++) {
    if (l->n + len >= ROWV_LAYOUT_MAX) l->err = "the layout unrolls to too many symbols";
    else memcpy(l->out + l->n, l->out + from, len), l->n += len;
  }
}

/* One item: a symbol or a parenthesised group, with its repeat. */
static void lay_item(lay *l, int depth) {
  size_t from = l->n;
  char c = *l->s;
  if (c == '(') {
    if (depth > 8) { l->err = "groups nested too deep"; return; }
    l->s++;
    lay_seq(l, depth + 1);
    if (*l->s != ')') { if (!l->err) l->err = "a '(' without its ')'"; return; }
    l->s++;
  } else if (strchr("tELm|", c)) {
    if (l->n + 1 >= ROWV_LAYOUT_MAX) { l->err = "the layout unrolls to too many symbols"; return; }
    l->out[l->n++] = c;
    l->s++;
  } else {
    l->err = "expected t (a transformer layer), E, L, m, '|', '(' or a number list";
    return;
  }
  lay_unroll(l, from, lay_repeat(l));
}

static void lay_seq(lay *l, int depth) {
  for (;;) {
    while (*l->s == ' ') l->s++;
    if (!*l->s || *l->s == ')' || l->err) return;
    lay_item(l, depth);
  }
}

/* Whole numbers separated by ',', ';', '|' or spaces; 0 when s is not
 * such a list (nothing set), -1 when too many entries. */
static int number_list(const char *s, int *out, int cap) {
  int n = 0;
  while (*s) {
    while (*s == ' ' || *s == ',' || *s == ';' || *s == '|') s++;
    if (!*s) break;
    if (!isdigit((unsigned char)*s)) return 0;
    char *end;
    long v = strtol(s, &end, 10);
    if (v > 1 << 20) return 0;
    if (n == cap) return -1;
    out[n++] = (int)v;
    s = end;
  }
  return n;
}

int rowv_pp_layout(const char *s, sc_plan *p, char *why, size_t wn) {
  int counts[SC_MAX_PP_LAYOUT];
  int n = number_list(s, counts, SC_MAX_PP_LAYOUT);
  if (n < 0) return snprintf(why, wn, "more than %d virtual stages", SC_MAX_PP_LAYOUT), 0;
  if (n == 0) {
    lay x = {.s = s, .n = 0, .err = NULL}; /* 8 KiB of symbols */
    lay_seq(&x, 0);
    if (!x.err && *x.s) x.err = "a ')' without its '('";
    if (x.err) return snprintf(why, wn, "%s", x.err), 0;
    counts[0] = 0;
    for (size_t i = 0; i < x.n && n < SC_MAX_PP_LAYOUT; i++) {
      if (x.out[i] != '|') counts[n] += x.out[i] == 't';
      else if (++n < SC_MAX_PP_LAYOUT) counts[n] = 0;
    }
    if (n >= SC_MAX_PP_LAYOUT)
      return snprintf(why, wn, "more than %d virtual stages", SC_MAX_PP_LAYOUT), 0;
    n++;
  }
  memcpy(p->pp_layout, counts, sizeof counts[0] * (size_t)n);
  p->n_pp_layout = n;
  return 1;
}

/* End assumed (capacity an >= 4) with "..." in place of its last
 * characters: the note was cut at the capacity. */
static void mark_cut(char *assumed, size_t an) { memcpy(assumed + an - 4, "...", 4); }

void rowv_note(char *assumed, size_t an, const char *fmt, ...) {
  size_t n = strlen(assumed);
  if (an < 4 || n + 1 >= an) return; /* full: already cut and marked */
  char text[512];
  va_list ap;
  va_start(ap, fmt);
  int w = vsnprintf(text, sizeof text, fmt, ap);
  va_end(ap);
  int put = snprintf(assumed + n, an - n, "%s%s", n ? "; " : "", text);
  if (w < 0 || (size_t)w >= sizeof text || put < 0 || (size_t)put >= an - n)
    mark_cut(assumed, an);
}
