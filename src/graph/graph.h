/*
 * graph.h -- the workload graph: a model as operators on tensors, grouped
 * into blocks (module prefix: wg_).
 *
 * This is what every model builder produces (src/model/: the transformer
 * builder, the JSON graph loader) and what the lowering (src/lower/) turns
 * into an execution graph for a parallel plan. It describes the math of
 * ONE training sample, independent of any plan:
 *
 *   - A tensor has a per-sample shape: the batch dimension is implicit.
 *     In a sequence model (graph.seq > 0) dimension 0 of every activation
 *     is the sequence: context parallelism splits it, sequence
 *     parallelism splits it further inside a tensor-parallel group.
 *     Weights are not tensors; an operator owns its parameters.
 *   - An operator has a kind (GEMM-like, attention, memory-bound, ...),
 *     its inputs and one output, and attributes. wg_add derives from them
 *     what the cost model and the memory model need, per sample and
 *     unsharded: FLOPs, memory traffic, parameters, what it keeps for the
 *     backward pass, and the framework calls an eager framework makes for
 *     it (the defaults follow Megatron-LM's layer code; see graph.c).
 *   - How tensor parallelism splits an operator is an annotation (wg_tp):
 *     column- or row-parallel linear layers, vocabulary-parallel
 *     embeddings, head-parallel attention. The lowering propagates tensor
 *     layouts and inserts the collectives that follow from them.
 *   - A block is a run of operators with one input and one output
 *     tensor, stored once and repeated `count` times: a 126-layer model
 *     costs one layer of memory. Blocks form a chain (the output of one
 *     feeds the next). LAYER blocks are what pipeline stages split; the
 *     FIRST block (embedding) runs on the first stage, the LAST (head and
 *     loss) on the last.
 *
 * Units: elements, FLOPs, bytes (with the activation type of the plan
 * left open: traffic and saved bytes are `elems * (e * act_bytes + b)`).
 * Ownership: a graph owns its arrays; wg_free releases everything.
 * Errors on input are sc_error values naming the operator and what would
 * be valid; misuse of the API is assert()ed.
 */
#ifndef SC_GRAPH_H
#define SC_GRAPH_H

#include "stepcast.h"

#define WG_NAME 32    /* bytes of a name, with the NUL */
#define WG_MAX_IN 4   /* inputs of one operator */
#define WG_MAX_RANK 4 /* dimensions of a per-sample shape */
#define WG_MAX_DIM (1L << 40) /* largest size of one dimension */

typedef enum wg_kind {
  WG_LINEAR = 0,  /* x[..., k] W[k, n] -> y[..., n] (+ bias): a GEMM */
  WG_MATMUL,      /* a[g, m, k] b[g, k, n] -> c[g, m, n]: two activations */
  WG_ATTENTION,   /* qkv[s, (h + 2 kv) d] -> o[s, h d]; the plan picks the
                     kernel (flash or unfused) */
  WG_CONV,        /* x[c, h, w] -> y[k, h', w'], square kernel */
  WG_POOL,        /* x[c, h, w] -> y[c, h', w'] (fn: max, avg; kernel 0 =
                     global) */
  WG_NORM,        /* fn: layernorm, rmsnorm (last dim), batchnorm (dim 0) */
  WG_ELTWISE,     /* fn: element-wise and other memory-bound kernels */
  WG_EMBEDDING,   /* ids[...] -> x[..., dim] from a table of vocab rows */
  WG_INTERACTION, /* x[f, d] -> y[f (f - 1) / 2]: pairwise dot products */
  WG_LOSS,        /* logits[..., v] -> loss[1] (fn: cross_entropy) */
  WG_ROUTE,       /* MoE: x[s, h] -> x[s topk, h] in expert order */
  WG_UNROUTE,     /* MoE: y[s topk, h] -> y[s, h], weighted by the router */
  WG_KIND_COUNT
} wg_kind;

/* Functions of WG_ELTWISE, WG_NORM, WG_POOL and WG_LOSS operators. */
typedef enum wg_fn {
  WG_FN_NONE = 0,
  WG_FN_GELU,             /* eltwise: (bias +) GELU */
  WG_FN_SWIGLU,           /* eltwise: x[..., 2f] -> y[..., f] */
  WG_FN_RELU,
  WG_FN_DROPOUT,
  WG_FN_ADD,              /* eltwise: a + b */
  WG_FN_BIAS_DROPOUT_ADD, /* eltwise: residual + dropout(x + bias) */
  WG_FN_ROPE,             /* eltwise: rotary positions on q and k of a
                             packed qkv (needs heads, kv_heads, head_dim) */
  WG_FN_SOFTMAX,
  WG_FN_SCALE,            /* eltwise: a copy or scaling (layout changes) */
  WG_FN_LAYERNORM,        /* norm */
  WG_FN_RMSNORM,          /* norm */
  WG_FN_BATCHNORM,        /* norm over dimension 0 (channels) */
  WG_FN_MAX,              /* pool */
  WG_FN_AVG,              /* pool */
  WG_FN_CROSS_ENTROPY,    /* loss */
  WG_FN_CONCAT,           /* eltwise: a[..., m], b[..., n] -> y[..., m + n] */
  WG_FN_CONCAT_CH,        /* eltwise: 2-4 tensors [c_i, h, w] -> [sum c_i, h, w]
                             (channel concatenation of CNN branches) */
  WG_FN_SLICE,            /* eltwise: x[s, ...] -> y[rows, ...], rows <= s: a
                             gather of `rows` positions along dimension 0
                             (BERT's masked positions, its first token) */
  WG_FN_COUNT
} wg_fn;

/* How tensor parallelism splits an operator (Megatron-LM's layers). */
typedef enum wg_tp {
  WG_TP_NONE = 0, /* replicated: element-wise ops run on whatever split
                     their input has; a linear layer needs the whole input */
  WG_TP_COLUMN,   /* linear: output features split; output split */
  WG_TP_ROW,      /* linear: input features split; output partial sums */
  WG_TP_VOCAB,    /* embedding: table rows split, output partial sums;
                     linear (logits): as column */
  WG_TP_HEADS     /* attention, matmul: heads (dim 0 of matmul) split */
} wg_tp;

/* What one element of a tensor is. */
typedef enum wg_elem {
  WG_ELEM_ACT = 0, /* the plan's activation type (16 bits, fp32 in fp32) */
  WG_ELEM_FP32,
  WG_ELEM_INT,     /* ids: 8 bytes */
  WG_ELEM_MASK     /* 1 byte */
} wg_elem;

typedef enum wg_role {
  WG_ROLE_LAYER = 0, /* a block the pipeline stages split */
  WG_ROLE_FIRST,     /* runs on the first stage, before the layers */
  WG_ROLE_LAST       /* runs on the last stage, after the layers */
} wg_role;

typedef struct wg_tensor {
  char name[WG_NAME];
  int rank;                  /* 1..WG_MAX_RANK */
  long dim[WG_MAX_RANK];     /* per sample */
  wg_elem elem;
  int producer;              /* op index, -1 for the block's input */
  int block;
  int uses;                  /* operators that read it */
} wg_tensor;

/* Bits of wg_op.saved: which tensors the backward pass needs. */
#define WG_SAVE_IN(i) (1u << (i))
#define WG_SAVE_OUT (1u << WG_MAX_IN)

typedef struct wg_op {
  char name[WG_NAME];
  wg_kind kind;
  wg_fn fn;
  wg_tp tp;
  int expert;                /* 1 = one copy per expert on routed tokens */
  int in[WG_MAX_IN], n_in;   /* tensor ids */
  int out;                   /* tensor id */
  int block;
  /* attributes; 0 where they do not apply */
  long features;             /* LINEAR: n; EMBEDDING: dim; CONV: out channels */
  long in_features;          /* LINEAR: k expected of the input (0 = any) */
  long heads, kv_heads, head_dim; /* ATTENTION, ROPE; head_dim: of q and k */
  long v_head_dim;           /* ATTENTION: of v and the output (0 = head_dim) */
  long experts, topk;        /* ROUTE, UNROUTE; expert LINEAR: experts */
  long vocab, positions;     /* EMBEDDING; positions: learned position rows */
  int causal;                /* ATTENTION */
  int bias;                  /* LINEAR, CONV */
  int no_scale;              /* NORM (batchnorm): 1 = a shift alone, no
                                scale (Keras' scale=False) */
  int high_precision;        /* LINEAR, CONV: stays in 16 bits when the plan
                                computes in fp8/fp4 (a router, say) */
  int tied;                  /* LINEAR: its weight is the embedding table's
                                (counted once in the model; a pipeline stage
                                without the embedding holds a copy) */
  int kernel, stride, pad;   /* CONV, POOL: kernel height (and width when
                                kernel_w is 0), stride, padding */
  int kernel_w, pad_w;       /* CONV, POOL: a rectangular kernel kernel x
                                kernel_w and its width padding (kernel_w 0 =
                                square, pad_w unused) */
  long rows;                 /* SLICE: positions kept */
  int separate_qkv;          /* ATTENTION: q, k and v arrive as separate
                                tensors in the kernel's layout and the output
                                leaves in it (MLA: Megatron's MLA RoPE kernels
                                write them), so no layout copy around it */
  int no_dropout;            /* ATTENTION, BIAS_DROPOUT_ADD: 1 = dropout rate
                                0, which frameworks skip: no mask kept, no
                                dropout kernel (0 = the op drops out) */
  /* derived by wg_add, per sample and unsharded (a caller may preset
   * host_fwd/host_bwd, bwd_scale and the traffic coefficients; 0 = the
   * default of the kind) */
  double flops;              /* forward FLOPs as run (causal attention: half) */
  double model_flops;        /* forward FLOPs that MFU counts: matmuls, attention
                                in full, nothing for memory-bound ops */
  double params;             /* parameters (all experts) */
  double elems;              /* elements the memory-bound kernel touches */
  double traffic_e, traffic_b; /* bytes moved = elems (traffic_e e + traffic_b) */
  double bwd_scale;          /* backward traffic (MEM) or FLOPs (attention)
                                relative to forward */
  int host_fwd, host_bwd;    /* framework calls of an eager framework */
  unsigned saved;            /* WG_SAVE_* bits */
  double saved_elems;        /* extra elements kept (masks, scores) */
  double saved_e, saved_b;   /* their bytes: saved_elems (saved_e e + saved_b) */
  unsigned recmod;           /* SC_RECMOD_* bits: the Megatron-Core recompute
                                modules it belongs to (plan.recompute_modules;
                                src/lower/recmod.c); attention: core_attn */
  int linear_fn;             /* 1 = passes partial sums through unchanged */
  int line;                  /* source line (JSON graphs), 0 if none */
} wg_op;

typedef struct wg_block {
  char name[WG_NAME];
  wg_role role;
  int count;                 /* instances, >= 1 */
  int first_op, n_ops;
  int input, output;         /* tensor ids; output -1 until set */
} wg_block;

/* The optimizer that updates every parameter once per step. */
typedef struct wg_optimizer {
  double bytes_per_param;    /* HBM traffic of the update (Adam: 34) */
  double state_bytes_per_param; /* state kept per parameter, before ZeRO
                                   (Adam: 8; model/optimizer.c) */
} wg_optimizer;

typedef struct wg_graph {
  char name[64];
  long seq;                  /* tokens per sample along dimension 0 of the
                                activations; 0 = not a sequence model */
  wg_op *ops;
  int n_ops, cap_ops;
  wg_tensor *tensors;
  int n_tensors, cap_tensors;
  wg_block *blocks;
  int n_blocks, cap_blocks;
  wg_optimizer opt;
  double model_flops;        /* per sample, forward + backward, for MFU; 0
                                until wg_finalize (builders may set it first) */
  int layers;                /* instances of LAYER blocks (after finalize) */
  int finalized;
} wg_graph;

const char *wg_kind_name(wg_kind k);
const char *wg_fn_name(wg_fn f);
const char *wg_tp_name(wg_tp t);

/* New empty graph; NULL when out of memory. */
wg_graph *wg_new(const char *name, long seq);
void wg_free(wg_graph *g);

/* Open a block whose input is the tensor `input` of shape dim[0..rank)
 * (per sample). Its shape must equal the previous block's output.
 * SC_OK, SC_EINPUT (message names the block) or SC_ENOMEM. */
int wg_block_begin(wg_graph *g, const char *name, wg_role role, int count,
                   const char *input, int rank, const long *dim, wg_elem elem,
                   sc_error *err);

/* An operator prototype for wg_add: every attribute zero but its name
 * (truncated to fit), kind and function. */
wg_op wg_op_make(const char *name, wg_kind kind, wg_fn fn);

/* Add an operator to the open block: `proto` gives kind, fn, tp, name
 * and attributes (and optional presets, see wg_op); its inputs are the
 * tensors named in[0..n_in) of this block, its output the new tensor
 * `out`, whose shape wg_add infers. Checks that the inputs exist
 * ("dangling"), that their shapes fit the kind ("shape mismatch") and
 * that the output name is new. SC_OK, SC_EINPUT or SC_ENOMEM; on error
 * nothing is added. */
int wg_add(wg_graph *g, const wg_op *proto, const char *const *in, int n_in,
           const char *out, sc_error *err);

/* Close the open block with `output` as its output tensor. */
int wg_block_end(wg_graph *g, const char *output, sc_error *err);

/* Check the whole graph: at least one LAYER block, FIRST blocks before
 * and LAST blocks after the layers, every tensor used (no dangling
 * outputs), and fill layers and model_flops. SC_OK or SC_EINPUT. */
int wg_finalize(wg_graph *g, sc_error *err);

/* Index of the tensor `name` in block b, -1 if none. */
int wg_find_tensor(const wg_graph *g, int b, const char *name);

/* Elements of a tensor per sample. */
double wg_tensor_elems(const wg_tensor *t);

/* Parameter tensors (variables) of an operator with parameters: weight
 * (+ bias); norms: scale and shift (RMSNorm, or a batch norm without
 * scale: one); an embedding's table (+ its learned positions). */
int wg_op_tensors(const wg_op *o);

/* Bytes of one element of class `elem` when activations take `act` bytes. */
double wg_elem_bytes(wg_elem elem, double act);

/* Parameters of one instance of block b, and of the whole model. */
double wg_block_params(const wg_graph *g, int b);
double wg_params(const wg_graph *g);

/* The LAYER block holding layer index `layer` (0-based over the
 * instances of every LAYER block in order), -1 when out of range. */
int wg_layer_block(const wg_graph *g, int layer);

#endif /* SC_GRAPH_H */
