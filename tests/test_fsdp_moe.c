/*
 * test_fsdp_moe.c -- ZeRO-3 / FSDP as each framework schedules it (what
 * a step gathers and reduces, what stays gathered) and MoE as it is run
 * (grouped GEMM, token imbalance), against arithmetic a reader can redo;
 * bad combinations refused with what would be valid.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cost/compute.h"
#include "engine/engine.h"
#include "engine/fsdp.h"
#include "engine/fsdp1k.h"
#include "load/csv.h"
#include "plan/plan.h"
#include "lowered.h"
#include "predict.h" /* predict_ok */

/* A 4-layer GPT (h 1024, ffn 4096, biases, LayerNorm, learned positions,
 * tied embeddings) on 8 A100 in FSDP over dp 8: batch 16 of micro-batch
 * 1, so 2 micro-batches per step. */
#define L 4
#define H 1024.0
static sc_scenario gpt(void) {
  sc_scenario s;
  sc_scenario_default(&s);
  sc_transformer *m = &s.model.tf;
  m->layers = L;
  m->hidden = (int)H;
  m->heads = 16;
  m->kv_heads = 16;
  m->head_dim = 0;
  m->ffn = 4096;
  m->vocab = 32000;
  m->seq = 2048;
  m->bias = 1;
  m->act = SC_ACT_GELU;
  m->norm = SC_NORM_LAYERNORM;
  m->pos = SC_POS_LEARNED;
  m->tied_embeddings = 1;
  s.cluster.gpus = 8;
  sc_plan_default(&s.plan);
  s.plan.dp = 8;
  s.plan.zero = 3;
  s.plan.global_batch = 16;
  s.plan.micro_batch = 1;
  return s;
}

/* Per layer: QKV 3h^2 + 3h, projection h^2 + h, fc1 4h^2 + 4h, fc2
 * 4h^2 + h, two LayerNorms 4h = 12 h^2 + 13 h. */
static const double P = 12 * H * H + 13 * H;

/* What the first stage of l gathers and reduces in a step (fsdp_count). */
static fsdp_traffic stage0_traffic(lowered *l) {
  eng e;
  lowered_eng(l, &e);
  fsdp_traffic t;
  fsdp_count(&e, &l->x.stages[0], l->x.micro_batches, &t);
  return t;
}

static fsdp_traffic traffic(const sc_scenario *in, double *root) {
  lowered l;
  lowered_make(&l, in);
  const xg_stage *st = &l.x.stages[0];
  double all = 0, layer = 0;
  for (int j = 0; j < st->n_runs; j++) {
    const xg_run *r = &l.x.runs[st->first_run + j];
    const xg_segment *sg = &l.x.segs[r->segment];
    all += r->count * sg->params;
    if (sg->role != WG_ROLE_LAYER) continue;
    layer = sg->params;
    cr_assert_eq(r->count, L);
  }
  cr_assert_float_eq(layer, P, 1e-9 * P, "layer params %g, expected 12h^2 + 13h = %g", layer, P);
  *root = all - L * P;
  fsdp_traffic t = stage0_traffic(&l);
  cr_assert_eq(l.x.micro_batches, 2);
  lowered_done(&l);
  return t;
}

Test(fsdp, fsdp2_gathers_twice_per_layer_and_copies) {
  sc_scenario s = gpt();
  double root, eb = 2, m = 2;
  fsdp_traffic t = traffic(&s, &root);
  /* root (embedding + positions + final norm): vocab h + seq h + 2h */
  cr_assert_float_eq(root, 32000 * H + 2048 * H + 2 * H, 1, "root %g", root);
  /* per micro-batch: the root once, each layer in forward and again in
   * backward; one reduce-scatter per layer and one for the root */
  cr_assert_eq(t.gathers, m * (1 + 2 * L), "gathers %g", t.gathers);
  cr_assert_float_eq(t.gather_bytes, m * eb * (root + 2 * L * P), 1, "%g", t.gather_bytes);
  cr_assert_eq(t.reduces, m * (1 + L));
  cr_assert_float_eq(t.reduce_bytes, m * eb * (root + L * P), 1, "%g", t.reduce_bytes);
  /* copy-in (its shard: 1/8), copy-out per gather, chunk-cat per reduce,
   * each read + written */
  double unit = 2 * eb / 8 + 2 * eb;
  double want = m * ((2 * L * P + root) * unit + (L * P + root) * 2 * eb);
  cr_assert_float_eq(t.copy_bytes, want, 1e-6 * want, "copies %g, expected %g", t.copy_bytes,
                     want);
  /* FSDP1's flat parameters need no copy around the gather, but its
   * kernels (fsdp1k.h; bf16 over 8, per element): the shard's cast before
   * each gather 6 / 8, the gradient's cat, pad and pre-divide 4 each, the
   * reduced shard's zeros, post-divide, fp32 cast and accumulation
   * (2 + 4 + 6 + 12) / 8 -- a layer (two gathers) 16.5, the root 15.75;
   * the same collectives */
  s.plan.fsdp_impl = SC_FSDP1;
  fsdp_traffic t1 = traffic(&s, &root);
  want = m * (L * P * 16.5 + root * 15.75);
  cr_assert_float_eq(t1.copy_bytes, want, 1e-6 * want, "FSDP1 kernels %g B, expected %g",
                     t1.copy_bytes, want);
  cr_assert_eq(t1.gather_bytes, t.gather_bytes);
}

Test(fsdp, no_reshard_after_forward_gathers_once) {
  sc_scenario s = gpt();
  s.plan.fsdp_reshard = 0;
  double root;
  fsdp_traffic t = traffic(&s, &root);
  cr_assert_eq(t.gathers, 2 * (1 + L), "gathers %g", t.gathers);
  cr_assert_float_eq(t.gather_bytes, 2 * 2 * (root + L * P), 1, "%g", t.gather_bytes);
}

Test(fsdp, hsdp_all_reduces_each_units_shard_every_backward) {
  /* shards of 4 ranks, 2 replicas: gathers and reduce-scatters stay in
   * the shard; FSDP2 (all_reduce_grads, its default) all-reduces each
   * unit's reduced quarter across the replicas after every backward:
   * m (L + 1) all-reduces of 2 (R + LP) / 4 bytes in all */
  sc_scenario s = gpt();
  s.plan.fsdp_shard = 4;
  double root;
  fsdp_traffic t = traffic(&s, &root);
  cr_assert_eq(t.allreduces, 2 * (L + 1), "all-reduces %g", t.allreduces);
  cr_assert_float_eq(t.allreduce_bytes, 2 * 2 * (root + L * P) / 4, 1, "%g", t.allreduce_bytes);
  cr_assert_eq(t.gathers, 2 * (1 + 2 * L));
  /* XLA and DeepSpeed reduce across replicas once per step (analytic.c),
   * not here */
  s.plan.fsdp_impl = SC_FSDP_XLA;
  cr_assert_eq(traffic(&s, &root).allreduces, 0);
}

/* Mixtral 8x7B on 16 H100 in FSDP2 with HSDP shards of 8 and ep 8, tp 1:
 * each shard of 8 ranks holds the 8 experts one per rank (torchtitan's
 * dp_shard_mod_ep = 8 / 8 = 1: the experts are not sharded), and the two
 * shards replicate. Per layer the dense part is attention (QKV 4096 x
 * (4096 + 2 x 1024), projection 4096^2), the router (4096 x 8) and two
 * RMSNorms; a rank's expert is 3 x 4096 x 14336; the root the untied
 * embedding and output layer (32000 x 4096 each) and the final norm. */
Test(fsdp, hsdp_all_reduces_the_experts_with_their_own_shard) {
  const char *json = "{\"model\": \"mixtral-8x7b\", \"cluster\": {\"gpu\": \"h100-sxm5-80gb\","
                     " \"gpus\": 16}, \"plan\": {\"tp\": 1, \"pp\": 1, \"dp\": 16, \"ep\": 8,"
                     " \"zero\": 3, \"fsdp_shard\": 8, \"global_batch\": 32, \"micro_batch\": 1}}";
  sc_scenario s = scenario_ok(json);
  lowered l;
  lowered_make(&l, &s);
  fsdp_traffic t = stage0_traffic(&l);
  cr_assert_eq(l.x.micro_batches, 2);
  lowered_done(&l);
  double h = 4096, dense = h * (h + 2 * 1024) + h * h + h * 8 + 2 * h, expert = 3 * h * 14336;
  double root = 2 * 32000 * h + h, eb = 2;
  /* per micro-batch: the root's, then each layer's dense part and its
   * experts', each its own call; the dense over the shard's 8 ranks, the
   * experts whole (before: 32 x (dense + expert) / 8, a quarter of this) */
  cr_assert_eq(t.allreduces, 2 * (1 + 2 * 32), "all-reduces %g", t.allreduces);
  double want = 2 * eb * (root / 8 + 32 * (dense / 8 + expert));
  cr_assert_float_eq(t.allreduce_bytes, want, 1e-9 * want, "all-reduce bytes %g, expected %g",
                     t.allreduce_bytes, want);
  /* the time: with 1 Gb/s NICs between the two replicas' servers (the
   * shards, ep and the gathers stay on NVLink) the step waits for the
   * replicas' all-reduce: 2 ranks, a ring moves each rank's bytes once
   * each way, at InfiniBand's 0.88 of the NIC (src/coll/fabrics.c).
   * Both engines charge it (fsdp.c) */
  s.cluster.nic_bw = 1e9 / 8;
  sc_result c = predict_ok(&s);
  sc_result v;
  sc_error err = {0};
  cr_assert_eq(sc_predict_event(&s, NULL, &v, NULL, &err), SC_OK, "%s", err.msg);
  double ar = t.allreduce_bytes / (0.88 * s.cluster.nic_bw);
  cr_assert(fabs(c.time.dp_comm / ar - 1) < 0.02, "closed form dp %g s, all-reduce %g s",
            c.time.dp_comm, ar);
  cr_assert(fabs(v.step_s / c.step_s - 1) < 0.03, "event step %g s, closed form %g s", v.step_s,
            c.step_s);
  /* XLA all-reduces across the replicas once per step (analytic.c): one
   * micro-batch's bytes, half of FSDP2's 2 */
  s.plan.fsdp_impl = SC_FSDP_XLA;
  sc_result x = predict_ok(&s);
  cr_assert(fabs(x.time.dp_comm / (ar / 2) - 1) < 0.02, "XLA: dp %g s, all-reduce %g s",
            x.time.dp_comm, ar / 2);
}

/* The same Mixtral HSDP job: the experts' units are gathered and
 * reduce-scattered over their own shard group, dp_shard_mod_ep ranks
 * (torchtitan's fully_shard on moe.experts), the dense part over the
 * shard's 8. ep 8 = the shard: each rank holds its expert whole, so only
 * the dense part is gathered (before: dense + expert over the 8 ranks,
 * as if the experts were sharded 8 ways). ep 4: 2 experts a rank, sharded
 * over 8 / 4 = 2 ranks, each part its own call. Per micro-batch the root
 * once, each of the 32 layers gathered in forward and again in backward
 * (resharded) and reduce-scattered once. */
static fsdp_traffic mixtral_hsdp(int ep, double *w, double *g) {
  char json[512];
  snprintf(json, sizeof json,
           "{\"model\": \"mixtral-8x7b\", \"cluster\": {\"gpu\": \"h100-sxm5-80gb\","
           " \"gpus\": 16}, \"plan\": {\"tp\": 1, \"pp\": 1, \"dp\": 16, \"ep\": %d,"
           " \"zero\": 3, \"fsdp_shard\": 8, \"global_batch\": 32, \"micro_batch\": 1}}",
           ep);
  sc_scenario s = scenario_ok(json);
  lowered l;
  lowered_make(&l, &s);
  eng e;
  lowered_eng(&l, &e);
  fsdp_traffic t;
  fsdp_count(&e, &l.x.stages[0], l.x.micro_batches, &t);
  fsdp_memory(&e, &l.x.stages[0], 2, w, g);
  cr_assert_eq(l.x.micro_batches, 2);
  lowered_done(&l);
  return t;
}

Test(fsdp, hsdp_gathers_the_experts_over_their_own_shard) {
  double h = 4096, dense = h * (h + 2 * 1024) + h * h + h * 8 + 2 * h, expert = 3 * h * 14336;
  double root = 2 * 32000 * h + h, eb = 2, m = 2, w, g;
  fsdp_traffic t = mixtral_hsdp(8, &w, &g);
  cr_assert_eq(t.gathers, m * (1 + 2 * 32), "ep 8: gathers %g", t.gathers);
  double want = m * eb * (root + 2 * 32 * dense);
  cr_assert_float_eq(t.gather_bytes, want, 1e-9 * want, "ep 8: gathered %g B, expected %g",
                     t.gather_bytes, want);
  cr_assert_eq(t.reduces, m * (1 + 32), "ep 8: reduce-scatters %g", t.reduces);
  want = m * eb * (root + 32 * dense);
  cr_assert_float_eq(t.reduce_bytes, want, 1e-9 * want, "ep 8: reduced %g B", t.reduce_bytes);
  /* gathered at once (fsdp_memory): the unit computing and the one
   * prefetched, the root; the gradients of two units and the root's --
   * the dense parts only, the experts being held whole anyway */
  want = (2 * dense + root) * eb;
  cr_assert_float_eq(w, want, 1e-9 * want, "ep 8: gathered weights %g B, expected %g", w, want);
  cr_assert_float_eq(g, want, 1e-9 * want, "ep 8: unsharded gradients %g B", g);
  /* ep 4: two experts a rank over 2 ranks, in calls of their own */
  t = mixtral_hsdp(4, &w, &g);
  double unit = dense + 2 * expert;
  cr_assert_eq(t.gathers, m * (1 + 2 * 32 * 2), "ep 4: gathers %g", t.gathers);
  want = m * eb * (root + 2 * 32 * unit);
  cr_assert_float_eq(t.gather_bytes, want, 1e-9 * want, "ep 4: gathered %g B", t.gather_bytes);
  cr_assert_eq(t.reduces, m * (1 + 32 * 2), "ep 4: reduce-scatters %g", t.reduces);
  /* FSDP2's copy-in starts from a rank's shards: the dense part's eighth,
   * the experts' half; copy-out and chunk-cat move the whole unit; the
   * root's copy-in, copy-out and chunk-cat likewise */
  double local = dense / 8 + 2 * expert / 2;
  want = m * eb * (32 * (2 * (2 * local + 2 * unit) + 2 * unit) + 2 * root / 8 + 4 * root);
  cr_assert_float_eq(t.copy_bytes, want, 1e-9 * want, "ep 4: FSDP2 copies %g B, expected %g",
                     t.copy_bytes, want);
  /* both engines cost these units (fsdp_exposed): the same step */
  const char *json = "{\"model\": \"mixtral-8x7b\", \"cluster\": {\"gpu\": \"h100-sxm5-80gb\","
                     " \"gpus\": 16}, \"plan\": {\"tp\": 1, \"pp\": 1, \"dp\": 16, \"ep\": 4,"
                     " \"zero\": 3, \"fsdp_shard\": 8, \"global_batch\": 32, \"micro_batch\": 1}}";
  sc_scenario s = scenario_ok(json);
  sc_result c = predict_ok(&s), v;
  sc_error err = {0};
  cr_assert_eq(sc_predict_event(&s, NULL, &v, NULL, &err), SC_OK, "%s", err.msg);
  cr_assert(fabs(v.step_s / c.step_s - 1) < 0.03, "event step %g s, closed form %g s", v.step_s,
            c.step_s);
}

/* Found by the random draws (seed 11, draw 753: Qwen3-235B, ep 32 over
 * an HSDP shard of tp 2 x fsdp_shard 8 = 16 ranks): an ep wider than the
 * shard left the expert grid unfolded and the experts fell back to the
 * dense shard, divided 8 ways though each rank's experts exist once (tp 4,
 * where the shard is all 32 ranks, kept them whole: optimizer state 5x
 * larger at the doubled tp). Megatron and torchtitan refuse that layout
 * (plan.c plan_expert_hsdp). Mixtral on 16 GPUs, tp 2, etp 1, dp 8:
 * fsdp_shard 2 is a shard of 2 x 2 = 4 ranks, which ep 8 does not divide;
 * fsdp_shard 4, of 2 x 4 = 8, folds ep 8 with 8 / 8 = 1 rank per expert
 * shard: each rank holds its expert whole, as at tp 4 (dp 4, fsdp_shard 2:
 * 4 x 2 = 8 ranks again). */
static int mixtral_tp_eshard(int tp, int fsdp_shard, sc_error *err) {
  char json[512];
  snprintf(json, sizeof json,
           "{\"model\": \"mixtral-8x7b\", \"cluster\": {\"gpu\": \"h100-sxm5-80gb\","
           " \"gpus\": 16}, \"plan\": {\"tp\": %d, \"pp\": 1, \"dp\": %d, \"ep\": 8,"
           " \"etp\": 1, \"zero\": 3, \"fsdp_shard\": %d, \"global_batch\": 32,"
           " \"micro_batch\": 1}}",
           tp, 16 / tp, fsdp_shard);
  sc_scenario s;
  if (sc_scenario_load_string(&s, json, "hsdp", NULL, 0, err) != SC_OK) return -1;
  if (sc_scenario_resolve(&s, err) != SC_OK) return -1;
  lowered l;
  lowered_make(&l, &s);
  int eshard = 0;
  for (int i = 0; i < l.x.n_segs; i++)
    if (l.x.segs[i].params_expert > 0) eshard = l.x.segs[i].eshard;
  lowered_done(&l);
  return eshard;
}

Test(fsdp, hsdp_refuses_an_ep_wider_than_the_shard) {
  sc_error err = {0};
  cr_assert_eq(mixtral_tp_eshard(2, 2, &err), -1, "tp 2, fsdp_shard 2: accepted");
  cr_assert(strstr(err.msg, "plan.ep: 8 must divide the HSDP shard's tp*fsdp_shard 4"), "%s",
            err.msg);
  cr_assert(strstr(err.msg, "valid ep: 1, 2, 4"), "%s", err.msg);
  int e2 = mixtral_tp_eshard(2, 4, &err);
  cr_assert_eq(e2, 1, "tp 2, fsdp_shard 4: experts over %d ranks (%s)", e2, err.msg);
  int e4 = mixtral_tp_eshard(4, 2, &err);
  cr_assert_eq(e4, 1, "tp 4, fsdp_shard 2: experts over %d ranks (%s)", e4, err.msg);
}

/* Found by the random draws (seed 7, draw 6,737): a root unit on a
 * one-rank shard group (dp 1: nothing to gather) took NCCL's share of its
 * gather as 0 / 0 where no copy-in precedes it (DeepSpeed, XLA), and the
 * step became NaN as soon as other units (the experts, sharded over the
 * 8 / (etp 1 x ep 2) = 4 tp ranks) had anything to gather. Every
 * implementation that runs ep 2 under ZeRO-3 (not DeepSpeed's: below)
 * predicts a finite step in both engines. */
Test(fsdp, a_root_on_one_rank_keeps_the_step_finite) {
  static const char *const impl[] = {"fsdp2", "fsdp1", "xla"};
  for (int i = 0; i < 3; i++) {
    char json[512];
    snprintf(json, sizeof json,
             "{\"model\": \"mixtral-8x7b\", \"cluster\": {\"gpu\": \"h100-sxm5-80gb\","
             " \"gpus\": 8}, \"plan\": {\"tp\": 8, \"pp\": 1, \"dp\": 1, \"ep\": 2,"
             " \"etp\": 1, \"zero\": 3, \"fsdp_impl\": \"%s\", \"global_batch\": 4,"
             " \"micro_batch\": 1}}",
             impl[i]);
    sc_scenario s = scenario_ok(json);
    sc_result c = predict_ok(&s), v;
    sc_error err = {0};
    cr_assert_eq(sc_predict_event(&s, NULL, &v, NULL, &err), SC_OK, "%s: %s", impl[i], err.msg);
    cr_assert(isfinite(c.step_s) && c.time.dp_comm >= 0 && isfinite(v.step_s),
              "%s: closed form %g s (dp_comm %g s), event %g s", impl[i], c.step_s,
              c.time.dp_comm, v.step_s);
  }
}

/* DeepSpeed ZeRO-3 and MoE: its engine refuses stage 3 with its MoE
 * layers (stages 1 and 2 shard the experts over the expert-data-parallel
 * group; stage 3 has no expert groups: plan_fsdp.c), so ep > 1 exits
 * with what is valid; with ep 1 the experts are plain modules sharded
 * like the rest over the 8 data-parallel ranks. Mixtral 8x7B on 8 H100,
 * dp 8, 2 micro-batches: every parameter, experts included, is
 * reduce-scattered once a micro-batch from 16-bit gradients: each layer
 * (1.45e9 elements, 1.41e9 of them experts) fills the 5e8-element bucket
 * by itself, the root (embedding, head, final norm) follows at the end
 * of the backward. */
Test(fsdp, deepspeed_zero3_moe_shards_experts_as_plain_modules) {
  const char *fmt = "{\"model\": \"mixtral-8x7b\", \"cluster\": {\"gpu\": \"h100-sxm5-80gb\","
                    " \"gpus\": 8}, \"plan\": {\"tp\": 1, \"pp\": 1, \"dp\": 8, \"ep\": %d,"
                    " \"zero\": %d, \"fsdp_impl\": \"%s\", \"global_batch\": 16,"
                    " \"micro_batch\": 1}}";
  char json[512];
  sc_scenario s;
  sc_error err = {0};
  snprintf(json, sizeof json, fmt, 2, 3, "deepspeed");
  sc_scenario_default(&s);
  cr_assert_eq(sc_scenario_load_string(&s, json, "test", NULL, 0, &err), SC_EINPUT);
  cr_assert(strstr(err.msg, "plan.ep: 2") && strstr(err.msg, "valid: ep 1") &&
                strstr(err.msg, "plan.zero 2") && strstr(err.msg, "\"fsdp2\""),
            "%s", err.msg);
  /* what the message offers loads */
  snprintf(json, sizeof json, fmt, 2, 2, "deepspeed");
  (void)scenario_ok(json);
  snprintf(json, sizeof json, fmt, 2, 3, "fsdp2");
  (void)scenario_ok(json);
  snprintf(json, sizeof json, fmt, 1, 3, "deepspeed");
  s = scenario_ok(json);
  lowered l;
  lowered_make(&l, &s);
  fsdp_traffic t = stage0_traffic(&l);
  /* Mixtral's parameters by hand: per layer the attention h (h + 2 x
   * 1024) + h^2, the router 8 h, 8 experts of 3 h x 14336, two RMSNorms;
   * the embedding and the head 32000 h each, the final norm */
  double h = 4096, layer = h * (h + 2 * 1024) + h * h + 8 * h + 8 * 3 * h * 14336 + 2 * h;
  double m = l.x.micro_batches, all = 32 * layer + 2 * 32000 * h + h; /* 46,702,792,704 */
  lowered_done(&l);
  cr_assert_eq(m, 2);
  cr_assert_eq(t.reduces, m * (32 + 1), "reduce-scatters %g", t.reduces);
  cr_assert_float_eq(t.reduce_bytes, m * 2 * all, 1e-9 * m * 2 * all,
                     "reduced %.12g B, expected %.12g", t.reduce_bytes, m * 2 * all);
}

Test(fsdp, deepspeed_gathers_modules_and_keeps_by_reuse_distance) {
  sc_scenario s = gpt();
  s.plan.fsdp_impl = SC_FSDP_DEEPSPEED;
  double root;
  fsdp_traffic t = traffic(&s, &root);
  /* four linear modules per layer are gathered (the LayerNorms' 2048
   * elements are under the 1e5 persistence threshold); the 4 layers
   * (2 x 3 x 12.6M elements after the first: < 1e9 reuse distance) stay
   * gathered for the backward: no second gather with the defaults */
  cr_assert_eq(t.gathers, 2 * (1 + 4 * L), "gathers %g", t.gathers);
  /* the 5e8-element reduce bucket holds the stage: one reduce per
   * micro-batch */
  cr_assert_eq(t.reduces, 2, "reduces %g", t.reduces);
  cr_assert_float_eq(t.reduce_bytes, 2 * 2 * (root + L * P), 1, "%g", t.reduce_bytes);
  /* reuse distance 0: every layer gathered again in backward */
  s.plan.ds_max_reuse = 0;
  fsdp_traffic t0 = traffic(&s, &root);
  cr_assert_eq(t0.gathers, 2 * (1 + 8 * L), "gathers %g", t0.gathers);
  /* a bucket of 2 layers: 2 reduces of 2P in backward, then the root */
  s.plan.ds_reduce_bucket = 2 * P;
  fsdp_traffic tb = traffic(&s, &root);
  cr_assert_eq(tb.reduces, 2 * 3, "reduces %g", tb.reduces);
}

Test(fsdp, memory_of_live_units) {
  sc_scenario s = gpt();
  sc_result a = predict_ok(&s);
  /* two more units prefetched in backward: 2 x P x 2 bytes more */
  s.plan.fsdp_prefetch = 3;
  sc_result b = predict_ok(&s);
  cr_assert_float_eq(b.mem.weights - a.mem.weights, 2 * P * 2, 1, "%g",
                     b.mem.weights - a.mem.weights);
  /* no reshard: all 4 layers gathered instead of 2 */
  s.plan.fsdp_prefetch = 1;
  s.plan.fsdp_reshard = 0;
  sc_result c = predict_ok(&s);
  cr_assert_float_eq(c.mem.weights - a.mem.weights, (L - 2) * P * 2, 1, "%g",
                     c.mem.weights - a.mem.weights);
}

Test(fsdp, deepspeed_memory_of_live_parameters) {
  /* FSDP2 holds 2 layers gathered (computing, prefetched) and the root R;
   * DeepSpeed its largest module (fc1: 4h^2 + 4h), the 5e7-element
   * prefetch bucket, the 4 layers kept for their backward (reuse distance
   * under 1e9), the persistent LayerNorms (4h a layer) and the root. Its
   * gradients: the reduce bucket (the stage, LP + R, under 5e8) and the
   * module computing, against FSDP2's 2 layers and the root */
  sc_scenario s = gpt();
  sc_result f = predict_ok(&s);
  s.plan.fsdp_impl = SC_FSDP_DEEPSPEED;
  sc_result d = predict_ok(&s);
  double root = 32000 * H + 2048 * H + 2 * H, fc1 = 4 * H * H + 4 * H, eb = 2;
  double want_w = (fc1 + 5e7 + L * P + L * 4 * H + root) - (2 * P + root);
  double want_g = (L * P + root + fc1) - (2 * P + root);
  /* and the shards: DeepSpeed's bf16 (2 bytes over dp 8), FSDP2's fp32 (4) */
  double shards = (L * P + root) * (2.0 - 4.0) / 8;
  /* the buffers line is 5 % of the rest: compare weights and gradients */
  cr_assert_float_eq(d.mem.weights - f.mem.weights, want_w * eb + shards, 1e-6 * want_w,
                     "weights %g vs %g", d.mem.weights - f.mem.weights, want_w * eb + shards);
  cr_assert_float_eq(d.mem.gradients - f.mem.gradients, want_g * eb, 1e-6 * want_g,
                     "gradients %g vs %g", d.mem.gradients - f.mem.gradients, want_g * eb);
}

Test(fsdp, fsdp2_copies_cost_their_hbm_time) {
  /* the gathers made nearly free (NVLink at 1 PB/s: a few microseconds of
   * latency each), h 4096: FSDP2's dp time exceeds FSDP1's by its copy-out
   * (per gather) and chunk-cat (per reduce-scatter) kernels on the compute
   * stream, each reading and writing the unit's bytes once (copy-in runs
   * beside, on the gather stream), less what FSDP1's own kernels show */
  sc_scenario s = gpt();
  double h = 4096, p = 12 * h * h + 13 * h, root = 32000 * h + 2048 * h + 2 * h, eb = 2;
  s.model.tf.hidden = (int)h;
  s.model.tf.heads = 32;
  s.model.tf.kv_heads = 32;
  s.model.tf.ffn = 4 * (int)h;
  s.cluster.nvlink_bw = 1e15;
  s.plan.fsdp_prefetch = 1; /* both prefetch one unit in backward (FSDP1:
                               BACKWARD_PRE, not its default None) */
  sc_result f2 = predict_ok(&s);
  s.plan.fsdp_impl = SC_FSDP1;
  sc_result f1 = predict_ok(&s);
  const sc_gpu *g = sc_gpu_preset("a100-sxm4-80gb");
  /* 2 micro-batches: the root's copy-out and chunk-cat, each layer's two
   * copy-outs (forward, backward) and one chunk-cat */
  double copies = 2 * (2 * cost_mem(g, 2 * root * eb) + 2 * L * cost_mem(g, 2 * p * eb) +
                       L * cost_mem(g, 2 * p * eb));
  /* and the copy-in of the two gathers nothing hides, the root's and the
   * first layer's (its 1/8 shard) */
  copies += 2 * (cost_mem(g, 2 * root * eb / 8) + cost_mem(g, 2 * p * eb / 8));
  /* FSDP1 shows its kernels (fsdp1k.h) where nothing hides them: the
   * casts before those two gathers, every gradient's cat (compute
   * stream), the kernels around the root's reduce-scatter (nothing after
   * it), and at most those around the first layer's, which only the
   * embedding's backward and the root's cat follow */
  fsdp1k_cost kp = fsdp1k_unit(g, p, eb, 8), kr = fsdp1k_unit(g, root, eb, 8);
  double k1 = 2 * (kr.cast + kp.cast + L * kp.cat + kr.cat + kr.reduce), k1_max = k1 + 2 * kp.reduce;
  double d = f2.time.dp_comm - f1.time.dp_comm;
  cr_assert(d > copies - k1_max - 0.01 * copies && d < copies - k1 + 0.01 * copies,
            "fsdp2 - fsdp1 = %g s, FSDP2's copies %g s, FSDP1's kernels %g..%g s", d, copies, k1,
            k1_max);
}

Test(fsdp, comm_bound_time_follows_the_bytes) {
  /* 16 GPUs on two nodes joined by 1 Gb/s NICs: the gathers and
   * reduce-scatters (ring, same bytes for both) take ~50x the compute, so
   * the exposed time is their bytes over one bandwidth. Per micro-batch,
   * resharding moves R + 2LP gathered + R + LP reduced, without it
   * R + LP + R + LP: the ratio of the two times is that of the bytes */
  sc_scenario s = gpt();
  s.cluster.gpus = 16;
  s.cluster.nic_bw = 1e9 / 8;
  s.plan.dp = 16;
  s.plan.global_batch = 32;
  s.plan.fsdp_impl = SC_FSDP1;
  sc_result a = predict_ok(&s);
  s.plan.fsdp_reshard = 0;
  sc_result b = predict_ok(&s);
  double root = 32000 * H + 2048 * H + 2 * H;
  double want = (2 * root + 3 * L * P) / (2 * root + 2 * L * P), got = a.time.dp_comm / b.time.dp_comm;
  cr_assert(a.time.dp_comm > 30 * a.time.compute, "not comm-bound: %g vs %g", a.time.dp_comm,
            a.time.compute);
  cr_assert(fabs(got / want - 1) < 0.01, "reshard / no reshard %g, bytes %g", got, want);
}

Test(fsdp, per_module_gathers_pay_the_ring_latency_at_scale) {
  /* h 512: a layer is 3.2M elements, DeepSpeed's modules 0.3-1M each.
   * Over 1,024 H100 a ring all-gather of a megabyte is latency-bound
   * ((n - 1) steps of NCCL's per-hop latency: ~1.3 ms, src/coll), so
   * DeepSpeed's 34 collectives a micro-batch (root, 4 modules x 4 layers
   * twice with reuse distance 0, one reduce bucket) cost about twice
   * FSDP1's 14 (root, 8 layer gathers, 5 reduce-scatters) of the same
   * bytes; over 8 GPUs what the 20 extra collectives add is about their
   * per-call overhead on the stream (20 x 20 us = 0.4 ms, COLL_LAUNCH_S),
   * a few per cent of the step */
  sc_scenario s = gpt();
  s.model.tf.hidden = 512;
  s.model.tf.heads = 8;
  s.model.tf.kv_heads = 8;
  s.model.tf.ffn = 2048;
  s.cluster.gpu = *sc_gpu_preset("h100-sxm5-80gb");
  s.plan.ds_max_reuse = 0;
  s.plan.fsdp_prefetch = 1; /* FSDP1 with BACKWARD_PRE, as DeepSpeed
                               prefetches */
  double ratio[2], extra = 0, steps = 0;
  for (int big = 0; big < 2; big++) {
    s.cluster.gpus = big ? 1024 : 8;
    s.plan.dp = s.cluster.gpus;
    s.plan.global_batch = 2L * s.cluster.gpus;
    s.plan.fsdp_impl = SC_FSDP1;
    sc_result f = predict_ok(&s);
    s.plan.fsdp_impl = SC_FSDP_DEEPSPEED;
    sc_result d = predict_ok(&s);
    ratio[big] = d.time.dp_comm / f.time.dp_comm;
    if (!big) extra = d.time.dp_comm - f.time.dp_comm, steps = d.step_s / f.step_s;
  }
  cr_assert(ratio[1] > 1.5 && ratio[1] < 34.0 / 14, "1024 GPUs: DeepSpeed / FSDP1 %g", ratio[1]);
  cr_assert(extra > 0 && extra < 20 * 25e-6, "8 GPUs: DeepSpeed exposes %g s more", extra);
  cr_assert(steps < 1.05, "8 GPUs: DeepSpeed's step / FSDP1's %g", steps);
}

Test(fsdp, prefetch_hides_what_no_prefetch_exposes) {
  sc_scenario s = gpt();
  s.cluster.gpus = 64; /* 8 nodes: the gathers cross the network */
  s.plan.dp = 64;
  s.plan.global_batch = 128;
  sc_result on = predict_ok(&s);
  s.plan.fsdp_prefetch = 0;
  sc_result off = predict_ok(&s);
  cr_assert(off.time.dp_comm > on.time.dp_comm, "no prefetch %g, prefetch %g", off.time.dp_comm,
            on.time.dp_comm);
}

/* plan.fsdp_prefetch left to the implementation: FSDP1 gathers nothing
 * ahead in backward (PyTorch 1.13's backward_prefetch=None), FSDP2 one
 * unit; resolving the scenario writes the value, and the default predicts
 * what naming it does. */
Test(fsdp, backward_prefetch_defaults_per_implementation) {
  sc_scenario s = gpt();
  s.cluster.gpus = 64; /* 8 nodes: the gathers cross the network */
  s.plan.dp = 64;
  s.plan.global_batch = 128;
  cr_assert_eq(s.plan.fsdp_prefetch, SC_FSDP_PREFETCH_AUTO);
  const int want[] = {[SC_FSDP2] = 1, [SC_FSDP1] = 0};
  for (int impl = SC_FSDP2; impl <= SC_FSDP1; impl++) {
    sc_scenario t = s;
    t.plan.fsdp_impl = (sc_fsdp_impl)impl;
    sc_error err = {0};
    cr_assert_eq(sc_scenario_resolve(&t, &err), SC_OK, "%s", err.msg);
    cr_assert_eq(t.plan.fsdp_prefetch, want[impl], "%s: resolved to %d",
                 plan_fsdp_impl_names[impl], t.plan.fsdp_prefetch);
    t = s;
    t.plan.fsdp_impl = (sc_fsdp_impl)impl;
    sc_result dflt = predict_ok(&t);
    t.plan.fsdp_prefetch = want[impl];
    sc_result named = predict_ok(&t);
    cr_assert_eq(dflt.step_s, named.step_s, "%s: default %g s, named %g s",
                 plan_fsdp_impl_names[impl], dflt.step_s, named.step_s);
    t.plan.fsdp_prefetch = 1 - want[impl];
    sc_result other = predict_ok(&t);
    cr_assert((other.time.dp_comm > dflt.time.dp_comm) == (impl == SC_FSDP2),
              "%s: prefetch %d exposes %g s, the default %g s", plan_fsdp_impl_names[impl],
              1 - want[impl], other.time.dp_comm, dflt.time.dp_comm);
  }
}

Test(fsdp, bad_values_exit_with_what_is_valid) {
  sc_scenario s = gpt();
  sc_result r;
  sc_error err = {0};
  s.plan.fsdp_impl = SC_FSDP1;
  s.plan.fsdp_prefetch = 2;
  cr_assert_eq(sc_predict(&s, &r, &err), SC_EINPUT);
  cr_assert(strstr(err.msg, "valid: 0, 1"), "%s", err.msg);
  s = gpt();
  s.plan.fsdp_impl = SC_FSDP_DEEPSPEED;
  s.plan.fsdp_reshard = 0;
  cr_assert_eq(sc_predict(&s, &r, &err), SC_EINPUT);
  cr_assert(strstr(err.msg, "plan.fsdp_reshard"), "%s", err.msg);
  s = gpt();
  s.plan.fsdp_impl = (sc_fsdp_impl)9;
  cr_assert_eq(sc_predict(&s, &r, &err), SC_EINPUT);
  cr_assert(strstr(err.msg, "\"deepspeed\""), "%s", err.msg);
}

/* The implementations' names are one table (plan_fsdp_impl_names): each
 * name loads as its value from a scenario file and comes back in the
 * report's zero-3 line. */
Test(fsdp, impl_names_load_and_report_alike) {
  for (int i = 0; i < PLAN_FSDP_IMPLS; i++) {
    char set[64];
    snprintf(set, sizeof set, "plan.fsdp_impl=%s", plan_fsdp_impl_names[i]);
    const char *ov[] = {set};
    sc_scenario s;
    sc_error err = {0};
    cr_assert_eq(sc_scenario_load_file(&s, SC_SOURCE_DIR "/examples/mpt-7b-fsdp-8-a100.json", ov,
                                       1, &err),
                 SC_OK, "%s: %s", set, err.msg);
    cr_assert_eq((int)s.plan.fsdp_impl, i, "%s", set);
    sc_result r;
    cr_assert_eq(sc_predict(&s, &r, &err), SC_OK, "%s: %s", set, err.msg);
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    sc_report_prediction(f, SC_FORMAT_TABLE, &s, &r, 0);
    fclose(f);
    char want[64];
    snprintf(want, sizeof want, "zero-3    %s:", plan_fsdp_impl_names[i]);
    cr_expect(strstr(text, want), "%s: no '%s' in the report", set, want);
    free(text);
  }
}

/* ------------------------------------------------------------------ MoE */

/* Mixtral 8x7B on 64 GPUs in tp 2, pp 4, ep 2: 4 local experts. */
static sc_scenario mixtral(void) {
  sc_scenario s;
  sc_scenario_default(&s);
  s.model = *sc_model_preset("mixtral-8x7b");
  s.cluster.gpus = 64;
  s.plan.tp = 2;
  s.plan.pp = 4;
  s.plan.dp = 0;
  s.plan.ep = 2;
  s.plan.global_batch = 256;
  return s;
}

Test(moe, imbalance_scales_the_busiest_ranks_experts_and_all_to_all) {
  /* each GPU routes its sequence shard, 2048 tokens x top-2 = 4096 rows;
   * the 2 ranks of the expert-parallel group exchange them and the 2
   * expert-tensor ranks gather theirs, so a rank's 4 experts get
   * 8192 / 4 = 2048 rows each on average; the busiest rank at 1.5x: 3072 */
  double T = 4096, k = 2, h = 4096, e = 2;
  sc_scenario s = mixtral();
  lowered a;
  lowered_make(&a, &s);
  const xg_task *fc1 = lowered_task(&a, "fc1"), *disp = lowered_task(&a, "ep_dispatch");
  cr_assert(fc1->batch == 4 && fc1->m == T * k / 4, "fc1 %g x m %g", fc1->batch, fc1->m);
  /* what a rank sends: its 4096 rows of h 16-bit values */
  double d1 = disp->bytes;
  cr_assert_float_eq(d1, T / 2 * k * h * e, 1, "dispatch %g", d1);
  lowered_done(&a);
  s.plan.moe_imbalance = 1.5;
  lowered_make(&a, &s);
  fc1 = lowered_task(&a, "fc1"), disp = lowered_task(&a, "ep_dispatch");
  cr_assert_float_eq(fc1->m, 1.5 * T * k / 4, 1e-9, "fc1 m %g", fc1->m);
  cr_assert_float_eq(disp->bytes, 1.5 * d1, 1e-6, "dispatch %g", disp->bytes);
  lowered_done(&a);
  /* padding to a capacity of 1.25 caps what the busiest rank computes */
  s.plan.moe_capacity = 1.25;
  lowered_make(&a, &s);
  cr_assert_float_eq(lowered_task(&a, "fc1")->m, 1.25 * T * k / 4, 1e-9, "capped");
  lowered_done(&a);
}

Test(moe, sequential_experts_cost_one_gemm_each) {
  sc_scenario s = mixtral();
  for (int grouped = 1; grouped >= 0; grouped--) {
    s.plan.moe_grouped_gemm = grouped;
    lowered l;
    lowered_make(&l, &s);
    eng e;
    lowered_eng(&l, &e);
    const xg_task *t = lowered_task(&l, "fc1");
    const sc_gpu *g = &l.s.cluster.gpu;
    double got = eng_task_compute(&e, t, 0);
    /* an expert's rows are a mean count of its tokens (cost_gemm_expert) */
    double want = grouped ? cost_gemm_expert(g, t->dtype, t->m, t->n, t->k, 4)
                          : 4 * cost_gemm_expert(g, t->dtype, t->m, t->n, t->k, 1);
    cr_assert_float_eq(got, want, 1e-15, "grouped %d: %g vs %g", grouped, got, want);
    /* backward: the data gradient's rows are the tokens too, the weight
     * gradient reduces over them */
    double bwd = eng_task_compute(&e, t, 1), calls = grouped ? 1 : 4, b = grouped ? 4 : 1;
    double want_bwd = calls * (cost_gemm_expert(g, t->dtype, t->m, t->k, t->n, b) +
                               cost_gemm(g, t->dtype, t->k, t->n, t->m, b));
    cr_assert_float_eq(bwd, want_bwd, 1e-15, "grouped %d bwd: %g vs %g", grouped, bwd, want_bwd);
    cr_assert_float_eq(eng_task_dgrad(&e, t) + eng_task_wgrad(&e, t), bwd, 1e-15);
    /* one launch per expert without grouping */
    const wg_op *o = &l.g->ops[t->op];
    cr_assert_eq(t->host_fwd, o->host_fwd * (grouped ? 1 : 4));
    lowered_done(&l);
  }
}

Test(moe, bad_imbalance_is_refused) {
  sc_scenario s = mixtral();
  sc_result r;
  sc_error err = {0};
  s.plan.moe_imbalance = 0.5;
  cr_assert_eq(sc_predict(&s, &r, &err), SC_EINPUT);
  /* ep 2 with 4 local experts: the busiest rank holds at most both of a
   * token's experts, 2 / (2 / 2) = 2x the mean */
  s.plan.moe_imbalance = 2.5;
  cr_assert_eq(sc_predict(&s, &r, &err), SC_EINPUT);
  cr_assert(strstr(err.msg, "valid: 1..2"), "%s", err.msg);
  s.plan.moe_imbalance = 2;
  cr_assert_eq(sc_predict(&s, &r, &err), SC_OK, "%s", err.msg);
  sc_scenario d = gpt();
  d.plan.moe_imbalance = 1.2;
  cr_assert_eq(sc_predict(&d, &r, &err), SC_EINPUT);
  cr_assert(strstr(err.msg, "MoE"), "%s", err.msg);
}

Test(moe, grouped_gemm_model_against_deepgemm_rows) {
  /* ../shared/calibration/gemm_shape_benchmarks.csv: DeepGEMM's grouped
   * fp8 GEMMs for MoE training (contiguous layout, 4-8 groups of 4096-8192
   * rows) on H800, whose SMs and clocks are the H100 SXM's. The model
   * (one batched GEMM over the groups: their tiles share the waves) was
   * not fitted to them. Two versions of the table: the later one (its
   * GPU column says "H800 SXM5") runs the k = 2048 shapes 10 % faster
   * (1093-1099 -> 1214 TFLOP/s), and the model sits near the later figure
   * (1270 at k = 2048 with Hopper's fp8 k0 of 160, 1337-1343 at k = 7168):
   * within 12 % of the later version's rows, 20 % of the earlier's */
  const char *path = SC_SHARED_DIR "/calibration/gemm_shape_benchmarks.csv";
  csv_file f;
  sc_error err = {0};
  cr_assert_eq(csv_open(&f, path, &err), SC_OK,
               "%s: this test needs the shared calibration data beside the checkout", err.msg);
  int op = csv_col(&f, "op"), gpu = csv_col(&f, "gpu"), n_rows = 0;
  const sc_gpu *h100 = sc_gpu_preset("h100-sxm5-80gb");
  while (csv_next(&f, path, &err) == 1) {
    if (!strstr(csv_get(&f, op), "Grouped GEMMs for MoE models (contiguous layout)") ||
        !strstr(csv_get(&f, gpu), "H800"))
      continue;
    int bad = 0;
    double b = csv_num(&f, path, "batch_or_groups", 0, 1, &bad, &err);
    double m = csv_num(&f, path, "m", 0, 1, &bad, &err), n = csv_num(&f, path, "n", 0, 1, &bad, &err);
    double k = csv_num(&f, path, "k", 0, 1, &bad, &err);
    double tf = csv_num(&f, path, "tflops", 0, 1, &bad, &err);
    cr_assert(!bad, "%s", err.msg);
    double model = 2 * m * n * k * b / cost_gemm(h100, SC_FP8, m, n, k, b) / 1e12;
    double tol = strstr(csv_get(&f, gpu), "H800 SXM5") ? 0.12 : 0.20;
    cr_expect(fabs(model / tf - 1) < tol, "%g groups of [%g %g %g]: model %.0f TFLOP/s, measured %g",
              b, m, n, k, model, tf);
    n_rows++;
  }
  csv_close(&f);
  cr_assert_geq(n_rows, 4, "%d rows", n_rows);
}

Test(fsdp, pytorch_shards_are_the_fp32_masters) {
  /* FSDP1 and FSDP2 keep each shard in fp32 and give the optimizer those
   * shards: per GPU (dp 8) 4 bytes of weight and Adam's 8 bytes of state
   * per sharded element, beside 2 layers and the root gathered in bf16.
   * DeepSpeed's ZeRO-3 shards the bf16 weights (2 bytes) and keeps an fp32
   * master beside Adam's state (4 + 8). The model: L P + R elements. */
  sc_scenario s = gpt();
  double root = 32000 * H + 2048 * H + 2 * H, all = L * P + root;
  for (int impl = 0; impl < 2; impl++) {
    s.plan.fsdp_impl = impl ? SC_FSDP1 : SC_FSDP2;
    sc_result f = predict_ok(&s);
    double want_w = all * 4 / 8 + (2 * P + root) * 2;
    cr_assert_float_eq(f.mem.weights, want_w, 1e-6 * want_w, "%s weights %g vs %g",
                       impl ? "fsdp1" : "fsdp2", f.mem.weights, want_w);
    cr_assert_float_eq(f.mem.optimizer, all * 8 / 8, 1e-6 * all, "%s optimizer %g vs %g",
                       impl ? "fsdp1" : "fsdp2", f.mem.optimizer, all);
  }
  s.plan.fsdp_impl = SC_FSDP_DEEPSPEED;
  sc_result d = predict_ok(&s);
  cr_assert_float_eq(d.mem.optimizer, all * 12 / 8, 1e-6 * all, "deepspeed optimizer %g vs %g",
                     d.mem.optimizer, all * 12 / 8);
}
