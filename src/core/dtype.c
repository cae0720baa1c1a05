/*
 * dtype.c -- names and sizes of the numeric types a GPU computes in.
 */
#include <assert.h>

#include "stepcast.h"

static const char *const dtype_names[SC_DTYPE_COUNT] = {
    "fp32", "tf32", "fp16", "bf16", "fp8", "fp4"};

/* Bytes per element as stored in memory (tf32 is stored as fp32). */
static const double dtype_bytes[SC_DTYPE_COUNT] = {4, 4, 2, 2, 1, 0.5};

const char *sc_dtype_name(sc_dtype d) {
  assert(d >= 0 && d < SC_DTYPE_COUNT);
  return dtype_names[d];
}

double sc_dtype_bytes(sc_dtype d) {
  assert(d >= 0 && d < SC_DTYPE_COUNT);
  return dtype_bytes[d];
}
