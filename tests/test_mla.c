/*
 * test_mla.c -- multi-latent attention (DeepSeek-V3) as Megatron-Core runs
 * it: the RoPE kernels that assemble q, k and v from the up-projections
 * (fused_apply_mla_rope_for_q / _for_kv under Megatron's default
 * apply_rope_fusion) are one memory pass, and Transformer Engine's fused
 * attention reads those separate sbhd tensors and writes its output in
 * place: no rotary pass over the packed q/k and no layout copies around
 * the kernel, which a GQA layer keeps. Bytes by hand on a tiny model.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "lowered.h"

/* One GPU: seq 128, hidden 256, 4 heads of q/k 64 + 16 RoPE and v 64, MLA
 * latents q 64 and kv 32 (+16 RoPE), 4 experts top-2, bf16. */
static const char *const tiny =
    "{\"model\": {\"name\": \"tiny-mla\", \"layers\": 2, \"hidden\": 256, \"heads\": 4, "
    "\"kv_heads\": 4, \"head_dim\": 64, \"ffn\": 512, \"vocab\": 1000, \"seq\": 128, "
    "\"experts\": 4, \"topk\": 2, \"activation\": \"swiglu\", \"norm\": \"rmsnorm\", "
    "\"position\": \"rope\", \"bias\": false, \"q_lora_rank\": 64, \"kv_lora_rank\": 32, "
    "\"rope_dim\": 16, \"v_head_dim\": 64}, "
    "\"cluster\": {\"gpu\": \"h100-sxm5-80gb\", \"gpus\": 1, \"gpus_per_node\": 1}, "
    "\"plan\": {\"tp\": 1, \"pp\": 1, \"global_batch\": 4, \"micro_batch\": 1}}";

static void lower_json(lowered *l, const char *json, const char *const *set, size_t n) {
  sc_scenario s;
  sc_scenario_default(&s);
  sc_error e = {0};
  cr_assert_eq(sc_scenario_load_string(&s, json, "test", set, n, &e), SC_OK, "%s", e.msg);
  lowered_make(l, &s);
}

Test(mla, rope_assembles_q_k_v_and_attention_runs_in_place) {
  lowered l;
  lower_json(&l, tiny, NULL, 0);
  cr_assert_null(lowered_find(&l, "rope"));
  cr_assert_null(lowered_find(&l, "qkv_layout"));
  cr_assert_null(lowered_find(&l, "ctx_layout"));
  /* reads q (4 x 80 a token) and kv (4 x (80 + 64), the model projecting
   * the RoPE key per head), 896 values, and writes q, k and v (4 x (80 +
   * 80 + 64), 896): 128 tokens x 1792 x 2 bytes, the same backward, two
   * kernels each way */
  const xg_task *r = lowered_task(&l, "mla_rope");
  cr_assert(r->kind == XG_MEM);
  cr_assert_float_eq(r->bytes, 128.0 * 1792 * 2, 1e-6, "mla_rope %g", r->bytes);
  cr_assert_float_eq(r->bwd_scale, 1.0, 1e-12);
  cr_assert(r->host_fwd == 2 && r->host_bwd == 2);
  lowered_done(&l);
}

Test(mla, a_gqa_layer_keeps_its_rope_and_layout_copies) {
  lowered l;
  const char *gqa[] = {"model.kv_lora_rank=0", "model.q_lora_rank=0", "model.rope_dim=0",
                       "model.v_head_dim=0"};
  lower_json(&l, tiny, gqa, 4);
  cr_assert_not_null(lowered_find(&l, "rope"));
  cr_assert_not_null(lowered_find(&l, "qkv_layout"));
  cr_assert_not_null(lowered_find(&l, "ctx_layout"));
  cr_assert_null(lowered_find(&l, "mla_rope"));
  lowered_done(&l);
}

Test(mla, engines_agree) {
  sc_scenario s;
  sc_scenario_default(&s);
  sc_error e = {0};
  cr_assert_eq(sc_scenario_load_string(&s, tiny, "test", NULL, 0, &e), SC_OK, "%s", e.msg);
  sc_result a = lowered_predict(&s, 0), b = lowered_predict(&s, 1);
  cr_assert(fabs(b.step_s / a.step_s - 1) < 0.02, "closed %g event %g", a.step_s, b.step_s);
}
