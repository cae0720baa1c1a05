/*
 * transformer.c -- the transformer builder: a decoder-only transformer
 * spec (sc_transformer) as a workload graph.
 *
 * The graph follows Megatron-LM's GPT model: an embedding block (vocab-
 * parallel lookup, learned positions when the spec has them), `layers`
 * instances of one layer block, and a head block (final norm, vocab-
 * parallel logits, cross entropy). One layer:
 *
 *   norm1 -> qkv (column) -> [rope] -> attention (heads) -> proj (row)
 *   -> bias-dropout-add (residual x) -> norm2 -> MLP -> bias-dropout-add
 *
 * where the MLP is fc1 (column) -> GELU or SwiGLU -> fc2 (row), or for
 * MoE: router -> route (top-k of experts) -> expert fc1 -> activation ->
 * expert fc2 -> unroute. The lowering (src/lower/) inserts the tensor-,
 * sequence-, context- and expert-parallel collectives from the tensor-
 * parallel annotations, and expands the attention into the kernels of the
 * plan (flash or unfused).
 *
 * Dropout follows the spec's rates: attention_dropout on the attention
 * probabilities, hidden_dropout in the two bias-dropout-adds (Megatron's
 * TransformerLayer passes config.hidden_dropout to both, ../shared/
 * reference/megatron-lm/megatron/core/transformer/transformer_layer.py).
 * A rate of 0 marks the op no_dropout: no mask kept, no dropout kernel
 * (src/graph/graph.c). The embedding dropout Megatron also applies (one
 * mask on the first stage) is not in the graph.
 *
 * The spec checks that used to live in the plan checker are here too
 * (transformer_resolve): ranges, head shape, MoE fields.
 */
#include <stdio.h>
#include <string.h>

#include "model/builder.h"
#include "model/optimizer.h"
#include "plan/plan.h"

/* ------------------------------------------------------------- checks */

/* kv_heads: 0 (= heads) up to the heads; a bound that moves with
 * model.heads is said with them ("8 is out of range (valid: 0..1)" read as
 * if 1 were a fixed limit). */
static int tf_kv_heads(const sc_transformer *m, sc_error *err) {
  if (m->kv_heads <= m->heads) return plan_range(m->kv_heads, 0, m->heads, "model.kv_heads", err);
  return sc_error_set(err, SC_EINPUT, "model.kv_heads: %d is more than model.heads %d (each "
                      "KV head serves a whole group of query heads); valid: 0 (= heads) to %d",
                      m->kv_heads, m->heads, m->heads);
}

/* Check the shape integers of m against their limits. */
static int tf_ranges(const sc_transformer *m, sc_error *err) {
  int rc;
  if ((rc = plan_range(m->layers, 1, PLAN_MAX_LAYERS, "model.layers", err)) ||
      (rc = plan_range(m->hidden, 1, PLAN_MAX_WIDTH, "model.hidden", err)) ||
      (rc = plan_range(m->heads, 1, PLAN_MAX_HEADS, "model.heads", err)) ||
      (rc = tf_kv_heads(m, err)) ||
      (rc = plan_range(m->head_dim, 0, PLAN_MAX_HEADS, "model.head_dim", err)) ||
      (rc = plan_range(m->ffn, 0, PLAN_MAX_WIDTH, "model.ffn", err)) ||
      (rc = plan_range(m->vocab, 1, PLAN_MAX_VOCAB, "model.vocab", err)) ||
      (rc = plan_range(m->seq, 1, PLAN_MAX_SEQ, "model.seq", err)) ||
      (rc = plan_range(m->experts, 0, PLAN_MAX_HEADS, "model.experts", err)) ||
      (rc = plan_range(m->topk, 0, PLAN_MAX_HEADS, "model.topk", err)) ||
      (rc = plan_range(m->dense_layers, 0, m->layers, "model.dense_layers", err)) ||
      (rc = plan_range(m->moe_every, 0, m->layers, "model.moe_every", err)) ||
      (rc = plan_range(m->dense_ffn, 0, PLAN_MAX_WIDTH, "model.dense_ffn", err)) ||
      (rc = plan_range(m->shared_experts, 0, PLAN_MAX_HEADS, "model.shared_experts", err)) ||
      (rc = plan_range(m->q_lora_rank, 0, PLAN_MAX_WIDTH, "model.q_lora_rank", err)) ||
      (rc = plan_range(m->kv_lora_rank, 0, PLAN_MAX_WIDTH, "model.kv_lora_rank", err)) ||
      (rc = plan_range(m->rope_dim, 0, PLAN_MAX_HEADS, "model.rope_dim", err)) ||
      (rc = plan_range(m->v_head_dim, 0, PLAN_MAX_HEADS, "model.v_head_dim", err)))
    return rc;
  if (m->kv_lora_rank == 0 && (m->q_lora_rank || m->rope_dim || m->v_head_dim))
    return sc_error_set(err, SC_EINPUT,
                        "model.%s: latent attention (MLA) needs model.kv_lora_rank > 0",
                        m->q_lora_rank ? "q_lora_rank" : m->rope_dim ? "rope_dim" : "v_head_dim");
  if ((unsigned)m->act > SC_ACT_RELU)
    return sc_error_set(err, SC_EINPUT, "model.activation: %d is not valid (gelu, swiglu, relu)",
                        (int)m->act);
  if ((unsigned)m->norm > SC_NORM_RMSNORM)
    return sc_error_set(err, SC_EINPUT, "model.norm: %d is not valid (layernorm, rmsnorm)",
                        (int)m->norm);
  if ((unsigned)m->pos > SC_POS_ALIBI)
    return sc_error_set(err, SC_EINPUT, "model.position: %d is not valid (learned, rope, alibi)",
                        (int)m->pos);
  return SC_OK;
}

/* Dropout rates are probabilities below 1 (NaN fails both comparisons).
 * A rate of 1 is refused, not costed: PyTorch then returns zeros by a
 * multiply (ATen's _dropout_impl; its fused native_dropout kernel is for
 * 0 < p < 1 only), so no mask and a kernel unlike either case modelled,
 * and the layer's attention or residual branch contributes nothing -- a
 * run no framework trains (docs/input.md, "Dropout"). */
static int tf_dropout(const sc_transformer *m, sc_error *err) {
  const char *key = NULL;
  double v = 0;
  if (!(m->attention_dropout >= 0 && m->attention_dropout < 1))
    key = "attention_dropout", v = m->attention_dropout;
  else if (!(m->hidden_dropout >= 0 && m->hidden_dropout < 1))
    key = "hidden_dropout", v = m->hidden_dropout;
  if (!key) return SC_OK;
  return sc_error_set(err, SC_EINPUT,
                      "model.%s: %g is not a probability below 1 (valid: 0 <= rate < 1; 0 = no "
                      "dropout; 1 would drop everything, docs/input.md)",
                      key, v);
}

/* Check the attention shape and fill kv_heads, head_dim and ffn when they
 * are 0 (MHA, hidden / heads, 4 * hidden). */
static int tf_attention(sc_transformer *m, sc_error *err) {
  char valid[256];
  if (m->kv_heads == 0) m->kv_heads = m->heads;
  if (m->heads % m->kv_heads) {
    plan_divisors(m->heads, valid, sizeof valid);
    return sc_error_set(err, SC_EINPUT,
                        "model.kv_heads: %d does not divide model.heads %d "
                        "(each KV head serves a whole group of query heads); valid: %s",
                        m->kv_heads, m->heads, valid);
  }
  if (m->head_dim == 0) {
    if (m->hidden % m->heads) {
      plan_divisors_upto(m->hidden, PLAN_MAX_HEADS, valid, sizeof valid);
      return sc_error_set(err, SC_EINPUT,
                          "model.hidden: %d is not divisible by model.heads %d, so the "
                          "head size is undefined; set model.head_dim, or use heads among "
                          "the divisors of hidden: %s",
                          m->hidden, m->heads, valid);
    }
    m->head_dim = m->hidden / m->heads;
  }
  if (m->ffn == 0) {
    if (4L * m->hidden > PLAN_MAX_WIDTH)
      return sc_error_set(err, SC_EINPUT, "model.ffn: 4 x hidden = %ld exceeds %ld; set model.ffn",
                          4L * m->hidden, PLAN_MAX_WIDTH);
    m->ffn = 4 * m->hidden;
  }
  return SC_OK;
}

/* Dense (experts 0 or 1, topk 0 or 1) or 1 <= topk <= experts. */
static int tf_moe(const sc_transformer *m, sc_error *err) {
  if (m->experts <= 1 && (m->dense_layers || m->moe_every > 1 || m->shared_experts))
    return sc_error_set(err, SC_EINPUT,
                        "model.%s: an MoE layout needs model.experts > 1 (is %d)",
                        m->dense_layers ? "dense_layers" : m->moe_every > 1 ? "moe_every"
                                                                            : "shared_experts",
                        m->experts);
  if (m->experts <= 1) {
    if (m->topk > 1)
      return sc_error_set(err, SC_EINPUT,
                          "model.topk: %d needs an MoE model, but model.experts is %d "
                          "(dense); set model.experts >= %d or drop model.topk",
                          m->topk, m->experts, m->topk);
    return SC_OK;
  }
  if (m->topk < 1 || m->topk > m->experts)
    return sc_error_set(err, SC_EINPUT,
                        "model.topk: %d is not valid for model.experts %d (valid: 1..%d "
                        "experts per token; Mixtral and GShard use 2)",
                        m->topk, m->experts, m->experts);
  return SC_OK;
}

static int tf_resolve(sc_model *model, sc_error *err) {
  sc_transformer *m = &model->tf;
  int rc;
  model->name[sizeof model->name - 1] = '\0';
  if ((rc = tf_ranges(m, err)) || (rc = tf_dropout(m, err)) || (rc = tf_attention(m, err)) ||
      (rc = optim_check_blank(model, "transformer",
                              "mixed-precision Adam (fp32 master weights and two moments)", err)))
    return rc;
  return tf_moe(m, err);
}

/* ------------------------------------------------------- parameters */

static int moe(const sc_transformer *m) { return m->experts > 1; }
static double topk(const sc_transformer *m) { return m->topk > 0 ? m->topk : 1; }

/* Layer i of m is an MoE layer. */
static int moe_layer(const sc_transformer *m, int i) {
  if (!moe(m) || i < m->dense_layers) return 0;
  return m->moe_every <= 1 || (i + 1) % m->moe_every == 0;
}

static int moe_layers(const sc_transformer *m) {
  int n = 0;
  for (int i = 0; i < m->layers; i++) n += moe_layer(m, i);
  return n;
}

static int dense_ffn(const sc_transformer *m) { return m->dense_ffn > 0 ? m->dense_ffn : m->ffn; }

/* Parameters of one MLP `ffn` wide. */
static double mlp_params_w(const sc_transformer *m, double ffn) {
  return (m->act == SC_ACT_SWIGLU ? 3.0 : 2.0) * m->hidden * ffn;
}
/* One expert (or the dense MLP of a dense model). */
static double mlp_params(const sc_transformer *m) { return mlp_params_w(m, m->ffn); }

/* Parameters of the attention block, the MLP (all experts and the shared
 * ones, with the router), the norms and biases of one layer, MoE or not. */
static int mla(const sc_transformer *m) { return m->kv_lora_rank > 0; }
static double v_dim(const sc_transformer *m) {
  return m->v_head_dim > 0 ? m->v_head_dim : m->head_dim;
}

/* Attention weights of one layer (projections in and out, MLA's latent
 * norms). MLA here projects the RoPE key per head from the latent (the
 * model shares one across heads): kv_up is (kv_lora + rope) x heads (d +
 * rope + dv), 0.06 % more parameters than DeepSeek-V3 has. */
static double attn_params(const sc_transformer *m) {
  double h = m->hidden, d = m->head_dim, a = m->heads, g = m->kv_heads;
  if (!mla(m)) return h * (a + 2 * g) * d + a * d * h;
  double dqk = d + m->rope_dim, kv = m->kv_lora_rank + m->rope_dim, q = m->q_lora_rank;
  double qp = q > 0 ? h * q + q + q * a * dqk : h * a * dqk;
  return qp + h * kv + kv + kv * a * (dqk + v_dim(m)) + a * v_dim(m) * h;
}

static double layer_params_of(const sc_transformer *m, int is_moe) {
  double h = m->hidden, d = m->head_dim, a = m->heads, g = m->kv_heads;
  double attn = attn_params(m);
  double f = is_moe ? m->ffn : dense_ffn(m);
  double mlp = is_moe ? mlp_params(m) * (m->experts + m->shared_experts) + h * m->experts
                      : mlp_params_w(m, f);
  double norms = (m->norm == SC_NORM_LAYERNORM ? 4.0 : 2.0) * h;
  double bias = m->bias ? (a + 2 * g) * d + 2 * h + (m->act == SC_ACT_SWIGLU ? 2.0 : 1.0) * f
                        : 0;
  return attn + mlp + norms + bias;
}

/* The embedding table(s), learned positions and the final norm (a
 * LayerNorm's weight and bias, an RMSNorm's weight alone, as the layers'
 * norms in layer_params_of). */
static double embedding_params(const sc_transformer *m) {
  double h = m->hidden, p = (double)m->vocab * h;
  if (m->pos == SC_POS_LEARNED) p += (double)m->seq * h;
  if (!m->tied_embeddings) p += (double)m->vocab * h;
  return p + (m->norm == SC_NORM_LAYERNORM ? 2.0 : 1.0) * h;
}

static double tf_params(const sc_model *model) {
  const sc_transformer *m = &model->tf;
  int n_moe = moe_layers(m);
  return n_moe * layer_params_of(m, 1) + (m->layers - n_moe) * layer_params_of(m, 0) +
         embedding_params(m);
}

static double tf_active_params(const sc_model *model) {
  const sc_transformer *m = &model->tf;
  if (!moe(m)) return tf_params(model);
  return tf_params(model) - moe_layers(m) * mlp_params(m) * (m->experts - topk(m));
}

/* Model FLOPs of one sequence, forward and backward: 6 N per token for
 * the weights a token uses (input embedding lookups excluded, the output
 * projection included) + 12 l s (a d) per token for attention scores, as
 * in Korthikanti et al. 2022 and PaLM's MFU. */
static double tf_model_flops(const sc_model *model) {
  const sc_transformer *m = &model->tf;
  double per_tok_layer = tf_active_params(model) - embedding_params(m);
  double head = (double)m->vocab * m->hidden;
  double dqk = m->head_dim + (mla(m) ? m->rope_dim : 0);
  double attn = 6.0 * m->layers * (double)m->seq * m->heads * (dqk + (mla(m) ? v_dim(m) : dqk));
  return (double)m->seq * (6.0 * (per_tok_layer + head) + attn);
}

/* ------------------------------------------------------------- build */

/* Add one operator: proto (kind and attributes) from `in` to `out`. */
static int add(wg_graph *g, wg_op o, const char *in0, const char *in1, const char *out,
               sc_error *err) {
  const char *in[2] = {in0, in1};
  return wg_add(g, &o, in, in1 ? 2 : 1, out, err);
}

static wg_op op(const char *name, wg_kind kind) { return wg_op_make(name, kind, WG_FN_NONE); }

static wg_op linear(const char *name, long n, wg_tp tp, int bias) {
  wg_op o = op(name, WG_LINEAR);
  o.features = n;
  o.tp = tp;
  o.bias = bias;
  return o;
}

static wg_op eltwise(const char *name, wg_fn fn) {
  wg_op o = op(name, WG_ELTWISE);
  o.fn = fn;
  return o;
}

/* A bias-dropout-add at the spec's hidden dropout rate. */
static wg_op bda(const sc_transformer *m, const char *name) {
  wg_op o = eltwise(name, WG_FN_BIAS_DROPOUT_ADD);
  o.no_dropout = m->hidden_dropout == 0;
  return o;
}

static wg_op norm(const sc_transformer *m, const char *name) {
  wg_op o = op(name, WG_NORM);
  o.fn = m->norm == SC_NORM_RMSNORM ? WG_FN_RMSNORM : WG_FN_LAYERNORM;
  return o;
}

static wg_op heads(wg_op o, const sc_transformer *m) {
  o.heads = m->heads;
  o.kv_heads = m->kv_heads;
  o.head_dim = m->head_dim;
  if (m->kv_lora_rank > 0) { /* MLA: every head has its own k and v */
    o.kv_heads = m->heads;
    o.head_dim = m->head_dim + m->rope_dim;
    o.v_head_dim = m->v_head_dim > 0 ? m->v_head_dim : m->head_dim;
  }
  return o;
}

/* Megatron-LM's names of the activation kernels. */
static const char *act_name(const sc_transformer *m) {
  return m->act == SC_ACT_SWIGLU ? "swiglu" : m->act == SC_ACT_RELU ? "relu" : "bias_gelu";
}

static wg_fn act_fn(const sc_transformer *m) {
  return m->act == SC_ACT_SWIGLU ? WG_FN_SWIGLU : m->act == SC_ACT_RELU ? WG_FN_RELU : WG_FN_GELU;
}

/* Op o tagged with the Megatron-Core recompute modules `bits` it belongs
 * to (SC_RECMOD_*; what each keeps and re-runs: src/lower/recmod.c). */
static wg_op in_mod(wg_op o, unsigned bits) {
  o.recmod |= bits;
  return o;
}

/* A dense MLP `ffn` wide from `in` to `out`, its operators named with
 * prefix `pre` ("" or "shared_") and in recompute modules `mods`. */
static int dense_mlp(wg_graph *g, const sc_transformer *m, long ffn, const char *pre,
                     unsigned mods, const char *in, const char *out, sc_error *err) {
  long up = m->act == SC_ACT_SWIGLU ? 2L * ffn : ffn;
  char n1[WG_NAME], na[WG_NAME], n2[WG_NAME];
  snprintf(n1, sizeof n1, "%sfc1", pre);
  snprintf(na, sizeof na, "%s%s", pre, act_name(m));
  snprintf(n2, sizeof n2, "%sact", pre);
  int rc;
  if ((rc = add(g, in_mod(linear(n1, up, WG_TP_COLUMN, m->bias), mods), in, NULL, n1, err)) ||
      (rc = add(g, in_mod(eltwise(na, act_fn(m)), mods), n1, NULL, n2, err)))
    return rc;
  snprintf(n1, sizeof n1, "%sfc2", pre);
  return add(g, in_mod(linear(n1, m->hidden, WG_TP_ROW, m->bias), mods), n2, NULL, out, err);
}

/* The MLP from ln2 to mlp_out: dense, or routed experts (and the shared
 * experts beside them, added to their output). */
static int mlp(wg_graph *g, const sc_transformer *m, int is_moe, sc_error *err) {
  long up = m->act == SC_ACT_SWIGLU ? 2L * m->ffn : m->ffn;
  int rc;
  if (!is_moe) return dense_mlp(g, m, dense_ffn(m), "", SC_RECMOD_MLP, "ln2", "mlp_out", err);
  wg_op route = op("route", WG_ROUTE), unroute = op("unroute", WG_UNROUTE);
  wg_op fc1 = linear("fc1", up, WG_TP_COLUMN, m->bias), fc2 = linear("fc2", m->hidden, WG_TP_ROW, m->bias);
  route.experts = unroute.experts = fc1.experts = fc2.experts = m->experts;
  route.topk = unroute.topk = m->topk;
  fc1.expert = fc2.expert = 1;
  /* Megatron-Core's MoELayer ("moe"), the experts' activation inside it
   * ("moe_act") and the shared experts ("shared_experts") */
  route.recmod = unroute.recmod = fc1.recmod = fc2.recmod = SC_RECMOD_MOE;
  wg_op router = in_mod(linear("router", m->experts, WG_TP_NONE, 0), SC_RECMOD_MOE);
  router.high_precision = 1; /* Megatron's router is not a TE linear layer */
  const char *routed_out = m->shared_experts > 0 ? "routed_out" : "mlp_out";
  if ((rc = add(g, router, "ln2", NULL, "router", err)) ||
      (rc = add(g, route, "ln2", "router", "routed", err)) ||
      (rc = add(g, fc1, "routed", NULL, "fc1", err)) ||
      (rc = add(g, in_mod(eltwise(act_name(m), act_fn(m)), SC_RECMOD_MOE | SC_RECMOD_MOE_ACT),
                "fc1", NULL, "act", err)) ||
      (rc = add(g, fc2, "act", NULL, "fc2", err)) ||
      (rc = add(g, unroute, "fc2", NULL, routed_out, err)))
    return rc;
  if (m->shared_experts == 0) return SC_OK;
  if ((rc = dense_mlp(g, m, (long)m->shared_experts * m->ffn, "shared_",
                      SC_RECMOD_MOE | SC_RECMOD_SHARED_EXPERTS, "ln2", "shared_out", err)))
    return rc;
  return add(g, in_mod(eltwise("shared_add", WG_FN_ADD), SC_RECMOD_MOE), "routed_out",
             "shared_out", "mlp_out", err);
}

/* MLA from ln1 to the packed q, k, v: latent down-projections (every
 * tensor-parallel rank runs them whole), their norms, per-head up-
 * projections (column-parallel) and the RoPE kernels that assemble q, k
 * and v from them. The norms, up-projections and RoPE are Megatron-Core's
 * "mla_up_proj"
 * recompute module (with Transformer Engine the q/kv norms are fused into
 * the up-projections, TELayerNormColumnParallelLinear). */
static int mla_qkv(wg_graph *g, const sc_transformer *m, sc_error *err) {
  long a = m->heads, dqk = m->head_dim + m->rope_dim;
  long dv = m->v_head_dim > 0 ? m->v_head_dim : m->head_dim;
  const unsigned up = SC_RECMOD_MLA_UP_PROJ;
  int rc;
  const char *q_in = "ln1";
  if (m->q_lora_rank > 0) {
    if ((rc = add(g, linear("q_down", m->q_lora_rank, WG_TP_NONE, 0), "ln1", NULL, "q_c", err)) ||
        (rc = add(g, in_mod(norm(m, "q_norm"), up), "q_c", NULL, "q_cn", err)))
      return rc;
    q_in = "q_cn";
  }
  if ((rc = add(g, in_mod(linear(m->q_lora_rank > 0 ? "q_up" : "q_proj", a * dqk, WG_TP_COLUMN, 0), up),
                q_in, NULL, "q", err)) ||
      (rc = add(g, linear("kv_down", (long)m->kv_lora_rank + m->rope_dim, WG_TP_NONE, 0), "ln1",
                NULL, "kv_c", err)) ||
      (rc = add(g, in_mod(norm(m, "kv_norm"), up), "kv_c", NULL, "kv_cn", err)) ||
      (rc = add(g, in_mod(linear("kv_up", a * (dqk + dv), WG_TP_COLUMN, 0), up), "kv_cn", NULL,
                "kv", err)))
    return rc;
  /* Megatron's MLA RoPE (fused_apply_mla_rope_for_q / _for_kv under its
   * default apply_rope_fusion; unfused, the rotary kernels on the rope
   * slices and the concatenations into contiguous q, k, v, about the same
   * bytes): read q and kv, write q, k, v, two kernels each way
   * (multi_latent_attention.py, not in ../shared: our reading) */
  wg_op rope = in_mod(eltwise("mla_rope", WG_FN_CONCAT), up);
  rope.host_fwd = rope.host_bwd = 2;
  return add(g, rope, "q", "kv", "qkv", err);
}

/* A block of `count` layers, MoE or dense. */
static int layer(wg_graph *g, const sc_transformer *m, int is_moe, int count, sc_error *err) {
  long x[2] = {m->seq, m->hidden};
  long qkv = (long)(m->heads + 2 * m->kv_heads) * m->head_dim;
  /* MLA applies RoPE as it assembles q, k and v (mla_qkv) */
  int rope = m->pos == SC_POS_ROPE && !mla(m), rc;
  wg_op attn = heads(op("attn", WG_ATTENTION), m);
  attn.separate_qkv = mla(m);
  attn.causal = 1;
  attn.tp = WG_TP_HEADS;
  attn.no_dropout = m->attention_dropout == 0;
  /* "layer" is the model's main layer kind; dense layers of an MoE model
   * are "dense_layer" */
  const char *name = moe(m) && !is_moe ? "dense_layer" : "layer";
  if ((rc = wg_block_begin(g, name, WG_ROLE_LAYER, count, "x", 2, x, WG_ELEM_ACT, err)) ||
      (rc = add(g, in_mod(norm(m, "norm1"), SC_RECMOD_LAYERNORM), "x", NULL, "ln1", err)) ||
      (rc = mla(m) ? mla_qkv(g, m, err) : add(g, linear("qkv", qkv, WG_TP_COLUMN, m->bias), "ln1", NULL, "qkv", err)) ||
      (rope && (rc = add(g, heads(eltwise("rope", WG_FN_ROPE), m), "qkv", NULL, "qkv_rope", err))) ||
      (rc = add(g, attn, rope ? "qkv_rope" : "qkv", NULL, "ctx", err)) ||
      (rc = add(g, linear("proj", m->hidden, WG_TP_ROW, m->bias), "ctx", NULL, "attn_out", err)) ||
      (rc = add(g, bda(m, "bias_dropout_add1"), "attn_out", "x", "x1", err)) ||
      (rc = add(g, in_mod(norm(m, "norm2"), SC_RECMOD_LAYERNORM), "x1", NULL, "ln2", err)) ||
      (rc = mlp(g, m, is_moe, err)) ||
      (rc = add(g, bda(m, "bias_dropout_add2"), "mlp_out", "x1", "y", err)))
    return rc;
  return wg_block_end(g, "y", err);
}

static int embedding(wg_graph *g, const sc_transformer *m, sc_error *err) {
  long ids = m->seq;
  wg_op e = op("embed_lookup", WG_EMBEDDING);
  e.vocab = m->vocab;
  e.features = m->hidden;
  e.positions = m->pos == SC_POS_LEARNED ? m->seq : 0;
  e.tp = WG_TP_VOCAB;
  int rc;
  if ((rc = wg_block_begin(g, "embedding", WG_ROLE_FIRST, 1, "tokens", 1, &ids, WG_ELEM_INT,
                           err)) ||
      (rc = add(g, e, "tokens", NULL, "x", err)))
    return rc;
  return wg_block_end(g, "x", err);
}

static int head(wg_graph *g, const sc_transformer *m, sc_error *err) {
  long x[2] = {m->seq, m->hidden};
  wg_op fnorm = norm(m, "final_norm"), logits = linear("logits", m->vocab, WG_TP_VOCAB, 0);
  wg_op loss = op("cross_entropy", WG_LOSS);
  fnorm.host_fwd = fnorm.host_bwd = 2; /* FusedLayerNorm without the TP region wrapper */
  logits.tied = m->tied_embeddings;
  loss.fn = WG_FN_CROSS_ENTROPY;
  int rc;
  if ((rc = wg_block_begin(g, "head", WG_ROLE_LAST, 1, "x", 2, x, WG_ELEM_ACT, err)) ||
      (rc = add(g, fnorm, "x", NULL, "ln_f", err)) ||
      (rc = add(g, logits, "ln_f", NULL, "logits", err)) ||
      (rc = add(g, loss, "logits", NULL, "loss", err)))
    return rc;
  return wg_block_end(g, "loss", err);
}

static int tf_build(const sc_model *model, wg_graph **out, sc_error *err) {
  const sc_transformer *m = &model->tf;
  *out = NULL;
  wg_graph *g = wg_new(model->name, m->seq);
  if (!g) return sc_error_set(err, SC_ENOMEM, "out of memory building model %s", model->name);
  g->model_flops = tf_model_flops(model);
  int rc;
  rc = embedding(g, m, err);
  /* runs of layers of one kind, each one block */
  for (int i = 0, n; !rc && i < m->layers; i += n) {
    int kind = moe_layer(m, i);
    for (n = 1; i + n < m->layers && moe_layer(m, i + n) == kind; n++) continue;
    rc = layer(g, m, kind, n, err);
  }
  if (rc == SC_OK) rc = head(g, m, err);
  return model_build_done(g, rc, out, err);
}

const model_builder model_transformer = {SC_MODEL_TRANSFORMER, "transformer", tf_resolve,
                                         tf_build, tf_params, tf_active_params};
