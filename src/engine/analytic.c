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

/* Time of one pass (forward, backward or recompute) over an op list. */
typedef struct pass_cost {
  double compute;  /* GPU kernel time, s */
  double comm;     /* exposed collective time on the compute stream, s */
  double host;     /* host launch time, s */
} pass_cost;

typedef enum pass_kind { PASS_FWD, PASS_BWD, PASS_RECOMP_SEL } pass_kind;

static const coll_group *op_group(const grp_set *g, ops_group which) {
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
    double t = cost_flash_attn(g, dt, o->flops, o->sq, o->d);
    return bwd ? t * o->bwd_scale : t;
  }
  case OPS_MEM: {
    double t = cost_mem(g, o->bytes);
    return bwd ? cost_mem(g, o->bytes * o->bwd_scale) : t;
  }
  case OPS_COMM: return 0;
  }
  return 0;
}

/* Cost of running list l once in pass k. */
static pass_cost pass(const sc_scenario *s, const grp_set *gs,
                      const ops_list *l, pass_kind k) {
  pass_cost c = {0, 0, 0};
  double launch = cost_launch(&s->cluster.gpu);
  int eager = s->plan.framework_eager;
  double prev_compute = 0; /* GPU time of the op before, for overlap */
  for (int i = 0; i < l->n; i++) {
    const ops_op *o = &l->op[i];
    if (k == PASS_RECOMP_SEL && !o->recompute_sel) continue;
    if (o->kind == OPS_COMM) {
      coll_op op = k == PASS_BWD ? conjugate(o->coll) : o->coll;
      double t = grp_time(op, o->bytes, op_group(gs, o->group));
      if (o->group == OPS_GROUP_CP) {
        /* ring exchange hidden under the attention that follows */
        const ops_op *nx = i + 1 < l->n ? &l->op[i + 1] : NULL;
        double hide = nx ? op_compute(s, nx, k) : 0;
        t = t > hide ? t - hide : 0;
      } else if (o->group == OPS_GROUP_TP && s->plan.overlap_tp) {
        /* chunked GEMM/collective overlap hides it behind the GEMM
         * next to it, never completely */
        double hidden = prev_compute < 0.9 * t ? prev_compute : 0.9 * t;
        t -= hidden;
      }
      c.comm += t;
      if (eager) c.host += launch * (k == PASS_BWD ? o->host_bwd : o->host_ops);
      continue;
    }
    double t = op_compute(s, o, k);
    c.compute += t;
    prev_compute = t;
    if (eager) c.host += launch * (k == PASS_BWD ? o->host_bwd : o->host_ops);
  }
  return c;
}

/* GPU time of a pass, raised to the host time when host-bound. Returns
 * the wall time and adds the parts to the breakdown counters. */
static double wall(pass_cost c, double *compute, double *comm, double *host) {
  double gpu = c.compute + c.comm;
  double w = gpu > c.host ? gpu : c.host;
  *compute += c.compute;
  *comm += c.comm;
  *host += w - gpu;
  return w;
}

/* Per-micro-batch time of one stage and its parts. */
typedef struct stage_cost {
  double f, b;                  /* wall time of forward and backward, s */
  double compute, comm, host;   /* parts of f + b */
  double layer_f, layer_b;      /* one layer's compute, for FSDP overlap */
} stage_cost;

static stage_cost stage(const sc_scenario *s, const grp_set *gs, int st,
                        const ops_list *layer, const ops_list *emb,
                        const ops_list *head) {
  stage_cost r;
  memset(&r, 0, sizeof r);
  const sc_plan *p = &s->plan;
  double L = (double)s->model.layers / p->pp;
  pass_cost lf = pass(s, gs, layer, PASS_FWD);
  pass_cost lb = pass(s, gs, layer, PASS_BWD);
  if (p->recompute == SC_RECOMP_FULL) {
    lb.compute += lf.compute;
    lb.comm += lf.comm;
    lb.host += lf.host;
  } else if (p->recompute == SC_RECOMP_SELECTIVE) {
    pass_cost rs = pass(s, gs, layer, PASS_RECOMP_SEL);
    lb.compute += rs.compute;
    lb.comm += rs.comm;
    lb.host += rs.host;
  }
  r.layer_f = lf.compute;
  r.layer_b = lb.compute;
  double c = 0, m = 0, h = 0;
  r.f = L * wall(lf, &c, &m, &h);
  r.b = L * wall(lb, &c, &m, &h);
  r.compute = L * c;
  r.comm = L * m;
  r.host = L * h;
  const ops_list *extra[2] = {st == 0 ? emb : NULL,
                              st == p->pp - 1 ? head : NULL};
  for (int i = 0; i < 2; i++) {
    if (!extra[i]) continue;
    double c2 = 0, m2 = 0, h2 = 0;
    r.f += wall(pass(s, gs, extra[i], PASS_FWD), &c2, &m2, &h2);
    r.b += wall(pass(s, gs, extra[i], PASS_BWD), &c2, &m2, &h2);
    r.compute += c2;
    r.comm += m2;
    r.host += h2;
  }
  return r;
}

/* Exposed data-parallel communication per step (and ZeRO-3 gathers). */
static double dp_exposed(const sc_scenario *s, const grp_set *gs,
                         const stage_cost *sc, int mbs, double params) {
  const sc_plan *p = &s->plan;
  const coll_group *g = &gs->dp;
  if (g->ranks <= 1) return 0;
  double e = p->dtype == SC_FP32 || p->dtype == SC_TF32 ? 4 : 2;
  if (p->zero >= 3) {
    /* per layer and micro-batch: gather before forward, gather and
     * reduce-scatter in backward, prefetched under the layer's compute */
    double lp = ops_layer_params(&s->model) / p->tp;
    double ag = grp_time(COLL_ALL_GATHER, lp * e, g);
    double rs = grp_time(COLL_REDUCE_SCATTER, lp * e, g);
    double L = (double)s->model.layers / p->pp;
    double ef = ag > sc->layer_f ? ag - sc->layer_f : 0;
    double eb = ag + rs > sc->layer_b ? ag + rs - sc->layer_b : 0;
    /* the first gather of each pass is never hidden */
    double first = ag;
    /* embeddings and head are gathered and reduced once per micro-batch */
    double rest = params - L * lp;
    double rest_t = rest > 0 ? 2 * grp_time(COLL_ALL_GATHER, rest * e, g) +
                                   grp_time(COLL_REDUCE_SCATTER, rest * e, g)
                             : 0;
    return mbs * (L * (ef + eb) + first + rest_t);
  }
  double bytes = params * e;
  double t;
  if (p->zero >= 1 || p->distributed_optimizer) {
    double rs = grp_time(COLL_REDUCE_SCATTER, bytes, g);
    double ag = grp_time(COLL_ALL_GATHER, bytes, g);
    t = rs + (p->overlap_param_gather ? 0.1 * ag : ag);
    if (p->overlap_grad_reduce) {
      double hide = 0.9 * sc->b;
      double rs_exp = rs > hide ? rs - hide : 0.1 * rs;
      t = rs_exp + (p->overlap_param_gather ? 0.1 * ag : ag);
    }
  } else {
    t = grp_time(COLL_ALL_REDUCE, bytes, g);
    if (p->overlap_grad_reduce) {
      /* bucketed all-reduce hidden under the last micro-batch's backward;
       * the last bucket is always exposed */
      double hide = 0.9 * sc->b;
      t = t > hide ? t - hide : 0.1 * t;
    }
  }
  return t;
}

/* Adam step over the local shard: read/write fp32 master, m, v, read the
 * gradient, write the 16-bit copy, plus the gradient-norm pass. */
#define ADAM_BYTES_PER_PARAM 34.0
static double optimizer_time(const sc_scenario *s, double params) {
  const sc_plan *p = &s->plan;
  double n = params;
  if (p->zero >= 1 || p->distributed_optimizer) n /= (double)p->dp * p->cp;
  return cost_mem(&s->cluster.gpu, n * ADAM_BYTES_PER_PARAM);
}

int sc_predict(const sc_scenario *in, sc_result *r, sc_error *err) {
  sc_scenario s = *in;
  int rc = sc_scenario_resolve(&s, err);
  if (rc != SC_OK) return rc;
  memset(r, 0, sizeof *r);
  const sc_plan *p = &s.plan;
  long mb = p->micro_batch;
  int mbs = (int)(p->global_batch / ((long)mb * p->dp));
  assert(mbs >= 1);

  grp_set gs;
  grp_build(&s, &gs);
  ops_list layer, emb, head;
  ops_layer(&s, mb, &layer);
  ops_embedding(&s, mb, &emb);
  ops_head(&s, mb, &head);

  /* the slowest stage sets the pace (first has the embedding, last the
   * head; middle stages have neither) */
  stage_cost worst = stage(&s, &gs, 0, &layer, &emb, &head);
  if (p->pp > 1) {
    stage_cost last = stage(&s, &gs, p->pp - 1, &layer, &emb, &head);
    if (last.f + last.b > worst.f + worst.b) worst = last;
  }
  double per_mb = worst.f + worst.b;
  double vpp = p->schedule == SC_SCHED_INTERLEAVED && p->vpp > 1 ? p->vpp : 1;
  double bubble = p->pp > 1 ? (p->pp - 1) / vpp * per_mb : 0;

  /* pipeline send/recv: activations of one micro-batch cross each stage
   * boundary forward and gradients come back; Megatron's p2p is blocking */
  double pp_comm = 0;
  if (p->pp > 1) {
    double e = p->dtype == SC_FP32 || p->dtype == SC_TF32 ? 4 : 2;
    double act = (double)mb * s.model.seq / p->cp * s.model.hidden * e;
    if (p->sp && p->tp > 1) act /= p->tp;
    double t = grp_time(COLL_SEND_RECV, act, &gs.pp);
    pp_comm = 2.0 * t * (mbs + p->pp - 1) * vpp;
  }
  double params = step_stage_params(&s, 0);
  double plast = step_stage_params(&s, p->pp - 1);
  if (plast > params) params = plast;
  double dp = dp_exposed(&s, &gs, &worst, mbs, params);
  double opt = optimizer_time(&s, params);

  r->time.compute = mbs * worst.compute;
  r->time.host = mbs * worst.host;
  r->time.tp_comm = mbs * worst.comm;
  r->time.bubble = bubble;
  r->time.pp_comm = pp_comm;
  r->time.dp_comm = dp;
  r->time.optimizer = opt;
  r->step_s = r->time.compute + r->time.host + r->time.tp_comm + bubble +
              pp_comm + dp + opt;

  double tokens = (double)p->global_batch * s.model.seq;
  r->micro_batches = mbs;
  r->micro_batch = mb;
  r->tokens_per_s = tokens / r->step_s;
  r->seq_per_s = p->global_batch / r->step_s;
  r->model_flops = ops_model_flops(&s.model, tokens);
  r->hw_flops = r->model_flops *
                (p->recompute == SC_RECOMP_FULL ? 4.0 / 3.0 : 1.0);
  r->tflops_per_gpu = r->model_flops / r->step_s / s.cluster.gpus / 1e12;
  r->mfu = r->model_flops / r->step_s /
           (s.cluster.gpus * cost_peak(&s.cluster.gpu, p->dtype));
  r->params = sc_model_params(&s.model);
  step_memory(&s, mbs, &r->mem);
  return SC_OK;
}

int sc_explain_layer(const sc_scenario *in, sc_op_time *out, int max,
                     sc_error *err) {
  sc_scenario s = *in;
  int rc = sc_scenario_resolve(&s, err);
  if (rc != SC_OK) return -rc;
  grp_set gs;
  grp_build(&s, &gs);
  ops_list l;
  ops_layer(&s, s.plan.micro_batch, &l);
  static const char *const kinds[] = {"gemm", "attn", "mem", "comm"};
  int n = 0;
  for (int i = 0; i < l.n && n < max; i++, n++) {
    const ops_op *o = &l.op[i];
    sc_op_time *t = &out[n];
    memset(t, 0, sizeof *t);
    snprintf(t->name, sizeof t->name, "%s", o->name);
    snprintf(t->kind, sizeof t->kind, "%s", kinds[o->kind]);
    t->flops = o->flops;
    t->bytes = o->bytes;
    if (o->kind == OPS_COMM) {
      const coll_group *g = op_group(&gs, o->group);
      t->fwd_s = grp_time(o->coll, o->bytes, g);
      t->bwd_s = grp_time(conjugate(o->coll), o->bytes, g);
      continue;
    }
    t->fwd_s = op_compute(&s, o, PASS_FWD);
    t->bwd_s = op_compute(&s, o, PASS_BWD);
    if (o->kind == OPS_GEMM)
      t->eff = cost_gemm_eff(&s.cluster.gpu, s.plan.dtype, o->m, o->n, o->k, o->batch);
  }
  return n;
}
