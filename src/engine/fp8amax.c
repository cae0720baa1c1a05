/*
 * fp8amax.c -- delayed scaling's amax reductions; see fp8amax.h.
 */
#include "engine/fp8amax.h"

#include "cost/compute.h"

/* fp8 tensors of stage st whose amaxes one pass reduces, over all its
 * chunks: per fp8 GEMM (a task computing in fp8; an MoE expert GEMM is
 * one per local expert, `batch`: TE's GroupedLinear keeps each GEMM's
 * meta) 3 forward, 2 backward (TE's fp8_meta scaling_fwd / scaling_bwd). */
static double fp8_tensors(const eng *e, const xg_stage *st, int bwd) {
  const xg *x = e->x;
  double gemms = 0;
  for (int j = 0; j < st->n_runs; j++) {
    const xg_run *r = &x->runs[st->first_run + j];
    const xg_segment *sg = &x->segs[r->segment];
    double per = 0;
    for (int i = sg->first_task; i < sg->first_task + sg->n_tasks; i++)
      if (x->tasks[i].kind == XG_GEMM && x->tasks[i].dtype == SC_FP8) per += x->tasks[i].batch;
    gemms += r->count * per;
  }
  return (bwd ? 2.0 : 3.0) * gemms;
}

/* The host's side of one reduction, as of any collective call on the
 * compute stream (analytic.c eng_task_host): the torch.distributed call
 * in an eager framework, a graph node's launch under CUDA graphs. */
static double call_host(const eng *e) {
  const sc_gpu *g = &e->s->cluster.gpu;
  if (e->s->plan.cuda_graphs) return cost_graph_launch(g);
  return cost_launch(g) + cost_coll_host(g);
}

amax_red amax_of(const eng *e, int s, int bwd) {
  amax_red r = {0, 0, 0, 0};
  const sc_plan *p = &e->s->plan;
  /* Transformer Engine's PyTorch autocast: an eager framework's (a
   * compiled step, XLA's, keeps its own amaxes: not modelled) */
  if (p->dtype != SC_FP8 || p->fp8_recipe != SC_FP8_DELAYED || !p->framework_eager) return r;
  const xg *x = e->x;
  double n = fp8_tensors(e, &x->stages[s], bwd);
  if (n <= 0) return r;
  /* one autocast region per model chunk (a chunk's share of the stage's
   * fp8 tensors); the group: every rank of the stage, consecutive */
  int pp = p->pp > 0 ? p->pp : 1;
  xg_group g = {XG_GROUP_MP, e->s->cluster.gpus / pp, 1};
  if (g.ranks <= 1) return r; /* TE reduces only over more than one rank */
  r.n = x->vpp > 1 ? x->vpp : 1;
  r.bytes = 4.0 * n / r.n;
  grp gg = grp_make(&e->s->cluster, &g);
  r.gpu = eng_coll_on(e, &gg, COLL_ALL_REDUCE, r.bytes, NULL);
  r.host = call_host(e);
  return r;
}
