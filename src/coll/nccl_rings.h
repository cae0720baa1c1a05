/*
 * nccl_rings.h -- the ring graph NCCL's topology search settles on inside
 * one NVSwitch node, and the channels its kernels then run on.
 */
#ifndef SC_COLL_NCCL_RINGS_H
#define SC_COLL_NCCL_RINGS_H

/* NCCL's ring graph: nChannels rings at bwIntra GB/s each. */
typedef struct nccl_ring_graph {
  int nch;   /* rings after ncclTopoDupChannels (the tuner's nChannels) */
  double bw; /* GB/s per ring (the graph's bwIntra) */
} nccl_ring_graph;

/* The ring graph ncclTopoCompute finds for GPUs of compute capability
 * `arch` (70, 80, 86, 90, 100, ...) whose NVLinks to the node's NVSwitch
 * carry `gpu_bw` GB/s per direction in NCCL's units (links times
 * SMxx_NVLINK_BW), one node. When no speed of NCCL's table fits
 * (gpu_bw below its smallest), one ring at gpu_bw (see the .c). */
nccl_ring_graph nccl_rings_search(int arch, double gpu_bw);

/* Channels the kernels run on for a ring graph of `nch` rings
 * (ncclTopoPostset doubles them, capped at MAXCHANNELS). */
int nccl_rings_kernel_channels(int nch);

#endif
