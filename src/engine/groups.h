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
#include "engine/netcost.h"
#include "stepcast.h"

typedef struct grp {
  coll_group g;    /* what NCCL's closed forms see */
  int stride;      /* job ranks between consecutive members */
} grp;

typedef struct grp_set {
  grp tp, cp, ep, dp, pp; /* pp: a 2-rank group between stages */
  ncost *net;             /* owned: the named topology, or NULL */
  int sm_count;           /* SMs of the GPU, for the share NCCL takes */
} grp_set;

/* Fill the collective groups of a resolved scenario and load its
 * topology, if it names one. On error nothing needs freeing. */
int grp_build(const sc_scenario *s, grp_set *out, sc_error *err);
void grp_free(grp_set *gs);

/* GPU-stream seconds of `op` over group g (0 for a one-rank group). If
 * sm_share is not NULL it receives the fraction of the GPU's compute lost
 * while the collective runs beside it: NCCL runs one CTA per channel, each
 * holding an SM (at most half). */
double grp_cost(const grp_set *gs, const grp *g, coll_op op, double bytes,
                double *sm_share);

/* grp_cost without the share. */
double grp_time(const grp_set *gs, const grp *g, coll_op op, double bytes);

#endif
