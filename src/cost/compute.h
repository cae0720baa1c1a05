/*
 * compute.h -- time of one GPU kernel (module prefix: cost_).
 *
 * Roofline with shape-dependent efficiency:
 *   GEMM:  max(FLOPs / (peak * eff(shape)), bytes / achievable HBM) + t0,
 *          eff(shape) = gemm_eff * tile efficiency * wave quantization
 *          * k-loop efficiency, with the tile that cuBLAS would pick
 *          (the fastest of a few candidates, split-K when the grid is small);
 *          with m, n or k at most 16 at most the memory-bound kernel's time
 *          max(bytes / achievable HBM, FLOPs / CUDA-core GEMM rate) + t0
 *          (GEMV, outer product, small-N GEMM; compute.c).
 *   flash attention: FLOPs / (peak * attn_eff * seq efficiency).
 *   memory-bound: bytes / (hbm_bw * hbm_eff) + t0.
 * All times in seconds.
 */
#ifndef SC_COST_COMPUTE_H
#define SC_COST_COMPUTE_H

#include "stepcast.h"

/* Fixed cost of one kernel on the GPU (ramp-up and tail), seconds. */
#define COST_KERNEL_T0 3.0e-6

/* Shape parameters of the GEMM model (see compute.c for their fit). */
typedef struct cost_gemm_shape {
  double k0;         /* k-loop prologue/epilogue, in units of k */
  double wave_tail;  /* cost of an idle SM slot in the last wave, 0..1 */
  double t0;         /* fixed seconds per GEMM kernel */
  double m_pad;      /* rows each batch entry pads on average, in units of
                      * the tile's m: 0 when m is what every entry has (a
                      * batched GEMM), 0.5 for MoE experts (COST_GEMM_EXPERT) */
} cost_gemm_shape;

extern const cost_gemm_shape COST_GEMM_DEFAULT, COST_GEMM_HOPPER;

/* The shape parameters (into *sh) and large-GEMM efficiency (returned) of a
 * GEMM in dt on g: Hopper's tensor-core GEMMs COST_GEMM_HOPPER, other
 * tensor-core GEMMs COST_GEMM_DEFAULT, CUDA-core GEMMs the convolutions'
 * prologue. */
double cost_gemm_params(const sc_gpu *g, sc_dtype dt, cost_gemm_shape *sh);

/* The GEMM model with explicit shape parameters and large-GEMM efficiency
 * (what the calibration tool searches over); cost_gemm and cost_gemm_eff
 * use cost_gemm_params's. */
double cost_gemm_ex(const sc_gpu *g, const cost_gemm_shape *sh, double eff,
                    sc_dtype dt, double m, double n, double k, double batch);
double cost_gemm_eff_ex(const sc_gpu *g, const cost_gemm_shape *sh, double eff,
                        double m, double n, double k, double batch);

/* Time of C[m,n] = A[m,k] B[k,n] in dtype dt, `batch` copies. */
double cost_gemm(const sc_gpu *g, sc_dtype dt, double m, double n, double k,
                 double batch);

/* Rows padded per expert when m is a mean count of tokens per expert (see
 * compute.c); the forward and data-gradient GEMMs of MoE experts. */
#define COST_GEMM_EXPERT_PAD 0.5

/* cost_gemm of `batch` experts holding m tokens each on average: each
 * expert's token count ends part-way into its last tile (m_pad
 * COST_GEMM_EXPERT_PAD). Forward (m tokens x k -> n) and data gradient;
 * the weight gradient reduces over the tokens and is cost_gemm's. */
double cost_gemm_expert(const sc_gpu *g, sc_dtype dt, double m, double n, double k,
                        double batch);

/* The large-GEMM efficiency of g in dtype dt: on the tensor cores
 * gemm_eff (gemm_eff_fp8 for fp8 and fp4 when set), on the CUDA cores
 * (cost_conv_tensor_cores false: fp32 before Ampere or without TF32, fp16
 * before Volta) the CUDA-core efficiency of cost/conv.c; Kepler's issue
 * limit included. */
double cost_gemm_peak_eff(const sc_gpu *g, sc_dtype dt);

/* Fraction of the datasheet FMA rate the SMs can issue in a dense kernel:
 * 2/3 on Kepler (sm_30..37; see compute.c), 1 on later GPUs. Included in
 * cost_gemm_peak_eff and the CUDA-core convolutions of cost/conv.c. */
double cost_fma_issue(const sc_gpu *g);

/* Efficiency (fraction of peak) the GEMM model gives that shape. */
double cost_gemm_eff(const sc_gpu *g, sc_dtype dt, double m, double n,
                     double k, double batch);

/* 1 when cuBLAS before 11.0 would run this 16-bit GEMM on the CUDA cores:
 * dt fp16 or bf16 on a GPU with tensor cores for it, and m, n or k not a
 * multiple of 8 (compute.c says where the rule comes from). */
int cost_gemm_pre11_cuda_cores(const sc_gpu *g, sc_dtype dt, double m, double n, double k);

/* The fraction of its aligned rate a tensor-core GEMM keeps when a
 * dimension's rows are not 16-byte aligned (compute.c: measured on an
 * H200; Hopper and later): 1 when every integral dimension times the
 * element size is a multiple of 16 bytes, or the GPU predates Hopper, or
 * dt runs no tensor cores. */
double cost_gemm_align(const sc_gpu *g, sc_dtype dt, double m, double n, double k);

/* cost_gemm and cost_gemm_eff as the GEMM library runs them: with pre11
 * (plan.cublas_pre11: a cuBLAS before 11.0) a GEMM that
 * cost_gemm_pre11_cuda_cores names runs the CUDA-core kernel at the fp32
 * FMA rate (fp32 accumulation) with its 16-bit operands; the efficiency
 * is then given as a fraction of dt's peak. Otherwise cost_gemm and
 * cost_gemm_eff at cost_gemm_align's fraction of the efficiency. */
double cost_gemm_lib(const sc_gpu *g, sc_dtype dt, double m, double n, double k, double batch,
                     int pre11);

/* The kernel a GEMM's time is of: a tensor-core (or CUDA-core) tile
 * kernel at its FLOP rate, the same bound by its bytes at the HBM rate,
 * or the narrow SIMT kernel a shape with a dimension <= 16 may run
 * (compute.c "Narrow GEMMs"). Names: "tile", "memory", "narrow". */
typedef enum cost_gemm_path { COST_GEMM_TILE, COST_GEMM_TILE_MEMORY, COST_GEMM_NARROW } cost_gemm_path;
const char *cost_gemm_path_name(cost_gemm_path p);

/* cost_gemm_lib (expert 0) or cost_gemm_expert (expert 1: pre11 not
 * read), with the kernel it costs in *path when path is not NULL. */
double cost_gemm_lib_path(const sc_gpu *g, sc_dtype dt, double m, double n, double k,
                          double batch, int pre11, int expert, cost_gemm_path *path);
double cost_gemm_eff_lib(const sc_gpu *g, sc_dtype dt, double m, double n, double k,
                         double batch, int pre11);

/* Forward time of a fused attention kernel a doing `flops` with query
 * length sq and head dim d (causal: a causal mask), and the backward time
 * given the backward FLOPs. */
double cost_flash_attn_k(const sc_gpu *g, sc_dtype dt, sc_attention a, double flops,
                         double sq, double d, int causal);
double cost_flash_attn_bwd(const sc_gpu *g, sc_dtype dt, sc_attention a,
                           double flops, double sq, double d, int causal);

/* Time of a memory-bound kernel moving `bytes`. */
double cost_mem(const sc_gpu *g, double bytes);

/* Peak tensor FLOP/s of g in dt, falling back to the nearest supported
 * wider type (fp8 on a GPU without fp8 runs as fp16/bf16). */
double cost_peak(const sc_gpu *g, sc_dtype dt);

/* Host seconds of one collective call (torch.distributed + NCCL launch). */
double cost_coll_host(const sc_gpu *g);

/* Host seconds per kernel launch of an eager framework on g. */
double cost_launch(const sc_gpu *g);

/* Achievable host link (PCIe or C2C) bandwidth per direction of one GPU
 * copying alone, bytes/s (all GPUs of a server at once: hostlink_bw). */
double cost_host_bw(const sc_gpu *g);
/* Launch cost of one kernel replayed from a CUDA graph, seconds. */
double cost_graph_launch(const sc_gpu *g);

/* Host seconds at the start of each micro-batch of an eager framework
 * (fetching and copying the batch) before its first layer is issued. */
double cost_batch_host(const sc_gpu *g);

#endif /* SC_COST_COMPUTE_H */
