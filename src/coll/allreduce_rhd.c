/*
 * allreduce_rhd.c -- recursive halving-doubling all-reduce (Rabenseifner):
 * log2(n) reduce-scatter steps exchanging halves with the partner at
 * distance n/2, n/4, ..., then the same steps in reverse for the
 * all-gather. For n a power of two (sc_coll_simulate refuses other n;
 * the builder and closed form fall back to the ring).
 * Closed form: 2 log2(n) alpha + 2 (n-1)/n bytes/bw.
 */
#include "coll/sched.h"

static int is_pow2(int n) { return n > 0 && !(n & (n - 1)); }

extern const coll_alg coll_alg_allreduce_ring;

static int build(sched *s, const sched_params *p) {
  if (!is_pow2(p->n)) return coll_alg_allreduce_ring.build(s, p);
  double part = p->bytes;
  for (int d = p->n / 2; d >= 1; d /= 2) { /* halving */
    part /= 2;
    if (sched_begin(s, 1)) return -1;
    for (int i = 0; i < p->n; i++)
      if (sched_add(s, i, i ^ d, part)) return -1;
  }
  for (int d = 1; d < p->n; d *= 2) { /* doubling */
    if (sched_begin(s, 1)) return -1;
    for (int i = 0; i < p->n; i++)
      if (sched_add(s, i, i ^ d, part)) return -1;
    part *= 2;
  }
  return 0;
}

static double closed(const sched_params *p) {
  if (!is_pow2(p->n)) return coll_alg_allreduce_ring.closed(p);
  int lg = 0;
  while ((1 << lg) < p->n) lg++;
  return 2 * lg * p->alpha + 2.0 * (p->n - 1) / p->n * p->bytes / p->bw;
}

const coll_alg coll_alg_allreduce_rhd = {"rhd", COLL_ALL_REDUCE, build, closed, 0, 1};
