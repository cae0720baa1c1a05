/*
 * test_compute.c -- the kernel time model against calibration data and
 * its basic laws (monotone in size, roofline bounds).
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cost/compute.h"
#include "cost/conv.h"
#include "load/csv.h"

static const sc_gpu *gpu(const char *name) {
  const sc_gpu *g = sc_gpu_preset(name);
  cr_assert_not_null(g, "GPU preset %s missing", name);
  return g;
}

static double tflops(const sc_gpu *g, sc_dtype d, double m, double n, double k) {
  return 2 * m * n * k / cost_gemm(g, d, m, n, k, 1) / 1e12;
}

Test(compute, gemm_never_beats_peak_or_hbm) {
  for (size_t i = 0; i < sc_gpu_preset_count(); i++) {
    const sc_gpu *g = sc_gpu_preset_at(i);
    for (double n = 64; n <= 16384; n *= 4) {
      double t = cost_gemm(g, SC_FP16, n, n, n, 1);
      double flops = 2 * n * n * n;
      cr_assert(flops / t <= cost_peak(g, SC_FP16) * 1.0001,
                "%s n=%g: %g FLOP/s above peak %g", g->name, n, flops / t, cost_peak(g, SC_FP16));
      double bytes = 3 * n * n * 2;
      cr_assert(t >= bytes / g->hbm_bw, "%s n=%g: faster than HBM", g->name, n);
    }
  }
}

Test(compute, gemm_time_grows_with_work) {
  const sc_gpu *g = gpu("a100-sxm4-80gb");
  double prev = 0;
  for (double m = 128; m <= 65536; m *= 2) {
    double t = cost_gemm(g, SC_BF16, m, 4096, 4096, 1);
    cr_assert(t > prev, "m=%g: time %g not above %g", m, t, prev);
    prev = t;
  }
}

/* The model reproduces the cuBLASLt rows it was calibrated on: large
 * GEMMs (all dims >= 4096) within 8 %, every A100/H100/H200 row within
 * 55 % (small shapes are launch-dominated). */
Test(compute, gemm_matches_calibration_rows) {
  const char *path = SC_SHARED_DIR "/calibration/azure_gpu_microbenchmarks.csv";
  csv_file f;
  sc_error err;
  /* ../shared is required (scripts/test.sh checks it): fail, not skip */
  cr_assert_eq(csv_open(&f, path, &err), SC_OK, "calibration data not found: %s", err.msg);
  int cb = csv_col(&f, "benchmark"), cp = csv_col(&f, "parameters"),
      cv = csv_col(&f, "measured_value"), cg = csv_col(&f, "gpu_type");
  int checked = 0;
  while (csv_next(&f, path, &err) == 1) {
    if (strcmp(csv_get(&f, cb), "cuBLASLt GEMM")) continue;
    const char *gt = csv_get(&f, cg), *pn = NULL;
    if (!strcmp(gt, "A100-SXM4-80GB")) pn = "a100-sxm4-80gb";
    else if (!strcmp(gt, "H100-SXM5-80GB")) pn = "h100-sxm5-80gb";
    else if (!strcmp(gt, "H200-141GB")) pn = "h200";
    if (!pn) continue;
    char dt[16];
    double m, n, k;
    if (sscanf(csv_get(&f, cp), "dtype=%15[^;];m=%lf;n=%lf;k=%lf", dt, &m, &n, &k) != 4) continue;
    sc_dtype d = !strcmp(dt, "FP8") ? SC_FP8 : SC_FP16;
    double pred = tflops(gpu(pn), d, m, n, k), meas = atof(csv_get(&f, cv));
    double err_rel = fabs(pred - meas) / meas;
    double tol = (m >= 4096 && n >= 4096 && k >= 4096) ? 0.08 : 0.55;
    cr_expect(err_rel <= tol, "%s %s %gx%gx%g: model %.1f vs measured %.1f TFLOP/s (%.1f%% > %.0f%%)",
              pn, dt, m, n, k, pred, meas, 100 * err_rel, 100 * tol);
    checked++;
  }
  csv_close(&f);
  cr_assert(checked >= 20, "only %d GEMM rows checked", checked);
}

Test(compute, memory_bound_kernel_runs_at_stream_bandwidth) {
  const sc_gpu *g = gpu("a100-sxm4-80gb");
  double bytes = 8e9;
  double t = cost_mem(g, bytes);
  /* [AZ 44]: STREAM copy 1.61 TB/s */
  cr_assert_float_eq(bytes / t / 1e12, 1.61, 0.02, "got %g TB/s", bytes / t / 1e12);
}

Test(compute, fp8_falls_back_on_gpus_without_it) {
  const sc_gpu *g = gpu("a100-sxm4-80gb");
  cr_assert_float_eq(cost_peak(g, SC_FP8), 312e12, 1);
  const sc_gpu *v = gpu("v100-sxm2-32gb");
  cr_assert_float_eq(cost_peak(v, SC_BF16), 125e12, 1);
}

/* A GEMM the GPU runs on its CUDA cores takes the CUDA-core fit of the
 * V100 fp32 convolutions (eff_cuda 0.78, k-loop prologue 8), not the
 * tensor-core one (gemm_eff, prologue 256). 2560 x 2048 on a V100 (80
 * SMs): 10 x 16 tiles of 256 x 128 = 160 CTAs, two full waves, every
 * tile full; k = 4096. fp32: 0.78 x 4096 / 4104;
 * fp16 on its tensor cores: 0.84 x 4096 / 4352. */
Test(compute, cuda_core_gemms_take_the_cuda_core_fit) {
  const sc_gpu *g = gpu("v100-sxm2-16gb");
  double m = 2560, n = 2048, k = 4096;
  double fp32 = cost_gemm_eff(g, SC_FP32, m, n, k, 1);
  double fp16 = cost_gemm_eff(g, SC_FP16, m, n, k, 1);
  cr_assert_float_eq(fp32, 0.78 * 4096 / 4104, 1e-9, "fp32 %g", fp32);
  cr_assert_float_eq(fp16, g->gemm_eff * 4096 / 4352, 1e-9, "fp16 %g", fp16);
  /* the time is that efficiency of the fp32 FMA rate */
  double t = cost_gemm(g, SC_FP32, m, n, k, 1);
  cr_assert_float_eq(t, 2 * m * n * k / (g->peak_flops[SC_FP32] * fp32) + 3e-6, 1e-9 * t);
  /* an A100 runs fp32 (no TF32) on its CUDA cores too, tf32 on tensor cores */
  const sc_gpu *a = gpu("a100-sxm4-80gb");
  cr_assert_lt(cost_gemm_eff(a, SC_FP32, 8192, 8192, 8192, 1), 0.79);
  cr_assert_gt(cost_gemm_eff(a, SC_TF32, 8192, 8192, 8192, 1), 0.80);
}

/* Narrow GEMMs (compute.c, GEMV_MAX_DIM 16) run as memory-bound kernels:
 * the 1,024 -> 1 logit layer of a Wide&Deep at batch 32,768 in fp32 on a
 * V100 (900 GB/s x hbm_eff 0.89 = 801 GB/s). Each pass moves 4 B x
 * (32768 x 1024 + 1024 + 32768) = 134,352,896 B: 167.7 us + the 3 us
 * kernel cost. Forward [32768 x 1024] x [1024 x 1], data gradient
 * [32768 x 1] x [1 x 1024] (k = 1, an outer product), weight gradient
 * [1024 x 32768] x [32768 x 1]. The tile path pads n = 1 to a 64-wide
 * tile (1/64 filled): about 0.52 ms forward. n = 17 is not narrow and
 * keeps the tile path's roofline. */
Test(compute, narrow_gemms_run_at_the_memory_bound_rate) {
  const sc_gpu *v = gpu("v100-sxm2-16gb");
  double hbm = v->hbm_bw * v->hbm_eff, bytes = 4.0 * (32768.0 * 1024 + 1024 + 32768);
  cr_assert_float_eq(hbm, 801e9, 1e3, "V100 achievable HBM %g", hbm);
  double want = bytes / hbm + COST_KERNEL_T0; /* 170.7 us */
  double fwd = cost_gemm(v, SC_FP32, 32768, 1, 1024, 1);
  double dgrad = cost_gemm(v, SC_FP32, 32768, 1024, 1, 1);
  double wgrad = cost_gemm(v, SC_FP32, 1024, 1, 32768, 1);
  cr_assert_float_eq(fwd, want, 1e-9 * want, "forward %g s, want %g", fwd, want);
  cr_assert_float_eq(dgrad, want, 1e-9 * want, "data gradient %g s", dgrad);
  cr_assert_float_eq(wgrad, want, 1e-9 * want, "weight gradient %g s", wgrad);
  cr_assert_float_eq(want, 170.7e-6, 0.1e-6, "hand figure %g", want);
  /* the tile path it replaces is 3x slower at n = 1 */
  double flops = 2.0 * 32768 * 1024, tile = flops / (cost_peak(v, SC_FP32) *
                                                      cost_gemm_eff(v, SC_FP32, 32768, 1, 1024, 1));
  cr_assert_gt(tile, 2.5 * fwd, "tile path %g s vs narrow %g s", tile, fwd);
  /* n = 17: the tile path's roofline, unchanged */
  double f17 = flops * 17, b17 = 4.0 * (32768.0 * 1024 + 1024 * 17 + 32768 * 17);
  double c17 = f17 / (cost_peak(v, SC_FP32) * cost_gemm_eff(v, SC_FP32, 32768, 17, 1024, 1));
  double t17 = (c17 > b17 / hbm ? c17 : b17 / hbm) + COST_KERNEL_T0;
  double got = cost_gemm(v, SC_FP32, 32768, 17, 1024, 1);
  cr_assert_float_eq(got, t17, 1e-9 * t17, "n = 17: %g s, want %g", got, t17);
  cr_assert_gt(got, 2.5 * fwd, "n = 17 on the tile path: %g s", got);
}

/* A narrow shape is never costed above the tile path (the library picks
 * the faster kernel) nor below its bytes at the achievable HBM rate. */
Test(compute, narrow_gemms_between_memory_and_tile_path) {
  for (size_t i = 0; i < sc_gpu_preset_count(); i++) {
    const sc_gpu *g = sc_gpu_preset_at(i);
    double hbm = g->hbm_bw * g->hbm_eff;
    cost_gemm_shape sh;
    cost_gemm_params(g, SC_FP16, &sh); /* the GPU's fixed cost per GEMM */
    for (double n = 1; n <= 16; n *= 2) {
      double m = 65536, k = 4096, flops = 2 * m * n * k;
      double bytes = 2.0 * (m * k + k * n + m * n);
      double t = cost_gemm(g, SC_FP16, m, n, k, 1);
      double tile = flops / (cost_peak(g, SC_FP16) * cost_gemm_eff(g, SC_FP16, m, n, k, 1));
      double lo = bytes / hbm + sh.t0;
      double hi = (tile > bytes / hbm ? tile : bytes / hbm) + sh.t0;
      cr_assert(t >= lo * (1 - 1e-9) && t <= hi * (1 + 1e-9), "%s n=%g: %g s not in [%g, %g]",
                g->name, n, t, lo, hi);
    }
  }
}

/* cost_gemm_lib_path names the kernel whose time cost_gemm_lib gives:
 * the narrow kernel for the V100 logit layer above (3x faster than its
 * tile), the tile kernel at its FLOP rate for a large square GEMM, the
 * tile bound by its bytes for a thin one no narrow kernel takes
 * (2^20 x 64 x 64 in fp16 on an H100: 64 FLOPs per 4 bytes read and
 * written), and the same times as cost_gemm_lib and cost_gemm_expert. */
Test(compute, the_path_named_is_the_path_costed) {
  const sc_gpu *v = gpu("v100-sxm2-16gb"), *h = gpu("h100-sxm5-80gb");
  static const struct {
    double m, n, k;
    sc_dtype dt;
    cost_gemm_path want;
  } cases[] = {{32768, 1, 1024, SC_FP32, COST_GEMM_NARROW},
               {8192, 8192, 8192, SC_FP32, COST_GEMM_TILE},
               {1 << 20, 64, 64, SC_FP16, COST_GEMM_TILE_MEMORY}};
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    const sc_gpu *g = i == 2 ? h : v;
    double m = cases[i].m, n = cases[i].n, k = cases[i].k;
    cost_gemm_path p = (cost_gemm_path)-1;
    double t = cost_gemm_lib_path(g, cases[i].dt, m, n, k, 1, 0, 0, &p);
    cr_assert_eq(p, cases[i].want, "case %zu: %s, want %s", i, cost_gemm_path_name(p),
                 cost_gemm_path_name(cases[i].want));
    cr_assert_float_eq(t, cost_gemm_lib(g, cases[i].dt, m, n, k, 1, 0), 1e-15);
    double te = cost_gemm_lib_path(g, cases[i].dt, m, n, k, 1, 0, 1, &p);
    cr_assert_float_eq(te, cost_gemm_expert(g, cases[i].dt, m, n, k, 1), 1e-15);
  }
  cr_assert_str_eq(cost_gemm_path_name(COST_GEMM_NARROW), "narrow");
  cr_assert_str_eq(cost_gemm_path_name(COST_GEMM_TILE_MEMORY), "memory");
  cr_assert_str_eq(cost_gemm_path_name(COST_GEMM_TILE), "tile");
}

/* Which GEMMs run on the CUDA cores is decided in cost_gemm_peak_eff, so
 * every caller (cost_gemm, recsys's dot interaction, the trace what-ifs)
 * gets it: fp32 on a V100 and an A100 (no TF32 asked), fp16 on a P100 at
 * the CUDA-core efficiency of cost/conv.c; fp16 on a V100, tf32 on an
 * A100 at the preset's tensor-core gemm_eff. */
Test(compute, cuda_core_gemms_get_the_cuda_core_efficiency_everywhere) {
  double cuda = COST_CONV_DEFAULT.eff_cuda;
  const sc_gpu *v = gpu("v100-sxm2-32gb"), *a = gpu("a100-sxm4-80gb"), *p = gpu("p100-sxm2-16gb");
  cr_expect_eq(cost_gemm_peak_eff(v, SC_FP32), cuda, "v100 fp32 %g", cost_gemm_peak_eff(v, SC_FP32));
  cr_expect_eq(cost_gemm_peak_eff(a, SC_FP32), cuda, "a100 fp32 %g", cost_gemm_peak_eff(a, SC_FP32));
  cr_expect_eq(cost_gemm_peak_eff(p, SC_FP16), cuda, "p100 fp16 %g", cost_gemm_peak_eff(p, SC_FP16));
  cr_expect_eq(cost_gemm_peak_eff(v, SC_FP16), v->gemm_eff, "v100 fp16 %g",
               cost_gemm_peak_eff(v, SC_FP16));
  cr_expect_eq(cost_gemm_peak_eff(a, SC_TF32), a->gemm_eff, "a100 tf32 %g",
               cost_gemm_peak_eff(a, SC_TF32));
  cr_assert(v->gemm_eff != cuda, "the two efficiencies must differ for this test to mean anything");
  /* cost_gemm's large-GEMM efficiency never exceeds it */
  double e = cost_gemm_eff(v, SC_FP32, 8192, 8192, 8192, 1);
  cr_expect(e <= cost_gemm_peak_eff(v, SC_FP32) && e > 0.8 * cuda, "v100 fp32 8192^3: %g", e);
}

/* The pre-Volta presets' clock and bandwidth (hw/gpu_presets.c,
 * docs/calibration.md "Pre-Volta clocks and bandwidth"), by hand:
 *  - a K80 die at its 562 MHz base clock: 2,496 lanes x 2 FLOP x 562 MHz =
 *    2.806 TFLOP/s (the datasheet's board 5.6 / 2 = 2.80), 875 / 562 =
 *    1.557x below the 4.37 of the 875 MHz autoboost ceiling;
 *  - a P100 delivers 76 % of its HBM2 bandwidth where a V100 delivers 95 %
 *    (NVIDIA's V100 whitepaper): V100's measured 0.89 x 76 / 95 = 0.712;
 *    a 100 MB memory-bound kernel on a P100 SXM2 then takes 1e8 / (732e9 x
 *    0.712) = 191.9 us + the 3 us kernel cost = 194.9 us (it took 156.5 us
 *    at V100's 0.89); the K80 takes the same ratio on its 240 GB/s:
 *    1e8 / (240e9 x 0.712) + 3 us = 588.2 us. */
Test(compute, pre_volta_base_clock_and_delivered_bandwidth) {
  const sc_gpu *k80 = gpu("k80"), *p = gpu("p100-sxm2-16gb"), *v = gpu("v100-sxm2-16gb");
  cr_expect(fabs(cost_peak(k80, SC_FP32) - 2496 * 2 * 562e6) / 2.806e12 < 0.003,
            "k80 fp32 peak %.4g", cost_peak(k80, SC_FP32));
  cr_expect(fabs(4.37e12 / cost_peak(k80, SC_FP32) - 1.557) < 0.01, "boost / base %.3f",
            4.37e12 / cost_peak(k80, SC_FP32));
  cr_expect(fabs(p->hbm_eff - v->hbm_eff * 76.0 / 95.0) < 1e-3, "p100 hbm_eff %g", p->hbm_eff);
  cr_expect(fabs(cost_mem(p, 1e8) - 194.9e-6) < 0.1e-6, "p100 100 MB: %.2f us",
            cost_mem(p, 1e8) * 1e6);
  cr_expect(fabs(cost_mem(k80, 1e8) - 588.2e-6) < 0.1e-6, "k80 100 MB: %.2f us",
            cost_mem(k80, 1e8) * 1e6);
  cr_expect_eq(gpu("p100-pcie-16gb")->hbm_eff, p->hbm_eff);
}

/* Experts' token counts end part-way into a tile (compute.c m_tiles):
 * with no waves, prologue or fixed cost, m = 128 rows x n = 256 on the
 * 128x256 tile (efficiency 1) fills it exactly when every entry has 128
 * rows, and 128 / (1.5 x 128) = 2/3 of it when the rows are a mean and
 * each entry pads half a tile; no other tile does better (256x128: one
 * tile half full, 0.5; 64x128: 0.8 x 128 / 160 = 0.64). */
Test(compute, expert_rows_pad_half_a_tile) {
  const sc_gpu *g = gpu("h100-sxm5-80gb");
  cost_gemm_shape sh = {0, 0, 0, 0};
  cr_assert_float_eq(cost_gemm_eff_ex(g, &sh, 1.0, 128, 256, 128, 4), 1.0, 1e-12);
  sh.m_pad = COST_GEMM_EXPERT_PAD;
  cr_assert_float_eq(cost_gemm_eff_ex(g, &sh, 1.0, 128, 256, 128, 4), 2.0 / 3.0, 1e-12);
}

/* cost_gemm_expert costs more than cost_gemm of the same mean rows, and
 * the padding fades as the experts' rows grow (half a tile of 2^20). */
Test(compute, expert_gemm_pads_less_as_tokens_grow) {
  const sc_gpu *g = gpu("h200");
  for (double m = 128; m <= 1048576; m *= 8) {
    double plain = cost_gemm(g, SC_BF16, m, 4096, 7168, 8),
           ex = cost_gemm_expert(g, SC_BF16, m, 4096, 7168, 8);
    cr_assert(ex > plain, "m=%g: expert %g not above plain %g", m, ex, plain);
    if (m >= 1048576) cr_assert(ex < plain * 1.01, "m=%g: expert %g vs %g", m, ex, plain);
  }
}

/* The H200 measurements of grouped expert GEMMs with the token counts a
 * balanced router leaves (data/measured/moe_rand_h200.csv, multinomial
 * counts, forward and data gradient): from 512 tokens an expert the
 * expert padding brings the model closer than plain cost_gemm, and within
 * 15 % on average (docs/calibration.md, "MoE expert GEMMs on an H200":
 * 10.1 / 11.9 %). */
Test(compute, expert_padding_matches_h200_grouped_gemms) {
  const char *path = SC_SOURCE_DIR "/data/measured/moe_rand_h200.csv";
  csv_file f;
  sc_error err;
  cr_assert_eq(csv_open(&f, path, &err), SC_OK, "%s", err.msg);
  int cv = csv_col(&f, "variant"), cp = csv_col(&f, "pass"), cg = csv_col(&f, "experts"),
      ct = csv_col(&f, "tokens_per_expert"), ck = csv_col(&f, "k"), cn = csv_col(&f, "n"),
      cms = csv_col(&f, "ms");
  const sc_gpu *g = gpu("h200");
  double ex_err = 0, plain_err = 0;
  int rows = 0;
  while (csv_next(&f, path, &err) == 1) {
    if (strcmp(csv_get(&f, cv), "grouped_rand") || atof(csv_get(&f, ct)) < 512) continue;
    int dgrad = !strcmp(csv_get(&f, cp), "dgrad");
    double G = atof(csv_get(&f, cg)), T = atof(csv_get(&f, ct)), k = atof(csv_get(&f, ck)),
           n = atof(csv_get(&f, cn)), ms = atof(csv_get(&f, cms));
    cr_assert(ms > 0);
    if (dgrad) { double x = k; k = n; n = x; } /* dx[T, k] = dy[T, n] W^T */
    ex_err += fabs(cost_gemm_expert(g, SC_BF16, T, n, k, G) * 1e3 / ms - 1);
    plain_err += fabs(cost_gemm(g, SC_BF16, T, n, k, G) * 1e3 / ms - 1);
    rows++;
  }
  csv_close(&f);
  cr_assert(rows >= 100, "only %d rows", rows);
  cr_assert(ex_err < plain_err, "expert %.3f not below plain %.3f", ex_err / rows, plain_err / rows);
  cr_assert(ex_err / rows < 0.15, "expert GEMM MAPE %.1f %%", 100 * ex_err / rows);
}

/* Rows that are not 16-byte aligned on Hopper (compute.c, cost_gemm_align;
 * data/measured/gemm_bench_h200.csv): BERT's 30,522 columns are 61,044
 * bytes in bf16, 4-byte aligned (0.39 of the rate); GPT-2's 50,257 are
 * 100,514, 2-byte aligned (0.21); 50,304 is aligned; TF32's 30,522 x 4
 * bytes 8-byte aligned (0.39); plain fp32 runs on the CUDA cores and an
 * A100 keeps its rate (not measured); a mean count of tokens is whole
 * enough. */
Test(compute, unaligned_rows_on_hopper) {
  const sc_gpu *h = gpu("h200"), *a = gpu("a100-sxm4-80gb");
  cr_assert_float_eq(cost_gemm_align(h, SC_BF16, 8192, 30522, 768), 0.39, 1e-12);
  cr_assert_float_eq(cost_gemm_align(h, SC_FP16, 8192, 768, 50257), 0.21, 1e-12);
  cr_assert_float_eq(cost_gemm_align(h, SC_BF16, 8192, 50304, 768), 1.0, 1e-12);
  cr_assert_float_eq(cost_gemm_align(h, SC_TF32, 768, 30522, 8192), 0.39, 1e-12);
  cr_assert_float_eq(cost_gemm_align(h, SC_FP32, 8192, 50257, 768), 1.0, 1e-12);
  cr_assert_float_eq(cost_gemm_align(a, SC_BF16, 8192, 50257, 768), 1.0, 1e-12);
  cr_assert_float_eq(cost_gemm_align(h, SC_BF16, 8192.5, 4096, 768), 1.0, 1e-12);
  /* the library's time: the unaligned GEMM at 0.39 of its efficiency */
  double t = cost_gemm_lib(h, SC_BF16, 8192, 30522, 768, 1, 0),
         aligned = cost_gemm(h, SC_BF16, 8192, 30522, 768, 1);
  cr_assert(t > 2.3 * aligned && t < 2.6 * aligned, "%g vs %g", t, aligned);
}

/* Hopper's tensor-core GEMMs take their own shape parameters
 * (COST_GEMM_HOPPER: k0 80, no wave loss, t0 3.5 us); other GPUs and
 * CUDA-core GEMMs keep theirs. Hand-checkable: 2048 x 768 x 768 bf16 on an
 * H200 at 256 x 128 tiles is 8 x 6 = 48 CTAs on 132 SMs, full tiles, so
 * its efficiency is gemm_eff x 768 / (768 + 80) with no wave factor. */
Test(compute, hopper_takes_its_own_gemm_shape) {
  const sc_gpu *h = gpu("h200"), *a = gpu("a100-sxm4-80gb");
  cost_gemm_shape sh;
  double e = cost_gemm_params(h, SC_BF16, &sh);
  cr_assert_float_eq(sh.k0, 80, 1e-12);
  cr_assert_float_eq(sh.wave_tail, 0, 1e-12);
  cr_assert_float_eq(sh.t0, 3.5e-6, 1e-15);
  cr_assert_float_eq(e, h->gemm_eff, 1e-12);
  double eff = cost_gemm_eff(h, SC_BF16, 2048, 768, 768, 1);
  cr_assert_float_eq(eff, h->gemm_eff * 768 / 848, 1e-9, "h200 %g", eff);
  cost_gemm_params(a, SC_BF16, &sh);
  cr_assert_float_eq(sh.k0, COST_GEMM_DEFAULT.k0, 1e-12);
  cr_assert_float_eq(sh.wave_tail, COST_GEMM_DEFAULT.wave_tail, 1e-12);
  cost_gemm_params(h, SC_FP32, &sh); /* fp32 without TF32: CUDA cores */
  cr_assert_float_eq(sh.k0, COST_CONV_DEFAULT.k0, 1e-12);
  /* the same die: H100 and H200 at one bf16 level; the H200's bf16 is
   * measured now (the report's calibration caveat keys on the bit) */
  cr_assert_float_eq(gpu("h100-sxm5-80gb")->gemm_eff, h->gemm_eff, 1e-12);
  cr_assert(h->calibrated & (1u << SC_BF16), "h200 bf16 calibrated");
}
