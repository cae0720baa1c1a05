/*
 * evloop.c -- the event engine's loop (see event.h): passes of every rank
 * class in their pipeline order, each starting when its stage is free and
 * its producer's output has arrived; after the last pass the reduction
 * across the stage's replicas, then the optimizer.
 */
#include <assert.h>
#include <math.h>
#include <string.h>

#include "core/heap.h"
#include "core/mem.h"
#include "engine/evint.h"

/* Index of (class, chunk, mb) in idf / idb. */
#define CELL(c, ch, mb) (((size_t)(c) * ctx->vpp + (ch)) * ctx->m + (mb))

/* The instance a pass waits for (-1 none, -2 not laid out yet) and
 * whether it runs on another stage. */
static int producer(const ev_ctx *ctx, int cls, const pipe_pass *p, int *remote) {
  int S = ctx->S, s = cls % S, base = cls - s, vpp = ctx->vpp;
  int id;
  *remote = 1;
  if (p->kind == 'F') {
    if (s > 0) id = ctx->idf[CELL(base + s - 1, p->chunk, p->mb)];
    else if (p->chunk > 0) id = ctx->idf[CELL(base + S - 1, p->chunk - 1, p->mb)], *remote = S > 1;
    else return -1;
  } else if (s < S - 1) {
    id = ctx->idb[CELL(base + s + 1, p->chunk, p->mb)];
  } else if (p->chunk < vpp - 1) {
    id = ctx->idb[CELL(base, p->chunk + 1, p->mb)], *remote = S > 1;
  } else {
    id = ctx->idf[CELL(cls, p->chunk, p->mb)], *remote = 0;
  }
  if (id < 0 || !ctx->ended[id]) return -2;
  return id;
}

/* 1 when the pass ends with a send to another stage. */
static int sends(const ev_ctx *ctx, int s, const pipe_pass *p) {
  if (ctx->S <= 1) return 0;
  if (p->kind == 'F') return s < ctx->S - 1 || p->chunk < ctx->vpp - 1;
  return s > 0 || p->chunk > 0;
}

/* Start class c's next pass if it can; its end goes on the heap. */
static void try_start(ev_ctx *ctx, heap *h, int c, double now) {
  int s = c % ctx->S;
  if (ctx->busy[c] || ctx->next[c] >= ctx->count[s]) return;
  const pipe_pass *p = &ctx->order[ctx->per * s + ctx->next[c]];
  int remote;
  int dep = producer(ctx, c, p, &remote);
  if (dep == -2) return;
  double start = ctx->free_at[c];
  long id = ctx->base[c] + ctx->next[c];
  ev_inst *in = &ctx->inst[id];
  in->pred = ctx->next[c] > 0 ? (int)(id - 1) : -1;
  in->remote = 0;
  if (dep >= 0) {
    double t = ctx->inst[dep].end + (remote ? ctx->p2p : 0);
    if (t > start) start = t, in->pred = dep, in->remote = remote;
  }
  (void)now;
  assert(start >= now - 1e-12 * (1 + now) && "time went back");
  /* with pipeline parallelism the blocking send/recv levels the host
   * with the GPU at every pass (analytic.c stage_cost) */
  if (ctx->S > 1 && ctx->host[c] < start) ctx->host[c] = start;
  in->start = start;
  in->host_in = ctx->host[c];
  in->cls = c, in->mb = p->mb, in->kind = p->kind;
  ev_pass_acc acc;
  const ev_tmpl *tp = &ctx->tm[2 * s + (p->kind == 'B')];
  double slow = c == ctx->straggler_cls ? ctx->slow : 1;
  in->end = ev_pass(ctx, tp, c, p->mb, start, &ctx->host[c], slow, &acc);
  in->sent = sends(ctx, s, p);
  (p->kind == 'F' ? ctx->idf : ctx->idb)[CELL(c, p->chunk, p->mb)] = (int)id;
  ctx->busy[c] = 1;
  ctx->next[c]++;
  ctx->out->tasks += tp->n;
  heap_push(h, in->end, (int)id);
}

/* Every replica of stage s is ready: reduce across them. */
static void reduce(ev_ctx *ctx, heap *h, int s) {
  double t = 0;
  int who = 0;
  for (int r = 0; r < ctx->R; r++)
    if (ctx->ready[r * ctx->S + s] > t) t = ctx->ready[r * ctx->S + s], who = r;
  ctx->dp_start[s] = t;
  ctx->dp_who[s] = who;
  for (int r = 0; r < ctx->R; r++) {
    int c = r * ctx->S + s;
    if (ctx->out_spans && ctx->dp > 0 && ctx->out->n_spans < ctx->cap_spans)
      ctx->out->spans[ctx->out->n_spans++] =
          (ev_span){c, EV_DP, ctx->dp_name, -1, 'D', t, ctx->dp};
    heap_push(h, t + ctx->dp, (int)(ctx->n_inst + c));
  }
}

/* Pop events until none is left; returns the number processed. */
static long loop(ev_ctx *ctx, heap *h) {
  double now = 0;
  long events = 0;
  int *done = mem_calloc((size_t)ctx->S, sizeof *done);
  if (!done) return -1;
  for (int c = 0; c < ctx->C; c++) try_start(ctx, h, c, 0);
  while (!heap_empty(h)) {
    heap_ent ev = heap_pop(h);
    assert(ev.key >= now - 1e-12 * (1 + now) && "time went back");
    now = ev.key;
    events++;
    if (ev.id < ctx->n_inst) { /* a pass ended */
      ev_inst *in = &ctx->inst[ev.id];
      int c = in->cls, s = c % ctx->S;
      ctx->ended[ev.id] = 1;
      ctx->busy[c] = 0;
      ctx->free_at[c] = now + (in->sent ? ctx->p2p : 0);
      if (in->sent && ctx->out_spans && ctx->out->n_spans < ctx->cap_spans)
        ctx->out->spans[ctx->out->n_spans++] =
            (ev_span){c, EV_PP, ctx->send_name, in->mb, 'S', now, ctx->p2p};
      int first = c - s;
      for (int k = 0; k < ctx->S; k++) try_start(ctx, h, first + k, now);
      if (ctx->next[c] == ctx->count[s] && !ctx->busy[c]) {
        ctx->ready[c] = ctx->free_at[c];
        if (++done[s] == ctx->R) reduce(ctx, h, s);
      }
    } else if (ev.id < ctx->n_inst + ctx->C) { /* a reduction ended */
      int c = (int)(ev.id - ctx->n_inst);
      if (ctx->out_spans && ctx->opt > 0 && ctx->out->n_spans < ctx->cap_spans)
        ctx->out->spans[ctx->out->n_spans++] =
            (ev_span){c, EV_COMPUTE, ctx->opt_name, -1, 'O', now, ctx->opt};
      heap_push(h, now + ctx->opt, (int)(ctx->n_inst + ctx->C + c));
    } else { /* an optimizer step ended */
      int c = (int)(ev.id - ctx->n_inst - ctx->C);
      ctx->end[c] = now;
    }
  }
  int stuck = 0;
  for (int s = 0; s < ctx->S; s++) stuck |= done[s] != ctx->R;
  mem_free(done);
  assert(!stuck && "pipeline schedule deadlocked");
  return stuck ? -2 : events;
}

/* ------------------------------------------------------------ setup */

/* The pipeline shape and every stage's pass order. 0 or -1. */
static int lay_out(ev_ctx *ctx) {
  const sc_plan *p = &ctx->e->s->plan;
  const xg *x = ctx->e->x;
  pipe_shape sh = {p->pp, x->vpp, x->micro_batches};
  if (sh.vpp > 1 && sh.m % sh.pp) sh.vpp = 1; /* the interleaved order needs m % pp == 0 */
  ctx->S = x->n_stages, ctx->vpp = sh.vpp, ctx->m = sh.m;
  ctx->scale = 1.0 / x->vpp; /* a pass runs one model chunk: 1/vpp of the stage */
  ctx->per = 3L * sh.m * sh.vpp;
  ctx->order = mem_alloc(sizeof *ctx->order * (size_t)(ctx->per * ctx->S));
  ctx->count = mem_alloc(sizeof *ctx->count * (size_t)ctx->S);
  if (!ctx->order || !ctx->count) return -1;
  const pipe_sched *ps = pipe_for(p->schedule);
  for (int s = 0; s < ctx->S; s++) {
    ctx->count[s] = ps->order(&sh, s, ctx->order + ctx->per * s);
    if (ctx->count[s] < 0) ctx->count[s] = pipe_onef1b.order(&sh, s, ctx->order + ctx->per * s);
  }
  return 0;
}

/* Replicas and the straggler's class. SC_OK or SC_EINPUT. */
static int replicas(ev_ctx *ctx, sc_error *err) {
  const sc_scenario *s = ctx->e->s;
  const sc_plan *p = &s->plan;
  int dp = p->dp > 0 ? p->dp : 1, g = ctx->o->straggler_gpu;
  ctx->straggler_cls = -1;
  ctx->slow = 1 + ctx->o->straggler;
  if (g >= s->cluster.gpus || (g < -1))
    return sc_error_set(err, SC_EINPUT,
                        "cluster.straggler_gpu: GPU %d does not exist (the job has GPUs "
                        "0..%d)", g, s->cluster.gpus - 1);
  int rep = 0, stage = 0;
  if (g >= 0) {
    int per_stage = s->cluster.gpus / (p->pp > 0 ? p->pp : 1);
    int tpcp = (p->tp > 0 ? p->tp : 1) * (p->cp > 0 ? p->cp : 1);
    stage = g / per_stage;
    rep = (g % per_stage) / tpcp;
    if (rep >= dp) rep = dp - 1;
  }
  if (!ctx->o->fold) ctx->R = dp;
  else ctx->R = g >= 0 && dp > 1 ? 2 : 1;
  if (g >= 0) ctx->straggler_cls = (ctx->o->fold ? ctx->R - 1 : rep) * ctx->S + stage;
  ctx->C = ctx->R * ctx->S;
  return SC_OK;
}

#define CALLOC(p, n) ((p) = mem_calloc((size_t)(n) > 0 ? (size_t)(n) : 1, sizeof *(p)), (p) != NULL)

static int alloc_state(ev_ctx *ctx) {
  long cells = (long)ctx->C * ctx->vpp * ctx->m;
  ctx->base = mem_alloc(sizeof *ctx->base * (size_t)ctx->C);
  if (!ctx->base) return -1;
  ctx->n_inst = 0;
  for (int c = 0; c < ctx->C; c++) ctx->base[c] = ctx->n_inst, ctx->n_inst += ctx->count[c % ctx->S];
  int ok = CALLOC(ctx->inst, ctx->n_inst) && CALLOC(ctx->ended, ctx->n_inst) &&
           CALLOC(ctx->idf, cells) && CALLOC(ctx->idb, cells) && CALLOC(ctx->next, ctx->C) &&
           CALLOC(ctx->busy, ctx->C) && CALLOC(ctx->free_at, ctx->C) &&
           CALLOC(ctx->host, ctx->C) && CALLOC(ctx->ready, ctx->C) &&
           CALLOC(ctx->end, ctx->C) && CALLOC(ctx->dp_start, ctx->S) &&
           CALLOC(ctx->dp_who, ctx->S);
  if (!ok) return -1;
  for (long i = 0; i < cells; i++) ctx->idf[i] = ctx->idb[i] = -1;
  return 0;
}

static void free_state(ev_ctx *ctx) {
  mem_free(ctx->order), mem_free(ctx->count), mem_free(ctx->base), mem_free(ctx->inst);
  mem_free(ctx->ended), mem_free(ctx->idf), mem_free(ctx->idb), mem_free(ctx->next);
  mem_free(ctx->busy), mem_free(ctx->free_at), mem_free(ctx->host), mem_free(ctx->ready);
  mem_free(ctx->end), mem_free(ctx->dp_start), mem_free(ctx->dp_who);
  mem_free(ctx->part_s), mem_free(ctx->part_n);
  ev_templates_free(ctx);
}

/* Room for every span: each task of each pass, a send per pass, the
 * reduction and the optimizer per class. */
static long count_spans(const ev_ctx *ctx) {
  long n = 0;
  for (int c = 0; c < ctx->C; c++) {
    int s = c % ctx->S;
    for (int k = 0; k < ctx->count[s]; k++) {
      const pipe_pass *p = &ctx->order[ctx->per * s + k];
      n += ctx->tm[2 * s + (p->kind == 'B')].n + 1;
    }
    n += 2;
  }
  return n;
}

static int names(ev_ctx *ctx) {
  ev_out *o = ctx->out;
  ctx->host_name = ev_name(o, &ctx->cap_names, "host (launch-bound)");
  ctx->send_name = ev_name(o, &ctx->cap_names, "send/recv");
  ctx->dp_name = ev_name(o, &ctx->cap_names, "gradient reduction");
  ctx->opt_name = ev_name(o, &ctx->cap_names, "optimizer step");
  ctx->fill_name = ev_name(o, &ctx->cap_names, "pipeline fill/drain (other stages)");
  return ctx->fill_name < 0 ? -1 : 0;
}

int ev_run(eng *e, const ev_opts *o, ev_out *out, sc_error *err) {
  memset(out, 0, sizeof *out);
  ev_ctx ctx;
  memset(&ctx, 0, sizeof ctx);
  ctx.e = e, ctx.o = o, ctx.out = out;
  eng_step k;
  eng_step_of(e, &k);
  ctx.p2p = k.p2p;
  ctx.dp = k.dp * (o->dp_factor > 0 ? o->dp_factor : 1);
  ctx.opt = k.opt;
  int rc = SC_OK;
  heap h = {0};
  if (names(&ctx) || ev_templates(&ctx) || lay_out(&ctx)) rc = SC_ENOMEM;
  if (rc == SC_OK) rc = replicas(&ctx, err);
  if (rc == SC_OK && alloc_state(&ctx)) rc = SC_ENOMEM;
  if (rc == SC_OK && o->spans) {
    ctx.cap_spans = count_spans(&ctx);
    out->spans = mem_alloc(sizeof *out->spans * (size_t)(ctx.cap_spans > 0 ? ctx.cap_spans : 1));
    if (!out->spans) rc = SC_ENOMEM;
    ctx.out_spans = 1;
  }
  if (rc == SC_OK && heap_init(&h, 2 * ctx.C + 1)) rc = SC_ENOMEM;
  if (rc == SC_OK) {
    long ev = loop(&ctx, &h);
    if (ev == -1) rc = SC_ENOMEM;
    else if (ev < 0) rc = sc_error_set(err, SC_EINPUT, "event engine: the pipeline schedule "
                                       "deadlocked (a bug: please report the scenario)");
    else out->events = ev;
  }
  if (rc == SC_OK) {
    out->classes = ctx.C, out->stages = ctx.S, out->replicas = ctx.R;
    for (int c = 0; c < ctx.C; c++)
      if (ctx.end[c] > out->step_s) out->step_s = ctx.end[c];
    ctx.out_spans = 0;
    if (ev_critical(&ctx)) rc = SC_ENOMEM;
  }
  heap_free(&h);
  free_state(&ctx);
  if (rc == SC_ENOMEM) sc_error_set(err, SC_ENOMEM, "out of memory in the event engine");
  if (rc != SC_OK) ev_out_free(out);
  return rc;
}
