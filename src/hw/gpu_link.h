/*
 * gpu_link.h -- the names of what joins a GPU to the other GPUs of its
 * server (sc_gpu_link, stepcast.h), for the readers and writers of them
 * (module prefix: gpu_link_).
 */
#ifndef SC_HW_GPU_LINK_H
#define SC_HW_GPU_LINK_H

#include "stepcast.h"

#define GPU_LINKS (SC_LINK_INFINITY_FABRIC + 1)

/* Each sc_gpu_link's key, in enum order: the scenario's cluster.gpu.link
 * and the presets' JSON and CSV ("nvlink", "pcie", "infinity_fabric"). */
extern const char *const gpu_link_keys[GPU_LINKS];

/* The same as a table names it ("NVLink", "PCIe", "Infinity Fabric"); a
 * value out of range reads as NVLink (sc_gpu's zero value). */
const char *gpu_link_label(sc_gpu_link l);

/* gpu_link_keys[l], out of range as NVLink. */
const char *gpu_link_key(sc_gpu_link l);

#endif /* SC_HW_GPU_LINK_H */
