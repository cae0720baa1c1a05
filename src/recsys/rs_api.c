/*
 * rs_api.c -- the public entry points of recommendation models: jobs,
 * plans, uniform shardings and one evaluation (stepcast_recsys.h).
 */
#include <string.h>

#include "core/mem.h"
#include "recsys/rs_model.h"
#include "recsys/rs_shard.h"

void sc_rs_job_default(sc_rs_job *j) {
  memset(j, 0, sizeof *j);
  const sc_gpu *g = sc_gpu_preset("a100-sxm4-80gb");
  if (g) j->gpu = *g;
  j->gpus = 1;
  j->gpus_per_node = 8;
  j->global_batch = 65536;
  j->dtype = SC_FP32;
  j->opt = SC_RS_SGD;
  j->kernel = SC_RS_FUSED;
  j->emb_bytes = 4;
  j->model.inter = SC_RS_DOT;
}

void sc_rs_job_free(sc_rs_job *j) { sc_rs_model_free(&j->model); }

int sc_rs_job_check(const sc_rs_job *j, sc_error *err) {
  const sc_rs_model *m = &j->model;
  if (m->n_tables < 1)
    return sc_error_set(err, SC_EINPUT, "model: no embedding table; give `tables`");
  for (int t = 0; t < m->n_tables; t++) {
    int rc = rs_table_check(&m->tables[t], t, err);
    if (rc) return rc;
  }
  if (j->gpus < 1 || j->gpus > 65536)
    return sc_error_set(err, SC_EINPUT, "cluster.gpus: %d; valid: 1..65536", j->gpus);
  if (j->gpus_per_node < 1)
    return sc_error_set(err, SC_EINPUT, "cluster.gpus_per_node: %d; valid: >= 1",
                        j->gpus_per_node);
  if (j->gpus > j->gpus_per_node && !(j->nic_bw > 0))
    return sc_error_set(err, SC_EINPUT, "cluster: %d GPUs span nodes of %d, so "
                        "cluster.nic_Gbps (per GPU) must be > 0 (a job file that leaves it "
                        "out gets the NIC of the GPU's reference system)", j->gpus,
                        j->gpus_per_node);
  if (j->global_batch < j->gpus)
    return sc_error_set(err, SC_EINPUT, "training.global_batch: %ld; valid: at least one "
                        "sample per GPU (>= %d)", j->global_batch, j->gpus);
  long lo = j->global_batch / j->gpus * j->gpus;
  if (lo != j->global_batch) /* every GPU takes the same local batch */
    return sc_error_set(err, SC_EINPUT, "training.global_batch: %ld is not divisible by "
                        "cluster.gpus %d (every GPU takes the same number of samples); valid "
                        "nearby: %ld or %ld", j->global_batch, j->gpus, lo, lo + j->gpus);
  if (j->emb_bytes != 2 && j->emb_bytes != 4)
    return sc_error_set(err, SC_EINPUT, "training.embedding_bytes: %d; valid: 2 or 4",
                        j->emb_bytes);
  if (!(j->hash_capacity >= 0 && j->hash_capacity <= 1e15))
    return sc_error_set(err, SC_EINPUT, "training.hash_capacity_rows: %g; valid: 0 (the "
                        "tables' rows) to 1e15 rows", j->hash_capacity);
  return rs_dense_check(m, err);
}

int sc_rs_plan_alloc(sc_rs_plan *p, int n) {
  p->s = mem_calloc(n > 0 ? (size_t)n : 1, sizeof *p->s);
  p->n = p->s ? n : 0;
  return p->s ? SC_OK : SC_ENOMEM;
}

void sc_rs_plan_free(sc_rs_plan *p) {
  mem_free(p->s);
  p->s = NULL;
  p->n = 0;
}

static const char *const shard_names[SC_RS_SHARD_KINDS] = {
    "data_parallel", "table_wise", "row_wise", "column_wise", "table_row_wise"};

const char *sc_rs_shard_name(sc_rs_shard_kind k) {
  return k >= 0 && k < SC_RS_SHARD_KINDS ? shard_names[k] : "?";
}

int sc_rs_shard_from_name(const char *name) {
  for (int k = 0; k < SC_RS_SHARD_KINDS; k++)
    if (!strcmp(name, shard_names[k])) return k;
  return -1;
}

void sc_rs_result_free(sc_rs_result *r) {
  mem_free(r->gpu_emb_s);
  mem_free(r->gpu_mem);
  r->gpu_emb_s = r->gpu_mem = NULL;
}

int sc_rs_evaluate(const sc_rs_job *j, const sc_rs_plan *p, sc_rs_result *r, sc_error *err) {
  memset(r, 0, sizeof *r);
  rs_ctx c;
  int rc = rs_ctx_open(&c, j, err);
  if (rc) return rc;
  rc = rs_plan_check(&c, p, err);
  if (rc) { rs_ctx_close(&c); return rc; }
  double *e = mem_calloc((size_t)j->gpus, sizeof *e), *m = mem_calloc((size_t)j->gpus, sizeof *m);
  if (!e || !m) {
    mem_free(e);
    mem_free(m);
    rs_ctx_close(&c);
    return sc_error_set(err, SC_ENOMEM, "recsys: out of memory");
  }
  r->gpu_emb_s = e;
  r->gpu_mem = m;
  rs_eval(&c, p, r);
  rs_ctx_close(&c);
  return SC_OK;
}

/* Tables in decreasing order of whole-table lookup time (ties: index). */
static void order_by_cost(const rs_ctx *c, int *ord, double *cost) {
  int m = c->j->model.n_tables;
  for (int t = 0; t < m; t++) { ord[t] = t; cost[t] = rs_table_tw_s(c, t); }
  for (int i = 1; i < m; i++) { /* insertion sort: stable, deterministic */
    int x = ord[i], k = i;
    while (k > 0 && cost[ord[k - 1]] < cost[x]) { ord[k] = ord[k - 1]; k--; }
    ord[k] = x;
  }
}

int rs_plan_greedy_tw(const rs_ctx *c, int split, sc_rs_plan *p) {
  const sc_rs_job *j = c->j;
  int m = j->model.n_tables, n = j->gpus;
  int *ord = mem_alloc(sizeof *ord * (size_t)m);
  double *cost = mem_alloc(sizeof *cost * (size_t)m);
  double *load = mem_calloc((size_t)n, sizeof *load), *mem = mem_calloc((size_t)n, sizeof *mem);
  if (!ord || !cost || !load || !mem) {
    mem_free(ord); mem_free(cost); mem_free(load); mem_free(mem);
    return SC_ENOMEM;
  }
  order_by_cost(c, ord, cost);
  /* memory as rs_eval counts it: the dense activations on every GPU, and
   * per table its weights and state plus its pooled outputs and their
   * gradients for the whole batch */
  double cap = j->gpu.hbm_bytes - c->headroom - c->dense.act_bytes;
  for (int i = 0; i < m; i++) {
    int t = ord[i];
    const sc_rs_table *tb = &j->model.tables[t];
    rs_shard_geo geo = {tb->rows, 1, tb->dim, 0, 1, 0, 0};
    double bytes = rs_shard_bytes(j, &c->st[t], &geo) +
                   2.0 * j->global_batch * c->st[t].outputs * tb->dim * c->act_b;
    int best = -1;
    for (int g = 0; g < n; g++)
      if (mem[g] + bytes <= cap && (best < 0 || load[g] < load[best])) best = g;
    if (best < 0 && split && n > 1) {
      /* column slices: the fewest parts (a power of two dividing the
       * width) whose slices fit on consecutive GPUs, placed where the
       * busiest of them is least loaded; rows split when none fits */
      int parts = 2, at = -1;
      for (; parts <= n && tb->dim % parts == 0 && at < 0; parts *= 2) {
        double best_load = 0;
        for (int g = 0; g + parts <= n; g++) {
          double mx = 0;
          int ok = 1;
          for (int k = 0; k < parts; k++) {
            ok &= mem[g + k] + bytes / parts <= cap;
            if (load[g + k] > mx) mx = load[g + k];
          }
          if (ok && (at < 0 || mx < best_load)) { at = g; best_load = mx; }
        }
        if (at >= 0) break;
      }
      if (at >= 0) {
        p->s[t] = (sc_rs_shard){SC_RS_COLUMN_WISE, at, parts};
        for (int k = 0; k < parts; k++) { mem[at + k] += bytes / parts; load[at + k] += cost[t] / parts; }
        continue;
      }
      p->s[t] = (sc_rs_shard){SC_RS_ROW_WISE, 0, 1};
      for (int g = 0; g < n; g++) { mem[g] += bytes / n; load[g] += cost[t] / n; }
      continue;
    }
    if (best < 0)
      for (int g = 0; g < n; g++) if (best < 0 || load[g] < load[best]) best = g;
    p->s[t] = (sc_rs_shard){SC_RS_TABLE_WISE, best, 1};
    load[best] += cost[t];
    mem[best] += bytes;
  }
  mem_free(ord); mem_free(cost); mem_free(load); mem_free(mem);
  return SC_OK;
}

int sc_rs_plan_uniform(const sc_rs_job *j, sc_rs_shard_kind k, int split, sc_rs_plan *p,
                       sc_error *err) {
  rs_ctx c;
  int rc = rs_ctx_open(&c, j, err);
  if (rc) return rc;
  if (sc_rs_plan_alloc(p, j->model.n_tables)) {
    rs_ctx_close(&c);
    return sc_error_set(err, SC_ENOMEM, "recsys: out of memory");
  }
  if (k == SC_RS_TABLE_WISE) {
    rc = rs_plan_greedy_tw(&c, split, p);
  } else if (k == SC_RS_COLUMN_WISE) {
    for (int t = 0; t < p->n; t++) {
      int parts = j->gpus;
      while (parts > 1 && j->model.tables[t].dim % parts) parts--;
      p->s[t] = (sc_rs_shard){k, 0, parts};
    }
  } else {
    for (int t = 0; t < p->n; t++)
      p->s[t] = (sc_rs_shard){k, k == SC_RS_TABLE_ROW_WISE ? t % c.nodes : 0, 1};
  }
  rs_ctx_close(&c);
  if (rc) {
    sc_rs_plan_free(p);
    return sc_error_set(err, SC_ENOMEM, "recsys: out of memory");
  }
  return SC_OK;
}
