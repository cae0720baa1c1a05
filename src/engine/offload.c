/*
 * offload.c -- activation offloading's copies on the compute stream's
 * clock; see offload.h.
 */
#include "engine/offload.h"

#include "cost/hostlink.h"

/* 1 for a segment whose activations offloading moves: a layer. */
static int offloadable(const xg_segment *sg) {
  return sg->block >= 0 && sg->role == WG_ROLE_LAYER;
}

double offl_copy(const eng *e, const xg_segment *sg) {
  return offloadable(sg) ? sg->act_bytes / hostlink_bw(&e->s->cluster) : 0;
}

int offl_count(const eng *e, const xg_stage *st, int j) {
  int left = e->s->plan.offload_layers;
  for (int k = 0; k <= j && left > 0; k++) {
    const xg_run *r = &e->x->runs[st->first_run + k];
    if (!offloadable(&e->x->segs[r->segment])) continue;
    int n = r->count < left ? r->count : left;
    if (k == j) return n;
    left -= n;
  }
  return 0;
}

eng_qsum offl_wait(const eng_qsum *q, double copy) {
  eng_qsum w = *q;
  if (copy - q->host > w.m) w.m = copy - q->host;
  return w;
}

const eng_qsum *offl_queue(const eng *e, const xg_stage *st, int j, int i, int bwd,
                           eng_qsum *tmp) {
  const xg_run *r = &e->x->runs[st->first_run + j];
  const eng_qsum *q = &e->qs[2 * r->segment + bwd];
  if (e->s->plan.offload_layers <= 0 || i >= offl_count(e, st, j)) return q;
  *tmp = offl_wait(q, offl_copy(e, &e->x->segs[r->segment]));
  return tmp;
}
