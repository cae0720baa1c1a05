/*
 * fuzz_text.h -- the fuzzer's input as a C string, for the targets whose
 * loaders parse NUL-terminated text. Header-only: each target includes
 * it once.
 */
#ifndef SC_FUZZ_TEXT_H
#define SC_FUZZ_TEXT_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* A malloc'd copy of data[0..size) with a NUL after it (free it), or NULL
 * when out of memory (the target then skips the input). */
static inline char *fuzz_text(const uint8_t *data, size_t size) {
  char *s = malloc(size + 1);
  if (!s) return NULL;
  memcpy(s, data, size);
  s[size] = '\0';
  return s;
}

#endif
