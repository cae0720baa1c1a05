/*
 * test_memo_mix.c -- the search's memos (lowered plans, lcache.h; lowered
 * segments, segmemo.h; segment queues, qmemo.h; the memory kept across
 * eng_prepare) change no prediction where test_segmemo.c does not look:
 *
 * - MoE models with dense first layers and shared experts (DeepSeek-V3)
 *   and with 128 experts (Qwen3), ep and etp, on a topology;
 * - every point of a space evaluated as it is and then with one knob
 *   turned (so that the two differ in that knob alone, and a memo whose
 *   key misses it hands the first's entries to the second): fp8 recipes and first/last layers in
 *   bf16, the overlap switches (tp_comm_overlap, async TP backward, MoE
 *   overlap), selective recompute modules, CUDA graphs, the FSDP
 *   implementation and its knobs, the MoE dispatcher, grouped GEMM and
 *   capacity, gradient and parameter types, explicit uneven stage
 *   layouts (pp_layout) and per-layer overrides of ZeRO, recomputation
 *   and sequence parallelism, on top of the space's own partial
 *   recomputation, offloading, HSDP shards, uneven stages and vpp;
 * - the same search on 1 and 2 threads (each its own memos).
 *
 * Each plan is evaluated as the search does (job_lower, job_bound on a
 * topology, job_finish on one job) and with sc_job_predict on another job
 * (no memo), and must give the same result bit for bit; lowered through
 * the memo of segments alone it must give lower_plan's graph field by
 * field. A memo key that misses an input read for some configuration
 * fails here on the first plan that reuses a wrong entry (checked by
 * hand: dropping overlap_tp, fp8_recipe or the 16-bit layers from the
 * memo of segments' key, or the recomputation mode or the engine's mode
 * from the memo of queues', fails these tests).
 */
#include <criterion/criterion.h>
#include <stdint.h>
#include <string.h>

#include "core/mem.h"
#include "exec/xg.h"
#include "job/job.h"
#include "lower/lcache.h"
#include "lower/lower.h"
#include "lower/segmemo.h"
#include "memsame.h"
#include "model/builder.h"
#include "search/space.h"
#include "searchcases.h"
#include "searchcost.h"
#include "stepcast.h"

/* Which knobs vary_one() turns. */
#define MIX_OVERLAP 1u    /* overlap_tp, tp_async_bwd, overlap_ep */
#define MIX_FP8 2u        /* fp8 recipe, bf16 first/last layers, fp8_param */
#define MIX_RECMOD 4u     /* selective recompute modules */
#define MIX_HOST 8u       /* CUDA graphs, eager framework, fused kernels */
#define MIX_FSDP 16u      /* FSDP implementation, reshard, prefetch */
#define MIX_MOE 32u       /* dispatcher, grouped GEMM, capacity, imbalance */
#define MIX_TYPES 64u     /* main_grads, param_remainders */
#define MIX_LAYOUT 128u   /* explicit uneven pp_layout */
#define MIX_OVERRIDES 256u /* per-layer overrides */
#define MIX_ALL 511u

/* splitmix64: the knob turned at a point. */
static uint64_t mix64(uint64_t x) {
  x += 0x9e3779b97f4a7c15u;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9u;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebu;
  return x ^ (x >> 31);
}

/* Take n bits off *h. */
static unsigned bits(uint64_t *h, int n) {
  unsigned v = (unsigned)(*h & ((1u << n) - 1));
  *h >>= n;
  return v;
}

/* An explicit layout of `layers` over pp * vpp virtual stages, uneven:
 * the first virtual stage one layer lighter than the rest's share, the
 * last one heavier (0 when it cannot be). */
static int uneven_layout(sc_plan *p, int layers) {
  int vpp = p->schedule == SC_SCHED_INTERLEAVED && p->vpp > 1 ? p->vpp : 1, n = p->pp * vpp;
  if (n < 2 || n > SC_MAX_PP_LAYOUT || layers < 2 * n) return 0;
  int share = layers / n, left = layers - share * n;
  for (int v = 0; v < n; v++) p->pp_layout[v] = share;
  p->pp_layout[0] -= 1;
  p->pp_layout[n - 1] += 1 + left;
  p->n_pp_layout = n;
  p->pp_first_layers = p->pp_last_layers = 0;
  p->pp_embedding_in_split = p->pp_loss_in_split = 0;
  return 1;
}

/* The knobs vary_one() turns, with the MIX_* group each belongs to. */
static const unsigned knob_group[] = {
    MIX_OVERLAP, MIX_OVERLAP, MIX_OVERLAP,                /* 0-2 */
    MIX_FP8,     MIX_FP8,     MIX_FP8,     MIX_FP8,       /* 3-6 */
    MIX_RECMOD,                                           /* 7 */
    MIX_HOST,    MIX_HOST,    MIX_HOST,    MIX_HOST,      /* 8-11 */
    MIX_FSDP,    MIX_FSDP,    MIX_FSDP,    MIX_FSDP,      /* 12-15 */
    MIX_MOE,     MIX_MOE,     MIX_MOE,     MIX_MOE,       /* 16-19 */
    MIX_TYPES,   MIX_TYPES,   MIX_TYPES,                  /* 20-22 */
    MIX_LAYOUT,  MIX_OVERRIDES,                           /* 23-24 */
};
#define KNOBS ((int)(sizeof knob_group / sizeof *knob_group))

/* The first two layers' state sharded and recomputed their own way, the
 * last layer without sequence parallelism (h: which). */
static void overrides(sc_plan *p, uint64_t h, int layers) {
  if (layers < 4) return;
  sc_override *o = &p->overrides[0];
  sc_override_init(o);
  o->first = 0, o->last = 1;
  o->zero = p->zero >= 1 && p->pp == 1 ? (int)bits(&h, 2) : p->zero;
  o->recompute = (int)(bits(&h, 1) ? SC_RECOMP_FULL : SC_RECOMP_SELECTIVE);
  p->n_overrides = 1;
  if (p->tp > 1 && bits(&h, 1)) {
    o = &p->overrides[1];
    sc_override_init(o);
    o->first = o->last = layers - 1;
    o->sp = 0;
    p->n_overrides = 2;
  }
}

/* Knob k of plan p turned (to a value h picks, other than p's where it
 * can be). 1 when p changed. */
static int turn(sc_plan *p, int k, uint64_t h, int layers) {
  sc_plan was = *p;
  int lp = p->dtype == SC_FP8 || p->dtype == SC_FP4;
  switch (k) {
  case 0: p->overlap_tp = !p->overlap_tp; break;
  case 1: p->tp_async_bwd = !p->tp_async_bwd; break;
  case 2: /* where Megatron allows it */
    if (p->ep > 1 && p->recompute != SC_RECOMP_FULL && (p->pp == 1 || p->vpp > 1))
      p->overlap_ep = !p->overlap_ep;
    break;
  case 3: if (lp) p->fp8_recipe = (sc_fp8_recipe)((p->fp8_recipe + 1 + bits(&h, 1)) % 4); break;
  case 4: if (lp) p->bf16_first_layers = (p->bf16_first_layers + 1 + (int)bits(&h, 1)) % 4; break;
  case 5: if (lp) p->bf16_last_layers = (p->bf16_last_layers + 1 + (int)bits(&h, 1)) % 4; break;
  case 6: if (lp) p->fp8_param = !p->fp8_param; break;
  case 7: {
    unsigned m = bits(&h, 7);
    p->recompute_modules = m ? m : SC_RECMOD_NONE;
    break;
  }
  case 8: if (p->offload_layers == 0) p->cuda_graphs = !p->cuda_graphs; break;
  case 9: p->framework_eager = !p->framework_eager; break;
  case 10: p->fused_kernels = !p->fused_kernels; break;
  case 11: p->attention = (sc_attention)((p->attention + 1 + bits(&h, 1)) % 3); break;
  case 12: p->fsdp_impl = (sc_fsdp_impl)((p->fsdp_impl + 1 + bits(&h, 1)) % 4); break;
  case 13: p->fsdp_reshard = !p->fsdp_reshard; break;
  case 14: p->fsdp_prefetch = (p->fsdp_prefetch + 1 + (int)bits(&h, 1)) % 4; break;
  case 15: p->fsdp_forward_prefetch = !p->fsdp_forward_prefetch; break;
  case 16:
    if (p->ep > 1) p->moe_dispatcher = (sc_moe_dispatcher)((p->moe_dispatcher + 1 + bits(&h, 1)) % 3);
    break;
  case 17: p->moe_grouped_gemm = !p->moe_grouped_gemm; break;
  case 18: p->moe_capacity = p->moe_capacity > 0 ? 0 : 1.25; break;
  case 19: p->moe_imbalance = p->moe_imbalance > 1 ? 1 : 1.5; break;
  case 20: p->main_grads = p->main_grads == SC_BF16 ? SC_FP32 : SC_BF16; break;
  case 21: if (p->dtype == SC_BF16) p->param_remainders = !p->param_remainders; break;
  case 22: if (p->dtype == SC_BF16 || p->dtype == SC_FP16) p->amp = !p->amp; break;
  case 23: uneven_layout(p, layers); break;
  case 24: overrides(p, h, layers); break;
  }
  return memcmp(&was, p, sizeof was) != 0;
}

/* Plan p (a space point's) with one knob of `what` turned, as point i's
 * hash picks (the first of the knobs after it that changes p). 1 when p
 * changed. Evaluated right after the point itself, the two plans differ
 * in that knob alone: a memo whose key misses it reuses the first's
 * entries for the second. */
static int vary_one(sc_plan *p, long i, unsigned what, int layers) {
  uint64_t h = mix64((uint64_t)i);
  int k0 = (int)(h % KNOBS);
  h /= KNOBS;
  for (int j = 0; j < KNOBS; j++) {
    int k = (k0 + j) % KNOBS;
    if ((knob_group[k] & what) && turn(p, k, h, layers)) return 1;
  }
  return 0;
}

typedef struct mix_case {
  sc_scenario s;
  int max_tp, max_pp, max_mb, max_vpp;
  unsigned what;        /* MIX_* */
} mix_case;

/* Evaluation e: point e / 2 of the space, as it is (e even) or with one
 * knob turned (e odd; 0 when none of c's changes it: skipped). */
static int plan_at(const mix_case *c, const sc_scenario *base, const space_pt *pts, long e,
                   int layers, sc_plan *p) {
  space_plan(&base->plan, &pts[e / 2], p);
  return e % 2 == 0 || vary_one(p, e / 2, c->what, layers);
}

/* Every plan lowered through one memo of segments and with lower_plan:
 * the same graph. Returns the memo's hits. */
static long lower_mix(const mix_case *c) {
  sc_error err = {0};
  sc_scenario base;
  base_of(&c->s, &base);
  wg_graph *g = graph_of(&base);
  space_pt *pts;
  long n, valid = 0;
  space_of(&base, g, c->max_tp, c->max_pp, c->max_mb, c->max_vpp, &pts, &n);
  cr_assert_gt(n, 0);
  segm m;
  segm_init(&m);
  lower_scratch ls1 = {0}, ls2 = {0};
  xg got, fresh;
  xg_init(&got);
  xg_init(&fresh);
  for (long i = 0; i < 2 * n; i++) {
    sc_scenario s = base;
    if (!plan_at(c, &base, pts, i, g->layers, &s.plan) || sc_scenario_resolve(&s, &err) != SC_OK)
      continue;
    int rc1 = lower_plan_memo(g, &s, &ls1, &m, &got, &err);
    int rc2 = lower_plan(g, &s, &ls2, &fresh, &err);
    cr_assert_eq(rc1, rc2, "point %ld: memo rc %d, lower_plan rc %d", i, rc1, rc2);
    if (rc1 != SC_OK) continue;
    valid++;
    cr_assert(lcache_xg_equal(&got, &fresh),
              "evaluation %ld (tp %d pp %d dp %d ep %d etp %d mb %ld vpp %d zero %d recompute %d/%d "
              "overrides %d layout %d dtype %d recipe %d bf16 %d/%d): the graph from the memo "
              "of segments differs from lower_plan's",
              i, s.plan.tp, s.plan.pp, s.plan.dp, s.plan.ep, s.plan.etp, s.plan.micro_batch,
              s.plan.vpp, s.plan.zero, (int)s.plan.recompute, s.plan.recompute_layers,
              s.plan.n_overrides, s.plan.n_pp_layout, (int)s.plan.dtype, (int)s.plan.fp8_recipe,
              s.plan.bf16_first_layers, s.plan.bf16_last_layers);
  }
  cr_assert_gt(valid, 50, "only %ld valid plans of %ld", valid, n);
  cr_log_info("%ld of %ld plans valid: %ld segments from the memo, %ld lowered", valid, n,
              m.hits, m.misses);
  long hits = m.hits;
  segm_free(&m);
  lower_scratch_free(&ls1);
  lower_scratch_free(&ls2);
  xg_free(&got);
  xg_free(&fresh);
  mem_free(pts);
  wg_free(g);
  return hits;
}

/* Every plan as the search evaluates it (one job: every memo) and with
 * sc_job_predict on another job (none): the same result bit for bit.
 * Returns the memo of queues' hits; *lowered: the memo of plans' hits. */
static long phases_mix(const mix_case *c, long *plan_hits) {
  sc_error err = {0};
  sc_scenario base;
  base_of(&c->s, &base);
  sc_job *a, *b;
  two_jobs(&base, &a, &b);
  space_pt *pts;
  long n, costed = 0, varied = 0, overridden = 0, laid_out = 0;
  space_of(&base, job_graph(a), c->max_tp, c->max_pp, c->max_mb, c->max_vpp, &pts, &n);
  cr_assert_gt(n, 0);
  for (long i = 0; i < 2 * n; i++) {
    sc_plan p;
    if (!plan_at(c, &base, pts, i, job_graph(a)->layers, &p)) continue;
    sc_memory m;
    sc_result r1, r2;
    double bound = 0;
    int rc1 = search_cost(a, &p, &m, &bound, &r1, &err);
    memset(&r2, 0, sizeof r2);
    int rc2 = sc_job_predict(b, &p, &r2, &err);
    cr_assert_eq(rc1, rc2, "plan %ld: phases rc %d, predict rc %d (%s)", i, rc1, rc2, err.msg);
    if (rc1 != SC_OK) continue;
    costed++;
    varied += i % 2;
    overridden += p.n_overrides > 0;
    laid_out += p.n_pp_layout > 0;
    cr_assert(mem_same(&m, &r1.mem), "plan %ld: job_lower's memory %.17g, the result's %.17g", i,
              m.total, r1.mem.total);
    cr_assert(same_result(&r1, &r2),
              "evaluation %ld (tp %d pp %d dp %d ep %d etp %d mb %ld vpp %d zero %d shard %d "
              "recompute %d/%d offload %d overrides %d layout %d dtype %d recipe %d "
              "overlap_tp %d async %d fsdp %d dispatcher %d): step %.17g s as the search "
              "costs it, %.17g s predicted; memory %.17g, %.17g",
              i, p.tp, p.pp, p.dp, p.ep, p.etp, p.micro_batch, p.vpp, p.zero, p.fsdp_shard,
              (int)p.recompute, p.recompute_layers, p.offload_layers, p.n_overrides,
              p.n_pp_layout, (int)p.dtype, (int)p.fp8_recipe, p.overlap_tp, p.tp_async_bwd,
              (int)p.fsdp_impl, (int)p.moe_dispatcher, r1.step_s, r2.step_s, r1.mem.total,
              r2.mem.total);
    cr_assert(bound <= r1.step_s, "plan %ld: bound %.17g above the step %.17g", i, bound,
              r1.step_s);
  }
  cr_assert_gt(costed, 50, "only %ld plans of %ld costed", costed, n);
  cr_assert_gt(varied, costed / 3, "only %ld of %ld costed plans varied", varied, costed);
  cr_assert(!(c->what & MIX_OVERRIDES) || overridden > 10, "%ld plans with overrides",
            overridden);
  cr_assert(!(c->what & MIX_LAYOUT) || laid_out > 10, "%ld plans with a layout", laid_out);
  long hits = job_queue_memo_hits(a);
  *plan_hits = job_memo_hits(a);
  cr_log_info("%ld plans of %ld costed (%ld varied, %ld with overrides, %ld with a layout): "
              "%ld plans and %ld segment queues from the memos",
              costed, n, varied, overridden, laid_out, *plan_hits, hits);
  mem_free(pts);
  sc_job_close(a);
  sc_job_close(b);
  return hits;
}

/* DeepSeek-V3 (61 layers: 3 dense first layers, MLA, a shared expert,
 * 256 experts; pp that does not divide the layers: uneven first and last
 * stages) in fp8 on 256 H100. */
static mix_case deepseek(void) {
  mix_case c = {.max_tp = 8, .max_pp = 16, .max_mb = 2, .max_vpp = 2};
  sc_scenario_default(&c.s);
  c.s.model = *sc_model_preset("deepseek-v3");
  c.s.cluster.gpu = *sc_gpu_preset("h100-sxm5-80gb");
  c.s.cluster.gpus = 256;
  c.s.cluster.nic_bw = 400e9 / 8;
  c.s.plan.global_batch = 512;
  c.s.plan.dtype = SC_FP8;
  c.s.plan.fp8_recipe = SC_FP8_BLOCK;
  c.s.plan.recompute_modules = SC_RECMOD_MLA_UP_PROJ | SC_RECMOD_MOE_ACT;
  c.what = MIX_ALL;
  return c;
}

/* Qwen3-30B-A3B (128 experts, top 8) in bf16 on 64 H100 of a fat tree
 * (the engine's bound and full modes), ZeRO 3 with HSDP shards among the
 * space's points. */
static mix_case qwen3(void) {
  mix_case c = {.max_tp = 4, .max_pp = 8, .max_mb = 2, .max_vpp = 2};
  sc_scenario_default(&c.s);
  c.s.model = *sc_model_preset("qwen3-30b-a3b");
  c.s.cluster.gpu = *sc_gpu_preset("h100-sxm5-80gb");
  c.s.cluster.gpus = 64;
  c.s.cluster.nic_bw = 400e9 / 8;
  snprintf(c.s.cluster.topology, sizeof c.s.cluster.topology, "%s",
           "fat_tree:hosts=64,radix=16,levels=2,oversub=2,bw=50");
  c.s.plan.global_batch = 256;
  c.what = MIX_ALL & ~MIX_FP8;
  return c;
}

/* Llama-3 70B (dense, 80 layers) in fp8 on 128 H100: fp8 recipes and
 * 16-bit first/last layers, partial recomputation and offloading of the
 * space, explicit layouts and overrides. */
static mix_case llama_fp8(void) {
  mix_case c = {.max_tp = 8, .max_pp = 16, .max_mb = 2, .max_vpp = 4};
  sc_scenario_default(&c.s);
  c.s.model = *sc_model_preset("llama3-70b");
  c.s.cluster.gpu = *sc_gpu_preset("h100-sxm5-80gb");
  c.s.cluster.gpus = 128;
  c.s.cluster.nic_bw = 400e9 / 8;
  c.s.plan.global_batch = 256;
  c.s.plan.dtype = SC_FP8;
  c.s.plan.bf16_first_layers = 1;
  c.what = MIX_ALL & ~MIX_MOE;
  return c;
}

Test(memo_mix, deepseek_v3_segments_as_lower_plan) {
  mix_case c = deepseek();
  cr_assert_gt(lower_mix(&c), 100, "the memo of segments is hardly hit");
}

Test(memo_mix, deepseek_v3_plans_as_predicted) {
  mix_case c = deepseek();
  long plans;
  cr_assert_gt(phases_mix(&c, &plans), 100, "the memo of queues is hardly hit");
}

Test(memo_mix, qwen3_fat_tree_segments_as_lower_plan) {
  mix_case c = qwen3();
  cr_assert_gt(lower_mix(&c), 100);
}

Test(memo_mix, qwen3_fat_tree_plans_as_predicted) {
  mix_case c = qwen3();
  long plans;
  cr_assert_gt(phases_mix(&c, &plans), 100);
}

Test(memo_mix, llama_fp8_segments_as_lower_plan) {
  mix_case c = llama_fp8();
  cr_assert_gt(lower_mix(&c), 100);
}

Test(memo_mix, llama_fp8_plans_as_predicted) {
  mix_case c = llama_fp8();
  long plans;
  cr_assert_gt(phases_mix(&c, &plans), 100);
  cr_assert_gt(plans, 10, "the memo of lowered plans is hardly hit");
}

/* The fields a point of the space sets, the same in a and b (compared
 * field by field: a plan has padding bytes). */
static int same_point(const sc_plan *a, const sc_plan *b) {
  return a->tp == b->tp && a->pp == b->pp && a->dp == b->dp && a->cp == b->cp &&
         a->ep == b->ep && a->etp == b->etp && a->vpp == b->vpp &&
         a->micro_batch == b->micro_batch && a->zero == b->zero &&
         a->fsdp_shard == b->fsdp_shard && a->recompute == b->recompute &&
         a->recompute_layers == b->recompute_layers && a->offload_layers == b->offload_layers &&
         a->dtype == b->dtype && a->pp_first_layers == b->pp_first_layers &&
         a->pp_last_layers == b->pp_last_layers &&
         a->pp_embedding_in_split == b->pp_embedding_in_split;
}

/* The same search on 1 and 2 threads (each thread its own job and
 * memos, each seeing another part of the space): the same plans, bit for
 * bit, in the same order. */
Test(memo_mix, qwen3_search_same_on_1_and_2_threads) {
  mix_case c = qwen3();
  enum { K = 16 };
  sc_candidate best[2][K];
  int n[2];
  for (int t = 0; t < 2; t++) {
    sc_search_opts o;
    sc_search_opts_default(&o);
    o.max_tp = c.max_tp, o.max_pp = c.max_pp, o.max_micro_batch = c.max_mb;
    o.max_vpp = c.max_vpp;
    o.threads = t + 1;
    sc_search_stats st;
    sc_error err = {0};
    cr_assert_eq(sc_search(&c.s, &o, best[t], K, &n[t], &st, &err), SC_OK, "%s", err.msg);
    cr_assert_eq(st.threads, t + 1);
  }
  cr_assert_eq(n[0], n[1]);
  cr_assert_gt(n[0], 0);
  for (int i = 0; i < n[0]; i++)
    cr_assert(same_result(&best[0][i].result, &best[1][i].result) &&
                  same_point(&best[0][i].plan, &best[1][i].plan),
              "rank %d: step %.17g on 1 thread, %.17g on 2", i + 1, best[0][i].result.step_s,
              best[1][i].result.step_s);
}
