/*
 * rowmem.h -- what a measurement row's framework keeps in GPU memory
 * where stepcast's defaults (Megatron-LM's) differ (module prefix:
 * rowmem_): gradient buffer dtype, fp8 primary weights, the optimizer's
 * master weights. Keyed only on what the row states -- the framework
 * and the optimizer its notes name, its dtype -- the same way for every
 * row (docs/accuracy.md, "Memory: what each framework keeps").
 */
#ifndef SC_VALIDATE_ROWMEM_H
#define SC_VALIDATE_ROWMEM_H

#include "stepcast.h"

/* Set p->main_grads, p->fp8_param, p->param_remainders and p->fused_loss
 * from `notes` and p->dtype (read; set before the call):
 *   - NeMo's distributed_fused_adam (Apex DistributedFusedAdam as NeMo
 *     configures it): 16-bit gradient buckets (grad_sync_dtype bf16) and
 *     16-bit remainders of the fp32 master weights (store_param_remainders);
 *   - NeMo 2.0 ("NeMo 2.0" in the notes): 16-bit gradient reduction
 *     (grad_reduce_in_fp32 False) and, in fp8 with delayed scaling, fp8
 *     primary weights (fp8_param_gather);
 *   - llm-foundry (notes naming it, or its fused_crossentropy loss):
 *     flash-attn's fused cross entropy on the 16-bit logits (fused_loss),
 *     unless they name torch_crossentropy;
 *   - anything else: left as it is (Megatron-LM: fp32 main gradients,
 *     16-bit weights beside TE's fp8 copies, fp32 master weights).
 * The sources and how sure each reading is: rowmem.c. */
void rowmem_defaults(const char *notes, sc_plan *p);

#endif
