/*
 * test_fp8cast.c -- Transformer Engine's quantization kernels per fp8
 * recipe (src/cost/fp8cast.c): bytes per element of one operand, by hand.
 */
#include <criterion/criterion.h>

#include "cost/fp8cast.h"

static fp8c_cost act(sc_fp8_recipe r, int norm_fed, int gathered, int tp) {
  fp8c_operand op = {2.0, norm_fed, gathered, tp};
  return fp8c_activation(r, &op);
}

#define EXPECT(R, NF, G, TP, WANT, K)                                                     \
  do {                                                                                     \
    fp8c_cost c_ = act(R, NF, G, TP);                                                      \
    cr_expect_float_eq(c_.bytes, WANT, 1e-12,                                              \
                       "recipe %d norm_fed %d gathered %d tp %d: %g bytes, want %g", R, NF, \
                       G, TP, c_.bytes, (double)(WANT));                                   \
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
 * -1) and nvte_transpose reads 1, writes 1: 1 byte net, 1 launch; current
 * scaling's norm computes the amax, then cast_transpose: 4; block recipes
 * are not fused into TE's norm kernels. */
Test(fp8cast, norm_fed_input) {
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
  cr_expect_float_eq(fp8c_weight_bytes(SC_FP8_DELAYED, 2), 4.0, 1e-12);
  cr_expect_float_eq(fp8c_weight_bytes(SC_FP8_CURRENT, 2), 6.0, 1e-12);
  cr_expect_float_eq(fp8c_weight_bytes(SC_FP8_BLOCK, 2), 4.0 + 8.0 / 16384, 1e-12);
  cr_expect_float_eq(fp8c_weight_bytes(SC_FP8_MXFP8, 2), 4.0625, 1e-12);
}

/* Delayed scaling rolls 1024 fp32 amaxes per fp8 tensor (read + write):
 * 3 forward tensors 24576 bytes, 2 backward 16384; other recipes none. */
Test(fp8cast, amax_history) {
  cr_expect_float_eq(fp8c_history_bytes(SC_FP8_DELAYED, 1), 24576.0, 1e-9);
  cr_expect_float_eq(fp8c_history_bytes(SC_FP8_DELAYED, 0), 16384.0, 1e-9);
  cr_expect_float_eq(fp8c_history_bytes(SC_FP8_CURRENT, 1), 0.0, 1e-9);
  cr_expect_float_eq(fp8c_history_bytes(SC_FP8_MXFP8, 0), 0.0, 1e-9);
}
