/*
 * nccl_net.h -- the ring and tree graphs NCCL's topology search settles
 * on when a communicator spans several nodes (module prefix: nccl_net_).
 */
#ifndef SC_COLL_NCCL_NET_H
#define SC_COLL_NCCL_NET_H

/* NCCL's inter-node graphs, in NCCL's units (GB/s per channel). */
typedef struct nccl_net_graph {
  int nch;          /* channels of the ring (and tree) graph: the tuner's
                       nChannels, before ncclTopoPostset doubles them */
  double bw_inter;  /* GB/s per channel across the network (bwInter; the
                       ring's bwIntra too) */
  double bw_tree_2; /* the tree graph's bwIntra: what the tuner uses for
                       the tree on two nodes (search.cc pass 2 "increase
                       bwIntra for trees") */
} nccl_net_graph;

/* The graphs ncclTopoCompute finds for GPUs of compute capability `arch`
 * on nodes with `rails` NICs of `nic_gbs` GB/s each (one rail per GPU:
 * rails = GPUs per node) and `nvl_gbs` GB/s of NVLink per GPU per
 * direction in NCCL's units (links times SMxx_NVLINK_BW). rails >= 1,
 * nic_gbs > 0, nvl_gbs > 0. */
nccl_net_graph nccl_net_search(int arch, int rails, double nic_gbs, double nvl_gbs);

/* Channels the kernels run on for graph g across nodes (connect.cc
 * ncclTopoPostset: doubled, at most MAXCHANNELS; doubled again on sm90+
 * while fewer than 16 when a channel's bw is above 45 GB/s). */
int nccl_net_kernel_channels(const nccl_net_graph *g, int arch);

#endif
