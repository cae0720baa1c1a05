/*
 * netcost.h -- collective times on a named topology, for the step model
 * (module prefix: ncost_).
 *
 * When a scenario names a topology (cluster.topology: a generator spec or
 * a .json file, docs/network.md), each collective of a parallel group is
 * also run through the flow engine on that topology: the group's ranks
 * are GPUs base, base+stride, ... of the topology in its GPU order (rank r
 * of the job is the topology's r-th GPU), the algorithm is the one NCCL
 * would run (rings for all-reduce, reduce-scatter and all-gather, one per
 * member of an NVLink domain so that each leaves through its own NIC;
 * pairwise for all-to-all; a direct transfer for send/recv). The time is
 *   max(NCCL model on the group's link bandwidths,
 *       flow-engine time on the topology),
 * so a non-blocking fabric changes nothing and an oversubscribed,
 * tapered or torus network slows what it should. Every replica group of
 * the collective's kind runs it at the same time in a step, so the flow
 * engine runs them all (the `window` of ncost_time; docs/network.md,
 * "Replica groups at once"). Where max-min sharing
 * leaves no choice (net/flowcf.h: the large rings of an oversubscribed
 * fat-tree) the flow time comes in closed form, from one pass over the
 * group shape's schedule at one byte, instead of a simulation: the exact
 * max-min time, which the engine reaches within its 0.1 % event
 * precision. Other results are memoised per (op, size, ranks, stride): a
 * prediction runs each distinct collective once, at its size rounded to
 * 16 significant bits with the time scaled to the exact size (within
 * 0.0015 %; netcost.c on_grid).
 *
 * Threads: the jobs of a search's threads each hold an ncost opened by
 * ncost_open_sharing on the first job's. They share the topology, the
 * memo of flow-engine runs, the bounds and the failure (each read and
 * written under the shared core's own mutex: netcost.c); each has its own
 * route table (routes are filled in lazily), so their simulations run
 * side by side,
 * and the tables share the first job's per-source hop counts
 * (route_new_sharing: each breadth-first search runs once per search,
 * published lock-free and read-only after). A thread that needs an
 * entry another computes takes a collective posted in want mode
 * (ncost_want, ncost_help) meanwhile, else sleeps until an entry is
 * stored. Which thread computes an entry changes nothing: it depends on
 * its key alone.
 * One ncost is used by one thread at a time.
 */
#ifndef SC_ENGINE_NETCOST_H
#define SC_ENGINE_NETCOST_H

#include "coll/coll.h"
#include "net/topo.h"
#include "stepcast.h"

typedef struct ncost ncost;

/* The topology cluster.topology names with the cluster's link what-ifs
 * (cluster.link_fail, cluster.link_degrade) applied, into *out (the
 * caller's: topo_free); NULL and SC_OK when it names none. Errors: the
 * topology's own, the what-ifs', and what-ifs without a topology
 * (SC_EINPUT); *out NULL then. Every reader of the cluster's topology
 * (ncost_open, fleet_open, the dp schemes' dp_topo_rate) loads it here. */
int ncost_topology(const sc_cluster *c, topo **out, sc_error *err);

/* Load the topology the cluster names. *out is NULL (and SC_OK returned)
 * when it names none. Errors: the topology's own (file:line:column or the
 * element), or SC_EINPUT when it has fewer GPUs than the cluster. */
int ncost_open(const sc_cluster *c, ncost **out, sc_error *err);
/* A view of base (NULL: *out NULL) for another thread: base's topology,
 * memo, bounds and hop counts, its own route table. Close it before
 * base. SC_ENOMEM. */
int ncost_open_sharing(ncost *base, ncost **out, sc_error *err);
void ncost_close(ncost *n);
/* Run n's flow engine in fs's memory (flow_run_in; borrowed, outliving
 * n: a job keeps it from one search to the next, job_park), not in
 * arrays allocated per run. n NULL: nothing. */
struct flow_scratch; /* net/flow.h */
void ncost_lend_scratch(ncost *n, struct flow_scratch *fs);

/* Seconds of op over `ranks` GPUs `stride` apart (starting at GPU 0),
 * `per` of them in each NVLink domain, given NCCL's closed-form time
 * `nccl` (without the per-call overhead), while every other group of the
 * same shape in the first `window` job ranks runs the same collective at
 * once (engine/place.h: the groups of its kind in a pipeline stage, or
 * the two stages of a send/recv); window 0 -- or one where no other group
 * fits -- runs the group alone. The flow engine then runs all those
 * groups' schedules side by side and the time is the last one's end. When the flow engine cannot run
 * (out of memory, or a transfer without a route) it returns `nccl` and
 * keeps the error for ncost_error: a caller must check it before it uses
 * the times. */
double ncost_time(ncost *n, coll_op op, double bytes, int ranks, int stride, int window,
                  int per, double nccl);

/* A lower bound of ncost_time's seconds, without running the flow
 * engine: the larger of `nccl` and the link-load bound of the schedule
 * ncost_time would simulate -- for each step the most any link carries
 * over its bandwidth (no sharing can deliver those bytes sooner) or the
 * longest path latency, summed over the steps, less 1 % for the flow
 * engine's event precision. Computed once per (op, ranks, stride) at one
 * byte (every transfer of the schedules is proportional to the size) and
 * scaled; with the other groups of `window` as ncost_time. Failures as
 * ncost_time's. */
double ncost_bound(ncost *n, coll_op op, double bytes, int ranks, int stride, int window,
                   int per, double nccl);

/* Want mode, for a search whose threads cost plans side by side (on = 1;
 * off: 0): a collective whose shape is not bounded yet or whose
 * flow-engine run is not in the memo is not computed but posted for
 * ncost_help, and costs `nccl` meanwhile: what the caller computes then is not the prediction (and
 * ncost_failed says 1, so that nothing costed with it is remembered).
 * Returns 1 when a collective was posted since want mode was turned on
 * (the caller then evaluates again, out of want mode: its own run takes
 * the posted collectives from the first while other threads take them
 * from the last, ncost_help), else 0 (what it computed is exact). NULL:
 * 0. */
int ncost_want(ncost *n, int on);
/* On n's thread: compute one collective another thread's ncost posted
 * (the last posted that no thread is computing, and whose shape is not
 * being bounded by another) into the shared memo, its failure left to the
 * poster's own run. 1 when one was taken, or when the collectives posted
 * all wait for entries other threads compute (it then sleeps until one
 * is stored: ask again); 0 when none is left (NULL: 0). A thread of
 * ncost_time that waits for an entry another thread computes takes
 * posted collectives meanwhile, too. */
int ncost_help(ncost *n);

/* 1 when a failure is waiting for ncost_error, or in want mode when a
 * collective was posted (0 for NULL). */
int ncost_failed(const ncost *n);

/* The first failure of ncost_time since the last call (SC_OK when none),
 * copied into err; the error is then forgotten. n may be NULL. */
int ncost_error(ncost *n, sc_error *err);

#endif
