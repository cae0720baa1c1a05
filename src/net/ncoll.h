/*
 * ncoll.h -- a collective as NCCL runs it, on a topology (module prefix:
 * ncoll_).
 *
 * The schedule of NCCL's algorithm for the op (ncoll_schedule: rings one
 * per GPU of a node, each on its own NIC rail, for all-reduce,
 * reduce-scatter and all-gather; every peer at once for all-to-all; one
 * transfer for send/recv; a pipelined chain for broadcast and reduce) runs
 * through the flow engine twice: on the topology, and on the reference
 * fabric the closed form assumes -- NVSwitch servers of the group's
 * ranks_per_node GPUs with its NVLink bandwidth, one NIC per GPU at its
 * NIC bandwidth, a non-blocking rail-optimized Clos (topo_gen "rail").
 * Their ratio is what the network does to the collective, applied to the
 * bandwidth part of NCCL's closed form (coll_nccl_time):
 *
 *   T = L + (T_nccl - L) * flow(topology) / flow(reference)
 *
 * L is the launch overhead plus NCCL's latency of the algorithm and
 * protocol it picks. T_nccl is the closed form with its links alone:
 * where the GPU's memory holds NCCL's kernels (A100), T is at least the
 * closed form with the memory alone, which no network changes
 * (coll_nccl_time_split); on the reference both give the closed form.
 * So a collective alone on an idle network that is the reference takes
 * exactly what the closed form says (protocol
 * efficiency and per-hop latency included), and a tapered,
 * oversubscribed or degraded network, or other traffic on the same links
 * (ncoll_scale with a flow time measured beside it), slows it by what the
 * flow engine sees.
 */
#ifndef SC_NET_NCOLL_H
#define SC_NET_NCOLL_H

#include "coll/coll.h"
#include "coll/sched.h"
#include "net/flow.h"
#include "net/route.h"
#include "net/topo.h"

/* NCCL's schedule of op over n ranks, ppn per node (ppn divides n), for
 * `bytes` (nccl-tests size). 0, or -1 when out of memory. */
int ncoll_schedule(sched *s, coll_op op, double bytes, int n, int ppn);

/* L above: launch + latency of NCCL's choice for op on g, seconds. */
double ncoll_fixed(coll_op op, double bytes, const coll_group *g);

/* Flow-engine seconds of ncoll_schedule on the reference fabric of g.
 * SC_OK, SC_EINPUT (a group the generator cannot build) or SC_ENOMEM. */
int ncoll_reference(coll_op op, double bytes, const coll_group *g, double *flow_s,
                    sc_error *err);

/* T above from its parts (flow_ref > 0). */
double ncoll_scale(double nccl, double fixed, double flow_topo, double flow_ref);

/* The whole computation for one collective alone on topology t, rank i
 * on node rank_node[i]: *seconds = T; *flow_s (may be NULL) = the flow
 * engine's seconds on t. fn (may be NULL) gets the progress of the run on
 * t. Errors as flow_run's and ncoll_reference's. */
int ncoll_time(const topo *t, route_table *rt, coll_op op, double bytes, const coll_group *g,
               const int *rank_node, flow_progress_fn fn, void *ud, double *seconds,
               double *flow_s, sc_error *err);

#endif /* SC_NET_NCOLL_H */
