/*
 * rowtrain.h -- the cells of a training row that sets of other sources
 * write differently or leave blank (module prefix: rowt_). validate.c
 * reads the columns every row has; these readers take what varies: the
 * spellings of the coded cells (rowvalues.h), blank cells filled the way
 * the row's framework would fill them, and the layout cells a row may add
 * beyond the schema (etp, pp_layout). Every value they fill in for a
 * blank cell is said in the row's `assumed` text; a row that lacks an
 * input nothing can stand in for is skipped with the reason. The same
 * rules for every row; nothing reads a row's source, id or measurement
 * (docs/accuracy.md, "How a row becomes a scenario", items 11-15).
 */
#ifndef SC_VALIDATE_ROWTRAIN_H
#define SC_VALIDATE_ROWTRAIN_H

#include <stddef.h>

#include "load/csv.h"
#include "stepcast.h"

/* The coded plan cells of the current record: `sp` (an on/off cell),
 * `zero` (rowv_zero), `recompute` (rowv_recompute; blank = none, said by
 * rowt_blank_notes) and `dtype` (rowv_dtype); an fp8 row's recipe from
 * the notes, else its framework's default (rowtrain.c, fp8_recipe). SC_OK, or SC_EINPUT with the
 * malformed cell named in err (*bad set; a set *bad is left alone). */
int rowt_plan_cells(const csv_file *f, const char *path, sc_plan *p, char *assumed, size_t an,
                    int *bad, sc_error *err);

/* The model the row names (rowd_named_preset) fills what the row leaves
 * blank and what the schema has no column for, said in assumed:
 *   - blank `layers`, `vocab`, `seq`: the preset's; blank `hidden` or
 *     `heads`: the preset's hidden, heads, kv_heads and ffn;
 *   - where the preset's width, heads and experts are the row's, its
 *     head size (Qwen3's 128 over 64 heads of 4096), MoE layout (dense
 *     first layers, their MLP width, shared experts, interleave) and
 *     multi-head latent attention (DeepSeek).
 * SC_OK, or SC_EMODEL with `why` when a shape cell is blank and no preset
 * is named. */
int rowt_model(const csv_file *f, const char *model, sc_transformer *m, char *why, size_t wn,
               char *assumed, size_t an);

/* The layout a row states beyond the schema and the framework's choices
 * for blank layout cells, before rowd_pipeline_layout:
 *   - `etp` column or "etp N" / "expert_tensor_parallel_size N" in the
 *     notes: N = tp is Megatron's default (plan.etp 0), 1 = experts
 *     whole (plan.etp 1); another value is not modelled (SC_EMODEL);
 *   - `pp_layout` column, or in the notes "pipeline-model-parallel-layout
 *     X" (rowv_pp_layout), or "decoder-first-pipeline-num-layers N" /
 *     "decoder-last-pipeline-num-layers N" (dashes or underscores): the
 *     stage layout; a blank `vpp` becomes entries / pp;
 *   - HSDP: "dp_shard N" / "data_parallel_shard_degree N" in the notes,
 *     or a `dp_shard` column: FSDP shards over N data-parallel ranks
 *     times cp (torchtitan folds cp into the shard mesh); "HSDP" or
 *     "hybrid_shard" without a degree: one node (PyTorch FSDP's
 *     HYBRID_SHARD default, the node's GPUs over tp);
 *   - blank `sp` with tp > 1: on where the notes name torchtitan (its
 *     tensor-parallel plan always shards the norms' sequence) or NeMo
 *     (an assumption: its recipes set sequence_parallel with TP, its
 *     MegatronStrategy default is off), else off (Megatron's default);
 *     said in assumed;
 *   - torchtitan named and no attention kernel named: PyTorch SDPA's
 *     flash backend, FlashAttention-2.
 * SC_OK; SC_EINPUT on a malformed cell (*bad, err); SC_EMODEL with `why`. */
int rowt_layout(const csv_file *f, const char *path, const char *notes, sc_plan *p, char *why,
                size_t wn, char *assumed, size_t an, int *bad, sc_error *err);

/* A blank `gpus`: tp x pp x dp x cp when `dp` is given (said in
 * assumed); else SC_EMODEL with `why` (nothing gives the GPU count). A
 * given cell: SC_OK, *gpus left as read; then, when `gpus` and `dp` are
 * given and exactly one of `tp`, `pp` and `cp` is blank, that degree is
 * gpus / (dp x the other two) where it divides (GPUs = tp x pp x dp x cp
 * in every framework the sets name; said in assumed) instead of 1, which
 * could not add up. */
int rowt_gpus(const csv_file *f, sc_plan *p, int *gpus, char *why, size_t wn, char *assumed,
              size_t an);

/* Blank `gpus_per_node` and `nvlink_domain`: those of the GPU's
 * reference system (rowd_reference_node: a DGX/HGX server 8 and 8, GB200
 * NVL72 4 per node and 72 over NVLink), else 8 and gpus_per_node; the
 * domain no larger than the row's GPUs. Said by rowt_blank_notes (GPUs
 * per node) and here (a domain other than gpus_per_node). */
void rowt_node(const csv_file *f, sc_cluster *cl, char *assumed, size_t an);

/* Say in assumed, as one clause "blank: ...", what blank plan and cluster
 * cells were taken as: recompute none; tp, pp, cp, ep 1; dp = gpus /
 * (tp x pp x cp); micro_batch (the whole replica batch without
 * pipelining, else 1: sc_plan_resolve's rule); GPUs per server
 * (rowt_node); NVLink bandwidth of the GPU preset. */
void rowt_blank_notes(const csv_file *f, const sc_plan *p, const sc_cluster *cl, char *assumed,
                      size_t an);

#endif /* SC_VALIDATE_ROWTRAIN_H */
