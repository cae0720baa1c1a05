/*
 * fsdp.c -- ZeRO-3 / FSDP as each framework schedules it.
 *
 * A stage's segments are units in forward order: a layer under zero 3 is
 * a unit its implementation gathers before use and frees after (FSDP1's
 * flat parameter, FSDP2's parameter group, DeepSpeed's modules); the
 * blocks that are not layers (embedding, output layer, final norm) form
 * the root unit, gathered once at the start of the micro-batch and kept
 * to its end (the root is never resharded after forward: FSDP1's
 * _post_forward_reshard, FSDP2's fully_shard docstring); a segment not
 * under zero 3 only computes.
 *
 * One micro-batch runs through two clocks, the compute stream and the
 * communication stream (gathers and reduce-scatters issued in the order
 * the framework issues them, one after another: they share the links):
 *
 *   forward   the gather of unit k is issued when unit k - d starts its
 *             compute (explicit prefetch: FSDP1 forward_prefetch, XLA's
 *             latency-hiding scheduler, DeepSpeed's trace, d units ahead),
 *             or when the host reaches unit k (implicit: FSDP2 and FSDP1
 *             by default: after issuing unit k - 1, so the window is
 *             unit k - 1's compute less its host time); unit k
 *             computes once its gather is done.
 *   backward  in reverse; with resharding every layer is gathered again,
 *             d = plan.fsdp_prefetch units ahead (0: when it is needed);
 *             its reduce-scatter is issued when its gradients are done.
 *
 * The exposed time is the micro-batch's span less its compute, plus the
 * slowdown of the compute a collective overlaps (its channels' SMs), per
 * micro-batch (FSDP gathers and reduces every micro-batch).
 */
#include <assert.h>
#include <math.h>
#include <string.h>

#include "cost/compute.h"
#include "engine/fsdp.h"
#include "engine/fsdp1k.h"
#include "engine/offload.h"

#define FSDP_CACHE 32   /* runs whose units are costed once per call */
#define FSDP_RING 65    /* > the deepest prefetch (plan.fsdp_prefetch <= 64) */

static int is_unit(const xg_segment *sg) { return sg->zero >= 3 && sg->block >= 0; }

static int is_layer(const xg_segment *sg) { return is_unit(sg) && sg->role == WG_ROLE_LAYER; }

/* Parameters per GPU of op o of segment sg (lower.c's params()). */
static double op_params(const wg_op *o, const xg_segment *sg) {
  double p = o->params / (o->expert ? (sg->etp > 0 ? sg->etp : sg->tp) : sg->tp);
  return o->expert ? p / sg->ep : p;
}

/* DeepSpeed's modules of segment sg: calls (modules at or above the
 * persistence threshold), the elements they gather, the largest, and the
 * persistent elements (never partitioned). Scaled so that all ops sum to
 * sg->params. */
typedef struct ds_mods {
  double calls, gathered, largest, persistent;
} ds_mods;

/* The factor that scales segment sg's operators' parameters so that they
 * sum to sg->params. */
static double ds_scale(const eng *e, const xg_segment *sg) {
  const wg_block *bl = &e->g->blocks[sg->block];
  double all = 0;
  for (int i = bl->first_op; i < bl->first_op + bl->n_ops; i++)
    all += e->g->ops[i].params > 0 ? op_params(&e->g->ops[i], sg) : 0;
  return all > 0 ? sg->params / all : 0;
}

/* Parameters of module (operator) i of sg's block after ds_scale, 0 for
 * a module without parameters. */
static double ds_module(const eng *e, const xg_segment *sg, int i, double scale) {
  return e->g->ops[i].params > 0 ? op_params(&e->g->ops[i], sg) * scale : 0;
}

static ds_mods ds_modules(const eng *e, const xg_segment *sg) {
  ds_mods d = {0, 0, 0, 0};
  const wg_block *bl = &e->g->blocks[sg->block];
  double scale = ds_scale(e, sg);
  for (int i = bl->first_op; i < bl->first_op + bl->n_ops; i++) {
    double p = ds_module(e, sg, i, scale);
    if (p <= 0) continue;
    if (p < e->s->plan.ds_persistence) {
      d.persistent += p;
      continue;
    }
    d.calls++;
    d.gathered += p;
    if (p > d.largest) d.largest = p;
  }
  return d;
}

/* Raise *a to b's shares where larger, resource by resource. */
static void share_max(grp_share *a, grp_share b) {
  if (b.sm > a->sm) a->sm = b.sm;
  if (b.hbm > a->hbm) a->hbm = b.hbm;
}

/* DeepSpeed's gathers of segment sg: one all-gather per module. */
static double ds_gather_time(const eng *e, const xg_segment *sg, grp_share *share) {
  const wg_block *bl = &e->g->blocks[sg->block];
  double eb = eng_param_bytes(&e->s->plan), t = 0, scale = ds_scale(e, sg);
  for (int i = bl->first_op; i < bl->first_op + bl->n_ops; i++) {
    double p = ds_module(e, sg, i, scale);
    grp_share s = {0, 0};
    if (p <= 0 || p < e->s->plan.ds_persistence) continue;
    t += eng_coll(e, sg->dp_group, COLL_ALL_GATHER, p * eb, &s);
    share_max(share, s);
  }
  return t;
}

int fsdp_hsdp_per_unit(const sc_plan *p) {
  return p->fsdp_impl == SC_FSDP1 || p->fsdp_impl == SC_FSDP2;
}

/* A zero-3 segment of stage st (the root's first), or NULL: where HSDP's
 * replica group and shard size are read. */
static const xg_segment *any_unit(const eng *e, const xg_stage *st) {
  const xg_segment *found = NULL;
  for (int j = 0; j < st->n_runs; j++) {
    const xg_segment *sg = &e->x->segs[e->x->runs[st->first_run + j].segment];
    if (is_unit(sg) && (!found || sg->role != WG_ROLE_LAYER)) found = sg;
    if (found && found->role != WG_ROLE_LAYER) break;
  }
  return found;
}

/* HSDP all-reduce over sg's replicas of a unit's reduced gradients:
 * `dense` elements sharded over sg->shard, `experts` over sg->eshard,
 * each its own call (the experts are their own FSDP group: torchtitan's
 * fully_shard on moe.experts over (dp_replicate, dp_shard_mod_ep), whose
 * replicas are the dense ones'); 0 without HSDP, or where it runs once
 * per step. *share: the larger shares of the two. */
static double hsdp_allreduce(const eng *e, const xg_segment *sg, double dense, double experts,
                             grp_share *share) {
  *share = (grp_share){0, 0};
  if (!sg || sg->rep_group < 0 || !fsdp_hsdp_per_unit(&e->s->plan)) return 0;
  double eb = eng_param_bytes(&e->s->plan), t = 0;
  double elems[2] = {dense / sg->shard, experts / (sg->eshard > 0 ? sg->eshard : sg->shard)};
  for (int i = 0; i < 2; i++) {
    grp_share s = {0, 0};
    if (elems[i] <= 0) continue;
    t += eng_coll(e, sg->rep_group, COLL_ALL_REDUCE, elems[i] * eb, &s);
    share_max(share, s);
  }
  return t;
}

/* Add FSDP1's kernels k (fsdp1k.h) to unit u: the cast before each
 * gather and those around the reduce-scatter on their streams (NCCL's
 * shares kept for the collectives' own time), the gradient's cat on the
 * compute stream in backward. */
static void fsdp1_kernels(fsdp1k_cost k, fsdp_unit *u) {
  double kg = u->gather + k.cast > 0 ? u->gather / (u->gather + k.cast) : 0;
  double kr = u->reduce + k.reduce > 0 ? u->reduce / (u->reduce + k.reduce) : 0;
  u->share.sm *= kg, u->share.hbm *= kg;
  u->rs_share.sm *= kr, u->rs_share.hbm *= kr;
  u->gather += k.cast;
  u->reduce += k.reduce;
  u->rs_copy = k.cat;
}

int fsdp_unit_launches(const eng *e, const xg_segment *sg, int bwd) {
  const sc_plan *p = &e->s->plan;
  if (p->fsdp_impl != SC_FSDP1 || !is_layer(sg)) return 0;
  int f, b;
  fsdp1k_launches(eng_param_bytes(p), e->x->groups[sg->dp_group].ranks, p->fsdp_reshard, &f, &b);
  return bwd ? b : f;
}

/* The elements of segment sg's unit that its gathers and reduce-scatters
 * move, by group: part[0] over the unit's shard group (dp_group), part[1]
 * its experts' where they are sharded apart (edp_group, eshard ranks:
 * torchtitan's fully_shard of moe.experts over dp_shard_mod_ep, xg.h) --
 * 0 where that group is one rank (ep takes the whole shard: each rank
 * holds its experts whole, nothing to gather or reduce-scatter). The
 * groups into gid[2]. Not DeepSpeed's (its modules: ds_gather_time). */
static void unit_parts(const xg_segment *sg, double part[2], int gid[2]) {
  int apart = sg->params_expert > 0 && sg->edp_group != sg->dp_group;
  part[0] = apart ? sg->params - sg->params_expert : sg->params;
  part[1] = apart && sg->eshard > 1 ? sg->params_expert : 0;
  gid[0] = sg->dp_group, gid[1] = sg->edp_group;
}

/* The elements segment sg's unit gathers (unit_parts' two). */
static double unit_gathered(const xg_segment *sg) {
  double part[2];
  int gid[2];
  unit_parts(sg, part, gid);
  return part[0] + part[1];
}

/* Collective op over segment sg's unit parts, eb bytes an element, each
 * part its own call: seconds; *share the larger shares. */
static double unit_coll(const eng *e, const xg_segment *sg, coll_op op, double eb,
                        grp_share *share) {
  double part[2], t = 0;
  int gid[2];
  unit_parts(sg, part, gid);
  *share = (grp_share){0, 0};
  for (int i = 0; i < 2; i++) {
    grp_share s = {0, 0};
    if (part[i] <= 0) continue;
    t += eng_coll(e, gid[i], op, part[i] * eb, &s);
    share_max(share, s);
  }
  return t;
}

/* Of segment sg's unit, the elements of one rank's shards that its
 * gathers start from (part by part over its group's ranks). */
static double unit_local(const eng *e, const xg_segment *sg) {
  double part[2], n = 0;
  int gid[2];
  unit_parts(sg, part, gid);
  for (int i = 0; i < 2; i++)
    if (part[i] > 0) n += part[i] / e->x->groups[gid[i]].ranks;
  return n;
}

/* FSDP1's kernels (fsdp1k.h) for segment sg's unit, part by part. */
static fsdp1k_cost unit_fsdp1k(const eng *e, const xg_segment *sg, double eb) {
  double part[2];
  int gid[2];
  unit_parts(sg, part, gid);
  fsdp1k_cost c = {0, 0, 0};
  for (int i = 0; i < 2; i++) {
    if (part[i] <= 0) continue;
    fsdp1k_cost k = fsdp1k_unit(&e->s->cluster.gpu, part[i], eb, e->x->groups[gid[i]].ranks);
    c.cast += k.cast, c.cat += k.cat, c.reduce += k.reduce;
  }
  return c;
}

/* Segment r's unit, costed. */
static fsdp_unit unit_of(const eng *e, const xg_run *r) {
  const xg_segment *sg = &e->x->segs[r->segment];
  const sc_plan *p = &e->s->plan;
  fsdp_unit u;
  memset(&u, 0, sizeof u);
  u.f = e->qs[2 * r->segment].compute;
  u.b = e->qs[2 * r->segment + 1].compute;
  u.host = e->qs[2 * r->segment].host;
  if (!is_layer(sg)) return u;
  double eb = eng_param_bytes(p);
  const sc_gpu *g = &e->s->cluster.gpu;
  u.layer = 1;
  u.params = sg->params;
  if (p->fsdp_impl == SC_FSDP_DEEPSPEED) {
    u.gather = ds_gather_time(e, sg, &u.share);
    return u;
  }
  /* the dense part over the shard, the experts over theirs (unit_parts) */
  u.params = unit_gathered(sg);
  u.gather = unit_coll(e, sg, COLL_ALL_GATHER, eb, &u.share);
  u.reduce = unit_coll(e, sg, COLL_REDUCE_SCATTER, eb, &u.rs_share);
  u.allreduce = hsdp_allreduce(e, sg, sg->params - sg->params_expert, sg->params_expert,
                               &u.ar_share);
  if (u.params <= 0) return u;
  if (p->fsdp_impl == SC_FSDP2) {
    /* foreach_all_gather's copy-in of the local shards (its own stream),
     * the copy-out into the parameters and the chunk-cat of the gradients
     * into the reduce-scatter input (both on the compute stream):
     * _fsdp_collectives.py; each reads and writes its bytes once */
    double copy_in = cost_mem(g, 2 * unit_local(e, sg) * eb);
    double k = u.gather / (u.gather + copy_in); /* NCCL's kernels: the gather only */
    u.share.sm *= k, u.share.hbm *= k;
    u.gather += copy_in;
    u.copy_out = cost_mem(g, 2 * u.params * eb);
    u.rs_copy = cost_mem(g, 2 * u.params * eb);
  } else if (p->fsdp_impl == SC_FSDP1) {
    fsdp1_kernels(unit_fsdp1k(e, sg, eb), &u);
  }
  return u;
}

/* The root unit of stage st: the zero-3 blocks that are not layers. */
static double root_params(const eng *e, const xg_stage *st, int *gi) {
  double n = 0;
  for (int j = 0; j < st->n_runs; j++) {
    const xg_run *r = &e->x->runs[st->first_run + j];
    const xg_segment *sg = &e->x->segs[r->segment];
    if (!is_unit(sg) || sg->role == WG_ROLE_LAYER) continue;
    n += r->count * xg_seg_params(sg, (int)(st - e->x->stages));
    *gi = sg->dp_group;
  }
  return n;
}

/* Units gathered ahead: in backward plan.fsdp_prefetch; DeepSpeed, in
 * both passes, as many layers as its prefetch bucket holds (at least the
 * next module, none with a bucket of 0); forward 1. */
static int depth(const eng *e, double layer_params, int bwd) {
  const sc_plan *p = &e->s->plan;
  if (p->fsdp_impl == SC_FSDP_DEEPSPEED) {
    double b = p->ds_prefetch_bucket < p->ds_max_live ? p->ds_prefetch_bucket : p->ds_max_live;
    if (b <= 0) return 0;
    double d = layer_params > 0 ? floor(b / layer_params) : 1;
    return d < 1 ? 1 : d > FSDP_RING - 1 ? FSDP_RING - 1 : (int)d;
  }
  assert(p->fsdp_prefetch >= 0); /* resolved (plan_fsdp_resolve) */
  return bwd ? p->fsdp_prefetch : 1;
}

/* A walk over the stage's segment instances in pass order. */
typedef struct cursor {
  const xg_stage *st;
  const xg *x;
  int bwd, j, i;      /* run (in pass order) and instance */
} cursor;

static int cur_ok(const cursor *c) { return c->j < c->st->n_runs; }

static int cur_index(const cursor *c) { return c->bwd ? c->st->n_runs - 1 - c->j : c->j; }

static void cur_next(cursor *c) {
  if (cur_ok(c) && ++c->i >= c->x->runs[c->st->first_run + cur_index(c)].count) c->i = 0, c->j++;
}

/* What one micro-batch's passes need: the units of the stage's runs and
 * the two clocks. */
typedef struct fsdp_ctx {
  const eng *e;
  const xg_stage *st;
  fsdp_unit cache[FSDP_CACHE];
  double layer_params;      /* largest layer unit, elements */
  double root;              /* root unit elements, and its group */
  int root_grp;
  double c, m;              /* compute and communication clocks, s */
  double compute;           /* compute run (FSDP2 copies, FSDP1 cats
                               included), s */
  double copies;            /* of that, FSDP2 copy kernels and FSDP1
                               gradient cats (fsdp1k.h), s */
  double kern;              /* of compute, kernels (copies included; the
                               rest is the stream's own collectives and
                               its waits on the host or an offload
                               copy), s */
  double comm, shared;      /* communication run, and share x that, s */
  double mf[2];             /* forward, backward: the fraction of the
                               compute in memory-bound kernels (XG_MEM,
                               FSDP2's copies, FSDP1's cats) */
  int bwd;                  /* the pass being walked */
  double lead;              /* the pass's GPU clock less its host clock
                               (eng_qsum_wall), s */
  double ready[FSDP_RING];  /* per position: when its gather is done */
  double after, live;       /* DeepSpeed, lead walk: layer elements passed,
                               elements kept gathered from the forward */
  double pending;           /* DeepSpeed: gradient elements in the bucket */
} fsdp_ctx;

/* The unit under cursor c: x's cached one, or costed into *spill (a run
 * past the cache). Borrowed from x or spill (not copied: the passes ask
 * twice per layer). */
static const fsdp_unit *unit_at(const fsdp_ctx *x, const cursor *c, fsdp_unit *spill) {
  int j = cur_index(c);
  if (j < FSDP_CACHE) return &x->cache[j];
  *spill = unit_of(x->e, &x->e->x->runs[x->st->first_run + j]);
  return spill;
}

/* Put `comm` seconds on the communication stream, issued at t; returns
 * when it is done. The compute beside it loses grp_slow of the
 * collective's shares (SMs, HBM) at the pass's memory-bound fraction. */
static double issue(fsdp_ctx *x, double t, double comm, grp_share sh) {
  x->m = (x->m > t ? x->m : t) + comm;
  x->comm += comm;
  x->shared += grp_slow(sh, x->mf[x->bwd]) * comm;
  return x->m;
}

/* DeepSpeed keeps a layer gathered from its forward to its backward when
 * the elements used in between (the layers after it, forward and back)
 * are within stage3_max_reuse_distance (partitioned_param_coordinator.py,
 * __params_to_release), as long as stage3_max_live_parameters allows. The
 * backward walk meets the last layers first: `after` is what it passed. */
static int ds_kept(fsdp_ctx *x, double params) {
  const sc_plan *p = &x->e->s->plan;
  int kept = p->fsdp_impl == SC_FSDP_DEEPSPEED && 2 * x->after < p->ds_max_reuse &&
             x->live + params <= p->ds_max_live;
  if (kept) x->live += params;
  x->after += params;
  return kept;
}

/* Issue the gather of the unit under `lead` (position q) at time t in
 * pass bwd, or mark it ready when there is nothing to gather. */
static void gather_ahead(fsdp_ctx *x, const cursor *lead, int q, double t) {
  if (!cur_ok(lead)) return;
  const sc_plan *p = &x->e->s->plan;
  fsdp_unit spill;
  const fsdp_unit *u = unit_at(x, lead, &spill);
  double g = u->gather;
  if (lead->bwd && u->params > 0) {
    if (!p->fsdp_reshard || ds_kept(x, u->params)) g = 0;
    /* DeepSpeed: a module released after its recomputed forward (reuse
     * distance below the layer) is gathered again for its backward */
    else if (p->fsdp_impl == SC_FSDP_DEEPSPEED && p->recompute == SC_RECOMP_FULL &&
             p->ds_max_reuse < u->params)
      g *= 2;
  }
  x->ready[q % FSDP_RING] = u->params > 0 && g > 0 ? issue(x, t, g, u->share) : -INFINITY;
}

/* Reduce the gradients of unit u, done at the compute clock. */
static void reduce(fsdp_ctx *x, const fsdp_unit *u) {
  const sc_plan *p = &x->e->s->plan;
  if (p->fsdp_impl != SC_FSDP_DEEPSPEED) {
    issue(x, x->c, u->reduce, u->rs_share);
    if (u->allreduce > 0) issue(x, x->c, u->allreduce, u->ar_share);
    return;
  }
  x->pending += u->params;
  if (x->pending < p->ds_reduce_bucket) return;
  int gi = x->root_grp;
  for (int j = 0; j < x->st->n_runs && gi < 0; j++) {
    const xg_segment *sg = &x->e->x->segs[x->e->x->runs[x->st->first_run + j].segment];
    if (is_layer(sg)) gi = sg->dp_group;
  }
  grp_share share = {0, 0};
  double rs = eng_coll(x->e, gi, COLL_REDUCE_SCATTER, x->pending * eng_param_bytes(p), &share);
  issue(x, x->c, rs, share);
  x->pending = 0;
}

/* The compute stream's time for the unit under cursor c (its pass x->bwd):
 * the wall time of its queue (eng_qsum_wall), its kernels and the
 * collectives that hold the stream (tensor- and context-parallel ones,
 * their exposed part), or longer where the host issues them slower
 * (launch-bound layers), as the gradient buckets time a backward
 * (dpoverlap.c). The gathers and reduce-scatters run on their own stream
 * for that long: a faster GPU, which exposes more of the stream's own
 * collectives or leaves it waiting on the host, never exposes more of
 * them. */
static double unit_wall(fsdp_ctx *x, const cursor *c) {
  int j = cur_index(c), n = x->e->x->runs[x->st->first_run + j].count;
  eng_qsum w; /* an offloaded layer's waits on its copy too (offload.h) */
  const eng_qsum *q = offl_queue(x->e, x->st, j, c->bwd ? n - 1 - c->i : c->i, x->bwd, &w);
  x->kern += q->compute;
  return eng_qsum_wall(q, 1, &x->lead);
}

/* One pass (bwd 0: forward, 1: backward) of one micro-batch. */
static void pass(fsdp_ctx *x, int bwd) {
  const sc_plan *p = &x->e->s->plan;
  int d = depth(x->e, x->layer_params, bwd);
  /* forward without explicit prefetch (FSDP2; FSDP1 unless
   * forward_prefetch): the next gather is issued when the host gets
   * there, after issuing this unit's kernels */
  int implicit = !bwd && !p->fsdp_forward_prefetch &&
                 (p->fsdp_impl == SC_FSDP2 || p->fsdp_impl == SC_FSDP1);
  cursor c = {x->st, x->e->x, bwd, 0, 0}, lead = c;
  x->after = x->live = 0;
  x->bwd = bwd;
  x->lead = bwd ? x->e->st[x->st - x->e->x->stages].bwd_lead : 0;
  /* `lead` is the next position to gather: the first max(d, 1) are
   * gathered when the pass starts, then position q + d when q starts
   * (d 0: position q + 1 when q is done, its pre-backward hook) */
  int first = d > 1 ? d : 1;
  for (int q = 0; q < first; q++, cur_next(&lead)) gather_ahead(x, &lead, q, x->c);
  for (int q = 0; cur_ok(&c); q++, cur_next(&c)) {
    fsdp_unit spill;
    const fsdp_unit *u = unit_at(x, &c, &spill);
    double r = x->ready[q % FSDP_RING], start = r > x->c ? r : x->c;
    int gathered = u->params > 0 && r > -INFINITY;
    /* implicit prefetch: the host reaches the next unit once it has
     * issued this one's kernels (taking host and GPU level here) */
    double reach = u->host < u->f ? u->host : u->f;
    if (d > 0) {
      gather_ahead(x, &lead, q + d, implicit ? start + reach : start);
      cur_next(&lead);
    }
    double run = unit_wall(x, &c) + (gathered ? u->copy_out : 0) + (bwd ? u->rs_copy : 0);
    x->c = start + run;
    x->compute += run;
    x->copies += (gathered ? u->copy_out : 0) + (bwd ? u->rs_copy : 0);
    x->kern += (gathered ? u->copy_out : 0) + (bwd ? u->rs_copy : 0);
    if (bwd && u->params > 0) reduce(x, u);
    if (d == 0) {
      gather_ahead(x, &lead, q + 1, x->c);
      cur_next(&lead);
    }
  }
}

/* Fill x's unit cache and the stage's root and largest layer. */
static void ctx_init(fsdp_ctx *x, const eng *e, const xg_stage *st) {
  memset(x, 0, sizeof *x);
  x->e = e;
  x->st = st;
  x->root_grp = -1;
  x->root = root_params(e, st, &x->root_grp);
  double mem[2] = {0, 0}, all[2] = {0, 0};
  for (int j = 0; j < st->n_runs; j++) {
    const xg_run *r = &e->x->runs[st->first_run + j];
    fsdp_unit u = unit_of(e, r);
    if (j < FSDP_CACHE) x->cache[j] = u;
    if (is_layer(&e->x->segs[r->segment]) && e->x->segs[r->segment].params > x->layer_params)
      x->layer_params = e->x->segs[r->segment].params;
    /* FSDP2's copy-out and chunk-cat, FSDP1's gradient cat: memory-bound
     * kernels too */
    double copy_f = u.copy_out, copy_b = u.copy_out + u.rs_copy;
    mem[0] += r->count * (e->qs[2 * r->segment].mem + copy_f);
    all[0] += r->count * (e->qs[2 * r->segment].compute + copy_f);
    mem[1] += r->count * (e->qs[2 * r->segment + 1].mem + copy_b);
    all[1] += r->count * (e->qs[2 * r->segment + 1].compute + copy_b);
  }
  for (int b = 0; b < 2; b++) x->mf[b] = all[b] > 0 ? mem[b] / all[b] : 0;
}

double fsdp_exposed(const eng *e, const xg_stage *st, int mbs) {
  int any = 0;
  for (int j = 0; j < st->n_runs && !any; j++)
    any = is_unit(&e->x->segs[e->x->runs[st->first_run + j].segment]);
  if (!any) return 0;
  fsdp_ctx x;
  ctx_init(&x, e, st);
  const sc_plan *p = &e->s->plan;
  double eb = eng_param_bytes(p);
  grp_share share = {0, 0};
  if (x.root > 0) {
    /* the root unit: gathered first (FSDP2: its copy-in before, its
     * copy-out after), its gradients reduced last */
    const sc_gpu *g = &e->s->cluster.gpu;
    double ag = eng_coll(e, x.root_grp, COLL_ALL_GATHER, x.root * eb, &share);
    double nr = e->x->groups[x.root_grp].ranks;
    double in = p->fsdp_impl == SC_FSDP2   ? cost_mem(g, 2 * x.root * eb / nr)
                : p->fsdp_impl == SC_FSDP1 ? fsdp1k_unit(g, x.root, eb, nr).cast
                                           : 0;
    /* NCCL's kernels: the gather only (none on a one-rank group) */
    double k = in + ag > 0 ? ag / (in + ag) : 0;
    x.c = issue(&x, 0, in + ag, (grp_share){share.sm * k, share.hbm * k});
    if (p->fsdp_impl == SC_FSDP2) {
      double co = cost_mem(g, 2 * x.root * eb);
      x.c += co, x.compute += co, x.copies += co, x.kern += co;
    }
  }
  pass(&x, 0);
  pass(&x, 1);
  if (p->fsdp_impl == SC_FSDP_DEEPSPEED) x.pending += x.root;
  double last = p->fsdp_impl == SC_FSDP_DEEPSPEED ? x.pending : x.root;
  if (last > 0) {
    int gi = x.root_grp;
    for (int j = 0; j < st->n_runs && gi < 0; j++) {
      const xg_segment *sg = &e->x->segs[e->x->runs[st->first_run + j].segment];
      if (is_unit(sg)) gi = sg->dp_group;
    }
    if (p->fsdp_impl == SC_FSDP2 && x.root > 0) {
      /* the root's chunk-cat, on the compute stream */
      double cc = cost_mem(&e->s->cluster.gpu, 2 * x.root * eb);
      x.c += cc, x.compute += cc, x.copies += cc, x.kern += cc;
    }
    double rs = eng_coll(e, gi, COLL_REDUCE_SCATTER, last * eb, &share);
    if (p->fsdp_impl == SC_FSDP1 && x.root > 0) {
      /* the root's gradient cat (compute stream), then the kernels around
       * its reduce-scatter (fsdp1k.h) */
      fsdp_unit ru = {.reduce = rs, .rs_share = share};
      fsdp1_kernels(fsdp1k_unit(&e->s->cluster.gpu, x.root, eb, e->x->groups[gi].ranks), &ru);
      x.c += ru.rs_copy, x.compute += ru.rs_copy, x.copies += ru.rs_copy,
      x.kern += ru.rs_copy;
      rs = ru.reduce, share = ru.rs_share;
    }
    issue(&x, x.c, rs, share);
    double ar = hsdp_allreduce(e, any_unit(e, st), x.root, 0, &share);
    if (ar > 0) issue(&x, x.c, ar, share);
  }
  double span = x.c > x.m ? x.c : x.m;
  double waited = span - x.compute;              /* communication not hidden */
  double hidden = x.comm - waited > 0 ? x.comm - waited : 0;
  /* the overlap slows the kernels in it, not the stream's collectives
   * or its waits: the window's kernel share of it (spread evenly) */
  double slow = x.comm > 0 && x.compute > 0 ? x.shared / x.comm * hidden * (x.kern / x.compute) : 0;
  return mbs * (waited + x.copies + slow);
}

/* ---------------------------------------------- traffic and memory */

/* Elements per GPU the reduce-scatters of one backward move, and their
 * number, for DeepSpeed's reduce bucket (filled in backward order). */
static void ds_buckets(const eng *e, const xg_stage *st, double root, fsdp_traffic *t) {
  double pending = 0, bucket = e->s->plan.ds_reduce_bucket, eb = eng_param_bytes(&e->s->plan);
  for (int j = st->n_runs - 1; j >= 0; j--) {
    const xg_run *r = &e->x->runs[st->first_run + j];
    const xg_segment *sg = &e->x->segs[r->segment];
    for (int i = 0; i < r->count && is_layer(sg); i++) {
      pending += sg->params;
      if (pending < bucket) continue;
      t->reduces++, t->reduce_bytes += pending * eb, pending = 0;
    }
  }
  pending += root;
  if (pending > 0) t->reduces++, t->reduce_bytes += pending * eb;
}

void fsdp_count(const eng *e, const xg_stage *st, int mbs, fsdp_traffic *out) {
  const sc_plan *p = &e->s->plan;
  double eb = eng_param_bytes(p);
  fsdp_traffic t = {0, 0, 0, 0, 0, 0, 0};
  fsdp_ctx x;
  memset(&x, 0, sizeof x);
  x.e = e, x.st = st, x.root_grp = -1;
  x.root = root_params(e, st, &x.root_grp);
  int ds = p->fsdp_impl == SC_FSDP_DEEPSPEED;
  if (x.root > 0) t.gathers++, t.gather_bytes += x.root * eb;
  /* backward order, so that DeepSpeed's kept layers are the last ones */
  for (int j = st->n_runs - 1; j >= 0; j--) {
    const xg_run *r = &e->x->runs[st->first_run + j];
    const xg_segment *sg = &e->x->segs[r->segment];
    if (!is_layer(sg)) continue;
    ds_mods m = ds_modules(e, sg);
    /* a unit's calls: one per part (unit_parts), DeepSpeed's per module */
    double part[2];
    int gid[2];
    unit_parts(sg, part, gid);
    double parts = (part[0] > 0) + (part[1] > 0);
    double calls = ds ? m.calls : parts, bytes = (ds ? m.gathered : part[0] + part[1]) * eb;
    double local = ds ? 0 : unit_local(e, sg) * eb; /* shard bytes a gather starts from */
    for (int i = 0; i < r->count; i++) {
      double again = p->fsdp_reshard && !ds_kept(&x, sg->params);
      if (again && ds && p->recompute == SC_RECOMP_FULL && p->ds_max_reuse < sg->params) again = 2;
      t.gathers += calls * (1 + again);
      t.gather_bytes += bytes * (1 + again);
      if (!ds) t.reduces += parts, t.reduce_bytes += bytes;
      if (sg->rep_group >= 0 && fsdp_hsdp_per_unit(p)) /* dense, experts (hsdp_allreduce) */
        t.allreduces += (sg->params > sg->params_expert) + (sg->params_expert > 0),
        t.allreduce_bytes += xg_seg_sharded(sg, sg->params * eb, sg->params, 1);
      if (p->fsdp_impl == SC_FSDP2)
        t.copy_bytes += (1 + again) * (2 * local + 2 * bytes) + 2 * bytes;
      for (int k = 0; k < 2 && p->fsdp_impl == SC_FSDP1; k++)
        if (part[k] > 0)
          t.copy_bytes += fsdp1k_bytes(part[k], eb, e->x->groups[gid[k]].ranks, 1 + (int)again);
    }
  }
  if (ds) ds_buckets(e, st, x.root, &t);
  else if (x.root > 0) t.reduces++, t.reduce_bytes += x.root * eb;
  const xg_segment *ru = any_unit(e, st);
  if (x.root > 0 && ru && ru->rep_group >= 0 && fsdp_hsdp_per_unit(p))
    t.allreduces++, t.allreduce_bytes += x.root * eb / ru->shard;
  if (p->fsdp_impl == SC_FSDP2 && x.root > 0) {
    double n = e->x->groups[x.root_grp].ranks;
    t.copy_bytes += 2 * x.root * eb / n + 2 * x.root * eb + 2 * x.root * eb;
  }
  if (p->fsdp_impl == SC_FSDP1 && x.root > 0)
    t.copy_bytes += fsdp1k_bytes(x.root, eb, e->x->groups[x.root_grp].ranks, 1);
  out->gathers = mbs * t.gathers;
  out->gather_bytes = mbs * t.gather_bytes;
  out->reduces = mbs * t.reduces;
  out->reduce_bytes = mbs * t.reduce_bytes;
  out->copy_bytes = mbs * t.copy_bytes;
  out->allreduces = mbs * t.allreduces;
  out->allreduce_bytes = mbs * t.allreduce_bytes;
}

void fsdp_memory(const eng *e, const xg_stage *st, double eb, double *w, double *g) {
  const sc_plan *p = &e->s->plan;
  double largest = 0, layers = 0, op = 0, persistent = 0, kept = 0, after = 0;
  int gi = -1;
  double root = root_params(e, st, &gi);
  for (int j = st->n_runs - 1; j >= 0; j--) {
    const xg_run *r = &e->x->runs[st->first_run + j];
    const xg_segment *sg = &e->x->segs[r->segment];
    if (!is_layer(sg)) continue;
    /* what a unit gathers: its experts not where each rank holds them
     * whole (unit_parts); DeepSpeed's modules, all of it */
    double gathered = p->fsdp_impl == SC_FSDP_DEEPSPEED ? sg->params : unit_gathered(sg);
    if (gathered > largest) largest = gathered;
    layers += r->count * gathered;
    if (p->fsdp_impl != SC_FSDP_DEEPSPEED) continue;
    ds_mods m = ds_modules(e, sg);
    if (m.largest > op) op = m.largest;
    persistent += r->count * m.persistent;
    for (int i = 0; i < r->count; i++, after += sg->params)
      if (2 * after < p->ds_max_reuse && kept + sg->params <= p->ds_max_live) kept += sg->params;
  }
  *w = *g = 0;
  if (largest <= 0 && root <= 0) return;
  if (p->fsdp_impl == SC_FSDP_DEEPSPEED) {
    /* the module in use, the prefetch bucket, the layers kept for their
     * backward and the persistent small parameters, whole; the reduce
     * bucket holds gradients (stage_1_and_2/stage3 ipg buffer) */
    double pre = p->ds_prefetch_bucket < p->ds_max_live ? p->ds_prefetch_bucket : p->ds_max_live;
    if (pre > layers) pre = layers;
    *w = (op + pre + kept + persistent + root) * eb;
    double bucket = p->ds_reduce_bucket < layers + root ? p->ds_reduce_bucket : layers + root;
    *g = (bucket + op) * eb;
    return;
  }
  /* the unit computing and those prefetched (at least one: the forward's
   * next), or every layer when nothing is freed after forward; the root
   * stays gathered; the gradients of the unit computing and of the one
   * being reduce-scattered, and the root's */
  int d = p->fsdp_prefetch > 1 ? p->fsdp_prefetch : 1;
  *w = (p->fsdp_reshard ? (1 + d) * largest : layers) * eb + root * eb;
  *g = (2 * largest + root) * eb;
}
