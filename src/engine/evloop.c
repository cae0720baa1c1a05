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
#include "cost/compute.h"
#include "engine/evint.h"

/* Index of (class, chunk, mb) in idf / idb. */
#define CELL(c, ch, mb) (((size_t)(c) * ctx->vpp + (ch)) * ctx->m + (mb))

/* The instance a pass waits for (on this stage or a neighbour): >= 0,
 * -1 none, -2 not laid out yet (pipe_producer's rule). */
static int producer_id(const ev_ctx *ctx, int cls, const pipe_pass *p) {
  int s = cls % ctx->S, base = cls - s, ds;
  pipe_pass d;
  if (!pipe_producer(&ctx->sh, s, p, &ds, &d)) return -1;
  int id = (d.kind == 'F' ? ctx->idf : ctx->idb)[CELL(base + ds, d.chunk, d.mb)];
  return id < 0 ? -2 : id;
}

/* The class a pass of stage s sends its output to, or -1. */
static int consumer_of(const ev_ctx *ctx, int cls, const pipe_pass *p) {
  int s = cls % ctx->S, to = pipe_consumer(&ctx->sh, s, p);
  return to < 0 ? -1 : cls - s + to;
}

/* The event ids: pass ends, reductions, optimizer steps, send ends. */
#define ID_DP(c) (ctx->n_inst + (c))
#define ID_OPT(c) (ctx->n_inst + ctx->C + (c))
#define ID_SEND(i) (ctx->n_inst + 2L * ctx->C + (i))
#define ID_DPS(s) (2 * ctx->n_inst + 2L * ctx->C + (s)) /* a stage's reduction */

/* The share of the job's replicas class c stands for: all when one
 * replica stands for all, else its own (a straggler's folded pair: the
 * others and itself). */
static double weight(const ev_ctx *ctx, int c) {
  int dp = ctx->e->s->plan.dp > 0 ? ctx->e->s->plan.dp : 1, r = c / ctx->S;
  if (ctx->R == 1) return 1;
  if (ctx->R == dp) return 1.0 / dp;
  return r == ctx->R - 1 ? 1.0 / dp : (dp - 1.0) / dp;
}

/* When the output of instance dep is there for a pass of class c:
 * -1 not yet; its arrival, or (hidden: a pair's input, which its other
 * pass hides, pipe.h) its pass's end. *sent: whether its send set it. */
static double dep_ready(const ev_ctx *ctx, int dep, int hidden, int *sent) {
  const ev_inst *d = &ctx->inst[dep];
  *sent = 0;
  if (hidden) return ctx->pdone[dep] ? d->end : -1;
  if (!ctx->ended[dep]) return -1;
  *sent = d->sent;
  return d->arrive;
}

/* Lay out pass `pos` of class c from `start`: its instance's fields,
 * its template run (categories into acc), its cells. Returns its end. */
static double run_one(ev_ctx *ctx, int c, long pos, double start, ev_pass_acc *acc) {
  int s = c % ctx->S;
  const pipe_pass *p = &ctx->order[ctx->per * s + pos];
  long id = ctx->base[c] + pos;
  ev_inst *in = &ctx->inst[id];
  /* the host waits for the GPU before each micro-batch's forward (the
   * batch's blocking copy), and with pipeline parallelism the blocking
   * send/recv levels it at every pass (analytic.c stage_cost) */
  if ((ctx->S > 1 || p->kind == 'F') && ctx->host[c] < start) ctx->host[c] = start;
  /* and issues the batch's host work (cost_batch_host) before its first layer */
  if (p->kind == 'F' && (p->chunk == 0 || ctx->sh.dual) && ctx->e->s->plan.framework_eager)
    ctx->host[c] += cost_batch_host(&ctx->e->s->cluster.gpu);
  in->start = start;
  in->host_in = ctx->host[c];
  in->cls = c, in->mb = p->mb, in->kind = p->kind;
  in->consumer = consumer_of(ctx, c, p);
  in->sent = in->consumer >= 0;
  in->send_pred = -1, in->send_started = 0, in->arrive = -1;
  in->tp = ev_tmpl_of(ctx, s, p);
  double slow = c == ctx->straggler_cls ? ctx->slow : 1;
  /* the last backward of the class issues the gradient buckets: on the
   * first stage as their gradients complete; on the others all at its
   * end (Megatron's align_grad_reduce, evbucket.c) */
  double *issue = ctx->buckets && !ctx->chunks && p->kind == 'B' && pos == ctx->count[s] - 1
                      ? ctx->issue + (long)c * ctx->nb : NULL;
  in->end = ev_pass(ctx, in->tp, c, p->mb, start, &ctx->host[c], slow, acc, s == 0 ? issue : NULL);
  if (p->kind != 'W') (p->kind == 'F' ? ctx->idf : ctx->idb)[CELL(c, p->chunk, p->mb)] = (int)id;
  ctx->out->tasks += in->tp->n;
  return in->end;
}

/* Start class c's next pass if it can (no pass running, no send of its
 * own pending, the producer's data arrived); its end goes on the heap.
 * A pair (pipe.h) starts when both of its passes may: its forward runs
 * first and its backward (pair2) when the forward has ended, both
 * without waiting for their inputs' sends. */
static void try_start(ev_ctx *ctx, heap *h, int c, double now) {
  int s = c % ctx->S;
  if (ctx->busy[c] || ctx->sending[c] || ctx->next[c] >= ctx->count[s]) return;
  const pipe_pass *p = &ctx->order[ctx->per * s + ctx->next[c]];
  int second = ctx->pair2[c];
  int np = !second && p->pair && ctx->next[c] + 1 < ctx->count[s] ? 2 : 1;
  long id = ctx->base[c] + ctx->next[c];
  double start = ctx->free_at[c];
  int pred = ctx->next[c] > 0 ? (int)(id - 1) : -1, pred_send = 0, sent;
  if (pred >= 0) pred_send = ctx->inst[pred].sent && !ctx->async;
  for (int i = 0; i < np; i++) {
    int dep = producer_id(ctx, c, p + i);
    if (dep == -2) return;
    double at = dep >= 0 ? dep_ready(ctx, dep, np == 2 || second, &sent) : 0;
    if (at < 0) return;
    if (dep >= 0 && at > start) start = at, pred = dep, pred_send = sent;
  }
  (void)now;
  assert(start >= now - 1e-12 * (1 + now) && "time went back");
  ctx->pair2[c] = np == 2;
  ev_inst *in = &ctx->inst[id];
  ev_pass_acc acc;
  in->pred = pred, in->pred_send = pred_send;
  run_one(ctx, c, ctx->next[c], start, &acc);
  ctx->busy[c] = 1;
  ctx->next[c]++;
  /* on a topology, a pass whose collectives cross links other traffic
   * crosses too shares them while it runs (evlinks.c): its collective
   * part slows with them */
  const evs_demand *pd = ctx->pdem ? &ctx->pdem[ev_dem_of(ctx, s, p)] : NULL;
  double dur = in->end - start;
  double comm = acc.cat[EV_TP] + acc.cat[EV_CP] + acc.cat[EV_EP] + acc.cat[EV_MP];
  if (pd && pd->n > 0 && dur > 0 && comm > 0) { /* (collectives all hidden: fixed) */
    double q = comm / dur > 1 ? 1 : comm / dur;
    evs_add_part(&ctx->share, start, (int)id, dur, pd, weight(ctx, c) / dur, q);
    return;
  }
  heap_push(h, in->end, (int)id);
}

/* What a send from class k to class c puts on the links: its stage
 * boundary's traffic, NULL off a topology or for the wrap of the model
 * chunks (last stage to the first). */
static const evs_demand *send_demand(const ev_ctx *ctx, int k, int c) {
  int a = k % ctx->S, b = c % ctx->S;
  if (b == a + 1 && ctx->o->pp_fwd) return &ctx->o->pp_fwd[a];
  if (a == b + 1 && ctx->o->pp_bwd) return &ctx->o->pp_bwd[b];
  return NULL;
}

/* Start the pending send of class k to class c now, if there is one. */
static void start_send(ev_ctx *ctx, heap *h, int k, int c, double now) {
  if (!ctx->sending[k]) return;
  long id = ctx->base[k] + ctx->next[k] - 1;
  ev_inst *in = &ctx->inst[id];
  if (in->consumer != c || in->send_started) return;
  in->send_started = 1;
  in->send_start = now;
  /* set by the receiver when its pass ended after the sender's */
  long prev = ctx->base[c] + ctx->next[c] - 1;
  in->send_pred = ctx->rendezvous && ctx->next[c] > 0 && ctx->inst[prev].end > in->end
                      ? (int)prev : -1;
  /* interleaved: the receives of class c (the forward from the stage
   * before, the backward from the stage after) are one batched exchange,
   * which the stages' waiting through each send already pays; they do
   * not slow each other on the links (evshare.h BATCHES) */
  if (!ctx->rendezvous && !ctx->async)
    evs_add_batch(&ctx->share, now, (int)ID_SEND(id), ctx->p2p, send_demand(ctx, k, c),
                  weight(ctx, k), c);
  else
    evs_add(&ctx->share, now, (int)ID_SEND(id), ctx->p2p, send_demand(ctx, k, c), weight(ctx, k));
}

/* A class that runs no pass has its receives posted (1F1B, GPipe) (Megatron batches
 * them with its own sends): sends waiting for it start now. Only its
 * neighbours on the pipeline (and the wrap of the model chunks) send to
 * it. */
static void post_recv(ev_ctx *ctx, heap *h, int c, double now) {
  if (ctx->busy[c] || !ctx->rendezvous) return;
  int S = ctx->S, s = c % S, base = c - s;
  if (s > 0) start_send(ctx, h, c - 1, c, now);
  if (s < S - 1) start_send(ctx, h, c + 1, c, now);
  if (s == 0 && S > 2) start_send(ctx, h, base + S - 1, c, now);
  if (s == S - 1 && S > 2) start_send(ctx, h, base, c, now);
}

/* Every replica of stage s is ready: reduce across them. */
static void reduce(ev_ctx *ctx, heap *h, int s) {
  double t = 0;
  int who = 0;
  for (int r = 0; r < ctx->R; r++)
    if (ctx->ready[r * ctx->S + s] > t) t = ctx->ready[r * ctx->S + s], who = r;
  ctx->dp_start[s] = t;
  ctx->dp_who[s] = who;
  if (ctx->buckets) ev_buckets_reduce(ctx, s, t);
  else ctx->dpx[s] = ctx->dp;
  /* one collective across the replicas, on the links beside the sends */
  evs_add(&ctx->share, t, (int)ID_DPS(s), ctx->dpx[s], ctx->o->dp_dem ? &ctx->o->dp_dem[s] : NULL,
          1);
}

/* The reduction of stage s ended at now (later than alone if it shared
 * links): every replica steps its optimizer. */
static void reduce_end(ev_ctx *ctx, heap *h, int s, double now) {
  double t = ctx->dp_start[s];
  ctx->dpx[s] = now - t;
  for (int r = 0; r < ctx->R; r++) {
    int c = r * ctx->S + s;
    if (ctx->out_spans && !ctx->buckets && now > t && ctx->out->n_spans < ctx->cap_spans)
      ctx->out->spans[ctx->out->n_spans++] = (ev_span){c, EV_DP, ctx->dp_name, -1, 'D', t, now - t};
    heap_push(h, now, (int)ID_DP(c));
  }
}

/* After an event of replica `first`: sends waiting for a receiver, then
 * passes that can start; a class with nothing left is ready to reduce. */
static void settle(ev_ctx *ctx, heap *h, int first, int c, double now, int *done) {
  for (int k = 0; k < ctx->S; k++) post_recv(ctx, h, first + k, now);
  for (int k = 0; k < ctx->S; k++) try_start(ctx, h, first + k, now);
  int s = c % ctx->S;
  if (ctx->next[c] == ctx->count[s] && !ctx->busy[c] && !ctx->sending[c] && !ctx->is_ready[c]) {
    ctx->is_ready[c] = 1;
    ctx->ready[c] = ctx->free_at[c];
    if (++done[s] == ctx->R) reduce(ctx, h, s);
  }
}

/* A pass ended: its data arrives now, or its send waits for the receiver. */
static void pass_end(ev_ctx *ctx, heap *h, long id, double now, int *done) {
  ev_inst *in = &ctx->inst[id];
  int c = in->cls, s = c % ctx->S, pos = ctx->next[c] - 1;
  ctx->pdone[id] = 1;
  ctx->busy[c] = 0;
  in->end = now; /* later than ev_pass said when it shared links */
  /* the last backward of a later stage issues all its buckets at its
   * end (Megatron's align_grad_reduce, evbucket.c); interleaved: each
   * model chunk's gradients after its last backward */
  if (ctx->buckets && !ctx->chunks && in->kind == 'B' && s > 0 && pos == ctx->count[s] - 1)
    for (int k = 0; k < ctx->tm[2 * s + 1].nbk; k++) ctx->issue[(long)c * ctx->nb + k] = now;
  if (ctx->chunks && in->kind == 'B') ev_chunks_issue(ctx, c, s, pos, now);
  if (in->sent && ctx->async) {
    /* the stage goes on; the data arrives with the send (send_end) */
    in->send_started = 1;
    in->send_start = now;
    evs_add(&ctx->share, now, (int)ID_SEND(id), ctx->p2p, send_demand(ctx, c, in->consumer),
            weight(ctx, c));
    if (ctx->free_at[c] < now) ctx->free_at[c] = now;
  } else if (in->sent) {
    ctx->sending[c] = 1;
    /* the interleaved schedule posts its receives ahead (Megatron's
     * overlap_p2p_comm): the send starts at once */
    if (!ctx->rendezvous) start_send(ctx, h, c, in->consumer, now);
  } else {
    ctx->ended[id] = 1;
    in->arrive = now;
    if (ctx->free_at[c] < now) ctx->free_at[c] = now;
  }
  settle(ctx, h, c - c % ctx->S, c, now, done);
}

/* A send ended: the data is at the receiver, the sender is free. */
static void send_end(ev_ctx *ctx, heap *h, long id, double now, int *done) {
  ev_inst *in = &ctx->inst[id];
  int c = in->cls;
  ctx->ended[id] = 1;
  in->arrive = now;
  if (!ctx->async) ctx->sending[c] = 0, ctx->free_at[c] = now;
  if (ctx->out_spans && ctx->out->n_spans < ctx->cap_spans)
    ctx->out->spans[ctx->out->n_spans++] =
        (ev_span){c, EV_PP, ctx->send_name, in->mb, 'S', in->send_start, now - in->send_start};
  settle(ctx, h, c - c % ctx->S, c, now, done);
}

/* Pop events until none is left; returns the number processed, -1 when
 * out of memory, -2 when the schedule deadlocked. */
static long loop(ev_ctx *ctx, heap *h) {
  double now = 0;
  long events = 0;
  int *done = mem_calloc((size_t)ctx->S, sizeof *done);
  if (!done) return -1;
  for (int c = 0; c < ctx->C; c++) try_start(ctx, h, c, 0);
  for (;;) {
    double ce;
    int k = evs_next(&ctx->share, &ce);
    heap_ent ev;
    if (k >= 0 && (heap_empty(h) || ce < h->e[0].key)) { /* ties: the heap's first */
      ev.id = ctx->share.a[k].id, ev.key = ce;
      evs_remove(&ctx->share, k, ce);
    } else if (!heap_empty(h)) {
      ev = heap_pop(h);
    } else {
      break;
    }
    assert(ev.key >= now - 1e-12 * (1 + now) && "time went back");
    now = ev.key;
    events++;
    if (ev.id >= ID_DPS(0)) {
      reduce_end(ctx, h, (int)(ev.id - ID_DPS(0)), now);
    } else if (ev.id < ctx->n_inst) {
      pass_end(ctx, h, ev.id, now, done);
    } else if (ev.id < ID_DP(ctx->C)) { /* a reduction ended */
      int c = (int)(ev.id - ctx->n_inst);
      if (ctx->out_spans && ctx->opt > 0 && ctx->out->n_spans < ctx->cap_spans)
        ctx->out->spans[ctx->out->n_spans++] =
            (ev_span){c, EV_COMPUTE, ctx->opt_name, -1, 'O', now, ctx->opt};
      heap_push(h, now + ctx->opt, (int)ID_OPT(c));
    } else if (ev.id < ID_OPT(ctx->C)) { /* an optimizer step ended */
      ctx->end[ev.id - ID_OPT(0)] = now;
    } else {
      send_end(ctx, h, ev.id - ID_SEND(0), now, done);
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
  const pipe_sched *ps = pipe_for(p->schedule);
  pipe_shape sh = pipe_shape_of(p->schedule, p->pp, x->vpp, x->micro_batches);
  /* the interleaved order needs m % pp == 0 */
  if (sh.vpp > 1 && sh.m % sh.pp && !sh.dual) sh.vpp = 1;
  ctx->sh = sh;
  ctx->S = x->n_stages, ctx->vpp = sh.vpp, ctx->m = sh.m;
  ctx->scale = pipe_chunk_scale(&sh); /* a pass runs one model chunk: 1/vpp of the stage */
  ctx->async = ps->sends_async;
  ctx->rendezvous = sh.vpp == 1 && !ctx->async;
  ctx->per = 3L * sh.m * sh.vpp;
  ctx->order = mem_alloc(sizeof *ctx->order * (size_t)(ctx->per * ctx->S));
  ctx->count = mem_alloc(sizeof *ctx->count * (size_t)ctx->S);
  if (!ctx->order || !ctx->count) return -1;
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
           CALLOC(ctx->dp_who, ctx->S) && CALLOC(ctx->pdone, ctx->n_inst) &&
           CALLOC(ctx->sending, ctx->C) && CALLOC(ctx->is_ready, ctx->C) &&
           CALLOC(ctx->dpx, ctx->S) && CALLOC(ctx->issue, (long)ctx->C * ctx->nb) &&
           CALLOC(ctx->pair2, ctx->C);
  if (!ok) return -1;
  for (long i = 0; i < cells; i++) ctx->idf[i] = ctx->idb[i] = -1;
  return 0;
}

static void free_state(ev_ctx *ctx) {
  mem_free(ctx->order), mem_free(ctx->count), mem_free(ctx->base), mem_free(ctx->inst);
  mem_free(ctx->ended), mem_free(ctx->idf), mem_free(ctx->idb), mem_free(ctx->next);
  mem_free(ctx->busy), mem_free(ctx->free_at), mem_free(ctx->host), mem_free(ctx->ready);
  mem_free(ctx->end), mem_free(ctx->dp_start), mem_free(ctx->dp_who);
  mem_free(ctx->pdone), mem_free(ctx->sending), mem_free(ctx->is_ready), mem_free(ctx->pair2);
  mem_free(ctx->part_s), mem_free(ctx->part_n);
  mem_free(ctx->dpx), mem_free(ctx->issue), mem_free(ctx->dp_share), mem_free(ctx->dp_tail);
  mem_free(ctx->chunk_at), mem_free(ctx->chunk_dur);
  ev_pass_links_free(ctx);
  ev_templates_free(ctx);
}

/* Room for every span: each task of each pass, a send per pass, the
 * reduction and the optimizer per class. */
static long count_spans(const ev_ctx *ctx) {
  long n = 0;
  for (int c = 0; c < ctx->C; c++) {
    int s = c % ctx->S;
    for (int k = 0; k < ctx->count[s]; k++) {
      n += ev_tmpl_of(ctx, s, &ctx->order[ctx->per * s + k])->n + 1;
    }
    n += 2 + ctx->nb;
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
  ctx->share_name = ev_name(o, &ctx->cap_names, "collectives slowed by shared links");
  return ctx->fill_name < 0 || ctx->share_name < 0 ? -1 : 0;
}

int ev_run(eng *e, const ev_opts *o, ev_out *out, sc_error *err) {
  memset(out, 0, sizeof *out);
  ev_ctx ctx;
  memset(&ctx, 0, sizeof ctx);
  ctx.e = e, ctx.o = o, ctx.out = out;
  eng_step k;
  eng_step_of(e, &k);
  ctx.p2p = k.p2p;
  ctx.dp = k.dp + (o->dp_extra > 0 ? o->dp_extra : 0);
  ctx.opt = k.opt;
  int rc = SC_OK;
  heap h = {0};
  ctx.dp_factor = o->dp_factor > 1 ? o->dp_factor : 1;
  if (names(&ctx) || ev_templates(&ctx) || lay_out(&ctx) || ev_buckets_plan(&ctx)) rc = SC_ENOMEM;
  if (rc == SC_OK) rc = replicas(&ctx, err);
  if (rc == SC_OK && alloc_state(&ctx)) rc = SC_ENOMEM;
  if (rc == SC_OK && o->spans) {
    ctx.cap_spans = count_spans(&ctx);
    out->spans = mem_alloc(sizeof *out->spans * (size_t)(ctx.cap_spans > 0 ? ctx.cap_spans : 1));
    if (!out->spans) rc = SC_ENOMEM;
    ctx.out_spans = 1;
  }
  /* at any time: per class one pass or one send, and one reduction or
   * optimizer step */
  if (rc == SC_OK && heap_init(&h, 2 * ctx.C + 1)) rc = SC_ENOMEM;
  /* running at once: a pass and a send per class and a reduction per stage */
  if (rc == SC_OK && evs_init(&ctx.share, 2 * ctx.C + ctx.S, o->n_links, o->link_bw))
    rc = SC_ENOMEM;
  if (rc == SC_OK && ev_pass_links(&ctx)) rc = SC_ENOMEM;
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
  evs_free(&ctx.share);
  free_state(&ctx);
  if (rc == SC_ENOMEM) sc_error_set(err, SC_ENOMEM, "out of memory in the event engine");
  if (rc != SC_OK) ev_out_free(out);
  return rc;
}
