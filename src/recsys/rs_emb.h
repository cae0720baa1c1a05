/*
 * rs_emb.h -- data-aware cost of embedding lookups (module prefix: rs_).
 *
 * A shard of a table (some of its rows and/or columns, on one GPU) costs
 * per iteration, in bytes of HBM traffic at the GPU's achievable rate:
 *
 *   forward   L ids (8 B) + L rows gathered (max(d, 32) elements, x the FBGEMM
 *             block penalty below 128) of which a fraction h hits in L2 +
 *             the pooled outputs written;
 *   backward  the pooled gradients read back per lookup, the ids sorted
 *             (radix passes), and for each of the U unique rows of the batch
 *             the row and its optimizer state read and written (SGD 1, Adagrad
 *             2, Adam 3 arrays); HugeCTR's global Adam streams every row
 *             its hash table reserves (the capacity, when the job gives one).
 *
 * U is the expected number of distinct rows among L draws from the id
 * distribution (uniform, power law, histogram): sum_i 1 - exp(-L p_i);
 * h is the share of lookups that fall on the hottest rows that fit in the
 * table's share of L2. Constants and their sources are in rs_emb.c.
 */
#ifndef SC_RECSYS_RS_EMB_H
#define SC_RECSYS_RS_EMB_H

#include "stepcast_recsys.h"

#define RS_UGRID 24   /* unique rows for L / 2^k lookups, k = 0..RS_UGRID-1 */
#define RS_MGRID 48   /* lookup mass of the hottest 2^k rows, k = 0..RS_MGRID-1 */

/* Bytes of one lookup id: int64 (TorchRec planner BIGINT_DTYPE = 8,
 * ../shared/reference/torchrec/torchrec/distributed/planner/constants.py;
 * HugeCTR and distributed-embeddings use 64-bit keys as well). */
#define RS_ID_BYTES 8.0
/* A row found in L2 costs this fraction of an HBM read: L2 read bandwidth
 * over HBM bandwidth is 5120 B/clk x 1.41 GHz = 7.2 TB/s against 1.56-2.0
 * TB/s on A100 and 2048 B/clk x 1.53 GHz = 3.1 TB/s against 0.9 TB/s on V100
 * (NVIDIA A100 and V100 architecture whitepapers): about 1/4. */
#define RS_L2_HIT_COST 0.25
/* Hopper and later (sm_90+): measured on an H200 (tools/calib/zipf_gather.cu,
 * data/measured/zipf_gather_h200.csv; docs/calibration.md, "L2 hits of
 * power-law lookups"): a table held in L2 costs 0.50 (one thread per
 * element) and 0.41 (16 bytes a thread) of its rows' bytes at the HBM
 * rate; the power-law cases fit best at 0.45 and 0.30. HBM3/3e is faster
 * next to L2 than A100's HBM2e was. Blackwell takes Hopper's (no row). */
#define RS_L2_HIT_COST_HOPPER 0.45
/* Radix sort of the backward pass: (64-bit id, 32-bit position) pairs read
 * and written once per 8-bit digit of the row index (cub onesweep, the sort
 * FBGEMM's backward runs: linearize_index + DeviceRadixSort in the DLRM
 * trace ../shared/traces/param_dlrm_8rank_v100). */
#define RS_SORT_PAIR_BYTES 12.0
#define RS_SORT_DIGIT_BITS 8.0

/* What one table costs, precomputed once per job. */
typedef struct rs_tstat {
  double lookups;               /* global lookups per iteration (batch x H) */
  double outputs;               /* pooled vectors per sample (features) */
  double row_bytes;             /* dim x element bytes */
  double uniq[RS_UGRID];        /* expected unique rows among lookups / 2^k */
  double mass[RS_MGRID];        /* share of lookups on the hottest 2^k rows */
  double held_scale;            /* rows a GPU keeps per row of the table (or of the
                                   shard): a hash table's share of its layer's capacity
                                   over the table's rows, >= 1 (rs_hash_scale); else 1 */
} rs_tstat;

/* The geometry of one shard. */
typedef struct rs_shard_geo {
  double rows;                  /* rows held */
  double row_frac;              /* rows held / table rows */
  int dim;                      /* columns held */
  double lookups;               /* lookups served per iteration */
  double draws_frac;            /* lookups served / global lookups (for U) */
  double out_vectors;           /* pooled vectors written (samples x features) */
  double cache_bytes;           /* L2 bytes this shard may use */
} rs_shard_geo;

/* Expected distinct rows among n draws from t's distribution. */
double rs_unique(const sc_rs_table *t, double n);
/* Share of t's lookups on its hottest c rows. */
double rs_mass(const sc_rs_table *t, double c);

/* Fill st for t under job j. */
void rs_tstat_fill(const sc_rs_job *j, const sc_rs_table *t, rs_tstat *st);

/* Seconds of the forward lookup and of the backward + optimizer update of
 * shard g of t (without the fixed per-kernel costs, rs_emb_kernels). */
void rs_shard_time(const sc_rs_job *j, const sc_rs_table *t, const rs_tstat *st,
                   const rs_shard_geo *g, double *fwd_s, double *bwd_s);

/* Bytes the shard of a table with statistics st keeps: weights and
 * optimizer state. */
double rs_shard_bytes(const sc_rs_job *j, const rs_tstat *st, const rs_shard_geo *g);

/* Rows a GPU hash table keeps per row of table t of job j: 1, or for a
 * `hash` kernel with a capacity (sc_rs_job.hash_capacity) larger than the
 * rows of t's embedding layer (the wide tables, or the others) that
 * capacity over those rows: HugeCTR preallocates the capacity and its
 * tables share it. */
double rs_hash_scale(const sc_rs_job *j, const sc_rs_table *t);

/* 1 when a and b have the same statistics (rows, width, lookups, ids,
 * embedding layer). */
int rs_same_shape(const sc_rs_table *a, const sc_rs_table *b);
/* A total order of tables by what they are, never where they are listed:
 * rows, width, features and their lookups, wide, id distribution (the
 * fields rs_same_shape compares, in that order; the name is not one).
 * -1, 0 (the same shape) or 1, as qsort's comparators. */
int rs_table_cmp(const sc_rs_table *a, const sc_rs_table *b);

/* L2 bytes of the job's GPU (datasheets; rs_emb.c). */
double rs_l2_bytes(const sc_gpu *g);
/* What a row found in L2 costs, as a fraction of its bytes at the HBM
 * rate: RS_L2_HIT_COST, or RS_L2_HIT_COST_HOPPER from sm_90. */
double rs_l2_hit_cost(const sc_gpu *g);

/* Kernels of one fused lookup group: forward and backward. */
#define RS_FWD_KERNELS 2
#define RS_BWD_KERNELS 9
/* Framework ops one table issues per iteration when the framework runs
 * tables one by one (SC_RS_PER_TABLE): forward lookup and combiner (2),
 * backward gradient, unique and segment sum (3), the sparse optimizer
 * apply (2), and the casts, reshapes and ragged-to-dense conversions
 * around them (5): an estimate from the op structure of TensorFlow's
 * embedding_lookup_sparse path, not a measurement. */
#define RS_TABLE_OPS 12
/* Of them, the ops of the forward pass: the lookup and combiner, and four
 * of the five conversions: those of the ids (integers: no gradient) and
 * the pooled output's reshape, whose gradient is the fifth. The backward
 * gets the other six (SGD, without Unique and segment sum: four). */
#define RS_TABLE_FWD_OPS 6

#endif
