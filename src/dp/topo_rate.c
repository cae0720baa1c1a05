/*
 * topo_rate.c -- a scheme's exchange on a named topology (cluster.topology:
 * a generator of src/net/topo_gen.c or a JSON file), by the flow engine;
 * see dp.h (dp_topo_rate).
 *
 * The exchange of one step becomes a schedule of point-to-point
 * transfers between the GPUs of the topology (rank i on its i-th GPU):
 *   all-reduce schemes    NCCL's ring (the hierarchical scheme: `hier`)
 *                         over every rank;
 *   parameter servers     a star: every rank sends its 1/k share to each
 *                         of the k shards, held by the first GPU of
 *                         servers 0..k-1 (the PS host's stand-in);
 *   neighbour averaging   every rank sends its model to each neighbour of
 *                         the graph (dp.graph), or, for the dynamic
 *                         exponential-2 graph, to rank + 2^k, the mean
 *                         over k;
 * and the flow engine (max-min sharing of every link on the routes) gives
 * its time. The rate (seconds per byte) then costs each message; latency
 * and host copies stay the fabric's.
 */
#include <math.h>
#include <stdio.h>

#include "coll/sched.h"
#include "dp/dp.h"
#include "engine/netcost.h"
#include "net/flow.h"
#include "net/route.h"

/* Transfers of one all-reduce (ring or hier) of `bytes` over n ranks. */
static int tr_allreduce(sched *s, int n, int ppn, double bytes, const char *algo) {
  const coll_alg *a = coll_alg_find(COLL_ALL_REDUCE, algo);
  sched_params p = {.n = n, .ppn = ppn, .chunks = 1, .bytes = bytes};
  return a ? a->build(s, &p) : -1;
}

static int tr_star(sched *s, int n, int gpn, int shards, double bytes) {
  if (sched_begin(s, 1)) return -1;
  for (int i = 0; i < n; i++)
    for (int k = 0; k < shards; k++) {
      int ps = (k * gpn) % n;
      if (ps != i && sched_add(s, i, ps, bytes / shards)) return -1;
    }
  return 0;
}

static int tr_graph(sched *s, const dp_graph *g, double bytes) {
  if (sched_begin(s, 1)) return -1;
  for (int i = 0; i < g->n; i++)
    for (int j = 0; j < g->n; j++)
      if (j != i && g->w[(size_t)j * g->n + i] != 0 && sched_add(s, i, j, bytes)) return -1;
  return 0;
}

/* One flow-engine run of s; SC_OK with *t seconds, or an error. */
static int tr_run(const topo *t, route_table *rt, const sched *s, double *sec, sc_error *err) {
  flow_stats st;
  int rc = flow_run(t, rt, s, t->gpus, &st, err);
  if (rc == SC_OK) *sec = st.time;
  return rc;
}

/* The exchange of `bytes` per worker under scheme sc; *sec its time. */
static int tr_exchange(const topo *t, route_table *rt, const dp_ctx *c, double bytes, double *sec,
                       sc_error *err) {
  const dp_fabric *f = c->f;
  sched s;
  sched_init(&s);
  int rc = SC_OK, built = 0;
  *sec = 0;
  switch (dp_scheme_family(c->scheme)) {
  case DP_FAM_ALLREDUCE:
    built = tr_allreduce(&s, f->gpus, f->gpn, bytes,
                         c->scheme == DP_ALLREDUCE_HIER && f->gpn > 1 ? "hier" : "ring");
    break;
  case DP_FAM_PS: {
    int k = c->spec->ps_count > 0 ? c->spec->ps_count : f->nodes;
    built = tr_star(&s, f->gpus, f->gpn, k < f->gpus ? k : f->gpus, bytes);
    break;
  }
  case DP_FAM_GOSSIP:
    if (c->scheme == DP_NEIGHBOR_EXP2) {
      double sum = 0;
      int steps = 0;
      for (int d = 1; d < f->gpus && rc == SC_OK; d *= 2, steps++) {
        sched_clear(&s);
        if (sched_begin(&s, 1)) return sched_free(&s), sc_error_set(err, SC_ENOMEM, "out of memory");
        for (int i = 0; i < f->gpus && !built; i++) built = sched_add(&s, i, (i + d) % f->gpus, bytes);
        double one = 0;
        if (!built) rc = tr_run(t, rt, &s, &one, err);
        sum += one;
      }
      sched_free(&s);
      if (built) return sc_error_set(err, SC_ENOMEM, "out of memory building an exchange");
      *sec = steps ? sum / steps : 0;
      return rc;
    }
    if (c->scheme == DP_GOSSIP_GRAPH && c->spec->graph[0]) {
      dp_graph g;
      if ((rc = dp_graph_parse(c->spec->graph, f->gpus, &g, err))) return sched_free(&s), rc;
      built = tr_graph(&s, &g, bytes);
      dp_graph_free(&g);
      break;
    }
    sched_free(&s);
    return SC_OK; /* pair averaging, hierarchical: the fabric's closed form */
  case DP_FAM_NONE: sched_free(&s); return SC_OK;
  }
  if (built) rc = sc_error_set(err, SC_ENOMEM, "out of memory building an exchange");
  else rc = tr_run(t, rt, &s, sec, err);
  sched_free(&s);
  return rc;
}

int dp_topo_rate(const dp_ctx *c, double *rate, sc_error *err) {
  *rate = 0;
  const char *spec = c->s->cluster.topology;
  if (c->f->gpus < 2) return SC_OK;
  /* the cluster's topology with its cable what-ifs, as every engine reads it */
  topo *t = NULL;
  int rc = ncost_topology(&c->s->cluster, &t, err);
  if (rc || !t) return rc;
  if (t->n_gpus < c->f->gpus) {
    rc = sc_error_set(err, SC_EINPUT, "cluster.topology: %s has %d GPUs, the job %d", spec,
                      t->n_gpus, c->f->gpus);
    topo_free(t);
    return rc;
  }
  route_table *rt = route_new(t, (route_policy)t->routing);
  if (!rt) rc = sc_error_set(err, SC_ENOMEM, "out of memory for the routes of %s", spec);
  double bytes = c->m->grad_bytes > 0 ? c->m->grad_bytes : 1e6, sec = 0;
  if (rc == SC_OK) rc = tr_exchange(t, rt, c, bytes, &sec, err);
  if (rc == SC_OK && sec > 0) *rate = sec / bytes;
  route_free(rt);
  topo_free(t);
  return rc;
}
