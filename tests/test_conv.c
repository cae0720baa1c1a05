/*
 * test_conv.c -- the convolution cost model (src/cost/conv.c): its laws
 * (roofline bounds, Winograd only on the CUDA cores, no data gradient of
 * the first conv, strided data gradients), one time by hand, and the
 * per-kernel fit against the calibration trace it was fitted to.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>

#include "cost/compute.h"
#include "cost/conv.h"

static const sc_gpu *gpu(const char *name) {
  const sc_gpu *g = sc_gpu_preset(name);
  cr_assert_not_null(g, "GPU preset %s missing", name);
  return g;
}

static double flops(const cost_conv *c) {
  return 2 * c->n * c->p * c->q * c->k * c->c * c->r * c->s;
}

/* A 1x1 conv 1024 -> 1024 at 28 x 28, batch 64, on an A100 in fp16: an
 * implicit GEMM of 50176 x 1024 x 1024, large and tensor-core bound.
 * By hand: 105.2 GFLOP at 312 TFLOP/s x 0.84 x the tile and k-loop
 * efficiency (K = 1024 with the tensor-core GEMM's k0 of 256: 1024 /
 * (1024 + 256) = 0.8; the 256 x 128 tile
 * fills 50176 / 50176 and 1024 / 1024, waves 1568 CTAs on 108 SMs: 1568 /
 * (1568 + 0.7 x 52) = 0.977) = 0.657: 105.2e9 / 204.8e12 = 514 us, plus
 * 3 us. Memory: (51.4 M + 51.4 M) x 2 + 1 M x 2 = 207.6 MB / 1.61 TB/s =
 * 129 us: compute-bound. */
Test(conv, one_conv_by_hand) {
  const sc_gpu *g = gpu("a100-sxm4-80gb");
  cost_conv c = {.n = 64, .c = 1024, .k = 1024, .r = 1, .s = 1, .p = 28, .q = 28, .stride = 1};
  double t = cost_conv_time(g, SC_FP16, &c, COST_CONV_FWD);
  double want = flops(&c) / (312e12 * 0.84 * (1024.0 / 1280.0) * (1568.0 / (1568 + 0.7 * 52))) + 3e-6;
  cr_assert(fabs(t / want - 1) < 0.01, "fwd %.1f us, by hand %.1f us", t * 1e6, want * 1e6);
}

/* A tensor-core convolution's forward is the GEMM model's GEMM of the
 * same m, n, k (the same efficiency, k-loop prologue included: k0 256 of
 * the cuBLASLt fit, not the CUDA-core fit's 8), and a CUDA-core one keeps
 * the CUDA-core k0: at K = 64 (a 1x1 conv from 64 channels) the
 * tensor-core k-loop runs at 64 / 320 = 0.2 of its rate, the CUDA-core
 * one at 64 / 72. */
Test(conv, tensor_core_pass_is_the_gemm_model) {
  const sc_gpu *g = gpu("a100-sxm4-80gb");
  for (double ch = 64; ch <= 1024; ch *= 4) {
    cost_conv c = {.n = 256, .c = ch, .k = 256, .r = 1, .s = 1, .p = 56, .q = 56, .stride = 1};
    double m = 256.0 * 56 * 56, t = cost_conv_time(g, SC_FP16, &c, COST_CONV_FWD);
    double eff = cost_gemm_eff(g, SC_FP16, m, 256, ch, 1);
    double tc = flops(&c) / (312e12 * eff);
    double tm = (m * ch + m * 256) * 2 / (g->hbm_bw * g->hbm_eff) + 256 * ch * 2 / (g->hbm_bw * g->hbm_eff);
    double want = (tc > tm ? tc : tm) + 3e-6;
    cr_assert(fabs(t / want - 1) < 1e-9, "c=%g: conv %.2f us, GEMM model %.2f us", ch, t * 1e6,
              want * 1e6);
  }
  cost_conv_params pr = COST_CONV_DEFAULT;
  cost_conv c = {.n = 256, .c = 64, .k = 256, .r = 1, .s = 1, .p = 56, .q = 56, .stride = 1};
  double t8 = cost_conv_time_ex(g, &pr, SC_FP32, &c, COST_CONV_FWD);
  pr.k0 = 256;
  double t256 = cost_conv_time_ex(g, &pr, SC_FP32, &c, COST_CONV_FWD);
  cr_assert(t256 > t8 * 1.5, "fp32 on A100 (no TF32 asked): k0 must matter there, %g vs %g", t256, t8);
}

/* Which k0 a pass takes, Volta to Blackwell and an AMD part: the fitted
 * CUDA-core k0 (cost_conv_params.k0) reaches a pass only where it runs on
 * the CUDA cores -- fp32 everywhere (no TF32 asked), fp16 before Volta;
 * fp16 from Volta, TF32 and bf16 from Ampere, fp8 from Ada/Hopper and
 * the MI300X's matrix cores take the GEMM model's k0, whatever the params
 * say. A 1x1 conv from 64 channels (K = 64), where k0 weighs most. */
Test(conv, the_k0_follows_the_tensor_core_choice) {
  static const struct {
    const char *gpu;
    sc_dtype dt;
    int tc;
  } cases[] = {
      {"p100-sxm2-16gb", SC_FP16, 0}, {"v100-sxm2-16gb", SC_FP32, 0},
      {"v100-sxm2-16gb", SC_FP16, 1}, {"a100-sxm4-80gb", SC_FP32, 0},
      {"a100-sxm4-80gb", SC_TF32, 1}, {"a100-sxm4-80gb", SC_BF16, 1},
      {"h100-sxm5-80gb", SC_FP8, 1},  {"h100-sxm5-80gb", SC_TF32, 1},
      {"b200", SC_FP16, 1},           {"b200", SC_FP32, 0},
      {"mi300x", SC_FP16, 1},
  };
  cost_conv c = {.n = 256, .c = 64, .k = 256, .r = 1, .s = 1, .p = 56, .q = 56, .stride = 1};
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    const sc_gpu *g = gpu(cases[i].gpu);
    cr_assert_eq(cost_conv_tensor_cores(g, cases[i].dt), cases[i].tc, "%s dtype %d", cases[i].gpu,
                 (int)cases[i].dt);
    cost_conv_params lo = COST_CONV_DEFAULT, hi = COST_CONV_DEFAULT;
    hi.k0 = 1000;
    double t_lo = cost_conv_time_ex(g, &lo, cases[i].dt, &c, COST_CONV_FWD);
    double t_hi = cost_conv_time_ex(g, &hi, cases[i].dt, &c, COST_CONV_FWD);
    if (cases[i].tc)
      cr_assert(t_lo == t_hi, "%s dtype %d: tensor cores ignore the CUDA-core k0 (%g vs %g)",
                cases[i].gpu, (int)cases[i].dt, t_lo, t_hi);
    else
      cr_assert(t_hi > 1.5 * t_lo, "%s dtype %d: CUDA cores take the fitted k0 (%g vs %g)",
                cases[i].gpu, (int)cases[i].dt, t_lo, t_hi);
  }
}

Test(conv, never_beats_peak_or_memory) {
  static const char *const gpus[] = {"k80", "p100-sxm2-16gb", "v100-sxm2-16gb", "a100-sxm4-80gb",
                                     "h100-sxm5-80gb"};
  for (size_t i = 0; i < 5; i++) {
    const sc_gpu *g = gpu(gpus[i]);
    sc_dtype dt = g->arch >= 70 ? SC_FP16 : SC_FP32;
    for (double ch = 16; ch <= 2048; ch *= 4)
      for (int p = 0; p < 3; p++) {
        cost_conv c = {.n = 32, .c = ch, .k = ch, .r = 1, .s = 1, .p = 28, .q = 28, .stride = 1};
        double t = cost_conv_time(g, dt, &c, (cost_conv_pass)p);
        cr_assert(flops(&c) / t <= cost_peak(g, dt) * 1.0001, "%s c=%g pass %d: above peak",
                  g->name, ch, p);
        double bytes = 2 * 32 * ch * 28 * 28 * sc_dtype_bytes(dt);
        cr_assert(t >= bytes / g->hbm_bw, "%s c=%g pass %d: faster than memory", g->name, ch, p);
      }
  }
}

/* Winograd: a 3x3 stride-1 conv on the CUDA cores counts fewer FLOPs, so
 * it may beat the fp32 peak in effective FLOP/s; on tensor cores it may
 * not; a strided 3x3 never runs Winograd. */
Test(conv, winograd_only_on_cuda_cores) {
  const sc_gpu *v = gpu("v100-sxm2-16gb");
  cost_conv c = {.n = 64, .c = 256, .k = 256, .r = 3, .s = 3, .p = 14, .q = 14, .stride = 1};
  double eff32 = flops(&c) / cost_conv_time(v, SC_FP32, &c, COST_CONV_FWD) / cost_peak(v, SC_FP32);
  double eff16 = flops(&c) / cost_conv_time(v, SC_FP16, &c, COST_CONV_FWD) / cost_peak(v, SC_FP16);
  cr_assert(eff32 > 1.2, "fp32 3x3 (Winograd): %.2f of peak", eff32);
  cr_assert(eff16 < 1.0, "fp16 3x3 (tensor cores): %.2f of peak", eff16);
  cr_assert(cost_conv_tensor_cores(v, SC_FP16) && !cost_conv_tensor_cores(v, SC_FP32));
  cr_assert(!cost_conv_tensor_cores(gpu("p100-sxm2-16gb"), SC_FP16), "Pascal has no tensor cores");
  cr_assert(cost_conv_tensor_cores(gpu("a100-sxm4-80gb"), SC_TF32));
  cost_conv s2 = c;
  s2.stride = 2, s2.p = s2.q = 7;
  double e2 = flops(&s2) / cost_conv_time(v, SC_FP32, &s2, COST_CONV_FWD) / cost_peak(v, SC_FP32);
  cr_assert(e2 < 1.0, "strided 3x3: %.2f of peak", e2);
}

Test(conv, first_conv_has_no_data_gradient) {
  const sc_gpu *g = gpu("v100-sxm2-16gb");
  cost_conv c = {.n = 32, .c = 3, .k = 64, .r = 7, .s = 7, .p = 112, .q = 112, .stride = 2};
  cr_assert(cost_conv_time(g, SC_FP32, &c, COST_CONV_DGRAD) > 0);
  c.first = 1;
  cr_assert_eq(cost_conv_time(g, SC_FP32, &c, COST_CONV_DGRAD), 0);
  cr_assert(cost_conv_time(g, SC_FP32, &c, COST_CONV_WGRAD) > 0);
}

/* The fit it was made by (docs/calibration.md): the per-kernel table of
 * the Kineto ResNet-50 V100 trace, within 15 % mean absolute log error
 * and 10 % on each pass's total. */
Test(conv, calibration_trace) {
  FILE *f = fopen(SC_SOURCE_DIR "/tools/calib/kineto_resnet50_v100_convs.txt", "r");
  cr_assert_not_null(f, "tools/calib/kineto_resnet50_v100_convs.txt missing");
  const sc_gpu *g = gpu("v100-sxm2-32gb");
  char line[256];
  double err = 0, tot[2][3] = {{0}};
  int n = 0, first = 1;
  while (fgets(line, sizeof line, f)) {
    if (line[0] == '#') continue;
    cost_conv c = {0};
    double h, w, st, us[3];
    if (sscanf(line, "%lf %lf %lf %lf %lf %lf %lf %lf %lf %lf %lf %lf %lf", &c.n, &c.c, &h, &w, &c.k,
               &c.r, &c.s, &c.p, &c.q, &st, &us[0], &us[1], &us[2]) != 13)
      continue;
    c.stride = (int)st;
    c.first = first, first = 0;
    for (int p = 0; p < 3; p++) {
      if (us[p] <= 0) continue;
      double t = cost_conv_time(g, SC_FP32, &c, (cost_conv_pass)p) * 1e6;
      err += fabs(log(t / us[p]));
      tot[0][p] += us[p], tot[1][p] += t;
      n++;
    }
  }
  fclose(f);
  cr_assert_eq(n, 158, "passes %d", n);
  cr_assert(err / n < 0.15, "mean |log error| %.3f", err / n);
  for (int p = 0; p < 3; p++)
    cr_assert(fabs(tot[1][p] / tot[0][p] - 1) < 0.10, "pass %d total %.2f ms vs %.2f ms", p,
              tot[1][p] / 1e3, tot[0][p] / 1e3);
}

/* Kepler's FMA issue limit (cost/compute.c): four schedulers feed 128 of
 * an SMX's 192 lanes, so cost_fma_issue is 2/3 on sm_37 and 1 on Pascal
 * and Volta. A compute-bound 1x1 conv (50176 x 1024 x 1024, 105.2 GFLOP)
 * in fp32 on a K80 die then takes exactly 1.5x what the same die takes
 * without the limit (the arch set to Maxwell's 52), and the fp32 GEMM
 * path (a fully-connected layer, on the CUDA cores) runs at 2/3 of the
 * CUDA-core efficiency. */
Test(conv, kepler_issues_two_thirds_of_its_lanes) {
  const sc_gpu *k80 = gpu("k80");
  cr_assert(fabs(cost_fma_issue(k80) - 128.0 / 192.0) < 1e-12, "k80 issue %g", cost_fma_issue(k80));
  cr_assert_eq(cost_fma_issue(gpu("p100-sxm2-16gb")), 1.0);
  cr_assert_eq(cost_fma_issue(gpu("v100-sxm2-16gb")), 1.0);
  sc_gpu maxwell_like = *k80;
  maxwell_like.arch = 52; /* the same die without the issue limit */
  cost_conv c = {.n = 64, .c = 1024, .k = 1024, .r = 1, .s = 1, .p = 28, .q = 28, .stride = 1};
  double t = cost_conv_time(k80, SC_FP32, &c, COST_CONV_FWD) - 3e-6;
  double u = cost_conv_time(&maxwell_like, SC_FP32, &c, COST_CONV_FWD) - 3e-6;
  cr_assert(fabs(t / u - 1.5) < 1e-6, "k80 %.1f us, without the limit %.1f us", t * 1e6, u * 1e6);
  /* the fp32 GEMM path (an FC layer) takes the same factor */
  cr_assert(fabs(cost_gemm_peak_eff(k80, SC_FP32) - COST_CONV_DEFAULT.eff_cuda * 2.0 / 3.0) < 1e-12,
            "k80 fp32 %g", cost_gemm_peak_eff(k80, SC_FP32));
}

/* NCHW tensors on tensor cores: cuDNN transposes each pass's input and
 * output (cost/conv.c). By hand, a 1x1 conv 256 -> 256 at 56 x 56, batch
 * 64, fp16 on a V100: x = y = 64 x 256 x 56 x 56 = 51.38 M elements;
 * the transposes move 2 (x + y) x 2 bytes = 411.0 MB at 900 GB/s x 0.89
 * = 801 GB/s: 513.2 us, plus two kernels of 3 us: 519.2 us more than the
 * NHWC pass, in every pass (forward, data and weight gradient). fp32 on
 * the CUDA cores has no transposes (cuDNN's NCHW kernels). */
Test(conv, nchw_tensor_cores_transpose) {
  const sc_gpu *v = gpu("v100-sxm2-16gb");
  cost_conv c = {.n = 64, .c = 256, .k = 256, .r = 1, .s = 1, .p = 56, .q = 56, .stride = 1};
  cost_conv t = c;
  t.nchw = 1;
  double want = 2 * (2 * 64 * 256 * 56 * 56.0) * 2 / (900e9 * 0.89) + 2 * 3e-6;
  for (int p = 0; p < 3; p++) {
    double d = cost_conv_time(v, SC_FP16, &t, (cost_conv_pass)p) -
               cost_conv_time(v, SC_FP16, &c, (cost_conv_pass)p);
    cr_assert(fabs(d / want - 1) < 1e-9, "pass %d: +%.1f us, by hand %.1f us", p, d * 1e6,
              want * 1e6);
  }
  cr_assert_eq(cost_conv_time(v, SC_FP32, &t, COST_CONV_FWD),
               cost_conv_time(v, SC_FP32, &c, COST_CONV_FWD));
}

/* The autotuner's choice (cost_conv_pick) for a 5x5 stride-1 convolution,
 * AlexNet's conv2 (64 -> 192 channels, 27 x 27, batch 128), forward, fp32
 * on a P100 SXM2 (10.6 TFLOP/s, 732 GB/s x 0.712 = 521.2 GB/s), each
 * algorithm by hand (conv.h; GEMM efficiencies from the GEMM model with
 * the CUDA-core eff_cuda 0.78 and k0 8):
 *   implicit GEMM: 2 x 93,312 x 192 x 1,600 = 57.3 GFLOP at 0.6105 of
 *     peak: 8,858 us + 3 us = 8.86 ms (the heuristic's kernel: no Winograd
 *     for 5x5);
 *   Winograd F(2x2, 5x5): 14 x 14 tiles, 36 GEMMs of 25,088 x 192 x 64,
 *     22.2 GFLOP at 0.5547: 3,775 us; transformed tensors 36 x (25,088 x
 *     256 + 64 x 192) x 4 B = 926.6 MB, written and read (1,778 us, under
 *     the GEMM), plus x, y, w (96.8 MB): (96.8 + 926.6) MB / 521.2 GB/s =
 *     1,963 us; 4 kernels x 3 us: 5.75 ms;
 *   FFT: 27 + 5 - 1 = 31 -> one 32 x 32 tile, 32 x 17 = 544 complex bins,
 *     544 GEMMs of 128 x 192 x 64 at 8 FLOPs a complex multiply-add: 6.85
 *     GFLOP at 0.5435: 1,188 us; 544 x 2 x (128 x 256 + 64 x 192) x 4 B =
 *     196.1 MB, so (96.8 + 196.1) MB / 521.2 GB/s = 562 us; + 12 us: 1.76
 *     ms, the fastest: 5.0x the implicit GEMM.
 * Without autotuning the heuristic's kernel runs. */
Test(conv, autotune_picks_the_cheapest_algorithm_by_hand) {
  const sc_gpu *g = gpu("p100-sxm2-16gb");
  const cost_conv_params *pr = &COST_CONV_DEFAULT;
  cost_conv c = {.n = 128, .c = 64, .k = 192, .r = 5, .s = 5, .p = 27, .q = 27, .stride = 1};
  double bw = 732e9 * 0.712, peak = 10.6e12, io = (128.0 * 64 * 729 + 128.0 * 192 * 729) * 4 +
                                                   192.0 * 64 * 25 * 4;
  cost_gemm_shape sh = COST_GEMM_DEFAULT;
  sh.k0 = 8;
  double ig = 2.0 * 93312 * 192 * 1600 / (peak * cost_gemm_eff_ex(g, &sh, 0.78, 93312, 192, 1600, 1)) + 3e-6;
  double wm = 128.0 * 196, wf = 36.0 * (wm * 256 + 64 * 192) * 4;
  double wt = 2.0 * 36 * wm * 192 * 64 / (peak * cost_gemm_eff_ex(g, &sh, 0.78, wm, 192, 64, 36));
  double wi = fmax(wt, wf / bw) + (io + wf) / bw + 12e-6;
  double ff = 544.0 * 2 * (128.0 * 256 + 64 * 192) * 4;
  double ft = 8.0 * 544 * 128 * 192 * 64 / (peak * cost_gemm_eff_ex(g, &sh, 0.78, 128, 192, 64, 544));
  double fft = fmax(ft, ff / bw) + (io + ff) / bw + 12e-6;
  const double want[COST_CONV_N_ALGOS] = {ig, ig, wi, fft};
  for (int a = 0; a < COST_CONV_N_ALGOS; a++) {
    double t = cost_conv_algo_time(g, pr, SC_FP32, &c, COST_CONV_FWD, (cost_conv_algo)a);
    cr_assert(fabs(t / want[a] - 1) < 1e-3, "algo %d: %.1f us, by hand %.1f us", a, t * 1e6,
              want[a] * 1e6);
  }
  cr_assert(fabs(ig - 8.86e-3) < 0.01e-3 && fabs(wi - 5.75e-3) < 0.01e-3 &&
                fabs(fft - 1.76e-3) < 0.01e-3,
            "the comment's figures: %.3f %.3f %.3f ms", ig * 1e3, wi * 1e3, fft * 1e3);
  double t;
  cr_assert_eq(cost_conv_pick(g, pr, SC_FP32, &c, COST_CONV_FWD, &t), COST_CONV_HEUR);
  cr_assert_eq(t, ig, "no autotuning: the heuristic's kernel");
  c.autotune = 1;
  cr_assert_eq(cost_conv_pick(g, pr, SC_FP32, &c, COST_CONV_FWD, &t), COST_CONV_FFT);
  cr_assert(fabs(t / fft - 1) < 1e-3 && cost_conv_time(g, SC_FP32, &c, COST_CONV_FWD) == t);
}

/* What cuDNN offers: Winograd for 3x3 and 5x5 at stride 1 only, FFT at
 * stride 1 for filters above 1x1, neither on the tensor cores; a 3x3
 * stride-1 CUDA-core pass keeps its heuristic's kernel, which is the
 * measured non-fused Winograd, so its derived cost never competes. */
Test(conv, autotune_offers_what_cudnn_has) {
  const sc_gpu *v = gpu("v100-sxm2-16gb");
  const cost_conv_params *pr = &COST_CONV_DEFAULT;
  cost_conv c = {.n = 64, .c = 64, .k = 64, .r = 5, .s = 5, .p = 28, .q = 28, .stride = 2,
                 .autotune = 1};
  cr_assert_eq(cost_conv_algo_time(v, pr, SC_FP32, &c, COST_CONV_FWD, COST_CONV_WINOGRAD), 0);
  cr_assert_eq(cost_conv_algo_time(v, pr, SC_FP32, &c, COST_CONV_FWD, COST_CONV_FFT), 0);
  c.stride = 1, c.r = c.s = 7;
  cr_assert_eq(cost_conv_algo_time(v, pr, SC_FP32, &c, COST_CONV_FWD, COST_CONV_WINOGRAD), 0);
  cr_assert(cost_conv_algo_time(v, pr, SC_FP32, &c, COST_CONV_FWD, COST_CONV_FFT) > 0);
  c.r = c.s = 1;
  cr_assert_eq(cost_conv_algo_time(v, pr, SC_FP32, &c, COST_CONV_FWD, COST_CONV_FFT), 0);
  c.r = c.s = 5;
  for (int a = COST_CONV_WINOGRAD; a < COST_CONV_N_ALGOS; a++)
    cr_assert_eq(cost_conv_algo_time(v, pr, SC_FP16, &c, COST_CONV_FWD, (cost_conv_algo)a), 0,
                 "algo %d on the tensor cores", a);
  cr_assert_eq(cost_conv_pick(v, pr, SC_FP16, &c, COST_CONV_FWD, NULL), COST_CONV_HEUR);
  const double ch[] = {64, 128, 256, 512}, pq[] = {56, 28, 14, 7};
  for (int i = 0; i < 4; i++)
    for (int p = 0; p < 3; p++) {
      cost_conv w = {.n = 32, .c = ch[i], .k = ch[i], .r = 3, .s = 3, .p = pq[i], .q = pq[i],
                     .stride = 1, .autotune = 1};
      cr_assert(cost_conv_algo_time(v, pr, SC_FP32, &w, (cost_conv_pass)p, COST_CONV_WINOGRAD) > 0);
      cr_assert_neq(cost_conv_pick(v, pr, SC_FP32, &w, (cost_conv_pass)p, NULL), COST_CONV_WINOGRAD,
                    "3x3 c=%g pass %d", ch[i], p);
    }
}

/* The derivation checked where cuDNN's non-fused Winograd was measured:
 * the calibration trace's stride-1 3x3 passes ran cuDNN's
 * winograd_nonfused::*4x4 kernels and sgemm (F(4x4, 3x3)); the derived
 * cost (nothing fitted in it but eff_cuda and k0) totals within 15 % of
 * each pass's measured time (fwd +9.6 %, dgrad +11.3 %, wgrad -13.1 %;
 * 13.54 against 13.40 ms in all). */
Test(conv, derived_winograd_against_the_trace) {
  FILE *f = fopen(SC_SOURCE_DIR "/tools/calib/kineto_resnet50_v100_convs.txt", "r");
  cr_assert_not_null(f, "tools/calib/kineto_resnet50_v100_convs.txt missing");
  const sc_gpu *g = gpu("v100-sxm2-32gb");
  char line[256];
  double tot[2][3] = {{0}};
  int n = 0;
  while (fgets(line, sizeof line, f)) {
    cost_conv c = {0};
    double h, w, st, us[3];
    if (line[0] == '#' ||
        sscanf(line, "%lf %lf %lf %lf %lf %lf %lf %lf %lf %lf %lf %lf %lf", &c.n, &c.c, &h, &w, &c.k,
               &c.r, &c.s, &c.p, &c.q, &st, &us[0], &us[1], &us[2]) != 13 ||
        c.r != 3 || st != 1)
      continue;
    c.stride = 1;
    for (int p = 0; p < 3; p++) {
      tot[0][p] += us[p] * 1e-6;
      tot[1][p] += cost_conv_algo_time(g, &COST_CONV_DEFAULT, SC_FP32, &c, (cost_conv_pass)p,
                                       COST_CONV_WINOGRAD);
    }
    n++;
  }
  fclose(f);
  cr_assert_eq(n, 13, "stride-1 3x3 convolutions %d", n);
  for (int p = 0; p < 3; p++)
    cr_assert(fabs(tot[1][p] / tot[0][p] - 1) < 0.15, "pass %d: derived %.2f ms, measured %.2f ms",
              p, tot[1][p] * 1e3, tot[0][p] * 1e3);
}
