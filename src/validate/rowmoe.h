/*
 * rowmoe.h -- the MoE token dispatch of a measurement row (module prefix:
 * rowm_): what the row's notes state, else its framework's default, the
 * same way for every row (docs/accuracy.md, "How a row becomes a
 * scenario").
 */
#ifndef SC_VALIDATE_ROWMOE_H
#define SC_VALIDATE_ROWMOE_H

#include "stepcast.h"
#include "validate/rowdefaults.h"

/* Set p->moe_dispatcher and the group-limited routing from `notes`: a
 * dispatcher named after the word "dispatcher" (alltoall / all-to-all,
 * allgather / all-gather, flex) or DeepEP / HybridEP anywhere (flex);
 * "num_groups N" and "group_topk N" (Megatron's moe_router_num_groups /
 * moe_router_group_topk, dashes or underscores). A row that names no
 * dispatcher runs its framework's: NeMo's MoE model configs set
 * "alltoall"; otherwise Megatron-LM and Megatron-Core's argparse default
 * "allgather" (transformer_config.py); other frameworks
 * keep the scenario default. Returns 1 when the dispatcher was the
 * framework's default (the row's "assumed" note says so). */
int rowm_moe(const char *notes, rowd_framework fw, sc_plan *p);

/* The row's own columns, which win over its notes: `dispatcher` (a
 * dispatcher name as above, "" = blank), `groups` and `group_topk`
 * (moe_router_num_groups / moe_router_group_topk, "" = blank). Returns
 * 1 when the dispatcher was neither in a column nor in the notes. */
int rowm_moe_columns(const char *notes, const char *dispatcher, const char *groups,
                     const char *group_topk, rowd_framework fw, sc_plan *p);

#endif
