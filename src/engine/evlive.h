/*
 * evlive.h -- the loads of the links that could be full, summed link by
 * link (module prefix: evl_).
 *
 * evshare.c's solve needs, in each round of its progressive filling,
 * the loads of the links at some speed: whether one is over, which are
 * full, how far the unfrozen activities can speed up. Only HOT links
 * (evhot.h) can be over or full or hold anyone back; the others need no
 * sum. Once per solve this gathers the terms of the hot links -- the
 * activity and w x rate -- in the order evshare.c's full scan adds them
 * (activity by activity, link by link of its demand), so that each load
 * is the same sum, rounded the same, and every answer is bit for bit the
 * full scan's.
 *
 * The bisection of a round (60 times "is any link over at t?") asks only
 * the LIVE links: those not surely under at speed 1 (a load grows with
 * the speed, every t asked is <= 1, and the margin, 8 (m + 16) x 2^-53
 * of the bandwidth for m terms, is more than the rounding of the sum can
 * move it). A link surely under at a speed that was over elsewhere
 * leaves too (later speeds are lower); the one found over moves first.
 *
 * Sized once per run (evl_init); when the terms would not fit,
 * evl_gather says so and evshare.c scans every link as before.
 */
#ifndef SC_ENGINE_EVLIVE_H
#define SC_ENGINE_EVLIVE_H

struct evs_act;
struct evh;

typedef struct evl {
  int *hot;            /* the hot links of this solve, nh, owned */
  int *link;           /* live links of this round's bisection, n, owned */
  int *cnt;            /* per link: its terms, owned */
  int *off;            /* per link: its first term in act/v, owned */
  int *act;            /* per term: index of the activity, owned */
  double *v;           /* per term: w x rate, B/s at pace 1, owned */
  double *p;           /* per activity: its pace at the speed asked, owned */
  unsigned char *safe; /* per live link: surely under at the last ask, owned */
  int nh, n, cap_terms;
} evl;

/* Room for cap_acts activities over n_links links. 0 or -1 (no memory). */
int evl_init(evl *l, int cap_acts, int n_links);
void evl_free(evl *l);

/* Gather the terms of the links of the n activities a[] that are hot in
 * h. 0, or -1 when they do not fit (then scan every link). */
int evl_gather(evl *l, const struct evs_act *a, int n, const struct evh *h);

/* Whether a hot link is over its bandwidth (x (1 + 1e-12)) at speed 1
 * of the unfrozen activities (the frozen at theirs); keeps as live the
 * hot links not surely under. */
int evl_over_at_one(evl *l, const struct evs_act *a, int n, const double *bw);

/* The same at speed t <= every speed asked since evl_over_at_one, asking
 * only the live links. */
int evl_over(evl *l, const struct evs_act *a, int n, const double *bw, double t);

/* Every activity unfrozen on a hot link, unfrozen at speed q = 1 each:
 * the highest speed <= 1 at which none is over, as evshare.c's level
 * computes it ((bandwidth - frozen load) / their demand at speed 1). */
double evl_linear(evl *l, const struct evs_act *a, int n, const double *bw);

/* Freeze at speed t every unfrozen activity on a hot link that is full
 * (load >= 1 - 1e-9 of its bandwidth) at t; how many froze. */
int evl_freeze(evl *l, struct evs_act *a, int n, const double *bw, double t);

#endif
