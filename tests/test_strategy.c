/*
 * test_strategy.c -- per-layer overrides of the plan (the strategy tree)
 * change time and memory by exactly what the overridden layers change.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "predict.h" /* predict_ok */
#include "stepcast.h"

/* GPT-3 2.7B (32 layers, h 2560, 32 heads, seq 2048) on 8 A100, data
 * parallel only, unfused attention (so the scores are activations too),
 * one sequence per micro-batch. */
static sc_scenario gpt_2b7(void) {
  sc_scenario s;
  sc_scenario_default(&s);
  s.model = *sc_model_preset("gpt3-2.7b");
  s.cluster.gpus = 8;
  sc_plan_default(&s.plan);
  s.plan.dp = 8;
  s.plan.global_batch = 64;
  s.plan.micro_batch = 1;
  s.plan.flash_attention = 0;
  s.plan.recompute = SC_RECOMP_SELECTIVE;
  s.plan.zero = 1;
  return s;
}

static sc_override range(int first, int last) {
  sc_override o;
  sc_override_init(&o);
  o.first = first;
  o.last = last;
  return o;
}

Test(strategy, full_recompute_on_four_layers_follows_korthikanti) {
  sc_scenario s = gpt_2b7();
  sc_result sel = predict_ok(&s);
  s.plan.recompute = SC_RECOMP_FULL;
  sc_result full = predict_ok(&s);
  s.plan.recompute = SC_RECOMP_SELECTIVE;
  s.plan.overrides[0] = range(0, 3);
  s.plan.overrides[0].recompute = SC_RECOMP_FULL;
  s.plan.n_overrides = 1;
  sc_result mix = predict_ok(&s);

  /* Activations per layer and sequence in 16-bit training (Korthikanti et
   * al. 2022, Table 2, t = 1): selective 34 s h, full recompute 2 s h,
   * and while one layer is recomputed it holds everything: (34 + 5 a s /
   * h) s h. Four layers switch from 34 to 2, one layer is rematerialised.
   * The loss's backward transient (its 16-bit gradient: 2 bytes a logit,
   * 2048 x 50,257 logits, as the graph counts them) counted before is now inside the
   * larger rematerialised layer: one transient at a time. */
  double sh = 2048.0 * 2560, quad = 5.0 * 32 * 2048 / 2560, loss = 2.0 * 2048 * 50257;
  double want = 4 * (2 - 34) * sh + (34 + quad) * sh - loss;
  double got = mix.mem.activations - sel.mem.activations;
  cr_assert_float_eq(got, want, 1e-6 * fabs(want), "activation change %g bytes, expected %g", got,
                     want);

  /* full recomputation re-runs each layer's forward: the kernels of four
   * layers cost 4/32 of what all 32 cost */
  double all = full.time.compute - sel.time.compute, four = mix.time.compute - sel.time.compute;
  cr_assert(all > 0, "full recompute costs more compute than selective");
  cr_assert_float_eq(four, all * 4 / 32, 1e-9 * all, "four layers: %g s, all: %g s", four, all);
  cr_assert(mix.step_s > sel.step_s && mix.step_s < full.step_s, "step %g in (%g, %g)", mix.step_s,
            sel.step_s, full.step_s);
}

Test(strategy, zero3_on_half_the_layers_shards_their_weights) {
  sc_scenario s = gpt_2b7();
  s.plan.flash_attention = 1;
  sc_result z1 = predict_ok(&s);
  s.plan.zero = 3;
  sc_result z3 = predict_ok(&s);
  s.plan.zero = 1;
  s.plan.overrides[0] = range(0, 15);
  s.plan.overrides[0].zero = 3;
  s.plan.n_overrides = 1;
  sc_result mix = predict_ok(&s);
  /* one layer: 12 h^2 + 13 h parameters; 16 of them go from whole bf16
   * weights to 1/8 of them in fp32 (FSDP's shards, the optimizer's
   * masters), and two layers are gathered at a time in bf16 */
  double h = 2560, lp = 12 * h * h + 13 * h, e = 2;
  double want = -16 * lp * (e - 4.0 / 8) + 2 * lp * e;
  double got = mix.mem.weights - z1.mem.weights;
  cr_assert_float_eq(got, want, 1e-6 * fabs(want), "weights change %g, expected %g", got, want);
  /* the ZeRO-3 gathers of 16 layers: between none and all 32 */
  cr_assert(mix.time.dp_comm != z1.time.dp_comm && mix.time.dp_comm < z3.time.dp_comm,
            "dp comm %g between ZeRO-1 %g and ZeRO-3 %g", mix.time.dp_comm, z1.time.dp_comm,
            z3.time.dp_comm);
}

Test(strategy, an_override_of_every_layer_is_the_plan) {
  sc_scenario s = gpt_2b7();
  s.plan.recompute = SC_RECOMP_FULL;
  sc_result plain = predict_ok(&s);
  s.plan.recompute = SC_RECOMP_NONE;
  strcpy(s.plan.overrides[0].block, "layer");
  sc_override_init(&s.plan.overrides[0]);
  strcpy(s.plan.overrides[0].block, "layer");
  s.plan.overrides[0].recompute = SC_RECOMP_FULL;
  s.plan.n_overrides = 1;
  sc_result by_block = predict_ok(&s);
  cr_assert_eq(by_block.step_s, plain.step_s, "block override %g vs plan %g", by_block.step_s,
               plain.step_s);
  cr_assert_eq(by_block.mem.total, plain.mem.total);
}

Test(strategy, sequence_parallelism_off_for_some_layers_costs_a_relayout) {
  sc_scenario s;
  sc_scenario_default(&s); /* GPT-3 175B, tp 8 with sp, pp 16 */
  sc_result sp = predict_ok(&s);
  s.plan.overrides[0] = range(0, 47);
  s.plan.overrides[0].sp = 0;
  s.plan.n_overrides = 1;
  sc_result half = predict_ok(&s);
  cr_assert(half.mem.activations > sp.mem.activations, "sp off keeps whole activations");
  cr_assert(half.step_s != sp.step_s);
  /* every block without sp is the plan without sp */
  const char *blocks[] = {"embedding", "layer", "head"};
  for (int i = 0; i < 3; i++) {
    sc_override_init(&s.plan.overrides[i]);
    strcpy(s.plan.overrides[i].block, blocks[i]);
    s.plan.overrides[i].sp = 0;
  }
  s.plan.n_overrides = 3;
  sc_result every = predict_ok(&s);
  s.plan.n_overrides = 0;
  s.plan.sp = 0;
  sc_result plan_off = predict_ok(&s);
  cr_assert_eq(every.step_s, plan_off.step_s, "overrides %g vs plan %g", every.step_s,
               plan_off.step_s);
  cr_assert_eq(every.mem.total, plan_off.mem.total);
}

Test(strategy, bad_overrides_name_the_key) {
  sc_scenario s = gpt_2b7();
  sc_result r;
  sc_error err = {0};
  s.plan.overrides[0] = range(30, 40);
  s.plan.n_overrides = 1;
  cr_assert_eq(sc_predict(&s, &r, &err), SC_EINPUT);
  cr_assert(strstr(err.msg, "plan.overrides[0].layers: [30, 40]") && strstr(err.msg, "31"), "%s",
            err.msg);
  s.plan.overrides[0] = range(0, 3);
  s.plan.overrides[0].tp = 2; /* the plan's tp * cp is 1 */
  cr_assert_eq(sc_predict(&s, &r, &err), SC_EINPUT);
  cr_assert(strstr(err.msg, "plan.overrides[0].tp: 2 must divide the plan's tp*cp = 1*1 = 1"),
            "%s", err.msg);
  s.plan.overrides[0] = range(0, 3);
  strcpy(s.plan.overrides[0].block, "decoder");
  cr_assert_eq(sc_predict(&s, &r, &err), SC_EINPUT);
  cr_assert(strstr(err.msg, "\"decoder\" is not a block") && strstr(err.msg, "valid: embedding, layer, head"), "%s",
            err.msg);
}

Test(strategy, tp_and_cp_trade_within_a_layer) {
  sc_scenario s;
  sc_scenario_default(&s);
  s.model = *sc_model_preset("llama3-8b"); /* 32 layers, seq 8192 */
  s.cluster.gpus = 64;
  s.plan.tp = 8;
  s.plan.pp = 1;
  s.plan.dp = 0;
  s.plan.global_batch = 64;
  sc_result base = predict_ok(&s);
  s.plan.overrides[0] = range(0, 15);
  s.plan.overrides[0].cp = 2; /* tp 4 x cp 2 on half the layers */
  s.plan.n_overrides = 1;
  sc_result mixed = predict_ok(&s);
  sc_error err = {0};
  cr_assert(mixed.step_s > 0 && mixed.step_s != base.step_s, "%g vs %g", mixed.step_s,
            base.step_s);
  /* the derived tp of the override is 4: a tp 3 would not divide */
  s.plan.overrides[0].cp = SC_INHERIT;
  s.plan.overrides[0].tp = 3;
  cr_assert_eq(sc_predict(&s, &mixed, &err), SC_EINPUT);
  cr_assert(strstr(err.msg, "plan.overrides[0].tp: 3 must divide the plan's tp*cp = 8*1 = 8") &&
                strstr(err.msg, "valid: 1, 2, 4, 8"),
            "%s", err.msg);
}
