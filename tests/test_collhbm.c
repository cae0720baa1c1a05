/*
 * test_collhbm.c -- the HBM traffic of NCCL's collective kernels
 * (src/coll/collhbm.h) and the overlap slowdown it gives memory-bound
 * kernels beside a collective (src/engine/groups.h grp_slow); arithmetic
 * by hand in the comments.
 */
#include <criterion/criterion.h>
#include <math.h>

#include "coll/collhbm.h"
#include "engine/groups.h"

static int near(double a, double b) { return fabs(a - b) <= 1e-12 * fmax(1, fabs(b)); }

Test(collhbm, ring_all_reduce_counts_fifo_input_and_output) {
  /* n = 8, S = 8 MB, Simple: 2 (n - 1) = 14 chunks of 1 MB received,
   * each written into the FIFO and read back (28 MB), the input read
   * (8 MB) and the output written (8 MB): 44 MB */
  double mb = 1e6;
  cr_expect(near(collhbm_bytes(COLL_ALL_REDUCE, 8 * mb, 8, "ring", "Simple"), 44 * mb));
  /* LL: 16-byte lines carry 8 data bytes, the FIFO moves twice: 56 + 16 */
  cr_expect(near(collhbm_bytes(COLL_ALL_REDUCE, 8 * mb, 8, "ring", "LL"), 72 * mb));
  /* LL128: 128-byte lines carry 120: 28 x 128 / 120 + 16 = 45.8666... */
  cr_expect(near(collhbm_bytes(COLL_ALL_REDUCE, 8 * mb, 8, "ring", "LL128"),
                 (28 * 128.0 / 120 + 16) * mb));
  /* NVLS: the switch reduces; each GPU's memory read once, written once */
  cr_expect(near(collhbm_bytes(COLL_ALL_REDUCE, 8 * mb, 8, "nvls", "Simple"), 16 * mb));
  /* per bus byte (2 (n-1)/n S = 14 MB): 44 / 14 = 2 + 8 / 7 */
  cr_expect(near(collhbm_per_bus_byte(COLL_ALL_REDUCE, 8, "ring", "Simple"), 2 + 8.0 / 7));
  /* one rank moves nothing */
  cr_expect(collhbm_bytes(COLL_ALL_REDUCE, 8 * mb, 1, "ring", "Simple") == 0);
}

Test(collhbm, gather_scatter_and_all_to_all) {
  double mb = 1e6;
  /* all-gather of 8 MB over 4: 3 chunks of 2 MB through the FIFO (12 MB),
   * the own chunk read (2) and all 4 written (8): 22 MB; reduce-scatter:
   * the 8 MB input read, 3 chunks through the FIFO (12), 2 MB written */
  cr_expect(near(collhbm_bytes(COLL_ALL_GATHER, 8 * mb, 4, "ring", "Simple"), 22 * mb));
  cr_expect(near(collhbm_bytes(COLL_REDUCE_SCATTER, 8 * mb, 4, "ring", "Simple"), 22 * mb));
  /* all-to-all of 8 MB over 4: 6 MB read and sent, 6 MB through the FIFO
   * (12), 6 MB written, the own 2 MB block copied (4): 28 MB */
  cr_expect(near(collhbm_bytes(COLL_ALL_TO_ALL, 8 * mb, 4, "ring", "Simple"), 28 * mb));
  /* send/recv of 1 MB: read, FIFO write + read, write: 4 MB */
  cr_expect(near(collhbm_bytes(COLL_SEND_RECV, 1 * mb, 2, "ring", "Simple"), 4 * mb));
  /* broadcast of 1 MB: a GPU past the root has no input to read: FIFO
   * write + read, write: 3 MB; reduce's root reads its input too: 4 MB */
  cr_expect(near(collhbm_bytes(COLL_BROADCAST, 1 * mb, 8, "ring", "Simple"), 3 * mb));
  cr_expect(near(collhbm_bytes(COLL_REDUCE, 1 * mb, 8, "ring", "Simple"), 4 * mb));
}

Test(collhbm, memory_bound_kernels_lose_the_hbm_share_gemms_the_sm_share) {
  grp_share sh = {0.1, 0.4};
  cr_expect(near(grp_slow(sh, 0), 0.1), "a GEMM: the SM share");
  cr_expect(near(grp_slow(sh, 1), 0.4), "an element-wise kernel: the HBM share");
  cr_expect(near(grp_slow(sh, 0.5), 0.25), "half of each: 0.1 + 0.5 x 0.3");
  grp_share low = {0.1, 0.05}; /* a collective slower than HBM notices */
  cr_expect(near(grp_slow(low, 1), 0.1), "never below the SM share");
}

/* One NVSwitch node of 8 A100 80 GB. */
static sc_cluster a100_node(void) {
  const sc_gpu *a100 = sc_gpu_preset("a100-sxm4-80gb");
  cr_assert(a100);
  sc_cluster c = {0};
  c.gpu = *a100, c.gpus_per_node = 8, c.nvlink_domain = 8;
  return c;
}

/* The collective group of c's first `ranks` GPUs. */
static grp ranks_of(const sc_cluster *c, int ranks) {
  xg_group xgg = {0};
  xgg.ranks = ranks, xgg.stride = 1;
  return grp_make(c, &xgg);
}

Test(collhbm, the_share_is_the_collectives_hbm_rate_over_the_achievable_bandwidth) {
  /* 8 A100 in one NVSwitch node, 1 GB all-reduce */
  sc_cluster c = a100_node();
  const sc_gpu *a100 = &c.gpu;
  grp g = ranks_of(&c, 8);
  grp_share sh;
  double t = grp_cost_ex(NULL, 0, &c.gpu, &g, COLL_ALL_REDUCE, 1e9, &sh);
  coll_cost cc = coll_nccl_time(COLL_ALL_REDUCE, 1e9, &g.g);
  double bytes = collhbm_bytes(COLL_ALL_REDUCE, 1e9, 8, cc.algo, cc.proto);
  cr_assert(t > 0);
  cr_expect(near(sh.hbm, bytes / t / (a100->hbm_bw * a100->hbm_eff)), "share %g", sh.hbm);
  /* a ring at NVLink speed: ~3.1 HBM bytes per bus byte at ~230 GB/s bus
   * bandwidth is ~0.7 TB/s of the A100's ~1.6 TB/s achievable: 0.3-0.6,
   * above the share of the SMs its channels hold */
  cr_expect(sh.hbm > 0.3 && sh.hbm < 0.6, "HBM share %g (bus %g GB/s)", sh.hbm,
            1e9 * 2 * 7 / 8 / t / 1e9);
  cr_expect(sh.hbm > sh.sm, "HBM %g, SM %g", sh.hbm, sh.sm);
  /* half the bandwidth: twice the share; none known: none */
  sc_gpu half = *a100;
  half.hbm_bw /= 2;
  grp_share sh2;
  grp_cost_ex(NULL, 0, &half, &g, COLL_ALL_REDUCE, 1e9, &sh2);
  cr_expect(near(sh2.hbm, fmin(1, 2 * sh.hbm)), "%g vs 2 x %g", sh2.hbm, sh.hbm);
  half.hbm_bw = 0;
  grp_cost_ex(NULL, 0, &half, &g, COLL_ALL_REDUCE, 1e9, &sh2);
  cr_expect(sh2.hbm == 0 && near(sh2.sm, sh.sm));
}

Test(collhbm, a_training_collective_takes_the_models_whole_time_per_call_overhead_included) {
  /* 2 A100s of one NVSwitch node, the tensor-parallel all-reduce of a
   * 1024-token, hidden-1024, micro-batch-4 fp16 activation: 8 MiB. The
   * GPU stream holds it for the collective model's whole time (what
   * nccl-tests measures between back-to-back calls), the 20 us per-call
   * overhead (COLL_LAUNCH_S) included: time - (time - launch) = 20 us */
  sc_cluster c = a100_node();
  const sc_gpu *a100 = &c.gpu;
  grp g = ranks_of(&c, 2);
  double bytes = 1024.0 * 4 * 1024 * 2;
  coll_cost cc = coll_nccl_time(COLL_ALL_REDUCE, bytes, &g.g);
  double t = grp_cost(NULL, a100->sm_count, &g, COLL_ALL_REDUCE, bytes, NULL);
  cr_expect(near(cc.launch, 20e-6), "per-call overhead %g s", cc.launch);
  cr_expect(near(t, cc.time), "stream %g s, model %g s", t, cc.time);
  cr_expect(near(t - (cc.time - cc.launch), 20e-6), "%g s more than without it",
            t - (cc.time - cc.launch));
  /* one rank: nothing to do, no overhead either */
  grp one = ranks_of(&c, 1);
  cr_expect(grp_cost(NULL, a100->sm_count, &one, COLL_ALL_REDUCE, bytes, NULL) == 0);
}
