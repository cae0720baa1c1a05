/*
 * xg.h -- the execution graph: a plan lowered onto the device mesh
 * (module prefix: xg_).
 *
 * The lowering (src/lower/) compiles the workload graph and a plan into
 * this structure; the engines (src/engine/) run it. It holds, per RANK
 * CLASS -- the GPUs that do the same work: one pipeline stage, all its
 * tensor-, context- and data-parallel ranks -- what one GPU of the class
 * runs for one micro-batch:
 *
 *   task      one kernel (GEMM, attention, memory-bound) or one
 *             collective on a named group, per GPU and micro-batch, with
 *             its stream and the tasks it waits for;
 *   segment   the forward tasks of one block instance under one strategy
 *             (a block with different per-layer overrides gives several
 *             segments); backward and recomputation are derived from
 *             them (each GEMM gives two, memory-bound kernels scale by
 *             their backward traffic, collectives run their conjugate);
 *   run       `count` consecutive instances of a segment;
 *   stage     the runs of one pipeline stage in forward order (all its
 *             model chunks), the rank class's parameters and its
 *             data-parallel work.
 *
 * Stages with the same runs share them (same first_run), so a 16,384-GPU
 * job is a handful of classes. The pipeline schedule (src/pipeline/)
 * gives the order of the passes of each stage; pipeline send/recv links
 * neighbouring stages.
 *
 * Ownership: an xg owns its arrays and reuses them across lowerings
 * (xg_reset keeps the capacity): a search lowers millions of plans into
 * one xg without allocating.
 */
#ifndef SC_EXEC_XG_H
#define SC_EXEC_XG_H

#include <stdint.h>

#include "coll/coll.h"
#include "stepcast.h"

typedef enum xg_kind {
  XG_GEMM = 0, /* C[m,n] = A[m,k] B[k,n], `batch` copies */
  XG_ATTN,     /* a fused (flash) attention kernel */
  XG_MEM,      /* memory-bound kernel(s): `bytes` read + written */
  XG_COMM      /* a collective on group `group` */
} xg_kind;

/* The streams of one GPU. Tensor-, context- and expert-parallel
 * collectives in Megatron-LM block the compute stream; data-parallel
 * reductions and gathers run beside it. */
typedef enum xg_stream { XG_STREAM_COMPUTE = 0, XG_STREAM_COMM } xg_stream;

/* How a collective overlaps the compute next to it. */
typedef enum xg_overlap {
  XG_OVL_NONE = 0, /* on the critical path */
  XG_OVL_NEXT,     /* hidden under the next task (context-parallel ring) */
  XG_OVL_PREV,     /* hidden under the GEMM before it when plan.overlap_tp */
  XG_OVL_OTHER,    /* hidden under another micro-batch's pass of the same
                      segment (plan.overlap_ep: combined 1F1B) */
  XG_OVL_WGRAD,    /* blocks in forward; in backward, the reduction of a
                      column-parallel linear's input gradient, hidden
                      under the weight gradient of GEMM xg_task.wgrad
                      (plan.tp_async_bwd) */
  XG_OVL_SHARED    /* an MoE dispatch (xg_task.shared 1) or combine (2)
                      leg hidden under the shared experts' kernels of the
                      same side in the same pass
                      (plan.moe_shared_expert_overlap) */
} xg_overlap;

/* The parallel groups of a strategy; a task names one by index into
 * xg.groups. */
typedef enum xg_group_kind {
  XG_GROUP_TP = 0, /* tensor (+ sequence) parallel */
  XG_GROUP_CP,     /* context-parallel ring */
  XG_GROUP_EP,     /* expert-parallel all-to-all */
  XG_GROUP_DP,     /* data parallel (x context parallel): gradients */
  XG_GROUP_PP,     /* two neighbouring pipeline stages */
  XG_GROUP_MP,     /* tensor x context: re-layout between strategies */
  XG_GROUP_KIND_COUNT
} xg_group_kind;

typedef struct xg_group {
  xg_group_kind kind;
  int ranks;                 /* members */
  int stride;                /* job ranks between consecutive members */
} xg_group;

#define XG_NO_DEP (-1)

typedef struct xg_task {
  const char *prefix;        /* static: "" or "ag_", "rs_", ... (comm) */
  const char *name;          /* static, or an op name inside the workload
                                graph; the task's name is prefix + name */
  xg_kind kind;
  xg_stream stream;
  int op;                    /* workload-graph op, -1 for inserted comm */
  sc_dtype dtype;            /* GEMM, ATTN: the type they compute in */
  double m, n, k, batch;     /* GEMM, per GPU. MEM: m and n the forward and
                                backward seconds of kernels bound by their
                                per-thread work rather than their bytes
                                (ATen's pooling, cost/pool.h; the kernel's
                                fixed cost not included), 0 = by bytes */
  double flops, sq, d;       /* ATTN: forward FLOPs, query length, head dim */
  int causal;                /* ATTN */
  double bytes;              /* MEM: moved; COMM: nccl-tests size */
  double bwd_scale;          /* MEM traffic, ATTN FLOPs of backward vs forward */
  double comm_scale[3];      /* COMM: bytes moved forward [0], backward [1]
                                and by an all-gather's re-gather for the
                                weight gradient [2] (0 = as [0]) as a
                                fraction of `bytes` (TE's fp8 gathers:
                                1 / 2); 0 = 1 */
  int host_fwd, host_bwd;    /* framework calls of an eager framework */
  int recompute_sel;         /* times selective recomputation re-runs it in
                                backward (the plan's recompute modules that
                                hold it; 0 = none) */
  coll_op coll;              /* COMM */
  int group;                 /* COMM: index into xg.groups */
  xg_overlap overlap;        /* COMM */
  int wgrad;                 /* COMM with XG_OVL_WGRAD: the segment's task
                                (index from its first) whose weight-gradient
                                GEMM it runs beside in backward; GEMM: 1
                                when a collective runs beside its weight
                                gradient (so that it hides one at most) */
  int flex;                  /* COMM: 1 = an MoE flex (DeepEP) dispatch or
                                combine: `bytes` per GPU, flex_inter of them
                                over the network, the rest over NVLink
                                (src/lower/moe_dispatch.c) */
  int shared;                /* plan.moe_shared_expert_overlap: a shared
                                expert's kernel beside the dispatch (1: its
                                fc1 and activation) or the combine (2: its
                                fc2); COMM with XG_OVL_SHARED: the side of
                                its leg; 0 = none */
  double flex_inter;         /* COMM with flex: 0..1 */
  int dep[2];                /* tasks of the segment this one waits for
                                (data), XG_NO_DEP if none; stream order
                                is implied by the position */
} xg_task;

typedef struct xg_segment {
  int block;                 /* workload-graph block */
  int first_task, n_tasks;   /* forward tasks, in issue order */
  int tp, cp, ep, sp;        /* its strategy */
  int zero;
  sc_recompute recompute;
  int hp;                    /* 1 = GEMMs in 16 bits in a low-precision plan */
  int etp;                   /* expert tensor parallel (tp, or 1) */
  int role;                  /* wg_role of the block; -1 for a re-layout */
  int dp_group;              /* index into xg.groups: where its gradients
                                are reduced (zero 3: the shard group) */
  int rep_group;             /* zero 3 with an HSDP shard: the group of the
                                shard's replicas (gradients all-reduced
                                there once per step); -1 = none */
  int shard;                 /* ranks its ZeRO state is divided over */
  int edp_group;             /* where its experts' gradients are reduced:
                                Megatron's expert data-parallel group,
                                tp x cp x dp / (etp x ep) ranks, etp x ep
                                apart (= dp_group without experts) */
  int eshard;                /* ranks its experts' ZeRO state is divided
                                over: that group's (= shard without
                                experts) */
  double params;             /* per GPU, after tp and ep, before ZeRO */
  double params_expert;      /* per GPU: of params, the MoE experts' (their
                                own gradient buffers, reduced and sharded
                                over edp_group: Megatron's DDP keeps dense
                                and expert buffers apart) */
  double tied_params;        /* per GPU: weights shared with the embedding,
                                held again by a stage without it */
  double params_lp;          /* per GPU: the weights of fp8/fp4 GEMMs among
                                params (their low-precision copies) */
  double params_cast;        /* per GPU: the weights of GEMMs and
                                convolutions, tied ones included: what
                                AMP casts to 16 bits each forward
                                (engine/memory.c) */
  double act_bytes;          /* activations kept for backward, per
                                micro-batch and GPU, without recompute */
  double act_sel_bytes;      /* ... with selective recomputation (the
                                plan's recompute modules) */
  double bwd_extra_bytes;    /* what its backward allocates beyond what it
                                keeps (the loss's gradients), per
                                micro-batch and GPU, freed before the next
                                segment's backward (engine/memory.c) */
  int recomp_depth;          /* selective: most times a task re-runs */
  double input_bytes;        /* its input tensor, per micro-batch and GPU
                                (what full recomputation keeps) */
  uint64_t memo_id;          /* the memo of segments' number for this
                                segment's content less its ZeRO stage and
                                recomputation mode (lower/segmemo.h);
                                0 = none. A tag for the engine's memo of
                                queues (engine/qmemo.h), not part of the
                                graph: lcache_xg_equal does not compare it */
} xg_segment;

typedef struct xg_run {
  int segment;
  int count;                 /* consecutive instances */
} xg_run;

typedef struct xg_stage {
  int first_run, n_runs;     /* forward order, all model chunks */
  int same_as;               /* an earlier stage with the same runs, or -1 */
  double params;             /* per GPU, before ZeRO (tied copies included) */
  double layers;             /* layer instances it holds */
} xg_stage;

typedef struct xg {
  xg_task *tasks;
  int n_tasks, cap_tasks;
  xg_segment *segs;
  int n_segs, cap_segs;
  xg_run *runs;
  int n_runs, cap_runs;
  xg_stage *stages;
  int n_stages, cap_stages;
  xg_group *groups;
  int n_groups, cap_groups;
  int micro_batches;         /* per pipeline per step */
  int vpp;                   /* model chunks per stage (1 unless interleaved) */
  int pp_group;              /* index of the stage-to-stage group */
  double p2p_bytes;          /* one activation send/recv between stages */
} xg;

void xg_init(xg *x);
void xg_free(xg *x);
/* Empty the graph, keeping its memory. */
void xg_reset(xg *x);

/* Append and return the index, or -1 when out of memory. */
int xg_add_task(xg *x, const xg_task *t);
/* The collective a COMM task runs in forward (bwd = 0) or backward (the
 * conjugate: an all-gather's gradient is a reduce-scatter and back). */
coll_op xg_comm_op(const xg_task *t, int bwd);
/* Bytes a COMM task moves in forward (bwd = 0) or backward. */
double xg_comm_bytes(const xg_task *t, int bwd);

/* Bytes the re-gather of all-gather t moves in backward (sequence
 * parallelism gathers the saved shard again for the weight gradient). */
double xg_regather_bytes(const xg_task *t);

/* The parameters segment sg holds on pipeline stage `stage`: its own,
 * and the weights it shares with the embedding again on every stage
 * after the first (which holds the embedding). */
static inline double xg_seg_params(const xg_segment *sg, int stage) {
  return sg->params + (stage > 0 ? sg->tied_params : 0);
}

/* Of x, a per-parameter quantity summed over n of the segment's
 * parameters on a stage (n = count x xg_seg_params), the share one rank
 * keeps when ZeRO divides it: the dense part over shard, the experts'
 * (count x params_expert of n) over eshard. */
static inline double xg_seg_sharded(const xg_segment *sg, double x, double n, int count) {
  if (n <= 0) return 0;
  double fe = count * sg->params_expert / n;
  int sh = sg->shard > 0 ? sg->shard : 1, es = sg->eshard > 0 ? sg->eshard : sh;
  return x * ((1 - fe) / sh + fe / es);
}

int xg_add_segment(xg *x, const xg_segment *s);
int xg_add_run(xg *x, int segment, int count);
int xg_add_stage(xg *x, const xg_stage *s);
/* The index of an equal group, added if new; -1 when out of memory. */
int xg_add_group(xg *x, xg_group_kind kind, int ranks, int stride);

/* The first data-parallel group of x with more than one rank, or NULL. */
const xg_group *xg_dp_group(const xg *x);

/* The GPUs of one NVLink domain on cluster c (cluster.nvlink_domain, else
 * gpus_per_node). */
int xg_domain_gpus(const sc_cluster *c);

/* Members per NVLink domain of a group of `ranks` GPUs `stride` job ranks
 * apart on cluster c: as many as fit in a domain, dividing ranks. The one
 * placement rule of a group that the lowering (the MoE dispatch's nodes,
 * src/lower/moe_dispatch.c) and the engines (src/engine/groups.c,
 * fleet.c) share. */
int xg_per_domain(const sc_cluster *c, int ranks, int stride);

#endif /* SC_EXEC_XG_H */
