/*
 * fabric.c -- the links a data-parallel exchange crosses: TCP or RDMA
 * between servers, PCIe between a GPU and host memory, NVLink (DGX-1
 * hybrid cube-mesh, 4-GPU meshes, NVSwitch) or PCIe between GPUs; see
 * dp.h. Every constant names its source; docs/calibration.md lists them.
 */
#include <assert.h>
#include <math.h>
#include <string.h>

#include "dp/dp.h"

/* PCIe gen3 x16 per direction: 15.75 GB/s (PCI-SIG, 8 GT/s x 16 lanes,
 * 128b/130b), the `host_link` of every dp_training row. */
#define DP_PCIE3_BW 15.75e9
/* Fraction of the PCIe datasheet figure a cudaMemcpy reaches:
 * 55.4 / 63 GB/s host-to-device on gen5 x16 (calibration
 * interconnect_p2p_bandwidth.csv rows 3-4). */
#define DP_PCIE_EFF 0.88
/* Fixed cost of one host copy (cudaMemcpyAsync issue and completion):
 * 10 us, the order of the launch-to-launch intervals of
 * calibration host_overheads.csv (assumed, not fitted). */
#define DP_HOST_LAT 10e-6
/* GPUs behind one PCIe switch uplink: two on DGX-1 (V100/P100), DGX-2 and
 * DGX A100 (NVIDIA DGX user guides' block diagrams), two GK210 dies on
 * one K80 board. */
#define DP_HOST_SHARE 2
/* RDMA: a 100 Gb/s HCA gives 12 GB/s of collective bus bandwidth (96 %,
 * NVIDIA's expectation, calibration interconnect rows 15-16; ib_write_bw
 * 193.7 of 200 Gb/s, row 11). */
#define DP_RDMA_EFF 0.96
#define DP_RDMA_LAT 5e-6   /* one RDMA message across a switch (row 11's fabric, assumed) */
/* TCP sockets: 4 GB/s of bus bandwidth over 100 Gb/s IPoIB where verbs
 * gave 12 (calibration interconnect row 17): one socket stream carries
 * about 4 GB/s (a core's copy rate through the kernel). Ethernet framing
 * with a 1500-byte MTU leaves 94 % of the line rate for payload
 * (1448 / 1538 bytes on the wire, IEEE 802.3 + TCP/IP headers). */
#define DP_TCP_STREAM_BW 4e9
#define DP_TCP_EFF 0.94
/* Per message kernel and copy cost of a socket send/receive pair (system
 * calls, wake-up, one-way latency of a TCP message on a LAN): 50 us
 * (assumed, typical of Linux TCP over 10-100 GbE; not fitted). */
#define DP_TCP_MSG_S 50e-6
/* Host memory bandwidth of a server's CPUs, where the scenario's cluster
 * gives none (cluster.host_mem_GBps): the dgx1-v100 preset's figure, two
 * Xeon E5-2698 v4 with 4 channels of DDR4-2133 each, 136.5 GB/s (DGX-1
 * datasheet and whitepaper, src/hw/cluster_presets.c [DGX1-H]): one figure
 * for one server, read from the preset rather than restated here. It is
 * the DDR peak (no STREAM measurement of a CPU is in ../shared/calibration),
 * so an upper bound. Summing moves three bytes per byte reduced (two
 * reads, one write). */
#define DP_HOST_PRESET "dgx1-v100"
#define DP_REDUCE_BYTES 3
/* Memory traffic one CPU thread sustains (a memcpy, a sum of float
 * arrays on one core): Little's law over the misses a core keeps in
 * flight, 16 L2 superqueue entries (Intel 64 and IA-32 Architectures
 * Optimization Reference Manual, Haswell/Broadwell/Skylake server
 * microarchitectures) x 64-byte lines / ~90 ns of local DRAM latency
 * (a two-socket Xeon E5 v4's idle load latency, assumed: no CPU latency
 * or STREAM measurement is in ../shared/calibration) = 11.4 GB/s. Not
 * fitted. */
#define DP_CORE_MISSES 16
#define DP_LINE_BYTES 64
#define DP_DRAM_LAT 90e-9

/* The server's host memory bandwidth: the cluster's, else the default
 * server's (DP_HOST_PRESET). */
static double dp_host_mem_bw(const sc_cluster *cl) {
  if (cl->host.mem_bw > 0) return cl->host.mem_bw;
  const sc_cluster *ref = sc_cluster_preset(DP_HOST_PRESET);
  assert(ref && ref->host.mem_bw > 0);
  return ref->host.mem_bw;
}

/* The GPU preset's link kind, not its nvlink_bw: a board without NVLink
 * gives its PCIe slot's rate there (sc_gpu_link); Infinity Fabric, like
 * NVLink, joins the GPUs directly. */
static int dp_linked_gpu(const sc_gpu *g) { return g->link != SC_LINK_PCIE; }

static sc_dp_intra dp_intra_auto(const sc_scenario *s, int gpn) {
  if (gpn <= 1 || !dp_linked_gpu(&s->cluster.gpu)) return SC_DP_INTRA_PCIE;
  int arch = s->cluster.gpu.arch;
  if ((arch == 60 || arch == 70) && gpn <= 8) return SC_DP_INTRA_CUBEMESH;
  return SC_DP_INTRA_NVSWITCH;
}

static double dp_intra_bw(const sc_scenario *s, sc_dp_intra intra) {
  if (s->dp.intra_bw > 0) return s->dp.intra_bw;
  /* a PCIe board's nvlink_bw is its slot's rate (gen4 x16 on an A100
   * PCIe); any other GPU put on PCIe: gen3 x16 */
  const sc_gpu *g = &s->cluster.gpu;
  if (intra == SC_DP_INTRA_PCIE)
    return (!dp_linked_gpu(g) && g->nvlink_bw > 0 ? g->nvlink_bw : DP_PCIE3_BW) * DP_PCIE_EFF;
  double bw = s->cluster.nvlink_bw > 0 ? s->cluster.nvlink_bw : s->cluster.gpu.nvlink_bw;
  return bw > 0 ? bw : DP_PCIE3_BW * DP_PCIE_EFF;
}

int dp_fabric_resolve(const sc_scenario *s, dp_fabric *f, sc_error *err) {
  memset(f, 0, sizeof *f);
  const sc_cluster *cl = &s->cluster;
  const sc_dp_spec *d = &s->dp;
  f->gpus = cl->gpus;
  f->gpn = cl->gpus_per_node < cl->gpus ? cl->gpus_per_node : cl->gpus;
  if (f->gpn < 1) f->gpn = 1;
  if (f->gpus % f->gpn)
    return sc_error_set(err, SC_EINPUT,
                        "cluster.gpus_per_node: %d does not divide cluster.gpus %d",
                        f->gpn, f->gpus);
  f->nodes = f->gpus / f->gpn;
  f->arch = cl->gpu.arch;
  f->host_cpu = cl->host.cpu;
  f->intra = d->intra != SC_DP_INTRA_AUTO ? d->intra : dp_intra_auto(s, f->gpn);
  f->intra_bw = dp_intra_bw(s, f->intra);
  f->intra_lat = cl->nvlink_lat > 0 ? cl->nvlink_lat : 1e-6;
  f->host_bw = (d->host_bw > 0 ? d->host_bw : DP_PCIE3_BW) * DP_PCIE_EFF;
  f->host_share = f->gpn >= DP_HOST_SHARE ? DP_HOST_SHARE : 1;
  f->host_lat = DP_HOST_LAT;
  f->host_mem_bw = dp_host_mem_bw(cl);
  f->cpu_reduce_bw = f->host_mem_bw / DP_REDUCE_BYTES;
  f->loop_bw = DP_TCP_STREAM_BW;
  f->core_mem_bw = DP_CORE_MISSES * DP_LINE_BYTES / DP_DRAM_LAT;
  f->gpu_mem_bw = cl->gpu.hbm_bw * cl->gpu.hbm_eff;
  double line = d->network_bw > 0 ? d->network_bw : cl->nic_bw * f->gpn;
  f->net_line = line;
  f->tcp = d->transport == SC_DP_TR_TCP;
  f->transport = f->nodes == 1 ? "none" : f->tcp ? "tcp" : "rdma";
  if (f->tcp) {
    f->net_bw = line * DP_TCP_EFF;
    f->net_stream_bw = fmin(f->net_bw, DP_TCP_STREAM_BW);
    f->net_lat = DP_TCP_MSG_S;
    f->net_msg_s = DP_TCP_MSG_S;
  } else {
    f->net_bw = line * DP_RDMA_EFF;
    f->net_stream_bw = f->net_bw;
    f->net_lat = cl->nic_lat > 0 ? cl->nic_lat : DP_RDMA_LAT;
    f->net_msg_s = 0;
  }
  return SC_OK;
}

double dp_net_time(const dp_fabric *f, double bytes, int streams) {
  if (bytes <= 0) return 0;
  if (streams < 1) streams = 1;
  double bw = fmin(f->net_bw, streams * f->net_stream_bw);
  return f->net_lat + f->net_msg_s + bytes / bw;
}

double dp_host_time(const dp_fabric *f, double bytes, int sharing) {
  if (bytes <= 0) return 0;
  if (sharing < 1) sharing = 1;
  return f->host_lat + bytes * sharing / f->host_bw;
}

double dp_loop_time(const dp_fabric *f, double bytes) {
  if (bytes <= 0) return 0;
  return DP_TCP_MSG_S + bytes / f->loop_bw;
}

void dp_fabric_group(const dp_fabric *f, int ranks, int ranks_per_node, coll_group *g) {
  memset(g, 0, sizeof *g);
  g->ranks = ranks;
  g->ranks_per_node = ranks_per_node;
  g->arch = f->arch;
  g->host_cpu = f->host_cpu;
  g->intra_bw = f->intra_bw;
  /* on PCIe NCCL sees the link's datasheet rate, before the 88 % a copy
   * reaches, and runs at its generation (coll_nccl_pci_bw: Gen4 x16 24
   * GB/s), the rule of every path (docs/network.md "PCIe nodes") */
  if (f->intra == SC_DP_INTRA_PCIE) {
    g->pcie = 1;
    g->intra_bw = f->intra_bw / DP_PCIE_EFF;
  }
  /* NCCL's closed form applies its own network efficiency to the line
   * rate (src/coll/); over sockets the stream limits bound it first */
  double per_gpu = (f->tcp ? f->net_bw : f->net_line) / (f->gpn > 0 ? f->gpn : 1);
  g->inter_bw = per_gpu;
  g->intra_lat = f->intra_lat;
  g->inter_lat = f->net_lat;
  g->node_gpus = f->gpn;
}
