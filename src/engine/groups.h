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
  int window;      /* job ranks whose groups of this shape run the same
                      collectives at once (engine/place.h), 0 = alone */
} grp;

/* The group of g's ranks and stride on cluster c, alone (window 0). */
grp grp_make(const sc_cluster *c, const xg_group *g);

/* GPU-stream seconds of `op` over group g (0 for a one-rank group): NCCL's
 * closed form with the per-call overhead nccl-tests sees (the host side
 * of every call is charged separately, on the host's clock), raised to the flow
 * engine's time on the topology `net` when there is one (may be NULL).
 * If sm_share is not NULL it receives the fraction of the GPU's compute
 * lost while the collective runs beside it: NCCL runs one CTA per
 * channel, each holding an SM (at most half of `sm_count`). */
double grp_cost(ncost *net, int sm_count, const grp *g, coll_op op, double bytes,
                double *sm_share);

/* What a collective running beside compute takes from it: the fraction
 * of the SMs its channels hold (grp_cost's sm_share) and the fraction of
 * the GPU's achievable HBM bandwidth its kernels read and write at. */
typedef struct grp_share {
  double sm;           /* 0..0.5 */
  double hbm;          /* 0..1: collhbm_bytes / its time / (hbm_bw x hbm_eff) */
} grp_share;

/* grp_cost with, when `bound` is 1, the topology's time only bounded from
 * below (ncost_bound) instead of simulated; gpu gives the SM count and
 * the HBM bandwidth; sh (may be NULL) receives both shares. */
double grp_cost_ex(ncost *net, int bound, const sc_gpu *gpu, const grp *g, coll_op op,
                   double bytes, grp_share *sh);

/* The share of its time a window of compute beside a collective loses:
 * compute-bound kernels (GEMMs, attention) run on the SMs NCCL leaves
 * (sh->sm); memory-bound kernels (mem_frac of the window's time) on the
 * HBM bandwidth it leaves, and at least as slow as on the SMs it leaves:
 * sm + mem_frac x max(0, hbm - sm). */
double grp_slow(grp_share sh, double mem_frac);

#endif
