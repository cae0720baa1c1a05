/*
 * analytic.c -- the closed-form step-time model (sc_predict).
 *
 * One micro-batch on one pipeline stage costs F (forward) + B (backward
 * and recomputation); each is the sum over the stage's operators of
 *   GPU time   (kernels, and the TP/CP/EP collectives that sit on the
 *               critical path of the compute stream),
 * bounded below by the host time of an eager framework issuing its
 * kernels (a layer whose kernels are shorter than their launches is
 * host-bound). The step is then
 *   m (F + B)                       the micro-batches of the slowest stage
 * + (pp - 1)/vpp (F + B)            pipeline fill and drain (1F1B, GPipe)
 * + pipeline send/recv on the critical path
 * + exposed data-parallel communication (what the overlap with the last
 *   backward or with the layers' compute does not hide)
 * + the optimizer step.
 */
#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cost/compute.h"
#include "engine/groups.h"
#include "engine/step.h"
#include "model/ops.h"

typedef enum pass_kind { PASS_FWD, PASS_BWD, PASS_RECOMP_SEL } pass_kind;

/* One operator as the host/GPU queue model sees it: the host spends
 * `host` seconds issuing it, then the GPU stream runs it for `gpu`. */
typedef struct qop {
  double host, gpu;  /* seconds */
  int comm;          /* 1 = a collective on the compute stream */
} qop;

/* The operators of one pass over one layer (or embedding, head), in the
 * order the framework issues them. Fixed size: no allocation. */
typedef struct queue {
  qop q[2 * OPS_MAX];
  int n;
} queue;

/* The two clocks of the queue model: when the host has issued everything
 * so far, and when the GPU stream will have run it. */
typedef struct qclock {
  double h, g;       /* seconds */
  double compute;    /* GPU time of compute kernels run so far */
  double comm;       /* GPU time of collectives run so far */
} qclock;

static const grp *op_group(const grp_set *g, ops_group which) {
  switch (which) {
  case OPS_GROUP_TP: return &g->tp;
  case OPS_GROUP_CP: return &g->cp;
  case OPS_GROUP_EP: return &g->ep;
  }
  return &g->tp;
}

/* The collective the backward pass runs for a forward collective. */
static coll_op conjugate(coll_op c) {
  if (c == COLL_ALL_GATHER) return COLL_REDUCE_SCATTER;
  if (c == COLL_REDUCE_SCATTER) return COLL_ALL_GATHER;
  return c;
}

/* GPU time of one op in the given pass, without communication. */
static double op_compute(const sc_scenario *s, const ops_op *o, pass_kind k) {
  const sc_gpu *g = &s->cluster.gpu;
  sc_dtype dt = s->plan.dtype;
  int bwd = k == PASS_BWD;
  switch (o->kind) {
  case OPS_GEMM: {
    double t = cost_gemm(g, dt, o->m, o->n, o->k, o->batch);
    if (!bwd) return t;
    /* data gradient [m,n]x[n,k] and weight gradient [k,m]x[m,n] */
    return cost_gemm(g, dt, o->m, o->k, o->n, o->batch) +
           cost_gemm(g, dt, o->k, o->n, o->m, o->batch);
  }
  case OPS_ATTN: {
    sc_attention a = s->plan.attention;
    if (bwd) return cost_flash_attn_bwd(g, dt, a, o->flops * o->bwd_scale, o->sq, o->d);
    return cost_flash_attn_k(g, dt, a, o->flops, o->sq, o->d);
  }
  case OPS_MEM: {
    double t = cost_mem(g, o->bytes);
    return bwd ? cost_mem(g, o->bytes * o->bwd_scale) : t;
  }
  case OPS_COMM: return 0;
  }
  return 0;
}

/* GPU time of op i of l in pass k, collectives included (exposed part). */
/* Cost on the critical path of a collective of `comm` seconds overlapped
 * with `window` seconds of compute: the part the window does not cover,
 * plus the slowdown of the covered compute, which runs on the SMs NCCL's
 * CTAs leave (`share` of them taken). */
static double overlapped(double comm, double window, double share) {
  double hidden = comm < window ? comm : window;
  return comm - hidden + share * hidden;
}

static double op_gpu(const sc_scenario *s, const grp_set *gs, const ops_list *l,
                     int i, pass_kind k, double prev_compute) {
  const ops_op *o = &l->op[i];
  if (o->kind != OPS_COMM) return op_compute(s, o, k);
  coll_op op = k == PASS_BWD ? conjugate(o->coll) : o->coll;
  const grp *g = op_group(gs, o->group);
  double share;
  double t = grp_cost(gs, g, op, o->bytes, &share);
  if (o->group == OPS_GROUP_CP) {
    /* ring exchange hidden under the attention that follows */
    double hide = i + 1 < l->n ? op_compute(s, &l->op[i + 1], k) : 0;
    t = overlapped(t, hide, share);
  } else if (o->group == OPS_GROUP_TP && s->plan.overlap_tp) {
    /* chunked GEMM/collective overlap hides it behind the GEMM next to
     * it, never completely */
    t = overlapped(t, prev_compute < 0.9 * t ? prev_compute : 0.9 * t, share);
  }
  return t;
}

/* Append the ops of l in pass k to q (backward: in reverse order). */
static void enqueue(const sc_scenario *s, const grp_set *gs, const ops_list *l,
                    pass_kind k, queue *q) {
  double launch = s->plan.framework_eager ? cost_launch(&s->cluster.gpu) : 0;
  double prev = 0;
  for (int j = 0; j < l->n; j++) {
    int i = k == PASS_BWD ? l->n - 1 - j : j;
    const ops_op *o = &l->op[i];
    if (k == PASS_RECOMP_SEL && !o->recompute_sel) continue;
    assert(q->n < 2 * OPS_MAX);
    qop *e = &q->q[q->n++];
    e->gpu = op_gpu(s, gs, l, i, k, prev);
    e->host = launch * (k == PASS_BWD ? o->host_bwd : o->host_ops);
    e->comm = o->kind == OPS_COMM;
    /* a collective: its autograd function, then the torch.distributed call */
    if (e->comm && launch > 0) e->host = launch + cost_coll_host(&s->cluster.gpu);
    if (!e->comm) prev = e->gpu;
  }
}

/* Run q `reps` times through the clocks: the host issues each op after
 * its host time; the GPU starts it when issued and when the op before has
 * finished. */
static void run(const queue *q, double reps, qclock *c) {
#ifdef SC_DEBUG_CHECKS
  double g0 = c->g, h0 = c->h;
#endif
  int whole = (int)reps;
  double frac = reps - whole;
  for (int r = 0; r <= whole; r++) {
    double scale = r < whole ? 1.0 : frac; /* a fraction of a layer */
    if (scale <= 0) break;
    for (int i = 0; i < q->n; i++) {
      const qop *e = &q->q[i];
      c->h += scale * e->host;
      double start = c->h > c->g ? c->h : c->g;
      c->g = start + scale * e->gpu;
      if (e->comm) c->comm += scale * e->gpu;
      else c->compute += scale * e->gpu;
    }
  }
#ifdef SC_DEBUG_CHECKS
  /* time never goes back, and the GPU never runs ahead of what was issued */
  assert(c->g >= g0 && c->h >= h0 && c->g >= c->h - 1e-12);
#endif
}

/* Queues of one stage: layers forward and backward (with recomputation),
 * and the embedding/head when the stage holds them. */
typedef struct stage_queues {
  queue lf, lb;            /* one layer */
  queue ef, eb, hf, hb;    /* embedding and head (empty when absent) */
} stage_queues;

static void build_queues(const sc_scenario *s, const grp_set *gs, int st,
                         const ops_list *layer, const ops_list *emb,
                         const ops_list *head, stage_queues *sq) {
  const sc_plan *p = &s->plan;
  memset(sq, 0, sizeof *sq);
  enqueue(s, gs, layer, PASS_FWD, &sq->lf);
  if (p->recompute == SC_RECOMP_FULL) enqueue(s, gs, layer, PASS_FWD, &sq->lb);
  else if (p->recompute == SC_RECOMP_SELECTIVE)
    enqueue(s, gs, layer, PASS_RECOMP_SEL, &sq->lb);
  enqueue(s, gs, layer, PASS_BWD, &sq->lb);
  if (st == 0) {
    enqueue(s, gs, emb, PASS_FWD, &sq->ef);
    enqueue(s, gs, emb, PASS_BWD, &sq->eb);
  }
  if (st == p->pp - 1) {
    enqueue(s, gs, head, PASS_FWD, &sq->hf);
    enqueue(s, gs, head, PASS_BWD, &sq->hb);
  }
}

static void run_fwd(const stage_queues *sq, double L, qclock *c) {
  run(&sq->ef, 1, c);
  run(&sq->lf, L, c);
  run(&sq->hf, 1, c);
}

static void run_bwd(const stage_queues *sq, double L, qclock *c) {
  run(&sq->hb, 1, c);
  run(&sq->lb, L, c);
  run(&sq->eb, 1, c);
}

/* Per-micro-batch time of one stage and its parts. */
typedef struct stage_cost {
  double f, b;                  /* wall time of forward and backward, s */
  double compute, comm, host;   /* parts of f + b */
  double layer_f, layer_b;      /* one layer's compute, for FSDP overlap */
} stage_cost;

static double queue_compute(const queue *q) {
  double t = 0;
  for (int i = 0; i < q->n; i++)
    if (!q->q[i].comm) t += q->q[i].gpu;
  return t;
}

/* With pipeline parallelism every micro-batch boundary synchronises the
 * host with the GPU (Megatron's blocking send/recv), so forward and
 * backward each start with both clocks level. Without it nothing
 * synchronises inside a step, and the host's lead carries from one
 * micro-batch to the next: the steady state is taken from the second of
 * two micro-batches run back to back. */
static stage_cost stage(const sc_scenario *s, const grp_set *gs, int st,
                        const ops_list *layer, const ops_list *emb,
                        const ops_list *head) {
  stage_cost r;
  memset(&r, 0, sizeof r);
  const sc_plan *p = &s->plan;
  double L = (double)s->model.layers / p->pp;
  stage_queues sq;
  build_queues(s, gs, st, layer, emb, head, &sq);
  r.layer_f = queue_compute(&sq.lf);
  r.layer_b = queue_compute(&sq.lb);
  qclock c = {0, 0, 0, 0};
  if (p->pp > 1) {
    run_fwd(&sq, L, &c);
    r.f = c.g;
    qclock cb = {0, 0, 0, 0};
    run_bwd(&sq, L, &cb);
    r.b = cb.g;
    c.compute += cb.compute;
    c.comm += cb.comm;
  } else {
    run_fwd(&sq, L, &c);
    run_bwd(&sq, L, &c);
    qclock warm = c;
    run_fwd(&sq, L, &c);
    double fwd_end = c.g;
    run_bwd(&sq, L, &c);
    r.f = fwd_end - warm.g;
    r.b = c.g - fwd_end;
    c.compute -= warm.compute;
    c.comm -= warm.comm;
  }
  r.compute = c.compute;
  r.comm = c.comm;
  r.host = r.f + r.b - c.compute - c.comm;
  if (r.host < 0) r.host = 0;
  return r;
}

/* Exposed data-parallel communication per step (and ZeRO-3 gathers).
 * Assumptions without a measurement: a gradient reduction overlapped with
 * the last backward can hide under 90 % of it (the first buckets fill
 * only after the last layers' gradients), and at least its last bucket
 * (10 %) stays exposed; an overlapped parameter gather exposes 10 %. */
static double dp_exposed(const sc_scenario *s, const grp_set *gs,
                         const stage_cost *sc, int mbs, double params) {
  const sc_plan *p = &s->plan;
  const grp *g = &gs->dp;
  if (g->g.ranks <= 1) return 0;
  double e = p->dtype == SC_FP32 || p->dtype == SC_TF32 ? 4 : 2;
  if (p->zero >= 3) {
    /* per layer and micro-batch: gather before forward, gather and
     * reduce-scatter in backward, prefetched under the layer's compute */
    double lp = ops_layer_params(&s->model) / p->tp;
    double share;
    double ag = grp_cost(gs, g, COLL_ALL_GATHER, lp * e, &share);
    double rs = grp_time(gs, g, COLL_REDUCE_SCATTER, lp * e);
    double L = (double)s->model.layers / p->pp;
    double fwd = overlapped(ag, sc->layer_f, share);
    double bwd = overlapped(ag + rs, sc->layer_b, share);
    /* the first gather of each pass is never hidden */
    double first = ag;
    /* embeddings and head are gathered and reduced once per micro-batch */
    double rest = params - L * lp;
    double rest_t = rest > 0 ? 2 * grp_time(gs, g, COLL_ALL_GATHER, rest * e) +
                                   grp_time(gs, g, COLL_REDUCE_SCATTER, rest * e)
                             : 0;
    return mbs * (L * (fwd + bwd) + first + rest_t);
  }
  double bytes = params * e;
  coll_op op = p->zero >= 1 ? COLL_REDUCE_SCATTER : COLL_ALL_REDUCE;
  double share;
  double red = grp_cost(gs, g, op, bytes, &share);
  double t = red;
  if (p->overlap_grad_reduce) {
    double window = 0.9 * sc->b < 0.9 * red ? 0.9 * sc->b : 0.9 * red;
    t = overlapped(red, window, share);
  }
  if (p->zero >= 1) {
    /* the distributed optimizer gathers the updated parameters */
    double ag = grp_time(gs, g, COLL_ALL_GATHER, bytes);
    t += p->overlap_param_gather ? 0.1 * ag : ag;
  }
  return t;
}

/* Adam step over the local shard: read/write fp32 master, m, v, read the
 * gradient, write the 16-bit copy, plus the gradient-norm pass. */
#define ADAM_BYTES_PER_PARAM 34.0
static double optimizer_time(const sc_scenario *s, double params) {
  const sc_plan *p = &s->plan;
  double n = params;
  if (p->zero >= 1) n /= (double)p->dp * p->cp;
  return cost_mem(&s->cluster.gpu, n * ADAM_BYTES_PER_PARAM);
}

/* What every entry point needs: the resolved scenario, its groups and
 * the operator lists of one micro-batch. */
typedef struct step_ctx {
  sc_scenario s;            /* resolved copy */
  grp_set gs;               /* owns the topology, if any */
  ops_list layer, emb, head;
  int mbs;                  /* micro-batches per pipeline per step */
} step_ctx;

static int ctx_open(const sc_scenario *in, step_ctx *x, sc_error *err) {
  x->s = *in;
  int rc = sc_scenario_resolve(&x->s, err);
  if (rc != SC_OK) return rc;
  const sc_plan *p = &x->s.plan;
  x->mbs = (int)(p->global_batch / ((long)p->micro_batch * p->dp));
  assert(x->mbs >= 1);
  rc = grp_build(&x->s, &x->gs, err);
  if (rc != SC_OK) return rc;
  ops_layer(&x->s, p->micro_batch, &x->layer);
  ops_embedding(&x->s, p->micro_batch, &x->emb);
  ops_head(&x->s, p->micro_batch, &x->head);
  return SC_OK;
}

static stage_cost ctx_stage(step_ctx *x, int st) {
  return stage(&x->s, &x->gs, st, &x->layer, &x->emb, &x->head);
}

/* One activation send/recv between neighbouring stages. */
static double ctx_p2p(step_ctx *x) {
  const sc_plan *p = &x->s.plan;
  if (p->pp <= 1) return 0;
  double e = p->dtype == SC_FP32 || p->dtype == SC_TF32 ? 4 : 2;
  double act = (double)p->micro_batch * x->s.model.seq / p->cp * x->s.model.hidden * e;
  if (p->sp && p->tp > 1) act /= p->tp;
  return grp_time(&x->gs, &x->gs.pp, COLL_SEND_RECV, act);
}

/* Parameters of the most loaded stage's GPU. */
static double ctx_params(const step_ctx *x) {
  double first = step_stage_params(&x->s, 0);
  double last = step_stage_params(&x->s, x->s.plan.pp - 1);
  return first > last ? first : last;
}

int sc_predict(const sc_scenario *in, sc_result *r, sc_error *err) {
  step_ctx x;
  int rc = ctx_open(in, &x, err);
  if (rc != SC_OK) return rc;
  memset(r, 0, sizeof *r);
  const sc_plan *p = &x.s.plan;
  int mbs = x.mbs;

  /* the slowest stage sets the pace (first has the embedding, last the
   * head; middle stages have neither) */
  stage_cost worst = ctx_stage(&x, 0);
  if (p->pp > 1) {
    stage_cost last = ctx_stage(&x, p->pp - 1);
    if (last.f + last.b > worst.f + worst.b) worst = last;
  }
  double per_mb = worst.f + worst.b;
  double vpp = p->schedule == SC_SCHED_INTERLEAVED && p->vpp > 1 ? p->vpp : 1;
  double bubble = p->pp > 1 ? (p->pp - 1) / vpp * per_mb : 0;
  /* pipeline send/recv: activations of one micro-batch cross each stage
   * boundary forward and gradients come back; Megatron's p2p is blocking */
  double pp_comm = 2.0 * ctx_p2p(&x) * (mbs + p->pp - 1) * vpp;
  double params = ctx_params(&x);
  double dp = dp_exposed(&x.s, &x.gs, &worst, mbs, params);
  double opt = optimizer_time(&x.s, params);

  r->time.compute = mbs * worst.compute;
  r->time.host = mbs * worst.host;
  r->time.tp_comm = mbs * worst.comm;
  r->time.bubble = bubble;
  r->time.pp_comm = pp_comm;
  r->time.dp_comm = dp;
  r->time.optimizer = opt;
  r->step_s = r->time.compute + r->time.host + r->time.tp_comm + bubble +
              pp_comm + dp + opt;

  double tokens = (double)p->global_batch * x.s.model.seq;
  r->micro_batches = mbs;
  r->micro_batch = p->micro_batch;
  r->tokens_per_s = tokens / r->step_s;
  r->seq_per_s = p->global_batch / r->step_s;
  r->model_flops = ops_model_flops(&x.s.model, tokens);
  r->hw_flops = r->model_flops *
                (p->recompute == SC_RECOMP_FULL ? 4.0 / 3.0 : 1.0);
  r->tflops_per_gpu = r->model_flops / r->step_s / x.s.cluster.gpus / 1e12;
  r->mfu = r->model_flops / r->step_s /
           (x.s.cluster.gpus * cost_peak(&x.s.cluster.gpu, p->dtype));
  r->params = sc_model_params(&x.s.model);
  step_memory(&x.s, mbs, &r->mem);
  grp_free(&x.gs);
#ifdef SC_DEBUG_CHECKS
  /* every part is a finite, non-negative time and the step is their sum */
  const double parts[] = {r->time.compute, r->time.host, r->time.tp_comm, r->time.bubble,
                          r->time.pp_comm, r->time.dp_comm, r->time.optimizer};
  for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++)
    assert(isfinite(parts[i]) && parts[i] >= 0);
  assert(r->step_s > 0 && isfinite(r->step_s));
  assert(r->mem.total >= r->mem.weights + r->mem.activations);
#endif
  return SC_OK;
}

int sc_explain_layer(const sc_scenario *in, sc_op_time *out, int max,
                     sc_error *err) {
  step_ctx x;
  int rc = ctx_open(in, &x, err);
  if (rc != SC_OK) return -rc;
  static const char *const kinds[] = {"gemm", "attn", "mem", "comm"};
  const ops_list *l = &x.layer;
  int n = 0;
  for (int i = 0; i < l->n && n < max; i++, n++) {
    const ops_op *o = &l->op[i];
    sc_op_time *t = &out[n];
    memset(t, 0, sizeof *t);
    snprintf(t->name, sizeof t->name, "%s", o->name);
    snprintf(t->kind, sizeof t->kind, "%s", kinds[o->kind]);
    t->flops = o->flops;
    t->bytes = o->bytes;
    if (o->kind == OPS_COMM) {
      const grp *g = op_group(&x.gs, o->group);
      t->fwd_s = grp_time(&x.gs, g, o->coll, o->bytes);
      t->bwd_s = grp_time(&x.gs, g, conjugate(o->coll), o->bytes);
      continue;
    }
    t->fwd_s = op_compute(&x.s, o, PASS_FWD);
    t->bwd_s = op_compute(&x.s, o, PASS_BWD);
    if (o->kind == OPS_GEMM)
      t->eff = cost_gemm_eff(&x.s.cluster.gpu, x.s.plan.dtype, o->m, o->n, o->k, o->batch);
  }
  grp_free(&x.gs);
  return n;
}

int step_costs_of(const sc_scenario *in, step_costs *c, sc_error *err) {
  step_ctx x;
  int rc = ctx_open(in, &x, err);
  if (rc != SC_OK) return rc;
  const sc_plan *p = &x.s.plan;
  memset(c, 0, sizeof *c);
  c->stages = p->pp;
  c->vpp = p->schedule == SC_SCHED_INTERLEAVED && p->vpp > 1 ? p->vpp : 1;
  c->gpipe = p->schedule == SC_SCHED_GPIPE;
  c->micro_batches = x.mbs;
  int which[3] = {0, p->pp > 2 ? 1 : 0, p->pp - 1};
  stage_cost worst = {0};
  for (int i = 0; i < 3; i++) {
    stage_cost sc = ctx_stage(&x, which[i]);
    c->f[i] = sc.f;
    c->b[i] = sc.b;
    if (sc.f + sc.b > worst.f + worst.b) worst = sc;
  }
  c->p2p = ctx_p2p(&x);
  double params = ctx_params(&x);
  c->dp = dp_exposed(&x.s, &x.gs, &worst, x.mbs, params);
  c->opt = optimizer_time(&x.s, params);
  grp_free(&x.gs);
  return SC_OK;
}
