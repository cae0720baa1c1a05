/*
 * job_event.c -- sc_predict_event: a scenario's plan through the event
 * engine (src/engine/event.h), beside the closed form of the same job.
 */
#include <string.h>

#include "core/mem.h"
#include "core/vec.h"
#include "engine/event.h"
#include "engine/fleet.h"
#include "job/job.h"

struct sc_event_pred {
  ev_out ev;             /* the run (owned) */
  double closed_step;    /* the closed form's step, s */
  sc_scenario s;         /* resolved */
  fleet dp;              /* the reduction of every group at once (topology) */
};

const fleet *event_pred_fleet(const sc_event_pred *p) { return &p->dp; }

double sc_event_closed_step(const sc_event_pred *p) { return p->closed_step; }

const ev_out *event_pred_run(const sc_event_pred *p) { return &p->ev; }

void sc_event_pred_free(sc_event_pred *p) {
  if (!p) return;
  ev_out_free(&p->ev);
  mem_free(p);
}

/* What the reduction of every data-parallel group at once does to the
 * stage's reduction as the closed form costs it (e in the closed form's
 * mode, its groups beside each other: docs/network.md "Replica groups at
 * once"), for the event engine to apply to its alone times. */
typedef struct dp_closed {
  double red;          /* stage 0's gradient reduction, s */
  double dp;           /* the step's exposed data-parallel time, s */
  double tail;         /* of dp, what is not the (bucketed) reduction of
                          the stage that ends the step, s */
} dp_closed;

static void dp_closed_of(const eng *e, dp_closed *out) {
  eng_step k;
  eng_step_of(e, &k);
  eng_dpred d, t;
  eng_dp_reduction(e, 0, k.worst, &d);
  eng_dp_reduction(e, k.dp_stage, k.worst, &t);
  out->red = d.red, out->dp = k.dp;
  out->tail = k.dp > t.exposed ? k.dp - t.exposed : 0;
}

/* The event engine's data-parallel factor and extra (ev_opts.dp_factor,
 * dp_extra) from the closed form's reduction (c, all groups at once) and
 * its own (a, alone): the buckets take c.red / a.red x their alone
 * time, the unbucketed reduction what the closed form exposes beyond
 * the alone one, and the tail after the buckets (ZeRO 1/2's parameter
 * gathers) what the closed form's tail takes beyond its alone one. Both 1 and 0 without a topology, where c and a agree.
 * (The flow engine's ratio of the fleet against one group alone, fleet.h,
 * scaled NCCL's alone time, which can exceed that group's flow time, by
 * the flows' slowdown; the closed form takes the larger of NCCL alone and
 * the flows of all groups.) */
static void dp_factors(const dp_closed *c, const dp_closed *a, ev_opts *eo) {
  eo->dp_factor = a->red > 0 && c->red > a->red ? c->red / a->red : 1;
  eo->dp_extra = c->dp > a->dp ? c->dp - a->dp : 0;
  eo->dp_tail_extra = c->tail > a->tail ? c->tail - a->tail : 0;
}

/* One collective's fleet factor, remembered. */
typedef struct fmemo {
  int group;
  coll_op op;
  double bytes, flex, factor;
} fmemo;

/* One collective's bytes per link on one stage, remembered. */
typedef struct lmemo {
  int group, stage;
  coll_op op;
  double bytes, flex;
  evs_demand d;        /* owned */
} lmemo;

/* What the comm_factor and comm_links callbacks need. */
typedef struct fctx {
  fleet_net *net;
  const sc_scenario *s;
  const xg *x;
  const eng *e;        /* the job's, its groups alone (eng.net_alone) */
  fmemo *m;
  int n, cap;
  lmemo *lm;
  int n_lm, cap_lm;
  int rc;              /* the first failure */
  sc_error err;
} fctx;

/* Group `group` as every copy of it in the stage runs at once (its
 * window): what the closed form costs a pass's collectives on. */
static grp at_once(const fctx *f, int group) {
  grp w = f->e->grps[group];
  w.window = eng_window(f->e->s, &f->x->groups[group]);
  return w;
}

/* A flex call's factor (engine/epflex.c): its time as the closed form
 * costs it, each leg on every copy of its group in the stage at once,
 * over its time alone. */
static double flex_factor(const fctx *f, int group, double bytes, double inter) {
  grp w = at_once(f, group);
  double alone = eng_flex_on(f->e, &f->e->grps[group], bytes, inter, NULL);
  double all = eng_flex_on(f->e, &w, bytes, inter, NULL);
  return alone > 0 ? all / alone : 1;
}

/* A collective's factor: its time as the closed form costs it, on every
 * copy of its group in the stage at once (the group's window), over its
 * time alone (as flex_factor, and as dp_factors for the reduction: the
 * closed form takes the larger of NCCL's time alone and the flows of all
 * groups, where the fleet's flow ratio would scale NCCL's alone time). */
static double coll_factor(const fctx *f, int group, coll_op op, double bytes) {
  grp w = at_once(f, group);
  double alone = eng_coll_on(f->e, &f->e->grps[group], op, bytes, NULL);
  double all = eng_coll_on(f->e, &w, op, bytes, NULL);
  return alone > 0 && all > alone ? all / alone : 1;
}

/* ev_opts.comm_factor: every group of the kind in the stage at once. */
static double comm_factor(void *ud, int group, coll_op op, double bytes, double flex) {
  fctx *f = ud;
  for (int i = 0; i < f->n; i++)
    if (f->m[i].group == group && f->m[i].op == op && f->m[i].bytes == bytes &&
        f->m[i].flex == flex)
      return f->m[i].factor;
  const xg_group *g = &f->x->groups[group];
  if (g->kind == XG_GROUP_DP || g->kind == XG_GROUP_PP || f->rc) return 1;
  double factor = flex >= 0 ? flex_factor(f, group, bytes, flex) : coll_factor(f, group, op, bytes);
  if (vec_grow((void **)&f->m, &f->cap, f->n + 1L, sizeof *f->m)) {
    f->rc = sc_error_set(&f->err, SC_ENOMEM, "out of memory remembering collectives");
    return 1;
  }
  f->m[f->n++] = (fmemo){group, op, bytes, flex, factor};
  return factor;
}

/* ev_opts.comm_links: the bytes the collective of every group of the
 * kind in pipeline stage `stage` puts on each link (a flex call: its two
 * legs', fleet_flex_at). */
static const evs_demand *comm_links(void *ud, int group, coll_op op, double bytes, double flex,
                                    int stage) {
  fctx *f = ud;
  for (int i = 0; i < f->n_lm; i++) {
    const lmemo *m = &f->lm[i];
    if (m->group == group && m->op == op && m->bytes == bytes && m->flex == flex &&
        m->stage == stage)
      return &m->d;
  }
  const xg_group *g = &f->x->groups[group];
  if (g->kind == XG_GROUP_DP || g->kind == XG_GROUP_PP || f->rc) return NULL;
  if (vec_grow((void **)&f->lm, &f->cap_lm, f->n_lm + 1L, sizeof *f->lm)) {
    f->rc = sc_error_set(&f->err, SC_ENOMEM, "out of memory remembering collectives");
    return NULL;
  }
  lmemo *m = &f->lm[f->n_lm];
  *m = (lmemo){group, stage, op, bytes, flex, {0}};
  int rc = flex >= 0 ? fleet_flex_at(f->net, f->s, g, bytes, flex, stage, &m->d, &f->err)
                     : fleet_group_at(f->net, f->s, g, op, bytes, stage, &m->d, &f->err);
  if (rc) {
    f->rc = rc;
    return NULL;
  }
  f->n_lm++;
  return &m->d;
}

static void fctx_free(fctx *f) {
  for (int i = 0; i < f->n_lm; i++) evs_demand_free(&f->lm[i].d);
  mem_free(f->lm), mem_free(f->m);
}

/* The event engine's step and critical path into r, the closed form's
 * prediction; rates scale with the step. */
static void adopt(sc_result *r, const ev_out *ev) {
  double k = r->step_s / ev->step_s;
  r->step_s = ev->step_s;
  r->time = ev->time;
  r->tokens_per_s *= k;
  r->seq_per_s *= k;
  r->tflops_per_gpu *= k;
  r->mfu *= k;
  r->mfu_lowp *= k;
}

/* What the loop's send/recv and reductions put on the topology's links
 * (evshare.h), owned. */
typedef struct links {
  double *bw;          /* per link, bytes/s */
  int n_links;
  evs_demand *fwd, *bwd, *dp; /* per boundary, per boundary, per stage */
} links;

static void links_free(links *l, int S) {
  for (int i = 0; l->dp && i < S; i++) {
    if (i < S - 1) evs_demand_free(&l->fwd[i]), evs_demand_free(&l->bwd[i]);
    evs_demand_free(&l->dp[i]);
  }
  mem_free(l->bw), mem_free(l->fwd), mem_free(l->bwd), mem_free(l->dp);
  memset(l, 0, sizeof *l);
}

/* Every stage boundary's sends both ways and every stage's reduction, on
 * the topology of n. SC_OK or the flow engine's errors. */
static int link_demands(fleet_net *n, const sc_scenario *s, const xg *x, links *l,
                        sc_error *err) {
  int S = x->n_stages;
  l->n_links = fleet_links(n, NULL);
  l->bw = mem_alloc(sizeof *l->bw * (size_t)(l->n_links > 0 ? l->n_links : 1));
  l->fwd = mem_calloc((size_t)S, sizeof *l->fwd);
  l->bwd = mem_calloc((size_t)S, sizeof *l->bwd);
  l->dp = mem_calloc((size_t)S, sizeof *l->dp);
  if (!l->bw || !l->fwd || !l->bwd || !l->dp) {
    links_free(l, S);
    return sc_error_set(err, SC_ENOMEM, "out of memory for the link demands");
  }
  fleet_links(n, l->bw);
  int rc = SC_OK;
  for (int b = 0; rc == SC_OK && b < S - 1; b++) {
    rc = fleet_pp(n, s, x, b, 0, &l->fwd[b], err);
    if (rc == SC_OK) rc = fleet_pp(n, s, x, b, 1, &l->bwd[b], err);
  }
  for (int st = 0; rc == SC_OK && st < S; st++) rc = fleet_dp_at(n, s, x, st, &l->dp[st], err);
  if (rc != SC_OK) links_free(l, S);
  return rc;
}

/* Cost e's stages with each group's collectives alone on the topology
 * (on = 1), or again with the groups of its kind beside it (on = 0, the
 * closed form's). The event engine starts from the alone times and
 * scales them by the fleet's factors (fleet.h), so the closed form's
 * times, which already hold those groups, would count them twice. Nothing
 * to do without a topology (both are the same). SC_OK or SC_ENOMEM. */
static int alone(eng *e, int on, sc_error *err) {
  if (!e->net || e->net_alone == on) return SC_OK;
  e->net_alone = on;
  return eng_prepare(e, err);
}

/* Run the prepared engine e (the plan of job j) through the event
 * engine into p and r. */
static int run_event(sc_job *j, eng *e, const sc_event_opts *o, int spans, sc_result *r,
                     sc_event_pred *p, sc_error *err) {
  eng_result(e, r);
  p->closed_step = r->step_s;
  p->s = *job_current(j);
  const sc_cluster *c = &p->s.cluster;
  ev_opts eo;
  memset(&eo, 0, sizeof eo);
  eo.fold = o ? o->fold : 1;
  eo.spans = spans;
  eo.straggler_gpu = c->straggler_slowdown > 0 ? c->straggler_gpu : -1;
  eo.straggler = c->straggler_slowdown;
  fctx fc = {0};
  fc.s = &p->s, fc.x = e->x, fc.e = e;
  dp_closed dc = {0, 0, 0}, da;
  if (e->net) dp_closed_of(e, &dc); /* only a topology's groups slow each other */
  int rc = alone(e, 1, err);
  if (rc == SC_OK) rc = fleet_open(&p->s, &fc.net, err);
  if (rc == SC_OK) rc = fleet_dp(fc.net, &p->s, e->x, &p->dp, err);
  eo.dp_factor = 1, eo.dp_extra = eo.dp_tail_extra = 0;
  if (rc == SC_OK && fc.net) dp_closed_of(e, &da), dp_factors(&dc, &da, &eo);
  if (fc.net) eo.comm_factor = comm_factor, eo.comm_links = comm_links, eo.comm_ud = &fc;
  links lk = {0};
  if (rc == SC_OK && fc.net) rc = link_demands(fc.net, &p->s, e->x, &lk, err);
  if (lk.bw) {
    eo.link_bw = lk.bw, eo.n_links = lk.n_links;
    eo.pp_fwd = lk.fwd, eo.pp_bwd = lk.bwd, eo.dp_dem = lk.dp;
  }
  if (rc == SC_OK) rc = ev_run(e, &eo, &p->ev, err);
  links_free(&lk, e->x->n_stages);
  if (rc == SC_OK && fc.rc) rc = sc_error_set(err, fc.rc, "%s", fc.err.msg);
  fctx_free(&fc);
  fleet_close(fc.net);
  int back = alone(e, 0, err);
  return rc == SC_OK ? back : rc;
}

int sc_job_predict_event(sc_job *j, const sc_plan *plan, const sc_event_opts *o, sc_result *r,
                         sc_event_pred **out, sc_error *err) {
  if (out) *out = NULL;
  sc_event_pred *p = mem_calloc(1, sizeof *p);
  if (!p) return sc_error_set(err, SC_ENOMEM, "out of memory for the event engine");
  eng *e;
  int rc = job_prepare(j, plan, &e, err);
  if (rc == SC_OK) rc = run_event(j, e, o, o && o->trace && out, r, p, err);
  rc = job_settle(j, rc, err);
  if (rc == SC_OK) adopt(r, &p->ev);
  if (rc != SC_OK || !out) sc_event_pred_free(p);
  else *out = p;
  return rc;
}

int sc_predict_event(const sc_scenario *s, const sc_event_opts *o, sc_result *r,
                     sc_event_pred **out, sc_error *err) {
  if (out) *out = NULL;
  sc_scenario t = *s;
  int rc = sc_scenario_resolve(&t, err);
  if (rc != SC_OK) return rc;
  sc_job *j;
  if ((rc = sc_job_open(&t, &j, err)) != SC_OK) return rc;
  rc = sc_job_predict_event(j, NULL, o, r, out, err);
  sc_job_close(j);
  return rc;
}
