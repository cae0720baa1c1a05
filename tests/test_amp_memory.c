/*
 * test_amp_memory.c -- memory per GPU under automatic mixed precision
 * (plan.amp, src/engine/memory.c): fp32 parameters and gradients, Adam's
 * two fp32 moments and no master copy, the 16-bit copies of the GEMM and
 * convolution weights each micro-batch keeps for its backward; against
 * the model cast wholly to fp16 (16-bit weights, fp32 main gradients,
 * master + m + v). Bytes per parameter by hand; the same through the
 * data-parallel path (sc_dp_predict), whose gradients are then fp32.
 * Gradients freed between steps (plan.zero_grad, PyTorch's
 * zero_grad(set_to_none=True)): with one micro-batch the peak holds the
 * larger of the activations and the gradients, by hand; with two, both;
 * which plans free them by default. (plan.main_grads bf16, refused with
 * AMP: test_amp.c.)
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "gpt4.h"
#include "lowered.h"
#include "plan/plan.h"

#define NEAR(got, want, what)                                                            \
  cr_assert(fabs((got) - (want)) <= 1e-9 * fabs(want), "%s: %.9g, want %.9g", what, \
            (double)(got), (double)(want))

/* BERT-base on one V100, batch 8 at seq 128, fp16, AMP as given, plus
 * up to three more overrides. */
static void bert(sc_scenario *s, int amp, const char *more[], int n_more) {
  const char *ov[12] = {"cluster.gpu=\"v100-sxm2-16gb\"", "cluster.gpus=1", "plan.tp=1",
                        "plan.pp=1", "plan.global_batch=8", "plan.micro_batch=8",
                        "plan.dtype=\"fp16\"", amp ? "plan.amp=true" : "plan.amp=false"};
  for (int i = 0; i < n_more; i++) ov[8 + i] = more[i];
  sc_error err = {0};
  cr_assert_eq(sc_scenario_load_string(s, "{\"model\": \"bert_base\"}", "t", ov, 8 + n_more, &err),
               SC_OK, "%s", err.msg);
}

/* Weights AMP casts on stage 0 of l: sum of count x params_cast. */
static double cast_params(const lowered *l) {
  const xg_stage *st = &l->x.stages[0];
  double c = 0;
  for (int j = 0; j < st->n_runs; j++) {
    const xg_run *r = &l->x.runs[st->first_run + j];
    c += r->count * l->x.segs[r->segment].params_cast;
  }
  return c;
}

/* A BERT layer's GEMMs hold 12 h^2 weights and 9 h biases (qkv 3h, proj
 * h, fc1 4h, fc2 h), its two layer norms 4 h: AMP casts the first. */
Test(amp_memory, a_layers_cast_weights_are_its_gemms) {
  sc_scenario s;
  bert(&s, 1, NULL, 0);
  lowered l;
  lowered_make(&l, &s);
  const xg_segment *sg = lowered_layer_seg(&l);
  double h = 768;
  NEAR(sg->params, 12 * h * h + 13 * h, "layer parameters");
  NEAR(sg->params_cast, 12 * h * h + 9 * h, "layer weights AMP casts");
  lowered_done(&l);
}

/* Per parameter P: fp16 alone 2 (weights) + 4 (fp32 main gradients) + 12
 * (master, m, v); AMP 4 + 4 + 8, and 2 per cast weight C in the
 * activations (one micro-batch in flight), its gradients kept between
 * steps (plan.zero_grad "zero"; freed: the tests below). */
Test(amp_memory, bytes_per_parameter_by_hand) {
  sc_scenario s;
  sc_result off, on;
  sc_error err = {0};
  const char *kept[] = {"plan.zero_grad=\"zero\""}; /* gradients held: freed_by_hand */
  bert(&s, 0, NULL, 0);
  cr_assert_eq(sc_predict(&s, &off, &err), SC_OK, "%s", err.msg);
  bert(&s, 1, kept, 1);
  cr_assert_eq(sc_predict(&s, &on, &err), SC_OK, "%s", err.msg);
  lowered l;
  lowered_make(&l, &s);
  double P = on.params, C = cast_params(&l);
  lowered_done(&l);
  NEAR(off.params, P, "the same parameters");
  NEAR(off.mem.weights, 2 * P, "fp16 weights");
  NEAR(off.mem.gradients, 4 * P, "fp16: fp32 main gradients");
  NEAR(off.mem.optimizer, 12 * P, "fp16: master, m, v");
  NEAR(on.mem.weights, 4 * P, "AMP: fp32 weights");
  NEAR(on.mem.gradients, 4 * P, "AMP: fp32 gradients");
  NEAR(on.mem.optimizer, 8 * P, "AMP: m, v; no master copy");
  NEAR(on.mem.activations - off.mem.activations, 2 * C, "AMP: the 16-bit weight copies");
  /* the tied MLM decoder casts the word embedding: C counts it beside
   * the layers' GEMMs, and less than every parameter (norms, position
   * and type embeddings are not cast) */
  double h = 768, layers = 12 * (12 * h * h + 9 * h);
  cr_assert(C > layers + 30522 * h && C < P, "cast weights %.0f of %.0f parameters", C, P);
  NEAR(on.mem.total - off.mem.total, 2 * P - 4 * P + 2 * C * 1.05,
       "AMP total: +2 P weights, -4 P optimizer, +2 C copies and their 5 % allocator slack");
}

/* A pipeline stage keeps one copy per micro-batch in flight (1F1B: pp -
 * stage on stage 0 = 2), and one forward's (autocast's cache) under full
 * recomputation. GPT-2-small-like, bf16, a small vocabulary: stage 0, with
 * more in flight, is the fullest. */
Test(amp_memory, copies_per_micro_batch_in_flight) {
  const char *base[] = {"cluster.gpu=\"a100-sxm4-80gb\"", "cluster.gpus=2", "plan.tp=1",
                        "plan.pp=2", "plan.global_batch=8", "plan.micro_batch=1",
                        "plan.dtype=\"bf16\"", "plan.amp=false", "plan.recompute=\"none\""};
  const char *json = "{\"model\": {\"layers\": 12, \"hidden\": 768, \"heads\": 12, "
                     "\"seq\": 1024, \"vocab\": 1024}}";
  for (int full = 0; full <= 1; full++) {
    const char *ov[9];
    memcpy(ov, base, sizeof ov);
    if (full) ov[8] = "plan.recompute=\"full\"";
    sc_scenario s;
    sc_result off, on;
    sc_error err = {0};
    cr_assert_eq(sc_scenario_load_string(&s, json, "t", ov, 9, &err), SC_OK, "%s", err.msg);
    cr_assert_eq(sc_predict(&s, &off, &err), SC_OK, "%s", err.msg);
    ov[7] = "plan.amp=true";
    cr_assert_eq(sc_scenario_load_string(&s, json, "t", ov, 9, &err), SC_OK, "%s", err.msg);
    cr_assert_eq(sc_predict(&s, &on, &err), SC_OK, "%s", err.msg);
    lowered l;
    lowered_make(&l, &s);
    double C = cast_params(&l);
    lowered_done(&l);
    cr_assert(C > 6 * 12 * 768.0 * 768, "stage 0 casts its six layers' GEMMs: %.0f", C);
    NEAR(on.mem.activations - off.mem.activations, (full ? 1 : 2) * 2 * C,
         full ? "full recompute: one forward's copies" : "1F1B stage 0: two micro-batches");
  }
}

/* The data-parallel path (stepcast dp) predicts one GPU's memory with
 * the same model, as predict holds one replica of 8 (fp16: Megatron's
 * gradients kept between steps; AMP: PyTorch DDP's buckets beside the
 * .grad tensors), and exchanges the fp32 gradients of AMP's fp32
 * parameters: 4 bytes each where fp16 alone exchanges 2. */
Test(amp_memory, dp_path_memory_and_fp32_gradients) {
  const char *dp[] = {"cluster.gpus=8", "plan.global_batch=64", "dp.scheme=\"allreduce_nccl\""};
  sc_scenario s;
  sc_dp_result off, on;
  sc_result one;
  sc_error err = {0};
  bert(&s, 0, dp, 3);
  cr_assert_eq(sc_dp_predict(&s, &off, &err), SC_OK, "%s", err.msg);
  bert(&s, 1, dp, 3);
  cr_assert_eq(sc_dp_predict(&s, &on, &err), SC_OK, "%s", err.msg);
  NEAR(on.grad_bytes, 2 * off.grad_bytes, "AMP exchanges fp32 gradients");
  /* predict's replica of 8, the per-GPU batch of 8 each: fp16's
   * gradients kept (the one-GPU plan with zero_grad "zero"), AMP's DDP
   * buckets beside its freed .grad tensors */
  const char *kept[] = {"plan.zero_grad=\"zero\""};
  bert(&s, 0, kept, 1);
  cr_assert_eq(sc_predict(&s, &one, &err), SC_OK, "%s", err.msg);
  NEAR(off.mem.total, one.mem.total, "dp, fp16: the one-GPU memory, gradients kept");
  const char *ddp[] = {"cluster.gpus=8", "plan.global_batch=64"};
  bert(&s, 1, ddp, 2);
  cr_assert_eq(sc_predict(&s, &one, &err), SC_OK, "%s", err.msg);
  NEAR(on.mem.weights, 4 * one.params, "dp: fp32 weights");
  NEAR(on.mem.optimizer, 8 * one.params, "dp: m, v");
  NEAR(on.mem.gradients, one.mem.gradients, "dp: DDP's buckets and .grad tensors");
  NEAR(on.mem.total, one.mem.total, "dp: predict's replica of 8");
}

/* The memory of BERT-base under AMP on one V100 at micro-batch mb and
 * global batch gb, its gradients as plan.zero_grad zg says. */
static void bert_zg(sc_result *r, int mb, int gb, const char *zg) {
  char mbs[40], gbs[40], zgs[48];
  snprintf(mbs, sizeof mbs, "plan.micro_batch=%d", mb);
  snprintf(gbs, sizeof gbs, "plan.global_batch=%d", gb);
  snprintf(zgs, sizeof zgs, "plan.zero_grad=\"%s\"", zg);
  const char *more[] = {mbs, gbs, zgs};
  sc_scenario s;
  sc_error err = {0};
  bert(&s, 1, more, 3);
  cr_assert_eq(sc_predict(&s, r, &err), SC_OK, "%s", err.msg);
}

/* 1 GiB of context and workspaces, and 5 % of what the step allocates
 * and frees again (src/engine/memory.c BUFFER_FIXED, BUFFER_FRAG) */
#define FIXED 1073741824.0
#define FRAG 0.05

/* The tied MLM decoder's parameters: BERT's 30,522 words x 768 and, as
 * the graph counts a tied layer's parameters the embedding's (graph.h),
 * its 30,522 biases; fp32 gradients under AMP. The embedding's backward
 * allocates its gradient of the table and adds it into the decoder's
 * (AccumulateGrad's in-place add): one more gradient of them at the end
 * of the backward. */
#define TIED (4.0 * 30522 * (768 + 1))

/* One sequence: the gradients (4 bytes a parameter, 440 MB) and the
 * tied table's second gradient (94 MB) outweigh the activations, so the
 * peak is the backward's end: weights + optimizer + gradients + TIED, no
 * activation, 5 % slack on the gradients and TIED (both freed each step). */
Test(amp_memory, freed_gradients_peak_at_the_backwards_end) {
  sc_result kept, freed;
  bert_zg(&kept, 1, 1, "zero");
  bert_zg(&freed, 1, 1, "set_to_none");
  double P = kept.params, G = 4 * P, A = kept.mem.activations;
  cr_assert(G + TIED > A, "one sequence: gradients %.0f + %.0f above activations %.0f", G,
            TIED, A);
  NEAR(kept.mem.gradients, G, "kept: fp32 gradients");
  NEAR(kept.mem.total, 4 * P + 8 * P + G + A + FIXED + FRAG * A, "kept: all of it at once");
  NEAR(freed.mem.weights, kept.mem.weights, "freed: the same weights");
  NEAR(freed.mem.optimizer, kept.mem.optimizer, "freed: the same optimizer states");
  NEAR(freed.mem.gradients, G + TIED, "freed: every gradient and the tied table's second");
  NEAR(freed.mem.activations, 0.0, "freed: no activation at the backward's end");
  NEAR(freed.mem.total, 4 * P + 8 * P + G + TIED + FIXED + FRAG * (G + TIED),
       "freed: weights + optimizer + gradients + the tied transient, with slack");
}

/* 64 sequences: the activations outweigh the gradients, so the peak is
 * the backward's start, with no gradient yet: the kept total less the
 * gradients exactly (the activations and their slack unchanged). */
Test(amp_memory, freed_gradients_peak_at_the_backwards_start) {
  sc_result kept, freed;
  bert_zg(&kept, 64, 64, "zero");
  bert_zg(&freed, 64, 64, "set_to_none");
  double G = 4 * kept.params;
  cr_assert(kept.mem.activations > G + TIED, "64 sequences: activations %.0f above %.0f",
            kept.mem.activations, G + TIED);
  cr_assert_eq(freed.mem.gradients, 0, "freed: no gradient before the backward: %.0f",
               freed.mem.gradients);
  NEAR(freed.mem.activations, kept.mem.activations, "freed: the same activations");
  NEAR(freed.mem.total, kept.mem.total - G, "freed: the kept total less the gradients");
}

/* Two micro-batches: the first one's gradients live through the second's
 * forward, so freeing them between steps saves nothing. */
Test(amp_memory, freed_gradients_with_two_micro_batches_save_nothing) {
  for (int mb = 1; mb <= 64; mb *= 64) {
    sc_result kept, freed;
    bert_zg(&kept, mb, 2 * mb, "zero");
    bert_zg(&freed, mb, 2 * mb, "set_to_none");
    NEAR(freed.mem.gradients, kept.mem.gradients, "two micro-batches: gradients held");
    NEAR(freed.mem.total, kept.mem.total, "two micro-batches: the same total");
  }
}

/* plan.zero_grad "auto": freed where PyTorch's own .grad holds the
 * gradients under torch.optim -- an eager plan of fp32 parameters (AMP,
 * fp32, tf32) on one replica without ZeRO (zero 0, or 1: over one
 * replica it shards nothing) or under DDP whose buckets are apart (its
 * .grad tensors freed, the buckets kept), or FSDP2 -- and kept elsewhere
 * (Megatron's 16-bit model, DDP's .grad tensors as views of its buckets,
 * a graph framework, DeepSpeed's partitions, FSDP1 as PyTorch 1.13 ran
 * it); an explicit value wins. */
Test(amp_memory, which_plans_free_their_gradients) {
  sc_plan p;
  sc_plan_default(&p);
  p.dtype = SC_BF16, p.dp = 1, p.amp = 1;
  cr_assert(plan_grads_freed(&p), "eager AMP on one replica");
  p.amp = 0;
  cr_assert(!plan_grads_freed(&p), "the model cast to bf16 (Megatron)");
  p.dtype = SC_TF32;
  cr_assert(plan_grads_freed(&p), "tf32: fp32 parameters under torch.optim");
  p.dtype = SC_BF16;
  p.zero_grad = SC_ZERO_GRAD_SET_TO_NONE;
  cr_assert(plan_grads_freed(&p), "set_to_none asked");
  p.zero_grad = SC_ZERO_GRAD_AUTO, p.amp = 1, p.dp = 8;
  cr_assert(plan_grads_freed(&p) && plan_ddp_buckets(&p),
            "DDP over 8 replicas: the .grad tensors freed, the buckets kept");
  p.ddp_bucket_view = 1;
  cr_assert(!plan_grads_freed(&p) && !plan_ddp_buckets(&p),
            "DDP's .grad tensors views of its buckets: kept");
  p.ddp_bucket_view = 0, p.zero = 1;
  cr_assert(!plan_grads_freed(&p) && !plan_ddp_buckets(&p),
            "ZeRO-1 over 8 replicas: no DDP, its partitions kept");
  p.zero = 0, p.dp = 1, p.framework_eager = 0;
  cr_assert(!plan_grads_freed(&p), "a graph framework");
  p.framework_eager = 1, p.zero = 1;
  cr_assert(plan_grads_freed(&p), "ZeRO-1 over one replica (the key's default) shards nothing");
  p.zero = 2;
  cr_assert(!plan_grads_freed(&p), "ZeRO-2's partitions");
  p.zero = 3, p.amp = 0, p.fsdp_impl = SC_FSDP2;
  cr_assert(plan_grads_freed(&p), "FSDP2's sharded .grad");
  p.fsdp_impl = SC_FSDP1;
  cr_assert(!plan_grads_freed(&p), "FSDP1 as PyTorch 1.13");
  p.fsdp_impl = SC_FSDP_DEEPSPEED;
  cr_assert(!plan_grads_freed(&p), "DeepSpeed ZeRO-3");
  p.zero = 0, p.amp = 1, p.zero_grad = SC_ZERO_GRAD_ZERO;
  cr_assert(!plan_grads_freed(&p), "zero asked");
}

/* The key's values are named, and a wrong one is refused with them. */
Test(amp_memory, zero_grad_key_refuses_other_values) {
  sc_scenario s;
  sc_error err = {0};
  const char *ov[] = {"plan.zero_grad=\"sometimes\""};
  cr_assert_eq(sc_scenario_load_string(&s, "{\"model\": \"bert_base\"}", "t", ov, 1, &err),
               SC_EINPUT);
  cr_assert(strstr(err.msg, "plan.zero_grad") && strstr(err.msg, "set_to_none") &&
                strstr(err.msg, "zero"),
            "%s", err.msg);
}

/* The backward sweep of s's stage 0 by hand from its lowered runs: at
 * each boundary between runs, the activations the runs before it keep
 * (AMP: with their GEMM and convolution weights' 16-bit copies, 2 bytes
 * each, unless fully recomputed) less their gradients (4 bytes a
 * parameter; an offloaded layer's activations are on the host); *rise
 * its most at a boundary (0 when none is above 0), *in the most a fully
 * recomputed run's rebuilt layer, or an offloaded run's layer brought
 * back, adds to the larger of its two ends (0: none), *G every gradient,
 * *tied the tied table's second gradient, *remat the largest layer
 * rebuilt; *rise_g and *in_g the gradients not yet made at those two
 * moments (the runs' before them: at rise's boundary, or at the end of
 * in's run that it rose from), which the activations then held add to
 * the sweep's excess. */
typedef struct sweep {
  double rise, in, G, tied, remat, rise_g, in_g;
} sweep;

/* The split at the later moment, the larger of w's two: the gradients
 * made by then (the tied table's second one with them), the activations
 * held beside them. */
static void sweep_split(const sweep *w, double *grads, double *acts) {
  double in = fmax(w->rise, w->in), unmade = w->rise > w->in ? w->rise_g : w->in_g;
  *grads = w->G - unmade + w->tied;
  *acts = in + unmade;
}

static sweep sweep_by_hand(const sc_scenario *s) {
  lowered l;
  lowered_make(&l, s);
  const xg_stage *st = &l.x.stages[0];
  sweep w = {0, 0, 0, 0, 0, 0, 0};
  double d = 0;
  int first = 1, off = s->plan.offload_layers;
  for (int j = 0; j < st->n_runs; j++) {
    const xg_run *r = &l.x.runs[st->first_run + j];
    const xg_segment *sg = &l.x.segs[r->segment];
    if (sg->block < 0) continue;
    if (!first && d > w.rise) w.rise = d, w.rise_g = w.G;
    first = 0;
    int full = sg->recompute == SC_RECOMP_FULL;
    double copies = s->plan.amp && !full ? 2 * sg->params_cast : 0;
    double a = r->count * ((full ? sg->input_bytes : sg->act_bytes) + copies);
    int n = sg->role == WG_ROLE_LAYER ? (int)fmin(r->count, off) : 0;
    off -= n, a -= n * sg->act_bytes; /* offloading: recompute none */
    double g = r->count * 4 * sg->params, before = d;
    d += a - g;
    /* a layer rebuilt (beyond the input it kept) or brought back from the
     * host at its backward's start: its gradients not made, beside the
     * run not begun or with that layer of it left */
    double back = full ? fmax(0, sg->act_bytes - sg->input_bytes) : n > 0 ? sg->act_bytes : 0;
    double last = before + (a - g) / r->count;
    if (back > 0 && fmax(last, d) + back > w.in)
      w.in = fmax(last, d) + back, w.in_g = last > d ? w.G + g / r->count : w.G + g;
    if (full && sg->act_bytes > w.remat) w.remat = sg->act_bytes;
    w.G += g;
    w.tied += r->count * sg->tied_params * 4;
  }
  lowered_done(&l);
  return w;
}

/* The backward sweep: VGG16's classifier holds 124 M of its 138 M
 * parameters and runs its backward first, while the convolutions'
 * activations, most of the step's, are still held. At a boundary between
 * runs the step holds the activations of the runs before it and the
 * gradients of those after it: its peak is every gradient plus the
 * largest excess, over the boundaries, of the activations before one over
 * the gradients before it (AMP: each run keeps its activations and its
 * GEMM and convolution weights' 16-bit copies, 2 bytes each; gradients 4
 * bytes a parameter), here above both the backward's start and its end. */
/* VGG16 under AMP on one V100 at batch b (one micro-batch), its
 * gradients freed between steps (set_to_none) into *freed and kept into
 * *kept, recomputing as rc says; the sweep of the freed one by hand. */
static sweep vgg_amp(int b, const char *rc, sc_result *freed, sc_result *kept) {
  char gbs[40], mbs[40], rcs[48];
  snprintf(gbs, sizeof gbs, "plan.global_batch=%d", b);
  snprintf(mbs, sizeof mbs, "plan.micro_batch=%d", b);
  snprintf(rcs, sizeof rcs, "plan.recompute=\"%s\"", rc);
  const char *ov[] = {"cluster.gpu=\"v100-sxm2-16gb\"", "cluster.gpus=1", "plan.tp=1",
                      "plan.pp=1", gbs, mbs, "plan.dtype=\"fp16\"", "plan.amp=true", rcs,
                      "plan.zero_grad=\"set_to_none\""};
  sc_scenario s;
  sc_error err = {0};
  cr_assert_eq(sc_scenario_load_string(&s, "{\"model\": \"vgg16\"}", "t", ov, 10, &err),
               SC_OK, "%s", err.msg);
  cr_assert_eq(sc_predict(&s, freed, &err), SC_OK, "%s", err.msg);
  sweep w = sweep_by_hand(&s);
  s.plan.zero_grad = SC_ZERO_GRAD_ZERO;
  cr_assert_eq(sc_predict(&s, kept, &err), SC_OK, "%s", err.msg);
  return w;
}

Test(amp_memory, freed_gradients_backward_sweep_by_hand) {
  sc_result kept, freed;
  sweep w = vgg_amp(64, "none", &freed, &kept);
  double rise = w.rise, G = w.G;
  double P = kept.params, A = kept.mem.activations;
  NEAR(G, 4 * P, "the runs' gradients are every parameter's");
  cr_assert(rise > 0 && G + rise > A, "the sweep's peak %.0f + %.0f above the start %.0f", G,
            rise, A);
  /* held there: the gradients of the runs after the boundary, the
   * activations of those before it (the excess plus their gradients) */
  cr_assert(w.rise_g > 0 && w.rise_g < G, "gradients still to come %.0f of %.0f", w.rise_g, G);
  NEAR(freed.mem.gradients, G - w.rise_g, "freed: the gradients made by the sweep's peak");
  NEAR(freed.mem.activations, rise + w.rise_g, "freed: the activations still held there");
  NEAR(freed.mem.total,
       kept.mem.weights + kept.mem.optimizer + G + rise + FIXED + FRAG * (G + rise),
       "freed: weights + optimizer + gradients + the sweep's rise, with slack");
  cr_assert(freed.mem.total < kept.mem.total, "freed %.0f below kept %.0f", freed.mem.total,
            kept.mem.total);
}

/* A layer that full recomputation rematerialises in the backward sits,
 * before any of its gradients is made, beside what its run holds with it
 * not yet begun or with that layer left, even where every boundary holds
 * less than the gradients still to come:
 * a 4-layer GPT (h 1024, seq 4096, one sequence) with a 2,048-word
 * vocabulary in bf16, fp32 main gradients, every layer recomputed. Past
 * the embedding the sweep is below 0 at every boundary (its table's and
 * each layer's gradients outweigh the inputs kept), yet the first
 * layer's backward rematerialises 30-odd MB (beyond the input it kept)
 * beside the embedding's activations and every gradient but the
 * embedding's and its own: the peak is the gradients, the tied table's
 * second one and that, above the backward's start. */
Test(amp_memory, freed_gradients_remat_below_every_boundary) {
  sc_scenario s = gpt4_h100(0, 0);
  s.model.tf.vocab = 2048;
  s.model.tf.seq = 4096;
  s.plan.recompute = SC_RECOMP_FULL;
  s.plan.zero_grad = SC_ZERO_GRAD_SET_TO_NONE;
  sc_result kept, freed;
  sc_error err = {0};
  cr_assert_eq(sc_predict(&s, &freed, &err), SC_OK, "%s", err.msg);
  sweep w = sweep_by_hand(&s);
  double rise = w.rise, in = w.in, G = w.G, tied = w.tied;
  s.plan.zero_grad = SC_ZERO_GRAD_ZERO;
  cr_assert_eq(sc_predict(&s, &kept, &err), SC_OK, "%s", err.msg);
  double A = kept.mem.activations;
  cr_assert(rise == 0 && in > 0, "every boundary at or below 0 (%.0f), the remat above (%.0f)",
            rise, in);
  cr_assert(G + tied + in > A, "the remat's peak %.0f + %.0f + %.0f above the start %.0f", G,
            tied, in, A);
  double gh, ah;
  sweep_split(&w, &gh, &ah);
  NEAR(freed.mem.gradients, G - w.in_g + tied, "freed: the gradients made, the tied one's too");
  NEAR(freed.mem.activations, in + w.in_g, "freed: the layer rebuilt and the activations held");
  NEAR(freed.mem.gradients + freed.mem.activations, G + tied + in, "freed: the same peak");
  NEAR(gh, G - w.in_g + tied, "sweep_split");
  NEAR(ah, in + w.in_g, "sweep_split");
}

/* The two moments of the sweep fall apart: a layer is rebuilt only while
 * the backward runs through its own run, so a boundary elsewhere holds
 * none. VGG16 under AMP at batch 16 on a V100, every layer fully
 * recomputed: the sweep's most at a boundary and its most while a layer
 * is rebuilt, each by hand, and the peak the larger of the two, not the
 * boundary's plus the largest layer rebuilt (which its convolution blocks'
 * boundaries, of different sizes, would count, 30-odd MB more). */
Test(amp_memory, freed_gradients_rise_and_remat_apart) {
  sc_result freed, kept;
  sweep w = vgg_amp(16, "full", &freed, &kept);
  double end = w.G + w.tied + fmax(w.rise, w.in);
  cr_assert(w.rise > 0 && w.in > 0, "a boundary above 0 (%.0f) and a layer rebuilt (%.0f)",
            w.rise, w.in);
  cr_assert(w.rise + w.remat > fmax(w.rise, w.in) + 1e6,
            "the boundary's %.0f plus the largest layer %.0f above either moment %.0f", w.rise,
            w.remat, fmax(w.rise, w.in));
  cr_assert(end > kept.mem.activations, "the later moment %.0f above the start %.0f", end,
            kept.mem.activations);
  double gh, ah;
  sweep_split(&w, &gh, &ah);
  NEAR(freed.mem.gradients, gh, "freed: the gradients made by the sweep's peak");
  NEAR(freed.mem.activations, ah, "freed: the larger moment's activations");
  NEAR(gh + ah, end, "freed: the same peak");
}

/* Offloaded layers (plan.offload_layers) come back from the host for
 * their backward, one layer at a time, beside the gradients made by then,
 * as a rebuilt layer does (before its own gradients are made): the
 * 4-layer GPT with the 2,048-word vocabulary of the test above at 2,048
 * tokens, nothing recomputed, its first 3 layers offloaded. Every
 * boundary is below 0 (the layers' gradients outweigh the activations
 * kept), yet the first layer's activations, back on the GPU, lift the end
 * above the backward's start. */
Test(amp_memory, freed_gradients_offloaded_layer_comes_back) {
  sc_scenario s = gpt4_h100(0, 0);
  s.model.tf.vocab = 2048;
  s.model.tf.seq = 2048;
  s.plan.offload_layers = 3;
  s.plan.zero_grad = SC_ZERO_GRAD_SET_TO_NONE;
  sc_result kept, freed;
  sc_error err = {0};
  cr_assert_eq(sc_predict(&s, &freed, &err), SC_OK, "%s", err.msg);
  sweep w = sweep_by_hand(&s);
  s.plan.zero_grad = SC_ZERO_GRAD_ZERO;
  cr_assert_eq(sc_predict(&s, &kept, &err), SC_OK, "%s", err.msg);
  cr_assert(w.rise == 0 && w.in > 0,
            "every boundary at or below 0 (%.0f), the layer back above (%.0f)", w.rise, w.in);
  cr_assert(w.G + w.tied + w.in > kept.mem.activations,
            "the end %.0f + %.0f + %.0f above the start %.0f", w.G, w.tied, w.in,
            kept.mem.activations);
  double gh, ah;
  sweep_split(&w, &gh, &ah);
  NEAR(freed.mem.gradients, gh, "freed: the gradients made by then, the tied one's too");
  NEAR(freed.mem.activations, ah, "freed: the layer back and the activations held");
  NEAR(gh + ah, w.G + w.tied + w.in, "freed: the same peak");
}

/* The memory of BERT-base under AMP at micro-batch and per-GPU batch 8
 * on g V100 with no ZeRO, plus one more override (NULL: none). */
static void bert_dp(sc_result *r, int g, const char *more) {
  char gs[40], gbs[40];
  snprintf(gs, sizeof gs, "cluster.gpus=%d", g);
  snprintf(gbs, sizeof gbs, "plan.global_batch=%d", 8 * g);
  const char *ov[] = {gs, gbs, "plan.zero=0", more};
  sc_scenario s;
  sc_error err = {0};
  bert(&s, 1, ov, more ? 4 : 3);
  cr_assert_eq(sc_predict(&s, r, &err), SC_OK, "%s", err.msg);
}

/* PyTorch DDP over 8 GPUs (plan_ddp_buckets): the reducer's buckets, one
 * more fp32 copy of the gradients (4 bytes a parameter), kept between
 * steps beside the .grad tensors, which zero_grad(set_to_none=True)
 * frees as on one GPU: the one-GPU step's memory plus 4 P, no allocator
 * slack on it (allocated once). With gradient_as_bucket_view each .grad
 * is a view of its bucket: the gradients kept, as zero_grad "zero" on
 * one GPU. */
Test(amp_memory, ddp_buckets_beside_the_grads) {
  sc_result one, ddp, view, one_kept;
  bert_dp(&one, 1, NULL);
  bert_dp(&ddp, 8, NULL);
  bert_dp(&view, 8, "plan.ddp_bucket_view=true");
  bert_dp(&one_kept, 1, "plan.zero_grad=\"zero\"");
  double G = 4 * one.params;
  NEAR(ddp.params, one.params, "the same model");
  NEAR(ddp.mem.weights, one.mem.weights, "DDP: the same weights");
  NEAR(ddp.mem.optimizer, one.mem.optimizer, "DDP: the same optimizer states");
  NEAR(ddp.mem.gradients, one.mem.gradients + G, "DDP: the buckets beside the .grad tensors");
  NEAR(ddp.mem.total, one.mem.total + G, "DDP: the one-GPU total plus the buckets");
  NEAR(view.mem.gradients, G, "bucket views: the gradients once, kept");
  NEAR(view.mem.total, one_kept.mem.total, "bucket views: one GPU's total, gradients kept");
  cr_assert(one.mem.total < one_kept.mem.total, "one GPU, batch 8: freeing saves something");
}
