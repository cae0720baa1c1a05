/*
 * pipe.c -- the table of pipeline schedules and what they share.
 */
#include "pipeline/pipe.h"

#include <assert.h>

const pipe_sched *pipe_for(sc_schedule s) {
  switch (s) {
  case SC_SCHED_GPIPE: return &pipe_gpipe;
  case SC_SCHED_INTERLEAVED: return &pipe_interleaved;
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

double pipe_makespan(const pipe_sched *ps, const pipe_shape *p, const double *f, const double *b,
                     double *endf, double *endb, pipe_pass *order, int *count, int *next,
                     double *free_at) {
  int pp = p->pp, m = p->m;
  assert(p->vpp == 1);
  for (long i = 0; i < (long)pp * m; i++) endf[i] = endb[i] = -1;
  long total = 0;
  for (int s = 0; s < pp; s++) {
    next[s] = 0, free_at[s] = 0;
    count[s] = ps->order(p, s, order + (long)s * 3 * m);
    if (count[s] < 0) return -1;
    total += count[s];
  }
  long done = 0;
  while (done < total) {
    long before = done;
    for (int s = 0; s < pp; s++) {
      const pipe_pass *o = order + (long)s * 3 * m;
      for (; next[s] < count[s]; next[s]++) {
        pipe_pass t = o[next[s]];
        if (t.kind != 'F' && t.kind != 'B') return -1; /* weight-gradient passes: not here */
        double dep = 0;
        if (t.kind == 'F') dep = s > 0 ? endf[(long)(s - 1) * m + t.mb] : 0;
        else dep = s < pp - 1 ? endb[(long)(s + 1) * m + t.mb] : endf[(long)s * m + t.mb];
        if (dep < 0) break; /* its producer has not run yet */
        double start = dep > free_at[s] ? dep : free_at[s];
        free_at[s] = start + (t.kind == 'F' ? f[s] : b[s]);
        (t.kind == 'F' ? endf : endb)[(long)s * m + t.mb] = free_at[s];
        done++;
      }
    }
    assert(done > before && "pipeline schedule deadlocked");
    if (done == before) return -1;
  }
  double end = 0;
  for (int s = 0; s < pp; s++) end = free_at[s] > end ? free_at[s] : end;
  return end;
}
