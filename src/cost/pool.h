/*
 * pool.h -- PyTorch's own pooling kernels (ATen's max_pool2d_with_indices
 * and avg_pool2d on CUDA), as they run (module prefix: cost_pool_).
 *
 * What the kernels do (ATen's aten/src/ATen/native/cuda/DilatedMaxPool2d.cu
 * and AveragePool2d.cu, recalled from memory: ../shared/reference holds no
 * ATen kernels; the launch grids and the kernel names below are read in
 * the Kineto traces of data/measured/traces_h200 and of
 * ../shared/traces/kineto_tb_plugin_resnet50):
 *   - one thread per OUTPUT element forward (max_pool_forward_nchw's grid
 *     is outputs / 256 blocks; avg_pool2d_out_cuda_frame_nhwc's outputs /
 *     1024), one thread per INPUT element backward (max_pool_backward_nchw's
 *     grid is [H*W / 256, N, C] blocks of 256; the backward kernels gather
 *     from the outputs whose windows hold the input, no atomics);
 *   - max-pool forward writes the output and an int64 index per output
 *     (saved for backward); its backward zero-fills the input gradient
 *     first (a FillFunctor kernel over the input, in both layouts) and
 *     reads the output gradient and the indices;
 *   - average-pool backward recomputes, per input element, each covering
 *     window's divisor: a gather of the output gradient, no fill.
 * Each thread decomposes its flat index into n, c, h, w with integer
 * divisions and walks its window with bounds checks: the kernels are
 * bound by that per-thread integer work, not by their bytes. On an H200
 * the time per thread is the same in fp16 and fp32 (ResNet-50's stem pool
 * forward 4.2 SM clock cycles per output in both, backward 2.9 per input)
 * and 3-8x the HBM time of the bytes; on a V100 (the ResNet-50 fp32 trace)
 * the same kernels take the same cycles per thread (4.5 and 3.0), where
 * the backward's bytes at V100's bandwidth would take a third of it.
 *
 * Cost of a pass: the larger of its bytes at the HBM rate and its threads
 * times the cycles per thread over the GPU's SM clock rate (SMs x clock),
 * plus, for max-pool backward, the fill's bytes. The cycles per thread
 * are measured (H200, data/measured/pool_bench_h200.csv and the traces;
 * docs/calibration.md "Pooling as PyTorch runs it"), as a + b x taps:
 * taps = kh x kw forward, the windows that can hold an input element,
 * ceil(kh/s) x ceil(kw/s), backward. Average pooling was measured at 3x3
 * stride 1 only (Inception's): b = 0, its cycles at that window.
 *
 * TensorFlow and MXNet pool through cuDNN (cudnnPoolingForward/Backward:
 * no indices, backward reads x, y and dy): not this module.
 */
#ifndef SC_COST_POOL_H
#define SC_COST_POOL_H

#include "stepcast.h"

/* One pooling operator of one micro-batch on one GPU. */
typedef struct cost_pool {
  int max;          /* 1 = max pool, 0 = average pool */
  int kh, kw;       /* window, >= 1 */
  int stride;       /* >= 1 */
  int nhwc;         /* 1 = channels-last tensors, 0 = NCHW */
  double in, out;   /* elements of the input and the output */
  double e;         /* bytes per element */
} cost_pool;

/* SM clock cycles per second of g: SMs x clock, the clock read from the
 * fp32 vector peak (2 FLOP per lane per cycle, the lanes per SM of g's
 * architecture). 0 where the architecture is not NVIDIA's (AMD presets:
 * their vector peak does not say the lanes). */
double cost_pool_sm_rate(const sc_gpu *g);

/* Seconds of ATen's forward (*fwd) and backward (*bwd, the fill
 * included) of p on g, each without the per-kernel fixed cost (cost_mem
 * adds it). Returns 1, or 0 (outputs untouched) where the GPU has no SM
 * rate. p's fields must be in range (asserted). */
int cost_pool_aten(const sc_gpu *g, const cost_pool *p, double *fwd, double *bwd);

#endif
