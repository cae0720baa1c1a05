/*
 * critpath.c -- the critical path of an event-engine run: from the
 * optimizer step that ends last, back through the reduction (and the
 * replica that was ready last), then pass by pass through whatever set
 * each pass's start -- the stage's previous pass (and its blocking send)
 * or the producer on the neighbouring stage plus the send/recv -- to the
 * first pass at time 0. Every second of the step lies on exactly one
 * piece of the path, so the parts add up to the step.
 *
 * The parts, by docs/model.md section 4's definition (step = micro-batches
 * x (F + B) of the slowest stage + fill/drain + send/recv + exposed
 * reduction + optimizer), which the closed form also reports: every pass
 * of the slowest stage of the path's replica (the most pass time: the
 * pipeline's pace), on the path or not, by its tasks' time on the compute
 * chain (kernels, exposed collectives by stream, launch gaps as "host");
 * the rest of the path's pass time is the fill and drain ("bubble"); sends
 * on the path are pipeline communication. A path that wanders between
 * stages of near-equal pace in the steady state (uneven first/last
 * stages) thus does not count the steady state of the others as bubble.
 * Where the slowest stage's passes exceed the path's pass time (its
 * passes ran beside sends on the path) the parts fall back to the path's
 * own passes: those of the stage it spends most time on by task, the
 * others as fill/drain.
 */
#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/mem.h"
#include "engine/evint.h"

void ev_part_add(ev_ctx *c, int name, ev_stream s, double t) {
  long i = (long)name * EV_STREAMS + s;
  c->part_s[i] += t;
  c->part_n[i]++;
}

/* Add t of a task outside the passes to the parts (second walk only). */
static void outside(ev_ctx *c, int name, ev_stream s, double t) {
  if (c->acc_parts && t > 0) ev_part_add(c, name, s, t);
}

/* The node of the path where the last instance i of a class frees it:
 * its send's end if it sent and the stage waits for its sends (1), else
 * its pass's end (0). */
static int through_send(const ev_ctx *c, long i) { return c->inst[i].sent && !c->async; }

/* What a pass lost to links it shared with other traffic (evlinks.c),
 * `extra` s beyond its replay: its collectives', split by their kind's
 * share of its collective time, as "collectives slowed by shared links". */
static void shared_links(ev_ctx *c, ev_pass_acc *acc, double extra) {
  static const ev_stream kinds[] = {EV_TP, EV_CP, EV_EP, EV_MP};
  double comm = 0;
  for (int i = 0; i < 4; i++) comm += acc->cat[kinds[i]];
  if (extra <= 1e-15 || comm <= 0) return;
  for (int i = 0; i < 4; i++) {
    double t = extra * acc->cat[kinds[i]] / comm;
    if (t <= 0) continue;
    acc->cat[kinds[i]] += t;
    if (c->acc_parts) ev_part_add(c, c->share_name, kinds[i], t);
  }
}

/* Replay pass `in` into the breakdown and (second walk) the parts: its
 * tasks' time on the compute chain. */
static void replay(ev_ctx *c, const ev_inst *in, sc_breakdown *b) {
  ev_pass_acc acc;
  double h = in->host_in;
  double slow = in->cls == c->straggler_cls ? c->slow : 1;
  double end = ev_pass(c, in->tp, in->cls, in->mb, in->start, &h, slow, &acc, NULL);
  assert(end <= in->end + 1e-9 * (1 + end) && "a pass replays differently");
  assert((c->pdem || fabs(end - in->end) <= 1e-9 * (1 + end)) && "a pass replays differently");
  shared_links(c, &acc, in->end - end);
  b->compute += acc.cat[EV_COMPUTE];
  b->host += acc.cat[EV_HOST];
  b->tp_comm += acc.cat[EV_TP] + acc.cat[EV_CP] + acc.cat[EV_MP];
  b->ep_comm += acc.cat[EV_EP];
  b->pp_comm += acc.cat[EV_PP];
  b->dp_comm += acc.cat[EV_DP];
  b->offload += acc.cat[EV_OFFLOAD];
}

/* How a walk counts the passes on the path. */
typedef struct walk_mode {
  int dom;          /* < 0: sum the path's pass time per stage into
                       stage_t (first walk); else the stage whose passes on
                       the path are broken into tasks (fallback) */
  int pace;         /* 1: passes on the path only sum into pass_t (the
                       pace stage's passes are replayed after the walk) */
  double *stage_t;  /* per stage, s (first walk) */
  double pass_t;    /* out: the path's pass time, s */
  int rep;          /* out: the replica of the path's passes */
  long others;      /* out: passes on the path not of stage dom */
} walk_mode;

/* One pass on the path: its time into the walk's sums, or into the
 * breakdown and parts (its tasks when it is of stage dom, else
 * fill/drain). */
static void on_pass(ev_ctx *c, const ev_inst *in, walk_mode *w, sc_breakdown *b) {
  int st = in->cls % c->S;
  double dur = in->end - in->start;
  w->pass_t += dur;
  w->rep = in->cls / c->S;
  w->others += st != w->dom;
  if (w->dom < 0) {
    w->stage_t[st] += dur;
    return;
  }
  if (w->pace) return;
  if (st != w->dom) {
    b->bubble += dur;
    outside(c, c->fill_name, EV_COMPUTE, dur);
    return;
  }
  replay(c, in, b);
}

/* Record a piece of the path (second walk; pieces come last first). */
static void seg(ev_ctx *c, int cls, int mb, char kind, double start, double dur) {
  ev_out *o = c->out;
  if (!c->acc_parts) {
    o->n_segs++; /* first walk: count */
    return;
  }
  o->segs[o->n_segs++] = (ev_seg){cls, mb, kind, start, dur};
}

/* One walk, counting the passes as w says (on_pass); the rest into the
 * breakdown b and, on the second walk, the parts. Nodes: a pass's end
 * (its duration back to its start, which its pred's free point set) or a
 * send's end (p2p back to its start, set by the sender's pass end or by
 * the receiver's previous pass end). */
static void walk(ev_ctx *c, walk_mode *w, sc_breakdown *b) {
  int S = c->S, cls = 0;
  for (int k = 1; k < c->C; k++)
    if (c->end[k] > c->end[cls]) cls = k;
  int s = cls % S;
  c->acc_parts = w->dom >= 0;
  w->pass_t = 0, w->others = 0;
  b->optimizer += c->opt;
  outside(c, c->opt_name, EV_COMPUTE, c->opt);
  seg(c, cls, -1, 'O', c->end[cls] - c->opt, c->opt);
  b->dp_comm += c->dpx[s];
  outside(c, c->dp_name, EV_DP, c->dpx[s]);
  seg(c, cls, -1, 'D', c->dp_start[s], c->dpx[s]);
  int cr = c->dp_who[s] * S + s;
  long id = c->base[cr] + c->count[s] - 1;
  int send = through_send(c, id);
  for (;;) {
    const ev_inst *in = &c->inst[id];
    if (send) {
      double d = in->arrive - in->send_start; /* p2p, longer when it shared links */
      b->pp_comm += d;
      outside(c, c->send_name, EV_PP, d);
      seg(c, in->cls, in->mb, 'S', in->send_start, d);
      if (in->send_pred >= 0) id = in->send_pred; /* waited for the receiver */
      send = 0;
      continue;
    }
    on_pass(c, in, w, b);
    seg(c, in->cls, in->mb, in->kind, in->start, in->end - in->start);
    if (in->pred < 0) break;
    send = in->pred_send;
    id = in->pred;
  }
  c->acc_parts = 0;
}

/* The time class cls's passes take, s: its work, as the path would
 * count it were every pass on it. */
static double class_pass_t(const ev_ctx *c, int cls) {
  double t = 0;
  const ev_inst *in = &c->inst[c->base[cls]];
  for (int i = 0; i < c->count[cls % c->S]; i++) t += in[i].end - in[i].start;
  return t;
}

/* The pace stage's class cls into the breakdown b and the parts: every
 * one of its passes by its tasks, and the rest of the path's pass time w
 * as fill/drain, counted as the path's passes of the other stages (0
 * within rounding: the sums run in different orders). */
static void pace_parts(ev_ctx *c, int cls, double pace_t, const walk_mode *w, sc_breakdown *b) {
  c->acc_parts = 1;
  const ev_inst *in = &c->inst[c->base[cls]];
  for (int i = 0; i < c->count[cls % c->S]; i++) replay(c, &in[i], b);
  double fill = w->pass_t - pace_t;
  if (fill <= 1e-12 * w->pass_t) fill = 0;
  b->bubble += fill;
  if (fill > 0) {
    long k = (long)c->fill_name * EV_STREAMS + EV_COMPUTE;
    c->part_s[k] += fill;
    c->part_n[k] += w->others;
  }
  c->acc_parts = 0;
}

static int cmp_part(const void *a, const void *b) {
  const ev_part *x = a, *y = b;
  if (x->seconds != y->seconds) return x->seconds > y->seconds ? -1 : 1;
  if (x->name != y->name) return x->name < y->name ? -1 : 1;
  return (x->stream > y->stream) - (x->stream < y->stream);
}

int ev_critical(ev_ctx *c) {
  ev_out *o = c->out;
  long n = (long)o->n_names * EV_STREAMS;
  c->part_s = mem_calloc((size_t)n, sizeof *c->part_s);
  c->part_n = mem_calloc((size_t)n, sizeof *c->part_n);
  double *stage_t = mem_calloc((size_t)c->S, sizeof *stage_t);
  if (!c->part_s || !c->part_n || !stage_t) {
    mem_free(stage_t);
    return -1;
  }
  sc_breakdown scratch;
  memset(&scratch, 0, sizeof scratch);
  walk_mode w = {-1, 0, stage_t, 0, 0, 0};
  walk(c, &w, &scratch);
  int dom = 0;
  for (int s = 1; s < c->S; s++)
    if (stage_t[s] > stage_t[dom] * (1 + 1e-12)) dom = s;
  int pace = 0;
  for (int s = 0; s < c->S; s++) stage_t[s] = class_pass_t(c, w.rep * c->S + s);
  for (int s = 1; s < c->S; s++)
    if (stage_t[s] > stage_t[pace] * (1 + 1e-12)) pace = s;
  double pace_t = stage_t[pace];
  mem_free(stage_t);
  int by_pace = pace_t <= w.pass_t * (1 + 1e-9);
  memset(&o->time, 0, sizeof o->time);
  o->segs = mem_alloc(sizeof *o->segs * (size_t)(o->n_segs > 0 ? o->n_segs : 1));
  if (!o->segs) return -1;
  o->n_segs = 0;
  w = (walk_mode){by_pace ? pace : dom, by_pace, NULL, 0, 0, 0};
  walk(c, &w, &o->time);
  if (by_pace) pace_parts(c, w.rep * c->S + pace, pace_t, &w, &o->time);
  for (long i = 0, j = o->n_segs - 1; i < j; i++, j--) { /* into time order */
    ev_seg t = o->segs[i];
    o->segs[i] = o->segs[j], o->segs[j] = t;
  }
  int k = 0;
  for (long i = 0; i < n; i++) k += c->part_s[i] > 0;
  o->path = mem_alloc(sizeof *o->path * (size_t)(k > 0 ? k : 1));
  if (!o->path) return -1;
  o->n_path = 0;
  for (long i = 0; i < n; i++)
    if (c->part_s[i] > 0)
      o->path[o->n_path++] = (ev_part){(int)(i / EV_STREAMS), (ev_stream)(i % EV_STREAMS),
                                       c->part_s[i], c->part_n[i]};
  qsort(o->path, (size_t)o->n_path, sizeof *o->path, cmp_part);
#ifdef SC_DEBUG_CHECKS
  const sc_breakdown *b = &o->time;
  double sum = b->compute + b->host + b->tp_comm + b->ep_comm + b->pp_comm + b->bubble +
               b->dp_comm + b->optimizer + b->offload;
  assert(fabs(sum - o->step_s) <= 1e-9 * (1 + o->step_s) && "critical path != step");
#endif
  return 0;
}
