/*
 * dtype.c -- names and sizes of the numeric types a GPU computes in.
 */
#include "core/dtype.h"

#include <string.h>

const char *const dtype_names[SC_DTYPE_COUNT] = {"fp32", "tf32", "fp16", "bf16", "fp8", "fp4"};

/* Bytes per element as stored in memory (tf32 is stored as fp32). */
static const double dtype_bytes[SC_DTYPE_COUNT] = {4, 4, 2, 2, 1, 0.5};

/* Public entry points: a value outside sc_dtype (a caller's bug or a
 * cast of user input) gets "invalid" and 0 bytes, never a crash. */
const char *sc_dtype_name(sc_dtype d) {
  return (unsigned)d < SC_DTYPE_COUNT ? dtype_names[d] : "invalid";
}

double sc_dtype_bytes(sc_dtype d) { return (unsigned)d < SC_DTYPE_COUNT ? dtype_bytes[d] : 0; }

int dtype_from_name(const char *name, size_t len) {
  for (int d = 0; d < SC_DTYPE_COUNT; d++)
    if (strlen(dtype_names[d]) == len && !strncmp(dtype_names[d], name, len)) return d;
  return -1;
}
