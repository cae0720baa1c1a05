/*
 * memsame.h -- two sc_memory the same, field by field, for the tests that
 * compare the memory of one plan evaluated two ways (test_lcache.c,
 * test_job_quiet.c). sc_memory has padding after `fits`, which memcmp
 * would compare too (indeterminate bytes: a test that could fail by
 * chance). Header-only: each test executable includes it once.
 */
#ifndef SC_TESTS_MEMSAME_H
#define SC_TESTS_MEMSAME_H

#include "stepcast.h"

static inline int mem_same(const sc_memory *a, const sc_memory *b) {
  return a->weights == b->weights && a->gradients == b->gradients &&
         a->optimizer == b->optimizer && a->activations == b->activations &&
         a->buffers == b->buffers && a->total == b->total && a->capacity == b->capacity &&
         a->fits == b->fits && a->host == b->host && a->host_capacity == b->host_capacity;
}

/* mem_same names every field: a new one must be added there. */
_Static_assert(sizeof(sc_memory) == 9 * sizeof(double) + 8, "mem_same: update it");

#endif
