/*
 * conv.c -- convolution kernel times; see conv.h for the model.
 *
 * COST_CONV_DEFAULT was fitted by `tools/calib/conv_check --fit` to the
 * 158 convolution passes (53 forward, 52 data- and 53 weight-gradient)
 * of ../shared/traces/kineto_tb_plugin_resnet50 (PyTorch, torchvision
 * ResNet-50, batch 32, fp32, Tesla V100-DGXS-32GB: cuDNN's implicit-GEMM
 * and Winograd kernels as PyTorch's heuristics chose them; median over 5
 * profiler steps), least mean absolute log error per kernel. The
 * per-kernel table is tools/calib/kineto_resnet50_v100_convs.txt
 * (tools/calib/kineto_conv.py extracts it); docs/calibration.md lists
 * the fit and its residual. No tensor-core convolution is measured in
 * ../shared: tensor-core convolutions take the GPU's large-GEMM
 * efficiency (the cuBLASLt fit of cost/compute.c) times tc_ratio = 1,
 * with the same tile, wave and split-K model: an assumption, stated,
 * not fitted. "The same" includes the k-loop prologue: a tensor-core
 * pass takes the cuBLASLt fit's k0 (COST_GEMM_DEFAULT, 256), as
 * cost_gemm does for tensor-core GEMMs, and only CUDA-core passes the k0
 * fitted here (8; compute.c gemm_params makes the same split). Until
 * branch cnna100 every pass took k0 = 8, so a tensor-core 1x1
 * convolution from 64 channels (K = 64) ran its k-loop at 64 / 72 of its
 * rate where the GEMM model gives the same GEMM 64 / 320.
 */
#include <math.h>

#include "cost/compute.h"
#include "cost/conv.h"

/* `conv_check --fit`: mean absolute log error 0.112 (11.8 %) per kernel;
 * totals fwd -2.4 %, dgrad -3.6 %, wgrad +2.2 % (docs/calibration.md). */
const cost_conv_params COST_CONV_DEFAULT = {
    .eff_cuda = 0.78,
    .tc_ratio = 1.0,     /* stated, not fitted: see above */
    .k0 = 8.0,
    .wino = 2.5,
    .wgrad_eff = 1.10,
    .wgrad_w = 1.05,
    .wgrad_k1 = 3250.0,
    .wino_wgrad = 2.4,
    .dgrad_stride = 0.72,
    .t0 = 3.0e-6,        /* COST_KERNEL_T0 */
};

int cost_conv_tensor_cores(const sc_gpu *g, sc_dtype dt) {
  if (g->arch == 0) return g->peak_flops[dt] > g->vector_flops; /* AMD matrix cores */
  switch (dt) {
  case SC_FP16: case SC_BF16: return g->arch >= 70;
  case SC_TF32: return g->arch >= 80;
  case SC_FP8: case SC_FP4: return g->arch >= 89;
  default: return 0;
  }
}

/* The implicit GEMM of one pass: m, n, k. */
static void gemm_dims(const cost_conv *cv, cost_conv_pass pass, double *m, double *n, double *k) {
  double npq = cv->n * cv->p * cv->q, crs = cv->c * cv->r * cv->s, st2 = cv->stride * cv->stride;
  switch (pass) {
  case COST_CONV_FWD: *m = npq, *n = cv->k, *k = crs; break;
  case COST_CONV_DGRAD: *m = npq * st2, *n = cv->c, *k = cv->k * cv->r * cv->s / st2; break;
  default: *m = cv->k, *n = crs, *k = npq; break;
  }
}

/* HBM bytes of one pass: input, weights, output (activations in the
 * compute type, at least 2 bytes; the weight gradient in fp32). */
static double conv_bytes(const cost_conv *cv, sc_dtype dt, cost_conv_pass pass) {
  double e = sc_dtype_bytes(dt) < 2 ? 2 : sc_dtype_bytes(dt);
  double x = cv->n * cv->c * cv->p * cv->q * cv->stride * cv->stride;
  double y = cv->n * cv->k * cv->p * cv->q, w = cv->k * cv->c * cv->r * cv->s;
  return (x + y) * e + w * (pass == COST_CONV_WGRAD ? 4 : e);
}

/* The weight gradient reduces over n p q (100,352 at ResNet-50's first
 * stage) into a small k x c r s output: cuDNN splits the reduction over
 * CTAs until the GPU is full. The split: enough 128 x 128 output tiles
 * for two waves, each at least WGRAD_MIN_K deep. */
#define WGRAD_MIN_K 1024.0
static double wgrad_split(const sc_gpu *g, double m, double n, double k) {
  double slots = g->sm_count > 0 ? g->sm_count : 108;
  double tiles = ceil(m / 128) * ceil(n / 128);
  double sp = ceil(2 * slots / tiles), most = floor(k / WGRAD_MIN_K);
  if (sp > most) sp = most;
  return sp > 1 ? sp : 1;
}

/* cuDNN's tensor-core convolutions work on NHWC tensors; given NCHW
 * ones (PyTorch's default memory format) cuDNN transposes the pass's
 * input to NHWC and its output back (NVIDIA Deep Learning Performance
 * Guide, "Convolutional Layers User's Guide", section "Tensor layouts in
 * memory: NCHW vs NHWC": the automatic transposes of NCHW tensors for
 * Tensor Cores cost time that NHWC avoids). Each transpose reads and
 * writes its tensor once: 2 (input + output) elements of the pass at the
 * activation size, in two memory-bound kernels. The pass's operands are
 * x and y for the forward, dy and dx for the data gradient, x and dy for
 * the weight gradient: the same two tensor sizes each time. */
static double conv_transposes(const sc_gpu *g, const cost_conv *cv, sc_dtype dt,
                              const cost_conv_params *pr) {
  double e = sc_dtype_bytes(dt) < 2 ? 2 : sc_dtype_bytes(dt);
  double x = cv->n * cv->c * cv->p * cv->q * cv->stride * cv->stride;
  double y = cv->n * cv->k * cv->p * cv->q;
  return 2 * (x + y) * e / (g->hbm_bw * g->hbm_eff) + 2 * pr->t0;
}

double cost_conv_time_ex(const sc_gpu *g, const cost_conv_params *pr, sc_dtype dt,
                         const cost_conv *cv, cost_conv_pass pass) {
  if (pass == COST_CONV_DGRAD && cv->first) return 0;
  double m, n, k;
  gemm_dims(cv, pass, &m, &n, &k);
  if (m <= 0 || n <= 0 || k <= 0) return 0;
  int tc = cost_conv_tensor_cores(g, dt);
  double base = tc ? pr->tc_ratio * cost_gemm_peak_eff(g, dt) : pr->eff_cuda * cost_fma_issue(g);
  if (pass == COST_CONV_WGRAD) {
    double pq = cv->p * cv->q;
    base *= pr->wgrad_eff / (1 + pr->wgrad_w * pq / (pq + pr->wgrad_k1));
  }
  if (pass == COST_CONV_DGRAD && cv->stride > 1) base *= pr->dgrad_stride;
  cost_gemm_shape sh = COST_GEMM_DEFAULT;
  if (!tc) sh.k0 = pr->k0; /* tensor cores: the cuBLASLt fit's k0 (see the top) */
  double split = pass == COST_CONV_WGRAD ? wgrad_split(g, m, n, k) : 1;
  double eff = cost_gemm_eff_ex(g, &sh, base, m, n, k / split, split);
  double flops = 2.0 * m * n * k;
  if (!tc && cv->r == 3 && cv->s == 3 && cv->stride == 1)
    flops /= pass == COST_CONV_WGRAD ? pr->wino_wgrad : pr->wino;
  double t_c = flops / (cost_peak(g, dt) * (eff > 1e-3 ? eff : 1e-3));
  double t_m = conv_bytes(cv, dt, pass) / (g->hbm_bw * g->hbm_eff);
  double tr = tc && cv->nchw ? conv_transposes(g, cv, dt, pr) : 0;
  return (t_c > t_m ? t_c : t_m) + pr->t0 + tr;
}

double cost_conv_time(const sc_gpu *g, sc_dtype dt, const cost_conv *cv, cost_conv_pass pass) {
  return cost_conv_time_ex(g, &COST_CONV_DEFAULT, dt, cv, pass);
}
