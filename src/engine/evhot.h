/*
 * evhot.h -- which links the running activities could fill (module
 * prefix: evh_).
 *
 * Most of the time no link of a topology is anywhere near full, and
 * evshare.c's solve would sum every activity's demand over every link
 * only to find that out. This keeps, per link, an upper bound of the
 * load of the running activities at their alone pace, in whole units of
 * 2^-40 of the link's bandwidth (each term rounded up, so the bound is
 * never below the exact sum; integers, so that adding and removing an
 * activity leaves no rounding behind), and the number of HOT links:
 * those whose bound reaches 1 - 2^-28 of their bandwidth. A link that is
 * not hot carries, at any speed <= 1 and however evshare.c rounds its
 * sum of up to 10^6 terms, less than 1 - 1e-9 of its bandwidth: never
 * over, never full, and no limit on anyone's speed. With no hot link,
 * every activity runs at its alone pace, which evshare.c then knows
 * without a sum.
 *
 * A term that is negative, not a number, or over 4 bandwidths counts
 * as 4 bandwidths (its link hot while it runs). Sized once per run.
 */
#ifndef SC_ENGINE_EVHOT_H
#define SC_ENGINE_EVHOT_H

#include <stdint.h>

struct evs_demand;

typedef struct evh {
  int64_t *units;      /* per link: bound of its load, 2^-40 bandwidths; owned */
  double *inv;         /* per link, units per B/s: 2^40 / bandwidth; owned */
  int n_links;
  int hot;             /* links whose bound reaches HOT */
} evh;

#define EVH_ONE ((int64_t)1 << 40)           /* a link's bandwidth, units */
#define EVH_HOT (EVH_ONE - ((int64_t)1 << 12)) /* 1 - 2^-28 of it */

/* 1 when link l could be full. */
static inline int evh_is_hot(const evh *h, int l) { return h->units[l] >= EVH_HOT; }

/* Over n_links links of bandwidth bw (B/s). 0 or -1 (no memory). */
int evh_init(evh *h, int n_links, const double *bw);
void evh_free(evh *h);

/* Add (sign 1) or remove (sign -1; after the same add) demand d of
 * weight w: w x d->rate[k] B/s on link d->link[k]. */
void evh_change(evh *h, const struct evs_demand *d, double w, int sign);

#endif
