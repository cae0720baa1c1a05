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
  s->a = mem_alloc(sizeof *s->a * (size_t)(cap > 0 ? cap : 1));
  s->load = bw ? mem_calloc((size_t)(n_links > 0 ? n_links : 1), sizeof *s->load) : NULL;
  if (!s->a || (bw && !s->load)) {
    evs_free(s);
    return -1;
  }
  s->cap = cap, s->bw = bw, s->n_links = n_links;
  return 0;
}

void evs_free(evs *s) {
  mem_free(s->a), mem_free(s->load);
  memset(s, 0, sizeof *s);
}

/* The slowdown of activity a at the current loads. */
static double factor(const evs *s, const evs_act *a) {
  double f = 1;
  if (!a->d || !s->bw) return f;
  for (int k = 0; k < a->d->n; k++) {
    int l = a->d->link[k];
    double x = s->load[l] / s->bw[l];
    if (x > f) f = x;
  }
  return f;
}

/* Add (sign 1) or take away (-1) a's demand on the links. */
static void load(evs *s, const evs_act *a, double sign) {
  if (!a->d || !s->bw) return;
  for (int k = 0; k < a->d->n; k++) s->load[a->d->link[k]] += sign * a->w * a->d->rate[k];
}

/* After a change of loads at `now`: re-project every running activity
 * whose slowdown changed (what is left of it, at the new pace). */
static void refactor(evs *s, double now) {
  if (!s->bw) return;
  for (int i = 0; i < s->n; i++) {
    evs_act *a = &s->a[i];
    if (!a->d) continue;
    double g = factor(s, a), f = 1 + a->q * (g - 1); /* only its sharing part slows */
    if (f == a->f) continue;
    double left = (a->end - now) / a->f; /* alone-seconds still to run */
    a->end = now + (left > 0 ? left : 0) * f;
    a->f = f;
  }
}

void evs_add(evs *s, double now, int id, double alone, const evs_demand *d, double w) {
  evs_add_part(s, now, id, alone, d, w, 1);
}

void evs_add_part(evs *s, double now, int id, double alone, const evs_demand *d, double w,
                  double q) {
  assert(s->n < s->cap && "activity set sized too small");
  assert(q >= 0 && q <= 1 + 1e-12);
  if (s->n >= s->cap) return;
  evs_act *a = &s->a[s->n++];
  *a = (evs_act){id, d && d->n > 0 ? d : NULL, w, q, 1, now + alone, now, alone};
  load(s, a, 1);
  refactor(s, now);
}

int evs_next(const evs *s, double *end) {
  int k = -1;
  for (int i = 0; i < s->n; i++) /* ties: the earlier started, then the lower id */
    if (k < 0 || s->a[i].end < s->a[k].end ||
        (s->a[i].end == s->a[k].end && s->a[i].id < s->a[k].id))
      k = i;
  if (k >= 0) *end = s->a[k].end;
  return k;
}

void evs_remove(evs *s, int k, double now, double *start) {
  evs_act a = s->a[k];
  *start = a.start;
  s->a[k] = s->a[--s->n];
  load(s, &a, -1);
  refactor(s, now);
}
