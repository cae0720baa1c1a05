/*
 * moe_dispatch.c -- what an MoE token dispatcher sends; see
 * moe_dispatch.h and docs/model.md "MoE token dispatchers".
 */
#include "lower/moe_dispatch.h"

#include <assert.h>
#include <math.h>

#include "exec/xg.h"

/* log C(n, r) of whole n, r; -inf when r is out of 0..n. By the product
 * (r <= the routing groups), not lgamma, which writes the global signgam:
 * the search lowers plans on several threads. */
static double lchoose(int n, int r) {
  if (r < 0 || r > n) return -INFINITY;
  if (r > n - r) r = n - r;
  double s = 0;
  for (int i = 1; i <= r; i++) s += log((double)(n - r + i) / i);
  return s;
}

/* C(pool - away, k) / C(pool, k): the chance that k distinct experts drawn
 * from `pool` miss `away` given ones. */
static double miss(double pool, double away, int k) {
  double r = 1;
  for (int i = 0; i < k; i++) {
    double num = pool - away - i;
    if (num <= 0) return 0;
    r *= num / (pool - i);
  }
  return r;
}

int moed_aligned(int experts, int units, int groups) {
  if (groups <= 1) return 1;
  int s = experts / units, g = experts / groups;
  return s > 0 && g > 0 && (g % s == 0 || s % g == 0);
}

/* A unit of s experts holds, of the groups of g experts, q = s / g whole
 * groups (g < s) or lies inside one (g >= s: q = 1, x = s experts of it).
 * The number j of the unit's groups among the M chosen of G is
 * hypergeometric; given j, the pool of M g experts holds j x of the unit's,
 * and the token misses the unit with C(M g - j x, k) / C(M g, k). */
double moed_distinct(int experts, int units, int groups, int group_topk, int topk) {
  assert(experts > 0 && units > 0 && experts % units == 0 && topk >= 1);
  int G = groups, M = group_topk;
  if (G <= 0 || M <= 0) G = M = 1;
  assert(experts % G == 0 && M <= G && moed_aligned(experts, units, G));
  int s = experts / units, g = experts / G;
  int q = g >= s ? 1 : s / g, x = g >= s ? s : g;
  double pool = (double)M * g, missed = 0;
  assert(topk <= pool);
  for (int j = 0; j <= q && j <= M; j++) {
    double pj = exp(lchoose(q, j) + lchoose(G - q, M - j) - lchoose(G, M));
    missed += pj * miss(pool, (double)j * x, topk);
  }
  return units * (1 - missed);
}

int moed_per_node(const sc_cluster *c, int ep, int stride) {
  return xg_per_domain(c, ep, stride > 0 ? stride : 1);
}

/* With etp > 1 a token reaches every one of the etp GPUs of each expert-
 * parallel rank it picks, and a node holds per x etp GPUs of the group:
 * the nodes a token reaches do not change, the NVLink fan-out is etp x the
 * distinct ranks, (per etp - 1) / (per etp) of them not the arrival GPU. */
void moed_flex_fanout(const moed_in *in, double *inter, double *intra) {
  int n = in->ep, per = in->per_node, etp = in->etp > 1 ? in->etp : 1;
  assert(n >= 1 && per >= 1 && n % per == 0);
  int nodes = n / per, gpus = per * etp;
  *inter = nodes > 1 ? moed_distinct(in->experts, nodes, in->groups, in->group_topk, in->topk) *
                           (nodes - 1) / nodes
                     : 0;
  *intra = gpus > 1 ? moed_distinct(in->experts, n, in->groups, in->group_topk, in->topk) * etp *
                          (gpus - 1) / gpus
                    : 0;
}

moed_comm moed_shape(const moed_in *in) {
  moed_comm r = {COLL_ALL_TO_ALL, 0, 0, 0};
  switch (in->disp) {
  case SC_MOE_ALLGATHER:
    /* every rank's tokens to every rank (all-gather output), the outputs
     * reduce-scattered back (its input): ep x the rank's tokens; the
     * routing map and probabilities gathered beside them are not counted */
    r.op = in->combine ? COLL_REDUCE_SCATTER : COLL_ALL_GATHER;
    r.bytes = in->tok_bytes * in->ep * (in->etp > 1 ? in->etp : 1);
    break;
  case SC_MOE_FLEX: {
    double fi, fa;
    moed_flex_fanout(in, &fi, &fa);
    r.flex = 1;
    r.bytes = in->tok_bytes * (fi + fa) * in->cf;
    r.inter_frac = fi + fa > 0 ? fi / (fi + fa) : 0;
    break;
  }
  case SC_MOE_ALLTOALL:
  default:
    r.bytes = in->tok_bytes * in->topk * in->cf; /* every (token, expert) pair */
    break;
  }
  return r;
}
