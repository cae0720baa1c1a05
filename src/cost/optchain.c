/*
 * optchain.c -- see optchain.h.
 */
#include "cost/optchain.h"

#include "plan/plan.h"

/* google-research/bert optimization.py, AdamWeightDecayOptimizer
 * .apply_gradients, per variable, in passes over its fp32 elements (a read
 * or a write of every element, 4 bytes), op by op:
 *   next_m = beta_1 * m + (1 - beta_1) * grad       Mul 2, Mul 2, Add 3
 *   next_v = beta_2 * v + (1 - beta_2) * grad^2     Mul 2, Square 2, Mul 2,
 *                                                   Add 3
 *   update = next_m / (sqrt(next_v) + epsilon)      Sqrt 2, Add 2, RealDiv 3
 *   update += weight_decay_rate * param             Mul 2, Add 3
 *   next_param = param - learning_rate * update     Mul 2, Sub 3
 *   param, m, v .assign(...)                        3 x (read 1, write 1)
 * = 39 passes; before it run_pretraining's tf.clip_by_global_norm: each
 * gradient's L2 (read 1) and its scaling (read 1, write 1) = 3 passes.
 * 42 passes x 4 bytes = 168 bytes (the fused Adam: 34). Bias and
 * LayerNorm variables skip the decay (2 + 3 passes fewer), a small share
 * of BERT's parameters: not counted. */
#define OPTC_BERT_ADAMW_PASSES 42.0
#define OPTC_FP32 4.0

double optc_bytes_per_param(const sc_scenario *s, double graph_bytes) {
  if (s->model.kind != SC_MODEL_BERT || s->plan.fused_kernels || plan_torch_nn(&s->plan) ||
      (s->model.optimizer != SC_OPT_ADAM && s->model.optimizer != SC_OPT_DEFAULT))
    return graph_bytes;
  return OPTC_BERT_ADAMW_PASSES * OPTC_FP32;
}
