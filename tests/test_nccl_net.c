/*
 * test_nccl_net.c -- NCCL's inter-node ring and tree search (src/coll/
 * nccl_net.c) against graphs worked out by hand from search.cc, and what
 * it changes in the collective model across nodes (coll_nccl.c): the
 * two-node tree's bwIntra lets NCCL's tree beat its ring on 2 x 8 H100
 * and run faster than the NICs' line rate in nccl-tests' bus bandwidth.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "coll/coll.h"
#include "coll/nccl_net.h"
#include "stepcast.h"

/* 8 A100 (NVLink 12 x 20 = 240 GB/s in NCCL's units) + 8 x 200 Gb/s (25
 * GB/s): speedArrayInter from 24 (the first <= 25); 8 NICs x 1 = 8
 * channels = 192; 20, 18, 15 give less; 12 gives 16 x 12 = 192, not more;
 * 10 / 24 < 0.49 stops. No duplication below 25 GB/s. Tree pass 2: 24 ->
 * 28 (224 <= 240) -> 30 (240) -> 48 (384 > 240): 30. */
Test(nccl_net, a100_eight_hdr_rails) {
  nccl_net_graph g = nccl_net_search(80, 8, 25.0, 240.0);
  cr_expect_eq(g.nch, 8);
  cr_expect_float_eq(g.bw_inter, 24.0, 1e-12);
  cr_expect_float_eq(g.bw_tree_2, 30.0, 1e-12);
  cr_expect_eq(nccl_net_kernel_channels(&g, 80), 16, "postset doubles them");
}

/* 4 NICs of 25 GB/s for 8 A100: 4 x 24 = 96; tree 24 -> 28 -> 30 -> 48
 * (4 x 48 = 192 <= 240, and 30 < 2 x 24): 48. */
Test(nccl_net, a100_four_hdr_nics) {
  nccl_net_graph g = nccl_net_search(80, 4, 25.0, 240.0);
  cr_expect_eq(g.nch, 4);
  cr_expect_float_eq(g.bw_inter, 24.0, 1e-12);
  cr_expect_float_eq(g.bw_tree_2, 48.0, 1e-12);
}

/* 8 H100 (18 x 20.6 = 370.8) + 8 x 200 Gb/s: sm90SpeedArrayInter 24 ->
 * 8 x 24; tree 24 -> 30 -> 40 -> 42 -> 45 (360) -> 48 (384 > 370.8): 45. */
Test(nccl_net, h100_eight_rails) {
  nccl_net_graph g = nccl_net_search(90, 8, 25.0, 370.8);
  cr_expect_eq(g.nch, 8);
  cr_expect_float_eq(g.bw_inter, 24.0, 1e-12);
  cr_expect_float_eq(g.bw_tree_2, 45.0, 1e-12);
}

/* 8 H100 + 8 x 400 Gb/s (50 GB/s): 48 fits 7 (NVLink 370.8 / 48), 336;
 * 45 fits 8, 360; nothing lower beats it (24: 15 x 24 = 360, not more;
 * 22 / 45 < 0.49 stops). sm90, bw < 50 and more than 4 channels: no
 * duplication; 45 is not above 45: no quadrupling. */
Test(nccl_net, h100_eight_ndr_rails) {
  nccl_net_graph g = nccl_net_search(90, 8, 50.0, 370.8);
  cr_expect_eq(g.nch, 8);
  cr_expect_float_eq(g.bw_inter, 45.0, 1e-12);
  cr_expect_eq(nccl_net_kernel_channels(&g, 90), 16);
}

/* B200 (18 x 40.1 = 721.8) + 4 x 400 Gb/s: 4 x 48, duplicated (only
 * more than 4 channels keeps sm90+ from it) to 8 x 24; run on 16. */
Test(nccl_net, b200_four_rails_duplicate) {
  nccl_net_graph g = nccl_net_search(100, 4, 50.0, 721.8);
  cr_expect_eq(g.nch, 8);
  cr_expect_float_eq(g.bw_inter, 24.0, 1e-12);
  cr_expect_eq(nccl_net_kernel_channels(&g, 100), 16);
}

/* B200 + 8 x 400 Gb/s (AWS p6-b200, DGX B200): sm100SpeedArrayInter
 * from 48 (the first <= 50): 8 NICs x 1 = 8 channels, NVLink 721.8 / 48
 * = 15, so 8 x 48 = 384; 45.1, 42, 40, 30 fit 8 (less); 24 (24 / 48 =
 * 0.5 > 0.49) fits 16 x 24 = 384, not more; 22 / 48 < 0.49 stops. sm90+
 * with 48 < 50 GB/s and more than 4 channels: no duplication. Postset
 * doubles to 16; 48 > 45 but 16 is not under 16: no quadrupling. Tree
 * pass 2: 48 -> 80 (640 <= 721.8) -> 86 (688) -> 96 (768 > 721.8): 86. */
Test(nccl_net, b200_eight_ndr_rails) {
  nccl_net_graph g = nccl_net_search(100, 8, 50.0, 721.8);
  cr_expect_eq(g.nch, 8);
  cr_expect_float_eq(g.bw_inter, 48.0, 1e-12);
  cr_expect_float_eq(g.bw_tree_2, 86.0, 1e-12);
  cr_expect_eq(nccl_net_kernel_channels(&g, 100), 16);
}

/* H100 + 4 x 400 Gb/s for 8 GPUs: 48 fits 4 (one per NIC), 192; 24 fits
 * 8 x 24 = 192, not more; 4 x 48 is duplicated (not more than 4
 * channels) to 8 x 24, run on 16; tree 24 -> 30 -> 40 -> 42 -> 45 (8 x
 * 45 = 360 <= 370.8) -> 48 (384): 45. The same graph as 8 NICs of 25
 * GB/s (h100_eight_rails), which is how coll_nccl.c reads a 200 Gb/s
 * share. */
Test(nccl_net, h100_four_ndr_nics) {
  nccl_net_graph g = nccl_net_search(90, 4, 50.0, 370.8);
  nccl_net_graph r = nccl_net_search(90, 8, 25.0, 370.8);
  cr_expect_eq(g.nch, 8);
  cr_expect_float_eq(g.bw_inter, 24.0, 1e-12);
  cr_expect_float_eq(g.bw_tree_2, 45.0, 1e-12);
  cr_expect_eq(nccl_net_kernel_channels(&g, 90), 16);
  cr_expect_eq(r.nch, g.nch);
  cr_expect_float_eq(r.bw_inter, g.bw_inter, 1e-12);
  cr_expect_float_eq(r.bw_tree_2, g.bw_tree_2, 1e-12);
}

/* H100 + 4 x 200 Gb/s for 8 GPUs: 4 x 24 = 96; 12 (12 / 24 = 0.5) fits
 * 8 x 12 = 96, not more; 6 / 24 < 0.49 stops. 24 < 25: no duplication;
 * 8 CTAs. Tree 24 -> 30 -> 40 -> 42 -> 45 -> 48 (4 x 48 = 192), 48 is
 * not under 2 x 24: 48. */
Test(nccl_net, h100_four_hdr_nics) {
  nccl_net_graph g = nccl_net_search(90, 4, 25.0, 370.8);
  cr_expect_eq(g.nch, 4);
  cr_expect_float_eq(g.bw_inter, 24.0, 1e-12);
  cr_expect_float_eq(g.bw_tree_2, 48.0, 1e-12);
  cr_expect_eq(nccl_net_kernel_channels(&g, 90), 8);
}

/* A NIC slower than NCCL's whole table: one channel at the NIC. */
Test(nccl_net, slower_than_the_table) {
  nccl_net_graph g = nccl_net_search(80, 1, 0.05, 240.0);
  cr_expect_eq(g.nch, 1);
  cr_expect_float_eq(g.bw_inter, 0.05, 1e-12);
}

static coll_group h100x16(void) {
  coll_group g = {16, 8, 90, 450e9, 25e9, 0.6e-6, 2.7e-6, 8, 1, 0, 0, 0};
  return g;
}

/* 2 x 8 H100, 8 x 200 Gb/s: NCCL's tuner gives the tree 8 x 45 x 0.92 =
 * 331.2 (cap 8 x 41.4 = 331.2) x 0.5 = 165.6 GB/s algbw against the
 * ring's 8 x 24 x 16/30 = 102.4: the tree runs at 8 GiB, and as it runs
 * (min(360, 2 x 176) x 0.92 = 323.84, x 0.5) its nccl-tests bus bandwidth
 * (algbw x 30/16) passes the NICs' 200 GB/s line rate, which a ring
 * cannot. Latency: tree Simple 8.4 + 2 x (7 NVLink x 4.0 + 1 net level x
 * 14.0) = 92.4 us. */
Test(nccl_net, two_node_h100_tree_beats_the_line_rate) {
  coll_group g = h100x16();
  double b = 8589934592.0;
  coll_cost c = coll_nccl_time(COLL_ALL_REDUCE, b, &g);
  cr_expect_str_eq(c.algo, "tree");
  double busbw = b / c.time * 30.0 / 16.0;
  cr_expect(busbw > 200e9 && busbw < 2 * 176e9, "busbw %g GB/s", busbw / 1e9);
  double kernel = 92.4e-6 + b / (0.5 * 323.84e9);
  cr_expect(fabs((c.time - c.launch) - kernel) < 1e-9, "%g vs %g us",
            (c.time - c.launch) * 1e6, kernel * 1e6);
}

/* 2 x 8 A100 on 8 x 200 Gb/s: the tree's tuner figure is capped at 8 x
 * 23.6 = 188.8 (x 0.5 = 94.4 algbw), under the ring's 102.4: NCCL runs
 * the ring, on 16 channels. */
Test(nccl_net, two_node_a100_stays_ring) {
  coll_group g = h100x16();
  g.arch = 80;
  g.intra_bw = 300e9;
  coll_cost c = coll_nccl_time(COLL_ALL_REDUCE, 1 << 30, &g);
  cr_expect_str_eq(c.algo, "ring");
  cr_expect_eq(c.channels, 16);
}

/* The cluster states the NIC per GPU; a share under 200 Gb/s on Ampere
 * and later is a NIC shared by GPUs: 2 x 8 A100 with 100 Gb/s each (4 x
 * 200 Gb/s per node, calibration row 82's system) searches 4 NICs of 25
 * GB/s: 4 channels, 8 CTAs, and NCCL's ring (96 GB/s x 16/30 = 51.2
 * against the tree's 4 x 23.6 x 0.5 = 47.2). One NIC of 200 Gb/s per GPU
 * gives 8 channels, 16 CTAs. */
Test(nccl_net, a_share_under_one_nic_is_a_shared_nic) {
  coll_group g = h100x16();
  g.arch = 80;
  g.intra_bw = 300e9;
  g.inter_bw = 12.5e9;
  coll_cost c = coll_nccl_time(COLL_ALL_REDUCE, 1 << 30, &g);
  cr_expect_str_eq(c.algo, "ring");
  cr_expect_eq(c.channels, 8, "4 NICs, doubled: %d", c.channels);
  g.inter_bw = 25e9;
  cr_expect_eq(coll_nccl_time(COLL_ALL_REDUCE, 1 << 30, &g).channels, 16);
  /* 1 Gb/s per GPU, 1 GB/s a node: one NIC of 1 GB/s, not one of 25:
   * speed 0.24 fits 4 channels (0.12 fits 8, no more in all): 8 CTAs */
  g.arch = 90;
  g.intra_bw = 450e9;
  g.inter_bw = 0.125e9;
  cr_expect_eq(coll_nccl_time(COLL_ALL_REDUCE, 1 << 30, &g).channels, 8);
}

/* NCCL's ring LL128 cap is the search's nChannels x perChMaxRingLL128Bw
 * (tuning.cc "graphs[a]->nChannels * perChMaxRingLL128Bw"; Blackwell 40
 * GB/s): on 4 x 8 B200 with 8 x 400 Gb/s EFA (AWS p6-b200) that is 8 x
 * 40 = 320 GB/s, under 0.92 x 8 x 50 x 0.93 = 342 as the kernels run and
 * 0.92 x 8 x 48 = 353 in the tuner, though the kernels run 16 CTAs. Both
 * figures: 1 GiB more costs 2^30 / (320e9 x 32/62). */
Test(nccl_net, b200_ring_ll128_capped_by_search_channels) {
  coll_group g = {32, 8, 100, 900e9, 50e9, 0, 0, 8, 1, SC_FABRIC_EFA, 0, 0};
  double b = 1073741824.0, want = b / (320e9 * 32.0 / 62.0);
  double d_run = coll_nccl_algo_time(COLL_ALL_REDUCE, 2 * b, &g, COLL_INTRA_AUTO, COLL_ALGO_RING,
                                     COLL_PROTO_LL128) -
                 coll_nccl_algo_time(COLL_ALL_REDUCE, b, &g, COLL_INTRA_AUTO, COLL_ALGO_RING,
                                     COLL_PROTO_LL128);
  double d_tune = coll_nccl_tuner_time(COLL_ALL_REDUCE, 2 * b, &g, COLL_INTRA_AUTO,
                                       COLL_ALGO_RING, COLL_PROTO_LL128) -
                  coll_nccl_tuner_time(COLL_ALL_REDUCE, b, &g, COLL_INTRA_AUTO, COLL_ALGO_RING,
                                       COLL_PROTO_LL128);
  cr_expect(fabs(d_run - want) < 1e-9, "run %g us, want %g us", d_run * 1e6, want * 1e6);
  cr_expect(fabs(d_tune - want) < 1e-9, "tuner %g us, want %g us", d_tune * 1e6, want * 1e6);
  cr_expect_eq(coll_nccl_time(COLL_ALL_REDUCE, b, &g).channels, 16);
}
