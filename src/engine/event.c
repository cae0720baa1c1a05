/*
 * event.c -- the event engine (see event.h): pass templates per stage,
 * the simulation of one pass's tasks on the streams of a rank class, and
 * the event loop over the pipeline and the data-parallel reduction.
 */
#include "engine/event.h"

#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/heap.h"
#include "core/mem.h"
#include "core/vec.h"
#include "cost/compute.h"
#include "engine/evint.h"
#include "engine/fp8amax.h"
#include "lower/lower.h"
#include "pipeline/pipe.h"

const char *ev_stream_name(ev_stream s) {
  static const char *const names[EV_STREAMS] = {"compute", "TP", "CP",      "EP",  "MP",
                                                "PP",      "DP", "offload", "host"};
  return s >= 0 && s < EV_STREAMS ? names[s] : "?";
}

double ev_overlap(double comm, double work, double share) {
  return share * (comm < work ? comm : work);
}

void ev_out_free(ev_out *o) {
  mem_free(o->path), mem_free(o->spans), mem_free(o->names), mem_free(o->segs);
  memset(o, 0, sizeof *o);
}

/* ------------------------------------------------------------ names */

/* The index of name in out->names, added if new; -1 when out of memory.
 * Linear: a job has a few dozen distinct task names. */
int ev_name(ev_out *out, int *cap, const char *name) {
  for (int i = 0; i < out->n_names; i++)
    if (!strcmp(out->names[i], name)) return i;
  if (vec_grow((void **)&out->names, cap, out->n_names + 1L, sizeof *out->names)) return -1;
  size_t len = strlen(name);
  if (len >= sizeof out->names[0]) len = sizeof out->names[0] - 1; /* cut long op names */
  memcpy(out->names[out->n_names], name, len);
  out->names[out->n_names][len] = 0;
  return out->n_names++;
}

/* ------------------------------------------------------- templates */

static ev_stream stream_of(const xg *x, const xg_task *t) {
  if (t->kind != XG_COMM) return EV_COMPUTE;
  switch (x->groups[t->group].kind) {
  case XG_GROUP_TP: return EV_TP;
  case XG_GROUP_CP: return EV_CP;
  case XG_GROUP_EP: return EV_EP;
  case XG_GROUP_DP: return EV_DP;
  case XG_GROUP_PP: return EV_PP;
  default: return EV_MP;
  }
}

/* The backward of collective t marked XG_OVL_WGRAD (eng_wgrad_exposed):
 * the GEMM's weight gradient it runs beside and, for a sequence-parallel
 * gather, the re-gather beside the data gradient, lengthened as q->gpu is
 * by the other groups of the kind beside it. */
static void wgrad_windows(ev_ctx *c, const xg_segment *sg, const xg_task *t, ev_task *q) {
  const eng *e = c->e;
  const xg_task *g = &e->x->tasks[sg->first_task + t->wgrad];
  q->window = eng_task_wgrad(e, g);
  q->regather = eng_regather(e, t, &q->share2);
  if (q->regather <= 0) return;
  q->dgrad = eng_task_dgrad(e, g);
  q->regather_bytes = xg_regather_bytes(t);
  if (c->o->comm_factor) {
    double f = c->o->comm_factor(c->o->comm_ud, t->group, COLL_ALL_GATHER, q->regather_bytes, -1);
    if (f > 1) q->regather *= f, q->share2.hbm /= f;
  }
}

/* Append task i of segment sg as pass kind k ('F', 'R' recompute, 'B';
 * 'b' the backward less its weight gradients, 'W' those alone). */
static int add_task(ev_ctx *c, const xg_segment *sg, int i, char k, ev_tmpl *tp) {
  const eng *e = c->e;
  const xg_task *t = &e->x->tasks[sg->first_task + i];
  if (vec_grow((void **)&tp->t, &tp->cap, tp->n + 1L, sizeof *tp->t)) return -1;
  ev_task *q = &tp->t[tp->n++];
  char kind = k == 'b' || k == 'W' ? 'B' : k;
  int bwd = kind == 'B';
  char buf[96] = "recompute ";
  size_t pre = k == 'R' ? strlen(buf) : 0;
  lower_task_name(t, buf + pre, sizeof buf - pre);
  if (k == 'W') {
    size_t len = strlen(buf);
    snprintf(buf + len, sizeof buf - len, " (wgrad)");
  }
  q->name = ev_name(c->out, &c->cap_names, buf);
  if (q->name < 0) return -1;
  q->stream = stream_of(e->x, t);
  q->pass = kind;
  q->overlap = t->kind == XG_COMM ? (int)t->overlap : XG_OVL_NONE;
  q->share = (grp_share){0, 0};
  q->mem = t->kind == XG_MEM;
  q->grads = 0;
  q->bytes = 0, q->group = -1, q->op = COLL_ALL_REDUCE, q->flex = -1;
  q->window = q->regather = q->regather_bytes = q->dgrad = 0;
  q->share2 = (grp_share){0, 0};
  q->window_mem = 0;
  if (t->kind == XG_COMM) {
    q->gpu = eng_task_comm_share(e, t, bwd, &q->share);
    coll_op op = xg_comm_op(t, bwd);
    q->bytes = xg_comm_bytes(t, bwd), q->group = t->group, q->op = op;
    q->flex = t->flex ? t->flex_inter : -1;
    if (c->o->comm_factor) { /* the other groups of the kind beside it */
      double f = c->o->comm_factor(c->o->comm_ud, t->group, op, q->bytes, q->flex);
      if (f > 1) q->gpu *= f, q->share.hbm /= f; /* the same bytes, longer */
    }
    if (bwd && t->overlap == XG_OVL_WGRAD) wgrad_windows(c, sg, t, q);
    if (t->overlap == XG_OVL_OTHER) q->window = eng_other_window(e, sg, bwd, &q->window_mem);
    if (t->overlap == XG_OVL_SHARED)
      q->window = eng_shared_window(e, sg, t->shared, bwd, &q->window_mem);
  } else {
    q->gpu = eng_task_compute(e, t, bwd);
  }
  /* the host side, as the analytic engine's queue (analytic.c enqueue) */
  q->host = eng_task_host(e, sg, i, bwd, k == 'R');
  /* a split backward: its weight-gradient GEMMs and their launches run
   * in the W pass (analytic.c PASS_BWD_IN, PASS_WGRAD) */
  if (k == 'b' && t->kind != XG_COMM) q->gpu -= eng_task_wgrad(e, t);
  if (k == 'b') q->host -= eng_wgrad_host(e, sg, i);
  if (k == 'W') q->gpu = eng_task_wgrad(e, t), q->host = eng_wgrad_host(e, sg, i), q->pass = 'W';
  return 0;
}

/* 1 if task i of sg is a collective hidden under the kernel after it in
 * the forward order (XG_OVL_NEXT before a compute task). */
static int hides_under_next(const xg *x, const xg_segment *sg, int i) {
  const xg_task *t = &x->tasks[sg->first_task + i];
  return t->kind == XG_COMM && t->overlap == XG_OVL_NEXT && i + 1 < sg->n_tasks &&
         x->tasks[sg->first_task + i + 1].kind != XG_COMM;
}

/* The weight-gradient GEMMs of sg's backward, in its order ('W'). */
static int add_wgrads(ev_ctx *c, const xg_segment *sg, ev_tmpl *tp) {
  for (int i = sg->n_tasks - 1; i >= 0; i--)
    if (eng_task_wgrad(c->e, &c->e->x->tasks[sg->first_task + i]) > 0 &&
        add_task(c, sg, i, 'W', tp))
      return -1;
  return 0;
}

/* The template of stage s: bwd 0 its forward, 1 its backward, 2 the
 * backward less its weight gradients, 3 those: its runs' segments in
 * order (backward: reversed, each segment's recomputation first). */
static int build_tmpl(ev_ctx *c, int s, int bwd, ev_tmpl *tp) {
  const xg *x = c->e->x;
  const xg_stage *st = &x->stages[s];
  tp->n = 0;
  for (int j = 0; j < st->n_runs; j++) {
    const xg_run *r = &x->runs[st->first_run + (bwd ? st->n_runs - 1 - j : j)];
    const xg_segment *sg = &x->segs[r->segment];
    for (int rep = 0; rep < r->count; rep++) {
      if (bwd == 3) {
        if (add_wgrads(c, sg, tp)) return -1;
        continue;
      }
      if (!bwd) {
        for (int i = 0; i < sg->n_tasks; i++)
          if (add_task(c, sg, i, 'F', tp)) return -1;
        continue;
      }
      for (int i = 0; i < sg->n_tasks && sg->recompute == SC_RECOMP_FULL; i++)
        if (add_task(c, sg, i, 'R', tp)) return -1;
      /* selective: each level re-runs the tasks its modules hold (as
       * analytic.c build_queues) */
      for (int lv = 1; sg->recompute == SC_RECOMP_SELECTIVE && lv <= sg->recomp_depth; lv++)
        for (int i = 0; i < sg->n_tasks; i++)
          if (x->tasks[sg->first_task + i].recompute_sel >= lv && add_task(c, sg, i, 'R', tp))
            return -1;
      for (int i = sg->n_tasks - 1; i >= 0; i--) {
        /* a collective hidden under the kernel after it (the context-
         * parallel ring before its attention) runs beside that kernel's
         * backward too (TE's ring attention sends the next K/V chunk
         * while the backward of this one runs; analytic.c task_gpu):
         * issued just before it, not after it */
        int pair = i > 0 && hides_under_next(x, sg, i - 1);
        char k = bwd == 2 ? 'b' : 'B';
        if (pair && add_task(c, sg, i - 1, k, tp)) return -1;
        /* a GEMM whose weight gradient a collective runs beside: its data
         * gradient here, the weight gradient after that collective
         * (analytic.c eng_wgrad_split) */
        int split = bwd == 1 && eng_wgrad_split(c->e, sg, i);
        int ci = bwd == 1 ? eng_regather_first(c->e, sg, i) : -1;
        if (ci >= 0) { /* its re-gather before the data gradient */
          if (add_task(c, sg, ci, 'B', tp)) return -1;
          ev_task *ag = &tp->t[tp->n - 1]; /* its bytes on the links once */
          ag->gpu = ag->host = ag->window = ag->bytes = 0;
        }
        if (add_task(c, sg, i, split ? 'b' : k, tp)) return -1;
        const xg_task *t = &x->tasks[sg->first_task + i];
        if (bwd == 1 && t->kind == XG_COMM && t->overlap == XG_OVL_WGRAD &&
            eng_regather_first(c->e, sg, t->wgrad) == i)
          tp->t[tp->n - 1].regather = tp->t[tp->n - 1].regather_bytes = 0; /* queued before */
        if (bwd == 1 && t->kind == XG_COMM && t->overlap == XG_OVL_WGRAD &&
            eng_wgrad_split(c->e, sg, t->wgrad)) {
          if (add_task(c, sg, t->wgrad, 'W', tp)) return -1;
          tp->t[tp->n - 1].pass = 'B'; /* in the whole backward */
        }
        i -= pair;
      }
      /* the layer's gradients are complete after its first task's backward
       * (as analytic.c grad_reduction counts them) */
      if (sg->n_tasks > 0 && sg->block >= 0 && sg->zero < 3 && bwd == 1)
        tp->t[tp->n - 1].grads = xg_seg_params(sg, s);
    }
  }
  return 0;
}

/* Activation offloading (plan.offload_layers): what the first layers'
 * copies to host memory (forward) and back (backward) leave exposed, as
 * the step model charges it (analytic.c stage_cost: the stream's waits on
 * the copies, offload.h): one task at the end of the pass on the offload
 * stream. 0 or -1. */
static int add_offload(ev_ctx *c, int s, int bwd, ev_tmpl *tp) {
  const eng_stage *st = &c->e->st[s];
  double t = bwd ? st->offload - st->offload_f : st->offload_f;
  if (t <= 0) return 0;
  if (vec_grow((void **)&tp->t, &tp->cap, tp->n + 1L, sizeof *tp->t)) return -1;
  int name = ev_name(c->out, &c->cap_names, "activation offload (exposed)");
  if (name < 0) return -1;
  /* the fields not named are 0 */
  tp->t[tp->n++] = (ev_task){.name = name, .stream = EV_OFFLOAD, .overlap = XG_OVL_NONE,
                             .pass = bwd ? 'B' : 'F', .gpu = t, .group = -1,
                             .op = COLL_ALL_REDUCE, .flex = -1};
  return 0;
}

/* Delayed scaling's amax reductions of stage s (engine/fp8amax.h) at
 * the end of its forward or backward (the split one: its B), as the
 * closed form runs them (analytic.c run_amax): collectives the compute
 * stream waits for, on the TP stream (the tensor-parallel line: they
 * block every micro-batch as its collectives do). 0 or -1. */
static int add_amax(ev_ctx *c, int s, int bwd, ev_tmpl *tp) {
  amax_red a = amax_of(c->e, s, bwd);
  if (a.n <= 0) return 0;
  if (vec_grow((void **)&tp->t, &tp->cap, tp->n + (long)a.n, sizeof *tp->t)) return -1;
  int name = ev_name(c->out, &c->cap_names, "fp8 amax all-reduce");
  if (name < 0) return -1;
  for (int i = 0; i < a.n; i++) /* the fields not named are 0 */
    tp->t[tp->n++] = (ev_task){.name = name, .stream = EV_TP, .overlap = XG_OVL_NONE,
                               .pass = bwd ? 'B' : 'F', .gpu = a.gpu, .host = a.host,
                               .group = -1, .op = COLL_ALL_REDUCE, .flex = -1};
  return 0;
}

/* Templates bwd and bwd + 1 of every stage into t (2 per stage). */
static int build_all(ev_ctx *c, ev_tmpl *t, int bwd) {
  const xg *x = c->e->x;
  for (int s = 0; s < x->n_stages; s++) {
    int src = x->stages[s].same_as >= 0 ? x->stages[s].same_as : s;
    for (int b = 0; b < 2; b++) {
      if (src != s) { /* shares the template of an equal stage */
        t[2 * s + b] = t[2 * src + b];
        t[2 * s + b].shared = 1;
        continue;
      }
      if (build_tmpl(c, s, bwd + b, &t[2 * s + b])) return -1;
      if (bwd + b < 3 && add_amax(c, s, bwd + b > 0, &t[2 * s + b])) return -1;
      /* the offload copies' exposed part ends the forward and the
       * backward (the split one: its W's follow it) */
      if (bwd + b < 3 && c->e->s->plan.offload_layers > 0 &&
          add_offload(c, s, bwd + b > 0, &t[2 * s + b]))
        return -1;
    }
  }
  return 0;
}

int ev_templates(ev_ctx *c) {
  const xg *x = c->e->x;
  c->tm = mem_calloc((size_t)2 * x->n_stages, sizeof *c->tm);
  if (!c->tm) return -1;
  c->n_tm = 2 * x->n_stages;
  if (build_all(c, c->tm, 0)) return -1;
  if (!pipe_for(c->e->s->plan.schedule)->splits) return 0;
  c->tw = mem_calloc((size_t)2 * x->n_stages, sizeof *c->tw);
  return c->tw ? build_all(c, c->tw, 2) : -1;
}

const ev_tmpl *ev_tmpl_of(const ev_ctx *c, int s, const pipe_pass *p) {
  int t = pipe_chunk_stage(&c->sh, s, p->chunk);
  if (p->kind == 'W') return &c->tw[2 * t + 1];
  if (p->kind == 'B' && p->split) return &c->tw[2 * t];
  return &c->tm[2 * t + (p->kind == 'B')];
}

int ev_dem_of(const ev_ctx *c, int s, const pipe_pass *p) {
  (void)c;
  return 2 * s + (p->kind != 'F');
}

void ev_templates_free(ev_ctx *c) {
  for (int i = 0; i < c->n_tm; i++) {
    if (!c->tm[i].shared) mem_free(c->tm[i].t), mem_free(c->tm[i].bk_task), mem_free(c->tm[i].bk_dur);
    if (c->tw && !c->tw[i].shared) mem_free(c->tw[i].t);
  }
  mem_free(c->tm), mem_free(c->tw);
  c->tm = c->tw = NULL;
}

/* ------------------------------------------------------ one pass */

/* Add t seconds of task `name` on stream s to the critical path parts
 * (when accumulating) and to the categories. */
static void charge(ev_ctx *c, ev_pass_acc *acc, int name, ev_stream s, double t) {
  if (t <= 0) return;
  acc->cat[s] += t;
  if (c->acc_parts) ev_part_add(c, name, s, t);
}

static void span(ev_ctx *c, int cls, ev_stream s, int name, int mb, char pass, double t0,
                 double dur) {
  if (!c->out_spans || dur <= 0) return;
  if (c->out->n_spans >= c->cap_spans) {
    c->span_oom = 1; /* sized in advance (ev_count_spans); never */
    return;
  }
  c->out->spans[c->out->n_spans++] = (ev_span){cls, s, name, mb, pass, t0, dur};
}

/* Run template tp of class cls from time t0 (compute stream free then)
 * with the host at *h; returns the pass's end. The kernels of a
 * straggler class take `slow` times longer. Categories go to acc, spans
 * to the trace when recording. With issue (the last backward of a class,
 * buckets on), when each gradient bucket of tp leaves: the end of the
 * task that completes it. */
double ev_pass(ev_ctx *c, const ev_tmpl *tp, int cls, int mb, double t0, double *h,
               double slow, ev_pass_acc *acc, double *issue) {
  double g = t0, prev_w = 0;
  int prev_mem = 0;
  int nbk = issue ? tp->nbk : 0, k = 0;
  memset(acc, 0, sizeof *acc);
  for (int i = 0; i < tp->n; i++) {
    while (k < nbk && tp->bk_task[k] < i) issue[k++] = g; /* the tasks before i ended at g */
    const ev_task *q = &tp->t[i];
    char pk = q->pass;
    *h += q->host * c->scale;
    double ready = *h > g ? *h : g;
    charge(c, acc, c->host_name, EV_HOST, ready - g);
    if (q->stream == EV_COMPUTE) {
      double w = q->gpu * c->scale * slow;
      span(c, cls, EV_COMPUTE, q->name, mb, pk, ready, w);
      charge(c, acc, q->name, EV_COMPUTE, w);
      g = ready + w;
      if (w > 0) prev_w = w, prev_mem = q->mem; /* as analytic.c enqueue */
      continue;
    }
    double cg = q->gpu * c->scale; /* the collective's own time */
    if (q->overlap == XG_OVL_PREV) {
      /* beside the GEMM before it, never hidden beyond 90 % of itself */
      double lim = prev_w < 0.9 * cg ? prev_w : 0.9 * cg;
      double extra = ev_overlap(cg, lim, grp_slow(q->share, prev_mem));
      double exposed = cg - (cg < lim ? cg : lim) + extra;
      span(c, cls, q->stream, q->name, mb, pk, ready + exposed - cg - extra, cg + extra);
      charge(c, acc, q->name, q->stream, exposed);
      g = ready + exposed;
      continue;
    }
    if (q->overlap == XG_OVL_WGRAD && pk == 'B') {
      /* issued after its GEMM's data gradient, waited for after the
       * weight gradient (eng_wgrad_exposed): that GEMM covers it */
      double lim = q->window * c->scale * slow, ag = q->regather * c->scale;
      double lim2 = q->dgrad * c->scale * slow;
      double extra = ev_overlap(cg, lim, grp_slow(q->share, 0)) +
                     ev_overlap(ag, lim2, grp_slow(q->share2, 0));
      double exposed = cg - (cg < lim ? cg : lim) + ag - (ag < lim2 ? ag : lim2) + extra;
      cg += ag;
      span(c, cls, q->stream, q->name, mb, pk, ready + exposed - cg - extra, cg + extra);
      charge(c, acc, q->name, q->stream, exposed);
      g = ready + exposed;
      continue;
    }
    if (q->overlap == XG_OVL_OTHER || q->overlap == XG_OVL_SHARED) {
      /* combined 1F1B (plan.overlap_ep): beside the other micro-batch's
       * pass, which this one does not run; charged as the closed form
       * charges it (eng_other_window: its share of that pass's compute,
       * averaged over the paired passes). The shared experts' overlap
       * likewise, beside their kernels of its side (eng_shared_window),
       * which the compute stream runs as well */
      double lim = q->window * c->scale * slow;
      double extra = ev_overlap(cg, lim, grp_slow(q->share, q->window_mem));
      double exposed = cg - (cg < lim ? cg : lim) + extra;
      span(c, cls, q->stream, q->name, mb, pk, ready + exposed - cg - extra, cg + extra);
      charge(c, acc, q->name, q->stream, exposed);
      g = ready + exposed;
      continue;
    }
    if (q->overlap == XG_OVL_NEXT && i + 1 < tp->n && tp->t[i + 1].stream == EV_COMPUTE) {
      /* beside the next kernel: both start together, both slow down */
      const ev_task *nx = &tp->t[i + 1];
      double w = nx->gpu * c->scale * slow, extra = ev_overlap(cg, w, grp_slow(q->share, nx->mem));
      *h += nx->host * c->scale;
      double nready = *h > ready ? *h : ready;
      double cend = ready + cg + extra, wend = nready + w + extra;
      span(c, cls, q->stream, q->name, mb, pk, ready, cg + extra);
      span(c, cls, EV_COMPUTE, nx->name, mb, pk, nready, w + extra);
      charge(c, acc, c->host_name, EV_HOST, nready - ready);
      charge(c, acc, nx->name, EV_COMPUTE, w + extra);
      charge(c, acc, q->name, q->stream, cend - wend);
      g = cend > wend ? cend : wend;
      prev_w = w, prev_mem = nx->mem;
      i++;
      continue;
    }
    /* a collective the compute stream waits for */
    span(c, cls, q->stream, q->name, mb, pk, ready, cg);
    charge(c, acc, q->name, q->stream, cg);
    g = ready + cg;
  }
  while (k < nbk) issue[k++] = g;
  return g;
}
