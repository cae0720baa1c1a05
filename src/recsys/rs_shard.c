/*
 * rs_shard.c -- iteration time and memory of a sharding of the tables.
 *
 * One synchronous iteration on the slowest GPU's path:
 *
 *   ids all-to-all
 *   + embedding forward (the GPU with the most lookup time)
 *   + max(pooled all-to-all + row-wise reduce-scatter, bottom MLP forward)
 *   + interaction and top MLP forward and backward (data parallel, local batch)
 *   + max(gradient all-to-all + all-gather, bottom MLP backward)
 *   + embedding backward and sparse optimizer update (slowest GPU)
 *   + the all-reduce of dense and replicated-table gradients not hidden by
 *     the embedding backward and what the gradient collectives leave of
 *     the bottom MLP backward (they share the links)
 *   + the dense optimizer, and the host's launches where they exceed the GPU.
 *
 * Shard geometry by kind (B global batch, n GPUs, b = B/n, L lookups, F
 * features, d width):
 *   data-parallel  every GPU: L/n lookups on a replica, b x F outputs; the
 *                  weight gradient (rows x d, fp32) is all-reduced
 *   table-wise     its GPU: L lookups, B x F outputs sent by all-to-all
 *   row-wise       every GPU: rows/n, L/n lookups, B x F partial sums,
 *                  reduce-scattered (backward: all-gathered)
 *   column-wise    p GPUs: d/p columns, L lookups each, all-to-all
 *   table-row-wise the GPUs of one node: rows/g, L/g lookups, partial sums
 *                  reduce-scattered in the node, then all-to-all
 */
#include <math.h>
#include <string.h>

#include "core/mem.h"
#include "cost/compute.h"
#include "recsys/rs_model.h"
#include "recsys/rs_shard.h"
#include "recsys/rs_tfsparse.h"

static double act_bytes(sc_dtype dt) { return dt == SC_FP16 || dt == SC_BF16 ? 2.0 : 4.0; }

/* Bytes per element of a replicated (data-parallel) table's weight
 * gradient: dense fp32, all-reduced with the dense gradients. */
#define RS_DP_GRAD_BYTES 4.0

/* 1 when the GPUs of a node talk over PCIe: the job says so (intra 3), or
 * leaves it to the GPU (intra 0) and the GPU is a PCIe board. */
static int pcie_node(const sc_rs_job *j) {
  return j->intra == 3 || (j->intra == 0 && j->gpu.link == SC_LINK_PCIE);
}

/* The GPUs' link inside a node, bytes/s per direction: the job's, else the
 * GPU's NVLink; on a PCIe node the job's PCIe rate, else the slot of a
 * PCIe board (its preset's nvlink_bw, e.g. Gen4 x16 31.5 GB/s), else 0:
 * NCCL's Gen3 x16 (coll_nccl_pci_bw). */
static double intra_bw_of(const sc_rs_job *j) {
  if (j->nvlink_bw > 0) return j->nvlink_bw;
  if (!pcie_node(j) || j->gpu.link == SC_LINK_PCIE) return j->gpu.nvlink_bw;
  return 0;
}

static void group_of(const sc_rs_job *j, int ranks, int per_node, coll_group *g) {
  sc_scenario def;
  sc_scenario_default(&def);
  g->ranks = ranks;
  g->ranks_per_node = per_node;
  g->arch = j->gpu.arch;
  g->intra_bw = intra_bw_of(j);
  g->inter_bw = j->nic_bw;
  g->intra_lat = def.cluster.nvlink_lat;
  g->inter_lat = def.cluster.nic_lat;
  g->node_gpus = j->gpus_per_node;
}

int rs_ctx_open(rs_ctx *c, const sc_rs_job *j, sc_error *err) {
  memset(c, 0, sizeof *c);
  int rc = sc_rs_job_check(j, err);
  if (rc) return rc;
  c->j = j;
  int n = j->gpus, m = j->model.n_tables;
  c->st = mem_calloc((size_t)m, sizeof *c->st);
  c->memo = mem_calloc((size_t)m, sizeof *c->memo);
  c->cmemo = mem_calloc(1, sizeof *c->cmemo);
  c->fwd = mem_calloc((size_t)n * 5, sizeof *c->fwd);
  c->shards = mem_calloc((size_t)n * 3, sizeof *c->shards);
  if (!c->st || !c->memo || !c->cmemo || !c->fwd || !c->shards) {
    rs_ctx_close(c);
    return sc_error_set(err, SC_ENOMEM, "recsys: out of memory");
  }
  c->bwd = c->fwd + n;
  c->mem = c->bwd + n;
  c->send = c->mem + n;
  c->lookups = c->send + n;
  c->xops = c->shards + n;
  c->xfops = c->xops + n;
  for (int t = 0; t < m; t++) {
    if (t > 0 && rs_same_shape(&j->model.tables[t - 1], &j->model.tables[t]))
      c->st[t] = c->st[t - 1]; /* groups of equal tables: computed once */
    else
      rs_tstat_fill(j, &j->model.tables[t], &c->st[t]);
  }
  rs_dense(j, (double)j->global_batch / n, &c->dense);
  rs_dense(j, (double)j->global_batch, &c->dense_global);
  int gpn = j->gpus_per_node < n ? j->gpus_per_node : n;
  c->nodes = (n + gpn - 1) / gpn;
  group_of(j, n, gpn, &c->all);
  group_of(j, gpn, gpn, &c->node);
  /* a PCIe node runs at its link's generation (Gen4 x16: 24 GB/s in NCCL) */
  c->intra = pcie_node(j) ? COLL_INTRA_PCIE : (coll_intra)j->intra;
  c->l2 = rs_l2_bytes(&j->gpu);
  c->act_b = act_bytes(j->dtype);
  return SC_OK;
}

void rs_ctx_close(rs_ctx *c) {
  mem_free(c->st);
  mem_free(c->memo);
  mem_free(c->cmemo);
  mem_free(c->fwd);
  mem_free(c->shards);
  memset(c, 0, sizeof *c);
}

int rs_plan_check(const rs_ctx *c, const sc_rs_plan *p, sc_error *err) {
  const sc_rs_job *j = c->j;
  if (p->n != j->model.n_tables)
    return sc_error_set(err, SC_EINPUT, "sharding: %d entries for %d tables; give one per "
                        "table", p->n, j->model.n_tables);
  for (int t = 0; t < p->n; t++) {
    const sc_rs_shard *s = &p->s[t];
    const sc_rs_table *tb = &j->model.tables[t];
    switch (s->kind) {
    case SC_RS_TABLE_WISE:
      if (s->gpu < 0 || s->gpu >= j->gpus)
        return sc_error_set(err, SC_EINPUT, "sharding of table %d ('%s'): table_wise on GPU "
                            "%d, but the cluster has %d GPUs (valid: 0..%d)", t, tb->name,
                            s->gpu, j->gpus, j->gpus - 1);
      break;
    case SC_RS_COLUMN_WISE:
      if (s->parts < 1 || tb->dim % s->parts)
        return sc_error_set(err, SC_EINPUT, "sharding of table %d ('%s'): column_wise in %d "
                            "parts; valid: a divisor of its width %d", t, tb->name, s->parts,
                            tb->dim);
      if (s->gpu < 0 || s->gpu + s->parts > j->gpus)
        return sc_error_set(err, SC_EINPUT, "sharding of table %d ('%s'): column_wise over "
                            "GPUs %d..%d needs %d GPUs, but the cluster has %d", t, tb->name,
                            s->gpu, s->gpu + s->parts - 1, s->gpu + s->parts, j->gpus);
      break;
    case SC_RS_TABLE_ROW_WISE:
      if (s->gpu < 0 || s->gpu >= c->nodes)
        return sc_error_set(err, SC_EINPUT, "sharding of table %d ('%s'): table_row_wise on "
                            "node %d, but the cluster has %d node%s (valid: 0..%d)", t,
                            tb->name, s->gpu, c->nodes, c->nodes == 1 ? "" : "s", c->nodes - 1);
      break;
    case SC_RS_DATA_PARALLEL:
    case SC_RS_ROW_WISE:
      break;
    default:
      return sc_error_set(err, SC_EINPUT, "sharding of table %d ('%s'): unknown kind %d", t,
                          tb->name, (int)s->kind);
    }
  }
  return SC_OK;
}

/* Bytes one GPU holding a shard of table t of geometry geo keeps: the
 * rows with their optimizer state, and the pooled vectors it writes and
 * their gradients (activation bytes each). */
static double holder_bytes(const rs_ctx *c, int t, const rs_shard_geo *geo) {
  return rs_shard_bytes(c->j, &c->st[t], geo) + 2 * geo->out_vectors * geo->dim * c->act_b;
}

/* A replicated table's dense weight gradient, bytes on every GPU (the
 * tensor its all-reduce moves). */
static double dp_grad_bytes(const sc_rs_table *tb) {
  return tb->rows * tb->dim * RS_DP_GRAD_BYTES;
}

static int same_geo(const rs_shard_geo *a, const rs_shard_geo *b) {
  return a->rows == b->rows && a->row_frac == b->row_frac && a->dim == b->dim &&
         a->lookups == b->lookups && a->draws_frac == b->draws_frac &&
         a->out_vectors == b->out_vectors && a->cache_bytes == b->cache_bytes;
}

/* rs_shard_time of a shard of table t, through the table's memo. */
static void shard_time(rs_ctx *c, int t, const rs_shard_geo *geo, double *f, double *b) {
  rs_memo *m = &c->memo[t];
  for (int i = 0; i < m->n; i++)
    if (same_geo(&m->g[i], geo)) {
      *f = m->fwd[i];
      *b = m->bwd[i];
      return;
    }
  rs_shard_time(c->j, &c->j->model.tables[t], &c->st[t], geo, f, b);
  int i = m->next;
  m->g[i] = *geo;
  m->fwd[i] = *f;
  m->bwd[i] = *b;
  m->next = (i + 1) % RS_MEMO_WAYS;
  if (m->n < RS_MEMO_WAYS) m->n++;
}

/* Add one shard to GPU g: lookup time, memory, pooled bytes it sends. */
static void put(rs_ctx *c, int t, int g, const rs_shard_geo *geo, double send) {
  double f, b;
  shard_time(c, t, geo, &f, &b);
  c->fwd[g] += f;
  c->bwd[g] += b;
  c->mem[g] += holder_bytes(c, t, geo);
  c->send[g] += send;
}

/* The same shard on every GPU (data-parallel, row-wise): its cost once,
 * with the L2 share of the GPU holding the most shards. */
static void put_all(rs_ctx *c, int t, rs_shard_geo *geo) {
  int n = c->j->gpus, most = 1;
  for (int g = 0; g < n; g++) if (c->shards[g] > most) most = c->shards[g];
  geo->cache_bytes = c->l2 / most;
  double f, b;
  shard_time(c, t, geo, &f, &b);
  double m = holder_bytes(c, t, geo);
  for (int g = 0; g < n; g++) {
    c->fwd[g] += f;
    c->bwd[g] += b;
    c->mem[g] += m;
  }
}

/* One shard of a table with xo extra framework ops (xf of them forward)
 * on GPU g. */
static void add_shard(rs_ctx *c, int g, int xo, int xf) {
  c->shards[g]++;
  c->xops[g] += xo;
  c->xfops[g] += xf;
}

/* Shards per GPU (their L2 share) and the extra ops of tables read by
 * several features (per-table frameworks), counted before the costs. */
static void count_shards(rs_ctx *c, const sc_rs_plan *p) {
  int n = c->j->gpus, gpn = c->all.ranks_per_node;
  memset(c->shards, 0, sizeof *c->shards * (size_t)n * 3);
  for (int t = 0; t < p->n; t++) {
    const sc_rs_shard *s = &p->s[t];
    int per_table = c->j->kernel == SC_RS_PER_TABLE, f = (int)c->st[t].outputs;
    int xo = per_table ? rs_tf_feature_ops(f) : 0, xf = per_table ? rs_tf_feature_fwd_ops(f) : 0;
    if (s->kind == SC_RS_TABLE_WISE) add_shard(c, s->gpu, xo, xf);
    else if (s->kind == SC_RS_COLUMN_WISE)
      for (int k = 0; k < s->parts; k++) add_shard(c, s->gpu + k, xo, xf);
    else if (s->kind == SC_RS_TABLE_ROW_WISE)
      for (int k = 0; k < gpn && s->gpu * gpn + k < n; k++)
        add_shard(c, s->gpu * gpn + k, xo, xf);
    else
      for (int g = 0; g < n; g++) add_shard(c, g, xo, xf);
  }
}

/* The geometry of each shard of table t under s (cache_bytes 0: the
 * caller's) and how many GPUs hold one: every GPU (data-parallel,
 * row-wise), 1 (table-wise), the slices (column-wise) or the node's GPUs
 * (table-row-wise). */
static int shard_geo(const rs_ctx *c, int t, const sc_rs_shard *s, rs_shard_geo *geo) {
  const sc_rs_job *j = c->j;
  const sc_rs_table *tb = &j->model.tables[t];
  const rs_tstat *st = &c->st[t];
  int n = j->gpus, gpn = c->all.ranks_per_node;
  double B = (double)j->global_batch, F = st->outputs;
  *geo = (rs_shard_geo){tb->rows, 1, tb->dim, st->lookups, 1, B * F, 0};
  switch (s->kind) {
  case SC_RS_DATA_PARALLEL:
    geo->lookups = st->lookups / n;
    geo->draws_frac = 1.0 / n;
    geo->out_vectors = B / n * F;
    return n;
  case SC_RS_COLUMN_WISE:
    geo->dim = tb->dim / s->parts;
    return s->parts;
  case SC_RS_ROW_WISE:
    geo->rows = tb->rows / n;
    geo->row_frac = 1.0 / n;
    geo->lookups = st->lookups / n;
    geo->draws_frac = 1.0 / n;
    return n;
  case SC_RS_TABLE_ROW_WISE: {
    int k = n - s->gpu * gpn < gpn ? n - s->gpu * gpn : gpn;
    geo->rows = tb->rows / k;
    geo->row_frac = 1.0 / k;
    geo->lookups = st->lookups / k;
    geo->draws_frac = 1.0 / k;
    return k;
  }
  default: /* table-wise */
    return 1;
  }
}

void rs_shard_mem(const rs_ctx *c, int t, const sc_rs_shard *s, double *peak, double *total) {
  rs_shard_geo geo;
  int k = shard_geo(c, t, s, &geo);
  *peak = holder_bytes(c, t, &geo);
  if (s->kind == SC_RS_DATA_PARALLEL) *peak += dp_grad_bytes(&c->j->model.tables[t]);
  *total = *peak * k;
}

/* Place table t's shards; accumulate volumes. */
static void place(rs_ctx *c, int t, const sc_rs_shard *s, rs_volumes *v) {
  const sc_rs_job *j = c->j;
  const sc_rs_table *tb = &j->model.tables[t];
  const rs_tstat *st = &c->st[t];
  int n = j->gpus, gpn = c->all.ranks_per_node;
  double B = (double)j->global_batch, F = st->outputs, d = tb->dim;
  double pooled = B * F * d * c->act_b;   /* all samples' pooled vectors */
  rs_shard_geo geo;
  int k = shard_geo(c, t, s, &geo);
  v->kinds_used |= 1 << s->kind;
  switch (s->kind) {
  case SC_RS_DATA_PARALLEL:
    put_all(c, t, &geo);
    /* the replica's dense weight gradient, the tensor the all-reduce
     * moves, is held on every GPU beside the weights */
    for (int g = 0; g < n; g++) c->mem[g] += dp_grad_bytes(tb);
    v->dp_grad += dp_grad_bytes(tb);
    return;
  case SC_RS_TABLE_WISE:
    geo.cache_bytes = c->l2 / c->shards[s->gpu];
    put(c, t, s->gpu, &geo, pooled);
    v->recv += pooled / n;
    v->ids += st->lookups / n * 8;
    return;
  case SC_RS_COLUMN_WISE:
    for (int i = 0; i < k; i++) {
      geo.cache_bytes = c->l2 / c->shards[s->gpu + i];
      put(c, t, s->gpu + i, &geo, pooled / k);
    }
    v->recv += pooled / n;
    v->ids += st->lookups / n * 8 * k;
    return;
  case SC_RS_ROW_WISE:
    put_all(c, t, &geo);
    v->rs += pooled;
    v->ids += st->lookups / n * 8;
    return;
  case SC_RS_TABLE_ROW_WISE: {
    int g0 = s->gpu * gpn;
    for (int i = 0; i < k; i++) {
      geo.cache_bytes = c->l2 / c->shards[g0 + i];
      put(c, t, g0 + i, &geo, pooled / k);
    }
    v->rs_node += pooled;
    v->recv += pooled / n;
    v->ids += st->lookups / n * 8;
    return;
  }
  default:
    return;
  }
}

/* Seconds of collective op of `bytes` on group g (c->all or c->node),
 * through the context's memo (the groups are fixed once it is open). */
static double coll(const rs_ctx *c, coll_op op, double bytes, const coll_group *g) {
  if (bytes <= 0 || g->ranks < 2) return 0;
  rs_coll_memo *m = c->cmemo;
  int node = g == &c->node;
  for (int i = 0; i < m->n; i++)
    if (m->bytes[i] == bytes && m->op[i] == (int)op && m->node[i] == node) return m->s[i];
  double s = coll_nccl_time_ex(op, bytes, g, c->intra).time;
  int i = m->next;
  m->op[i] = (int)op;
  m->node[i] = node;
  m->bytes[i] = bytes;
  m->s[i] = s;
  m->next = (i + 1) % RS_COLL_MEMO;
  if (m->n < RS_COLL_MEMO) m->n++;
  return s;
}

static int popcount(int x) {
  int k = 0;
  for (; x; x &= x - 1) k++;
  return k;
}

/* Per-GPU lookup time and memory into r (the slowest and the fullest). */
static void per_gpu(rs_ctx *c, sc_rs_result *r) {
  int n = c->j->gpus;
  double worst = -1;
  for (int g = 0; g < n; g++) {
    double e = c->fwd[g] + c->bwd[g], mem = c->mem[g] + c->dense.act_bytes;
    if (e > worst) {
      worst = e;
      r->worst_gpu = g;
      r->emb_fwd_s = c->fwd[g];
      r->emb_bwd_s = c->bwd[g];
    }
    if (mem > r->mem_bytes) { r->mem_bytes = mem; r->fullest_gpu = g; }
    if (r->gpu_emb_s) r->gpu_emb_s[g] = e;
    if (r->gpu_mem) r->gpu_mem[g] = mem;
  }
}

/* The collectives of the plan into r; the all-reduce's full time. */
static double comms(const rs_ctx *c, rs_volumes *v, sc_rs_result *r) {
  int n = c->j->gpus;
  /* all-to-all buffers: the largest sender or what every GPU receives */
  double maxsend = 0;
  for (int g = 0; g < n; g++) if (c->send[g] > maxsend) maxsend = c->send[g];
  double a2a = maxsend > v->recv ? maxsend : v->recv;
  v->a2a = a2a;
  v->allreduce = sc_rs_dense_params(&c->j->model) * 4 + v->dp_grad;
  /* a data reader that delivers each GPU its keys (HugeCTR's readers split
   * the batch's keys by owner on the host and copy them ahead of the
   * iteration) leaves no ids to exchange between GPUs */
  r->ids_s = c->j->keys_from_reader ? 0 : coll(c, COLL_ALL_TO_ALL, v->ids, &c->all);
  r->a2a_fwd_s = coll(c, COLL_ALL_TO_ALL, a2a, &c->all);
  r->a2a_bwd_s = r->a2a_fwd_s;
  r->rs_fwd_s = coll(c, COLL_REDUCE_SCATTER, v->rs, &c->all) +
                coll(c, COLL_REDUCE_SCATTER, v->rs_node, &c->node);
  r->ag_bwd_s = coll(c, COLL_ALL_GATHER, v->rs, &c->all) +
                coll(c, COLL_ALL_GATHER, v->rs_node, &c->node);
  return coll(c, COLL_ALL_REDUCE, v->allreduce, &c->all);
}

/* Host seconds of one launch: an eager framework's op, or a graph or C++
 * runtime's kernel. */
static double launch_s(const sc_rs_job *j) {
  return j->eager ? cost_launch(&j->gpu) : cost_graph_launch(&j->gpu);
}

/* Host seconds of an iteration's launches, by the stretch of GPU work
 * they feed: the embedding forward (the lookups), the dense part (with
 * the loss, the optimizer and the rest) and the embedding backward. */
typedef struct rs_host {
  double emb_fwd, dense, emb_bwd;
} rs_host;

/* Host seconds of launching the kernels issued per iteration and the
 * per-table framework ops (their fixed GPU cost goes to the embedding
 * backward) into *h. The ops a table
 * launches only after a device-to-host sync (TensorFlow's Unique count,
 * rs_tfsparse.h) go to *exposed, counted once per table on the GPU with
 * the most shards; the others may run ahead of the GPU. A per-table
 * framework's ops are those of the GPU issuing the most. */
static void host_kernels(const rs_ctx *c, const rs_volumes *v, sc_rs_result *r, rs_host *h,
                         double *exposed) {
  const sc_rs_job *j = c->j;
  double launch = launch_s(j);
  int groups = popcount(v->kinds_used);
  h->emb_fwd = groups * RS_FWD_KERNELS * launch;
  h->emb_bwd = groups * RS_BWD_KERNELS * launch;
  h->dense = (c->dense.kernels + 6) * launch;
  *exposed = 0;
  if (j->kernel != SC_RS_PER_TABLE) return;
  int most = 0, busiest = 0, fwd = 0, ops = rs_tf_table_ops(j->opt);
  int after = rs_tf_post_sync_ops(j->opt);
  for (int g = 0; g < j->gpus; g++) {
    if (c->shards[g] > most) most = c->shards[g];
    if (c->shards[g] * ops + c->xops[g] > busiest) {
      busiest = c->shards[g] * ops + c->xops[g];
      fwd = c->shards[g] * RS_TABLE_FWD_OPS + c->xfops[g];
    }
  }
  double in_op_after, in_op = rs_tf_host_s(j->opt, &in_op_after);
  *exposed = most * (after * launch + in_op_after);
  r->emb_bwd_s += (busiest + most * rs_tf_extra_kernels(j->opt)) * COST_KERNEL_T0;
  h->emb_fwd += fwd * launch;
  h->emb_bwd += (busiest - fwd - most * after) * launch + most * in_op;
}

/* Host seconds beyond the GPU's work, given the host's launches h and the
 * GPU's seconds gpu (all of it) and, of it, the embedding forward gf, the
 * dense part gd and the embedding backward gb. The host may run ahead of
 * the GPU by the whole iteration, unless the framework learns on the host
 * that a collective has ended: Horovod's background thread runs it and a
 * finalizer thread waits for the GPU before calling the op's callback
 * (../shared/reference/horovod/horovod/common/operations.cc, the
 * finalizer thread pool and each entry's callback; our reading: the
 * TensorFlow op is asynchronous and completes in that callback), so the
 * ops that read the all-to-all's output are launched only once it has
 * ended: the ids and pooled all-to-all forward and the gradients'
 * backward cut the iteration into the lookups, the dense part and the
 * embedding backward, and the host's launches of each are hidden only by
 * the GPU work of the same stretch. */
static double host_beyond(const sc_rs_job *j, const sc_rs_result *r, const rs_host *h, double gpu,
                          double gf, double gd, double gb) {
  double all = h->emb_fwd + h->dense + h->emb_bwd;
  if (j->gpus < 2 || j->coll_cycle_s <= 0 || r->a2a_fwd_s + r->rs_fwd_s <= 0)
    return all > gpu ? all - gpu : 0;
  return fmax(h->emb_fwd - gf, 0) + fmax(h->dense - gd, 0) + fmax(h->emb_bwd - gb, 0);
}

/* A data reader per node prefetches the next batch while the GPUs train on
 * this one (HugeCTR's reader threads, tf.data and DataLoader workers with
 * prefetch): a steady iteration lasts the longer of the two, so the reader
 * adds what its time per batch (fixed + per sample of the node's share of
 * the global batch) exceeds the rest of the iteration by. */
double rs_reader_exposed(const sc_rs_job *j, int nodes, double iter_s) {
  double samples = (double)j->global_batch / (nodes > 0 ? nodes : 1);
  double reader = j->reader_batch_s + j->reader_sample_s * samples;
  return reader > iter_s ? reader - iter_s : 0;
}

void rs_eval(rs_ctx *c, const sc_rs_plan *p, sc_rs_result *r) {
  const sc_rs_job *j = c->j;
  const rs_dense_time *d = &c->dense;
  int n = j->gpus;
  memset(c->fwd, 0, sizeof *c->fwd * (size_t)n * 5);
  count_shards(c, p);
  rs_volumes v = {0};
  for (int t = 0; t < p->n; t++) place(c, t, &p->s[t], &v);
  double *gpu_emb = r->gpu_emb_s, *gpu_mem = r->gpu_mem;
  memset(r, 0, sizeof *r);
  r->gpu_emb_s = gpu_emb;
  r->gpu_mem = gpu_mem;
  r->gpus = n;
  per_gpu(c, r);
  /* fixed kernel costs of the fused lookup groups (one per kind in use) */
  int groups = popcount(v.kinds_used);
  r->emb_fwd_s += groups * RS_FWD_KERNELS * COST_KERNEL_T0;
  r->emb_bwd_s += groups * RS_BWD_KERNELS * COST_KERNEL_T0;
  double exposed;
  rs_host host;
  host_kernels(c, &v, r, &host, &exposed);
  double ar = comms(c, &v, r);
  r->ids_bytes = j->keys_from_reader ? 0 : v.ids, r->a2a_bytes = v.a2a, r->rs_bytes = v.rs;
  r->rs_node_bytes = v.rs_node, r->allreduce_bytes = v.allreduce;
  /* the bottom MLP: data parallel beside the all-to-all, or on GPU 0 for
   * the whole batch before it (its output is one more pooled vector) */
  double bf = d->bottom_fwd, bb = d->bottom_bwd, serial_f = 0, serial_b = 0;
  if (j->bottom_on_gpu0 && n > 1) {
    serial_f = c->dense_global.bottom_fwd;
    serial_b = c->dense_global.bottom_bwd;
    bf = bb = 0;
  }
  r->dense_fwd_s = bf + serial_f + d->top_fwd;
  r->dense_bwd_s = bb + serial_b + d->top_bwd;
  r->optimizer_s = d->optimizer;
  double comm_f = r->a2a_fwd_s + r->rs_fwd_s, comm_b = r->a2a_bwd_s + r->ag_bwd_s;
  /* the all-reduce crosses the links the gradient all-to-all and
   * all-gather use, each costed at their full rate: beside the bottom MLP
   * backward it hides only under what they leave of it */
  double hide = r->emb_bwd_s + fmax(bb - comm_b, 0) + serial_b;
  r->allreduce_s = ar > hide ? ar - hide : 0;
  /* the bottom MLP hides the collectives beside it, the first one first */
  r->a2a_fwd_exposed_s = fmax(r->a2a_fwd_s - bf, 0);
  r->rs_fwd_exposed_s = fmax(comm_f - bf, 0) - r->a2a_fwd_exposed_s;
  r->a2a_bwd_exposed_s = fmax(r->a2a_bwd_s - bb, 0);
  r->ag_bwd_exposed_s = fmax(comm_b - bb, 0) - r->a2a_bwd_exposed_s;
  double gpu = r->ids_s + r->emb_fwd_s + serial_f + (comm_f > bf ? comm_f : bf) + d->top_fwd +
               d->top_bwd + (comm_b > bb ? comm_b : bb) + serial_b + r->emb_bwd_s +
               r->allreduce_s + r->optimizer_s;
  /* the host issues every kernel and collective; an eager framework's
   * launches bound a short step, a graph or C++ runtime's hardly */
  r->overhead_s = host_beyond(j, r, &host, gpu, r->emb_fwd_s, r->dense_fwd_s + r->dense_bwd_s,
                              r->emb_bwd_s + r->allreduce_s + r->optimizer_s) +
                  exposed;
  /* a framework that runs collectives on a background cycle (Horovod's
   * RunLoopOnce, HOROVOD_CYCLE_TIME default 1 ms: horovod/common/
   * operations.cc): each dependent collective waits half a cycle on average */
  if (n > 1 && j->coll_cycle_s > 0) {
    int calls = (r->ids_s > 0) + (r->a2a_fwd_s > 0) * 2 + (r->rs_fwd_s > 0) * 2 + (ar > 0);
    r->overhead_s += calls * 0.5 * j->coll_cycle_s;
  }
  r->iter_s = gpu + r->overhead_s;
  r->reader_s = rs_reader_exposed(j, c->nodes, r->iter_s);
  r->iter_s += r->reader_s;
  r->samples_per_s = j->global_batch / r->iter_s;
  r->mem_capacity = j->gpu.hbm_bytes;
  r->mem_headroom = c->headroom;
  r->fits = r->mem_bytes <= r->mem_capacity - c->headroom;
  c->vol = v;
  c->allreduce_s = ar;
}

/* Seconds a table of a per-table framework costs its GPU whatever its
 * size, as rs_eval charges them: its ops' and kernels' fixed cost and the
 * launches that wait for the Unique's count (0 for other kernels). */
static double table_fixed_s(const rs_ctx *c, int t) {
  const sc_rs_job *j = c->j;
  if (j->kernel != SC_RS_PER_TABLE) return 0;
  double launch = launch_s(j), after;
  rs_tf_host_s(j->opt, &after);
  int kernels = rs_tf_table_ops(j->opt) + rs_tf_feature_ops((int)c->st[t].outputs) +
                rs_tf_extra_kernels(j->opt);
  return kernels * COST_KERNEL_T0 + rs_tf_post_sync_ops(j->opt) * launch + after;
}

double rs_table_tw_s(const rs_ctx *c, int t) {
  const sc_rs_table *tb = &c->j->model.tables[t];
  rs_shard_geo geo = {tb->rows, 1, tb->dim, c->st[t].lookups, 1,
                      (double)c->j->global_batch * c->st[t].outputs, c->l2};
  double f, b;
  rs_shard_time(c->j, tb, &c->st[t], &geo, &f, &b);
  return f + b + table_fixed_s(c, t);
}
