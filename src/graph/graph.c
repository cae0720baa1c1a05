/*
 * graph.c -- building and checking workload graphs; see graph.h.
 *
 * Defaults per operator kind. The framework calls (host_fwd, host_bwd),
 * backward factors and memory traffic follow Megatron-LM's GPT layer
 * (megatron/model/transformer.py, 2021-2023), counted by hand:
 *
 *   op                  calls fwd/bwd  traffic (bytes / element)  bwd
 *   linear                2 / 4        (GEMM)                     2 GEMMs
 *   layernorm, rmsnorm    2 / 3        2e                         2.0
 *   gelu, relu, swiglu    2 / 2        2e (swiglu: 3e per output) 2.0
 *   bias-dropout-add      3 / 4        3e + 1 (the mask)          1.0
 *   dropout               4 / 2        2e + 1                     1.0
 *   softmax               3 / 2        2e                         1.5
 *   rope                  4 / 4        2e on q and k              1.0
 *   embedding             2 / 2        2e (+ learned pos.: 5e, 4/4) 2.0
 *   cross entropy         8 / 8        e + 12 (fp32 max, exp, sum) 0.5
 *   MoE route             6 / 6        2e                         2.0
 *   MoE unroute           3 / 3        2e                         2.0
 *
 * Saved for backward (Korthikanti et al. 2022, Sec. 4): a linear layer
 * keeps its input, a norm its input, GELU/SwiGLU their input, softmax its
 * output, dropout and bias-dropout-add their 1-byte mask, attention q, k
 * and v (and, when the plan runs it unfused, the scores: softmax output,
 * dropout mask and dropout output, which selective recomputation drops),
 * the loss the fp32 softmax of its logits.
 *
 * With no_dropout (a dropout rate of 0) attention and bias-dropout-add
 * keep no mask: PyTorch's dropout returns its input when p is 0 (torch/
 * _refs/nn/functional/__init__.py, "if p == 0: return a", Debian's
 * python3-torch 1.13; ATen's _dropout_impl likewise, its fused
 * native_dropout kernel only for 0 < p < 1), so the unfused attention
 * keeps only the softmax output (which the AV matmul reads) and
 * bias-dropout-add is a residual add, 3e bytes.
 */
#include "graph/graph.h"

#include <assert.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "core/mem.h"
#include "core/vec.h"

static const char *const kind_names[WG_KIND_COUNT] = {
    "linear", "matmul", "attention", "conv2d", "pool", "norm", "eltwise",
    "embedding", "interaction", "loss", "moe_route", "moe_unroute"};

static const char *const fn_names[WG_FN_COUNT] = {
    "none", "gelu", "swiglu", "relu", "dropout", "add", "bias_dropout_add", "rope",
    "softmax", "scale", "layernorm", "rmsnorm", "batchnorm", "max", "avg",
    "cross_entropy", "concat", "concat_channels", "slice"};

static const char *const tp_names[] = {"none", "column", "row", "vocab", "heads"};

const char *wg_kind_name(wg_kind k) {
  assert(k >= 0 && k < WG_KIND_COUNT);
  return kind_names[k];
}

const char *wg_fn_name(wg_fn f) {
  assert(f >= 0 && f < WG_FN_COUNT);
  return fn_names[f];
}

const char *wg_tp_name(wg_tp t) {
  assert(t >= WG_TP_NONE && t <= WG_TP_HEADS);
  return tp_names[t];
}

/* ---------------------------------------------------------- lifecycle */

wg_graph *wg_new(const char *name, long seq) {
  wg_graph *g = mem_calloc(1, sizeof *g);
  if (!g) return NULL;
  snprintf(g->name, sizeof g->name, "%s", name ? name : "");
  g->seq = seq;
  g->opt.bytes_per_param = 34.0;      /* Adam (model/optimizer.c) */
  g->opt.state_bytes_per_param = 8.0; /* its two fp32 moments */
  return g;
}

void wg_free(wg_graph *g) {
  if (!g) return;
  mem_free(g->ops);
  mem_free(g->tensors);
  mem_free(g->blocks);
  mem_free(g);
}

double wg_tensor_elems(const wg_tensor *t) {
  double n = 1;
  for (int i = 0; i < t->rank; i++) n *= (double)t->dim[i];
  return n;
}

int wg_op_tensors(const wg_op *o) {
  if (o->kind == WG_NORM) return o->fn == WG_FN_RMSNORM || o->no_scale ? 1 : 2;
  if (o->kind == WG_EMBEDDING) return o->positions ? 2 : 1;
  return o->bias ? 2 : 1;
}

double wg_elem_bytes(wg_elem elem, double act) {
  switch (elem) {
  case WG_ELEM_ACT: return act;
  case WG_ELEM_FP32: return 4;
  case WG_ELEM_INT: return 8;
  case WG_ELEM_MASK: return 1;
  }
  return act;
}

int wg_find_tensor(const wg_graph *g, int b, const char *name) {
  for (int i = g->n_tensors - 1; i >= 0; i--)
    if (g->tensors[i].block == b && !strcmp(g->tensors[i].name, name)) return i;
  return -1;
}

/* "d0 x d1 x ..." of t into buf. */
static void shape_str(const wg_tensor *t, char *buf, size_t cap) {
  size_t len = 0;
  buf[0] = '\0';
  for (int i = 0; i < t->rank && len < cap; i++)
    len += (size_t)snprintf(buf + len, cap - len, "%s%ld", i ? " x " : "[", t->dim[i]);
  if (len < cap) snprintf(buf + len, cap - len, "]");
}

static int new_tensor(wg_graph *g, const char *name, int rank, const long *dim,
                      wg_elem elem, int producer, sc_error *err) {
  if (vec_grow((void **)&g->tensors, &g->cap_tensors, (long)g->n_tensors + 1,
               sizeof *g->tensors))
    return -sc_error_set(err, SC_ENOMEM, "out of memory adding tensor '%s'", name);
  wg_tensor *t = &g->tensors[g->n_tensors];
  memset(t, 0, sizeof *t);
  snprintf(t->name, sizeof t->name, "%s", name);
  t->rank = rank;
  for (int i = 0; i < rank; i++) t->dim[i] = dim[i];
  t->elem = elem;
  t->producer = producer;
  t->block = g->n_blocks - 1;
  return g->n_tensors++;
}

/* ------------------------------------------------------------- blocks */

#ifndef NDEBUG /* used in assert()s only */
static int open_block(const wg_graph *g) {
  return g->n_blocks > 0 && g->blocks[g->n_blocks - 1].output < 0;
}
#endif

int wg_block_begin(wg_graph *g, const char *name, wg_role role, int count,
                   const char *input, int rank, const long *dim, wg_elem elem,
                   sc_error *err) {
  assert(!open_block(g) && !g->finalized);
  if (count < 1)
    return sc_error_set(err, SC_EINPUT, "block '%s': repeat %d is invalid (valid: >= 1)", name,
                        count);
  if (rank < 1 || rank > WG_MAX_RANK)
    return sc_error_set(err, SC_EINPUT, "block '%s': input '%s' has %d dimensions (valid: 1..%d)",
                        name, input, rank, WG_MAX_RANK);
  for (int i = 0; i < rank; i++)
    if (dim[i] < 1 || dim[i] > WG_MAX_DIM)
      return sc_error_set(err, SC_EINPUT,
                          "block '%s': input '%s' dimension %d is %ld (valid: 1..2^40)", name,
                          input, i, dim[i]);
  if (g->n_blocks > 0) {
    const wg_tensor *prev = &g->tensors[g->blocks[g->n_blocks - 1].output];
    int same = prev->rank == rank;
    for (int i = 0; same && i < rank; i++) same = prev->dim[i] == dim[i];
    if (!same) {
      char a[64], b[64];
      wg_tensor t = {.rank = rank};
      for (int i = 0; i < rank; i++) t.dim[i] = dim[i];
      shape_str(prev, a, sizeof a);
      shape_str(&t, b, sizeof b);
      return sc_error_set(err, SC_EINPUT,
                          "block '%s': shape mismatch: input '%s' is %s but the previous "
                          "block's output '%s' is %s",
                          name, input, b, prev->name, a);
    }
  }
  if (vec_grow((void **)&g->blocks, &g->cap_blocks, (long)g->n_blocks + 1, sizeof *g->blocks))
    return sc_error_set(err, SC_ENOMEM, "out of memory adding block '%s'", name);
  wg_block *b = &g->blocks[g->n_blocks++];
  memset(b, 0, sizeof *b);
  snprintf(b->name, sizeof b->name, "%s", name);
  b->role = role;
  b->count = count;
  b->first_op = g->n_ops;
  b->output = -1;
  int t = new_tensor(g, input, rank, dim, elem, -1, err);
  if (t < 0) {
    g->n_blocks--;
    return -t;
  }
  b->input = t;
  return SC_OK;
}

int wg_block_end(wg_graph *g, const char *output, sc_error *err) {
  assert(open_block(g));
  wg_block *b = &g->blocks[g->n_blocks - 1];
  int t = wg_find_tensor(g, g->n_blocks - 1, output);
  if (t < 0)
    return sc_error_set(err, SC_EINPUT,
                        "block '%s': output '%s' is not a tensor of the block (dangling)",
                        b->name, output);
  if (g->tensors[t].elem != WG_ELEM_ACT && b->role != WG_ROLE_LAST)
    return sc_error_set(err, SC_EINPUT,
                        "block '%s': output '%s' must be an activation to feed the next block",
                        b->name, output);
  b->output = t;
  b->n_ops = g->n_ops - b->first_op;
  if (b->n_ops == 0)
    return sc_error_set(err, SC_EINPUT, "block '%s' has no operators", b->name);
  return SC_OK;
}

/* ------------------------------------------------ shapes of each kind */

/* What wg_add works on: the operator, its inputs and the output shape. */
typedef struct add_ctx {
  wg_op *o;
  const wg_tensor *in[WG_MAX_IN];
  int rank;
  long dim[WG_MAX_RANK];
  wg_elem elem;
  sc_error *err;
} add_ctx;

#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
static int bad(add_ctx *c, const char *fmt, ...) {
  char text[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(text, sizeof text, fmt, ap);
  va_end(ap);
  return sc_error_set(c->err, SC_EINPUT, "op '%s' (%s): %s", c->o->name,
                      c->o->kind == WG_ELTWISE || c->o->kind == WG_NORM ||
                              c->o->kind == WG_LOSS || c->o->kind == WG_POOL
                          ? wg_fn_name(c->o->fn)
                          : wg_kind_name(c->o->kind),
                      text);
}

/* Require `n` inputs (or at least n with `more`). */
static int arity(add_ctx *c, int n, int more) {
  int got = c->o->n_in;
  if (got == n || (more && got > n)) return SC_OK;
  return bad(c, "takes %s%d input%s, got %d", more ? "at least " : "", n, n == 1 ? "" : "s", got);
}

static void same_shape(add_ctx *c, const wg_tensor *t) {
  c->rank = t->rank;
  for (int i = 0; i < t->rank; i++) c->dim[i] = t->dim[i];
}

static int mismatch(add_ctx *c, int i, const char *want) {
  char got[64];
  shape_str(c->in[i], got, sizeof got);
  return bad(c, "shape mismatch: input '%s' is %s; %s", c->in[i]->name, got, want);
}

static long last(const wg_tensor *t) { return t->dim[t->rank - 1]; }

/* a * b of sizes a, b >= 0, saturated at LONG_MAX: attributes and shapes
 * come from user files, and an output dimension above WG_MAX_DIM is
 * reported by wg_add instead of overflowing. */
static long mul_dim(long a, long b) { return b && a > LONG_MAX / b ? LONG_MAX : a * b; }

/* Rows of a tensor: the product of all dimensions but the last. */
static double rows(const wg_tensor *t) { return wg_tensor_elems(t) / (double)last(t); }

static int shape_linear(add_ctx *c) {
  wg_op *o = c->o;
  const wg_tensor *x = c->in[0];
  if (arity(c, 1, 0)) return SC_EINPUT;
  if (o->features < 1) return bad(c, "needs out_features >= 1");
  if (o->in_features && last(x) != o->in_features) {
    char want[96];
    snprintf(want, sizeof want, "the layer has in_features %ld (the last dimension)",
             o->in_features);
    return mismatch(c, 0, want);
  }
  if (o->expert && o->experts < 1) return bad(c, "an expert layer needs experts >= 1");
  same_shape(c, x);
  c->dim[c->rank - 1] = o->features;
  double k = (double)last(x), n = (double)o->features, m = rows(x);
  o->flops = o->model_flops = 2.0 * m * n * k;
  o->params = (k * n + (o->bias ? n : 0)) * (o->expert ? (double)o->experts : 1);
  o->saved = WG_SAVE_IN(0);
  return SC_OK;
}

static int shape_matmul(add_ctx *c) {
  if (arity(c, 2, 0)) return SC_EINPUT;
  const wg_tensor *a = c->in[0], *b = c->in[1];
  if (a->rank != 3) return mismatch(c, 0, "matmul wants [groups, m, k]");
  if (b->rank != 3 || b->dim[0] != a->dim[0] || b->dim[1] != a->dim[2])
    return mismatch(c, 1, "matmul wants [groups, k, n] with the groups and k of the first input");
  c->rank = 3;
  c->dim[0] = a->dim[0], c->dim[1] = a->dim[1], c->dim[2] = b->dim[2];
  c->o->flops = c->o->model_flops =
      2.0 * (double)a->dim[0] * (double)a->dim[1] * (double)a->dim[2] * (double)b->dim[2];
  c->o->saved = WG_SAVE_IN(0) | WG_SAVE_IN(1);
  return SC_OK;
}

/* q, k and v packed along the last dimension of [s, (h + 2 kv) d]. */
static int packed_qkv(add_ctx *c) {
  wg_op *o = c->o;
  const wg_tensor *x = c->in[0];
  if (o->heads < 1 || o->head_dim < 1) return bad(c, "needs heads >= 1 and head_dim >= 1");
  if (o->kv_heads == 0) o->kv_heads = o->heads;
  if (o->kv_heads < 1 || o->heads % o->kv_heads)
    return bad(c, "kv_heads %ld must divide heads %ld", o->kv_heads, o->heads);
  if (o->heads > WG_MAX_DIM || o->head_dim > WG_MAX_DIM)
    return bad(c, "heads and head_dim must be at most 2^40");
  if (o->v_head_dim < 0 || o->v_head_dim > WG_MAX_DIM)
    return bad(c, "v_head_dim must be 0..2^40 (0 = head_dim)");
  long dv = o->v_head_dim > 0 ? o->v_head_dim : o->head_dim;
  long want = mul_dim(o->heads + o->kv_heads, o->head_dim) + mul_dim(o->kv_heads, dv);
  if (x->rank != 2 || last(x) != want) {
    char w[192];
    snprintf(w, sizeof w,
             "wants packed q, k, v [seq, (heads + kv_heads) head_dim + kv_heads v_head_dim] = "
             "[%ld, %ld]",
             x->dim[0], want);
    return mismatch(c, 0, w);
  }
  return SC_OK;
}

static int shape_attention(add_ctx *c) {
  wg_op *o = c->o;
  if (arity(c, 1, 0) || packed_qkv(c)) return SC_EINPUT;
  double s = (double)c->in[0]->dim[0], h = (double)o->heads, d = (double)o->head_dim;
  double dv = o->v_head_dim > 0 ? (double)o->v_head_dim : d;
  c->rank = 2;
  c->dim[0] = c->in[0]->dim[0];
  c->dim[1] = mul_dim(o->heads, o->v_head_dim > 0 ? o->v_head_dim : o->head_dim);
  /* QK^T (2 s s d) and AV (2 s s dv) FLOPs per head; a causal mask skips
   * half of them */
  o->model_flops = 2.0 * h * s * s * (d + dv);
  o->flops = o->model_flops * (o->causal ? 0.5 : 1.0);
  o->bwd_scale = o->bwd_scale > 0 ? o->bwd_scale : 2.5; /* FA2: 5 matmuls vs 2 */
  o->saved = WG_SAVE_IN(0);
  /* unfused kernels keep the scores: softmax output, dropout mask and
   * dropout output, 2e + 1 bytes each, dropped by selective recompute
   * (Megatron's core_attn module) */
  o->saved_elems = h * s * s;
  o->saved_e = 2, o->saved_b = 1;
  if (o->no_dropout) o->saved_e = 1, o->saved_b = 0; /* the softmax output alone */
  o->recmod |= SC_RECMOD_CORE_ATTN;
  return SC_OK;
}

static long conv_out(long in, int kernel, int stride, int pad) {
  return (in + 2L * pad - kernel) / stride + 1;
}

/* The kernel width and width padding of a conv or pool (square unless
 * kernel_w is set). */
static int kernel_w(const wg_op *o) { return o->kernel_w > 0 ? o->kernel_w : o->kernel; }
static int pad_w(const wg_op *o) { return o->kernel_w > 0 ? o->pad_w : o->pad; }

static int shape_conv_pool(add_ctx *c) {
  wg_op *o = c->o;
  const wg_tensor *x = c->in[0];
  if (arity(c, 1, 0)) return SC_EINPUT;
  if (x->rank != 3) return mismatch(c, 0, "wants [channels, height, width]");
  int global = o->kind == WG_POOL && o->kernel == 0;
  if (!global) {
    if (o->stride == 0) o->stride = 1;
    if (o->kernel < 1 || o->stride < 1 || o->pad < 0 || o->kernel_w < 0 || o->pad_w < 0)
      return bad(c, "needs kernel >= 1, stride >= 1, pad >= 0 (kernel_w, pad_w >= 0)");
    if (o->kernel > x->dim[1] + 2L * o->pad || kernel_w(o) > x->dim[2] + 2L * pad_w(o))
      return mismatch(c, 0, "the kernel is larger than the padded input");
  }
  long hh = global ? 1 : conv_out(x->dim[1], o->kernel, o->stride, o->pad);
  long ww = global ? 1 : conv_out(x->dim[2], kernel_w(o), o->stride, pad_w(o));
  c->rank = 3;
  c->dim[0] = o->kind == WG_CONV ? o->features : x->dim[0];
  c->dim[1] = hh, c->dim[2] = ww;
  if (o->kind == WG_CONV) {
    if (o->features < 1) return bad(c, "needs out_channels >= 1");
    double kk = (double)o->kernel * kernel_w(o) * (double)x->dim[0];
    o->flops = o->model_flops = 2.0 * (double)o->features * kk * (double)hh * (double)ww;
    o->params = (double)o->features * kk + (o->bias ? (double)o->features : 0);
    o->saved = WG_SAVE_IN(0);
    return SC_OK;
  }
  o->elems = wg_tensor_elems(x) + (double)x->dim[0] * (double)hh * (double)ww;
  o->traffic_e = o->traffic_e > 0 ? o->traffic_e : 1;
  o->saved = WG_SAVE_IN(0);
  return SC_OK;
}

static int shape_norm(add_ctx *c) {
  wg_op *o = c->o;
  const wg_tensor *x = c->in[0];
  if (arity(c, 1, 0)) return SC_EINPUT;
  if (o->fn != WG_FN_LAYERNORM && o->fn != WG_FN_RMSNORM && o->fn != WG_FN_BATCHNORM)
    return bad(c, "is not a normalisation (valid: layernorm, rmsnorm, batchnorm)");
  same_shape(c, x);
  double ch = o->fn == WG_FN_BATCHNORM ? (double)x->dim[0] : (double)last(x);
  o->params = o->fn == WG_FN_RMSNORM || o->no_scale ? ch : 2 * ch;
  o->elems = wg_tensor_elems(x);
  o->traffic_e = o->traffic_e > 0 ? o->traffic_e : 2;
  o->saved = WG_SAVE_IN(0);
  return SC_OK;
}

/* Inputs [c_i, h, w] with the same h and w: the output has sum c_i
 * channels. */
static int concat_channels(add_ctx *c) {
  const wg_tensor *x = c->in[0];
  if (x->rank != 3) return mismatch(c, 0, "concat_channels wants [channels, height, width]");
  long ch = 0;
  for (int i = 0; i < c->o->n_in; i++) {
    const wg_tensor *t = c->in[i];
    if (t->rank != 3 || t->dim[1] != x->dim[1] || t->dim[2] != x->dim[2]) {
      char want[128];
      snprintf(want, sizeof want, "concat_channels wants the height and width of '%s', %ld x %ld",
               x->name, x->dim[1], x->dim[2]);
      return mismatch(c, i, want);
    }
    ch += t->dim[0];
  }
  c->dim[0] = ch;
  return SC_OK;
}

/* Element-wise functions: shapes, traffic, what backward keeps. */
static int shape_eltwise(add_ctx *c) {
  wg_op *o = c->o;
  const wg_tensor *x = c->in[0];
  double e = 2, b = 0; /* traffic coefficients */
  same_shape(c, x);
  double elems = wg_tensor_elems(x);
  switch (o->fn) {
  case WG_FN_GELU:
  case WG_FN_RELU:
    if (arity(c, 1, 0)) return SC_EINPUT;
    o->saved = WG_SAVE_IN(0);
    break;
  case WG_FN_SWIGLU:
    if (arity(c, 1, 0)) return SC_EINPUT;
    if (last(x) % 2) return mismatch(c, 0, "swiglu wants an even last dimension (gate and up)");
    c->dim[c->rank - 1] = last(x) / 2;
    elems /= 2, e = 3;
    o->saved = WG_SAVE_IN(0);
    break;
  case WG_FN_DROPOUT:
    if (arity(c, 1, 0)) return SC_EINPUT;
    b = 1;
    o->saved_elems = elems, o->saved_b = 1;
    o->linear_fn = 1;
    break;
  case WG_FN_SCALE:
    if (arity(c, 1, 0)) return SC_EINPUT;
    o->linear_fn = 1;
    break;
  case WG_FN_SOFTMAX:
    if (arity(c, 1, 0)) return SC_EINPUT;
    o->saved = WG_SAVE_OUT;
    break;
  case WG_FN_ROPE:
    if (arity(c, 1, 0) || packed_qkv(c)) return SC_EINPUT;
    elems = (double)x->dim[0] * (double)(o->heads + o->kv_heads) * (double)o->head_dim;
    break;
  case WG_FN_ADD:
  case WG_FN_BIAS_DROPOUT_ADD:
    if (arity(c, 2, 0)) return SC_EINPUT;
    if (c->in[1]->rank != x->rank || memcmp(c->in[1]->dim, x->dim, sizeof(long) * (size_t)x->rank)) {
      char want[192];
      char a[64];
      shape_str(x, a, sizeof a);
      snprintf(want, sizeof want, "%s wants the shape of '%s', %s", wg_fn_name(o->fn), x->name, a);
      return mismatch(c, 1, want);
    }
    e = 3;
    if (o->fn == WG_FN_BIAS_DROPOUT_ADD && !o->no_dropout) {
      b = 1;
      o->saved_elems = elems, o->saved_b = 1;
    }
    break;
  case WG_FN_CONCAT:
    if (arity(c, 2, 0)) return SC_EINPUT;
    if (c->in[1]->rank != x->rank ||
        memcmp(c->in[1]->dim, x->dim, sizeof(long) * (size_t)(x->rank - 1))) {
      char want[160];
      snprintf(want, sizeof want, "concat wants the leading dimensions of '%s'", x->name);
      return mismatch(c, 1, want);
    }
    c->dim[c->rank - 1] = last(x) + last(c->in[1]);
    elems = wg_tensor_elems(x) + wg_tensor_elems(c->in[1]); /* read both, write them */
    o->linear_fn = 1;
    break;
  case WG_FN_CONCAT_CH:
    if (arity(c, 2, 1) || concat_channels(c)) return SC_EINPUT;
    elems = 0;
    for (int i = 0; i < o->n_in; i++) elems += wg_tensor_elems(c->in[i]);
    o->linear_fn = 1;
    break;
  case WG_FN_SLICE:
    if (arity(c, 1, 0)) return SC_EINPUT;
    if (o->rows < 1 || o->rows > x->dim[0]) {
      char want[96];
      snprintf(want, sizeof want, "slice keeps rows 1..%ld of dimension 0 (rows is %ld)",
               x->dim[0], o->rows);
      return mismatch(c, 0, want);
    }
    c->dim[0] = o->rows;
    elems = wg_tensor_elems(x) / (double)x->dim[0] * (double)o->rows;
    o->linear_fn = 1;
    break;
  default: return bad(c, "is not an element-wise function");
  }
  o->elems = elems;
  o->traffic_e = o->traffic_e > 0 ? o->traffic_e : e;
  o->traffic_b = o->traffic_b > 0 ? o->traffic_b : b;
  return SC_OK;
}

static int shape_embedding(add_ctx *c) {
  wg_op *o = c->o;
  if (arity(c, 1, 0)) return SC_EINPUT;
  if (o->vocab < 1 || o->features < 1) return bad(c, "needs vocab >= 1 and dim >= 1");
  const wg_tensor *ids = c->in[0];
  if (ids->rank >= WG_MAX_RANK) return mismatch(c, 0, "one dimension too many for the output");
  same_shape(c, ids);
  c->dim[c->rank++] = o->features;
  o->params = (double)(o->vocab + o->positions) * (double)o->features;
  o->elems = wg_tensor_elems(ids) * (double)o->features;
  /* gather (read, write); learned positions add a gather and an add */
  o->traffic_e = o->traffic_e > 0 ? o->traffic_e : (o->positions ? 5 : 2);
  return SC_OK;
}

static int shape_interaction(add_ctx *c) {
  const wg_tensor *x = c->in[0];
  if (arity(c, 1, 0)) return SC_EINPUT;
  if (x->rank != 2) return mismatch(c, 0, "wants [features, dim]");
  double f = (double)x->dim[0], d = (double)x->dim[1];
  c->rank = 1;
  c->dim[0] = mul_dim(x->dim[0], x->dim[0] - 1) / 2;
  if (c->dim[0] < 1) c->dim[0] = 1;
  c->o->flops = c->o->model_flops = 2.0 * f * f * d;
  c->o->saved = WG_SAVE_IN(0);
  return SC_OK;
}

static int shape_loss(add_ctx *c) {
  wg_op *o = c->o;
  if (arity(c, 1, 0)) return SC_EINPUT;
  if (o->fn != WG_FN_CROSS_ENTROPY) return bad(c, "is not a loss (valid: cross_entropy)");
  c->rank = 1;
  c->dim[0] = 1;
  c->elem = WG_ELEM_FP32;
  o->elems = wg_tensor_elems(c->in[0]);
  /* Megatron's vocab-parallel cross entropy on fp32 logits (GPT's loss
   * casts the logits with .float() unless --fp16-lm-cross-entropy;
   * megatron/core/tensor_parallel/cross_entropy.py), bytes per logit:
   * the cast reads e and writes 4, max reads 4, the in-place subtraction
   * of the max, exp and division by the sum each read and write 4, the
   * sum reads 4: e + 36. Backward (bwd_scale, host_defaults): the in-place
   * scaling of the saved softmax by the loss gradient (8) and the cast
   * back (4 + e) */
  o->traffic_e = o->traffic_e > 0 ? o->traffic_e : 1;
  o->traffic_b = o->traffic_b > 0 ? o->traffic_b : 36;
  /* its fp32 softmax; the 16-bit logits are dropped after forward
   * (Megatron's GPT forward returns the loss alone; the backward's
   * 16-bit gradient is a transient, lower.c loss_bwd_extra) */
  o->saved_elems = o->elems;
  o->saved_e = 0, o->saved_b = 4;
  return SC_OK;
}

static int shape_route(add_ctx *c) {
  wg_op *o = c->o;
  const wg_tensor *x = c->in[0];
  if (o->n_in != 1 && (o->kind == WG_UNROUTE || o->n_in != 2))
    return bad(c, "takes %s, got %d inputs",
               o->kind == WG_ROUTE ? "the tokens and optionally the router scores" : "1 input",
               o->n_in);
  if (o->experts < 2 || o->topk < 1 || o->topk > o->experts)
    return bad(c, "needs experts >= 2 and 1 <= topk <= experts");
  if (x->rank != 2) return mismatch(c, 0, "wants tokens [seq, hidden]");
  if (o->n_in == 2 && (c->in[1]->rank != 2 || c->in[1]->dim[0] != x->dim[0] ||
                       c->in[1]->dim[1] != o->experts)) {
    char want[96];
    snprintf(want, sizeof want, "the router scores are [seq, experts] = [%ld, %ld]", x->dim[0],
             o->experts);
    return mismatch(c, 1, want);
  }
  same_shape(c, x);
  if (o->kind == WG_ROUTE) {
    c->dim[0] = mul_dim(x->dim[0], o->topk);
    o->elems = wg_tensor_elems(x) * (double)o->topk;
  } else {
    if (x->dim[0] % o->topk) return mismatch(c, 0, "wants [seq * topk, hidden]");
    c->dim[0] = x->dim[0] / o->topk;
    o->elems = wg_tensor_elems(x);
    o->linear_fn = 1;
  }
  o->traffic_e = o->traffic_e > 0 ? o->traffic_e : 2;
  return SC_OK;
}

/* Framework calls and backward factor of an operator kind. */
static void host_defaults(wg_op *o) {
  int f = 2, b = 4;
  double bs = 2.0;
  switch (o->kind) {
  case WG_LINEAR: case WG_CONV: f = 2, b = 4; break;
  case WG_MATMUL: case WG_INTERACTION: f = 2, b = 3; break;
  case WG_ATTENTION: f = 3, b = 3, bs = 2.5; break;
  case WG_NORM: f = 2, b = 3; break;
  case WG_POOL: f = 2, b = 2; break;
  case WG_EMBEDDING: f = b = o->positions ? 4 : 2; break;
  case WG_LOSS: f = b = 8, bs = 14.0 / 38.0; break; /* shape_loss, 16-bit logits */
  case WG_ROUTE: f = b = 6; break;
  case WG_UNROUTE: f = b = 3; break;
  case WG_ELTWISE:
    switch (o->fn) {
    case WG_FN_BIAS_DROPOUT_ADD: f = 3, b = 4, bs = 1.0; break;
    case WG_FN_DROPOUT: f = 4, b = 2, bs = 1.0; break;
    case WG_FN_SOFTMAX: f = 3, b = 2, bs = 1.5; break;
    case WG_FN_ROPE: f = b = 4, bs = 1.0; break;
    case WG_FN_ADD: case WG_FN_SCALE: case WG_FN_CONCAT: case WG_FN_CONCAT_CH:
    case WG_FN_SLICE: f = b = 1, bs = 1.0; break;
    default: f = b = 2; break;
    }
    break;
  default: break;
  }
  if (o->host_fwd <= 0) o->host_fwd = f;
  if (o->host_bwd <= 0) o->host_bwd = b;
  if (o->bwd_scale <= 0) o->bwd_scale = bs;
}

static int shape_of(add_ctx *c) {
  switch (c->o->kind) {
  case WG_LINEAR: return shape_linear(c);
  case WG_MATMUL: return shape_matmul(c);
  case WG_ATTENTION: return shape_attention(c);
  case WG_CONV: case WG_POOL: return shape_conv_pool(c);
  case WG_NORM: return shape_norm(c);
  case WG_ELTWISE: return shape_eltwise(c);
  case WG_EMBEDDING: return shape_embedding(c);
  case WG_INTERACTION: return shape_interaction(c);
  case WG_LOSS: return shape_loss(c);
  case WG_ROUTE: case WG_UNROUTE: return shape_route(c);
  default: return bad(c, "unknown kind");
  }
}

/* Names of the block's tensors so far, for a "dangling" message. */
static void tensor_list(const wg_graph *g, int b, char *buf, size_t cap) {
  size_t len = 0;
  buf[0] = '\0';
  for (int i = 0; i < g->n_tensors && len + 8 < cap; i++)
    if (g->tensors[i].block == b)
      len += (size_t)snprintf(buf + len, cap - len, "%s%s", len ? ", " : "", g->tensors[i].name);
}

int wg_add(wg_graph *g, const wg_op *proto, const char *const *in, int n_in,
           const char *out, sc_error *err) {
  assert(open_block(g) && proto && n_in >= 0 && n_in <= WG_MAX_IN);
  int b = g->n_blocks - 1;
  wg_op o = *proto;
  add_ctx c = {.o = &o, .err = err, .elem = WG_ELEM_ACT};
  o.n_in = n_in;
  o.block = b;
  if (!o.name[0]) return sc_error_set(err, SC_EINPUT, "an operator of block '%s' has no name",
                                      g->blocks[b].name);
  if ((unsigned)o.kind >= WG_KIND_COUNT) return bad(&c, "unknown kind");
  if (n_in < 1) return bad(&c, "takes at least one input");
  for (int i = 0; i < n_in; i++) {
    int t = wg_find_tensor(g, b, in[i]);
    if (t < 0) {
      char have[256];
      tensor_list(g, b, have, sizeof have);
      return bad(&c, "input '%s' is dangling: no earlier operator of block '%s' produces it "
                     "(tensors so far: %s)", in[i], g->blocks[b].name, have);
    }
    o.in[i] = t;
    c.in[i] = &g->tensors[t];
    if (c.in[i]->elem == WG_ELEM_FP32 && c.in[i]->rank == 1 && c.in[i]->dim[0] == 1 &&
        c.in[i]->producer >= 0 && g->ops[c.in[i]->producer].kind == WG_LOSS)
      return bad(&c, "input '%s' is a loss: nothing may follow it", in[i]);
  }
  if (o.kind != WG_EMBEDDING)
    for (int i = 0; i < n_in; i++)
      if (c.in[i]->elem == WG_ELEM_INT)
        return bad(&c, "input '%s' holds ids; only an embedding reads ids", c.in[i]->name);
  if (wg_find_tensor(g, b, out) >= 0)
    return bad(&c, "output '%s' already exists in block '%s' (every tensor is produced once)",
               out, g->blocks[b].name);
  int rc = shape_of(&c);
  if (rc != SC_OK) return rc;
  for (int i = 0; i < c.rank; i++)
    if (c.dim[i] < 1 || c.dim[i] > WG_MAX_DIM)
      return bad(&c, "the output would have dimension %d of size %ld (valid: 1..2^40)", i,
                 c.dim[i]);
  host_defaults(&o);
  if (vec_grow((void **)&g->ops, &g->cap_ops, (long)g->n_ops + 1, sizeof *g->ops))
    return sc_error_set(err, SC_ENOMEM, "out of memory adding op '%s'", o.name);
  int t = new_tensor(g, out, c.rank, c.dim, c.elem, g->n_ops, err);
  if (t < 0) return -t;
  o.out = t;
  for (int i = 0; i < n_in; i++) g->tensors[o.in[i]].uses++;
  g->ops[g->n_ops++] = o;
  return SC_OK;
}

/* ----------------------------------------------------------- finalize */

static int check_roles(const wg_graph *g, sc_error *err) {
  int stage = 0; /* 0 first blocks, 1 layers, 2 last blocks */
  for (int i = 0; i < g->n_blocks; i++) {
    const wg_block *b = &g->blocks[i];
    int want = b->role == WG_ROLE_FIRST ? 0 : b->role == WG_ROLE_LAYER ? 1 : 2;
    if (want < stage)
      return sc_error_set(err, SC_EINPUT,
                          "block '%s': a %s block cannot follow a %s block (order: first "
                          "blocks, layers, last blocks)",
                          b->name, want == 0 ? "first" : "layer",
                          stage == 1 ? "layer" : "last");
    if (b->role != WG_ROLE_LAYER && b->count != 1)
      return sc_error_set(err, SC_EINPUT, "block '%s': a %s block runs once (repeat 1, got %d)",
                          b->name, want == 0 ? "first" : "last", b->count);
    stage = want;
  }
  return SC_OK;
}

static int check_uses(const wg_graph *g, sc_error *err) {
  for (int i = 0; i < g->n_tensors; i++) {
    const wg_tensor *t = &g->tensors[i];
    const wg_block *b = &g->blocks[t->block];
    if (t->uses > 0 || b->output == i) continue;
    if (t->producer >= 0 && g->ops[t->producer].kind == WG_LOSS) continue;
    if (t->producer < 0)
      return sc_error_set(err, SC_EINPUT, "block '%s': input '%s' is never used", b->name,
                          t->name);
    return sc_error_set(err, SC_EINPUT,
                        "block '%s': tensor '%s' (output of op '%s') is dangling: nothing "
                        "reads it; use it or make it the block's output",
                        b->name, t->name, g->ops[t->producer].name);
  }
  return SC_OK;
}

int wg_finalize(wg_graph *g, sc_error *err) {
  assert(!open_block(g));
  int rc;
  if ((rc = check_roles(g, err)) || (rc = check_uses(g, err))) return rc;
  g->layers = 0;
  double mf = 0;
  for (int i = 0; i < g->n_blocks; i++) {
    const wg_block *b = &g->blocks[i];
    if (b->role == WG_ROLE_LAYER) {
      if ((long)g->layers + b->count > 100000)
        return sc_error_set(err, SC_EINPUT, "block '%s': more than 100000 layers", b->name);
      g->layers += b->count;
    }
    for (int j = 0; j < b->n_ops; j++) mf += b->count * g->ops[b->first_op + j].model_flops;
  }
  if (g->layers == 0)
    return sc_error_set(err, SC_EINPUT,
                        "the graph has no layer block (a block with role \"layer\" is what "
                        "pipeline stages split)");
  if (g->model_flops <= 0) g->model_flops = 3.0 * mf; /* forward + 2x backward */
  g->finalized = 1;
  return SC_OK;
}

/* ------------------------------------------------------------ queries */

double wg_block_params(const wg_graph *g, int b) {
  double p = 0;
  const wg_block *bl = &g->blocks[b];
  for (int j = 0; j < bl->n_ops; j++)
    if (!g->ops[bl->first_op + j].tied) p += g->ops[bl->first_op + j].params;
  return p;
}

double wg_params(const wg_graph *g) {
  double p = 0;
  for (int b = 0; b < g->n_blocks; b++) {
    const wg_block *bl = &g->blocks[b];
    for (int j = 0; j < bl->n_ops; j++) {
      const wg_op *o = &g->ops[bl->first_op + j];
      if (!o->tied) p += bl->count * o->params;
    }
  }
  return p;
}

int wg_layer_block(const wg_graph *g, int layer) {
  if (layer < 0) return -1;
  for (int b = 0; b < g->n_blocks; b++) {
    if (g->blocks[b].role != WG_ROLE_LAYER) continue;
    if (layer < g->blocks[b].count) return b;
    layer -= g->blocks[b].count;
  }
  return -1;
}

wg_op wg_op_make(const char *name, wg_kind kind, wg_fn fn) {
  wg_op o;
  memset(&o, 0, sizeof o);
  snprintf(o.name, sizeof o.name, "%s", name);
  o.kind = kind;
  o.fn = fn;
  return o;
}
