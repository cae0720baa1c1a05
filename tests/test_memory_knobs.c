/*
 * test_memory_knobs.c -- memory per GPU under the knobs frameworks run
 * with: 16-bit main gradients, fp8 weight copies and fp8-saved GEMM
 * inputs, fp8 primary weights, partial recomputation of N layers per
 * chunk; each against arithmetic a reader can redo, and bad combinations
 * refused.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "gpt24.h"
#include "predict.h" /* predict_ok */
#include "stepcast.h"

Test(memory, bf16_main_grads_halve_the_gradients) {
  sc_scenario s = gpt24_h100();
  sc_result a = predict_ok(&s);
  s.plan.main_grads = SC_BF16;
  sc_result b = predict_ok(&s);
  cr_assert_float_eq(b.mem.gradients / a.mem.gradients, 0.5, 1e-12, "%g vs %g",
                     b.mem.gradients, a.mem.gradients);
  cr_assert_eq(a.mem.weights, b.mem.weights);
}

Test(memory, fp8_keeps_weight_copies_and_one_byte_gemm_inputs) {
  /* the most loaded stage holds 12 layers; each layer's GEMM weights are
   * 12 h^2 / tp = 12 x 2048^2 / 2 per GPU; fp8 adds an fp8 copy and its
   * transpose, 2 bytes each */
  sc_scenario s = gpt24_h100();
  sc_result bf = predict_ok(&s);
  s.plan.dtype = SC_FP8;
  sc_result f8 = predict_ok(&s);
  double lp = 12.0 * 12.0 * 2048.0 * 2048.0 / 2;
  cr_assert_float_eq(f8.mem.weights - bf.mem.weights, 2 * lp, 1e-6 * lp,
                     "extra weight bytes %g, expected %g", f8.mem.weights - bf.mem.weights, 2 * lp);
  /* fp8 primary weights: the copy and transpose replace the 16-bit weight */
  s.plan.fp8_param = 1;
  sc_result p8 = predict_ok(&s);
  cr_assert_float_eq(p8.mem.weights, bf.mem.weights, 1e-6 * lp, "%g vs %g", p8.mem.weights,
                     bf.mem.weights);
  /* activations: of the 34 s b h bytes a layer keeps (Korthikanti et al.)
   * the GEMM inputs are 2 (QKV) + 2 (projection) + 2 (fc1) + 8 (fc2) =
   * 14; kept in fp8 they take 7: 27/34 of the bf16 figure per layer (the
   * embedding and output layer keep theirs, hence the tolerance) */
  double ratio = f8.mem.activations / bf.mem.activations;
  cr_assert(fabs(ratio - 27.0 / 34.0) < 0.03, "fp8/bf16 activations %g, expected ~%g", ratio,
            27.0 / 34.0);
}

Test(memory, partial_recompute_is_linear_in_the_layers_recomputed) {
  /* recompute full on the first N of the 24 layers of the one stage (pp 1,
   * so that the most loaded stage stays the same): each layer taken out
   * of recomputation keeps its activations instead of its input, the same
   * bytes per layer */
  sc_scenario s = gpt24_h100();
  s.plan.pp = 1;
  s.plan.dp = 4;
  s.plan.recompute = SC_RECOMP_FULL;
  sc_result all = predict_ok(&s);
  double act[25];
  for (int n = 1; n <= 24; n++) {
    s.plan.recompute_layers = n;
    act[n] = predict_ok(&s).mem.activations;
  }
  cr_assert_float_eq(act[24], all.mem.activations, 1e-9 * act[24]);
  double step = act[1] - act[2];
  cr_assert_gt(step, 0);
  for (int n = 2; n < 24; n++)
    cr_assert_float_eq(act[n] - act[n + 1], step, 1e-6 * step, "N %d: %g vs %g", n,
                       act[n] - act[n + 1], step);
  /* and the step runs faster with fewer layers recomputed */
  s.plan.recompute_layers = 4;
  cr_assert_lt(predict_ok(&s).step_s, all.step_s);
}

Test(memory, bad_combinations_say_what_is_valid) {
  sc_scenario s = gpt24_h100();
  sc_result r;
  sc_error err = {0};
  s.plan.fp8_param = 1;
  cr_assert_eq(sc_predict(&s, &r, &err), SC_EINPUT);
  cr_assert(strstr(err.msg, "plan.fp8_param: fp8 primary weights need plan.dtype \"fp8\""), "%s",
            err.msg);
  s = gpt24_h100();
  s.plan.recompute_layers = 2;
  cr_assert_eq(sc_predict(&s, &r, &err), SC_EINPUT);
  cr_assert(strstr(err.msg, "need plan.recompute \"full\""), "%s", err.msg);
  s = gpt24_h100();
  s.plan.main_grads = SC_FP8;
  cr_assert_eq(sc_predict(&s, &r, &err), SC_EINPUT);
  cr_assert(strstr(err.msg, "valid: \"fp32\", \"bf16\""), "%s", err.msg);
}

/* Forward bytes of the layer's task `name` (sc_explain_layer). */
static double task_bytes(const sc_scenario *s, const char *name) {
  sc_op_time ops[96];
  sc_error err = {0};
  int n = sc_explain_layer(s, ops, 96, &err);
  cr_assert_gt(n, 0, "%s", err.msg);
  for (int i = 0; i < n; i++)
    if (!strcmp(ops[i].name, name)) return ops[i].bytes;
  cr_assert_fail("no %s among %d operators", name, n);
  return 0;
}

static double cast_fc1_bytes(const sc_scenario *s) { return task_bytes(s, "cast_fc1"); }

Test(memory, fp8_casts_of_the_norm_fed_fc1_per_recipe) {
  /* fc1 reads the norm output, gathered by sequence parallelism over tp 2:
   * N = seq x hidden = 2048 x 2048 elements after the gather, e = 2.
   *   delayed: the norm writes fp8 on its shard (1 - e = -1 byte an element,
   *            over N / 2), nvte_transpose of the gathered copy (2): 1.5 N,
   *            plus the amax histories of 3 tensors, 3 x 1024 x 4 x 2 bytes
   *            (H100: fp8 GEMMs only in the TN layout)
   *   current: norm + amax fused, cast of the shard (e + 1 = 3, over N / 2),
   *            transpose (2): 3.5 N
   *   block:   both 1x128-scaled copies from the shard (2 + 2 x 1.03125,
   *            over N / 2): 2.03125 N
   * and the step gets slower from delayed to current scaling. */
  sc_scenario s = gpt24_h100();
  s.plan.dtype = SC_FP8;
  double N = 2048.0 * 2048.0;
  /* delayed: the transpose (2 N) in the cast task, the norm's -N / 2 in
   * the norm's own task (norm2, whose output fc1 reads) */
  cr_assert_float_eq(cast_fc1_bytes(&s), 2 * N + 24576, 1.0, "%g", cast_fc1_bytes(&s));
  double norm_delayed = task_bytes(&s, "norm2");
  sc_result delayed = predict_ok(&s);
  s.plan.fp8_recipe = SC_FP8_CURRENT;
  cr_assert_float_eq(cast_fc1_bytes(&s), 3.5 * N, 1.0, "%g", cast_fc1_bytes(&s));
  cr_assert_float_eq(task_bytes(&s, "norm2") - norm_delayed, 0.5 * N, 1.0, "%g vs %g",
                     task_bytes(&s, "norm2"), norm_delayed);
  cr_assert_gt(predict_ok(&s).step_s, delayed.step_s);
  s.plan.fp8_recipe = SC_FP8_BLOCK;
  cr_assert_float_eq(cast_fc1_bytes(&s), 2.03125 * N, 1.0, "%g", cast_fc1_bytes(&s));
}

/* The layer's operator `name` (sc_explain_layer). */
static sc_op_time op_of(const sc_scenario *s, const char *name) {
  sc_op_time ops[96];
  sc_error err = {0};
  int n = sc_explain_layer(s, ops, 96, &err);
  cr_assert_gt(n, 0, "%s", err.msg);
  for (int i = 0; i < n; i++)
    if (!strcmp(ops[i].name, name)) return ops[i];
  cr_assert_fail("no %s among %d operators", name, n);
  return ops[0];
}

Test(memory, fp8_sequence_parallel_gathers_move_one_byte_an_element) {
  /* per-tensor recipes gather fp8 under sequence parallelism: fc1's input
   * all-gather in forward and fc2's output-gradient all-gather in backward
   * (the reduce-scatter's backward) move half the bytes of the block
   * recipe, which keeps 16-bit gathers; the other directions (16-bit
   * gradients and outputs) take the same time. plan.tp_async_bwd off: the
   * gather's backward is its reduce-scatter alone */
  sc_scenario s = gpt24_h100();
  s.plan.dtype = SC_FP8;
  s.plan.tp_async_bwd = 0;
  sc_op_time ag_d = op_of(&s, "ag_fc1"), rs_d = op_of(&s, "rs_fc2");
  s.plan.fp8_recipe = SC_FP8_BLOCK;
  sc_op_time ag_b = op_of(&s, "ag_fc1"), rs_b = op_of(&s, "rs_fc2");
  cr_assert_lt(ag_d.fwd_s, ag_b.fwd_s, "%g vs %g", ag_d.fwd_s, ag_b.fwd_s);
  cr_assert_float_eq(ag_d.bwd_s, ag_b.bwd_s, 1e-12, "%g vs %g", ag_d.bwd_s, ag_b.bwd_s);
  cr_assert_lt(rs_d.bwd_s, rs_b.bwd_s, "%g vs %g", rs_d.bwd_s, rs_b.bwd_s);
  cr_assert_float_eq(rs_d.fwd_s, rs_b.fwd_s, 1e-12, "%g vs %g", rs_d.fwd_s, rs_b.fwd_s);
  /* on, the backward gathers fc1's input again for its weight gradient,
   * as the forward did: in fp8 under the per-tensor recipe */
  s.plan.tp_async_bwd = 1;
  sc_op_time ag_b1 = op_of(&s, "ag_fc1");
  s.plan.fp8_recipe = SC_FP8_DELAYED;
  sc_op_time ag_d1 = op_of(&s, "ag_fc1");
  cr_assert_float_eq(ag_d1.bwd_s, ag_d.bwd_s + ag_d.fwd_s, 1e-12, "%g vs %g + %g", ag_d1.bwd_s,
                     ag_d.bwd_s, ag_d.fwd_s);
  cr_assert_float_eq(ag_b1.bwd_s, ag_b.bwd_s + ag_b.fwd_s, 1e-12, "%g vs %g + %g", ag_b1.bwd_s,
                     ag_b.bwd_s, ag_b.fwd_s);
}

Test(memory, first_and_last_layers_in_bf16_drop_their_fp8_copies) {
  /* pp 1: the two layers kept in 16 bits hold no fp8 weight copies:
   * 2 layers x 2 bytes x 12 h^2 / tp fewer bytes, and their GEMMs run at
   * the bf16 rate (more GPU compute time) */
  sc_scenario s = gpt24_h100();
  s.plan.pp = 1;
  s.plan.dp = 4;
  s.plan.dtype = SC_FP8;
  sc_result all = predict_ok(&s);
  s.plan.bf16_first_layers = 1;
  s.plan.bf16_last_layers = 1;
  sc_result kept = predict_ok(&s);
  double per_layer = 12.0 * 2048.0 * 2048.0 / 2;
  cr_assert_float_eq(all.mem.weights - kept.mem.weights, 2 * 2 * per_layer, 1e-6 * per_layer,
                     "%g", all.mem.weights - kept.mem.weights);
  cr_assert_gt(kept.time.compute, all.time.compute);
}

Test(memory, hsdp_shards_within_and_replicates_across) {
  /* ZeRO-3 over dp 32 (8 nodes x 4... here 32 GPUs, tp 1): optimizer
   * states divided by 32; with fsdp_shard 8 by 8 -- exactly 4x more -- and
   * the gradient all-reduce across the 4 replicas shows in dp_comm */
  sc_scenario s = gpt24_h100();
  s.cluster.gpus = 32;
  s.plan.tp = 1;
  s.plan.sp = 0;
  s.plan.pp = 1;
  s.plan.dp = 32;
  s.plan.zero = 3;
  s.plan.global_batch = 64;
  sc_result full = predict_ok(&s);
  s.plan.fsdp_shard = 8;
  sc_result hsdp = predict_ok(&s);
  cr_assert_float_eq(hsdp.mem.optimizer / full.mem.optimizer, 4.0, 1e-9, "%g vs %g",
                     hsdp.mem.optimizer, full.mem.optimizer);
  cr_assert_gt(hsdp.mem.weights, full.mem.weights);
  sc_error err = {0};
  sc_result r;
  s.plan.fsdp_shard = 5;
  cr_assert_eq(sc_predict(&s, &r, &err), SC_EINPUT);
  cr_assert(strstr(err.msg, "plan.fsdp_shard: 5 does not divide dp*cp 32"), "%s", err.msg);
  s.plan.fsdp_shard = 8;
  s.plan.zero = 1;
  cr_assert_eq(sc_predict(&s, &r, &err), SC_EINPUT);
  cr_assert(strstr(err.msg, "needs plan.zero 3"), "%s", err.msg);
}

/* Activation offloading of the first N layers (Megatron's CPU offloading:
 * pp 1, no recomputation). Each offloaded layer frees its saved
 * activations L but one layer's worth stays as the copy buffer, so N
 * layers save (N - 1) L; each copies L to the host in forward and back in
 * backward over the host link, exposed where the layer's compute does not
 * cover it. */
Test(memory, activation_offload_frees_layers_and_costs_host_copies) {
  sc_scenario s = gpt24_h100();
  s.plan.pp = 1;
  s.plan.dp = 4;
  s.plan.recompute = SC_RECOMP_NONE;
  sc_result r0 = predict_ok(&s);
  s.plan.offload_layers = 2;
  sc_result r2 = predict_ok(&s);
  s.plan.offload_layers = 4;
  sc_result r4 = predict_ok(&s);
  double L = r0.mem.activations - r2.mem.activations;
  cr_assert(L > 0, "one layer's activations: %g", L);
  cr_assert_float_eq(r2.mem.activations - r4.mem.activations, 2 * L, 1e-6 * L);
  /* a slow host link (1 GB/s), each GPU's own (dgx-a100 shares one per
   * two GPUs: test_hostlink.c): the copies dwarf the compute, both ways */
  s.cluster.gpu.host_bw = 1e9;
  s.cluster.host.gpus_per_link = 1;
  sc_result slow = predict_ok(&s);
  double mbs = (double)slow.micro_batches, copies = 2.0 * 4 * mbs * L / 1e9;
  cr_assert(slow.time.offload < copies && slow.time.offload > 0.95 * copies,
            "exposed %g s, copies %g s", slow.time.offload, copies);
  /* the GPU waits for the copies while the host issues on: the step
   * grows by the exposed copies less the host time they hide */
  double grew = slow.step_s - r0.step_s;
  cr_assert(grew <= slow.time.offload * (1 + 1e-9) &&
                grew >= slow.time.offload - r0.time.host - 1e-9 * slow.step_s,
            "step grew %g s, exposed copies %g s, host time %g s (now %g s)", grew,
            slow.time.offload, r0.time.host, slow.time.host);
  /* an instant link, CPU memory not limiting, hides everything */
  s.cluster.gpu.host_bw = 1e18;
  s.cluster.host.mem_bw = 0;
  cr_assert_eq(predict_ok(&s).time.offload, 0);
  /* what Megatron refuses */
  sc_error err = {0};
  sc_result r;
  s.plan.recompute = SC_RECOMP_SELECTIVE;
  cr_assert_eq(sc_predict(&s, &r, &err), SC_EINPUT);
  cr_assert(strstr(err.msg, "plan.offload_layers"), "%s", err.msg);
  s.plan.recompute = SC_RECOMP_NONE;
  s.plan.offload_layers = 24;
  cr_assert_eq(sc_predict(&s, &r, &err), SC_EINPUT);
  cr_assert(strstr(err.msg, "valid: 0 to 23"), "%s", err.msg);
}

/* Mixtral 8x7B on one server of 8 H100, tp 1, pp 1, ep e, Megatron's
 * distributed optimizer (ZeRO 1): the dense parameters' optimizer state
 * (fp32 master + Adam's m and v, 12 bytes) is sharded over the 8
 * data-parallel ranks, the experts' over their own data-parallel group,
 * 8 / e ranks (Megatron-Core's DDP keeps expert buffers apart). Each GPU
 * holds 8 / e experts of 3 x 4096 x 14336 weights in each of 32 layers. */
static sc_scenario mixtral_8(int ep, int zero) {
  char json[512];
  snprintf(json, sizeof json,
           "{\"model\": \"mixtral-8x7b\", \"cluster\": {\"gpu\": \"h100-sxm5-80gb\", \"gpus\": 8},"
           " \"plan\": {\"tp\": 1, \"pp\": 1, \"ep\": %d, \"zero\": %d, \"global_batch\": 64,"
           " \"micro_batch\": 1, \"recompute\": \"full\"}}",
           ep, zero);
  return scenario_ok(json);
}

Test(memory, moe_experts_shard_their_optimizer_state_over_the_expert_data_parallel_group) {
  for (int ep = 1; ep <= 8; ep *= 2) {
    sc_scenario s = mixtral_8(ep, 0);
    sc_result whole = predict_ok(&s);
    s = mixtral_8(ep, 1);
    sc_result z1 = predict_ok(&s);
    double local = whole.mem.weights / 2;                  /* bf16 weights: parameters per GPU */
    double experts = (8.0 / ep) * 32 * 3 * 4096.0 * 14336; /* of them, the experts' */
    double edp = 8.0 / ep;
    cr_assert_float_eq(whole.mem.optimizer, 12 * local, 1e-9 * local, "ep %d: %g", ep,
                       whole.mem.optimizer);
    double want = 12 * ((local - experts) / 8 + experts / edp);
    cr_assert_float_eq(z1.mem.optimizer, want, 1e-9 * want, "ep %d: optimizer %g, expected %g",
                       ep, z1.mem.optimizer, want);
    cr_assert_eq(z1.mem.weights, whole.mem.weights);
  }
}

/* With ep = 8 the experts' data-parallel group is one rank: their
 * gradients are not reduced across GPUs, only the dense parameters' (1.6
 * of ep 1's 46.7 billion a GPU): the reduce-scatter and gather, all
 * exposed (no overlap), shrink with the bytes (GB-sized collectives: near
 * linear in them). */
Test(memory, moe_experts_with_one_rank_per_group_reduce_nothing) {
  sc_scenario s = mixtral_8(8, 1);
  s.plan.overlap_grad_reduce = s.plan.overlap_param_gather = 0;
  sc_result r8 = predict_ok(&s);
  s = mixtral_8(1, 1);
  s.plan.overlap_grad_reduce = s.plan.overlap_param_gather = 0;
  sc_result r1 = predict_ok(&s);
  double dense8 = r8.mem.weights / 2 - 32 * 3 * 4096.0 * 14336, all1 = r1.mem.weights / 2;
  double ratio = r8.time.dp_comm / r1.time.dp_comm;
  cr_assert(fabs(ratio / (dense8 / all1) - 1) < 0.15, "dp time ep 8 / ep 1 %g, bytes %g", ratio,
            dense8 / all1);
}

Test(memory, interleaving_with_as_many_micro_batches_as_stages_holds_them_all) {
  /* pp 4, vpp 2, 4 micro-batches: stage 0's warm-up would be (4 - 1) 2 +
   * (2 - 1) 4 = 10 chunk forwards, but the step has only 4 x 2 = 8, so
   * every forward precedes its first backward and it holds all 4
   * micro-batches of its 6 layers and the embedding -- what 1F1B's
   * stage 0 holds (min(pp, m) = 4), not the 4 (1 + 3/8) = 5.5 of the
   * first-stage formula for many micro-batches (Korthikanti et al.) */
  sc_scenario s = gpt24_h100();
  s.plan.pp = 4;
  s.plan.dp = 1;
  s.plan.global_batch = 4;
  s.plan.schedule = SC_SCHED_1F1B;
  sc_result one = predict_ok(&s);
  s.plan.schedule = SC_SCHED_INTERLEAVED;
  s.plan.vpp = 2;
  sc_result il = predict_ok(&s);
  cr_assert_float_eq(il.mem.activations, one.mem.activations, 1e-9 * one.mem.activations,
                     "interleaved %g vs 1f1b %g", il.mem.activations, one.mem.activations);
}
