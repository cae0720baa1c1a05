/*
 * jscan.c -- see jscan.h.
 */
#include "trace/jscan.h"

#include <stdlib.h>
#include <string.h>

/* Nesting js_skip follows before giving up (a hostile input). */
#define JS_MAX_DEPTH 256

/* The error of a string whose closing quote never comes: it runs to the
 * end of the text. */
static const char JS_OPEN_STRING[] = "the end of a string ('\"')";

static int fail(js *j, const char *what) {
  if (!j->err) j->err = what, j->err_at = j->p;
  return -1;
}

void js_init(js *j, const char *buf, size_t len) { *j = (js){buf, buf, buf + len, NULL, NULL, 0}; }

static void ws(js *j) {
  while (j->p < j->end && (*j->p == ' ' || *j->p == '\n' || *j->p == '\r' || *j->p == '\t')) j->p++;
}

char js_peek(js *j) {
  ws(j);
  return j->p < j->end ? *j->p : '\0';
}

int js_eat(js *j, char c) {
  static const char *const what[] = {"'{'", "'}'", "'['", "']'", "':'", "','", "a value"};
  if (js_peek(j) == c) return j->p++, 0;
  const char *w = c == '{'   ? what[0]
                  : c == '}' ? what[1]
                  : c == '[' ? what[2]
                  : c == ']' ? what[3]
                  : c == ':' ? what[4]
                  : c == ',' ? what[5]
                             : what[6];
  return fail(j, w);
}

int js_string(js *j, js_str *out) {
  if (js_peek(j) != '"') return fail(j, "a string");
  const char *s = ++j->p;
  int esc = 0;
  for (;;) {
    const char *q = memchr(j->p, '"', (size_t)(j->end - j->p));
    if (!q) return fail(j, JS_OPEN_STRING);
    /* a quote is escaped when an odd number of backslashes precede it */
    size_t bs = 0;
    while (q - bs > s && q[-1 - (long)bs] == '\\') bs++;
    if (!esc) esc = memchr(j->p, '\\', (size_t)(q - j->p)) != NULL;
    j->p = q + 1;
    if (bs % 2 == 0) {
      *out = (js_str){s, (size_t)(q - s), esc};
      return 0;
    }
  }
}

int js_number(js *j, double *out) {
  ws(j);
  char c = j->p < j->end ? *j->p : '\0';
  if (c != '-' && (c < '0' || c > '9')) return fail(j, "a number");
  char *e;
  *out = strtod(j->p, &e);
  if (e == j->p || e > j->end) return fail(j, "a number");
  j->p = e;
  return 0;
}

static int literal(js *j, const char *word) {
  size_t n = strlen(word);
  if ((size_t)(j->end - j->p) < n || memcmp(j->p, word, n)) return fail(j, "a value");
  j->p += n;
  return 0;
}

static int skip_members(js *j, int object) {
  char close = object ? '}' : ']';
  if (js_peek(j) == close) return j->p++, 0;
  int more;
  do {
    js_str k;
    if (object && (js_string(j, &k) || js_eat(j, ':'))) return -1;
    if (js_skip(j)) return -1;
  } while ((more = js_more(j, close)) == 1);
  return more;
}

int js_skip(js *j) {
  char c = js_peek(j);
  js_str s;
  double d;
  if (c == '"') return js_string(j, &s);
  if (c == '{' || c == '[') {
    if (++j->depth > JS_MAX_DEPTH) return fail(j, "less nesting (over 256 levels)");
    j->p++;
    int rc = skip_members(j, c == '{');
    j->depth--;
    return rc;
  }
  if (c == 't') return literal(j, "true");
  if (c == 'f') return literal(j, "false");
  if (c == 'n') return literal(j, "null");
  return js_number(j, &d);
}

int js_more(js *j, char close) {
  char c = js_peek(j);
  if (c == ',') return j->p++, 1;
  if (c == close) return j->p++, 0;
  return fail(j, close == '}' ? "',' or '}'" : "',' or ']'");
}

int js_array(js *j, int (*fn)(void *ud, js *j, size_t i), void *ud) {
  if (js_eat(j, '[')) return -1;
  if (js_peek(j) == ']') return j->p++, 0;
  size_t i = 0;
  int more;
  do {
    int rc = fn(ud, j, i++);
    if (rc) return rc;
  } while ((more = js_more(j, ']')) == 1);
  return more < 0 ? -1 : 0;
}

int js_members(js *j, int (*fn)(void *ud, js *j, const js_str *k), void *ud) {
  int more = js_peek(j) == '}' ? (j->p++, 0) : 1;
  while (more == 1) {
    js_str k;
    if (js_string(j, &k) || js_eat(j, ':')) return -1;
    int rc = fn(ud, j, &k);
    if (rc) return rc;
    more = js_more(j, '}');
  }
  return more < 0 ? -1 : 0;
}

static int hex4(const char *s, unsigned *v) {
  *v = 0;
  for (int i = 0; i < 4; i++) {
    char c = s[i];
    int d = c >= '0' && c <= '9'   ? c - '0'
            : c >= 'a' && c <= 'f' ? c - 'a' + 10
            : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                   : -1;
    if (d < 0) return -1;
    *v = *v * 16 + (unsigned)d;
  }
  return 0;
}

/* UTF-8 of code point u into b (room for 3); bytes written. */
static size_t utf8(unsigned u, char *b) {
  if (u < 0x80) return b[0] = (char)u, 1;
  if (u < 0x800) return b[0] = (char)(0xC0 | u >> 6), b[1] = (char)(0x80 | (u & 0x3F)), 2;
  b[0] = (char)(0xE0 | u >> 12), b[1] = (char)(0x80 | ((u >> 6) & 0x3F)),
  b[2] = (char)(0x80 | (u & 0x3F));
  return 3;
}

size_t js_decode(const js_str *s, char *buf, size_t cap) {
  size_t n = 0;
  for (size_t i = 0; i < s->len && n + 4 < cap; i++) {
    char c = s->s[i];
    if (c != '\\' || i + 1 >= s->len) {
      buf[n++] = c;
      continue;
    }
    c = s->s[++i];
    unsigned u;
    if (c == 'u' && i + 4 < s->len && !hex4(s->s + i + 1, &u))
      n += utf8(u, buf + n), i += 4;
    else
      buf[n++] = c == 'n'   ? '\n'
                 : c == 't' ? '\t'
                 : c == 'r' ? '\r'
                 : c == 'b' ? '\b'
                 : c == 'f' ? '\f'
                            : c;
  }
  buf[n < cap ? n : cap - 1] = '\0';
  return n < cap ? n : cap - 1;
}

void js_where(const js *j, const char *at, int *line, int *col) {
  *line = 1, *col = 1;
  for (const char *p = j->base; p < at && p < j->end; p++) {
    if (*p == '\n')
      ++*line, *col = 1;
    else
      ++*col;
  }
}

const char *js_end_note(const js *j) {
  const char *p = j->err_at ? j->err_at : j->p;
  while (p < j->end && (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t')) p++;
  return p >= j->end || j->err == JS_OPEN_STRING ? ", but the text ends there (a truncated file?)"
                                                 : "";
}
