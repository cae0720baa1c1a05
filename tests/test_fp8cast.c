/*
 * test_fp8cast.c -- Transformer Engine's quantization kernels per fp8
 * recipe (src/cost/fp8cast.c): bytes per element of one operand, by hand.
 */
#include <criterion/criterion.h>

#include "cost/fp8cast.h"

/* Hopper (TN-only fp8 GEMMs) unless `blackwell` is set. */
static int blackwell;

static fp8c_cost act(sc_fp8_recipe r, int norm_fed, int gathered, int tp) {
  fp8c_operand op = {2.0, norm_fed, gathered, tp, !blackwell};
  return fp8c_activation(r, &op);
}

#define EXPECT(R, NF, G, TP, WANT, K)                                                     \
  do {                                                                                     \
    fp8c_cost c_ = act(R, NF, G, TP);                                                      \
    cr_expect_float_eq(c_.bytes + c_.norm, WANT, 1e-12,                                    \
                       "recipe %d norm_fed %d gathered %d tp %d: %g + %g bytes, want %g", R, \
                       NF, G, TP, c_.bytes, c_.norm, (double)(WANT));                      \
    cr_expect_eq(c_.launches, K, "recipe %d norm_fed %d gathered %d: %d launches, want %d", \
                 R, NF, G, c_.launches, K);                                                \
  } while (0)

/* A plain operand (the input of a row-parallel linear, an output
 * gradient): cast_transpose reads 2 bytes and writes fp8 + fp8^T = 4;
 * current scaling's amax pass reads 2 more, its own launch; block recipes
 * write two copies with 1/32 byte of scale each: 2 + 2 x 1.03125. */
Test(fp8cast, plain_operand) {
  EXPECT(SC_FP8_DELAYED, 0, 0, 1, 4.0, 1);
  EXPECT(SC_FP8_CURRENT, 0, 0, 1, 6.0, 2);
  EXPECT(SC_FP8_BLOCK, 0, 0, 1, 4.0625, 1);
  EXPECT(SC_FP8_MXFP8, 0, 0, 1, 4.0625, 1);
}

/* LayerNormLinear: delayed scaling's norm writes fp8 (1 byte instead of 2:
 * -1, charged to the norm) and nvte_transpose reads 1, writes 1: 1 byte
 * net, 1 launch; current
 * scaling's norm computes the amax, then cast_transpose: 4; block recipes
 * are not fused into TE's norm kernels. */
Test(fp8cast, norm_fed_input) {
  fp8c_cost d = act(SC_FP8_DELAYED, 1, 0, 1);
  cr_expect_float_eq(d.norm, -1.0, 1e-12, "the norm's write: %g", d.norm);
  cr_expect_float_eq(d.bytes, 2.0, 1e-12, "the transpose: %g", d.bytes);
  EXPECT(SC_FP8_DELAYED, 1, 0, 1, 1.0, 1);
  EXPECT(SC_FP8_CURRENT, 1, 0, 1, 4.0, 1);
  EXPECT(SC_FP8_BLOCK, 1, 0, 1, 4.0625, 1);
  EXPECT(SC_FP8_MXFP8, 1, 0, 1, 4.0625, 1);
}

/* Gathered over tp 4 (sequence parallelism): the shard is quantized
 * rowwise (per gathered element a quarter of it), the gathered fp8 tensor
 * transposed (2): delayed plain (2 + 1) / 4 + 2 = 2.75, norm-fed
 * -1 / 4 + 2 = 1.75; current plain (4 + 1) / 4 + 2 = 3.25 with amax,
 * cast and transpose launched, norm-fed (2 + 1) / 4 + 2 = 2.75 (the norm
 * took the amax); mxfp8 both copies on the shard:
 * 4.0625 / 4. tp 1 gathers nothing. */
Test(fp8cast, gathered_operand) {
  EXPECT(SC_FP8_DELAYED, 0, 1, 4, 2.75, 2);
  EXPECT(SC_FP8_DELAYED, 1, 1, 4, 1.75, 1);
  EXPECT(SC_FP8_CURRENT, 0, 1, 4, 3.25, 3);
  EXPECT(SC_FP8_CURRENT, 1, 1, 4, 2.75, 2); /* (2 + 1) / 4 + 2 */
  EXPECT(SC_FP8_MXFP8, 0, 1, 4, 4.0625 / 4, 1);
  EXPECT(SC_FP8_DELAYED, 0, 1, 1, 4.0, 1);
}

/* Weights once per step: cast_transpose 2 + 1 + 1 = 4 (current: + 2 for the
 * amax), 128x128 block scales 4 / 16384 a copy, MXFP8 1 / 32 a copy. */
Test(fp8cast, weight_per_step) {
  cr_expect_float_eq(fp8c_weight_bytes(SC_FP8_DELAYED, 2, 1), 4.0, 1e-12);
  cr_expect_float_eq(fp8c_weight_bytes(SC_FP8_CURRENT, 2, 1), 6.0, 1e-12);
  cr_expect_float_eq(fp8c_weight_bytes(SC_FP8_BLOCK, 2, 1), 4.0 + 8.0 / 16384, 1e-12);
  /* Blackwell: one per-tensor copy (2 + 1; current + 2), MXFP8 both */
  cr_expect_float_eq(fp8c_weight_bytes(SC_FP8_DELAYED, 2, 0), 3.0, 1e-12);
  cr_expect_float_eq(fp8c_weight_bytes(SC_FP8_CURRENT, 2, 0), 5.0, 1e-12);
  cr_expect_float_eq(fp8c_weight_bytes(SC_FP8_MXFP8, 2, 0), 4.0625, 1e-12);
}

/* Blackwell's fp8 GEMMs take every layout: per-tensor recipes write one
 * copy. Plain: read 2, write 1 = 3 (current + 2 = 5, two launches);
 * norm-fed delayed: the norm writes fp8 (-1) and nothing is launched;
 * norm-fed current: the cast, 3; gathered over tp 4: the shard's cast
 * only, 3 / 4; MXFP8 unchanged (both copies): 4.0625. */
Test(fp8cast, blackwell_writes_no_transpose) {
  blackwell = 1;
  EXPECT(SC_FP8_DELAYED, 0, 0, 1, 3.0, 1);
  EXPECT(SC_FP8_CURRENT, 0, 0, 1, 5.0, 2);
  EXPECT(SC_FP8_DELAYED, 1, 0, 1, -1.0, 0);
  EXPECT(SC_FP8_CURRENT, 1, 0, 1, 3.0, 1);
  EXPECT(SC_FP8_DELAYED, 0, 1, 4, 0.75, 1);
  EXPECT(SC_FP8_MXFP8, 0, 0, 1, 4.0625, 1);
  blackwell = 0;
}

/* Delayed scaling rolls 1024 fp32 amaxes per fp8 tensor (read + write):
 * 3 forward tensors 24576 bytes, 2 backward 16384; other recipes none. */
Test(fp8cast, amax_history) {
  cr_expect_float_eq(fp8c_history_bytes(SC_FP8_DELAYED, 1), 24576.0, 1e-9);
  cr_expect_float_eq(fp8c_history_bytes(SC_FP8_DELAYED, 0), 16384.0, 1e-9);
  cr_expect_float_eq(fp8c_history_bytes(SC_FP8_CURRENT, 1), 0.0, 1e-9);
  cr_expect_float_eq(fp8c_history_bytes(SC_FP8_MXFP8, 0), 0.0, 1e-9);
}

/* Sequence-parallel gathers of a quantized operand, bytes per gathered
 * element: per-tensor recipes the rowwise fp8 copy (1) every time; MXFP8
 * both copies in forward and for the output gradient, 2 x (1 + 1/32) =
 * 2.0625, the columnwise one alone for the weight gradient's re-gather,
 * 1.03125; the block recipe gathers 16 bits (0: not quantized). */
Test(fp8cast, sequence_parallel_gathers) {
  const fp8c_gather w[3] = {FP8C_AG_INPUT, FP8C_AG_REGATHER, FP8C_AG_DGRAD};
  const double want[4][3] = {
      {1, 1, 1}, {1, 1, 1}, {0, 0, 0}, {2.0625, 1.03125, 2.0625}};
  const sc_fp8_recipe r[4] = {SC_FP8_DELAYED, SC_FP8_CURRENT, SC_FP8_BLOCK, SC_FP8_MXFP8};
  for (int i = 0; i < 4; i++)
    for (int j = 0; j < 3; j++)
      cr_expect_float_eq(fp8c_gather_bytes(r[i], w[j]), want[i][j], 1e-12,
                         "recipe %d gather %d: %g bytes, want %g", (int)r[i], j,
                         fp8c_gather_bytes(r[i], w[j]), want[i][j]);
}
