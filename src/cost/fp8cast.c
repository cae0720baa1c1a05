/*
 * fp8cast.c -- Transformer Engine's quantization kernels per fp8 recipe;
 * see fp8cast.h. Bytes per element, e = 2 (bf16 source):
 *
 *   Hopper (sm90)                               delayed current block mxfp8
 *   operand (not norm-fed, not gathered)
 *     read e, write fp8 + fp8 transposed          4      6     4.0625   -
 *   norm-fed input (LayerNormLinear)              1      4     4.0625   -
 *   weight, once per step                         4      6     4.0005   -
 *   Blackwell (sm100: fp8 GEMMs in any layout, no transposed copy)
 *   operand                                       3      5       -    4.0625
 *   norm-fed input                               -1      3       -    4.0625
 *   weight                                        3      5       -    4.0625
 *
 * (-1: the norm writes fp8 instead of 16 bits, and nothing else runs.)
 *
 * Scales: Float8BlockScaling 1x128 blocks with an fp32 scale (4 / 128 B an
 * element a copy), 128x128 for weights (4 / 16384); MXFP8 32-element
 * blocks with an E8M0 scale (1 / 32 B) -- transformer_engine/common/
 * recipe/__init__.py (../shared/reference/transformerengine).
 */
#include "cost/fp8cast.h"

/* fp8 byte per element of one copy plus its scale share. */
static double copy_bytes(sc_fp8_recipe r, int weight) {
  switch (r) {
  case SC_FP8_BLOCK: return 1.0 + 4.0 / (weight ? 128.0 * 128.0 : 128.0);
  case SC_FP8_MXFP8: return 1.0 + 1.0 / 32.0;
  default: return 1.0; /* per-tensor scale: one float for the whole tensor */
  }
}

/* Per-tensor scaling (delayed, current): one fp8 copy, and on Hopper
 * (tn_only) a transposed one.
 *   - plain: cast_transpose (common/transpose/cast_transpose.cu) reads the
 *     16-bit tensor once and writes both copies (Blackwell: the cast,
 *     one copy); current scaling first runs nvte_compute_amax
 *     (common/recipe/current_scaling.cu), another read.
 *   - norm-fed, delayed: TE's LayerNorm/RMSNorm kernel writes the fp8
 *     output itself (its e-byte write becomes 1 byte: norm = 1 - e), then
 *     on Hopper nvte_transpose (common/transpose/transpose.cu) reads it and
 *     writes the transposed copy (2); on Blackwell no kernel at all.
 *   - norm-fed, current: the norm writes 16 bits and computes the amax in
 *     the same kernel (pytorch/csrc/extensions/normalization.cpp,
 *     fused norm + amax), then the cast: no separate amax read.
 *   - gathered by sequence parallelism: the local shard is quantized
 *     rowwise (1/tp of the elements), gathered in fp8, and on Hopper the
 *     gathered tensor transposed by nvte_transpose (read 1, write 1). */
static fp8c_cost tensor_scaled(int current, const fp8c_operand *op) {
  double e = op->e;
  int fused = op->norm_fed && !current; /* the norm writes fp8 */
  double row = fused ? 0 : current && !op->norm_fed ? 2 * e + 1.0 : e + 1.0;
  int row_k = fused ? 0 : current && !op->norm_fed ? 2 : 1;
  double share = op->gathered && op->tp > 1 ? 1.0 / op->tp : 1.0;
  fp8c_cost c = {row * share, fused ? (1.0 - e) * share : 0, row_k};
  if (!op->tn_only) return c;
  if (share < 1 || fused) {
    c.bytes += 2.0; /* nvte_transpose of the fp8 copy */
    c.launches++;
  } else {
    c.bytes += 1.0; /* cast_transpose's second write */
  }
  return c;
}

/* Block recipes: both copies quantized from the 16-bit tensor in one
 * kernel (Float8BlockScaling: quantize_transpose_vector_blockwise,
 * common/transpose/quantize_transpose_vector_blockwise.cu; MXFP8:
 * quantize_mxfp8, common/util/cast_kernels.cuh, rowwise and columnwise
 * copies, no transpose). TE's own norm kernels do not write these
 * formats (only the opt-in cuDNN norm backend does), so a norm-fed input
 * is quantized after the norm as any other. Gathered: each rank quantizes
 * its shard, both copies are gathered. */
static fp8c_cost block_scaled(sc_fp8_recipe r, const fp8c_operand *op) {
  fp8c_cost c = {op->e + 2.0 * copy_bytes(r, 0), 0, 1};
  if (op->gathered && op->tp > 1) c.bytes /= op->tp;
  return c;
}

fp8c_cost fp8c_activation(sc_fp8_recipe r, const fp8c_operand *op) {
  if (r == SC_FP8_DELAYED || r == SC_FP8_CURRENT) return tensor_scaled(r == SC_FP8_CURRENT, op);
  return block_scaled(r, op);
}

/* The weight: cast_transpose (per-tensor recipes, Hopper; the cast alone
 * on Blackwell; current scaling's amax pass first), the blockwise or MXFP8
 * quantizer for the block recipes. */
double fp8c_weight_bytes(sc_fp8_recipe r, double e, int tn_only) {
  int per_tensor = r == SC_FP8_DELAYED || r == SC_FP8_CURRENT;
  double b = e + (per_tensor && !tn_only ? 1.0 : 2.0) * copy_bytes(r, 1);
  return r == SC_FP8_CURRENT ? b + e : b;
}

/* DelayedScaling keeps amax_history_len = 1024 fp32 amaxes per fp8 tensor
 * (recipe/__init__.py); at the end of each fp8 autocast region TE rolls the
 * history and recomputes the scale (tex.fused_amax_and_scale_update_
 * after_reduction): read and write 1024 x 4 bytes per tensor. A linear has
 * 3 forward tensors (input, weight, output) and 2 backward (output and
 * input gradients). */
double fp8c_history_bytes(sc_fp8_recipe r, int fwd) {
  if (r != SC_FP8_DELAYED) return 0;
  return (fwd ? 3.0 : 2.0) * 1024.0 * 4.0 * 2.0;
}

/* Transformer Engine's sequence-parallel gathers of a quantized operand
 * (transformer_engine/pytorch/distributed.py gather_along_first_dim and
 * the linear modules that call it; TE's source, not in ../shared: our
 * reading of TE 2.x):
 *   - per-tensor recipes (delayed, current) gather the rowwise fp8 data
 *     ("all-gather is not supported with FP8 column-wise data"); the
 *     weight gradient's re-gather is rowwise too, transposed after on
 *     Hopper (tensor_scaled): 1 byte an element each time;
 *   - MXFP8 (_all_gather_mxfp8) gathers every usage the quantizer is set
 *     to, data and E8M0 scales: the forward input with rowwise (forward
 *     GEMM) and columnwise (kept for the weight gradient) usage, the
 *     backward re-gather columnwise only (the weight-gradient GEMM), the
 *     output gradient rowwise (data gradient) and columnwise (weight
 *     gradient): 2 (1 + 1/32) or 1 + 1/32 bytes an element;
 *   - Float8BlockScaling: gathered in 16 bits here (0). */
double fp8c_gather_bytes(sc_fp8_recipe r, fp8c_gather which) {
  if (r == SC_FP8_DELAYED || r == SC_FP8_CURRENT) return 1.0;
  if (r != SC_FP8_MXFP8) return 0;
  return (which == FP8C_AG_REGATHER ? 1.0 : 2.0) * copy_bytes(r, 0);
}
