/*
 * fp8cast.h -- the memory-bound kernels Transformer Engine launches around
 * one fp8 GEMM, per recipe: the quantization of each operand (cast,
 * cast + transpose, block scales, amax), in bytes moved per element of the
 * operand. Nothing here is fitted: each figure is the bytes the kernel reads
 * and writes, with the kernel named (TE paths are those of
 * NVIDIA/TransformerEngine; only its recipe module is copied into
 * ../shared/reference/transformerengine, see docs/model.md).
 *
 * A tensor-scaled fp8 GEMM on Hopper takes its operands in the TN layout,
 * so every operand used by two GEMMs (input: forward and weight gradient;
 * output gradient: data and weight gradients; weight: forward and data
 * gradient) gets an fp8 copy and an fp8 transposed copy. Block recipes
 * (Float8BlockScaling, MXFP8) write a rowwise and a columnwise copy, both
 * quantized from the 16-bit tensor, with their scales.
 */
#ifndef SC_COST_FP8CAST_H
#define SC_COST_FP8CAST_H

#include "stepcast.h"

/* One operand's quantization: bytes per element of the 16-bit operand the
 * GEMM reads (a gathered operand: per element after the gather) and the
 * kernel launches. bytes may be below the 16-bit read when the cast is
 * fused into the producer (the norm then writes fewer bytes). */
typedef struct fp8c_cost {
  double bytes;  /* bytes the quantization kernels move per element of
                    the operand */
  double norm;   /* change to the producing norm's own traffic per element
                    of the operand (fused: it writes fp8, 1 - e); 0 else */
  int launches;  /* kernels launched */
} fp8c_cost;

/* Where an operand comes from and how it reaches the GEMM. */
typedef struct fp8c_operand {
  double e;      /* bytes of a 16-bit element (2) */
  int norm_fed;  /* produced by a LayerNorm/RMSNorm (TE's LayerNormLinear) */
  int gathered;  /* all-gathered by sequence parallelism over `tp` ranks:
                    TE quantizes the local shard and gathers fp8 */
  int tp;        /* ranks of that gather (1: not gathered) */
  int tn_only;   /* the GPU's fp8 GEMMs take only the TN layout (Hopper,
                    sm < 100): per-tensor recipes add a transposed copy;
                    Blackwell's take every layout (TE's
                    is_non_tn_fp8_gemm_supported) */
} fp8c_operand;

/* The activation or output-gradient operand of one fp8 GEMM, per
 * micro-batch. */
fp8c_cost fp8c_activation(sc_fp8_recipe r, const fp8c_operand *op);

/* Weight quantization per element of the 16-bit weight: once per step
 * (TE caches it over micro-batches: is_first_microbatch, which Megatron's
 * schedules set on the first micro-batch of each step). */
double fp8c_weight_bytes(sc_fp8_recipe r, double e, int tn_only);

/* Delayed scaling's amax-history update per fp8 linear per micro-batch:
 * forward (fwd = 1, 3 fp8 tensors) or backward (2), bytes. 0 for the
 * other recipes. */
double fp8c_history_bytes(sc_fp8_recipe r, int fwd);

/* Which sequence-parallel all-gather of an fp8 GEMM's operand: the
 * input's in forward, its re-gather for the weight gradient in backward
 * (TE saves the local shard and gathers it again), the output gradient's
 * in backward (row-parallel linear). */
typedef enum fp8c_gather { FP8C_AG_INPUT, FP8C_AG_REGATHER, FP8C_AG_DGRAD } fp8c_gather;

/* Bytes per element of the gathered tensor that gather moves: what TE
 * quantizes before it (per-tensor recipes: the rowwise fp8 copy, 1;
 * MXFP8: each copy the GEMMs after it need, 1 + 1/32 each). 0 when the
 * recipe gathers the 16-bit tensor (block recipe: not modelled). */
double fp8c_gather_bytes(sc_fp8_recipe r, fp8c_gather which);

#endif
