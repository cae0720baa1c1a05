/*
 * gpt24.h -- the small GPT the memory tests measure (test_memory_knobs.c,
 * test_memfit.c): 24 layers, hidden 2048, no biases, on 8 H100 in tp 2,
 * pp 2, dp 2 with sequence parallelism, global batch 16 of micro-batches
 * of 1 (predict it with predict_ok, predict.h).
 * Header-only: each test executable includes it once.
 */
#ifndef SC_TESTS_GPT24_H
#define SC_TESTS_GPT24_H

#include "stepcast.h"

static inline sc_scenario gpt24_h100(void) {
  sc_scenario s;
  sc_scenario_default(&s);
  sc_transformer *m = &s.model.tf;
  m->layers = 24;
  m->hidden = 2048;
  m->heads = 16;
  m->kv_heads = 16;
  m->head_dim = 0;
  m->ffn = 8192;
  m->vocab = 32000;
  m->seq = 2048;
  m->bias = 0;
  s.cluster.gpu = *sc_gpu_preset("h100-sxm5-80gb");
  s.cluster.gpus = 8;
  sc_plan_default(&s.plan);
  s.plan.tp = 2;
  s.plan.pp = 2;
  s.plan.dp = 2;
  s.plan.sp = 1;
  s.plan.global_batch = 16;
  s.plan.micro_batch = 1;
  return s;
}

#endif
