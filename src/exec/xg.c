/*
 * xg.c -- the execution graph container; see xg.h.
 */
#include "exec/xg.h"

#include <string.h>

#include "core/mem.h"
#include "core/vec.h"

void xg_init(xg *x) { memset(x, 0, sizeof *x); }

void xg_free(xg *x) {
  mem_free(x->tasks);
  mem_free(x->segs);
  mem_free(x->runs);
  mem_free(x->stages);
  mem_free(x->groups);
  xg_init(x);
}

void xg_reset(xg *x) {
  x->n_tasks = x->n_segs = x->n_runs = x->n_stages = x->n_groups = 0;
  x->micro_batches = x->vpp = 0;
  x->pp_group = -1;
  x->p2p_bytes = 0;
}

/* Append one element of `size` bytes to an array of the graph. */
static int push(void **arr, int *n, int *cap, const void *elem, size_t size) {
  if (*n >= *cap && vec_grow(arr, cap, (long)*n + 1, size)) return -1; /* no call when room */
  memcpy((char *)*arr + (size_t)*n * size, elem, size);
  return (*n)++;
}

int xg_add_task(xg *x, const xg_task *t) {
  return push((void **)&x->tasks, &x->n_tasks, &x->cap_tasks, t, sizeof *t);
}

coll_op xg_comm_op(const xg_task *t, int bwd) {
  if (!bwd) return t->coll;
  if (t->coll == COLL_ALL_GATHER) return COLL_REDUCE_SCATTER;
  if (t->coll == COLL_REDUCE_SCATTER) return COLL_ALL_GATHER;
  return t->coll;
}

double xg_comm_bytes(const xg_task *t, int bwd) {
  double f = t->comm_scale[bwd ? 1 : 0];
  return f > 0 ? t->bytes * f : t->bytes;
}

double xg_regather_bytes(const xg_task *t) {
  double f = t->comm_scale[2] > 0 ? t->comm_scale[2] : t->comm_scale[0];
  return f > 0 ? t->bytes * f : t->bytes;
}

int xg_add_segment(xg *x, const xg_segment *s) {
  return push((void **)&x->segs, &x->n_segs, &x->cap_segs, s, sizeof *s);
}

int xg_add_run(xg *x, int segment, int count) {
  xg_run r = {segment, count};
  return push((void **)&x->runs, &x->n_runs, &x->cap_runs, &r, sizeof r);
}

int xg_add_stage(xg *x, const xg_stage *s) {
  return push((void **)&x->stages, &x->n_stages, &x->cap_stages, s, sizeof *s);
}

int xg_add_group(xg *x, xg_group_kind kind, int ranks, int stride) {
  for (int i = 0; i < x->n_groups; i++)
    if (x->groups[i].kind == kind && x->groups[i].ranks == ranks && x->groups[i].stride == stride)
      return i;
  xg_group g = {kind, ranks, stride};
  return push((void **)&x->groups, &x->n_groups, &x->cap_groups, &g, sizeof g);
}

int xg_domain_gpus(const sc_cluster *c) {
  return c->nvlink_domain > 0 ? c->nvlink_domain : c->gpus_per_node;
}

int xg_per_domain(const sc_cluster *c, int ranks, int stride) {
  int per = xg_domain_gpus(c) / stride;
  if (per < 1) per = 1;
  if (per > ranks) per = ranks;
  while (per > 1 && ranks % per) per--; /* members per domain must divide ranks */
  return per;
}

const xg_group *xg_dp_group(const xg *x) {
  for (int i = 0; i < x->n_groups; i++)
    if (x->groups[i].kind == XG_GROUP_DP && x->groups[i].ranks > 1) return &x->groups[i];
  return NULL;
}
