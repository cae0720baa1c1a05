/*
 * error.c -- user errors as values.
 *
 * Every function that can fail on user input fills an sc_error (code plus
 * message) and returns the code; broken invariants are assert()s instead.
 */
#include <stdarg.h>
#include <stdio.h>

#include "stepcast.h"

int sc_error_set(sc_error *err, int code, const char *fmt, ...) {
  if (err) {
    va_list ap;
    va_start(ap, fmt);
    err->code = code;
    vsnprintf(err->msg, sizeof err->msg, fmt, ap);
    va_end(ap);
  }
  return code;
}
