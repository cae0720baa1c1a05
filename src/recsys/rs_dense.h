/*
 * rs_dense.h -- the dense part of a recommendation model on one GPU: MLPs,
 * the interaction and the dense optimizer, on the GEMM and memory-bound
 * kernel models of src/cost/compute.c (module prefix: rs_).
 */
#ifndef SC_RECSYS_RS_DENSE_H
#define SC_RECSYS_RS_DENSE_H

#include "stepcast_recsys.h"

typedef struct rs_dense_time {
  double bottom_fwd, bottom_bwd;  /* bottom MLP, seconds */
  double top_fwd, top_bwd;        /* interaction + cross network + top MLP */
  double inter_fwd, inter_bwd;    /* of which the interaction and cross network */
  double optimizer;               /* dense optimizer step */
  double act_bytes;               /* activations kept for backward, bytes */
  int kernels;                    /* kernels launched per iteration */
} rs_dense_time;

/* Dense time of model m for `batch` samples per GPU under job j. */
void rs_dense(const sc_rs_job *j, double batch, rs_dense_time *d);

#endif
