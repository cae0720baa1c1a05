/*
 * rowvalues.h -- the spellings of a measurement row's coded cells (module
 * prefix: rowv_): precision, recompute, on/off switches, ZeRO stage, and
 * a pipeline layout given as text. Sets of ../shared/validation write each
 * value one way ("bf16", "full", "1"); rows of other sources write the
 * same values as their frameworks print them ("BF16", "bf16-mixed",
 * "true", "ZeRO-2", Megatron's --pipeline-model-parallel-layout). Each
 * reader accepts a spelling only where it names one value without doubt;
 * anything else is left to the caller to report as malformed, never
 * guessed. ASCII case is ignored everywhere; spaces around a cell too.
 * docs/accuracy.md, "Spellings a row may use", lists what is accepted.
 */
#ifndef SC_VALIDATE_ROWVALUES_H
#define SC_VALIDATE_ROWVALUES_H

#include <stddef.h>

#include "stepcast.h"

/* The compute type of a precision cell: fp32 / float32 / 32, tf32,
 * fp16 / float16 / half / 16, bf16 / bfloat16, fp8 and any "fp8" recipe
 * name (fp8-hybrid, fp8_e4m3), fp4 / nvfp4 / mxfp4; "amp" = fp16 (PyTorch
 * AMP's default type). A trailing "-mixed", "_mixed", " mixed", "-amp",
 * " amp" or "-true" names the same GEMM type (Lightning's "bf16-mixed",
 * "16-mixed", "32-true"). 1 and *d set, or 0 (unknown). */
int rowv_dtype(const char *s, sc_dtype *d);

/* The recompute cell: none / no / false / off / 0 / disabled = none;
 * selective / sel / core_attn / attention = selective (the attention core,
 * Megatron's --recompute-granularity selective, torchtitan's "selective");
 * full / true / yes / on / 1 / uniform / block / checkpoint(ing) = full
 * (whole layers: Megatron's --recompute-granularity full with either
 * method; an FSDP or DeepSpeed "activation checkpointing: true" wraps
 * whole transformer blocks). Blank is the caller's. 1 and *r set, or 0. */
int rowv_recompute(const char *s, sc_recompute *r);

/* An on/off cell: 1 / true / yes / on / enabled, 0 / false / no / off /
 * disabled. 1 and *v set to 0 or 1, or 0 (neither). */
int rowv_flag(const char *s, int *v);

/* A ZeRO stage: 0..3 with an optional "zero", "zero-", "zero_", "stage"
 * or "z" before it ("ZeRO-2", "stage 3", "z1"); "fsdp", "full_shard",
 * "hsdp", "hybrid_shard" = 3 (parameters sharded); "ddp", "none", "no" =
 * 0; "shard_grad_op" = 2 (gradients and optimizer state sharded,
 * parameters kept whole between forward and backward). 1 and *z set, or
 * 0. */
int rowv_zero(const char *s, int *z);

/* A pipeline layout as text into p->pp_layout / p->n_pp_layout (layers per
 * virtual stage, stage-major as Megatron-Core orders them: entry k*pp + s
 * is chunk k of stage s):
 *   - Megatron-Core's --pipeline-model-parallel-layout grammar: virtual
 *     stages separated by '|', each a string of layer symbols (t = a
 *     transformer layer; E embedding, L loss, m an MTP layer: not
 *     transformer layers, placed where stepcast places them), a symbol or
 *     a parenthesised group repeated by "*N" ("Et*3|(tt|)*29m|L");
 *   - or a list of whole numbers, one per virtual stage, separated by
 *     commas, spaces, '|' or ';' ("4,8,8,6").
 * Returns 1 when set; 0 with a reason in why (at most wn bytes) when the
 * text is neither (nothing set). */
int rowv_pp_layout(const char *s, sc_plan *p, char *why, size_t wn);

/* Append "; " (when *assumed is not empty) and the formatted text to
 * assumed (capacity an bytes). What does not fit is cut and the note ends
 * with "..." (the reader sees it was cut); nothing is appended after. */
void rowv_note(char *assumed, size_t an, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif /* SC_VALIDATE_ROWVALUES_H */
