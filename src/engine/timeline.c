/*
 * timeline.c -- one step as a discrete-event simulation of the pipeline
 * schedule over the stages of an execution graph (sc_timeline).
 *
 * Each stage runs its passes in the order its schedule gives
 * (src/pipeline/). A pass starts when its stage is free and the pass it
 * depends on has finished on the neighbouring stage, plus one send/recv.
 * Pass durations are the stage's per-micro-batch forward and backward of
 * the analytic engine over the same execution graph (one model chunk:
 * 1/vpp of them), so the simulated fill and drain checks the closed-form
 * bubble. After the flush each stage reduces its gradients and steps its
 * optimizer.
 */
#include <assert.h>
#include <string.h>

#include "core/mem.h"
#include "engine/engine.h"
#include "pipeline/pipe.h"

/* The most passes one timeline lays out (docs/input.md, Limits), and
 * the bytes of one span in Chrome trace JSON, for the estimate. */
#define TIMELINE_MAX_PASSES (1 << 22)
#define TIMELINE_TRACE_BYTES 130.0

/* Index of (stage, chunk, mb) in the end-time arrays. */
#define IDX(st, c, mb) (((size_t)(st) * vpp + (c)) * m + (mb))

/* When the pass t of stage st may start (its dependency's end plus the
 * send/recv unless hidden, pipe_makespan's rule), or -1 when that pass
 * is not laid out yet. */
static double ready(const pipe_shape *sh, const pipe_pass *t, int st, const double *endf,
                    const double *endb, double p2p, int hidden) {
  int vpp = sh->vpp, m = sh->m, ds = st;
  pipe_pass d;
  if (!pipe_producer(sh, st, t, &ds, &d)) return 0;
  double dep = (d.kind == 'F' ? endf : endb)[IDX(ds, d.chunk, d.mb)];
  if (dep < 0) return -1;
  return dep + (ds != st && !hidden ? p2p : 0);
}

/* How long pass t of stage st runs (pipe.h: a split B is the backward
 * less its weight gradients, a W those; engine.h eng_stage). */
static double pass_dur(const eng *e, const pipe_shape *sh, int st, const pipe_pass *t) {
  const eng_stage *g = &e->st[pipe_chunk_stage(sh, st, t->chunk)];
  double x = t->kind == 'F' ? g->f : t->kind == 'W' ? g->w : t->split ? g->bs : g->b;
  return x * pipe_chunk_scale(sh);
}

int eng_timeline(eng *e, sc_span **spans, size_t *n_out, double *step_s, sc_error *err) {
  const sc_plan *p = &e->s->plan;
  eng_step k;
  eng_step_of(e, &k);
  const pipe_sched *ps = pipe_for(p->schedule);
  pipe_shape sh = pipe_shape_of(p->schedule, p->pp, e->x->vpp, e->x->micro_batches);
  int pp = sh.pp, m = sh.m;
  /* the interleaved order needs m % pp == 0 */
  if (sh.vpp > 1 && m % pp && !sh.dual) sh.vpp = 1;
  int vpp = sh.vpp;
  size_t per = (size_t)3 * m * vpp, cells = (size_t)pp * vpp * m;
  /* a forward and a backward pass per cell: refuse a timeline too large
   * to lay out or to write (about TIMELINE_TRACE_BYTES each as Chrome
   * trace JSON) before allocating it */
  double passes = 2.0 * cells;
  if (passes > TIMELINE_MAX_PASSES) {
    double mem = (double)per * pp * (sizeof(pipe_pass) + sizeof(sc_span)) + 2.0 * cells * 8;
    return sc_error_set(err, SC_EINPUT,
                        "timeline: %.0f passes (pp %d x vpp %d x %d micro-batches x forward "
                        "and backward) need about %.3g GB of memory and %.3g GB of trace; "
                        "the limit is %d passes: raise plan.micro_batch or lower "
                        "plan.global_batch",
                        passes, pp, vpp, m, mem / 1e9, passes * TIMELINE_TRACE_BYTES / 1e9,
                        TIMELINE_MAX_PASSES);
  }
  pipe_pass *order = mem_alloc(sizeof *order * per * pp);
  int *count = mem_calloc((size_t)pp, sizeof *count);
  double *endf = mem_alloc(sizeof *endf * cells), *endb = mem_alloc(sizeof *endb * cells);
  int *next = mem_calloc((size_t)pp, sizeof *next);
  double *free_at = mem_calloc((size_t)pp, sizeof *free_at);
  sc_span *out = mem_alloc(sizeof *out * (per * pp + 2 * (size_t)pp));
  if (!order || !count || !endf || !endb || !next || !free_at || !out) {
    mem_free(order), mem_free(count), mem_free(endf), mem_free(endb), mem_free(next);
    mem_free(free_at), mem_free(out);
    return sc_error_set(err, SC_ENOMEM, "out of memory laying out %zu passes", per * pp);
  }
  for (size_t i = 0; i < cells; i++) endf[i] = endb[i] = -1;
  size_t total = 0;
  for (int st = 0; st < pp; st++) {
    count[st] = ps->order(&sh, st, order + per * st);
    if (count[st] < 0) count[st] = pipe_onef1b.order(&sh, st, order + per * st);
    total += (size_t)count[st];
  }
  size_t n = 0, done = 0;
  while (done < total) {
    size_t before = done;
    for (int st = 0; st < pp; st++) {
      while (next[st] < count[st]) {
        /* a pass, or DualPipe's overlapped pair of a forward and a
         * backward (pipe.h pair): both start when both may */
        const pipe_pass *t = &order[per * st + (size_t)next[st]];
        int np = t->pair && next[st] + 1 < count[st] ? 2 : 1;
        double start = free_at[st];
        for (int i = 0; i < np && start >= 0; i++) {
          double r = ready(&sh, t + i, st, endf, endb, k.p2p, np == 2);
          start = r < 0 ? -1 : r > start ? r : start;
        }
        if (start < 0) break; /* waits for a pass not laid out yet */
        double at = start, end = start;
        for (int i = 0; i < np; i++) end += pass_dur(e, &sh, st, t + i);
        for (int i = 0; i < np; i++, next[st]++, done++) {
          double dur = pass_dur(e, &sh, st, t + i);
          if (t[i].kind != 'W')
            (t[i].kind == 'F' ? endf : endb)[IDX(st, t[i].chunk, t[i].mb)] = end;
          out[n++] = (sc_span){st, 0, t[i].kind, t[i].mb, t[i].chunk, at, dur};
          at += dur;
        }
        free_at[st] = end;
      }
    }
    assert(done > before && "pipeline schedule deadlocked");
    if (done == before) break;
  }
  double end = 0;
  for (int st = 0; st < pp; st++) {
    double t = free_at[st];
    if (k.dp > 0) out[n++] = (sc_span){st, 1, 'D', -1, 0, t, k.dp}, t += k.dp;
    out[n++] = (sc_span){st, 0, 'O', -1, 0, t, k.opt};
    t += k.opt;
    if (t > end) end = t;
  }
  mem_free(order), mem_free(count), mem_free(endf), mem_free(endb), mem_free(next);
  mem_free(free_at);
  *spans = out;
  *n_out = n;
  *step_s = end;
  return SC_OK;
}
