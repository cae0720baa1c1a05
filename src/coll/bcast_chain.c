/*
 * bcast_chain.c -- pipelined chain broadcast and reduce (NCCL's ring for
 * these ops): the buffer in `chunks` pieces flows along root, root+1, ...
 * (reduce: the reverse). Step t moves chunk t-k over hop k. Closed form:
 * (n-1 + chunks-1)(alpha + bytes/(chunks bw)).
 */
#include "coll/sched.h"

static int chain(sched *s, const sched_params *p, int reverse) {
  int c = p->chunks > 0 ? p->chunks : 1, hops = p->n - 1;
  for (int t = 0; t < hops + c - 1; t++) {
    if (sched_begin(s, 1)) return -1;
    for (int k = 0; k < hops; k++) {
      if (t - k < 0 || t - k >= c) continue;
      int a = (p->root + k) % p->n, b = (p->root + k + 1) % p->n;
      if (reverse) a = (p->root + p->n - k) % p->n, b = (p->root + p->n - k - 1) % p->n;
      if (sched_add(s, a, b, p->bytes / c)) return -1;
    }
  }
  return 0;
}
static int build_bcast(sched *s, const sched_params *p) { return chain(s, p, 0); }
static int build_reduce(sched *s, const sched_params *p) { return chain(s, p, 1); }

static double closed(const sched_params *p) {
  int c = p->chunks > 0 ? p->chunks : 1;
  return (p->n - 1 + c - 1) * (p->alpha + p->bytes / c / p->bw);
}

const coll_alg coll_alg_broadcast_chain = {"chain", COLL_BROADCAST, build_bcast, closed, 1, 0};
const coll_alg coll_alg_reduce_chain = {"chain", COLL_REDUCE, build_reduce, closed, 1, 0};
