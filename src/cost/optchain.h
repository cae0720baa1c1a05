/*
 * optchain.h -- the optimizer's HBM bytes per parameter where the
 * framework runs it as separate element-wise ops (module prefix: optc_).
 *
 * The builders give each graph its optimizer's bytes as a fused kernel
 * runs it (graph.h `opt.bytes_per_param`: Adam 34, SGD with momentum 20):
 * apex's and PyTorch's multi-tensor Adam, TensorFlow's ApplyMomentum
 * kernel. BERT's reference optimizer, google-research/bert
 * optimization.py's AdamWeightDecayOptimizer, is written as TensorFlow
 * ops instead (Adam with decoupled weight decay, which no fused
 * TensorFlow kernel of the time ran); where nothing fuses them
 * (plan.fused_kernels false: TensorFlow without XLA, validate/framework.h)
 * each op is a kernel over every fp32 parameter. XLA clusters them (fused
 * kernels: the graph's figure), and a model written with torch.nn's layers
 * (plan_torch_nn) runs torch.optim's: the graph's figure too.
 */
#ifndef SC_COST_OPTCHAIN_H
#define SC_COST_OPTCHAIN_H

#include "stepcast.h"

/* Bytes per parameter of one optimizer step: graph_bytes (the graph's
 * fused figure) unless the model is BERT and the plan runs unfused
 * kernels and updates with Adam (model.optimizer adam or blank), then
 * optimization.py's op chain (optchain.c). */
double optc_bytes_per_param(const sc_scenario *s, double graph_bytes);

#endif
