/*
 * test_optim_dtypes.c -- Megatron's precision-aware optimizer
 * (plan.main_params_dtype, exp_avg_dtype, exp_avg_sq_dtype): the bytes per
 * parameter of the master weights and Adam's moments for each combination,
 * sharded by the distributed optimizer over dp; the step's HBM bytes; the
 * combinations Megatron refuses, each with what would be valid.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "gpt24.h"
#include "predict.h" /* predict_ok */
#include "stepcast.h"

/* gpt24 (tp 2, pp 2, dp 2) with zero 1, Megatron's distributed optimizer. */
static sc_scenario gpt24_zero1(void) {
  sc_scenario s = gpt24_h100();
  s.plan.zero = 1;
  return s;
}

/* gpt24_zero1 with the
 * three dtypes and dp; its most loaded stage's parameters per GPU into
 * *params (its bf16 weights, unsharded under zero 1, over 2 bytes). */
static sc_result with(sc_dtype master, sc_dtype m, sc_dtype v, int remainders, int dp,
                      double *params) {
  sc_scenario s = gpt24_zero1();
  s.cluster.gpus = 4 * dp;
  s.plan.dp = dp;
  s.plan.global_batch = 8 * dp;
  s.plan.main_params = master, s.plan.exp_avg = m, s.plan.exp_avg_sq = v;
  s.plan.param_remainders = remainders;
  sc_result r = predict_ok(&s);
  *params = r.mem.weights / 2;
  return r;
}

Test(optim_dtypes, bytes_per_parameter_of_each_combination) {
  /* master + exp_avg + exp_avg_sq, bytes per parameter before sharding */
  static const struct {
    sc_dtype master, m, v;
    int remainders;
    double bytes;
  } cases[] = {
      {SC_FP32, SC_FP32, SC_FP32, 0, 4 + 4 + 4}, /* Megatron's default */
      {SC_FP32, SC_BF16, SC_BF16, 0, 4 + 2 + 2}, /* DeepSeek-V3's BF16 moments */
      {SC_FP32, SC_FP16, SC_FP16, 0, 4 + 2 + 2},
      {SC_FP32, SC_FP8, SC_FP8, 0, 4 + 1 + 1},
      {SC_FP32, SC_BF16, SC_FP32, 0, 4 + 2 + 4},
      {SC_FP32, SC_FP8, SC_BF16, 0, 4 + 1 + 2},
      {SC_FP16, SC_FP32, SC_FP32, 0, 2 + 4 + 4},
      {SC_FP16, SC_BF16, SC_BF16, 0, 2 + 2 + 2},
      {SC_FP16, SC_FP8, SC_FP8, 0, 2 + 1 + 1},
      {SC_FP32, SC_BF16, SC_BF16, 1, 2 + 2 + 2}, /* remainders: the fp32 master's low half */
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
    for (int dp = 2; dp <= 4; dp += 2) {
      double n;
      sc_result r = with(cases[i].master, cases[i].m, cases[i].v, cases[i].remainders, dp, &n);
      /* the distributed optimizer divides the states over the dp ranks */
      double want = n * cases[i].bytes / dp;
      cr_assert_float_eq(r.mem.optimizer, want, 1e-9 * want,
                         "case %zu (master %s, m %s, v %s, remainders %d), dp %d: optimizer "
                         "%g B, expected %g x %g / %d",
                         i, sc_dtype_name(cases[i].master), sc_dtype_name(cases[i].m),
                         sc_dtype_name(cases[i].v), cases[i].remainders, dp, r.mem.optimizer, n,
                         cases[i].bytes, dp);
    }
}

Test(optim_dtypes, step_moves_each_low_precision_state_through_fp32) {
  /* the fused Adam's 34 bytes a parameter, and per state kept in d < 4
   * bytes its fp32 temporary's round trip, 2 d + 8: bf16 moments 34 + 24,
   * an fp16 master 34 + 12, fp8 moments 34 + 20. The optimizer's time is
   * one pass of n x bytes at the HBM's rate plus a kernel's fixed time,
   * so the differences from the fp32 step go as 24 : 12 : 20. */
  double n;
  double t34 = with(SC_FP32, SC_FP32, SC_FP32, 0, 2, &n).time.optimizer;
  double t58 = with(SC_FP32, SC_BF16, SC_BF16, 0, 2, &n).time.optimizer;
  double t46 = with(SC_FP16, SC_FP32, SC_FP32, 0, 2, &n).time.optimizer;
  double t54 = with(SC_FP32, SC_FP8, SC_FP8, 0, 2, &n).time.optimizer;
  cr_assert_gt(t46, t34);
  cr_assert_float_eq((t58 - t34) / (t46 - t34), 2.0, 1e-9, "%g %g %g", t34, t46, t58);
  cr_assert_float_eq((t54 - t34) / (t46 - t34), 20.0 / 12, 1e-9, "%g %g %g", t34, t46, t54);
  /* and the fp32 step is the fused 34 bytes: its fixed time is what is
   * left, a few microseconds */
  double t0 = t34 - (t58 - t34) * 34 / 24;
  cr_assert(t0 > 0 && t0 < 20e-6, "kernel time left %g s", t0);
}

/* s refused with a message holding `want`. */
static void refused(sc_scenario *s, const char *want) {
  sc_result r;
  sc_error err = {0};
  cr_assert_eq(sc_predict(s, &r, &err), SC_EINPUT, "accepted; expected \"%s\"", want);
  cr_assert(strstr(err.msg, want), "message \"%s\", expected \"%s\"", err.msg, want);
}

Test(optim_dtypes, megatrons_refusals_say_what_is_valid) {
  sc_scenario s = gpt24_zero1();
  s.plan.main_params = SC_BF16; /* Megatron's choices: fp32, fp16 */
  refused(&s, "plan.main_params_dtype: \"bf16\"; valid: \"fp32\", \"fp16\"");
  s = gpt24_zero1();
  s.plan.exp_avg_sq = SC_FP4;
  refused(&s, "plan.exp_avg_sq_dtype: \"fp4\"; valid: \"fp32\", \"fp16\", \"bf16\", \"fp8\"");
  /* the distributed optimizer: zero 1, not 0 (Megatron) nor 3 (FSDP) */
  s = gpt24_zero1();
  s.plan.exp_avg = SC_BF16;
  s.plan.zero = 0;
  refused(&s, "needs Megatron's distributed optimizer, plan.zero 1 (is 0");
  s.plan.zero = 3;
  refused(&s, "plan.zero 1 (is 3");
  s = gpt24_zero1();
  s.plan.exp_avg = SC_BF16;
  s.plan.dtype = SC_FP16;
  s.plan.amp = 1;
  refused(&s, "valid: plan.amp false, or all three \"fp32\"");
  s = gpt24_zero1();
  s.plan.main_params = SC_FP16;
  s.plan.param_remainders = 1;
  refused(&s, "plan.param_remainders: the remainders complete bf16 parameters to fp32");
  s = gpt24_zero1();
  s.plan.main_params = SC_FP16;
  s.plan.dtype = SC_FP32;
  refused(&s, "keeps fp32 parameters, which need no master copy; valid: \"fp32\"");
  /* a preset that updates with SGD */
  sc_scenario c;
  sc_scenario_default(&c);
  c.model = *sc_model_preset("resnet50");
  c.cluster.gpus = 8;
  c.plan.tp = 1, c.plan.pp = 1, c.plan.dp = 8, c.plan.sp = 0, c.plan.global_batch = 256;
  c.plan.exp_avg = SC_BF16;
  refused(&c, "the precision-aware optimizer is Adam only");
  c.model.optimizer = SC_OPT_ADAM;
  c.plan.zero = 1;
  sc_result r = predict_ok(&c);
  cr_assert_gt(r.mem.optimizer, 0);
}
