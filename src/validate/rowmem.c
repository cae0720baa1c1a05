/*
 * rowmem.c -- see rowmem.h. Each rule says where it comes from; where the
 * framework's source is not in ../shared it is our reading of it, said so.
 */
#include "validate/rowmem.h"

#include "validate/rowtext.h"

/* Apex's DistributedFusedAdam (apex/contrib/optimizers/
 * distributed_fused_adam.py) as NeMo's distributed_fused_adam sets it up
 * (nemo/core/optim/distributed_adam.py, MegatronBaseModel.setup_
 * optimization) -- neither in ../shared; our reading:
 *   - the optimizer state is fp32 (dtype float32) and, for a bf16 model,
 *     store_params False with store_param_remainders True: the shard
 *     keeps the 16 low bits that the bf16 parameter lacks of its fp32
 *     master, 2 bytes instead of 4;
 *   - gradients go into a contiguous buffer (contiguous_grad_buffer True)
 *     of grad_sync_dtype, which the NeMo launcher's training configs set
 *     to bf16 (grad_sync_dtype: bf16) beside distributed_fused_adam; the
 *     buffer is reduce-scattered in place, so the whole of it stays: 2
 *     bytes per parameter (plan.main_grads bf16). */
static void fused_adam(sc_plan *p) {
  int bf16_params = p->dtype == SC_BF16 || p->dtype == SC_FP8 || p->dtype == SC_FP4;
  if (!bf16_params) return; /* fp16/fp32 models keep full fp32 masters */
  p->param_remainders = 1;
  p->main_grads = SC_BF16;
}

/* NeMo 2.0's performance scripts (scripts/performance/helpers.py, not in
 * ../shared; our reading): after choosing the precision plugin they set
 * plugins.grad_reduce_in_fp32 = False, so Megatron-Core's gradient buffer
 * (param_and_grad_buffer.py: grad_data in grad_dtype, one allocation of
 * every parameter) is bf16; fp8 runs take bf16_with_fp8_mixed
 * (nemo/collections/llm/recipes/precision/mixed_precision.py) for the
 * scripts' default recipe, delayed scaling ("ds"), and it sets
 * fp8_param_gather True: Megatron-Core's fp8_param, TE's fp8 weights as
 * the module parameters (fp8_model_init, ../shared/reference/megatron-lm/
 * megatron/core/fp8_utils.py), no 16-bit copy. Other recipes are left as
 * stated (the row's, or stepcast's default). */
static void nemo2(sc_plan *p) {
  p->main_grads = SC_BF16;
  if (p->dtype == SC_FP8 && p->fp8_recipe == SC_FP8_DELAYED) p->fp8_param = 1;
}

/* llm-foundry's MPT (llmfoundry/models/mpt/modeling_mpt.py,
 * ComposerMPTCausalLM: the model config's loss_fn, 'fused_crossentropy'
 * unless set to 'torch_crossentropy', which imports flash-attn's
 * CrossEntropyLoss and fails when it is missing; not in ../shared, our
 * reading of its 2023 releases): the fused loss (plan.fused_loss,
 * lower.c fused_ce). A row states it by naming llm-foundry or the loss. */
static int fused_loss(const char *notes) {
  if (rowtext_has(notes, "torch_crossentropy")) return 0;
  return rowtext_has(notes, "llm-foundry") || rowtext_has(notes, "llm foundry") ||
         rowtext_has(notes, "llmfoundry") || rowtext_has(notes, "fused_crossentropy") ||
         rowtext_has(notes, "fused cross entropy") || rowtext_has(notes, "fused cross-entropy");
}

void rowmem_defaults(const char *notes, sc_plan *p) {
  if (rowtext_has(notes, "distributed_fused_adam")) fused_adam(p);
  else if (rowtext_has(notes, "nemo 2.0")) nemo2(p);
  if (fused_loss(notes)) p->fused_loss = 1;
}
