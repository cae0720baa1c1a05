/*
 * dpm.h -- the data-parallel view of a model: its gradient tensors in the
 * order the backward pass makes them ready, with the backward compute
 * that separates them (module prefix: dpm_).
 *
 * This is the contract between the models and compute costs (src/model/,
 * src/cost/) and the data-parallel communication schemes (parameter
 * servers, all-reduce, gossip; layer-wise overlap and bucketing): a scheme
 * needs, for each layer in backward order, its gradient bytes and the
 * backward time on the worker's GPU before that gradient exists.
 *
 * dpm_layers costs ONE worker: the scenario's GPU, plan.dtype,
 * plan.framework_eager (+ cuda_graphs) and plan.micro_batch samples per
 * GPU (batch_per_gpu; 0 = plan.global_batch / cluster.gpus). Tensor,
 * pipeline, context parallelism and recomputation are ignored (a data-
 * parallel worker runs the whole model); the cluster's size does not
 * matter. Times come from the same kernel costs and the same host/GPU
 * queue as `stepcast predict` on one GPU, so
 *
 *   fwd_s + sum(layers[i].bwd_s) + tail_s + optimizer_s == single_s
 *
 * up to the host/GPU queue (single_s is the one-GPU prediction; when the
 * host is the bottleneck single_s is larger than the GPU sums).
 *
 * Layers are operators with parameters, one entry per instance of a
 * repeated block (ResNet-50: 1 stem conv + 52 convs + 53 batch norms +
 * the FC = 107 entries, 161 tensors). layers[0] is the first gradient the
 * backward pass produces (the classifier), the last is the stem's.
 *
 * Ownership: dpm_model owns its array; dpm_free releases it.
 */
#ifndef SC_JOB_DPM_H
#define SC_JOB_DPM_H

#include "stepcast.h"

typedef struct dpm_layer {
  char name[80];     /* "block.op" or "block[instance].op" */
  int op;            /* workload-graph operator (wg_graph.ops index) */
  int instance;      /* instance of its block, 0-based */
  double params;     /* elements of its gradient tensors (weight + bias;
                        batch norm: gamma + beta) */
  int tensors;       /* gradient tensors: 1 weight (+ 1 bias); norms 2 */
  double bwd_s;      /* GPU seconds of backward work between the previous
                        entry's gradient being ready and this one's (the
                        ops without parameters in between included) */
  double host_bwd_s; /* host seconds of issuing that work (eager framework;
                        0 otherwise) */
  double fwd_s;      /* GPU seconds of its operator's forward pass and the
                        parameterless operators after it (up to the next
                        layer in forward order): its weights are needed
                        at the start of this window */
  double host_fwd_s; /* host seconds of issuing that forward work (eager
                        framework; 0 otherwise) */
} dpm_layer;

typedef struct dpm_model {
  dpm_layer *layers; /* in backward order (owned) */
  int n;
  double params;     /* sum of layers[].params: the gradient elements */
  int tensors;       /* sum of layers[].tensors */
  double fwd_s;      /* GPU seconds of the forward pass */
  double bwd_s;      /* GPU seconds of the whole backward pass */
  double bwd_mem_s;  /* the part of bwd_s in memory-bound kernels (XG_MEM
                        tasks): what NCCL's HBM traffic slows (dp/contend.c) */
  double tail_s;     /* backward GPU seconds after the last gradient is
                        ready (input-side ops without parameters) */
  double head_s;     /* forward GPU seconds before the first layer's
                        operator (fwd_s = head_s + sum of layers[].fwd_s) */
  double host_head_s; /* host seconds of issuing that work */
  double optimizer_s;/* the optimizer step over all parameters */
  double single_s;   /* the whole step on one GPU (no communication) */
  long batch;        /* samples per GPU it was costed for */
} dpm_model;

/* Fill *out for the scenario s (see above). SC_OK; SC_EINPUT when the
 * scenario does not resolve (the message names the key); SC_ENOMEM. On
 * error *out is empty (n 0, layers NULL). */
int dpm_layers(const sc_scenario *s, dpm_model *out, sc_error *err);

void dpm_free(dpm_model *m);

#endif /* SC_JOB_DPM_H */
