/*
 * pool.c -- see pool.h.
 */
#include "cost/pool.h"

#include <assert.h>
#include <math.h>

/* SM clock cycles per thread of ATen's pooling kernels, a + b x taps
 * (pool.h), measured on one H200 (PyTorch 2.11): the eager timings of
 * data/measured/pool_bench_h200.csv (every pass 130 us or longer, none
 * host-bound; the max-pool backward less its fill) and the kernel
 * durations of the Kineto traces in data/measured/traces_h200 (ResNet-50,
 * VGG16, Inception-v3), each as seconds x 261.3e9 SM cycles/s / threads.
 * Where a layout has several shapes at one window the median is taken;
 * the points, per thread:
 *   max fwd   NCHW 2x2 3.07 3.09, 3x3 4.17 4.24 (fp32 4.13)
 *             NHWC 2x2 2.96 3.37 3.20 3.02 2.98 3.40 3.1,
 *                  3x3 4.18 6.23 5.96 5.84 6.35 4.93
 *   max bwd   NCHW 1 window 2.39 2.55, 4 windows 2.81 2.95 2.92
 *             NHWC 1: 1.01 1.38 1.43 1.03 1.03 1.35 1.47,
 *                  4: 2.31 2.27 2.87 2.82 2.29 1.85 2.33
 *   avg fwd   NCHW 3.20 3.20 3.25; NHWC 5.74 5.97 5.90 6.40 6.22 6.30 5.87
 *   avg bwd   NCHW 7.64 7.67 7.76; NHWC 8.79 8.77 8.38 9.02 9.1 9.06 9.1
 * docs/calibration.md "Pooling as PyTorch runs it" tabulates them. */
typedef struct pool_cycles {
  double a, b; /* cycles per thread: a + b x taps */
} pool_cycles;

/* [max][nhwc] */
static const pool_cycles fwd_cycles[2][2] = {
    {{3.2, 0}, {6.1, 0}},      /* average: 3x3 only */
    {{2.22, 0.22}, {0.86, 0.56}}, /* max: 2x2 -> 3.10 / 3.10, 3x3 -> 4.20 / 5.90 */
};
static const pool_cycles bwd_cycles[2][2] = {
    {{7.7, 0}, {8.8, 0}},      /* average: 3x3 stride 1 only */
    {{2.33, 0.143}, {1.03, 0.32}}, /* max: 1 window 2.47 / 1.35, 4 -> 2.90 / 2.31 */
};

/* fp32 lanes per SM, from NVIDIA's architecture whitepapers: Kepler's SMX
 * 192; Pascal GP100, Volta, Turing and GA100 64; GA10x, Ada, Hopper and
 * Blackwell 128. 0 = not an NVIDIA architecture. */
static int fp32_lanes(int arch) {
  if (arch <= 0) return 0;
  if (arch < 50) return 192;
  if (arch < 86) return 64;
  return 128;
}

double cost_pool_sm_rate(const sc_gpu *g) {
  int lanes = fp32_lanes(g->arch);
  if (!lanes || g->vector_flops <= 0) return 0;
  return g->vector_flops / (2.0 * lanes);
}

/* Seconds of `threads` threads of c cycles each at `taps`, or of `bytes`
 * at the HBM rate, whichever is longer. */
static double pass_s(const sc_gpu *g, double rate, pool_cycles c, double taps, double threads,
                     double bytes) {
  double t_thr = threads * (c.a + c.b * taps) / rate;
  double t_mem = bytes / (g->hbm_bw * g->hbm_eff);
  return t_thr > t_mem ? t_thr : t_mem;
}

int cost_pool_aten(const sc_gpu *g, const cost_pool *p, double *fwd, double *bwd) {
  assert(p->kh >= 1 && p->kw >= 1 && p->stride >= 1 && p->in >= 0 && p->out >= 0 && p->e > 0);
  double rate = cost_pool_sm_rate(g);
  if (rate <= 0) return 0;
  int mx = !!p->max, l = !!p->nhwc;
  double bw = g->hbm_bw * g->hbm_eff;
  double idx = mx ? 8.0 * p->out : 0; /* int64 indices, written then read */
  double taps_f = (double)p->kh * p->kw;
  double taps_b = ceil((double)p->kh / p->stride) * ceil((double)p->kw / p->stride);
  *fwd = pass_s(g, rate, fwd_cycles[mx][l], taps_f, p->out, (p->in + p->out) * p->e + idx);
  *bwd = pass_s(g, rate, bwd_cycles[mx][l], taps_b, p->in, (p->in + p->out) * p->e + idx) +
         (mx ? p->in * p->e / bw : 0); /* the zero-fill of the input gradient */
  return 1;
}
