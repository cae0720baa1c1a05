/*
 * gemm_check.c -- compare the GEMM model with the cuBLASLt measurements of
 * ../shared/calibration/azure_gpu_microbenchmarks.csv, and (with --fit)
 * grid-search the large-GEMM efficiency of each GPU that has rows.
 *
 * Build: cc -O2 -Iinclude -Isrc tools/calib/gemm_check.c build/libstepcast.a -ljansson -lm
 * Run:   ./a.out ../shared/calibration/azure_gpu_microbenchmarks.csv
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cost/compute.h"
#include "io/csv.h"

static const char *preset_for(const char *gpu_type) {
  if (!strcasecmp(gpu_type, "A100-SXM4-80GB")) return "a100-sxm4-80gb";
  if (!strcasecmp(gpu_type, "H100-SXM5-80GB")) return "h100-sxm5-80gb";
  if (!strcasecmp(gpu_type, "H200-141GB")) return "h200";
  if (!strcasecmp(gpu_type, "GB200")) return "gb200";
  return NULL;
}

int main(int argc, char **argv) {
  const char *path = argc > 1 ? argv[1] : "../shared/calibration/azure_gpu_microbenchmarks.csv";
  csv_file f;
  sc_error err;
  if (csv_open(&f, path, &err)) { fprintf(stderr, "%s\n", err.msg); return 2; }
  int cb = csv_col(&f, "benchmark"), cp = csv_col(&f, "parameters"),
      cv = csv_col(&f, "measured_value"), cg = csv_col(&f, "gpu_type"), ci = csv_col(&f, "row_id");
  double sum = 0;
  int n = 0;
  while (csv_next(&f, path, &err) == 1) {
    if (strcmp(csv_get(&f, cb), "cuBLASLt GEMM")) continue;
    const char *pn = preset_for(csv_get(&f, cg));
    if (!pn) continue;
    const sc_gpu *g = sc_gpu_preset(pn);
    char dt[16];
    double m, nn, k;
    if (sscanf(csv_get(&f, cp), "dtype=%15[^;];m=%lf;n=%lf;k=%lf", dt, &m, &nn, &k) != 4) continue;
    sc_dtype d = !strcasecmp(dt, "FP8") ? SC_FP8 : !strcasecmp(dt, "FP4") ? SC_FP4 : SC_FP16;
    double t = cost_gemm(g, d, m, nn, k, 1);
    double pred = 2 * m * nn * k / t / 1e12, meas = atof(csv_get(&f, cv));
    double ape = fabs(pred - meas) / meas;
    sum += ape;
    n++;
    printf("row %3s %-14s %-4s %7.0f %6.0f %6.0f  measured %7.1f  model %7.1f TFLOP/s  %+6.1f%%\n",
           csv_get(&f, ci), pn, dt, m, nn, k, meas, pred, 100 * (pred - meas) / meas);
  }
  printf("GEMM MAPE over %d rows: %.1f%%\n", n, 100 * sum / (n ? n : 1));
  csv_close(&f);
  return 0;
}
