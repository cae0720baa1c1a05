/*
 * evshare.c -- activities sharing the links of a topology; see evshare.h.
 */
#include "engine/evshare.h"

#include <assert.h>
#include <string.h>

#include "core/mem.h"

void evs_demand_free(evs_demand *d) {
  mem_free(d->link), mem_free(d->rate);
  memset(d, 0, sizeof *d);
}

int evs_init(evs *s, int cap, int n_links, const double *bw) {
  memset(s, 0, sizeof *s);
  /* evhot.h's bound holds for up to 10^6 terms on a link (one a running
   * activity: a demand names each link once) */
  assert(cap < 1000000 && "activity set too large for evhot.h's margin");
  s->a = mem_alloc(sizeof *s->a * (size_t)(cap > 0 ? cap : 1));
  size_t nl = (size_t)(n_links > 0 ? n_links : 1);
  s->tot = bw ? mem_calloc(nl, sizeof *s->tot) : NULL;
  s->slope = bw ? mem_calloc(nl, sizeof *s->slope) : NULL;
  s->first = mem_alloc(sizeof *s->first * (size_t)(cap > 0 ? cap : 1));
  if (!s->a || !s->first || (bw && (!s->tot || !s->slope || evh_init(&s->hot, n_links, bw) ||
                                 evl_init(&s->live, cap, n_links)))) {
    evs_free(s);
    return -1;
  }
  for (int b = 0; b < cap; b++) s->first[b] = -1;
  s->cap = cap, s->bw = bw;
  return 0;
}

void evs_free(evs *s) {
  mem_free(s->a), mem_free(s->tot), mem_free(s->slope), mem_free(s->first);
  evh_free(&s->hot), evl_free(&s->live);
  memset(s, 0, sizeof *s);
}

/* Into tot[] the load of every link an activity with a demand crosses,
 * the unfrozen ones at speed t (the frozen at theirs); 1 if one of them
 * is over its bandwidth. */
static int totals(evs *s, double t) {
  int over = 0;
  for (int i = 0; i < s->n; i++)
    for (int k = 0; s->a[i].d && k < s->a[i].d->n; k++) s->tot[s->a[i].d->link[k]] = 0;
  for (int i = 0; i < s->n; i++) {
    const evs_act *a = &s->a[i], *m = a->mate >= 0 && a->mate < i ? &s->a[a->mate] : NULL;
    double p = evs_pace(a->q, a->frozen ? a->x : t);
    double pm = m ? evs_pace(m->q, m->frozen ? m->x : t) : 0;
    int km = 0;
    for (int k = 0; a->d && k < a->d->n; k++)
      s->tot[a->d->link[k]] += evs_term(a, k, p, m, pm, &km);
  }
  for (int i = 0; i < s->n && !over; i++)
    for (int k = 0; s->a[i].d && k < s->a[i].d->n; k++) {
      int l = s->a[i].d->link[k];
      over |= s->tot[l] > s->bw[l] * (1 + 1e-12);
    }
  return over;
}

/* The highest common speed t <= 1 of the unfrozen activities at which
 * no link is over its bandwidth. Loads are linear in t while every
 * unfrozen activity is all transfer (q = 1): then exact; else bisected.
 * Only a hot link can be over (evhot.h): none, then 1; `few`: the hot
 * links' terms are gathered, their sums alone give the same answers
 * (evlive.h); else every link is summed. */
static double level(evs *s, int few) {
  if (!s->hot.hot) return 1; /* no link near full: what the sums would say */
  int lin = 1; /* (a batch's pair loads a link by the larger: not linear) */
  for (int i = 0; i < s->n; i++) lin &= (s->a[i].frozen || s->a[i].q >= 1) && s->a[i].mate < 0;
  if (!lin) {
    if (few ? !evl_over_at_one(&s->live, s->a, s->n, s->bw) : !totals(s, 1)) return 1;
    double lo = 0, hi = 1;
    for (int it = 0; it < 60; it++) {
      double mid = 0.5 * (lo + hi);
      if (few ? evl_over(&s->live, s->a, s->n, s->bw, mid) : totals(s, mid)) hi = mid;
      else lo = mid;
    }
    return lo;
  }
  if (few) return evl_linear(&s->live, s->a, s->n, s->bw);
  /* frozen load into tot, the unfrozen demand at speed 1 into slope */
  for (int i = 0; i < s->n; i++)
    for (int k = 0; s->a[i].d && k < s->a[i].d->n; k++)
      s->tot[s->a[i].d->link[k]] = s->slope[s->a[i].d->link[k]] = 0;
  for (int i = 0; i < s->n; i++) {
    const evs_act *a = &s->a[i];
    for (int k = 0; a->d && k < a->d->n; k++) {
      double v = a->w * a->d->rate[k];
      if (a->frozen) s->tot[a->d->link[k]] += v * evs_pace(a->q, a->x);
      else s->slope[a->d->link[k]] += v;
    }
  }
  double t = 1;
  for (int i = 0; i < s->n; i++)
    for (int k = 0; !s->a[i].frozen && s->a[i].d && k < s->a[i].d->n; k++) {
      int l = s->a[i].d->link[k];
      double x = (s->bw[l] - s->tot[l]) / s->slope[l];
      if (x < t) t = x;
    }
  return t > 0 ? t : 0;
}

/* Each running activity's mate: the other of its batch, -1 none. */
static void pair_batches(evs *s) {
  for (int i = 0; i < s->n; i++) {
    evs_act *a = &s->a[i];
    a->mate = -1;
    if (a->batch < 0 || !a->d) continue;
    int j = s->first[a->batch];
    if (j < 0) {
      s->first[a->batch] = i;
      continue;
    }
    assert(s->a[j].mate < 0 && "three activities in one batch");
    if (s->a[j].mate < 0) a->mate = j, s->a[j].mate = i;
  }
  for (int i = 0; i < s->n; i++)
    if (s->a[i].batch >= 0) s->first[s->a[i].batch] = -1;
}

/* Max-min fair speeds of the running activities (progressive filling):
 * raise the speed of all that are not yet fixed together until a link
 * is full, fix those crossing a full link at that speed, repeat with the
 * rest; what they leave on other links goes to the others. Speed is
 * relative to alone (a pass: of its collectives), so on one link each
 * user slows alike. Then re-project every activity whose pace changed
 * (what is left of it, at the new pace). */
static void solve(evs *s, double now) {
  if (!s->bw) return;
  pair_batches(s);
  int left = 0;
  for (int i = 0; i < s->n; i++) {
    s->a[i].frozen = !s->a[i].d;
    s->a[i].x = 1;
    left += !s->a[i].frozen;
  }
  /* the hot links' terms, once for every round */
  int few = left > 0 && s->hot.hot && !evl_gather(&s->live, s->a, s->n, &s->hot);
  while (left > 0) {
    double t = level(s, few);
    if (t < 1e-9) t = 1e-9;
    int froze = 0;
    if (t < 1 && few) froze = evl_freeze(&s->live, s->a, s->n, s->bw, t);
    else if (t < 1) (void)totals(s, t); /* at 1 every one is fixed, no link read */
    for (int i = 0; i < s->n && !(t < 1 && few); i++) {
      evs_act *a = &s->a[i];
      if (a->frozen) continue;
      int full = t >= 1;
      for (int k = 0; !full && k < a->d->n; k++)
        full = s->tot[a->d->link[k]] >= s->bw[a->d->link[k]] * (1 - 1e-9);
      if (full) a->frozen = 1, a->x = t, froze++;
    }
    if (!froze) /* rounding: no link quite full; fix the rest here */
      for (int i = 0; i < s->n; i++)
        if (!s->a[i].frozen) s->a[i].frozen = 1, s->a[i].x = t, froze++;
    left -= froze;
  }
  for (int i = 0; i < s->n; i++) {
    evs_act *a = &s->a[i];
    double f = a->d ? 1 / evs_pace(a->q, a->x) : 1;
    if (f == a->f) continue;
    double rest = (a->end - now) / a->f; /* alone-seconds still to run */
    a->end = now + (rest > 0 ? rest : 0) * f;
    a->f = f;
  }
}

/* Start activity id in batch b (-1 none); see evs_add_part. */
static void add(evs *s, double now, int id, double alone, const evs_demand *d, double w,
                double q, int b) {
  assert(s->n < s->cap && "activity set sized too small");
  assert(q >= 0 && q <= 1 + 1e-12);
  if (s->n >= s->cap) return;
  evs_act *a = &s->a[s->n++];
  *a = (evs_act){id, d && d->n > 0 ? d : NULL, w, q, 1, now + alone, 1, 0, b, -1};
  if (s->bw) evh_change(&s->hot, a->d, w, 1);
  solve(s, now);
}

void evs_add(evs *s, double now, int id, double alone, const evs_demand *d, double w) {
  add(s, now, id, alone, d, w, 1, -1);
}

void evs_add_part(evs *s, double now, int id, double alone, const evs_demand *d, double w,
                  double q) {
  add(s, now, id, alone, d, w, q, -1);
}

void evs_add_batch(evs *s, double now, int id, double alone, const evs_demand *d, double w,
                   int b) {
  assert(b >= 0 && b < s->cap && "batch out of range");
  for (int k = 1; d && k < d->n; k++) assert(d->link[k - 1] < d->link[k] && "links unordered");
  add(s, now, id, alone, d, w, 1, b >= 0 && b < s->cap ? b : -1);
}

int evs_next(const evs *s, double *end) {
  int k = -1;
  for (int i = 0; i < s->n; i++) /* ties: the lower id */
    if (k < 0 || s->a[i].end < s->a[k].end ||
        (s->a[i].end == s->a[k].end && s->a[i].id < s->a[k].id))
      k = i;
  if (k >= 0) *end = s->a[k].end;
  return k;
}

void evs_remove(evs *s, int k, double now) {
  if (s->bw) evh_change(&s->hot, s->a[k].d, s->a[k].w, -1);
  s->a[k] = s->a[--s->n];
  solve(s, now);
}
