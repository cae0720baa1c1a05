/*
 * cluster_presets.h -- filling a cluster from a named preset (module
 * prefix: clus_).
 *
 * The table behind sc_cluster_preset() is static read-only data, so its
 * `gpu` member holds only the GPU preset id (gpu.name); the GPU constants
 * live in gpu_presets.c. clus_preset_fill() returns the complete cluster,
 * with the GPU copied from sc_gpu_preset(gpu.name).
 */
#ifndef SC_CLUSTER_PRESETS_H
#define SC_CLUSTER_PRESETS_H

#include "stepcast.h"

/* Copy the cluster preset `name` (case-insensitive) into *out and fill
 * out->gpu from its GPU preset. Returns 1 on success; 0 when the cluster
 * or its GPU preset is unknown, in which case *out is unchanged. */
int clus_preset_fill(sc_cluster *out, const char *name);

/* The reference system of GPU preset `gpu` (case-insensitive): the first
 * cluster preset in table order with that GPU and a network (nic_bw > 0),
 * whose gpu member holds only the GPU id; NULL when none (a GPU no preset
 * server carries: v100-sxm2-16gb, k80, a custom GPU). */
const sc_cluster *clus_reference(const char *gpu);

#endif /* SC_CLUSTER_PRESETS_H */
