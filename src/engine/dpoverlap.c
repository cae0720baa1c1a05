/*
 * dpoverlap.c -- the closed form of the gradient reduction's overlap with
 * the last backward, as Megatron-Core's DDP runs it (the event engine
 * simulates the same buckets one by one: evbucket.c).
 *
 * Buckets of max(40M, 1M x dp x cp) parameters in backward order
 * (distributed_data_parallel.py), closed at a layer's boundary; gradient
 * sync is on for the last micro-batch only, and a bucket is reduced as
 * soon as its last gradient is complete, one after another on the DP
 * stream. The closed form runs that chain as the event engine does
 * (evbucket.c), with the same bucket size and chain (ddpbucket.c): a
 * bucket leaves when the backward of the layer that completes it ends
 * (each layer taking its backward queue's wall time: its GPU time, or
 * the host's where it issues slower, from the clocks' gap the forward
 * left),
 * takes red x its share of the parameters, and starts when it has left
 * and the bucket before it is done; while buckets run beside the
 * backward, the backward slows by `share` (grp_slow) x the overlap, so
 * later buckets leave later by the slowdown so far. Exposed: what runs
 * past the slowed backward's end, or that slowdown, whichever is larger
 * -- the last bucket plus the slowdown when the chain keeps up.
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
 * each takes red / vpp, one after another, as a chain of buckets
 * (above); for a stage s > 0, less the drain after its last backward
 * (the stages before it: b / vpp and a send/recv each), as for one
 * chunk. The drain's waits between those passes are not counted (the
 * event engine sees them: more hidden there).
 */
#include <math.h>

#include "engine/ddpbucket.h"
#include "engine/engine.h"
#include "engine/offload.h"

/* Wall seconds of the backward of instance i (forward order) of run j
 * of stage st (recomputation included) from a GPU clock *d s ahead of
 * the host's (updated): its GPU time, or longer where the host issues it
 * slower (launch-bound layers), or its offload copy's (offload.h), as
 * the event engine's stream runs it. */
static double bwd_time(const eng *e, const xg_stage *st, int j, int i, double *d) {
  eng_qsum w;
  return eng_qsum_wall(offl_queue(e, st, j, i, 1, &w), 1, d);
}

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
  double size = ddpb_size((p->dp > 0 ? p->dp : 1) * (double)(p->cp > 0 ? p->cp : 1));
  /* the backward's wall time, the offload copies' waits included */
  ddpb_chain c = ddpb_chain_new(e->st[s].b, share);
  double acc = 0, tau = 0, n, d = e->st[s].bwd_lead;
  for (int j = st->n_runs - 1; j >= 0; j--) { /* backward order */
    const xg_run *r = &x->runs[st->first_run + j];
    const xg_segment *sg = &x->segs[r->segment];
    double lp = sg->block < 0 || sg->zero >= 3 ? 0 : xg_seg_params(sg, s);
    for (int k = 0; k < r->count; k++) {
      tau += bwd_time(e, st, j, r->count - 1 - k, &d);
      if (lp > 0 && (n = ddpb_fill(&acc, lp, size)) > 0) ddpb_add(&c, tau, red * n / params);
    }
  }
  if (acc > 0) ddpb_add(&c, c.end, red * acc / params);
  double ex = ddpb_exposed(&c);
  return ex < red + c.d ? ex : red + c.d;
}

double eng_dp_overlap_chunks(const eng *e, int s, double red, double share, double p2p) {
  int V = e->x->vpp, pp = e->s->plan.pp;
  if (red <= 0) return 0;
  double drain = 0; /* stage s's last backward ends before the first stage's */
  for (int j = 0; j < s; j++) drain += e->st[j].b / V + p2p;
  double bc = e->st[s].b / V, span = (V - 1) * pp * bc; /* from chunk V-1's launch */
  ddpb_chain c = ddpb_chain_new(span, share);
  for (int k = V - 1; k >= 0; k--) { /* the order they leave in */
    double left = k > 0 ? span - (k * pp - s) * bc : span;
    ddpb_add(&c, left < span ? left : span, red / V);
  }
  double ex = ddpb_exposed(&c) - drain;
  return ex > 0 ? ex : 0;
}
