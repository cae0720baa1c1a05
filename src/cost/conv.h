/*
 * conv.h -- time of a convolution kernel (module prefix: cost_conv).
 *
 * cuDNN's convolutions as implicit GEMMs (no im2col in memory):
 *
 *   pass    GEMM M        N           K (reduction)   FLOPs
 *   fwd     n p q         k           c r s           2 n p q k c r s
 *   dgrad   n p q s^2     c           k r s / s^2     the same
 *   wgrad   k             c r s       n p q           the same
 *
 * (n batch, c -> k channels, r x s kernel, p x q output, stride `st`). The
 * time is the roofline of those FLOPs at the GPU's peak in the compute
 * type times an efficiency, and of the bytes of input, weights and output
 * at the achievable HBM bandwidth, plus a fixed kernel cost:
 *
 *   eff = conv_eff(pass, path) * tile fill * wave quantization * K / (K + k0)
 *
 * with the tile, wave and k-loop model of the GEMM (cost/compute.c: on
 * the tensor cores its k0, on the CUDA cores the k0 fitted here) and these
 * conv-specific terms:
 *   - a 3x3 stride-1 convolution on the CUDA cores (fp32 before Ampere,
 *     fp16 on Pascal) runs Winograd: its FLOPs count `wino` times less
 *     (`wino_wgrad` in the weight gradient);
 *   - the weight gradient splits its reduction over the GPU (split-K) and
 *     runs at wgrad_eff / (1 + wgrad_w p q / (p q + wgrad_k1)) of the
 *     efficiency (bounded: the trace's feature maps reach 112 x 112, VGG's
 *     224 x 224);
 *   - a strided data gradient runs at dgrad_stride of the efficiency
 *     (cuDNN scatters into a strided output);
 *   - the first convolution of a network (its input is the image) has no
 *     data gradient (conv.first).
 * Under an autotuning framework (cv->autotune) cost_conv_pick takes the
 * cheapest of that kernel and the algorithms below (FFT, non-fused
 * Winograd), derived from the same constants.
 * The constants (cost_conv_params) are fitted to the per-kernel times of
 * a real ResNet-50 training trace (docs/calibration.md, tools/calib/
 * conv_check.c). All times in seconds.
 */
#ifndef SC_COST_CONV_H
#define SC_COST_CONV_H

#include "stepcast.h"

typedef enum cost_conv_pass { COST_CONV_FWD = 0, COST_CONV_DGRAD, COST_CONV_WGRAD } cost_conv_pass;

/* One convolution of a micro-batch. */
typedef struct cost_conv {
  double n;          /* samples */
  double c, k;       /* input and output channels */
  double r, s;       /* kernel height and width */
  double p, q;       /* output height and width */
  int stride;
  int first;         /* 1 = reads the network's input: no data gradient */
  int nchw;          /* 1 = NCHW tensors: a tensor-core pass transposes
                        its input and output to and from NHWC */
  int autotune;      /* 1 = the framework times cuDNN's algorithms and
                        keeps the fastest (cost_conv_pick); 0 = cuDNN's
                        heuristic choice (COST_CONV_HEUR) */
} cost_conv;

/* cuDNN's algorithms as the model costs them. COST_CONV_HEUR is the
 * kernel cuDNN's heuristics chose in the calibration trace (implicit
 * GEMM, fused Winograd on 3x3 stride-1 CUDA-core passes: the fitted
 * `wino`); the others are what an autotuner also times, each derived
 * (conv.c), offered on the CUDA cores only:
 *   COST_CONV_IGEMM     the implicit GEMM without Winograd;
 *   COST_CONV_WINOGRAD  non-fused Winograd, 3x3 and 5x5 stride 1, on
 *                       COST_CONV_WINO_TILE^2 tiles (Lavin & Gray 2016);
 *   COST_CONV_FFT       FFT, stride 1, tiles up to COST_CONV_FFT_TILE. */
typedef enum cost_conv_algo {
  COST_CONV_HEUR = 0,
  COST_CONV_IGEMM,
  COST_CONV_WINOGRAD,
  COST_CONV_FFT,
  COST_CONV_N_ALGOS
} cost_conv_algo;

#define COST_CONV_WINO_TILE 6.0 /* alpha = m + r - 1: F(4x4,3x3), F(2x2,5x5) */
#define COST_CONV_FFT_TILE 32.0 /* cuDNN's FFT tiling: 32 x 32 tiles */
/* The most workspace (bytes) an autotuner lets an algorithm take:
 * TensorFlow's default, TF_CUDNN_WORKSPACE_LIMIT_IN_MB = 4,096 (its
 * conv_ops.cc: "1LL << 32 // 4GB by default"; recalled). MXNet's default
 * is lower (1,024 MB, the Convolution operator's `workspace`), PyTorch's
 * cudnn.benchmark takes what memory is free: one limit for all. */
#define COST_CONV_WORKSPACE 4294967296.0

/* The model's constants (see conv.c for their fit). */
typedef struct cost_conv_params {
  double eff_cuda;     /* large convolutions on the CUDA cores (fp32 FMA), fraction of peak */
  double tc_ratio;     /* tensor-core convolutions: this x the GPU's GEMM efficiency */
  double k0;           /* reduction prologue/epilogue in units of K (CUDA-core passes) */
  double wino;         /* Winograd's FLOP saving on 3x3 stride-1 convs (CUDA cores) */
  double wgrad_eff;    /* the weight gradient relative to fwd */
  double wgrad_w;      /* ... and times 1 / (1 + wgrad_w p q / (p q +
                          wgrad_k1)): large feature maps (the early
                          layers) run slower, by at most 1 + wgrad_w */
  double wgrad_k1;
  double wino_wgrad;   /* Winograd's saving in the weight gradient */
  double dgrad_stride; /* a strided data gradient relative to fwd */
  double t0;           /* fixed seconds per kernel */
} cost_conv_params;

extern const cost_conv_params COST_CONV_DEFAULT;

/* Time of one pass of cv in dtype dt on g; 0 for a data gradient of a
 * first convolution. */
double cost_conv_time(const sc_gpu *g, sc_dtype dt, const cost_conv *cv, cost_conv_pass pass);
double cost_conv_time_ex(const sc_gpu *g, const cost_conv_params *pr, sc_dtype dt,
                         const cost_conv *cv, cost_conv_pass pass);

/* Time of one pass by algorithm `algo`; 0 where cuDNN does not offer it
 * for this shape (or for a data gradient of a first convolution). */
double cost_conv_algo_time(const sc_gpu *g, const cost_conv_params *pr, sc_dtype dt,
                           const cost_conv *cv, cost_conv_pass pass, cost_conv_algo algo);

/* The algorithm a pass runs: COST_CONV_HEUR unless cv->autotune, else the
 * fastest offered (ties: the lower enum); its time in *t (may be NULL). */
cost_conv_algo cost_conv_pick(const sc_gpu *g, const cost_conv_params *pr, sc_dtype dt,
                              const cost_conv *cv, cost_conv_pass pass, double *t);

/* 1 when dt runs on g's tensor cores (fp16/bf16 from Volta, tf32 from
 * Ampere, fp8 from Hopper); 0 on the CUDA cores. */
int cost_conv_tensor_cores(const sc_gpu *g, sc_dtype dt);

#endif /* SC_COST_CONV_H */
