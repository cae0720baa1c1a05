/*
 * dpoverlap.c -- the closed form of the gradient reduction's overlap with
 * the last backward, as Megatron-Core's DDP runs it (the event engine
 * simulates the same buckets one by one: evbucket.c).
 *
 * Buckets of max(40M, 1M x dp x cp) parameters in backward order
 * (distributed_data_parallel.py), closed at a layer's boundary; gradient
 * sync is on for the last micro-batch only, and a bucket is reduced as
 * soon as its last gradient is complete, one after another on the DP
 * stream. With buckets of r s each leaving every q b s of the stage's
 * backward b, the chain keeps up when r <= q b and only the last bucket
 * is exposed; otherwise the reduction, started after the first bucket,
 * runs past the backward by red - (1 - q) b. Exposed: e = max(last
 * bucket, red - (1 - q) b), and the backward slows by NCCL's SM share x
 * the reduction beside it, red - e, of which what exceeds e shows.
 *
 * With pipeline parallelism Megatron-LM overlaps only the first stage's
 * buckets with its backward (align_grad_reduce: grad_sync_func, training.py;
 * schedules.py grad_sync_first_stage); stage s > 0 launches all of them
 * after its cool-down, while the stages before it drain: each of them
 * runs its last backward after the previous one's gradients arrive, so
 * stage s has sum over j < s of (b_j + one send/recv) before stage 0 ends.
 *
 * Interleaved (vpp > 1), as the event engine runs it (evbucket.c):
 * Megatron-LM launches each model chunk's gradient sync after backward
 * virtual micro-batch v + r, v the chunk's last backward and r the
 * pipeline rank (schedules.py backward_step_helper_postprocess). In the
 * interleaved order the last backward of chunk c comes c pp backward
 * passes before the stage's last, so chunk c >= 1 leaves (c pp - r)
 * chunk backwards (b / vpp each) before the end and chunk 0 at the end;
 * each takes red / vpp, one after another. Exposed: what runs past the
 * end, or the backward's slowdown beside them (share x the overlap),
 * whichever is larger; for a stage s > 0, less the drain after its last
 * backward (the stages before it: b / vpp and a send/recv each), as for
 * one chunk. The drain's waits between those passes are not counted (the
 * event engine sees them: more hidden there).
 */
#include <math.h>

#include "engine/engine.h"

/* distributed_data_parallel.py: max(40,000,000, 1,000,000 x dp) */
#define DPO_MIN_PARAMS 40e6
#define DPO_PER_RANK 1e6

double eng_dp_overlap(const eng *e, int s, double red, double params, double share,
                      double p2p) {
  const sc_plan *p = &e->s->plan;
  if (red <= 0 || params <= 0) return 0;
  if (p->pp > 1 && s > 0) { /* launched after the cool-down, beside the drain */
    double drain = 0;
    for (int j = 0; j < s; j++) drain += e->st[j].b + p2p;
    return red > drain ? red - drain : 0;
  }
  const xg *x = e->x;
  const xg_stage *st = &x->stages[s];
  double size = fmax(DPO_MIN_PARAMS, DPO_PER_RANK * (p->dp > 0 ? p->dp : 1) *
                                         (double)(p->cp > 0 ? p->cp : 1));
  double acc = 0, cum = 0, first = -1, last = 0;
  for (int j = st->n_runs - 1; j >= 0; j--) { /* backward order */
    const xg_run *r = &x->runs[st->first_run + j];
    const xg_segment *sg = &x->segs[r->segment];
    if (sg->block < 0 || sg->zero >= 3) continue;
    double lp = sg->params + (s > 0 ? sg->tied_params : 0);
    for (int k = 0; k < r->count && lp > 0; k++) {
      acc += lp, cum += lp;
      if (acc < size) continue;
      if (first < 0) first = cum;
      last = acc, acc = 0;
    }
  }
  if (acc > 0) last = acc;
  double q = first > 0 ? first / params : 1, b = e->st[s].b;
  double ex = fmax(red * last / params, red - (1 - q) * b);
  if (ex > red) ex = red;
  double slow = share * (red - ex);
  return ex > slow ? ex : slow;
}

double eng_dp_overlap_chunks(const eng *e, int s, double red, double share, double p2p) {
  int V = e->x->vpp, pp = e->s->plan.pp;
  if (red <= 0) return 0;
  double drain = 0; /* stage s's last backward ends before the first stage's */
  for (int j = 0; j < s; j++) drain += e->st[j].b / V + p2p;
  double r = red / V, bc = e->st[s].b / V, prev = -INFINITY, ov = 0;
  for (int c = V - 1; c >= 0; c--) { /* the order they leave in */
    double left = c > 0 ? -(c * pp - s) * bc : 0; /* s, the end of the backward at 0 */
    if (left > 0) left = 0;
    double start = left > prev ? left : prev;
    prev = start + r;
    if (start < 0) ov += (prev < 0 ? prev : 0) - start;
  }
  double slowed = share * ov, ex = (prev > slowed ? prev : slowed) - drain;
  return ex > 0 ? ex : 0;
}
