/*
 * sched_gpipe.c -- GPipe (Huang et al. 2019): every stage runs the
 * forwards of all micro-batches, then all backwards, so it holds the
 * activations of every micro-batch at once.
 */
#include "pipeline/pipe.h"

static pipe_pass gpipe_nth(const pipe_shape *p, char kind, int j) {
  (void)p;
  return (pipe_pass){.kind = kind, .mb = j};
}

static double gpipe_in_flight(const pipe_shape *p, int stage) {
  (void)stage;
  return p->pp > 1 ? p->m : 1;
}

static int gpipe_order(const pipe_shape *p, int stage, pipe_pass *out) {
  (void)stage;
  return pipe_one_f_one_b(p, p->m * p->vpp, gpipe_nth, out);
}

const pipe_sched pipe_gpipe = {"gpipe", SC_SCHED_GPIPE, pipe_bubble_default, pipe_p2p_default,
                               gpipe_in_flight, gpipe_order, NULL, NULL, NULL, 0, NULL, 0,
                               NULL};
