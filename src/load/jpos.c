/*
 * jpos.c -- see jpos.h.
 *
 * A small forward scanner over JSON text that jansson has already
 * accepted: it skips values by bracket depth (strings skipped whole, so
 * brackets inside them do not count) and compares object keys with the
 * path's keys. It allocates nothing and never recurses; on text that is
 * not what it expects it answers "not found" rather than guessing.
 */
#include "load/jpos.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define JPOS_PATH 256 /* bytes of a message's key path looked at, at most */

static const char *jpos_ws(const char *p, const char *e) {
  while (p < e && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')) p++;
  return p;
}

/* Past the string that starts at p (its opening quote). */
static const char *jpos_str_end(const char *p, const char *e) {
  for (p++; p < e; p++) {
    if (*p == '\\') p++;
    else if (*p == '"') return p + 1;
  }
  return e;
}

/* Past the value that starts at p. */
static const char *jpos_skip(const char *p, const char *e) {
  if (p >= e) return e;
  if (*p == '"') return jpos_str_end(p, e);
  if (*p != '{' && *p != '[') { /* number, true, false, null */
    while (p < e && *p != ',' && *p != ']' && *p != '}' && *p != ' ' && *p != '\t' &&
           *p != '\n' && *p != '\r')
      p++;
    return p;
  }
  long depth = 0;
  while (p < e) {
    if (*p == '"') {
      p = jpos_str_end(p, e);
      continue;
    }
    if (*p == '{' || *p == '[') depth++;
    else if ((*p == '}' || *p == ']') && --depth == 0) return p + 1;
    p++;
  }
  return e;
}

/* The UTF-8 bytes of the escape at p (after its backslash) into out:
 * their count, 0 for a surrogate half or a malformed escape (a key path
 * that has one then matches nothing). *p is moved to its last byte. */
static int jpos_unescape(const char **p, const char *e, char out[3]) {
  static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
  const char *q = *p;
  if (q >= e || !*q) return 0;
  const char *f = *q != 'u' ? strchr(from, *q) : NULL;
  if (f) return out[0] = to[f - from], 1;
  if (*q != 'u' || e - q < 5) return 0;
  char hex[5] = {q[1], q[2], q[3], q[4], 0}, *end;
  unsigned long u = strtoul(hex, &end, 16);
  if (*end || (u >= 0xD800 && u <= 0xDFFF)) return 0;
  *p = q + 4;
  if (u < 0x80) return out[0] = (char)u, 1;
  if (u < 0x800) return out[0] = (char)(0xC0 | u >> 6), out[1] = (char)(0x80 | (u & 0x3F)), 2;
  out[0] = (char)(0xE0 | u >> 12), out[1] = (char)(0x80 | (u >> 6 & 0x3F));
  out[2] = (char)(0x80 | (u & 0x3F));
  return 3;
}

/* 1 when the JSON string at p (its opening quote) is key (n bytes), its
 * escapes decoded. */
static int jpos_key_is(const char *p, const char *e, const char *key, size_t n) {
  size_t i = 0;
  for (p++; p < e && *p != '"'; p++) {
    char buf[3] = {*p, 0, 0};
    int k = 1;
    if (*p == '\\') {
      p++;
      if (!(k = jpos_unescape(&p, e, buf))) return 0;
    }
    if (i + (size_t)k > n || memcmp(key + i, buf, (size_t)k)) return 0;
    i += (size_t)k;
  }
  return i == n;
}

/* The value of key (n bytes) in the object at p ('{'); NULL when none. */
static const char *jpos_member(const char *p, const char *e, const char *key, size_t n) {
  for (p = jpos_ws(p + 1, e); p < e && *p == '"';) {
    const char *k = p;
    p = jpos_ws(jpos_str_end(p, e), e);
    if (p >= e || *p != ':') return NULL;
    p = jpos_ws(p + 1, e);
    if (jpos_key_is(k, e, key, n)) return p;
    p = jpos_ws(jpos_skip(p, e), e);
    if (p >= e || *p != ',') return NULL;
    p = jpos_ws(p + 1, e);
  }
  return NULL;
}

/* Element i of the array at p ('['); NULL when it has fewer. */
static const char *jpos_element(const char *p, const char *e, long i) {
  p = jpos_ws(p + 1, e);
  if (p < e && *p == ']') return NULL;
  for (long k = 0; p < e; k++) {
    if (k == i) return p;
    p = jpos_ws(jpos_skip(p, e), e);
    if (p >= e || *p != ',') return NULL;
    p = jpos_ws(p + 1, e);
  }
  return NULL;
}

/* One step of the path at *s from the value v: a key (up to '.', '[',
 * ' ' or the end) or "[N]", then a " (label)" skipped and a '.' eaten.
 * The value it names, or NULL. */
static const char *jpos_step(const char **s, const char *v, const char *e) {
  const char *q = *s;
  if (*q == '[') {
    char *end;
    long i = strtol(q + 1, &end, 10);
    if (end == q + 1 || *end != ']' || i < 0 || *v != '[') return NULL;
    v = jpos_element(v, e, i);
    q = end + 1;
  } else {
    size_t n = strcspn(q, ".[ ");
    if (n == 0 || *v != '{') return NULL;
    v = jpos_member(v, e, q, n);
    q += n;
  }
  if (q[0] == ' ' && q[1] == '(') { /* blocks[0].ops[3] (op "qkv").m */
    const char *close = strchr(q, ')');
    if (!close) return NULL;
    q = close + 1;
  }
  if (*q == '.') q++;
  else if (*q && *q != '[') return NULL;
  *s = q;
  return v;
}

int jpos_find(const char *text, size_t len, const char *path, int *line, int *col) {
  const char *e = text + len, *v = jpos_ws(text, e), *s = path;
  if (!*s) return 0;
  while (v && v < e && *s) v = jpos_step(&s, v, e);
  if (!v || v >= e) return 0;
  *line = 1;
  *col = 1;
  for (const char *p = text; p < v; p++) {
    if (*p == '\n') *line += 1, *col = 1;
    else if (((unsigned char)*p & 0xC0) != 0x80) *col += 1; /* a character, not a byte */
  }
  return 1;
}

void jpos_annotate(sc_error *err, const char *origin, const char *text, size_t len) {
  if (!err || !origin || !text) return;
  size_t o = strlen(origin);
  const char *m = err->msg;
  if (strncmp(m, origin, o) || strncmp(m + o, ": ", 2) || strstr(m, "(set by override"))
    return;
  const char *head = m + o + 2, *colon = strstr(head, ": ");
  char path[JPOS_PATH];
  if (!colon || (size_t)(colon - head) >= sizeof path) return;
  memcpy(path, head, (size_t)(colon - head));
  path[colon - head] = '\0';
  int line, col;
  if (!jpos_find(text, len, path, &line, &col)) return;
  char rest[sizeof err->msg];
  snprintf(rest, sizeof rest, "%s", head);
  sc_error_set(err, err->code, "%s:%d:%d: %s", origin, line, col, rest);
}
