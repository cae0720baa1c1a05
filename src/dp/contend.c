/*
 * contend.c -- what NCCL's kernels take from the backward pass they
 * overlap: its SMs and its memory bandwidth (see dp.h, dp_gpu_share).
 *
 * While a gradient all-reduce runs beside the backward pass, NCCL's
 * kernel holds one CTA per channel (coll_cost.channels: the SMs that
 * compute loses, at most half of them, the rule of src/engine/groups.c)
 * and moves its bytes through the GPU's HBM: each byte a ring step
 * receives lands in this GPU's FIFO and is read back, the input is read
 * and the output written (coll/collhbm.c: 2 + n / (n - 1) HBM bytes per
 * bus byte for a Simple ring, 3.14 at n = 8). Compute-bound kernels
 * (convolutions, GEMMs) run on the SMs NCCL leaves; memory-bound kernels
 * (batch norm, activations, element-wise: mem_frac of the backward's GPU
 * time, from the model's own kernel classes) on the HBM bandwidth it
 * leaves, and never faster than on the SMs it leaves: the backward slows
 * by sm + mem_frac x max(0, hbm - sm) (grp_slow, the main engine's rule),
 * with hbm = that message's HBM bytes / its time / the achievable HBM
 * bandwidth (hbm_bw x hbm_eff, the GPU preset's: memory_bandwidth.csv).
 *
 * Worked example (tests/test_dp_contend.c): 8 V100 over NVLink, a 25 MiB
 * bucket all-reduced at ~110 GB/s of bus bandwidth moves ~3.1 x 110 =
 * 340 GB/s through each GPU's HBM, ~0.4 of what the V100 reaches; with
 * 12 of 80 SMs (0.15) and a backward 40 % memory-bound, the backward
 * slows by 0.15 + 0.4 x (0.4 - 0.15) = 0.25 while the bucket runs. Over
 * one EDR NIC per server the same bucket runs at ~11 GB/s of bus
 * bandwidth: HBM share ~0.04, below the SMs' -- the SM share alone.
 */
#include "coll/collhbm.h"
#include "dp/dp.h"
#include "engine/groups.h"

coll_intra dp_coll_intra(sc_dp_intra i) {
  switch (i) {
  case SC_DP_INTRA_CUBEMESH: return COLL_INTRA_CUBEMESH;
  case SC_DP_INTRA_PCIE: return COLL_INTRA_PCIE; /* dp_fabric_group's link */
  case SC_DP_INTRA_NVSWITCH:
  case SC_DP_INTRA_NVLINK_MESH: return COLL_INTRA_NVSWITCH;
  case SC_DP_INTRA_AUTO: break;
  }
  return COLL_INTRA_AUTO;
}

grp_share dp_nccl_share(const dp_ctx *c, const coll_group *g, double bytes) {
  grp_share sh = {0, 0};
  int sms = c->s->cluster.gpu.sm_count;
  if (g->ranks <= 1 || !(bytes > 0)) return sh;
  coll_cost cc = coll_nccl_time_ex(COLL_ALL_REDUCE, bytes, g, dp_coll_intra(c->f->intra));
  if (sms > 0) {
    double s = (double)cc.channels / sms;
    sh.sm = s < 0.5 ? s : 0.5;
  }
  if (c->f->gpu_mem_bw > 0 && cc.time > 0) {
    double h = collhbm_bytes(COLL_ALL_REDUCE, bytes, g->ranks, cc.algo, cc.proto) / cc.time /
               c->f->gpu_mem_bw;
    sh.hbm = h < 1 ? h : 1;
  }
  return sh;
}

double dp_gpu_share(const dp_ctx *c, const coll_group *g, double bytes) {
  /* the kernels slow; a launch-bound layer's idle GPU between launches
   * takes it up (as the engine's grp_slow over the kernels' share of a
   * window, engine/analytic.c bkern): charged over the whole window, a
   * faster GPU slowed a host-bound backward as much and moved its
   * gradients, and the fusion of the messages after them */
  return grp_slow(dp_nccl_share(c, g, bytes), c->m->mem_frac) * c->m->kern_frac;
}
