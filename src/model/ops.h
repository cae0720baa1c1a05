/*
 * ops.h -- a transformer as a list of operators (module prefix: ops_).
 *
 * The model builder turns (model, plan, micro-batch) into the forward
 * operators that ONE GPU runs for ONE micro-batch: GEMMs with their
 * per-GPU shapes, attention cores, memory-bound element-wise kernels and
 * the collectives that tensor/sequence/context/expert parallelism insert.
 * The backward pass and recomputation are derived from the forward list by
 * the engine (each GEMM gives two GEMMs, element-wise kernels double, ...).
 *
 * Units: FLOPs, bytes, elements. No allocation: lists live in fixed arrays.
 */
#ifndef SC_OPS_H
#define SC_OPS_H

#include "coll/coll.h"
#include "stepcast.h"

typedef enum ops_kind {
  OPS_GEMM = 0,   /* C[m,n] = A[m,k] B[k,n], `batch` independent copies */
  OPS_ATTN,       /* fused (flash) attention core */
  OPS_MEM,        /* memory-bound kernel(s): `bytes` read + written */
  OPS_COMM        /* a collective on a parallel group */
} ops_kind;

typedef enum ops_group {
  OPS_GROUP_TP = 0,  /* tensor (+ sequence) parallel group */
  OPS_GROUP_CP,      /* context parallel ring */
  OPS_GROUP_EP       /* expert parallel all-to-all */
} ops_group;

typedef struct ops_op {
  const char *name;    /* static string, for reports and traces */
  ops_kind kind;
  double m, n, k;      /* GEMM: per-GPU shape */
  double batch;        /* GEMM: batched copies (>= 1); ATTN: batch * heads */
  double sq, skv, d;   /* ATTN: query length, key length, head dim */
  int causal;          /* ATTN: causal mask (kernel skips masked blocks) */
  double bytes;        /* MEM: bytes moved; COMM: bytes (nccl-tests size) */
  double flops;        /* FLOPs of this op (GEMM, ATTN); 0 for MEM/COMM */
  int host_ops;        /* framework operator calls in forward (host cost) */
  int host_bwd;        /* framework operator calls in backward */
  coll_op coll;        /* COMM: the collective */
  ops_group group;     /* COMM: on which group */
  double bwd_scale;    /* backward cost relative to forward (MEM, ATTN) */
  int recompute_sel;   /* 1 = recomputed by selective recomputation */
} ops_op;

#define OPS_MAX 48

/* A list of forward operators; `n` used of OPS_MAX. */
typedef struct ops_list {
  ops_op op[OPS_MAX];
  int n;
} ops_list;

/* The per-GPU forward operators of one transformer layer for one
 * micro-batch of `mb` sequences. s must be resolved. */
void ops_layer(const sc_scenario *s, long mb, ops_list *out);

/* Embedding lookup (first stage) and the output head with the loss (last
 * stage), per GPU, one micro-batch. */
void ops_embedding(const sc_scenario *s, long mb, ops_list *out);
void ops_head(const sc_scenario *s, long mb, ops_list *out);

/* Parameters of one layer (all experts) and of the embeddings. */
double ops_layer_params(const sc_model *m);
double ops_embedding_params(const sc_model *m);

/* Model FLOPs of one step (6 N T for dense layers plus attention, without
 * recomputation), the definition MFU uses. */
double ops_model_flops(const sc_model *m, double tokens);

#endif /* SC_OPS_H */
