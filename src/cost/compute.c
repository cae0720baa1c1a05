/*
 * compute.c -- kernel time model. See compute.h for the equations.
 */
#include <assert.h>
#include <math.h>
#include <strings.h>

#include "cost/compute.h"
#include "cost/conv.h"

/* Candidate output tiles of a tensor-core GEMM and the fraction of the
 * large-GEMM efficiency each reaches in steady state (a smaller tile has
 * less data reuse per byte loaded from shared memory). The ratios follow
 * the arithmetic intensity of the tile, tm*tn/(tm+tn), normalised to the
 * 256x128 tile; see docs/calibration.md. */
typedef struct tile { double tm, tn, eff; } tile;
static const tile tiles[] = {
    {256, 128, 1.00}, {128, 256, 1.00}, {128, 128, 0.90},
    {128, 64, 0.80}, {64, 128, 0.80}, {64, 64, 0.65},
};
#define N_TILES (sizeof tiles / sizeof tiles[0])

/* The shape parameters of the GEMM model (every GPU but Hopper's, below),
 * fitted together with each
 * GPU's gemm_eff to the cuBLASLt rows of
 * ../shared/calibration/azure_gpu_microbenchmarks.csv (A100 fp16, H100,
 * H200 and GB200 fp8) by `tools/calib/gemm_check --fit` (least mean
 * absolute log error; docs/calibration.md):
 *   k0         k-loop prologue/epilogue in units of k: a tile of depth k
 *              runs at k / (k + k0) of its steady rate;
 *   wave_tail  what an idle SM slot of the last, partial wave of CTAs
 *              costs relative to a busy one (its CTAs run faster with less
 *              contention for HBM and L2);
 *   t0         fixed seconds of every GEMM kernel (launch, ramp-up, tail). */
const cost_gemm_shape COST_GEMM_DEFAULT = {256.0, 0.7, 3.0e-6, 0};

/* Hopper's (sm_90) own shape parameters, fitted by `tools/calib/gemm_check
 * --fit-hopper FILE --bench-only` to the 336 aligned bf16/fp16 GEMMs of
 * transformer layers (512-32,768 tokens, k 768-11,008) that
 * data/measured/gemm_graph_h200.csv times on an H200 from CUDA graphs (the
 * GPU's time, no host dispatch): a short prologue (k0 80: TMA-fed
 * warp-specialised kernels keep the k-loop busy from the first tiles) and
 * no wave-quantisation loss (wave_tail 0: cuBLAS 12 runs stream-K and
 * persistent kernels on Hopper, which share the last wave's work among all
 * SMs; recalled, not in ../shared/reference). Blackwell keeps the default
 * (no measurement). docs/calibration.md, "GEMM shape model". */
const cost_gemm_shape COST_GEMM_HOPPER = {80.0, 0.0, 3.5e-6, 0};

double cost_peak(const sc_gpu *g, sc_dtype dt) {
  double p = g->peak_flops[dt];
  if (p > 0) return p;
  /* fall back: fp4 -> fp8 -> bf16 -> fp16 -> tf32 -> fp32 */
  static const sc_dtype order[] = {SC_FP4, SC_FP8, SC_BF16, SC_FP16, SC_TF32, SC_FP32};
  int start = 0;
  for (int i = 0; i < 6; i++)
    if (order[i] == dt) start = i;
  for (int i = start; i < 6; i++)
    if (g->peak_flops[order[i]] > 0) return g->peak_flops[order[i]];
  return g->vector_flops > 0 ? g->vector_flops : 1e12;
}

/* Wave quantization of `ctas` over `slots` SMs. */
static double wave_eff(double ctas, double slots, double tail) {
  double waves = ceil(ctas / slots);
  double idle = waves * slots - ctas;
  return ctas / (ctas + tail * idle);
}

/* Row tiles of one batch entry of m rows: ceil(m / tm) when every entry
 * has m; with entries of m rows on average that end anywhere in their
 * last tile (m_pad 0.5, MoE experts: a router's token counts are not
 * multiples of a tile), m / tm + m_pad, at least one. Measured on an H200
 * (tools/calib/moe_bench.py, data/measured/moe_bench_h200.csv): CUTLASS's
 * grouped GEMM with counts spread 0.5-1.5x or 0-2x their mean of 128 ran
 * 1.45-1.5x the time of equal, tile-aligned counts of the same total
 * (1.5 tiles an expert against 1), at 512 1.2-1.26x, 2,048 1.06-1.14x,
 * 8,192 1.01-1.05x; the weight gradient, which reduces over the tokens,
 * 1.02-1.07x (docs/calibration.md, "MoE expert GEMMs"). */
static double m_tiles(double m, double tm, double m_pad) {
  if (m_pad <= 0) return ceil(m / tm);
  double mt = m / tm + m_pad;
  return mt > 1 ? mt : 1;
}

/* Best efficiency over tiles and split-K factors. */
double cost_gemm_eff_ex(const sc_gpu *g, const cost_gemm_shape *sh, double eff,
                        double m, double n, double k, double batch) {
  double best = 0;
  double slots = g->sm_count > 0 ? g->sm_count : 108;
  for (size_t i = 0; i < N_TILES; i++) {
    const tile *t = &tiles[i];
    double mt = m_tiles(m, t->tm, sh->m_pad);
    double fill_m = m / (mt * t->tm);
    double fill_n = n / (ceil(n / t->tn) * t->tn);
    double ctas = mt * ceil(n / t->tn) * batch;
    for (int split = 1; split <= 8; split *= 2) {
      double ks = k / split;
      if (split > 1 && (ks < 256 || ctas >= slots)) break;
      double e = t->eff * fill_m * fill_n *
                 wave_eff(ctas * split, slots, sh->wave_tail) * ks / (ks + sh->k0);
      if (split > 1) e *= 0.9; /* the extra reduction pass */
      if (e > best) best = e;
    }
  }
  return eff * best;
}

/* Kepler's FMA issue limit. A Kepler SMX (sm_30..sm_37: GK104, GK110,
 * GK210) has 192 fp32 lanes (six groups of 32) but four warp schedulers
 * (NVIDIA Kepler GK110/GK210 architecture whitepaper: "192 single-precision
 * CUDA cores", "four warp schedulers and eight instruction dispatch
 * units" per SMX). A warp's FFMA occupies one 32-lane group, so one FFMA
 * per scheduler per clock feeds 4 x 32 = 128 of the 192 lanes; the other
 * 64 need a second, independent FFMA dual-issued from the same warp in
 * the same clock, a slot the shared-memory loads of a convolution or GEMM
 * inner loop take. A dense kernel sustains at most 128 / 192 = 2/3 of the
 * datasheet rate. Maxwell and later split an SM into partitions of 32 or
 * 16 lanes with one scheduler each: no such limit (1). */
#define KEPLER_FMA_ISSUE (128.0 / 192.0)
double cost_fma_issue(const sc_gpu *g) {
  return g->arch >= 30 && g->arch < 50 ? KEPLER_FMA_ISSUE : 1.0;
}

/* On the tensor cores: the cuBLASLt fit above with the GPU's gemm_eff
 * (gemm_eff_fp8 for fp8 and fp4 when set). On the CUDA cores (fp32 before
 * Ampere or without TF32, fp16 before Volta: cost_conv_tensor_cores
 * false): SGEMM's FMA pipeline at the CUDA-core efficiency fitted to the
 * CUDA-core implicit-GEMM convolutions of the V100 fp32 ResNet-50 trace
 * (cost/conv.c COST_CONV_DEFAULT: eff_cuda 0.78; docs/calibration.md),
 * the only CUDA-core GEMM measurement in ../shared. Kepler's issue limit
 * on top of either. Every caller gets the rule: cost_gemm, recsys's dense
 * layers and interaction, the trace what-ifs. */
double cost_gemm_peak_eff(const sc_gpu *g, sc_dtype dt) {
  if (!cost_conv_tensor_cores(g, dt)) return COST_CONV_DEFAULT.eff_cuda * cost_fma_issue(g);
  int low = dt == SC_FP8 || dt == SC_FP4;
  double e = low && g->gemm_eff_fp8 > 0 ? g->gemm_eff_fp8 : g->gemm_eff;
  return e * cost_fma_issue(g);
}

/* The shape parameters and large-GEMM efficiency of a GEMM in dt on g
 * (cost_gemm_peak_eff). On the CUDA cores the k-loop prologue is short
 * next to the slow math: the prologue fitted with eff_cuda (cost/conv.c
 * COST_CONV_DEFAULT, k0 = 8). */
double cost_gemm_params(const sc_gpu *g, sc_dtype dt, cost_gemm_shape *sh) {
  int tc = cost_conv_tensor_cores(g, dt);
  int hopper = tc && g->arch >= 90 && g->arch < 100;
  *sh = hopper ? COST_GEMM_HOPPER : COST_GEMM_DEFAULT;
  /* fp8 k-tiles are twice as deep (128 elements of one byte, against 64
   * of two): the same pipeline of stages spans twice the k. The fp8
   * cuBLASLt rows of 2048^3 and more fit best from k0 = 140 up (mean
   * |log error| 0.026 at 80, 0.019 at 160; docs/calibration.md). */
  if (hopper && (dt == SC_FP8 || dt == SC_FP4)) sh->k0 = 2 * COST_GEMM_HOPPER.k0;
  if (!tc) sh->k0 = COST_CONV_DEFAULT.k0;
  return cost_gemm_peak_eff(g, dt);
}

double cost_gemm_eff(const sc_gpu *g, sc_dtype dt, double m, double n,
                     double k, double batch) {
  cost_gemm_shape sh;
  double eff = cost_gemm_params(g, dt, &sh);
  return cost_gemm_eff_ex(g, &sh, eff, m, n, k, batch);
}

static double vector_peak(const sc_gpu *g) {
  return g->vector_flops > 0 ? g->vector_flops : cost_peak(g, SC_FP32);
}

/* Narrow GEMMs. cuBLAS runs a GEMM with a very small dimension on SIMT
 * kernels that do not pad it to an output tile: a GEMV (n or m = 1), an
 * outer product (k = 1) and a small-N GEMM. The PARAM DLRM trace on V100
 * (../shared/traces/param_dlrm_8rank_v100/dlrm_kineto.tar.gz, fp32, every
 * rank) runs gemvNSP_kernel, gemmk1_kernel, gemmSN_NN_kernel<float, 256, 4,
 * ...> and gemmSN_TN_kernel<float, 128, 16, ...> beside the volta_sgemm
 * tiles; it records no shapes or useful times (its batch is tiny). Such a
 * kernel reads and writes its operands once, so it is costed as the
 * element-wise kernels are: the larger of its bytes at the achievable HBM
 * rate (hbm_bw * hbm_eff, cost_mem's) and its FLOPs at the CUDA-core GEMM
 * rate (the fp32 FMA peak at cost/conv.c's eff_cuda, cost_gemm_peak_eff's
 * CUDA-core rate), plus the kernel's fixed cost. Nothing is fitted. It is
 * a candidate when the smallest of m, n and k is at most GEMV_MAX_DIM (the
 * widest N of the small-N kernel named in that trace; a reading of its
 * template arguments, not a measured cut-off), and the library's pick is
 * the faster of it and the tile path, as the tile and split-K choice is. */
#define GEMV_MAX_DIM 16.0
static double narrow_seconds(const sc_gpu *g, double flops, double t_mem) {
  double t_c = flops / (vector_peak(g) * COST_CONV_DEFAULT.eff_cuda * cost_fma_issue(g));
  return t_c > t_mem ? t_c : t_mem;
}

static int gemm_narrow(double m, double n, double k) {
  double d = m < n ? m : n;
  return (k < d ? k : d) <= GEMV_MAX_DIM;
}

/* The roofline of one GEMM shape at `peak` FLOP/s times the shape's
 * efficiency, operands of dt's width; a narrow shape at most its
 * memory-bound kernel's time (narrow_seconds). *path (when not NULL):
 * the kernel that time is of. */
static double gemm_at(const sc_gpu *g, const cost_gemm_shape *sh, double geff, double peak,
                      sc_dtype dt, double m, double n, double k, double batch,
                      cost_gemm_path *path) {
  if (path) *path = COST_GEMM_TILE;
  if (m <= 0 || n <= 0 || k <= 0 || batch <= 0) return 0;
  double flops = 2.0 * m * n * k * batch;
  double eff = cost_gemm_eff_ex(g, sh, geff, m, n, k, batch);
  double t_c = flops / (peak * eff);
  /* inputs in the compute type, output in 16 bits (fp32 for fp32) */
  double eb = sc_dtype_bytes(dt), ec = eb < 2 ? 2 : eb;
  double bytes = ((m * k + k * n) * eb + m * n * ec) * batch;
  double t_m = bytes / (g->hbm_bw * g->hbm_eff);
  double t = t_c > t_m ? t_c : t_m;
  cost_gemm_path p = t_c > t_m ? COST_GEMM_TILE : COST_GEMM_TILE_MEMORY;
  if (gemm_narrow(m, n, k)) {
    double t_n = narrow_seconds(g, flops, t_m);
    if (t_n < t) t = t_n, p = COST_GEMM_NARROW;
  }
  if (path) *path = p;
  return t + sh->t0;
}

double cost_gemm_ex(const sc_gpu *g, const cost_gemm_shape *sh, double geff,
                    sc_dtype dt, double m, double n, double k, double batch) {
  return gemm_at(g, sh, geff, cost_peak(g, dt), dt, m, n, k, batch, NULL);
}

double cost_gemm(const sc_gpu *g, sc_dtype dt, double m, double n, double k,
                 double batch) {
  cost_gemm_shape sh;
  double eff = cost_gemm_params(g, dt, &sh);
  return cost_gemm_ex(g, &sh, eff, dt, m, n, k, batch);
}

double cost_gemm_expert(const sc_gpu *g, sc_dtype dt, double m, double n, double k,
                        double batch) {
  return cost_gemm_lib_path(g, dt, m, n, k, batch, 0, 1, NULL);
}

/* cuBLAS before 11.0 (CUDA 10.x and older) ran a 16-bit GEMM on the
 * tensor cores only when m, n and k were all multiples of 8 (NVIDIA Deep
 * Learning Performance Guide, "Matrix Multiplication Background", table
 * "Tensor Core requirements by cuBLAS or cuDNN version": fp16, cuBLAS <
 * 11.0: multiples of 8; from 11.0: always, faster at multiples of 8 --
 * recalled, not a file in ../shared; the padding it asks for is why
 * Megatron pads its vocabulary, ../shared/reference/megatron-lm
 * arguments.py --make-vocab-size-divisible-by, "for computational
 * efficiency"). Otherwise the library fell back to its CUDA-core kernels,
 * which the frameworks call with fp32 accumulation (cublasGemmEx /
 * cublasSgemmEx with an fp32 compute type): the fp32 FMA rate. Costed as
 * the CUDA-core GEMM of cost_gemm_peak_eff (the V100 fp32 fit, k0 8) at
 * the GPU's vector (fp32 FMA) rate, with 16-bit operands. */
#define PRE11_TC_MULTIPLE 8.0

static int tc_dims_ok(double m, double n, double k) {
  return fmod(m, PRE11_TC_MULTIPLE) == 0 && fmod(n, PRE11_TC_MULTIPLE) == 0 &&
         fmod(k, PRE11_TC_MULTIPLE) == 0;
}

int cost_gemm_pre11_cuda_cores(const sc_gpu *g, sc_dtype dt, double m, double n, double k) {
  int half = dt == SC_FP16 || dt == SC_BF16;
  return half && cost_conv_tensor_cores(g, dt) && !tc_dims_ok(m, n, k);
}

/* The CUDA-core fallback's shape parameters and efficiency (fp32's). */
static double fallback_params(const sc_gpu *g, cost_gemm_shape *sh) {
  return cost_gemm_params(g, SC_FP32, sh);
}

/* Unaligned rows on Hopper. A tensor-core GEMM whose operand rows are not
 * 16-byte aligned cannot use the Tensor Memory Accelerator (a TMA
 * descriptor's strides must be multiples of 16 bytes: CUDA driver API,
 * cuTensorMapEncodeTiled), so cuBLAS falls back to kernels with narrower
 * loads. Measured in this repository (tools/calib/gemm_bench.py on an
 * H200, data/measured/gemm_bench_h200.csv; docs/calibration.md "GEMM
 * shapes of training on an H200"): the vocabulary GEMMs of BERT (30,522:
 * rows 4-byte aligned in 16 bits, 8-byte in TF32) and GPT-2 (50,257: 2- and
 * 4-byte) at 512-32,768 tokens, every pass, ran at 0.33-0.48 (mean 0.39) of the
 * model's aligned rate with rows 4 or 8 bytes aligned (bf16, fp16, TF32
 * alike) and 0.18-0.24 (mean 0.21) with 2-byte rows (bf16, fp16), about the same at
 * every token count; plain fp32 (CUDA cores) was unaffected, and the
 * padded 50,304 ran at the aligned rate. Dimensions that are not whole
 * (mean token counts) are taken as aligned. Applied where the engine
 * costs a layer's GEMMs (cost_gemm_lib: transformer, BERT and graph
 * layers, a CNN's classifier), not in cost_gemm, which recsys's dense
 * layers also call: their odd widths (13 dense features, the 479-wide
 * dot interaction) are padded to multiples of 8 by NVIDIA's DLRM, the
 * recommendation rows' framework (recalled, not a file in ../shared),
 * which the recsys model does not write out (tried in cost_gemm: two
 * MLPerf DLRM H100 rows went 12-18 points slower). Measured on Hopper only:
 * Ampere's kernels load with cp.async, whose 16-byte copies have the
 * same alignment need, but no measurement here says how much they lose,
 * so earlier GPUs keep their rate. */
#define ALIGN_ROW_BYTES 16.0
#define ALIGN_4B_RATE 0.39 /* rows aligned to 4 or 8 bytes */
#define ALIGN_2B_RATE 0.21 /* rows aligned to 2 bytes */

/* The largest power of two (at most ALIGN_ROW_BYTES) dividing `elems` of
 * `bytes` each; ALIGN_ROW_BYTES for a dimension that is not whole. */
static double row_align(double elems, double bytes) {
  if (elems != floor(elems)) return ALIGN_ROW_BYTES;
  double a = 1, v = elems * bytes;
  while (a < ALIGN_ROW_BYTES && fmod(v, 2 * a) == 0) a *= 2;
  return a;
}

double cost_gemm_align(const sc_gpu *g, sc_dtype dt, double m, double n, double k) {
  if (g->arch < 90 || dt == SC_FP8 || dt == SC_FP4 || !cost_conv_tensor_cores(g, dt)) return 1;
  double b = sc_dtype_bytes(dt), a = row_align(m, b);
  if (row_align(n, b) < a) a = row_align(n, b);
  if (row_align(k, b) < a) a = row_align(k, b);
  return a >= ALIGN_ROW_BYTES ? 1 : a >= 4 ? ALIGN_4B_RATE : ALIGN_2B_RATE;
}

double cost_gemm_lib(const sc_gpu *g, sc_dtype dt, double m, double n, double k, double batch,
                     int pre11) {
  return cost_gemm_lib_path(g, dt, m, n, k, batch, pre11, 0, NULL);
}

double cost_gemm_lib_path(const sc_gpu *g, sc_dtype dt, double m, double n, double k,
                          double batch, int pre11, int expert, cost_gemm_path *path) {
  cost_gemm_shape sh;
  if (expert) { /* grouped expert GEMMs: the rows padded (cost_gemm_expert) */
    double eff = cost_gemm_params(g, dt, &sh);
    sh.m_pad = COST_GEMM_EXPERT_PAD;
    return gemm_at(g, &sh, eff, cost_peak(g, dt), dt, m, n, k, batch, path);
  }
  if (!pre11 || !cost_gemm_pre11_cuda_cores(g, dt, m, n, k)) {
    double eff = cost_gemm_params(g, dt, &sh) * cost_gemm_align(g, dt, m, n, k);
    return gemm_at(g, &sh, eff, cost_peak(g, dt), dt, m, n, k, batch, path);
  }
  double eff = fallback_params(g, &sh);
  return gemm_at(g, &sh, eff, vector_peak(g), dt, m, n, k, batch, path);
}

const char *cost_gemm_path_name(cost_gemm_path p) {
  return p == COST_GEMM_NARROW ? "narrow" : p == COST_GEMM_TILE_MEMORY ? "memory" : "tile";
}

double cost_gemm_eff_lib(const sc_gpu *g, sc_dtype dt, double m, double n, double k,
                         double batch, int pre11) {
  if (!pre11 || !cost_gemm_pre11_cuda_cores(g, dt, m, n, k))
    return cost_gemm_eff(g, dt, m, n, k, batch) * cost_gemm_align(g, dt, m, n, k);
  cost_gemm_shape sh;
  double eff = fallback_params(g, &sh);
  /* as a fraction of dt's (tensor-core) peak, as the other rows give it */
  return cost_gemm_eff_ex(g, &sh, eff, m, n, k, batch) * vector_peak(g) / cost_peak(g, dt);
}

/* Flash attention's rate. The presets' attn_eff is FlashAttention-2's
 * rate at head dim 128, seq 8192, no mask, as Azure's benchmark prints it
 * (../shared/calibration/azure_gpu_microbenchmarks.csv rows 60, 62, 64,
 * 66): those figures match the flash-attention README's forward+backward
 * rows within 3 % (A100 head 64: 179.5 against 175; H100 head 128: 327.9
 * against 335; attention_kernel_benchmarks.csv), so they are read as
 * forward+backward rates; attn_fwd_level turns one into the forward rate
 * with the backward's ATTN_BWD (FA2 paper: backward about 0.8x forward).
 * Shorter sequences amortise less of the softmax rescaling and the K/V
 * loads: each query's row of keys k runs at k / (k + ATTN_S0) of the
 * plateau, normalised at 8192. Under a causal mask a query sees s / 2 keys
 * on average, and the kernel computes the diagonal tiles whole (half of
 * each is masked): s (s + T) / 2 scores for s^2 / 2 counted, T = 128, the
 * tile. ATTN_S0 and the tile come from a joint fit (tools/calib/
 * attn_fit.py) to the README's FA2 rows (A100 forward+backward, H100
 * forward, backward and forward+backward; head dims 64 and 128, seq
 * 512-16k, causal and not) and our H200 SDPA rows (data/measured/attn_bench_h200.csv,
 * attn_long_h200.csv: seq 512-32k): 200 and 128. With the presets'
 * levels read this way, rms of log(model / measured) 5.3 % on the README
 * rows and 9.0 % on ours (one ramp s / (s + 512), a flat causal 0.9 and
 * the figures read as forward rates before: 25.5 % and 18.9 %, 23 % and
 * 16 % slow on average); docs/calibration.md, "FlashAttention's ramp,
 * causal tile and level". */
#define ATTN_S0 200.0
#define ATTN_TILE 128.0
#define ATTN_BWD 0.8
static double attn_fwd_level(const sc_gpu *g) {
  return g->attn_eff * (1.0 + 2.5 / ATTN_BWD) / 3.5;
}
/* The CUDA-core kernel's causal forward: 0.9 of its unmasked rate (FA2
 * paper: causal forward 0.9x non-causal TFLOP/s). */
#define ATTN_FMA_CAUSAL 0.9
/* Throughput of the other attention kernels relative to FA2 on the same
 * GPU, from ../shared/calibration/attention_kernel_benchmarks.csv (means of
 * the ratios over head dims 64/128, seq 512-16k, causal and not):
 *   FA1: of FA2 forward+backward, 0.605 at head dim 64 (24 pairs: A100
 *        0.608, H100 0.603) and 0.443 at 128 (23 pairs: A100 0.439, H100
 *        0.446), FA2 README figures (0.526 pooled); linear in the head
 *        dimension between the two, the nearest outside (attn_fa1);
 *   FA3 (Hopper only): 1.70x forward, 1.62x backward (FA3 paper Fig. 5-6):
 *        1.65;
 *   cuDNN fused attention (Transformer Engine's default): Hopper, by head
 *        dimension (FA3 paper Fig. 5-6, the file's H100 cuDNN rows over
 *        its FA2 rows at the same shape, seq 512-16k): at 64 1.28x
 *        forward and 1.47x backward, forward+backward 1.42; at 128 1.76x
 *        and 1.57x, forward+backward 1.61 (1.52 pooled before session 34);
 *        linear between, the nearest outside (attn_cudnn_sm90). Our H200
 *        SDPA rows (data/measured/attn_bench_h200.csv, attn_long_h200.csv:
 *        cuDNN 9.19 over PyTorch's FA2) run 1.5-1.7 at 64 and 1.7-1.9 at
 *        128, the same step between the head sizes; Ampere: no
 *        measurement, taken as FA2 (TE runs FA2-class kernels there);
 *        Blackwell: FA4 on B200 is 1.88x FA3 on H200 (forward+backward,
 *        causal, 8k; ml-engineering row of the same file). In absolute
 *        terms that is 1.88 x 1.65 x the H100 FA2 rate (0.33 of 989
 *        TFLOP/s) = 1013 TFLOP/s, 3.0x the FA2 rate measured on GB200
 *        (0.15 of 2250-2500 TFLOP/s, azure row 66): cudnn on sm100 = 3.0.
 * Never above the GPU's large-GEMM efficiency. */
#define CUDNN90_D64 1.42
#define CUDNN90_D128 1.61
static double attn_cudnn_sm90(double d) {
  double t = d <= 64 ? 0 : d >= 128 ? 1 : (d - 64) / 64;
  return CUDNN90_D64 + t * (CUDNN90_D128 - CUDNN90_D64);
}
#define FA1_D64 0.605
#define FA1_D128 0.443
static double attn_fa1(double d) {
  double t = d <= 64 ? 0 : d >= 128 ? 1 : (d - 64) / 64;
  return FA1_D64 + t * (FA1_D128 - FA1_D64);
}

static double attn_version(const sc_gpu *g, sc_attention a, double d) {
  assert(a != SC_ATTN_AUTO); /* resolved with the scenario */
  double f = 1.0;
  switch (a) {
  case SC_ATTN_FLASH1: f = attn_fa1(d); break;
  case SC_ATTN_FLASH3: f = 1.65; break;
  case SC_ATTN_CUDNN: f = g->arch >= 100 ? 3.0 : g->arch >= 90 ? attn_cudnn_sm90(d) : 1.0; break;
  default: break;
  }
  double lvl = attn_fwd_level(g);
  double cap = g->gemm_eff / (lvl > 0 ? lvl : 1);
  return f < cap ? f : cap;
}

/* Head dimension: the presets' attn_eff is the rate at head dim 128; a
 * smaller head does less work per tile load. FA2 on A100 at seq 8k runs
 * 175 (non-causal) and 165 (causal) TFLOP/s at head dim 64 against 201
 * and 182 at 128 (../shared/calibration/attention_kernel_benchmarks.csv,
 * the FA2 README rows): 0.87 and 0.91, mean 0.89, which d / (d + 18)
 * normalised at 128 gives (0.890). Larger heads: taken as 128. */
#define ATTN_D0 18.0
static double attn_head_dim(double d) {
  if (d <= 0 || d >= 128) return 1.0;
  return (d / (d + ATTN_D0)) / (128.0 / (128.0 + ATTN_D0));
}

/* Attention of an fp32 model (cost_conv_tensor_cores false: fp32 without
 * TF32, as PyTorch's SDPA runs an fp32 model: its memory-efficient CUTLASS
 * kernel; on sm80 and later that kernel computes fp32 as three TF32
 * tensor-core products, fp32-accurate -- xformers' DefaultGemmType for
 * Sm80 and float, recalled, not in ../shared -- and before sm80 with FFMA;
 * either way the rate is taken as a fraction of the fp32 peak, measured on
 * Hopper, an extrapolation on Volta and older). Measured in this repository on an H200
 * (data/measured/traces_h200/bertbase_fp32_s128_b64, tools/calib/
 * kernel_cats.py; BERT-base, seq 128, head dim 64, batch 64, no mask):
 * forward 0.148 ms a layer for 3.22 GFLOP, 0.32 of the fp32 peak;
 * backward 0.286 ms for 8.05 GFLOP, 0.42. The tensor-core terms (attn_eff,
 * its sequence ramp and head-dim factor, the kernel versions) describe the
 * softmax and tile-load overheads of kernels 15x faster in math; this
 * kernel is taken flat at these fractions (one shape measured: the sequence
 * and head-dim dependence is not). The step's kernels ran attention dropout
 * 0.1 (BERT's); without it the same kernels reach 0.44 / 0.43
 * (data/measured/attn_bench_h200.csv): these are the conservative end.
 * The rate is the fp32 FMA peak's whatever dt: the kernel accumulates in
 * fp32, so a 16-bit input on the CUDA cores (fp16 before Volta: SIMT,
 * converted and multiplied with FFMA) runs no faster than fp32, not at
 * Pascal's packed half2 peak. */
#define ATTN_FMA_FWD 0.32
#define ATTN_FMA_BWD 0.42
static double attn_fma_seconds(const sc_gpu *g, double flops, int causal, int bwd) {
  double eff =
      (bwd ? ATTN_FMA_BWD : ATTN_FMA_FWD) * cost_fma_issue(g) * (causal ? ATTN_FMA_CAUSAL : 1.0);
  return flops / (cost_peak(g, SC_FP32) * eff);
}

/* Forward seconds of the kernel without its fixed cost. */
static double attn_seconds(const sc_gpu *g, sc_dtype dt, sc_attention a, double flops,
                           double sq, double d, int causal) {
  if (!cost_conv_tensor_cores(g, dt)) return attn_fma_seconds(g, flops, causal, 0);
  double keys = causal ? sq / 2 : sq;
  double se = (keys / (keys + ATTN_S0)) / (8192.0 / (8192.0 + ATTN_S0));
  double diag = causal ? sq / (sq + ATTN_TILE) : 1.0;
  double eff = attn_fwd_level(g) * se * attn_head_dim(d) * diag;
  if (eff <= 0.01) eff = 0.01;
  return flops / (cost_peak(g, dt) * eff) / attn_version(g, a, d);
}

double cost_flash_attn_k(const sc_gpu *g, sc_dtype dt, sc_attention a, double flops,
                         double sq, double d, int causal) {
  if (flops <= 0) return 0;
  return attn_seconds(g, dt, a, flops, sq, d, causal) + COST_KERNEL_T0;
}

double cost_flash_attn_bwd(const sc_gpu *g, sc_dtype dt, sc_attention a,
                           double flops, double sq, double d, int causal) {
  if (flops <= 0) return 0;
  if (!cost_conv_tensor_cores(g, dt)) return attn_fma_seconds(g, flops, causal, 1) + COST_KERNEL_T0;
  return attn_seconds(g, dt, a, flops, sq, d, causal) / ATTN_BWD + COST_KERNEL_T0;
}

double cost_mem(const sc_gpu *g, double bytes) {
  if (bytes <= 0) return 0;
  return bytes / (g->hbm_bw * g->hbm_eff) + COST_KERNEL_T0;
}

/* Host time per kernel of PyTorch eager training: the median interval
 * between kernel launches in the real A100-SXM4-80GB training trace
 * ../shared/traces/hta/negative_queue_length_values_check/rank0.json.gz
 * (20 us; tools/calib/kineto_launch.py, docs/calibration.md). */
#define LAUNCH_DEFAULT_S 20e-6
/* Host time of one collective call through torch.distributed: the median
 * CPU duration of c10d::allreduce_ in the A100 training trace
 * ../shared/traces/hta/trace_diff/control.json.gz (81 us; the same trace's
 * c10d::alltoall_base_ takes 83 us, reduce_scatter 98 us in the other A100
 * trace, allreduce 92 us on V100). tools/calib/kineto_comm.py. */
#define COLL_HOST_S 81e-6
double cost_coll_host(const sc_gpu *g) {
  (void)g;
  return COLL_HOST_S;
}

/* Host time at the start of each micro-batch before its first layer:
 * fetching the batch, copying it to the GPU, zeroing what the step
 * needs. The time from a step's start to its forward in the A100-SXM4-80GB
 * training trace ../shared/traces/hta/negative_queue_length_values_check/
 * rank0.json.gz (one micro-batch a step): 4.19, 2.78, 2.61, 2.77, 2.65 ms
 * over its 5 steps, median 2.77 (of it copy_batch_to_gpu 1.36-2.77 ms);
 * docs/calibration.md. The host has just synchronised with the GPU
 * (analytic.c stage_cost), so all of it is exposed. */
#define BATCH_HOST_S 2.77e-3
double cost_batch_host(const sc_gpu *g) {
  (void)g;
  return BATCH_HOST_S;
}

/* Launch cost of one kernel replayed from a CUDA graph: the per-kernel
 * interval of a graph of tiny kernels, mean of H200 1.26, A40 1.09 and
 * L40 0.94 us (../shared/calibration/host_overheads.csv rows 2, 6, 9;
 * stream launches of the same kernels take 2.4, 2.0, 1.6 us). */
#define GRAPH_KERNEL_S 1.1e-6
double cost_graph_launch(const sc_gpu *g) {
  (void)g;
  return GRAPH_KERNEL_S;
}

/* Achievable host-link bandwidth per direction (nvbandwidth copy-engine
 * host<->device, ../shared/calibration/azure_gpu_microbenchmarks.csv):
 * Grace-Blackwell's NVLink-C2C 197 GB/s (rows 76, 77: 201 and 193), PCIe
 * Gen5 x16 on Hopper, Blackwell HGX and MI300-class 51.5 GB/s (rows 70,
 * 71: H100 51 and 52; rows 73-74 H200 52), PCIe Gen4 x16 on Ampere 26.3
 * GB/s (row 67, host to device; its device-to-host 6.3 is a VM artefact),
 * PCIe Gen3 x16 before: 15.75 GB/s x the Gen4 achieved fraction 26.3 /
 * 31.5 (no measurement). */
double cost_host_bw(const sc_gpu *g) {
  if (g->host_bw > 0) return g->host_bw;
  if (strncasecmp(g->name, "gb", 2) == 0 || strncasecmp(g->name, "gh", 2) == 0) return 197e9;
  if (g->arch >= 90 || g->arch == 0) return 51.5e9;
  if (g->arch >= 80) return 26.28e9;
  return 15.75e9 * 26.28 / 31.5;
}

double cost_launch(const sc_gpu *g) {
  return g->launch_s > 0 ? g->launch_s : LAUNCH_DEFAULT_S;
}
