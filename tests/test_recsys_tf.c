/*
 * test_recsys_tf.c -- TensorFlow 2's sparse-gradient path of a per-table
 * framework (src/recsys/rs_tfsparse.c): bytes by hand, the optimizer
 * split (SGD scatter-adds, the others deduplicate), the Unique's kernels
 * and the launches that wait for its count.
 */
#include <criterion/criterion.h>
#include <math.h>

#include "cost/compute.h"
#include "recsys/rs_emb.h"
#include "recsys/rs_shard.h"
#include "recsys/rs_tfsparse.h"
#include "rsjob.h"
#include "stepcast_recsys.h"

/* L = 65536 uniform lookups of a 1e6 x 16 fp32 table: u = R (1 - (1 -
 * 1/R)^L) = 63,434.70 unique rows; a row is 64 B (two sectors), a random
 * row access max(64 + 16, 64) = 80 B, a repeat in L2 a quarter of 64 B.
 *   SGD:     slices L x 64 x 2 = 8,388,608; scatter-add u x 80 x 2 +
 *            (L - u) x 64 x 2 x 0.25 = 10,149,552 + 67,242 -> 18,605,401.7
 *   Adagrad: slices 8,388,608; Unique L x 12 x 2 x 8 (64-bit sort) +
 *            u x 12 x 2 x 2 (positions below 2^16: 2 passes) + L x 24;
 *            segment sum L x 4 + u x 64 + u x 64 x 2 + (L - u) x 32;
 *            apply u x 64 + u x (80 x 2 x 2: update_b) -> 62,457,022.9 */
Test(recsys_tf, sparse_bytes_by_hand) {
  double L = 65536, R = 1e6, u = R * (1 - pow(1 - 1 / R, L));
  cr_assert_float_eq(u, 63434.70, 0.01);
  double sgd = rs_tf_sparse_bytes(SC_RS_SGD, L, u, 64, 64, 80, RS_L2_HIT_COST, 80 * 2);
  double ada = rs_tf_sparse_bytes(SC_RS_ADAGRAD, L, u, 64, 64, 80, RS_L2_HIT_COST, 80 * 2 * 2);
  cr_assert_float_eq(sgd, 18605401.71, 0.1, "SGD %.2f", sgd);
  cr_assert_float_eq(ada, 62457022.93, 0.1, "Adagrad %.2f", ada);
  /* SGD scatter-adds into the weights: its byte count takes no update_b */
  cr_assert_eq(rs_tf_sparse_bytes(SC_RS_SGD, L, u, 64, 64, 80, RS_L2_HIT_COST, 999), sgd);
}

/* Only SGD skips the deduplication (Keras' SGD without momentum
 * overrides _resource_apply_sparse_duplicate_indices). */
Test(recsys_tf, optimizer_split) {
  cr_assert_eq(rs_tf_dedups(SC_RS_SGD), 0);
  cr_assert_eq(rs_tf_dedups(SC_RS_ADAGRAD), 1);
  cr_assert_eq(rs_tf_dedups(SC_RS_ADAM), 1);
  cr_assert_eq(rs_tf_table_ops(SC_RS_SGD), RS_TABLE_OPS - 2);
  cr_assert_eq(rs_tf_table_ops(SC_RS_ADAGRAD), RS_TABLE_OPS);
  cr_assert_eq(rs_tf_post_sync_ops(SC_RS_SGD), 0);
  cr_assert_eq(rs_tf_post_sync_ops(SC_RS_ADAGRAD), 3);
  cr_assert_eq(rs_tf_extra_kernels(SC_RS_SGD), 0);
  cr_assert_eq(rs_tf_extra_kernels(SC_RS_ADAGRAD), 19, "13 + 7 kernels, one counted as the op");
  double after, before = rs_tf_host_s(SC_RS_ADAGRAD, &after);
  cr_assert_float_eq(before, 12 * 2.6e-6, 1e-15);
  cr_assert_float_eq(after, 7 * 2.6e-6, 1e-15);
  cr_assert_eq(rs_tf_host_s(SC_RS_SGD, &after), 0);
  cr_assert_eq(after, 0);
}

/* A per-table framework's job at 20 us an op: tables (the grammar), a
 * concat model of 13 dense features into a top MLP width-width-1, gpus
 * GPUs in one node, optimizer o. */
static void tf_job(sc_rs_job *j, const char *tables, int width, int gpus, sc_rs_opt o) {
  sc_rs_job_default(j);
  j->model.inter = SC_RS_CONCAT;
  j->model.dense_features = 13;
  j->model.n_top = 3;
  j->model.top[0] = width;
  j->model.top[1] = width;
  j->model.top[2] = 1;
  j->gpus = j->gpus_per_node = gpus;
  j->kernel = SC_RS_PER_TABLE;
  j->eager = 1;
  j->gpu.launch_s = 20e-6;
  j->opt = o;
  sc_error e = {0};
  cr_assert_eq(sc_rs_tables_parse(tables, SC_RS_UNIFORM, 0, &j->model, &e), SC_OK, "%s", e.msg);
}

/* Four 1e6 x 16 tables, table-wise on one A100 80 GB, batch 65536, a
 * per-table framework at 20 us an op. Adagrad against SGD, by hand:
 *   - the embedding backward gains, per table, the bytes above (at the
 *     STREAM rate 2039 GB/s x 0.79; Adagrad's optimizer state is counted
 *     in its bytes) and (12 + 19 - 10) = 21 kernels x 3 us of fixed cost;
 *   - per table, 3 ops x 20 us + 7 kernels x 2.6 us = 78.2 us of launches
 *     wait for the Unique's count: exposed even when the GPU bounds the
 *     step (a large MLP keeps the host behind the GPU here). */
Test(recsys_tf, adagrad_against_sgd_by_hand) {
  sc_rs_result r[2];
  for (int o = 0; o < 2; o++) {
    sc_rs_job j;
    tf_job(&j, "4x1000000x16@1", 4096, 1, o ? SC_RS_ADAGRAD : SC_RS_SGD);
    sc_rs_plan p;
    rs_test_plan(&j, SC_RS_TABLE_WISE, 0, &p);
    rs_test_eval(&j, &p, &r[o]);
    sc_rs_plan_free(&p);
    sc_rs_job_free(&j);
  }
  double bw = 2039e9 * 0.79, per_table = (62457022.93 - 18605401.71) / bw + 21 * COST_KERNEL_T0;
  cr_assert_float_eq(r[1].emb_bwd_s - r[0].emb_bwd_s, 4 * per_table, 1e-9, "backward %g vs %g",
                     r[1].emb_bwd_s - r[0].emb_bwd_s, 4 * per_table);
  cr_assert_eq(r[0].overhead_s, 0, "SGD: the host keeps ahead of the GPU (%g)", r[0].overhead_s);
  cr_assert_float_eq(r[1].overhead_s, 4 * 78.2e-6, 1e-12, "exposed %g", r[1].overhead_s);
  sc_rs_result_free(&r[0]);
  sc_rs_result_free(&r[1]);
}

/* A table read by several features (a Keras layer called on several
 * inputs): per extra feature its lookup, combiner and gradient (3 ops),
 * and with two or more the tape's concatenation of their IndexedSlices
 * (2 ops; values and int64 indices read and written once). */
Test(recsys_tf, several_features_by_hand) {
  cr_assert_eq(rs_tf_feature_ops(1), 0);
  cr_assert_eq(rs_tf_feature_ops(2), 5);
  cr_assert_eq(rs_tf_feature_ops(3), 8);
  cr_assert_eq(rs_tf_aggregate_bytes(1, 1e6, 64), 0);
  cr_assert_float_eq(rs_tf_aggregate_bytes(2, 1e6, 64), 1e6 * (64 + 8) * 2, 1e-6);
}

/* The planner's greedy weighs a table as rs_eval charges it: a per-table
 * framework's table of two features (`1x1000000x16@1+10`) under Adagrad
 * costs its lookups plus (12 + 5 + 19) kernels x 3 us and the 3 ops x
 * 20 us + 7 kernels x 2.6 us that wait for the Unique's count: 186.2 us
 * more than the same table's lookup time. */
Test(recsys_tf, greedy_weighs_the_fixed_cost_per_table) {
  sc_rs_job j;
  sc_rs_job_default(&j);
  j.model.inter = SC_RS_CONCAT;
  j.model.n_top = 1;
  j.model.top[0] = 1;
  j.kernel = SC_RS_PER_TABLE;
  j.eager = 1;
  j.gpu.launch_s = 20e-6;
  j.opt = SC_RS_ADAGRAD;
  sc_error e = {0};
  cr_assert_eq(sc_rs_tables_parse("1x1000000x16@1+10", SC_RS_UNIFORM, 0, &j.model, &e), SC_OK,
               "%s", e.msg);
  rs_ctx c;
  cr_assert_eq(rs_ctx_open(&c, &j, &e), SC_OK, "%s", e.msg);
  rs_shard_geo geo = {1e6, 1, 16, c.st[0].lookups, 1, 65536.0 * 2, c.l2};
  double f, b;
  rs_shard_time(&j, &j.model.tables[0], &c.st[0], &geo, &f, &b);
  cr_assert_float_eq(rs_table_tw_s(&c, 0) - (f + b), 36 * 3e-6 + 3 * 20e-6 + 7 * 2.6e-6, 1e-12,
                     "fixed %g", rs_table_tw_s(&c, 0) - (f + b));
  rs_ctx_close(&c);
  sc_rs_job_free(&j);
}

/* Horovod's collectives end on the host (docs/recsys.md, "Collectives that
 * end on the host"): 40 tables of 1000 x 16, table-wise on 2 GPUs (20
 * each), SGD (10 ops a table, no Unique), 20 us an op. The host's
 * launches by stretch, by hand:
 *   lookups:  2 fused-group kernels + 20 tables x 6 forward ops = 122
 *             x 20 us = 2.44 ms;
 *   backward: 9 + 20 x (10 - 6) = 89 x 20 us = 1.78 ms;
 *   dense:    the dense kernels + 6, x 20 us.
 * With a 1 ms cycle each stretch's launches are hidden only by its own
 * GPU work, and 4 dependent collectives (ids, pooled forward and
 * backward, the all-reduce) wait half a cycle each; without a cycle the
 * host's whole lead counts, so the same job is faster. */
Test(recsys_tf, horovod_stretches_by_hand) {
  sc_rs_result r[2];
  double dense_host = 0;
  for (int h = 0; h < 2; h++) {
    sc_rs_job j;
    sc_error e = {0};
    tf_job(&j, "40x1000x16@1", 256, 2, SC_RS_SGD);
    j.model.n_top = 2; /* 256-1 */
    j.model.top[1] = 1;
    j.coll_cycle_s = h ? 1e-3 : 0;
    rs_ctx c;
    cr_assert_eq(rs_ctx_open(&c, &j, &e), SC_OK, "%s", e.msg);
    dense_host = (c.dense.kernels + 6) * 20e-6;
    rs_ctx_close(&c);
    sc_rs_plan p;
    rs_test_plan(&j, SC_RS_TABLE_WISE, 0, &p);
    int on0 = 0;
    for (int t = 0; t < p.n; t++) on0 += p.s[t].gpu == 0;
    cr_assert_eq(on0, 20, "tables on GPU 0: %d", on0);
    rs_test_eval(&j, &p, &r[h]);
    sc_rs_plan_free(&p);
    sc_rs_job_free(&j);
  }
  const sc_rs_result *q = &r[1];
  cr_assert(q->a2a_fwd_s > 0 && q->ids_s > 0);
  double gf = q->emb_fwd_s, gd = q->dense_fwd_s + q->dense_bwd_s,
         gb = q->emb_bwd_s + q->allreduce_s + q->optimizer_s;
  double want = fmax(2.44e-3 - gf, 0) + fmax(dense_host - gd, 0) + fmax(1.78e-3 - gb, 0) +
                4 * 0.5e-3;
  cr_assert_float_eq(q->overhead_s, want, 1e-12, "overhead %g vs %g", q->overhead_s, want);
  cr_assert(2.44e-3 > gf, "the lookups' launches outlast their GPU work (%g)", gf);
  cr_assert_eq(r[0].emb_fwd_s, q->emb_fwd_s);
  cr_assert(q->iter_s > r[0].iter_s + 2e-3, "stretches %g, one lead %g", q->iter_s, r[0].iter_s);
  sc_rs_result_free(&r[0]);
  sc_rs_result_free(&r[1]);
}
