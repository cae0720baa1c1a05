/*
 * space.c -- the plan space of a search; see space.h.
 *
 * Order (outer to inner): tp (powers of two up to the NVLink domain), cp
 * (powers of two, only for sequences of 32k and more), pp (divisors of
 * the layers, or of layers + 2 with the embedding and loss counted in the
 * split, as NeMo's recipes do for Llama 3.1 405B), ep (powers of two dividing the experts and dp * cp), then
 * micro-batch, vpp, ZeRO (1, 3; 3 only without pipelining: FSDP with
 * pipelines is not a framework default) and recomputation (none,
 * selective, full).
 */
#include "search/space.h"

#include "core/vec.h"
#include "core/mem.h"
#include "plan/plan.h"

typedef VEC(space_pt) pt_vec;

/* The inner loops for one (tp, cp, pp, dp, ep): the points pushed onto v,
 * or only counted in *count when v is NULL. 0 or -1 (out of memory). */
static int inner(pt_vec *v, long *count, space_pt pt, long local, int layers,
                 const sc_search_opts *o) {
  static const signed char zeros[] = {1, 3};
  static const signed char recomp[] = {SC_RECOMP_NONE, SC_RECOMP_SELECTIVE, SC_RECOMP_FULL};
  int per_stage = (layers + 2 * pt.emb_loss) / pt.pp;
  for (long mb = 1; mb <= o->max_micro_batch && mb <= local; mb++) {
    if (local % mb || local / mb > PLAN_MAX_MICRO) continue; /* as sc_scenario_resolve */
    pt.micro_batch = mb;
    for (int vpp = 1; vpp <= (pt.pp > 1 ? o->max_vpp : 1) && vpp <= per_stage; vpp++) {
      if (per_stage % vpp) continue;
      /* Megatron's interleaved schedule: micro-batches in groups of pp */
      if (vpp > 1 && (local / mb) % pt.pp) continue;
      pt.vpp = vpp;
      for (size_t z = 0; z < sizeof zeros; z++) {
        if (zeros[z] == 3 && pt.pp > 1) continue;
        pt.zero = zeros[z];
        for (size_t r = 0; r < sizeof recomp; r++) {
          pt.recompute = recomp[r];
          if (!v) ++*count;
          else if (VEC_PUSH(*v, pt)) return -1;
        }
      }
    }
  }
  return 0;
}

/* The largest expert count of g's operators (0 for a dense model). */
static int experts_of(const wg_graph *g) {
  int experts = 0;
  for (int i = 0; i < g->n_ops; i++)
    if (g->ops[i].expert && g->ops[i].experts > experts) experts = (int)g->ops[i].experts;
  return experts;
}

/* The outer loops: every (tp, cp, pp, dp, ep) into inner(v, count). */
static int walk(const sc_scenario *base, const wg_graph *g, const sc_search_opts *o, pt_vec *v,
                long *count) {
  int layers = g->layers, experts = experts_of(g), gpus = base->cluster.gpus;
  long gb = base->plan.global_batch;
  for (int tp = 1; tp <= o->max_tp && tp <= gpus; tp *= 2)
    for (int cp = 1; cp <= (g->seq >= 32768 ? 8 : 1); cp *= 2)
      for (int pp = 1; pp <= o->max_pp && pp <= layers; pp++) {
        /* layers pp does not divide: the embedding/loss split, when that
         * divides */
        int emb_loss = layers % pp != 0;
        long long group = (long long)tp * cp * pp; /* no int overflow at 2^24 GPUs */
        if ((emb_loss && (pp < 2 || (layers + 2) % pp)) || group > gpus || gpus % group) continue;
        int dp = (int)(gpus / group);
        if (gb % dp) continue;
        for (int ep = 1; ep <= (experts > 1 ? experts : 1); ep *= 2) {
          if (experts > 1 && (experts % ep || (dp * cp) % ep)) continue;
          space_pt pt = {tp, pp, dp, cp, ep, 1, 1, 1, SC_RECOMP_NONE, (signed char)emb_loss};
          if (inner(v, count, pt, gb / dp, layers, o)) return -1;
        }
      }
  return 0;
}

int space_build(const sc_scenario *base, const wg_graph *g, const sc_search_opts *o,
                space_pt **pts, long *n, sc_error *err) {
  *pts = NULL, *n = 0;
  /* count first: a space too large to list is refused with its size */
  long count = 0;
  walk(base, g, o, NULL, &count);
  if (count > SPACE_MAX_POINTS)
    return sc_error_set(err, SC_EINPUT,
                        "the plan space has %ld plans, about %.3g GB to list; the limit is %ld "
                        "plans (docs/search.md): lower --max-pp, --max-mb, --max-vpp or --max-tp",
                        count, (double)count * sizeof(space_pt) / 1e9, (long)SPACE_MAX_POINTS);
  pt_vec v = {0};
  if (walk(base, g, o, &v, &count)) {
    mem_free(v.v);
    return sc_error_set(err, SC_ENOMEM, "out of memory listing the plans to search");
  }
  *pts = v.v;
  *n = v.n;
  return SC_OK;
}

void space_plan(const sc_plan *base, const space_pt *pt, sc_plan *out) {
  *out = *base;
  out->tp = pt->tp;
  out->pp = pt->pp;
  out->dp = pt->dp;
  out->cp = pt->cp;
  out->ep = pt->ep;
  out->vpp = pt->vpp;
  out->sp = pt->tp > 1;
  out->micro_batch = pt->micro_batch;
  out->schedule = pt->vpp > 1 ? SC_SCHED_INTERLEAVED : SC_SCHED_1F1B;
  out->zero = pt->zero;
  out->recompute = (sc_recompute)pt->recompute;
  out->distributed_optimizer = 0;
  out->overlap_grad_reduce = out->overlap_param_gather = 1;
  /* the stage layout is the space's: even, or embedding and loss counted */
  out->pp_first_layers = out->pp_last_layers = 0;
  out->n_pp_layout = 0;
  out->pp_embedding_in_split = out->pp_loss_in_split = pt->emb_loss;
}
