/*
 * test_dp_contend.c -- what NCCL's all-reduce takes from the backward pass
 * it overlaps (src/dp/contend.c): its SMs (channels / SMs, at most one
 * half) and, for the memory-bound part of the backward, its HBM
 * bandwidth (coll/collhbm.c's bytes over the collective's time over the
 * GPU's achievable bandwidth), combined as the main engine's grp_slow.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "coll/collhbm.h"
#include "dp/dp.h"

static int near(double a, double b) { return fabs(a - b) <= 1e-9 * fmax(fabs(a), fabs(b)); }

/* 8 V100 in one DGX-1-like server (NVLink cube-mesh, 25 GB/s per link
 * per direction, six links), or `nodes` of them joined by one 100 Gb/s
 * EDR HCA each. */
typedef struct fixture {
  sc_scenario s;
  dp_fabric f;
  dp_model m;
  sc_dp_spec spec;
  dp_ctx c;
  coll_group g;
} fixture;

static void setup(fixture *x, int nodes, double mem_frac) {
  const sc_gpu *v100 = sc_gpu_preset("v100-sxm2-16gb");
  cr_assert(v100, "the v100-sxm2-16gb preset");
  *x = (fixture){0};
  x->s.cluster.gpu = *v100;
  x->f = (dp_fabric){.gpus = 8 * nodes, .gpn = 8, .nodes = nodes, .arch = v100->arch,
                     .intra = SC_DP_INTRA_CUBEMESH, .intra_bw = 6 * 25e9, .intra_lat = 1e-6,
                     .net_line = 12.5e9, .net_bw = 12e9, .net_lat = 5e-6,
                     .gpu_mem_bw = v100->hbm_bw * v100->hbm_eff};
  x->m = (dp_model){.mem_frac = mem_frac, .kern_frac = 1};
  x->c = (dp_ctx){.s = &x->s, .spec = &x->spec, .m = &x->m, .f = &x->f};
  dp_fabric_group(&x->f, x->f.gpus, 8, &x->g);
}

Test(dp_contend, the_shares_are_the_kernels_sms_and_its_hbm_rate) {
  fixture x;
  setup(&x, 1, 0);
  double b = 25 * 1048576.0;
  grp_share sh = dp_nccl_share(&x.c, &x.g, b);
  coll_cost cc = coll_nccl_time_ex(COLL_ALL_REDUCE, b, &x.g, COLL_INTRA_CUBEMESH);
  cr_assert(cc.time > 0 && cc.channels > 0);
  cr_expect(near(sh.sm, fmin(0.5, cc.channels / 80.0)), "SM share %g, %d channels", sh.sm,
            cc.channels);
  double hbm = collhbm_bytes(COLL_ALL_REDUCE, b, 8, cc.algo, cc.proto);
  cr_expect(near(sh.hbm, hbm / cc.time / x.f.gpu_mem_bw), "HBM share %g", sh.hbm);
  /* 25 MiB on 8 GPUs: NCCL's Simple ring on 12 channels (0.15 of the
   * V100's 80 SMs); it reads and writes 2 + 8/7 HBM bytes per bus byte,
   * 2 x 7/8 bus bytes per byte of buffer: 5.5 bytes per byte */
  cr_assert_str_eq(cc.algo, "ring");
  cr_assert_str_eq(cc.proto, "Simple");
  cr_expect_eq(cc.channels, 12);
  cr_expect(near(sh.sm, 0.15), "SM share %g", sh.sm);
  cr_expect(near(hbm, 5.5 * b), "%g vs 5.5 x %g", hbm, b);
  /* ~110 GB/s of bus bandwidth over NVLink is ~0.35 TB/s through HBM:
   * about 0.4 of a V100's, more than its channels' SMs */
  cr_expect(sh.hbm > 0.25 && sh.hbm < 0.6, "HBM share %g", sh.hbm);
  cr_expect(sh.hbm > sh.sm, "HBM %g, SM %g", sh.hbm, sh.sm);
}

Test(dp_contend, only_the_memory_bound_backward_feels_the_hbm_share) {
  fixture x;
  setup(&x, 1, 0);
  double b = 25 * 1048576.0;
  grp_share sh = dp_nccl_share(&x.c, &x.g, b);
  cr_expect(near(dp_gpu_share(&x.c, &x.g, b), sh.sm), "all compute-bound: the SMs");
  x.m.mem_frac = 1;
  cr_expect(near(dp_gpu_share(&x.c, &x.g, b), sh.hbm), "all memory-bound: the HBM");
  x.m.mem_frac = 0.4;
  cr_expect(near(dp_gpu_share(&x.c, &x.g, b), 0.15 + 0.4 * (sh.hbm - 0.15)),
            "40 %% memory-bound: 0.15 + 0.4 x (%g - 0.15)", sh.hbm);
  /* the HBM share below the SMs' (over the network): the SMs alone */
  grp_share low = {.sm = 0.15, .hbm = 0.1};
  cr_expect(near(grp_slow(low, 0.4), 0.15));
  /* a backward whose GPU runs 60 % of its window (launch-bound layers):
   * the idle GPU between launches absorbs the rest */
  x.m.kern_frac = 0.6;
  cr_expect(near(dp_gpu_share(&x.c, &x.g, b), 0.6 * (0.15 + 0.4 * (sh.hbm - 0.15))));
}

Test(dp_contend, over_one_nic_per_server_the_hbm_share_is_small) {
  fixture x;
  setup(&x, 2, 1);
  double b = 25 * 1048576.0;
  grp_share sh = dp_nccl_share(&x.c, &x.g, b);
  /* ~11 GB/s of bus bandwidth: a few per cent of the HBM; the backward
   * still loses the SMs the channels hold, never less */
  cr_expect(sh.hbm < 0.1, "HBM share %g", sh.hbm);
  cr_expect(near(dp_gpu_share(&x.c, &x.g, b), fmax(sh.sm, sh.hbm)), "%g", sh.hbm);
  /* one rank, nothing to share; no HBM figure, no HBM share */
  coll_group one = x.g;
  one.ranks = one.ranks_per_node = 1;
  cr_expect(dp_gpu_share(&x.c, &one, b) == 0);
  x.f.gpu_mem_bw = 0;
  cr_expect(dp_nccl_share(&x.c, &x.g, b).hbm == 0);
}
