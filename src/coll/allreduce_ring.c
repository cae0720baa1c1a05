/*
 * allreduce_ring.c -- ring all-reduce, reduce-scatter and all-gather.
 *
 * Rank i sends one slice (bytes/n) to rank i+1 in every step; all-reduce
 * is n-1 reduce-scatter steps then n-1 all-gather steps, each the same
 * transfers, so the schedule is one step repeated. Closed form on links
 * of bandwidth bw and latency alpha: steps * (alpha + bytes/(n bw)).
 */
#include "coll/sched.h"

static int ring(sched *s, const sched_params *p, int steps) {
  if (sched_begin(s, steps)) return -1;
  for (int i = 0; i < p->n; i++)
    if (sched_add(s, i, (i + 1) % p->n, p->bytes / p->n)) return -1;
  return 0;
}

static int build_ar(sched *s, const sched_params *p) { return ring(s, p, 2 * (p->n - 1)); }
static int build_half(sched *s, const sched_params *p) { return ring(s, p, p->n - 1); }

static double closed_ar(const sched_params *p) {
  return 2.0 * (p->n - 1) * (p->alpha + p->bytes / p->n / p->bw);
}
static double closed_half(const sched_params *p) {
  return (p->n - 1) * (p->alpha + p->bytes / p->n / p->bw);
}

const coll_alg coll_alg_allreduce_ring = {"ring", COLL_ALL_REDUCE, build_ar, closed_ar, 1, 0};
const coll_alg coll_alg_reduce_scatter_ring = {"ring", COLL_REDUCE_SCATTER, build_half,
                                               closed_half, 1, 0};
const coll_alg coll_alg_all_gather_ring = {"ring", COLL_ALL_GATHER, build_half, closed_half, 1, 0};
