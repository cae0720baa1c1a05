/*
 * fleet.h -- a data-parallel reduction of every group at once on the
 * topology (module prefix: fleet_).
 *
 * After the pipeline flush every data-parallel group of a stage (one per
 * tensor- and context-parallel rank) reduces its gradients at the same
 * time, and on a tapered or oversubscribed fabric their rings share
 * links. The event engine costs its collectives with one group alone
 * (eng.net_alone; the closed form runs them all, engine/netcost.h, on
 * the same placement, engine/place.h); this runs NCCL's schedule
 * (net/ncoll.h) of the stage's gradient all-reduce for all groups of
 * stage 0 together and for one alone, on the scenario's topology (with
 * its link what-ifs), and gives the event engine their ratio. It also measures what each link
 * carries, for the report's busiest links.
 */
#ifndef SC_ENGINE_FLEET_H
#define SC_ENGINE_FLEET_H

#include "engine/evshare.h"
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

/* The scenario's topology (with its link what-ifs) and routes, loaded
 * once for the fleet runs of one prediction. */
typedef struct fleet_net fleet_net;

/* Load the topology of s (resolved); *out is NULL (SC_OK) when it names
 * none or has fewer GPUs than the job. Errors: the topology's. */
int fleet_open(const sc_scenario *s, fleet_net **out, sc_error *err);
void fleet_close(fleet_net *n);

/* op of `bytes` on every group like g in the first pipeline stage at once
 * against one alone. out->factor = 1 and SC_OK when there is nothing to
 * simulate (n NULL, a one-rank group, a group wider than a stage). Errors: a transfer
 * without a route (SC_EINPUT), SC_ENOMEM. */
int fleet_group(fleet_net *n, const sc_scenario *s, const xg_group *g, coll_op op,
                double bytes, fleet *out, sc_error *err);

/* The gradient all-reduce of the first stage on every data-parallel
 * group at once (fleet_group with the stage's parameters). */
int fleet_dp(fleet_net *n, const sc_scenario *s, const xg *x, fleet *out, sc_error *err);

/* What the event loop's own communication puts on the links (evshare.h):
 * the activations (dir 0) or gradients (dir 1) every GPU of stage b
 * sends its counterpart of stage b + 1 across the boundary (fleet_pp), and
 * the gradient all-reduce of every data-parallel group of stage s at
 * once (fleet_dp_at), each at the flow engine's pace. *out is empty (no
 * link) when there is nothing to simulate. SC_OK, the flow engine's
 * errors, SC_ENOMEM. */
int fleet_pp(fleet_net *n, const sc_scenario *s, const xg *x, int b, int dir, evs_demand *out,
             sc_error *err);
int fleet_dp_at(fleet_net *n, const sc_scenario *s, const xg *x, int stage, evs_demand *out,
                sc_error *err);

/* The bytes op of `bytes` on every group like g in pipeline stage
 * `stage` at once puts on each link (out->rate holds BYTES here, not
 * bytes/s): what the collectives inside a pass of that stage move, for
 * the event loop's sharing (evshare.h). *out is empty when there is
 * nothing to simulate. SC_OK, the flow engine's errors, SC_ENOMEM. */
int fleet_group_at(fleet_net *n, const sc_scenario *s, const xg_group *g, coll_op op,
                   double bytes, int stage, evs_demand *out, sc_error *err);

/* fleet_group_at of an MoE flex dispatch or combine (engine/epflex.c) of
 * `bytes` per GPU, `inter` (0..1) of them over the network, on every
 * expert group like g of the stage: its two legs' all-to-alls, each on
 * every copy of its group at once (the network leg between one rank per
 * node, the NVLink leg inside each node), their bytes per link summed. */
int fleet_flex_at(fleet_net *n, const sc_scenario *s, const xg_group *g, double bytes,
                  double inter, int stage, evs_demand *out, sc_error *err);

/* The topology's links: their count and each one's bandwidth (bytes/s)
 * into bw (room for fleet_links(n, NULL)). */
int fleet_links(const fleet_net *n, double *bw);

#endif
