/*
 * fabrics.h -- the kinds of scale-out network NCCL runs over (module
 * prefix: fab_): what each changes in NCCL's cost model (coll_nccl.c).
 * Public entry points are sc_fabric_* in stepcast.h.
 */
#ifndef SC_COLL_FABRICS_H
#define SC_COLL_FABRICS_H

#include "stepcast.h"

/* One network traversal of NCCL's Ring LL protocol per fabric,
 * microseconds: constants for static tables (the cluster presets); their
 * sources are in fabrics.c's table. */
#define FAB_INFINIBAND_HOP_US 2.7
#define FAB_ROCE_HOP_US 2.7
#define FAB_EFA_HOP_US 70.9
#define FAB_TCPXO_HOP_US 43.5

/* Names of the fabrics, index = sc_fabric (the scenario's cluster.fabric
 * enum and `stepcast collective --fabric`). */
extern const char *const fab_names[SC_FABRIC_COUNT];

/* Names of the servers' CPUs, index = sc_host_cpu (cluster.host_cpu and
 * `stepcast collective --host-cpu`). */
extern const char *const fab_cpu_names[SC_CPU_COUNT];

/* One network traversal of NCCL's Ring LL protocol on fabric f, in
 * microseconds (NCCL's hwLat NET Ring LL is 2.7 on InfiniBand); out of
 * range as InfiniBand. */
double fab_hop_us(int f);

/* Bus bandwidth NCCL reaches across nodes per unit of NIC line rate at
 * large sizes on fabric f (a fraction); out of range as InfiniBand. */
double fab_net_eff(int f);

#endif
