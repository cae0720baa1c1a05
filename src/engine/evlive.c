/*
 * evlive.c -- the links that can still decide level()'s bisection; see
 * evlive.h.
 */
#include "engine/evlive.h"

#include <string.h>

#include "core/mem.h"
#include "engine/evshare.h"

int evl_init(evl *l, int cap_acts, int n_links) {
  memset(l, 0, sizeof *l);
  size_t nl = (size_t)(n_links > 0 ? n_links : 1), na = (size_t)(cap_acts > 0 ? cap_acts : 1);
  /* room for every link with a few activities each; more: the full scan */
  l->cap_terms = 8 * (int)nl + 8 * (int)na;
  l->link = mem_alloc(sizeof *l->link * nl);
  l->cnt = mem_alloc(sizeof *l->cnt * nl);
  l->off = mem_alloc(sizeof *l->off * nl);
  l->safe = mem_alloc(nl);
  l->act = mem_alloc(sizeof *l->act * (size_t)l->cap_terms);
  l->v = mem_alloc(sizeof *l->v * (size_t)l->cap_terms);
  l->p = mem_alloc(sizeof *l->p * na);
  if (!l->link || !l->cnt || !l->off || !l->safe || !l->act || !l->v || !l->p) {
    evl_free(l);
    return -1;
  }
  l->n_links = (int)nl, l->cap_acts = (int)na;
  return 0;
}

void evl_free(evl *l) {
  mem_free(l->link), mem_free(l->cnt), mem_free(l->off), mem_free(l->safe);
  mem_free(l->act), mem_free(l->v), mem_free(l->p);
  memset(l, 0, sizeof *l);
}

/* The bandwidth a link's load must not pass (evshare.c's test), and the
 * load below which it surely stays at every lower speed: a load of m
 * terms is off the exact sum by at most about (m + 6) x 2^-53 of it
 * (pace, product, sum); a load grows with the speed; so below the limit
 * by 8 (m + 16) x 2^-53 it is under at any speed below the one it was
 * summed at. */
static double limit(const double *bw, int x) { return bw[x] * (1 + 1e-12); }
static double sure(double lim, int m) { return lim * (1 - (m + 16) * 0x1p-50); }

/* Count the terms per link; off[] = -2 (not yet seen). */
static void count(evl *l, const evs_act *a, int n) {
  for (int i = 0; i < n; i++)
    for (int k = 0; a[i].d && k < a[i].d->n; k++) l->cnt[a[i].d->link[k]] = 0, l->off[a[i].d->link[k]] = -2;
  for (int i = 0; i < n; i++)
    for (int k = 0; a[i].d && k < a[i].d->n; k++) l->cnt[a[i].d->link[k]]++;
}

int evl_build(evl *l, const evs_act *a, int n, const double *bw, const double *tot) {
  count(l, a, n);
  int terms = 0;
  l->n = 0;
  for (int i = 0; i < n; i++)
    for (int k = 0; a[i].d && k < a[i].d->n; k++) {
      int x = a[i].d->link[k];
      if (l->off[x] != -2) continue;
      int keep = !(tot[x] < sure(limit(bw, x), l->cnt[x]));
      l->off[x] = keep ? terms : -1;
      if (!keep) continue;
      terms += l->cnt[x];
      if (terms > l->cap_terms) return -1;
      l->link[l->n++] = x;
    }
  /* the terms in the order totals adds them; off[] ends past each link's */
  for (int i = 0; i < n; i++)
    for (int k = 0; a[i].d && k < a[i].d->n; k++) {
      int x = a[i].d->link[k];
      if (l->off[x] < 0) continue;
      l->act[l->off[x]] = i, l->v[l->off[x]] = a[i].w * a[i].d->rate[k];
      l->off[x]++;
    }
  for (int j = 0; j < l->n; j++) l->off[l->link[j]] -= l->cnt[l->link[j]];
  return 0;
}

/* Link x's load at the paces p[]: totals' sum, term for term. */
static double load(const evl *l, int x) {
  double sum = 0;
  for (int m = l->off[x], e = m + l->cnt[x]; m < e; m++) sum += l->v[m] * l->p[l->act[m]];
  return sum;
}

/* Link `over` (index j in the list) was over: it goes first; before it,
 * those surely under at this speed leave; after it, all stay. */
static void reorder(evl *l, int j) {
  int x = l->link[j], w = 0;
  for (int i = 0; i < j; i++)
    if (!l->safe[i]) l->link[w++] = l->link[i];
  l->link[w++] = x;
  int t = l->link[0];
  l->link[0] = x, l->link[w - 1] = t;
  for (int i = j + 1; i < l->n; i++) l->link[w++] = l->link[i];
  l->n = w;
}

int evl_over(evl *l, const evs_act *a, int n, const double *bw, double t) {
  for (int i = 0; i < n; i++) l->p[i] = evs_pace(a[i].q, a[i].frozen ? a[i].x : t);
  for (int j = 0; j < l->n; j++) {
    int x = l->link[j];
    double sum = load(l, x), lim = limit(bw, x);
    if (sum > lim) {
      reorder(l, j);
      return 1;
    }
    l->safe[j] = sum < sure(lim, l->cnt[x]);
  }
  return 0;
}
