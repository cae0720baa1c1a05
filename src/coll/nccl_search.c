/*
 * nccl_search.c -- NCCL's speed walk (pass 1) and channel duplication,
 * shared by the ring searches (nccl_search.h).
 */
#include "coll/nccl_search.h"

/* search.cc: "speedArray[speedIndex + 1] / graph->bwInter > .49" */
#define STEP_RATIO 0.49
/* ncclTopoDupChannels thresholds, GB/s per channel (search.cc 2.30.7). */
#define DUP_MIN_BW 25.0
#define DUP_MIN_BW_SM90 50.0
#define DUP_MAX_CH_SM90 4

void nccl_search_pass1(const double *sp, int n, double max_bw, double total_bw,
                       nccl_search_fit_fn fit, const void *ctx, int *nch, double *bw) {
  int i = 0;
  *nch = 0;
  *bw = 0.0;
  while (i < n - 1 && sp[i] > max_bw) i++;
  for (;;) {
    int k = fit(ctx, sp[i]);
    if (k > NCCL_SEARCH_MAX_CHANNELS) k = NCCL_SEARCH_MAX_CHANNELS;
    if (k >= 1 && k * sp[i] > *nch * *bw) *nch = k, *bw = sp[i];
    if (*nch == NCCL_SEARCH_MAX_CHANNELS || *nch * *bw >= total_bw) break;
    if (i < n - 1 && (*nch == 0 || sp[i + 1] / *bw > STEP_RATIO))
      i++;
    else
      break;
  }
}

void nccl_search_dup(int arch, int *nch, double *bw) {
  if (*bw < DUP_MIN_BW) return;
  if (arch > 80 && *bw < DUP_MIN_BW_SM90 && *nch > DUP_MAX_CH_SM90) return;
  int dup = 2 * *nch < NCCL_SEARCH_MAX_CHANNELS ? 2 * *nch : NCCL_SEARCH_MAX_CHANNELS;
  *bw /= (dup + *nch - 1) / *nch; /* DIVUP */
  *nch = dup;
}
