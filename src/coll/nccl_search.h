/*
 * nccl_search.h -- the speed walk and channel duplication that NCCL's
 * topology search (src/graph/search.cc ncclTopoCompute,
 * ncclTopoDupChannels, 2.30.7) applies to every graph, shared by the
 * one-node ring search (nccl_rings.c) and the search across nodes
 * (nccl_net.c), which differ only in their speed tables and in how many
 * channels fit at a speed (module prefix: nccl_search_).
 */
#ifndef SC_COLL_NCCL_SEARCH_H
#define SC_COLL_NCCL_SEARCH_H

/* A graph's maxChannels: MAXCHANNELS (64, src/include/device.h 2.30.7)
 * / 2 (src/init.cc). */
#define NCCL_SEARCH_MAX_CHANNELS 32

/* Channels that fit at speed s (GB/s per channel), given ctx. */
typedef int (*nccl_search_fit_fn)(const void *ctx, double s);

/* Pass 1 of ncclTopoCompute over the speed table sp[0..n-1] (descending,
 * GB/s): from the first speed <= max_bw, keep (channels, speed) only if
 * channels x speed grows strictly (ncclTopoCompareGraphs); stop at
 * NCCL_SEARCH_MAX_CHANNELS channels or channels x speed >= total_bw, else
 * step down while next / best speed > 0.49. *nch 0 when no speed fits. */
void nccl_search_pass1(const double *sp, int n, double max_bw, double total_bw,
                       nccl_search_fit_fn fit, const void *ctx, int *nch, double *bw);

/* ncclTopoDupChannels: double the channels (at most
 * NCCL_SEARCH_MAX_CHANNELS) and divide their bw, unless bw < 25 GB/s, or
 * arch > 80 and bw < 50 with more than 4 channels. */
void nccl_search_dup(int arch, int *nch, double *bw);

#endif
