/*
 * coll_nccl.c -- NCCL's own cost model of a collective (ncclTopoTuneModel
 * and ncclTopoGetAlgoTime in src/graph/tuning.cc), and its choice of the
 * fastest algorithm and protocol.
 *
 * For each (algorithm, protocol) NCCL estimates
 *
 *   time = latency + bytes / algbw
 *   latency = baseLat[a][p] + steps * hwLat[hw][a][p]      (ring)
 *           = baseLat + 2 ((ppn-1) intraLat + log2(nodes) interLat) (tree)
 *   busBw   = nChannels * bw per channel, capped per protocol
 *   algbw   = busBw * ratio  (ring n/nsteps, tree 1/2, NVLS 5/6)
 *
 * and runs the fastest. We evaluate the same formulas to make NCCL's
 * choice, then time the chosen pair the way NCCL's kernels execute it
 * (exec_time below: ring Simple moves each channel's data in chunks and
 * slices through 2(n-1) steps with a flag wait / barrier / post per
 * slice; LL and LL128 synchronize per line, which the tuner's
 * latency + size/bandwidth form describes), add the launch overhead that
 * nccl-tests sees around every collective (COLL_LAUNCH_S), and derive the
 * channels and their bandwidth from the coll_group rather than from a
 * probed topology. A benchmark issues collectives back to back, so an op
 * costs the slower of that GPU time and the host's (coll_host_time: one
 * thread enqueues and launches the op on each GPU it drives, g->host_gpus;
 * 5.19 us per GPU and 0.31 us per GPU and channel, COLL_HOST_GPU_S). With one thread driving several GPUs
 * the op is max(kernels + COLL_STREAM_GAP_S, host): COLL_LAUNCH_S is the
 * fitted per-op cost of one GPU per process, and that layout's launch and
 * completion are the host time itself (coll_nccl_time_ex).
 *
 *  - NVSwitch node: the GPU's NVLinks at NCCL's SMxx_NVLINK_BW each, split
 *    into rings the way NCCL's ring search does (nccl_rings.c: A100 12 x
 *    20, H100 12 x 30, B200 16 x 45 GB/s). Across nodes, NCCL's
 *    inter-node search (nccl_net.c, sys_net): channels per NIC rail, the
 *    tuner's own busBw (the tree's bwIntra on two nodes) for the choice.
 *  - DGX-1 hybrid cube-mesh (P100, V100): the rings that fit on the
 *    direct NVLinks of the first k GPUs (coll_cubemesh_rings), each at
 *    the wire rate of one link: the GPU's NVLink figure over its links
 *    (coll_cubemesh_links; datasheet 20 GB/s per direction on P100's four
 *    NVLink 1 links, 25 on V100's six NVLink 2) times the NVLink payload
 *    efficiency 128/144 (a 128-byte write travels as one 16-byte header
 *    flit plus eight 16-byte data flits).
 *  - Across nodes the kernels reach rpn NIC rails, each at nic * NET_EFF
 *    (0.88 on InfiniBand, fabrics.c; from the calibration's multi-node
 *    runs; NCCL's tuner assumes 0.96); a tree on two nodes up to twice
 *    that (sys_net).
 *
 * The tuner constants are NCCL 2.30.7 values from
 * ../shared/calibration/nccl_tuning_constants.csv; the row id is next to
 * each. The execution constants (buffer sizes, steps, threads, channels)
 * are NCCL source defaults, cited as "NCCL src/FILE (version)" beside
 * each; they have not changed from 2.12 to 2.2x. The one constant not
 * from NCCL is COLL_LAUNCH_S (see below).
 */
#include <assert.h>
#include <math.h>

#include "coll/coll.h"
#include "coll/collhbm.h"
#include "coll/fabrics.h"
#include "coll/nccl_net.h"
#include "coll/nccl_pipe.h"
#include "coll/nccl_rings.h"

/* ------------------------------------------------------------ constants */

/* Overhead around one collective as nccl-tests times it, seconds: kernel
 * launch, the group's completion and the stream event, which NCCL's tuner
 * leaves out because it is the same for every algorithm. FITTED: the one
 * scalar scanned (0..40 us in 5 us steps) against the three sets of
 * ../shared/validation/collectives with the tuner-only model; 20 us
 * balanced them. It was not rescanned for the execution model. (The A100
 * Kineto trace ../shared/traces/hta/negative_queue_length_values_check
 * gives a 20 us median host interval per kernel launch, tools/calib/
 * kineto_launch.py, but that is PyTorch's per-op cost, not a derivation
 * of nccl-tests' overhead.) See docs/network.md "Accuracy". */
#define COLL_LAUNCH_S 20e-6

/* Host time of one collective call per GPU the calling thread drives,
 * seconds: NCCL's enqueue and the kernel launch of one GPU inside
 * ncclGroupEnd, COLL_HOST_GPU_S + COLL_HOST_CHANNEL_S x the channels the
 * op runs on (active_channels): NCCL builds and uploads the work of every
 * channel on the host (enqueue.cc scheduleCollTasksToPlan: one work batch
 * per channel, channelLo..channelHi). From
 * ../shared/calibration/collective_benchmarks.csv rows 83-90 (stas00, one
 * process driving 8 A100, nccl-tests -g 8, 32 KiB-4 MiB: 43.83, 46.80,
 * 51.76, 61.38, 80.40, 101.9, 101.4, 101.5 us, where the kernels take at
 * most 74 us by this model): host-bound, per GPU 5.48-12.69 us against
 * 1, 2, 4, 8, 16, 24, 24, 24 channels (ring LL / LL128 on 24 kernel
 * channels); the least-squares line is 5.186 + 0.312 x channels us, within
 * 1.3 % of every row. (Row 83 alone, 43.83 / 8 = 5.48 us per GPU, was the
 * constant before, with no channel term.) */
#define COLL_HOST_GPU_S 5.186e-6
#define COLL_HOST_CHANNEL_S 0.312e-6

/* GPU time between two kernels issued back to back on one stream,
 * seconds: ../shared/calibration/host_overheads.csv row 1 (H200, 10,000
 * back-to-back stream launches of a tiny kernel: 2.43 us per kernel, an
 * upper bound that includes the kernel; rows 5 and 8, A40 and L40, give
 * 2.05 and 1.64). Used where one thread drives several GPUs (see
 * coll_nccl_time_ex). */
#define COLL_STREAM_GAP_S 2.43e-6

/* Bytes per second that NCCL's kernels on one A100 (compute capability
 * 8.0) read and write in its memory, counted as collhbm.c counts them
 * (the receive FIFO written and read back, the input read, the output
 * written; a peer's NVLink reads of this GPU's FIFO are this GPU's
 * reads): ../shared/calibration/collective_benchmarks.csv rows 61-62,
 * NCCL's own send/recv between NVLink peers of an 8 x A100 node, 2785.4
 * us at 512 MiB and 5503.4 us at 1 GiB: a slope of 197.5 GB/s sent a GPU,
 * which moves 4 bytes through each GPU's memory per byte sent
 * (collhbm_bytes COLL_SEND_RECV: 2 f + 2, f = 1 for Simple): 790.1 GB/s.
 * NVLink is not what holds send/recv there: NCCL's ring all-reduce on the
 * same node moves the same NVLink bytes per GPU at 229-235 GB/s of bus
 * bandwidth (rows 98-102), with 3.14 memory bytes per bus byte (2 + n /
 * (n - 1), n = 8), within this figure. It binds where a kernel moves more
 * memory bytes per bus byte: a ring all-reduce on 2 GPUs (4, as send/recv:
 * 197.5 GB/s) or 3 (3.5: 225.7). Only A100 is measured (rows 59-62); other
 * GPUs keep their links' bound alone (mem_bus_bw). The key is the compute
 * capability: A800 is A100's die, but the A30 (8.0 too, 933 GB/s of HBM2
 * against A100's 1,555-2,039) takes the figure unmeasured. Not NCCL's tuner's: it
 * chooses on its own bandwidths. */
#define NCCL_MEM_BW_SM80 (4.0 * 536870912.0 / (5503.4 - 2785.4) / 1e3) /* GB/s */

#define US 1e-6 /* tables are in microseconds */
#define GBS 1e9 /* and GB/s */

enum { HW_NVLINK = 0, HW_PCI, HW_NET, HW_COUNT };

/* baseLat[algo][proto], us. Rows 1-3 (Tree), 4-6 (Ring), 13-15 (NVLS). */
static const double base_lat[COLL_ALGO_COUNT][COLL_PROTO_COUNT] = {
    {6.6, 14.0, 8.4}, /* ring: rows 4, 5, 6 */
    {6.8, 14.0, 8.4}, /* tree: rows 1, 2, 3 */
    {0.0, 0.0, 0.0},  /* nvls: rows 13, 14, 15 */
};

/* hwLat[hw][algo][proto], us, per step. */
static const double hw_lat[HW_COUNT][COLL_ALGO_COUNT][COLL_PROTO_COUNT] = {
    {{0.6, 1.9, 3.4},   /* NVLINK ring: rows 61-63 */
     {0.6, 1.25, 4.0},  /* NVLINK tree: rows 58-60 */
     {0.0, 0.0, 25.0}}, /* NVLINK nvls: rows 70-72 */
    {{1.0, 2.5, 5.7},   /* PCI ring: rows 82-84 */
     {1.0, 1.9, 4.0},   /* PCI tree: rows 79-81 */
     {0.0, 0.0, 0.0}},  /* PCI nvls: rows 91-93 */
    {{2.7, 4.0, 14.0},  /* NET ring: rows 103-105 */
     {5.0, 8.5, 14.0},  /* NET tree: rows 100-102 */
     {0.0, 0.0, 18.0}}, /* NET nvls: rows 112-114 */
};

/* Architecture index of NCCL's tables: Volta, Ampere, Hopper, Blackwell. */
enum { CC_VOLTA = 0, CC_AMPERE, CC_HOPPER, CC_BLACKWELL, CC_COUNT };

/* [cc][nodes: 1, 2, >2], GB/s. llMaxBw rows 229-240. On one node NCCL
 * indexes the table by the GPU's architecture, across nodes by the host's
 * CPU vendor (tuning.cc ncclTopoTuneModel: index1 = nNodes == 1 ?
 * compCapIndex : AMD or mixed ? 1 : 0): the first line is then Intel's
 * (and every other CPU's), the second AMD's (host_cpu_amd). */
static const double ll_max_bw[CC_COUNT][3] = {
    {39.0, 39.0, 20.4},   /* rows 229-231 */
    {87.7, 22.5, 19.0},   /* rows 232-234 */
    {141.0, 45.0, 35.0},  /* rows 235-237 */
    {282.0, 90.0, 70.0},  /* rows 238-240 */
};
static const double per_ch_ring_ll128[CC_COUNT][3] = {
    {20.0, 20.0, 20.0}, /* rows 313-315 */
    {20.0, 20.0, 20.0}, /* rows 316-318 */
    {36.7, 36.7, 36.7}, /* rows 319-321 */
    {40.0, 40.0, 40.0}, /* rows 322-324 */
};
static const double per_ch_tree_ll128[CC_COUNT][3] = {
    {20.0, 20.0, 20.0},  /* rows 325-327 */
    {20.0, 20.0, 20.0},  /* rows 328-330 */
    {36.7, 36.7, 29.0},  /* rows 331-333 */
    {55.6, 31.67, 20.0}, /* rows 334-336 */
};
static const double per_ch_tree[CC_COUNT][3] = {
    {26.5, 18.5, 10.0}, /* rows 337-339 */
    {24.0, 23.6, 17.8}, /* rows 340-342 */
    {38.7, 41.4, 36.0}, /* rows 343-345 */
    {70.0, 42.8, 24.0}, /* rows 346-348 */
};
/* nvlsEfficiency, rows 361-364. */
static const double nvls_eff[CC_COUNT] = {0.0, 0.0, 0.85, 0.74};
/* SMxx_NVLINK_BW per link, GB/s: rows 378 (SM70), 379 (SM80), 381 (SM90),
 * 382 (SM100). */
static const double nccl_nvlink_bw[CC_COUNT] = {20.0, 20.0, 20.6, 40.1};
/* Datasheet NVLink bandwidth per link per direction, GB/s: NVLink 2, 3
 * and 4 run 25 GB/s per link (V100 6 links = 150, A100 12 = 300, H100
 * 18 = 450), NVLink 5 runs 50 (B200 18 = 900). */
static const double datasheet_link_bw[CC_COUNT] = {25.0, 25.0, 25.0, 50.0};

#define NVLINK_PAYLOAD_EFF (128.0 / 144.0) /* see the file comment */
#define PCI_BW 12.0                        /* GB/s, row 383 */
#define PCIE_GEN3_X16_GBS 15.75            /* GB/s per direction, datasheet */
/* Bus bandwidth NCCL reaches across nodes per unit of NIC line rate at
 * large sizes: NET_EFF, per fabric (fabrics.c, fab_net_eff; InfiniBand
 * 0.88). */
#define NET_OVERHEAD_US 1.0       /* row 373, Intel (and non-x86) CPU; x3 for Simple */
#define NET_OVERHEAD_AMD_US 2.0   /* row 374, AMD x86 CPU; x3 for Simple */
#define RING_LL_FACTOR 0.5        /* row 365 */
#define RING_LL128_FACTOR 0.92    /* row 366 */
#define TREE_FACTOR 0.92          /* row 367 */
#define TREE_LL_DIVISOR 3.8       /* row 368 */
#define TREE_LL128_1NODE (7.0 / 9.0)      /* row 369 */
#define TREE_LL128_MULTI (120.0 / 128.0)  /* row 370 */
#define NVLS_RATIO (5.0 / 6.0)    /* tuning.cc: algbw = busBw * 5/6 */

/* ------------------------------------------ how NCCL's kernels execute */

/* Steps of the FIFO between two ranks of a channel: each connection's
 * buffer is split into NCCL_STEPS slots. NCCL src/include/devcomm.h
 * (2.18; device.h from 2.19): #define NCCL_STEPS 8. */
#define NCCL_STEPS 8
/* Simple protocol buffer per connection: NCCL src/init.cc (2.18):
 * #define DEFAULT_BUFFSIZE (1 << 22) (4 MiB), so one step is 512 KiB. */
#define SIMPLE_BUFFSIZE (4.0 * 1024 * 1024)
#define SIMPLE_STEP_BYTES (SIMPLE_BUFFSIZE / NCCL_STEPS)
/* Steps per chunk and per slice of the ring kernels. NCCL
 * src/include/collectives.h (2.18): ALLREDUCE_CHUNKSTEPS (NCCL_STEPS/2),
 * ALLREDUCE_SLICESTEPS (NCCL_STEPS/4), the same for ALLGATHER and
 * REDUCESCATTER; BROADCAST/REDUCE_CHUNKSTEPS 1, _SLICESTEPS 1. */
#define RING_CHUNKSTEPS (NCCL_STEPS / 2)
#define RING_SLICESTEPS (NCCL_STEPS / 4)
#define CHAIN_CHUNKSTEPS 1
#define CHAIN_SLICESTEPS 1
/* A slice is never cut below 1/32 of its full size: NCCL
 * src/device/prims_simple.h (2.18) genericOp: sliceSize =
 * max(divUp(nelem, 16*SlicePerChunk)*16, sliceSize/32). */
#define SLICE_MIN_FRACTION (1.0 / 32)
/* Channels: NCCL's ring search finds the rings (our nch), then
 * ncclTopoPostset duplicates them for the kernels (nch_run):
 * nccl_rings.c. */
#define MULTI_NODE_MAXCHANNELS 32
/* Threads per channel and the bytes per thread below which NCCL runs a
 * collective on fewer channels: NCCL src/include/devcomm.h (2.18)
 * NCCL_SIMPLE_MAX_NTHREADS 512, NCCL_LL_MAX_NTHREADS 512,
 * NCCL_LL128_MAX_NTHREADS 640; NCCL_SIMPLE_THREAD_THRESHOLD 64,
 * NCCL_LL_THREAD_THRESHOLD 8 (times nRanks for ring LL, tuning.cc),
 * NCCL_LL128_THREAD_THRESHOLD 8; applied in NCCL src/enqueue.cc (2.18)
 * getAlgoInfo: while (nBytes < nc*nt*threshold) nc--. */
static const int proto_threads[COLL_PROTO_COUNT] = {512, 640, 512};
static const int proto_thread_threshold[COLL_PROTO_COUNT] = {8, 8, 64};

/* -------------------------------------------------------- the node */

/* What holds the bandwidth part of a time: both the links and the GPU's
 * memory (the kernels as they run), the links alone, or the memory alone
 * (coll_nccl_time_split). Every time below is monotone in one bandwidth,
 * the smaller of the links' and the memory's, so the time held by both is
 * the larger of the two held by one. */
typedef enum nccl_bound { BOUND_BOTH = 0, BOUND_LINKS, BOUND_MEM } nccl_bound;

/* What the model needs to know of a group, derived once per call. */
typedef struct nccl_sys {
  int n;          /* ranks */
  int ppn;        /* ranks per node */
  int nodes;      /* n / ppn */
  int cc;         /* CC_* */
  int hw_intra;   /* HW_NVLINK or HW_PCI */
  int nch;        /* channels of NCCL's ring search (the tuner's nChannels) */
  int nch_run;    /* channels the kernels run on: nch duplicated, <= 32 */
  double bus_bw;  /* busBw of all channels as the kernels reach it, GB/s
                     (across nodes: the NICs at the fabric's NET_EFF) */
  double tune_bw; /* the ring's busBw in NCCL's tuner (nChannels x bw of
                     its graph), GB/s; bus_bw on one node */
  double tree_tune_bw; /* the tree's, GB/s (bwIntra on two nodes) */
  double tree_bw; /* the tree's as it runs, GB/s (see sys_net) */
  int p2p_read;   /* peers pull over NVLink (see ring_simple_time) */
  int nvls;       /* NVLink SHARP usable */
  double intra_hop_us; /* one NVLink hop, us (see intra_hw_lat) */
  double net_hop_us;  /* one network traversal, us (see net_hw_lat) */
  double net_eff; /* NET_EFF of the group's fabric (fabrics.c) */
  int cpu_amd;    /* the host CPU is AMD x86 (host_cpu_amd) */
  int arch_sm80;  /* compute capability 8.0 (A100; NCCL_MEM_BW_SM80) */
  nccl_bound bound; /* what holds the bandwidth part (nccl_bound) */
} nccl_sys;

/* NCCL's hwLat NVLINK and NET Ring LL entries (rows 61, 103), us: the
 * per-hop latencies of the cluster presets. A cluster that states another
 * NVLink hop (cluster.nvlink_latency_us) or network traversal
 * (nic_latency_us, a fabric) adds its difference to 0.6 or 2.7 us to the
 * node's or the NET rows (intra_hw_lat, net_hw_lat): NCCL's tuner itself
 * adds a transport's latency to its tables rather than scaling them
 * (tuning.cc ncclTopoTuneModel: interLat += graphs[a]->latencyInter, the
 * net plugin's reported latency). Before branch review25a the NVLink hop
 * scaled the node's rows by its ratio to 0.6 (LL's 0.6 the same either
 * way; LL128 and Simple now pay the difference once, not 3.2 and 5.7
 * times it). */
#define NCCL_NVLINK_HOP_US 0.6
#define NCCL_NET_HOP_US 2.7

static int cc_index(int arch) {
  if (arch >= 100) return CC_BLACKWELL;
  if (arch >= 90) return CC_HOPPER;
  if (arch >= 80) return CC_AMPERE;
  return CC_VOLTA;
}

/* Whether the hosts of a group are AMD x86, as NCCL's tuner sees them
 * across nodes (tuning.cc: llMaxBw's AMD row 232-234 instead of Intel's
 * 229-231, getNetOverhead 2.0 us instead of 1.0, rows 373-374): the
 * group's host_cpu (cluster.host_cpu) when given; else the CPU of its
 * GPU's reference server, by the datasheets: DGX A100 (compute
 * capability 8.0) 2 x AMD EPYC 7742 (Azure ND A100 v4 too: AMD EPYC 7V12;
 * AWS p4d and GCP A2 run Intel: set host_cpu); DGX-1 and DGX-2 (V100),
 * DGX H100, DGX B200 Intel Xeon; GB200 Grace (Arm, which NCCL reads as
 * Intel's row and 1.0 us). sm_86/89 boards have no reference server and
 * keep NCCL's first row. The same for every group. */
static int host_cpu_amd(const coll_group *g) {
  if (g->host_cpu != SC_CPU_AUTO) return g->host_cpu == SC_CPU_AMD;
  return g->arch == 80;
}

/* NVLinks per GPU of a DGX-1 hybrid cube-mesh: NVLink 1 (sm_60, P100) 4,
 * one to each neighbour; NVLink 2 (V100) 6, eight of the sixteen
 * neighbour pairs doubly linked (DGX-1 with Tesla P100 and with Tesla
 * V100 datasheets and whitepapers, recalled, not in ../shared). The
 * presets' per-GPU figures over these give the datasheet link rates:
 * p100-sxm2-16gb 80 GB/s / 4 = 20, V100 150 / 6 = 25 GB/s per direction. */
int coll_cubemesh_links(int arch) { return arch < 70 ? 4 : 6; }

/* Rings on the NVLinks of GPUs 0..k-1 of a DGX-1. Found by exhaustive
 * search for edge-disjoint directed Hamiltonian cycles on the cube-mesh
 * (the pairs 0-1 0-2 1-3 2-6 3-7 4-5 4-6 5-7 and 0-3 0-4 1-2 1-5 2-3 4-7
 * 5-6 6-7, as net/topo_gen.c builds it: two fully connected quads 0-3
 * and 4-7, GPU i joined to i+4) with the links as capacities per
 * direction: V100 two links on the second eight pairs, P100 one on each
 * (NCCL's search keeps the rings it finds at one link's speed). k = 5 has
 * no NVLink ring and NCCL routes one hop through a peer GPU (PATH_NVB),
 * which gives 2 on V100's double 0-4 and 1 on P100's single one. */
int coll_cubemesh_rings(int k, int arch) {
  static const int v100[9] = {0, 0, 1, 2, 4, 2, 2, 4, 6};
  static const int p100[9] = {0, 0, 1, 2, 2, 1, 2, 2, 4};
  if (k < 1) return 0;
  if (k > 8) k = 8;
  return coll_cubemesh_links(arch) == 4 ? p100[k] : v100[k];
}

double coll_nccl_pci_bw(double link_bw) {
  return link_bw > 0 ? PCI_BW * link_bw / GBS / PCIE_GEN3_X16_GBS : PCI_BW;
}

/* A PCIe group (g->pcie) runs at its link's generation, one rule for every
 * path (coll_nccl_pci_bw); no link at all is Gen3 x16, the same figure. */
static int guess_intra(const coll_group *g) {
  if (g->pcie || g->intra_bw <= 0) return COLL_INTRA_PCIE;
  int node = g->node_gpus > 0 ? g->node_gpus : g->ranks_per_node;
  if (g->arch < 80 && g->intra_bw <= 150e9 * 1.001 && node <= 8)
    return COLL_INTRA_CUBEMESH;
  return COLL_INTRA_NVSWITCH;
}

/* The slowest NIC of a node's rails, GB/s: a GPU's share of the network
 * below it is a NIC shared by GPUs (4 x 200 Gb/s for 8 GPUs: 4 NICs of 25
 * GB/s, not 8 of 12.5; a node with less than one such NIC in all has one
 * NIC of what it has). Datasheets: DGX A100 and later HGX/DGX carry
 * 200 Gb/s HDR or faster compute NICs (DGX A100 8 x 200 Gb/s ConnectX-6);
 * DGX-2 (V100) 100 Gb/s EDR ConnectX-5. */
#define NIC_MIN_GBS_SM80 25.0
#define NIC_MIN_GBS_SM70 12.5

/* Channels and bandwidths of an NVSwitch group across nodes from NCCL's
 * inter-node search (nccl_net.c): the node's NICs (g->inter_bw per GPU,
 * in NICs of at least NIC_MIN_GBS_*) and the GPU's NVLinks at NCCL's
 * SMxx_NVLINK_BW (nvl, GB/s). The tuner
 * compares NCCL's own busBw (nChannels x the graph's bw, the tree's
 * bwIntra on two nodes); the runs reach the NICs at NET_EFF (bus_bw).
 * A tree on two nodes moves each byte across the network once per
 * direction (each node is the root of one of the two trees and a leaf of
 * the other: S/2 up and S/2 down in each), a ring twice, so the tree runs
 * at up to twice the ring's busBw: min(its tuner figure, 2 bus_bw). On
 * more nodes a tree's inner nodes carry 2S each way, as a ring does. */
static void sys_net(nccl_sys *s, const coll_group *g, double nvl) {
  double share = g->inter_bw / GBS; /* GB/s of NIC per GPU */
  double node = s->ppn * share;      /* the node's NICs in all */
  double nic_min = g->arch >= 80 ? NIC_MIN_GBS_SM80 : NIC_MIN_GBS_SM70;
  double nic = fmax(share, fmin(nic_min, node)); /* one NIC's GB/s */
  int rails = (int)floor(node / nic + 0.5);
  if (rails < 1) rails = 1;
  nccl_net_graph net = nccl_net_search(g->arch, rails, nic, nvl);
  s->nch = net.nch;
  s->nch_run = nccl_net_kernel_channels(&net, g->arch);
  assert(s->nch_run >= s->nch); /* postset only duplicates */
  s->tune_bw = fmin(nvl, net.nch * net.bw_inter);
  s->tree_tune_bw = s->nodes == 2 ? fmin(nvl, net.nch * net.bw_tree_2) : s->tune_bw;
  s->tree_bw = s->nodes == 2 ? fmin(s->tree_tune_bw, 2 * s->bus_bw) : s->bus_bw;
}

/* The node as NCCL runs a collective on it, its kernel held to at most
 * max_ch channels inside one node (0: NCCL's own count). */
static nccl_sys sys_of_ch(const coll_group *g, coll_intra intra, int max_ch) {
  nccl_sys s;
  s.n = g->ranks;
  s.ppn = g->ranks_per_node >= 1 && g->ranks_per_node <= g->ranks
              ? g->ranks_per_node : g->ranks;
  s.nodes = (s.n + s.ppn - 1) / s.ppn;
  s.cc = cc_index(g->arch);
  if (intra == COLL_INTRA_AUTO) intra = guess_intra(g);
  s.hw_intra = intra == COLL_INTRA_PCIE ? HW_PCI : HW_NVLINK;
  s.intra_hop_us = g->intra_lat > 0 ? g->intra_lat / US : NCCL_NVLINK_HOP_US;
  /* no per-traversal latency given: the fabric's (InfiniBand's is
   * NCCL's own, a difference of exactly 0) */
  s.net_hop_us = g->inter_lat > 0 ? g->inter_lat / US : fab_hop_us(g->fabric);
  s.net_eff = fab_net_eff(g->fabric);
  s.cpu_amd = host_cpu_amd(g);
  s.arch_sm80 = g->arch == 80;
  s.bound = BOUND_BOTH;
  double intra_bw; /* GB/s of all channels inside a node */
  if (intra == COLL_INTRA_PCIE) {
    s.nch = 2;
    intra_bw = coll_nccl_pci_bw(g->intra_bw);
  } else if (intra == COLL_INTRA_CUBEMESH) {
    /* one link's GB/s: the GPU's NVLink figure over its links */
    double link = g->intra_bw / GBS / coll_cubemesh_links(g->arch);
    s.nch = coll_cubemesh_rings(s.ppn, g->arch);
    if (s.nch < 1) s.nch = 1;
    intra_bw = s.nch * link * NVLINK_PAYLOAD_EFF;
  } else {
    /* whole links; less than one link's bandwidth is a fraction of one
     * (a channel), not raised to a whole link */
    double nl = g->intra_bw / GBS / datasheet_link_bw[s.cc];
    double links = nl < 1 ? nl : floor(nl + 0.5);
    if (links > 1e6) links = 1e6; /* 25 PB/s: no int overflow below */
    s.nch = links < 1 ? 1 : (int)links;
    intra_bw = links * nccl_nvlink_bw[s.cc];
    if (s.nodes == 1) { /* NCCL's ring search on the switch, nccl_rings.c */
      nccl_ring_graph rg = nccl_rings_search(g->arch, intra_bw);
      s.nch = rg.nch;
      intra_bw = rg.nch * rg.bw;
    }
  }
  /* a kernel held to fewer channels than the search found (NCCL 1.x's
   * one block) runs their share of the NVLink rings, each on its own
   * links; on PCIe every channel shares the one link, which a single
   * ring fills */
  if (max_ch > 0 && s.nodes == 1 && s.nch > max_ch) {
    if (s.hw_intra == HW_NVLINK) intra_bw *= (double)max_ch / s.nch;
    s.nch = max_ch;
  }
  if (s.ppn == 1) intra_bw = 1e30; /* nothing crosses NVLink */
  s.bus_bw = intra_bw;
  if (s.nodes > 1) {
    double net = s.ppn * g->inter_bw / GBS * s.net_eff;
    if (net < s.bus_bw) s.bus_bw = net;
    if (s.ppn == 1) s.nch = 2; /* NCCL: two channels per NIC */
  }
  s.tune_bw = s.tree_tune_bw = s.tree_bw = s.bus_bw;
  s.nch_run = nccl_rings_kernel_channels(s.nch);
  if (max_ch > 0 && s.nodes == 1 && s.nch_run > max_ch) s.nch_run = max_ch;
  /* Across nodes the kernels keep NCCL 2.18's cap, MAXCHANNELS 32
   * (src/include/devcomm.h, 2.18); 2.30.7 raised MAXCHANNELS to 64. */
  if (s.nodes > 1 && s.nch_run > MULTI_NODE_MAXCHANNELS) s.nch_run = MULTI_NODE_MAXCHANNELS;
  if (s.nodes > 1 && s.ppn > 1 && intra == COLL_INTRA_NVSWITCH && g->inter_bw > 0 &&
      intra_bw > 0)
    sys_net(&s, g, intra_bw);
  /* NCCL turns P2P read on by default between NVLink-connected GPUs of
   * compute capability 8.0 only (A100; not sm_86/89, which share the
   * Ampere tables), and only inside a node: ncclTopoCheckP2p
   * (../shared/reference/nccl/src/graph/paths.cc) returns no P2P at all
   * for ranks on different hosts, and "Enable P2P Read for Ampere/NVLink
   * only" on PATH_NVL with cudaCompCap == 80. One rank per node has no
   * P2P peer: every hop is the network's, which pushes. */
  s.p2p_read = g->arch == 80 && intra != COLL_INTRA_PCIE && s.ppn > 1;
  s.nvls = intra == COLL_INTRA_NVSWITCH && s.nodes == 1 && s.ppn > 2 &&
           nvls_eff[s.cc] > 0;
  return s;
}

static nccl_sys sys_of(const coll_group *g, coll_intra intra) { return sys_of_ch(g, intra, 0); }

/* ------------------------------------------------------- the formulas */

static int log2i(int x) {
  int l = 0;
  while (x > 1) x >>= 1, l++;
  return l;
}

/* Index of nodes in NCCL's 3-column tables: 1, 2, more. */
static int node_col(int nodes) { return nodes <= 1 ? 0 : nodes == 2 ? 1 : 2; }

/* Bus bandwidth at which (a, p) running op fills the GPU's memory
 * throughput for NCCL's kernels (NCCL_MEM_BW_SM80), GB/s: that throughput
 * over the memory bytes the kernels move per bus byte (collhbm.c; the tree
 * counted as the ring). 1e30 where no throughput is measured. */
static double mem_bus_bw(const nccl_sys *s, coll_op op, coll_algo a, coll_proto p) {
  if (!s->arch_sm80) return 1e30;
  double per = collhbm_per_bus_byte(op, s->n, coll_algo_name(a), coll_proto_name(p));
  return per > 0 ? NCCL_MEM_BW_SM80 / per : 1e30;
}

/* busBw of (a, p) after NCCL's refinements, GB/s; 0 = not available.
 * tuner: NCCL's own figure (what it compares); else as the links let the
 * kernels run (bus_bw adds the GPU's memory). */
static double bus_bw_of(const nccl_sys *s, coll_algo a, coll_proto p, int tuner) {
  /* NCCL enables LL128 only where the node's GPUs reach each other over
   * NVLink (tuning.cc ncclTopoTuneModel: pEnable &= typeIntra <=
   * PATH_NVB; ../shared/reference/nccl/src/graph/tuning.cc); GPUs on
   * PCIe have a PIX path or worse (search.cc: typeIntra is the GPUs' min
   * path, PATH_LOC for one GPU a node) */
  if (p == COLL_PROTO_LL128 && s->hw_intra == HW_PCI && s->ppn > 1) return 0.0;
  int c = node_col(s->nodes);
  double ll_max = ll_max_bw[s->nodes == 1 ? s->cc : s->cpu_amd][c];
  double bw = a == COLL_ALGO_TREE ? (tuner ? s->tree_tune_bw : s->tree_bw)
              : a == COLL_ALGO_RING && tuner ? s->tune_bw
                                             : s->bus_bw;
  switch (a) {
  case COLL_ALGO_RING:
    if (p == COLL_PROTO_LL) bw = fmin(ll_max, bw * RING_LL_FACTOR);
    if (p == COLL_PROTO_LL128)
      bw = fmin(bw * RING_LL128_FACTOR, s->nch * per_ch_ring_ll128[s->cc][c]);
    return bw;
  case COLL_ALGO_TREE:
    bw = fmin(bw * TREE_FACTOR, s->nch * per_ch_tree[s->cc][c]);
    if (p == COLL_PROTO_LL) bw = fmin(bw / TREE_LL_DIVISOR, ll_max);
    if (p == COLL_PROTO_LL128)
      bw = fmin(bw * (s->nodes == 1 ? TREE_LL128_1NODE : TREE_LL128_MULTI),
                s->nch * per_ch_tree_ll128[s->cc][c]);
    return bw;
  case COLL_ALGO_NVLS:
    return p == COLL_PROTO_SIMPLE && s->nvls ? bw * nvls_eff[s->cc] : 0.0;
  default:
    return 0.0;
  }
}

/* bus_bw_of, and as the kernels run (not tuner) held to the GPU's memory
 * throughput for op (mem_bus_bw), GB/s; 0 = not available. s->bound
 * keeps the links' figure alone or the memory's alone. */
static double bus_bw(const nccl_sys *s, coll_op op, coll_algo a, coll_proto p, int tuner) {
  double bw = bus_bw_of(s, a, p, tuner);
  if (tuner || bw <= 0 || s->bound == BOUND_LINKS) return bw;
  double mem = mem_bus_bw(s, op, a, p);
  return s->bound == BOUND_MEM ? mem : fmin(bw, mem);
}

/* Ring steps of an op (tuning.cc: nsteps). */
static int ring_steps(coll_op op, int n) {
  switch (op) {
  case COLL_ALL_REDUCE: return 2 * (n - 1);
  case COLL_ALL_GATHER:
  case COLL_REDUCE_SCATTER: return n - 1;
  default: return n;
  }
}

/* NCCL's hwLat entry of (a, p) of the node's medium (NVLink or PCI) with
 * the cluster's NVLink hop, us: the entry plus the hop's difference to
 * NCCL's 0.6 us (the protocol's own cost at the two ends is not the
 * wire's, see net_hw_lat). Entries NCCL leaves at 0 stay 0; the others
 * are >= 0.6, so the sum is >= the hop, > 0. */
static double intra_hw_lat(const nccl_sys *s, coll_algo a, coll_proto p) {
  double e = hw_lat[s->hw_intra][a][p];
  return e > 0 ? e + (s->intra_hop_us - NCCL_NVLINK_HOP_US) : 0.0;
}

/* NCCL's hwLat NET entry of (a, p) on the group's network, us. NCCL's
 * entries are for its own InfiniBand transport, whose one traversal is the
 * Ring LL entry (NCCL_NET_HOP_US); the other entries add the protocol's
 * own cost at the two ends (LL128's and Simple's per-step flags, fences,
 * the proxy's flush: Simple 14 us against LL's 2.7). A network whose one
 * traversal takes longer (a fabric, cluster.nic_latency_us) adds the
 * difference once per step, whatever the protocol: every step crosses the
 * wire once. Entries NCCL leaves at 0 (pairs it does not run) stay 0. */
static double net_hw_lat(const nccl_sys *s, coll_algo a, coll_proto p) {
  double e = hw_lat[HW_NET][a][p];
  return e > 0 ? e + (s->net_hop_us - NCCL_NET_HOP_US) : 0.0;
}

/* NCCL's per-step hardware latency of (a, p) inside a node and across the
 * network, us: hwLat of the node's medium (tuning.cc ncclTopoTuneModel)
 * and of NET, each with the cluster's hop added (intra_hw_lat,
 * net_hw_lat); a ring step across nodes costs at least NCCL's network
 * overhead inside the node (getNetOverhead by the host's CPU,
 * host_cpu_amd; x3 for Simple, tuning.cc). */
static void hop_lat(const nccl_sys *s, coll_algo a, coll_proto p, double *intra,
                    double *inter) {
  *intra = intra_hw_lat(s, a, p);
  *inter = net_hw_lat(s, s->ppn == 1 ? COLL_ALGO_TREE : a, p);
  if (a == COLL_ALGO_RING && s->nodes > 1) {
    double over = (s->cpu_amd ? NET_OVERHEAD_AMD_US : NET_OVERHEAD_US) *
                  (p == COLL_PROTO_SIMPLE ? 3 : 1);
    if (over > *intra) *intra = over;
  }
}

/* Latency of (a, p) for op, seconds. */
static double latency(const nccl_sys *s, coll_op op, coll_algo a,
                      coll_proto p) {
  double lat = base_lat[a][p];
  double intra, inter;
  hop_lat(s, a, p, &intra, &inter);
  if (a == COLL_ALGO_RING) {
    int steps = ring_steps(op, s->n);
    if (op == COLL_BROADCAST || op == COLL_REDUCE) steps = s->n - 1;
    int inter_steps = s->nodes == 1 ? 0
                      : op == COLL_ALL_REDUCE ? 2 * (s->nodes - 1)
                                              : s->nodes - 1;
    lat += (steps - inter_steps) * intra + inter_steps * inter;
  } else if (a == COLL_ALGO_TREE) {
    lat += 2 * ((s->ppn - 1) * intra + log2i(s->nodes) * inter);
  } else {
    lat += intra;
  }
  return lat * US;
}

/* The slowest hop of a Simple ring or chain, seconds: the network's step
 * across nodes, else the node's. */
static double ring_max_hop(const nccl_sys *s) {
  double intra, inter;
  hop_lat(s, COLL_ALGO_RING, COLL_PROTO_SIMPLE, &intra, &inter);
  return (s->nodes > 1 && inter > intra ? inter : intra) * US;
}

/* NCCL's size-dependent refinements of its estimate of an all-reduce,
 * applied when it compares (ncclTopoGetAlgoTime, NCCL src/graph/tuning.cc,
 * 2.30.7: ../shared/reference/nccl/src/graph/tuning.cc): the tree's
 * bandwidth times treeCorrectionFactor[proto][log2(bytes / 64)] (sizes
 * below 2^29 B; 64 B-256 MiB), and the ring's latency (Simple, across
 * nodes, at least 64 B per channel and rank) times 1.4 from Ampere (1.9
 * before: "plateau effect of ring"). */
static const double tree_corr[COLL_PROTO_COUNT][23] = {
    {1.0, 1.0, 1.0, 1.0, .9, .8, .7, .7, .7, .7, .6, .5, .4, .4, .5, .6, .7, .8, .9, 1.0, 1.0, 1.0, 1.0},
    {1.0, 1.0, 1.0, 1.0, 1.0, .9, .8, .8, .8, .7, .6, .6, .6, .6, .6, .6, .8, .9, .9, .9, .9, 1.0, 1.0},
    {.9, .9, .9, .9, .9, .9, .9, .8, .7, .6, .6, .5, .5, .5, .5, .6, .7, .8, .7, .7, .8, .9, .9},
};

static double tree_correction(coll_algo a, coll_proto p, double bytes) {
  if (a != COLL_ALGO_TREE) return 1.0;
  const int n = (int)(sizeof tree_corr[0] / sizeof tree_corr[0][0]);
  double x = floor(bytes / 64); /* NCCL log2i(bytes >> 6) */
  int l = x >= (double)(1 << n) ? n : log2i((int)x);
  return l < n ? tree_corr[p][l] : 1.0;
}

static double ring_plateau(const nccl_sys *s, coll_algo a, coll_proto p, double bytes) {
  if (a != COLL_ALGO_RING || p != COLL_PROTO_SIMPLE || s->nodes <= 1) return 1.0;
  if (bytes / ((double)s->nch_run * s->n) < 64) return 1.0;
  return s->cc < CC_AMPERE ? 1.9 : 1.4;
}

/* NCCL's estimate of (a, p) with its own bandwidths (tuner = 1: the
 * number its tuner compares) or with the bandwidths the kernels reach
 * (tuner = 0): seconds including COLL_LAUNCH_S, or -1 when NCCL would not
 * run that pair. */
static double tuned_time(const nccl_sys *s, coll_op op, double bytes,
                         coll_algo a, coll_proto p, int tuner) {
  if (a == COLL_ALGO_TREE && (op != COLL_ALL_REDUCE || s->nodes == 1))
    return -1; /* NCCL's tree is an all-reduce across nodes */
  if (a == COLL_ALGO_NVLS && op != COLL_ALL_REDUCE) return -1;
  double bw = bus_bw(s, op, a, p, tuner);
  if (bw <= 0) return -1;
  double ratio = a == COLL_ALGO_RING ? (double)s->n / ring_steps(op, s->n)
                 : a == COLL_ALGO_NVLS ? NVLS_RATIO
                                       : 0.5;
  double lat = latency(s, op, a, p);
  if (op == COLL_ALL_REDUCE) {
    bw *= tree_correction(a, p, bytes);
    lat *= ring_plateau(s, a, p, bytes);
  }
  return COLL_LAUNCH_S + lat + bytes / (bw * ratio * GBS);
}

/* Channels a collective of `bytes` runs on with (a, p): NCCL lowers the
 * count while each thread would get fewer than its threshold of bytes
 * (enqueue.cc topoGetAlgoInfo, ring and tree); only ring LL's threshold is
 * multiplied by the ranks (tuning.cc: threadThresholds[RING][LL] *=
 * nRanks; the tree's stays 8 B). NVLS runs its own channel count at every
 * size (nvlsChannels), taken here as all the kernel channels. */
static int active_channels(const nccl_sys *s, double bytes, coll_algo a, coll_proto p) {
  if (a == COLL_ALGO_NVLS) return s->nch_run;
  double per = (double)proto_threads[p] * proto_thread_threshold[p];
  if (a == COLL_ALGO_RING && p == COLL_PROTO_LL) per *= s->n;
  int nc = s->nch_run;
  while (nc > 1 && bytes < nc * per) nc--;
  return nc;
}

/* Ring, Simple protocol, as the kernel runs it (src/device/all_reduce.h
 * runRing and friends, prims_simple.h). Per channel, each rank owns
 * bytes/(n nc) of the buffer (all-reduce, all-gather, reduce-scatter) and
 * moves it in L loop iterations of one chunk c <= chunkSize
 * (stepSize x CHUNKSTEPS = 2 MiB; enqueue.cc calcCollChunking); in each
 * iteration the chunk passes the ring's nsteps steps, executed by the
 * channel's block as `prims` primitives (all-reduce: send, n-2
 * recvReduceSend, recvReduceCopySend, n-2 recvCopySend, recv = 2n-1;
 * all-gather / reduce-scatter: n), each cut into up to
 * CHUNKSTEPS/SLICESTEPS = 2 slices. The copies move nsteps * c per
 * iteration at the channel's share of the bus bandwidth. How much of the
 * per-step latency the pipeline exposes (nccl_pipe.c): in the first
 * iteration a wait per step when pushing (P2P write, the network), per
 * primitive and slice when pulling (P2P read, Ampere NVLink); in later iterations,
 * when pushing, only what the ring's cycle or the slowest hop's FIFO
 * cannot hide, and per slice again when pulling. Broadcast and reduce run
 * a chain (CHUNKSTEPS 1): chunks of one step pipelined over n-1 hops.
 *
 * With one iteration this is the tuner's formula when pushing, and when
 * pulling with one slice per primitive the tuner's formula plus one step;
 * pulling with more slices makes the measured bandwidth ramp up more
 * slowly than latency + size/bandwidth. The push/pull split was introduced
 * after seeing the V100 (push) and A100 (pull) rows of
 * ../shared/validation/collectives (docs/accuracy.md). */
static double ring_simple_time(const nccl_sys *s, coll_op op, double bytes) {
  coll_proto p = COLL_PROTO_SIMPLE;
  double busbw = bus_bw(s, op, COLL_ALGO_RING, p, 0) * GBS; /* bytes/s, all channels */
  double b = busbw / s->nch_run;                   /* one channel */
  int nc = active_channels(s, bytes, COLL_ALGO_RING, p);
  int n = s->n;
  int steps = op == COLL_BROADCAST || op == COLL_REDUCE ? n - 1 : ring_steps(op, n);
  double base = base_lat[COLL_ALGO_RING][p] * US;
  nccl_pipe pp = {.steps = steps,
                  .step_lat = (latency(s, op, COLL_ALGO_RING, p) - base) / steps,
                  .hop = ring_max_hop(s),
                  .pull = s->p2p_read};
  if (op == COLL_BROADCAST || op == COLL_REDUCE) {
    /* NCCL's chain loop moves full chunks and then the remainder
     * (broadcast.h / reduce.h runRing: nelem = min(chunkCount, channelCount
     * - elemOffset)), not equal chunks: the first chunk is a full one (or
     * all of d), and the remainder counts as its fraction of a chunk, so
     * the time grows continuously with d (equal chunks made it drop by a
     * third where d passes one chunk: 2 chunks of half the size pipeline
     * where one full chunk crosses every hop alone). */
    double d = bytes / nc, chunk = SIMPLE_STEP_BYTES * CHAIN_CHUNKSTEPS;
    pp.iters = d > chunk ? d / chunk : 1.0;
    pp.cb = fmin(d, chunk) / b;
    pp.prims = steps;
    pp.spc = 1;
    pp.fifo = NCCL_STEPS / CHAIN_SLICESTEPS;
    return COLL_LAUNCH_S + base + nccl_pipe_chain_time(&pp);
  }
  double slice_max = SIMPLE_STEP_BYTES * RING_SLICESTEPS;
  int spc_max = RING_CHUNKSTEPS / RING_SLICESTEPS;
  double d = bytes / ((double)n * nc); /* one rank's share of one channel */
  pp.iters = ceil(d / (SIMPLE_STEP_BYTES * RING_CHUNKSTEPS));
  double c = d / pp.iters;
  double slice = fmax(c / spc_max, slice_max * SLICE_MIN_FRACTION);
  pp.spc = fmin(spc_max, ceil(c / slice));
  pp.cb = c / b;
  pp.prims = op == COLL_ALL_REDUCE ? 2 * n - 1 : n;
  pp.fifo = NCCL_STEPS / RING_SLICESTEPS;
  return COLL_LAUNCH_S + base + nccl_pipe_ring_time(&pp);
}

/* Ring LL / LL128 as the kernels run them, seconds: the tuner's latency
 * + size / bandwidth form (see exec_time), with the bandwidth of the
 * channels that run. NCCL runs a small collective on fewer channels
 * (enqueue.cc topoGetAlgoInfo: while (nBytes < nc * nt * threadThreshold)
 * nc--; active_channels), each one block at the same per-channel rate:
 * the ring's uncapped busBw (the tuner's refinement of the graph's bw,
 * RING_LL_FACTOR / RING_LL128_FACTOR) shared by the nch_run kernel
 * channels, times the channels active, then the protocol's total caps
 * (llMaxBw, nChannels x perChMaxRingLL128Bw), which bind only when enough
 * channels run. With every channel active this is the tuner's form.
 * Inside one NVLink node only: there each channel is a ring of NCCL's
 * search with its own share of the GPU's NVLinks (nccl_rings.c, bw per
 * channel; the cube-mesh rings, one link each), so a channel's rate is its
 * share; across nodes the channels share the NICs, and on PCIe the one
 * link, whose rate one channel's share does not bound. */
static double ring_line_time(const nccl_sys *s, coll_op op, double bytes, coll_proto p) {
  double t = tuned_time(s, op, bytes, COLL_ALGO_RING, p, 0);
  if (t < 0) return t;
  int nc = active_channels(s, bytes, COLL_ALGO_RING, p);
  if (s->nodes > 1 || s->hw_intra != HW_NVLINK || nc >= s->nch_run) return t;
  double full = bus_bw(s, op, COLL_ALGO_RING, p, 0); /* GB/s, every channel */
  double f = p == COLL_PROTO_LL ? RING_LL_FACTOR : RING_LL128_FACTOR;
  /* the channels' link share; the memory's throughput is the GPU's */
  double share = s->bound == BOUND_MEM ? full : s->bus_bw * f * nc / s->nch_run;
  double run = fmin(full, share);
  double ratio = (double)s->n / ring_steps(op, s->n);
  return t - bytes / (full * ratio * GBS) + bytes / (run * ratio * GBS);
}

/* Time of (a, p) as NCCL executes it, seconds, or -1 when not run. LL and
 * LL128 carry a flag in every 8-byte word / 128-byte line, so a receiver
 * forwards data as it lands and the per-step latency is paid once per
 * hop: the tuner's latency + size/bandwidth is their execution model,
 * with the bandwidth of the channels that run on a ring inside a node
 * (ring_line_time; a chain, broadcast and reduce, keeps all of it).
 * Tree and NVLS keep the tuner's form too. */
static double exec_time(const nccl_sys *s, coll_op op, double bytes,
                        coll_algo a, coll_proto p) {
  if (a == COLL_ALGO_RING && p != COLL_PROTO_SIMPLE && op != COLL_BROADCAST &&
      op != COLL_REDUCE)
    return ring_line_time(s, op, bytes, p);
  double t = tuned_time(s, op, bytes, a, p, 0);
  if (t < 0 || a != COLL_ALGO_RING || p != COLL_PROTO_SIMPLE) return t;
  return ring_simple_time(s, op, bytes);
}

/* Point-to-point ops (all_to_all, send_recv) are not tuned by NCCL: they
 * run the Simple protocol on p2p channels over NVLink and the NICs at
 * once; the slower of the two decides. In send_recv (rank i to i+1) the
 * pairs inside a node go over NVLink and, on more than one node, the
 * pair at each node's boundary over its NIC: the op ends with the slower
 * pair, as nccl-tests times it. */
static double p2p_time(const nccl_sys *s, const coll_group *g, coll_op op,
                       double bytes) {
  double intra_b, inter_b;
  if (op == COLL_SEND_RECV) {
    intra_b = s->ppn > 1 ? bytes : 0;
    inter_b = s->nodes > 1 ? bytes : 0;
  } else {
    intra_b = bytes * (s->ppn - 1) / s->n;
    inter_b = bytes * (s->n - s->ppn) / s->n;
  }
  double lat = base_lat[COLL_ALGO_RING][COLL_PROTO_SIMPLE];
  lat += inter_b > 0 ? net_hw_lat(s, COLL_ALGO_RING, COLL_PROTO_SIMPLE)
                     : intra_hw_lat(s, COLL_ALGO_RING, COLL_PROTO_SIMPLE);
  double t_intra = intra_b > 0 ? intra_b / (s->ppn > 1 ? s->bus_bw : 1) / GBS : 0;
  if (s->nodes > 1 && s->ppn > 1) {
    /* bus_bw was capped by the NICs; NVLink traffic is not */
    coll_group gg = *g;
    gg.ranks = s->ppn;
    nccl_sys one = sys_of(&gg, COLL_INTRA_AUTO);
    t_intra = intra_b / one.bus_bw / GBS;
  }
  double t_inter = inter_b > 0 ? inter_b / (g->inter_bw * s->net_eff) : 0;
  /* and the GPU's memory, which the kernels' bytes must pass
   * (NCCL_MEM_BW_SM80; the bytes counted as collhbm.c counts them) */
  double t_mem = s->arch_sm80
                     ? collhbm_bytes(op, bytes, s->n, "ring", "Simple") / (NCCL_MEM_BW_SM80 * GBS)
                     : 0;
  double t_links = fmax(t_intra, t_inter);
  double t = s->bound == BOUND_LINKS ? t_links : s->bound == BOUND_MEM ? t_mem
                                                                         : fmax(t_links, t_mem);
  return COLL_LAUNCH_S + lat * US + t;
}

/* Time of (a, p) for op: as the kernels run it (tuner = 0) or as NCCL's
 * tuner estimates it (tuner = 1); -1 when the pair does not run op. */
static double algo_time(coll_op op, double bytes, const coll_group *g, coll_intra intra,
                        coll_algo a, coll_proto p, int tuner, int max_ch, nccl_bound bound) {
  assert(g && op >= 0 && op < COLL_OP_COUNT);
  if (g->ranks <= 1 || bytes <= 0) return 0;
  nccl_sys s = sys_of_ch(g, intra, max_ch);
  s.bound = bound;
  if (op == COLL_ALL_TO_ALL || op == COLL_SEND_RECV)
    return a == COLL_ALGO_RING && p == COLL_PROTO_SIMPLE
               ? p2p_time(&s, g, op, bytes) : -1;
  return tuner ? tuned_time(&s, op, bytes, a, p, 1) : exec_time(&s, op, bytes, a, p);
}

double coll_nccl_algo_time(coll_op op, double bytes, const coll_group *g,
                           coll_intra intra, coll_algo a, coll_proto p) {
  return algo_time(op, bytes, g, intra, a, p, 0, 0, BOUND_BOTH);
}

double coll_nccl_algo_time_ch(coll_op op, double bytes, const coll_group *g,
                              coll_intra intra, coll_algo a, coll_proto p, int max_channels) {
  assert(max_channels >= 0);
  return algo_time(op, bytes, g, intra, a, p, 0, max_channels, BOUND_BOTH);
}

double coll_nccl_tuner_time(coll_op op, double bytes, const coll_group *g,
                            coll_intra intra, coll_algo a, coll_proto p) {
  return algo_time(op, bytes, g, intra, a, p, 1, 0, BOUND_BOTH);
}

double coll_host_time(const coll_group *g, int channels) {
  assert(channels >= 1);
  return (g->host_gpus > 1 ? g->host_gpus : 1) *
         (COLL_HOST_GPU_S + COLL_HOST_CHANNEL_S * channels);
}

/* The (algorithm, protocol) NCCL picks for op: by its tuner's estimate.
 * Fixed order, strict '<': ties go to the earlier (ring, LL first). */
static void pick(coll_op op, double bytes, const coll_group *g, coll_intra intra, int *ba,
                 int *bp) {
  double best_est = -1;
  *ba = *bp = 0;
  for (int a = 0; a < COLL_ALGO_COUNT; a++)
    for (int p = 0; p < COLL_PROTO_COUNT; p++) {
      double t = coll_nccl_tuner_time(op, bytes, g, intra, a, p);
      if (t >= 0 && (best_est < 0 || t < best_est)) {
        best_est = t;
        *ba = a;
        *bp = p;
      }
    }
  assert(best_est >= 0);
}

/* The cost of (ba, bp) as it runs, its bandwidth part held by `bound`. */
static coll_cost run_cost(coll_op op, double bytes, const coll_group *g, coll_intra intra,
                          int ba, int bp, nccl_bound bound) {
  coll_cost best = {0.0, coll_algo_name(ba), coll_proto_name(bp), 0.0, 0};
  double gpu = algo_time(op, bytes, g, intra, ba, bp, 0, 0, bound); /* with COLL_LAUNCH_S */
  assert(gpu >= 0);
  double kernel = gpu - COLL_LAUNCH_S;
  /* nccl-tests (and a training loop) issue collectives back to back
   * without waiting for them: the host enqueues op k+1 while the GPUs run
   * op k, so each op costs the slower of the two. One thread driving N
   * GPUs (nccl-tests -g N) launches GPU i's kernel of op k at (kN + i) h;
   * op k ends at its last launch + K at the earliest, and a GPU starts op
   * k+1 after op k: the period is max(N h, K), K the kernels plus the
   * stream's launch gap. Row 83 (-g 8) measures that layout's whole
   * per-op cost as N h, so COLL_LAUNCH_S, fitted to one GPU per process,
   * is not added there (docs/network.md "The host side"). */
  nccl_sys s = sys_of(g, intra);
  double host = coll_host_time(g, active_channels(&s, bytes, ba, bp));
  best.time = g->host_gpus > 1 ? fmax(kernel + COLL_STREAM_GAP_S, host) : fmax(gpu, host);
  best.launch = best.time - kernel; /* all but the kernels' own time */
  best.channels = s.nch_run;
  return best;
}

coll_cost coll_nccl_time_ex(coll_op op, double bytes, const coll_group *g,
                            coll_intra intra) {
  coll_cost best = {0.0, "ring", "Simple", 0.0, 0};
  if (g->ranks <= 1 || bytes <= 0) return best;
  int ba, bp;
  pick(op, bytes, g, intra, &ba, &bp);
  return run_cost(op, bytes, g, intra, ba, bp, BOUND_BOTH);
}

double coll_nccl_mem_bw(int arch) { return arch == 80 ? NCCL_MEM_BW_SM80 * GBS : 0; }

coll_cost coll_nccl_time_split(coll_op op, double bytes, const coll_group *g, double *links,
                               double *mem) {
  coll_cost c = {0.0, "ring", "Simple", 0.0, 0};
  *links = *mem = 0;
  if (g->ranks <= 1 || bytes <= 0) return c;
  int ba, bp;
  pick(op, bytes, g, COLL_INTRA_AUTO, &ba, &bp);
  c = run_cost(op, bytes, g, COLL_INTRA_AUTO, ba, bp, BOUND_BOTH);
  *links = run_cost(op, bytes, g, COLL_INTRA_AUTO, ba, bp, BOUND_LINKS).time;
  if (coll_nccl_mem_bw(g->arch) > 0)
    *mem = run_cost(op, bytes, g, COLL_INTRA_AUTO, ba, bp, BOUND_MEM).time;
  return c;
}

coll_cost coll_nccl_time(coll_op op, double bytes, const coll_group *g) {
  return coll_nccl_time_ex(op, bytes, g, COLL_INTRA_AUTO);
}
