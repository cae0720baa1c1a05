/*
 * sched_1f1b.c -- 1F1B (PipeDream-Flush, Narayanan et al. 2021): stage s
 * runs pp - s - 1 warm-up forwards, then alternates one forward and one
 * backward, then drains; it holds at most pp - s micro-batches.
 */
#include "pipeline/pipe.h"

static pipe_pass onef1b_nth(const pipe_shape *p, char kind, int j) {
  (void)p;
  return (pipe_pass){.kind = kind, .mb = j};
}

static double onef1b_in_flight(const pipe_shape *p, int stage) {
  if (p->pp <= 1) return 1;
  int f = p->pp - stage;
  return f < p->m ? f : p->m;
}

static int onef1b_order(const pipe_shape *p, int stage, pipe_pass *out) {
  return pipe_one_f_one_b(p, p->pp - stage - 1, onef1b_nth, out);
}

const pipe_sched pipe_onef1b = {"1f1b", SC_SCHED_1F1B, pipe_bubble_default, pipe_p2p_default,
                                onef1b_in_flight, onef1b_order, pipe_p2p_per_mb_blocking,
                                NULL, NULL, 0, NULL, 0, NULL};
