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

/* The overrides after the first NUL of text (size bytes from fuzz_text),
 * one a line ("plan.tp=8\ncluster.gpu=h100"), into ov[0..max): their
 * count. The lines are cut in place; ov points into text. */
static inline size_t fuzz_overrides(char *text, size_t size, const char **ov, size_t max) {
  size_t len = strlen(text), n = 0;
  for (char *p = len < size ? text + len + 1 : NULL; p && n < max;) {
    char *nl = strchr(p, '\n');
    if (nl) *nl = '\0';
    if (*p) ov[n++] = p;
    p = nl ? nl + 1 : NULL;
  }
  return n;
}

#endif
