/*
 * allreduce_tree.c -- double binary tree all-reduce (NCCL's tree): two
 * binary trees over the ranks, the second the mirror of the first, each
 * carrying half the buffer; reduce up both trees level by level, then
 * broadcast down. Not pipelined here (one chunk per level), so the
 * closed form is 2 depth (alpha + bytes/(2 bw)) when a parent's two
 * children share its link: an upper estimate on a switch.
 */
#include "coll/sched.h"

/* Depth of node i in the heap-shaped binary tree (root 0). */
static int depth_of(int i) {
  int d = 0;
  while (i > 0) i = (i - 1) / 2, d++;
  return d;
}

static int build(sched *s, const sched_params *p) {
  int n = p->n, depth = depth_of(n - 1);
  double half = p->bytes / 2;
  for (int lv = depth; lv >= 1; lv--) { /* reduce: level lv sends to parents */
    if (sched_begin(s, 1)) return -1;
    for (int i = 1; i < n; i++)
      if (depth_of(i) == lv) {
        int par = (i - 1) / 2;
        if (sched_add(s, i, par, half)) return -1;                      /* tree 1 */
        if (sched_add(s, n - 1 - i, n - 1 - par, half)) return -1;      /* mirror */
      }
  }
  for (int lv = 1; lv <= depth; lv++) { /* broadcast back down */
    if (sched_begin(s, 1)) return -1;
    for (int i = 1; i < n; i++)
      if (depth_of(i) == lv) {
        int par = (i - 1) / 2;
        if (sched_add(s, par, i, half)) return -1;
        if (sched_add(s, n - 1 - par, n - 1 - i, half)) return -1;
      }
  }
  return 0;
}

static double closed(const sched_params *p) {
  int depth = depth_of(p->n - 1);
  return 2.0 * depth * (p->alpha + p->bytes / p->bw);
}

const coll_alg coll_alg_allreduce_tree = {"tree", COLL_ALL_REDUCE, build, closed, 0, 0};
