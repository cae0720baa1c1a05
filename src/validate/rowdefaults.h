/*
 * rowdefaults.h -- what a measurement row leaves blank, filled the way the
 * row's framework would have run it (module prefix: rowd_).
 *
 * A training row of ../shared/validation gives the shape and the plan but
 * not every input of a prediction. These rules decide the rest, the same
 * way for every row whatever its source (docs/accuracy.md, "How a row
 * becomes a scenario"): an explicit column wins, then what the row's
 * notes state, then the architecture of the model the row names when
 * stepcast has a preset of it, then the default of the framework the notes
 * name, then stepcast's defaults. Nothing here looks at a row's source,
 * id or measured value.
 */
#ifndef SC_VALIDATE_ROWDEFAULTS_H
#define SC_VALIDATE_ROWDEFAULTS_H

#include <stddef.h>

#include "stepcast.h"

/* The training frameworks whose defaults differ. */
typedef enum rowd_framework {
  ROWD_FW_UNKNOWN = 0, /* not named: Megatron-LM's defaults of its time */
  ROWD_FW_MCORE,       /* NeMo, Megatron-Core, Transformer Engine */
  ROWD_FW_MAXTEXT      /* JAX / MaxText (XLA-compiled) */
} rowd_framework;

/* The framework the notes name. */
rowd_framework rowd_framework_of(const char *notes);

/* plan.framework of a training row whose notes name fw, once its other
 * keys are set (validate.c): NeMo / Megatron-Core / Transformer Engine
 * rows "nemo" (Megatron-Core underneath, and the framework whose Apex
 * remainders rowmem_defaults may set), MaxText rows "maxtext", a row
 * naming neither below ZeRO-3 "megatron" (Megatron-LM of its time, the
 * reading of every such row); a ZeRO-3 row naming neither keeps "auto":
 * its framework (PyTorch FSDP under Composer/llm-foundry, DeepSpeed, ...)
 * is read key by key from its notes (rowd_fsdp), and no framework
 * stepcast names is it as a whole. Every figure of the training sets is
 * unchanged by it (docs/accuracy.md, "plan.framework and the rows"). */
void rowd_plan_framework(rowd_framework fw, sc_plan *p);

/* The architecture fields of m (activation, norm, positions, tied
 * embeddings, biases, dropout rates; never the shape): GPT-style with
 * Megatron's dropout 0.1 by default, those of
 * the model preset the `model` text names (the longest preset id that,
 * ignoring case and punctuation, starts it), then what the notes state.
 * Appends what it took from where to `why` (may be NULL). */
void rowd_architecture(const char *model, const char *notes, sc_transformer *m, char *why,
                       size_t why_size);

/* The transformer preset the `model` text names: the longest preset id
 * that, ignoring case and punctuation, starts it (before any '(', after
 * the last '/' of a Hugging Face repository id); NULL when none. */
const sc_model *rowd_named_preset(const char *model);

/* The attention kernel: what the notes state (a FlashAttention generation,
 * cuDNN, "flash attention" = FlashAttention-2, the calibrated generation),
 * else the framework's default (Megatron-Core / NeMo and MaxText: cuDNN
 * fused attention; Megatron-LM: cuDNN fused attention through Transformer
 * Engine where it must run TE -- p->dtype fp8 or fp4, or a GPU of arch
 * (compute capability x 10; 0 = unknown) 100 or newer -- else its unfused
 * attention). Reads p->dtype; sets p->flash_attention and p->attention. */
void rowd_attention(const char *notes, rowd_framework fw, int arch, sc_plan *p);

/* The framework's overlap defaults and what the notes state about them:
 * gradient reduce and parameter gather overlap, tensor-parallel
 * communication overlap, an eager (Python) or compiled framework. */
void rowd_overlap(const char *notes, rowd_framework fw, sc_plan *p);

/* The FSDP implementation of a zero-3 row: XLA for MaxText, FSDP1 where
 * the notes name one of its sharding strategies (FULL_SHARD,
 * SHARD_GRAD_OP: no reshard after forward), DeepSpeed where they name
 * DeepSpeed or ZeRO stage 3; otherwise the default (FSDP2). */
void rowd_fsdp(const char *notes, rowd_framework fw, sc_plan *p);

/* The stage layout when the row gives none and its layers do not split
 * evenly over pp*vpp chunks: Megatron-Core (NeMo) recipes then count the
 * embedding and the loss as one layer each of the first and last chunk
 * (account_for_embedding/loss_in_pipeline_split, as NeMo's Llama 3.1 405B
 * recipe does for 126 layers) when that makes the split even; other
 * frameworks keep the even split (and the row is skipped with the reason).
 * A layout the row states (p->n_pp_layout, pp_first/last_layers) stands.
 * Returns 1 when it set the layout. */
int rowd_pipeline_layout(rowd_framework fw, int layers, sc_plan *p);

/* A value for a blank scale-out bandwidth: the NIC of the GPU's reference
 * system (the first cluster preset with that GPU), in bytes/s, and that
 * preset's id in *preset; 0 when there is none. */
double rowd_reference_nic(const char *gpu, const char **preset);
/* The server of the GPU's reference system, the same preset: its GPUs per
 * node and NVLink domain into *gpn and *domain (8 and 8 when there is
 * none); its id, or NULL. */
const char *rowd_reference_node(const char *gpu, int *gpn, int *domain);
/* The host side (CPU memory, PCIe uplinks) of the GPU's reference system,
 * the same preset; all 0 (= the consumer's default) when there is none. */
sc_host rowd_reference_host(const char *gpu);

#endif
