/*
 * gpu_presets.c -- the GPU types stepcast knows by name.
 *
 * Every constant names its source beside it. Abbreviations:
 *   [DS]    the vendor datasheet of that GPU (dense, no-sparsity figures)
 *   [AZ n]  /work/shared/calibration/azure_gpu_microbenchmarks.csv row n
 *           (cuBLASLt GEMM, GPU STREAM, FlashAttention 2 measurements)
 *   [FIT-GEMM] gemm_eff was fitted with the shared shape parameters of
 *           cost/compute.c by `tools/calib/gemm_check --fit` to the [AZ]
 *           cuBLASLt rows of that GPU (calibration data, not validation
 *           data); see docs/calibration.md
 *   [GRAPH] data/measured/gemm_graph_h200.csv: 336 aligned bf16/fp16 GEMMs
 *           of transformer layers timed on an H200 from CUDA graphs (our
 *           measurement); Hopper's bf16 level fitted with its shape
 *           parameters (cost/compute.c COST_GEMM_HOPPER) by `gemm_check
 *           --fit-hopper`, the fp8 levels then refitted on the [AZ] rows
 *           of 2048^3 and more (smaller rows are host-bound) with fp8's
 *           doubled k0
 *   [MAMF]  /work/shared/calibration/mamf_matmul_peak.csv (maximum
 *           achievable matmul TFLOP/s, current rows): used for the ratio
 *           between dtypes on one GPU. The level of gemm_eff comes from the
 *           [FIT-GEMM] cuBLASLt rows, the data the shape model was fitted
 *           to (a level from another benchmark would not match the shape
 *           factors); a dtype without cuBLASLt rows takes the fitted
 *           dtype's value times MAMF(dtype) / MAMF(fitted dtype) of the
 *           same GPU. docs/calibration.md compares with XLA's GEMM table.
 *   [MB n]  /work/shared/calibration/memory_bandwidth.csv row n
 *   [KINETO] launch_s: median host time per launched kernel of PyTorch
 *           eager training, measured by tools/calib/kineto_launch.py on
 *           the real traces in ../shared/traces (see docs/calibration.md)
 *
 * GPUs without a calibration row take the efficiencies of the closest
 * measured generation, and the comment says so.
 */
#include <stddef.h>
#include <strings.h>

#include "stepcast.h"

#define T 1e12  /* TFLOP/s */
#define GB 1e9  /* bytes (decimal, as datasheets use) */
#define GIB 1073741824.0
/* calibrated: dtypes with a GEMM measurement on this GPU ([FIT-GEMM] or
 * [MAMF] rows); fp16 runs the bf16 tensor path */
#define CAL16 ((1u << SC_FP16) | (1u << SC_BF16))
#define CAL8 (1u << SC_FP8)

/* peak_flops order: fp32 (tensor path; fp32 FMA on pre-Ampere), tf32,
 * fp16, bf16, fp8, fp4 */
static const sc_gpu gpu_presets[] = {
    {
        .name = "v100-sxm2-32gb",
        .arch = 70,
        .sm_count = 80,                                   /* [DS] */
        .peak_flops = {15.7 * T, 0, 125 * T, 0, 0, 0},    /* [DS] V100 SXM2: 125 fp16 tensor */
        .vector_flops = 15.7 * T,                         /* [DS] */
        .hbm_bytes = 32 * GIB,                            /* [DS] */
        .hbm_bw = 900 * GB,                               /* [DS] */
        .hbm_eff = 0.89,     /* [MB 54] gpu-stream scale 804 GB/s / 900 */
        .gemm_eff = 0.84,    /* no GEMM row: A100 [FIT-GEMM] value */
        .attn_eff = 0.45,    /* no FA row (FA2 needs sm80): unfused attention used */
        .nvlink_bw = 150 * GB,                            /* [DS] 6 links x 25 GB/s per dir */
        .launch_s = 0,       /* 0 = library default (see cost/compute.c) */
        .calibrated = 0,
    },
    {
        .name = "v100-sxm3-32gb",
        .arch = 70,
        .sm_count = 80,                                   /* [DS] DGX-2 V100 SXM3 */
        .peak_flops = {15.7 * T, 0, 125 * T, 0, 0, 0},    /* [DS] DGX-2: 2 PFLOPS / 16 GPUs */
        .vector_flops = 15.7 * T,
        .hbm_bytes = 32 * GIB,
        .hbm_bw = 900 * GB,                               /* [DS] */
        .hbm_eff = 0.89,     /* as v100-sxm2 [MB 54] */
        .gemm_eff = 0.84,    /* as v100-sxm2 */
        .attn_eff = 0.45,
        .nvlink_bw = 150 * GB,                            /* [DS] 6 NVLink2 to NVSwitch, 25 GB/s each per dir */
        .calibrated = 0,
    },
    {
        .name = "a100-sxm4-40gb",
        .arch = 80,
        .sm_count = 108,                                  /* [DS] */
        .peak_flops = {19.5 * T, 156 * T, 312 * T, 312 * T, 0, 0}, /* [DS] */
        .vector_flops = 19.5 * T,
        .hbm_bytes = 40 * GIB,
        .hbm_bw = 1555 * GB,                              /* [DS] */
        .hbm_eff = 0.79,     /* [AZ 44] STREAM copy 1.61 TB/s on the 80 GB part / 2.039 */
        .gemm_eff = 0.84,    /* [FIT-GEMM] on the 80 GB part's rows [AZ 1-8] */
        .attn_eff = 0.66,    /* [AZ 60] FA2 179.5 TFLOP/s / 312 at head dim 64, x 201/175
                                (FA2 A100 head dim 128 / 64, attention_kernel_benchmarks.csv):
                                the head-128 rate cost/compute.c expects */
        .nvlink_bw = 300 * GB,                            /* [DS] 12 links x 25 GB/s per dir */
        .calibrated = CAL16,
    },
    {
        .name = "a100-sxm4-80gb",
        .arch = 80,
        .sm_count = 108,                                  /* [DS] */
        .peak_flops = {19.5 * T, 156 * T, 312 * T, 312 * T, 0, 0}, /* [DS] */
        .vector_flops = 19.5 * T,
        .hbm_bytes = 80 * GIB,
        .hbm_bw = 2039 * GB,                              /* [DS] */
        .hbm_eff = 0.79,     /* [AZ 44] STREAM copy 1.61 TB/s / 2.039 */
        .gemm_eff = 0.84,    /* [FIT-GEMM] [AZ 1-8] */
        .attn_eff = 0.66,    /* [AZ 60] FA2 179.5 TFLOP/s / 312 at head dim 64, x 201/175
                                (FA2 A100 head dim 128 / 64, attention_kernel_benchmarks.csv):
                                the head-128 rate cost/compute.c expects */
        .nvlink_bw = 300 * GB,                            /* [DS] */
        .calibrated = CAL16,
    },
    {
        .name = "h100-sxm5-80gb",
        .arch = 90,
        .sm_count = 132,                                  /* [DS] */
        .peak_flops = {66.9 * T, 494.7 * T, 989.4 * T, 989.4 * T, 1978.9 * T, 0}, /* [DS] */
        .vector_flops = 66.9 * T,
        .hbm_bytes = 80 * GIB,
        .hbm_bw = 3350 * GB,                              /* [DS] */
        .hbm_eff = 0.866,    /* [AZ 49] STREAM copy 2.9 TB/s / 3.35 */
        .gemm_eff = 0.685,   /* bf16: [GRAPH], the H200's (same die, SMs and clocks) */
        .gemm_eff_fp8 = 0.695, /* [GRAPH] fp8 rows [AZ 10-17] */
        .attn_eff = 0.33,    /* [AZ 62] FA2 327.9 TFLOP/s / 989 */
        .nvlink_bw = 450 * GB,                            /* [DS] 18 links x 25 GB/s per dir */
        .calibrated = CAL16 | CAL8,
    },
    {
        .name = "h100-sxm5-96gb",
        .arch = 90,
        .sm_count = 132,                                  /* [DS] as the 80 GB part */
        .peak_flops = {66.9 * T, 494.7 * T, 989.4 * T, 989.4 * T, 1978.9 * T, 0}, /* [DS] as 80 GB */
        .vector_flops = 66.9 * T,
        .hbm_bytes = 96 * GIB,                            /* six HBM3 stacks enabled (the 80 GB
                                                             part runs five) */
        .hbm_bw = 3350 * GB,  /* no public datasheet figure for this SKU: the 80 GB part's */
        .hbm_eff = 0.866,    /* as h100-sxm5-80gb [AZ 49] */
        .gemm_eff = 0.685,   /* as h100-sxm5-80gb (same die and clocks) */
        .gemm_eff_fp8 = 0.695,
        .attn_eff = 0.33,
        .nvlink_bw = 450 * GB,                            /* [DS] */
        .calibrated = 0,
    },
    {
        .name = "h200",
        .arch = 90,
        .sm_count = 132,                                  /* [DS] */
        .peak_flops = {66.9 * T, 494.7 * T, 989.4 * T, 989.4 * T, 1978.9 * T, 0}, /* [DS] */
        .vector_flops = 66.9 * T,
        .hbm_bytes = 141 * GIB,                           /* [DS] 141 GB: HBM capacities are
                                                             binary (DRAM dies of 2^n bits), so a
                                                             datasheet GB of HBM is a GiB (the H100
                                                             80 GB above, 80 GiB; GH200 "141GiB",
                                                             mamf_matmul_peak.csv row 3) */
        .hbm_bw = 4800 * GB,                              /* [DS] */
        .hbm_eff = 0.835,    /* [AZ 54] STREAM copy 4.01 TB/s / 4.8 */
        .gemm_eff = 0.685,   /* bf16: [GRAPH] (MAMF's bf16 / fp8 ratio of best shapes,
                                80.3 / 73.4 %, is not what training's shapes reach) */
        .gemm_eff_fp8 = 0.68, /* [GRAPH] fp8 rows [AZ 19-26] */
        .attn_eff = 0.33,    /* [AZ 64] FA2 329.3 TFLOP/s / 989 */
        .nvlink_bw = 450 * GB,                            /* [DS] */
        .calibrated = CAL16 | CAL8, /* fp16/bf16: [GRAPH], our own H200 GEMMs */
    },
    {
        .name = "b200",
        .arch = 100,
        .sm_count = 148,                                  /* [DS] */
        .peak_flops = {80 * T, 1100 * T, 2250 * T, 2250 * T, 4500 * T, 9000 * T}, /* [DS] HGX B200 per GPU, dense */
        .vector_flops = 80 * T,
        .hbm_bytes = 180 * GIB,                           /* [DS] DGX B200: 1,440 GB / 8 (HBM GB
                                                             = GiB, see h200) */
        .hbm_bw = 7700 * GB,                              /* [DS] DGX B200: 64 TB/s / 8 = 8; HGX: 7.7 */
        .hbm_eff = 0.835,    /* no STREAM row: H200 ratio [AZ 54] */
        .gemm_eff = 0.644,   /* bf16: fp8 below x [MAMF] B200 bf16 77.6 % / fp8 76.3 % */
        .gemm_eff_fp8 = 0.633, /* no B200 cuBLASLt row: GB200's [FIT-GEMM] 0.60 (same die) x
                                 [MAMF] B200 fp8 76.3 % / GB200 fp8 72.3 % */
        .attn_eff = 0.15,    /* no row: GB200 FA2 [AZ 66] 373.9/2500 */
        .nvlink_bw = 900 * GB,                            /* [DS] NVLink 5: 1.8 TB/s bidirectional */
        .calibrated = CAL16 | CAL8,
    },
    {
        .name = "gb200",
        .arch = 100,
        .sm_count = 148,                                  /* [DS] */
        .peak_flops = {80 * T, 1250 * T, 2500 * T, 2500 * T, 5000 * T, 10000 * T}, /* [DS] GB200 NVL72: 180 PF fp16 / 72 */
        .vector_flops = 80 * T,
        .hbm_bytes = 186 * GIB,                           /* [DS] NVL72: 13.4 TB / 72 (HBM GB =
                                                             GiB, see h200) */
        .hbm_bw = 8000 * GB,                              /* [DS] */
        .hbm_eff = 0.835,    /* no STREAM row: H200 ratio [AZ 54] */
        .gemm_eff = 0.605,   /* bf16: 0.60 x [MAMF] GB200 bf16 72.9 % / fp8 72.3 % */
        .gemm_eff_fp8 = 0.60, /* [FIT-GEMM] fp8 rows [AZ 27-35] */
        .attn_eff = 0.15,    /* [AZ 66] FA2 373.9 TFLOP/s / 2500 */
        .nvlink_bw = 900 * GB,                            /* [DS] NVLink 5 */
        .calibrated = CAL16 | CAL8,
    },
    {
        .name = "b300",
        .arch = 100,
        .sm_count = 160,                                  /* [DS] Blackwell Ultra */
        .peak_flops = {75 * T, 1125 * T, 2250 * T, 2250 * T, 4500 * T, 13500 * T}, /* [DS] HGX B300
                             per GPU, dense (144 PF fp4 sparse / 8 = 18, dense 13.5);
                             bf16 2250 and fp8 4500 as [MAMF] rows 6, 17 state */
        .vector_flops = 75 * T,
        .hbm_bytes = 288 * GIB,                           /* [DS] 288 GB HBM3e (HBM GB = GiB, see
                                                             h200) */
        .hbm_bw = 8000 * GB,                              /* [DS] */
        .hbm_eff = 0.835,    /* no STREAM row: H200 ratio [AZ 54] */
        .gemm_eff = 0.652,   /* bf16: B200's 0.644 x [MAMF] B300 bf16 78.6 % / B200 77.6 % */
        .gemm_eff_fp8 = 0.618, /* B200's 0.633 x [MAMF] B300 fp8 74.5 % / B200 76.3 % */
        .attn_eff = 0.15,    /* no row: GB200 FA2 [AZ 66] 373.9/2500 */
        .nvlink_bw = 900 * GB,                            /* [DS] NVLink 5 */
        .calibrated = CAL16 | CAL8,
    },
    {
        .name = "gb300",
        .arch = 100,
        .sm_count = 160,                                  /* [DS] */
        .peak_flops = {80 * T, 1250 * T, 2500 * T, 2500 * T, 5000 * T, 15000 * T}, /* [DS] GB300
                             NVL72 / 72, dense: 1,080 PF fp4, 360 PF fp8, 180 PF bf16 */
        .vector_flops = 80 * T,
        .hbm_bytes = 288 * GIB,                           /* [DS] 20.7 TB / 72 (HBM GB = GiB, see
                                                             h200) */
        .hbm_bw = 8000 * GB,                              /* [DS] 576 TB/s / 72 */
        .hbm_eff = 0.835,    /* no STREAM row: H200 ratio [AZ 54] */
        .gemm_eff = 0.605,   /* no row: GB200's (same rack design, [MAMF] B300 within 1 % of
                                B200 in bf16) */
        .gemm_eff_fp8 = 0.59, /* GB200's 0.60 x [MAMF] B300 fp8 74.5 % / B200 76.3 % */
        .attn_eff = 0.15,    /* no row: GB200 FA2 [AZ 66] */
        .nvlink_bw = 900 * GB,                            /* [DS] NVLink 5 */
        .calibrated = 0,
    },
    {
        .name = "mi300x",
        .arch = 0,
        .sm_count = 304,                                  /* [DS] compute units */
        .peak_flops = {163.4 * T, 653.7 * T, 1307.4 * T, 1307.4 * T, 2614.9 * T, 0}, /* [DS] */
        .vector_flops = 163.4 * T,
        .hbm_bytes = 192 * GIB,                           /* [DS] 192 GB: eight 24 GiB HBM3
                                                             stacks (HBM GB = GiB, see h200) */
        .hbm_bw = 5300 * GB,                              /* [DS] */
        .hbm_eff = 0.80,     /* no STREAM row: A100 ratio [AZ 44] */
        .gemm_eff = 0.54,    /* [MAMF] bf16 668.4 / 1300 TFLOP/s at 10240x15360x8192,
                                over the shape model's 0.95 there */
        .attn_eff = 0.30,    /* no row: assumption, H100-like */
        .nvlink_bw = 448 * GB,                            /* [DS] 7 x 64 GB/s Infinity Fabric per dir */
        .link = SC_LINK_INFINITY_FABRIC, /* [DS] AMD Infinity Fabric */
        .calibrated = CAL16,
    },
    {
        .name = "mi325x",
        .arch = 0,
        .sm_count = 304,                                  /* [DS] compute units */
        .peak_flops = {163.4 * T, 653.7 * T, 1307.4 * T, 1307.4 * T, 2614.9 * T, 0}, /* [DS] as
                             MI300X (same CDNA 3 die and clocks) */
        .vector_flops = 163.4 * T,
        .hbm_bytes = 256 * GIB,                           /* [DS] HBM3E (HBM GB = GiB, see h200) */
        .hbm_bw = 6000 * GB,                              /* [DS] */
        .hbm_eff = 0.80,     /* no STREAM row: A100 ratio [AZ 44] */
        .gemm_eff = 0.636,   /* [MAMF] row 11: bf16 784.9 / 1300 TFLOP/s, over the shape
                                model's 0.95 at 13312x10240x8192 */
        .attn_eff = 0.30,    /* no row: assumption, as mi300x */
        .nvlink_bw = 448 * GB,                            /* [DS] 7 x 64 GB/s Infinity Fabric */
        .link = SC_LINK_INFINITY_FABRIC, /* [DS] AMD Infinity Fabric */
        .calibrated = CAL16,
    },
    {
        .name = "mi350x",
        .arch = 0,
        .sm_count = 256,                                  /* [DS] compute units */
        .peak_flops = {144.2 * T, 1153.5 * T, 2307 * T, 2307 * T, 4614 * T, 9228 * T}, /* [DS]
                             dense; fp4 = MXFP4 */
        .vector_flops = 144.2 * T,
        .hbm_bytes = 288 * GIB,                           /* [DS] HBM3E (HBM GB = GiB, see h200) */
        .hbm_bw = 8000 * GB,                              /* [DS] */
        .hbm_eff = 0.80,     /* no STREAM row: A100 ratio [AZ 44] */
        .gemm_eff = 0.655,   /* no row: as mi355x (same CDNA 4 die, lower clock) */
        .attn_eff = 0.30,    /* no row: assumption, as mi300x */
        .nvlink_bw = 537.6 * GB, /* [DS] Infinity Fabric 1,075 GB/s aggregate, half per dir */
        .link = SC_LINK_INFINITY_FABRIC, /* [DS] AMD Infinity Fabric */
        .calibrated = 0,
    },
    {
        .name = "mi355x",
        .arch = 0,
        .sm_count = 256,                                  /* [DS] compute units */
        .peak_flops = {157.3 * T, 1258.3 * T, 2516.6 * T, 2516.6 * T, 5033.2 * T, 10066.3 * T}, /*
                             [DS] dense; fp4 = MXFP4 */
        .vector_flops = 157.3 * T,
        .hbm_bytes = 288 * GIB,                           /* [DS] HBM3E (HBM GB = GiB, see h200) */
        .hbm_bw = 8000 * GB,                              /* [DS] */
        .hbm_eff = 0.80,     /* no STREAM row: A100 ratio [AZ 44] */
        .gemm_eff = 0.655,   /* [MAMF] row 10: bf16 1565 TFLOP/s (the row's own theoretical is
                                2300) / datasheet 2516.6, over the shape model's 0.95 */
        .attn_eff = 0.30,    /* no row: assumption, as mi300x */
        .nvlink_bw = 537.6 * GB, /* [DS] Infinity Fabric 1,075 GB/s aggregate, half per dir */
        .link = SC_LINK_INFINITY_FABRIC, /* [DS] AMD Infinity Fabric */
        .calibrated = CAL16,
    },

    /* ---- GPUs of the data-parallel sets (../shared/validation/dp_training,
     * MODELS.md "GPU presets needed"). [MB n] = memory_bandwidth.csv row n
     * (gpu-stream scale kernel, max over the occupancy sweep): hbm_eff =
     * that copy bandwidth / the datasheet's. GEMM efficiencies: no GEMM
     * calibration row for any of them; the closest measured generation's,
     * as each comment says. Pre-Volta GPUs have no tensor cores: their fp32
     * peak is the FMA rate, fp16 (Pascal) the half2 rate of the CUDA cores. */
    {
        .name = "k80",   /* one GK210 die of a Tesla K80 board (AWS p2, GCE) */
        .arch = 37,
        .sm_count = 13,                                   /* [DS] 2 x 13 SMX per board */
        .peak_flops = {2.80 * T, 0, 0, 0, 0, 0},          /* [DS] board 5.6 TFLOP/s fp32 at the
                                                             562 MHz base clock / 2 dies (8.73 at
                                                             the 875 MHz autoboost ceiling); no
                                                             fast fp16. Base: the clock the board
                                                             holds within its 300 W for two dies
                                                             and its default application clock;
                                                             autoboost above it only with power
                                                             headroom (docs/calibration.md,
                                                             "Pre-Volta clocks and bandwidth") */
        .vector_flops = 2.80 * T,
        .hbm_bytes = 12 * GIB,                            /* [DS] board 24 GB GDDR5 / 2 */
        .hbm_bw = 240 * GB,                               /* [DS] board 480 GB/s / 2 */
        .hbm_eff = 0.712,    /* no STREAM row: p100-sxm2-16gb's (the oldest generation
                                with a published delivered-bandwidth figure); GDDR5
                                with ECC on is if anything lower */
        .gemm_eff = 0.84,    /* no GEMM row: A100 [FIT-GEMM] value, as the V100s */
        .attn_eff = 0.45,    /* no fused attention: unfused kernels are used */
        .nvlink_bw = 15.75 * GB, /* no NVLink: the board's PCIe gen3 x16 (switch shared by
                                    the two dies), [DS] */
        .link = SC_LINK_PCIE, /* [DS] no NVLink on the board */
        .calibrated = 0,
    },
    {
        .name = "p100-sxm2-16gb",
        .arch = 60,
        .sm_count = 56,                                   /* [DS] */
        .peak_flops = {10.6 * T, 0, 21.2 * T, 0, 0, 0},   /* [DS] fp32 10.6, fp16 21.2 (half2) */
        .vector_flops = 10.6 * T,
        .hbm_bytes = 16 * GIB,                            /* [DS] */
        .hbm_bw = 732 * GB,                               /* [DS] */
        .hbm_eff = 0.712,    /* no STREAM row: V100's [MB 54] 0.89 x 76 / 95, the
                                P100 and V100 STREAM DRAM utilisations of NVIDIA's Tesla
                                V100 architecture whitepaper (2017; recalled, not in
                                ../shared): 2017's HBM2 controller delivers less */
        .gemm_eff = 0.84,    /* no GEMM row: A100 [FIT-GEMM] value */
        .attn_eff = 0.45,    /* no fused attention */
        .nvlink_bw = 80 * GB,                             /* [DS] NVLink 1: 4 links x 20 GB/s */
        .calibrated = 0,
    },
    {
        .name = "p100-pcie-16gb",
        .arch = 60,
        .sm_count = 56,                                   /* [DS] */
        .peak_flops = {9.3 * T, 0, 18.7 * T, 0, 0, 0},    /* [DS] PCIe: 9.3 fp32, 18.7 fp16 */
        .vector_flops = 9.3 * T,
        .hbm_bytes = 16 * GIB,                            /* [DS] */
        .hbm_bw = 732 * GB,                               /* [DS] */
        .hbm_eff = 0.712,    /* as p100-sxm2-16gb */
        .gemm_eff = 0.84,
        .attn_eff = 0.45,
        .nvlink_bw = 15.75 * GB,                          /* no NVLink: PCIe gen3 x16 [DS] */
        .link = SC_LINK_PCIE, /* [DS] no NVLink on the board */
        .calibrated = 0,
    },
    {
        .name = "v100-sxm2-16gb",
        .arch = 70,
        .sm_count = 80,                                   /* [DS] */
        .peak_flops = {15.7 * T, 0, 125 * T, 0, 0, 0},    /* [DS] as the 32 GB part */
        .vector_flops = 15.7 * T,
        .hbm_bytes = 16 * GIB,                            /* [DS] */
        .hbm_bw = 900 * GB,                               /* [DS] */
        .hbm_eff = 0.89,     /* [MB 54] gpu-stream scale 804 GB/s / 900 */
        .gemm_eff = 0.84,    /* no GEMM row: A100 [FIT-GEMM] value */
        .attn_eff = 0.45,    /* no FA row (FA2 needs sm80): unfused attention used */
        .nvlink_bw = 150 * GB,                            /* [DS] 6 links x 25 GB/s per dir */
        .calibrated = 0,
    },
    {
        .name = "v100-pcie-16gb",
        .arch = 70,
        .sm_count = 80,                                   /* [DS] */
        .peak_flops = {14 * T, 0, 112 * T, 0, 0, 0},      /* [DS] PCIe (250 W): 14 fp32, 112 */
        .vector_flops = 14 * T,
        .hbm_bytes = 16 * GIB,                            /* [DS] */
        .hbm_bw = 900 * GB,                               /* [DS] */
        .hbm_eff = 0.89,     /* [MB 54] */
        .gemm_eff = 0.84,    /* as v100-sxm2 */
        .attn_eff = 0.45,
        .nvlink_bw = 15.75 * GB,                          /* no NVLink: PCIe gen3 x16 [DS] */
        .link = SC_LINK_PCIE, /* [DS] no NVLink on the board */
        .calibrated = 0,
    },
    {
        .name = "v100-pcie-32gb",
        .arch = 70,
        .sm_count = 80,                                   /* [DS] */
        .peak_flops = {14 * T, 0, 112 * T, 0, 0, 0},      /* [DS] as the 16 GB part */
        .vector_flops = 14 * T,
        .hbm_bytes = 32 * GIB,                            /* [DS] */
        .hbm_bw = 900 * GB,                               /* [DS] */
        .hbm_eff = 0.89,     /* [MB 54] */
        .gemm_eff = 0.84,
        .attn_eff = 0.45,
        .nvlink_bw = 15.75 * GB,                          /* PCIe gen3 x16 [DS] */
        .link = SC_LINK_PCIE, /* [DS] no NVLink on the board */
        .calibrated = 0,
    },
    {
        .name = "v100s-pcie-32gb",
        .arch = 70,
        .sm_count = 80,                                   /* [DS] */
        .peak_flops = {16.4 * T, 0, 130 * T, 0, 0, 0},    /* [DS] V100S: 16.4 fp32, 130 tensor */
        .vector_flops = 16.4 * T,
        .hbm_bytes = 32 * GIB,                            /* [DS] */
        .hbm_bw = 1134 * GB,                              /* [DS] */
        .hbm_eff = 0.89,     /* V100's [MB 54] */
        .gemm_eff = 0.84,
        .attn_eff = 0.45,
        .nvlink_bw = 15.75 * GB,                          /* PCIe gen3 x16 [DS] */
        .link = SC_LINK_PCIE, /* [DS] no NVLink on the board */
        .calibrated = 0,
    },
    {
        .name = "a100-pcie-40gb",
        .arch = 80,
        .sm_count = 108,                                  /* [DS] */
        .peak_flops = {19.5 * T, 156 * T, 312 * T, 312 * T, 0, 0}, /* [DS] (250 W: lower
                                                             sustained clocks than SXM4) */
        .vector_flops = 19.5 * T,
        .hbm_bytes = 40 * GIB,                            /* [DS] */
        .hbm_bw = 1555 * GB,                              /* [DS] */
        .hbm_eff = 0.79,     /* as a100-sxm4 [AZ 44] */
        .gemm_eff = 0.84,    /* as a100-sxm4 [FIT-GEMM] */
        .attn_eff = 0.66,    /* as a100-sxm4 */
        .nvlink_bw = 31.5 * GB,                           /* PCIe gen4 x16 [DS] (NVLink
                                                             bridge pairs: see the cluster) */
        .link = SC_LINK_PCIE, /* [DS] no NVLink on the board */
        .calibrated = 0,
    },
    {
        .name = "a100-pcie-80gb",
        .arch = 80,
        .sm_count = 108,                                  /* [DS] */
        .peak_flops = {19.5 * T, 156 * T, 312 * T, 312 * T, 0, 0}, /* [DS] (300 W) */
        .vector_flops = 19.5 * T,
        .hbm_bytes = 80 * GIB,                            /* [DS] */
        .hbm_bw = 1935 * GB,                              /* [DS] */
        .hbm_eff = 0.79,     /* as a100-sxm4 [AZ 44] */
        .gemm_eff = 0.84,
        .attn_eff = 0.66,
        .nvlink_bw = 31.5 * GB,                           /* PCIe gen4 x16 [DS] */
        .link = SC_LINK_PCIE, /* [DS] no NVLink on the board */
        .calibrated = 0,
    },
    {
        .name = "a30-pcie-24gb",
        .arch = 80,
        .sm_count = 56,                                   /* [DS] */
        .peak_flops = {10.3 * T, 82 * T, 165 * T, 165 * T, 0, 0}, /* [DS] */
        .vector_flops = 10.3 * T,
        .hbm_bytes = 24 * GIB,                            /* [DS] */
        .hbm_bw = 933 * GB,                               /* [DS] */
        .hbm_eff = 0.79,     /* as a100 [AZ 44] (same HBM2 controller generation) */
        .gemm_eff = 0.84,    /* as a100 [FIT-GEMM] */
        .attn_eff = 0.66,
        .nvlink_bw = 31.5 * GB,                           /* PCIe gen4 x16 [DS] */
        .link = SC_LINK_PCIE, /* [DS] no NVLink on the board */
        .calibrated = 0,
    },
    {
        .name = "a40-pcie-48gb",
        .arch = 86,
        .sm_count = 84,                                   /* [DS] */
        .peak_flops = {37.4 * T, 74.8 * T, 149.7 * T, 149.7 * T, 0, 0}, /* [DS] dense */
        .vector_flops = 37.4 * T,
        .hbm_bytes = 48 * GIB,                            /* [DS] GDDR6 */
        .hbm_bw = 696 * GB,                               /* [DS] */
        .hbm_eff = 0.945,    /* [MB 90] gpu-stream scale 658 GB/s / 696 */
        .gemm_eff = 0.84,    /* no GEMM row: A100 [FIT-GEMM] value */
        .attn_eff = 0.66,    /* as a100 */
        .nvlink_bw = 31.5 * GB,                           /* PCIe gen4 x16 [DS] */
        .link = SC_LINK_PCIE, /* [DS] no NVLink on the board */
        .calibrated = 0,
    },
    {
        .name = "rtx-a5000",
        .arch = 86,
        .sm_count = 64,                                   /* [DS] */
        .peak_flops = {27.8 * T, 55.6 * T, 111.1 * T, 111.1 * T, 0, 0}, /* [DS] dense (the
                                                             datasheet prints 222.2 sparse) */
        .vector_flops = 27.8 * T,
        .hbm_bytes = 24 * GIB,                            /* [DS] GDDR6 */
        .hbm_bw = 768 * GB,                               /* [DS] */
        .hbm_eff = 0.945,    /* A40's [MB 90] (GDDR6, same generation) */
        .gemm_eff = 0.84,    /* no GEMM row: A100 [FIT-GEMM] value */
        .attn_eff = 0.66,
        .nvlink_bw = 56.25 * GB,                          /* [DS] NVLink bridge 112.5 GB/s
                                                             bidirectional */
        .calibrated = 0,
    },
    {
        .name = "h100-pcie-80gb",
        .arch = 90,
        .sm_count = 114,                                  /* [DS] */
        .peak_flops = {51 * T, 378 * T, 756 * T, 756 * T, 1513 * T, 0}, /* [DS] dense */
        .vector_flops = 51 * T,
        .hbm_bytes = 80 * GIB,                            /* [DS] */
        .hbm_bw = 2000 * GB,                              /* [DS] */
        .hbm_eff = 0.85,     /* [MB 30] gpu-stream scale 1704 GB/s / 2000 */
        .gemm_eff = 0.685,   /* as h100-sxm5 */
        .gemm_eff_fp8 = 0.695,
        .attn_eff = 0.33,
        .nvlink_bw = 63 * GB,                             /* PCIe gen5 x16 [DS] */
        .link = SC_LINK_PCIE, /* [DS] no NVLink on the board */
        .calibrated = 0,
    },

    /* ---- GPUs of published runs outside ../shared/validation. Sources
     * ([DS] with the document named at each GPU, dense figures: the
     * datasheets print tensor rates with 2:4 sparsity, marked "*", which
     * are halved here). No GEMM or attention calibration row exists for
     * any of them except where the comment names one: each takes the
     * efficiencies of its architecture's calibrated GPU, as the comment
     * says (Ada, sm89, runs Ampere's kernel generation -- mma.sync, no
     * wgmma or TMA; FlashAttention-2's sm80 path -- so it takes the
     * A100's; Hopper variants take the H100's; CDNA 2 the CDNA 3
     * convention). GDDR memory: the L40's gpu-stream ratio [MB 102] 816 /
     * 864 GB/s = 0.944 (Ada) or the A40's [MB 90] 0.945 (Ampere, Turing). */
    {
        .name = "h800",  /* H800 SXM5 80 GB: the H100 SXM5 die for China, NVLink cut */
        .arch = 90,
        .sm_count = 132,                                  /* [DS] as H100 SXM5 */
        .peak_flops = {66.9 * T, 494.7 * T, 989.4 * T, 989.4 * T, 1978.9 * T, 0}, /* [DS]
                             NVIDIA H800 Tensor Core GPU datasheet (2023), SXM column:
                             TF32 989*, BF16/FP16 1,979*, FP8 3,958*; FP64 cut to 1 */
        .vector_flops = 66.9 * T,                         /* [DS] FP32 67 */
        .hbm_bytes = 80 * GIB,                            /* [DS] 80 GB HBM3 */
        .hbm_bw = 3350 * GB,                              /* [DS] 3.35 TB/s */
        .hbm_eff = 0.866,    /* as h100-sxm5-80gb [AZ 49] (same memory system) */
        .gemm_eff = 0.685,    /* as h100-sxm5-80gb (same die and clocks); the DeepGEMM H800
                                rows of gemm_shape_benchmarks.csv are fine-grained fp8, not
                                the cuBLASLt rows the shape model was fitted to */
        .gemm_eff_fp8 = 0.695, /* as h100-sxm5-80gb */
        .attn_eff = 0.33,    /* as h100-sxm5-80gb [AZ 62] */
        .nvlink_bw = 200 * GB,                            /* [DS] NVLink 400 GB/s bidirectional
                                                             (8 links; H100: 18) */
        .calibrated = 0,
    },
    {
        .name = "a800-sxm4-80gb",  /* the A100 SXM4 80 GB die for China, NVLink cut */
        .arch = 80,
        .sm_count = 108,                                  /* [DS] as A100 */
        .peak_flops = {19.5 * T, 156 * T, 312 * T, 312 * T, 0, 0}, /* [DS] NVIDIA A800 Tensor
                             Core GPU datasheet (2022), 80GB SXM column */
        .vector_flops = 19.5 * T,
        .hbm_bytes = 80 * GIB,                            /* [DS] 80 GB HBM2e */
        .hbm_bw = 2039 * GB,                              /* [DS] */
        .hbm_eff = 0.79,     /* as a100-sxm4 [AZ 44] */
        .gemm_eff = 0.84,    /* as a100-sxm4 [FIT-GEMM] (same die and clocks) */
        .attn_eff = 0.66,    /* as a100-sxm4 */
        .nvlink_bw = 200 * GB,                            /* [DS] NVLink 400 GB/s bidirectional
                                                             (A100: 600) */
        .calibrated = 0,
    },
    {
        .name = "a800-pcie-80gb",
        .arch = 80,
        .sm_count = 108,                                  /* [DS] */
        .peak_flops = {19.5 * T, 156 * T, 312 * T, 312 * T, 0, 0}, /* [DS] A800 datasheet
                             (2022), 80GB PCIe column */
        .vector_flops = 19.5 * T,
        .hbm_bytes = 80 * GIB,                            /* [DS] */
        .hbm_bw = 1935 * GB,                              /* [DS] */
        .hbm_eff = 0.79,     /* as a100-sxm4 [AZ 44] */
        .gemm_eff = 0.84,    /* as a100-sxm4 [FIT-GEMM] (same die) */
        .attn_eff = 0.66,    /* as a100-sxm4 */
        .nvlink_bw = 31.5 * GB,                           /* PCIe gen4 x16 [DS]; the A800
                                                             datasheet lists an NVLink bridge
                                                             for 2 GPUs, 400 GB/s
                                                             bidirectional: not modelled (no
                                                             cluster preset pairs them) */
        .link = SC_LINK_PCIE, /* beyond a bridged pair: PCIe */
        .calibrated = 0,
    },
    {
        .name = "gh200-144gb",  /* GH200 Grace Hopper superchip, HBM3e version */
        .arch = 90,
        .sm_count = 132,                                  /* [DS] the H100 GPU */
        .peak_flops = {66.9 * T, 494.7 * T, 989.4 * T, 989.4 * T, 1978.9 * T, 0}, /* [DS] NVIDIA
                             GH200 Grace Hopper Superchip datasheet (2024): TF32 494,
                             BF16/FP16 990, FP8 1,979 dense */
        .vector_flops = 66.9 * T,                         /* [DS] FP32 67 */
        .hbm_bytes = 144 * GIB,                           /* [DS] 144 GB HBM3e: six 24 GiB
                                                             stacks; "GB" here is GiB, as the
                                                             H100's 80 GB (review25b; [MAMF]
                                                             rows 3, 14 saw 141 GiB usable) */
        .hbm_bw = 4900 * GB,                              /* [DS] 4.9 TB/s */
        .hbm_eff = 0.835,    /* no STREAM row: H200's [AZ 54] (HBM3e) */
        .gemm_eff = 0.715,   /* bf16: H100's 0.685 x [MAMF] row 3 GH200 bf16 83.8 % / H100
                                80.3 % (row 3 is this 141 GiB HBM3e part) */
        .gemm_eff_fp8 = 0.761, /* H100's 0.695 x [MAMF] row 14 GH200 fp8 77.6 % / H100 70.9 % */
        .attn_eff = 0.33,    /* no row: as h100-sxm5-80gb [AZ 62] */
        .nvlink_bw = 450 * GB,                            /* [DS] 18 NVLink 4 links, 900 GB/s
                                                             bidirectional */
        .host_bw = 0,        /* NVLink-C2C: cost_host_bw's Grace figure */
        .calibrated = CAL16 | CAL8,
    },
    {
        .name = "gh200-96gb",   /* GH200 Grace Hopper superchip, HBM3 version */
        .arch = 90,
        .sm_count = 132,                                  /* [DS] */
        .peak_flops = {66.9 * T, 494.7 * T, 989.4 * T, 989.4 * T, 1978.9 * T, 0}, /* [DS] as
                             gh200-144gb */
        .vector_flops = 66.9 * T,
        .hbm_bytes = 96 * GIB,                            /* [DS] 96 GB HBM3: six 16 GiB
                                                             stacks, as h100-sxm5-96gb */
        .hbm_bw = 4000 * GB,                              /* [DS] 4 TB/s */
        .hbm_eff = 0.866,    /* no STREAM row: H100's [AZ 49] (HBM3) */
        .gemm_eff = 0.715,   /* as gh200-144gb (same GPU and clocks) */
        .gemm_eff_fp8 = 0.761, /* as gh200-144gb */
        .attn_eff = 0.33,    /* no row: as h100-sxm5-80gb [AZ 62] */
        .nvlink_bw = 450 * GB,                            /* [DS] */
        .calibrated = 0,
    },
    {
        .name = "h100-nvl-94gb",  /* H100 NVL: PCIe card, NVLink bridges between pairs */
        .arch = 90,
        .sm_count = 132,                                  /* [DS] 16,896 CUDA cores / 128 */
        .peak_flops = {60 * T, 417.5 * T, 835.5 * T, 835.5 * T, 1670.5 * T, 0}, /* [DS] NVIDIA
                             H100 NVL datasheet (2024): FP32 60, TF32 835*, BF16/FP16 1,671*,
                             FP8 3,341* (350-400 W: lower clocks than SXM5) */
        .vector_flops = 60 * T,
        .hbm_bytes = 94 * GIB,                            /* [DS] 94 GB HBM3 */
        .hbm_bw = 3900 * GB,                              /* [DS] 3.9 TB/s */
        .hbm_eff = 0.866,    /* as h100-sxm5-80gb [AZ 49] (HBM3) */
        .gemm_eff = 0.685,   /* as h100-sxm5 (no NVL row; lower clocks: may be high) */
        .gemm_eff_fp8 = 0.695, /* as h100-sxm5 */
        .attn_eff = 0.33,    /* as h100-sxm5 [AZ 62] */
        .nvlink_bw = 63 * GB,                             /* PCIe gen5 x16 [DS]; NVLink
                                                             bridges join card pairs, 600 GB/s
                                                             bidirectional: not modelled (no
                                                             cluster preset pairs them) */
        .link = SC_LINK_PCIE, /* [DS] bridges join pairs only */
        .calibrated = 0,
    },
    {
        .name = "l40s",
        .arch = 89,
        .sm_count = 142,                                  /* [DS] 18,176 CUDA cores / 128 */
        .peak_flops = {91.6 * T, 183 * T, 362.05 * T, 362.05 * T, 733 * T, 0}, /* [DS] NVIDIA
                             L40S GPU datasheet (2023): TF32 183, BF16/FP16 362.05, FP8 733
                             dense */
        .vector_flops = 91.6 * T,                         /* [DS] */
        .hbm_bytes = 48 * GIB,                            /* [DS] 48 GB GDDR6 */
        .hbm_bw = 864 * GB,                               /* [DS] */
        .hbm_eff = 0.944,    /* the L40's [MB 102] (same board and memory) */
        .gemm_eff = 0.84,    /* no GEMM row: Ampere's A100 [FIT-GEMM] (Ada runs its kernels) */
        .attn_eff = 0.66,    /* as a100 (FA2's sm80 path) */
        .nvlink_bw = 31.5 * GB,                           /* PCIe gen4 x16 [DS] */
        .link = SC_LINK_PCIE, /* [DS] no NVLink */
        .calibrated = 0,
    },
    {
        .name = "l40",
        .arch = 89,
        .sm_count = 142,                                  /* [DS] 18,176 CUDA cores / 128 */
        .peak_flops = {90.5 * T, 90.5 * T, 181.05 * T, 181.05 * T, 362 * T, 0}, /* [DS] NVIDIA
                             L40 GPU datasheet (2022): TF32 90.5, BF16/FP16 181.05, FP8 362
                             dense */
        .vector_flops = 90.5 * T,                         /* [DS] */
        .hbm_bytes = 48 * GIB,                            /* [DS] 48 GB GDDR6 */
        .hbm_bw = 864 * GB,                               /* [DS] */
        .hbm_eff = 0.944,    /* [MB 102] gpu-stream scale 816 GB/s / 864 */
        .gemm_eff = 0.84,    /* no GEMM row: Ampere's A100 [FIT-GEMM] */
        .attn_eff = 0.66,    /* as a100 */
        .nvlink_bw = 31.5 * GB,                           /* PCIe gen4 x16 [DS] */
        .link = SC_LINK_PCIE, /* [DS] no NVLink */
        .calibrated = 0,
    },
    {
        .name = "l4",
        .arch = 89,
        .sm_count = 58,                                   /* [DS] 7,424 CUDA cores / 128 */
        .peak_flops = {30.3 * T, 60 * T, 121 * T, 121 * T, 242.5 * T, 0}, /* [DS] NVIDIA L4
                             Tensor Core GPU datasheet (2023): TF32 120*, BF16/FP16 242*,
                             FP8 485* */
        .vector_flops = 30.3 * T,                         /* [DS] */
        .hbm_bytes = 24 * GIB,                            /* [DS] 24 GB GDDR6 */
        .hbm_bw = 300 * GB,                               /* [DS] */
        .hbm_eff = 0.944,    /* the L40's [MB 102] (Ada, GDDR6) */
        .gemm_eff = 0.84,    /* no GEMM row: Ampere's A100 [FIT-GEMM] (72 W: the card
                                may throttle below this) */
        .attn_eff = 0.66,    /* no row: as a100 (FA2's sm80 path) */
        .nvlink_bw = 31.5 * GB,                           /* PCIe gen4 x16 [DS] */
        .link = SC_LINK_PCIE, /* [DS] no NVLink */
        .calibrated = 0,
    },
    {
        .name = "a10",
        .arch = 86,
        .sm_count = 72,                                   /* [DS] 9,216 CUDA cores / 128 */
        .peak_flops = {31.2 * T, 62.5 * T, 125 * T, 125 * T, 0, 0}, /* [DS] NVIDIA A10 Tensor
                             Core GPU datasheet (2021): TF32 62.5, BF16/FP16 125 dense */
        .vector_flops = 31.2 * T,                         /* [DS] */
        .hbm_bytes = 24 * GIB,                            /* [DS] 24 GB GDDR6 */
        .hbm_bw = 600 * GB,                               /* [DS] */
        .hbm_eff = 0.945,    /* A40's [MB 90] (GDDR6, same generation) */
        .gemm_eff = 0.84,    /* no GEMM row: A100 [FIT-GEMM] value */
        .attn_eff = 0.66,    /* no row: as a100 (FA2's sm80 path) */
        .nvlink_bw = 31.5 * GB,                           /* PCIe gen4 x16 [DS] */
        .link = SC_LINK_PCIE, /* [DS] no NVLink */
        .calibrated = 0,
    },
    {
        .name = "rtx-a6000",
        .arch = 86,
        .sm_count = 84,                                   /* [DS] 10,752 CUDA cores / 128 */
        .peak_flops = {38.7 * T, 77.4 * T, 154.8 * T, 154.8 * T, 0, 0}, /* [DS] NVIDIA RTX
                             A6000 datasheet (2021): FP32 38.7, tensor 309.7* (fp16): fp16 /
                             bf16 dense 154.8, tf32 half of it (the Ampere tensor-core
                             ratios, as rtx-a5000's datasheet prints them) */
        .vector_flops = 38.7 * T,
        .hbm_bytes = 48 * GIB,                            /* [DS] 48 GB GDDR6 */
        .hbm_bw = 768 * GB,                               /* [DS] */
        .hbm_eff = 0.945,    /* A40's [MB 90] (same GA102 board design) */
        .gemm_eff = 0.84,    /* no GEMM row: A100 [FIT-GEMM] value */
        .attn_eff = 0.66,    /* no row: as a100 (FA2's sm80 path) */
        .nvlink_bw = 56.25 * GB,                          /* [DS] NVLink bridge 112.5 GB/s
                                                             bidirectional (as rtx-a5000) */
        .calibrated = 0,
    },
    {
        .name = "rtx-6000-ada",
        .arch = 89,
        .sm_count = 142,                                  /* [DS] 18,176 CUDA cores / 128 */
        .peak_flops = {91.1 * T, 182.1 * T, 364.25 * T, 364.25 * T, 728.5 * T, 0}, /* [DS]
                             NVIDIA RTX 6000 Ada Generation datasheet (2022): FP32 91.1,
                             tensor 1,457* (fp8): fp8 dense 728.5, fp16 half of it (Ada
                             tensor core: NVIDIA Ada GPU architecture whitepaper v2.1), tf32
                             a quarter */
        .vector_flops = 91.1 * T,
        .hbm_bytes = 48 * GIB,                            /* [DS] 48 GB GDDR6 */
        .hbm_bw = 960 * GB,                               /* [DS] */
        .hbm_eff = 0.944,    /* the L40's [MB 102] (Ada, GDDR6) */
        .gemm_eff = 0.84,    /* no GEMM row: Ampere's A100 [FIT-GEMM] */
        .attn_eff = 0.66,    /* no row: as a100 (FA2's sm80 path) */
        .nvlink_bw = 31.5 * GB,                           /* PCIe gen4 x16 [DS] */
        .link = SC_LINK_PCIE, /* [DS] no NVLink */
        .calibrated = 0,
    },
    {
        .name = "rtx-4090",
        .arch = 89,
        .sm_count = 128,                                  /* [DS] Ada whitepaper v2.1 */
        .peak_flops = {82.6 * T, 82.6 * T, 165.2 * T, 165.2 * T, 330.3 * T, 0}, /* [DS] NVIDIA
                             Ada GPU architecture whitepaper v2.1, GeForce RTX 4090: fp16 /
                             bf16 with fp32 accumulate 165.2, TF32 82.6, fp8 with fp32
                             accumulate 330.3 (GeForce: half the fp16-accumulate rate) */
        .vector_flops = 82.6 * T,                         /* [DS] */
        .hbm_bytes = 24 * GIB,                            /* [DS] 24 GB GDDR6X */
        .hbm_bw = 1008 * GB,                              /* [DS] */
        .hbm_eff = 0.944,    /* the L40's [MB 102] (Ada) */
        .gemm_eff = 0.84,    /* no GEMM row: Ampere's A100 [FIT-GEMM] */
        .attn_eff = 0.66,    /* no row: as a100 (FA2's sm80 path) */
        .nvlink_bw = 31.5 * GB,                           /* PCIe gen4 x16 [DS] */
        .link = SC_LINK_PCIE, /* [DS] no NVLink */
        .calibrated = 0,
    },
    {
        .name = "rtx-3090",
        .arch = 86,
        .sm_count = 82,                                   /* [DS] GA102 whitepaper */
        .peak_flops = {35.6 * T, 35.6 * T, 71 * T, 71 * T, 0, 0}, /* [DS] NVIDIA Ampere GA102
                             GPU architecture whitepaper v2.0, GeForce RTX 3090: FP32 35.6,
                             fp16 / bf16 with fp32 accumulate 71, TF32 35.6 (GeForce: half
                             the fp16-accumulate rate) */
        .vector_flops = 35.6 * T,
        .hbm_bytes = 24 * GIB,                            /* [DS] 24 GB GDDR6X */
        .hbm_bw = 936 * GB,                               /* [DS] */
        .hbm_eff = 0.945,    /* A40's [MB 90] (GA102) */
        .gemm_eff = 0.84,    /* no GEMM row: A100 [FIT-GEMM] value */
        .attn_eff = 0.66,    /* no row: as a100 (FA2's sm80 path) */
        .nvlink_bw = 56.25 * GB,                          /* [DS] NVLink bridge 112.5 GB/s
                                                             bidirectional (as rtx-a5000) */
        .calibrated = 0,
    },
    {
        .name = "t4",
        .arch = 75,
        .sm_count = 40,                                   /* [DS] 2,560 CUDA cores / 64 */
        .peak_flops = {8.1 * T, 0, 65 * T, 0, 0, 0},      /* [DS] NVIDIA T4 Tensor Core GPU
                             datasheet (2019): FP32 8.1, mixed precision FP16/FP32 65 */
        .vector_flops = 8.1 * T,
        .hbm_bytes = 16 * GIB,                            /* [DS] 16 GB GDDR6 */
        .hbm_bw = 320 * GB,                               /* [DS] "320+ GB/s" */
        .hbm_eff = 0.945,    /* A40's [MB 90] (GDDR6) */
        .gemm_eff = 0.84,    /* no GEMM row: the V100s' value (A100 [FIT-GEMM]); 70 W: the
                                card may throttle below this */
        .attn_eff = 0.45,    /* no fused attention before sm80: as the V100s */
        .nvlink_bw = 15.75 * GB,                          /* PCIe gen3 x16 [DS] */
        .link = SC_LINK_PCIE, /* [DS] no NVLink */
        .calibrated = 0,
    },
    /* AMD MI250X / MI250: one preset is ONE GCD (graphics compute die),
     * half an OAM module: ROCm and PyTorch show each GCD as a device and
     * frameworks run one rank per GCD, so `gpus` counts GCDs (a Frontier
     * node: 4 modules = 8 GPUs). Figures are the module datasheet's halved. */
    {
        .name = "mi250x",
        .arch = 0,
        .sm_count = 110,                                  /* [DS] 220 CUs / 2 */
        .peak_flops = {47.85 * T, 0, 191.5 * T, 191.5 * T, 0, 0}, /* [DS] AMD Instinct MI250X
                             datasheet: FP32 matrix 95.7, FP16/BF16 383 per module; no TF32 */
        .vector_flops = 23.95 * T,                        /* [DS] FP32 vector 47.9 / 2 */
        .hbm_bytes = 64 * GIB,                            /* [DS] 128 GB HBM2e / 2: four
                                                             16 GiB stacks per GCD (rocm-smi
                                                             shows 64 GiB per GCD) */
        .hbm_bw = 1638.4 * GB,                            /* [DS] 3.2768 TB/s / 2 */
        .hbm_eff = 0.854,    /* [MB 78] MI210 (one CDNA 2 GCD, same HBM2e) gpu-stream scale
                                1399 GB/s / 1638.4 */
        .gemm_eff = 0.81,    /* [MAMF] row 26: bf16 147.0 TFLOP/s on 1 GCD / 191.5 = 76.7 %
                                (v1 table), over the shape model's 0.944 at 1024x19968x14080 */
        .attn_eff = 0.30,    /* no row: assumption, as mi300x */
        .nvlink_bw = 50 * GB,                             /* one Infinity Fabric link to a GCD
                                                             of another module, 50 GB/s per
                                                             direction (OLCF Frontier User
                                                             Guide, node diagram: 50-100 GB/s
                                                             between modules, 200 within) */
        .link = SC_LINK_INFINITY_FABRIC, /* [DS] AMD Infinity Fabric */
        .host_bw = 26.28e9,  /* [DS] PCIe Gen4 x16 per module, at Ampere's achieved Gen4
                                rate (cost_host_bw) */
        .calibrated = CAL16,
    },
    {
        .name = "mi250",
        .arch = 0,
        .sm_count = 104,                                  /* [DS] 208 CUs / 2 */
        .peak_flops = {45.25 * T, 0, 181.05 * T, 181.05 * T, 0, 0}, /* [DS] AMD Instinct MI250
                             datasheet: FP32 matrix 90.5, FP16/BF16 362.1 per module */
        .vector_flops = 22.65 * T,                        /* [DS] FP32 vector 45.3 / 2 */
        .hbm_bytes = 64 * GIB,                            /* [DS] 128 GB HBM2e / 2: four
                                                             16 GiB stacks per GCD (rocm-smi
                                                             shows 64 GiB per GCD) */
        .hbm_bw = 1638.4 * GB,                            /* [DS] 3.2768 TB/s / 2 */
        .hbm_eff = 0.854,    /* as mi250x [MB 78] */
        .gemm_eff = 0.81,    /* as mi250x (same GCD, fewer CUs) */
        .attn_eff = 0.30,
        .nvlink_bw = 50 * GB,                             /* as mi250x */
        .link = SC_LINK_INFINITY_FABRIC, /* [DS] AMD Infinity Fabric */
        .host_bw = 26.28e9,  /* as mi250x */
        .calibrated = 0,
    },
};

#define N_GPU (sizeof gpu_presets / sizeof gpu_presets[0])

/* Other ids vendors and clouds use for a preset: accepted as that preset. */
static const char *const gpu_aliases[][2] = {
    {"h200-141gb", "h200"},
    {"h200-sxm-141gb", "h200"},
    {"h200-sxm5-141gb", "h200"},
    {"h100-sxm-80gb", "h100-sxm5-80gb"},
    {"h100-sxm-96gb", "h100-sxm5-96gb"},
    {"b200-180gb", "b200"},
    /* dp_training GPU ids (DP-AND-RECSYS.md "GPU ids") whose memory or
     * form factor the row does not state: the compute and bandwidth are
     * the same; the larger memory keeps a fit check from failing */
    {"v100-sxm2", "v100-sxm2-32gb"},
    {"v100", "v100-sxm2-32gb"},   /* MLPerf v0.7 Fujitsu/Google: NVLink-attached SXM2 */
    {"a100-sxm4", "a100-sxm4-80gb"},
    {"p100", "p100-pcie-16gb"},
    {"v100-sxm3", "v100-sxm3-32gb"},
};

const sc_gpu *sc_gpu_preset(const char *name) {
  if (!name) return NULL;
  for (size_t a = 0; a < sizeof gpu_aliases / sizeof gpu_aliases[0]; a++)
    if (strcasecmp(gpu_aliases[a][0], name) == 0) name = gpu_aliases[a][1];
  for (size_t i = 0; i < N_GPU; i++)
    if (strcasecmp(gpu_presets[i].name, name) == 0) return &gpu_presets[i];
  return NULL;
}

size_t sc_gpu_preset_count(void) { return N_GPU; }

const sc_gpu *sc_gpu_preset_at(size_t i) {
  return i < N_GPU ? &gpu_presets[i] : NULL;
}

