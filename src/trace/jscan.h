/*
 * jscan.h -- a pull scanner over a JSON text in memory (module prefix:
 * js_), for traces too large to hold as a tree: the Kineto loader walks
 * traceEvents one event at a time and keeps only what it needs.
 *
 * The buffer must end with a NUL at end (file_read_all and the gzip
 * reader guarantee it). Every function returns 0, or -1 after recording
 * the first syntax error (what was expected, at which byte) in the
 * scanner; nothing is allocated. Strings are returned as spans of the
 * buffer, undecoded; js_decode decodes one.
 */
#ifndef SC_TRACE_JSCAN_H
#define SC_TRACE_JSCAN_H

#include <stddef.h>

typedef struct js {
  const char *p;          /* next byte */
  const char *base, *end; /* the text, [base, end); *end == '\0' */
  const char *err;        /* static: what was expected at err_at; NULL */
  const char *err_at;
  int depth; /* nesting of js_skip, bounded */
} js;

/* A string's bytes between the quotes, escapes undecoded. */
typedef struct js_str {
  const char *s;
  size_t len;
  int escaped; /* contains a backslash */
} js_str;

void js_init(js *j, const char *buf, size_t len);
/* The next non-space byte ('\0' at the end), not consumed. */
char js_peek(js *j);
/* Consume the byte c (after spaces) or fail. */
int js_eat(js *j, char c);
int js_string(js *j, js_str *out);
int js_number(js *j, double *out);
/* Skip one value of any kind. */
int js_skip(js *j);
/* In an object or array after its first member: 1 when another member
 * follows (a comma was eaten), 0 at the closing byte (eaten), -1 error. */
int js_more(js *j, char close);
/* The elements of an array (its '[' next): fn(ud, j, i) reads element i.
 * 0, -1 (syntax), or the first nonzero code fn returned. */
int js_array(js *j, int (*fn)(void *ud, js *j, size_t i), void *ud);
/* The members of an object whose '{' was eaten: fn(ud, j, key) reads
 * each value. 0, -1 (syntax), or the first nonzero code fn returned. */
int js_members(js *j, int (*fn)(void *ud, js *j, const js_str *k), void *ud);
/* Decode s into buf (cap bytes, NUL-terminated, truncated); its length. */
size_t js_decode(const js_str *s, char *buf, size_t cap);
/* 1-based line and column of the byte at. */
void js_where(const js *j, const char *at, int *line, int *col);
/* What to add to the message of the recorded syntax error: a note that
 * the text ends there (nothing but spaces from the error on: a truncated
 * file), else "". Static text. */
const char *js_end_note(const js *j);

#endif
