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
 *   sched_zbh1.c         ZB-H1 (Qi et al., Zero Bubble Pipeline
 *                        Parallelism, arXiv 2311.06231): 1F1B whose
 *                        weight-gradient passes wait
 *   sched_dualpipe.c     DualPipe (DeepSeek-V3 technical report, arXiv
 *                        2412.19437, section 3.2.1): micro-batches fed
 *                        from both ends, each rank holding two chunks
 *
 * A schedule may split a backward into B (the input gradient, which the
 * previous stage waits for) and W (the weight gradient, which nobody
 * waits for): it emits the B with `split` set and, later, a 'W' pass of
 * the same micro-batch and chunk. The engines cost W as the weight-
 * gradient GEMMs of the stage's backward (engine.h eng_stage.w) and the
 * split B as the rest of it (eng_stage.bs), each through the host/GPU
 * queue on its own; a B not split is the whole backward.
 */
#ifndef SC_PIPELINE_PIPE_H
#define SC_PIPELINE_PIPE_H

#include "stepcast.h"

/* One pass of one micro-batch through one model chunk of a stage. */
typedef struct pipe_pass {
  char kind;        /* 'F' forward, 'B' backward, 'W' weight gradients */
  int mb;           /* micro-batch, 0..m-1 */
  int chunk;        /* model chunk, 0..vpp-1 (DualPipe: the direction) */
  int split;        /* 'B' only: 1 = the input gradient alone, its weight
                       gradients run as a later 'W' of the same mb and
                       chunk on the same stage */
  int pair;         /* 'F' only: 1 = paired with the 'B' after it in the
                       order (DualPipe's F&B chunk): the pair starts when
                       both producers' passes have ended (their sends
                       hidden under it), the forward first, the backward
                       at its end; each output leaves at its pass's end */
} pipe_pass;

/* The shape of a pipeline. */
typedef struct pipe_shape {
  int pp;           /* stages (ranks along the pipeline) */
  int vpp;          /* model chunks per stage */
  int m;            /* micro-batches per step */
  int dual;         /* 1 = DualPipe (vpp 2): chunk 0 is stage s of the
                       micro-batches fed from stage 0, chunk 1 stage
                       pp-1-s of those fed from stage pp-1, each a whole
                       stage's layers (not 1/vpp of them) */
} pipe_shape;

typedef struct pipe_sched {
  const char *name;           /* plan.schedule's name */
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
  /* The step's fill and drain, s, for every stage running a forward in
   * f, a split backward in b (input gradient) and a weight-gradient pass
   * in w seconds (b + w the whole backward); NULL = bubble() (f + b + w).
   * Schedules that split their backwards. */
  double (*bubble_split)(const pipe_shape *p, double f, double b, double w);
  int splits;                 /* 1 = emits 'W' passes (split backwards) */
  /* The share of the backwards of chunk `chunk` of `stage` that are split
   * (the rest run whole); NULL with splits 0. */
  double (*split_share)(const pipe_shape *p, int stage, int chunk);
  int sends_async;            /* 1 = a stage does not wait for its sends
                                 (receives posted ahead; the receiver
                                 waits for the send's end) */
  /* The share of a stage's forward and backward passes that run beside
   * another micro-batch's pass (DualPipe's F&B pairs), on the rank with
   * the fewest; NULL: combined 1F1B's (m - 1) / m (plan.overlap_ep). */
  double (*paired_share)(const pipe_shape *p);
} pipe_sched;

/* The schedule of a plan; never NULL for a valid sc_schedule. */
const pipe_sched *pipe_for(sc_schedule s);

extern const pipe_sched pipe_gpipe, pipe_onef1b, pipe_interleaved, pipe_zbh1, pipe_dualpipe;

/* The shape schedule s runs: DualPipe's two chunks (dual, vpp 2) over
 * the lowered stages; the others as given. */
pipe_shape pipe_shape_of(sc_schedule s, int pp, int vpp, int m);

/* The pass that pass `t` of `stage` waits for, into *dstage and *dep (kind
 * 'F' or 'B', the same micro-batch): 1, or 0 when it waits for none (a
 * micro-batch's first forward; a 'W', whose own B runs before it on the
 * same stage). Interleaved chunks wrap from the last stage to the first;
 * DualPipe's chunk 1 runs from stage pp-1 down to stage 0. */
int pipe_producer(const pipe_shape *p, int stage, const pipe_pass *t, int *dstage,
                  pipe_pass *dep);

/* The stage pass t of `stage` sends its output to, or -1 (the loss, the
 * last backward, a 'W'). */
int pipe_consumer(const pipe_shape *p, int stage, const pipe_pass *t);

/* The lowered stage whose layers chunk `chunk` of `stage` runs (DualPipe:
 * chunk 1 is stage pp-1-s's), and the share of that stage's time one
 * pass takes (1/vpp; DualPipe 1). */
int pipe_chunk_stage(const pipe_shape *p, int stage, int chunk);
double pipe_chunk_scale(const pipe_shape *p);

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


/* The step of a pipeline of one chunk per stage (p->vpp 1, or DualPipe's
 * two) whose lowered stage s takes f[s] and b[s] s a forward and a whole
 * backward, bs[s] a split backward (NULL: b[s] - w[s]) and w[s] its
 * weight-gradient pass (w NULL: none split off), and
 * `p2p` s per send: each stage runs its passes in the schedule's order
 * (ps->order) and each pass starts when its stage is free and its
 * producer on the neighbouring stage has ended, plus p2p when it ran on
 * another stage (sends do not hold their stage; a pair's inputs arrive
 * under it, without p2p). Scratch: endf and endb
 * room for pp x vpp x m, order for pp x 3 vpp m, next, count and free_at
 * for pp. -1 if the schedule cannot run the shape or deadlocked (never
 * for these schedules). */
double pipe_makespan(const pipe_sched *ps, const pipe_shape *p, const double *f, const double *b,
                     const double *bs, const double *w, double p2p, double *endf, double *endb, pipe_pass *order,
                     int *count, int *next, double *free_at);

#endif /* SC_PIPELINE_PIPE_H */
