/*
 * gossip.c -- decentralized schemes and their graphs; see dp.h.
 *
 *   pair_averaging_async   KungFu's AD-PSGD (PairAveragingOptimizer,
 *                          kungfu/.../optimizers/async_sgd.py): every step a
 *                          worker pulls one random peer's whole model (one
 *                          fused buffer) from the peer's host store and
 *                          averages; no barrier
 *   neighbor_allreduce_exp2  BlueFog's dynamic one-peer exponential-2 graph
 *                          (GetDynamicOnePeerSendRecvRanks over
 *                          ExponentialTwoGraph, bluefog/common/
 *                          topology_util.py): at step t every rank sends its
 *                          model to rank + 2^(t mod log2 n) and receives one
 *   hierarchical_neighbor_allreduce  all-reduce inside each server, then
 *                          each server exchanges with one peer server of a
 *                          dynamic exponential-2 graph over servers
 *   neighbor_allreduce_graph  a static graph (dp.graph, graph.c): each
 *                          rank receives every in-neighbour's model each step
 *
 * An exchange of `bytes` of model costs the slowest of: a server's NIC
 * (what its GPUs send to and receive from other servers), a GPU's link
 * inside the server. Models move per layer as the backward pass (ATC:
 * after the update of that layer) produces them, overlapped like
 * gradients.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "dp/dp.h"

/* ---------------------------------------------------------- exchange */

typedef struct go_ctx {
  const dp_ctx *c;
  double nic_share;    /* busiest server: model copies it sends per byte */
  double gpu_share;    /* busiest GPU: copies over its own link per byte */
  int local_ar;        /* 1 = all-reduce inside the server first */
  double scale;        /* model bytes per gradient byte */
  coll_group local;
} go_ctx;

/* Copies per byte that cross servers (worst server) and a GPU's link
 * (worst GPU) when rank i sends to every j with w[j][i] != 0. */
static void go_loads(const dp_graph *g, int gpn, double *nic, double *gpu) {
  int n = g->n, nodes = n / gpn;
  *nic = *gpu = 0;
  for (int s = 0; s < nodes; s++) {
    double out = 0;
    for (int i = s * gpn; i < (s + 1) * gpn; i++) {
      double mine = 0;
      for (int j = 0; j < n; j++)
        if (j != i && g->w[(size_t)j * n + i] != 0) {
          if (j / gpn != s) out += 1;
          mine += 1;
        }
      if (mine > *gpu) *gpu = mine;
    }
    if (out > *nic) *nic = out;
  }
}

static double go_msg(const void *ctx, double bytes, int tensors) {
  (void)tensors;
  const go_ctx *g = ctx;
  const dp_fabric *f = g->c->f;
  bytes *= g->scale;
  double t = f->intra_lat + g->gpu_share * bytes / f->intra_bw;
  if (g->nic_share > 0) t = fmax(t, dp_net_time(f, g->nic_share * bytes, (int)g->nic_share));
  if (f->topo_rate > 0 && !g->local_ar) t = f->net_lat + bytes * f->topo_rate;
  if (g->local_ar) t += coll_nccl_time(COLL_ALL_REDUCE, bytes, &g->local).time;
  return t;
}

/* Mean loads of the one-peer dynamic exponential-2 schedule over n
 * ranks in servers of gpn: at step k rank i sends to i + 2^k. */
static void go_exp2_dynamic(int n, int gpn, double *nic, double *gpu) {
  int steps = 0;
  double sn = 0;
  for (int d = 1; d < n; d *= 2, steps++) {
    double worst = 0;
    for (int s = 0; s < n / gpn; s++) {
      double out = 0;
      for (int i = s * gpn; i < (s + 1) * gpn; i++) out += ((i + d) % n) / gpn != s;
      if (out > worst) worst = out;
    }
    sn += worst;
  }
  *nic = steps ? sn / steps : 0;
  *gpu = n > 1 ? 1 : 0;
}

static int go_setup(const dp_ctx *c, go_ctx *g, sc_error *err) {
  const dp_fabric *f = c->f;
  *g = (go_ctx){.c = c};
  switch (c->scheme) {
  case DP_NEIGHBOR_EXP2: go_exp2_dynamic(f->gpus, f->gpn, &g->nic_share, &g->gpu_share); break;
  case DP_HIER_NEIGHBOR: {
    double nic, gpu;
    go_exp2_dynamic(f->nodes, 1, &nic, &gpu);
    /* the server's GPUs split the model across its NIC */
    g->nic_share = nic;
    g->gpu_share = 0;
    g->local_ar = f->gpn > 1;
    dp_fabric_group(f, f->gpn, f->gpn, &g->local);
    break;
  }
  case DP_GOSSIP_GRAPH: {
    if (!c->spec->graph[0])
      return sc_error_set(err, SC_EINPUT,
                          "dp.graph: neighbor_allreduce_graph needs a graph (a name, an edge "
                          "list or a mixing matrix)");
    dp_graph gr;
    int rc = dp_graph_parse(c->spec->graph, f->gpus, &gr, err);
    if (rc) return rc;
    go_loads(&gr, f->gpn, &g->nic_share, &g->gpu_share);
    dp_graph_free(&gr);
    break;
  }
  default: break;
  }
  return SC_OK;
}

/* KungFu pair averaging (PairAveragingOptimizer.apply_gradients,
 * kungfu/tensorflow/optimizers/async_sgd.py): the request of one random
 * peer's model (from another server with probability (n-gpn)/(n-1))
 * depends on no gradient, and the save of the model to the host store
 * (fuse, a copy to the host) depends on nothing but the variables: the
 * step's group only waits for both, so TensorFlow runs them beside the
 * forward and backward passes, the fetch bringing its model to the GPU
 * while the save takes the other one off it (the two directions of the
 * host link). A worker waits for what the longer of the two leaves past
 * its compute. The busiest NIC serves the requests of every remote
 * worker that picked one of its gpn workers, shared with whatever other
 * requests are in progress (dp_async_step). */
static void go_pair(const dp_ctx *c, dp_cost *out) {
  const dp_fabric *f = c->f;
  double P = c->m->param_bytes;
  int n = f->gpus;
  double remote = n > 1 ? (double)(n - f->gpn) / (n - 1) : 0;
  double fetch_remote = f->nodes > 1 ? dp_net_time(f, P, 1) : 0;
  double fetch_local = f->host_lat + P / f->loop_bw;
  double fetch = remote * fetch_remote + (1 - remote) * fetch_local +
                 dp_host_time(f, P, f->host_share);
  double save = dp_host_time(f, P, f->host_share);
  double hidden = c->m->fwd_s * c->m->micro_steps + c->m->bwd_s;
  double own = fmax(0, fmax(fetch, save) - hidden);
  /* requests served per server per round of every worker stepping once */
  double served = f->nodes > 1 ? (n - f->gpn) * (double)f->gpn / (n - 1) : 0;
  double nic = served * P / f->net_bw;
  out->comm_s = fetch + save;
  /* the busiest NIC serves every worker's requests: 1/n of its round per
   * worker's step, shared with the requests of the others in progress
   * (async.c) */
  double demand = nic / n, q;
  out->step_s = dp_async_step(n, c->compute_s + own, &demand, &q, 1);
  out->exposed_s = out->step_s - c->compute_s;
  out->messages = 1;
  snprintf(out->how, sizeof out->how, "one random peer's model per step, %.0f%% across servers",
           100 * remote);
}

int dp_gossip_cost(const dp_ctx *c, dp_cost *out, sc_error *err) {
  if (c->scheme == DP_PAIR_AVERAGING_ASYNC) {
    go_pair(c, out);
    return SC_OK;
  }
  if (c->scheme == DP_HIER_NEIGHBOR && c->f->nodes < 2)
    return sc_error_set(err, SC_EINPUT,
                        "dp.scheme: hierarchical_neighbor_allreduce needs at least two servers");
  go_ctx g;
  int rc = go_setup(c, &g, err);
  if (rc) return rc;
  /* the model moves, not the gradient: messages are the gradient
   * buckets' layers, each carrying those layers' weights */
  g.scale = c->m->grad_bytes > 0 ? c->m->param_bytes / c->m->grad_bytes : 1;
  dp_fusion fu;
  dp_fusion_for(c->spec, c->scheme, c->f->gpus, dp_grad_elem(c->m), &fu);
  dp_overlap o = {.rec = c->rec};
  /* BlueFog's NCCL path takes SMs and HBM like NCCL's all-reduce; over sockets
   * the host moves the models */
  double share = 0;
  if (!c->f->tcp) {
    coll_group all;
    dp_fabric_group(c->f, c->f->gpus, c->f->gpn, &all);
    share = dp_gpu_share(c, &all, c->m->param_bytes);
  }
  dp_overlap_run(c->m, &fu, go_msg, &g, 1, share, &o);
  out->comm_s = o.comm_s;
  out->exposed_s = o.exposed_s;
  out->messages = o.messages;
  out->step_s = c->compute_s + out->exposed_s;
  snprintf(out->how, sizeof out->how, "neighbour averaging, %.2f model copies per server NIC",
           g.nic_share);
  return SC_OK;
}
