/*
 * coll.h -- cost of collective communication (module prefix: coll_).
 *
 * The closed forms of NCCL's collective algorithms and protocols, used by
 * the analytic engine (sc_predict) for every communication of a step, and
 * by `stepcast collective` beside the flow engine of src/net/.
 *
 * Sizes follow nccl-tests: `bytes` is the size of the whole buffer
 * (all_reduce: the buffer; all_gather: the gathered output; reduce_scatter:
 * the input; all_to_all: what one rank sends in all; broadcast/reduce: the
 * buffer; send_recv: the message). Times in seconds.
 */
#ifndef SC_COLL_H
#define SC_COLL_H

typedef enum coll_op {
  COLL_ALL_REDUCE = 0,
  COLL_ALL_GATHER,
  COLL_REDUCE_SCATTER,
  COLL_ALL_TO_ALL,
  COLL_BROADCAST,
  COLL_REDUCE,
  COLL_SEND_RECV,
  COLL_OP_COUNT
} coll_op;

/* A group of GPUs taking part in one collective, as the closed forms see
 * it: `ranks` GPUs, `ranks_per_node` of them in each NVLink domain. */
typedef struct coll_group {
  int ranks;           /* participants, >= 1 */
  int ranks_per_node;  /* participants per NVLink domain, divides ranks */
  int arch;            /* GPU SM version (70, 80, 90, 100): NCCL tables */
  double intra_bw;     /* NVLink per GPU per direction, bytes/s */
  double inter_bw;     /* scale-out NIC per GPU per direction, bytes/s */
  double intra_lat;    /* one NVLink hop, s */
  double inter_lat;    /* one network traversal, s */
  int node_gpus;       /* GPUs wired together in one node's NVLink fabric
                          (8 on DGX-1/DGX A100, 16 on DGX-2); 0 = unknown,
                          taken as ranks_per_node */
  int host_gpus;       /* GPUs one host thread enqueues and launches each
                          collective for (nccl-tests "-g N" in one process:
                          N); 0 or 1 = one GPU per process, as frameworks
                          run (coll_nccl.c, COLL_HOST_GPU_S) */
  int fabric;          /* sc_fabric (fabrics.c): the network's efficiency,
                          and its per-traversal latency when inter_lat is
                          0; 0 = InfiniBand */
  int pcie;            /* 1 = GPUs joined by PCIe only: intra_bw is the
                          slot's datasheet x16 rate (0 = Gen3), and
                          COLL_INTRA_AUTO runs the node as
                          COLL_INTRA_PCIE (coll_nccl_pci_bw) */
  int host_cpu;        /* sc_host_cpu of the servers; 0 = the GPU's reference
                          server's (coll_nccl.c host_cpu_amd) */
} coll_group;

struct sc_coll_group;

/* The module's group of the public sc_coll_group (stepcast.h), field by
 * field by name: the one conversion every public entry uses (coll_api.c). */
coll_group coll_group_of(const struct sc_coll_group *g);

typedef struct coll_cost {
  double time;         /* seconds */
  const char *algo;    /* static string: "ring", "tree", "nvls", ... */
  const char *proto;   /* static string: "LL", "LL128", "Simple" */
  double launch;       /* part of `time` that is the per-call overhead
                          nccl-tests sees around the kernel, seconds */
  int channels;        /* CTAs the kernel occupies on each GPU (one per
                          channel, NCCL's design): SMs compute loses while
                          the collective overlaps it */
} coll_cost;

/* Time of one collective with NCCL's automatic choice of algorithm and
 * protocol. ranks == 1 costs 0. */
coll_cost coll_nccl_time(coll_op op, double bytes, const coll_group *g);

/* Host time of one collective call on the thread that issues it for
 * g->host_gpus GPUs (at least one) when it runs on `channels` (>= 1)
 * channels, seconds. A benchmark that issues
 * collectives back to back runs at the slower of this and the GPU's time
 * (coll_nccl.c, COLL_HOST_GPU_S; with host_gpus > 1 the GPU's time is
 * the kernels plus the stream's launch gap, without COLL_LAUNCH_S). */
double coll_host_time(const coll_group *g, int channels);

/* Name of an op ("all_reduce", ...) and the op for a name (-1 if none). */
const char *coll_op_name(coll_op op);
int coll_op_from_name(const char *name);

/* ------------------------------------------------------------------------
 * Extensions (issue 3). Everything above is the interface the predictor
 * was written against and keeps its meaning.
 */

/* How the GPUs of one node are wired, which decides how many NCCL rings
 * (channels) fit on NVLink. COLL_INTRA_AUTO guesses from the group: below
 * SM80 with <= 150 GB/s and <= 8 ranks per node is a DGX-1 hybrid cube-mesh,
 * anything else with NVLink is an NVSwitch node. */
typedef enum coll_intra {
  COLL_INTRA_AUTO = 0,
  COLL_INTRA_NVSWITCH,  /* every GPU has all its links to NVSwitches */
  COLL_INTRA_CUBEMESH,  /* DGX-1 (V100/P100) hybrid cube-mesh, GPUs 0..k-1 */
  COLL_INTRA_PCIE       /* no NVLink: PCIe at the link rate intra_bw gives
                           (datasheet x16 rate; 0 = Gen3 x16, NCCL's
                           PCI_BW): coll_nccl_pci_bw */
} coll_intra;

/* NCCL's bandwidth of a PCIe link between GPUs, GB/s, given the link's
 * datasheet rate per direction in bytes/s (0 = Gen3 x16): NCCL sets a PCI
 * link to width x per-lane speed (topo.cc), 12 GB/s for Gen3 x16 (PCI_BW,
 * "PCI Gen3 x16" in ../shared/reference/nccl/src/graph/topo.h); each
 * generation doubles the per-lane rate (8, 16, 32 GT/s), so Gen4 x16 24,
 * Gen5 x16 48: PCI_BW x rate / 15.75 GB/s (Gen3 x16's datasheet rate). */
double coll_nccl_pci_bw(double link_bw);

/* NCCL's algorithms and protocols as the tuner knows them. */
typedef enum coll_algo {
  COLL_ALGO_RING = 0,
  COLL_ALGO_TREE,
  COLL_ALGO_NVLS,
  COLL_ALGO_COUNT
} coll_algo;

typedef enum coll_proto {
  COLL_PROTO_LL = 0,
  COLL_PROTO_LL128,
  COLL_PROTO_SIMPLE,
  COLL_PROTO_COUNT
} coll_proto;

const char *coll_algo_name(coll_algo a);
const char *coll_proto_name(coll_proto p);

/* Time of one collective with a given algorithm and protocol as NCCL
 * executes it (chunks, slices, channels: coll_nccl.c), seconds;
 * a negative value when NCCL would not run that combination (NVLS on a
 * GPU without NVLink SHARP, tree for a broadcast, ...). */
double coll_nccl_algo_time(coll_op op, double bytes, const coll_group *g,
                           coll_intra intra, coll_algo a, coll_proto p);

/* coll_nccl_algo_time with the kernel held to at most max_channels
 * channels inside one node (0: NCCL's own count): NCCL 1.x ran each
 * collective as one block a GPU on one ring (1), which on NVLink moves
 * one ring's share of the rings NCCL 2 finds; on PCIe the one ring fills
 * the link as NCCL's two channels do. Seconds, negative when not run. */
double coll_nccl_algo_time_ch(coll_op op, double bytes, const coll_group *g,
                              coll_intra intra, coll_algo a, coll_proto p, int max_channels);

/* NCCL's own estimate of (a, p) (its tuner's latency + size/bandwidth),
 * the number NCCL compares to choose; coll_nccl_algo_time is the time of
 * the pair as NCCL's kernels execute it, which is what coll_nccl_time
 * returns for the chosen pair. Seconds, negative when not run. */
double coll_nccl_tuner_time(coll_op op, double bytes, const coll_group *g,
                            coll_intra intra, coll_algo a, coll_proto p);

/* coll_nccl_time with the node wiring given instead of guessed. */
coll_cost coll_nccl_time_ex(coll_op op, double bytes, const coll_group *g,
                            coll_intra intra);

/* The memory throughput NCCL's kernels reach on one GPU of SM `arch`,
 * bytes/s, counted as collhbm.c counts their bytes (NCCL_MEM_BW_SM80 in
 * coll_nccl.c, from NCCL's send/recv on 8 x A100); 0 where none is
 * measured (every arch but 80). */
double coll_nccl_mem_bw(int arch);

/* coll_nccl_time, and its time as each of the two things that bound the
 * bandwidth part would make it alone, seconds, for the same algorithm,
 * protocol, latencies and host side: *links with the GPU's memory
 * unbounded, *mem with the links unbounded (NCCL's kernels held to the
 * GPU's memory throughput, NCCL_MEM_BW_SM80 in coll_nccl.c; 0 where no
 * throughput is measured: every GPU but compute capability 8.0). The time
 * is max(*links, *mem): a network faster or slower than the closed form's
 * (net/ncoll.c) scales *links only. */
coll_cost coll_nccl_time_split(coll_op op, double bytes, const coll_group *g, double *links,
                               double *mem);

/* nccl-tests' bus-bandwidth factor of an op over n ranks: busbw =
 * algbw * factor (all_reduce 2(n-1)/n, all_gather (n-1)/n, ...). */
double coll_busbw_factor(coll_op op, int n);

/* NVLinks per GPU of a DGX-1 hybrid cube-mesh of SM arch (P100's 4,
 * V100's 6). */
int coll_cubemesh_links(int arch);

/* Rings (NCCL channels, before duplication) that fit on the NVLinks of
 * the first k GPUs of a DGX-1 hybrid cube-mesh of SM arch, k in 1..8; 0
 * if none. */
int coll_cubemesh_rings(int k, int arch);

#endif /* SC_COLL_H */
