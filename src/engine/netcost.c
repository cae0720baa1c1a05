/*
 * netcost.c -- collectives of the step model on a topology; see netcost.h.
 */
#include <stdio.h>
#include <stdlib.h>

#include "core/mem.h"
#include <string.h>

#include "coll/sched.h"
#include "engine/netcost.h"
#include "net/flow.h"
#include "net/linkwhatif.h"
#include "net/route.h"
#include "load/topo_json.h"

/* One simulated collective. */
typedef struct memo {
  coll_op op;
  double bytes;
  int ranks, stride;
  double flow;        /* flow-engine seconds, < 0 when it could not run */
  int used;
} memo;

/* The memo is an open-addressing hash table of `cap` slots (a power of
 * two), at most half full: a search simulates each distinct collective
 * once for all the plans it evaluates. */
struct ncost {
  topo *t;            /* owned */
  route_table *rt;    /* owned */
  memo *m;            /* owned, cap slots */
  int n_memo, cap;
  sc_error err;       /* the first failure since ncost_error, code SC_OK if none */
};

int ncost_open(const sc_cluster *c, ncost **out, sc_error *err) {
  *out = NULL;
  if (!c->topology[0] && (c->link_fail[0] || c->link_degrade[0]))
    return sc_error_set(err, SC_EINPUT, "cluster.%s names cables but cluster.topology is "
                        "empty", c->link_fail[0] ? "link_fail" : "link_degrade");
  if (!c->topology[0]) return SC_OK;
  topo *t = NULL;
  int rc = topo_load_spec(c->topology, &t, err);
  if (rc == SC_OK) /* the what-ifs on its cables (net/linkwhatif.h) */
    rc = lwi_apply(&t, c->link_fail, c->link_degrade, "cluster.link_fail",
                   "cluster.link_degrade", err);
  if (rc != SC_OK) {
    topo_free(t);
    return rc;
  }
  if (t->n_gpus < c->gpus) {
    sc_error_set(err, SC_EINPUT,
                 "cluster.topology: '%s' has %d GPUs but cluster.gpus is %d; "
                 "a topology needs at least as many GPUs as the cluster",
                 c->topology, t->n_gpus, c->gpus);
    topo_free(t);
    return SC_EINPUT;
  }
  ncost *n = mem_calloc(1, sizeof *n);
  route_table *rt = route_new(t, ROUTE_ECMP);
  if (!n || !rt) {
    mem_free(n);
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
  mem_free(n->m);
  mem_free(n);
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

/* Remember the first failure for ncost_error. */
static void fail(ncost *n, const sc_error *e) {
  if (n->err.code == SC_OK) n->err = *e;
}

/* Flow-engine seconds of op on the group, or -1 when it cannot run (the
 * reason is kept for ncost_error). */
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
  int *node = mem_alloc(sizeof(int) * (size_t)ranks);
  double t = -1;
  sc_error err = {0};
  if (node && built == 0) {
    for (int i = 0; i < ranks; i++) node[i] = n->t->gpus[i * stride];
    flow_stats st;
    if (flow_run(n->t, n->rt, &s, node, &st, &err) == SC_OK) t = st.time;
    else fail(n, &err);
  } else {
    sc_error_set(&err, SC_ENOMEM, "out of memory simulating a %s on the topology",
                 coll_op_name(op));
    fail(n, &err);
  }
  mem_free(node);
  sched_free(&s);
  return t;
}

static unsigned long memo_hash(coll_op op, double bytes, int ranks, int stride) {
  unsigned long long b;
  memcpy(&b, &bytes, sizeof b);
  unsigned long long h = b * 0x9E3779B97F4A7C15ull;
  h ^= (unsigned long long)op * 0xC2B2AE3D27D4EB4Full + (unsigned long long)ranks * 0x165667B19E3779F9ull +
       (unsigned long long)stride;
  return (unsigned long)(h ^ (h >> 29));
}

/* The slot of (op, bytes, ranks, stride): its entry, or the free slot
 * where it goes. */
static memo *memo_slot(ncost *n, coll_op op, double bytes, int ranks, int stride) {
  unsigned long i = memo_hash(op, bytes, ranks, stride) & (unsigned long)(n->cap - 1);
  for (;; i = (i + 1) & (unsigned long)(n->cap - 1)) {
    memo *m = &n->m[i];
    if (!m->used || (m->op == op && m->bytes == bytes && m->ranks == ranks && m->stride == stride))
      return m;
  }
}

/* Double the table (or create it); 0, or -1 when out of memory. */
static int memo_grow(ncost *n) {
  int cap = n->cap ? 2 * n->cap : 64;
  memo *old = n->m;
  int old_cap = n->cap;
  n->m = mem_calloc((size_t)cap, sizeof *n->m);
  if (!n->m) {
    n->m = old;
    return -1;
  }
  n->cap = cap;
  for (int i = 0; i < old_cap; i++)
    if (old[i].used) *memo_slot(n, old[i].op, old[i].bytes, old[i].ranks, old[i].stride) = old[i];
  mem_free(old);
  return 0;
}

static double time_of(ncost *n, coll_op op, double bytes, int ranks, int stride, int per,
                      double nccl) {
  if (!n || ranks <= 1 || bytes <= 0) return nccl;
  if ((long)(ranks - 1) * stride >= n->t->n_gpus) return nccl;
  if (2 * (n->n_memo + 1) > n->cap && memo_grow(n)) {
    sc_error e;
    sc_error_set(&e, SC_ENOMEM, "out of memory remembering collective times");
    fail(n, &e);
    return nccl;
  }
  /* a reduce-scatter and an all-gather of the same size on the same group
   * run the same ring schedule (build_rings): one simulation serves both */
  coll_op key = op == COLL_REDUCE_SCATTER ? COLL_ALL_GATHER : op;
  memo *m = memo_slot(n, key, bytes, ranks, stride);
  if (!m->used) {
    double flow = simulate(n, key, bytes, ranks, stride, per);
    if (flow < 0) return nccl; /* a failure: reported by ncost_error, not remembered */
    *m = (memo){key, bytes, ranks, stride, flow, 1};
    n->n_memo++;
  }
  return m->flow > nccl ? m->flow : nccl;
}

/* One thread at a time in the memo, the route table and the flow engine:
 * the jobs of a search's threads share one ncost (job_open_sharing). */
double ncost_time(ncost *n, coll_op op, double bytes, int ranks, int stride,
                  int per, double nccl) {
  double t;
#pragma omp critical(sc_ncost)
  t = time_of(n, op, bytes, ranks, stride, per, nccl);
  return t;
}

int ncost_failed(const ncost *n) {
  int failed;
#pragma omp critical(sc_ncost)
  failed = n && n->err.code != SC_OK;
  return failed;
}

int ncost_error(ncost *n, sc_error *err) {
  int rc = SC_OK;
#pragma omp critical(sc_ncost)
  if (n && n->err.code != SC_OK) {
    rc = sc_error_set(err, n->err.code, "%s", n->err.msg);
    n->err = (sc_error){0};
  }
  return rc;
}
