/*
 * test_amp.c -- automatic mixed precision (src/cost/amp.c, plan.amp): the
 * fp32 islands' bytes by hand, the lowering of BERT's norms and attention
 * softmax with and without AMP, and the per-step passes in the optimizer
 * time of a whole prediction.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "cost/amp.h"
#include "cost/compute.h"
#include "lowered.h"

#define NEAR(got, want, what)                                                            \
  cr_assert(fabs((got) - (want)) <= 1e-9 * fabs(want), "%s: %.9g, want %.9g", what, \
            (double)(got), (double)(want))

/* A norm of n elements (its kernels move 2 elements per element forward,
 * 4 backward: bwd_scale 2) in fp16: forward cast in 2 + 4, the norm 2 x 4,
 * cast out 4 + 2 = 20 bytes an element; backward the norm 4 x 4 and the
 * same two casts = 28. */
Test(amp, island_bytes_by_hand) {
  double bs = 2.0;
  int casts = 0;
  double f = amp_island_bytes(1e6, 2, 2, &bs, &casts);
  NEAR(f, 20e6, "forward bytes");
  NEAR(f * bs, 28e6, "backward bytes");
  cr_assert_eq(casts, 2);
  /* the attention softmax (2 elements forward, 1.5 x backward): 8 + 12
   * = 20 forward, 12 + 12 = 24 backward */
  bs = 1.5;
  f = amp_island_bytes(1e6, 2, 2, &bs, &casts);
  NEAR(f, 20e6, "softmax forward");
  NEAR(f * bs, 24e6, "softmax backward");
}

Test(amp, only_with_a_16_bit_plan) {
  sc_plan p;
  memset(&p, 0, sizeof p);
  p.amp = 1;
  p.dtype = SC_FP16;
  cr_assert(amp_on(&p));
  p.dtype = SC_BF16;
  cr_assert(amp_on(&p));
  p.dtype = SC_FP32;
  cr_assert(!amp_on(&p), "an fp32 plan has nothing to cast");
  p.dtype = SC_FP8;
  cr_assert(!amp_on(&p), "fp8 plans are Transformer Engine's (cost/fp8cast.c)");
  p.dtype = SC_FP16;
  p.amp = 0;
  cr_assert(!amp_on(&p));
}

/* BERT-base on one V100, batch 8 at seq 128, fp16 (amp as given). */
static void bert(sc_scenario *s, int amp, const char *dtype) {
  char d[32], a[32];
  snprintf(d, sizeof d, "plan.dtype=\"%s\"", dtype);
  snprintf(a, sizeof a, "plan.amp=%s", amp ? "true" : "false");
  const char *ov[] = {"cluster.gpu=\"v100-sxm2-16gb\"", "cluster.gpus=1", "plan.tp=1",
                      "plan.pp=1", "plan.global_batch=8", "plan.micro_batch=8",
                      "plan.flash_attention=false", d, a};
  sc_error err = {0};
  cr_assert_eq(sc_scenario_load_string(s, "{\"model\": \"bert_base\"}", "t", ov, 9, &err),
               SC_OK, "%s", err.msg);
}

/* BERT as bert() loads it, lowered (lowered.h); free with lowered_done. */
static void lower_bert(lowered *l, int amp) {
  sc_scenario s;
  bert(&s, amp, "fp16");
  lowered_make(l, &s);
}

Test(amp, bert_norms_and_softmax_run_in_fp32_between_casts) {
  lowered off, on;
  lower_bert(&off, 0);
  lower_bert(&on, 1);
  double n = 8.0 * 128 * 768, scores = 8.0 * 12 * 128 * 128;
  const xg_task *a = lowered_task(&off, "norm1"), *b = lowered_task(&on, "norm1");
  NEAR(a->bytes, 4 * n, "fp16 norm forward");
  NEAR(a->bytes * a->bwd_scale, 8 * n, "fp16 norm backward");
  NEAR(b->bytes, 20 * n, "AMP norm forward");
  NEAR(b->bytes * b->bwd_scale, 28 * n, "AMP norm backward");
  cr_assert_eq(b->host_fwd, a->host_fwd + 2, "two casts forward");
  cr_assert_eq(b->host_bwd, a->host_bwd + 2, "two casts backward");
  /* BERT's softmax is the framework's torch.softmax, its 2 passes forward
   * and 3 backward at the measured 1.42 and 1.76 (cost/softmax.h): fp16
   * 4 x 1.42 = 5.68 and 6 x 1.76 = 10.56 bytes a score; AMP the same
   * passes at 4 bytes and the two casts (2 + 4 each): 11.36 + 12 = 23.36
   * and 21.12 + 12 = 33.12 */
  a = lowered_task(&off, "softmax"), b = lowered_task(&on, "softmax");
  NEAR(a->bytes, 5.68 * scores, "fp16 softmax");
  NEAR(a->bytes * a->bwd_scale, 10.56 * scores, "fp16 softmax backward");
  NEAR(b->bytes, 23.36 * scores, "AMP softmax forward");
  NEAR(b->bytes * b->bwd_scale, 33.12 * scores, "AMP softmax backward");
  /* the GEMMs are the same 16-bit GEMMs */
  a = lowered_task(&off, "fc1"), b = lowered_task(&on, "fc1");
  cr_assert(a->dtype == SC_FP16 && b->dtype == SC_FP16 && a->flops == b->flops);
  lowered_done(&off);
  lowered_done(&on);
}

/* The optimizer's 34 bytes per parameter plus AMP's 18, one kernel's
 * fixed cost each way: (on - off) / (off - t0) = 18 / 34. */
Test(amp, per_step_passes_in_the_optimizer_time) {
  sc_scenario s;
  sc_result off, on;
  sc_error err = {0};
  bert(&s, 0, "fp16");
  cr_assert_eq(sc_predict(&s, &off, &err), SC_OK, "%s", err.msg);
  bert(&s, 1, "fp16");
  cr_assert_eq(sc_predict(&s, &on, &err), SC_OK, "%s", err.msg);
  double extra = on.time.optimizer - off.time.optimizer;
  /* one micro-batch, nothing sharded: 12 + 8 - 2 = 18 bytes a parameter */
  NEAR(extra / (off.time.optimizer - COST_KERNEL_T0), 18.0 / 34.0,
       "AMP passes over the optimizer's bytes");
  cr_assert(on.step_s > off.step_s + extra, "the fp32 islands cost time too: %g vs %g + %g",
            on.step_s, off.step_s, extra);
}

/* The optimizer-time ratio (AMP on - off) / (off - one kernel's fixed
 * cost) of BERT-base on one V100, 4 micro-batches of 8, fp16, with
 * plan.framework_eager `eager`. */
static double accum_ratio(int eager) {
  sc_scenario s;
  sc_result off, on;
  sc_error err = {0};
  for (int amp = 0; amp < 2; amp++) {
    const char *ov[] = {"cluster.gpu=\"v100-sxm2-16gb\"", "cluster.gpus=1", "plan.tp=1",
                        "plan.pp=1", "plan.global_batch=32", "plan.micro_batch=8",
                        "plan.flash_attention=false", "plan.dtype=\"fp16\"",
                        amp ? "plan.amp=true" : "plan.amp=false",
                        eager ? "plan.framework_eager=true" : "plan.framework_eager=false"};
    cr_assert_eq(sc_scenario_load_string(&s, "{\"model\": \"bert_base\"}", "t", ov, 10, &err),
                 SC_OK, "%s", err.msg);
    cr_assert_eq(sc_predict(&s, amp ? &on : &off, &err), SC_OK, "%s", err.msg);
  }
  cr_assert_eq(on.micro_batches, 4);
  return (on.time.optimizer - off.time.optimizer) / (off.time.optimizer - COST_KERNEL_T0);
}

/* With gradient accumulation the casts run every micro-batch (autocast's
 * cache lives one forward) and loss scaling once: 4 micro-batches,
 * nothing sharded, 12 x 4 + 8 - 2 = 54 bytes a parameter against the
 * optimizer's 34, where a graph framework accumulates (not counted). */
Test(amp, casts_each_micro_batch) {
  NEAR(accum_ratio(0), 54.0 / 34.0, "casts per micro-batch, loss scaling per step");
}

/* PyTorch (eager): autograd's AccumulateGrad steals the first
 * micro-batch's fp32 gradient and adds the next three in place, read 4 +
 * read 4 + write 4 each: 54 + 3 x 12 = 90 bytes a parameter. */
Test(amp, pytorch_adds_each_later_micro_batch) {
  NEAR(accum_ratio(1), 90.0 / 34.0, "casts, three in-place adds, loss scaling");
  NEAR(amp_pass_bytes(1e6, 1e6, 1, 1e6, 1), 18e6, "one micro-batch: nothing to add");
  NEAR(amp_pass_bytes(1e6, 1e6, 1, 1e6, 0), 10e6, "bf16: no loss scaling (8 bytes less)");
  NEAR(amp_pass_bytes(1e6, 0.25e6, 4, 1e6, 1), (12 * 4 + 12 * 3) * 1e6 + 6 * 0.25e6,
       "the adds run over the local parameters, not the shard");
}

/* The optimizer time of MPT-125m under AMP on 8 A100, bf16, ZeRO
 * `zero` over dp 8, 4 micro-batches of one sequence, with
 * plan.framework_eager `eager`. */
static double sharded_opt(int zero, int eager) {
  char z[16];
  snprintf(z, sizeof z, "plan.zero=%d", zero);
  const char *ov[] = {"cluster.gpu=\"a100-sxm4-80gb\"", "cluster.gpus=8", "plan.tp=1",
                      "plan.pp=1", "plan.dp=8", "plan.dtype=\"bf16\"", "plan.amp=true",
                      "plan.global_batch=32", "plan.micro_batch=1", "plan.fsdp_impl=\"fsdp1\"",
                      z, eager ? "plan.framework_eager=true" : "plan.framework_eager=false"};
  sc_scenario s;
  sc_result r;
  sc_error err = {0};
  cr_assert_eq(sc_scenario_load_string(&s, "{\"model\": \"mpt-125m\"}", "t", ov, 12, &err),
               SC_OK, "%s", err.msg);
  cr_assert_eq(sc_predict(&s, &r, &err), SC_OK, "%s", err.msg);
  cr_assert_eq(r.micro_batches, 4);
  return r.time.optimizer;
}

/* ZeRO 1 keeps each gradient whole through the step: PyTorch adds the
 * three later micro-batches' into .grad. Under ZeRO-3 (FSDP units) the
 * post-backward hook reduce-scatters and frees each micro-batch's
 * gradient, so AccumulateGrad steals every time and FSDP accumulates the
 * shard (fsdp1k.c): no AMP add, eager or not. */
Test(amp, no_adds_where_fsdp_frees_the_gradient) {
  cr_assert_gt(sharded_opt(1, 1), sharded_opt(1, 0), "ZeRO 1: PyTorch adds");
  cr_assert_float_eq(sharded_opt(3, 1), sharded_opt(3, 0), 1e-15, "ZeRO-3: nothing added");
}

/* AMP on a plan with no 16-bit GEMMs (fp32) would change nothing:
 * refused as an input error naming the key and the valid dtypes. */
Test(amp, refused_without_16_bit_gemms) {
  sc_scenario s;
  sc_error err = {0};
  const char *ov[] = {"cluster.gpu=\"v100-sxm2-16gb\"", "cluster.gpus=1", "plan.tp=1",
                      "plan.pp=1", "plan.global_batch=8", "plan.dtype=\"fp32\"",
                      "plan.amp=true"};
  cr_assert_eq(sc_scenario_load_string(&s, "{\"model\": \"bert_base\"}", "t", ov, 7, &err),
               SC_EINPUT);
  cr_assert(strstr(err.msg, "plan.amp: ") &&
                strstr(err.msg, "\"fp16\" or \"bf16\" (is \"fp32\")"),
            "%s", err.msg);
  bert(&s, 0, "fp32"); /* the same without amp loads */
}

/* BERT on one A100 in bf16 under AMP with `key_ov` (a plan key that
 * contradicts AMP's fp32 parameters): refused naming `key` and plan.amp;
 * the same loads without AMP, and AMP loads without the key. */
static void refused_with_amp(const char *key_ov, const char *key) {
  sc_scenario s;
  sc_error err = {0};
  const char *ov[] = {"cluster.gpu=\"a100-sxm4-80gb\"", "cluster.gpus=1", "plan.tp=1",
                      "plan.pp=1", "plan.global_batch=8", "plan.dtype=\"bf16\"",
                      "plan.amp=true", key_ov};
  cr_assert_eq(sc_scenario_load_string(&s, "{\"model\": \"bert_base\"}", "t", ov, 8, &err),
               SC_EINPUT, "%s with amp loads", key_ov);
  cr_assert(strstr(err.msg, key) && strstr(err.msg, "plan.amp"), "%s", err.msg);
  cr_assert_eq(sc_scenario_load_string(&s, "{\"model\": \"bert_base\"}", "t", ov, 7, &err),
               SC_OK, "amp alone: %s", err.msg);
  ov[6] = "plan.amp=false";
  cr_assert_eq(sc_scenario_load_string(&s, "{\"model\": \"bert_base\"}", "t", ov, 8, &err),
               SC_OK, "%s without amp: %s", key_ov, err.msg);
}

/* AMP's parameters are fp32: no bf16 half for plan.param_remainders to
 * complete, and their gradients are fp32, not plan.main_grads bf16. */
Test(amp, keys_of_16_bit_parameters_refused_with_amp) {
  refused_with_amp("plan.param_remainders=true", "plan.param_remainders: ");
  refused_with_amp("plan.main_grads=\"bf16\"", "plan.main_grads: \"bf16\"");
}
