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

/* The heuristic's kernel (COST_CONV_HEUR): the implicit GEMM, with the
 * fitted Winograd saving on a 3x3 stride-1 CUDA-core pass. */
static double conv_heuristic(const sc_gpu *g, const cost_conv_params *pr, sc_dtype dt,
                             const cost_conv *cv, cost_conv_pass pass, int wino) {
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
  if (wino && !tc && cv->r == 3 && cv->s == 3 && cv->stride == 1)
    flops /= pass == COST_CONV_WGRAD ? pr->wino_wgrad : pr->wino;
  double t_c = flops / (cost_peak(g, dt) * (eff > 1e-3 ? eff : 1e-3));
  double t_m = conv_bytes(cv, dt, pass) / (g->hbm_bw * g->hbm_eff);
  double tr = tc && cv->nchw ? conv_transposes(g, cv, dt, pr) : 0;
  return (t_c > t_m ? t_c : t_m) + pr->t0 + tr;
}

/* A transform algorithm (non-fused Winograd, FFT) run as four kernels:
 * the filter's and the input's transforms, `bins` batched GEMMs over
 * `tiles` tiles per image (each bin's GEMM: fwd n tiles x k x c, dgrad
 * n tiles x c x k, wgrad k x c x n tiles; `fl` FLOPs and `el` reals per
 * multiply-add: 2 and 1 real, 8 and 2 complex), and the output's inverse
 * transform. The transformed tensors (bins x (n tiles (c + k) + c k)
 * elements of `el` reals) are each written by one kernel and read by the
 * next; the GEMM is the roofline of its FLOPs at the CUDA-core
 * convolution efficiency (eff_cuda, k0, tile and wave model) and of its
 * operands. The transforms themselves are memory-bound (an FFT of a 32 x
 * 32 tile: about 3 FLOP per byte moved; Winograd's: fewer). The
 * transformed tensors are cuDNN's workspace: above COST_CONV_WORKSPACE
 * the autotuner does not offer the algorithm (0). */
static double conv_transform(const sc_gpu *g, const cost_conv_params *pr, sc_dtype dt,
                             const cost_conv *cv, cost_conv_pass pass, double bins,
                             double tiles, double fl, double el) {
  double e = sc_dtype_bytes(dt) < 2 ? 2 : sc_dtype_bytes(dt), bw = g->hbm_bw * g->hbm_eff;
  double nt = cv->n * tiles, m = nt, n = cv->k, k = cv->c;
  if (pass == COST_CONV_DGRAD) n = cv->c, k = cv->k;
  if (pass == COST_CONV_WGRAD) m = cv->k, n = cv->c, k = nt;
  cost_gemm_shape sh = COST_GEMM_DEFAULT;
  sh.k0 = pr->k0;
  double eff = cost_gemm_eff_ex(g, &sh, pr->eff_cuda * cost_fma_issue(g), m, n, k, bins);
  double t_c = fl * bins * m * n * k / (cost_peak(g, dt) * (eff > 1e-3 ? eff : 1e-3));
  double tf = bins * el * (nt * (cv->c + cv->k) + cv->c * cv->k) * e; /* bytes */
  if (tf > COST_CONV_WORKSPACE) return 0;
  double t_g = t_c > tf / bw ? t_c : tf / bw;
  return t_g + (conv_bytes(cv, dt, pass) + tf) / bw + 4 * pr->t0;
}

/* cuDNN's non-fused Winograd F(m x m, r x r) on 6 x 6 tiles (m = 6 - r
 * + 1: 4 x 4 outputs of a 3x3 filter, the winograd_nonfused::*4x4
 * kernels of the calibration trace; 2 x 2 of a 5x5, assumed: Lavin &
 * Gray 2016's construction, alpha = m + r - 1); 0 where cuDNN has none
 * (filters other than 3x3 and 5x5, strides above 1). */
static double conv_winograd(const sc_gpu *g, const cost_conv_params *pr, sc_dtype dt,
                            const cost_conv *cv, cost_conv_pass pass) {
  if (cv->stride != 1 || cv->r != cv->s || (cv->r != 3 && cv->r != 5)) return 0;
  double a = COST_CONV_WINO_TILE, m = a - cv->r + 1;
  double tiles = ceil(cv->p / m) * ceil(cv->q / m);
  return conv_transform(g, pr, dt, cv, pass, a * a, tiles, 2, 1);
}

/* FFT on T x T tiles, T the power of two that holds the input a p x q
 * output reads (p + r - 1), at most COST_CONV_FFT_TILE (cuDNN's FFT
 * tiling beyond); T (T / 2 + 1) complex bins per tile (a real FFT). */
static double conv_fft(const sc_gpu *g, const cost_conv_params *pr, sc_dtype dt,
                       const cost_conv *cv, cost_conv_pass pass) {
  if (cv->stride != 1 || cv->r * cv->s <= 1) return 0;
  double need = (cv->p > cv->q ? cv->p : cv->q) + (cv->r > cv->s ? cv->r : cv->s) - 1, t = 2;
  while (t < need && t < COST_CONV_FFT_TILE) t *= 2;
  double mp = t - cv->r + 1, mq = t - cv->s + 1;
  if (mp < 1 || mq < 1) return 0;
  double tiles = ceil(cv->p / mp) * ceil(cv->q / mq);
  return conv_transform(g, pr, dt, cv, pass, t * (t / 2 + 1), tiles, 8, 2);
}

double cost_conv_algo_time(const sc_gpu *g, const cost_conv_params *pr, sc_dtype dt,
                           const cost_conv *cv, cost_conv_pass pass, cost_conv_algo algo) {
  if (pass == COST_CONV_DGRAD && cv->first) return 0;
  int cuda = !cost_conv_tensor_cores(g, dt);
  switch (algo) {
  case COST_CONV_HEUR: return conv_heuristic(g, pr, dt, cv, pass, 1);
  case COST_CONV_IGEMM: return conv_heuristic(g, pr, dt, cv, pass, 0);
  case COST_CONV_WINOGRAD: return cuda ? conv_winograd(g, pr, dt, cv, pass) : 0;
  default: return cuda ? conv_fft(g, pr, dt, cv, pass) : 0;
  }
}

/* 1 when the heuristic's kernel is cuDNN's non-fused Winograd itself
 * (the calibration trace's 3x3 stride-1 CUDA-core passes): the fitted
 * `wino` is that kernel as measured, so its derived cost does not
 * compete with it. */
static int heur_is_winograd(const sc_gpu *g, sc_dtype dt, const cost_conv *cv) {
  return !cost_conv_tensor_cores(g, dt) && cv->r == 3 && cv->s == 3 && cv->stride == 1;
}

cost_conv_algo cost_conv_pick(const sc_gpu *g, const cost_conv_params *pr, sc_dtype dt,
                              const cost_conv *cv, cost_conv_pass pass, double *t) {
  cost_conv_algo best = COST_CONV_HEUR;
  double tb = cost_conv_algo_time(g, pr, dt, cv, pass, COST_CONV_HEUR);
  for (int a = COST_CONV_IGEMM; cv->autotune && a < COST_CONV_N_ALGOS; a++) {
    if (a == COST_CONV_WINOGRAD && heur_is_winograd(g, dt, cv)) continue;
    double ta = cost_conv_algo_time(g, pr, dt, cv, pass, (cost_conv_algo)a);
    if (ta > 0 && ta < tb) best = (cost_conv_algo)a, tb = ta;
  }
  if (t) *t = tb;
  return best;
}

double cost_conv_time_ex(const sc_gpu *g, const cost_conv_params *pr, sc_dtype dt,
                         const cost_conv *cv, cost_conv_pass pass) {
  double t;
  cost_conv_pick(g, pr, dt, cv, pass, &t);
  return t;
}

double cost_conv_time(const sc_gpu *g, sc_dtype dt, const cost_conv *cv, cost_conv_pass pass) {
  return cost_conv_time_ex(g, &COST_CONV_DEFAULT, dt, cv, pass);
}
