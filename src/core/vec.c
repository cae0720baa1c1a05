/*
 * vec.c -- see vec.h.
 */
#include "core/vec.h"

#include <limits.h>
#include <stdint.h>

#include "core/mem.h"

/* *p resized to nc elements (need <= nc <= INT_MAX). */
static int resize(void **p, int *cap, long nc, size_t elem) {
  if ((size_t)nc > SIZE_MAX / elem) return -1;
  void *q = mem_realloc(*p, (size_t)nc * elem);
  if (!q) return -1;
  *p = q;
  *cap = (int)nc;
  return 0;
}

int vec_grow_to(void **p, int *cap, long need, size_t elem) {
  if (need <= *cap) return 0;
  if (need > INT_MAX) return -1;
  long nc = *cap > 0 ? *cap : 16;
  while (nc < need) nc *= 2;
  if (nc > INT_MAX) nc = INT_MAX;
  return resize(p, cap, nc, elem);
}

int vec_reserve(void **p, int *cap, long need, size_t elem) {
  if (need <= *cap) return 0;
  if (need > INT_MAX) return -1;
  return resize(p, cap, need, elem);
}
