/*
 * test_evshare_same.c -- evshare.c's shortcuts (evhot.h: no sums while
 * no link can be full; evlive.h: the bisection asks only the links that
 * can still be over) give, bit for bit, the ends and slowdowns of the
 * plain solver they replace: every activity's demand summed over every
 * link at every step, written out again here. Random sets of transfers
 * (some in batches of two, evshare.h BATCHES) and passes (q < 1) come
 * and go over a small topology, often contended; after every start and end each running activity's end and
 * slowdown must be the same doubles.
 */
#include <criterion/criterion.h>
#include <string.h>

#include "engine/evshare.h"

#define L 12    /* links */
#define D 24    /* demands */
#define CAP 8   /* activities at once */

/* The plain solver: evshare.c before the shortcuts. */
typedef struct ref {
  evs_act a[CAP];
  int n;
  double tot[L], slope[L];
  const double *bw;
} ref;

static int ref_totals(ref *s, double t) {
  int over = 0;
  for (int i = 0; i < s->n; i++)
    for (int k = 0; s->a[i].d && k < s->a[i].d->n; k++) s->tot[s->a[i].d->link[k]] = 0;
  for (int i = 0; i < s->n; i++) {
    const evs_act *a = &s->a[i], *m = a->mate >= 0 && a->mate < i ? &s->a[a->mate] : NULL;
    double p = evs_pace(a->q, a->frozen ? a->x : t);
    double pm = m ? evs_pace(m->q, m->frozen ? m->x : t) : 0;
    int km = 0;
    for (int k = 0; a->d && k < a->d->n; k++) s->tot[a->d->link[k]] += evs_term(a, k, p, m, pm, &km);
  }
  for (int i = 0; i < s->n && !over; i++)
    for (int k = 0; s->a[i].d && k < s->a[i].d->n; k++) {
      int l = s->a[i].d->link[k];
      over |= s->tot[l] > s->bw[l] * (1 + 1e-12);
    }
  return over;
}

static double ref_level(ref *s) {
  int lin = 1;
  for (int i = 0; i < s->n; i++) lin &= (s->a[i].frozen || s->a[i].q >= 1) && s->a[i].mate < 0;
  if (!lin) {
    if (!ref_totals(s, 1)) return 1;
    double lo = 0, hi = 1;
    for (int it = 0; it < 60; it++) {
      double mid = 0.5 * (lo + hi);
      if (ref_totals(s, mid)) hi = mid;
      else lo = mid;
    }
    return lo;
  }
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

static void ref_solve(ref *s, double now) {
  int left = 0;
  for (int i = 0; i < s->n; i++) { /* batch mates, the earlier one first met */
    s->a[i].mate = -1;
    for (int j = 0; j < i && s->a[i].batch >= 0 && s->a[i].d; j++)
      if (s->a[j].batch == s->a[i].batch && s->a[j].d) s->a[i].mate = j, s->a[j].mate = i;
  }
  for (int i = 0; i < s->n; i++) {
    s->a[i].frozen = !s->a[i].d;
    s->a[i].x = 1;
    left += !s->a[i].frozen;
  }
  while (left > 0) {
    double t = ref_level(s);
    if (t < 1e-9) t = 1e-9;
    (void)ref_totals(s, t);
    int froze = 0;
    for (int i = 0; i < s->n; i++) {
      evs_act *a = &s->a[i];
      if (a->frozen) continue;
      int full = t >= 1;
      for (int k = 0; !full && k < a->d->n; k++)
        full = s->tot[a->d->link[k]] >= s->bw[a->d->link[k]] * (1 - 1e-9);
      if (full) a->frozen = 1, a->x = t, froze++;
    }
    if (!froze)
      for (int i = 0; i < s->n; i++)
        if (!s->a[i].frozen) s->a[i].frozen = 1, s->a[i].x = t, froze++;
    left -= froze;
  }
  for (int i = 0; i < s->n; i++) {
    evs_act *a = &s->a[i];
    double f = a->d ? 1 / evs_pace(a->q, a->x) : 1;
    if (f == a->f) continue;
    double rest = (a->end - now) / a->f;
    a->end = now + (rest > 0 ? rest : 0) * f;
    a->f = f;
  }
}

static unsigned long long seed;
static double rnd(void) { /* 0..1, deterministic */
  seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
  return (double)(seed >> 11) * 0x1p-53;
}

static void same(const evs *s, const ref *r, int step) {
  cr_assert_eq(s->n, r->n, "step %d: %d running, plain solver %d", step, s->n, r->n);
  for (int i = 0; i < s->n; i++) {
    cr_assert_eq(s->a[i].id, r->a[i].id, "step %d: activity %d", step, i);
    cr_assert(!memcmp(&s->a[i].end, &r->a[i].end, sizeof(double)) &&
                  !memcmp(&s->a[i].f, &r->a[i].f, sizeof(double)),
              "step %d: activity %d ends at %.17g (slowdown %.17g), plain solver %.17g (%.17g)",
              step, s->a[i].id, s->a[i].end, s->a[i].f, r->a[i].end, r->a[i].f);
  }
}

Test(evshare_same, random_sets_end_as_with_the_plain_solver) {
  static int link[D][L];
  static double rate[D][L];
  evs_demand dem[D];
  double bw[L];
  long contended = 0, batched = 0, paired = 0;
  for (int run = 0; run < 40; run++) {
    seed = 1000 + (unsigned long long)run;
    for (int l = 0; l < L; l++) bw[l] = 5 + 20 * rnd();
    for (int d = 0; d < D; d++) { /* 1..5 distinct links from a random start */
      int n = 1 + (int)(5 * rnd()), first = (int)(L * rnd());
      for (int k = 0; k < n; k++) link[d][k] = (first + 2 * k) % L, rate[d][k] = 0.2 + 12 * rnd();
      for (int k = 1; k < n; k++) /* in increasing order, as a batch's must be */
        for (int j = k; j > 0 && link[d][j - 1] > link[d][j]; j--) {
          int tl = link[d][j];
          double tr = rate[d][j];
          link[d][j] = link[d][j - 1], rate[d][j] = rate[d][j - 1];
          link[d][j - 1] = tl, rate[d][j - 1] = tr;
        }
      dem[d] = (evs_demand){link[d], rate[d], n};
    }
    evs s;
    ref r = {.bw = bw};
    cr_assert_eq(evs_init(&s, CAP, L, bw), 0);
    double now = 0;
    int id = 0;
    for (int step = 0; step < 400; step++) {
      if (s.n < CAP && (s.n == 0 || rnd() < 0.55)) {
        double u = rnd(), q = u < 0.4 ? 1 : u < 0.6 ? 0.25 + 0.7 * rnd() : 0.05;
        const evs_demand *d = rnd() < 0.1 ? NULL : &dem[(int)(D * rnd())];
        double alone = 0.1 + rnd(), w = rnd() < 0.5 ? 1 : 0.5 + 2 * rnd();
        now += 0.05 * rnd();
        /* a transfer in one of 3 batches, while it has room (two) */
        int b = q >= 1 && rnd() < 0.5 ? (int)(3 * rnd()) : -1, in = 0;
        for (int i = 0; i < s.n && b >= 0; i++) in += s.a[i].batch == b;
        if (in >= 2) b = -1;
        if (b >= 0) evs_add_batch(&s, now, id, alone, d, w, b), batched++;
        else evs_add_part(&s, now, id, alone, d, w, q);
        r.a[r.n++] = (evs_act){id, d && d->n > 0 ? d : NULL, w, q, 1, now + alone, 1, 0, b, -1};
        ref_solve(&r, now);
        id++;
      } else {
        double t;
        int k = evs_next(&s, &t);
        now = t;
        evs_remove(&s, k, now);
        r.a[k] = r.a[--r.n];
        ref_solve(&r, now);
      }
      same(&s, &r, step);
      for (int i = 0; i < s.n; i++) contended += s.a[i].f > 1, paired += s.a[i].mate >= 0;
    }
    evs_free(&s);
  }
  cr_assert_gt(contended, 1000, "the random sets should often share a full link (%ld)", contended);
  cr_assert_gt(paired, 1000, "batches should often run in pairs (%ld of %ld batched)", paired,
               batched);
}
