/*
 * flowcf.h -- the flow engine's time of a schedule in closed form where
 * max-min fair sharing leaves no choice (module prefix: fcf_).
 *
 * For one step of a schedule (coll/sched.h) on a topology, with every
 * transfer proportional to the collective's size S (bytes), two families
 * of lines in S bracket the step's max-min fair time T(S) -- the time the
 * flow engine (net/flow.h) computes up to its event precision:
 *
 *  - below: for each link l, Lmin_l + S load_l / bw_l. No transfer over l
 *    starts before Lmin_l, the shortest path latency among them, and l
 *    delivers at most bw_l bytes a second. And the longest path latency:
 *    the step waits for every transfer to start;
 *  - above: for each transfer f of size S x_f, lat_f + S x_f max over its
 *    links of N_l / bw_l (N_l: transfers over l). Max-min fair sharing
 *    gives every flow at least the smallest of bw_l / (flows on l) over
 *    its links at every instant (progressive filling freezes a flow at the
 *    level where one of its links fills, a level at least that share), so
 *    f is done by then.
 *
 * T(S) lies between the upper envelopes of the two families. Where they
 * meet (within FCF_TOL) T(S) is known without simulating: the case of a
 * ring step, whose transfers have one size and start together, where the
 * busiest links' transfers share one path latency and every other
 * transfer is done before them -- those transfers get bw_l / N_l from
 * their start to their end whatever else happens. Elsewhere (transfers
 * of the busiest link starting at different times, small sizes where
 * latencies dominate, too many distinct lines) fcf_time says so and the
 * flow engine runs.
 *
 * The flow engine's own answer differs from T(S) by its event precision
 * (flows due within 0.1 % of an event finish with it: FLOW_PRECISION in
 * flow.c), never more: tests/test_flowcf.c compares both over ops,
 * groups, sizes and topologies.
 *
 * Also computed on the way (the link-load bound, engine/netcost.h): per
 * step the longest path latency and the busiest link's load over its
 * bandwidth, each times the step's repeats, summed over the steps.
 */
#ifndef SC_NET_FLOWCF_H
#define SC_NET_FLOWCF_H

#include "coll/sched.h"
#include "net/route.h"
#include "net/topo.h"

/* Steps and lines per family a closed form keeps (beyond: none). */
#define FCF_STEPS 4
#define FCF_LINES 8

/* Relative gap between the two envelopes taken as a meeting: float
 * rounding only (the engine's precision is 1e-3). */
#define FCF_TOL 1e-9

typedef struct fcf_line {
  double lat;     /* s */
  double slope;   /* s per byte of the collective */
} fcf_line;

typedef struct fcf_step {
  int repeat;
  int n_lo, n_hi;
  fcf_line lo[FCF_LINES], hi[FCF_LINES]; /* each family's undominated lines */
} fcf_step;

typedef struct fcf {
  int ok;         /* 1: the steps below are the whole schedule */
  int ns;
  fcf_step s[FCF_STEPS];
  double lat;      /* s: per step the longest path latency, by its repeats */
  double per_byte; /* s per byte: per step the busiest link's load over its
                      bandwidth, by its repeats */
} fcf;

/* Per-link working memory of fcf_build (reused across calls). */
typedef struct fcf_scratch {
  int n_links;          /* links the per-link arrays hold (+1) */
  double *load, *lmin;  /* per link; load zero between calls */
  int *count, *touched; /* per link; count zero between calls */
  int *pent;            /* path entries of a step, grown */
  long cap_pent;
  int *poff, *plen;     /* per transfer of a step: its path in pent (poff
                           -1: left out), grown */
  double *plat;         /* per transfer: path latency */
  long cap_x;
} fcf_scratch;

void fcf_scratch_init(fcf_scratch *w);
void fcf_scratch_free(fcf_scratch *w);

/* The closed form of s at one byte (every transfer's bytes are per byte
 * of the collective), rank i on node rank_node[i] of t; routes from rt.
 * out->ok is 0 when a transfer has no route, touches a switch endpoint or
 * moves nothing, or a family has more than FCF_LINES lines (the bound
 * fields are still filled: such transfers are left out of them). 0, or -1
 * when out of memory. */
int fcf_build(const topo *t, route_table *rt, const sched *s, const int *rank_node,
              fcf_scratch *w, fcf *out);

/* The step time of a closed form at `bytes`: 1 and *seconds when the
 * envelopes meet at that size in every step, else 0. */
int fcf_time(const fcf *f, double bytes, double *seconds);

#endif /* SC_NET_FLOWCF_H */
