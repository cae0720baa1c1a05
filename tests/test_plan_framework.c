/*
 * test_plan_framework.c -- plan.framework (src/plan/plan_fw.c): "auto" changes
 * nothing; a named framework fills the keys it implies where they are at
 * their defaults, refuses the ones it cannot have with what is valid, and
 * answers who owns the gradients in place of the proxies (DDP's buckets,
 * zero_grad "auto", torch.nn's layers, the attention kernel). The
 * bucket memory by hand: Megatron against PyTorch DDP on the same fp32
 * plan differs by one fp32 copy of the gradients, 4 bytes a parameter.
 * A misspelt framework is answered with the nearest name.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "plan/plan.h"

#define NEAR(got, want, what)                                                            \
  cr_assert(fabs((got) - (want)) <= 1e-9 * fabs(want), "%s: %.9g, want %.9g", what, \
            (double)(got), (double)(want))

/* GPT-3 125M on 8 H100s, one replica each (tp 1, pp 1, dp 8, zero 0),
 * one sequence per GPU, plus up to six more overrides. SC_OK or the
 * loader's code, its message in *err. */
static int gpt_small(sc_scenario *s, const char *more[], int n_more, sc_error *err) {
  const char *ov[14] = {"cluster.gpu=\"h100-sxm5-80gb\"", "cluster.gpus=8", "plan.tp=1",
                        "plan.pp=1", "plan.zero=0", "plan.global_batch=8",
                        "plan.micro_batch=1", "plan.sp=false"};
  for (int i = 0; i < n_more; i++) ov[8 + i] = more[i];
  return sc_scenario_load_string(s, "{\"model\": \"gpt3-125m\"}", "t", ov, 8 + n_more, err);
}

/* The resolved scenario of gpt_small plus the overrides; asserts SC_OK. */
static void resolved(sc_scenario *s, const char *more[], int n_more) {
  sc_error err = {0};
  cr_assert_eq(gpt_small(s, more, n_more, &err), SC_OK, "%s", err.msg);
  cr_assert_eq(sc_scenario_resolve(s, &err), SC_OK, "%s", err.msg);
}

/* The message of the load (and resolve) of gpt_small plus the overrides,
 * which must fail with SC_EINPUT. */
static void refused(const char *more[], int n_more, char *msg, size_t cap) {
  sc_scenario s;
  sc_error err = {0};
  int rc = gpt_small(&s, more, n_more, &err);
  if (rc == SC_OK) rc = sc_scenario_resolve(&s, &err);
  cr_assert_eq(rc, SC_EINPUT, "refused: %s", more[n_more - 1]);
  snprintf(msg, cap, "%s", err.msg);
}

/* "auto" is the key's default and resolves to the same plan as a
 * scenario that never names it. */
Test(plan_framework, auto_is_the_default_and_changes_nothing) {
  sc_plan p;
  sc_plan_default(&p);
  cr_assert_eq(p.framework, SC_FW_AUTO);
  sc_scenario a, b;
  const char *fw[] = {"plan.framework=\"auto\""};
  resolved(&a, NULL, 0);
  resolved(&b, fw, 1);
  cr_assert(!memcmp(&a.plan, &b.plan, sizeof a.plan), "auto resolves as no key");
}

/* Megatron and PyTorch DDP on the same tf32 plan, gradients kept between
 * steps in both (zero_grad "zero"), the vocabulary unpadded in both: the
 * same weights and optimizer states; DDP's reducer keeps one more fp32
 * copy of the gradients, exactly 4 bytes a parameter; Megatron's
 * gradients are its buffer alone. */
Test(plan_framework, megatron_and_ddp_buckets_by_hand) {
  const char *mg[] = {"plan.dtype=\"tf32\"", "plan.zero_grad=\"zero\"", "plan.vocab_multiple=1",
                      "plan.framework=\"megatron\""};
  const char *dd[] = {"plan.dtype=\"tf32\"", "plan.zero_grad=\"zero\"", "plan.vocab_multiple=1",
                      "plan.framework=\"pytorch_ddp\""};
  sc_scenario s;
  sc_result m, d;
  sc_error err = {0};
  resolved(&s, mg, 4);
  cr_assert(!plan_ddp_buckets(&s.plan), "Megatron: no DDP reducer");
  cr_assert_eq(sc_predict(&s, &m, &err), SC_OK, "%s", err.msg);
  resolved(&s, dd, 4);
  cr_assert(plan_ddp_buckets(&s.plan), "PyTorch DDP over 8 replicas: its buckets");
  cr_assert_eq(sc_predict(&s, &d, &err), SC_OK, "%s", err.msg);
  NEAR(d.params, m.params, "the same model");
  NEAR(m.mem.gradients, 4 * m.params, "Megatron: fp32 gradients once");
  NEAR(d.mem.weights, m.mem.weights, "the same fp32 weights");
  NEAR(d.mem.optimizer, m.mem.optimizer, "the same optimizer states");
  NEAR(d.mem.gradients - m.mem.gradients, 4 * m.params, "DDP's buckets: 4 B a parameter");
}

/* Who owns the gradients, per framework, on an fp32 plan of 8 replicas
 * (the proxy read every eager fp32 plan as PyTorch's). */
Test(plan_framework, who_owns_the_gradients) {
  static const struct {
    const char *fw;
    int buckets, freed;
  } want[] = {
      {"auto", 1, 1},        {"megatron", 0, 0}, {"nemo", 0, 0},      {"pytorch_ddp", 1, 1},
      {"torchtitan", 1, 1},  {"deepspeed", 0, 0}, {"maxtext", 0, 0},  {"hf_trainer", 1, 1},
  };
  for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
    char fw[64];
    snprintf(fw, sizeof fw, "plan.framework=\"%s\"", want[i].fw);
    const char *ov[] = {"plan.dtype=\"tf32\"", fw};
    sc_scenario s;
    resolved(&s, ov, 2);
    cr_assert_eq(plan_ddp_buckets(&s.plan), want[i].buckets, "%s: DDP's buckets", want[i].fw);
    cr_assert_eq(plan_grads_freed(&s.plan), want[i].freed, "%s: zero_grad auto", want[i].fw);
  }
}

/* The keys each framework fills where they are left at their defaults. */
Test(plan_framework, defaults_it_supplies) {
  sc_scenario s;
  const char *hf[] = {"plan.framework=\"hf_trainer\""};
  resolved(&s, hf, 1); /* bf16 */
  cr_assert(s.plan.amp, "Trainer's --bf16 is torch.autocast");
  cr_assert(!s.plan.fused_kernels && s.plan.loss_impl == SC_LOSS_EAGER, "a torch.nn model");
  cr_assert(plan_torch_nn(&s.plan), "its linears' biases in cuBLASLt's epilogue");
  cr_assert_eq(s.plan.vocab_multiple, 1, "the model's vocabulary");
  cr_assert_eq(s.plan.fsdp_impl, SC_FSDP1, "accelerate's FSDP: FullyShardedDataParallel");
  cr_assert_eq(s.plan.attention, SC_ATTN_FLASH2, "SDPA's flash kernel on Hopper");
  const char *mg[] = {"plan.framework=\"megatron\"", "plan.fused_kernels=false"};
  resolved(&s, mg, 2);
  cr_assert(!s.plan.amp && s.plan.vocab_multiple == 128, "Megatron: cast model, vocab 128");
  cr_assert(!plan_torch_nn(&s.plan), "Megatron unfused is still Megatron's layers");
  cr_assert_eq(s.plan.attention, SC_ATTN_CUDNN, "Transformer Engine's attention");
  const char *mt[] = {"plan.framework=\"maxtext\"", "plan.zero=3"};
  resolved(&s, mt, 2);
  cr_assert(!s.plan.framework_eager && s.plan.fsdp_impl == SC_FSDP_XLA, "MaxText: XLA");
  const char *tt[] = {"plan.framework=\"torchtitan\"", "plan.zero=3"};
  resolved(&s, tt, 2);
  cr_assert(!s.plan.amp && s.plan.fsdp_impl == SC_FSDP2, "FSDP2 casts, no autocast");
  cr_assert(plan_grads_freed(&s.plan), "FSDP2's sharded .grad freed");
  const char *ds[] = {"plan.framework=\"deepspeed\"", "plan.zero=3"};
  resolved(&s, ds, 2);
  cr_assert_eq(s.plan.fsdp_impl, SC_FSDP_DEEPSPEED, "DeepSpeed's ZeRO-3");
  /* an explicit key the framework may have wins */
  const char *hf2[] = {"plan.framework=\"hf_trainer\"", "plan.fsdp_impl=\"deepspeed\"",
                       "plan.vocab_multiple=64"};
  resolved(&s, hf2, 3);
  cr_assert(s.plan.fsdp_impl == SC_FSDP_DEEPSPEED && s.plan.vocab_multiple == 64,
            "Trainer with DeepSpeed, a padded vocabulary");
}

/* gpt_small's scenario as a file's text whose plan object holds plan_keys
 * besides (JSON members, without braces). SC_OK or the loader's code. */
static int from_text(sc_scenario *s, const char *plan_keys, sc_error *err) {
  char text[512];
  snprintf(text, sizeof text,
           "{\"model\": \"gpt3-125m\", \"cluster\": {\"gpu\": \"h100-sxm5-80gb\", \"gpus\": 8}, "
           "\"plan\": {\"tp\": 1, \"pp\": 1, \"global_batch\": 8, %s}}",
           plan_keys);
  return sc_scenario_load_string(s, text, "t", NULL, 0, err);
}

/* A key written at its default value is the user's: the framework keeps
 * it, whether the plan object of a file or an override (--set, a CLI
 * flag) wrote it; the same key left out takes the framework's default. */
Test(plan_framework, written_default_is_kept) {
  sc_scenario s;
  sc_error err = {0};
  /* a file's plan object */
  cr_assert_eq(from_text(&s, "\"framework\": \"hf_trainer\", \"fused_kernels\": true, "
                            "\"amp\": false",
                         &err),
               SC_OK, "%s", err.msg);
  cr_assert_eq(s.plan.given, SC_GIVEN_FUSED_KERNELS | SC_GIVEN_AMP, "given: %#x", s.plan.given);
  cr_assert_eq(sc_scenario_resolve(&s, &err), SC_OK, "%s", err.msg);
  cr_assert(s.plan.fused_kernels && !s.plan.amp, "the file's fused kernels, no autocast");
  cr_assert(!plan_torch_nn(&s.plan), "fused kernels are not torch.nn's layers");
  cr_assert_eq(s.plan.fsdp_impl, SC_FSDP1, "fsdp_impl left out: the Trainer's");
  /* overrides */
  const char *hf[] = {"plan.framework=\"hf_trainer\"", "plan.fused_kernels=true",
                      "plan.fsdp_impl=\"fsdp2\"", "plan.zero=3"};
  resolved(&s, hf, 4);
  cr_assert(s.plan.fused_kernels && s.plan.fsdp_impl == SC_FSDP2, "--set's fused kernels, FSDP2");
  cr_assert(s.plan.amp, "amp left out: the Trainer's autocast");
  const char *ddp[] = {"plan.framework=\"pytorch_ddp\"", "plan.amp=false"};
  resolved(&s, ddp, 2);
  cr_assert(!s.plan.amp && !s.plan.fused_kernels, "the bf16 model cast; torch.nn's layers");
  /* the same keys left out: the framework's */
  const char *left[] = {"plan.framework=\"hf_trainer\"", "plan.zero=3"};
  resolved(&s, left, 2);
  cr_assert_eq(s.plan.given, 0u);
  cr_assert(!s.plan.fused_kernels && s.plan.amp && s.plan.fsdp_impl == SC_FSDP1,
            "hf_trainer's defaults");
  /* the C API: the bit set by hand keeps the value */
  resolved(&s, NULL, 0);
  s.plan.framework = SC_FW_HF_TRAINER;
  s.plan.given = SC_GIVEN_FUSED_KERNELS;
  cr_assert_eq(sc_scenario_resolve(&s, &err), SC_OK, "%s", err.msg);
  cr_assert(s.plan.fused_kernels && s.plan.amp, "the API's fused kernels; autocast");
}

/* A key written at its default that the framework cannot have is refused,
 * never overridden: "fsdp2" under DeepSpeed (written in a file or as an
 * override), framework_eager true under MaxText. */
Test(plan_framework, written_default_it_cannot_have_is_refused) {
  char msg[sizeof((sc_error *)0)->msg];
  const char *ds[] = {"plan.framework=\"deepspeed\"", "plan.fsdp_impl=\"fsdp2\""};
  refused(ds, 2, msg, sizeof msg);
  cr_assert(strstr(msg, "plan.fsdp_impl: \"fsdp2\"") && strstr(msg, "deepspeed") &&
                strstr(msg, "valid: \"deepspeed\""),
            "%s", msg);
  sc_scenario s;
  sc_error err = {0};
  int rc = from_text(&s, "\"zero\": 3, \"framework\": \"deepspeed\", \"fsdp_impl\": \"fsdp2\"",
                     &err);
  if (rc == SC_OK) rc = sc_scenario_resolve(&s, &err);
  cr_assert_eq(rc, SC_EINPUT, "the file's fsdp2 under DeepSpeed");
  cr_assert(strstr(err.msg, "plan.fsdp_impl") && strstr(err.msg, "valid: \"deepspeed\""), "%s",
            err.msg);
  const char *mt[] = {"plan.framework=\"maxtext\"", "plan.framework_eager=true"};
  refused(mt, 2, msg, sizeof msg);
  cr_assert(strstr(msg, "plan.framework_eager: true") && strstr(msg, "maxtext") &&
                strstr(msg, "valid: false"),
            "%s", msg);
  const char *ddp[] = {"plan.framework=\"pytorch_ddp\"", "plan.fsdp_impl=\"fsdp2\""};
  refused(ddp, 2, msg, sizeof msg);
  cr_assert(strstr(msg, "plan.fsdp_impl") && strstr(msg, "shards no parameters"), "%s", msg);
}

/* Resolving twice gives the same plan (the defaults are keys then). */
Test(plan_framework, resolving_twice_changes_nothing) {
  static const char *fws[] = {"megatron", "nemo", "pytorch_ddp", "torchtitan",
                              "deepspeed", "maxtext", "hf_trainer"};
  for (size_t i = 0; i < sizeof fws / sizeof fws[0]; i++) {
    char fw[64];
    snprintf(fw, sizeof fw, "plan.framework=\"%s\"", fws[i]);
    const char *ov[] = {fw};
    sc_scenario s;
    resolved(&s, ov, 1);
    sc_scenario t = s;
    sc_error err = {0};
    cr_assert_eq(sc_scenario_resolve(&t, &err), SC_OK, "%s: %s", fws[i], err.msg);
    cr_assert(!memcmp(&s.plan, &t.plan, sizeof s.plan), "%s: idempotent", fws[i]);
  }
}

/* What a framework cannot have is refused, naming the key, the framework
 * and what is valid. */
Test(plan_framework, refuses_what_it_cannot_have) {
  static const struct {
    const char *key, *fw, *want;
  } bad[] = {
      {"plan.fsdp_impl=\"fsdp1\"", "megatron", "valid: \"fsdp2\""},
      {"plan.fsdp_impl=\"xla\"", "deepspeed", "valid: \"deepspeed\""},
      {"plan.zero=3", "pytorch_ddp", "valid: 0..1"},
      {"plan.tp=2", "pytorch_ddp", "holds the whole model"},
      {"plan.loss=\"eager\"", "megatron", "\"vocab_parallel\""},
      {"plan.loss=\"vocab_parallel\"", "torchtitan", "\"eager\""},
      {"plan.amp=true", "nemo", "valid: false"},
      {"plan.param_remainders=true", "megatron", "\"nemo\""},
      {"plan.framework_eager=false", "hf_trainer", "cuda_graphs"},
      {"plan.ddp_bucket_view=true", "deepspeed", "no PyTorch DDP reducer"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    char fw[64], msg[sizeof((sc_error *)0)->msg];
    snprintf(fw, sizeof fw, "plan.framework=\"%s\"", bad[i].fw);
    const char *ov[] = {bad[i].key, fw};
    refused(ov, 2, msg, sizeof msg);
    char key[32];
    snprintf(key, sizeof key, "%.*s", (int)strcspn(bad[i].key, "="), bad[i].key);
    cr_assert(strstr(msg, key) && strstr(msg, bad[i].fw) && strstr(msg, bad[i].want),
              "%s with %s: %s", bad[i].key, bad[i].fw, msg);
  }
  /* NeMo keeps Apex's remainders */
  const char *ok[] = {"plan.param_remainders=true", "plan.framework=\"nemo\""};
  sc_scenario s;
  resolved(&s, ok, 2);
}

/* A misspelt framework: the nearest name and the valid ones. */
Test(plan_framework, misspelt_name_suggests_the_nearest) {
  const char *ov[] = {"plan.framework=\"megatorn\""};
  char msg[sizeof((sc_error *)0)->msg];
  refused(ov, 1, msg, sizeof msg);
  cr_assert(strstr(msg, "plan.framework") && strstr(msg, "did you mean \"megatron\"") &&
                strstr(msg, "hf_trainer"),
            "%s", msg);
  sc_plan p;
  sc_plan_default(&p);
  p.framework = PLAN_FRAMEWORKS;
  sc_error err = {0};
  cr_assert_eq(plan_framework(&p, &err), SC_EINPUT);
  cr_assert(strstr(err.msg, "plan.framework") && strstr(err.msg, "torchtitan"), "%s", err.msg);
}

/* `stepcast dp`'s replica of a PyTorch DDP plan holds what predict's
 * replica holds at dp 8: the same memory. At 64 tokens a sequence the
 * gradients outweigh the activations, so the peak is the backward's end,
 * where the .grad tensors and the buckets are both whole: at least 8
 * bytes a parameter (a replica keeping its gradients once has 4). */
Test(plan_framework, dp_replica_memory_is_predicts) {
  const char *ov[] = {"plan.dtype=\"tf32\"", "plan.framework=\"pytorch_ddp\"", "model.seq=64",
                      "dp.scheme=\"allreduce_nccl\""};
  sc_scenario s;
  sc_result r;
  sc_dp_result d;
  sc_error err = {0};
  cr_assert_eq(gpt_small(&s, ov, 4, &err), SC_OK, "%s", err.msg);
  cr_assert_eq(sc_dp_predict(&s, &d, &err), SC_OK, "%s", err.msg);
  s.dp.scheme[0] = '\0';
  cr_assert_eq(sc_predict(&s, &r, &err), SC_OK, "%s", err.msg);
  cr_assert(d.mem.gradients >= 8 * r.params, "dp: %.4g B of gradients, want >= 8 B x %.4g",
            d.mem.gradients, r.params);
  NEAR(d.mem.gradients, r.mem.gradients, "dp: the buckets and the .grad tensors");
  NEAR(d.mem.total, r.mem.total, "dp: predict's replica");
}
