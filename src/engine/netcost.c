/*
 * netcost.c -- collectives of the step model on a topology; see netcost.h.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coll/sched.h"
#include "engine/netcost.h"
#include "net/flow.h"
#include "net/route.h"
#include "load/topo_json.h"

#define NCOST_MEMO 32

typedef struct memo {
  coll_op op;
  double bytes;
  int ranks, stride;
  double flow;        /* flow-engine seconds */
} memo;

struct ncost {
  topo *t;            /* owned */
  route_table *rt;    /* owned */
  memo m[NCOST_MEMO];
  int n_memo;
};

int ncost_open(const sc_cluster *c, ncost **out, sc_error *err) {
  *out = NULL;
  if (!c->topology[0]) return SC_OK;
  topo *t = NULL;
  int rc = topo_load_spec(c->topology, &t, err);
  if (rc != SC_OK) return rc;
  if (t->n_gpus < c->gpus) {
    sc_error_set(err, SC_EINPUT,
                 "cluster.topology: '%s' has %d GPUs but cluster.gpus is %d; "
                 "a topology needs at least as many GPUs as the cluster",
                 c->topology, t->n_gpus, c->gpus);
    topo_free(t);
    return SC_EINPUT;
  }
  ncost *n = calloc(1, sizeof *n);
  route_table *rt = route_new(t, ROUTE_ECMP);
  if (!n || !rt) {
    free(n);
    route_free(rt);
    topo_free(t);
    return sc_error_set(err, SC_ENOMEM, "out of memory loading the topology");
  }
  n->t = t;
  n->rt = rt;
  *out = n;
  return SC_OK;
}

void ncost_close(ncost *n) {
  if (!n) return;
  route_free(n->rt);
  topo_free(n->t);
  free(n);
}

/* Local index of the member at position i of ring c inside domain k:
 * even domains are walked c, c+1, ..., c-1 and odd ones backwards from
 * c-1, so that a ring leaves one domain and enters the next through the
 * same local GPU -- the same rail of a rail-optimized network, as NCCL's
 * ring search arranges. */
static int ring_local(int c, int i, int k, int per) {
  return k % 2 == 0 ? (c + i) % per : ((c - 1 - i) % per + 2 * per) % per;
}

/* NCCL's rings with one channel per NIC: with `per` members in each
 * NVLink domain, ring c crosses between domains on its own pair of rails,
 * so every NIC carries one ring; the data is split evenly over the rings.
 * One step repeats for the whole collective: 2(n-1) for all-reduce, n-1
 * for reduce-scatter and all-gather, each moving bytes/n per rank in
 * total. Returns 0 or -1. */
static int build_rings(sched *s, coll_op op, double bytes, int n, int per) {
  int nodes = n / per;
  int nch = nodes > 1 ? per : 1;
  int steps = op == COLL_ALL_REDUCE ? 2 * (n - 1) : n - 1;
  double chunk = bytes / n / nch;
  if (sched_begin(s, steps) != 0) return -1;
  for (int c = 0; c < nch; c++)
    for (int pos = 0; pos < n; pos++) {
      /* member at ring position pos, and the one after it */
      int next = (pos + 1) % n;
      int from = pos / per * per + ring_local(c, pos % per, pos / per, per);
      int to = next / per * per + ring_local(c, next % per, next / per, per);
      if (sched_add(s, from, to, chunk) != 0) return -1;
    }
  return 0;
}

/* Flow-engine seconds of op on the group, or -1 when it cannot run. */
static double simulate(ncost *n, coll_op op, double bytes, int ranks, int stride,
                       int per) {
  sched s;
  sched_init(&s);
  int built = -1;
  if (op == COLL_ALL_REDUCE || op == COLL_REDUCE_SCATTER || op == COLL_ALL_GATHER) {
    built = build_rings(&s, op, bytes, ranks, per > 0 && ranks % per == 0 ? per : 1);
  } else {
    const coll_alg *a = coll_alg_find(op, op == COLL_ALL_TO_ALL ? "pairwise" : "ring");
    sched_params p = {0};
    p.n = ranks;
    p.ppn = 1;
    p.chunks = 1;
    p.bytes = bytes;
    if (a) built = a->build(&s, &p);
  }
  int *node = malloc(sizeof(int) * (size_t)ranks);
  double t = -1;
  if (node && built == 0) {
    for (int i = 0; i < ranks; i++) node[i] = n->t->gpus[i * stride];
    flow_stats st;
    sc_error err = {0};
    if (flow_run(n->t, n->rt, &s, node, &st, &err) == SC_OK) t = st.time;
  }
  free(node);
  sched_free(&s);
  return t;
}

double ncost_time(ncost *n, coll_op op, double bytes, int ranks, int stride,
                  int per, double nccl) {
  if (!n || ranks <= 1 || bytes <= 0) return nccl;
  if ((long)(ranks - 1) * stride >= n->t->n_gpus) return nccl;
  double flow = -1;
  for (int i = 0; i < n->n_memo; i++) {
    const memo *m = &n->m[i];
    if (m->op == op && m->bytes == bytes && m->ranks == ranks && m->stride == stride) {
      flow = m->flow;
      break;
    }
  }
  if (flow < 0) {
    flow = simulate(n, op, bytes, ranks, stride, per);
    if (n->n_memo < NCOST_MEMO)
      n->m[n->n_memo++] = (memo){op, bytes, ranks, stride, flow};
  }
  if (flow < 0) return nccl;
  return flow > nccl ? flow : nccl;
}
