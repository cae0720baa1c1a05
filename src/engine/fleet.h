/*
 * fleet.h -- a data-parallel reduction of every group at once on the
 * topology (module prefix: fleet_).
 *
 * After the pipeline flush every data-parallel group of a stage (one per
 * tensor- and context-parallel rank) reduces its gradients at the same
 * time, and on a tapered or oversubscribed fabric their rings share
 * links. The step model's collective times run one group alone
 * (engine/netcost.h); this runs NCCL's schedule (net/ncoll.h) of the
 * stage's gradient all-reduce for all groups of stage 0 together and for
 * one alone, on the scenario's topology (with its link what-ifs), and
 * gives the event engine their ratio. It also measures what each link
 * carries, for the report's busiest links.
 */
#ifndef SC_ENGINE_FLEET_H
#define SC_ENGINE_FLEET_H

#include "exec/xg.h"
#include "stepcast.h"

#define FLEET_TOP 5

typedef struct fleet_link {
  char src[32], dst[32];  /* node names */
  double util;            /* bytes / (bw x the fleet's time), 0..1 */
  double bytes;           /* carried in the fleet's reduction */
} fleet_link;

typedef struct fleet {
  double factor;          /* fleet time / alone time, >= 1 in practice */
  double alone_s, fleet_s;/* flow-engine seconds */
  double bytes;           /* the all-reduce's size, bytes */
  int groups;             /* groups reducing at once */
  fleet_link top[FLEET_TOP]; /* busiest links, most utilised first */
  int n_top;
} fleet;

/* The reduction of scenario s (resolved, cluster.topology set) lowered
 * into x. out->factor = 1 and SC_OK when there is nothing to simulate (no
 * topology, no data parallelism, fewer GPUs in the topology). Errors:
 * the topology's (load, link what-ifs), a transfer without a route
 * (SC_EINPUT), SC_ENOMEM. */
int fleet_dp(const sc_scenario *s, const xg *x, fleet *out, sc_error *err);

#endif
