/*
 * test_nccl_rings.c -- NCCL's single-node ring search (src/coll/nccl_rings.c)
 * against hand arithmetic on the speed tables of NCCL 2.30.7 search.cc,
 * one case per preset architecture, plus the duplication rule's branches.
 * gpu_bw = NVLinks x SMxx_NVLINK_BW (graph/topo.h).
 */
#include <criterion/criterion.h>

#include "coll/coll.h"
#include "coll/nccl_rings.h"

static void expect_graph(int arch, double gpu_bw, int nch, double bw, int kernels) {
  nccl_ring_graph g = nccl_rings_search(arch, gpu_bw);
  cr_expect_eq(g.nch, nch, "sm%d %.1f GB/s: %d rings, want %d", arch, gpu_bw, g.nch, nch);
  cr_expect_float_eq(g.bw, bw, 1e-9, "sm%d %.1f GB/s: %g GB/s per ring, want %g", arch,
                     gpu_bw, g.bw, bw);
  cr_expect_eq(nccl_rings_kernel_channels(g.nch), kernels, "sm%d kernels", arch);
}

/* V100 on NVSwitch (DGX-2), 6 x 20 = 120: speedArrayIntra 40 fits 3
 * rings, 3 x 40 = 120 = totalBw, done; 40 >= 25: dup to 6 x 20; pass 2:
 * 30 gives 4 < 6 rings, 40 gives 3: kept 6 x 20; kernels 12. */
Test(nccl_rings, sm70_dgx2) { expect_graph(70, 6 * 20.0, 6, 20.0, 12); }

/* A100, 12 x 20 = 240: 40 fits 6, 240 = totalBw, done; dup (sm80 is not
 * > 80) to 12 x 20; pass 2: 30 -> 8, 40 -> 6 rings, both < 12; kernels 24. */
Test(nccl_rings, sm80_a100) { expect_graph(80, 12 * 20.0, 12, 20.0, 24); }

/* H100, 18 x 20.6 = 370.8: sm90SpeedArrayIntra 60 fits 6 (360 < 370.8);
 * 50 -> 7 (350), 40 -> 9 (360), 30 -> 12 (360): none strictly better;
 * 24 / 60 = 0.4 <= 0.49 stops. 6 x 60: 60 >= 50, dup to 12 x 30;
 * pass 2: 40 -> 9, 50 -> 7, 60 -> 6 rings, all < 12. 360 GB/s, 24 kernels. */
Test(nccl_rings, sm90_h100) { expect_graph(90, 18 * 20.6, 12, 30.0, 24); }

/* B200, 18 x 40.1 = 721.8: sm100SpeedArrayIntra 90 fits 8 (720); 80 -> 9
 * (720), 70 -> 10 (700), 60 -> 12 (720), 50 -> 14 (700), 45 -> 16 (720),
 * none strictly better; 40 / 90 = 0.44 stops. Dup to 16 x 45; pass 2: 50
 * -> 14 < 16 ... 90 -> 8. 720 GB/s, 32 kernels. */
Test(nccl_rings, sm100_b200) { expect_graph(100, 18 * 40.1, 16, 45.0, 32); }

/* The sm > 80 clause of ncclTopoDupChannels: 200 GB/s on speedArrayIntra
 * settles on 5 x 40 (= totalBw). sm80 doubles it (10 x 20); sm86 (> 80,
 * 40 < 50, 5 > 4 rings) keeps 5 x 40. */
Test(nccl_rings, dup_rule_above_sm80) {
  expect_graph(80, 200.0, 10, 20.0, 20);
  expect_graph(86, 200.0, 5, 40.0, 10);
}

/* Below 25 GB/s per ring nothing is duplicated. sm90, 220: 60 -> 3 (180),
 * 50 -> 4 (200), 40 -> 5 (200), 30 -> 7 (210), 24 -> 9 (216), 20 -> 11
 * (220 = totalBw, done): 11 x 20, 20 < 25, kept; kernels 22. */
Test(nccl_rings, no_dup_below_25) { expect_graph(90, 220.0, 11, 20.0, 22); }

/* The ring graph holds at most MAXCHANNELS / 2 = 32 rings: 4000 GB/s on
 * sm80 fills 32 x 40 at the first speed; dup to min(64, 32) = 32 rings,
 * bw / DIVUP(32, 32) = 40; kernels min(64, 64) = 64. */
Test(nccl_rings, max_channels) { expect_graph(80, 4000.0, 32, 40.0, 64); }

/* Slower than the slowest speed (3 GB/s): one ring at the GPU's bw. */
Test(nccl_rings, below_table) { expect_graph(80, 2.0, 1, 2.0, 2); }

/* Through coll_nccl: 8 x H100 on NVSwitch (450 GB/s datasheet = 18
 * links) runs its kernels on 24 channels, 8 x A100 on 24. */
Test(nccl_rings, coll_nccl_kernel_channels) {
  coll_group h = {8, 8, 90, 450e9, 50e9, 0.6e-6, 2.7e-6, 8, 1, 0, 0, 0};
  coll_group a = {8, 8, 80, 300e9, 25e9, 0.6e-6, 2.7e-6, 8, 1, 0, 0, 0};
  cr_expect_eq(coll_nccl_time(COLL_ALL_REDUCE, 1 << 30, &h).channels, 24);
  cr_expect_eq(coll_nccl_time(COLL_ALL_REDUCE, 1 << 30, &a).channels, 24);
}
