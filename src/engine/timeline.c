/*
 * timeline.c -- one step as a discrete-event simulation of the pipeline
 * schedule (sc_timeline).
 *
 * Each stage runs its passes in the order its schedule gives (GPipe: all
 * forwards then all backwards; 1F1B: pp - s - 1 warm-up forwards, then
 * one forward and one backward in turn; interleaved: Megatron-LM's order
 * over model chunks). A pass starts when its stage is free and the pass
 * it depends on has finished on the neighbouring stage, plus one
 * send/recv. Pass durations come from the analytic model (step_costs_of):
 * the same per-micro-batch costs, so the simulated fill and drain checks
 * the closed-form bubble.
 */
#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "engine/step.h"

typedef struct task {
  char fwd;        /* 1 forward, 0 backward */
  int mb, chunk;
} task;

/* Index of (stage, chunk, mb) in the end-time arrays. */
#define IDX(st, c, mb) (((size_t)(st) * vpp + (c)) * m + (mb))

/* The j-th forward (or backward) pass of a stage under interleaving:
 * Megatron-LM walks pp micro-batches through chunk 0, then the same pp
 * through chunk 1, ...; backwards visit the chunks in reverse. */
static task nth(int fwd, int j, int pp, int vpp) {
  if (vpp == 1) return (task){(char)fwd, j, 0};
  int group = pp * vpp, chunk = j % group / pp;
  return (task){(char)fwd, j / group * pp + j % pp, fwd ? chunk : vpp - 1 - chunk};
}

/* Fill order[0..2*m*vpp) with the passes of stage st: warm-up forwards,
 * then one forward and one backward in turn, then the remaining
 * backwards (GPipe: every forward first). */
static void schedule(const step_costs *c, int st, task *order) {
  int m = c->micro_batches, pp = c->stages, vpp = c->vpp;
  int total = m * vpp, n = 0, kf = 0, kb = 0;
  int warm = c->gpipe ? total
             : vpp > 1          ? (pp - st - 1) * 2 + (vpp - 1) * pp
                                : pp - st - 1;
  if (warm > total) warm = total;
  while (kf < warm) order[n++] = nth(1, kf++, pp, vpp);
  while (kf < total) {
    order[n++] = nth(1, kf++, pp, vpp);
    order[n++] = nth(0, kb++, pp, vpp);
  }
  while (kb < total) order[n++] = nth(0, kb++, pp, vpp);
}

static int stage_kind(int st, int pp) {
  return st == 0 ? 0 : st == pp - 1 ? 2 : 1;
}

int sc_timeline(const sc_scenario *s, sc_span **spans, size_t *n_out,
                double *step_s, sc_error *err) {
  step_costs c;
  int rc = step_costs_of(s, &c, err);
  if (rc != SC_OK) return rc;
  int pp = c.stages, vpp = c.vpp, m = c.micro_batches;
  if (vpp > 1 && m % pp) vpp = c.vpp = 1; /* Megatron needs m % pp == 0 */
  size_t per = (size_t)2 * m * vpp, cells = (size_t)pp * vpp * m;
  task *order = malloc(sizeof *order * per * pp);
  double *endf = malloc(sizeof *endf * cells), *endb = malloc(sizeof *endb * cells);
  int *next = calloc((size_t)pp, sizeof *next);
  double *free_at = calloc((size_t)pp, sizeof *free_at);
  sc_span *out = malloc(sizeof *out * (per * pp + 2 * (size_t)pp));
  if (!order || !endf || !endb || !next || !free_at || !out) {
    free(order), free(endf), free(endb), free(next), free(free_at), free(out);
    return sc_error_set(err, SC_ENOMEM, "out of memory laying out %zu passes", per * pp);
  }
  for (size_t i = 0; i < cells; i++) endf[i] = endb[i] = -1;
  for (int st = 0; st < pp; st++) schedule(&c, st, order + per * st);
  size_t n = 0, done = 0;
  while (done < per * pp) {
    size_t before = done;
    for (int st = 0; st < pp; st++) {
      for (; (size_t)next[st] < per; next[st]++) {
        const task *t = &order[per * st + next[st]];
        double dep = 0;
        int remote = 0;
        if (t->fwd) {
          if (st > 0) dep = endf[IDX(st - 1, t->chunk, t->mb)], remote = 1;
          else if (t->chunk > 0) dep = endf[IDX(pp - 1, t->chunk - 1, t->mb)], remote = pp > 1;
        } else if (st < pp - 1) {
          dep = endb[IDX(st + 1, t->chunk, t->mb)], remote = 1;
        } else if (t->chunk < vpp - 1) {
          dep = endb[IDX(0, t->chunk + 1, t->mb)], remote = pp > 1;
        } else {
          dep = endf[IDX(st, t->chunk, t->mb)];
        }
        if (dep < 0) break; /* waits for a pass not laid out yet */
        double start = dep + (remote ? c.p2p : 0);
        if (free_at[st] > start) start = free_at[st];
        int kind = stage_kind(st, pp);
        double dur = (t->fwd ? c.f[kind] : c.b[kind]) / vpp;
        (t->fwd ? endf : endb)[IDX(st, t->chunk, t->mb)] = start + dur;
        free_at[st] = start + dur;
        out[n++] = (sc_span){st, 0, t->fwd ? 'F' : 'B', t->mb, t->chunk, start, dur};
        done++;
      }
    }
    assert(done > before && "pipeline schedule deadlocked");
    if (done == before) break;
  }
  double end = 0;
  for (int st = 0; st < pp; st++) {
    double t = free_at[st];
    if (c.dp > 0) out[n++] = (sc_span){st, 1, 'D', -1, 0, t, c.dp}, t += c.dp;
    out[n++] = (sc_span){st, 0, 'O', -1, 0, t, c.opt};
    t += c.opt;
    if (t > end) end = t;
  }
  free(order), free(endf), free(endb), free(next), free(free_at);
  *spans = out;
  *n_out = n;
  *step_s = end;
  return SC_OK;
}
