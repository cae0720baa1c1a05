/*
 * groups.c -- map parallel groups onto NVLink domains and NICs.
 */
#include "engine/groups.h"

grp grp_make(const sc_cluster *c, const xg_group *xgg) {
  grp r;
  coll_group *g = &r.g;
  int n = xgg->ranks, stride = xgg->stride;
  int domain = c->nvlink_domain > 0 ? c->nvlink_domain : c->gpus_per_node;
  int per = domain / stride;
  if (per < 1) per = 1;
  if (per > n) per = n;
  while (per > 1 && n % per) per--; /* members per domain must divide n */
  g->ranks = n;
  g->ranks_per_node = per;
  g->arch = c->gpu.arch;
  g->intra_bw = c->nvlink_bw > 0 ? c->nvlink_bw : c->gpu.nvlink_bw;
  g->inter_bw = c->nic_bw;
  g->intra_lat = c->nvlink_lat;
  g->inter_lat = c->nic_lat;
  g->node_gpus = domain;
  r.stride = stride;
  return r;
}

double grp_cost(ncost *net, int sm_count, const grp *g, coll_op op, double bytes,
                double *sm_share) {
  return grp_cost_ex(net, 0, sm_count, g, op, bytes, sm_share);
}

double grp_cost_ex(ncost *net, int bound, int sm_count, const grp *g, coll_op op, double bytes,
                   double *sm_share) {
  if (sm_share) *sm_share = 0;
  if (g->g.ranks <= 1 || bytes <= 0) return 0;
  coll_cost c = coll_nccl_time(op, bytes, &g->g);
  double t = c.time - c.launch;
  if (net && bound)
    t = ncost_bound(net, op, bytes, g->g.ranks, g->stride, g->g.ranks_per_node, t);
  else if (net)
    t = ncost_time(net, op, bytes, g->g.ranks, g->stride, g->g.ranks_per_node, t);
  if (sm_share && sm_count > 0) {
    double share = (double)c.channels / sm_count;
    *sm_share = share < 0.5 ? share : 0.5;
  }
  return t;
}
