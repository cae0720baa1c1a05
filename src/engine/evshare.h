/*
 * evshare.h -- communication of different kinds sharing the links of a
 * topology inside the event loop (module prefix: evs_).
 *
 * The event loop's own communication -- pipeline send/recv and the
 * data-parallel reduction after a stage's backward -- runs as ACTIVITIES
 * in this set rather than as fixed-length events. Each activity has the
 * time it takes alone (the step model's) and, on a topology, a DEMAND:
 * the bytes per second it puts on each link when it runs at its alone
 * pace (the flow engine's per-link bytes of the traffic, every group of
 * the stage at once, over the flow engine's time for it). While several
 * activities run they share the links MAX-MIN FAIRLY in their speed
 * (1 = their alone pace): all speed up together until a link is full;
 * those crossing it keep that speed; the others go on speeding up into
 * what is left on their links, until each is at its alone pace or on a
 * full link (progressive filling, re-solved whenever one starts or
 * ends). Two activities that each fill a link alone run at half speed
 * while they overlap, and speed up again when one ends; one that shares
 * a full link only with activities held back elsewhere takes what they
 * leave. An activity that is only partly communication (a pipeline pass
 * and the collectives inside it: evs_add_part, q of its time) moves its
 * bytes over its whole time: at speed x of its collectives it runs at
 * pace 1 / (1 - q + q / x) and puts that fraction of its demand on its
 * links. An activity without a demand (no topology) always runs at its
 * alone pace, its end fixed when it starts.
 *
 * BATCHES: the two transfers into one rank that Megatron's interleaved
 * schedule runs as one batched exchange (the forward from the stage
 * before, the backward from the stage after) do not slow each other: the
 * step model already pays each rank's sends one after another (the
 * stage waits through each, pipe.h), which is what its NIC carrying both
 * payloads costs, so their sharing a link would count it twice. On a
 * link both cross, the pair loads it by the larger of its two terms (the
 * later one adds what it has over the earlier); each still shares with
 * everything else. At most two activities a batch; while a pair runs the
 * speeds are bisected (the load is no longer linear in the speed), and
 * a full link fixes both, as it fixes every user.
 *
 * The set is sized once per run (no allocation while the loop runs);
 * the loop asks for the earliest end beside its heap's next event. The
 * solve sums only the links that could be full (evhot.h), link by link
 * in the full scan's order (evlive.h): the same doubles, far fewer sums.
 */
#ifndef SC_ENGINE_EVSHARE_H
#define SC_ENGINE_EVSHARE_H

#include "engine/evhot.h"
#include "engine/evlive.h"

/* A traffic pattern's load on the links: rate[k] bytes/s on link
 * link[k] (indices into the topology's links) at its alone pace. */
typedef struct evs_demand {
  int *link;           /* owned */
  double *rate;        /* owned, bytes/s */
  int n;
} evs_demand;

void evs_demand_free(evs_demand *d);

typedef struct evs_act {
  int id;              /* the caller's event id */
  const evs_demand *d; /* borrowed, NULL = none */
  double w;            /* weight of the demand (replicas it stands for) */
  double q;            /* the fraction of its alone time that shares the
                          links (1: a transfer; a pass: its collectives) */
  double f;            /* current slowdown, >= 1 */
  double end;          /* projected end at the current f, s */
  double x;            /* max-min speed of its sharing part, 0..1 */
  int frozen;          /* solving: x fixed */
  int batch;           /* its batch (0..cap-1), -1 none */
  int mate;            /* solving: the other running activity of its
                          batch (index into evs.a), -1 none */
} evs_act;

typedef struct evs {
  evs_act *a;          /* running activities, owned */
  int n, cap;
  double *tot, *slope; /* per link, solving: load, B/s; demand at speed
                          1 of those not yet fixed, B/s; owned */
  const double *bw;    /* per link, bytes/s (borrowed); NULL = no topology */
  evh hot;             /* the links the running activities could fill */
  evl live;            /* solving: the links a bisection still asks about */
  int *first;          /* solving: per batch, its first running activity
                          (index), -1 none; cap entries, owned */
} evs;

/* An activity's overall pace (1 = alone) when its sharing part (q of
 * its time) runs at speed x: 1 / (1 - q + q / x). */
static inline double evs_pace(double q, double x) { return x / (x * (1 - q) + q); }

/* Room for cap activities at once over n_links links of bandwidth bw
 * (NULL, 0: no topology). 0 or -1 (out of memory). */
int evs_init(evs *s, int cap, int n_links, const double *bw);
void evs_free(evs *s);

/* Start activity id at `now`, `alone` s long alone, with demand d
 * (weight w); the others sharing its links slow down from now on. */
void evs_add(evs *s, double now, int id, double alone, const evs_demand *d, double w);

/* The same for an activity of which only a fraction q (0..1] of its
 * alone time is communication on those links (a pass with its
 * collectives, the rest compute): at speed x of that part it takes
 * (1 - q + q / x) times as long as alone. Its demand is the average over
 * its alone time (w x d->rate). evs_add is q = 1. */
void evs_add_part(evs *s, double now, int id, double alone, const evs_demand *d, double w,
                  double q);

/* evs_add of a transfer in batch b (0 <= b < cap; see BATCHES above):
 * it does not slow the other running activity of batch b, nor that one
 * it. Its demand's links must be in increasing order (fleet.h's are). */
void evs_add_batch(evs *s, double now, int id, double alone, const evs_demand *d, double w,
                   int b);

/* What term v of a batch adds on a link its mate loads by u: the larger
 * of the two less u. */
static inline double evs_less(double v, double u) { return v > u ? v - u : 0; }

/* Term of activity a on link d->link[k] at pace p, less what its mate m
 * (at pace pm, NULL: none) puts on the same link, found from *km on
 * (m's links in increasing order, *km advanced): the batch's load there
 * is the larger of the two (evshare.h BATCHES). The one formula both
 * solvers add, term for term. */
static inline double evs_term(const evs_act *a, int k, double p, const evs_act *m, double pm,
                              int *km) {
  double v = a->w * a->d->rate[k] * p;
  if (!m) return v;
  int l = a->d->link[k];
  while (*km < m->d->n && m->d->link[*km] < l) ++*km;
  if (*km == m->d->n || m->d->link[*km] != l) return v;
  return evs_less(v, m->w * m->d->rate[*km] * pm);
}

/* The running activity that ends first: its index (-1 when none) and
 * its end in *end. */
int evs_next(const evs *s, double *end);

/* Remove activity k (ended at `now`); the others sharing its links
 * speed up. */
void evs_remove(evs *s, int k, double now);

#endif
