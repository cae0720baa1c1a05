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

/* Chunk passes stage s holds at its peak: the warm-up forwards and the
 * first steady-state forward before the first backward frees one, (pp -
 * s - 1) 2 + (vpp - 1) pp + 1, or every forward of the step when there
 * are fewer (m = pp on the first stages: then they hold all m vpp, as
 * GPipe would). With vpp 1 it is 1F1B's min(pp - s, m). */
static int peak_passes(const pipe_shape *p, int stage) {
  int warm = (p->pp - stage - 1) * 2 + (p->vpp - 1) * p->pp, all = p->m * p->vpp;
  if (p->vpp == 1) warm = p->pp - stage - 1;
  return warm + 1 < all ? warm + 1 : all;
}

/* The forwards reaching that peak run pp micro-batches through chunk 0,
 * the same through chunk 1, ... (interleaved_nth): chunk k's share. The
 * first stage's first chunk holds pp, the last stage's last chunk one
 * (its forward is followed at once by its backward). */
static double interleaved_chunk_in_flight(const pipe_shape *p, int stage, int chunk) {
  if (p->pp <= 1) return 1;
  int n = peak_passes(p, stage), group = p->pp * p->vpp;
  int rem = n % group - chunk * p->pp;
  return n / group * p->pp + (rem < 0 ? 0 : rem > p->pp ? p->pp : rem);
}

/* The chunks' mean: (peak passes) / vpp micro-batches of the whole
 * stage -- pp + (pp - 1) / vpp on the first stage once m >= 2 pp
 * (Korthikanti et al. 2022), about pp on every stage (the warm-up is
 * longer the earlier the stage, by two passes a stage), m = pp when
 * there are no more. Every stage, not only the first, holds about pp:
 * the last holds (vpp - 1) pp + 1 chunk passes. */
static double interleaved_in_flight(const pipe_shape *p, int stage) {
  if (p->pp <= 1) return 1;
  return peak_passes(p, stage) / (double)p->vpp;
}

static int interleaved_order(const pipe_shape *p, int stage, pipe_pass *out) {
  if (p->vpp > 1 && p->m % p->pp) return -1;
  int warm = p->vpp > 1 ? (p->pp - stage - 1) * 2 + (p->vpp - 1) * p->pp : p->pp - stage - 1;
  return pipe_one_f_one_b(p, warm, interleaved_nth, out);
}

const pipe_sched pipe_interleaved = {"interleaved", SC_SCHED_INTERLEAVED, pipe_bubble_default,
                                     pipe_p2p_default, interleaved_in_flight, interleaved_order,
                                     pipe_p2p_per_mb_blocking, interleaved_chunk_in_flight, NULL,
                                     0, NULL, 0, NULL};
