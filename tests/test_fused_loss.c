/*
 * test_fused_loss.c -- how the loss is computed (plan.loss, plan.fused_loss):
 * one fused softmax cross-entropy kernel on the 16-bit logits (flash-attn's
 * CrossEntropyLoss, llm-foundry's fused_crossentropy; src/lower/lower.c
 * fused_ce), Megatron's on an fp32 copy (src/graph/graph.c shape_loss), and
 * eager PyTorch's F.cross_entropy on logits.float(), whose backward peaks
 * at 12 bytes a logit (lower.c loss_bwd_extra). Every figure is hand
 * arithmetic on a 24-layer GPT: n = micro-batch x seq x vocab logits per
 * micro-batch on one GPU.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "gpt24.h"
#include "predict.h" /* predict_ok */
#include "stepcast.h"
#include "tmpfile.h"

#define MB 2
#define SEQ 2048    /* gpt24.h's */
#define VOCAB 32000 /* gpt24.h's, a multiple of 128: no padding */

/* gpt24.h's GPT (24 layers, hidden 2048, vocabulary 32,000) on its 8
 * H100 in data parallelism alone, micro-batch 2 of 2,048 tokens, one
 * micro-batch a step: the loss on the one stage, its logits whole. */
static sc_scenario gpt(void) {
  sc_scenario s = gpt24_h100();
  s.plan.tp = s.plan.pp = 1;
  s.plan.sp = 0;
  s.plan.dp = 8;
  s.plan.global_batch = 8 * MB;
  s.plan.micro_batch = MB;
  return s;
}

static const double N = (double)MB * SEQ * VOCAB; /* logits a micro-batch */

Test(fused_loss, keeps_the_16_bit_logits_alone) {
  /* Megatron's loss keeps its fp32 softmax (4 bytes a logit), scales it
   * in place in backward and casts it to a 16-bit gradient (2): 6 at its
   * peak; the fused one keeps the 16-bit logits (2) and writes their
   * gradient beside them (2): 4, so 2 N bytes less at the peak, one
   * micro-batch in flight */
  sc_scenario s = gpt();
  sc_result a = predict_ok(&s);
  s.plan.fused_loss = 1;
  sc_result b = predict_ok(&s);
  double got = a.mem.activations - b.mem.activations;
  cr_assert_float_eq(got, 2 * N, 1e-9 * N, "activations %g bytes less, expected %g", got, 2 * N);
  cr_assert_float_eq(a.mem.weights, b.mem.weights, 1, "weights do not move");
  /* plan.loss "fused" is the same plan */
  s.plan.fused_loss = 0;
  s.plan.loss_impl = SC_LOSS_FUSED;
  sc_result c = predict_ok(&s);
  cr_assert_float_eq(c.mem.activations, b.mem.activations, 1, "loss fused %g, fused_loss %g",
                     c.mem.activations, b.mem.activations);
  cr_assert_float_eq(c.step_s, b.step_s, 1e-12, "the same step");
}

Test(fused_loss, eager_cross_entropy_peaks_at_12_bytes_a_logit) {
  /* F.cross_entropy(logits.float()) holds 12 bytes a logit at its
   * backward's peak (data/measured/loss_mem_h100.csv), where Megatron's
   * holds 6 (4 + 2): 6 N more; its time is its own (test_torch_nn.c) */
  sc_scenario s = gpt();
  sc_result a = predict_ok(&s);
  s.plan.loss_impl = SC_LOSS_EAGER;
  sc_result b = predict_ok(&s);
  double got = b.mem.activations - a.mem.activations;
  cr_assert_float_eq(got, 6 * N, 1e-9 * N, "activations %g bytes more, expected %g", got, 6 * N);
  cr_assert_float_eq(a.mem.weights, b.mem.weights, 1, "weights do not move");
}

Test(fused_loss, one_backward_transient_at_a_time) {
  /* with every layer recomputed, a layer rematerialised is a backward
   * transient too, and the loss's backward ends before it starts: the
   * larger of the two counts. One layer's activations here: 34 x seq x
   * micro-batch x hidden bytes and more (about 286 MB). A vocabulary of
   * 4,096 makes both losses' transients less than that (eager 8 n =
   * 134 MB, Megatron's 2 n = 34 MB): the eager loss adds nothing; at
   * 32,000 (8 N = 1,049 MB, 2 N = 262 MB) it adds 8 N less the layer:
   * more than 2 N, less than 8 N - 285 MB */
  for (int v = 0; v < 2; v++) {
    sc_scenario s = gpt();
    double n = v ? N : (double)MB * SEQ * 4096;
    if (!v) s.model.tf.vocab = 4096;
    s.plan.recompute = SC_RECOMP_FULL;
    sc_result a = predict_ok(&s);
    s.plan.loss_impl = SC_LOSS_EAGER;
    sc_result b = predict_ok(&s);
    double got = b.mem.activations - a.mem.activations;
    if (!v)
      cr_assert_float_eq(got, 0, 1, "vocabulary 4,096: eager %g bytes more", got);
    else
      cr_assert(got > 2 * n && got < 8 * n - 285e6, "vocabulary 32,000: eager %g bytes more",
                got);
  }
}

Test(fused_loss, keeps_per_micro_batch_in_flight_its_transient_once) {
  /* GPipe on 2 stages, 4 micro-batches: the last stage holds all four
   * forwards before the first backward. Megatron's loss keeps 4 bytes a
   * logit each (the 16-bit logits dropped after forward) and adds its
   * 16-bit gradient once: 4 x 4 N + 2 N = 18 N; the fused one keeps the
   * logits: 4 x 2 N + 2 N = 10 N; 8 N apart on the last stage (its peak:
   * the logits outweigh the first stage's embedding) */
  sc_scenario s = gpt();
  s.plan.pp = 2;
  s.plan.dp = 4;
  s.plan.schedule = SC_SCHED_GPIPE;
  s.plan.global_batch = 4 * 4 * MB;
  sc_result a = predict_ok(&s);
  s.plan.fused_loss = 1;
  sc_result b = predict_ok(&s);
  double got = a.mem.activations - b.mem.activations;
  cr_assert_float_eq(got, 8 * N, 1e-9 * N, "activations %g bytes apart, expected %g", got, 8 * N);
}

Test(fused_loss, loss_and_fused_loss_may_not_disagree) {
  sc_scenario s = gpt();
  s.plan.fused_loss = 1;
  s.plan.loss_impl = SC_LOSS_EAGER;
  sc_error err = {0};
  cr_assert_eq(sc_scenario_resolve(&s, &err), SC_EINPUT);
  cr_assert(strstr(err.msg, "plan.loss") && strstr(err.msg, "fused_loss") &&
                strstr(err.msg, "valid"),
            "%s", err.msg);
  /* a value outside the enum (the C API) names every valid one */
  s = gpt();
  s.plan.loss_impl = SC_LOSS_EAGER + 1;
  cr_assert_eq(sc_scenario_resolve(&s, &err), SC_EINPUT);
  cr_assert(strstr(err.msg, "plan.loss") && strstr(err.msg, "\"auto\"") &&
                strstr(err.msg, "\"eager\""),
            "%s", err.msg);
}

/* Resolving leaves plan.loss "auto" as it was: a caller that loads a
 * scenario (resolved in place) and then sets plan.fused_loss, as the C
 * API allowed before plan.loss existed, gets the fused loss, not a
 * refusal naming a key it never set; and one that then sets plan.loss
 * gets that loss. */
Test(fused_loss, keys_set_after_resolving) {
  sc_scenario s = gpt();
  s.plan.fused_loss = 1;
  sc_result fused = predict_ok(&s);
  s = gpt();
  sc_error err = {0};
  cr_assert_eq(sc_scenario_resolve(&s, &err), SC_OK, "%s", err.msg);
  cr_assert_eq(s.plan.loss_impl, SC_LOSS_AUTO, "resolving writes no loss back");
  s.plan.fused_loss = 1;
  sc_result b = predict_ok(&s);
  cr_assert_float_eq(b.mem.activations, fused.mem.activations, 1, "fused_loss after resolving");
  cr_assert_float_eq(b.step_s, fused.step_s, 1e-12, "the same step");
  s.plan.fused_loss = 0;
  s.plan.loss_impl = SC_LOSS_EAGER;
  sc_result c = predict_ok(&s);
  cr_assert(c.mem.activations > b.mem.activations + 7 * N, "eager after fused: %g vs %g",
            c.mem.activations, b.mem.activations);
}

/* The forward and backward bytes and times of the step's "loss" row. */
static sc_op_time loss_row(const sc_scenario *s) {
  sc_op_time rows[16];
  sc_error err = {0};
  int n = sc_explain_kinds(s, rows, 16, &err);
  cr_assert(n > 0, "%s", err.msg);
  for (int i = 0; i < n; i++)
    if (!strcmp(rows[i].name, "loss")) return rows[i];
  cr_assert_fail("no loss row");
  return rows[0];
}

Test(fused_loss, moves_the_logits_twice_each_way) {
  /* bf16 logits (e = 2): Megatron's loss moves e + 36 = 38 bytes a logit
   * forward and 14 backward; the fused one 2e = 4 forward (two reads) and
   * 4 backward (a read and the gradient's write) */
  sc_scenario s = gpt();
  sc_op_time a = loss_row(&s);
  s.plan.fused_loss = 1;
  sc_op_time b = loss_row(&s);
  cr_assert_float_eq(a.bytes, 38 * N, 1e-9 * N, "megatron's loss forward %g bytes", a.bytes);
  cr_assert_float_eq(b.bytes, 4 * N, 1e-9 * N, "fused loss forward %g bytes", b.bytes);
  /* both memory-bound at the same bandwidth: the times scale as the
   * bytes, plus a memory-bound kernel's fixed start, which weighs more on
   * the shorter one (within 5 % here) */
  double f = b.fwd_s / a.fwd_s, w = b.bwd_s / a.bwd_s;
  cr_assert(f >= 4.0 / 38 && f < 1.05 * 4.0 / 38, "forward %g s vs %g s", b.fwd_s, a.fwd_s);
  cr_assert(w >= 4.0 / 14 && w < 1.05 * 4.0 / 14, "backward %g s vs %g s", b.bwd_s, a.bwd_s);
}

Test(fused_loss, validate_reads_it_from_notes_naming_llm_foundry) {
  /* the same row twice, its notes naming llm-foundry or not: only the
   * memory and the loss differ, so the named one predicts less of both;
   * torch_crossentropy named beside it keeps Megatron's */
  static const char *head =
      "id,model,layers,hidden,heads,vocab,seq,global_batch,micro_batch,zero,dtype,gpu,gpus,"
      "measured_iter_s,notes\n";
  char body[1024], path[64];
  snprintf(body, sizeof body,
           "%sa,GPT,4,1024,16,32000,2048,16,2,3,bf16,a100-sxm4-80gb,8,1,FSDP (FULL_SHARD)\n"
           "b,GPT,4,1024,16,32000,2048,16,2,3,bf16,a100-sxm4-80gb,8,1,\"FSDP (FULL_SHARD), "
           "llm-foundry\"\n"
           "c,GPT,4,1024,16,32000,2048,16,2,3,bf16,a100-sxm4-80gb,8,1,\"llm-foundry, "
           "torch_crossentropy, FSDP (FULL_SHARD)\"\n",
           head);
  snprintf(path, sizeof path, "/tmp/sc_fused_loss_%d.csv", (int)getpid());
  file_write(path, body);
  sc_validation vf;
  sc_error err = {0};
  int rc = sc_validate_file(path, &vf, &err);
  unlink(path);
  cr_assert_eq(rc, SC_OK, "%s", err.msg);
  cr_assert_eq(vf.predicted, 3);
  const sc_validation_row *a = &vf.rows[0], *b = &vf.rows[1], *c = &vf.rows[2];
  cr_assert(b->mem_total < a->mem_total, "fused: %g of memory, megatron's %g", b->mem_total,
            a->mem_total);
  cr_assert(b->predicted < a->predicted, "fused: %g s, megatron's %g s", b->predicted,
            a->predicted);
  cr_assert_float_eq(c->mem_total, a->mem_total, 1, "torch_crossentropy: %g vs %g", c->mem_total,
                     a->mem_total);
  sc_validation_free(&vf);
}
