/*
 * memsame.h -- two sc_memory the same, field by field, for the tests that
 * compare the memory (and the results) of one plan evaluated two ways
 * (test_lcache.c, test_job_quiet.c, test_segmemo.c, test_memo_mix.c). sc_memory has padding after `fits`, which memcmp
 * would compare too (indeterminate bytes: a test that could fail by
 * chance). Header-only: each test executable includes it once.
 */
#ifndef SC_TESTS_MEMSAME_H
#define SC_TESTS_MEMSAME_H

#include <string.h>

#include "stepcast.h"

static inline int mem_same(const sc_memory *a, const sc_memory *b) {
  return a->weights == b->weights && a->gradients == b->gradients &&
         a->optimizer == b->optimizer && a->activations == b->activations &&
         a->buffers == b->buffers && a->total == b->total && a->capacity == b->capacity &&
         a->fits == b->fits && a->host == b->host && a->host_capacity == b->host_capacity &&
         a->headroom == b->headroom;
}

/* mem_same names every field: a new one must be added there. */
_Static_assert(sizeof(sc_memory) == 10 * sizeof(double) + 8, "mem_same: update it");

/* The results of two evaluations, field by field (test_segmemo.c,
 * test_memo_mix.c). */
static inline int same_result(const sc_result *a, const sc_result *b) {
  return a->step_s == b->step_s && a->tokens_per_s == b->tokens_per_s &&
         a->seq_per_s == b->seq_per_s && a->model_flops == b->model_flops &&
         a->hw_flops == b->hw_flops && a->tflops_per_gpu == b->tflops_per_gpu &&
         a->mfu == b->mfu && a->mfu_lowp == b->mfu_lowp &&
         a->micro_batches == b->micro_batches && a->micro_batch == b->micro_batch &&
         !memcmp(&a->time, &b->time, sizeof a->time) && mem_same(&a->mem, &b->mem) &&
         a->params == b->params;
}
_Static_assert(sizeof(sc_breakdown) == 9 * sizeof(double), "same_result: sc_breakdown");

#endif
