/*
 * test_pcie_paths.c -- every path that runs NCCL on a PCIe node runs it at
 * the link's generation, through one helper (coll_nccl_pci_bw): the
 * closed form's own groups (coll_group.pcie), the training engine's
 * groups (grp_make), the data-parallel model's (dp_fabric_group) and
 * `stepcast collective --pcie` (tests/cli_pcie.sh). docs/network.md,
 * "PCIe nodes".
 */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "coll/coll.h"
#include "dp/dp.h"
#include "engine/groups.h"
#include "stepcast.h"
#include "trace/whatif.h"

#define GIB 1073741824.0

static coll_group pcie8(double link) {
  coll_group g = {0};
  g.ranks = g.ranks_per_node = g.node_gpus = 8;
  g.arch = 80;
  g.intra_bw = link;
  g.host_gpus = 1;
  g.pcie = 1;
  return g;
}

/* 8 GPUs, 1 GiB all-reduce: a ring moves 2 (n-1)/n S = 1.75 GiB through
 * each GPU's link. Gen4 x16 (31.5 GB/s datasheet): NCCL's 24 GB/s, 1.75 x
 * 1073741824 / 24e9 = 78.29 ms; Gen3 x16 (15.75): 12 GB/s, 156.59 ms. The
 * latencies add about 0.1 %. */
Test(pcie_paths, ring_time_by_hand) {
  double gen4 = 1.75 * GIB / 24e9, gen3 = 1.75 * GIB / 12e9;
  coll_group g = pcie8(31.5e9);
  double t4 = coll_nccl_time(COLL_ALL_REDUCE, GIB, &g).time;
  cr_expect(t4 > gen4 && t4 < gen4 * 1.005, "gen4 %g s, by hand %g", t4, gen4);
  g = pcie8(15.75e9);
  double t3 = coll_nccl_time(COLL_ALL_REDUCE, GIB, &g).time;
  cr_expect(t3 > gen3 && t3 < gen3 * 1.005, "gen3 %g s, by hand %g", t3, gen3);
  g = pcie8(0); /* no rate known: Gen3 */
  cr_expect_float_eq(coll_nccl_time(COLL_ALL_REDUCE, GIB, &g).time, t3, 1e-12);
}

/* The flag is what COLL_INTRA_AUTO reads: the same as naming
 * COLL_INTRA_PCIE; without it 31.5 GB/s is taken for one NVLink. */
Test(pcie_paths, auto_follows_the_flag) {
  coll_group g = pcie8(63e9);
  for (double b = 1024; b <= GIB; b *= 32) {
    double a = coll_nccl_time(COLL_ALL_REDUCE, b, &g).time;
    double l = coll_nccl_time_ex(COLL_ALL_REDUCE, b, &g, COLL_INTRA_PCIE).time;
    cr_expect_float_eq(a, l, 1e-15, "%g B: %g vs %g", b, a, l);
  }
  coll_group nv = pcie8(31.5e9);
  nv.pcie = 0;
  g = pcie8(31.5e9);
  cr_expect_neq(coll_nccl_time(COLL_ALL_REDUCE, GIB, &g).time,
                coll_nccl_time(COLL_ALL_REDUCE, GIB, &nv).time);
  /* the public group carries it too */
  sc_coll_group pg = {.ranks = 8, .ranks_per_node = 8, .arch = 80, .intra_bw = 31.5e9,
                      .host_gpus = 1, .pcie = 1};
  cr_expect_float_eq(sc_coll_nccl_time(SC_COLL_ALL_REDUCE, GIB, &pg).time,
                     coll_nccl_time(COLL_ALL_REDUCE, GIB, &g).time, 1e-15);
}

/* The training engine: a PCIe board's group is a PCIe group at its
 * slot's rate (a100-pcie-80gb: Gen4 x16, 31.5 GB/s); an SXM board's is
 * not. */
Test(pcie_paths, engine_group_of_a_pcie_board) {
  sc_scenario s;
  sc_scenario_default(&s);
  s.cluster.gpu = *sc_gpu_preset("a100-pcie-80gb");
  s.cluster.nvlink_bw = 0;
  s.cluster.gpus = s.cluster.gpus_per_node = s.cluster.nvlink_domain = 8;
  xg_group x = {.ranks = 8, .stride = 1};
  grp r = grp_make(&s.cluster, &x);
  cr_assert_eq(r.g.pcie, 1);
  cr_assert_float_eq(r.g.intra_bw, 31.5e9, 1);
  double t = coll_nccl_time(COLL_ALL_REDUCE, GIB, &r.g).time;
  cr_expect(t > 1.75 * GIB / 24e9 && t < 1.75 * GIB / 24e9 * 1.005, "%g s", t);
  s.cluster.gpu = *sc_gpu_preset("a100-sxm4-80gb");
  cr_assert_eq(grp_make(&s.cluster, &x).g.pcie, 0);
}

/* The data-parallel model: its PCIe link is the copy rate (0.88 of the
 * datasheet's); NCCL sees the datasheet rate, 0.88 x 31.5 / 0.88 = 31.5. */
Test(pcie_paths, dp_group_on_pcie) {
  dp_fabric f = {.gpus = 8, .gpn = 8, .nodes = 1, .arch = 80, .intra = SC_DP_INTRA_PCIE,
                 .intra_bw = 0.88 * 31.5e9, .intra_lat = 1e-6, .net_line = 12.5e9};
  coll_group g;
  dp_fabric_group(&f, 8, 8, &g);
  cr_assert_eq(g.pcie, 1);
  cr_assert_float_eq(g.intra_bw, 31.5e9, 1);
  cr_assert_eq(dp_coll_intra(SC_DP_INTRA_PCIE), COLL_INTRA_PCIE);
  double t = coll_nccl_time_ex(COLL_ALL_REDUCE, GIB, &g, dp_coll_intra(f.intra)).time;
  cr_expect(t > 1.75 * GIB / 24e9 && t < 1.75 * GIB / 24e9 * 1.005, "%g s", t);
  f.intra = SC_DP_INTRA_NVSWITCH;
  f.intra_bw = 300e9;
  dp_fabric_group(&f, 8, 8, &g);
  cr_assert_eq(g.pcie, 0);
  cr_assert_float_eq(g.intra_bw, 300e9, 1);
}

/* A trace's what-if on a PCIe board (no --nvlink): the collective at the
 * slot's generation, the 1 GiB ring of ring_time_by_hand (Gen4, 24 GB/s);
 * with --nvlink 31.5 the same figure is one NVLink. */
Test(pcie_paths, trace_whatif_on_a_pcie_board) {
  const sc_gpu *a = sc_gpu_preset("a100-pcie-80gb");
  wi_ctx c = {0};
  tg_gpu g = {0};
  g.coll_op = SC_COLL_ALL_REDUCE;
  g.bytes = GIB;
  c.w.ranks_per_node = 8;
  double t = wi_coll_model(&c, &g, a, 8);
  cr_expect(t > 1.75 * GIB / 24e9 && t < 1.75 * GIB / 24e9 * 1.005, "%g s", t);
  c.w.nvlink_bw = 31.5e9;
  cr_expect_neq(wi_coll_model(&c, &g, a, 8), t);
}

/* NCCL runs no LL128 between GPUs on PCIe (tuning.cc: pEnable &=
 * typeIntra <= PATH_NVB): on every size and generation, one node or two,
 * the tuner never offers it and the choice is LL or Simple; the same
 * group on NVLink (pcie = 0) does run LL128 at 4 MiB. One GPU a node has
 * no intra path (PATH_LOC) and keeps it. */
Test(pcie_paths, no_ll128_on_pcie) {
  double links[] = {15.75e9, 31.5e9, 63e9};
  for (int l = 0; l < 3; l++)
    for (int nodes = 1; nodes <= 2; nodes++) {
      coll_group g = pcie8(links[l]);
      g.ranks = 8 * nodes;
      g.inter_bw = 25e9;
      for (double b = 1024; b <= GIB; b *= 2) {
        coll_cost c = coll_nccl_time(COLL_ALL_REDUCE, b, &g);
        cr_expect(strcmp(c.proto, "LL128"), "%g GB/s, %d nodes, %g B: LL128", links[l] / 1e9,
                  nodes, b);
        for (int a = 0; a < COLL_ALGO_COUNT; a++)
          cr_expect_lt(coll_nccl_tuner_time(COLL_ALL_REDUCE, b, &g, COLL_INTRA_AUTO, a,
                                            COLL_PROTO_LL128), 0);
      }
    }
  coll_group nv = pcie8(300e9);
  nv.pcie = 0;
  cr_expect_str_eq(coll_nccl_time(COLL_ALL_REDUCE, 4 * 1048576.0, &nv).proto, "LL128");
  coll_group one = pcie8(31.5e9);
  one.ranks = 2;
  one.ranks_per_node = one.node_gpus = 1;
  one.inter_bw = 25e9;
  cr_expect_geq(coll_nccl_tuner_time(COLL_ALL_REDUCE, 4 * 1048576.0, &one, COLL_INTRA_AUTO,
                                     COLL_ALGO_RING, COLL_PROTO_LL128), 0);
}
