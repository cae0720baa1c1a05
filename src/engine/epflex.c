/*
 * epflex.c -- the time of an MoE flex (DeepEP-style) dispatch or combine.
 *
 * The lowering (src/lower/moe_dispatch.c) gives the task the bytes one
 * GPU sends and the part of them that crosses nodes: each token once per
 * distinct remote node over the GPU's own NIC (to the GPU of the same
 * local index there), and over NVLink from the GPU it arrives at to each
 * distinct GPU of its experts in that node. DeepEP pipelines the two
 * (the NVLink forwarders consume what the network delivers, chunk by
 * chunk), so the slower decides:
 *
 *   t = max(t_a2a(nodes x 1, inter), t_a2a(per node, NVLink))
 *
 * each the all-to-all closed form (or the topology's flows) of a group
 * that moves exactly those bytes off every rank: one rank per node over
 * the nodes, and the ranks of one node. Its kernels hold
 * plan.moe_flex_sms SMs (Megatron moe_flex_dispatcher_num_sms), the
 * share compute beside it loses under plan.overlap_ep.
 */
#include "engine/engine.h"

double eng_flex_cost(const eng *e, const xg_task *t, int bwd, grp_share *share) {
  const grp *g = &e->grps[t->group];
  double bytes = xg_comm_bytes(t, bwd), inter = bytes * t->flex_inter, intra = bytes - inter;
  int n = g->g.ranks, per = g->g.ranks_per_node > 0 ? g->g.ranks_per_node : 1;
  int nodes = n / per;
  grp_share si = {0, 0}, sa = {0, 0};
  double ti = 0, ta = 0;
  if (nodes > 1 && inter > 0) {
    grp gi = *g; /* one rank in each node */
    gi.g.ranks = nodes;
    gi.g.ranks_per_node = 1;
    gi.stride = g->stride * per;
    ti = eng_coll_on(e, &gi, COLL_ALL_TO_ALL, inter * nodes / (nodes - 1), share ? &si : NULL);
  }
  if (per > 1 && intra > 0) {
    grp ga = *g; /* the ranks of one node */
    ga.g.ranks = per;
    ga.g.ranks_per_node = per;
    ta = eng_coll_on(e, &ga, COLL_ALL_TO_ALL, intra * per / (per - 1), share ? &sa : NULL);
  }
  if (share) {
    int sms = e->s->cluster.gpu.sm_count;
    double f = sms > 0 ? (double)e->s->plan.moe_flex_sms / sms : 0;
    share->sm = f < 1 ? f : 1;
    share->hbm = si.hbm > sa.hbm ? si.hbm : sa.hbm;
  }
  return ti > ta ? ti : ta;
}
