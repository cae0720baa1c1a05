/*
 * amp.h -- what automatic mixed precision adds to a 16-bit step (module
 * prefix: amp_).
 *
 * plan.amp (a dp_training row's dtype `amp`) is mixed precision as the
 * frameworks' AMP runs it: the parameters stay fp32 and the GEMMs and
 * convolutions take fp16 copies (PyTorch autocast and apex O1, the
 * TensorFlow AMP graph rewrite, MXNet contrib.amp, Paddle's and OneFlow's
 * AMP rewrites). Against a model cast wholly to 16 bits (plan.dtype
 * fp16 alone: Megatron, apex O2) it adds:
 *
 *   fp32 islands  the ops on the frameworks' fp32 lists run in fp32 with a
 *                 cast kernel on each side: layer/RMS norms and the
 *                 attention softmax (losses already are fp32 in every
 *                 builder, graph.c shape_loss);
 *   per step      the cast of every fp32 weight to its fp16 copy, the cast
 *                 of the fp16 weight gradient to the fp32 parameter's
 *                 gradient, and (fp16 only) dynamic loss scaling's
 *                 unscale and inf/nan check over every gradient.
 *
 * Memory: the fp32 parameters and their fp32 gradients (eng_param_bytes,
 * eng_grad_bytes), Adam's moments with no master copy, and the 16-bit
 * weight copies each micro-batch keeps for its backward
 * (engine/memory.c).
 *
 * The op lists and the passes are read from framework code that is not in
 * ../shared/reference (docs/model.md "Automatic mixed precision" names
 * each): an assumption, stated, nothing fitted. Bytes are HBM bytes.
 */
#ifndef SC_COST_AMP_H
#define SC_COST_AMP_H

#include "stepcast.h"

/* One fp32 island: an op of n elements in and out whose own kernels move
 * fwd_e (forward) and fwd_e * bwd_scale (backward) elements per element.
 * Returns its forward HBM bytes under AMP, with the casts, and sets
 * *bwd_scale to the backward's bytes over the forward's and *casts to the
 * cast kernels each pass adds. e: bytes of a 16-bit element. */
double amp_island_bytes(double n, double fwd_e, double e, double *bwd_scale, int *casts);

/* 1 when the plan runs AMP on 16-bit GEMMs (plan.amp with plan.dtype fp16
 * or bf16): the rules above apply. */
int amp_on(const sc_plan *p);

/* HBM bytes of AMP's weight and gradient casts and loss scaling in one
 * step (amp.c): local parameters of the stage (unsharded, cast each
 * micro-batch), shard the optimizer's share of them (loss scaling once a
 * step where loss_scaling: fp16), micro_batches per step (< 1 taken as
 * 1), added those of the
 * local parameters whose fp32 gradient autograd adds into .grad after the
 * first micro-batch, as a kernel of its own (AccumulateGrad): under an
 * eager framework (plan.framework_eager: PyTorch autocast / apex O1) the
 * parameters whose gradients stay whole through the step (ZeRO 0-2);
 * 0 for the graph frameworks' accumulation and for FSDP units (amp.c). */
double amp_pass_bytes(double local, double shard, int micro_batches, double added,
                      int loss_scaling);

#endif /* SC_COST_AMP_H */
