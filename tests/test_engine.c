/*
 * test_engine.c -- laws the step-time and memory model must obey.
 * Each test states the expectation and prints the numbers on failure.
 */
#include <criterion/criterion.h>

#include "cost/compute.h"
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "predict.h" /* predict_ok */
#include "stepcast.h"

/* GPT-1.7B of the SC'21 table on 32 A100s, a plan without pipeline. */
static sc_scenario small(void) {
  sc_scenario s;
  sc_scenario_default(&s);
  s.model.tf.layers = 24;
  s.model.tf.hidden = 2304;
  s.model.tf.heads = 24;
  s.model.tf.kv_heads = 24;
  s.model.tf.head_dim = 96;
  s.model.tf.ffn = 9216;
  s.model.tf.vocab = 51200;
  s.model.tf.seq = 2048;
  s.cluster.gpus = 32;
  sc_plan_default(&s.plan);
  s.plan.tp = 1;
  s.plan.pp = 1;
  s.plan.dp = 32;
  s.plan.global_batch = 512;
  s.plan.micro_batch = 4;
  s.plan.dtype = SC_FP16;
  return s;
}

Test(engine, parts_add_up_to_the_step) {
  sc_scenario s;
  sc_scenario_default(&s);
  sc_result r = predict_ok(&s);
  const sc_breakdown *t = &r.time;
  double sum = t->compute + t->host + t->tp_comm + t->pp_comm + t->bubble + t->dp_comm + t->optimizer;
  cr_assert_float_eq(sum, r.step_s, 1e-9 * r.step_s, "parts %g != step %g", sum, r.step_s);
  cr_assert(r.mfu > 0.2 && r.mfu < 0.75, "default MFU %g outside (0.2, 0.75)", r.mfu);
  cr_assert(r.mem.fits, "default scenario should fit: %g GiB", r.mem.total / 1073741824.0);
}

Test(engine, more_micro_batches_cost_proportionally_more) {
  sc_scenario s = small();
  sc_result a = predict_ok(&s);
  s.plan.global_batch *= 2;
  sc_result b = predict_ok(&s);
  double ratio = b.time.compute / a.time.compute;
  cr_assert_float_eq(ratio, 2.0, 0.01, "compute ratio %g", ratio);
  cr_assert(b.step_s > 1.8 * a.step_s && b.step_s < 2.05 * a.step_s,
            "step %g vs %g", b.step_s, a.step_s);
}

Test(engine, bubble_follows_the_schedule) {
  sc_scenario s = small();
  s.plan.pp = 4;
  s.plan.dp = 8;
  s.plan.micro_batch = 1;
  s.plan.global_batch = 64; /* 8 micro-batches per pipeline */
  sc_result r = predict_ok(&s);
  double per_mb = (r.time.compute + r.time.host + r.time.tp_comm) / r.micro_batches;
  /* 1F1B: (pp - 1) passes of fill and drain through the stages other
   * than the slowest (the last, with the output layer): a little under 3
   * of its micro-batch slots */
  cr_assert(r.time.bubble / per_mb > 2.0 && r.time.bubble / per_mb < 3.0,
            "bubble %g = %g micro-batches", r.time.bubble, r.time.bubble / per_mb);
  s.plan.schedule = SC_SCHED_INTERLEAVED;
  s.plan.vpp = 3;
  sc_result ri = predict_ok(&s);
  /* the batch's host work precedes a micro-batch's first chunk only: the
   * fill waits for it whole at each of the 3 stages it passes, the rest of
   * the bubble divides by vpp */
  double bh = cost_batch_host(&s.cluster.gpu);
  cr_assert(s.plan.framework_eager && bh > 0);
  cr_assert_float_eq(ri.time.bubble, (r.time.bubble - 3 * bh) / 3 + 3 * bh, 0.05 * ri.time.bubble,
                     "interleaved bubble %g, 1F1B %g, batch host %g", ri.time.bubble,
                     r.time.bubble, bh);
  /* without it (a framework that is not eager) the whole bubble divides */
  s.plan.framework_eager = 0, s.plan.schedule = SC_SCHED_1F1B, s.plan.vpp = 1;
  r = predict_ok(&s);
  s.plan.schedule = SC_SCHED_INTERLEAVED, s.plan.vpp = 3;
  ri = predict_ok(&s);
  cr_assert_float_eq(ri.time.bubble / r.time.bubble, 1.0 / 3.0, 0.05,
                     "interleaving by 3 should divide the bubble by 3: %g vs %g",
                     ri.time.bubble, r.time.bubble);
}

Test(engine, recomputation_trades_time_for_memory) {
  sc_scenario s = small();
  s.plan.flash_attention = 0; /* with flash attention selective saves nothing */
  sc_result none = predict_ok(&s);
  s.plan.recompute = SC_RECOMP_SELECTIVE;
  sc_result sel = predict_ok(&s);
  s.plan.recompute = SC_RECOMP_FULL;
  sc_result full = predict_ok(&s);
  cr_assert(none.mem.activations > sel.mem.activations, "selective saves memory");
  cr_assert(sel.mem.activations > full.mem.activations, "full saves more");
  cr_assert(none.step_s < sel.step_s && sel.step_s < full.step_s,
            "time none %g < selective %g < full %g", none.step_s, sel.step_s, full.step_s);
  /* full recompute re-runs the forward: about 4/3 of the compute */
  cr_assert_float_eq(full.time.compute / none.time.compute, 4.0 / 3.0, 0.05, "ratio %g",
                     full.time.compute / none.time.compute);
}

Test(engine, zero_stages_shard_state) {
  sc_scenario s = small();
  sc_result z0 = predict_ok(&s);
  s.plan.zero = 1;
  sc_result z1 = predict_ok(&s);
  s.plan.zero = 2;
  sc_result z2 = predict_ok(&s);
  s.plan.zero = 3;
  sc_result z3 = predict_ok(&s);
  cr_assert_float_eq(z1.mem.optimizer, z0.mem.optimizer / 32, 1, "ZeRO-1 shards optimizer");
  cr_assert_float_eq(z2.mem.gradients, z1.mem.gradients / 32, 1, "ZeRO-2 shards gradients");
  cr_assert(z3.mem.weights < z2.mem.weights / 4, "ZeRO-3 shards weights: %g vs %g",
            z3.mem.weights, z2.mem.weights);
}

Test(engine, a_model_too_big_does_not_fit) {
  sc_scenario s;
  sc_scenario_default(&s);
  s.cluster.gpus = 8;
  s.plan.tp = 8;
  s.plan.pp = 1;
  s.plan.dp = 1;
  s.plan.zero = 0;
  s.plan.distributed_optimizer = 0;
  s.plan.global_batch = 8;
  sc_result r = predict_ok(&s);
  cr_assert(!r.mem.fits, "GPT-3 175B on 8 GPUs cannot fit: %g GiB", r.mem.total / 1073741824.0);
  cr_assert(r.mem.total > 2 * r.mem.capacity);
}

/* Model FLOPs equal Megatron's 72 B s l h^2 (1 + s/6h + V/12lh) for a GPT
 * (tied embeddings) up to the bias and norm parameters. */
Test(engine, model_flops_match_the_megatron_formula) {
  sc_scenario s = small();
  double B = 512, sq = 2048, l = 24, h = 2304, V = 51200;
  double megatron = 72 * B * sq * l * h * h * (1 + sq / (6 * h) + V / (12 * l * h));
  s.plan.global_batch = (long)B; /* one step of 512 sequences */
  double ours = predict_ok(&s).model_flops;
  cr_assert_float_eq(ours / megatron, 1.0, 0.01, "ours %g vs Megatron %g", ours, megatron);
}

Test(engine, faster_network_never_slows_the_step) {
  sc_scenario s;
  sc_scenario_default(&s);
  sc_result slow = predict_ok(&s);
  s.cluster.nic_bw *= 2;
  sc_result fast = predict_ok(&s);
  cr_assert(fast.step_s <= slow.step_s, "doubling NIC: %g > %g", fast.step_s, slow.step_s);
}

Test(engine, host_bound_small_model) {
  /* a tiny model issues kernels faster than the host can: the eager
   * framework's host time shows up, and vanishes for a compiled one */
  sc_scenario s = small();
  s.model.tf.hidden = 512;
  s.model.tf.heads = 8;
  s.model.tf.kv_heads = 8;
  s.model.tf.head_dim = 64;
  s.model.tf.ffn = 2048;
  s.model.tf.seq = 256;
  s.plan.micro_batch = 1;
  s.plan.global_batch = 32;
  sc_result eager = predict_ok(&s);
  cr_assert(eager.time.host > 0.3 * eager.step_s, "host share %g of %g", eager.time.host, eager.step_s);
  s.plan.framework_eager = 0;
  sc_result graph = predict_ok(&s);
  cr_assert(graph.time.host == 0 && graph.step_s < eager.step_s);
}

Test(engine, every_micro_batch_pays_the_batchs_host_time_with_the_gpu_idle) {
  /* a GPU-bound plan (big GEMMs, the host far ahead inside a pass) still
   * shows, per micro-batch, the host's work on the batch after it waited
   * for the GPU: 2.77 ms (cost_batch_host, docs/calibration.md) exposed
   * each time, in both engines */
  sc_scenario s = small();
  sc_result r = predict_ok(&s);
  int m = r.micro_batches;
  cr_assert(m > 1, "%d micro-batches", m);
  double per = r.time.host / m;
  /* plus the launches of the first kernels before the GPU has work */
  cr_assert(per >= 2.77e-3 && per < 3.0e-3, "host %g s over %d micro-batches = %g s each",
            r.time.host, m, per);
  sc_result ev;
  sc_error err = {0};
  cr_assert_eq(sc_predict_event(&s, NULL, &ev, NULL, &err), SC_OK, "%s", err.msg);
  cr_assert(fabs(ev.time.host - r.time.host) < 0.02 * r.time.host, "event host %g s, closed %g s",
            ev.time.host, r.time.host);
}

/* A named topology feeds the flow engine: a rail-optimized fabric that
 * matches the cluster changes nothing, a 4:1 oversubscribed fat-tree
 * slows the data-parallel reduction, a too-small one is an input error. */
static sc_result with_topology(const char *spec, int *rc, sc_error *err) {
  sc_scenario s = small();
  s.cluster.gpus = 64;
  s.plan.dp = 64;
  s.plan.global_batch = 256;
  s.plan.overlap_grad_reduce = 0;
  snprintf(s.cluster.topology, sizeof s.cluster.topology, "%s", spec);
  sc_result r;
  memset(&r, 0, sizeof r);
  *rc = sc_predict(&s, &r, err);
  return r;
}

Test(engine, topology_changes_what_it_should) {
  int rc;
  sc_error err = {0};
  sc_result none = with_topology("", &rc, &err);
  cr_assert_eq(rc, SC_OK, "%s", err.msg);
  sc_result rail = with_topology("rail:nodes=8,gpus=8,nvlink=300,nic=200", &rc, &err);
  cr_assert_eq(rc, SC_OK, "%s", err.msg);
  cr_assert_float_eq(rail.step_s, none.step_s, 1e-3 * none.step_s,
                     "matching rail fabric: %g vs %g", rail.step_s, none.step_s);
  /* hashed routes (ecmp=1): the rings' leaf-crossing flows collide on
   * the spines, and a 4:1 oversubscription slows the reduction */
  sc_result full = with_topology("fat_tree:hosts=64,radix=16,levels=2,oversub=1,bw=25,ecmp=1",
                                 &rc, &err);
  cr_assert_eq(rc, SC_OK, "%s", err.msg);
  sc_result over = with_topology("fat_tree:hosts=64,radix=16,levels=2,oversub=4,bw=25,ecmp=1",
                                 &rc, &err);
  cr_assert_eq(rc, SC_OK, "%s", err.msg);
  cr_assert(over.time.dp_comm > 2.0 * full.time.dp_comm,
            "4:1 oversubscription: dp %g vs %g", over.time.dp_comm, full.time.dp_comm);
  /* destination-mod-k (the default, InfiniBand's): each channel's ring
   * enters the next leaf at another GPU, so its one leaf-crossing flow
   * comes down its own spine, a quarter of a NIC wide at 4:1 -- and
   * every host's NIC carries all the channels' flows: the NICs bound
   * the ring, the oversubscription does not show */
  sc_result dfull = with_topology("fat_tree:hosts=64,radix=16,levels=2,oversub=1,bw=25", &rc,
                                  &err);
  cr_assert_eq(rc, SC_OK, "%s", err.msg);
  sc_result dover = with_topology("fat_tree:hosts=64,radix=16,levels=2,oversub=4,bw=25", &rc,
                                  &err);
  cr_assert_eq(rc, SC_OK, "%s", err.msg);
  cr_assert_float_eq(dover.time.dp_comm, dfull.time.dp_comm, 0.01 * dfull.time.dp_comm,
                     "destination-mod-k, 4:1: dp %g vs %g", dover.time.dp_comm,
                     dfull.time.dp_comm);
  cr_assert_float_eq(dfull.time.dp_comm, full.time.dp_comm, 0.01 * full.time.dp_comm,
                     "non-blocking: dp %g (dmodk) vs %g (ecmp)", dfull.time.dp_comm,
                     full.time.dp_comm);
  with_topology("ring:n=8", &rc, &err);
  cr_assert_eq(rc, SC_EINPUT);
  cr_assert(strstr(err.msg, "8 GPUs") && strstr(err.msg, "64"), "message: %s", err.msg);
}

/* The attention kernel: FA1 < FA2 < FA3 in speed at long sequences, and
 * the unfused kernels slowest; flash_attention off means unfused. */
Test(engine, attention_kernels_order_by_generation) {
  sc_scenario s;
  sc_scenario_default(&s);
  const sc_gpu *h100 = sc_gpu_preset("h100-sxm5-80gb");
  cr_assert_not_null(h100);
  s.cluster.gpu = *h100;
  s.cluster.nvlink_bw = 0;
  s.model.tf.seq = 8192;
  s.plan.recompute = SC_RECOMP_FULL;
  double t[4];
  const sc_attention order[4] = {SC_ATTN_FLASH3, SC_ATTN_FLASH2, SC_ATTN_FLASH1, SC_ATTN_UNFUSED};
  for (int i = 0; i < 4; i++) {
    s.plan.attention = order[i];
    s.plan.flash_attention = order[i] != SC_ATTN_UNFUSED;
    t[i] = predict_ok(&s).step_s;
  }
  for (int i = 0; i < 3; i++)
    cr_assert(t[i] < t[i + 1], "kernel %d (%g s) not faster than kernel %d (%g s)", order[i],
              t[i], order[i + 1], t[i + 1]);
  s.plan.attention = SC_ATTN_FLASH1;
  s.plan.flash_attention = 0;
  cr_assert_float_eq(predict_ok(&s).step_s, t[3], 1e-9 * t[3], "flash off = unfused");
}

Test(engine, mfu_is_against_the_dense_bf16_peak_in_fp8_too) {
  /* frameworks report fp8 runs' MFU against the 16-bit peak; the fp8
   * peak's fraction is beside it: on H100 (1979 / 989 TFLOP/s) exactly
   * half */
  sc_scenario s = small();
  s.cluster.gpu = *sc_gpu_preset("h100-sxm5-80gb");
  s.plan.dtype = SC_FP8;
  sc_result r = predict_ok(&s);
  cr_assert_float_eq(r.mfu_lowp / r.mfu, 989.4 / 1978.9, 1e-9, "mfu %g, fp8 fraction %g", r.mfu,
                     r.mfu_lowp);
  s.plan.dtype = SC_BF16;
  r = predict_ok(&s);
  cr_assert_eq(r.mfu, r.mfu_lowp);
}

Test(engine, unfused_kernels_move_more_bytes) {
  /* GPT-style layer (GELU, biases): without Megatron's fusions bias+GELU
   * moves twice the bytes and bias+dropout+add twice as well */
  sc_scenario s = small();
  sc_op_time a[64], b[64];
  sc_error err = {0};
  int na = sc_explain_layer(&s, a, 64, &err);
  cr_assert_gt(na, 0, "%s", err.msg);
  s.plan.fused_kernels = 0;
  int nb = sc_explain_layer(&s, b, 64, &err);
  cr_assert_eq(na, nb, "%s", err.msg);
  int seen = 0;
  for (int i = 0; i < na; i++) {
    if (!strcmp(a[i].name, "bias_gelu") || !strncmp(a[i].name, "bias_dropout_add", 16)) {
      cr_assert_float_eq(b[i].bytes / a[i].bytes, 2.0, 1e-9, "%s", a[i].name);
      seen++;
    } else {
      cr_assert_eq(b[i].bytes, a[i].bytes, "%s", a[i].name);
    }
  }
  cr_assert_eq(seen, 3);
  sc_result rf = predict_ok(&s);
  s.plan.fused_kernels = 1;
  cr_assert_gt(rf.step_s, predict_ok(&s).step_s);
}

Test(engine, cuda_graphs_take_the_framework_off_the_host_path) {
  /* a host-bound step (GPT-3 350M, tp 8, one sequence per GPU): replayed
   * from CUDA graphs it pays 1.1 us per kernel instead of the framework's
   * tens of microseconds per call, so the exposed host time falls and the
   * step gets shorter */
  sc_scenario s;
  sc_scenario_default(&s);
  s.model = *sc_model_preset("gpt3-350m");
  s.cluster.gpu = *sc_gpu_preset("h100-sxm5-80gb");
  s.cluster.gpus = 8;
  sc_plan_default(&s.plan);
  s.plan.tp = 8;
  s.plan.sp = 1;
  s.plan.global_batch = 8;
  s.plan.micro_batch = 1;
  sc_result eager = predict_ok(&s);
  s.plan.cuda_graphs = 1;
  sc_result graphs = predict_ok(&s);
  cr_assert_gt(eager.time.host, 0.1 * eager.step_s, "not host-bound: %g of %g", eager.time.host,
               eager.step_s);
  cr_assert_lt(graphs.time.host, 0.1 * eager.time.host, "%g vs %g", graphs.time.host,
               eager.time.host);
  cr_assert_lt(graphs.step_s, eager.step_s);
}

/* Combined 1F1B (plan.overlap_ep): the MoE all-to-alls of one micro-batch
 * hide under another's compute; a slow EP network exposes what the other
 * pass cannot cover, a single micro-batch has no partner, and Megatron's
 * preconditions are enforced. */
Test(engine, moe_all_to_all_overlap_hides_under_the_other_micro_batch) {
  sc_scenario s;
  sc_scenario_default(&s);
  s.model = *sc_model_preset("mixtral-8x7b");
  s.cluster.gpus = 64;
  sc_plan_default(&s.plan);
  s.plan.tp = 2;
  s.plan.pp = 1;
  s.plan.dp = 0;
  s.plan.ep = 8;
  s.plan.global_batch = 256;
  s.plan.micro_batch = 1;
  sc_result a = predict_ok(&s);
  s.plan.overlap_ep = 1;
  sc_result b = predict_ok(&s);
  cr_assert(a.time.ep_comm > 0 && b.time.ep_comm < 0.5 * a.time.ep_comm,
            "exposed EP %g s -> %g s", a.time.ep_comm, b.time.ep_comm);
  cr_assert_float_eq(a.time.compute, b.time.compute, 1e-9 * a.time.compute);
  cr_assert(b.step_s < a.step_s);
  /* one micro-batch per step: nothing to pair with */
  s.plan.global_batch = 32;
  sc_result c = predict_ok(&s);
  s.plan.overlap_ep = 0;
  sc_result d = predict_ok(&s);
  cr_assert_float_eq(c.step_s, d.step_s, 1e-12 * d.step_s);
  sc_error err = {0};
  sc_result r;
  s.plan.overlap_ep = 1;
  s.plan.recompute = SC_RECOMP_FULL;
  cr_assert_eq(sc_predict(&s, &r, &err), SC_EINPUT);
  cr_assert(strstr(err.msg, "plan.overlap_ep"), "%s", err.msg);
  s.plan.recompute = SC_RECOMP_SELECTIVE;
  s.plan.pp = 2;
  cr_assert_eq(sc_predict(&s, &r, &err), SC_EINPUT);
  cr_assert(strstr(err.msg, "valid: plan.vpp 2 or more"), "%s", err.msg);
}
