/*
 * flow.h -- flow-level network simulation with max-min fair sharing
 * (module prefix: flow_).
 *
 * Runs a collective schedule (coll/sched.h) on a topology: each step's
 * transfers become flows along their routes; link bandwidth is shared
 * max-min fairly (progressive filling), re-solved only when a flow starts
 * (after its path latency, the sum of its links' latencies) or finishes.
 * Transfers of one step between the same pair are one flow (batched);
 * a step that repeats k times is simulated once and counted k times.
 * All arrays are sized once per run: the event loop does not allocate.
 * Built with SC_DEBUG_CHECKS, every solve asserts that no link carries
 * more than its capacity and every step that all bytes were delivered.
 */
#ifndef SC_NET_FLOW_H
#define SC_NET_FLOW_H

#include <stddef.h>

#include "coll/sched.h"
#include "net/route.h"
#include "net/topo.h"

typedef struct flow_stats {
  double time;        /* seconds for the whole schedule */
  long solves;        /* bandwidth re-computations */
  long events;        /* flow starts and finishes simulated */
  int max_flows;      /* largest step, in flows */
  double bytes;       /* bytes delivered (repeats counted) */
  size_t mem_bytes;   /* working memory of the run (routes excluded) */
} flow_stats;

/* Simulate s with rank i on node rank_node[i] (a GPU of t). Routes come
 * from (and are cached in) rt. Returns SC_OK, SC_EINPUT when a transfer
 * has no route or a switch endpoint has no NVSwitch (message names it),
 * or SC_ENOMEM. */
int flow_run(const topo *t, route_table *rt, const sched *s, const int *rank_node,
             flow_stats *out, sc_error *err);

/* Progress of a run: `done` is the fraction of the schedule's transfers
 * (each step counted once) simulated so far, 0..1, reported after every
 * event. The callback decides how often to show it; it must not call the
 * engine. */
typedef void (*flow_progress_fn)(void *ud, double done);

/* flow_run with a progress callback (fn may be NULL). */
int flow_run_ex(const topo *t, route_table *rt, const sched *s, const int *rank_node,
                flow_stats *out, flow_progress_fn fn, void *ud, sc_error *err);

/* A run's working memory kept for the next run: one block, grown to the
 * largest run's arrays (about 0.1-1 MB on the bench's fat-trees) and
 * never shrunk. A caller that runs the engine again and again (a search's
 * job: netcost.h) writes memory already touched instead of pages fresh
 * from the system (docs/search.md, "Threads: a pool kept between
 * searches"). Used by one thread at a time. */
typedef struct flow_scratch {
  void *block;        /* owned */
  size_t cap;         /* its bytes */
} flow_scratch;

void flow_scratch_init(flow_scratch *s);
void flow_scratch_free(flow_scratch *s);

/* flow_run with its arrays in scr (NULL: allocated for the run). The
 * result is flow_run's, bit for bit. */
int flow_run_in(flow_scratch *scr, const topo *t, route_table *rt, const sched *s,
                const int *rank_node, flow_stats *out, sc_error *err);

/* flow_run that also adds the bytes each link carried (repeats counted)
 * into link_bytes[t->n_links] (the caller zeroes it): per-link
 * utilisation is link_bytes / (bw x time). Costs one pass over the active
 * flows' paths per event. */
int flow_run_links(const topo *t, route_table *rt, const sched *s, const int *rank_node,
                   flow_stats *out, double *link_bytes, sc_error *err);

#endif /* SC_NET_FLOW_H */
