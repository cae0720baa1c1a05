/*
 * test_pool.c -- PyTorch's pooling kernels as they run (src/cost/pool.c):
 * the SM clock rate read from the presets, ResNet-50's stem max-pool by
 * hand on the H200 it was measured on, the same pool on a V100 against
 * the ResNet-50 fp32 trace of ../shared/traces (the check on a second
 * GPU), and the lowering's choice: ATen's kernels for an eager (PyTorch)
 * plan, the passes at the HBM rate for a graph framework's cuDNN pool.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "cost/pool.h"
#include "predict.h"

static const sc_gpu *gpu(const char *name) {
  const sc_gpu *g = sc_gpu_preset(name);
  cr_assert_not_null(g, "GPU preset %s missing", name);
  return g;
}

/* SMs x clock: V100 15.7 TFLOP/s / (2 x 64 lanes) = 122.66e9 (80 SMs at
 * 1.533 GHz); H200 66.9 / (2 x 128) = 261.33e9 (132 at 1.98); K80's die
 * 2.80 / (2 x 192) (13 SMX at 562 MHz); no rate for an AMD preset. */
Test(pool, sm_rate_from_the_vector_peak) {
  cr_assert(fabs(cost_pool_sm_rate(gpu("v100-sxm2-32gb")) / 122.656e9 - 1) < 1e-4);
  cr_assert(fabs(cost_pool_sm_rate(gpu("h200")) / 261.328e9 - 1) < 1e-4);
  cr_assert(fabs(cost_pool_sm_rate(gpu("k80")) / (2.80e12 / 384) - 1) < 1e-4);
  cr_assert(fabs(cost_pool_sm_rate(gpu("h200")) / (132 * 1.98e9) - 1) < 0.001);
  cr_assert_eq(cost_pool_sm_rate(gpu("mi300x")), 0);
  cost_pool p = {1, 3, 3, 2, 0, 1e6, 2.5e5, 2};
  double f = -1, b = -1;
  cr_assert_eq(cost_pool_aten(gpu("mi300x"), &p, &f, &b), 0);
  cr_assert(f == -1 && b == -1, "outputs untouched");
}

/* ResNet-50's 3x3/2 max-pool at batch 256 in fp16 NCHW on an H200:
 * 256 x 64 x 112^2 = 205,520,896 in, 51,380,224 out. Forward: 2.22 +
 * 0.22 x 9 = 4.20 cycles an output, 51.38 M x 4.20 / 261.33e9 = 0.8258
 * ms, longer than its bytes (2 x 256.9 M + 8 x 51.4 M = 924.8 MB at
 * 4.8 TB/s x 0.835: 0.2307 ms). Measured (pool_bench_h200.csv) 0.8201.
 * Backward: 2.33 + 0.143 x 4 = 2.902 cycles an input, 205.5 M x 2.902 /
 * 261.33e9 = 2.2822 ms, plus the fill, 411.0 MB / 4.008 TB/s = 0.1026:
 * 2.3848 ms. Measured 2.3331. */
Test(pool, resnet_stem_pool_on_the_h200_by_hand) {
  cost_pool p = {1, 3, 3, 2, 0, 205520896, 51380224, 2};
  double f, b;
  cr_assert_eq(cost_pool_aten(gpu("h200"), &p, &f, &b), 1);
  cr_assert(fabs(f / 0.8258e-3 - 1) < 0.001, "fwd %.4f ms, by hand 0.8258", f * 1e3);
  cr_assert(fabs(b / 2.3848e-3 - 1) < 0.001, "bwd %.4f ms, by hand 2.3848", b * 1e3);
  cr_assert(fabs(f / 0.8201e-3 - 1) < 0.03 && fabs(b / 2.3331e-3 - 1) < 0.03,
            "within 3 %% of the measurement: %.3f / %.3f ms", f * 1e3, b * 1e3);
  /* the same pool in fp32: the same threads, so the same time */
  cost_pool p32 = p;
  p32.e = 4;
  double f32, b32;
  cost_pool_aten(gpu("h200"), &p32, &f32, &b32);
  cr_assert(fabs(f32 / f - 1) < 1e-9, "fwd %.4f vs %.4f ms", f32 * 1e3, f * 1e3);
}

/* The same kernels on a V100 (../shared/traces/kineto_tb_plugin_resnet50,
 * ResNet-50 fp32 NCHW, batch 32: max_pool_forward_nchw 234-238 us,
 * FillFunctor 142-143 us + max_pool_backward_nchw 634-637 us). In 25.69
 * M, out 6.42 M. Forward: threads 6.42 M x 4.20 / 122.66e9 = 0.2199 ms,
 * bytes (25.69 + 6.42) M x 4 + 8 x 6.42 M = 179.8 MB at 900 x 0.89 GB/s =
 * 0.2245 ms: bytes-bound here, -5 % against 0.236. Backward: 25.69 M x
 * 2.902 / 122.66e9 = 0.6078 ms + fill 102.8 MB / 801 GB/s = 0.1283: 0.736
 * ms, -6 % against 0.780. The passes at the HBM rate alone (the model
 * before, 1 and 2 passes of in + out) give 0.160 and 0.321 ms: -32 % and
 * -59 %. */
Test(pool, resnet_stem_pool_on_a_v100_against_the_trace) {
  cost_pool p = {1, 3, 3, 2, 0, 32.0 * 64 * 112 * 112, 32.0 * 64 * 56 * 56, 4};
  double f, b;
  cost_pool_aten(gpu("v100-sxm2-32gb"), &p, &f, &b);
  cr_assert(fabs(f / 0.2245e-3 - 1) < 0.002, "fwd %.4f ms, by hand 0.2245", f * 1e3);
  cr_assert(fabs(b / 0.7361e-3 - 1) < 0.002, "bwd %.4f ms, by hand 0.7361", b * 1e3);
  cr_assert(fabs(f / 0.236e-3 - 1) < 0.08 && fabs(b / 0.780e-3 - 1) < 0.08,
            "within 8 %% of the trace: %.3f / %.3f ms", f * 1e3, b * 1e3);
}

/* Average pooling has no indices and no fill: Inception's 3x3/1 pool of
 * 128 x 768 x 17^2 = 28,409,856 elements, channels-last fp16 on an H200:
 * forward 28.41 M x 6.1 / 261.33e9 = 0.6632 ms, backward x 8.8 = 0.9567
 * ms (measured 0.6485 and 0.9535). */
Test(pool, inception_average_pool_by_hand) {
  cost_pool p = {0, 3, 3, 1, 1, 28409856, 28409856, 2};
  double f, b;
  cost_pool_aten(gpu("h200"), &p, &f, &b);
  cr_assert(fabs(f / 0.6632e-3 - 1) < 0.001, "fwd %.4f ms, by hand 0.6632", f * 1e3);
  cr_assert(fabs(b / 0.9567e-3 - 1) < 0.001, "bwd %.4f ms, by hand 0.9567", b * 1e3);
}

/* The step's "pool" row (sc_explain_kinds) under each framework: ms, and
 * the bytes it reports in *bytes. */
static double pool_ms(int eager, double *bytes) {
  char text[512];
  snprintf(text, sizeof text,
           "{\"model\": {\"preset\": \"resnet50_v1.5\"},"
           " \"cluster\": {\"gpu\": \"h200\", \"gpus\": 1, \"gpus_per_node\": 1},"
           " \"plan\": {\"global_batch\": 256, \"micro_batch\": 256, \"dtype\": \"fp16\","
           " \"amp\": true, \"channels_last\": false, \"framework_eager\": %s}}",
           eager ? "true" : "false");
  sc_scenario s = scenario_ok(text);
  sc_op_time k[16];
  sc_error err = {0};
  int n = sc_explain_kinds(&s, k, 16, &err);
  cr_assert(n > 0, "sc_explain_kinds: %s", err.msg);
  for (int i = 0; i < n; i++)
    if (!strcmp(k[i].name, "pool")) return *bytes = k[i].bytes, (k[i].fwd_s + k[i].bwd_s) * 1e3;
  cr_assert_fail("no pool row");
  return 0;
}

/* Lowered, NCHW: an eager (PyTorch) plan's ResNet-50 stem pool runs ATen's
 * kernels, 0.8258 + 2.3848 ms (above); with plan.framework_eager off (a
 * graph framework: cuDNN's pooling) it keeps its passes at the HBM rate,
 * (205.5 + 51.4) M x 2 B = 513.8 MB forward, twice that backward, at
 * 4.008 TB/s: 0.1282 + 0.2564 ms. The global average pool is the same
 * reduction under both. So the pool row grows by 3.2106 - 0.3846 =
 * 2.8260 ms. The bytes reported are the operator's traffic under both:
 * ATen's extra time is its per-thread work (carried as seconds), not
 * bytes it moves. */
Test(pool, the_framework_decides_the_kernel) {
  double ba, bc, aten = pool_ms(1, &ba), cudnn = pool_ms(0, &bc);
  cr_assert_float_eq(ba, bc, 1e-6 * bc, "pool bytes %g under ATen, %g under cuDNN", ba, bc);
  double want = 0.8258 + 2.3848 - 3 * 513.802e6 / 4.008e12 * 1e3;
  cr_assert(fabs((aten - cudnn) / want - 1) < 0.002, "ATen - cuDNN %.4f ms, by hand %.4f",
            aten - cudnn, want);
}
