/*
 * pipe.h -- pipeline schedules as plug-ins (module prefix: pipe_).
 *
 * A schedule decides in which order each pipeline stage runs the
 * forward (F) and backward (B) passes of the micro-batches of a step, and
 * with that the closed forms the analytic engine uses: the pipeline
 * bubble, the send/recv on the critical path and the activations a stage
 * holds at its peak. Each schedule is one file behind this table:
 *
 *   sched_gpipe.c        GPipe: every forward, then every backward
 *   sched_1f1b.c         1F1B (PipeDream-Flush): pp - s - 1 warm-up
 *                        forwards, then one forward and one backward in turn
 *   sched_interleaved.c  Megatron-LM's interleaved 1F1B over vpp model
 *                        chunks per stage
 *
 * Zero-bubble and DualPipe-style schedules plug in the same way. The pass
 * kind 'W' (a weight-gradient pass split from its backward) is reserved
 * for them in this interface; the engines do not split a backward into B
 * and W yet, so a schedule that emits W passes also needs that split in
 * engine/analytic.c (the weight-gradient GEMM of each task) and
 * engine/timeline.c.
 */
#ifndef SC_PIPELINE_PIPE_H
#define SC_PIPELINE_PIPE_H

#include "stepcast.h"

/* One pass of one micro-batch through one model chunk of a stage. */
typedef struct pipe_pass {
  char kind;        /* 'F' forward, 'B' backward (input and weight
                       gradients, or input only when W passes follow),
                       'W' weight gradients */
  int mb;           /* micro-batch */
  int chunk;        /* model chunk, 0..vpp-1 */
} pipe_pass;

/* The shape of a pipeline. */
typedef struct pipe_shape {
  int pp;           /* stages */
  int vpp;          /* model chunks per stage */
  int m;            /* micro-batches per step */
} pipe_shape;

typedef struct pipe_sched {
  const char *name;           /* "1f1b", "gpipe", "interleaved" */
  sc_schedule id;
  /* Pipeline fill and drain, in units of one micro-batch's forward and
   * backward on the slowest stage. */
  double (*bubble)(const pipe_shape *p);
  /* Activation send/recv on the critical path per step (equal stages). */
  double (*p2p_steps)(const pipe_shape *p);
  /* Micro-batches whose activations `stage` holds at its peak. */
  double (*in_flight)(const pipe_shape *p, int stage);
  /* The passes of `stage` in order into out (room for 3 m vpp); returns
   * how many, or -1 when the schedule cannot run this shape. */
  int (*order)(const pipe_shape *p, int stage, pipe_pass *out);
  /* Blocking send/recv `stage` waits through per micro-batch in the
   * steady state (the pace of a stage is its f + b plus these); NULL =
   * use p2p_steps alone. */
  double (*p2p_per_mb)(const pipe_shape *p, int stage);
  /* Micro-batches of model chunk `chunk` whose activations `stage` holds
   * when its in_flight peak is reached (the chunks' counts average to
   * in_flight); NULL = in_flight for every chunk. */
  double (*chunk_in_flight)(const pipe_shape *p, int stage, int chunk);
} pipe_sched;

/* The schedule of a plan; never NULL for a valid sc_schedule. */
const pipe_sched *pipe_for(sc_schedule s);

extern const pipe_sched pipe_gpipe, pipe_onef1b, pipe_interleaved;

/* Shared by the 1F1B-style schedules: `warm` forwards, then one forward
 * and one backward in turn, then the remaining backwards; the j-th
 * forward and backward come from nth(). Returns 2 m vpp. */
int pipe_one_f_one_b(const pipe_shape *p, int warm,
                     pipe_pass (*nth)(const pipe_shape *p, char kind, int j), pipe_pass *out);

/* ps->chunk_in_flight, or ps->in_flight where the schedule has none. */
double pipe_chunk_in_flight(const pipe_sched *ps, const pipe_shape *p, int stage, int chunk);

/* The usual closed forms: (pp - 1) / vpp passes of fill and drain, and
 * 2 (m + pp - 1) vpp send/recv on the critical path. */
double pipe_bubble_default(const pipe_shape *p);
double pipe_p2p_default(const pipe_shape *p);

/* Megatron-LM's blocking send/recv per micro-batch of a stage
 * (schedules.py, batch_p2p_comm): after each pass of a model chunk the
 * stage waits for its output to reach the neighbour (1F1B: the batched
 * send_forward_recv_backward / send_backward_recv_forward exchanges), so
 * 2 vpp a micro-batch, less one on the first stage (its first chunk's
 * backward sends nothing) and one on the last (its last chunk's forward
 * feeds the loss). */
double pipe_p2p_per_mb_blocking(const pipe_shape *p, int stage);

/* Send/recv on the critical path per step, s, for one send/recv of p2p
 * s and stages whose forward + backward per micro-batch fb(ud, s) gives
 * (s), `worst` the largest. With p2p_per_mb: a stage's pace is its f + b
 * plus the send/recv it waits through per micro-batch; the step pays m
 * times what the fastest possible pace adds to the slowest stage's
 * compute, less the send/recv after its very last pass (the drain's
 * first), plus one send/recv per stage boundary each way in fill and
 * drain. Equal stages with vpp 1: 2 m - 1 + 2 (pp - 1), two more than
 * Megatron's program; a heavier last stage (the loss) has one neighbour,
 * so m - 1 + 2 (pp - 1) with vpp 1, as the program. Without p2p_per_mb:
 * p2p_steps. */
double pipe_p2p_on_path(const pipe_sched *ps, const pipe_shape *p,
                        double (*fb)(const void *ud, int stage), const void *ud, int worst,
                        double p2p);


/* The step of a pipeline of one chunk per stage (p->vpp 1) whose stage s
 * takes f[s] and b[s] s a forward and a backward, no send/recv: each
 * stage runs its passes in the schedule's order (ps->order) and each pass
 * starts when its stage is free and its producer on the neighbouring
 * stage has ended (s). Scratch: endf and endb room for pp x m, order for
 * pp x 3 m, next, count and free_at for pp. -1 if the schedule cannot
 * run the shape or deadlocked (never for 1F1B and GPipe). */
double pipe_makespan(const pipe_sched *ps, const pipe_shape *p, const double *f, const double *b,
                     double *endf, double *endb, pipe_pass *order, int *count, int *next,
                     double *free_at);

#endif /* SC_PIPELINE_PIPE_H */
