/*
 * event.h -- the event engine: the execution graph run as a discrete-event
 * simulation (module prefix: ev_).
 *
 * What is simulated, per RANK CLASS (one pipeline stage of one
 * data-parallel replica; every tensor-, context- and expert-parallel rank
 * of it does the same work, so one representative stands for them):
 *
 *  - streams: compute, and one communication stream per group kind (TP,
 *    CP, EP, re-layout MP, PP, DP), as the trace names them;
 *  - the host: an eager framework issues each task after its host time;
 *    a kernel starts when issued and when the compute stream is free;
 *  - tasks in issue order within each pass (forward, recomputation,
 *    backward) with the execution graph's dependencies: a tensor-,
 *    context- or expert-parallel collective blocks the compute stream
 *    (Megatron-LM), one marked XG_OVL_NEXT runs beside the next kernel,
 *    one marked XG_OVL_PREV beside the GEMM before it;
 *  - overlap slowdown: while a collective runs beside compute both slow
 *    down, by the share the collective takes from that compute times the
 *    overlapped time (see ev_overlap): the fraction of the SMs NCCL's
 *    channels hold (one CTA per channel) for compute-bound kernels, the
 *    larger of that and the fraction of the HBM bandwidth its kernels
 *    take (coll/collhbm.h) for memory-bound ones (groups.h grp_slow);
 *  - the pipeline: each stage runs its passes in its schedule's order
 *    (src/pipeline/); a pass waits for its producer on the neighbouring
 *    stage plus one send/recv (on the PP stream; Megatron's send blocks
 *    the sender as well);
 *  - data parallelism: with overlap_grad_reduce the gradients leave in
 *    Megatron's buckets during the last backward (evbucket.c; with a
 *    pipeline only on the first stage; interleaved: each model chunk's
 *    after its last backward, as Megatron's grad_sync_func launches
 *    them); what runs past the backward is a
 *    collective across the replicas of the stage, so it starts when the
 *    last of them is ready; then the optimizer step;
 *  - on a topology the send/recv, those reductions and the passes whose
 *    collectives cross links other traffic crosses too share the links
 *    max-min fairly while they run (evshare.c, evlinks.c).
 *
 * Events (pass ends, reductions) come from a heap sized once per run; the
 * loop allocates nothing and time never goes back (asserted with
 * SC_DEBUG_CHECKS). Replicas fold: without a straggler one replica stands
 * for all (exact, the job is symmetric); a straggler splits its replica
 * off; ev_opts.fold = 0 simulates every replica (tests).
 */
#ifndef SC_ENGINE_EVENT_H
#define SC_ENGINE_EVENT_H

#include "engine/engine.h"
#include "stepcast.h"

/* Streams of a rank class, in the trace's order. */
typedef enum ev_stream {
  EV_COMPUTE = 0,
  EV_TP,
  EV_CP,
  EV_EP,
  EV_MP,
  EV_PP,
  EV_DP,
  EV_OFFLOAD, /* activation copies to and from host memory */
  EV_HOST,    /* not a stream: host time on the critical path */
  EV_STREAMS
} ev_stream;

const char *ev_stream_name(ev_stream s);

typedef struct ev_opts {
  int fold;            /* 1 = one replica per stage unless a straggler */
  int spans;           /* 1 = record every task's span (the trace) */
  int straggler_gpu;   /* job rank of a slow GPU, -1 = none */
  double straggler;    /* its kernels take (1 + straggler) times longer */
  /* every group of a kind runs its collective at once: the factor by
   * which op of `bytes` on group `group` (index into xg.groups) takes
   * longer than alone (engine/fleet.h); NULL = 1. flex >= 0: an MoE flex
   * dispatch or combine on the group (engine/epflex.c), that part of its
   * bytes over the network; -1: op itself */
  double (*comm_factor)(void *ud, int group, coll_op op, double bytes, double flex);
  /* the bytes the same collectives of pipeline stage `stage` put on each
   * link (evshare.h, rate = bytes; owned by comm_ud), NULL = none: what a
   * pass's collectives share with the sends, the reductions and other
   * stages' passes (evlinks.c) */
  const struct evs_demand *(*comm_links)(void *ud, int group, coll_op op, double bytes,
                                         double flex, int stage);
  void *comm_ud;
  double dp_factor;    /* the gradient buckets take this x their alone
                          time: every data-parallel group at once on
                          shared links (engine/fleet.h); <= 1 = alone */
  /* on a topology: what the loop's own communication puts on each link
   * (evshare.h), every group of a stage at once; NULL = no topology */
  const double *link_bw;         /* per link, bytes/s (borrowed) */
  int n_links;
  const struct evs_demand *pp_fwd; /* per stage boundary b (b to b + 1): the
                                    activations; S - 1 of them */
  const struct evs_demand *pp_bwd; /* per boundary: the gradients back */
  const struct evs_demand *dp_dem; /* per stage: its gradient reduction */
  double dp_extra;     /* s the data-parallel reduction takes beyond its
                          alone time because every group reduces at once
                          on shared links (engine/fleet.h); 0 = none */
  double dp_tail_extra; /* s of that beyond the bucketed reduction (the
                          ZeRO 1/2 parameter gathers, ZeRO-3's traffic:
                          the closed form's tail after the buckets) */
} ev_opts;

/* One task's time on the critical path, summed over its occurrences. */
typedef struct ev_part {
  int name;            /* into ev_out.names */
  ev_stream stream;
  double seconds;
  long count;
} ev_part;

/* One span of the trace: a task of a rank class. */
typedef struct ev_span {
  int cls;             /* rank class: replica * stages + stage */
  ev_stream stream;
  int name;            /* into ev_out.names */
  int mb;              /* micro-batch, -1 after the flush */
  char pass;           /* 'F', 'R' (recompute), 'B', 'S' (send), 'D', 'O' */
  double start, dur;   /* seconds */
} ev_span;

/* One piece of the critical path in time: a pass, a send, the reduction
 * or the optimizer step. */
typedef struct ev_seg {
  int cls;             /* rank class */
  int mb;              /* micro-batch of a pass or send, else -1 */
  char kind;           /* 'F', 'B' (pass), 'S' (send), 'D', 'O' */
  double start, dur;   /* s */
} ev_seg;

typedef struct ev_out {
  double step_s;
  sc_breakdown time;   /* the critical path by category, adds to step_s */
  ev_part *path;       /* critical path by task, largest first (owned) */
  int n_path;
  ev_seg *segs;        /* critical path in time order (owned) */
  long n_segs;
  ev_span *spans;      /* with opts.spans (owned) */
  long n_spans;
  char (*names)[48];   /* task names (owned) */
  int n_names;
  int classes, stages, replicas;
  long events;         /* events the loop processed */
  long tasks;          /* tasks simulated */
} ev_out;

void ev_out_free(ev_out *o);

/* Run the prepared engine e (eng_prepare done) as a discrete-event
 * simulation. SC_OK, SC_EINPUT (straggler on a GPU the job does not
 * have) or SC_ENOMEM; *out is filled on SC_OK (ev_out_free it) and empty
 * otherwise. */
int ev_run(eng *e, const ev_opts *o, ev_out *out, sc_error *err);

/* The overlap of a collective of `comm` s beside `work` s of compute
 * that loses `share` of its pace to it (grp_slow): both are lengthened by
 * share x the overlapped time, min(comm, work). */
double ev_overlap(double comm, double work, double share);

#endif
