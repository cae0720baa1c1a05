/*
 * test_lower.c -- the lowering puts Megatron-LM's collectives where
 * Megatron-LM puts them, with the per-GPU shapes and bytes of the plan,
 * and symmetric stages become one rank class.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "lowered.h"

static void lower(lowered *l, const sc_scenario *in) { lowered_make(l, in); }
static void done(lowered *l) { lowered_done(l); }

/* The segment of role `role` (a wg_role) on stage st. */
static const xg_segment *segment(const lowered *l, int st, int role) {
  const xg_stage *s = &l->x.stages[st];
  for (int i = 0; i < s->n_runs; i++) {
    const xg_segment *sg = &l->x.segs[l->x.runs[s->first_run + i].segment];
    if (sg->role == role) return sg;
  }
  return NULL;
}

/* "name kind, name kind, ..." of a segment's tasks (kind: G A M C). */
static void names(const lowered *l, const xg_segment *sg, char *buf, size_t cap) {
  size_t n = 0;
  buf[0] = '\0';
  for (int i = 0; i < sg->n_tasks && n < cap; i++) {
    const xg_task *t = &l->x.tasks[sg->first_task + i];
    char name[64];
    n += (size_t)snprintf(buf + n, cap - n, "%s%s %c", i ? ", " : "",
                          lower_task_name(t, name, sizeof name), "GAMC"[t->kind]);
  }
}

static const xg_task *task(const lowered *l, const xg_segment *sg, const char *name) {
  for (int i = 0; i < sg->n_tasks; i++) {
    char buf[64];
    const xg_task *t = &l->x.tasks[sg->first_task + i];
    if (!strcmp(lower_task_name(t, buf, sizeof buf), name)) return t;
  }
  cr_assert_fail("no task %s", name);
  return NULL;
}

Test(lower, gpt_layer_with_sequence_parallelism) {
  sc_scenario s;
  sc_scenario_default(&s); /* GPT-3 175B, tp 8, sp, pp 16, mb 1, bf16 */
  lowered l;
  lower(&l, &s);
  char got[2048];
  names(&l, segment(&l, 0, WG_ROLE_LAYER), got, sizeof got);
  cr_assert_str_eq(got,
                   "norm1 M, ag_qkv C, qkv G, qkv_layout M, flash_attn A, ctx_layout M, proj G, "
                   "rs_proj C, bias_dropout_add1 M, norm2 M, ag_fc1 C, fc1 G, bias_gelu M, "
                   "fc2 G, rs_fc2 C, bias_dropout_add2 M");
  const xg_segment *sg = segment(&l, 0, WG_ROLE_LAYER);
  double T = 2048, h = 12288, e = 2;
  const xg_task *ag = task(&l, sg, "ag_qkv"), *qkv = task(&l, sg, "qkv");
  cr_assert(ag->coll == COLL_ALL_GATHER && ag->bytes == T * h * e, "ag_qkv %g bytes", ag->bytes);
  cr_assert(qkv->m == T && qkv->n == 3 * h / 8 && qkv->k == h, "qkv %g x %g x %g", qkv->m,
            qkv->n, qkv->k);
  cr_assert_eq(task(&l, sg, "rs_proj")->coll, COLL_REDUCE_SCATTER);
  cr_assert_eq(task(&l, sg, "norm1")->bytes, 2 * T / 8 * h * e, "norm1 runs on seq / tp tokens");
  const xg_task *fa = task(&l, sg, "flash_attn");
  cr_assert(fa->batch == 96 / 8 && fa->sq == T && fa->d == 128 &&
                fa->flops == 4.0 * 12 * T * T * 128 * 0.5,
            "flash %g %g %g %g", fa->batch, fa->sq, fa->d, fa->flops);
  /* the first stage holds the embedding (vocab-parallel, reduce-scattered
   * under sp), the last the head (vocab-parallel loss) */
  names(&l, segment(&l, 0, WG_ROLE_FIRST), got, sizeof got);
  cr_assert_str_eq(got, "embed_lookup M, rs_embed_lookup C");
  names(&l, segment(&l, 15, WG_ROLE_LAST), got, sizeof got);
  cr_assert_str_eq(got, "final_norm M, ag_logits C, logits G, cross_entropy M, ar_cross_entropy C");
  /* 16 stages, three kinds: first, middle, last */
  int classes = 0;
  for (int i = 0; i < l.x.n_stages; i++) classes += l.x.stages[i].same_as < 0;
  cr_assert_eq(l.x.n_stages, 16);
  cr_assert_eq(classes, 3, "%d rank classes", classes);
  done(&l);
}

Test(lower, without_sequence_parallelism_tensor_parallel_layers_all_reduce) {
  sc_scenario s;
  sc_scenario_default(&s);
  s.plan.sp = 0;
  s.plan.flash_attention = 0;
  lowered l;
  lower(&l, &s);
  char got[2048];
  names(&l, segment(&l, 0, WG_ROLE_LAYER), got, sizeof got);
  cr_assert_str_eq(got,
                   "norm1 M, qkv G, qkv_layout M, attn_qk G, softmax M, attn_dropout M, "
                   "attn_av G, ctx_layout M, proj G, ar_proj C, bias_dropout_add1 M, norm2 M, "
                   "fc1 G, bias_gelu M, fc2 G, ar_fc2 C, bias_dropout_add2 M");
  done(&l);
}

/* The unfused attention's softmax task of GPT-3 175B's layer with `heads`
 * heads (head dim 128), tp 8, micro-batch mb, sequence seq. */
static void softmax_of(int heads, int mb, int seq, char *name, size_t cap, xg_task *out) {
  sc_scenario s;
  sc_scenario_default(&s);
  s.plan.sp = 0;
  s.plan.flash_attention = 0;
  s.model.tf.heads = s.model.tf.kv_heads = heads;
  s.model.tf.head_dim = 128;
  s.model.tf.seq = seq;
  s.plan.micro_batch = mb;
  lowered l;
  lower(&l, &s);
  const xg_segment *sg = segment(&l, 0, WG_ROLE_LAYER);
  const xg_task *t = &l.x.tasks[sg->first_task + 4]; /* after norm1, qkv, layout, attn_qk */
  lower_task_name(t, name, cap);
  *out = *t;
  done(&l);
}

Test(lower, fused_softmax_only_where_megatrons_kernel_applies) {
  char name[64];
  xg_task t;
  /* 16 heads over tp 8, one sequence: 2 attention batches, not a multiple
   * of 4: Megatron's PyTorch path, 39.36 bytes a score forward, 49.12
   * backward (cast 6, scale 8, masked_fill_ 8, torch.softmax 8 x 1.42
   * forward and 12 x 1.76 backward as measured, cast 6) */
  softmax_of(16, 1, 2048, name, sizeof name, &t);
  double scores = 2.0 * 2048 * 2048;
  cr_assert_str_eq(name, "softmax_torch");
  cr_assert(fabs(t.bytes - 39.36 * scores) < 1e-6 * t.bytes, "torch softmax %g bytes", t.bytes);
  cr_assert(fabs(t.bytes * t.bwd_scale - 49.12 * scores) < 1e-6 * t.bytes, "backward %g bytes",
            t.bytes * t.bwd_scale);
  cr_assert(t.host_fwd == 6 && t.host_bwd == 5, "calls %d / %d", t.host_fwd, t.host_bwd);
  /* two sequences: 4 batches, the fused kernel (read and write 16 bits) */
  softmax_of(16, 2, 2048, name, sizeof name, &t);
  cr_assert_str_eq(name, "softmax");
  cr_assert(fabs(t.bytes - 4 * 2 * scores) < 1e-6 * t.bytes, "fused softmax %g bytes", t.bytes);
  cr_assert(fabs(t.bytes * t.bwd_scale - 6 * 2 * scores) < 1e-6 * t.bytes,
            "fused softmax backward %g bytes: by its traffic, not the framework's factors",
            t.bytes * t.bwd_scale);
  /* keys beyond the kernel's 4096 */
  softmax_of(96, 1, 8192, name, sizeof name, &t);
  cr_assert_str_eq(name, "softmax_torch");
}

Test(lower, the_loss_is_megatrons_cross_entropy_on_fp32_logits) {
  sc_scenario s;
  sc_scenario_default(&s); /* bf16: e = 2 */
  lowered l;
  lower(&l, &s);
  const xg_segment *sg = segment(&l, 15, WG_ROLE_LAST);
  const xg_task *lg = task(&l, sg, "logits"), *ce = task(&l, sg, "cross_entropy");
  /* the logits on this GPU (vocab-parallel): cast e -> 4, max 4, subtract
   * 8, exp 8, sum 4, divide 8 = 38 bytes forward; scale 8 and cast back
   * 6 = 14 backward */
  double logits = lg->m * lg->n;
  cr_assert(fabs(ce->bytes - 38 * logits) < 1e-9 * ce->bytes, "forward %g bytes, %g logits",
            ce->bytes, logits);
  cr_assert(fabs(ce->bytes * ce->bwd_scale - 14 * logits) < 1e-9 * ce->bytes,
            "backward %g bytes", ce->bytes * ce->bwd_scale);
  done(&l);
}

/* Mixtral 8x7B on `gpus` GPUs in tp 2, pp 4, ep `ep`, batch 256. */
static sc_scenario mixtral(int gpus, int ep) {
  sc_scenario s;
  sc_scenario_default(&s);
  s.model = *sc_model_preset("mixtral-8x7b");
  s.cluster.gpus = gpus;
  s.plan.tp = 2;
  s.plan.pp = 4;
  s.plan.dp = 0;
  s.plan.ep = ep;
  s.plan.global_batch = 256;
  return s;
}

Test(lower, moe_layer_with_expert_and_tensor_parallelism) {
  sc_scenario s = mixtral(64, 8);
  lowered l;
  lower(&l, &s);
  char got[2048];
  names(&l, segment(&l, 0, WG_ROLE_LAYER), got, sizeof got);
  cr_assert_str_eq(got,
                   "norm1 M, ag_qkv C, qkv G, rope M, qkv_layout M, flash_attn A, ctx_layout M, "
                   "proj G, rs_proj C, bias_dropout_add1 M, norm2 M, router G, "
                   "route M, ep_dispatch C, etp_gather C, fc1 G, swiglu M, fc2 G, "
                   "etp_scatter C, ep_combine C, unroute M, bias_dropout_add2 M");
  const xg_segment *sg = segment(&l, 0, WG_ROLE_LAYER);
  double T = 4096, h = 4096, k = 2, e = 2;
  const xg_task *fc1 = task(&l, sg, "fc1"), *disp = task(&l, sg, "ep_dispatch");
  /* 8 experts over ep 8: one local expert gets all T k routed rows of
   * the two expert-tensor ranks */
  cr_assert(fc1->batch == 1 && fc1->m == T * k && fc1->n == 2 * 14336 / 2 && fc1->k == h,
            "fc1 %g x [%g %g %g]", fc1->batch, fc1->m, fc1->n, fc1->k);
  /* a rank sends its sequence shard's copies (etp = tp 2), the expert-
   * tensor all-gather brings its neighbour's */
  cr_assert(disp->coll == COLL_ALL_TO_ALL && disp->bytes == T / 2 * k * h * e, "dispatch %g",
            disp->bytes);
  const xg_task *ag = task(&l, sg, "etp_gather");
  cr_assert(ag->coll == COLL_ALL_GATHER && ag->bytes == T * k * h * e, "etp gather %g", ag->bytes);
  cr_assert_eq(task(&l, sg, "qkv")->n, (32 + 2 * 8) * 128 / 2.0, "GQA qkv columns per GPU");
  done(&l);
}

Test(lower, context_parallel_ring_hides_under_attention) {
  sc_scenario s;
  sc_scenario_default(&s);
  s.model = *sc_model_preset("llama3-8b");
  s.model.tf.seq = 32768;
  s.cluster.gpus = 64;
  s.plan.tp = 4;
  s.plan.cp = 2;
  s.plan.pp = 1;
  s.plan.dp = 0;
  s.plan.global_batch = 8;
  lowered l;
  lower(&l, &s);
  const xg_segment *sg = segment(&l, 0, WG_ROLE_LAYER);
  const xg_task *ring = task(&l, sg, "cp_kv_ring");
  const xg_task *next = ring + 1;
  cr_assert(next->kind == XG_ATTN && ring->overlap == XG_OVL_NEXT, "ring before attention");
  /* K and V of the local half of the sequence, 8 KV heads / tp 4 */
  cr_assert_eq(ring->bytes, 2.0 * 16384 * 2 * 128 * 2 * (2 - 1), "ring %g bytes", ring->bytes);
  cr_assert(next->sq == 16384 && next->flops == 4.0 * 8 * 16384 * 32768 * 128 * 0.5,
            "attention %g %g", next->sq, next->flops);
  done(&l);
}

Test(lower, strategies_that_differ_get_a_relayout_between_them) {
  sc_scenario s;
  sc_scenario_default(&s);
  s.plan.pp = 1;
  s.plan.dp = 0;
  s.plan.overrides[0] = (sc_override){.first = 0, .last = 47, .tp = SC_INHERIT, .cp = SC_INHERIT,
                                      .ep = SC_INHERIT, .sp = 0, .zero = SC_INHERIT,
                                      .recompute = SC_INHERIT};
  s.plan.n_overrides = 1;
  lowered l;
  lower(&l, &s);
  /* embedding (sp) -> layers 0..47 (no sp) needs the whole sequence: an
   * all-gather; layer 48 (sp) slices it again for free */
  const xg_stage *st = &l.x.stages[0];
  int relayouts = 0;
  char got[64] = "";
  for (int i = 0; i < st->n_runs; i++) {
    const xg_segment *sg = &l.x.segs[l.x.runs[st->first_run + i].segment];
    if (sg->block >= 0) continue;
    relayouts++;
    lower_task_name(&l.x.tasks[sg->first_task], got, sizeof got);
  }
  cr_assert_eq(relayouts, 1);
  cr_assert_str_eq(got, "relayout_ag");
  done(&l);
}

/* Megatron-Core's MoE parallel folding with expert tensor parallelism 1:
 * the router and the experts run on the rank's own sequence shard with
 * whole expert weights, ep folds over tp x dp (ep 8 on tp 2 x dp 4 -- ep 8
 * would not fit in dp alone), and no tensor-parallel collective surrounds
 * the experts. */
Test(lower, moe_parallel_folding_with_expert_tensor_parallelism_1) {
  sc_scenario s = mixtral(32, 8);
  s.plan.etp = 1;
  lowered l;
  lower(&l, &s);
  char got[2048];
  const xg_segment *sg = segment(&l, 0, WG_ROLE_LAYER);
  names(&l, sg, got, sizeof got);
  cr_assert_str_eq(got,
                   "norm1 M, ag_qkv C, qkv G, rope M, qkv_layout M, flash_attn A, ctx_layout M, "
                   "proj G, rs_proj C, bias_dropout_add1 M, norm2 M, router G, route M, "
                   "ep_dispatch C, fc1 G, swiglu M, fc2 G, ep_combine C, unroute M, "
                   "bias_dropout_add2 M");
  double T = 4096, h = 4096, k = 2, e = 2, tp = 2;
  const xg_task *fc1 = task(&l, sg, "fc1"), *disp = task(&l, sg, "ep_dispatch");
  /* the shard's T / tp tokens, k copies each, over the 8-rank EP group; one
   * local expert with its whole weights */
  cr_assert(fc1->batch == 1 && fc1->m == T * k / tp && fc1->n == 2 * 14336 && fc1->k == h,
            "fc1 %g x [%g %g %g]", fc1->batch, fc1->m, fc1->n, fc1->k);
  cr_assert(disp->bytes == T / tp * k * h * e, "dispatch %g", disp->bytes);
  /* the EP group: 8 ranks, neighbours (etp 1) */
  const xg_group *g = &l.x.groups[disp->group];
  cr_assert(g->ranks == 8 && g->stride == 1, "EP group %d ranks stride %d", g->ranks, g->stride);
  done(&l);
  /* etp must be tp or 1; ep 8 without folding does not fit dp 4 */
  sc_result r;
  sc_error err = {0};
  s.plan.etp = 0;
  cr_assert_eq(sc_predict(&s, &r, &err), SC_EINPUT);
  cr_assert(strstr(err.msg, "plan.etp 1 folds ep over the tensor-parallel ranks"), "%s", err.msg);
}

/* A capacity factor with padding (plan.moe_capacity): each expert computes
 * and the all-to-alls move capacity x the mean tokens; 0 (dropless,
 * balanced) moves the mean. */
Test(lower, moe_capacity_factor_pads_expert_tokens) {
  sc_scenario s = mixtral(32, 4);
  double m0 = 0, b0 = 0;
  for (int i = 0; i < 2; i++) {
    s.plan.moe_capacity = i ? 1.25 : 0;
    lowered l;
    lower(&l, &s);
    const xg_segment *sg = segment(&l, 0, WG_ROLE_LAYER);
    const xg_task *fc1 = task(&l, sg, "fc1"), *disp = task(&l, sg, "ep_dispatch");
    if (i == 0) {
      m0 = fc1->m, b0 = disp->bytes;
    } else {
      cr_assert(fabs(fc1->m - 1.25 * m0) < 1e-9 * m0, "fc1 m %g vs %g", fc1->m, m0);
      cr_assert(fabs(disp->bytes - 1.25 * b0) < 1e-9 * b0, "dispatch %g vs %g", disp->bytes, b0);
    }
    done(&l);
  }
}

/* Megatron pads the vocabulary to a multiple of 128 x tp
 * (--make-vocab-size-divisible-by; plan.vocab_multiple): GPT-3's 50,257
 * at tp 8 runs 51,200 columns, 6,400 a rank; vocab_multiple 1 keeps the
 * vocabulary, a rank's share rounded up to whole columns (50,264 / 8). */
Test(lower, the_vocabulary_is_padded_as_megatron_pads_it) {
  sc_scenario s;
  sc_scenario_default(&s); /* GPT-3 175B (vocab 50,257), tp 8 */
  cr_assert_eq(s.model.tf.vocab, 50257);
  lowered l;
  lower(&l, &s);
  cr_assert_float_eq(task(&l, segment(&l, 15, WG_ROLE_LAST), "logits")->n, 6400, 1e-9);
  done(&l);
  s.plan.vocab_multiple = 1;
  lower(&l, &s);
  cr_assert_float_eq(task(&l, segment(&l, 15, WG_ROLE_LAST), "logits")->n, 6283, 1e-9);
  done(&l);
}
