/*
 * test_cublas_pre11.c -- cuBLAS before 11.0 (plan.cublas_pre11,
 * src/cost/compute.c cost_gemm_lib): a 16-bit GEMM with m, n or k off a
 * multiple of 8 runs on the CUDA cores at the fp32 FMA rate; by hand on
 * one shape, the rule's scope (dtype, GPU, alignment, the switch), and
 * the BERT-base step on a V100 moving by exactly its unaligned GEMMs.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>

#include "cost/compute.h"
#include "cost/conv.h"
#include "predict.h"

#define NEAR(got, want, what)                                                            \
  cr_assert(fabs((got) - (want)) <= 1e-9 * fabs(want), "%s: %.9g, want %.9g", what, \
            (double)(got), (double)(want))

static const sc_gpu *gpu(const char *name) {
  const sc_gpu *g = sc_gpu_preset(name);
  cr_assert_not_null(g, "GPU preset %s missing", name);
  return g;
}

/* 2560 x 2048 x 4100 in fp16 on a V100 (80 SMs): 10 x 16 tiles of 256 x
 * 128 = 160 CTAs, two full waves, every tile full (test_compute.c's
 * shape), k = 4100 = 8 x 512.5 off a multiple of 8. Tensor cores (cuBLAS
 * 11): 125 TFLOP/s x 0.84 x 4100 / (4100 + 256). cuBLAS 10: the CUDA
 * cores, 15.7 TFLOP/s x 0.78 x 4100 / (4100 + 8). Both compute-bound
 * (48.3 MB at 801 GB/s is 60 us), plus the 3 us of a kernel. */
Test(cublas_pre11, an_unaligned_gemm_by_hand) {
  const sc_gpu *g = gpu("v100-sxm2-16gb");
  double m = 2560, n = 2048, k = 4100, flops = 2 * m * n * k;
  double tc = flops / (125e12 * 0.84 * 4100 / 4356) + 3e-6;
  double cc = flops / (15.7e12 * 0.78 * 4100 / 4108) + 3e-6;
  NEAR(cost_gemm_lib(g, SC_FP16, m, n, k, 1, 0), tc, "cuBLAS 11: tensor cores");
  NEAR(cost_gemm_lib(g, SC_FP16, m, n, k, 1, 1), cc, "cuBLAS 10: CUDA cores");
  /* 3.52 ms against 0.44: 8.0x slower */
  cr_assert(cc / tc > 7.9 && cc / tc < 8.1, "ratio %g", cc / tc);
  /* the efficiency column of --ops, as a fraction of the fp16 peak */
  NEAR(cost_gemm_eff_lib(g, SC_FP16, m, n, k, 1, 1), 0.78 * 4100 / 4108 * 15.7 / 125,
       "efficiency of the fp16 peak");
  /* and the same kernel as an fp32 GEMM's, which ran there already */
  NEAR(cost_gemm_lib(g, SC_FP16, m, n, k, 1, 1), cost_gemm(g, SC_FP32, m, n, k, 1),
       "the fp32 CUDA-core kernel");
}

/* Only 16-bit GEMMs on tensor cores, only off multiples of 8 in any of
 * m, n, k, only with the switch. */
Test(cublas_pre11, scope_of_the_rule) {
  const sc_gpu *v = gpu("v100-sxm2-16gb"), *p = gpu("p100-sxm2-16gb"), *a = gpu("a100-sxm4-80gb");
  double dims[][3] = {{1280, 30522, 768}, {1280, 768, 30522}, {30522, 768, 1280}};
  for (int i = 0; i < 3; i++) {
    double m = dims[i][0], n = dims[i][1], k = dims[i][2];
    cr_assert(cost_gemm_pre11_cuda_cores(v, SC_FP16, m, n, k), "dims %d", i);
    cr_assert(cost_gemm_pre11_cuda_cores(a, SC_BF16, m, n, k), "dims %d", i);
    cr_assert(!cost_gemm_pre11_cuda_cores(v, SC_FP32, m, n, k), "fp32: CUDA cores anyway");
    cr_assert(!cost_gemm_pre11_cuda_cores(p, SC_FP16, m, n, k), "P100: no tensor cores");
    NEAR(cost_gemm_lib(v, SC_FP16, m, n, k, 1, 0), cost_gemm(v, SC_FP16, m, n, k, 1),
         "switch off");
    NEAR(cost_gemm_lib(v, SC_FP32, m, n, k, 1, 1), cost_gemm(v, SC_FP32, m, n, k, 1),
         "fp32 unchanged");
  }
  /* the padded vocabulary (30,528 = 8 x 3,816) keeps the tensor cores */
  cr_assert(!cost_gemm_pre11_cuda_cores(v, SC_FP16, 1280, 30528, 768));
  NEAR(cost_gemm_lib(v, SC_FP16, 1280, 30528, 768, 1, 1),
       cost_gemm(v, SC_FP16, 1280, 30528, 768, 1), "aligned");
}

/* BERT-base, seq 128, batch 64 on one V100 under AMP, a graph executor:
 * the step moves by the masked-LM decoder (1,280 masked positions x
 * 30,522 x 768: its forward, data- and weight-gradient GEMMs) and the
 * next-sentence layer (64 x 2 x 768), the GEMMs with a dimension off a
 * multiple of 8, each now at the CUDA-core time: about 13 ms. */
static sc_result bert(int pre11, int vocab) {
  char js[512];
  snprintf(js, sizeof js,
           "{\"model\": \"bert_base\", "
           "\"cluster\": {\"gpu\": \"v100-sxm2-16gb\", \"gpus\": 1}, "
           "\"plan\": {\"tp\": 1, \"pp\": 1, \"global_batch\": 64, \"micro_batch\": 64, "
           "\"dtype\": \"fp16\", \"amp\": true, \"framework_eager\": false, "
           "\"cublas_pre11\": %s}}",
           pre11 ? "true" : "false");
  sc_scenario s = scenario_ok(js);
  s.model.bert.vocab = vocab; /* as validate pads NVIDIA's BERT (not a JSON key) */
  return predict_ok(&s);
}

static double delta(const sc_gpu *g, double m, double n, double k) {
  return cost_gemm_lib(g, SC_FP16, m, n, k, 1, 1) - cost_gemm(g, SC_FP16, m, n, k, 1);
}

Test(cublas_pre11, bert_base_moves_by_its_unaligned_gemms) {
  const sc_gpu *g = gpu("v100-sxm2-16gb");
  double t = 64 * 20, h = 768, v = 30522, b = 64;
  double want = delta(g, t, v, h) + delta(g, t, h, v) + delta(g, v, h, t) + delta(g, b, 2, h) +
                delta(g, b, h, 2) + delta(g, 2, h, b);
  sc_result off = bert(0, 30522), on = bert(1, 30522);
  cr_assert(want > 0.012 && want < 0.015, "%g s", want);
  NEAR(on.step_s - off.step_s, want, "the step's move");
  /* padded to 30,528 only the next-sentence layer is left */
  sc_result poff = bert(0, 30528), pon = bert(1, 30528);
  NEAR(pon.step_s - poff.step_s,
       delta(g, b, 2, h) + delta(g, b, h, 2) + delta(g, 2, h, b), "padded vocabulary");
}
