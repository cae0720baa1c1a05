/*
 * gpu_link.c -- see gpu_link.h.
 */
#include "hw/gpu_link.h"

const char *const gpu_link_keys[GPU_LINKS] = {"nvlink", "pcie", "infinity_fabric"};
static const char *const labels[GPU_LINKS] = {"NVLink", "PCIe", "Infinity Fabric"};

static sc_gpu_link in_range(sc_gpu_link l) {
  return (unsigned)l < GPU_LINKS ? l : SC_LINK_NVLINK;
}

const char *gpu_link_label(sc_gpu_link l) { return labels[in_range(l)]; }

const char *gpu_link_key(sc_gpu_link l) { return gpu_link_keys[in_range(l)]; }
