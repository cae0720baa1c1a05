/*
 * nccl_net.c -- NCCL's ring and tree search across nodes, emulated from
 * NCCL 2.30.7 (../shared/reference/nccl/src/graph/search.cc
 * ncclTopoCompute, ncclTopoSearchRecNet, ncclTopoDupChannels; tuning.cc
 * ncclTopoTuneModel) for nodes whose GPUs each have their own NIC rail.
 *
 * With system->inter set, every channel of a ring leaves the node through
 * a NIC and enters it through one (NET n -> GPU a -> ... -> GPU x ->
 * NET m): ncclTopoSearchRecNet takes the channel's bw off the NIC
 * (net.bw -= bw) and skips a NIC with less than bw left, and inside the
 * node the channel uses bw of every GPU's NVLinks each way. So at speed s
 * the search finds min(rails * floor(nic / s), floor(nvl / s)) channels
 * (at most maxChannels, MAXCHANNELS / 2 = 32), trying the arch's
 * speedArrayInter from the first speed <= the GPU-to-NIC bandwidth
 * (system->maxBw) down, keeping a graph only if nChannels * bw grows
 * strictly (ncclTopoCompareGraphs), stepping down while next / best bw >
 * 0.49, stopping at maxChannels or nChannels * bw >= totalBw (the GPU's
 * NVLink). Then ncclTopoDupChannels (none below 25 GB/s a channel, nor on
 * sm90+ below 50 with more than 4 channels), and pass 2, which for rings
 * raises the speed while the NICs allow (they do not: the search already
 * started at the NIC's speed) and for trees raises bwIntra alone while
 * bwIntra < 2 bwInter ("increase bwIntra for trees (2 nodes or
 * collnet)") and the NVLinks carry it.
 *
 * The tuner (tuning.cc) reads bwIntra for every algorithm on one or two
 * nodes ("float bw = nNodes <= 2 || collnet ? graphs[a]->bwIntra :
 * graphs[a]->bwInter"), bwInter on more: a ring's bwIntra equals its
 * bwInter, a tree's on two nodes is the raised one (bw_tree_2).
 *
 * Not emulated: PCIe between GPU and NIC (NCCL's Gen4 x16 path is 24
 * GB/s, the first sm80 speed under an HDR NIC's 25 anyway), nodes with
 * fewer NICs than GPUs (callers give one rail per GPU at the per-GPU
 * share), crossNic, PXN and the search's timeouts.
 *
 * Worked out by hand in tests/test_nccl_net.c: 8 A100 + 8 x 200 Gb/s
 * (25 GB/s, NVLink 12 x 20 = 240): 8 x 24, tree bwIntra 30; 8 H100
 * (18 x 20.6 = 370.8) + 8 x 200 Gb/s: 8 x 24, tree 45.
 */
#include "coll/nccl_net.h"
#include "coll/nccl_search.h"

#include <assert.h>
#include <math.h>

/* speedArrayInter, sm90SpeedArrayInter, sm100SpeedArrayInter, GB/s:
 * NCCL src/graph/search.cc (2.30.7). */
static const double inter_sm70[] = {48.0, 30.0, 28.0, 24.0, 20.0, 18.0, 15.0,
                                    12.0, 10.0, 9.0,  7.0,  6.0,  5.0,  4.0,
                                    3.0,  2.4,  1.2,  0.24, 0.12};
static const double inter_sm90[] = {48.0, 45.0, 42.0, 40.0, 30.0, 24.0,
                                    22.0, 20.0, 17.5, 15.0, 12.0, 6.0,
                                    3.0,  2.4,  1.2,  0.24, 0.12};
static const double inter_sm100[] = {96.0, 86.0, 80.0, 48.0, 45.1, 42.0, 40.0,
                                     30.0, 24.0, 22.0, 20.0, 17.5, 15.0, 12.0,
                                     6.0,  3.0,  2.4,  1.2,  0.24, 0.12};
#define NSPEEDS(a) ((int)(sizeof(a) / sizeof((a)[0])))

/* The step-down ratio, maxChannels and ncclTopoDupChannels' thresholds
 * are shared with the one-node search: nccl_search.h. */
/* NCCL rounds its link arithmetic to 1e-3 GB/s (search.cc SUB_ROUND). */
#define NET_TOL 1e-6

typedef struct net_sys {
  const double *sp; /* the arch's speedArrayInter */
  int nsp;
  int rails;
  double nic, nvl; /* GB/s */
} net_sys;

/* Channels the search fits at speed s. */
static int channels_at(const net_sys *ns, double s) {
  double by_nic = ns->rails * floor(ns->nic / s + NET_TOL);
  double by_nvl = floor(ns->nvl / s + NET_TOL);
  double k = fmin(fmin(by_nic, by_nvl), NCCL_SEARCH_MAX_CHANNELS);
  return (int)k;
}

/* channels_at for nccl_search_pass1: ctx is the net_sys. */
static int fit_net(const void *ctx, double s) { return channels_at(ctx, s); }

/* Pass 2 of the tree: bwIntra up the speed table while below twice
 * bwInter and the NVLinks carry nch channels at it. */
static double tree_bw_intra(const net_sys *ns, const nccl_net_graph *g) {
  int i = 0;
  while (i < ns->nsp - 1 && ns->sp[i] > g->bw_inter) i++;
  double bw = g->bw_inter;
  while (i > 0 && bw < 2 * g->bw_inter) {
    double next = ns->sp[i - 1];
    if (g->nch * next > ns->nvl + NET_TOL) break;
    bw = next;
    i--;
  }
  return bw;
}

nccl_net_graph nccl_net_search(int arch, int rails, double nic_gbs, double nvl_gbs) {
  assert(rails >= 1 && nic_gbs > 0 && nvl_gbs > 0);
  net_sys ns = {arch >= 100 ? inter_sm100 : arch >= 90 ? inter_sm90 : inter_sm70,
                arch >= 100 ? NSPEEDS(inter_sm100)
                : arch >= 90 ? NSPEEDS(inter_sm90) : NSPEEDS(inter_sm70),
                rails, nic_gbs, nvl_gbs};
  nccl_net_graph g = {0, 0.0, 0.0};
  nccl_search_pass1(ns.sp, ns.nsp, fmin(nic_gbs, nvl_gbs), nvl_gbs, fit_net, &ns, &g.nch,
                    &g.bw_inter);
  if (g.nch == 0) { /* slower than NCCL's table: one channel at the NIC */
    nccl_net_graph one = {1, fmin(nic_gbs, nvl_gbs), fmin(nic_gbs, nvl_gbs)};
    return one;
  }
  nccl_search_dup(arch, &g.nch, &g.bw_inter);
  g.bw_tree_2 = tree_bw_intra(&ns, &g);
  assert(g.nch >= 1 && g.nch <= NCCL_SEARCH_MAX_CHANNELS && g.bw_inter > 0);
  assert(g.bw_tree_2 >= g.bw_inter); /* pass 2 only raises bwIntra */
  return g;
}

/* NCCL src/graph/connect.cc (2.30.7) ncclTopoPostset: "nChannels =
 * comm->nChannels = std::min(MAXCHANNELS, nChannels * 2)", then "Use 4
 * compute channels per search channel to reach peak BW on <8 PPN":
 * minCompCap >= 90, nNodes > 1, bwIntra > 45.0, nChannels < 16. The cap
 * is NCCL 2.18's MAXCHANNELS 32 (devcomm.h), which the model kept across
 * nodes before this search; 2.30.7's is 64. */
#define NET_KERNEL_MAX_CHANNELS 32
#define NET_QUAD_MIN_BW 45.0
#define NET_QUAD_BELOW 16

int nccl_net_kernel_channels(const nccl_net_graph *g, int arch) {
  assert(g && g->nch >= 1 && g->nch <= NCCL_SEARCH_MAX_CHANNELS);
  int nc = 2 * g->nch;
  if (arch >= 90 && g->bw_inter > NET_QUAD_MIN_BW && nc < NET_QUAD_BELOW) nc *= 2;
  return nc < NET_KERNEL_MAX_CHANNELS ? nc : NET_KERNEL_MAX_CHANNELS;
}
