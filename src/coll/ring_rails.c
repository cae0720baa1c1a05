/*
 * ring_rails.c -- NCCL's rings on servers with one NIC per GPU: ring
 * all-reduce, reduce-scatter and all-gather with one ring (channel) per
 * GPU of a node, each crossing between nodes on its own rail.
 *
 * With `ppn` ranks per node and more than one node, ring c visits the
 * nodes in order and, inside node k, the local GPUs c, c+1, ... (even k)
 * or c-1, c-2, ... (odd k), so that it leaves one node and enters the
 * next through the same local GPU -- the same NIC rail, as NCCL's ring
 * search arranges on a rail-optimized fabric. Every NIC then carries one
 * ring and the data is split evenly over the rings. On one node it is a
 * single ring (the NVSwitch carries every ring alike). One step repeats
 * for the whole collective: 2(n-1) for all-reduce, n-1 for the others,
 * each moving bytes/n per rank in total.
 *
 * Closed form on uniform links (alpha, bw per rank and rail): steps *
 * (alpha + bytes / (n rings bw)); not exact (NVLink traffic ignored).
 */
#include "coll/sched.h"

/* Local index of the member at position i of ring c inside node k. */
static int ring_local(int c, int i, int k, int per) {
  return k % 2 == 0 ? (c + i) % per : ((c - 1 - i) % per + 2 * per) % per;
}

static int rings(const sched_params *p) {
  int per = p->ppn >= 1 && p->n % p->ppn == 0 ? p->ppn : 1;
  return p->n / per > 1 ? per : 1;
}

static int build(sched *s, const sched_params *p, int steps) {
  int n = p->n, per = p->ppn >= 1 && n % p->ppn == 0 ? p->ppn : 1;
  int nch = rings(p);
  double chunk = p->bytes / n / nch;
  if (sched_begin(s, steps)) return -1;
  for (int c = 0; c < nch; c++)
    for (int pos = 0; pos < n; pos++) {
      int next = (pos + 1) % n;
      int from = pos / per * per + ring_local(c, pos % per, pos / per, per);
      int to = next / per * per + ring_local(c, next % per, next / per, per);
      if (sched_add(s, from, to, chunk)) return -1;
    }
  return 0;
}

static int build_ar(sched *s, const sched_params *p) { return build(s, p, 2 * (p->n - 1)); }
static int build_half(sched *s, const sched_params *p) { return build(s, p, p->n - 1); }

static double closed_ar(const sched_params *p) {
  return 2.0 * (p->n - 1) * (p->alpha + p->bytes / p->n / rings(p) / p->bw);
}
static double closed_half(const sched_params *p) {
  return (p->n - 1) * (p->alpha + p->bytes / p->n / rings(p) / p->bw);
}

const coll_alg coll_alg_allreduce_rails = {"rails", COLL_ALL_REDUCE, build_ar, closed_ar, 0, 0};
const coll_alg coll_alg_reduce_scatter_rails = {"rails", COLL_REDUCE_SCATTER, build_half,
                                                closed_half, 0, 0};
const coll_alg coll_alg_all_gather_rails = {"rails", COLL_ALL_GATHER, build_half, closed_half, 0,
                                            0};
