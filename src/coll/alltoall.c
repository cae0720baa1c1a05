/*
 * alltoall.c -- all-to-all, direct and pairwise, and direct all-gather.
 *
 * Direct: every rank sends bytes/n to every other rank at once (one
 * step); on a non-blocking switch each rank's link carries (n-1) of them:
 * alpha + (n-1)/n bytes/bw. Pairwise: n-1 steps, in step k rank i sends
 * to i+k: (n-1)(alpha + bytes/(n bw)). Direct all-gather is the same
 * pattern with the gathered size: alpha + (n-1)/n bytes/bw.
 */
#include "coll/sched.h"

static int build_direct(sched *s, const sched_params *p) {
  if (sched_begin(s, 1)) return -1;
  for (int i = 0; i < p->n; i++)
    for (int k = 1; k < p->n; k++)
      if (sched_add(s, i, (i + k) % p->n, p->bytes / p->n)) return -1;
  return 0;
}

static int build_pairwise(sched *s, const sched_params *p) {
  for (int k = 1; k < p->n; k++) {
    if (sched_begin(s, 1)) return -1;
    for (int i = 0; i < p->n; i++)
      if (sched_add(s, i, (i + k) % p->n, p->bytes / p->n)) return -1;
  }
  return 0;
}

static double closed_direct(const sched_params *p) {
  return p->alpha + (p->n - 1.0) / p->n * p->bytes / p->bw;
}
static double closed_pairwise(const sched_params *p) {
  return (p->n - 1) * (p->alpha + p->bytes / p->n / p->bw);
}

const coll_alg coll_alg_alltoall_direct = {"direct", COLL_ALL_TO_ALL, build_direct,
                                           closed_direct, 1, 0};
const coll_alg coll_alg_alltoall_pairwise = {"pairwise", COLL_ALL_TO_ALL, build_pairwise,
                                             closed_pairwise, 1, 0};
const coll_alg coll_alg_all_gather_direct = {"direct", COLL_ALL_GATHER, build_direct,
                                             closed_direct, 1, 0};
