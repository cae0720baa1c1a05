/*
 * amp.c -- automatic mixed precision; see amp.h.
 */
#include "cost/amp.h"

/* An fp32 element (the island's own kernels read and write fp32). */
#define AMP_FP32 4.0

/* The casts around an island: its 16-bit input to fp32 (read e, write 4)
 * and its fp32 output back to 16 bits for the GEMM that reads it (read 4,
 * write e); backward the same two casts, of the output gradient in and of
 * the input gradient out. Autocast and apex O1 cast an fp32-list op's
 * inputs with .float() and leave its output fp32, which the next
 * autocast GEMM casts back; TensorFlow's AMP pass inserts Cast nodes on
 * the edges between its fp16 and fp32 ops. */
#define AMP_CASTS 2

double amp_island_bytes(double n, double fwd_e, double e, double *bwd_scale, int *casts) {
  double cast = AMP_CASTS * n * (e + AMP_FP32);
  double f = n * fwd_e * AMP_FP32 + cast;
  double b = n * fwd_e * *bwd_scale * AMP_FP32 + cast;
  *bwd_scale = b / f;
  *casts = AMP_CASTS;
  return f;
}

int amp_on(const sc_plan *p) {
  return p->amp && (p->dtype == SC_FP16 || p->dtype == SC_BF16);
}

/* HBM bytes of AMP's passes outside the islands, per parameter:
 *   weight cast    per micro-batch, over the stage's local parameters:
 *                  the fp32 parameter read (4) and its 16-bit copy
 *                  written (2), before each forward (autocast's cast cache
 *                  lives one autocast region, one forward; TF's Cast node
 *                  runs each step): 6;
 *   gradient cast  per micro-batch, over the local parameters: the 16-bit
 *                  weight gradient read (2), the fp32 gradient written
 *                  (4), the backward of the cast: 6;
 *   loss scaling   per step, over the optimizer's shard: unscale and
 *                  inf/nan check of every fp32 gradient in one read and
 *                  one write (4 + 4): 8 (PyTorch's fused
 *                  _amp_foreach_non_finite_check_and_unscale_; TF's
 *                  LossScaleOptimizer runs the check as a separate read,
 *                  not counted); in fp16 only: bf16 has fp32's exponent
 *                  range and the frameworks scale no bf16 loss (DeepSpeed's
 *                  loss-scale keys are the "fp16" section's alone,
 *                  ../shared/reference/deepspeed/deepspeed/runtime/
 *                  constants.py; Megatron's --loss-scale is fp16's;
 *                  PyTorch's GradScaler is documented for float16, and
 *                  nanoGPT and Hugging Face's Trainer enable it for fp16
 *                  only -- recalled, not in ../shared);
 *   16-bit copy    per step, over the shard: the 16-bit copy the
 *                  optimizer's 34 bytes write (engine/analytic.c), which
 *                  AMP does not keep (the weight cast writes it
 *                  instead): -2.
 *   accumulation  per micro-batch after the first, over the local
 *                  parameters, where the framework adds the micro-batch's
 *                  fp32 gradient into the parameter's .grad as a kernel of
 *                  its own (amp_pass_bytes' added): read .grad (4), read
 *                  the new gradient (4), write .grad (4): 12. PyTorch's
 *                  AccumulateGrad (torch/csrc/autograd/functions/
 *                  accumulate_grad.h, read in Debian's libtorch-dev):
 *                  with no .grad yet it steals the new gradient (no
 *                  copy), else it runs "variable_grad += new_grad" in
 *                  place; zero_grad(set_to_none=True), the default that
 *                  ../shared/reference/pytorch/torch/nn/parallel/
 *                  distributed.py states, leaves no .grad at the step's
 *                  start, so the first micro-batch steals. Not under
 *                  ZeRO-3 (FSDP units): the post-backward hook
 *                  reduce-scatters each micro-batch's unsharded gradient
 *                  and sets .grad to None (FSDP2: ../shared/reference/
 *                  pytorch/torch/distributed/fsdp/_fully_shard/
 *                  _fsdp_param_group.py line 652; FSDP1: "param.grad =
 *                  None", fully_sharded_data_parallel.py line 3292 of
 *                  Debian's python3-torch 1.13.1), so every micro-batch
 *                  steals, and the implementation adds the shard itself
 *                  (_fsdp_collectives.py line 749; FSDP1's accumulation
 *                  kernel, engine/fsdp1k.c). The graph
 *                  frameworks (framework_eager 0: TensorFlow, MXNet,
 *                  Paddle, OneFlow) accumulate as their scripts or
 *                  executors choose (accumulator variables; MXNet's
 *                  grad_req "add" writes into the gradient from the
 *                  kernel that produces it), from code ../shared does
 *                  not hold: not counted.
 * One micro-batch, nothing sharded: 12 + 8 - 2 = 18 a parameter in fp16,
 * 10 in bf16. */
#define AMP_MB_BYTES 12.0
#define AMP_SCALE_BYTES 8.0
#define AMP_COPY_BYTES (-2.0)
#define AMP_ADD_BYTES 12.0

double amp_pass_bytes(double local, double shard, int micro_batches, double added,
                      int loss_scaling) {
  int m = micro_batches > 0 ? micro_batches : 1;
  double step = AMP_COPY_BYTES + (loss_scaling ? AMP_SCALE_BYTES : 0);
  return local * AMP_MB_BYTES * m + added * (m - 1) * AMP_ADD_BYTES + shard * step;
}
