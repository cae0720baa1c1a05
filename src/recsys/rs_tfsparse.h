/*
 * rs_tfsparse.h -- TensorFlow 2's sparse-gradient path of one embedding
 * table (module prefix: rs_tf_), for jobs whose framework runs tables one
 * by one (SC_RS_PER_TABLE: TensorFlow 2 + distributed-embeddings).
 *
 * Our reading of TensorFlow 2 / Keras OptimizerV2 (sources not in
 * ../shared; docs/recsys.md, "TensorFlow's sparse gradients"):
 *
 *   - the gradient of a lookup (ResourceGather, or the combiner's gather)
 *     leaves it as an IndexedSlices: one gradient row per lookup, written
 *     to HBM, with the lookup's ids as indices;
 *   - Keras' SGD without momentum overrides
 *     _resource_apply_sparse_duplicate_indices: the rows are scatter-added
 *     into the table as they are (ResourceScatterAdd), duplicates included;
 *   - every other optimizer (Adagrad, Adam, SGD with momentum) goes through
 *     OptimizerV2._resource_apply_sparse_duplicate_indices, which first
 *     deduplicates: Unique(indices) then UnsortedSegmentSum(values,
 *     positions, number of unique) before the sparse apply
 *     (ResourceSparseApplyAdagradV2, ...) on the unique rows;
 *   - TensorFlow's GPU Unique sorts (key, position) pairs over the key's
 *     full width (64-bit ids: 8 passes of 8 bits), marks first
 *     occurrences, sorts the unique keys back into first-occurrence order
 *     and writes each lookup's position; its output size depends on the
 *     data, so the count is copied to the host before the outputs are
 *     allocated: the table's segment sum and apply are launched only after
 *     the GPU has run everything queued before them, so their launches are
 *     not hidden behind GPU work.
 */
#ifndef SC_RECSYS_RS_TFSPARSE_H
#define SC_RECSYS_RS_TFSPARSE_H

#include "stepcast_recsys.h"

/* 1 when the optimizer deduplicates a table's IndexedSlices (Unique +
 * UnsortedSegmentSum) before applying them; 0 for SGD (scatter-add). */
int rs_tf_dedups(sc_rs_opt o);

/* HBM bytes of one shard's sparse gradient from the lookup gradient to
 * the updated table: the IndexedSlices rows written, then the scatter-add
 * (SGD) or Unique + UnsortedSegmentSum + sparse apply (the others).
 * lookups L and unique rows u of the shard; dense_b bytes of a row
 * (d x element), row_b the bytes a row spans (whole sectors), rand_b what
 * a random row access costs, hit what a row found in L2 costs (of row_b:
 * rs_l2_hit_cost), update_b the bytes the apply reads and writes per unique
 * row for its weights and state (SGD 2 x rand_b, Adagrad 4 x rand_b, Adam
 * 6 x rand_b; rs_emb.c update_row_bytes). */
double rs_tf_sparse_bytes(sc_rs_opt o, double lookups, double u, double dense_b, double row_b,
                          double rand_b, double hit, double update_b);

/* Framework ops one table issues per iteration (RS_TABLE_OPS less the
 * Unique and UnsortedSegmentSum that SGD does not run). */
int rs_tf_table_ops(sc_rs_opt o);

/* Of those, the launches the host makes only after the Unique's count has
 * reached it (segment sum and the sparse apply): not hidden by GPU work. */
int rs_tf_post_sync_ops(sc_rs_opt o);

/* Framework ops a table read by `features` features issues beyond
 * rs_tf_table_ops: per extra feature its lookup, combiner and lookup
 * gradient (3); with two or more, the tape's aggregation of their
 * IndexedSlices (2 concatenations: values, indices). */
int rs_tf_feature_ops(int features);

/* Of those, the ops of the forward pass: each extra feature's lookup and
 * combiner (2). */
int rs_tf_feature_fwd_ops(int features);

/* HBM bytes of that aggregation: the values ([L, d], dense_b a row) and
 * the int64 indices of all L lookups read and written once; 0 for one
 * feature. */
double rs_tf_aggregate_bytes(int features, double lookups, double dense_b);

/* Kernels a table launches beyond one per op: the GPU Unique's sorts,
 * scans and scatters (0 for SGD). */
int rs_tf_extra_kernels(sc_rs_opt o);

/* Host seconds a table spends launching those extra kernels before the
 * Unique's count sync (returned: may run ahead of the GPU) and after it
 * (*exposed_s: not hidden by GPU work). */
double rs_tf_host_s(sc_rs_opt o, double *exposed_s);

#endif
