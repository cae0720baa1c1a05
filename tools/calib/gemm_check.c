/*
 * gemm_check.c -- the GEMM model against the cuBLASLt measurements of
 * ../shared/calibration/azure_gpu_microbenchmarks.csv.
 *
 *   gemm_check [CSV]         model vs measurement for every GEMM row
 *   gemm_check --bench CSV --gpu NAME [--rows]
 *                            model vs tools/calib/gemm_bench.py's rows
 *                            (data/measured/gemm_bench_h200.csv): the
 *                            model's time / measured - 1 by dtype, pass
 *                            and token count
 *   gemm_check --fit-hopper BENCH [--bench-only]
 *                            Hopper's shape parameters (COST_GEMM_HOPPER)
 *                            and levels over the H100/H200 fp8 cuBLASLt rows
 *                            and a graph-timed bench file
 *                            (data/measured/gemm_graph_h200.csv);
 *                            --bench-only fits the shape to the bench alone
 *                            and the fp8 levels to rows of 2048^3 and more
 *   gemm_check --fit [CSV]   grid-search the shape parameters (k0,
 *                            wave_tail, t0; shared by all GPUs) and each
 *                            GPU's large-GEMM efficiency, minimising the
 *                            mean absolute log error over the fp16/fp8
 *                            rows (fp4 rows excluded: GB200 reaches a
 *                            different fraction of peak in fp4)
 *
 * Build: cc -O2 -Iinclude -Isrc tools/calib/gemm_check.c build/libstepcast.a -ljansson -lm
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cost/compute.h"
#include "load/csv.h"

typedef struct row {
  const sc_gpu *g;
  int gi;            /* index into the fitted GPUs */
  sc_dtype dt;
  double m, n, k, tflops;
  char id[8];
} row;

static const char *const fitted[] = {"a100-sxm4-80gb", "h100-sxm5-80gb", "h200", "gb200"};
#define N_FIT 4

static int gpu_index(const char *gpu_type) {
  static const char *const types[] = {"A100-SXM4-80GB", "H100-SXM5-80GB", "H200-141GB", "GB200"};
  for (int i = 0; i < N_FIT; i++)
    if (!strcasecmp(gpu_type, types[i])) return i;
  return -1;
}

static int load(const char *path, row *rows, int max) {
  csv_file f;
  sc_error err;
  if (csv_open(&f, path, &err)) {
    fprintf(stderr, "%s\n", err.msg);
    exit(2);
  }
  int cb = csv_col(&f, "benchmark"), cp = csv_col(&f, "parameters"),
      cv = csv_col(&f, "measured_value"), cg = csv_col(&f, "gpu_type"), ci = csv_col(&f, "row_id");
  int n = 0;
  while (csv_next(&f, path, &err) == 1 && n < max) {
    if (strcmp(csv_get(&f, cb), "cuBLASLt GEMM")) continue;
    int gi = gpu_index(csv_get(&f, cg));
    if (gi < 0) continue;
    row *r = &rows[n];
    char dt[16];
    if (sscanf(csv_get(&f, cp), "dtype=%15[^;];m=%lf;n=%lf;k=%lf", dt, &r->m, &r->n, &r->k) != 4)
      continue;
    r->dt = !strcasecmp(dt, "FP8") ? SC_FP8 : !strcasecmp(dt, "FP4") ? SC_FP4 : SC_FP16;
    r->gi = gi;
    r->g = sc_gpu_preset(fitted[gi]);
    r->tflops = atof(csv_get(&f, cv));
    snprintf(r->id, sizeof r->id, "%s", csv_get(&f, ci));
    n++;
  }
  csv_close(&f);
  return n;
}

static double model_tflops(const row *r, const cost_gemm_shape *sh, double eff) {
  double t = cost_gemm_ex(r->g, sh, eff, r->dt, r->m, r->n, r->k, 1);
  return 2 * r->m * r->n * r->k / t / 1e12;
}

/* Mean absolute log error of GPU gi's rows (fp4 excluded). */
static double min_flops; /* --fit-hopper: rows of fewer FLOPs left out (host-bound) */
static double loss(const row *rows, int n, int gi, const cost_gemm_shape *sh, double eff) {
  double s = 0;
  int c = 0;
  for (int i = 0; i < n; i++) {
    if (rows[i].gi != gi || rows[i].dt == SC_FP4) continue;
    if (2 * rows[i].m * rows[i].n * rows[i].k < min_flops) continue;
    s += fabs(log(model_tflops(&rows[i], sh, eff) / rows[i].tflops));
    c++;
  }
  return c ? s / c : 0;
}

static void fit(const row *rows, int n) {
  cost_gemm_shape best = COST_GEMM_DEFAULT;
  double best_eff[N_FIT], best_loss = 1e9;
  for (double k0 = 16; k0 <= 256; k0 += 16) /* a CTA pipeline holds <= 256 of k */
    for (double tail = 0.0; tail <= 1.0001; tail += 0.1)
      for (double t0 = 1e-6; t0 <= 10e-6; t0 += 1e-6) {
        cost_gemm_shape sh = {k0, tail, t0, 0};
        double total = 0, effs[N_FIT];
        for (int gi = 0; gi < N_FIT; gi++) {
          double bl = 1e9;
          for (double e = 0.40; e <= 0.95; e += 0.01) {
            double l = loss(rows, n, gi, &sh, e);
            if (l < bl) { bl = l; effs[gi] = e; }
          }
          total += bl;
        }
        if (total < best_loss) {
          best_loss = total;
          best = (cost_gemm_shape){k0, tail, t0, 0};
          memcpy(best_eff, effs, sizeof effs);
        }
      }
  printf("fit: k0 %.0f  wave_tail %.1f  t0 %.0f us  (mean |log error| per GPU %.3f)\n", best.k0,
         best.wave_tail, best.t0 * 1e6, best_loss / N_FIT);
  for (int gi = 0; gi < N_FIT; gi++)
    printf("  %-16s gemm_eff %.2f  (mean |log error| %.3f)\n", fitted[gi], best_eff[gi],
           loss(rows, n, gi, &best, best_eff[gi]));
}

static sc_dtype bench_dtype(const char *s) {
  return !strcmp(s, "bf16")   ? SC_BF16
         : !strcmp(s, "fp16") ? SC_FP16
         : !strcmp(s, "tf32") ? SC_TF32
         : !strcmp(s, "fp8")  ? SC_FP8
                              : SC_FP32;
}

/* --bench: gemm_bench.py's rows against the engine's GEMM model (cost_gemm_lib, cuBLAS 11 or
 * newer: the aligned rate, or its fraction for unaligned rows) on one GPU. */
static int bench(const char *path, const char *gpu, int show) {
  const sc_gpu *g = sc_gpu_preset(gpu);
  csv_file f;
  sc_error err;
  if (!g || csv_open(&f, path, &err)) {
    fprintf(stderr, "gemm_check: %s\n", g ? err.msg : "unknown GPU");
    return 2;
  }
  static const char *const dts[] = {"bf16", "fp16", "tf32", "fp32", "fp8"},
                           *const ps[] = {"fwd", "dgrad", "wgrad"};
  double sa[5][3][2] = {{{0}}}, ss[5][3][2] = {{{0}}};
  int cnt[5][3][2] = {{{0}}};
  int cw = csv_col(&f, "weight"), cd = csv_col(&f, "dtype"), cp = csv_col(&f, "pass"),
      cm = csv_col(&f, "m"), cn = csv_col(&f, "n"), ck = csv_col(&f, "k"), cms = csv_col(&f, "ms");
  while (csv_next(&f, path, &err) == 1) {
    int d = 0, p = 0;
    while (d < 5 && strcmp(dts[d], csv_get(&f, cd))) d++;
    while (p < 3 && strcmp(ps[p], csv_get(&f, cp))) p++;
    double m = atof(csv_get(&f, cm)), n = atof(csv_get(&f, cn)), k = atof(csv_get(&f, ck)),
           ms = atof(csv_get(&f, cms));
    if (d == 5 || p == 3 || ms <= 0) continue;
    double tokens = p == 2 ? k : m,
           e = cost_gemm_lib(g, bench_dtype(dts[d]), m, n, k, 1, 0) * 1e3 / ms - 1;
    int big = tokens >= 8192;
    sa[d][p][big] += fabs(e), ss[d][p][big] += e, cnt[d][p][big]++;
    if (show)
      printf("%-20s %-4s %-5s %6.0f %6.0f %6.0f  measured %8.4f ms  %+6.1f%%\n", csv_get(&f, cw),
             dts[d], ps[p], m, n, k, ms, 100 * e);
  }
  csv_close(&f);
  printf("%-5s %-6s  %-24s %-24s (model / measured - 1, %s)\n", "dtype", "pass",
         "tokens 512-2048: MAPE signed", "tokens 8192-32768", g->name);
  for (int d = 0; d < 5; d++)
    for (int p = 0; p < 3; p++) {
      if (!cnt[d][p][0] && !cnt[d][p][1]) continue;
      printf("%-5s %-6s", dts[d], ps[p]);
      for (int b = 0; b < 2; b++)
        if (cnt[d][p][b])
          printf("  %6.1f%% %+6.1f%% (%3d)       ", 100 * sa[d][p][b] / cnt[d][p][b],
                 100 * ss[d][p][b] / cnt[d][p][b], cnt[d][p][b]);
      printf("\n");
    }
  return 0;
}

/* --fit-hopper: Hopper's own shape parameters (k0, wave_tail, t0), fitted
 * with three efficiencies to three groups of rows, each group's mean
 * absolute log error weighing alike: the H100 and H200 fp8 cuBLASLt rows
 * of the calibration (gemm_eff_fp8 of each) and the aligned bf16/fp16
 * rows of our H200 measurement replayed from CUDA graphs
 * (data/measured/gemm_graph_h200.csv: gemm_eff of the H200). */
typedef struct brow { double m, n, k, ms; sc_dtype dt; } brow;

static int load_bench(const char *path, brow *b, int max) {
  csv_file f;
  sc_error err;
  if (csv_open(&f, path, &err)) {
    fprintf(stderr, "gemm_check: %s\n", err.msg);
    exit(2);
  }
  int cw = csv_col(&f, "weight"), cd = csv_col(&f, "dtype"), cm = csv_col(&f, "m"),
      cn = csv_col(&f, "n"), ck = csv_col(&f, "k"), cms = csv_col(&f, "ms"), n = 0;
  while (csv_next(&f, path, &err) == 1 && n < max) {
    const char *w = csv_get(&f, cw), *d = csv_get(&f, cd);
    if (strstr(w, "vocab") && !strstr(w, "padded")) continue; /* unaligned rows: cost_gemm_align */
    if (strcmp(d, "bf16") && strcmp(d, "fp16")) continue;
    b[n] = (brow){atof(csv_get(&f, cm)), atof(csv_get(&f, cn)), atof(csv_get(&f, ck)),
                  atof(csv_get(&f, cms)), bench_dtype(d)};
    if (b[n].ms > 0) n++;
  }
  csv_close(&f);
  return n;
}

static double bench_loss(const sc_gpu *g, const brow *b, int n, const cost_gemm_shape *sh, double eff) {
  double s = 0;
  for (int i = 0; i < n; i++)
    s += fabs(log(cost_gemm_ex(g, sh, eff, b[i].dt, b[i].m, b[i].n, b[i].k, 1) * 1e3 / b[i].ms));
  return n ? s / n : 0;
}

static double best_eff(double (*lf)(const void *, const cost_gemm_shape *, double), const void *ctx,
                       const cost_gemm_shape *sh, double *eff) {
  double bl = 1e9;
  for (double e = 0.40; e <= 0.951; e += 0.005) {
    double l = lf(ctx, sh, e);
    if (l < bl) bl = l, *eff = e;
  }
  return bl;
}

typedef struct fitctx { const row *rows; int n, gi; const sc_gpu *g; const brow *b; } fitctx;
static double lf_az(const void *c, const cost_gemm_shape *sh, double e) {
  const fitctx *x = c;
  return loss(x->rows, x->n, x->gi, sh, e);
}
static double lf_bench(const void *c, const cost_gemm_shape *sh, double e) {
  const fitctx *x = c;
  return bench_loss(x->g, x->b, x->n, sh, e);
}

static void fit_hopper(const row *rows, int n, const char *bench_path, int bench_only) {
  static brow b[4096];
  int nb = load_bench(bench_path, b, 4096);
  fitctx c[3] = {{rows, n, 1, 0, 0}, {rows, n, 2, 0, 0}, {0, nb, 0, sc_gpu_preset("h200"), b}};
  double (*lf[3])(const void *, const cost_gemm_shape *, double) = {lf_az, lf_az, lf_bench};
  static const char *const names[3] = {"h100 fp8 (calibration)", "h200 fp8 (calibration)",
                                       "h200 bf16/fp16 (our graphs)"};
  cost_gemm_shape best = COST_GEMM_DEFAULT;
  double beff[3] = {0}, bloss = 1e9;
  for (double k0 = 16; k0 <= 256; k0 += 16)
    for (double tail = 0.0; tail <= 1.0001; tail += 0.1)
      for (double t0 = 0.5e-6; t0 <= 6.01e-6; t0 += 0.5e-6) {
        cost_gemm_shape sh = {k0, tail, t0, 0};
        double tot = 0, e[3];
        for (int i = 0; i < 3; i++) {
          double l = best_eff(lf[i], &c[i], &sh, &e[i]);
          if (i == 2 || !bench_only) tot += l;
        }
        if (tot < bloss) bloss = tot, best = sh, memcpy(beff, e, sizeof e);
      }
  printf("hopper fit over %d bench rows: k0 %.0f  wave_tail %.1f  t0 %.1f us\n", nb, best.k0,
         best.wave_tail, best.t0 * 1e6);
  for (int i = 0; i < 3; i++) {
    double e0 = 0, l0 = best_eff(lf[i], &c[i], &COST_GEMM_DEFAULT, &e0);
    printf("  %-28s eff %.3f  mean |log error| %.3f   (default shape: eff %.3f, %.3f)\n", names[i],
           beff[i], lf[i](&c[i], &best, beff[i]), e0, l0);
  }
}

int main(int argc, char **argv) {
  if (argc > 2 && !strcmp(argv[1], "--fit-hopper")) {
    static row rows[128];
    int n = load("../shared/calibration/azure_gpu_microbenchmarks.csv", rows, 128);
    int bench_only = argc > 3 && !strcmp(argv[3], "--bench-only");
    min_flops = bench_only ? 2.0 * 2048 * 2048 * 2048 : 0;
    fit_hopper(rows, n, argv[2], bench_only);
    return 0;
  }
  if (argc > 4 && !strcmp(argv[1], "--bench") && !strcmp(argv[3], "--gpu"))
    return bench(argv[2], argv[4], argc > 5 && !strcmp(argv[5], "--rows"));
  int do_fit = argc > 1 && !strcmp(argv[1], "--fit");
  const char *path = argc > 1 + do_fit ? argv[1 + do_fit]
                                        : "../shared/calibration/azure_gpu_microbenchmarks.csv";
  row rows[128];
  int n = load(path, rows, 128);
  if (do_fit) {
    fit(rows, n);
    return 0;
  }
  double sum = 0;
  for (int i = 0; i < n; i++) {
    const row *r = &rows[i];
    cost_gemm_shape sh;
    double eff = cost_gemm_params(r->g, r->dt, &sh), pred = model_tflops(r, &sh, eff);
    double ape = fabs(pred - r->tflops) / r->tflops;
    sum += ape;
    printf("row %3s %-14s %-4s %7.0f %6.0f %6.0f  measured %7.1f  model %7.1f TFLOP/s  %+6.1f%%\n",
           r->id, r->g->name, sc_dtype_name(r->dt), r->m, r->n, r->k, r->tflops, pred,
           100 * (pred - r->tflops) / r->tflops);
  }
  printf("GEMM MAPE over %d rows: %.1f%%\n", n, 100 * sum / (n ? n : 1));
  return 0;
}
