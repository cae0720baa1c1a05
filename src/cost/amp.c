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

/* Bytes per parameter of the per-step passes:
 *   weight cast    the fp32 parameter read (4) and its fp16 copy written
 *                  (2), each step before the forward (autocast's cast
 *                  cache lives one autocast region; TF's Cast node runs
 *                  each step); the copy the optimizer's 34 bytes write
 *                  (engine/analytic.c) stands for it in a 16-bit model;
 *                  here it is written by this pass instead: 4 more;
 *   gradient cast  the fp16 weight gradient read (2), the fp32 gradient
 *                  written (4): 6 (the backward of the cast);
 *   loss scaling   unscale and inf/nan check of every fp32 gradient in
 *                  one read and one write (4 + 4): 8 (PyTorch's fused
 *                  _amp_foreach_non_finite_check_and_unscale_; TF's
 *                  LossScaleOptimizer runs the check as a separate read,
 *                  not counted).
 * 4 + 6 + 8 = 18. */
#define AMP_STEP_BYTES 18.0

double amp_step_bytes_per_param(void) { return AMP_STEP_BYTES; }
