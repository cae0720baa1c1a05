/*
 * space.c -- the plan space of a search; see space.h and docs/search.md
 * ("The space") for the bounds and their sources.
 *
 * Order (outer to inner): tp (powers of two up to the NVLink domain), cp
 * (powers of two, only for sequences of 32k and more), pp (up to 64), the
 * stage layout (even; embedding and loss counted in the split; the last
 * stage 1 or 2 layers lighter; first and last 2 lighter), etp (MoE with
 * tp > 1: experts split by tp or whole), ep (powers of two dividing the
 * experts and dp * cp, or tp * dp * cp with etp 1), ZeRO (0-3; 2 and 3
 * only without pipelining), the HSDP shard (ZeRO 3), the dtype; then,
 * inner, micro-batch, vpp, recomputation (none, selective, full, full
 * for 1/4, 1/2, 3/4 of each chunk's layers) and offloading (pp 1,
 * recompute none: 1/4, 1/2, 3/4 of the layers); a fixed micro-batch or
 * vpp of the options is the only one tried, and only their recomputation
 * kinds are (so a constraint keeps its points in this order, and the
 * ranking's tie-breaks, whatever the threads). Everything outside the
 * inner loops fixes a plan's weights, gradients and optimizer states, so
 * the search's memory shortcut (search.c, cannot_fit) drops a whole inner
 * block once one of its plans shows those alone exceed the GPU.
 */
#include "search/space.h"

#include "core/vec.h"
#include "core/mem.h"
#include "lower/recmod.h"
#include "plan/plan.h"

typedef VEC(space_pt) pt_vec;

/* Where the points go: pushed onto v, or only counted when v is NULL;
 * and, probing (space_probe), the values of one dimension seen. */
typedef struct sink {
  pt_vec *v;
  long count;
  int no_selective; /* 1: selective recomputation re-runs nothing in this
                       model (space_selective_void): its points are not emitted */
  int probe;        /* a SPACE_PROBE_*: its values into seen; 0 none */
  uint64_t seen;    /* as space_probe's *seen */
} sink;

const char *const space_recomp_names[SPACE_RECOMP_KINDS] = {"none", "selective", "full",
                                                            "partial"};

/* The SC_SEARCH_RECOMP_* bit of pt's recomputation. */
static unsigned recomp_bit(const space_pt *pt) {
  _Static_assert(SC_SEARCH_RECOMP_NONE == 1u << SC_RECOMP_NONE &&
                     SC_SEARCH_RECOMP_SELECTIVE == 1u << SC_RECOMP_SELECTIVE &&
                     SC_SEARCH_RECOMP_FULL == 1u << SC_RECOMP_FULL,
                 "bits of sc_search_opts.recompute are those of sc_recompute");
  return pt->recompute_layers ? SC_SEARCH_RECOMP_PARTIAL : 1u << pt->recompute;
}

/* Value x of a probed dimension into s->seen: bit x below 63, bit 63
 * for the larger ones. */
static void see(sink *s, long x) { s->seen |= (uint64_t)1 << (x < 63 ? x : 63); }

static int emit(sink *s, const space_pt *pt) {
  s->count++;
  if (s->probe == SPACE_PROBE_MB) see(s, pt->micro_batch);
  else if (s->probe == SPACE_PROBE_VPP) see(s, pt->vpp);
  else if (s->probe == SPACE_PROBE_RECOMPUTE) s->seen |= recomp_bit(pt);
  return s->v && VEC_PUSH(*s->v, *pt) ? -1 : 0;
}

/* A pipeline stage layout: first / last stage layers (0 = the even
 * share), the embedding and loss counted, and the layers of a middle
 * stage (with the embedding/loss: units, layers + 2 split evenly). */
typedef struct layout {
  int first, last, emb_loss, mid;
} layout;

#define MAX_LAYOUTS 5

/* The layouts of `layers` over pp stages, into out; how many. Megatron-
 * Core's ways (plan.c, plan_stage_layers): even when pp divides the
 * layers; the embedding and loss counted as layers (every stage (layers +
 * 2) / pp units, the first and last one transformer layer lighter) when
 * it does not; the last stage (it also holds the output layer) one or two
 * layers lighter than the others; the first and last two lighter. */
static int layouts_of(int layers, int pp, layout *out) {
  int n = 0;
  if (layers % pp == 0) out[n++] = (layout){0, 0, 0, layers / pp};
  if (pp < 2) return n;
  if (layers % pp && (layers + 2) % pp == 0) out[n++] = (layout){0, 0, 1, (layers + 2) / pp};
  for (int d = 1; d <= 2; d++) {
    int mid = (layers + d) / pp;
    if ((layers + d) % pp == 0 && mid - d >= 1) out[n++] = (layout){0, mid - d, 0, mid};
  }
  int mid = (layers + 4) / pp;
  if (pp >= 3 && (layers + 4) % pp == 0 && mid - 2 >= 1) out[n++] = (layout){mid - 2, mid - 2, 0, mid};
  return n;
}

/* Up to three steps of n (n/4, n/2, 3n/4), each in [lo, n) and distinct,
 * into out; how many. */
static int quarters(int n, int lo, int *out) {
  int k = 0;
  for (int q = 1; q <= 3; q++) {
    int x = (int)((long)n * q / 4);
    if (x >= lo && x < n && (k == 0 || out[k - 1] != x)) out[k++] = x;
  }
  return k;
}

/* Recomputation and offloading of one (.., micro-batch, vpp): none,
 * selective, full, full for a few counts of each chunk's layers, and
 * (pp 1) offloading of a few counts of the `layers` that may be offloaded
 * (0: none); of these, the kinds in mask (SC_SEARCH_RECOMP_* bits). */
static int recompute_loop(sink *s, space_pt pt, int chunk, int layers, unsigned mask) {
  static const signed char modes[] = {SC_RECOMP_NONE, SC_RECOMP_SELECTIVE, SC_RECOMP_FULL};
  pt.recompute_layers = pt.offload_layers = 0;
  for (size_t r = 0; r < sizeof modes; r++) {
    if (modes[r] == SC_RECOMP_SELECTIVE && s->no_selective) continue;
    pt.recompute = modes[r];
    if ((mask & recomp_bit(&pt)) && emit(s, &pt)) return -1;
  }
  int steps[3], k = mask & SC_SEARCH_RECOMP_PARTIAL ? quarters(chunk, 1, steps) : 0;
  for (int i = 0; i < k; i++) {
    pt.recompute_layers = steps[i];
    if (emit(s, &pt)) return -1;
  }
  pt.recompute_layers = 0;
  if (pt.pp > 1 || !(mask & SC_SEARCH_RECOMP_NONE)) return 0;
  /* Megatron: offloading with pp 1 and no recomputation; one layer stays
   * as the copy buffer, so fewer than 2 frees nothing */
  pt.recompute = SC_RECOMP_NONE;
  k = quarters(layers, 2, steps);
  for (int i = 0; i < k; i++) {
    pt.offload_layers = steps[i];
    if (emit(s, &pt)) return -1;
  }
  return 0;
}

/* The inner loops for one outer point: micro-batch, vpp, recomputation;
 * a fixed micro-batch or vpp of o is the only one tried. */
static int inner(sink *s, space_pt pt, long local, const layout *ly, int layers,
                 const sc_search_opts *o) {
  long mb0 = o->micro_batch ? o->micro_batch : 1;
  long mb1 = o->micro_batch ? o->micro_batch : o->max_micro_batch;
  int vpp0 = o->vpp ? o->vpp : 1, vpp1 = pt.pp < 2 ? 1 : o->vpp ? o->vpp : o->max_vpp;
  unsigned recomp = o->recompute ? o->recompute : ~0u;
  for (long mb = mb0; mb <= mb1 && mb <= local; mb++) {
    if (local % mb || local / mb > PLAN_MAX_MICRO) continue; /* as sc_scenario_resolve */
    pt.micro_batch = mb;
    for (int vpp = vpp0; vpp <= vpp1 && vpp <= ly->mid; vpp++) {
      if (ly->mid % vpp || ly->first % vpp || ly->last % vpp) continue;
      if ((long)pt.pp * vpp > SC_MAX_PP_LAYOUT) continue;
      /* Megatron's interleaved schedule: micro-batches in groups of pp */
      if (vpp > 1 && (local / mb) % pt.pp) continue;
      pt.vpp = vpp;
      if (recompute_loop(s, pt, ly->mid / vpp, layers, recomp)) return -1;
    }
  }
  return 0;
}

unsigned space_dtypes(const sc_scenario *base, const sc_search_opts *o) {
  if (!o->dtypes) return 1u << base->plan.dtype;
  unsigned m = 0;
  for (int d = 0; d < SC_DTYPE_COUNT; d++)
    if ((o->dtypes >> d & 1u) && base->cluster.gpu.peak_flops[d] > 0) m |= 1u << d;
  return m;
}

/* The dtypes searched (space_dtypes), into out in sc_dtype order; how
 * many. */
static int dtypes_of(const sc_scenario *base, const sc_search_opts *o, signed char *out) {
  unsigned m = space_dtypes(base, o);
  int n = 0;
  for (int d = 0; d < SC_DTYPE_COUNT; d++)
    if (m >> d & 1u) out[n++] = (signed char)d;
  return n;
}

/* ZeRO, the HSDP shard and the dtype of one (tp, cp, pp, layout, etp, ep). */
static int state_loop(sink *s, space_pt pt, const sc_scenario *base, const layout *ly, int layers,
                      const sc_search_opts *o) {
  unsigned zeros = o->zero_stages ? o->zero_stages : 0xfu;
  int ranks = pt.dp * pt.cp, domain = base->cluster.nvlink_domain > 0
                                          ? base->cluster.nvlink_domain
                                          : base->cluster.gpus_per_node;
  signed char dts[SC_DTYPE_COUNT];
  int n_dt = dtypes_of(base, o, dts), first_zero = 1;
  /* Megatron refuses CPU offloading with per-layer CUDA graphs
   * (transformer_config.py: "CUDA graphs not supported with CPU
   * offloading"): no offloaded layers then */
  int offloadable = base->plan.cuda_graphs ? 0 : layers;
  for (int z = 0; z <= 3; z++) {
    /* DeepSpeed refuses ZeRO 2 and 3 with pipelining; without data
     * parallelism the stages are the same plan: the first one stands */
    if (!(zeros >> z & 1u) || (z >= 2 && pt.pp > 1) || (ranks == 1 && !first_zero)) continue;
    first_zero = 0;
    pt.zero = (signed char)z;
    /* HSDP: a shard over the ranks of one NVLink domain, 2 or 4 domains */
    int s0 = domain / pt.tp > 2 ? domain / pt.tp : 2;
    for (int sh = 0; sh <= (z == 3 ? 4 : 0); sh = sh ? sh * 2 : 1) {
      pt.fsdp_shard = sh * s0;
      if (sh && (pt.fsdp_shard >= ranks || ranks % pt.fsdp_shard)) continue;
      /* ep within one shard's mesh, as plan.c plan_expert_hsdp checks */
      if (sh && pt.ep > 1 && ((long long)pt.fsdp_shard * (pt.etp ? pt.tp : 1)) % pt.ep) continue;
      for (int d = 0; d < n_dt; d++) {
        pt.dtype = dts[d];
        if (inner(s, pt, base->plan.global_batch / pt.dp, ly, offloadable, o)) return -1;
      }
    }
  }
  return 0;
}

int space_experts(const wg_graph *g) {
  int experts = 0;
  for (int i = 0; i < g->n_ops; i++)
    if (g->ops[i].expert && g->ops[i].experts > experts) experts = (int)g->ops[i].experts;
  return experts;
}

/* etp and ep of one (tp, cp, pp, layout). */
static int expert_loop(sink *s, space_pt pt, const sc_scenario *base, const wg_graph *g,
                       const layout *ly, const sc_search_opts *o) {
  int experts = space_experts(g);
  for (int etp = 0; etp <= (experts > 1 && pt.tp > 1); etp++) {
    long long mesh = (long long)pt.dp * pt.cp * (etp ? pt.tp : 1);
    pt.etp = (signed char)etp;
    for (int ep = 1; ep <= (experts > 1 ? experts : 1); ep *= 2) {
      if (experts > 1 && (experts % ep || mesh % ep)) continue;
      if (o->ep && ep != o->ep) continue;
      pt.ep = ep;
      if (state_loop(s, pt, base, ly, g->layers, o)) return -1;
    }
  }
  return 0;
}

/* The outer loops: every (tp, cp, pp, dp, layout) into expert_loop. */
static int walk(const sc_scenario *base, const wg_graph *g, const sc_search_opts *o, sink *s) {
  int layers = g->layers, gpus = base->cluster.gpus;
  long gb = base->plan.global_batch;
  int tp0 = o->tp ? o->tp : 1, tp1 = o->tp ? o->tp : o->max_tp;
  int cp0 = o->cp ? o->cp : 1, cp1 = o->cp ? o->cp : g->seq >= 32768 ? 8 : 1;
  int pp0 = o->pp ? o->pp : 1, pp1 = o->pp ? o->pp : o->max_pp;
  for (int tp = tp0; tp <= tp1 && tp <= gpus; tp *= 2)
    for (int cp = cp0; cp <= cp1; cp *= 2)
      for (int pp = pp0; pp <= pp1 && pp <= layers; pp++) {
        long long group = (long long)tp * cp * pp; /* no int overflow at 2^24 GPUs */
        if (group > gpus || gpus % group) continue;
        int dp = (int)(gpus / group);
        /* Megatron: the global batch divisible by micro-batch x dp */
        if (gb % dp || (o->dp && dp != o->dp)) continue;
        layout ly[MAX_LAYOUTS];
        int n_ly = layouts_of(layers, pp, ly);
        for (int l = 0; l < n_ly; l++) {
          space_pt pt = {0};
          pt.tp = tp, pt.pp = pp, pt.dp = dp, pt.cp = cp, pt.ep = 1, pt.vpp = 1;
          pt.micro_batch = 1;
          pt.first = ly[l].first, pt.last = ly[l].last;
          pt.emb_loss = (signed char)ly[l].emb_loss;
          if (expert_loop(s, pt, base, g, &ly[l], o)) return -1;
        }
      }
  return 0;
}

int space_selective_void(const sc_scenario *base, const wg_graph *g) {
  unsigned en = plan_recmod_mask(&base->plan);
  for (int i = 0; i < g->n_ops; i++)
    if (rm_bits(g, i, en)) return 0;
  return 1;
}

int space_build(const sc_scenario *base, const wg_graph *g, const sc_search_opts *o,
                space_pt **pts, long *n, sc_error *err) {
  long cap = 0;
  *pts = NULL;
  return space_build_in(base, g, o, pts, &cap, n, err);
}

int space_build_in(const sc_scenario *base, const wg_graph *g, const sc_search_opts *o,
                   space_pt **pts, long *cap, long *n, sc_error *err) {
  *n = 0;
  /* count first: a space too large to list is refused with its size */
  sink count = {NULL, 0, space_selective_void(base, g), 0, 0};
  walk(base, g, o, &count);
  if (count.count > SPACE_MAX_POINTS)
    return sc_error_set(err, SC_EINPUT,
                        "the plan space has %ld plans, about %.3g GB to list; the limit is %ld "
                        "plans (docs/search.md): lower --max-pp, --max-mb, --max-vpp or --max-tp, "
                        "or fix a degree or dimension (--tp, --pp, --zero, --mb, --recompute ...)",
                        count.count, (double)count.count * sizeof(space_pt) / 1e9,
                        (long)SPACE_MAX_POINTS);
  pt_vec v = {0};
  sink list = {&v, 0, count.no_selective, 0, 0};
  /* the count's room at once (a doubling array copies itself, touching
   * up to twice the pages: each a page fault the first time, as long as a
   * few plans take); the caller's array where it has that room */
  int kept = *pts && *cap >= count.count;
  if (kept) v.v = *pts, v.cap = (int)*cap;
  else if (count.count > 0 && (v.v = mem_alloc(sizeof *v.v * (size_t)count.count)))
    v.cap = (int)count.count;
  if ((count.count > 0 && !v.v) || walk(base, g, o, &list)) {
    if (!kept) mem_free(v.v);
    return sc_error_set(err, SC_ENOMEM, "out of memory listing the plans to search");
  }
  if (!kept) mem_free(*pts);
  *pts = v.v;
  *cap = v.cap;
  *n = v.n;
  return SC_OK;
}

long space_probe(const sc_scenario *base, const wg_graph *g, const sc_search_opts *o, int dim,
                 uint64_t *seen) {
  sink s = {NULL, 0, space_selective_void(base, g), dim, 0};
  walk(base, g, o, &s);
  *seen = s.seen;
  return s.count;
}

void space_plan(const sc_plan *base, const space_pt *pt, sc_plan *out) {
  *out = *base;
  space_apply(pt, out);
}

void space_apply(const space_pt *pt, sc_plan *out) {
  out->tp = pt->tp;
  out->pp = pt->pp;
  out->dp = pt->dp;
  out->cp = pt->cp;
  out->ep = pt->ep;
  out->etp = pt->etp;
  out->vpp = pt->vpp;
  out->sp = pt->tp > 1;
  out->micro_batch = pt->micro_batch;
  out->schedule = pt->vpp > 1 ? SC_SCHED_INTERLEAVED : SC_SCHED_1F1B;
  out->zero = pt->zero;
  out->fsdp_shard = pt->fsdp_shard;
  out->recompute = (sc_recompute)pt->recompute;
  out->recompute_layers = pt->recompute_layers;
  /* the scenario's recompute modules go with its selective points */
  if (!plan_recmod_used(out)) out->recompute_modules = 0;
  out->offload_layers = pt->offload_layers;
  out->dtype = (sc_dtype)pt->dtype;
  /* the ZeRO stage is the space's; fp8 primary weights only with fp8 */
  out->distributed_optimizer = 0;
  if (out->dtype != SC_FP8 && out->dtype != SC_FP4) out->fp8_param = 0;
  if (out->dtype != SC_BF16 && out->dtype != SC_FP8 && out->dtype != SC_FP4)
    out->param_remainders = 0; /* needs bf16 parameters */
  if (out->dtype != SC_FP16 && out->dtype != SC_BF16) out->amp = 0; /* 16-bit GEMMs only */
  /* overlap switches are the scenario's; MoE overlap only where Megatron
   * allows it (ep > 1, no full recomputation, interleaved with pp > 1) */
  if (out->overlap_ep && (pt->ep <= 1 || pt->recompute == SC_RECOMP_FULL ||
                          (pt->pp > 1 && pt->vpp < 2)))
    out->overlap_ep = 0;
  /* the flex dispatcher only between expert-parallel ranks */
  if (out->moe_dispatcher == SC_MOE_FLEX && pt->ep <= 1) out->moe_dispatcher = SC_MOE_ALLTOALL;
  /* the stage layout is the space's */
  out->pp_first_layers = pt->first;
  out->pp_last_layers = pt->last;
  out->n_pp_layout = 0;
  out->pp_embedding_in_split = out->pp_loss_in_split = pt->emb_loss;
}
