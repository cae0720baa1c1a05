/*
 * groups.h -- where each parallel group lands on the cluster
 * (module prefix: grp_).
 *
 * Ranks are laid out Megatron-style, fastest-varying first:
 * tp, cp, dp (ep within dp*cp), pp. A group of n ranks with stride `st`
 * then has min(n, gpus_per_node / st) members in each NVLink domain.
 */
#ifndef SC_ENGINE_GROUPS_H
#define SC_ENGINE_GROUPS_H

#include "coll/coll.h"
#include "stepcast.h"

typedef struct grp_set {
  coll_group tp, cp, ep, dp, pp; /* pp: a 2-rank group between stages */
} grp_set;

/* Fill the collective groups of a resolved scenario. */
void grp_build(const sc_scenario *s, grp_set *out);

/* Time of `op` over group g (0 for a one-rank group). */
double grp_time(coll_op op, double bytes, const coll_group *g);

#endif
