/*
 * groups.c -- map parallel groups onto NVLink domains and NICs.
 */
#include "engine/groups.h"

#include "coll/collhbm.h"

grp grp_make(const sc_cluster *c, const xg_group *xgg) {
  grp r;
  coll_group *g = &r.g;
  int n = xgg->ranks, stride = xgg->stride, domain = xg_domain_gpus(c);
  g->ranks = n;
  g->ranks_per_node = xg_per_domain(c, n, stride);
  g->arch = c->gpu.arch;
  g->intra_bw = c->nvlink_bw > 0 ? c->nvlink_bw : c->gpu.nvlink_bw;
  g->inter_bw = c->nic_bw;
  g->intra_lat = c->nvlink_lat;
  g->inter_lat = c->nic_lat;
  g->fabric = c->fabric;
  g->host_cpu = c->host.cpu;
  /* a board without NVLink (a100-pcie, l40s, h100-pcie, a10): its
   * nvlink_bw is the slot's PCIe rate, which NCCL runs at its generation */
  g->pcie = c->gpu.link == SC_LINK_PCIE;
  g->node_gpus = domain;
  g->host_gpus = 1; /* frameworks run one GPU per process */
  r.stride = stride;
  r.window = 0;
  return r;
}

/* The collective's time on the GPU stream and, when sh is not NULL, its
 * shares (hbm only when gpu gives an HBM bandwidth). The time is the
 * collective model's whole time, nccl-tests' per-call overhead
 * (coll_cost.launch) included: nccl-tests times back-to-back calls, so
 * at the sizes a training step sends (1 MiB and up) what it measures is
 * the stream's time per call, not the host's: one process driving 8
 * A100s (-g 8) issues a call every 44 us at 32 KiB (its host floor,
 * COLL_HOST_GPU_S) and takes 101-102 us at 1-4 MiB, 134 us at 8 MiB
 * (calibration collective_benchmarks.csv rows 83-91), 27-66 us above
 * the model without the overhead at 1-8 MiB (docs/network.md: the
 * overhead covers a mid-size shortfall of GPU time). The host's
 * side of a call (the framework and torch.distributed, cost_coll_host) is
 * the other clock of the engines' queue: charging both is not counting
 * the call twice. */
static double cost(ncost *net, int bound, int sm_count, const sc_gpu *gpu, const grp *g,
                   coll_op op, double bytes, grp_share *sh) {
  if (sh) sh->sm = sh->hbm = 0;
  if (g->g.ranks <= 1 || bytes <= 0) return 0;
  coll_cost c = coll_nccl_time(op, bytes, &g->g);
  double t = c.time;
  if (net && bound)
    t = ncost_bound(net, op, bytes, g->g.ranks, g->stride, g->window, g->g.ranks_per_node,
                    t);
  else if (net)
    t = ncost_time(net, op, bytes, g->g.ranks, g->stride, g->window, g->g.ranks_per_node,
                   t);
  if (!sh) return t;
  if (sm_count > 0) {
    double share = (double)c.channels / sm_count;
    sh->sm = share < 0.5 ? share : 0.5;
  }
  double bw = gpu ? gpu->hbm_bw * gpu->hbm_eff : 0;
  if (bw > 0 && t > 0) {
    double h = collhbm_bytes(op, bytes, g->g.ranks, c.algo, c.proto) / t / bw;
    sh->hbm = h < 1 ? h : 1;
  }
  return t;
}

double grp_cost(ncost *net, int sm_count, const grp *g, coll_op op, double bytes,
                double *sm_share) {
  grp_share sh;
  double t = cost(net, 0, sm_count, NULL, g, op, bytes, sm_share ? &sh : NULL);
  if (sm_share) *sm_share = sh.sm;
  return t;
}

double grp_cost_ex(ncost *net, int bound, const sc_gpu *gpu, const grp *g, coll_op op,
                   double bytes, grp_share *sh) {
  return cost(net, bound, gpu->sm_count, gpu, g, op, bytes, sh);
}

double grp_slow(grp_share sh, double mem_frac) {
  double extra = sh.hbm - sh.sm;
  return sh.sm + (extra > 0 ? mem_frac * extra : 0);
}
