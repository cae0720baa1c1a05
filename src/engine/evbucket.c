/*
 * evbucket.c -- the event engine's data-parallel gradient reduction,
 * bucket by bucket beside the last backward (overlap_grad_reduce).
 *
 * Megatron-Core's DDP (distributed_data_parallel.py, param_and_grad_buffer.py)
 * lays the gradients out in buckets in backward order, of
 * max(40M, 1M x dp x cp) parameters each when overlap_grad_reduce is on;
 * gradient sync is enabled for the last micro-batch only, and during its
 * backward a bucket's all-reduce (ZeRO 0) or reduce-scatter (distributed
 * optimizer) is issued on the data-parallel stream as soon as its last
 * gradient is complete. The collectives run one after another on that
 * stream, beside the rest of the backward, and finish_grad_sync waits for
 * them before the optimizer. With pipeline parallelism Megatron-LM sets
 * grad_sync_func (training.py, align_grad_reduce, on by default), and
 * then only the first stage overlaps its buckets with its last backward
 * (schedules.py: grad_sync_first_stage); the other stages launch every
 * bucket when their cool-down ends (during the pipeline's drain on the
 * stages before them). Here a bucket closes at a layer's boundary
 * once it holds at least the bucket size (layer granularity), and leaves
 * when that layer's backward ends on the compute stream; it starts when
 * it has left on every replica of the stage (a collective) and the bucket
 * before it is done, and takes the stage's reduction time (the step
 * model's collectives, each data-parallel group alone, x the factor of
 * every group at once on a topology) times its share of the parameters.
 * While buckets run beside the backward, the backward slows by the share
 * NCCL takes from it (grp_slow) x the overlapped time (as event.h's
 * ev_overlap), so the buckets it completes later leave later by the
 * slowdown so far: what runs past the last replica's backward (itself
 * later by the whole slowdown) is the reduction's exposed time -- the
 * last bucket plus the slowdown when the chain keeps up, the chain's
 * backlog when it does not. The parameter gathers of ZeRO 1/2 and ZeRO-3's traffic
 * stay as the closed form exposes them, each stage's own (dp_tail, after
 * its buckets).
 *
 * Interleaved (vpp > 1): Megatron-LM's grad_sync_func is per model chunk
 * (schedules.py, forward_backward_pipelining_with_interleaving,
 * backward_step_helper_postprocess): after backward virtual micro-batch v
 * a stage of pipeline rank r launches the whole gradient sync of the
 * chunk whose last micro-batch was backward v - r ("launched at the same
 * time across the pipeline-parallel group"), and the chunks not launched
 * by then after its cool-down. Here each chunk is one bucket of 1/vpp of
 * the stage's reduction (a chunk is 1/vpp of the stage), leaving at the
 * end of that backward pass and running beside the other chunks' passes
 * and sends; the chain, the slowdown and the exposed part as above.
 */

#include "core/mem.h"
#include "engine/ddpbucket.h"
#include "engine/evint.h"

/* The buckets of backward template tp: where each closes and how long
 * it runs. 0 or -1. */
static int plan_tmpl(ev_ctx *c, ev_tmpl *tp, double size, double red, double params) {
  int n = 0;
  double acc = 0, b;
  for (int i = 0; i < tp->n; i++) /* count first: arrays sized once */
    if (tp->t[i].grads > 0 && ddpb_fill(&acc, tp->t[i].grads, size) > 0) n++;
  n += acc > 0;
  tp->bk_task = mem_alloc(sizeof *tp->bk_task * (size_t)(n > 0 ? n : 1));
  tp->bk_dur = mem_alloc(sizeof *tp->bk_dur * (size_t)(n > 0 ? n : 1));
  if (!tp->bk_task || !tp->bk_dur) return -1;
  tp->nbk = 0;
  acc = 0;
  for (int i = 0; i < tp->n; i++) {
    if (tp->t[i].grads <= 0 || (b = ddpb_fill(&acc, tp->t[i].grads, size)) <= 0) continue;
    tp->bk_task[tp->nbk] = i;
    tp->bk_dur[tp->nbk++] = red * b / params * c->dp_factor;
  }
  if (acc > 0) {
    tp->bk_task[tp->nbk] = tp->n;
    tp->bk_dur[tp->nbk++] = red * acc / params * c->dp_factor;
  }
  return 0;
}

/* Stage s's chunk launches: bucket k (chunk vpp - 1 - k) leaves after
 * the backward pass numbered last(k) + s among the stage's backward
 * passes, last(k) the number of the chunk's last backward, or after the
 * last backward; into c->chunk_at as positions in the stage's order. */
static void chunk_launches(ev_ctx *c, int s) {
  int V = c->vpp, *at = c->chunk_at + (long)s * V, nb = 0;
  const pipe_pass *o = c->order + c->per * s;
  for (int i = 0; i < c->count[s]; i++)
    if (o[i].kind == 'B') at[V - 1 - o[i].chunk] = nb++;
  for (int k = 0; k < V; k++) at[k] = at[k] + s < nb ? at[k] + s : nb - 1;
  for (int i = 0, b = 0; i < c->count[s]; i++) { /* backward number -> position, as -(pos+1) */
    if (o[i].kind != 'B') continue;
    for (int k = 0; k < V; k++)
      if (at[k] == b) at[k] = -(i + 1);
    b++;
  }
  for (int k = 0; k < V; k++) at[k] = -at[k] - 1;
}

/* The interleaved schedule's buckets: one per model chunk. 0 or -1. */
static int plan_chunks(ev_ctx *c, int worst) {
  const eng *e = c->e;
  c->chunk_at = mem_alloc(sizeof *c->chunk_at * (size_t)c->S * (size_t)c->vpp);
  c->chunk_dur = mem_calloc((size_t)c->S, sizeof *c->chunk_dur);
  if (!c->chunk_at || !c->chunk_dur) return -1;
  for (int s = 0; s < c->S; s++) {
    eng_dpred ds;
    eng_dp_reduction(e, s, worst, &ds);
    c->dp_share[s] = ds.share;
    c->chunk_dur[s] = ds.red / c->vpp * c->dp_factor;
    chunk_launches(c, s);
  }
  c->nb = c->vpp;
  c->chunks = c->buckets = 1;
  return 0;
}

void ev_chunks_issue(ev_ctx *c, int cls, int s, int pos, double end) {
  const int *at = c->chunk_at + (long)s * c->vpp;
  for (int k = 0; k < c->vpp; k++)
    if (at[k] == pos) c->issue[(long)cls * c->nb + k] = end;
}

int ev_buckets_plan(ev_ctx *c) {
  const eng *e = c->e;
  const sc_plan *p = &e->s->plan;
  c->buckets = c->chunks = 0;
  c->nb = 0;
  /* a schedule that splits its backwards: the closed form's exposed
   * reduction after the last pass (analytic.c red_exposed_stage) */
  if (!p->overlap_grad_reduce || pipe_for(p->schedule)->splits) return 0;
  eng_step k;
  eng_step_of(e, &k);
  eng_dpred dd;
  eng_dp_reduction(e, k.dp_stage, k.worst, &dd);
  if (dd.red <= 0 || dd.params <= 0) return 0;
  c->dp_share = mem_calloc((size_t)c->S, sizeof *c->dp_share);
  c->dp_tail = mem_calloc((size_t)c->S, sizeof *c->dp_tail);
  if (!c->dp_share || !c->dp_tail) return -1;
  /* what the closed form exposes beyond each stage's overlapped
   * reduction: its own gathers (a stage's tail with another's buckets
   * would pair what no stage runs) */
  for (int s = 0; s < c->S; s++) {
    eng_dpred ds;
    eng_dp_reduction(e, s, k.worst, &ds);
    double t = eng_dp_exposed_stage(e, s, k.worst) - ds.exposed;
    c->dp_tail[s] = (t > 0 ? t : 0) + (c->o->dp_tail_extra > 0 ? c->o->dp_tail_extra : 0);
  }
  if (c->vpp > 1) return plan_chunks(c, k.worst); /* one bucket per model chunk */
  double size = ddpb_size((p->dp > 0 ? p->dp : 1) * (double)(p->cp > 0 ? p->cp : 1));
  for (int s = 0; s < c->S; s++) {
    ev_tmpl *tp = &c->tm[2 * s + 1];
    eng_dpred ds;
    eng_dp_reduction(e, s, k.worst, &ds);
    c->dp_share[s] = ds.share;
    if (tp->shared) continue; /* planned with its source stage */
    if (ds.red > 0 && ds.params > 0 && plan_tmpl(c, tp, size, ds.red, ds.params)) return -1;
  }
  for (int s = 0; s < c->S; s++) {
    ev_tmpl *src = &c->tm[2 * (e->x->stages[s].same_as >= 0 ? e->x->stages[s].same_as : s) + 1];
    c->tm[2 * s + 1].bk_task = src->bk_task; /* shared templates: the source's plan */
    c->tm[2 * s + 1].bk_dur = src->bk_dur;
    c->tm[2 * s + 1].nbk = src->nbk;
    if (src->nbk > c->nb) c->nb = src->nbk;
  }
  c->buckets = c->nb > 0;
  return 0;
}

void ev_buckets_reduce(ev_ctx *c, int s, double t) {
  const ev_tmpl *tp = &c->tm[2 * s + 1];
  int nbk = c->chunks ? c->vpp : tp->nbk;
  ddpb_chain ch = ddpb_chain_new(t, c->dp_share[s]);
  for (int k = 0; k < nbk; k++) {
    double left = 0; /* it has left on every replica */
    for (int r = 0; r < c->R; r++) {
      double x = c->issue[(long)(r * c->S + s) * c->nb + k];
      if (x > left) left = x;
    }
    double dur = c->chunks ? c->chunk_dur[s] : tp->bk_dur[k], start = ddpb_add(&ch, left, dur);
    double stop = start + dur;
    for (int r = 0; c->out_spans && r < c->R; r++)
      if (c->out->n_spans < c->cap_spans)
        c->out->spans[c->out->n_spans++] =
            (ev_span){r * c->S + s, EV_DP, c->dp_name, -1, 'D', start, stop - start};
  }
  c->dpx[s] = ddpb_exposed(&ch) + c->dp_tail[s];
}
