/*
 * test_attn_version.c -- FlashAttention-1 against FlashAttention-2 by
 * head dimension: the model's ratio is the mean of the calibration rows'
 * (../shared/calibration/attention_kernel_benchmarks.csv, the FA2 README
 * figures on A100 and H100), recomputed here from the file.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cost/compute.h"
#include "cost/conv.h"
#include "load/csv.h"

#define MAXP 64

/* One (gpu, causal, head dim, seq) setting's forward+backward TFLOP/s. */
typedef struct pair {
  char key[160];
  double fa1, fa2;
} pair;

static pair *find(pair *p, int *n, const char *key) {
  for (int i = 0; i < *n; i++)
    if (!strcmp(p[i].key, key))
      return &p[i];
  cr_assert_lt(*n, MAXP, "more than %d settings", MAXP);
  pair *q = &p[(*n)++];
  memset(q, 0, sizeof *q);
  snprintf(q->key, sizeof q->key, "%s", key);
  return q;
}

/* Mean FA1 / FA2 throughput over the settings of head dim d with both. */
static double measured_ratio(int d, int *pairs) {
  const char *path = SC_SHARED_DIR "/calibration/attention_kernel_benchmarks.csv";
  csv_file f;
  sc_error err = {0};
  cr_assert_eq(csv_open(&f, path, &err), SC_OK,
               "%s: this test needs the shared calibration data beside the checkout", err.msg);
  int impl = csv_col(&f, "implementation"), pass = csv_col(&f, "pass"), gpu = csv_col(&f, "gpu");
  int causal = csv_col(&f, "causal"), hd = csv_col(&f, "head_dim"), seq = csv_col(&f, "seqlen");
  int tf = csv_col(&f, "tflops");
  pair p[MAXP];
  int n = 0;
  while (csv_next(&f, path, &err) == 1) {
    const char *im = csv_get(&f, impl);
    int v1 = !strcmp(im, "FlashAttention (FA1)"), v2 = !strcmp(im, "FlashAttention-2");
    char *end;
    double t = strtod(csv_get(&f, tf), &end);
    if ((!v1 && !v2) || strcmp(csv_get(&f, pass), "fwd+bwd") || atoi(csv_get(&f, hd)) != d ||
        end == csv_get(&f, tf))
      continue; /* other kernels and passes, and "OOM" */
    char key[160];
    snprintf(key, sizeof key, "%s|%s|%s", csv_get(&f, gpu), csv_get(&f, causal), csv_get(&f, seq));
    pair *q = find(p, &n, key);
    if (v1)
      q->fa1 = t;
    else
      q->fa2 = t;
  }
  csv_close(&f);
  double sum = 0;
  *pairs = 0;
  for (int i = 0; i < n; i++)
    if (p[i].fa1 > 0 && p[i].fa2 > 0)
      sum += p[i].fa1 / p[i].fa2, (*pairs)++;
  cr_assert_geq(*pairs, 20, "head dim %d: %d FA1/FA2 pairs", d, *pairs);
  return sum / *pairs;
}

/* FA1's forward+backward throughput over FA2's in the model, head dim d:
 * 1 PFLOP each way, so the kernels' fixed cost is negligible. */
static double model_ratio(double d) {
  const sc_gpu *g = sc_gpu_preset("a100-sxm4-80gb");
  double f = 1e15, t[2];
  sc_attention a[2] = {SC_ATTN_FLASH1, SC_ATTN_FLASH2};
  for (int i = 0; i < 2; i++)
    t[i] = cost_flash_attn_k(g, SC_BF16, a[i], f, 2048, d, 1) +
           cost_flash_attn_bwd(g, SC_BF16, a[i], 2.5 * f, 2048, d, 1);
  return t[1] / t[0];
}

Test(attn_version, fa1_follows_the_measured_ratio_by_head_dim) {
  int n64, n128;
  double m64 = measured_ratio(64, &n64), m128 = measured_ratio(128, &n128);
  cr_assert(m64 > m128 + 0.1, "FA1/FA2: head 64 %g (%d pairs), head 128 %g (%d pairs)", m64, n64,
            m128, n128);
  cr_assert(fabs(model_ratio(64) / m64 - 1) < 0.005, "head 64: model %g, rows %g", model_ratio(64),
            m64);
  cr_assert(fabs(model_ratio(128) / m128 - 1) < 0.005, "head 128: model %g, rows %g",
            model_ratio(128), m128);
  /* between the measured head dims, linear; outside them, the nearest */
  cr_assert_float_eq(model_ratio(96), (model_ratio(64) + model_ratio(128)) / 2, 1e-6, "head 96");
  cr_assert_float_eq(model_ratio(256), model_ratio(128), 1e-6, "head 256");
  cr_assert_float_eq(model_ratio(32), model_ratio(64), 1e-6, "head 32");
}

/* Attention on the CUDA cores (fp32 without TF32) against our own H200
 * trace: data/measured/traces_h200/kernel_categories.txt gives the
 * attention kernels of a BERT-base fp32 step (seq 128, head dim 64, batch
 * 64, 12 layers, no mask) in ms, to 0.1 ms. The model's forward + backward
 * over the 12 layers must land within 3 % of it (the constants were taken
 * from that trace: docs/calibration.md), and no attention version applies
 * on the CUDA cores. */
static double measured_fp32_attention_ms(void) {
  const char *path = SC_SOURCE_DIR "/data/measured/traces_h200/kernel_categories.txt";
  FILE *f = fopen(path, "r");
  cr_assert_not_null(f, "%s: missing", path);
  char line[512];
  double ms = -1;
  int in = 0;
  while (fgets(line, sizeof line, f)) {
    if (!strncmp(line, "bertbase_fp32_s128_b64 ", 23)) in = 1;
    else if (in) {
      const char *a = strstr(line, " attn ");
      cr_assert_not_null(a, "no attn entry after bertbase_fp32_s128_b64 in %s", path);
      ms = strtod(a + 6, NULL);
      break;
    }
  }
  fclose(f);
  cr_assert_gt(ms, 0, "bertbase_fp32_s128_b64 not found in %s", path);
  return ms;
}

Test(attn_version, fp32_attention_runs_at_the_measured_cuda_core_rate) {
  const sc_gpu *g = sc_gpu_preset("h200");
  cr_assert_not_null(g);
  double b = 64, h = 12, s = 128, d = 64, f = 4 * b * h * s * s * d; /* forward FLOPs */
  double ms = 0;
  for (int l = 0; l < 12; l++)
    ms += 1e3 * (cost_flash_attn_k(g, SC_FP32, SC_ATTN_FLASH2, f, s, d, 0) +
                 cost_flash_attn_bwd(g, SC_FP32, SC_ATTN_FLASH2, 2.5 * f, s, d, 0));
  double meas = measured_fp32_attention_ms();
  cr_assert(fabs(ms / meas - 1) < 0.03, "fp32 attention: model %.2f ms, measured %.1f ms", ms,
            meas);
  cr_assert_float_eq(cost_flash_attn_k(g, SC_FP32, SC_ATTN_FLASH1, f, s, d, 0),
                     cost_flash_attn_k(g, SC_FP32, SC_ATTN_FLASH3, f, s, d, 0), 1e-12,
                     "no kernel version on the CUDA cores");
  /* the tensor-core path is untouched: bf16 stays faster */
  cr_assert_lt(cost_flash_attn_k(g, SC_BF16, SC_ATTN_FLASH2, f, s, d, 0),
               cost_flash_attn_k(g, SC_FP32, SC_ATTN_FLASH2, f, s, d, 0) / 2);
}

/* On the CUDA cores the attention kernel (PyTorch's memory-efficient
 * CUTLASS kernel, SIMT before Volta) accumulates in fp32: a 16-bit input
 * is converted and multiplied with FFMA, so it runs at the fp32 FMA rate,
 * not at Pascal's packed half2 peak (twice fp32 on a P100). The measured
 * fractions are of the fp32 peak (docs/calibration.md). */
Test(attn_version, fp16_on_the_cuda_cores_runs_at_the_fp32_fma_rate) {
  const sc_gpu *g = sc_gpu_preset("p100-sxm2-16gb");
  cr_assert_not_null(g);
  cr_assert(!cost_conv_tensor_cores(g, SC_FP16), "P100 fp16 is on the CUDA cores");
  cr_assert_gt(cost_peak(g, SC_FP16), 1.5 * cost_peak(g, SC_FP32), "half2 peak above fp32");
  double b = 8, h = 16, s = 1024, d = 64, f = 4 * b * h * s * s * d;
  for (int causal = 0; causal < 2; causal++) {
    cr_assert_float_eq(cost_flash_attn_k(g, SC_FP16, SC_ATTN_FLASH2, f, s, d, causal),
                       cost_flash_attn_k(g, SC_FP32, SC_ATTN_FLASH2, f, s, d, causal), 1e-12,
                       "forward, causal %d", causal);
    cr_assert_float_eq(cost_flash_attn_bwd(g, SC_FP16, SC_ATTN_FLASH2, 2.5 * f, s, d, causal),
                       cost_flash_attn_bwd(g, SC_FP32, SC_ATTN_FLASH2, 2.5 * f, s, d, causal),
                       1e-12, "backward, causal %d", causal);
  }
}
