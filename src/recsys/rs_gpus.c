/*
 * rs_gpus.c -- GPU variants derived from presets; see rs_gpus.h.
 *
 * Each variant is its base preset with the datasheet fields that differ;
 * efficiencies (STREAM, GEMM) are the base part's:
 *   a100-sxm4       memory size not logged: the 40 GB part (the DGX A100
 *                   of 2020 shipped 40 GB; the 80 GB came out in Nov. 2020)
 *   a100-pcie-40gb  A100 PCIe 40 GB datasheet: 1,555 GB/s, 312 TFLOP/s fp16,
 *                   PCIe gen4 31.5 GB/s between GPUs (no NVLink bridge stated)
 *   a100-pcie-80gb  A100 80GB PCIe datasheet: 1,935 GB/s, 80 GB
 *   v100-sxm2-16gb  the 32 GB part with 16 GB (same clocks and HBM2 rate)
 *   a30-pcie-24gb   A30 datasheet: 165 TFLOP/s fp16 / 82 tf32 / 10.3 fp32,
 *                   933 GB/s, 24 GB, 56 SMs
 */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "recsys/rs_gpus.h"

#define T 1e12
#define GB 1e9
#define GIB 1073741824.0

int rs_gpu_lookup(const char *name, sc_gpu *out) {
  const sc_gpu *g = sc_gpu_preset(name);
  if (g) { *out = *g; return 0; }
  const sc_gpu *a40 = sc_gpu_preset("a100-sxm4-40gb"), *a80 = sc_gpu_preset("a100-sxm4-80gb");
  if (!a40 || !a80) return -1;
  const sc_gpu *v100 = sc_gpu_preset("v100-sxm2-32gb");
  if (v100 && !strcasecmp(name, "v100-sxm2-16gb")) {
    *out = *v100;
    out->hbm_bytes = 16 * GIB;
  } else if (!strcasecmp(name, "a100-sxm4")) {
    *out = *a40;
  } else if (!strcasecmp(name, "a100-pcie-40gb")) {
    *out = *a40;
    out->nvlink_bw = 31.5 * GB;
  } else if (!strcasecmp(name, "a100-pcie-80gb")) {
    *out = *a80;
    out->hbm_bw = 1935 * GB;
    out->nvlink_bw = 31.5 * GB;
  } else if (!strcasecmp(name, "a30-pcie-24gb")) {
    *out = *a40;
    out->sm_count = 56;
    out->peak_flops[SC_FP32] = 10.3 * T;
    out->peak_flops[SC_TF32] = 82 * T;
    out->peak_flops[SC_FP16] = 165 * T;
    out->peak_flops[SC_BF16] = 165 * T;
    out->vector_flops = 10.3 * T;
    out->hbm_bytes = 24 * GIB;
    out->hbm_bw = 933 * GB;
    out->nvlink_bw = 31.5 * GB;
  } else {
    return -1;
  }
  snprintf(out->name, sizeof out->name, "%s", name);
  return 0;
}
