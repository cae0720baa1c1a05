/*
 * mem.c -- see mem.h.
 */
#include "core/mem.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#ifdef SC_ALLOC_FAULTS
/* Allocations left before injected failures start; < 0 = never fail. */
static _Thread_local long mem_left = -1;
static _Thread_local long mem_count = 0;

/* 1 when this allocation must fail. */
static int mem_fault(void) {
  mem_count++;
  if (mem_left < 0) return 0;
  if (mem_left == 0) return 1;
  mem_left--;
  return 0;
}

int mem_fail_after(long n) {
  mem_left = n < 0 ? -1 : n;
  mem_count = 0;
  return 1;
}

long mem_alloc_count(void) { return mem_count; }
#else
static int mem_fault(void) { return 0; }
int mem_fail_after(long n) {
  (void)n;
  return 0;
}
long mem_alloc_count(void) { return 0; }
#endif

void *mem_alloc(size_t bytes) {
  if (mem_fault()) return NULL;
  return malloc(bytes ? bytes : 1);
}

void *mem_calloc(size_t count, size_t size) {
  if (size && count > SIZE_MAX / size) return NULL;
  if (mem_fault()) return NULL;
  return calloc(count ? count : 1, size ? size : 1);
}

void *mem_realloc(void *p, size_t bytes) {
  if (mem_fault()) return NULL;
  return realloc(p, bytes ? bytes : 1);
}

void mem_free(void *p) { free(p); }

char *mem_strdup(const char *s) {
  size_t n = strlen(s) + 1;
  char *d = mem_alloc(n);
  if (d) memcpy(d, s, n);
  return d;
}
