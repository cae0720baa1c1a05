/*
 * test_attn_auto.c -- plan.attention "auto" (plan/plan_attn.h): what it
 * resolves to per GPU generation, type and framework key; that predict,
 * search and validate take the same kernel for a scenario that names
 * none; that no output says "auto".
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "plan/plan.h"
#include "plan/plan_attn.h"
#include "stepcast.h"
#include "tmpfile.h"

/* The default scenario (GPT-3 175B, 1,024 GPUs) on GPU preset `gpu` in
 * dtype dt, resolved: its plan's attention. */
static sc_scenario on_gpu(const char *gpu, sc_dtype dt) {
  sc_scenario s;
  sc_scenario_default(&s);
  const sc_gpu *g = sc_gpu_preset(gpu);
  cr_assert_not_null(g, "no GPU preset %s", gpu);
  s.cluster.gpu = *g;
  s.cluster.nvlink_bw = 0; /* the GPU's own */
  s.plan.dtype = dt;
  return s;
}

static sc_attention resolved(sc_scenario s) {
  sc_error err = {0};
  cr_assert_eq(s.plan.attention, SC_ATTN_AUTO, "the default is auto");
  cr_assert_eq(sc_scenario_resolve(&s, &err), SC_OK, "%s: %s", s.cluster.gpu.name, err.msg);
  cr_assert_eq(s.plan.flash_attention, s.plan.attention != SC_ATTN_UNFUSED, "%s",
               s.cluster.gpu.name);
  return s.plan.attention;
}

#define AUTO_IS(gpu, dt, want)                                                                 \
  do {                                                                                         \
    sc_attention got_ = resolved(on_gpu(gpu, dt));                                             \
    cr_expect_eq(got_, want, "%s %s: auto gave %s, want %s", gpu, sc_dtype_name(dt),           \
                 plan_attn_names[got_], plan_attn_names[want]);                                \
  } while (0)

/* Per generation: no fused kernel before Ampere; FlashAttention-2 on
 * Ampere, Ada and Hopper in 16 bits; cuDNN through Transformer Engine in
 * fp8 and on Blackwell; FlashAttention-2 where the architecture is
 * unknown (AMD's presets). */
Test(attn_auto, resolves_per_gpu_generation) {
  AUTO_IS("k80", SC_FP32, SC_ATTN_UNFUSED);
  AUTO_IS("p100-sxm2-16gb", SC_FP16, SC_ATTN_UNFUSED);
  AUTO_IS("v100-sxm2-32gb", SC_FP16, SC_ATTN_UNFUSED);
  AUTO_IS("t4", SC_FP16, SC_ATTN_UNFUSED);
  AUTO_IS("a100-sxm4-80gb", SC_BF16, SC_ATTN_FLASH2);
  AUTO_IS("a10", SC_BF16, SC_ATTN_FLASH2);
  AUTO_IS("l40s", SC_BF16, SC_ATTN_FLASH2);
  AUTO_IS("l40s", SC_FP8, SC_ATTN_CUDNN);
  AUTO_IS("h100-sxm5-80gb", SC_BF16, SC_ATTN_FLASH2);
  AUTO_IS("h100-sxm5-80gb", SC_FP16, SC_ATTN_FLASH2);
  AUTO_IS("h100-sxm5-80gb", SC_FP8, SC_ATTN_CUDNN);
  AUTO_IS("b200", SC_BF16, SC_ATTN_CUDNN);
  AUTO_IS("gb200", SC_BF16, SC_ATTN_CUDNN);
  AUTO_IS("gb200", SC_FP4, SC_ATTN_CUDNN);
  AUTO_IS("gb300", SC_BF16, SC_ATTN_CUDNN);
  AUTO_IS("mi300x", SC_BF16, SC_ATTN_FLASH2);
  AUTO_IS("mi300x", SC_FP8, SC_ATTN_FLASH2);
}

/* Keys that name a Transformer Engine framework as validate reads it
 * (NeMo's distributed_fused_adam remainders, MaxText's XLA sharding):
 * cuDNN on Ampere and Hopper in 16 bits too; never before Ampere. */
Test(attn_auto, framework_keys_validate_reads) {
  sc_scenario s = on_gpu("h100-sxm5-80gb", SC_BF16);
  s.plan.param_remainders = 1;
  cr_expect_eq(resolved(s), SC_ATTN_CUDNN, "param_remainders (NeMo)");
  s = on_gpu("a100-sxm4-80gb", SC_BF16);
  s.plan.zero = 3;
  s.plan.fsdp_impl = SC_FSDP_XLA;
  cr_expect_eq(resolved(s), SC_ATTN_CUDNN, "fsdp_impl xla (MaxText)");
  sc_plan p;
  sc_plan_default(&p);
  p.dtype = SC_FP16;
  p.param_remainders = 1;
  cr_expect_eq(plan_attn_auto(70, &p), SC_ATTN_UNFUSED, "no fused kernel on sm70");
  p.param_remainders = 0;
  p.fsdp_impl = SC_FSDP_DEEPSPEED;
  cr_expect_eq(plan_attn_auto(90, &p), SC_ATTN_FLASH2, "DeepSpeed names no TE framework");
}

/* What the scenario says stands: a kernel named, or flash_attention off. */
Test(attn_auto, a_named_kernel_or_flash_off_stands) {
  sc_error err = {0};
  sc_scenario s = on_gpu("gb200", SC_BF16);
  s.plan.attention = SC_ATTN_FLASH2;
  cr_assert_eq(sc_scenario_resolve(&s, &err), SC_OK, "%s", err.msg);
  cr_expect_eq(s.plan.attention, SC_ATTN_FLASH2);
  s = on_gpu("gb200", SC_BF16);
  s.plan.flash_attention = 0;
  cr_assert_eq(sc_scenario_resolve(&s, &err), SC_OK, "%s", err.msg);
  cr_expect_eq(s.plan.attention, SC_ATTN_UNFUSED);
  cr_expect_eq(s.plan.flash_attention, 0);
  /* resolving again changes nothing */
  sc_scenario t = on_gpu("h100-sxm5-80gb", SC_FP8);
  cr_assert_eq(sc_scenario_resolve(&t, &err), SC_OK, "%s", err.msg);
  sc_scenario u = t;
  cr_assert_eq(sc_scenario_resolve(&u, &err), SC_OK, "%s", err.msg);
  cr_expect(!memcmp(&t.plan, &u.plan, sizeof t.plan), "resolve is idempotent");
}

/* The scenario key: "auto" loads, is the default, and the predict report
 * names the kernel it resolved to, in the table and in JSON. */
Test(attn_auto, reports_name_the_resolved_kernel) {
  static const char *const doc =
      "{\"model\": \"llama3-8b\", \"cluster\": {\"gpu\": \"gb200\", \"gpus\": 8}, "
      "\"plan\": {\"tp\": 1, \"pp\": 1, \"global_batch\": 8, \"attention\": \"auto\"}}";
  sc_scenario s;
  sc_error err = {0};
  cr_assert_eq(sc_scenario_load_string_ex(&s, doc, "t.json", NULL, 0, SC_LOAD_PLAN_UNCHECKED, &err),
               SC_OK, "%s", err.msg);
  cr_assert_eq(s.plan.attention, SC_ATTN_AUTO);
  sc_result r;
  cr_assert_eq(sc_predict(&s, &r, &err), SC_OK, "%s", err.msg);
  /* the scenario as given (auto), then resolved: the same kernel named */
  for (int pass = 0; pass < 2; pass++) {
    if (pass) cr_assert_eq(sc_scenario_resolve(&s, &err), SC_OK, "%s", err.msg);
    cr_assert_eq(s.plan.attention == SC_ATTN_AUTO, !pass);
    for (int fmt = 0; fmt < 2; fmt++) {
      char *text = NULL;
      size_t len = 0;
      FILE *f = open_memstream(&text, &len);
      sc_report_prediction(f, fmt ? SC_FORMAT_JSON : SC_FORMAT_TABLE, &s, &r, 0);
      fclose(f);
      cr_expect(strstr(text, fmt ? "\"attention\": \"cudnn\"" : "attention cudnn"), "%s", text);
      cr_expect(!strstr(text, "auto"), "%s", text);
      free(text);
    }
  }
}

/* The same prediction as naming the kernel auto resolves to: auto is
 * that kernel, not an average or another cost. */
Test(attn_auto, predicts_what_naming_its_kernel_predicts) {
  static const struct {
    const char *gpu;
    sc_dtype dt;
    sc_attention as;
  } cases[] = {{"gb200", SC_BF16, SC_ATTN_CUDNN},
               {"h100-sxm5-80gb", SC_FP8, SC_ATTN_CUDNN},
               {"h100-sxm5-80gb", SC_BF16, SC_ATTN_FLASH2},
               {"a100-sxm4-80gb", SC_BF16, SC_ATTN_FLASH2}};
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    sc_scenario a = on_gpu(cases[i].gpu, cases[i].dt), b = a;
    b.plan.attention = cases[i].as;
    sc_result ra, rb;
    sc_error err = {0};
    cr_assert_eq(sc_predict(&a, &ra, &err), SC_OK, "%s: %s", cases[i].gpu, err.msg);
    cr_assert_eq(sc_predict(&b, &rb, &err), SC_OK, "%s: %s", cases[i].gpu, err.msg);
    cr_expect_eq(ra.step_s, rb.step_s, "%s %s: auto %.6f s, %s %.6f s", cases[i].gpu,
                 sc_dtype_name(cases[i].dt), ra.step_s, plan_attn_names[cases[i].as], rb.step_s);
  }
}

/* ------------------------------------------------ predict vs validate */

static const char *HEADER =
    "id,source,model,layers,hidden,heads,kv_heads,ffn,vocab,seq,experts,topk,global_batch,"
    "micro_batch,tp,pp,dp,cp,ep,vpp,sp,zero,recompute,dtype,gpu,gpus,gpus_per_node,"
    "nvlink_domain,nvlink_GBps,nic_Gbps,measured_iter_s,measured_from,notes\n";

/* A training row naming no framework and no kernel (blank notes), one per
 * GPU and type: Megatron-LM's rows as validate reads them. */
static const struct {
  const char *id, *gpu, *dtype;
} ROWS[] = {{"v100", "v100-sxm2-32gb", "fp16"}, {"a100", "a100-sxm4-80gb", "bf16"},
            {"h100", "h100-sxm5-80gb", "bf16"}, {"h100f8", "h100-sxm5-80gb", "fp8"},
            {"b200", "b200", "bf16"},           {"gb200", "gb200", "bf16"},
            {"gb200f8", "gb200", "fp8"}};

static void write_rows(char *path) {
  char body[8192];
  size_t n = (size_t)snprintf(body, sizeof body, "%s", HEADER);
  for (size_t i = 0; i < sizeof ROWS / sizeof ROWS[0]; i++)
    n += (size_t)snprintf(body + n, sizeof body - n,
                          "%s,test,GPT,8,2048,16,,8192,32000,2048,,,16,1,2,1,4,1,1,1,1,1,none,"
                          "%s,%s,8,8,8,,,1,iteration_time,\n",
                          ROWS[i].id, ROWS[i].dtype, ROWS[i].gpu);
  tmp_write(path, body);
}

/* A scenario that names no kernel predicts with the kernel validate gives
 * a row that names none, wherever that row runs a fused kernel (fp8,
 * Blackwell); before Ampere both run unfused. Where validate's Megatron-LM
 * row runs its local unfused attention (Ampere/Hopper in 16 bits: flash
 * attention off, Megatron-LM's --use-flash-attn default), predict's
 * default keeps flash attention on and auto gives FlashAttention-2
 * (docs/input.md). The step times agree to the bit where the kernels do. */
Test(attn_auto, predict_takes_validates_kernel) {
  char path[] = "/tmp/sc_attn_auto_XXXXXX";
  write_rows(path);
  for (size_t i = 0; i < sizeof ROWS / sizeof ROWS[0]; i++) {
    sc_scenario v;
    sc_error err = {0};
    cr_assert_eq(sc_validate_row_scenario(path, ROWS[i].id, &v, &err), SC_OK, "%s", err.msg);
    sc_scenario p = v; /* the same run, as a predict scenario naming no kernel
                          and no framework (validate names Megatron-LM's) */
    sc_plan def;
    sc_plan_default(&def);
    p.plan.attention = def.attention;
    p.plan.flash_attention = def.flash_attention;
    p.plan.framework = def.framework;
    cr_assert_eq(sc_scenario_resolve(&v, &err), SC_OK, "%s: %s", ROWS[i].id, err.msg);
    cr_assert_eq(sc_scenario_resolve(&p, &err), SC_OK, "%s: %s", ROWS[i].id, err.msg);
    int arch = v.cluster.gpu.arch;
    int megatron_local = arch >= 80 && !plan_attn_runs_te(arch, v.plan.dtype);
    if (megatron_local) {
      cr_expect_eq(v.plan.attention, SC_ATTN_UNFUSED, "%s: Megatron-LM's local attention",
                   ROWS[i].id);
      cr_expect_eq(p.plan.attention, SC_ATTN_FLASH2, "%s", ROWS[i].id);
      continue;
    }
    cr_expect_eq(p.plan.attention, v.plan.attention, "%s: predict %s, validate %s", ROWS[i].id,
                 plan_attn_names[p.plan.attention], plan_attn_names[v.plan.attention]);
    sc_result rv, rp;
    cr_assert_eq(sc_predict(&v, &rv, &err), SC_OK, "%s", err.msg);
    cr_assert_eq(sc_predict(&p, &rp, &err), SC_OK, "%s", err.msg);
    cr_expect_eq(rp.step_s, rv.step_s, "%s: %.6f vs %.6f s", ROWS[i].id, rp.step_s, rv.step_s);
  }
  unlink(path);
}

/* ------------------------------------------------------------ search */

/* Each candidate of a search runs auto resolved for its own type: an fp8
 * plan cuDNN, a bf16 plan FlashAttention-2 on Hopper; its step is
 * predict's for that plan. */
Test(attn_auto, search_resolves_per_candidate) {
  sc_scenario s;
  sc_error err = {0};
  /* loaded as `stepcast search` loads it: the plan unresolved */
  cr_assert_eq(sc_scenario_load_file_ex(&s, SC_SOURCE_DIR "/examples/llama3-70b-512-h100.json",
                                        NULL, 0, SC_LOAD_PLAN_UNCHECKED, &err),
               SC_OK, "%s", err.msg);
  cr_assert_eq(s.plan.attention, SC_ATTN_AUTO);
  sc_search_opts o;
  sc_search_opts_default(&o);
  o.dtypes = 1u << SC_BF16 | 1u << SC_FP8;
  o.max_plans = 3000;
  sc_candidate best[40];
  int n = 0;
  sc_search_stats st;
  cr_assert_eq(sc_search(&s, &o, best, 40, &n, &st, &err), SC_OK, "%s", err.msg);
  int seen[2] = {0, 0};
  for (int i = 0; i < n; i++) {
    const sc_plan *p = &best[i].plan;
    cr_assert(p->dtype == SC_BF16 || p->dtype == SC_FP8);
    sc_attention want = p->dtype == SC_FP8 ? SC_ATTN_CUDNN : SC_ATTN_FLASH2;
    cr_expect_eq(p->attention, want, "plan %d (%s): %s", i + 1, sc_dtype_name(p->dtype),
                 plan_attn_names[p->attention]);
    seen[p->dtype == SC_FP8]++;
    if (i >= 3) continue;
    sc_scenario one = s;
    one.plan = *p;
    one.plan.attention = SC_ATTN_AUTO;
    sc_result r;
    cr_assert_eq(sc_predict(&one, &r, &err), SC_OK, "%s", err.msg);
    cr_expect(r.step_s == best[i].result.step_s, "plan %d: predict %.6f, search %.6f s", i + 1,
              r.step_s, best[i].result.step_s);
  }
  cr_expect(seen[1] > 0, "no fp8 plan among the best %d", n);
  char *text = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&text, &len);
  sc_report_search(f, SC_FORMAT_TABLE, &s, best, n, &st);
  fclose(f);
  cr_expect(strstr(text, "; attention flash2 (bf16), cudnn (fp8)\n"), "%s", text);
  free(text);
}
