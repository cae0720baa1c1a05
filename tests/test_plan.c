/*
 * test_plan.c -- presets, the default scenario, and every check and pick
 * of sc_scenario_resolve (src/plan/plan.c).
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "hw/cluster_presets.h"
#include "stepcast.h"

/* A small valid scenario to break one field at a time: Llama-2 7B
 * (32 layers, 32 heads) on one DGX A100, tp 2 pp 2 dp 2, batch 64. */
static sc_scenario base(void) {
  sc_scenario s;
  sc_scenario_default(&s);
  s.model = *sc_model_preset("llama2-7b");
  cr_assert(clus_preset_fill(&s.cluster, "dgx-a100"));
  sc_plan_default(&s.plan);
  s.plan.tp = 2;
  s.plan.pp = 2;
  s.plan.global_batch = 64;
  return s;
}

/* Resolve s and require SC_EINPUT with every needle in the message. */
static void expect_error(sc_scenario s, const char *case_name, const char *const *needles,
                         size_t n) {
  sc_error err = {0};
  sc_scenario before = s;
  int rc = sc_scenario_resolve(&s, &err);
  cr_assert_eq(rc, SC_EINPUT, "%s: rc %d, expected SC_EINPUT (msg: %s)", case_name, rc, err.msg);
  cr_assert_eq(err.code, SC_EINPUT, "%s: err.code %d", case_name, err.code);
  for (size_t i = 0; i < n; i++)
    cr_assert(strstr(err.msg, needles[i]), "%s: message lacks \"%s\": %s", case_name,
              needles[i], err.msg);
  cr_assert(memcmp(&s, &before, sizeof s) == 0, "%s: failed resolve changed the scenario",
            case_name);
}
#define EXPECT_ERROR(s, ...)                                           \
  do {                                                                 \
    static const char *const needles_[] = {__VA_ARGS__};               \
    expect_error(s, #s " / " #__VA_ARGS__, needles_,                   \
                 sizeof needles_ / sizeof needles_[0]);                \
  } while (0)

static sc_scenario resolved(sc_scenario s) {
  sc_error err = {0};
  int rc = sc_scenario_resolve(&s, &err);
  cr_assert_eq(rc, SC_OK, "resolve failed: %s", err.msg);
  return s;
}

/* ---------------------------------------------------------- presets */

Test(presets, every_model_preset_is_complete_and_resolves) {
  cr_assert_geq(sc_model_preset_count(), 36);
  for (size_t i = 0; i < sc_model_preset_count(); i++) {
    const sc_model *m = sc_model_preset_at(i);
    if (m->kind == SC_MODEL_TRANSFORMER) { /* CNN and BERT presets: tests/test_dp_models.c */
      cr_assert_eq(m->tf.head_dim * m->tf.heads == m->tf.hidden || m->tf.head_dim > 0, 1, "%s", m->name);
      cr_assert_gt(m->tf.kv_heads, 0, "%s kv_heads", m->name);
      cr_assert_gt(m->tf.ffn, 0, "%s ffn", m->name);
    }
    cr_assert_eq(sc_model_preset(m->name), m, "%s lookup", m->name);
    sc_scenario s = base();
    s.model = *m;
    s.plan.tp = s.plan.pp = 1;
    s.cluster.gpus = 1;
    s.plan.global_batch = 1;
    sc_scenario r = resolved(s);
    cr_assert(memcmp(&r.model, m, sizeof *m) == 0, "%s: resolve changed a complete preset",
              m->name);
  }
  cr_assert_null(sc_model_preset("gpt-5"));
  cr_assert_null(sc_model_preset(NULL));
  cr_assert_null(sc_model_preset_at(sc_model_preset_count()));
  cr_assert_not_null(sc_model_preset("LLAMA3-70B"), "lookup ignores case");
}

Test(presets, model_shapes_match_their_sources) {
  const sc_model *m = sc_model_preset("gpt3-175b");
  cr_assert(m->tf.layers == 96 && m->tf.hidden == 12288 && m->tf.heads == 96 && m->tf.vocab == 50257 &&
            m->tf.seq == 2048 && m->tf.ffn == 49152 && m->tf.tied_embeddings && m->tf.bias);
  m = sc_model_preset("llama3-70b");
  cr_assert(m->tf.layers == 80 && m->tf.hidden == 8192 && m->tf.heads == 64 && m->tf.kv_heads == 8 &&
            m->tf.ffn == 28672 && m->tf.vocab == 128256 && m->tf.seq == 8192 &&
            m->tf.act == SC_ACT_SWIGLU && m->tf.norm == SC_NORM_RMSNORM && m->tf.pos == SC_POS_ROPE &&
            !m->tf.tied_embeddings && !m->tf.bias);
  m = sc_model_preset("llama3.1-405b");
  cr_assert(m->tf.layers == 126 && m->tf.hidden == 16384 && m->tf.heads == 128 && m->tf.ffn == 53248);
  m = sc_model_preset("llama2-13b");
  cr_assert(m->tf.kv_heads == 40 && m->tf.ffn == 13824 && m->tf.vocab == 32000 && m->tf.seq == 4096);
  m = sc_model_preset("mpt-7b");
  cr_assert(m->tf.layers == 32 && m->tf.hidden == 4096 && m->tf.vocab == 50368 &&
            m->tf.pos == SC_POS_ALIBI && !m->tf.bias && m->tf.tied_embeddings);
  m = sc_model_preset("mixtral-8x7b");
  cr_assert(m->tf.experts == 8 && m->tf.topk == 2 && m->tf.kv_heads == 8 && m->tf.ffn == 14336);
  m = sc_model_preset("megatron-1t");
  cr_assert(m->tf.layers == 128 && m->tf.hidden == 25600 && m->tf.heads == 160 && m->tf.vocab == 51200);
  m = sc_model_preset("megatron-530b");
  cr_assert(m->tf.layers == 105 && m->tf.hidden == 20480 && m->tf.heads == 128);
}

/* MoE presets: total and active parameters within 2 % of the published
 * figures (Mixtral 8x22B 141B / 39B; Qwen3-235B-A22B 235B / 22B;
 * Qwen3-30B-A3B 30.5B / 3.3B; Llama 4 Scout 109B / 17B, Maverick 400B /
 * 17B; Nemotron-4 340B 341B), and the layer layout of each. */
Test(presets, moe_presets_match_published_parameter_counts) {
  static const struct { const char *id; double total, active; } want[] = {
      {"mixtral-8x22b", 141e9, 39e9},    {"qwen3-235b-a22b", 235e9, 22e9},
      {"qwen3-30b-a3b", 30.5e9, 3.3e9},  {"llama4-scout", 109e9, 17e9},
      {"llama4-maverick", 400e9, 17e9},  {"nemotron4-340b", 341e9, 341e9},
      {"deepseek-v3", 671e9, 37e9},
  };
  for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
    const sc_model *m = sc_model_preset(want[i].id);
    cr_assert_not_null(m, "%s", want[i].id);
    double t = sc_model_params(m), a = sc_model_active_params(m);
    cr_expect(fabs(t / want[i].total - 1) < 0.02, "%s: %.1fB total, published %.1fB", want[i].id,
              t / 1e9, want[i].total / 1e9);
    cr_expect(fabs(a / want[i].active - 1) < 0.05, "%s: %.1fB active, published %.1fB",
              want[i].id, a / 1e9, want[i].active / 1e9);
  }
  /* Maverick: 24 MoE layers (1, 3, ...) of 128 experts + 1 shared, 24 dense
   * layers of 16384: the MoE layers hold 24 x 129 x 3 x 5120 x 8192 */
  const sc_model *mv = sc_model_preset("llama4-maverick");
  sc_model dense = *mv;
  dense.tf.experts = 0;
  dense.tf.topk = 0;
  dense.tf.shared_experts = 0;
  dense.tf.moe_every = 0;
  double moe_mlp = 24.0 * 129 * 3 * 5120 * 8192 + 24.0 * 5120 * 128; /* experts + routers */
  double dense_mlp_replaced = 24.0 * 3 * 5120 * 16384;
  cr_assert_float_eq(sc_model_params(mv) - sc_model_params(&dense), moe_mlp - dense_mlp_replaced,
                     1.0, "MoE minus dense parameters");
}

/* Exact parameter counts, the sums Hugging Face's models report (their
 * config.json shapes; embeddings, attention, MLP or experts and router,
 * every norm): an RMSNorm has a weight and no bias, so the final norm of
 * Llama or Mixtral is h parameters, where it was counted 2 h as a
 * LayerNorm's weight and bias (the layers' norms were right); GPT-3's
 * LayerNorm keeps its 2 h. The lowered graph already held h (its
 * ZeRO-3 traffic, test_fsdp_moe.c). */
Test(presets, parameter_counts_are_the_published_sums) {
  static const struct { const char *id; double params; } want[] = {
      {"llama2-7b", 6738415616.0},     /* 32 (4 h^2 + 3 h 11008 + 2 h) + 2 V h + h */
      {"llama3-8b", 8030261248.0},     /* GQA 8 KV heads, ffn 14336, V 128256 */
      {"mixtral-8x7b", 46702792704.0}, /* 8 experts of 3 h 14336 and a router of 8 h */
  };
  for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
    const sc_model *m = sc_model_preset(want[i].id);
    cr_assert_not_null(m, "%s", want[i].id);
    cr_expect_eq(sc_model_params(m), want[i].params, "%s: %.0f parameters, published %.0f",
                 want[i].id, sc_model_params(m), want[i].params);
  }
  /* the same model with LayerNorms: a weight and a bias for each of the
   * 2 L + 1 norms */
  sc_model ln = *sc_model_preset("llama2-7b");
  ln.tf.norm = SC_NORM_LAYERNORM;
  cr_expect_eq(sc_model_params(&ln) - sc_model_params(sc_model_preset("llama2-7b")),
               (2 * 32 + 1) * 4096.0, "LayerNorm adds %.0f", sc_model_params(&ln) - 6738415616.0);
}

/* The PCIe cards whose id does not say "-pcie-" (the H100 NVL's bridges
 * join pairs only). */
static int pcie_card(const char *id) {
  static const char *const cards[] = {"k80", "h100-nvl-94gb", "l40s", "l40", "l4",
                                      "a10", "rtx-6000-ada",  "rtx-4090", "t4"};
  for (size_t i = 0; i < sizeof cards / sizeof cards[0]; i++)
    if (!strcmp(id, cards[i])) return 1;
  return 0;
}

/* The link each GPU preset's nvlink_bw describes: PCIe for the boards
 * without NVLink (the PCIe form factors but the A5000 and A6000 with their
 * bridges, and the cards above), Infinity Fabric for AMD's, NVLink for
 * the rest; and every preset has a dense peak in some type. */
Test(presets, every_gpu_preset_names_its_link) {
  for (size_t i = 0; i < sc_gpu_preset_count(); i++) {
    const sc_gpu *g = sc_gpu_preset_at(i);
    sc_gpu_link want = strstr(g->name, "-pcie-") || pcie_card(g->name) ? SC_LINK_PCIE
                       : !strncmp(g->name, "mi", 2)                        ? SC_LINK_INFINITY_FABRIC
                                                                           : SC_LINK_NVLINK;
    cr_expect_eq(g->link, want, "%s: link %d, want %d", g->name, g->link, want);
    cr_expect(g->peak_flops[SC_FP32] > 0 || g->peak_flops[SC_BF16] > 0, "%s: no peak", g->name);
  }
}

Test(presets, every_cluster_preset_has_its_gpu) {
  cr_assert_geq(sc_cluster_preset_count(), 7);
  for (size_t i = 0; i < sc_cluster_preset_count(); i++) {
    const sc_cluster *c = sc_cluster_preset_at(i);
    sc_scenario s = base();
    cr_assert(clus_preset_fill(&s.cluster, c->name), "%s: GPU %s missing", c->name,
              c->gpu.name);
    cr_assert_str_eq(s.cluster.gpu.name, c->gpu.name);
    cr_assert_gt(s.cluster.gpu.hbm_bytes, 0, "%s", c->name);
    cr_assert_gt(c->nic_bw, 0, "%s", c->name);
    s.cluster.gpus = 2 * c->gpus;
    s.plan.tp = s.plan.pp = 1;
    s.plan.global_batch = s.cluster.gpus;
    if (s.cluster.gpu.peak_flops[SC_BF16] == 0) s.plan.dtype = SC_FP16; /* V100 */
    sc_scenario r = resolved(s);
    cr_assert_gt(r.cluster.nvlink_bw, 0, "%s: nvlink from GPU", c->name);
  }
  sc_cluster c;
  cr_assert_not(clus_preset_fill(&c, "dgx-z"));
  const sc_cluster *nvl = sc_cluster_preset("gb200-nvl72");
  cr_assert(nvl->gpus == 72 && nvl->nvlink_domain == 72 && nvl->gpus_per_node == 4);
  cr_assert_float_eq(sc_cluster_preset("dgx-h100")->nic_bw, 400e9 / 8, 1);
  cr_assert_float_eq(sc_cluster_preset("dgx-a100")->nic_bw, 200e9 / 8, 1);
}

/* ---------------------------------------------------------- defaults */

Test(defaults, plan_default_is_neutral) {
  sc_plan p;
  memset(&p, 0x5a, sizeof p);
  sc_plan_default(&p);
  cr_assert(p.tp == 1 && p.pp == 1 && p.cp == 1 && p.ep == 1 && p.vpp == 0 && p.dp == 0);
  cr_assert(p.schedule == SC_SCHED_1F1B && p.recompute == SC_RECOMP_NONE && p.dtype == SC_BF16);
  cr_assert(p.overlap_grad_reduce && p.overlap_param_gather && !p.overlap_tp && !p.sp);
  cr_assert(p.zero == 0 && p.micro_batch == 0 && p.global_batch == 0);
}

Test(defaults, scenario_default_is_gpt3_on_1024_a100) {
  sc_scenario s;
  sc_scenario_default(&s);
  cr_assert_str_eq(s.model.name, "gpt3-175b");
  cr_assert_str_eq(s.cluster.name, "dgx-a100");
  cr_assert_str_eq(s.cluster.gpu.name, "a100-sxm4-80gb");
  cr_assert_eq(s.cluster.gpus, 1024);
  sc_scenario r = resolved(s);
  cr_assert(r.plan.tp == 8 && r.plan.pp == 16 && r.plan.dp == 8 && r.plan.vpp == 1);
  cr_assert(r.plan.micro_batch == 1 && r.plan.global_batch == 1536);
  cr_assert(r.plan.sp && r.plan.zero == 1 && !r.plan.distributed_optimizer);
  cr_assert_eq(r.plan.recompute, SC_RECOMP_SELECTIVE);
  cr_assert_float_eq(r.cluster.nvlink_bw, 300e9, 1);
  cr_assert_float_eq(r.cluster.nic_bw, 25e9, 1);
  sc_scenario again = resolved(r);
  cr_assert(memcmp(&again, &r, sizeof r) == 0, "resolve is idempotent");
}

Test(defaults, resolve_accepts_null_err) {
  sc_scenario s;
  sc_scenario_default(&s);
  cr_assert_eq(sc_scenario_resolve(&s, NULL), SC_OK);
  s.plan.tp = 7;
  cr_assert_eq(sc_scenario_resolve(&s, NULL), SC_EINPUT);
}

/* ------------------------------------------------------------- picks */

Test(picks, dp_microbatch_vpp_and_derived_shapes) {
  sc_scenario s = base();
  sc_scenario r = resolved(s);
  cr_assert_eq(r.plan.dp, 2, "dp = 8 / (2*2)");
  cr_assert_eq(r.plan.micro_batch, 1, "pp > 1: micro-batch 1");
  s.plan.pp = 1;
  s.plan.tp = 8;
  r = resolved(s);
  cr_assert_eq(r.plan.dp, 1);
  cr_assert_eq(r.plan.micro_batch, 64, "pp 1: no gradient accumulation");
  s = base();
  s.plan.schedule = SC_SCHED_INTERLEAVED;
  s.plan.vpp = 0;
  r = resolved(s);
  cr_assert_eq(r.plan.vpp, 2);
  s.plan.schedule = SC_SCHED_1F1B;
  s.plan.vpp = 4;
  r = resolved(s);
  cr_assert_eq(r.plan.schedule, SC_SCHED_INTERLEAVED, "1f1b with vpp 4 is interleaved");
  s = base();
  s.model.tf.kv_heads = s.model.tf.head_dim = s.model.tf.ffn = 0;
  r = resolved(s);
  cr_assert(r.model.tf.kv_heads == 32 && r.model.tf.head_dim == 128 && r.model.tf.ffn == 16384);
}

Test(picks, switches_and_links) {
  sc_scenario s = base();
  s.plan.distributed_optimizer = 5;
  s.plan.zero = 0;
  s.plan.tp = 1;
  s.plan.sp = 1;
  s.cluster.nvlink_domain = 0;
  sc_scenario r = resolved(s);
  cr_assert(r.plan.zero == 1 && r.plan.distributed_optimizer == 1);
  cr_assert_eq(r.plan.sp, 0, "sp is meaningless without tp");
  cr_assert_eq(r.cluster.nvlink_domain, 8);
  cr_assert_float_eq(r.cluster.nvlink_bw, 300e9, 1);
  s.plan.zero = 3;
  r = resolved(s);
  cr_assert_eq(r.plan.zero, 3, "distributed optimizer never lowers zero");
  s = base();
  s.model.tf.head_dim = 100; /* explicit head_dim beats hidden / heads */
  s.model.tf.hidden = 4100;
  s.model.tf.ffn = 16384;
  r = resolved(s);
  cr_assert_eq(r.model.tf.head_dim, 100);
}

/* --------------------------------------------------- impossible plans */

Test(errors, tp_must_divide_heads_kv_heads_and_ffn) {
  sc_scenario s = base();
  s.model = *sc_model_preset("gpt3-175b");
  s.cluster.gpus = 1024;
  s.plan.tp = 7;
  s.plan.pp = 1;
  s.plan.global_batch = 1536;
  EXPECT_ERROR(s, "plan.tp: 7 does not divide model.heads 96",
               "valid tp: 1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 96");
  s = base();
  s.model = *sc_model_preset("llama3-70b");
  s.plan.tp = 16;
  s.cluster.gpus = 32;
  EXPECT_ERROR(s, "plan.tp: 16 does not divide model.kv_heads 8", "valid tp: 1, 2, 4, 8");
  s = base();
  s.model.tf.ffn = 11007;
  EXPECT_ERROR(s, "plan.tp: 2 does not divide model.ffn 11007", "valid tp: 1");
}

Test(errors, gpus_must_equal_the_product) {
  sc_scenario s = base();
  s.plan.dp = 4;
  EXPECT_ERROR(s, "plan.dp", "tp*pp*dp*cp = 2*2*4*1 = 16", "cluster.gpus = 8", "use dp 2");
  s = base();
  s.cluster.gpus = 6;
  s.cluster.gpus_per_node = 6;
  s.cluster.nvlink_domain = 6;
  s.plan.pp = 4;
  EXPECT_ERROR(s, "plan: tp*pp*cp = 2*4*1 = 8 exceeds cluster.gpus 6");
  s.plan.pp = 1;
  s.plan.tp = 4;
  EXPECT_ERROR(s, "plan.dp: cannot derive dp", "not divisible by tp*pp*cp = 4*1*1 = 4");
}

Test(errors, batch_must_split_evenly) {
  sc_scenario s = base();
  s.plan.micro_batch = 5;
  EXPECT_ERROR(s, "plan.micro_batch: 5 x dp 2 does not divide plan.global_batch 64",
               "valid micro_batch: 1, 2, 4, 8, 16, 32");
  s = base();
  s.plan.global_batch = 63;
  EXPECT_ERROR(s, "plan.global_batch: 63 is not divisible by dp 2", "62 or 64");
  s.plan.global_batch = 0;
  EXPECT_ERROR(s, "plan.global_batch: required");
  s.plan.global_batch = 64;
  s.plan.micro_batch = 65;
  EXPECT_ERROR(s, "plan.micro_batch: 65 is out of range");
}

Test(errors, pipeline_must_hold_whole_layers) {
  sc_scenario s = base();
  s.model.tf.layers = 30;
  s.plan.pp = 4;
  s.plan.tp = 1;
  EXPECT_ERROR(s, "plan.pp: 4 does not divide the 30 layers of the model", "valid pp: 1, 2, 3, 5, 6, 10, 15, 30");
  s.plan.pp = 2;
  s.plan.vpp = 2;
  s.plan.schedule = SC_SCHED_INTERLEAVED;
  EXPECT_ERROR(s, "plan.vpp: 2 does not divide the 15 layers per pipeline stage",
               "valid vpp: 1, 3, 5, 15");
  s.plan.vpp = 1;
  EXPECT_ERROR(s, "plan.vpp: the interleaved schedule needs vpp >= 2");
  s.plan.vpp = 3;
  s.plan.pp = 1;
  s.plan.schedule = SC_SCHED_1F1B;
  EXPECT_ERROR(s, "plan.schedule: \"interleaved\" needs plan.pp > 1");
  s.plan.schedule = SC_SCHED_GPIPE;
  s.plan.pp = 2;
  EXPECT_ERROR(s, "plan.vpp: 3 model chunks per rank need plan.schedule \"interleaved\"");
}

Test(errors, interleaved_micro_batch_count_names_valid_counts) {
  sc_scenario s = base(); /* tp 2 x pp 2 on 8 GPUs: dp 2 */
  s.plan.schedule = SC_SCHED_INTERLEAVED;
  s.plan.vpp = 2;
  s.plan.micro_batch = 1;
  s.plan.global_batch = 6; /* 3 micro-batches per replica */
  EXPECT_ERROR(s, "a multiple of pp 2", "it is 3", "valid counts nearby: 2 or 4");
  s.plan.global_batch = 2; /* 1 micro-batch: fewer than the stages */
  EXPECT_ERROR(s, "a multiple of pp 2", "it is 1", "valid counts: 2, 4, ... (or use vpp 1)");
  sc_error err = {0};
  cr_assert_eq(sc_scenario_resolve(&s, &err), SC_EINPUT);
  cr_assert_null(strstr(err.msg, "2 or 2"), "a repeated count offered: %s", err.msg);
}

Test(errors, experts_context_and_zero) {
  sc_scenario s = base();
  s.plan.ep = 2;
  EXPECT_ERROR(s, "plan.ep: 2 needs an MoE model", "valid ep: 1");
  /* routing groups on a dense model, with or without a group topk */
  s = base();
  s.plan.moe_router_groups = 4;
  EXPECT_ERROR(s, "plan.moe_router_groups: 4 needs an MoE model", "valid: 0");
  s.plan.moe_router_group_topk = 1;
  EXPECT_ERROR(s, "plan.moe_router_groups: 4 needs an MoE model", "valid: 0");
  s = base();
  s.plan.ep = 2;
  s.model = *sc_model_preset("mixtral-8x7b");
  s.plan.ep = 4;
  EXPECT_ERROR(s, "plan.ep: 4 must divide model.experts 8 and dp*cp 2", "valid ep: 1, 2");
  s.plan.ep = 3;
  s.cluster.gpus = 48;
  s.cluster.gpus_per_node = 8;
  EXPECT_ERROR(s, "plan.ep: 3 must divide model.experts 8 and dp*cp 12", "valid ep: 1, 2, 4");
  s = base();
  s.model.tf.seq = 1000;
  s.plan.cp = 3;
  s.plan.tp = 1;
  s.cluster.gpus = 6;
  s.cluster.gpus_per_node = 6;
  s.cluster.nvlink_domain = 6;
  EXPECT_ERROR(s, "plan.cp: 3 does not divide model.seq 1000", "valid cp: 1, 2, 4, 5, 8, 10");
  s = base();
  s.plan.zero = 4;
  EXPECT_ERROR(s, "plan.zero: 4 is out of range (valid: 0..3)");
  s.plan.zero = -1;
  EXPECT_ERROR(s, "plan.zero: -1 is out of range");
}

Test(errors, model_shape) {
  sc_scenario s = base();
  s.model.tf.hidden = 4100;
  s.model.tf.head_dim = 0;
  s.model.tf.ffn = 16384;
  EXPECT_ERROR(s, "model.hidden: 4100 is not divisible by model.heads 32", "set model.head_dim",
               "1, 2, 4, 5, 10, 20, 25, 41, 50");
  s = base();
  s.model.tf.kv_heads = 12;
  EXPECT_ERROR(s, "model.kv_heads: 12 does not divide model.heads 32", "1, 2, 4, 8, 16, 32");
  s = base();
  s.model.tf.experts = 8;
  s.model.tf.topk = 0;
  EXPECT_ERROR(s, "model.topk: 0 is not valid for model.experts 8", "valid: 1..8");
  s.model.tf.experts = 0;
  s.model.tf.topk = 2;
  EXPECT_ERROR(s, "model.topk: 2 needs an MoE model");
  s = base();
  s.model.tf.layers = 0;
  EXPECT_ERROR(s, "model.layers: 0 is out of range");
  s = base();
  s.model.tf.act = (sc_act)9;
  EXPECT_ERROR(s, "model.activation");
}

Test(errors, cluster_and_gpu) {
  sc_scenario s = base();
  s.plan.dtype = SC_FP8;
  EXPECT_ERROR(s, "plan.dtype: fp8 is not supported by cluster.gpu a100-sxm4-80gb",
               "valid: fp32, tf32, fp16, bf16");
  s = base();
  s.cluster.gpus = 12;
  EXPECT_ERROR(s, "cluster.gpus: 12 is not a whole number of nodes", "8 or 16");
  s = base();
  s.cluster.gpus = 16;
  s.cluster.nic_bw = 0;
  EXPECT_ERROR(s, "cluster.nic_Gbps: required");
  s.cluster.nic_bw = NAN;
  EXPECT_ERROR(s, "cluster.nic_Gbps");
  s = base();
  s.cluster.gpu.hbm_bytes = 0;
  EXPECT_ERROR(s, "cluster.gpu.hbm_GB");
  s = base();
  s.cluster.gpu.gemm_eff = 1.5;
  EXPECT_ERROR(s, "cluster.gpu.gemm_eff: 1.5");
  s = base();
  s.cluster.nvlink_domain = 3;
  EXPECT_ERROR(s, "cluster.nvlink_domain: 3");
  s = base();
  s.cluster.gpus = 1;
  s.plan.tp = s.plan.pp = 1;
  s.cluster.nic_bw = 0; /* one GPU needs no network */
  resolved(s);
}

Test(errors, sequence_parallel_splits_the_sequence) {
  sc_scenario s = base();
  s.model.tf.seq = 1001;
  s.plan.sp = 1;
  EXPECT_ERROR(s, "plan.sp: sequence parallelism splits model.seq / cp = 1001 tokens over tp 2");
}
