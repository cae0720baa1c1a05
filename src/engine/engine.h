/*
 * engine.h -- the engines that run an execution graph (module prefix:
 * eng_).
 *
 * analytic.c  the closed-form step model (sc_predict): per rank class the
 *             host/GPU queue of one micro-batch's forward and backward,
 *             then the pipeline bubble, send/recv, exposed data-parallel
 *             communication and the optimizer;
 * memory.c    memory per GPU of each pipeline stage;
 * timeline.c  the step as a discrete-event simulation of the pipeline
 *             schedule over the stages (sc_timeline).
 *
 * An eng holds what one evaluation needs and the scratch memory it
 * reuses, so that evaluating many plans of one job allocates nothing
 * once the arrays have grown.
 */
#ifndef SC_ENGINE_H
#define SC_ENGINE_H

#include <stdint.h>

#include "core/memo.h"
#include "engine/groups.h"
#include "engine/netcost.h"
#include "exec/xg.h"
#include "graph/graph.h"
#include "pipeline/pipe.h"
#include "stepcast.h"

/* One task as the host/GPU queue model sees it: the host spends `host`
 * seconds issuing it, then the GPU stream runs it for `gpu`. */
typedef struct eng_qop {
  double host, gpu;   /* seconds */
  int comm;           /* 1 = a collective on the compute stream */
  int ep;             /* 1 = of those, an expert-parallel all-to-all */
  int mem;            /* 1 = a memory-bound kernel (XG_MEM) */
} eng_qop;

/* A queue run through the host/GPU clocks, summarised (analytic.c):
 * d = g - h becomes max(k, d + m) and h grows by `host`. */
typedef struct eng_qsum {
  double k, m;        /* seconds */
  double host;        /* host time of the queue */
  double compute;     /* GPU time of its kernels */
  double comm;        /* GPU time of its collectives */
  double comm_ep;     /* of that, expert-parallel all-to-alls */
  double mem;         /* of compute, memory-bound kernels (XG_MEM) */
} eng_qsum;

/* The wall time of queue q run `reps` times from a GPU clock *d s ahead
 * of the host's (updated): the host issues for `host` s a run, the GPU
 * waits for what it issues (analytic.c). */
double eng_qsum_wall(const eng_qsum *q, int reps, double *d);

/* What the runs of a stage add up to in its memory (memory.c, eng_memory),
 * before the micro-batches in flight: bytes per GPU. */
typedef struct eng_memsum {
  double weights, gradients, optimizer; /* of the runs, FSDP's units aside */
  double act;                   /* activations kept per micro-batch */
  double act_head, act_tail;    /* of act, the runs before the stage's
                                   first layer (its first chunk's: the
                                   embedding on stage 0) and after its
                                   last (its last chunk's: the loss) */
  double remat;                 /* the largest layer rematerialised */
  double bwd_extra;             /* the largest backward transient
                                   (xg_segment.bwd_extra_bytes) */
  double offloaded, off_buf;    /* in host memory; the copy buffer */
  double copies_once;           /* AMP's weight copies made once */
  double gw, gg;                /* FSDP's gathered weights and gradients */
  double buckets;               /* PyTorch DDP's reducer buckets, kept
                                   between steps beside the .grad tensors
                                   (plan_ddp_buckets), bytes */
  double tied_grad;             /* the tied table's second gradient, which
                                   the embedding's backward adds into the
                                   head's (a stage holding both), bytes */
  double rise;                  /* a backward that frees gradients: the
                                   most the activations before a boundary
                                   between runs exceed the gradients
                                   before it (memory.c sweep_run), >= 0 */
  double rise_remat;            /* the same within a fully recomputed
                                   or offloaded run, its layer
                                   rematerialised or brought back beside
                                   what the boundaries on either side hold
                                   (sweep_run; 0: none), bytes */
  double rise_g, rise_remat_g;  /* the gradients not yet made at those
                                   two moments (the runs' before them),
                                   bytes: the activations then held are
                                   the rise plus these */
} eng_memsum;

/* Per micro-batch time of one stage and its parts. */
typedef struct eng_stage {
  double f, b;                  /* wall time of forward and backward, s */
  double bs, w;                 /* a schedule that splits the backward
                                   (pipeline/pipe.h): its 'B' (the
                                   backward less the weight-gradient
                                   GEMMs) and its 'W' (those), s, each
                                   through the host/GPU queue on its
                                   own; 0 for the other schedules */
  double compute, comm, host;   /* parts of f + b */
  double comm_ep;               /* of comm, expert-parallel all-to-alls */
  double bwd_lead;              /* GPU clock less host clock when a
                                   backward starts, s (0 with pipeline
                                   parallelism: the send/recv levels them) */
  double offload;               /* exposed activation offload copies, s
                                   (part of f + b, not of compute/comm/host):
                                   the stream's waits on them (offload.h) */
  double offload_f;             /* of that, the forward's, s */
  double mem;                   /* memory total of the stage, bytes */
  double bmem;                  /* fraction of the backward's kernel time
                                   in memory-bound kernels (overlap
                                   slowdown: groups.h grp_slow) */
  double bkern;                 /* fraction of a pass's wall time its
                                   kernels take (the rest: the stream's
                                   collectives, its waits on the host or
                                   offload copies), in (0, 1]: the
                                   forward's, which recomputation leaves
                                   alone */
  sc_memory m;                  /* its breakdown */
  double act_all;               /* the activations as summed, bytes, before
                                   a step that frees its gradients
                                   reports the peak's moment (memory.c
                                   freed_peak) */
  eng_memsum sums;              /* what its runs add up to (memory.c) */
  long sums_pass;               /* eng.mem_pass when sums were made */
} eng_stage;

/* What follows from the stage costs: the step's closed form. */
typedef struct eng_step {
  int worst;          /* the slowest stage (pace of the pipeline) */
  double per_mb;      /* f + b of the slowest stage */
  double bubble;      /* fill and drain, s */
  double p2p;         /* one activation send/recv, s */
  double pp_comm;     /* send/recv on the critical path, s */
  double dp;          /* exposed data-parallel communication, s */
  double opt;         /* optimizer step, s */
  int dp_stage;       /* the stage whose reduction dp is (opt: the
                         slowest stage's update, maybe another) */
  eng_stage pace;     /* the per-micro-batch costs the step charges m
                         times: the slowest stage's, or under DualPipe
                         the mean of the slowest rank's two stages (s and
                         pp-1-s, each run by half of the micro-batches) */
} eng_step;

/* The gradient reduction of one stage that overlaps its last backward
 * (ZeRO 0-2, overlap_grad_reduce): the event engine runs it bucket by
 * bucket beside the backward. */
typedef struct eng_dpred {
  double red;         /* s: the reductions of every data-parallel group
                         one after another, each alone; 0 = none (or
                         HSDP, which the closed form overlaps as a whole) */
  double share;       /* the share of its time the backward beside the
                         reduction loses (grp_slow of the reductions'
                         SM and HBM shares and the backward's memory-
                         bound fraction) */
  double params;      /* parameters reduced */
  double exposed;     /* s of red the closed form exposes (part of its
                         dp_comm) */
} eng_dpred;

typedef struct eng {
  const sc_scenario *s;         /* resolved scenario (borrowed) */
  const wg_graph *g;            /* borrowed */
  const xg *x;                  /* borrowed */
  ncost *net;                   /* borrowed, may be NULL */
  int net_bound;                /* 1: net's collectives only bounded from
                                   below (ncost_bound), no flow engine */
  int net_alone;                /* 1: each group's collectives on net
                                   alone, without the other groups of its
                                   kind beside it (the event engine's
                                   base, which it scales by fleet.h's
                                   factors), but the pipeline's sends,
                                   which it does not scale: their link
                                   demand (fleet_pp) is all pipelines'
                                   at once, at that run's pace; 0: every
                                   group with the others (grp.window) */
  memo *costs;                  /* borrowed: kernel and collective times
                                   already computed for this job; NULL = none */
  int oom;                      /* set when costs could not grow: the
                                   evaluation must fail with SC_ENOMEM */
  struct qmemo *qm;             /* borrowed: the queues of segments costed
                                   before (qmemo.h), or NULL */
  /* scratch, owned and reused: */
  grp *grps;                    /* one per x->groups */
  int cap_grps;
  eng_qop *q;                   /* the queues of every segment */
  int n_q, cap_q;
  int *qoff;                    /* per segment: fwd offset, fwd n, bwd offset, bwd n */
  eng_qsum *qs;                 /* per segment: the fwd and the bwd queue */
  int cap_seg4, cap_seg2;
  eng_qsum *qw;                 /* schedules that split their backwards
                                   (pipeline/pipe.h): per segment the
                                   backward less its weight gradients
                                   (recomputation included) and the
                                   weight-gradient GEMMs; else unused */
  int cap_qw;
  eng_stage *st;                /* per pipeline stage */
  int cap_st;
  double *fill;                 /* uneven_fill's schedule: 2 pp m + 3 pp */
  int cap_fill;
  pipe_pass *fill_order;        /* ... each stage's passes: pp x 3 m */
  int cap_fill_order;
  int *fill_next;               /* ... and 2 pp pass counters */
  int cap_fill_next;
  long mem_pass;                /* passes of eng_memory over the stages: a
                                   stage's sums are reused within one */
  int lay[SC_MAX_PP_LAYOUT];    /* plan_stage_layers' split, made in pass */
  long lay_pass;                /* ... lay_pass of eng_memory (memory.c) */
  int lay_ok;                   /* ... 1: lay holds it */
  int mem_ready;                /* 1: st[*].m and .mem hold the memory of x
                                   under s (set by eng_prepare_memory and
                                   eng_prepare, which then keeps it);
                                   whoever changes x or s sets it to 0 */
  int mem_worst;                /* after eng_prepare_memory: its most
                                   loaded stage */
} eng;

/* The window of job ranks whose groups like g run g's collectives at
 * once (grp.window, engine/place.h): one pipeline stage (gpus / pp), two
 * for the pipeline's send/recv (0 without pipeline parallelism). */
int eng_window(const sc_scenario *s, const xg_group *g);

void eng_init(eng *e);
void eng_free(eng *e);

/* Cost every stage of e->x (groups, queues, per-micro-batch times,
 * memory). SC_OK or SC_ENOMEM. */
int eng_prepare(eng *e, sc_error *err);

/* Memory only: fill e->st[s].m of every stage of e->x (no time is
 * costed) and copy the most loaded stage's into *out. SC_OK or
 * SC_ENOMEM. eng_prepare after it costs the same plan. */
int eng_prepare_memory(eng *e, sc_memory *out, sc_error *err);

/* The step's closed form from the prepared stages. */
void eng_step_of(const eng *e, eng_step *out);

/* A lower bound of the step eng_result gives, from the prepared stages:
 * its sum with the data-parallel reduction and the optimizer left out
 * (every part of the step is >= 0 and a rounded sum is monotone in each
 * term, so never above eng_result's step_s); costs no data-parallel
 * collective and no FSDP schedule. For the search (job_finish_below). */
double eng_step_floor(const eng *e);

/* The exposed part of stage s's gradient reduction of red s over
 * `params` parameters beside its last backward (which loses `share` of
 * the time the reduction runs beside it: grp_slow), as
 * Megatron-Core's buckets overlap it (dpoverlap.c); p2p: one pipeline
 * send/recv, s. */
double eng_dp_overlap(const eng *e, int s, double red, double params, double share,
                      double p2p);

/* eng_dp_overlap for the interleaved schedule (vpp > 1, m a multiple of
 * pp): each model chunk's reduction (red / vpp) launched as Megatron's
 * grad_sync_func is, beside the other chunks' backward passes. */
double eng_dp_overlap_chunks(const eng *e, int s, double red, double share, double p2p);

/* Bytes per parameter element of the plan's type: 4 in fp32 and tf32,
 * and under AMP (plan.amp: the parameters stay fp32, cost/amp.h), else 2
 * (fp8 and fp4 training keep 16-bit parameters). */
double eng_param_bytes(const sc_plan *p);

/* Bytes per gradient element in the data-parallel reduction: 16-bit
 * gradients of bf16 (and fp8/fp4, whose parameters are bf16) training are
 * accumulated and reduced in fp32 when the main gradients are fp32
 * (Megatron-LM arguments.py: "bfloat16 requires gradient accumulation and
 * all-reduce to be done in fp32", accumulate_allreduce_grads_in_fp32 on
 * with main_grads_dtype fp32; the DDP buffer then holds fp32); fp16
 * training reduces in fp16. ZeRO-3 / FSDP keep the 16-bit type: FSDP's
 * mixed precision reduces in param_dtype unless told otherwise
 * (torch MixedPrecision reduce_dtype). Under AMP the gradients of the
 * fp32 parameters are fp32, and DDP reduces them as they are (its
 * buckets have the parameters' dtype, ../shared/reference/pytorch/torch/
 * nn/parallel/distributed.py): 4. */
double eng_grad_bytes(const sc_plan *p);

/* The gradient reduction of stage s (eng_dpred); worst is the step's
 * slowest stage (eng_step.worst), whose backward is the window. */
void eng_dp_reduction(const eng *e, int s, int worst, eng_dpred *out);

/* A prediction from the prepared stages. */
void eng_result(const eng *e, sc_result *r);

/* GPU time of task t in the forward (bwd 0) or backward (bwd 1) pass,
 * communication excluded (0 for collectives). */
double eng_task_compute(const eng *e, const xg_task *t, int bwd);

/* The kernel eng_task_compute costs GEMM task t's forward with (a
 * cost_gemm_path of src/cost/compute.h: tile, memory-bound tile or
 * narrow); -1 for a convolution (cuDNN's algorithms, src/cost/conv.c)
 * and for tasks that are no GEMM. */
int eng_task_gemm_path(const eng *e, const xg_task *t);

/* Host time of issuing task i of segment sg in the forward (bwd 0) or
 * backward (bwd 1) pass, recompute 1 for its re-run forward: under an
 * eager framework a launch per framework call (a collective: its autograd
 * function and the torch.distributed call), and on a layer unit's first
 * task the calls of the FSDP implementation's own kernels
 * (fsdp_unit_launches: forward before it, backward after it, not in a
 * recomputation); one graph node under CUDA graphs; 0 for a graph
 * executor. Both engines' queues take it. */
double eng_task_host(const eng *e, const xg_segment *sg, int i, int bwd, int recompute);

/* GPU time of the weight-gradient GEMM of GEMM task t in backward (the
 * window a collective marked XG_OVL_WGRAD hides under); 0 for other
 * kinds and for convolutions (cuDNN's passes are costed whole). */
double eng_task_wgrad(const eng *e, const xg_task *t);

/* The host time of task i of sg's weight-gradient GEMM run on its own
 * (a split backward's 'W' pass): one kernel's launch, or its CUDA-graph
 * node; 0 without weight gradients or for a framework that is not
 * eager. The split 'B' keeps the rest of the task's backward host time. */
double eng_wgrad_host(const eng *e, const xg_segment *sg, int i);

/* GPU time of the data-gradient GEMM of GEMM task t in backward (with
 * eng_task_wgrad, its backward; 0 as there). */
double eng_task_dgrad(const eng *e, const xg_task *t);

/* Collective task t marked XG_OVL_WGRAD that gathers a column-parallel
 * linear's sequence-split input: its backward gathers that input again
 * for the weight gradient (the forward's bytes), beside the data
 * gradient. Its time alone and in *share its SM and HBM shares; 0 for
 * any other task. */
double eng_regather(const eng *e, const xg_task *t, grp_share *share);

/* 1 when a whole backward queues GEMM task i of sg as its data gradient
 * and, after the collective beside it (XG_OVL_WGRAD), its weight gradient
 * (analytic.c; the event engine's template the same). */
int eng_wgrad_split(const eng *e, const xg_segment *sg, int i);

/* The collective task of sg whose re-gather (eng_regather) a whole
 * backward queues before GEMM g's data gradient, or -1 (analytic.c). */
int eng_regather_first(const eng *e, const xg_segment *sg, int g);

/* The part of the re-gather of collective task t (marked XG_OVL_WGRAD)
 * that the data gradient of its GEMM in sg does not cover, plus that
 * GEMM's slowdown (s; 0 for no re-gather). */
double eng_regather_exposed(const eng *e, const xg_segment *sg, const xg_task *t);

/* The backward of collective task t marked XG_OVL_WGRAD, of `comm`
 * seconds alone taking `share` of the SMs: the part the weight gradient
 * of its GEMM in segment sg does not cover plus that GEMM's slowdown,
 * and for a sequence-parallel gather the same for the re-gather beside
 * the data gradient (plan.tp_async_bwd; both engines). */
double eng_wgrad_exposed(const eng *e, const xg_segment *sg, const xg_task *t, double comm,
                         grp_share share);

/* Time of collective task t (its conjugate in backward), without overlap. */
double eng_task_comm(const eng *e, const xg_task *t, int bwd);

/* eng_task_comm, and in *share the SM and HBM shares it takes from the
 * compute beside it (grp_share), for the event engine's overlap slowdown. */
double eng_task_comm_share(const eng *e, const xg_task *t, int bwd, grp_share *share);

/* The step as a discrete-event simulation of the pipeline schedule
 * (timeline.c): *spans is a new array of *n spans (free() it), *step_s
 * the simulated step. SC_OK or SC_ENOMEM. */
int eng_timeline(eng *e, sc_span **spans, size_t *n, double *step_s, sc_error *err);

/* Time of collective op of `bytes` on group index `group` of e->x (the
 * job's memoised cost); *share (if not NULL) the SM and HBM shares it
 * takes from the compute beside it (grp_share). */
double eng_coll(const eng *e, int group, coll_op op, double bytes, grp_share *share);
/* The same on a group g that need not be one of the job's (memoised). */
double eng_coll_on(const eng *e, const grp *g, coll_op op, double bytes, grp_share *share);
/* GPU-stream seconds of an MoE flex dispatch or combine (task t with
 * t->flex, epflex.c), its shares in *share (may be NULL). */
double eng_flex_cost(const eng *e, const xg_task *t, int bwd, grp_share *share);
/* The two legs of a flex call of `bytes` per GPU, `inter` (0..1) of them
 * over the network, on group g: leg[0] one rank in each node over the
 * nodes, leg[1] the ranks of one node, each as the all-to-all group it
 * runs on (g's window kept) and the bytes that all-to-all moves off every
 * rank (0: no such leg). */
typedef struct eng_flex_leg {
  grp g;
  double bytes;
} eng_flex_leg;
void eng_flex_legs(const grp *g, double bytes, double inter, eng_flex_leg leg[2]);
/* eng_flex_cost of such a call on g (its window decides whether the
 * other groups run beside it). */
double eng_flex_on(const eng *e, const grp *g, double bytes, double inter, grp_share *share);

/* The part of a gradient reduction of `red` s that the closed form
 * exposes beside a last backward of `b` s (which loses `share` of the
 * time they overlap: grp_slow). Assumptions
 * without a measurement: overlapped with the last backward it can hide
 * under 90 % of it (the first buckets fill only after the last layers'
 * gradients), and at least its last bucket (10 %) stays exposed. */
double eng_red_exposed(const sc_plan *p, double red, double b, double share);

/* Under combined 1F1B (plan.overlap_ep): the compute of the other
 * micro-batch's pass one all-to-all of segment sg (marked XG_OVL_OTHER)
 * hides under, s, averaged over the passes ((m - 1) / m of them are
 * paired); *mem_frac its memory-bound part. analytic.c. */
double eng_other_window(const eng *e, const xg_segment *sg, int bwd, double *mem_frac);

/* Under plan.moe_shared_expert_overlap: the GPU seconds of the shared
 * experts' kernels of side `side` (xg_task.shared: 1 beside the dispatch,
 * 2 beside the combine) in the forward (bwd 0) or backward pass of
 * segment sg, shared among that side's legs (XG_OVL_SHARED) that hide
 * under them; *mem_frac: the part of it in memory-bound kernels. */
double eng_shared_window(const eng *e, const xg_segment *sg, int side, int bwd,
                         double *mem_frac);

/* The exposed data-parallel time of stage s after the flush (its
 * reduction's exposed part, ZeRO's gathers, FSDP's units), the slowest
 * stage `worst` giving the window, s (analytic.c; eng_step_of takes the
 * largest over the stages). */
double eng_dp_exposed_stage(const eng *e, int s, int worst);

/* Memory per GPU of stage st (fills e->st[st].m); memory.c. */
void eng_memory(eng *e, int st);
/* After eng_memory(e, s) of a plan with full recomputation of every layer
 * and no offloading: a lower bound of stage s's total memory (bytes), so
 * of the most loaded stage's, had only the first n >= 1 layers of each
 * chunk been recomputed (plan.recompute_layers: the same graph with the
 * other layers' segments not recomputed); 0 when none is known (another
 * plan). memory.c. */
double eng_memory_floor_partial(const eng *e, int s, int n);
/* Before a pass of eng_memory over the stages 0, 1, ... (a stage with the
 * runs of an earlier one takes its sums from it within one pass). */
void eng_memory_pass(eng *e);

#endif
