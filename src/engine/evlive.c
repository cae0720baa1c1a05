/*
 * evlive.c -- the loads of the links that could be full, summed link by
 * link; see evlive.h.
 */
#include "engine/evlive.h"

#include <string.h>

#include "core/mem.h"
#include "engine/evhot.h"
#include "engine/evshare.h"

int evl_init(evl *l, int cap_acts, int n_links) {
  memset(l, 0, sizeof *l);
  size_t nl = (size_t)(n_links > 0 ? n_links : 1), na = (size_t)(cap_acts > 0 ? cap_acts : 1);
  /* room for every link with a few activities each; more: the full scan */
  l->cap_terms = 8 * (int)nl + 8 * (int)na;
  l->hot = mem_alloc(sizeof *l->hot * nl);
  l->link = mem_alloc(sizeof *l->link * nl);
  l->cnt = mem_alloc(sizeof *l->cnt * nl);
  l->off = mem_alloc(sizeof *l->off * nl);
  l->safe = mem_alloc(nl);
  l->act = mem_alloc(sizeof *l->act * (size_t)l->cap_terms);
  l->v = mem_alloc(sizeof *l->v * (size_t)l->cap_terms);
  l->p = mem_alloc(sizeof *l->p * na);
  if (!l->hot || !l->link || !l->cnt || !l->off || !l->safe || !l->act || !l->v || !l->p) {
    evl_free(l);
    return -1;
  }
  return 0;
}

void evl_free(evl *l) {
  mem_free(l->hot), mem_free(l->link), mem_free(l->cnt), mem_free(l->off), mem_free(l->safe);
  mem_free(l->act), mem_free(l->v), mem_free(l->p);
  memset(l, 0, sizeof *l);
}

/* The limit evshare.c holds a load to, and the load below which a link
 * surely stays under it at every lower speed (evlive.h). */
static double limit(const double *bw, int x) { return bw[x] * (1 + 1e-12); }
static double sure(double lim, int m) { return lim * (1 - (m + 16) * 0x1p-50); }

/* Hot links in the order first met, their terms counted. */
static void count(evl *l, const evs_act *a, int n, const evh *h) {
  for (int i = 0; i < n; i++)
    for (int k = 0; a[i].d && k < a[i].d->n; k++) l->cnt[a[i].d->link[k]] = 0;
  l->nh = 0;
  for (int i = 0; i < n; i++)
    for (int k = 0; a[i].d && k < a[i].d->n; k++) {
      int x = a[i].d->link[k];
      if (!evh_is_hot(h, x)) continue;
      if (!l->cnt[x]++) l->hot[l->nh++] = x;
    }
}

int evl_gather(evl *l, const evs_act *a, int n, const evh *h) {
  count(l, a, n, h);
  int terms = 0;
  for (int j = 0; j < l->nh; j++) {
    l->off[l->hot[j]] = terms;
    terms += l->cnt[l->hot[j]];
    if (terms > l->cap_terms) return -1;
  }
  /* the terms in the order totals adds them; off[] ends past each link's */
  for (int i = 0; i < n; i++)
    for (int k = 0; a[i].d && k < a[i].d->n; k++) {
      int x = a[i].d->link[k];
      if (!evh_is_hot(h, x)) continue;
      l->act[l->off[x]] = i, l->v[l->off[x]] = a[i].w * a[i].d->rate[k];
      l->off[x]++;
    }
  for (int j = 0; j < l->nh; j++) l->off[l->hot[j]] -= l->cnt[l->hot[j]];
  return 0;
}

/* Paces at speed t of the unfrozen, the frozen at theirs. */
static void paces(evl *l, const evs_act *a, int n, double t) {
  for (int i = 0; i < n; i++) l->p[i] = evs_pace(a[i].q, a[i].frozen ? a[i].x : t);
}

/* Link x's load at the paces p[]: totals' sum, term for term; a term
 * whose batch mate (an earlier activity) is on x too adds what it has
 * over the mate's (evs_term's formula). */
static double load(const evl *l, const evs_act *a, int x) {
  double sum = 0;
  int b = l->off[x], e = b + l->cnt[x];
  for (int m = b; m < e; m++) {
    int i = l->act[m], j = a[i].mate;
    double v = l->v[m] * l->p[i];
    for (int k = b; j >= 0 && j < i && k < m; k++)
      if (l->act[k] == j) {
        v = evs_less(v, l->v[k] * l->p[j]);
        break;
      }
    sum += v;
  }
  return sum;
}

int evl_over_at_one(evl *l, const evs_act *a, int n, const double *bw) {
  paces(l, a, n, 1);
  int over = 0;
  l->n = 0;
  for (int j = 0; j < l->nh; j++) {
    int x = l->hot[j];
    double sum = load(l, a, x), lim = limit(bw, x);
    over |= sum > lim;
    if (!(sum < sure(lim, l->cnt[x]))) l->link[l->n++] = x;
  }
  return over;
}

/* Live link j was over: it goes first; before it, those surely under at
 * this speed leave; after it, all stay. */
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
  paces(l, a, n, t);
  for (int j = 0; j < l->n; j++) {
    int x = l->link[j];
    double sum = load(l, a, x), lim = limit(bw, x);
    if (sum > lim) {
      reorder(l, j);
      return 1;
    }
    l->safe[j] = sum < sure(lim, l->cnt[x]);
  }
  return 0;
}

double evl_linear(evl *l, const evs_act *a, int n, const double *bw) {
  (void)n;
  double t = 1;
  for (int j = 0; j < l->nh; j++) {
    int x = l->hot[j], any = 0;
    double tot = 0, slope = 0;
    for (int m = l->off[x], e = m + l->cnt[x]; m < e; m++) {
      const evs_act *b = &a[l->act[m]];
      if (b->frozen) tot += l->v[m] * evs_pace(b->q, b->x);
      else slope += l->v[m], any = 1;
    }
    double s = any ? (bw[x] - tot) / slope : t;
    if (s < t) t = s;
  }
  return t > 0 ? t : 0;
}

int evl_freeze(evl *l, evs_act *a, int n, const double *bw, double t) {
  paces(l, a, n, t);
  int froze = 0;
  for (int j = 0; j < l->nh; j++) {
    int x = l->hot[j];
    if (!(load(l, a, x) >= bw[x] * (1 - 1e-9))) continue;
    for (int m = l->off[x], e = m + l->cnt[x]; m < e; m++) {
      evs_act *b = &a[l->act[m]];
      if (!b->frozen) b->frozen = 1, b->x = t, froze++;
    }
  }
  return froze;
}
