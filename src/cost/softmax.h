/*
 * softmax.h -- the framework's own row softmax over the attention scores
 * (module prefix: smx_).
 *
 * `torch.softmax(scores, -1)` and its backward (`_softmax_backward_data`)
 * as separate kernels, as the unfused attention runs them where no fused
 * scale-mask-softmax applies: a graph or BERT model's softmax, Megatron's
 * PyTorch path (forward_torch_softmax), and either under AMP (in fp32).
 * By their traffic the kernels read and write every score once forward
 * (2 passes) and read the output and its gradient and write the input's
 * gradient backward (3 passes); measured, they take longer. The factors
 * below multiply those passes' HBM bytes (the kernels stay memory-bound).
 *
 * Fitted to the "Standard attention" rows of
 * ../shared/calibration/attention_kernel_benchmarks.csv (H100 SXM5 forward
 * and backward apart, FA3 paper Fig. 5-6) and the "PyTorch standard
 * attention" rows (A100 and H100 forward + backward, FA2 README),
 * non-causal, seq >= 2048: 24 rows, least squares on the relative error
 * of the unfused attention's time with a per-row constant beside the two
 * factors (tools/calib/attn_unfused_check.py --fit; docs/calibration.md).
 * The rows put the missing time on the score-proportional, head-dim-free
 * part of the attention: at a fixed score count the head dimension
 * changes the batched GEMMs' share (most on A100, where QK^T at k = 128 is
 * compute-bound) but not what is missing. Fitted on PyTorch's kernels; the
 * softmax of the other frameworks (TensorFlow, MXNet) is taken as PyTorch's.
 * Megatron's fused scale-mask-softmax and flash attention are other
 * kernels: not scaled.
 */
#ifndef SC_COST_SOFTMAX_H
#define SC_COST_SOFTMAX_H

/* HBM bytes of the softmax forward over n scores of w bytes each. */
double smx_fwd_bytes(double n, double w);

/* HBM bytes of the softmax backward over n scores of w bytes each. */
double smx_bwd_bytes(double n, double w);

#endif
