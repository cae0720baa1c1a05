/*
 * groups.h -- where each parallel group of an execution graph lands on the
 * cluster, and what its collectives cost (module prefix: grp_).
 *
 * Ranks are laid out Megatron-style, fastest-varying first: tp, cp, dp
 * (ep within dp*cp), pp. A group of n ranks with stride `st` then has
 * min(n, gpus_per_node / st) members in each NVLink domain.
 */
#ifndef SC_ENGINE_GROUPS_H
#define SC_ENGINE_GROUPS_H

#include "coll/coll.h"
#include "engine/netcost.h"
#include "exec/xg.h"
#include "stepcast.h"

typedef struct grp {
  coll_group g;    /* what NCCL's closed forms see */
  int stride;      /* job ranks between consecutive members */
} grp;

/* The group of g's ranks and stride on cluster c. */
grp grp_make(const sc_cluster *c, const xg_group *g);

/* GPU-stream seconds of `op` over group g (0 for a one-rank group): NCCL's
 * closed form without the per-call overhead nccl-tests adds (the engine
 * charges the host side of every call separately), raised to the flow
 * engine's time on the topology `net` when there is one (may be NULL).
 * If sm_share is not NULL it receives the fraction of the GPU's compute
 * lost while the collective runs beside it: NCCL runs one CTA per
 * channel, each holding an SM (at most half of `sm_count`). */
double grp_cost(ncost *net, int sm_count, const grp *g, coll_op op, double bytes,
                double *sm_share);

/* grp_cost with, when `bound` is 1, the topology's time only bounded from
 * below (ncost_bound) instead of simulated. */
double grp_cost_ex(ncost *net, int bound, int sm_count, const grp *g, coll_op op, double bytes,
                   double *sm_share);

#endif
