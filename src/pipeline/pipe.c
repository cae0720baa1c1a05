/*
 * pipe.c -- the table of pipeline schedules and what they share.
 */
#include "pipeline/pipe.h"

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

double pipe_p2p_default(const pipe_shape *p) {
  return p->pp > 1 ? 2.0 * (p->m + p->pp - 1) * p->vpp : 0;
}
