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

void eng_flex_legs(const grp *g, double bytes, double inter, eng_flex_leg leg[2]) {
  double over = bytes * inter, intra = bytes - over;
  int n = g->g.ranks, per = g->g.ranks_per_node > 0 ? g->g.ranks_per_node : 1;
  int nodes = n / per;
  leg[0] = leg[1] = (eng_flex_leg){*g, 0};
  if (nodes > 1 && over > 0) { /* one rank in each node */
    leg[0].g.g.ranks = nodes;
    leg[0].g.g.ranks_per_node = 1;
    leg[0].g.stride = g->stride * per;
    leg[0].bytes = over * nodes / (nodes - 1);
  }
  if (per > 1 && intra > 0) { /* the ranks of one node */
    leg[1].g.g.ranks = per;
    leg[1].g.g.ranks_per_node = per;
    leg[1].bytes = intra * per / (per - 1);
  }
}

double eng_flex_on(const eng *e, const grp *g, double bytes, double inter, grp_share *share) {
  eng_flex_leg leg[2];
  eng_flex_legs(g, bytes, inter, leg);
  grp_share sh[2] = {{0, 0}, {0, 0}};
  double t[2] = {0, 0};
  for (int i = 0; i < 2; i++)
    if (leg[i].bytes > 0)
      t[i] = eng_coll_on(e, &leg[i].g, COLL_ALL_TO_ALL, leg[i].bytes, share ? &sh[i] : NULL);
  if (share) {
    int sms = e->s->cluster.gpu.sm_count;
    double f = sms > 0 ? (double)e->s->plan.moe_flex_sms / sms : 0;
    share->sm = f < 1 ? f : 1;
    share->hbm = sh[0].hbm > sh[1].hbm ? sh[0].hbm : sh[1].hbm;
  }
  return t[0] > t[1] ? t[0] : t[1];
}

double eng_flex_cost(const eng *e, const xg_task *t, int bwd, grp_share *share) {
  return eng_flex_on(e, &e->grps[t->group], xg_comm_bytes(t, bwd), t->flex_inter, share);
}
