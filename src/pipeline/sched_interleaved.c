/*
 * sched_interleaved.c -- Megatron-LM's interleaved 1F1B (Narayanan et al.
 * SC'21): each stage holds vpp model chunks; micro-batches walk through
 * chunk 0 of every stage, then chunk 1, ..., which divides the bubble by
 * vpp. Stage s warms up with (pp - s - 1) 2 + (vpp - 1) pp forward chunks
 * (megatron/core/pipeline_parallel/schedules.py); the order needs the
 * micro-batches to be a multiple of pp.
 */
#include "pipeline/pipe.h"

/* The j-th forward (or backward) pass of a stage: pp micro-batches
 * through chunk 0, the same pp through chunk 1, ...; backwards visit the
 * chunks in reverse. */
static pipe_pass interleaved_nth(const pipe_shape *p, char kind, int j) {
  int group = p->pp * p->vpp, chunk = j % group / p->pp;
  return (pipe_pass){.kind = kind, .mb = j / group * p->pp + j % p->pp,
                     .chunk = kind == 'F' ? chunk : p->vpp - 1 - chunk};
}

/* 1F1B's pp - s micro-batches, each stretched by the extra warm-up
 * chunks: pp + (pp - 1) / vpp micro-batches on the first stage. */
static double interleaved_in_flight(const pipe_shape *p, int stage) {
  if (p->pp <= 1) return 1;
  double f = p->pp - stage < p->m ? p->pp - stage : p->m;
  return f * (1.0 + (p->pp - 1.0) / (p->pp * (double)p->vpp));
}

static int interleaved_order(const pipe_shape *p, int stage, pipe_pass *out) {
  if (p->vpp > 1 && p->m % p->pp) return -1;
  int warm = p->vpp > 1 ? (p->pp - stage - 1) * 2 + (p->vpp - 1) * p->pp : p->pp - stage - 1;
  return pipe_one_f_one_b(p, warm, interleaved_nth, out);
}

const pipe_sched pipe_interleaved = {"interleaved", SC_SCHED_INTERLEAVED, pipe_bubble_default,
                                     pipe_p2p_default, interleaved_in_flight, interleaved_order,
                                     pipe_p2p_per_mb_blocking, NULL, 0, NULL, 0,
                                     NULL};
