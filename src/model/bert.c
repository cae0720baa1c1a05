/*
 * bert.c -- the BERT builder: a BERT encoder with its pre-training heads
 * as a workload graph (SC_MODEL_BERT).
 *
 * Devlin et al. 2019 and Google's modeling.py / run_pretraining.py (the
 * reference that NVIDIA's, OneFlow's, Paddle's and gluon-nlp's BERT
 * follow):
 *
 *   embedding  word (vocab x hidden) + learned positions (positions x
 *              hidden) -> LayerNorm -> dropout. The two token-type rows
 *              (1,536 parameters in BERT-base) are left out;
 *   layer      x -> qkv (bias, column) -> attention (bidirectional,
 *              heads) -> proj (bias, row) -> dropout + residual ->
 *              LayerNorm -> fc1 (bias, column) -> GELU -> fc2 (bias, row)
 *              -> dropout + residual -> LayerNorm   (post-LN);
 *   heads      masked LM on the masked positions only (gather_indexes:
 *              max_predictions_per_seq rows) -> dense + GELU + LayerNorm
 *              -> decoder tied to the word embedding -> cross entropy;
 *              next-sentence prediction on the first token -> pooler
 *              (dense + tanh) -> 2 classes -> cross entropy.
 *
 * With `mlm_all_positions` set the masked-LM head skips the gather: dense,
 * GELU, LayerNorm, the vocab decoder and the cross entropy run on every
 * position the encoder runs, and the loss ignores the unmasked ones. This
 * is NVIDIA's PyTorch BERT of 2019-2020 (DeepLearningExamples
 * PyTorch/LanguageModeling/BERT modeling.py, BertPreTrainingHeads on the
 * whole sequence_output, CrossEntropyLoss(ignore_index=-1); the
 * implementation NGC's PyTorch containers of that time ran), until NVIDIA
 * added a dense_seq_output option that gathers the masked positions
 * first (for its MLPerf BERT, 2021). Recalled from the published source,
 * which is not in ../shared/reference.
 *
 * The decoder's output bias (vocab values) is not counted: a tied layer's
 * parameters are the embedding's (graph.h).
 *
 * With `tokens` set (an unpadded or packed implementation) the encoder
 * runs that many tokens per sequence instead of seq: every linear layer
 * on tokens rows, attention over tokens (the mean length squared, a
 * little below the mean of the squared lengths).
 */
#include <stdio.h>
#include <string.h>

#include "model/builder.h"
#include "model/optimizer.h"
#include "plan/plan.h"

/* The update where model.optimizer is blank: Adam with decoupled weight
 * decay, google-research/bert optimization.py's AdamWeightDecayOptimizer
 * (the reference BERT; cost/optchain.c its op chain unfused). NVIDIA's
 * BERT and MLPerf BERT run LAMB: model.optimizer lamb (the validator sets
 * it for NVIDIA's BERT rows, validate/dp_rows.c). */
#define BERT_DEFAULT_OPTIMIZER SC_OPT_ADAM

/* Rows of the encoder's activations: the tokens it runs per sequence. */
static long bert_rows(const sc_bert *m) { return m->tokens > 0 ? m->tokens : m->seq; }

/* Rows of the masked-LM head: the masked positions (max_predictions_per_seq),
 * or every row of the encoder with mlm_all_positions. */
static long bert_mlm(const sc_bert *m) {
  if (m->mlm_all_positions) return bert_rows(m);
  return m->mlm_positions > 0 ? m->mlm_positions : (5 * m->seq + 31) / 32;
}

static int bert_resolve(sc_model *model, sc_error *err) {
  sc_bert *m = &model->bert;
  int rc;
  model->name[sizeof model->name - 1] = '\0';
  if ((rc = optim_check(model, err))) return rc;
  if (m->ffn == 0) m->ffn = 4 * m->hidden;
  if (m->positions == 0) m->positions = 512;
  if ((rc = plan_range(m->layers, 1, PLAN_MAX_LAYERS, "model.layers", err)) ||
      (rc = plan_range(m->hidden, 1, PLAN_MAX_WIDTH, "model.hidden", err)) ||
      (rc = plan_range(m->heads, 1, PLAN_MAX_HEADS, "model.heads", err)) ||
      (rc = plan_range(m->ffn, 1, PLAN_MAX_WIDTH, "model.ffn", err)) ||
      (rc = plan_range(m->vocab, 1, PLAN_MAX_VOCAB, "model.vocab", err)) ||
      (rc = plan_range(m->positions, 1, PLAN_MAX_SEQ, "model.positions", err)) ||
      (rc = plan_range(m->seq, 1, m->positions, "model.seq", err)) ||
      (rc = plan_range(m->tokens, 0, m->seq, "model.tokens", err)) ||
      (rc = plan_range(m->mlm_positions, 0, m->tokens > 0 ? m->tokens : m->seq,
                       "model.mlm_positions", err)) ||
      (rc = plan_range(m->mlm_all_positions, 0, 1, "model.mlm_all_positions", err)))
    return rc;
  if (m->hidden % m->heads)
    return sc_error_set(err, SC_EINPUT,
                        "model.heads: %d does not divide model.hidden %d (BERT's heads are "
                        "hidden / heads wide)",
                        m->heads, m->hidden);
  return SC_OK;
}

/* ------------------------------------------------------------- build */

typedef struct bert_ctx {
  wg_graph *g;
  const sc_bert *m;
  sc_error *err;
  int rc;
} bert_ctx;

static wg_op op(const char *name, wg_kind kind, wg_fn fn) { return wg_op_make(name, kind, fn); }

static void add(bert_ctx *c, wg_op o, const char *in0, const char *in1, const char *out) {
  const char *in[2] = {in0, in1};
  if (!c->rc) c->rc = wg_add(c->g, &o, in, in1 ? 2 : 1, out, c->err);
}

static wg_op linear(const char *name, long n, wg_tp tp) {
  wg_op o = op(name, WG_LINEAR, WG_FN_NONE);
  o.features = n;
  o.tp = tp;
  o.bias = 1;
  return o;
}

static void norm(bert_ctx *c, const char *name, const char *in) {
  add(c, op(name, WG_NORM, WG_FN_LAYERNORM), in, NULL, name);
}

static void slice(bert_ctx *c, const char *name, const char *in, long rows) {
  wg_op o = op(name, WG_ELTWISE, WG_FN_SLICE);
  o.rows = rows;
  add(c, o, in, NULL, name);
}

static void begin(bert_ctx *c, const char *name, wg_role role, int count) {
  long x[2] = {bert_rows(c->m), c->m->hidden};
  if (!c->rc) c->rc = wg_block_begin(c->g, name, role, count, "x", 2, x, WG_ELEM_ACT, c->err);
}

static void end(bert_ctx *c, const char *out) {
  if (!c->rc) c->rc = wg_block_end(c->g, out, c->err);
}

static void embedding(bert_ctx *c) {
  long ids = bert_rows(c->m);
  wg_op e = op("embed_lookup", WG_EMBEDDING, WG_FN_NONE);
  e.vocab = c->m->vocab;
  e.features = c->m->hidden;
  e.positions = c->m->positions;
  e.tp = WG_TP_VOCAB;
  if (!c->rc)
    c->rc = wg_block_begin(c->g, "embedding", WG_ROLE_FIRST, 1, "tokens", 1, &ids, WG_ELEM_INT,
                           c->err);
  add(c, e, "tokens", NULL, "embed");
  norm(c, "embed_norm", "embed");
  add(c, op("embed_dropout", WG_ELTWISE, WG_FN_DROPOUT), "embed_norm", NULL, "x");
  end(c, "x");
}

static void layer(bert_ctx *c) {
  const sc_bert *m = c->m;
  wg_op attn = op("attn", WG_ATTENTION, WG_FN_NONE);
  attn.heads = attn.kv_heads = m->heads;
  attn.head_dim = m->hidden / m->heads;
  attn.tp = WG_TP_HEADS;
  begin(c, "layer", WG_ROLE_LAYER, m->layers);
  add(c, linear("qkv", 3L * m->hidden, WG_TP_COLUMN), "x", NULL, "qkv");
  add(c, attn, "qkv", NULL, "ctx");
  add(c, linear("proj", m->hidden, WG_TP_ROW), "ctx", NULL, "attn_out");
  add(c, op("bias_dropout_add1", WG_ELTWISE, WG_FN_BIAS_DROPOUT_ADD), "attn_out", "x", "x1");
  norm(c, "norm1", "x1");
  add(c, linear("fc1", m->ffn, WG_TP_COLUMN), "norm1", NULL, "fc1");
  add(c, op("bias_gelu", WG_ELTWISE, WG_FN_GELU), "fc1", NULL, "act");
  add(c, linear("fc2", m->hidden, WG_TP_ROW), "act", NULL, "mlp_out");
  add(c, op("bias_dropout_add2", WG_ELTWISE, WG_FN_BIAS_DROPOUT_ADD), "mlp_out", "norm1", "x2");
  norm(c, "norm2", "x2");
  end(c, "norm2");
}

/* The masked-LM and next-sentence heads and their losses. The masked-LM
 * head gathers its rows (mlm_gather) unless it runs on all of them. */
static void heads(bert_ctx *c) {
  const sc_bert *m = c->m;
  wg_op decoder = linear("mlm_decoder", m->vocab, WG_TP_VOCAB);
  decoder.tied = 1;
  begin(c, "heads", WG_ROLE_LAST, 1);
  if (!m->mlm_all_positions) slice(c, "mlm_gather", "x", bert_mlm(m));
  add(c, linear("mlm_dense", m->hidden, WG_TP_NONE), m->mlm_all_positions ? "x" : "mlm_gather",
      NULL, "mlm_dense");
  add(c, op("mlm_gelu", WG_ELTWISE, WG_FN_GELU), "mlm_dense", NULL, "mlm_act");
  norm(c, "mlm_norm", "mlm_act");
  add(c, decoder, "mlm_norm", NULL, "mlm_logits");
  add(c, op("mlm_loss", WG_LOSS, WG_FN_CROSS_ENTROPY), "mlm_logits", NULL, "mlm_loss");
  slice(c, "cls", "x", 1);
  add(c, linear("pooler", m->hidden, WG_TP_NONE), "cls", NULL, "pooler");
  /* tanh: an element-wise kernel of GELU's cost */
  add(c, op("pooler_tanh", WG_ELTWISE, WG_FN_GELU), "pooler", NULL, "pooled");
  add(c, linear("nsp", 2, WG_TP_NONE), "pooled", NULL, "nsp_logits");
  add(c, op("nsp_loss", WG_LOSS, WG_FN_CROSS_ENTROPY), "nsp_logits", NULL, "nsp_loss");
  end(c, "mlm_loss");
}

static int bert_build(const sc_model *model, wg_graph **out, sc_error *err) {
  *out = NULL;
  bert_ctx c = {.g = wg_new(model->name, bert_rows(&model->bert)), .m = &model->bert, .err = err};
  if (!c.g) return sc_error_set(err, SC_ENOMEM, "out of memory building model %s", model->name);
  optim_apply(optim_of(model, BERT_DEFAULT_OPTIMIZER), &c.g->opt);
  embedding(&c);
  layer(&c);
  heads(&c);
  return model_build_done(c.g, c.rc, out, err);
}

/* Parameters from the graph; -1 when the spec does not build. */
static double bert_params(const sc_model *model) {
  return model_params_from_graph(&model_bert, model);
}

const model_builder model_bert = {SC_MODEL_BERT, "bert", bert_resolve, bert_build, bert_params,
                                  bert_params};
