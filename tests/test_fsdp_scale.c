/*
 * test_fsdp_scale.c -- FSDP1 from one node to sixteen: what the ring's
 * latency at many ranks adds to each gather, and how much of it a step
 * shows when every unit computes far longer than its collectives (the
 * Mosaic MPT shapes at 2,048 tokens, docs/accuracy.md "FSDP at 8-128
 * GPUs"). The bounds are the schedule's (src/engine/fsdp.c), each
 * collective timed by the public NCCL model.
 */
#include <criterion/criterion.h>
#include <math.h>

#include "engine/fsdp1k.h"
#include "predict.h" /* predict_ok */
#include "stepcast.h"

/* MPT-760m's layer (h 1536, 12 heads, ffn 4h, no biases, LayerNorm
 * without bias, GELU, learned positions, tied embeddings), 4 layers, on
 * `gpus` A100 40 GB, 8 to a node, 200 Gb/s NICs; FSDP1 over all of them,
 * one micro-batch of 12 sequences of 2,048 tokens a step. */
#define L 4
#define H 1536.0
#define V 50368.0
#define S 2048.0
static sc_scenario mpt(int gpus) {
  sc_scenario s;
  sc_scenario_default(&s);
  sc_transformer *m = &s.model.tf;
  m->layers = L;
  m->hidden = (int)H;
  m->heads = 12;
  m->kv_heads = 12;
  m->head_dim = 0;
  m->ffn = 4 * (int)H;
  m->vocab = (int)V;
  m->seq = (int)S;
  m->bias = 0;
  m->act = SC_ACT_GELU;
  m->norm = SC_NORM_LAYERNORM;
  m->pos = SC_POS_LEARNED;
  m->tied_embeddings = 1;
  s.cluster.gpu = *sc_gpu_preset("a100-sxm4-40gb");
  s.cluster.gpus = gpus;
  s.cluster.gpus_per_node = 8;
  s.cluster.nic_bw = 200e9 / 8;
  sc_plan_default(&s.plan);
  s.plan.tp = s.plan.pp = 1;
  s.plan.dp = gpus;
  s.plan.zero = 3;
  s.plan.fsdp_impl = SC_FSDP1;
  s.plan.fsdp_prefetch = 1; /* BACKWARD_PRE: each backward gather one unit
                               ahead (the default, None, queues it behind
                               the reduce-scatter before it) */
  s.plan.recompute = SC_RECOMP_NONE;
  s.plan.micro_batch = 12;
  s.plan.global_batch = 12L * gpus;
  return s;
}

/* One collective of `bytes` over the scenario's data-parallel group; the
 * largest share of the GPU's SMs its channels took so far in *sm. */
static double coll_sm(const sc_scenario *s, sc_coll_op op, double bytes, double *sm) {
  sc_coll_group g = {.ranks = s->plan.dp,
                     .ranks_per_node = s->cluster.gpus_per_node,
                     .arch = s->cluster.gpu.arch,
                     .intra_bw = s->cluster.gpu.nvlink_bw,
                     .inter_bw = s->cluster.nic_bw};
  sc_coll_cost c = sc_coll_nccl_time(op, bytes, &g);
  cr_assert(c.time > 0, "%s of %g B over %d ranks: %g s", sc_coll_op_name(op), bytes, g.ranks,
            c.time);
  double share = (double)c.channels / s->cluster.gpu.sm_count;
  if (sm && share > *sm)
    *sm = share;
  return c.time;
}

static double coll(const sc_scenario *s, sc_coll_op op, double bytes) {
  return coll_sm(s, op, bytes, NULL);
}

/* Per layer, no biases: QKV 3h^2, projection h^2, fc1 and fc2 4h^2 each,
 * two LayerNorms without bias 2h; the root: the tied embedding, the
 * positions and the final LayerNorm. bf16: 2 bytes an element. */
static const double P = 12 * H * H + 2 * H;
static const double R = V * H + S * H + H;

Test(fsdp_scale, ring_latency_grows_each_gather_with_the_ranks) {
  /* a ring all-gather runs n - 1 steps, each paying at least NCCL's
   * smallest per-hop latency (NVLink LL, 0.6 us, tuning.cc): from 16 to
   * 128 ranks a layer's gather grows by at least 112 x 0.6 us */
  sc_scenario a = mpt(16), b = mpt(128);
  double g16 = coll(&a, SC_COLL_ALL_GATHER, 2 * P), g128 = coll(&b, SC_COLL_ALL_GATHER, 2 * P);
  cr_assert(g128 - g16 > 112 * 0.6e-6, "layer gather %g s over 16, %g s over 128", g16, g128);
}

Test(fsdp_scale, long_units_hide_all_but_the_first_gathers_and_last_reduces) {
  /* Each layer computes for milliseconds (12 x 2,048 tokens: about 6 x
   * 24k x 28M = 4 TFLOP forward and backward), its gather and
   * reduce-scatter take a fraction of one. FSDP1's schedule then shows
   * the root's and the first layer's gathers (nothing to hide them), the
   * first layer's and the root's reduce-scatters (nothing after them),
   * and the SMs every hidden collective's channels take from the compute
   * beside it (channels / SMs of the GPU, src/engine/groups.c; their
   * HBM share, charged on the memory-bound kernels, is below that here),
   * with FSDP1's kernels around them (fsdp1k.h) and its gradients' cats.
   * So from 16 to 128 GPUs the step grows by what those four collectives
   * grow plus that share of what all the others grow, however much the
   * ring's latency adds: a schedule that waited for its gathers would
   * grow by all of it */
  double step[2], dp[2], edge[2], all[2], sm = 0;
  for (int i = 0; i < 2; i++) {
    sc_scenario s = mpt(i ? 128 : 16);
    sc_result r = predict_ok(&s);
    double ag = coll_sm(&s, SC_COLL_ALL_GATHER, 2 * P, &sm);
    double rs = coll_sm(&s, SC_COLL_REDUCE_SCATTER, 2 * P, &sm);
    double rag = coll_sm(&s, SC_COLL_ALL_GATHER, 2 * R, &sm);
    double rrs = coll_sm(&s, SC_COLL_REDUCE_SCATTER, 2 * R, &sm);
    /* FSDP1's kernels (fsdp1k.h): the casts before the exposed gathers,
     * those around the exposed reduce-scatters, and every gradient's cat
     * on the compute stream */
    double n = s.plan.dp;
    fsdp1k_cost kp = fsdp1k_unit(&s.cluster.gpu, P, 2, n), kr = fsdp1k_unit(&s.cluster.gpu, R, 2, n);
    ag += kp.cast, rs += kp.reduce, rag += kr.cast, rrs += kr.reduce;
    edge[i] = rag + ag + rs + rrs + L * kp.cat + kr.cat;
    all[i] = edge[i] + (2 * L - 1) * ag + (L - 1) * rs;
    step[i] = r.step_s, dp[i] = r.time.dp_comm;
    cr_assert(r.time.compute / L > 10 * (2 * ag + rs),
              "%d GPUs: a layer computes %g s, its "
              "collectives take %g s",
              s.cluster.gpus, r.time.compute / L, 2 * ag + rs);
    /* the root's and the first layer's gathers are exposed; the rest
     * costs at most the edges and the SM share of the others */
    cr_assert(dp[i] > rag + ag && dp[i] < edge[i] + sm * (all[i] - edge[i]) + 1e-6,
              "%d GPUs: exposed %g s, edges %g s, all %g s, SM share %g", s.cluster.gpus, dp[i],
              edge[i], all[i], sm);
  }
  double grown = all[1] - all[0], edges = edge[1] - edge[0];
  cr_assert(sm > 0 && sm < 0.5, "SM share %g", sm);
  cr_assert(grown > edges && edges > 0, "collectives grew %g s, the edges %g s", grown, edges);
  cr_assert(step[1] - step[0] < edges + sm * (grown - edges) + 1e-6,
            "step %g -> %g s; edges grew %g s, all collectives %g s, SM share %g", step[0], step[1],
            edges, grown, sm);
}
