/*
 * test_torch_nn.c -- a model written with torch.nn's layers (plan_torch_nn:
 * an eager framework whose loss is F.cross_entropy, plan.loss "eager"):
 * nn.Linear runs its bias in the GEMM's epilogue and reduces its gradient
 * in a kernel of its own (src/lower/lower.c bias_grad_task,
 * torch_nn_unfused), and the
 * loss costs what F.cross_entropy(logits.float()) runs (EAGER_CE_FWD/BWD).
 * Every figure is a ratio of bytes a reader can redo: a memory-bound
 * kernel costs bytes / (hbm_bw x hbm_eff) + 3 us (cost_mem).
 */
#include <criterion/criterion.h>
#include <string.h>

#include "gpt4.h"
#include "lowered.h"
#include "predict.h"
#include "stepcast.h"

#define T0 3e-6 /* cost_mem's fixed cost a kernel (src/cost/compute.h) */

/* A 4-layer GPT (h 1024, 16 heads, seq 1024, vocabulary 32,000, biases,
 * GELU) on one H100, micro-batch 8 in bf16, nothing recomputed, separate
 * element-wise kernels (plan.fused_kernels false), hidden dropout `drop`. */
static sc_scenario gpt(double drop, sc_loss_impl loss) {
  sc_scenario s = gpt4_h100(0, drop);
  s.model.tf.bias = 1;
  s.plan.global_batch = s.plan.micro_batch = 8;
  s.plan.fused_kernels = 0;
  s.plan.loss_impl = loss;
  return s;
}

/* Forward and backward seconds of the layer operator `name` (less the
 * kernel's fixed cost) in s (a copy: sc_explain_layer resolves it). */
static void layer_op(sc_scenario s, const char *name, double *fwd, double *bwd) {
  sc_op_time ops[64];
  sc_error err = {0};
  int n = sc_explain_layer(&s, ops, 64, &err);
  cr_assert_gt(n, 0, "%s", err.msg);
  for (int i = 0; i < n; i++)
    if (!strcmp(ops[i].name, name)) {
      *fwd = ops[i].fwd_s - T0, *bwd = ops[i].bwd_s - T0;
      return;
    }
  cr_assert_fail("no operator %s", name);
}

/* Asserts that no operator of s's layer is a bias gradient's reduction. */
static void no_bias_grad(sc_scenario s) {
  sc_op_time ops[64];
  sc_error err = {0};
  int n = sc_explain_layer(&s, ops, 64, &err);
  cr_assert_gt(n, 0, "%s", err.msg);
  for (int i = 0; i < n; i++) cr_assert(strncmp(ops[i].name, "bgrad_", 6), "%s", ops[i].name);
}

/* The step's loss, forward and backward seconds (sc_explain_kinds). */
static void loss_time(sc_scenario s, double *fwd, double *bwd) {
  sc_op_time k[16];
  sc_error err = {0};
  int n = sc_explain_kinds(&s, k, 16, &err);
  cr_assert_gt(n, 0, "%s", err.msg);
  for (int i = 0; i < n; i++)
    if (!strcmp(k[i].name, "loss")) {
      *fwd = k[i].fwd_s, *bwd = k[i].bwd_s;
      return;
    }
  cr_assert_fail("no loss in the step");
}

#define NEAR(a, b) cr_assert_float_eq(a, b, 1e-9 * (b) + 1e-15, "%s %g, expected %g", #a, a, b)

Test(torch_nn, gelu_moves_no_bias_forward_and_three_passes_backward) {
  /* Megatron without its fusion adds the bias, then GELU: twice the
   * fused op's bytes each way (forward 2 x 2 passes, backward 2 x 4, the
   * fused op's bwd_scale 2 counting the bias's reduction); torch.nn's
   * GELU after a bias in fc1's epilogue moves 2 passes forward and
   * GELU's 3 backward (the bias's reduction is fc1's own task) */
  double mf, mb, tf, tb;
  layer_op(gpt(0, SC_LOSS_VOCAB_PARALLEL), "bias_gelu", &mf, &mb);
  layer_op(gpt(0, SC_LOSS_EAGER), "bias_gelu", &tf, &tb);
  NEAR(tf, mf / 2);
  NEAR(tb, mb * 3 / 8);
}

/* bias_dropout_add1 at hidden dropout `drop`: torch.nn's forward and
 * backward are fwd and bwd times Megatron's unfused ones. */
static void bda_against_megatron(double drop, double fwd, double bwd) {
  double mf, mb, tf, tb;
  layer_op(gpt(drop, SC_LOSS_VOCAB_PARALLEL), "bias_dropout_add1", &mf, &mb);
  layer_op(gpt(drop, SC_LOSS_EAGER), "bias_dropout_add1", &tf, &tb);
  NEAR(tf, mf * fwd);
  NEAR(tb, mb * bwd);
}

Test(torch_nn, residual_add_without_dropout_is_one_add_each_way) {
  /* no dropout: Megatron's unfused bias add + residual add move 5 passes
   * each way; torch.nn's residual add 3 forward, and backward the add
   * where the residual's gradient meets the branch's: 3 */
  bda_against_megatron(0, 3.0 / 5, 3.0 / 5);
}

Test(torch_nn, dropout_then_add_moves_11_bytes_each_way) {
  /* dropout 0.1, bf16 (e 2): Megatron's unfused bias add, dropout and add
   * move twice the fused op's 3e + 1 = 7 bytes an element each way (14);
   * torch.nn's F.dropout (2e + the 1-byte mask) and add (3e): 11 forward;
   * the dropout's backward (2e + 1) and the add (3e): 11 backward */
  bda_against_megatron(0.1, 11.0 / 14, 11.0 / 14);
}

Test(torch_nn, each_linear_reduces_its_bias_gradient_backward) {
  /* one read of the output gradient, 8 x 1,024 rows of 2-byte values:
   * qkv 3 x 1,024 columns, proj and fc2 1,024, fc1 4,096; nothing
   * forward (the bias ran in the GEMM) */
  const sc_gpu *g = sc_gpu_preset("h100-sxm5-80gb");
  double rate = g->hbm_bw * g->hbm_eff, rows = 8.0 * 1024;
  static const char *const name[] = {"bgrad_qkv", "bgrad_proj", "bgrad_fc1", "bgrad_fc2"};
  static const double cols[] = {3 * 1024, 1024, 4096, 1024};
  for (int i = 0; i < 4; i++) {
    double f, b;
    layer_op(gpt(0, SC_LOSS_EAGER), name[i], &f, &b);
    NEAR(f + T0, 0.0);
    NEAR(b, rows * cols[i] * 2 / rate);
  }
  /* none in Megatron's plan, nor in a model without biases */
  no_bias_grad(gpt(0, SC_LOSS_VOCAB_PARALLEL));
  sc_scenario s = gpt(0, SC_LOSS_EAGER);
  s.model.tf.bias = 0;
  no_bias_grad(s);
}

Test(torch_nn, a_graph_framework_or_fused_kernels_keep_their_counts) {
  /* the eager loss in a graph framework (plan.framework_eager false) is
   * not torch.nn's: its GELU keeps the separate bias add */
  double af, ab, bf, bb;
  sc_scenario s = gpt(0, SC_LOSS_EAGER);
  layer_op(s, "bias_gelu", &af, &ab);
  s.plan.framework_eager = 0;
  layer_op(s, "bias_gelu", &bf, &bb);
  NEAR(bf, 2 * af);
  /* fused kernels: the fused op, whose backward counts the bias's
   * reduction (4 passes against GELU's 3), and no reduction of its own */
  s = gpt(0, SC_LOSS_EAGER);
  s.plan.fused_kernels = 1;
  layer_op(s, "bias_gelu", &bf, &bb);
  NEAR(bf, af);
  NEAR(bb, ab * 4 / 3);
  no_bias_grad(s);
}

Test(torch_nn, eager_cross_entropy_moves_22_bytes_a_logit_forward_26_backward) {
  /* n = 8 x 1,024 x 32,000 bf16 logits (32,000 a multiple of 128: no
   * padding). F.cross_entropy(logits.float()): the cast 2 + 4, three reads
   * of the fp32 row and a write in log_softmax: 22 forward; the NLL's
   * zero-filled gradient 4, log_softmax's backward 16, the cast back 4 + 2:
   * 26. Megatron's: 38 and 14. Each kind's time is a sum of kernels with
   * the fixed cost of each: compare the differences of the two losses'
   * bytes, at the preset's rate, with the same kernel count */
  const sc_gpu *g = sc_gpu_preset("h100-sxm5-80gb");
  double rate = g->hbm_bw * g->hbm_eff, n = 8.0 * 1024 * 32000;
  double ef, eb, mf, mb;
  loss_time(gpt(0, SC_LOSS_EAGER), &ef, &eb);
  loss_time(gpt(0, SC_LOSS_VOCAB_PARALLEL), &mf, &mb);
  NEAR(mf - ef, 16 * n / rate);
  NEAR(eb - mb, 12 * n / rate);
  NEAR(ef, 22 * n / rate + T0);
}

/* The tensor-parallel line of s (tp_comm) in the closed form and the
 * event engine. */
static void tp_line(const sc_scenario *s, double *closed, double *event) {
  sc_result r = predict_ok(s), ev;
  sc_event_opts o = {1, 0};
  sc_error err = {0};
  cr_assert_eq(sc_predict_event(s, &o, &ev, NULL, &err), SC_OK, "%s", err.msg);
  *closed = r.time.tp_comm, *event = ev.time.tp_comm;
}

Test(torch_nn, a_bias_gradient_moves_no_collective) {
  /* tp 4 with GEMM/collective overlap (plan.overlap_tp): a collective
   * after a linear hides beside that GEMM (XG_OVL_PREV). The bias's
   * reduction, the linear's own task after its GEMM, runs no kernel
   * forward: the collective still hides beside the GEMM, so the
   * tensor-parallel line is the bias-free model's, in both engines */
  sc_scenario s = gpt(0, SC_LOSS_EAGER);
  s.cluster.gpus = 4, s.plan.tp = 4, s.plan.overlap_tp = 1;
  double bc, be, nc, ne, oc, oe;
  tp_line(&s, &bc, &be);
  s.model.tf.bias = 0;
  tp_line(&s, &nc, &ne);
  s.plan.overlap_tp = 0;
  tp_line(&s, &oc, &oe);
  cr_assert(nc < oc, "the overlap hides something: %g s against %g s without", nc, oc);
  NEAR(bc, nc);
  NEAR(be, ne);
}

/* In fp32 the logits are fp32 already and .float() returns them: no cast
 * either way, log_softmax's and the NLL's bytes alone (e = 4): 16 a logit
 * forward, 4 + 16 backward. The time of each kind is one kernel's fixed
 * cost plus its bytes at the preset's rate. */
Test(torch_nn, eager_cross_entropy_on_fp32_logits_casts_nothing) {
  const sc_gpu *g = sc_gpu_preset("h100-sxm5-80gb");
  double rate = g->hbm_bw * g->hbm_eff, n = 8.0 * 1024 * 32000;
  sc_scenario s = gpt(0, SC_LOSS_EAGER);
  s.plan.dtype = SC_FP32;
  double f, b;
  loss_time(s, &f, &b);
  NEAR(f, 16 * n / rate + T0);
  NEAR(b, 20 * n / rate + T0);
}

/* The loss task's framework calls (xg_task host_fwd, host_bwd): Megatron's
 * loss's 8 each way; F.cross_entropy(logits.float()) launches 3 forward
 * (the cast, log_softmax, nll_loss) and 4 backward (the NLL's fill and
 * scatter, log_softmax's backward, the cast's), as its bytes count. */
static void loss_calls(sc_loss_impl loss, sc_dtype dt, int *hf, int *hb) {
  lowered l;
  sc_scenario s = gpt(0, loss);
  s.plan.dtype = dt;
  lowered_make(&l, &s);
  *hf = *hb = -1;
  for (int i = 0; i < l.x.n_tasks; i++) {
    const xg_task *t = &l.x.tasks[i];
    if (t->op >= 0 && l.g->ops[t->op].kind == WG_LOSS) *hf = t->host_fwd, *hb = t->host_bwd;
  }
  lowered_done(&l);
}

Test(torch_nn, eager_cross_entropy_launches_its_own_kernels) {
  int ef, eb, mf, mb;
  loss_calls(SC_LOSS_EAGER, SC_BF16, &ef, &eb);
  loss_calls(SC_LOSS_VOCAB_PARALLEL, SC_BF16, &mf, &mb);
  cr_expect(ef == 3 && eb == 4, "eager loss: %d forward, %d backward calls", ef, eb);
  cr_expect(mf == 8 && mb == 8, "Megatron's loss: %d forward, %d backward calls", mf, mb);
  /* fp32 logits: no cast, so no cast's kernel either way */
  loss_calls(SC_LOSS_EAGER, SC_FP32, &ef, &eb);
  cr_expect(ef == 2 && eb == 3, "eager loss in fp32: %d forward, %d backward calls", ef, eb);
}
