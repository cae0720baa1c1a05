/*
 * test_bert_unfused.c -- BERT's attention scale and mask add as kernels of
 * their own where the framework fuses no element-wise chain
 * (plan.fused_kernels false: src/lower/lower.c bert_scale_mask_task), its
 * GELU and dropouts as modeling.py's TensorFlow op chains (bert_unfused_chain), its
 * optimizer as optimization.py's (src/cost/optchain.c), and
 * the framework texts that select it (src/validate/framework.c: TensorFlow
 * named alone, without XLA); a BERT written with torch.nn's layers runs
 * PyTorch's kernels instead (src/plan/plan.c plan_torch_nn).
 */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "cost/compute.h"
#include "cost/optchain.h"
#include "lowered.h"
#include "validate/framework.h"

#define NEAR(got, want, what)                                                            \
  cr_assert(fabs((got) - (want)) <= 1e-9 * fabs(want), "%s: %.9g, want %.9g", what, \
            (double)(got), (double)(want))

/* `model` on one V100, batch 8 at seq 128, unfused attention; amp,
 * fused_kernels and plan.loss as given. */
static void lower_model_loss(lowered *l, const char *model, const char *dtype, int amp, int fused,
                             const char *loss) {
  char d[32], a[32], f[40], m[48], o[32];
  snprintf(d, sizeof d, "plan.dtype=\"%s\"", dtype);
  snprintf(a, sizeof a, "plan.amp=%s", amp ? "true" : "false");
  snprintf(f, sizeof f, "plan.fused_kernels=%s", fused ? "true" : "false");
  snprintf(m, sizeof m, "{\"model\": \"%s\"}", model);
  snprintf(o, sizeof o, "plan.loss=\"%s\"", loss);
  const char *ov[] = {"cluster.gpu=\"v100-sxm2-16gb\"", "cluster.gpus=1", "plan.tp=1",
                      "plan.pp=1", "plan.global_batch=8", "plan.micro_batch=8",
                      "plan.flash_attention=false", "model.seq=128", d, a, f, o};
  sc_scenario s;
  sc_error err = {0};
  cr_assert_eq(sc_scenario_load_string(&s, m, "t", ov, 12, &err), SC_OK, "%s", err.msg);
  lowered_make(l, &s);
}

/* ... with the framework's loss (plan.loss "auto"). */
static void lower_model(lowered *l, const char *model, const char *dtype, int amp, int fused) {
  lower_model_loss(l, model, dtype, amp, fused, "auto");
}

/* Task `name` of l moves `fwd` bytes forward and `bwd` backward in `hf`
 * and `hb` kernels (bytes worked by hand in each test's comment). */
static void expect_task(lowered *l, const char *name, double fwd, double bwd, int hf, int hb) {
  const xg_task *t = lowered_task(l, name);
  NEAR(t->bytes, fwd, name);
  NEAR(t->bytes * t->bwd_scale, bwd, name);
  cr_assert(t->host_fwd == hf && t->host_bwd == hb, "%s: kernels %d / %d, want %d / %d", name,
            t->host_fwd, t->host_bwd, hf, hb);
}

/* BERT-base, 8 sequences of 128, 12 heads: 8 x 12 x 128 x 128 = 1,572,864
 * scores. fp16: the scale and the mask add each read and write every
 * score, 2 x (2 + 2) = 8 bytes a score forward (12,582,912 bytes); the
 * scale's backward one kernel reading and writing each score, 4 bytes a
 * score (6,291,456: bwd_scale 0.5).
 * Two kernels forward, one backward. */
Test(bert_unfused, scale_and_mask_by_hand) {
  lowered l;
  lower_model(&l, "bert_base", "fp16", 0, 0);
  double scores = 8.0 * 12 * 128 * 128;
  NEAR(8 * scores, 12582912.0, "the scores, by hand");
  expect_task(&l, "attn_scale_mask", 12582912.0, 6291456.0, 2, 1);
  lowered_done(&l);
  /* fp32: 4-byte scores, twice the bytes */
  lower_model(&l, "bert_base", "fp32", 0, 0);
  NEAR(lowered_task(&l, "attn_scale_mask")->bytes, 16 * scores, "fp32 forward bytes");
  lowered_done(&l);
}

/* Under AMP TensorFlow's AMP rewrite leaves the chains fp32 (lower.c
 * chain_width): the scale and the mask add, inside the softmax's fp32
 * region, 2 x (4 + 4) = 16 bytes a score forward; the GELU's own region
 * adds two casts each way (2 + 4 bytes each): 3,145,728 elements x (20 x 4
 * + 12) = 289,406,976 bytes forward, x (27 x 4 + 12) = 377,487,360
 * backward, 11 and 13 kernels; bias-dropout-add, inside the norm's
 * region, 786,432 x (13 x 4 + 2) = 42,467,328 forward, x 9 x 4 =
 * 28,311,552 backward, no casts of its own. */
Test(bert_unfused, amp_runs_the_chains_in_fp32) {
  lowered l;
  lower_model(&l, "bert_base", "fp16", 1, 0);
  NEAR(lowered_task(&l, "attn_scale_mask")->bytes, 16 * 8.0 * 12 * 128 * 128, "AMP scale, mask");
  expect_task(&l, "bias_gelu", 289406976.0, 377487360.0, 11, 13);
  expect_task(&l, "bias_dropout_add1", 42467328.0, 28311552.0, 7, 4);
  lowered_done(&l);
  /* fused kernels under AMP: the 16-bit fused GELU, as before */
  lower_model(&l, "bert_base", "fp16", 1, 1);
  NEAR(lowered_task(&l, "bias_gelu")->bytes, 12582912.0, "fused AMP GELU");
  lowered_done(&l);
}

/* BERT's GELU unfused is modeling.py's op chain (lower.c bert_gelu_chain):
 * fc1's output, 8 x 128 x 3072 = 3,145,728 elements in fp16, 20 passes
 * forward (2 bytes each: 125,829,120 bytes) in 9 kernels, 27 backward
 * (169,869,312) in 11; fused, 2 and 4 passes (12,582,912 and 25,165,824). */
Test(bert_unfused, gelu_op_chain_by_hand) {
  lowered l;
  lower_model(&l, "bert_base", "fp16", 0, 0);
  expect_task(&l, "bias_gelu", 125829120.0, 169869312.0, 9, 11);
  lowered_done(&l);
  lower_model(&l, "bert_base", "fp16", 0, 1);
  const xg_task *t = lowered_task(&l, "bias_gelu");
  NEAR(t->bytes, 12582912.0, "fused forward bytes");
  NEAR(t->bytes * t->bwd_scale, 25165824.0, "fused backward bytes");
  lowered_done(&l);
  /* the transformer builder's unfused GELU stays Megatron's two kernels:
   * twice the fused traffic (gpt3-125m: 8 x 128 x 3072 elements too) */
  lower_model(&l, "gpt3-125m", "fp16", 0, 0);
  NEAR(lowered_task(&l, "bias_gelu")->bytes, 2 * 12582912.0, "Megatron unfused GELU");
  lowered_done(&l);
}

/* tf.nn.dropout unfused: 8 passes and 2 mask bytes forward, 5 passes
 * backward. The attention's on 1,572,864 fp16 scores: 18 bytes a score
 * forward (28,311,552), 10 backward (15,728,640), 5 and 2 kernels. Bias,
 * dropout and residual add on 8 x 128 x 768 = 786,432 elements: 13
 * passes and 2 bytes forward (28 bytes: 22,020,096), 9 passes backward
 * (18 bytes: 14,155,776), 7 and 4 kernels. Fused: 2e + 1 and 3e + 1 each
 * way. */
Test(bert_unfused, dropout_op_chains_by_hand) {
  lowered l;
  lower_model(&l, "bert_base", "fp16", 0, 0);
  expect_task(&l, "attn_dropout", 28311552.0, 15728640.0, 5, 2);
  expect_task(&l, "bias_dropout_add1", 22020096.0, 14155776.0, 7, 4);
  lowered_done(&l);
  lower_model(&l, "bert_base", "fp16", 0, 1);
  const xg_task *t = lowered_task(&l, "attn_dropout");
  NEAR(t->bytes, 1572864.0 * 5, "fused attention dropout");
  NEAR(t->bytes * t->bwd_scale, 1572864.0 * 5, "fused attention dropout backward");
  NEAR(lowered_task(&l, "bias_dropout_add1")->bytes, 786432.0 * 7, "fused bias-dropout-add");
  lowered_done(&l);
}

/* A BERT written with torch.nn's layers (plan.loss "eager" in an eager
 * framework, unfused: src/plan/plan.c plan_torch_nn) runs F.gelu,
 * F.dropout and the residual add, not modeling.py's chains, and
 * torch.optim's Adam. fp16, 3,145,728 GELU elements: 2 passes forward
 * (12,582,912 bytes), 3 backward (18,874,368), 2 calls each way (the
 * fused op's); bias, dropout and add on 786,432: F.dropout 2e + 1 and the
 * add 3e, 11 bytes each way (8,650,752), the fused op's 3 and 4 calls
 * twice; the attention's dropout 2e + 1 on 1,572,864 scores each way
 * (7,864,320), 4 and 2 calls; fc1's bias gradient one read of its 2-byte
 * output gradient at 900 GB/s x 0.89, backward only; the scale and the
 * mask add stay (NVIDIA's PyTorch BERT runs them too). */
Test(bert_unfused, torch_nn_runs_torchs_kernels) {
  lowered l;
  lower_model_loss(&l, "bert_base", "fp16", 0, 0, "eager");
  expect_task(&l, "bias_gelu", 12582912.0, 18874368.0, 2, 2);
  expect_task(&l, "bias_dropout_add1", 8650752.0, 8650752.0, 6, 8);
  expect_task(&l, "attn_dropout", 7864320.0, 7864320.0, 4, 2);
  const xg_task *b = lowered_task(&l, "bgrad_fc1");
  cr_assert(b->bytes == 0 && b->m == 0, "bgrad_fc1: nothing forward");
  NEAR(b->n, 3145728.0 * 2 / (900e9 * 0.89), "bgrad_fc1 backward seconds");
  cr_assert_not_null(lowered_find(&l, "attn_scale_mask"));
  NEAR(optc_bytes_per_param(&l.s, 34), 34.0, "torch.optim's Adam");
  lowered_done(&l);
}

/* Fused kernels fold the scale and the mask into the softmax: no task;
 * the transformer builder (Megatron's attention) never has one. */
Test(bert_unfused, none_when_fused_or_not_bert) {
  lowered l;
  lower_model(&l, "bert_base", "fp16", 0, 1);
  cr_assert_null(lowered_find(&l, "attn_scale_mask"), "fused kernels");
  cr_assert_not_null(lowered_find(&l, "softmax"));
  lowered_done(&l);
  lower_model(&l, "gpt3-125m", "fp16", 0, 0);
  cr_assert_null(lowered_find(&l, "attn_scale_mask"), "the transformer builder");
  lowered_done(&l);
}

/* BERT-base in fp16 (lower_model's scenario) predicted with fused
 * kernels (*on) and without (*off). */
static void predict_fused_and_not(sc_result *on, sc_result *off) {
  sc_error err = {0};
  lowered l;
  lower_model(&l, "bert_base", "fp16", 0, 1);
  cr_assert_eq(sc_predict(&l.s, on, &err), SC_OK, "%s", err.msg);
  lowered_done(&l);
  lower_model(&l, "bert_base", "fp16", 0, 0);
  cr_assert_eq(sc_predict(&l.s, off, &err), SC_OK, "%s", err.msg);
  lowered_done(&l);
}

/* The unfused step is slower by at least the scale and mask's bytes at
 * the V100's achievable bandwidth (900 GB/s x 0.89), 12 layers, forward
 * and backward: 12 x 18,874,368 B / 801 GB/s = 0.283 ms (the GELU chain
 * adds more). */
Test(bert_unfused, step_slower_by_the_bytes) {
  sc_result on, off;
  predict_fused_and_not(&on, &off);
  double added = 12 * 18874368.0 / (900e9 * 0.89);
  cr_assert(off.step_s - on.step_s >= added, "unfused %.6f s, fused %.6f s, want >= %.6f more",
            off.step_s, on.step_s, added);
}

/* TensorFlow named alone without XLA runs unfused element-wise kernels;
 * with XLA, another framework, or a container list, the plan keeps its
 * fused kernels. */
Test(bert_unfused, framework_texts) {
  static const struct {
    const char *text;
    int fused;
  } cases[] = {
      {"tensorflow-1.15 (NGC 20.03, Horovod)", 0},
      {"tensorflow-2.3", 0},
      {"tf2.0", 0},
      {"tensorflow-1.15 (NGC 20.03, Horovod, XLA)", 1},
      {"tensorflow-1.15 (NGC 20.03, Horovod, DALI, XLA)", 1},
      {"NVIDIA Release 22.04 Tensorflow, MxNet, pytorch, hugectr", 1},
      {"pytorch 1.5 (NGC 20.03, APEX)", 1},
      {"mxnet 1.6.0 (gluon-nlp, Horovod)", 1},
      {"oneflow 0.2.0", 1},
      {"tensorflow-1.15 on p3.xlarge", 0}, /* XLA as a word, not inside another */
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    sc_plan p;
    sc_plan_default(&p);
    vfw_text t = vfw_read(cases[i].text);
    cr_assert_eq(vfw_plan(&t, &p), 1, "%s", cases[i].text);
    cr_assert_eq(p.fused_kernels, cases[i].fused, "%s: fused_kernels %d", cases[i].text,
                 p.fused_kernels);
  }
}

/* optimization.py's AdamWeightDecayOptimizer as TensorFlow ops: 39 passes
 * of the update and 3 of the global-norm clip over fp32 parameters, 42 x 4
 * = 168 bytes a parameter; fused (or not BERT) the graph's figure. */
Test(bert_unfused, optimizer_op_chain_by_hand) {
  sc_scenario s;
  sc_scenario_default(&s);
  s.model = *sc_model_preset("bert_base");
  s.plan.fused_kernels = 0;
  NEAR(optc_bytes_per_param(&s, 34), 168.0, "BERT unfused");
  s.plan.fused_kernels = 1;
  NEAR(optc_bytes_per_param(&s, 34), 34.0, "BERT fused");
  s.model = *sc_model_preset("gpt3-125m");
  s.plan.fused_kernels = 0;
  NEAR(optc_bytes_per_param(&s, 34), 34.0, "Megatron's fused Adam, whatever the kernels");
}

/* In a prediction: the optimizer's time less one kernel's fixed cost
 * scales with the bytes, 168 / 34 (fp16, no AMP passes). */
Test(bert_unfused, optimizer_time_scales_with_the_bytes) {
  sc_result on, off;
  predict_fused_and_not(&on, &off);
  NEAR((off.time.optimizer - COST_KERNEL_T0) / (on.time.optimizer - COST_KERNEL_T0), 168.0 / 34,
       "unfused over fused optimizer time");
}

/* BERT-base on one A100 (sm80, where the plan's default is fused
 * attention), batch 8 at seq 128, fp16, with the plan switches of the
 * framework text `fw`, lowered. */
static void lower_a100_as(lowered *l, const char *fw) {
  const char *ov[] = {"cluster.gpu=\"a100-sxm4-80gb\"", "cluster.gpus=1", "plan.tp=1",
                      "plan.pp=1", "plan.global_batch=8", "plan.micro_batch=8",
                      "plan.dtype=\"fp16\"", "model.seq=128"};
  sc_scenario s;
  sc_error err = {0};
  cr_assert_eq(sc_scenario_load_string(&s, "{\"model\": \"bert_base\"}", "t", ov, 8, &err),
               SC_OK, "%s", err.msg);
  cr_assert(s.plan.flash_attention, "Ampere's default is fused attention");
  vfw_text t = vfw_read(fw);
  cr_assert_eq(vfw_plan(&t, &s.plan), 1, "%s", fw);
  lowered_make(l, &s);
}

/* TensorFlow (with or without XLA) and gluon-nlp's MXNet have no fused
 * attention kernel: on an A100 the scores go through HBM, the softmax a
 * kernel of its own reading and writing each of the 8 x 12 x 128 x 128 =
 * 1,572,864 fp16 scores, 2 + 2 = 4 bytes a score at the framework
 * softmax's measured 1.42 (cost/softmax.h; TensorFlow's and MXNet's taken
 * as PyTorch's): 8,933,867.52 bytes.
 * PyTorch, NVIDIA's BERT (MXNet without Horovod, container lists),
 * Paddle and OneFlow keep the fused attention: no softmax task. */
Test(bert_unfused, attention_by_framework_on_ampere) {
  static const struct {
    const char *text;
    int unfused;
  } cases[] = {
      {"tensorflow-2.3", 1},
      {"tensorflow-1.15 (NGC 20.03, Horovod, XLA)", 1},
      {"tf2.0", 1},
      {"mxnet 1.6.0 (gluon-nlp, Horovod)", 1},
      {"pytorch 1.5 (NGC 20.03, APEX)", 0},
      {"MXNet NVIDIA Release 21.05", 0},
      {"NGC MXNet 21.05 , NGC PyTorch 21.05 , NGC TensorFlow 21.05-tf1", 0},
      {"PaddlePaddle (branch: develop, commitID: 108aeb2)", 0},
      {"oneflow 0.2.0", 0},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    lowered l;
    lower_a100_as(&l, cases[i].text);
    cr_assert_eq(!l.s.plan.flash_attention, cases[i].unfused, "%s", cases[i].text);
    cr_assert_eq(l.s.plan.attention == SC_ATTN_UNFUSED, cases[i].unfused, "%s", cases[i].text);
    const xg_task *sm = lowered_find(&l, "softmax");
    if (cases[i].unfused) {
      cr_assert(sm, "%s: no softmax task", cases[i].text);
      NEAR(sm->bytes, 8933867.52, cases[i].text);
    } else {
      cr_assert(!sm, "%s: a softmax task under fused attention", cases[i].text);
    }
    lowered_done(&l);
  }
}
