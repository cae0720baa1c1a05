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
 *   neighbor_allreduce_graph  a static graph (dp.graph): each rank
 *                          receives every in-neighbour's model each step
 *
 * An exchange of `bytes` of model costs the slowest of: a server's NIC
 * (what its GPUs send to and receive from other servers), a GPU's link
 * inside the server. Models move per layer as the backward pass (ATC:
 * after the update of that layer) produces them, overlapped like
 * gradients.
 */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/file.h"
#include "core/mem.h"
#include "dp/dp.h"

/* ----------------------------------------------------------- graphs */

static int gr_alloc(int n, dp_graph *g, sc_error *err) {
  g->n = n;
  g->w = mem_calloc((size_t)n * (size_t)n, sizeof *g->w);
  if (!g->w) return sc_error_set(err, SC_ENOMEM, "dp.graph: out of memory");
  return SC_OK;
}

void dp_graph_free(dp_graph *g) {
  mem_free(g->w);
  g->w = NULL;
  g->n = 0;
}

/* Uniform weights over each row's neighbours and itself. */
static void gr_uniform(dp_graph *g) {
  int n = g->n;
  for (int i = 0; i < n; i++) {
    g->w[(size_t)i * n + i] = 1;
    int deg = 0;
    for (int j = 0; j < n; j++) deg += g->w[(size_t)i * n + j] != 0;
    for (int j = 0; j < n; j++)
      if (g->w[(size_t)i * n + j] != 0) g->w[(size_t)i * n + j] = 1.0 / deg;
  }
}

int dp_graph_exp2(int n, dp_graph *g, sc_error *err) {
  int rc = gr_alloc(n, g, err);
  if (rc) return rc;
  for (int i = 0; i < n; i++)
    for (int d = 1; d < n; d *= 2) g->w[(size_t)((i + d) % n) * n + i] = 1;
  gr_uniform(g);
  return SC_OK;
}

static int gr_named(const char *s, int n, dp_graph *g, sc_error *err) {
  if (!strcmp(s, "exp2")) return dp_graph_exp2(n, g, err);
  int rc = gr_alloc(n, g, err);
  if (rc) return rc;
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) {
      int ring = j == (i + 1) % n || i == (j + 1) % n;
      int on = !strcmp(s, "ring") ? ring : !strcmp(s, "full") ? 1 : !strcmp(s, "star") ? (i == 0 || j == 0) : -1;
      if (on < 0) {
        dp_graph_free(g);
        return sc_error_set(err, SC_EINPUT,
                            "dp.graph: unknown graph '%s'; valid: exp2, ring, star, full, an "
                            "edge list \"0-1,1-2\" or a mixing matrix \"0.5,0.5;0.5,0.5\"", s);
      }
      if (on && i != j) g->w[(size_t)i * n + j] = 1;
    }
  gr_uniform(g);
  return SC_OK;
}

/* "a-b,c-d": undirected edges between ranks. */
static int gr_edges(const char *s, int n, dp_graph *g, sc_error *err) {
  int rc = gr_alloc(n, g, err);
  if (rc) return rc;
  const char *p = s;
  while (*p) {
    char *end;
    long a = strtol(p, &end, 10);
    if (end == p || *end != '-') goto bad;
    p = end + 1;
    long b = strtol(p, &end, 10);
    if (end == p || a < 0 || b < 0 || a >= n || b >= n) goto bad;
    g->w[(size_t)a * n + b] = g->w[(size_t)b * n + a] = 1;
    p = end;
    while (*p == ',' || isspace((unsigned char)*p)) p++;
  }
  gr_uniform(g);
  return SC_OK;
bad:
  dp_graph_free(g);
  return sc_error_set(err, SC_EINPUT,
                      "dp.graph: bad edge at '%.20s' (edges are 'a-b' with ranks 0..%d, "
                      "separated by commas)", p, n - 1);
}

/* "w00,w01;w10,w11": a row-stochastic mixing matrix, row i = rank i. */
static int gr_matrix(const char *s, int n, dp_graph *g, sc_error *err) {
  int rc = gr_alloc(n, g, err);
  if (rc) return rc;
  const char *p = s;
  for (int i = 0; i < n; i++) {
    double sum = 0;
    for (int j = 0; j < n; j++) {
      char *end;
      double v = strtod(p, &end);
      if (end == p || v < 0 || !isfinite(v)) goto bad;
      g->w[(size_t)i * n + j] = v;
      sum += v;
      p = end;
      while (isspace((unsigned char)*p)) p++;
      if (j < n - 1 && *p++ != ',') goto bad;
    }
    while (isspace((unsigned char)*p)) p++;
    if (i < n - 1 && *p++ != ';') goto bad;
    if (fabs(sum - 1) > 1e-6) {
      dp_graph_free(g);
      return sc_error_set(err, SC_EINPUT, "dp.graph: row %d of the mixing matrix sums to %g, not 1",
                          i, sum);
    }
  }
  while (isspace((unsigned char)*p)) p++;
  if (*p) goto bad;
  return SC_OK;
bad:
  dp_graph_free(g);
  return sc_error_set(err, SC_EINPUT,
                      "dp.graph: a mixing matrix needs %d rows of %d non-negative numbers "
                      "(',' between numbers, ';' between rows)", n, n);
}

int dp_graph_connected(const dp_graph *g) {
  int n = g->n;
  if (n <= 1) return 1;
  char *seen = mem_calloc((size_t)n, 1);
  int *stack = mem_alloc(sizeof *stack * (size_t)n);
  if (!seen || !stack) {
    mem_free(seen), mem_free(stack);
    return -1;
  }
  int top = 0, count = 1;
  stack[top++] = 0, seen[0] = 1;
  while (top) {
    int i = stack[--top];
    for (int j = 0; j < n; j++)
      if (!seen[j] && (g->w[(size_t)i * n + j] != 0 || g->w[(size_t)j * n + i] != 0))
        seen[j] = 1, count++, stack[top++] = j;
  }
  mem_free(seen), mem_free(stack);
  return count == n;
}

/* "@PATH": the graph text is the file's: one edge ("a-b") or one row of
 * the mixing matrix per line, '#' starts a comment, blank lines skipped. */
static int gr_file(const char *path, int n, dp_graph *g, sc_error *err) {
  char *buf;
  size_t len;
  int rc = file_read_all(path, &buf, &len);
  if (rc == SC_EIO) return sc_error_set(err, SC_EIO, "dp.graph: cannot read %s", path);
  if (rc) return sc_error_set(err, SC_ENOMEM, "dp.graph: out of memory reading %s", path);
  char *text = mem_alloc(len + 2);
  if (!text) {
    mem_free(buf);
    return sc_error_set(err, SC_ENOMEM, "dp.graph: out of memory reading %s", path);
  }
  int matrix = strchr(buf, '.') != NULL;
  size_t k = 0;
  char *save = NULL;
  for (char *line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
    char *hash = strchr(line, '#');
    if (hash) *hash = '\0';
    while (isspace((unsigned char)*line)) line++;
    if (!*line) continue;
    if (k) text[k++] = matrix ? ';' : ',';
    size_t l = strlen(line);
    memcpy(text + k, line, l);
    k += l;
  }
  text[k] = '\0';
  mem_free(buf);
  rc = k ? dp_graph_parse(text, n, g, err)
         : sc_error_set(err, SC_EINPUT, "dp.graph: %s holds no edge and no matrix row", path);
  mem_free(text);
  return rc;
}

int dp_graph_parse(const char *spec, int n, dp_graph *g, sc_error *err) {
  g->n = 0, g->w = NULL;
  if (spec[0] == '@') return gr_file(spec + 1, n, g, err);
  int rc = strchr(spec, ';') || (n == 1 && strchr(spec, '.')) ? gr_matrix(spec, n, g, err)
           : strchr(spec, '-')                               ? gr_edges(spec, n, g, err)
                                                              : gr_named(spec, n, g, err);
  if (rc) return rc;
  int conn = dp_graph_connected(g);
  if (conn < 0) {
    dp_graph_free(g);
    return sc_error_set(err, SC_ENOMEM, "dp.graph: out of memory");
  }
  if (!conn) {
    dp_graph_free(g);
    return sc_error_set(err, SC_EINPUT,
                        "dp.graph: the gossip graph '%.60s' is not connected over %d workers: "
                        "models would never mix between its parts", spec, n);
  }
  return SC_OK;
}

/* ---------------------------------------------------------- exchange */

typedef struct go_ctx {
  const dp_ctx *c;
  double nic_share;    /* busiest server: model copies it sends per byte */
  double gpu_share;    /* busiest GPU: copies over its own link per byte */
  double local_ar;     /* 1 = all-reduce inside the server first */
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

/* KungFu pair averaging (PairAveragingOptimizer.apply_gradients): the
 * request of one random peer's model (from another server with
 * probability (n-gpn)/(n-1)) depends on no gradient, so TensorFlow runs
 * it beside the forward and backward passes; the average, the update and
 * the save of the new model to the host store (a copy to the host) follow
 * them. The busiest NIC serves the requests of every remote worker that
 * picked one of its gpn workers. */
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
  double own = save + fmax(0, fetch - hidden);
  /* requests served per server per round of every worker stepping once */
  double served = f->nodes > 1 ? (n - f->gpn) * (double)f->gpn / (n - 1) : 0;
  double nic = served * P / f->net_bw;
  out->comm_s = fetch + save;
  out->step_s = fmax(c->compute_s + own, nic);
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
  dp_overlap o;
  /* BlueFog's NCCL path takes SMs like NCCL's all-reduce; over sockets
   * the host moves the models */
  double share = 0;
  if (!c->f->tcp) {
    coll_group all;
    dp_fabric_group(c->f, c->f->gpus, c->f->gpn, &all);
    share = dp_sm_share(c, &all, c->m->param_bytes);
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
