/*
 * fabrics.c -- the constants that set one scale-out fabric apart from
 * another in NCCL's cost model (module prefix: fab_).
 *
 * NCCL's tuner has one set of network latencies (hwLat NET, tuning.cc)
 * and the model one network efficiency (NET_EFF); both describe
 * InfiniBand / RoCE verbs through NCCL's own IB transport. Rented clouds
 * run NCCL over other transports, through plugins:
 *
 *  - efa: AWS Elastic Fabric Adapter, SRD (a reliable-datagram protocol
 *    on AWS's own NICs) through the aws-ofi-nccl plugin (libfabric).
 *  - tcpxo: GCP A3 Mega's GPUDirect-TCPXO, TCP with the payload moved
 *    between GPU memory and the NIC by a receive-side offload, through
 *    Google's NCCL net plugin (nccl-fastrak).
 *  - roce: RoCE v2 through NCCL's IB transport.
 *
 * Each fabric has two numbers: the latency of one network traversal
 * (the Ring LL entry of NCCL's hwLat NET row; coll_nccl.c net_hw_lat adds
 * its difference to InfiniBand's 2.7 us to every NET entry, as it does for
 * cluster.nic_latency_us) and the achievable fraction of the NIC line
 * rate at large sizes. Every constant
 * not InfiniBand's is FITTED to rows of ../shared/calibration/
 * collective_benchmarks.csv (tools/calib/coll_fabrics.py; the fit is
 * described next to each and in docs/calibration.md "Fabrics"); no
 * validation row was used.
 */
#include <strings.h>

#include "coll/fabrics.h"

const char *const fab_names[SC_FABRIC_COUNT] = {"infiniband", "roce", "efa", "tcpxo"};

/* Bus bandwidth NCCL reaches across nodes per unit of NIC line rate at
 * large sizes. DERIVED from the multi-node all_reduce rows of
 * ../shared/calibration/collective_benchmarks.csv: A100 8 x HDR, 128 ranks
 * (rows 23-27) 159.8 / 200 = 0.80; A100 4 x 200 Gb/s per node, 2 nodes
 * (row 82) 86 / 100 = 0.86; H200 16 x 200 Gb/s EFA (row 189) 364.9 / 400 =
 * 0.91; B200 8 x 400 Gb/s EFA (row 162) 381.8 / 400 = 0.955: mean 0.88.
 * (NCCL's own tuner constant is NET_BW 12 GB/s per 100 Gb/s = 0.96, row
 * 393; the runs reach less.) The mean takes in the two EFA rows; it is
 * kept as it was so that InfiniBand's model does not move. */
#define FAB_IB_NET_EFF 0.88

typedef struct fab_consts {
  double hop_us;  /* one network traversal, Ring LL, microseconds */
  double net_eff; /* bus bandwidth / NIC line rate at large sizes */
} fab_consts;

static const fab_consts fab_table[SC_FABRIC_COUNT] = {
    /* infiniband: NCCL's hwLat NET Ring LL 2.7 us
     * (../shared/calibration/nccl_tuning_constants.csv row 103) and the
     * FAB_IB_NET_EFF. The model before fabrics, exactly. */
    {FAB_INFINIBAND_HOP_US, FAB_IB_NET_EFF},
    /* roce: InfiniBand's. The one RoCE system of the calibration (rows
     * 77-80, 2 DGX Spark over one 200 Gb/s link) is predicted within
     * -37 .. +20 % with errors of both signs (median +3 %): nothing
     * systematic to fit. */
    {FAB_ROCE_HOP_US, FAB_IB_NET_EFF},
    /* efa: latency FITTED: scanned 2.7..200 us in 0.1 us steps (with the
     * efficiency at 0.93) for the least median |error| of time over the
     * AWS p6-b200 4 x 8 B200 EFA v4 rows of 128 KiB..256 MiB (rows
     * 128-150, even; rows 124 and 126 print busbw 0.01 and 0.04 GB/s, one
     * significant digit, and are left out): 70.9 us, median |error| 61 %
     * -> 4.0 %. (29.2 us while the fabric scaled NCCL's NET entries
     * instead of adding to them, branch efa25: docs/calibration.md.) An
     * effective per-network-step latency of NCCL on EFA, not a measured
     * one-way latency.
     * Efficiency DERIVED, not scanned: the measured plateau busbw over the
     * NIC line rate, B200 400 Gb/s per GPU row 162 381.8 / 400 = 0.955,
     * H200 400 Gb/s per GPU (16 x 200 per node) row 189 364.87 / 400 =
     * 0.912: mean 0.93. */
    {FAB_EFA_HOP_US, 0.93},
    /* tcpxo: FITTED. Latency: scanned as efa's on the GCP A3 Mega 2 x 8
     * H100 rows of 8 B..512 KiB (rows 28-44): 43.5 us (36.2 us under the
     * scaling rule before branch efa25), median |error| 64 % -> 3 %.
     * Efficiency: InfiniBand's,
     * not fitted: its rows of 128 MiB and more reach 213-339 GB/s busbw,
     * above the 8 x 200 Gb/s ring bound (200 GB/s) that any efficiency
     * <= 1 gives; NCCL runs a 2-node tree there, whose bandwidth the
     * model does not have (docs/network.md "Fabrics"). */
    {FAB_TCPXO_HOP_US, FAB_IB_NET_EFF},
};

static int fab_in_range(int f) { return f >= 0 && f < SC_FABRIC_COUNT ? f : 0; }

double fab_hop_us(int f) { return fab_table[fab_in_range(f)].hop_us; }

double fab_net_eff(int f) { return fab_table[fab_in_range(f)].net_eff; }

const char *sc_fabric_name(int f) { return fab_names[fab_in_range(f)]; }

int sc_fabric_from_name(const char *name) {
  if (!name) return -1;
  for (int i = 0; i < SC_FABRIC_COUNT; i++)
    if (!strcasecmp(name, fab_names[i])) return i;
  return -1;
}

double sc_fabric_latency(int f) { return fab_hop_us(f) * 1e-6; }

const char *const fab_cpu_names[SC_CPU_COUNT] = {"auto", "intel", "amd", "arm"};

const char *sc_host_cpu_name(int c) { return fab_cpu_names[c > 0 && c < SC_CPU_COUNT ? c : 0]; }

int sc_host_cpu_from_name(const char *name) {
  if (!name) return -1;
  for (int i = 0; i < SC_CPU_COUNT; i++)
    if (!strcasecmp(name, fab_cpu_names[i])) return i;
  return -1;
}
