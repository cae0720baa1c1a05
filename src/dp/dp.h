/*
 * dp.h -- data-parallel training over a communication scheme: parameter
 * servers, all-reduce, gossip (module prefix: dp_).
 *
 * The PerfTop decomposition: one worker's step is its compute (forward,
 * backward, update: from the compute predictor) plus the part of the
 * gradient (or model) exchange that the backward pass does not hide.
 * Gradients become ready layer by layer in backward order; the scheme's
 * framework groups them into messages (DDP buckets, Horovod fusion, one
 * message per tensor for TF); each message starts when its last gradient
 * is ready and the previous message is done, and the step ends when the
 * last message is (overlap.c). What a message costs is the scheme's
 * (one file per family):
 *
 *   fabric.c     transports and links: TCP over Ethernet (per-stream cap,
 *                CPU copies, per-message kernel cost), RDMA (IB, RoCE),
 *                PCIe host links, NVLink hybrid cube-mesh, NVSwitch
 *   allreduce.c  NCCL (ring/tree as NCCL chooses, or ring forced), TF
 *                replicated (NCCL or device copies), MPI in host memory,
 *                hierarchical, KungFu's collective over TCP
 *   kungfu.c     KungFu's binary-tree-star all-reduce through host memory
 *   mpi.c        MPI in host memory: Open MPI's ring over TCP and shared
 *                memory, Horovod's fusion buffer, the host copies
 *   ps.c         parameter servers: synchronous, distributed-replicated,
 *                asynchronous, dedicated CPU servers; shards; on the host
 *                CPU, a GPU, the workers' CPUs or CPU machines
 *   gossip.c     pair averaging (asynchronous), neighbour averaging over
 *                a static or one-peer dynamic exponential-2 graph, its
 *                hierarchical form, a user-given graph
 *   graph.c      gossip graphs: named, edge list, mixing matrix, a file
 *   topo_rate.c  a scheme's exchange on a named topology (flow engine)
 *   model.c      the model's gradients (src/job/dpm.h) as dp_model
 *   predict.c    sc_dp_predict, sc_dp_compare
 *
 * INTERFACE WITH THE MODEL BUILDERS. What a scheme needs of the model is
 * dp_model: the gradient tensors in backward order (bytes, and the
 * backward seconds after which each is ready) and the forward and
 * update seconds. dp_model_from_dpm takes it from dpm_layers
 * (src/job/dpm.h), which walks the one-GPU execution graph of any model
 * (transformer, JSON graph, CNN, BERT) with its kernel costs.
 *
 * Units: seconds, bytes, bytes/s per direction.
 */
#ifndef SC_DP_H
#define SC_DP_H

#include "coll/coll.h"
#include "engine/groups.h"
#include "job/dpm.h"
#include "stepcast.h"

/* ------------------------------------------------------------ schemes */

typedef enum dp_family { DP_FAM_NONE = 0, DP_FAM_PS, DP_FAM_ALLREDUCE, DP_FAM_GOSSIP } dp_family;

typedef enum dp_scheme {
  DP_SINGLE_GPU = 0,
  DP_PS_SYNC,
  DP_PS_SYNC_DIST_REPLICATED,
  DP_PS_ASYNC,
  DP_PS_SYNC_CPU_SERVERS,
  DP_REPLICATED_NCCL,
  DP_REPLICATED_COPY,
  DP_ALLREDUCE_RING_NCCL,
  DP_ALLREDUCE_NCCL,
  DP_ALLREDUCE_MPI_HOST,
  DP_ALLREDUCE_KUNGFU,
  DP_ALLREDUCE_HIER,
  DP_PAIR_AVERAGING_ASYNC,
  DP_NEIGHBOR_EXP2,
  DP_HIER_NEIGHBOR,
  DP_GOSSIP_GRAPH,        /* neighbour averaging over spec.graph (static) */
  DP_SCHEME_COUNT
} dp_scheme;

const char *dp_scheme_name(dp_scheme s);
dp_family dp_scheme_family(dp_scheme s);
const char *dp_family_name(dp_family f);
/* The scheme called name, -1 when none. */
int dp_scheme_from_name(const char *name);
/* 1 when the scheme is asynchronous (the target is a worker's mean step). */
int dp_scheme_async(dp_scheme s);

/* -------------------------------------------------------------- model */

/* One gradient message source: a layer's parameters. */
typedef struct dp_layer {
  double grad_bytes;   /* gradient bytes exchanged (all its tensors) */
  double bwd_s;        /* backward seconds of this layer (its gradient is
                          ready at the end of it) */
  int tensors;         /* gradient tensors (weight, bias, ...) >= 1 */
  double fwd_s;        /* forward seconds from its operator to the next
                          layer's (its weights are needed at the start) */
  /* the two clocks' parts of those windows (dpm_layer): the GPU's work
   * and the host's issue of it, for a run that moves the windows (a
   * forward waiting for pulled variables, ps.c) */
  double gpu_fwd_s, host_fwd_s, gpu_bwd_s, host_bwd_s;
} dp_layer;

/* What a scheme needs of the model, per worker and optimizer step. */
typedef struct dp_model {
  dp_layer *layers;    /* owned, backward order (last layer first) */
  int n;
  double fwd_s;        /* forward seconds of a step */
  double head_s;       /* forward seconds before the first layer's weights
                          are needed */
  double head_gpu_s, head_host_s; /* its GPU work and host issue */
  double kern_frac;    /* the backward's GPU time over its window bwd_s
                          (1: GPU-bound; less where the host leaves the
                          GPU idle between launches) */
  double lead_s;       /* the GPU clock's lead over the host's at the end
                          of the forward, which the backward's windows
                          start from (dp_model_backward) */
  double bwd_s;        /* sum of layers[].bwd_s */
  double mem_frac;     /* the backward's GPU time in memory-bound kernels,
                          as a fraction of its GPU time (dpm bwd_mem_s /
                          bwd_s): the part NCCL's HBM traffic slows */
  double other_s;      /* host, optimizer, input pipeline, ... seconds */
  double opt_s;        /* the optimizer step's GPU seconds (part of the
                          one-GPU step; where a parameter server holds
                          the variables, the PS applies the update) */
  double grad_bytes;   /* sum of layers[].grad_bytes */
  double param_bytes;  /* model (weights) bytes a gossip exchange moves */
  int tensors;         /* sum of layers[].tensors */
  double samples;      /* samples per worker per step */
  int micro_steps;     /* gradient accumulation: backward passes per step
                          (only the last one overlaps the exchange) */
} dp_model;

/* Fill m from the data-parallel view of the model (src/job/dpm.h):
 * grad_elem bytes per gradient element, param_elem per weight element.
 * SC_OK or SC_ENOMEM; m owns its array (dp_model_free). */
int dp_model_from_dpm(const dpm_model *d, double grad_elem, double param_elem, dp_model *m,
                      sc_error *err);
void dp_model_free(dp_model *m);
/* Lay m's backward windows (layers[].bwd_s, bwd_s) on the two clocks
 * from a backward that starts with the GPU clock lead_s s ahead of the
 * host's (what the forward before it left). */
void dp_model_backward(dp_model *m, double lead_s);
/* Bytes per gradient element of m (weights are 4 bytes). */
double dp_grad_elem(const dp_model *m);

/* ------------------------------------------------------------- fabric */

/* The resolved links of one job (fabric.c). */
typedef struct dp_fabric {
  int gpus, gpn, nodes;    /* GPUs, GPUs per server, servers */
  int arch;                /* GPU SM version, for NCCL's tables */
  int host_cpu;            /* sc_host_cpu of the servers (NCCL's tuner) */
  sc_dp_intra intra;       /* the GPU-GPU path inside a server */
  double intra_bw;         /* GPU-GPU per GPU per direction, bytes/s */
  double intra_lat;        /* one hop inside the server, s */
  double host_bw;          /* GPU <-> host memory per GPU per direction */
  int host_share;          /* GPUs behind one host uplink (PCIe switch) */
  double host_lat;         /* one host copy's fixed cost (cudaMemcpy), s */
  double net_line;         /* per server per direction, bytes/s, line rate */
  double net_bw;           /* per server per direction, bytes/s, as the
                              transport reaches it */
  double net_stream_bw;    /* one TCP stream (= net_bw for RDMA) */
  double net_lat;          /* one message across the network, s */
  double net_msg_s;        /* per message CPU/kernel cost (TCP), s */
  int tcp;                 /* 1 = sockets, 0 = RDMA */
  double host_mem_bw;      /* bytes/s a server's CPUs move through host
                              memory (reads + writes) */
  double cpu_reduce_bw;    /* bytes/s a server's CPUs sum gradients at
                              (host_mem_bw / 3: two reads, one write) */
  double loop_bw;          /* one socket stream inside a server, bytes/s */
  double core_mem_bw;      /* memory traffic (reads + writes) one CPU
                              thread sustains, bytes/s; 0 = unbounded */
  double gpu_mem_bw;       /* the GPU's achievable memory bandwidth
                              (hbm_bw x hbm_eff), bytes/s */
  const char *transport;   /* "tcp", "rdma", "none" (static string) */
  double topo_rate;        /* seconds per byte of the scheme's exchange on
                              cluster.topology (flow engine); 0 = no
                              topology: the closed forms above */
} dp_fabric;

/* Resolve the links of s (cluster, GPU and its dp section). SC_OK or
 * SC_EINPUT naming the dp.* key. */
int dp_fabric_resolve(const sc_scenario *s, dp_fabric *f, sc_error *err);

/* Seconds to move `bytes` from one server to another (one stream unless
 * `streams` > 1), the transport's per-message costs included. */
double dp_net_time(const dp_fabric *f, double bytes, int streams);
/* Seconds to copy `bytes` between a GPU and host memory while `sharing`
 * GPUs use the same host uplink. */
double dp_host_time(const dp_fabric *f, double bytes, int sharing);
/* Seconds to send `bytes` from one process to another of the same server
 * over one local socket stream (f->loop_bw), a socket message's kernel
 * and copy cost included. */
double dp_loop_time(const dp_fabric *f, double bytes);
/* The wiring NCCL's closed forms read for the server's GPU-GPU path. */
coll_intra dp_coll_intra(sc_dp_intra i);
/* The NCCL group of `ranks` GPUs over this fabric (intra per GPU, the
 * server's network share per GPU). */
void dp_fabric_group(const dp_fabric *f, int ranks, int ranks_per_node, coll_group *out);

/* MPI all-reduce in host memory (mpi.c): Open MPI's ring of one fused
 * message of `bytes` per rank over f's ranks, seconds: 2 (n-1) steps of
 * one block of bytes/n on the slowest hop, the n-1 reduce-scatter steps
 * each followed by the reduction of the block on the calling thread (at
 * most f->core_mem_bw, the gpn ranks of a server sharing its CPUs'
 * bandwidth); above n segments of 1 MiB the reduce-scatter runs in
 * phases of one segment per block, each step a message of its own. */
double dp_mpi_ring_time(const dp_fabric *f, double bytes);
/* Reduce-scatter phases of Open MPI's ring for `bytes` over n ranks: 1
 * (plain ring) up to n segments, else block / segment rounded to the
 * nearest (halves down), as the segmented ring counts them. */
int dp_mpi_ring_phases(int n, double bytes);
/* Bytes/s one rank's thread moves through host memory while the gpn
 * ranks of its server do the same: the smaller of one thread's rate and
 * its share of the server's. */
double dp_mpi_thread_bw(const dp_fabric *f);
/* Copies of one block the busiest rank's thread makes per ring step:
 * 2 across servers (its socket send and its shared-memory receive), 1 on
 * one server (its shared-memory receive). */
int dp_mpi_step_copies(const dp_fabric *f);
/* Seconds of what a rank's thread sums in the ring's reduce-scatter:
 * (n - 1) blocks of bytes/n, three bytes moved per byte summed, at
 * dp_mpi_thread_bw. */
double dp_mpi_sum_time(const dp_fabric *f, double bytes);
/* Seconds of Horovod's host side of a message of `tensors` tensors: the
 * PCIe copies there and back and the fusion buffer's memcpy in and out
 * (messages of more than one tensor; one is reduced in place). */
double dp_mpi_host_side(const dp_fabric *f, double bytes, int tensors);
/* The whole message as Horovod's MPI path runs it: its host side
 * (dp_mpi_host_side) and the ring. */
double dp_mpi_allreduce_time(const dp_fabric *f, double bytes, int tensors);

/* KungFu's all-reduce (kungfu.c): the default BINARY_TREE_STAR strategy
 * over `nodes` hosts of `gpn` ranks, what one chunk crosses in sequence
 * and what the busiest host carries per byte of buffer. */
typedef struct dp_kf_plan {
  int hops_local;          /* loopback hops of one chunk (to the master and
                              back), 0 or 2 */
  int hops_net;            /* network hops of one chunk: 2 x tree depth */
  double mem_per_byte;     /* bytes through the busiest host's memory per
                              byte of buffer (socket copies, DMA, sums) */
  int net_edges;           /* tree edges at the busiest host's master
                              (parent + children): buffers per direction
                              on its NIC */
} dp_kf_plan;

void dp_kf_plan_for(int nodes, int gpn, dp_kf_plan *p);
/* Seconds of one KungFu all-reduce of `bytes` (one tensor): its host
 * copies, the first 1 MiB chunk through every hop, the rest at the
 * slowest resource's rate. */
double dp_kf_allreduce_time(const dp_fabric *f, double bytes);

/* ------------------------------------------------------------ overlap */

/* How a framework turns gradients into messages. */
typedef struct dp_fusion {
  double bucket_bytes;     /* a message closes when it reaches this
                              (0 = one message per layer's tensors) */
  double first_bytes;      /* the first message's cap (DDP: 1 MiB), 0 = same */
  double cycle_s;          /* Horovod: a message leaves at most every cycle */
  int per_tensor;          /* 1 = one message per gradient tensor */
} dp_fusion;

/* The fusion a framework would use for scheme `sc` (spec.fusion AUTO),
 * or the spec's choice, for `dp` ranks and `elem` bytes per gradient
 * element (Megatron's buckets are counted in elements). */
void dp_fusion_for(const sc_dp_spec *spec, dp_scheme sc, int dp, double elem, dp_fusion *fu);

/* Cost of one message of `bytes` (made of `tensors` tensors), seconds. */
typedef double (*dp_msg_cost)(const void *ctx, double bytes, int tensors);

/* Where a run records its messages for a timeline (sc_dp_timeline):
 * growable, owned by the caller; times from the start of the backward
 * pass of the last micro-batch. */
typedef struct dp_spans {
  sc_span *v;
  int n, cap;
  double *bwd_end;         /* s from the same start: where each layer's
                              backward ends once the messages beside it
                              slowed it (overlap.c); NULL when no run
                              recorded it; owned like v */
  int bwd_n, bwd_cap;
  int oom;                 /* 1 = a span could not be recorded */
} dp_spans;

/* Record one message [start, end) (lane 1, kind 'D'). */
void dp_spans_add(dp_spans *r, double start, double end);

/* What a step of overlapped exchange gives. */
typedef struct dp_overlap {
  dp_spans *rec;           /* in: where to record the messages (NULL: no
                              record; callers zero the struct first); kept
                              by dp_overlap_run */
  double comm_s;           /* sum of the messages' times */
  double exposed_s;        /* step time the exchange adds: past the end of
                              the backward pass, plus the backward's slowdown
                              from sharing SMs */
  double overlapped_s;     /* exchange time during the backward pass */
  double stretch_s;        /* s the backward pass ran longer beside the
                              messages (sm_share x overlapped_s) */
  int messages;
} dp_overlap;

/* Run the closed form: messages from m's layers under fu, each costing
 * cost(ctx, ...), serialised on one channel, overlapping the remaining
 * backward. overlap = 0: every message after the backward pass.
 * sm_share: the fraction by which the backward pass slows while the
 * exchange's kernels run beside it (NCCL: dp_gpu_share, SMs and HBM;
 * 0..1); the backward pass slows by it while messages overlap it, and
 * exposed_s includes that. 0 for exchanges the host or copy engines run. */
void dp_overlap_run(const dp_model *m, const dp_fusion *fu, dp_msg_cost cost, const void *ctx,
                    int overlap, double sm_share, dp_overlap *out);

/* ------------------------------------------------------------ schemes */

/* Everything a scheme function reads. */
typedef struct dp_ctx {
  const sc_scenario *s;
  const sc_dp_spec *spec;
  const dp_model *m;
  const dp_fabric *f;
  dp_scheme scheme;
  double compute_s;        /* fwd + bwd + other of one step (micro-steps in) */
  dp_spans *rec;           /* messages for a timeline, NULL: none */
} dp_ctx;

/* A scheme's answer (the engine's part of sc_dp_result). */
typedef struct dp_cost {
  double step_s;           /* seconds per step (async: a worker's mean step) */
  double comm_s;           /* the exchange's total time */
  double exposed_s;        /* step_s - compute */
  int messages;
  char how[96];            /* algorithm / bottleneck in words */
} dp_cost;

/* What NCCL's all-reduce of `bytes` over g takes from the backward pass
 * it overlaps (contend.c): its SMs (channels / SMs, at most 1/2, the rule
 * of src/engine/groups.c) and its HBM bandwidth (the kernel's HBM bytes,
 * coll/collhbm.h, over its time, over the GPU's achievable bandwidth). */
grp_share dp_nccl_share(const dp_ctx *c, const coll_group *g, double bytes);
/* The fraction by which the backward pass slows while that all-reduce
 * runs beside it: grp_slow of those shares with the model's memory-bound
 * fraction of the backward (dp_model.mem_frac), over the kernels' share
 * of its window (dp_model.kern_frac: the GPU's idle time between the
 * launches of a host-bound layer absorbs the rest). */
double dp_gpu_share(const dp_ctx *c, const coll_group *g, double bytes);

/* Family entry points: SC_OK, or SC_EINPUT when the scheme does not
 * apply to the job (message says why). */
int dp_allreduce_cost(const dp_ctx *c, dp_cost *out, sc_error *err);
int dp_ps_cost(const dp_ctx *c, dp_cost *out, sc_error *err);
/* A PS worker's compute: the one-GPU step less the optimizer's GPU time
 * where the variables (and TensorFlow's apply ops with them) live on CPUs
 * (host, workers' or dedicated servers'); all of it for variables on a
 * GPU. */
double dp_ps_worker_compute(const dp_ctx *c);
int dp_gossip_cost(const dp_ctx *c, dp_cost *out, sc_error *err);

/* A worker's mean step (s) when `workers` asynchronous workers each take
 * `own` seconds per step on their own (compute and exposed exchange) and
 * put demand[j] seconds of work per step on each of `stations` shared
 * servers (what server j does for one round of all workers / workers),
 * served by processor sharing: exact mean value analysis of that closed
 * queueing network (async.c), between max(own, workers x max demand) and
 * above it where the two cross. q: scratch of `stations` doubles. */
double dp_async_step(int workers, double own, const double *demand, double *q, int stations);

/* The scheme's exchange of one step on the scenario's cluster.topology,
 * by the flow engine (topo_rate.c): *rate seconds per byte of gradient
 * per worker, 0 when there is no topology or the scheme keeps its closed
 * form (pair averaging, hierarchical neighbour averaging). SC_OK,
 * SC_EINPUT (topology unreadable or too small, graph), SC_ENOMEM. */
int dp_topo_rate(const dp_ctx *c, double *rate, sc_error *err);

/* ------------------------------------------------------------- graphs */

/* A directed gossip graph on n workers: adj[i*n + j] = weight of j in i's
 * average (0 = not a neighbour); row sums 1 (mixing matrix). */
typedef struct dp_graph {
  int n;
  double *w;               /* owned, n x n */
} dp_graph;

/* Build the graph that spec (a name or an edge list or a matrix, see
 * docs/input.md "dp.graph") names on n workers. SC_OK, SC_EINPUT with
 * the key path dp.graph (unknown name, bad edge, not connected), or
 * SC_ENOMEM. */
int dp_graph_parse(const char *spec, int n, dp_graph *g, sc_error *err);
void dp_graph_free(dp_graph *g);
/* 1 when every worker reaches every other one along edges. */
int dp_graph_connected(const dp_graph *g);
/* Static exponential-2 graph: i's neighbours i + 2^k (mod n). */
int dp_graph_exp2(int n, dp_graph *g, sc_error *err);

#endif /* SC_DP_H */
