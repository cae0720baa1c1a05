/*
 * groups.c -- map parallel groups onto NVLink domains and NICs.
 */
#include "engine/groups.h"

/* A group of n ranks whose members are `stride` ranks apart. */
static grp make(const sc_cluster *c, int n, int stride) {
  grp r;
  coll_group *g = &r.g;
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

int grp_build(const sc_scenario *s, grp_set *out, sc_error *err) {
  const sc_plan *p = &s->plan;
  const sc_cluster *c = &s->cluster;
  out->tp = make(c, p->tp, 1);
  out->cp = make(c, p->cp, p->tp);
  out->dp = make(c, p->dp * p->cp, p->tp); /* gradients reduce over dp x cp */
  out->ep = make(c, p->ep > 0 ? p->ep : 1, p->tp);
  /* neighbouring pipeline stages are tp*cp*dp ranks apart */
  int stride = p->tp * p->cp * p->dp;
  out->pp = make(c, p->pp > 1 ? 2 : 1, stride);
  out->sm_count = c->gpu.sm_count;
  return ncost_open(c, &out->net, err);
}

void grp_free(grp_set *gs) {
  ncost_close(gs->net);
  gs->net = NULL;
}

/* The GPU-stream time of a collective inside a training step: NCCL's
 * model without the per-call overhead nccl-tests adds (the engine charges
 * the host side of every call separately), raised to the flow engine's
 * time when a topology is named. */
double grp_cost(const grp_set *gs, const grp *g, coll_op op, double bytes,
                double *sm_share) {
  if (sm_share) *sm_share = 0;
  if (g->g.ranks <= 1 || bytes <= 0) return 0;
  coll_cost c = coll_nccl_time(op, bytes, &g->g);
  double t = c.time - c.launch;
  if (gs->net)
    t = ncost_time(gs->net, op, bytes, g->g.ranks, g->stride, g->g.ranks_per_node, t);
  if (sm_share && gs->sm_count > 0) {
    double share = (double)c.channels / gs->sm_count;
    *sm_share = share < 0.5 ? share : 0.5;
  }
  return t;
}

double grp_time(const grp_set *gs, const grp *g, coll_op op, double bytes) {
  return grp_cost(gs, g, op, bytes, NULL);
}
