/*
 * gpt4.h -- a 4-layer GPT on one H100 (test_dropout.c, test_torch_nn.c):
 * hidden 1024, 16 heads, seq 1024, vocabulary 32,000, the given dropout
 * rates, bf16, one sequence per step, nothing recomputed.
 * Header-only: each test executable includes it once.
 */
#ifndef SC_TESTS_GPT4_H
#define SC_TESTS_GPT4_H

#include "stepcast.h"

static inline sc_scenario gpt4_h100(double attn_dropout, double hidden_dropout) {
  sc_scenario s;
  sc_scenario_default(&s);
  sc_transformer *m = &s.model.tf;
  m->layers = 4;
  m->hidden = 1024;
  m->heads = 16;
  m->kv_heads = 16;
  m->head_dim = 0;
  m->ffn = 4096;
  m->vocab = 32000;
  m->seq = 1024;
  m->attention_dropout = attn_dropout;
  m->hidden_dropout = hidden_dropout;
  s.cluster.gpu = *sc_gpu_preset("h100-sxm5-80gb");
  s.cluster.gpus = 1;
  sc_plan_default(&s.plan);
  s.plan.tp = s.plan.pp = s.plan.dp = 1;
  s.plan.global_batch = s.plan.micro_batch = 1;
  s.plan.recompute = SC_RECOMP_NONE;
  s.plan.dtype = SC_BF16;
  return s;
}

#endif
