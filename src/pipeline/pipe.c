/*
 * pipe.c -- the table of pipeline schedules and what they share.
 */
#include "pipeline/pipe.h"

#include <assert.h>

const pipe_sched *pipe_for(sc_schedule s) {
  switch (s) {
  case SC_SCHED_GPIPE: return &pipe_gpipe;
  case SC_SCHED_INTERLEAVED: return &pipe_interleaved;
  case SC_SCHED_ZBH1: return &pipe_zbh1;
  case SC_SCHED_DUALPIPE: return &pipe_dualpipe;
  case SC_SCHED_1F1B: break;
  }
  return &pipe_onef1b;
}

int pipe_one_f_one_b(const pipe_shape *p, int warm,
                     pipe_pass (*nth)(const pipe_shape *p, char kind, int j), pipe_pass *out) {
  int total = p->m * p->vpp, n = 0, kf = 0, kb = 0;
  if (warm > total) warm = total;
  while (kf < warm) out[n++] = nth(p, 'F', kf++);
  while (kf < total) {
    out[n++] = nth(p, 'F', kf++);
    out[n++] = nth(p, 'B', kb++);
  }
  while (kb < total) out[n++] = nth(p, 'B', kb++);
  return n;
}

double pipe_bubble_default(const pipe_shape *p) {
  return p->pp > 1 ? (p->pp - 1) / (double)p->vpp : 0;
}

double pipe_chunk_in_flight(const pipe_sched *ps, const pipe_shape *p, int stage, int chunk) {
  return ps->chunk_in_flight ? ps->chunk_in_flight(p, stage, chunk) : ps->in_flight(p, stage);
}

double pipe_p2p_default(const pipe_shape *p) {
  return p->pp > 1 ? 2.0 * (p->m + p->pp - 1) * p->vpp : 0;
}

double pipe_p2p_per_mb_blocking(const pipe_shape *p, int stage) {
  if (p->pp <= 1) return 0;
  return 2.0 * p->vpp - (stage == 0) - (stage == p->pp - 1);
}


double pipe_p2p_on_path(const pipe_sched *ps, const pipe_shape *p,
                        double (*fb)(const void *ud, int stage), const void *ud, int worst,
                        double p2p) {
  if (p->pp <= 1 || p2p <= 0) return 0;
  if (!ps->p2p_per_mb) return p2p * ps->p2p_steps(p);
  double pace = 0;
  for (int s = 0; s < p->pp; s++) {
    double t = fb(ud, s) + ps->p2p_per_mb(p, s) * p2p;
    if (t > pace) pace = t;
  }
  /* the slowest stage waits its send/recv between its passes: m times
   * its per-micro-batch share, less the one after its very last pass,
   * which is the drain's first (Megatron's program,
   * tests/test_p2p_program.c, and the event engine's path) */
  double paced = p->m * (pace - fb(ud, worst)) - p2p;
  return (paced > 0 ? paced : 0) + 2.0 * (p->pp - 1) * p2p;
}

pipe_shape pipe_shape_of(sc_schedule s, int pp, int vpp, int m) {
  if (s == SC_SCHED_DUALPIPE) return (pipe_shape){pp, 2, m, 1};
  return (pipe_shape){pp, vpp, m, 0};
}

/* DualPipe: the stage a micro-batch of chunk (direction) c enters at and
 * the step to the next stage. */
static int dual_first(const pipe_shape *p, int c) { return c ? p->pp - 1 : 0; }
static int dual_step(int c) { return c ? -1 : 1; }

int pipe_producer(const pipe_shape *p, int stage, const pipe_pass *t, int *dstage,
                  pipe_pass *dep) {
  int pp = p->pp, c = t->chunk;
  *dep = (pipe_pass){.kind = t->kind, .mb = t->mb, .chunk = c};
  if (t->kind == 'W') return 0;
  if (p->dual) {
    int first = dual_first(p, c), last = dual_first(p, !c), step = dual_step(c);
    if (t->kind == 'F') {
      *dstage = stage - step;
      return stage != first;
    }
    if (stage == last) {
      *dstage = stage, dep->kind = 'F';
      return 1;
    }
    *dstage = stage + step;
    return 1;
  }
  if (t->kind == 'F') {
    if (stage > 0) return *dstage = stage - 1, 1;
    if (c == 0) return 0;
    *dstage = pp - 1, dep->chunk = c - 1;
    return 1;
  }
  if (stage < pp - 1) return *dstage = stage + 1, 1;
  if (c < p->vpp - 1) return *dstage = 0, dep->chunk = c + 1, 1;
  *dstage = stage, dep->kind = 'F';
  return 1;
}

int pipe_consumer(const pipe_shape *p, int stage, const pipe_pass *t) {
  int pp = p->pp, c = t->chunk;
  if (pp <= 1 || t->kind == 'W') return -1;
  if (p->dual) {
    int first = dual_first(p, c), last = dual_first(p, !c), step = dual_step(c);
    if (t->kind == 'F') return stage != last ? stage + step : -1;
    return stage != first ? stage - step : -1;
  }
  if (t->kind == 'F') {
    if (stage < pp - 1) return stage + 1;
    return c < p->vpp - 1 ? 0 : -1;
  }
  if (stage > 0) return stage - 1;
  return c > 0 ? pp - 1 : -1;
}

int pipe_chunk_stage(const pipe_shape *p, int stage, int chunk) {
  return p->dual && chunk ? p->pp - 1 - stage : stage;
}

double pipe_chunk_scale(const pipe_shape *p) { return p->dual ? 1 : 1.0 / p->vpp; }

/* How long pass t of `stage` runs over per-stage f, b (whole backward),
 * bs (split backward; NULL b - w) and w (weight gradients; NULL none). */
static double pass_time(const pipe_shape *p, int stage, const pipe_pass *t, const double *f,
                        const double *b, const double *bs, const double *w) {
  int s = pipe_chunk_stage(p, stage, t->chunk);
  double x = t->kind == 'F' ? f[s] : t->kind == 'W' ? (w ? w[s] : 0)
             : !t->split || !w ? b[s] : bs ? bs[s] : b[s] - w[s];
  return x * pipe_chunk_scale(p);
}

double pipe_makespan(const pipe_sched *ps, const pipe_shape *p, const double *f, const double *b,
                     const double *bs, const double *w, double p2p, double *endf, double *endb, pipe_pass *order,
                     int *count, int *next, double *free_at) {
  int pp = p->pp, m = p->m, vpp = p->vpp;
  long per = 3L * m * vpp;
  assert(vpp == 1 || p->dual);
  for (long i = 0; i < (long)pp * vpp * m; i++) endf[i] = endb[i] = -1;
  long total = 0;
  for (int s = 0; s < pp; s++) {
    next[s] = 0, free_at[s] = 0;
    count[s] = ps->order(p, s, order + s * per);
    if (count[s] < 0) return -1;
    total += count[s];
  }
#define CELL(s, c, mb) (((long)(s) * vpp + (c)) * m + (mb))
  long done = 0;
  while (done < total) {
    long before = done;
    for (int s = 0; s < pp; s++) {
      const pipe_pass *o = order + s * per;
      while (next[s] < count[s]) {
        /* a pass, or a pair of a forward and the backward after it,
         * which starts when both may (pipe.h pair) */
        int k = o[next[s]].pair && next[s] + 1 < count[s] ? 2 : 1;
        double start = free_at[s];
        for (int i = 0; i < k && start >= 0; i++) {
          pipe_pass t = o[next[s] + i], d;
          int ds = s;
          if (!pipe_producer(p, s, &t, &ds, &d)) continue;
          double dep = (d.kind == 'F' ? endf : endb)[CELL(ds, d.chunk, d.mb)];
          /* a pair's inputs arrive under its other pass: the F&B overlap
           * hides the send/recv (DeepSeek-V3's figure 4) */
          if (dep >= 0 && ds != s && k == 1) dep += p2p;
          start = dep < 0 ? -1 : dep > start ? dep : start; /* -1: not run yet */
        }
        if (start < 0) break;
        for (int i = 0; i < k; i++, next[s]++, done++) {
          pipe_pass t = o[next[s]];
          free_at[s] = start += pass_time(p, s, &t, f, b, bs, w);
          if (t.kind != 'W') (t.kind == 'F' ? endf : endb)[CELL(s, t.chunk, t.mb)] = start;
        }
      }
    }
    assert(done > before && "pipeline schedule deadlocked");
    if (done == before) return -1;
  }
#undef CELL
  double end = 0;
  for (int s = 0; s < pp; s++) end = free_at[s] > end ? free_at[s] : end;
  return end;
}
