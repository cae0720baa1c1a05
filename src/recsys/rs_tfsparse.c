/*
 * rs_tfsparse.c -- TensorFlow 2's sparse-gradient path; see rs_tfsparse.h
 * for the op structure (our reading of TensorFlow / Keras, not in
 * ../shared).
 */
#include <math.h>

#include "recsys/rs_emb.h"
#include "recsys/rs_tfsparse.h"

/* Bits of a lookup id: int64 (RS_ID_BYTES in rs_emb.c); TensorFlow's GPU
 * Unique radix-sorts the whole key (our reading of unique_op_gpu.cu.h:
 * GpuRadixSort with its default bit count, sizeof(key) x 8). */
#define RS_TF_KEY_BITS 64.0
/* Unique's int32 position of each lookup (out_idx, TensorFlow's default
 * dtype) and its passes besides the sorts, bytes per lookup: the
 * first-occurrence flags (sorted key read, 4-byte flag written), their
 * prefix sum (4 B read, 4 B written), each lookup's position written
 * (4 B): 8 + 4 + 8 + 4. */
#define RS_TF_IDX_BYTES 4.0
#define RS_TF_UNIQUE_PASS_BYTES 24.0
/* Framework ops of a table that SGD does not run: Unique and
 * UnsortedSegmentSum (of RS_TABLE_OPS, rs_emb.h). */
#define RS_TF_DEDUP_OPS 2
/* Ops launched after Unique's count reaches the host: UnsortedSegmentSum
 * and the sparse apply with its read of the learning rate (the apply is
 * two of RS_TABLE_OPS). */
#define RS_TF_POST_SYNC_OPS 3

/* Kernels of one GPU Unique (our reading of unique_op_gpu.cu.h and cub's
 * dispatch_radix_sort.cuh): the sort of (int64 id, position) pairs by cub's
 * onesweep radix sort, a histogram, an exclusive sum and one kernel per
 * 8-bit digit (10); the first-occurrence flags (1) and their prefix sum
 * (cub scan: 2), before the count goes to the host; after it, the sort of
 * the unique ids back into first-occurrence order (2 + 3 passes: positions
 * below 2^24) and the scatter of the unique ids and of each lookup's
 * position (2). */
#define RS_TF_UNIQUE_KERNELS_PRE 13
#define RS_TF_UNIQUE_KERNELS_POST 7
/* Host time of one kernel launch inside an op (the op's own dispatch is
 * the framework's launch cost): a conventional CUDA launch, 2.6 us at the
 * minimum (../shared/calibration/host_overheads.csv row 20). */
#define RS_TF_KERNEL_LAUNCH_S 2.6e-6

int rs_tf_dedups(sc_rs_opt o) { return o != SC_RS_SGD; }

/* Ops of each feature of a table beyond its first (lookup, combiner,
 * lookup gradient) and of the aggregation of several features'
 * IndexedSlices: our reading of TensorFlow's gradients_util.py
 * (_AggregateIndexedSlicesGradients: ConcatV2 of the values and of the
 * indices), the way a Keras layer called on several inputs gets one
 * gradient per call. */
#define RS_TF_FEATURE_OPS 3
#define RS_TF_FEATURE_FWD_OPS 2
#define RS_TF_AGGREGATE_OPS 2

int rs_tf_feature_ops(int features) {
  return features > 1 ? (features - 1) * RS_TF_FEATURE_OPS + RS_TF_AGGREGATE_OPS : 0;
}

int rs_tf_feature_fwd_ops(int features) {
  return features > 1 ? (features - 1) * RS_TF_FEATURE_FWD_OPS : 0;
}

double rs_tf_aggregate_bytes(int features, double lookups, double dense_b) {
  return features > 1 ? lookups * (dense_b + RS_ID_BYTES) * 2 : 0;
}

int rs_tf_extra_kernels(sc_rs_opt o) {
  return rs_tf_dedups(o) ? RS_TF_UNIQUE_KERNELS_PRE + RS_TF_UNIQUE_KERNELS_POST - 1 : 0;
}

double rs_tf_host_s(sc_rs_opt o, double *exposed_s) {
  if (!rs_tf_dedups(o)) {
    *exposed_s = 0;
    return 0;
  }
  *exposed_s = RS_TF_UNIQUE_KERNELS_POST * RS_TF_KERNEL_LAUNCH_S;
  return (RS_TF_UNIQUE_KERNELS_PRE - 1) * RS_TF_KERNEL_LAUNCH_S;
}

int rs_tf_table_ops(sc_rs_opt o) {
  return rs_tf_dedups(o) ? RS_TABLE_OPS : RS_TABLE_OPS - RS_TF_DEDUP_OPS;
}

int rs_tf_post_sync_ops(sc_rs_opt o) { return rs_tf_dedups(o) ? RS_TF_POST_SYNC_OPS : 0; }

/* Bytes of adding L rows into u distinct rows of a table or buffer: the
 * first touch of each row random (rand_b, read and written), the repeats
 * finding it in L2 (hit of its sectors: rs_l2_hit_cost). */
static double accumulate_bytes(double lookups, double u, double row_b, double rand_b, double hit) {
  double repeats = lookups > u ? lookups - u : 0;
  return u * rand_b * 2 + repeats * row_b * 2 * hit;
}

/* Unique over L int64 ids with u distinct: the full-width sort of (id,
 * position) pairs, the sort of the u first occurrences back into input
 * order (positions below L: ceil(log2 L / 8) passes), the linear passes. */
static double unique_bytes(double lookups, double u) {
  double full = RS_TF_KEY_BITS / RS_SORT_DIGIT_BITS;
  double back = ceil(log2(fmax(2, lookups)) / RS_SORT_DIGIT_BITS);
  return lookups * RS_SORT_PAIR_BYTES * 2 * full + u * RS_SORT_PAIR_BYTES * 2 * back +
         lookups * RS_TF_UNIQUE_PASS_BYTES;
}

double rs_tf_sparse_bytes(sc_rs_opt o, double lookups, double u, double dense_b, double row_b,
                          double rand_b, double hit, double update_b) {
  /* the IndexedSlices values: a gradient row per lookup, a dense [L, d]
   * tensor written once and read once by what applies them */
  double slices = lookups * dense_b * 2;
  if (!rs_tf_dedups(o)) return slices + accumulate_bytes(lookups, u, row_b, rand_b, hit);
  /* UnsortedSegmentSum: each lookup's position read, its row added into a
   * zeroed [u, d] buffer; the apply reads the u sums and updates the
   * weights and state of the u rows */
  double segsum = lookups * RS_TF_IDX_BYTES + u * row_b + accumulate_bytes(lookups, u, row_b, row_b, hit);
  double apply = u * row_b + u * update_b;
  return slices + unique_bytes(lookups, u) + segsum + apply;
}
