/*
 * evlinks.c -- the links a pipeline pass's collectives share with other
 * traffic (see evint.h ev_pass_links).
 *
 * A pass of stage s runs its tensor-, context-, expert-parallel and
 * re-layout collectives for every group of the stage at once; on a
 * topology they move bytes over links the stage-boundary sends, the
 * stages' gradient reductions or other stages' collectives may also
 * cross (an expert all-to-all and a pipeline send on one NIC or uplink).
 * The loop runs such a pass as an activity of the link-sharing set
 * (evshare.h) whose demand is those bytes spread over the pass, and
 * whose collective part (its share of the pass's time) slows with its
 * links. Links only the stage's own passes use are left out: alone, a
 * pass's collectives already take their time (all groups of the kind at
 * once, ev_opts.comm_factor), so a pass that shares no link with other
 * traffic stays a fixed-length event.
 */
#include <string.h>

#include "core/mem.h"
#include "engine/evint.h"

/* A link used by demand d counts one more user (once per `who`). */
static void count(const evs_demand *d, int who, int *cnt, int *mark) {
  for (int k = 0; d && k < d->n; k++)
    if (mark[d->link[k]] != who) mark[d->link[k]] = who, cnt[d->link[k]]++;
}

/* The bytes of template tp's collectives, one model chunk, on stage s's
 * links into acc; the links touched into mark (stamp who). */
static void gather(ev_ctx *c, const ev_tmpl *tp, int s, double *acc, int *cnt, int *mark,
                   int who) {
  const ev_opts *o = c->o;
  for (int i = 0; i < tp->n; i++) {
    const ev_task *q = &tp->t[i];
    if (q->bytes <= 0 || q->group < 0 || q->stream == EV_PP || q->stream == EV_DP) continue;
    const evs_demand *d = o->comm_links(o->comm_ud, q->group, q->op, q->bytes, q->flex, s);
    for (int k = 0; d && k < d->n; k++) acc[d->link[k]] += d->rate[k] * c->scale;
    count(d, who, cnt, mark);
    if (q->regather_bytes <= 0) continue; /* a sequence-parallel gather again */
    d = o->comm_links(o->comm_ud, q->group, COLL_ALL_GATHER, q->regather_bytes, -1, s);
    for (int k = 0; d && k < d->n; k++) acc[d->link[k]] += d->rate[k] * c->scale;
    count(d, who, cnt, mark);
  }
}

/* acc's non-zero links into d (sparse, bytes); acc cleared. 0 or -1. */
static int take(double *acc, int n_links, evs_demand *d) {
  int n = 0;
  for (int l = 0; l < n_links; l++) n += acc[l] > 0;
  if (n == 0) return 0;
  d->link = mem_alloc(sizeof *d->link * (size_t)n);
  d->rate = mem_alloc(sizeof *d->rate * (size_t)n);
  if (!d->link || !d->rate) return -1;
  for (int l = 0; l < n_links; l++)
    if (acc[l] > 0) d->link[d->n] = l, d->rate[d->n++] = acc[l], acc[l] = 0;
  return 0;
}

/* Keep only d's links that another user shares (cnt >= 2). */
static void keep_shared(evs_demand *d, const int *cnt) {
  int n = 0;
  for (int k = 0; k < d->n; k++)
    if (cnt[d->link[k]] >= 2) d->link[n] = d->link[k], d->rate[n++] = d->rate[k];
  d->n = n;
}

int ev_pass_links(ev_ctx *c) {
  const ev_opts *o = c->o;
  c->pdem = NULL;
  if (!o->link_bw || o->n_links <= 0 || !o->comm_links) return 0;
  int L = o->n_links, S = c->S, rc = 0;
  double *acc = mem_calloc((size_t)L, sizeof *acc);
  int *cnt = mem_calloc((size_t)L, sizeof *cnt), *mark = mem_alloc(sizeof *mark * (size_t)L);
  c->pdem = mem_calloc((size_t)2 * S, sizeof *c->pdem);
  if (!acc || !cnt || !mark || !c->pdem) rc = -1;
  for (int l = 0; rc == 0 && l < L; l++) mark[l] = -1;
  /* users: each stage's passes (forward and backward together), each
   * boundary's sends each way, each stage's reduction */
  for (int s = 0; rc == 0 && s < S; s++)
    for (int b = 0; rc == 0 && b < 2; b++) {
      gather(c, &c->tm[2 * s + b], s, acc, cnt, mark, s);
      rc = take(acc, L, &c->pdem[2 * s + b]);
    }
  int who = S;
  for (int b = 0; rc == 0 && b < S - 1; b++) {
    if (o->pp_fwd) count(&o->pp_fwd[b], who++, cnt, mark);
    if (o->pp_bwd) count(&o->pp_bwd[b], who++, cnt, mark);
  }
  for (int s = 0; rc == 0 && o->dp_dem && s < S; s++) count(&o->dp_dem[s], who++, cnt, mark);
  for (int i = 0; rc == 0 && i < 2 * S; i++) keep_shared(&c->pdem[i], cnt);
  mem_free(acc), mem_free(cnt), mem_free(mark);
  return rc;
}

void ev_pass_links_free(ev_ctx *c) {
  for (int i = 0; c->pdem && i < 2 * c->S; i++) evs_demand_free(&c->pdem[i]);
  mem_free(c->pdem);
  c->pdem = NULL;
}
