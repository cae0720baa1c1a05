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
 * dispatcher runs its framework's: Megatron-LM and Megatron-Core's
 * argparse default "allgather" (transformer_config.py); other frameworks
 * keep the scenario default. Returns 1 when the dispatcher was the
 * framework's default (the row's "assumed" note says so). */
int rowm_moe(const char *notes, rowd_framework fw, sc_plan *p);

#endif
