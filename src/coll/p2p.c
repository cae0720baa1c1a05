/*
 * p2p.c -- send/recv and gossip neighbour exchange.
 *
 * send_recv (nccl-tests sendrecv): rank i sends bytes to i+1, all at once:
 * alpha + bytes/bw. Gossip (decentralized training over an exponential
 * graph): every rank sends its whole buffer to the peers 2^0, 2^1, ...
 * away at once, instead of an all-reduce; on one link per rank that is
 * alpha + ceil(log2 n) bytes/bw.
 */
#include "coll/sched.h"

static int build_sr(sched *s, const sched_params *p) {
  if (sched_begin(s, 1)) return -1;
  for (int i = 0; i < p->n; i++)
    if (sched_add(s, i, (i + 1) % p->n, p->bytes)) return -1;
  return 0;
}
static double closed_sr(const sched_params *p) { return p->alpha + p->bytes / p->bw; }

static int peers(int n) {
  int k = 0;
  for (int d = 1; d < n; d *= 2) k++;
  return k;
}

static int build_gossip(sched *s, const sched_params *p) {
  if (sched_begin(s, 1)) return -1;
  for (int i = 0; i < p->n; i++)
    for (int d = 1; d < p->n; d *= 2)
      if (sched_add(s, i, (i + d) % p->n, p->bytes)) return -1;
  return 0;
}
static double closed_gossip(const sched_params *p) {
  return p->alpha + peers(p->n) * p->bytes / p->bw;
}

const coll_alg coll_alg_send_recv = {"ring", COLL_SEND_RECV, build_sr, closed_sr, 1, 0};
const coll_alg coll_alg_gossip = {"gossip", COLL_ALL_REDUCE, build_gossip, closed_gossip, 0, 0};
