/*
 * nccl_rings.c -- NCCL's ring search on one NVSwitch node, emulated
 * from NCCL 2.30.7 (../shared/reference/nccl/src/graph/search.cc
 * ncclTopoCompute, ncclTopoDupChannels, ncclTopoCompareGraphs; connect.cc
 * ncclTopoPostset; init.cc).
 *
 * On an NVSwitch node every GPU has one NVLink edge to the switch of
 * gpu_bw GB/s per direction (its links times SMxx_NVLINK_BW), so a ring
 * at speed s uses s of each GPU's edge both ways and the search finds
 * floor(gpu_bw / s) rings at that speed (capped at the ring graph's
 * maxChannels); system->maxBw = system->totalBw = gpu_bw (getMaxBw,
 * getTotalBw). ncclTopoCompute then:
 *  pass 1: starts at the first speed <= gpu_bw of the arch's
 *    speedArrayIntra; keeps a graph only if nChannels * bw is strictly
 *    larger than the best so far (ncclTopoCompareGraphs); stops when the
 *    rings reach maxChannels or nChannels * bw >= totalBw, else steps to
 *    the next lower speed while next / best bw > 0.49;
 *  ncclTopoDupChannels: doubles the rings and halves their bw unless
 *    bw < 25, or arch > 80 and bw < 50 and more than 4 rings;
 *  pass 2: from the first speed <= the duplicated bw, tries each higher
 *    speed with minChannels = the duplicated count, kept under the same
 *    comparison.
 * The search's timeouts never bind on a single switch node (one edge per
 * GPU), so they are not modelled. NCCL falls back to one ring at 0.1 GB/s
 * when no speed fits; we keep one ring at gpu_bw there instead (only an
 * NVLink slower than 3 GB/s reaches it, no preset does).
 *
 * Worked out by hand in tests/test_nccl_rings.c: 8 x A100 (12 x 20 = 240)
 * 6 x 40 -> 12 x 20; 8 x H100 (18 x 20.6 = 370.8) 6 x 60 -> 12 x 30 = 360;
 * B200 (18 x 40.1 = 721.8) 8 x 90 -> 16 x 45 = 720.
 */
#include "coll/nccl_rings.h"
#include "coll/nccl_search.h"

#include <assert.h>
#include <math.h>

/* speedArrayIntra, sm90SpeedArrayIntra, sm100SpeedArrayIntra, GB/s:
 * NCCL src/graph/search.cc (2.30.7). */
static const double speeds_sm70[] = {40.0, 30.0, 20.0, 18.0, 15.0, 12.0, 10.0,
                                     9.0,  7.0,  6.0,  5.0,  4.0,  3.0};
static const double speeds_sm90[] = {60.0, 50.0, 40.0, 30.0, 24.0, 20.0,
                                     15.0, 12.0, 11.0, 6.0,  3.0};
static const double speeds_sm100[] = {90.0, 80.0, 70.0, 60.0, 50.0, 45.0,
                                      40.0, 30.0, 24.0, 20.0, 19.0, 18.0};
#define NSPEEDS(a) ((int)(sizeof(a) / sizeof((a)[0])))

/* MAXCHANNELS 64: NCCL src/include/device.h (2.30.7); the ring graph's
 * maxChannels is half of it (NCCL_SEARCH_MAX_CHANNELS, nccl_search.h). */
#define NCCL_MAXCHANNELS 64

/* Rings found at speed s: floor(gpu_bw / s), NCCL's link arithmetic is
 * rounded to 1e-3 GB/s (search.cc SUB_ROUND), hence the tolerance. */
static int rings_at(double gpu_bw, double s) {
  double k = floor(gpu_bw / s + 1e-6);
  return k > NCCL_SEARCH_MAX_CHANNELS ? NCCL_SEARCH_MAX_CHANNELS : (int)k;
}

/* rings_at for nccl_search_pass1: ctx is the GPU's bw (const double). */
static int fit_rings(const void *ctx, double s) { return rings_at(*(const double *)ctx, s); }

/* Keeps (k, s) if strictly better than *g (ncclTopoCompareGraphs). */
static void compare(nccl_ring_graph *g, int k, double s, int min_k) {
  if (k < 1 || k < min_k) return;
  if (k * s > g->nch * g->bw) g->nch = k, g->bw = s;
}

static void pass2(nccl_ring_graph *g, const double *sp, int n, double gpu_bw) {
  int i = 0;
  while (sp[i] > g->bw && i < n - 1) i++;
  int min_k = g->nch;
  while (i > 0) {
    i--;
    compare(g, rings_at(gpu_bw, sp[i]), sp[i], min_k);
  }
}

nccl_ring_graph nccl_rings_search(int arch, double gpu_bw) {
  assert(gpu_bw > 0);
  const double *sp = arch >= 100 ? speeds_sm100 : arch >= 90 ? speeds_sm90 : speeds_sm70;
  int n = arch >= 100 ? NSPEEDS(speeds_sm100)
          : arch >= 90 ? NSPEEDS(speeds_sm90) : NSPEEDS(speeds_sm70);
  nccl_ring_graph g;
  nccl_search_pass1(sp, n, gpu_bw, gpu_bw, fit_rings, &gpu_bw, &g.nch, &g.bw);
  if (g.nch == 0) {
    nccl_ring_graph one = {1, gpu_bw};
    return one;
  }
  nccl_search_dup(arch, &g.nch, &g.bw);
  pass2(&g, sp, n, gpu_bw);
  return g;
}

int nccl_rings_kernel_channels(int nch) {
  return 2 * nch < NCCL_MAXCHANNELS ? 2 * nch : NCCL_MAXCHANNELS;
}
