/*
 * rs_emb.c -- data-aware embedding cost; see rs_emb.h for the equations.
 */
#include <ctype.h>
#include <math.h>
#include <string.h>
#include <strings.h>

#include "recsys/rs_emb.h"
#include "recsys/rs_model.h"
#include "recsys/rs_tfsparse.h"

/* The FBGEMM table-batched kernels read a row with 32 threads x 4-element
 * vectors: below 32 elements a row still costs 32, and rows narrower than
 * 128 elements leave lanes idle: x1.15 from 64, x1.75 below 64 (TorchRec
 * planner constants.py: MIN embedding dim 32 "due to kernel usage",
 * FULL_BLOCK_EMB_DIM 128, HALF_BLOCK_PENALTY 1.15, QUARTER_BLOCK_PENALTY 1.75). */
#define RS_MIN_DIM 32
#define RS_FULL_DIM 128
#define RS_HALF_PENALTY 1.15
#define RS_QUARTER_PENALTY 1.75
/* A GPU hash-table probe (HugeCTR *Hash embeddings): the key's bucket is
 * one more random 32-byte sector read besides the value row (open
 * addressing at load factor <= 0.5: one probe on average). */
#define RS_HASH_PROBE_BYTES 32.0
/* Global memory is read in 32-byte sectors: a warp's loads are served by
 * as many 32-byte transactions as the sectors its addresses touch (CUDA C++
 * Best Practices Guide, "Coalesced Access to Global Memory", compute
 * capability 6.0 and later; Volta/Ampere/Hopper tuning guides: 32-byte
 * sectors of a 128-byte L1/L2 line). A random row of b bytes therefore
 * moves ceil(b / 32) x 32 bytes: efficiency b / that (4 B rows: 1/8). */
#define RS_SECTOR_BYTES 32.0
/* A random row access costs more HBM time than its sectors: measured with
 * tools/calib/gather_bench.cu on an H100 SXM5 (this repository, 2026-11-25;
 * 8 GiB table, 2^24 uniform random ids, one thread per 4-byte element, as
 * the `hash` and `per_table` kernels read): against sequential ids in the
 * same kernel a random row of 4-32 B costs 57-85 B of sequential traffic
 * (mean 68), 64 B rows 81, 128 B 140, 256 B 263, 512 B 521, 1 KiB 1041;
 * max(sectors + 16, 64) bytes is within 3.5 % of each from 32 B up. Reads
 * of fewer than 32 bytes scatter more (57-85 B) and random in-place
 * updates of them (read + write) up to 123 B per direction (ECC read-
 * modify-write of a partial sector): not modelled. Measured on Hopper's
 * HBM3 only; applied to every GPU as bytes at its STREAM rate. */
#define RS_RANDOM_EXTRA_BYTES 16.0
#define RS_RANDOM_MIN_BYTES 64.0

/* L2 cache of the GPU, bytes: V100 6 MiB, A100 40 MiB, A30 24 MiB, H100 /
 * H200 50 MiB (NVIDIA architecture whitepapers and datasheets); other GPUs
 * by architecture. */
double rs_l2_bytes(const sc_gpu *g) {
  static const struct { const char *prefix; double mib; } l2[] = {
      {"v100", 6}, {"a100", 40}, {"a30", 24}, {"a10", 6}, {"a40", 6}, {"l4", 48},
      {"l40", 96}, {"h100", 50}, {"h200", 50}, {"b200", 126}, {"gb200", 126},
  };
  for (size_t i = 0; i < sizeof l2 / sizeof l2[0]; i++)
    if (!strncasecmp(g->name, l2[i].prefix, strlen(l2[i].prefix)))
      return l2[i].mib * 1048576.0;
  return (g->arch >= 90 ? 50 : g->arch >= 80 ? 40 : 6) * 1048576.0;
}

double rs_l2_hit_cost(const sc_gpu *g) {
  return g->arch >= 90 ? RS_L2_HIT_COST_HOPPER : RS_L2_HIT_COST;
}

/* ---------------------------------------------------- id distributions */

/* sum_{i=a}^{b} i^-alpha (b >= a >= 1): term by term below rank 1024,
 * the midpoint integral (Euler-Maclaurin, error < 1e-7 relative there)
 * above. */
static double zeta_range(double a, double b, double alpha) {
  if (b < a) return 0;
  double s = 0, i = a;
  for (; i <= b && i < 1024; i += 1) s += pow(i, -alpha);
  if (i > b) return s;
  double lo = i - 0.5, hi = b + 0.5;
  if (fabs(alpha - 1) < 1e-9) return s + log(hi / lo);
  return s + (pow(hi, 1 - alpha) - pow(lo, 1 - alpha)) / (1 - alpha);
}

double rs_mass(const sc_rs_table *t, double c) {
  double r = t->rows;
  if (c <= 0) return 0;
  if (c >= r) return 1;
  switch (t->dist) {
  case SC_RS_POWERLAW:
    return zeta_range(1, floor(c), t->alpha) / zeta_range(1, r, t->alpha);
  case SC_RS_HISTOGRAM: {
    double f = c / r, pr = 0, pm = 0;
    for (int k = 0; k < t->hist_n; k++) {
      if (f <= t->hist_rows[k])
        return pm + (t->hist_mass[k] - pm) * (f - pr) / (t->hist_rows[k] - pr);
      pr = t->hist_rows[k];
      pm = t->hist_mass[k];
    }
    return 1;
  }
  default:
    return c / r;
  }
}

/* Expected distinct among n draws of `rows` rows that share mass m
 * equally: rows (1 - (1 - m/rows)^n). */
static double uniq_block(double rows, double m, double n) {
  if (rows <= 0 || m <= 0) return 0;
  double p = m / rows;
  double e = p < 1 ? exp(n * log1p(-p)) : 0;
  return rows * (1 - e);
}

double rs_unique(const sc_rs_table *t, double n) {
  double r = t->rows;
  if (n <= 0 || r <= 0) return 0;
  if (t->dist == SC_RS_HISTOGRAM) {
    double u = 0, pr = 0, pm = 0;
    for (int k = 0; k < t->hist_n; k++) {
      u += uniq_block((t->hist_rows[k] - pr) * r, t->hist_mass[k] - pm, n);
      pr = t->hist_rows[k];
      pm = t->hist_mass[k];
    }
    return u;
  }
  if (t->dist != SC_RS_POWERLAW) return uniq_block(r, 1, n);
  /* power law: the first 1024 ranks one by one, the rest in geometric
   * blocks of at most 1 % growth (p varies within one by < alpha %) */
  double z = zeta_range(1, r, t->alpha), u = 0, i = 1;
  for (; i <= r && i <= 1024; i += 1) u += uniq_block(1, pow(i, -t->alpha) / z, n);
  while (i <= r) {
    double b = floor(i * 1.01);
    if (b > r) b = r;
    u += uniq_block(b - i + 1, zeta_range(i, b, t->alpha) / z, n);
    if (b >= r) break; /* rows are at most 1e15 (exact in a double), but never loop */
    i = b + 1;
  }
  return u;
}

void rs_tstat_fill(const sc_rs_job *j, const sc_rs_table *t, rs_tstat *st) {
  st->lookups = (double)j->global_batch * rs_table_lookups(t);
  st->outputs = t->features;
  st->row_bytes = (double)t->dim * j->emb_bytes;
  for (int k = 0; k < RS_UGRID; k++) st->uniq[k] = rs_unique(t, ldexp(st->lookups, -k));
  for (int k = 0; k < RS_MGRID; k++) st->mass[k] = rs_mass(t, ldexp(1.0, k));
  st->held_scale = rs_hash_scale(j, t);
}

double rs_hash_scale(const sc_rs_job *j, const sc_rs_table *t) {
  if (j->kernel != SC_RS_HASH || j->hash_capacity <= 0) return 1;
  double layer = 0;
  for (int i = 0; i < j->model.n_tables; i++)
    if (j->model.tables[i].wide == t->wide) layer += j->model.tables[i].rows;
  return layer > 0 && j->hash_capacity > layer ? j->hash_capacity / layer : 1;
}

/* Interpolate a grid indexed by log2 at x = 2^-k (uniq) or 2^k (mass). */
static double grid_at(const double *g, int n, double k) {
  if (k <= 0) return g[0];
  if (k >= n - 1) return g[n - 1];
  int i = (int)k;
  double f = k - i;
  return g[i] * (1 - f) + g[i + 1] * f;
}

/* Bytes read per gathered row of `dim` elements of `eb` bytes. FBGEMM's
 * table-batched kernels (SC_RS_FUSED): the TorchRec planner's minimum
 * width and lane penalties above. Kernels that read a row with one thread
 * per element (HugeCTR's hash embeddings, TensorFlow's gather and sparse
 * apply ops): the 32-byte sectors the row spans, RS_SECTOR_BYTES. */
static double gather_bytes(sc_rs_kernel k, int dim, double eb) {
  if (k != SC_RS_FUSED) return ceil(dim * eb / RS_SECTOR_BYTES) * RS_SECTOR_BYTES;
  double d = dim < RS_MIN_DIM ? RS_MIN_DIM : dim;
  double pen = dim >= RS_FULL_DIM ? 1.0 : dim >= 64 ? RS_HALF_PENALTY : RS_QUARTER_PENALTY;
  return d * eb * pen;
}

/* HBM bytes one random access to a row of `b` bytes (as gather_bytes)
 * costs: kernels reading a row one thread per element (`hash`,
 * `per_table`) pay the measured random-access overhead above; FBGEMM's
 * fused kernels keep the TorchRec planner's lane penalties, which already
 * price their rows, and were not measured here. */
static double random_bytes(sc_rs_kernel k, double b) {
  if (k == SC_RS_FUSED) return b;
  return fmax(b + RS_RANDOM_EXTRA_BYTES, RS_RANDOM_MIN_BYTES);
}

/* Rows a shard's table keeps on its GPU: a GPU hash table (HugeCTR *Hash
 * embeddings) is sized per GPU by workspace_size_per_gpu_in_mb, a figure
 * the user sets for the vocabulary, not for the vocabulary's share on one
 * GPU; stepcast sizes it for the whole table on every GPU holding a row
 * shard, and for its share of the layer's capacity when the job gives one
 * (st->held_scale; docs/recsys.md). Other kernels keep the shard's rows. */
static double held_rows(const sc_rs_job *j, const rs_tstat *st, const rs_shard_geo *g) {
  if (j->kernel == SC_RS_HASH && g->row_frac > 0) return g->rows / g->row_frac * st->held_scale;
  return g->rows;
}

/* Arrays of a row's width (weights included) the optimizer keeps, reads
 * and writes per row: SGD the weights, Adagrad an accumulator per element
 * more, Adam two moments; row-wise Adagrad the weights (its accumulator is
 * one value a row: opt_row_state_bytes). */
static double opt_arrays(sc_rs_opt o) {
  switch (o) {
  case SC_RS_ADAGRAD: return 2;
  case SC_RS_ADAM:
  case SC_RS_ADAM_GLOBAL: return 3;
  default: return 1;
  }
}

/* Bytes of optimizer state a row keeps besides opt_arrays: row-wise
 * Adagrad's one accumulator a row, an element of the table's type (the
 * TorchRec planner's storage estimate: RowWiseAdagrad's state is the
 * table's bytes / dim, shard_estimators.py _get_optimizer_multipler); a
 * column slice keeps its own for each of its rows. 0 for the others. */
static double opt_row_state_bytes(const sc_rs_job *j) {
  return j->opt == SC_RS_ROWWISE_ADAGRAD ? j->emb_bytes : 0;
}

/* HBM bytes the optimizer reads and writes per unique row it updates: its
 * arrays, each a random row access of rand_rowb, and a per-row state's
 * 32-byte sectors, one random access each way (a lone 4-byte value moves a
 * sector; RS_SECTOR_BYTES, random_bytes). */
static double update_row_bytes(const sc_rs_job *j, double rand_rowb) {
  double st = opt_row_state_bytes(j), sb = 0;
  if (st > 0) sb = random_bytes(j->kernel, ceil(st / RS_SECTOR_BYTES) * RS_SECTOR_BYTES);
  return 2 * (rand_rowb * opt_arrays(j->opt) + sb);
}

/* Bytes the pooled outputs and their gradients take per element on the
 * wire and in HBM: the dense part's type (fp16 under AMP). */
static double act_bytes(const sc_rs_job *j) {
  return j->dtype == SC_FP16 || j->dtype == SC_BF16 ? 2.0 : 4.0;
}

void rs_shard_time(const sc_rs_job *j, const sc_rs_table *t, const rs_tstat *st,
                   const rs_shard_geo *g, double *fwd_s, double *bwd_s) {
  double bw = j->gpu.hbm_bw * j->gpu.hbm_eff;
  double eb = j->emb_bytes, ab = act_bytes(j);
  double rowb = gather_bytes(j->kernel, g->dim, eb);
  /* L2: the hottest rows of the shard that fit in its share; hashing
   * spreads a table's hot rows evenly over row shards */
  double cache_rows = g->cache_bytes / (g->dim * eb);
  double hit = g->row_frac > 0 ? grid_at(st->mass, RS_MGRID, log2(fmax(1, cache_rows / g->row_frac)))
                               : 0;
  double rand_rowb = random_bytes(j->kernel, rowb); /* a row fetched from HBM */
  double hit_cost = rs_l2_hit_cost(&j->gpu);
  double gather = g->lookups * ((1 - hit) * rand_rowb + hit * hit_cost * rowb);
  /* pooled vectors as the lookup writes them: the compute type, or the
   * table's type followed by a cast pass (and the gradient cast back) */
  double ob = j->pooled_table_type ? eb : ab, pooled = g->out_vectors * g->dim;
  double cast = ob != ab ? pooled * (ob + ab) : 0;
  double fwd = g->lookups * RS_ID_BYTES + gather + pooled * ob + cast;
  if (j->kernel == SC_RS_HASH) fwd += g->lookups * RS_HASH_PROBE_BYTES;
  /* backward: unique rows of this shard among its draws */
  double k = g->draws_frac > 0 ? -log2(g->draws_frac) : RS_UGRID;
  double u = grid_at(st->uniq, RS_UGRID, k) * g->row_frac;
  if (u > g->rows) u = g->rows;
  double passes = ceil(log2(fmax(2, g->rows)) / RS_SORT_DIGIT_BITS);
  double bwd = cast + pooled * ob + g->lookups * gather_bytes(j->kernel, g->dim, ob);
  if (j->kernel == SC_RS_PER_TABLE) /* TensorFlow: IndexedSlices, then the optimizer's ops */
    bwd += rs_tf_aggregate_bytes((int)st->outputs, g->lookups, g->dim * eb) +
           rs_tf_sparse_bytes(j->opt, g->lookups, u, g->dim * eb, rowb, rand_rowb, hit_cost,
                              update_row_bytes(j, rand_rowb));
  else /* fused kernels: sort the ids, accumulate in place, update the unique rows */
    bwd += g->lookups * RS_SORT_PAIR_BYTES * 2 * passes + u * update_row_bytes(j, rand_rowb);
  if (j->opt == SC_RS_ADAM_GLOBAL)
    bwd += held_rows(j, st, g) * g->dim * eb * 2 * opt_arrays(j->opt);
  *fwd_s = fwd / bw;
  *bwd_s = bwd / bw;
}

double rs_shard_bytes(const sc_rs_job *j, const rs_tstat *st, const rs_shard_geo *g) {
  double rows = held_rows(j, st, g);
  return rows * (g->dim * j->emb_bytes * opt_arrays(j->opt) + opt_row_state_bytes(j));
}

/* -1, 0 or 1 as x is below, equal to or above y. */
static int cmp_num(double x, double y) { return (x > y) - (x < y); }

int rs_table_cmp(const sc_rs_table *a, const sc_rs_table *b) {
  int c = cmp_num(a->rows, b->rows);
  if (!c) c = cmp_num(a->dim, b->dim);
  if (!c) c = cmp_num(a->features, b->features);
  for (int f = 0; !c && f < a->features; f++) c = cmp_num(a->hot[f], b->hot[f]);
  if (!c) c = cmp_num(a->wide, b->wide);
  if (!c) c = cmp_num(a->dist, b->dist);
  if (!c) c = cmp_num(a->alpha, b->alpha);
  if (!c) c = cmp_num(a->hist_n, b->hist_n);
  for (int k = 0; !c && k < a->hist_n; k++) {
    c = cmp_num(a->hist_rows[k], b->hist_rows[k]);
    if (!c) c = cmp_num(a->hist_mass[k], b->hist_mass[k]);
  }
  return c;
}

int rs_same_shape(const sc_rs_table *a, const sc_rs_table *b) { return !rs_table_cmp(a, b); }
