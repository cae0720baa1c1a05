/*
 * recmod.h -- what Megatron-Core's selective recompute modules
 * (plan.recompute_modules) keep for backward and re-run, for one operator
 * of a workload graph (module prefix: rm_).
 *
 * An operator belongs to the modules of its wg_op.recmod bits (the
 * transformer builder tags them as Megatron-Core's layer is built). Of the
 * enabled set `en`, an operator's outermost module (moe holds moe_act and
 * shared_experts) decides what it keeps: an operator inside an enabled
 * module keeps nothing; the module keeps its inputs once (the checkpoint's
 * saved inputs). Output-discarding modules (moe_act, layernorm,
 * mla_up_proj: CheckpointWithoutOutput) also free their outputs, so
 * whatever else would keep them does not. Each operator's forward re-runs
 * once per enabled module holding it, before its backward.
 */
#ifndef SC_LOWER_RECMOD_H
#define SC_LOWER_RECMOD_H

#include "graph/graph.h"

/* The output-discarding modules (transformer_config.py). */
#define RM_DISCARDING (SC_RECMOD_MOE_ACT | SC_RECMOD_LAYERNORM | SC_RECMOD_MLA_UP_PROJ)

/* The modules of `en` op opi of g belongs to. A norm fused into the one
 * linear layer that reads it (Transformer Engine's LayerNormLinear, where
 * Megatron's layer holds an IdentityOp) is no "layernorm" module. */
unsigned rm_bits(const wg_graph *g, int opi, unsigned en);

/* Times op opi's forward tasks re-run in backward, core attention apart
 * (the lowering marks the attention kernels itself). */
int rm_depth(const wg_graph *g, int opi, unsigned en);

/* 1 when tensor t is an output an enabled output-discarding module frees
 * after the forward. */
int rm_discarded(const wg_graph *g, int t, unsigned en);

/* 1 when op opi is inside an enabled module (it keeps nothing itself). */
int rm_inside(const wg_graph *g, int opi, unsigned en);

/* 1 when input i of op opi is an input its outermost enabled module keeps
 * (read from outside the module, first read here, not discarded). */
int rm_keeps_input(const wg_graph *g, int opi, int i, unsigned en);

#endif /* SC_LOWER_RECMOD_H */
