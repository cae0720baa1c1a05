/*
 * evlive.h -- the links that can still decide the bisection of
 * evshare.c's level() (module prefix: evl_).
 *
 * level() bisects the highest common speed t of the unfrozen activities
 * at which no link is over its bandwidth: 60 times "is any link over at
 * t?", each a sum over every activity's demand. Most links cannot be
 * over at any t tried: their load at speed 1 (every t tried is <= 1) is
 * below their bandwidth by more than the rounding of the sum can move
 * it (loads only grow with t). This set keeps only the others, each with
 * its terms (the activity and w x rate) in the order evshare.c adds them
 * -- activity by activity, link by link of its demand -- so that each
 * load is the same sum, rounded the same, and every answer (hence t) is
 * bit for bit the one of the full scan. A link found well under at a
 * speed that was over elsewhere leaves too (later speeds are lower); the
 * link found over moves to the front (most answers stop there).
 *
 * Sized once per run (evl_init); when the kept terms would not fit,
 * evl_build says so and level() scans every link as before.
 */
#ifndef SC_ENGINE_EVLIVE_H
#define SC_ENGINE_EVLIVE_H

struct evs_act;

typedef struct evl {
  int *link;           /* live links, n of them (order: any), owned */
  int *cnt;            /* per link: terms on it this build, owned */
  int *off;            /* per link: first term in act/v, owned */
  int *act;            /* per term: index of the activity, owned */
  double *v;           /* per term: w x rate, B/s at pace 1, owned */
  double *p;           /* per activity: its pace at the speed asked, owned */
  unsigned char *safe; /* per live link: under by the margin at the last ask */
  int n, cap_terms, n_links, cap_acts;
} evl;

/* Room for cap_acts activities over n_links links. 0 or -1 (no memory). */
int evl_init(evl *l, int cap_acts, int n_links);
void evl_free(evl *l);

/* Keep the links of the n activities a[] whose load at speed 1, tot[]
 * (as evshare.c's totals left it), is not surely under bw[] x (1 +
 * 1e-12). 0, or -1 when the terms do not fit (then scan them all). */
int evl_build(evl *l, const struct evs_act *a, int n, const double *bw, const double *tot);

/* 1 when a kept link is over its bandwidth with the unfrozen activities
 * at speed t (the frozen at theirs): the answer of evshare.c's totals. */
int evl_over(evl *l, const struct evs_act *a, int n, const double *bw, double t);

#endif
