/*
 * plan_attn.h -- plan.attention "auto": the attention kernel a user's
 * framework most likely runs on the scenario's GPU when the scenario does
 * not name one (module prefix: plan_attn_).
 *
 * One rule for `predict`, `search` and `validate` (which fills the kernel
 * of a row naming no framework from it: validate/rowdefaults.c), so that
 * they agree by construction. Where it comes from (docs/input.md,
 * "plan.attention auto"):
 *   - before Ampere (sm < 80): the unfused kernels. FlashAttention-2 and
 *     cuDNN's fused attention need sm80 (plan.c refuses "cudnn" there);
 *   - a GPU of unknown architecture (arch 0: a custom GPU, AMD's):
 *     FlashAttention-2, the calibrated kernel (cuDNN is NVIDIA's);
 *   - Transformer Engine where the framework must run it: fp8 and fp4
 *     (Megatron's low-precision recipes exist only under TE:
 *     megatron/core/fp8_utils.py, HAVE_TE; TE runs fp8 attention only in
 *     its FusedAttention backend: transformer_engine/common/recipe/
 *     __init__.py, fp8_dpa), Blackwell and newer (sm100+: Megatron-LM's
 *     defaults transformer_impl "transformer_engine" and attention_backend
 *     auto, "let transformer engine decide": megatron/core/transformer/
 *     transformer_config.py, in ../shared/reference), and a plan that
 *     names a TE framework by a key only it has (below): cuDNN's fused
 *     attention, which TE's DotProductAttention picks;
 *   - otherwise (Ampere, Ada, Hopper in 16 bits): FlashAttention-2, what
 *     "flash attention" without a version means to validate and what
 *     PyTorch's scaled_dot_product_attention runs (its flash backend).
 */
#ifndef SC_PLAN_PLAN_ATTN_H
#define SC_PLAN_PLAN_ATTN_H

#include "stepcast.h"

/* 1 when a Megatron-family framework on a GPU of arch (compute capability
 * x 10; 0 = unknown) in dtype dt can only run Transformer Engine: fp8 or
 * fp4, or sm100 and newer. */
int plan_attn_runs_te(int arch, sc_dtype dt);

/* 1 when plan p names a framework that runs Transformer Engine by a key
 * that validate reads as that framework too: param_remainders (Apex's
 * DistributedFusedAdam, NeMo's distributed_fused_adam: Megatron-Core)
 * or fsdp_impl "xla" (MaxText, which runs TE's attention on GPUs). */
int plan_attn_te_hint(const sc_plan *p);

/* The kernel "auto" resolves to on a GPU of arch for plan p (reads its
 * dtype and the keys of plan_attn_te_hint): never SC_ATTN_AUTO. */
sc_attention plan_attn_auto(int arch, const sc_plan *p);

/* Resolve s->plan.attention "auto" in place (flash_attention off: the
 * unfused kernels); any other value stays. Idempotent. */
void plan_attn_resolve(sc_scenario *s);

#endif
