/*
 * fp8amax.h -- delayed scaling's amax reductions (module prefix: amax_).
 *
 * Transformer Engine's DelayedScaling recipe (reduce_amax, True by
 * default: ../shared/reference/transformerengine/transformer_engine/
 * common/recipe/__init__.py) keeps every rank's scaling factors equal by
 * reducing the amaxes of all fp8 tensors of an fp8_autocast region in one
 * all-reduce (op MAX, fp32) over the region's amax group:
 *
 *   forward   when the outermost fp8_autocast exits with gradients on
 *             (FP8GlobalStateManager.fp8_autocast_exit ->
 *             reduce_and_update_fp8_tensors(forward=True)), 3 amaxes per
 *             fp8 GEMM (input, weight, output);
 *   backward  at the end of the backward of the region's first fp8 module
 *             (the last to run backward: its autograd function calls
 *             reduce_and_update_fp8_tensors(forward=False)), 2 amaxes per
 *             fp8 GEMM (output and input gradients).
 *
 * torch.distributed.all_reduce(async_op=False): NCCL's stream waits for
 * the compute stream and the compute stream for it, so the reduction
 * blocks the compute stream (the host is not held). TE's pytorch/fp8.py
 * and its linear modules (module/linear.py and the others), TE 2.x as
 * published, not in ../shared: our reading.
 *
 * Megatron-Core wraps each model chunk's TransformerBlock forward in one
 * fp8_autocast under the delayed recipe (the other recipes enter one per
 * layer; their scales come from the tensor or its blocks, and their
 * global buffer of amaxes stays empty), with fp8_group =
 * get_amax_reduction_group(with_context_parallel=True): the tensor x
 * data x context-parallel ranks, every rank of one pipeline stage
 * (../shared/reference/megatron-lm/megatron/core/transformer/
 * transformer_block.py, fp8_utils.py get_fp8_context, parallel_state.py
 * get_amax_reduction_group). So each stage runs one reduction per model
 * chunk per micro-batch in each pass.
 */
#ifndef SC_ENGINE_FP8AMAX_H
#define SC_ENGINE_FP8AMAX_H

#include "engine/engine.h"

/* A stage's amax reductions in one pass (forward or backward) of one
 * micro-batch. */
typedef struct amax_red {
  int n;          /* reductions: the stage's model chunks (0: none) */
  double bytes;   /* of one: 4 x the fp8 tensors of one chunk */
  double gpu;     /* one on the compute stream, s (the collective model) */
  double host;    /* one's host side, s: a collective call's */
} amax_red;

/* The amax reductions of stage s of e's graph in its forward (bwd = 0) or
 * backward pass: none unless the plan runs fp8 GEMMs with delayed scaling
 * in an eager framework (plan.framework_eager: TE's PyTorch autocast; a
 * compiled step, XLA's, keeps its amaxes in the program) and the stage
 * has some, over more than one rank. */
amax_red amax_of(const eng *e, int s, int bwd);

#endif
