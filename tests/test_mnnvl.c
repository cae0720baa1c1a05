/*
 * test_mnnvl.c -- NVL72 racks joined by InfiniBand as NCCL sees them with
 * MNNVL (NCCL_MNNVL_ENABLE): the rack's 72 GPUs are one NCCL node (the
 * fused topology of the NVLink clique), so a group of R racks is R nodes of
 * 72 (coll_group.ranks_per_node = the NVLink domain). Figures worked out by
 * hand from NCCL 2.30.7 (../shared/reference/nccl/src/graph/search.cc,
 * tuning.cc) for what src/coll/ does with such a group; docs/network.md
 * "NVL72 racks across InfiniBand" says what it does not do (NVLS tree,
 * the tree's pipeline fill through the rack's 72-GPU chain).
 */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "coll/coll.h"
#include "coll/nccl_net.h"
#include "stepcast.h"

#define GIB (1024.0 * 1024 * 1024)

/* R racks of 72 GB200: NVLink 900 GB/s per direction (18 NVLink 5 links),
 * one 400 Gb/s (50 GB/s) NIC per GPU (cluster preset gb200-nvl72). */
static coll_group racks(int r) {
  coll_group g = {.ranks = 72 * r, .ranks_per_node = 72, .arch = 100, .intra_bw = 900e9,
                  .inter_bw = 50e9};
  return g;
}

/* The graph NCCL's inter-node search finds on a rack of 72 GPUs with 72
 * NICs of nic GB/s and NCCL's 18 x 40.1 GB/s of NVLink, against a hand
 * derivation: channels, GB/s per channel (ring; tree on two nodes), and
 * the kernel channels. */
static void expect_rack_graph(double nic, int nch, double bw, double tree2, int kernel) {
  nccl_net_graph g = nccl_net_search(100, 72, nic, 721.8);
  cr_expect_eq(g.nch, nch, "nic %g: %d channels", nic, g.nch);
  cr_expect_float_eq(g.bw_inter, bw, 1e-12, "nic %g: %g GB/s", nic, g.bw_inter);
  cr_expect_float_eq(g.bw_tree_2, tree2, 1e-12, "nic %g: tree %g GB/s", nic, g.bw_tree_2);
  cr_expect_eq(nccl_net_kernel_channels(&g, 100), kernel, "nic %g", nic);
}

/* coll_nccl_tuner_time of (a, p) for an all-reduce on g is COLL_LAUNCH_S
 * (20 us) + lat + bytes / algbw from 512 MiB to 16 GiB (seconds, bytes/s). */
static void expect_tuner_line(const coll_group *g, coll_algo a, coll_proto p, double lat,
                              double algbw) {
  for (double b = 512.0 * 1024 * 1024; b <= 16 * GIB; b *= 4) {
    double want = 20e-6 + lat + b / algbw;
    double t = coll_nccl_tuner_time(COLL_ALL_REDUCE, b, g, COLL_INTRA_AUTO, a, p);
    cr_expect(fabs(t / want - 1) < 1e-9, "%d ranks, %s/%s, bytes %.0f: %.6g s, want %.6g",
              g->ranks, coll_algo_name(a), coll_proto_name(p), b, t, want);
  }
}

/* NCCL's ring graph of one rack across racks: 72 NICs of 50 GB/s, NVLink
 * 18 x 40.1 = 721.8 GB/s in NCCL's units. sm100SpeedArrayInter from 48
 * (the first <= 50): NVLink fits 15 channels (720); 45.1 fits 16 (721.6,
 * more: kept); 42 ... 24 give at most 720; 22 / 45.1 < 0.49 stops. No
 * duplication (sm100, 45.1 < 50 GB/s a channel, more than 4 channels);
 * postset doubles them to 32 (45.1 is above 45 but 32 channels are not
 * fewer than 16: no quadrupling). The tree's pass 2 cannot raise bwIntra
 * (16 x 48 > 721.8). So a ring crosses each rack boundary on 16 of the
 * rack's 72 NICs: NVLink, not the NICs, sets its bandwidth. */
Test(mnnvl, gb200_rack_ring_graph) { expect_rack_graph(50.0, 16, 45.1, 45.1, 32); }

/* GB300 NVL72 (800 Gb/s ConnectX-8, 100 GB/s a GPU): from 96, NVLink fits
 * 7 x 96 = 672, 8 x 86 = 688, 9 x 80 = 720, then 16 x 45.1 = 721.6 as on
 * GB200: twice the NIC rate does not change NCCL's ring across racks. */
Test(mnnvl, gb300_rack_ring_graph_same) { expect_rack_graph(100.0, 16, 45.1, 45.1, 32); }

/* The tuner's ring LL128 on 20 racks (1440 ranks, 20 nodes): latency
 * baseLat 14 + (2878 - 38) NVLink steps x 1.9 + 38 network steps x 4.0 =
 * 5562 us (nsteps 2 x 1439, nInterSteps 2 x 19; the network overhead, 1
 * us on Grace, is under 1.9); busBw min(721.6 x 0.92, 16 channels x
 * perChMaxRingLL128Bw 40) = 640 GB/s, algbw 640 x 1440 / 2878. Plus
 * COLL_LAUNCH_S, 20 us. */
Test(mnnvl, twenty_racks_ring_ll128_tuner) {
  coll_group g = racks(20);
  expect_tuner_line(&g, COLL_ALGO_RING, COLL_PROTO_LL128, 5562e-6, 640e9 * 1440.0 / 2878.0);
}

/* The tuner's tree Simple on 20 racks: latency 8.4 + 2 x (71 x 4.0 +
 * log2i(20) = 4 x 14.0) = 688.4 us (the chain through the rack's 72 GPUs,
 * then the tree of racks); busBw min(721.6 x 0.92, 16 x perChMaxTreeBw 24,
 * Blackwell beyond two nodes) = 384 GB/s, algbw half of it. From 512 MiB
 * (log2(bytes / 64) >= 23) no tree correction. */
Test(mnnvl, twenty_racks_tree_tuner) {
  coll_group g = racks(20);
  expect_tuner_line(&g, COLL_ALGO_TREE, COLL_PROTO_SIMPLE, 688.4e-6, 384e9 * 0.5);
}

/* On two racks the tree takes NCCL's two-node column: latency 8.4 + 2 x
 * (71 x 4.0 + 1 x 14.0) = 604.4 us; busBw min(721.6 x 0.92, 16 x 42.8) =
 * 663.872 GB/s (the graph's bwIntra is 45.1: the pass-2 raise does not fit
 * the rack's NVLink). From 512 MiB no tree correction. */
Test(mnnvl, two_racks_tree_tuner) {
  coll_group g = racks(2);
  expect_tuner_line(&g, COLL_ALGO_TREE, COLL_PROTO_SIMPLE, 604.4e-6, 721.6e9 * 0.92 * 0.5);
}

/* What the model runs: NVLS inside one rack (NCCL: one node, NVLS on every
 * GPU of the clique); across racks no NVLS (NCCL runs NVLS across nodes
 * only with CollNet, enqueue.cc; NVLS tree is not modelled) and, on 20
 * racks at 512 MiB, the tree (3.5 ms in the tuner against ring LL128's
 * 7.3 ms and ring Simple's 15.8 ms). */
Test(mnnvl, pairs_by_rack_count) {
  double b = 512.0 * 1024 * 1024;
  coll_group one = racks(1), twenty = racks(20);
  coll_cost c1 = coll_nccl_time(COLL_ALL_REDUCE, b, &one);
  cr_expect_str_eq(c1.algo, "nvls");
  coll_cost c20 = coll_nccl_time(COLL_ALL_REDUCE, b, &twenty);
  cr_expect_str_eq(c20.algo, "tree");
  cr_expect_str_eq(c20.proto, "Simple");
  for (int r = 2; r <= 20; r += 18) {
    coll_group g = racks(r);
    cr_expect_lt(coll_nccl_tuner_time(COLL_ALL_REDUCE, b, &g, COLL_INTRA_AUTO, COLL_ALGO_NVLS,
                                      COLL_PROTO_SIMPLE),
                 0.0, "%d racks: no NVLS across nodes", r);
  }
}
