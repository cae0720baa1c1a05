/*
 * softmax.c -- the framework's row softmax over the attention scores; see
 * softmax.h.
 */
#include "cost/softmax.h"

/* Measured time of the softmax forward and backward kernels over the time
 * of their passes at the GPU's achievable HBM bandwidth (softmax.h: fitted
 * to 24 attention_kernel_benchmarks.csv rows; 1.418 and 1.763 before
 * rounding, refitted when Hopper's GEMMs took their own shape parameters,
 * cost/compute.c COST_GEMM_HOPPER: 1.332 and 1.741 before). */
#define SMX_FWD 1.42
#define SMX_BWD 1.76

double smx_fwd_bytes(double n, double w) { return 2 * n * w * SMX_FWD; }

double smx_bwd_bytes(double n, double w) { return 3 * n * w * SMX_BWD; }
