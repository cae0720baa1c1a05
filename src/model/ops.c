/*
 * ops.c -- build the per-GPU operator list of a decoder-only transformer.
 *
 * The layer follows Megatron-LM's GPT layer: pre-norm, fused QKV
 * projection, attention core (flash or unfused baddbmm + fused
 * scale-mask-softmax + dropout + bmm), output projection, fused
 * bias-dropout-add, MLP (GELU or SwiGLU, or routed experts), bias-dropout-
 * add. Tensor parallelism splits heads and the MLP inner size; sequence
 * parallelism splits the norm/dropout region over the TP group and turns
 * each all-reduce into a reduce-scatter + all-gather pair; context
 * parallelism splits the sequence (keys/values travel around a ring).
 *
 * Host cost. An eager framework spends host time on every operator call,
 * views and autograd functions included, whether or not it launches a
 * kernel. Each op carries the number of framework calls its forward and
 * backward make (host_ops, host_bwd), counted from Megatron-LM's
 * ParallelTransformerLayer (megatron/model/transformer.py, 2021-2023):
 *
 *   op                 fwd  bwd  what the calls are
 *   norm                 2    3  FusedLayerNorm autograd fn + kernel
 *   linear (GEMM)        2    4  TP region fn + addmm; 2 mm + bias sum + grad acc
 *   qkv layout          13    6  view, split, 3 views, 2 transposes, empty, ...
 *     (flash)            5    3  view, split, rearrange
 *   baddbmm (QK^T)       2    3  baddbmm + view
 *   scale-mask-softmax   3    2  module checks + fused kernel
 *   attention dropout    4    2  RNG tracker fork (get/set state) + dropout
 *   bmm (AV)             4    3  views + bmm
 *   flash attention      3    3  autograd fn + kernel
 *   context layout       3    2  permute, contiguous, view
 *   bias-dropout-add     3    4  TorchScript fused fn
 *   activation           2    2  fused bias-GELU / SwiGLU
 *   collective           -    -  autograd fn + a torch.distributed call
 *
 * The host time per call is sc_gpu.launch_s; a collective costs one call
 * plus the measured host time of a c10d collective (cost/compute.c).
 */
#include <assert.h>
#include <string.h>

#include "model/ops.h"

/* Bytes of one activation element: GEMMs in fp8/fp4 still keep bf16
 * activations between kernels. */
static double act_bytes(sc_dtype d) {
  return (d == SC_FP32 || d == SC_TF32) ? 4.0 : 2.0;
}

/* Append an op and return it for the caller to fill in. */
static ops_op *push(ops_list *l, const char *name, ops_kind kind) {
  assert(l->n < OPS_MAX);
  ops_op *o = &l->op[l->n++];
  memset(o, 0, sizeof *o);
  o->name = name;
  o->kind = kind;
  o->batch = 1;
  o->host_ops = 2;
  o->host_bwd = 4;
  o->bwd_scale = 2.0;
  return o;
}

/* Set the framework calls of the last op pushed. */
static void host(ops_list *l, int fwd, int bwd) {
  l->op[l->n - 1].host_ops = fwd;
  l->op[l->n - 1].host_bwd = bwd;
}

static void gemm(ops_list *l, const char *name, double m, double n, double k,
                 double batch) {
  ops_op *o = push(l, name, OPS_GEMM);
  o->m = m;
  o->n = n;
  o->k = k;
  o->batch = batch;
  o->flops = 2.0 * m * n * k * batch;
}

static ops_op *mem(ops_list *l, const char *name, double bytes, int fwd_calls,
                   double bwd_scale) {
  ops_op *o = push(l, name, OPS_MEM);
  o->bytes = bytes;
  o->host_ops = fwd_calls;
  o->host_bwd = fwd_calls;
  o->bwd_scale = bwd_scale;
  return o;
}

static void comm(ops_list *l, const char *name, coll_op c, ops_group g,
                 double bytes) {
  ops_op *o = push(l, name, OPS_COMM);
  o->coll = c;
  o->group = g;
  o->bytes = bytes;
  o->host_ops = 2;
  o->host_bwd = 2;
}

/* Collective that closes a tensor-parallel region: all-reduce, or
 * reduce-scatter under sequence parallelism. */
static void tp_close(ops_list *l, const sc_plan *p, const char *ar,
                     const char *rs, double bytes) {
  if (p->tp <= 1) return;
  if (p->sp)
    comm(l, rs, COLL_REDUCE_SCATTER, OPS_GROUP_TP, bytes);
  else
    comm(l, ar, COLL_ALL_REDUCE, OPS_GROUP_TP, bytes);
}

/* Under sequence parallelism, gather the sequence before a TP region. */
static void tp_open(ops_list *l, const sc_plan *p, const char *name,
                    double bytes) {
  if (p->tp > 1 && p->sp) comm(l, name, COLL_ALL_GATHER, OPS_GROUP_TP, bytes);
}

/* Attention core: flash (one fused kernel) or the unfused sequence. */
static void attention(ops_list *l, const sc_scenario *s, double b, double sl) {
  const sc_model *m = &s->model;
  const sc_plan *p = &s->plan;
  double e = act_bytes(p->dtype);
  double hq = (double)m->heads / p->tp;        /* query heads on this GPU */
  double skv = (double)m->seq;                 /* keys seen, whole ring */
  double d = m->head_dim;
  if (p->cp > 1) {
    /* K and V chunks travel around the CP ring, hidden under attention. */
    double kvh = m->kv_heads >= p->tp ? (double)m->kv_heads / p->tp : 1.0;
    double chunk = 2.0 * b * sl * kvh * d * e;
    comm(l, "cp_kv_ring", COLL_SEND_RECV, OPS_GROUP_CP, chunk * (p->cp - 1));
  }
  if (p->flash_attention) {
    ops_op *o = push(l, "flash_attn", OPS_ATTN);
    o->batch = b * hq;
    o->sq = sl;
    o->skv = skv;
    o->d = d;
    o->causal = 1;
    o->flops = 4.0 * o->batch * sl * skv * d * 0.5;
    o->bwd_scale = 2.5;  /* FA2 backward: 5 matmuls against 2 forward */
    o->recompute_sel = 1;
    o->host_ops = 3;
    o->host_bwd = 3;
    return;
  }
  double scores = b * hq * sl * skv; /* elements of the score matrix */
  gemm(l, "attn_qk", sl, skv, d, b * hq);
  l->op[l->n - 1].recompute_sel = 1;
  host(l, 2, 3);
  /* fused scale-mask-softmax: read scores, write probabilities;
   * backward reads y and dy, writes dx */
  mem(l, "softmax", scores * e * 2, 3, 1.5)->recompute_sel = 1;
  host(l, 3, 2);
  /* dropout: read, write, 1-byte mask; backward reads dy and mask */
  mem(l, "attn_dropout", scores * (2 * e + 1), 4, 1.0)->recompute_sel = 1;
  host(l, 4, 2);
  gemm(l, "attn_av", sl, d, skv, b * hq);
  l->op[l->n - 1].recompute_sel = 1;
  host(l, 4, 3);
}

/* MLP: dense or routed experts. T = tokens on this GPU in the TP region. */
static void mlp(ops_list *l, const sc_scenario *s, double T, double Tn) {
  const sc_model *m = &s->model;
  const sc_plan *p = &s->plan;
  double e = act_bytes(p->dtype);
  double h = m->hidden, f = (double)m->ffn / p->tp;
  double up = m->act == SC_ACT_SWIGLU ? 2.0 * f : f;
  double act_rw = m->act == SC_ACT_SWIGLU ? 3.0 : 2.0; /* elements moved per f */
  double rows = T;
  double batch = 1;
  if (m->experts > 1) {
    double E = m->experts, k = m->topk > 0 ? m->topk : 1;
    double local = E / (p->ep > 0 ? p->ep : 1);   /* experts on this GPU */
    gemm(l, "router", T, E, h, 1);
    /* top-k, softmax, permutation of tokens into expert order */
    mem(l, "moe_permute", T * h * e * 2 * k, 6, 2.0);
    if (p->ep > 1)
      comm(l, "ep_dispatch", COLL_ALL_TO_ALL, OPS_GROUP_EP, T * k * h * e);
    rows = T * k / local;  /* balanced routing: rows per local expert */
    batch = local;
  }
  gemm(l, "fc1", rows, up, h, batch);
  mem(l, m->act == SC_ACT_SWIGLU ? "swiglu" : "bias_gelu",
      rows * batch * f * e * act_rw, 2, 2.0);
  gemm(l, "fc2", rows, h, f, batch);
  if (m->experts > 1) {
    double k = m->topk > 0 ? m->topk : 1;
    if (p->ep > 1)
      comm(l, "ep_combine", COLL_ALL_TO_ALL, OPS_GROUP_EP, T * k * h * e);
    mem(l, "moe_unpermute", T * h * e * 2 * k, 3, 2.0);
  }
  (void)Tn;
}

void ops_layer(const sc_scenario *s, long mb, ops_list *out) {
  const sc_model *m = &s->model;
  const sc_plan *p = &s->plan;
  double e = act_bytes(p->dtype);
  double b = (double)mb;
  double sl = (double)m->seq / p->cp;          /* local sequence */
  double T = b * sl;                           /* tokens in the TP region */
  double Tn = p->sp && p->tp > 1 ? T / p->tp : T; /* tokens outside it */
  double h = m->hidden, d = m->head_dim;
  double hq = (double)m->heads / p->tp;
  double hkv = m->kv_heads >= p->tp ? (double)m->kv_heads / p->tp : 1.0;

  out->n = 0;
  mem(out, "norm1", 2 * Tn * h * e, 2, 2.0);
  host(out, 2, 3);
  tp_open(out, p, "ag_attn", T * h * e);
  gemm(out, "qkv", T, (hq + 2 * hkv) * d, h, 1);
  if (m->pos == SC_POS_ROPE)
    mem(out, "rope", 2 * T * (hq + hkv) * d * e, 4, 1.0);
  /* split heads into the layout the attention kernels want */
  mem(out, "qkv_layout", 2 * T * (hq + 2 * hkv) * d * e, 5, 1.0);
  if (p->flash_attention) host(out, 5, 3);
  else host(out, 13, 6);
  attention(out, s, b, sl);
  mem(out, "ctx_layout", 2 * T * hq * d * e, 3, 1.0);
  host(out, 3, 2);
  gemm(out, "proj", T, h, hq * d, 1);
  tp_close(out, p, "ar_attn", "rs_attn", T * h * e);
  mem(out, "bias_dropout_add1", Tn * h * (3 * e + 1), 3, 1.0);
  host(out, 3, 4);
  mem(out, "norm2", 2 * Tn * h * e, 2, 2.0);
  host(out, 2, 3);
  tp_open(out, p, "ag_mlp", T * h * e);
  mlp(out, s, T, Tn);
  tp_close(out, p, "ar_mlp", "rs_mlp", T * h * e);
  mem(out, "bias_dropout_add2", Tn * h * (3 * e + 1), 3, 1.0);
  host(out, 3, 4);
}

void ops_embedding(const sc_scenario *s, long mb, ops_list *out) {
  const sc_model *m = &s->model;
  const sc_plan *p = &s->plan;
  double e = act_bytes(p->dtype);
  double T = (double)mb * m->seq / p->cp;
  double h = m->hidden;
  out->n = 0;
  /* vocab-parallel lookup (+ learned positions), embedding dropout;
   * backward: a scatter-add of the gradient into the fp32 table */
  int learned = m->pos == SC_POS_LEARNED;
  mem(out, "embed_lookup", T * h * e * (learned ? 5 : 2), learned ? 4 : 2, 2.0);
  tp_close(out, p, "ar_embed", "rs_embed", T * h * e);
}

void ops_head(const sc_scenario *s, long mb, ops_list *out) {
  const sc_model *m = &s->model;
  const sc_plan *p = &s->plan;
  double e = act_bytes(p->dtype);
  double T = (double)mb * m->seq / p->cp;
  double Tn = p->sp && p->tp > 1 ? T / p->tp : T;
  double h = m->hidden, v = (double)m->vocab / p->tp;
  out->n = 0;
  mem(out, "final_norm", 2 * Tn * h * e, 2, 2.0);
  tp_open(out, p, "ag_head", T * h * e);
  gemm(out, "logits", T, v, h, 1);
  /* vocab-parallel cross entropy: max, exp, sum, gather in fp32 over the
   * logits; backward writes the softmax gradient */
  mem(out, "cross_entropy", T * v * (e + 3 * 4), 8, 0.5);
  if (p->tp > 1) comm(out, "ar_loss", COLL_ALL_REDUCE, OPS_GROUP_TP, T * 4 * 3);
}

/* Parameters of the attention block, the MLP (all experts), the norms. */
double ops_layer_params(const sc_model *m) {
  double h = m->hidden, d = m->head_dim, a = m->heads, g = m->kv_heads;
  double attn = h * (a + 2 * g) * d + a * d * h;
  double per_mlp = (m->act == SC_ACT_SWIGLU ? 3.0 : 2.0) * h * m->ffn;
  double mlp = per_mlp;
  if (m->experts > 1) mlp = per_mlp * m->experts + h * m->experts;
  double norms = (m->norm == SC_NORM_LAYERNORM ? 4.0 : 2.0) * h;
  double bias = m->bias ? (a + 2 * g) * d + 2 * h +
                              (m->act == SC_ACT_SWIGLU ? 2.0 : 1.0) * m->ffn
                        : 0;
  return attn + mlp + norms + bias;
}

double ops_embedding_params(const sc_model *m) {
  double h = m->hidden;
  double p = (double)m->vocab * h;
  if (m->pos == SC_POS_LEARNED) p += (double)m->seq * h;
  if (!m->tied_embeddings) p += (double)m->vocab * h;
  return p + 2 * h; /* final norm */
}

double sc_model_params(const sc_model *m) {
  return m->layers * ops_layer_params(m) + ops_embedding_params(m);
}

double sc_model_active_params(const sc_model *m) {
  if (m->experts <= 1) return sc_model_params(m);
  double per_mlp = (m->act == SC_ACT_SWIGLU ? 3.0 : 2.0) * m->hidden * m->ffn;
  double k = m->topk > 0 ? m->topk : 1;
  double inactive = per_mlp * (m->experts - k);
  return sc_model_params(m) - m->layers * inactive;
}

/* 6 N T for the weights a token uses (input embedding lookups excluded,
 * the output projection included) + 12 l s (a d) T for attention scores,
 * as in Korthikanti et al. 2022 and PaLM's MFU. */
double ops_model_flops(const sc_model *m, double tokens) {
  double per_tok_layer = sc_model_active_params(m) - ops_embedding_params(m);
  double head = (double)m->vocab * m->hidden;
  double attn = 12.0 * m->layers * (double)m->seq * m->heads * m->head_dim;
  return tokens * (6.0 * (per_tok_layer + head) + attn);
}
