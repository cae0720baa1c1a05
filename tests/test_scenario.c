/*
 * test_scenario.c -- the JSON scenario loader (src/io/scenario.c): the
 * format, unit conversions, overrides, and one test per kind of input
 * error, each checking the place and the valid values named.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/name.h"
#include "load/scenario.h"
#include "plan/plan.h"
#include "stepcast.h"
#include "nopos.h"
#include "tmpfile.h"

/* Load json (+ overrides) and require success. */
static sc_scenario load_ok(const char *json, const char *const *ov, size_t n) {
  sc_scenario s;
  sc_error err = {0};
  int rc = sc_scenario_load_string(&s, json, "t.json", ov, n, &err);
  cr_assert_eq(rc, SC_OK, "load failed for %s: %s", json, err.msg);
  cr_assert_eq(err.code, SC_OK);
  return s;
}

/* Load json (+ overrides), require `code` and each needle in the message,
 * and require the target scenario untouched. */
static void load_err(const char *json, const char *const *ov, size_t n, int code,
                     const char *const *needles, size_t n_needles) {
  sc_scenario s, before;
  memset(&s, 0x3c, sizeof s);
  before = s;
  sc_error err = {0};
  int rc = sc_scenario_load_string(&s, json, "t.json", ov, n, &err);
  cr_assert_eq(rc, code, "%s: rc %d, expected %d (msg: %s)", json, rc, code, err.msg);
  cr_assert_eq(err.code, code);
  char bare[sizeof err.msg];
  nopos(bare, sizeof bare, err.msg, "t.json");
  for (size_t i = 0; i < n_needles; i++)
    cr_assert(strstr(bare, needles[i]) || strstr(err.msg, needles[i]),
              "%s: message lacks \"%s\": %s", json, needles[i], err.msg);
  cr_assert(memcmp(&s, &before, sizeof s) == 0, "%s: failed load wrote the scenario", json);
}
#define NEEDLES(...) ((const char *const[]){__VA_ARGS__}), \
  sizeof((const char *const[]){__VA_ARGS__}) / sizeof(const char *)
#define ERR(json, ...) load_err(json, NULL, 0, SC_EINPUT, NEEDLES(__VA_ARGS__))
#define OV(...) ((const char *const[]){__VA_ARGS__}), \
  sizeof((const char *const[]){__VA_ARGS__}) / sizeof(const char *)

/* ------------------------------------------------------------- format */

Test(format, empty_document_is_the_default_scenario) {
  sc_scenario s = load_ok("{}", NULL, 0), d;
  sc_scenario_default(&d);
  cr_assert_eq(sc_scenario_resolve(&d, NULL), SC_OK);
  cr_assert(memcmp(&s, &d, sizeof s) == 0, "{} == resolved sc_scenario_default");
  s = load_ok("{\"description\": \"x\", \"model\": {}, \"cluster\": {}, \"plan\": {}}", NULL, 0);
  cr_assert(memcmp(&s, &d, sizeof s) == 0, "empty sections change nothing");
}

Test(format, presets_by_name_and_with_changes) {
  sc_scenario s = load_ok("{\"model\": \"llama3-70b\", \"plan\": {\"pp\": 8}}", NULL, 0);
  cr_assert_str_eq(s.model.name, "llama3-70b");
  cr_assert(s.model.tf.kv_heads == 8 && s.model.tf.ffn == 28672 && s.model.tf.seq == 8192);
  s = load_ok("{\"model\": {\"preset\": \"LLAMA3-70B\", \"seq\": 4096}, \"plan\": {\"pp\": 8}}",
              NULL, 0);
  cr_assert(s.model.tf.seq == 4096 && s.model.tf.vocab == 128256);
  cr_assert_str_eq(s.model.name, "llama3-70b");
  /* Derived fields of a preset follow edits of hidden/heads. */
  s = load_ok("{\"model\": {\"hidden\": 8192, \"heads\": 64}}", NULL, 0);
  cr_assert(s.model.tf.head_dim == 128 && s.model.tf.ffn == 32768 && s.model.tf.kv_heads == 64);
  cr_assert_str_eq(s.model.name, "custom");
  s = load_ok("{\"model\": {\"preset\": \"llama2-7b\", \"hidden\": 2048}, \"plan\": {\"pp\": 8}}",
              NULL, 0);
  cr_assert(s.model.tf.ffn == 11008 && s.model.tf.head_dim == 64, "explicit ffn stays");
}

Test(format, custom_model_and_gpu_with_units) {
  sc_scenario s = load_ok(
      "{\"model\": {\"layers\": 16, \"hidden\": 2048, \"heads\": 16, \"kv_heads\": 4,"
      "  \"ffn\": 5632, \"vocab\": 32000, \"seq\": 4096, \"activation\": \"swiglu\","
      "  \"norm\": \"RMSNorm\", \"position\": \"rope\", \"tied_embeddings\": false,"
      "  \"bias\": 0, \"name\": \"tiny\"},"
      " \"cluster\": {\"gpu\": {\"name\": \"acc\", \"peak_tflops\": {\"bf16\": 500, \"fp8\": 1000},"
      "  \"hbm_GiB\": 64, \"hbm_TBps\": 2.5, \"nvlink_GBps\": 200, \"launch_us\": 4},"
      "  \"gpus\": 32, \"gpus_per_node\": 4, \"nic_Gbps\": 400, \"nvlink_latency_us\": 1.5,"
      "  \"nic_latency_us\": 6, \"topology\": \"fat-tree\"},"
      " \"plan\": {\"tp\": 4, \"pp\": 1, \"global_batch\": 64, \"dtype\": \"FP8\","
      "  \"schedule\": \"gpipe\", \"recompute\": \"full\", \"overlap_tp\": true}}",
      NULL, 0);
  cr_assert_str_eq(s.model.name, "tiny");
  cr_assert(s.model.tf.act == SC_ACT_SWIGLU && s.model.tf.norm == SC_NORM_RMSNORM &&
            s.model.tf.pos == SC_POS_ROPE && !s.model.tf.tied_embeddings && !s.model.tf.bias);
  cr_assert(s.model.tf.head_dim == 128 && s.model.tf.kv_heads == 4);
  cr_assert_str_eq(s.cluster.name, "custom");
  cr_assert_str_eq(s.cluster.gpu.name, "acc");
  cr_assert_float_eq(s.cluster.gpu.peak_flops[SC_BF16], 500e12, 1);
  cr_assert_float_eq(s.cluster.gpu.peak_flops[SC_FP8], 1000e12, 1);
  cr_assert_float_eq(s.cluster.gpu.hbm_bytes, 64.0 * (1 << 30), 1);
  cr_assert_float_eq(s.cluster.gpu.hbm_bw, 2.5e12, 1);
  cr_assert_float_eq(s.cluster.gpu.launch_s, 4e-6, 1e-12);
  cr_assert_float_eq(s.cluster.nvlink_bw, 200e9, 1, "cluster NVLink follows the GPU");
  cr_assert_float_eq(s.cluster.nic_bw, 50e9, 1);
  cr_assert_float_eq(s.cluster.nvlink_lat, 1.5e-6, 1e-12);
  cr_assert_float_eq(s.cluster.nic_lat, 6e-6, 1e-12);
  cr_assert_str_eq(s.cluster.topology, "fat-tree");
  cr_assert(s.cluster.gpus == 32 && s.cluster.gpus_per_node == 4 && s.cluster.nvlink_domain == 4);
  cr_assert(s.plan.dtype == SC_FP8 && s.plan.schedule == SC_SCHED_GPIPE &&
            s.plan.recompute == SC_RECOMP_FULL && s.plan.overlap_tp);
  cr_assert(s.plan.dp == 8 && s.plan.micro_batch == 8, "pp 1: whole local batch");
}

Test(format, cluster_nodes_and_gpus) {
  sc_scenario s = load_ok("{\"cluster\": {\"preset\": \"dgx-h100\", \"nodes\": 16},"
                          " \"plan\": {\"pp\": 4}}", NULL, 0);
  cr_assert_eq(s.cluster.gpus, 128);
  cr_assert_float_eq(s.cluster.nic_bw, 50e9, 1);
  cr_assert_float_eq(s.cluster.nvlink_bw, 450e9, 1);
  cr_assert_eq(s.plan.dp, 4);
  s = load_ok("{\"cluster\": {\"nodes\": 64, \"gpus\": 512}}", NULL, 0);
  cr_assert_str_eq(s.cluster.name, "dgx-a100", "only the size changed");
  cr_assert_eq(s.plan.dp, 4);
  s = load_ok("{\"cluster\": {\"preset\": \"gb200-nvl72\", \"gpus\": 144, "
              "\"nvlink_GBps\": 800}, \"plan\": {\"tp\": 4, \"pp\": 4, \"global_batch\": 1152}}", NULL, 0);
  cr_assert(s.cluster.nvlink_domain == 72 && s.plan.dp == 9);
  cr_assert_float_eq(s.cluster.nvlink_bw, 800e9, 1);
  s = load_ok("{\"cluster\": {\"gpu\": {\"preset\": \"h100-sxm5-80gb\", \"hbm_GB\": 96}}}", NULL, 0);
  cr_assert_str_eq(s.cluster.gpu.name, "h100-sxm5-80gb");
  cr_assert_float_eq(s.cluster.gpu.hbm_bytes, 96e9, 1);
  cr_assert_float_eq(s.cluster.gpu.peak_flops[SC_BF16], 989.4e12, 1e9);
}

/* ------------------------------------------------------------- errors */

Test(errors, malformed_json_names_line_and_column) {
  ERR("{\n  \"plan\": {\"tp\": }\n}", "t.json:2:", "invalid JSON");
  ERR("{\"plan\": {\"tp\": 8, \"tp\": 4}}", "t.json:1:", "duplicate");
  ERR("{} trailing", "t.json:1:");
  ERR("", "t.json:");
  ERR("{\"plan\": {\"tp\": 99999999999999999999999}}", "t.json:1:");
}

Test(errors, unknown_keys_get_a_suggestion_and_the_valid_keys) {
  ERR("{\"plan\": {\"tpp\": 8}}", "t.json: plan.tpp: unknown key", "did you mean \"tp\"?",
      "valid keys in plan: tp, pp, dp");
  ERR("{\"plan\": {\"micro_batch_size\": 2}}", "did you mean \"micro_batch\"?");
  ERR("{\"model\": {\"num_attention_heads\": 2}}", "did you mean \"heads\"?");
  ERR("{\"modle\": {}}", "modle: unknown key", "did you mean \"model\"?",
      "valid keys in the top level: model, cluster, plan");
  ERR("{\"cluster\": {\"gpu\": {\"hbm_gb\": 3}}}", "cluster.gpu.hbm_gb", "did you mean \"hbm_GB\"?");
  ERR("{\"cluster\": {\"gpu\": {\"peak_tflops\": {\"bf17\": 3}}}}",
      "cluster.gpu.peak_tflops.bf17: unknown key", "did you mean \"bf16\"?");
  ERR("{\"plan\": {\"xyzzy\": 1}}", "plan.xyzzy: unknown key; valid keys in plan");
}

Test(errors, wrong_types) {
  ERR("{\"plan\": {\"tp\": \"8\"}}", "t.json: plan.tp: expected a positive integer, got string \"8\"");
  ERR("{\"plan\": {\"tp\": 8.5}}", "plan.tp: expected a positive integer, got number 8.5");
  ERR("{\"plan\": {\"sp\": \"yes\"}}", "plan.sp: expected true or false, got string \"yes\"");
  ERR("{\"plan\": {\"sp\": 2}}", "plan.sp: expected true or false, got integer 2");
  ERR("{\"plan\": {\"dtype\": 16}}", "plan.dtype: expected one of fp32, tf32, fp16, bf16, fp8, fp4");
  ERR("{\"plan\": {\"dp\": null}}", "plan.dp: expected", "got null");
  ERR("{\"model\": 5}", "model: expected a model preset id (string) or an object, got integer 5");
  ERR("{\"plan\": []}", "plan: expected an object, got an array");
  ERR("[1, 2]", "(top level): expected an object with keys model, cluster, plan, got an array");
  ERR("{\"cluster\": {\"gpu\": true}}", "cluster.gpu: expected a GPU preset id");
  ERR("{\"cluster\": {\"nic_Gbps\": \"fast\"}}", "cluster.nic_Gbps: expected Gb/s");
  ERR("{\"cluster\": {\"gpu\": {\"peak_tflops\": 5}}}", "cluster.gpu.peak_tflops: expected an object");
  ERR("{\"model\": {\"preset\": 7}}", "model.preset: expected a preset id (string), got integer 7");
  ERR("{\"description\": 1}", "description: expected a string");
}

Test(errors, values_out_of_range) {
  ERR("{\"plan\": {\"tp\": 0}}", "plan.tp: 0 is out of range (valid: 1..");
  ERR("{\"plan\": {\"zero\": 4}}", "plan.zero: 4 is out of range (valid: 0..3)");
  ERR("{\"plan\": {\"tp\": -8}}", "plan.tp: -8 is out of range");
  ERR("{\"cluster\": {\"nic_Gbps\": -1}}", "cluster.nic_Gbps: -1 is out of range");
  ERR("{\"cluster\": {\"gpu\": {\"hbm_GB\": 0}}}", "cluster.gpu.hbm_GB: 0 is out of range");
  ERR("{\"cluster\": {\"gpu\": {\"gemm_eff\": 1.2}}}", "cluster.gpu.gemm_eff: 1.2 is out of range");
  ERR("{\"plan\": {\"schedule\": \"1f1bb\"}}", "plan.schedule: unknown value string \"1f1bb\"",
      "did you mean \"1f1b\"?", "valid: 1f1b, gpipe, interleaved");
  ERR("{\"model\": {\"name\": \"0123456789012345678901234567890123456789012345678901234567890123456789\"}}",
      "model.name: is 70 bytes long; at most 63");
  ERR("{\"cluster\": {\"nodes\": 1000000000}}", "cluster.nodes: 1000000000 is out of range");
  ERR("{\"cluster\": {\"nodes\": 4, \"gpus\": 30}}",
      "cluster.gpus: 30 disagrees with cluster.nodes 4 x gpus_per_node 8 = 32");
  ERR("{\"cluster\": {\"gpu\": {\"hbm_GB\": 80, \"hbm_GiB\": 80}}}", "give hbm_GB or hbm_GiB");
}

Test(errors, unknown_presets_list_the_valid_ids) {
  ERR("{\"model\": \"llama3-7b\"}", "model: unknown model preset \"llama3-7b\"",
      "did you mean \"llama3-70b\"?", "valid: gpt3-125m,", "mixtral-8x7b");
  ERR("{\"model\": {\"preset\": \"gpt3\"}}", "model.preset: unknown model preset",
      "did you mean \"gpt3-125m\"?");
  ERR("{\"cluster\": {\"gpu\": \"h100\"}}", "cluster.gpu: unknown GPU preset \"h100\"",
      "did you mean \"h100-sxm5-80gb\"?", "a100-sxm4-80gb");
  ERR("{\"cluster\": {\"preset\": \"dgx-a10\"}}", "cluster.preset: unknown cluster preset",
      "did you mean \"dgx-a100\"?", "gb200-nvl72");
  ERR("{\"cluster\": \"nope\"}", "cluster: unknown cluster preset \"nope\"", "valid: dgx-a100");
}

Test(errors, impossible_plans_name_the_key_and_the_valid_values) {
  ERR("{\"plan\": {\"tp\": 5}}", "t.json: plan.tp: 5 does not divide model.heads 96",
      "valid tp: 1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 96");
  ERR("{\"model\": \"llama3-70b\", \"plan\": {\"tp\": 16, \"pp\": 8}}",
      "plan.tp: 16 does not divide model.kv_heads 8", "valid tp: 1, 2, 4, 8");
  ERR("{\"plan\": {\"dp\": 4}}", "plan.dp: tp*pp*dp*cp = 8*16*4*1 = 512 but cluster.gpus = 1024",
      "use dp 8");
  ERR("{\"plan\": {\"micro_batch\": 5}}",
      "plan.micro_batch: 5 x dp 8 does not divide plan.global_batch 1536",
      "valid micro_batch: 1, 2, 3, 4, 6, 8");
  ERR("{\"plan\": {\"pp\": 64, \"dp\": 2}}", "plan.pp: 64 does not divide the 96 layers of the model",
      "valid pp: 1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 96");
  ERR("{\"plan\": {\"vpp\": 4}}", "plan.vpp: 4 does not divide the 6 layers per pipeline stage",
      "valid vpp: 1, 2, 3, 6");
  ERR("{\"plan\": {\"schedule\": \"interleaved\", \"vpp\": 1}}",
      "plan.vpp: the interleaved schedule needs vpp >= 2");
  ERR("{\"plan\": {\"pp\": 1, \"tp\": 8, \"vpp\": 2}}", "plan.schedule: \"interleaved\" needs plan.pp > 1");
  ERR("{\"model\": \"mixtral-8x7b\", \"plan\": {\"pp\": 4, \"ep\": 16}}",
      "plan.ep: 16 must divide model.experts 8 and dp*cp 32", "valid ep: 1, 2, 4, 8");
  ERR("{\"plan\": {\"ep\": 2}}", "plan.ep: 2 needs an MoE model");
  ERR("{\"model\": {\"seq\": 2000}, \"plan\": {\"cp\": 3, \"pp\": 4}}",
      "plan.cp: 3 does not divide model.seq 2000");
  ERR("{\"model\": {\"hidden\": 1000}}", "model.hidden: 1000 is not divisible by model.heads 96",
      "set model.head_dim");
  ERR("{\"model\": {\"heads\": 96, \"kv_heads\": 7}}", "model.kv_heads: 7 does not divide model.heads 96");
  ERR("{\"plan\": {\"dtype\": \"fp8\"}}", "plan.dtype: fp8 is not supported by cluster.gpu a100-sxm4-80gb");
  ERR("{\"cluster\": {\"preset\": \"dgx-h100\"}}", "plan: tp*pp*cp = 8*16*1 = 128 exceeds cluster.gpus 8");
  ERR("{\"model\": {\"experts\": 8}}", "model.topk: 0 is not valid for model.experts 8");
}

/* ---------------------------------------------------------- overrides */

Test(overrides, set_values_and_parse_json_or_strings) {
  sc_scenario s = load_ok("{}", OV("plan.tp=4", "plan.pp=8", "plan.sp=false",
                                   "cluster.gpu=h100-sxm5-80gb", "plan.schedule=interleaved"));
  cr_assert(s.plan.tp == 4 && s.plan.pp == 8 && s.plan.dp == 32 && !s.plan.sp);
  cr_assert(s.plan.schedule == SC_SCHED_INTERLEAVED && s.plan.vpp == 2);
  cr_assert_str_eq(s.cluster.gpu.name, "h100-sxm5-80gb");
  cr_assert_float_eq(s.cluster.nvlink_bw, 450e9, 1, "NVLink follows the new GPU");
  s = load_ok("{\"model\": \"llama3-70b\", \"cluster\": {\"preset\": \"dgx-h100\", \"gpus\": 64}}",
              OV("model.seq=4096", "cluster.gpu.hbm_GB=96", "plan.pp=8", "plan.tp=8"));
  cr_assert_str_eq(s.model.name, "llama3-70b");
  cr_assert_eq(s.model.tf.seq, 4096);
  cr_assert_float_eq(s.cluster.gpu.hbm_bytes, 96e9, 1);
  cr_assert_str_eq(s.cluster.gpu.name, "h100-sxm5-80gb");
  s = load_ok("{}", OV("model={\"preset\": \"mpt-7b\"}", "plan={\"tp\": 1, \"pp\": 1, "
                       "\"global_batch\": 1024, \"zero\": 3}"));
  cr_assert_str_eq(s.model.name, "mpt-7b");
  cr_assert(s.plan.dp == 1024 && s.plan.micro_batch == 1 && s.plan.zero == 3);
  s = load_ok("{}", OV("plan.tp=2", "plan.tp=8"));
  cr_assert_eq(s.plan.tp, 8, "later overrides win");
}

/* Shorter key paths apply first, each depth in the order given: a
 * section or preset set by one override is edited by the keys inside it,
 * whichever comes first; keys of one path, and a section and its preset
 * key, keep their order; the blamed override is the one applied last. */
Test(overrides, sections_before_the_keys_inside_them) {
  sc_scenario s = load_ok("{}", OV("model.seq=4096", "model=llama3-70b"));
  cr_assert_str_eq(s.model.name, "llama3-70b");
  cr_assert_eq(s.model.tf.seq, 4096, "the key edits the preset given after it");
  s = load_ok("{}", OV("plan.tp=8", "plan={\"tp\": 2, \"pp\": 1}", "plan.pp=2", "plan.pp=4"));
  cr_assert(s.plan.tp == 8 && s.plan.pp == 4, "tp %d pp %d", s.plan.tp, s.plan.pp);
  s = load_ok("{}", OV("cluster.gpu.hbm_GB=96", "cluster.gpu=h100-sxm5-80gb", "cluster=dgx-h100",
                       "cluster.gpus=64", "plan.tp=8", "plan.pp=8"));
  cr_assert_str_eq(s.cluster.gpu.name, "h100-sxm5-80gb");
  cr_assert(s.cluster.gpus == 64 && s.cluster.gpu.hbm_bytes == 96e9);
  /* a section's preset is the section set whole: the order given */
  s = load_ok("{}", OV("model.preset=gpt3-1.3b", "model.seq=4096", "model=llama3-70b",
                       "plan.tp=8", "plan.pp=8"));
  cr_assert_str_eq(s.model.name, "llama3-70b");
  cr_assert_eq(s.model.tf.seq, 4096);
  s = load_ok("{}", OV("model=llama3-70b", "model.preset=gpt3-1.3b", "plan.pp=8"));
  cr_assert_str_eq(s.model.name, "gpt3-1.3b");
  load_err("{}", OV("model=gpt3-1.3b", "model.preset=zzz", "model.seq=100"), SC_EINPUT,
           NEEDLES("unknown model preset \"zzz\"", "(set by override \"model.preset=zzz\")"));
  load_err("{}", OV("plan.tp=5", "plan={\"tp\": 4, \"pp\": 1}"), SC_EINPUT,
           NEEDLES("plan.tp: 5 does not divide", "(set by override \"plan.tp=5\")"));
  load_err("{}", OV("plan.tp=5", "plan.tp=7"), SC_EINPUT,
           NEEDLES("plan.tp: 7 does not divide", "(set by override \"plan.tp=7\")"));
}

Test(overrides, errors_name_the_override) {
  load_err("{}", OV("plan.tpp=8"), SC_EINPUT,
           NEEDLES("override \"plan.tpp=8\": plan.tpp: unknown key", "did you mean \"tp\"?"));
  load_err("{}", OV("plan.tp"), SC_EINPUT, NEEDLES("override \"plan.tp\": expected KEY=VALUE"));
  load_err("{}", OV("=8"), SC_EINPUT, NEEDLES("override \"=8\""));
  load_err("{}", OV("plan..tp=8"), SC_EINPUT, NEEDLES("empty key"));
  load_err("{}", OV("plan.tp.x=8"), SC_EINPUT, NEEDLES("plan.tp takes a value"));
  load_err("{}", OV("plan.tp=abc"), SC_EINPUT,
           NEEDLES("plan.tp: expected a positive integer, got string \"abc\"",
                   "(set by override \"plan.tp=abc\")"));
  load_err("{}", OV("plan.tp=5"), SC_EINPUT,
           NEEDLES("plan.tp: 5 does not divide", "(set by override \"plan.tp=5\")"));
  load_err("{}", OV("cluster.gpu=h100"), SC_EINPUT,
           NEEDLES("did you mean \"h100-sxm5-80gb\"?", "(set by override \"cluster.gpu=h100\")"));
  load_err("{\"plan\": 3}", OV("plan.tp=8"), SC_EINPUT,
           NEEDLES("override \"plan.tp=8\": plan is integer 3, not an object"));
  load_err("{}", OV("model.seq=\xff"), SC_EINPUT, NEEDLES("not valid UTF-8"));
}

Test(overrides, apply_override_directly) {
  json_t *root = json_object();
  sc_error err = {0};
  cr_assert_eq(scn_apply_override(root, "model=llama2-7b", &err), SC_OK, "%s", err.msg);
  cr_assert_eq(scn_apply_override(root, "model.seq=2048", &err), SC_OK, "%s", err.msg);
  json_t *m = json_object_get(root, "model");
  cr_assert(json_is_object(m));
  cr_assert_str_eq(json_string_value(json_object_get(m, "preset")), "llama2-7b");
  cr_assert_eq(json_integer_value(json_object_get(m, "seq")), 2048);
  cr_assert_eq(scn_apply_override(root, "cluster.gpu.peak_tflops.bf16=500", &err), SC_OK);
  cr_assert(json_is_object(json_object_get(json_object_get(root, "cluster"), "gpu")));
  cr_assert_eq(scn_apply_override(root, NULL, &err), SC_EINPUT);
  cr_assert_eq(scn_apply_override(root, "a.b.c.d.e.f=1", &err), SC_EINPUT);
  json_decref(root);
}

/* -------------------------------------------------------------- files */

Test(files, every_example_loads) {
  static const char *const names[] = {"gpt3-175b-1024-a100", "llama3-70b-512-h100",
                                      "mixtral-8x7b-h100", "mpt-7b-fsdp-8-a100",
                                      "custom-model-and-gpu"};
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
    char path[512];
    snprintf(path, sizeof path, "%s/examples/%s.json", SC_SOURCE_DIR, names[i]);
    sc_scenario s;
    sc_error err = {0};
    int rc = sc_scenario_load_file(&s, path, NULL, 0, &err);
    cr_assert_eq(rc, SC_OK, "%s: %s", path, err.msg);
  }
  sc_scenario a, d;
  sc_error err = {0};
  cr_assert_eq(sc_scenario_load_file(&a, SC_SOURCE_DIR "/examples/gpt3-175b-1024-a100.json",
                                     NULL, 0, &err), SC_OK);
  d = load_ok("{}", NULL, 0);
  cr_assert(memcmp(&a, &d, sizeof a) == 0, "the example is the default scenario");
}

Test(files, io_and_syntax_errors_name_the_file) {
  sc_scenario s;
  sc_error err = {0};
  int rc = sc_scenario_load_file(&s, "/nonexistent/x.json", NULL, 0, &err);
  cr_assert_eq(rc, SC_EIO, "%s", err.msg);
  cr_assert(strstr(err.msg, "/nonexistent/x.json: cannot read"), "%s", err.msg);
  char path[] = "/tmp/stepcast_test_XXXXXX";
  tmp_write(path, "{\n  \"plan\": {\n    \"tp\": 8,\n    \"pp\" 4\n  }\n}\n");
  rc = sc_scenario_load_file(&s, path, NULL, 0, &err);
  remove(path);
  char want[64];
  snprintf(want, sizeof want, "%s:4:", path);
  cr_assert_eq(rc, SC_EINPUT);
  cr_assert(strstr(err.msg, want), "expected %s in: %s", want, err.msg);
  cr_assert_eq(sc_scenario_load_file(&s, NULL, NULL, 0, &err), SC_EIO);
  cr_assert_eq(sc_scenario_load_string(&s, NULL, NULL, NULL, 0, &err), SC_EINPUT);
  cr_assert_eq(sc_scenario_load_string(&s, "{}", NULL, NULL, 3, &err), SC_EINPUT);
}

/* -------------------------------------------------------- suggestions */

Test(suggest, edit_distance_and_ranking) {
  cr_assert_eq(name_edit_distance("tp", "tp"), 0);
  cr_assert_eq(name_edit_distance("tpp", "tp"), 1);
  cr_assert_eq(name_edit_distance("TP", "tp"), 0);
  cr_assert_eq(name_edit_distance("ab", "ba"), 1, "transposition");
  cr_assert_eq(name_edit_distance("", "abc"), 3);
  cr_assert_eq(name_edit_distance("kitten", "sitting"), 3);
  static const char *const keys[] = {"tp", "pp", "dp", "global_batch", "micro_batch"};
  cr_assert_str_eq(scn_suggest("tpp", keys, 5), "tp");
  cr_assert_str_eq(scn_suggest("global_bach", keys, 5), "global_batch");
  cr_assert_str_eq(scn_suggest("gbs", keys, 5), "global_batch");
  cr_assert_str_eq(scn_suggest("micro_batch_size", keys, 5), "micro_batch");
  cr_assert_null(scn_suggest("zzzzzz", keys, 5));
  static const char *const gpus[] = {"h200", "h100-sxm5-80gb"};
  cr_assert_str_eq(scn_suggest("h100", gpus, 2), "h100-sxm5-80gb");
}

/* The plan's enum names are one table each (src/plan/plan.h): every name
 * loads as its value, and the report writes the value back by that name. */
/* sc_predict's report of s in fmt (the caller frees it). */
static char *predicted(const sc_scenario *s, sc_format fmt) {
  sc_result r;
  sc_error err = {0};
  cr_assert_eq(sc_predict(s, &r, &err), SC_OK, "%s", err.msg);
  char *text = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&text, &len);
  cr_assert(f);
  sc_report_prediction(f, fmt, s, &r, 0);
  fclose(f);
  return text;
}

Test(format, plan_enum_names_load_and_report_alike) {
  static const struct {
    const char *key;
    const char *const *names;
    int n;
  } enums[] = {{"plan.schedule", plan_sched_names, PLAN_SCHEDS},
               {"plan.recompute", plan_recomp_names, PLAN_RECOMPS},
               {"plan.attention", plan_attn_names, PLAN_ATTNS}};
  for (size_t e = 0; e < sizeof enums / sizeof enums[0]; e++) {
    for (int v = 0; v < enums[e].n; v++) {
      char set[64];
      snprintf(set, sizeof set, "%s=%s", enums[e].key, enums[e].names[v]);
      const char *ov[] = {set};
      sc_scenario s;
      sc_error err = {0};
      cr_assert_eq(sc_scenario_load_string_ex(&s, "{}", "t.json", ov, 1, SC_LOAD_PLAN_UNCHECKED,
                                              &err),
                   SC_OK, "%s: %s", set, err.msg);
      int got = e == 0 ? (int)s.plan.schedule : e == 1 ? (int)s.plan.recompute
                                                       : (int)s.plan.attention;
      cr_expect_eq(got, v, "%s loads as %d", set, got);
    }
  }
  /* the report: predict's JSON plan names them from the same tables */
  sc_scenario s = load_ok("{\"cluster\": {\"gpu\": \"h100-sxm5-80gb\"}, \"plan\": "
                          "{\"recompute\": \"selective\", \"attention\": \"flash3\"}}",
                          NULL, 0);
  char *text = predicted(&s, SC_FORMAT_JSON);
  cr_expect(strstr(text, "\"schedule\": \"1f1b\""), "%s", text);
  cr_expect(strstr(text, "\"recompute\": \"selective\""), "%s", text);
  cr_expect(strstr(text, "\"attention\": \"flash3\""), "%s", text);
  free(text);
}

/* cluster.gpu.link: a GPU object keeps its base GPU's link unless it says
 * which; predict's header names the link it gives. */
Test(format, gpu_link_from_the_preset_or_the_key) {
  sc_scenario s = load_ok("{\"cluster\": {\"gpu\": {\"preset\": \"a40-pcie-48gb\"}}}", NULL, 0);
  cr_expect_eq(s.cluster.gpu.link, SC_LINK_PCIE);
  /* its NVLink bridge (A40 datasheet: 112.5 GB/s both directions) */
  s = load_ok("{\"cluster\": {\"gpu\": {\"preset\": \"a40-pcie-48gb\", \"nvlink_GBps\": 56.25, "
              "\"link\": \"nvlink\"}}}",
              NULL, 0);
  cr_expect_eq(s.cluster.gpu.link, SC_LINK_NVLINK);
  s = load_ok("{\"cluster\": {\"preset\": \"dgx-h100\", \"nodes\": 16, "
              "\"gpu\": {\"hbm_GB\": 96}}}",
              NULL, 0);
  cr_expect_eq(s.cluster.gpu.link, SC_LINK_NVLINK, "a variant keeps its GPU's link");
  const char *ov[] = {"cluster.gpu.link=infinity_fabric"};
  s = load_ok("{}", ov, 1);
  cr_expect_eq(s.cluster.gpu.link, SC_LINK_INFINITY_FABRIC);
  ERR("{\"cluster\": {\"gpu\": {\"link\": \"pci\"}}}", "cluster.gpu.link", "nvlink", "pcie",
      "infinity_fabric");
  s = load_ok("{\"cluster\": {\"gpus\": 8, \"gpu\": {\"preset\": \"a40-pcie-48gb\", "
              "\"link\": \"pcie\"}}, "
              "\"model\": \"gpt3-1.3b\", \"plan\": {\"tp\": 1, \"pp\": 1, \"global_batch\": 8}}",
              NULL, 0);
  char *text = predicted(&s, SC_FORMAT_TABLE);
  cr_expect(strstr(text, "per node, PCIe 32 GB/s"), "%s", text);
  free(text);
}
