/*
 * test_recompute_modules.c -- Megatron-Core's selective recompute modules
 * (plan.recompute_modules; src/plan/plan_recmod.c, src/lower/recmod.c):
 * the activation bytes each module frees on a small MLA + MoE model,
 * worked out by hand from the tensor shapes; the backward re-running
 * exactly the module's forward; the event engine agreeing; the default
 * being today's "selective"; and Megatron's checks.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "predict.h" /* predict_ok */
#include "stepcast.h"

/* One GPU, one micro-batch in flight (pp 1): seq s = 128, hidden h = 256,
 * 4 heads of q/k 64 + 16 RoPE and v 64, MLA latents q 64 and kv 32 (+16
 * RoPE), 4 experts of ffn 512, top-2, one shared expert, SwiGLU, layer 0
 * dense (ffn 1024), layers 1-2 MoE; bf16 (2 bytes). */
static const char *const small =
    "{\"model\": {\"name\": \"tiny-mla-moe\", \"layers\": 3, \"hidden\": 256, \"heads\": 4, "
    "\"kv_heads\": 4, \"head_dim\": 64, \"ffn\": 512, \"dense_ffn\": 1024, \"vocab\": 1000, "
    "\"seq\": 128, \"experts\": 4, \"topk\": 2, \"shared_experts\": 1, \"dense_layers\": 1, "
    "\"activation\": \"swiglu\", \"norm\": \"rmsnorm\", \"position\": \"rope\", \"bias\": false, "
    "\"tied_embeddings\": false, \"q_lora_rank\": 64, \"kv_lora_rank\": 32, \"rope_dim\": 16, "
    "\"v_head_dim\": 64}, "
    "\"cluster\": {\"gpu\": \"h100-sxm5-80gb\", \"gpus\": 1, \"gpus_per_node\": 1}, "
    "\"plan\": {\"tp\": 1, \"pp\": 1, \"global_batch\": 4, \"micro_batch\": 1, \"recompute\": \"none\", "
    "\"moe_grouped_gemm\": true, \"framework_eager\": false}}";

static sc_scenario load(const char *json, const char *const *set, size_t n) {
  sc_scenario s;
  sc_scenario_default(&s);
  sc_error e = {0};
  int rc = sc_scenario_load_string(&s, json, "test", set, n, &e);
  cr_assert_eq(rc, SC_OK, "%s", e.msg);
  return s;
}

/* The scenario with plan.recompute selective and modules `mods` (a JSON
 * array; NULL: none given), or recompute none when selective is 0. */
static sc_scenario with(const char *mods, int selective, const char *extra) {
  char m[256];
  const char *set[3] = {NULL, NULL, NULL};
  size_t n = 0;
  if (selective) set[n++] = "plan.recompute=selective";
  if (mods) {
    snprintf(m, sizeof m, "plan.recompute_modules=%s", mods);
    set[n++] = m;
  }
  if (extra) set[n++] = extra;
  return load(small, set, n);
}

/* Activation bytes freed by modules `mods` against no recomputation. */
static double saved(const char *mods, const char *extra) {
  sc_scenario a = with(NULL, 0, extra), b = with(mods, 1, extra);
  return predict_ok(&a).mem.activations - predict_ok(&b).mem.activations;
}

Test(recmod, each_module_frees_what_it_keeps_by_hand) {
  const double s = 128, h = 256, e = 2;
  struct {
    const char *mods;
    double bytes;
    const char *why;
  } cases[] = {
      /* flash attention keeps q, k, v only: the checkpoint keeps them too */
      {"[\"core_attn\"]", 0, "flash attention keeps nothing more"},
      /* fc2's input, the activation's output: top-2 copies of 512 wide,
       * in both MoE layers */
      {"[\"moe_act\"]", 2 * (2 * s * 512 * e), "expert activation output"},
      /* layer 0's MLP: fc1's output (2 x 1024, SwiGLU) and the activation's
       * (1024); fc1's input is the checkpoint's */
      {"[\"mlp\"]", s * 2048 * e + s * 1024 * e, "dense MLP inside"},
      /* per layer: q_up's and kv_up's inputs (the normed latents, 64 and
       * 48) and attention's q, k, v (4 x (80 + 80 + 64)); the latents
       * before the norms stay as the checkpoint's inputs */
      {"[\"mla_up_proj\"]", 3 * (s * 64 * e + s * 48 * e + s * 4 * 224 * e), "MLA up-projection"},
      /* ln1 (read by q_down and kv_down: one storage both keep) in every
       * layer; ln2 (read by the router and the shared fc1) in the MoE
       * layers; the dense layer's ln2 is fused into fc1 (Transformer
       * Engine) and stays */
      {"[\"layernorm\"]", 3 * (s * h * e) + 2 * (s * h * e), "norm outputs"},
      /* the shared expert's fc1 output (1024) and activation output (512) */
      {"[\"shared_experts\"]", 2 * (s * 1024 * e + s * 512 * e), "shared expert inside"},
      /* the MoE part but its input (ln2, which the router and the shared
       * fc1 keep, one storage, and the checkpoint keeps): fc1's input (2 s
       * tokens), the expert activation's input and output, the shared
       * expert's activation input and output */
      {"[\"moe\"]",
       2 * (2 * s * h * e + 2 * s * 1024 * e + 2 * s * 512 * e + s * 1024 * e + s * 512 * e),
       "MoE inside"},
      /* nested modules add nothing to the MoE's */
      {"[\"moe\", \"moe_act\", \"shared_experts\"]",
       2 * (2 * s * h * e + 2 * s * 1024 * e + 2 * s * 512 * e + s * 1024 * e + s * 512 * e),
       "MoE with its inner modules"},
      /* with layernorm the MoE's kept input is freed too */
      {"[\"moe\", \"layernorm\"]",
       2 * (s * h * e + 2 * s * h * e + 2 * s * 1024 * e + 2 * s * 512 * e + s * 1024 * e +
            s * 512 * e) +
           3 * (s * h * e),
       "MoE and its freed input"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    double got = saved(cases[i].mods, NULL);
    cr_expect(fabs(got - cases[i].bytes) < 1e-6 * (cases[i].bytes + 1),
              "%s (%s): frees %.0f bytes, by hand %.0f", cases[i].mods, cases[i].why, got,
              cases[i].bytes);
  }
}

Test(recmod, a_tensor_two_operators_keep_is_one_storage) {
  /* ln2 is read by the router and the shared expert's fc1, both keep it:
   * autograd saves the one bf16 tensor. The shared expert adds only its
   * activation's input (1024 wide) and fc2's (512), in 2 MoE layers */
  const double s = 128, e = 2;
  const char *with_shared[] = {"model.shared_experts=1"}, *without[] = {"model.shared_experts=0"};
  sc_scenario a = load(small, with_shared, 1), b = load(small, without, 1);
  double got = predict_ok(&a).mem.activations - predict_ok(&b).mem.activations;
  double want = 2 * (s * 1024 * e + s * 512 * e);
  cr_expect(fabs(got - want) < 1e-6 * want, "the shared expert keeps %.0f bytes, by hand %.0f",
            got, want);
}

Test(recmod, the_default_list_is_todays_selective) {
  sc_scenario a = with(NULL, 1, NULL), b = with("[\"core_attn\"]", 1, NULL);
  sc_result ra = predict_ok(&a), rb = predict_ok(&b);
  cr_assert_eq(ra.step_s, rb.step_s);
  cr_assert_eq(ra.mem.activations, rb.mem.activations);
  /* unfused attention: core_attn frees the scores, 5 a s^2 bytes a layer */
  a = with(NULL, 0, "plan.flash_attention=false");
  b = with("[\"core_attn\"]", 1, "plan.flash_attention=false");
  double got = predict_ok(&a).mem.activations - predict_ok(&b).mem.activations;
  cr_expect(fabs(got - 3 * 5.0 * 4 * 128 * 128) < 1e-6 * got, "scores freed %g", got);
}

/* Forward GPU seconds of the tasks of one MoE layer named in `names`. */
static double fwd_of(const sc_scenario *s, const char *const *names, size_t n) {
  sc_op_time ops[64];
  sc_error e = {0};
  int k = sc_explain_layer(s, ops, 64, &e);
  cr_assert(k > 0, "%s", e.msg);
  double t = 0;
  for (size_t j = 0; j < n; j++) {
    int found = 0;
    for (int i = 0; i < k; i++)
      if (!strcmp(ops[i].name, names[j])) t += ops[i].fwd_s, found = 1;
    cr_assert(found, "no task %s", names[j]);
  }
  return t;
}

Test(recmod, the_backward_reruns_the_modules_forward) {
  /* every layer MoE; no host time (framework_eager false): the compute
   * line grows by micro-batches x layers x the module's forward */
  const char *dense0 = "model.dense_layers=0";
  sc_scenario none = with(NULL, 0, dense0);
  double base = predict_ok(&none).time.compute, per = 4.0 * 3; /* 4 micro-batches, 3 layers */
  static const char *const act[] = {"swiglu"};
  static const char *const shared[] = {"shared_fc1", "shared_swiglu", "shared_fc2"};
  static const char *const moe[] = {"router", "route", "fc1", "swiglu", "fc2", "unroute",
                                    "shared_fc1", "shared_swiglu", "shared_fc2", "shared_add"};
  static const char *const up[] = {"q_norm", "q_up", "kv_norm", "kv_up", "mla_rope"};
  static const char *const norms[] = {"norm1", "norm2"};
  struct {
    const char *mods;
    const char *const *names;
    size_t n;
    double times;
  } cases[] = {{"[\"moe_act\"]", act, 1, 1},
               {"[\"shared_experts\"]", shared, 3, 1},
               {"[\"moe\"]", moe, 10, 1},
               {"[\"mla_up_proj\"]", up, 5, 1},
               {"[\"layernorm\"]", norms, 2, 1}};
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    sc_scenario s = with(cases[i].mods, 1, dense0);
    double want = per * cases[i].times * fwd_of(&s, cases[i].names, cases[i].n);
    double got = predict_ok(&s).time.compute - base;
    cr_expect(fabs(got - want) < 1e-6 * want, "%s: backward grows %g s, the forward is %g s",
              cases[i].mods, got, want);
  }
  /* moe_act inside moe: the activation runs once more (the MoE's
   * recomputation discards its output again) */
  sc_scenario s = with("[\"moe\", \"moe_act\"]", 1, dense0);
  double want = per * (fwd_of(&s, moe, 10) + fwd_of(&s, act, 1));
  double got = predict_ok(&s).time.compute - base;
  cr_expect(fabs(got - want) < 1e-6 * want, "moe + moe_act: %g s, want %g s", got, want);
}

Test(recmod, the_event_engine_agrees) {
  const char *set[] = {"plan.recompute=selective",
                       "plan.recompute_modules=[\"mla_up_proj\", \"moe\", \"layernorm\", \"mlp\"]",
                       "cluster.gpus=8", "cluster.gpus_per_node=8", "plan.pp=2", "plan.ep=4",
                       "plan.tp=1", "plan.global_batch=32", "model.layers=4"};
  sc_scenario s = load(small, set, sizeof set / sizeof *set);
  sc_result c = predict_ok(&s), ev;
  sc_error e = {0};
  sc_event_opts o = {1, 0};
  cr_assert_eq(sc_predict_event(&s, &o, &ev, NULL, &e), SC_OK, "%s", e.msg);
  double d = ev.step_s / c.step_s - 1;
  cr_expect(fabs(d) < 0.02, "event %g s, closed form %g s (%+.2f %%)", ev.step_s, c.step_s,
            100 * d);
}

/* The load or resolve of `set` fails with SC_EINPUT and `needle`. */
static void refused(const char *json, const char *const *set, size_t n, const char *needle) {
  sc_scenario s;
  sc_scenario_default(&s);
  sc_error e = {0};
  int rc = sc_scenario_load_string(&s, json, "test", set, n, &e);
  if (rc == SC_OK) rc = sc_scenario_resolve(&s, &e);
  cr_expect_eq(rc, SC_EINPUT, "%s: accepted", set[n - 1]);
  cr_expect(strstr(e.msg, needle) != NULL, "%s: \"%s\" lacks \"%s\"", set[n - 1], e.msg, needle);
}

Test(recmod, megatrons_checks_say_what_is_valid) {
  const char *sel = "plan.recompute=selective";
  const char *gg[] = {sel, "plan.moe_grouped_gemm=false", "plan.recompute_modules=[\"moe_act\"]"};
  refused(small, gg, 3, "moe_act needs plan.moe_grouped_gemm true");
  const char *mla[] = {sel, "model.kv_lora_rank=0", "model.q_lora_rank=0", "model.rope_dim=0",
                       "model.v_head_dim=0", "plan.recompute_modules=[\"mla_up_proj\"]"};
  refused(small, mla, 6, "mla_up_proj needs multi-latent attention");
  const char *gdn[] = {sel, "plan.recompute_modules=[\"gdn_norm_out\"]"};
  refused(small, gdn, 2, "GatedDeltaNet");
  const char *bad[] = {sel, "plan.recompute_modules=[\"core_atn\"]"};
  refused(small, bad, 2, "valid: core_attn, moe_act, layernorm");
  const char *fp8[] = {sel, "plan.dtype=fp8", "plan.recompute_modules=[\"layernorm\"]"};
  refused(small, fp8, 3, "Delayed scaling does not support");
}

/* Activations and step of the small model with `set`. */
static sc_result run(const char *const *set, size_t n) {
  sc_scenario s = load(small, set, n);
  return predict_ok(&s);
}

#define SAME(a, b, what)                                                                   \
  cr_expect((a).step_s == (b).step_s && (a).mem.activations == (b).mem.activations,       \
            "%s: %g s %g B vs %g s %g B", what, (a).step_s, (a).mem.activations, (b).step_s, \
            (b).mem.activations)

Test(recmod, what_megatron_accepts_and_ignores_runs_as_without_it) {
  /* unfused attention, so that core_attn frees something */
  const char *un = "plan.flash_attention=false", *sel = "plan.recompute=selective";
  /* a list without selective granularity: Megatron does not read it */
  const char *none_l[] = {un, "plan.recompute_modules=[\"moe_act\"]"}, *none[] = {un};
  SAME(run(none_l, 2), run(none, 1), "recompute none");
  const char *full_l[] = {un, "plan.recompute=full", "plan.recompute_modules=[\"core_attn\"]"};
  SAME(run(full_l, 3), run(full_l, 2), "recompute full");
  /* an empty list: selective layers re-run nothing, as recompute none */
  const char *empty[] = {un, sel, "plan.recompute_modules=[]"}, *dflt[] = {un, sel};
  sc_result e = run(empty, 3), d = run(dflt, 2);
  SAME(e, run(none, 1), "empty list");
  cr_expect(d.mem.activations < e.mem.activations, "the default frees the scores");
  /* modules of parts the model lacks wrap nothing */
  const char *dense_l[] = {un, sel, "model.experts=0", "model.topk=0", "model.dense_layers=0",
                           "model.shared_experts=0", "plan.recompute_modules=[\"moe\", \"layernorm\"]"};
  const char *dense[] = {un, sel, "model.experts=0", "model.topk=0", "model.dense_layers=0",
                         "model.shared_experts=0", "plan.recompute_modules=[\"layernorm\"]"};
  SAME(run(dense_l, 7), run(dense, 7), "moe on a dense model");
  const char *noshared_l[] = {sel, "model.shared_experts=0",
                              "plan.recompute_modules=[\"shared_experts\", \"moe_act\"]"};
  const char *noshared[] = {sel, "model.shared_experts=0", "plan.recompute_modules=[\"moe_act\"]"};
  SAME(run(noshared_l, 3), run(noshared, 3), "shared_experts without shared experts");
}

Test(recmod, an_override_selective_layer_reruns_the_list) {
  /* plan recompute none, layer 0 (the dense one) selective with mlp: it
   * frees layer 0's MLP inside (fc1's output, the activation's), as the
   * plan-wide list does on that layer; layers 1-2 keep everything */
  const double s = 128, e = 2;
  const char *ov[] = {"plan.overrides=[{\"layers\": 0, \"recompute\": \"selective\"}]",
                      "plan.recompute_modules=[\"mlp\"]"};
  sc_scenario a = with(NULL, 0, NULL), b = load(small, ov, 2);
  double got = predict_ok(&a).mem.activations - predict_ok(&b).mem.activations;
  double want = s * 2048 * e + s * 1024 * e;
  cr_expect(fabs(got - want) < 1e-6 * want, "override frees %.0f bytes, by hand %.0f", got, want);
}

Test(recmod, the_search_carries_the_modules_to_its_selective_plans) {
  const char *set[] = {"plan.recompute=selective", "plan.recompute_modules=[\"moe_act\"]",
                       "cluster.gpus=4", "cluster.gpus_per_node=4", "plan.global_batch=16"};
  sc_scenario s = load(small, set, sizeof set / sizeof *set);
  sc_search_opts o;
  sc_search_opts_default(&o);
  o.require_fit = 0;
  o.threads = 1;
  sc_candidate top[64];
  sc_search_stats st;
  sc_error e = {0};
  int n = 0;
  cr_assert_eq(sc_search(&s, &o, top, 64, &n, &st, &e), SC_OK, "%s", e.msg);
  cr_assert(n > 0);
  int sel = 0;
  for (int i = 0; i < n; i++) {
    const sc_plan *p = &top[i].plan;
    if (p->recompute == SC_RECOMP_SELECTIVE) {
      sel++;
      cr_expect_eq(p->recompute_modules, (unsigned)SC_RECMOD_MOE_ACT);
    } else {
      cr_expect_eq(p->recompute_modules, 0u, "recompute %d keeps modules", p->recompute);
    }
  }
  cr_expect(sel > 0, "no selective plan among %d", n);
}
