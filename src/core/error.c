/*
 * error.c -- user errors as values.
 *
 * Every function that can fail on user input fills an sc_error (code plus
 * message) and returns the code; broken invariants are assert()s instead.
 */
#include <stdarg.h>
#include <stdio.h>

#include "core/utf8.h"
#include "stepcast.h"

int sc_error_set(sc_error *err, int code, const char *fmt, ...) {
  if (err) {
    va_list ap;
    va_start(ap, fmt);
    err->code = code;
    char raw[sizeof err->msg];
    vsnprintf(raw, sizeof raw, fmt, ap);
    va_end(ap);
    /* a message quotes user text (a key, a preset, a CSV cell): no
     * terminal escapes or invalid UTF-8 reach a terminal or a program */
    utf8_clean(err->msg, sizeof err->msg, raw, 1);
  }
  return code;
}
