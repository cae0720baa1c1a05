/*
 * allreduce_hier.c -- hierarchical all-reduce: ring reduce-scatter inside
 * each node (ppn ranks), ring all-reduce of each 1/ppn slice across the
 * nodes among the ranks with the same local index (one rail each), ring
 * all-gather inside each node. Closed form with one bandwidth:
 * 2 (ppn-1)(alpha + B/(ppn bw)) + 2 (m-1)(alpha + B/(ppn m bw)), m nodes.
 */
#include "coll/sched.h"

/* One ring step inside every node, repeated ppn - 1 times: the intra
 * reduce-scatter and the intra all-gather move the same bytes. */
static int intra_ring(sched *s, const sched_params *p, int ppn) {
  if (sched_begin(s, ppn - 1)) return -1;
  for (int i = 0; i < p->n; i++) {
    int node = i / ppn, loc = i % ppn;
    if (sched_add(s, i, node * ppn + (loc + 1) % ppn, p->bytes / ppn)) return -1;
  }
  return 0;
}

static int build(sched *s, const sched_params *p) {
  int ppn = p->ppn > 0 ? p->ppn : p->n, m = p->n / ppn;
  if (ppn > 1 && intra_ring(s, p, ppn)) return -1; /* intra reduce-scatter */
  if (m > 1) { /* inter all-reduce per rail */
    if (sched_begin(s, 2 * (m - 1))) return -1;
    for (int i = 0; i < p->n; i++) {
      int node = i / ppn, loc = i % ppn;
      if (sched_add(s, i, ((node + 1) % m) * ppn + loc, p->bytes / ppn / m)) return -1;
    }
  }
  if (ppn > 1 && intra_ring(s, p, ppn)) return -1; /* intra all-gather */
  return 0;
}

static double closed(const sched_params *p) {
  int ppn = p->ppn > 0 ? p->ppn : p->n, m = p->n / ppn;
  return 2.0 * (ppn - 1) * (p->alpha + p->bytes / ppn / p->bw) +
         2.0 * (m - 1) * (p->alpha + p->bytes / ppn / m / p->bw);
}

const coll_alg coll_alg_allreduce_hier = {"hier", COLL_ALL_REDUCE, build, closed, 0, 0};
