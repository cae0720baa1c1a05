/*
 * test_graph_json.c -- the JSON workload-graph loader (src/load/graph_json.c):
 * the two example graphs against the graphs the transformer builder makes,
 * operators written in any order, and one test per kind of input error,
 * each checking the code, the place (origin and key path) and the words
 * that say what is wrong.
 *
 * The transformer builder (src/model/transformer.c) is not on this branch;
 * reference() below makes the same wg_ calls as its embedding(), layer()
 * and head() for a dense spec, and the model FLOPs of tf_model_flops().
 */
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/mem.h"
#include "graph/graph.h"
#include "load/graph_json.h"
#include "nopos.h"
#include "tmpfile.h"

/* ------------------------------------------- the transformer reference */

/* A dense decoder-only transformer, as sc_transformer describes one. */
typedef struct spec {
  int layers, hidden, heads, kv_heads, head_dim, ffn, vocab, seq;
  int swiglu, rmsnorm, rope, learned, tied, bias;
  int dropout; /* 0: attention_dropout = hidden_dropout = 0 (no_dropout ops) */
} spec;

static const spec gpt = {2, 768, 12, 12, 64, 3072, 50257, 2048, 0, 0, 0, 1, 1, 1, 1};
static const spec llama = {2, 4096, 32, 8, 128, 14336, 128256, 8192, 1, 1, 1, 0, 0, 0, 0};

static wg_op op(const char *name, wg_kind kind) {
  wg_op o;
  memset(&o, 0, sizeof o);
  snprintf(o.name, sizeof o.name, "%s", name);
  o.kind = kind;
  return o;
}

static wg_op linear(const char *name, long n, wg_tp tp, int bias) {
  wg_op o = op(name, WG_LINEAR);
  o.features = n, o.tp = tp, o.bias = bias;
  return o;
}

static wg_op eltwise(const char *name, wg_fn fn) {
  wg_op o = op(name, WG_ELTWISE);
  o.fn = fn;
  return o;
}

/* transformer.c: bda() */
static wg_op bda(const spec *m, const char *name) {
  wg_op o = eltwise(name, WG_FN_BIAS_DROPOUT_ADD);
  o.no_dropout = !m->dropout;
  return o;
}

static wg_op norm(const spec *m, const char *name) {
  wg_op o = op(name, WG_NORM);
  o.fn = m->rmsnorm ? WG_FN_RMSNORM : WG_FN_LAYERNORM;
  return o;
}

static wg_op heads(wg_op o, const spec *m) {
  o.heads = m->heads, o.kv_heads = m->kv_heads, o.head_dim = m->head_dim;
  return o;
}

static void add(wg_graph *g, wg_op o, const char *in0, const char *in1, const char *out) {
  const char *in[2] = {in0, in1};
  sc_error err = {0};
  cr_assert_eq(wg_add(g, &o, in, in1 ? 2 : 1, out, &err), SC_OK, "%s", err.msg);
}

/* transformer.c: embedding() */
static void embedding(wg_graph *g, const spec *m) {
  long ids = m->seq;
  wg_op e = op("embed_lookup", WG_EMBEDDING);
  sc_error err = {0};
  e.vocab = m->vocab, e.features = m->hidden, e.tp = WG_TP_VOCAB;
  e.positions = m->learned ? m->seq : 0;
  cr_assert_eq(wg_block_begin(g, "embedding", WG_ROLE_FIRST, 1, "tokens", 1, &ids, WG_ELEM_INT,
                              &err), SC_OK, "%s", err.msg);
  add(g, e, "tokens", NULL, "x");
  cr_assert_eq(wg_block_end(g, "x", &err), SC_OK, "%s", err.msg);
}

/* transformer.c: layer() and mlp() of a dense spec */
static void layer(wg_graph *g, const spec *m) {
  long x[2] = {m->seq, m->hidden};
  long qkv = (long)(m->heads + 2 * m->kv_heads) * m->head_dim;
  long up = m->swiglu ? 2L * m->ffn : m->ffn;
  wg_op attn = heads(op("attn", WG_ATTENTION), m);
  sc_error err = {0};
  attn.causal = 1, attn.tp = WG_TP_HEADS;
  attn.no_dropout = !m->dropout;
  cr_assert_eq(wg_block_begin(g, "layer", WG_ROLE_LAYER, m->layers, "x", 2, x, WG_ELEM_ACT, &err),
               SC_OK, "%s", err.msg);
  add(g, norm(m, "norm1"), "x", NULL, "ln1");
  add(g, linear("qkv", qkv, WG_TP_COLUMN, m->bias), "ln1", NULL, "qkv");
  if (m->rope) add(g, heads(eltwise("rope", WG_FN_ROPE), m), "qkv", NULL, "qkv_rope");
  add(g, attn, m->rope ? "qkv_rope" : "qkv", NULL, "ctx");
  add(g, linear("proj", m->hidden, WG_TP_ROW, m->bias), "ctx", NULL, "attn_out");
  add(g, bda(m, "bias_dropout_add1"), "attn_out", "x", "x1");
  add(g, norm(m, "norm2"), "x1", NULL, "ln2");
  add(g, linear("fc1", up, WG_TP_COLUMN, m->bias), "ln2", NULL, "fc1");
  add(g, eltwise("act", m->swiglu ? WG_FN_SWIGLU : WG_FN_GELU), "fc1", NULL, "act");
  add(g, linear("fc2", m->hidden, WG_TP_ROW, m->bias), "act", NULL, "mlp_out");
  add(g, bda(m, "bias_dropout_add2"), "mlp_out", "x1", "y");
  cr_assert_eq(wg_block_end(g, "y", &err), SC_OK, "%s", err.msg);
}

/* transformer.c: head() */
static void head(wg_graph *g, const spec *m) {
  long x[2] = {m->seq, m->hidden};
  wg_op fnorm = norm(m, "final_norm"), logits = linear("logits", m->vocab, WG_TP_VOCAB, 0);
  wg_op loss = op("cross_entropy", WG_LOSS);
  sc_error err = {0};
  fnorm.host_fwd = fnorm.host_bwd = 2;
  logits.tied = m->tied;
  loss.fn = WG_FN_CROSS_ENTROPY;
  cr_assert_eq(wg_block_begin(g, "head", WG_ROLE_LAST, 1, "x", 2, x, WG_ELEM_ACT, &err), SC_OK,
               "%s", err.msg);
  add(g, fnorm, "x", NULL, "ln_f");
  add(g, logits, "ln_f", NULL, "logits");
  add(g, loss, "logits", NULL, "loss");
  cr_assert_eq(wg_block_end(g, "loss", &err), SC_OK, "%s", err.msg);
}

/* transformer.c: tf_model_flops() of a dense spec */
static double model_flops(const spec *m) {
  double h = m->hidden, d = m->head_dim, a = m->heads, kv = m->kv_heads, f = m->ffn;
  double attn = h * (a + 2 * kv) * d + a * d * h;
  double mlp = (m->swiglu ? 3.0 : 2.0) * h * f;
  double norms = (m->rmsnorm ? 2.0 : 4.0) * h;
  double bias = m->bias ? (a + 2 * kv) * d + 2 * h + (m->swiglu ? 2.0 : 1.0) * f : 0;
  double per_tok_layer = m->layers * (attn + mlp + norms + bias);
  double head_w = (double)m->vocab * h;
  double scores = 12.0 * m->layers * (double)m->seq * a * d;
  return (double)m->seq * (6.0 * (per_tok_layer + head_w) + scores);
}

static wg_graph *reference(const spec *m) {
  wg_graph *g = wg_new("reference", m->seq);
  sc_error err = {0};
  cr_assert_not_null(g);
  g->model_flops = model_flops(m);
  embedding(g, m);
  layer(g, m);
  head(g, m);
  cr_assert_eq(wg_finalize(g, &err), SC_OK, "%s", err.msg);
  return g;
}

/* ---------------------------------------------------------- comparing */

#define SAME(what, field, fmt)                                                         \
  cr_assert((a->field) == (b->field), "%s: " #field " is " fmt " in the JSON graph, " fmt \
            " in the reference", what, a->field, b->field)

/* "KIND 'NAME'" of the reference's element into what[64]; the names agree. */
static void same_name(char *what, const char *kind, const char *a, const char *b) {
  snprintf(what, 64, "%s '%s'", kind, b);
  cr_assert_str_eq(a, b, "%s is named '%s' in the JSON graph", what, a);
}

static void same_tensor(const wg_tensor *a, const wg_tensor *b) {
  char what[64];
  same_name(what, "tensor", a->name, b->name);
  SAME(what, rank, "%d");
  for (int i = 0; i < b->rank; i++) SAME(what, dim[i], "%ld");
  SAME(what, elem, "%d");
  SAME(what, producer, "%d");
  SAME(what, block, "%d");
  SAME(what, uses, "%d");
}

static void same_op(const wg_op *a, const wg_op *b) {
  char what[64];
  same_name(what, "op", a->name, b->name);
  SAME(what, kind, "%d"); SAME(what, fn, "%d"); SAME(what, tp, "%d");
  SAME(what, expert, "%d"); SAME(what, n_in, "%d"); SAME(what, out, "%d");
  for (int i = 0; i < b->n_in; i++) SAME(what, in[i], "%d");
  SAME(what, block, "%d"); SAME(what, features, "%ld"); SAME(what, in_features, "%ld");
  SAME(what, heads, "%ld"); SAME(what, kv_heads, "%ld"); SAME(what, head_dim, "%ld");
  SAME(what, experts, "%ld"); SAME(what, topk, "%ld"); SAME(what, vocab, "%ld");
  SAME(what, positions, "%ld"); SAME(what, causal, "%d"); SAME(what, bias, "%d");
  SAME(what, tied, "%d"); SAME(what, kernel, "%d"); SAME(what, stride, "%d");
  SAME(what, pad, "%d"); SAME(what, flops, "%g"); SAME(what, model_flops, "%g");
  SAME(what, params, "%g"); SAME(what, elems, "%g"); SAME(what, traffic_e, "%g");
  SAME(what, traffic_b, "%g"); SAME(what, bwd_scale, "%g"); SAME(what, host_fwd, "%d");
  SAME(what, host_bwd, "%d"); SAME(what, saved, "%u"); SAME(what, saved_elems, "%g");
  /* JSON graphs name no recompute modules: only attention's core_attn */
  SAME(what, saved_e, "%g"); SAME(what, saved_b, "%g"); SAME(what, recmod & (unsigned)SC_RECMOD_CORE_ATTN, "%u");
  SAME(what, linear_fn, "%d"); SAME(what, no_dropout, "%d");
}

static void same_block(const wg_block *a, const wg_block *b) {
  char what[64];
  same_name(what, "block", a->name, b->name);
  SAME(what, role, "%d"); SAME(what, count, "%d"); SAME(what, first_op, "%d");
  SAME(what, n_ops, "%d"); SAME(what, input, "%d"); SAME(what, output, "%d");
}

/* Graph a equals b block by block, op by op, tensor by tensor. */
static void same_graph(const wg_graph *a, const wg_graph *b) {
  const char *what = "the graph";
  SAME(what, seq, "%ld"); SAME(what, n_blocks, "%d"); SAME(what, n_ops, "%d");
  SAME(what, n_tensors, "%d"); SAME(what, layers, "%d"); SAME(what, finalized, "%d");
  SAME(what, model_flops, "%.17g"); SAME(what, opt.bytes_per_param, "%g");
  for (int i = 0; i < b->n_blocks; i++) same_block(&a->blocks[i], &b->blocks[i]);
  for (int i = 0; i < b->n_ops; i++) same_op(&a->ops[i], &b->ops[i]);
  for (int i = 0; i < b->n_tensors; i++) same_tensor(&a->tensors[i], &b->tensors[i]);
  cr_assert_eq(wg_params(a), wg_params(b));
}

/* ------------------------------------------------------------ helpers */

static wg_graph *load_file_ok(const char *rel) {
  char path[512];
  wg_graph *g = NULL;
  sc_error err = {0};
  snprintf(path, sizeof path, "%s/%s", SC_SOURCE_DIR, rel);
  int rc = graph_json_load_file(path, &g, &err);
  cr_assert_eq(rc, SC_OK, "%s: %s", rel, err.msg);
  cr_assert_eq(err.code, SC_OK);
  cr_assert_not_null(g);
  return g;
}

static wg_graph *load_ok(const char *json) {
  wg_graph *g = NULL;
  sc_error err = {0};
  int rc = graph_json_load_buffer(json, strlen(json), "t.json", &g, &err);
  cr_assert_eq(rc, SC_OK, "%s\n-> %s", json, err.msg);
  cr_assert_not_null(g);
  return g;
}

/* Load json and require `code` and every needle in the message. */
static void load_err(const char *json, int code, const char *const *needles, size_t n) {
  wg_graph *g = (wg_graph *)&g;
  sc_error err = {0};
  int rc = graph_json_load_buffer(json, strlen(json), "t.json", &g, &err);
  cr_assert_eq(rc, code, "%s\n-> rc %d, expected %d (msg: %s)", json, rc, code, err.msg);
  cr_assert_eq(err.code, code);
  cr_assert_null(g, "a failed load leaves *out NULL");
  char bare[sizeof err.msg];
  nopos(bare, sizeof bare, err.msg, "t.json");
  for (size_t i = 0; i < n; i++)
    cr_assert(strstr(bare, needles[i]) || strstr(err.msg, needles[i]),
              "%s\n-> message lacks \"%s\": %s", json, needles[i], err.msg);
}
#define NEEDLES(...) ((const char *const[]){__VA_ARGS__}), \
  sizeof((const char *const[]){__VA_ARGS__}) / sizeof(const char *)
#define ERR(json, ...) load_err(json, SC_EINPUT, NEEDLES(__VA_ARGS__))

/* A graph of one layer block with input x [4, 8] and the given operators. */
#define LAYER(ops, output)                                                              \
  "{\"blocks\": [{\"name\": \"layer\", \"input\": {\"name\": \"x\", \"shape\": [4, 8]}, " \
  "\"ops\": [" ops "], \"output\": \"" output "\"}]}"

/* ------------------------------------------------------------ examples */

Test(examples, gpt_2layer_is_what_the_transformer_builder_makes) {
  wg_graph *g = load_file_ok("examples/graphs/gpt-2layer.json"), *r = reference(&gpt);
  cr_assert_str_eq(g->name, "gpt-2layer");
  same_graph(g, r);
  wg_free(g);
  wg_free(r);
}

Test(examples, llama_2layer_is_what_the_transformer_builder_makes) {
  wg_graph *g = load_file_ok("examples/graphs/llama-2layer.json"), *r = reference(&llama);
  same_graph(g, r);
  wg_free(g);
  wg_free(r);
}

/* The operators of every block of the example, written in reverse. */
Test(order, operators_written_out_of_order_load_as_written_in_order) {
  char path[512];
  json_error_t je;
  snprintf(path, sizeof path, "%s/examples/graphs/llama-2layer.json", SC_SOURCE_DIR);
  json_t *root = json_load_file(path, 0, &je);
  cr_assert_not_null(root, "%s", je.text);
  json_t *blocks = json_object_get(root, "blocks");
  for (size_t b = 0; b < json_array_size(blocks); b++) {
    json_t *ops = json_object_get(json_array_get(blocks, b), "ops"), *rev = json_array();
    for (size_t i = json_array_size(ops); i-- > 0;) json_array_append(rev, json_array_get(ops, i));
    json_object_set_new(json_array_get(blocks, b), "ops", rev);
  }
  char *text = json_dumps(root, 0);
  wg_graph *g = load_ok(text), *r = reference(&llama);
  same_graph(g, r);
  wg_free(g);
  wg_free(r);
  free(text);
  json_decref(root);
}

Test(order, ties_keep_the_written_order) {
  /* a and b both read x: written b first, b stays first */
  wg_graph *g = load_ok(LAYER("{\"name\": \"c\", \"op\": \"add\", \"in\": [\"a\", \"b\"], "
                              "\"out\": \"c\"}, "
                              "{\"name\": \"b\", \"op\": \"relu\", \"in\": [\"x\"], \"out\": \"b\"}, "
                              "{\"name\": \"a\", \"op\": \"gelu\", \"in\": [\"x\"], \"out\": \"a\"}",
                              "c"));
  cr_assert_eq(g->n_ops, 3);
  cr_assert_str_eq(g->ops[0].name, "b");
  cr_assert_str_eq(g->ops[1].name, "a");
  cr_assert_str_eq(g->ops[2].name, "c");
  wg_free(g);
}

Test(format, defaults_and_presets) {
  wg_graph *g = load_ok(
      "{\"optimizer\": {\"bytes_per_param\": 18}, \"blocks\": [{\"name\": \"layer\", "
      "\"input\": {\"name\": \"x\", \"shape\": [4, 8]}, \"ops\": [{\"name\": \"fc\", \"op\": "
      "\"linear\", \"in\": [\"x\"], \"out\": \"y\", \"out_features\": 8, \"in_features\": 8, "
      "\"host_calls\": [5, 7], \"bwd_scale\": 3}], \"output\": \"y\"}]}");
  cr_assert_str_eq(g->name, "t.json", "the origin names a graph without a name");
  cr_assert_eq(g->seq, 0);
  cr_assert_eq(g->opt.bytes_per_param, 18);
  cr_assert_eq(g->blocks[0].role, WG_ROLE_LAYER);
  cr_assert_eq(g->blocks[0].count, 1);
  cr_assert_eq(g->tensors[g->blocks[0].input].elem, WG_ELEM_ACT);
  cr_assert_eq(g->ops[0].host_fwd, 5);
  cr_assert_eq(g->ops[0].host_bwd, 7);
  cr_assert_eq(g->ops[0].bwd_scale, 3);
  cr_assert_eq(g->model_flops, 3 * 2.0 * 4 * 8 * 8, "3 x the matmul FLOPs by default");
  wg_free(g);
}

Test(format, every_operator_loads) {
  wg_graph *g = load_ok(
      "{\"blocks\": [{\"name\": \"cnn\", \"role\": \"first\", \"input\": {\"name\": \"img\", "
      "\"shape\": [3, 8, 8]}, \"ops\": ["
      "{\"name\": \"c\", \"op\": \"conv2d\", \"in\": [\"img\"], \"out\": \"c\", "
      "\"out_channels\": 4, \"kernel\": 3, \"pad\": 1, \"bias\": true},"
      "{\"name\": \"bn\", \"op\": \"batchnorm\", \"in\": [\"c\"], \"out\": \"bn\"},"
      "{\"name\": \"mp\", \"op\": \"maxpool\", \"in\": [\"bn\"], \"out\": \"mp\", \"kernel\": 2, "
      "\"stride\": 2, \"shape\": [4, 4, 4]},"
      "{\"name\": \"gp\", \"op\": \"avgpool\", \"in\": [\"mp\"], \"out\": \"gp\", "
      "\"shape\": [4, 1, 1]},"
      "{\"name\": \"sc\", \"op\": \"scale\", \"in\": [\"gp\"], \"out\": \"f\"}], "
      "\"output\": \"f\"},"
      "{\"name\": \"mix\", \"input\": {\"name\": \"f\", \"shape\": [4, 1, 1]}, \"ops\": ["
      "{\"name\": \"d\", \"op\": \"dropout\", \"in\": [\"f\"], \"out\": \"y\"}], "
      "\"output\": \"y\"},"
      "{\"name\": \"tok\", \"input\": {\"name\": \"t\", \"shape\": [4, 1, 1]}, \"ops\": ["
      "{\"name\": \"sm\", \"op\": \"softmax\", \"in\": [\"t\"], \"out\": \"s\"}], "
      "\"output\": \"s\"}]}");
  cr_assert_eq(g->n_ops, 7);
  cr_assert_eq(g->ops[2].fn, WG_FN_MAX);
  cr_assert_eq(g->ops[3].fn, WG_FN_AVG);
  wg_free(g);
  g = load_ok(
      "{\"seq\": 4, \"blocks\": [{\"name\": \"moe\", \"repeat\": 3, \"input\": {\"name\": \"x\", "
      "\"shape\": [4, 8]}, \"ops\": ["
      "{\"name\": \"router\", \"op\": \"linear\", \"in\": [\"x\"], \"out\": \"r\", "
      "\"out_features\": 4},"
      "{\"name\": \"route\", \"op\": \"moe_route\", \"in\": [\"x\", \"r\"], \"out\": \"xr\", "
      "\"experts\": 4, \"topk\": 2},"
      "{\"name\": \"e1\", \"op\": \"linear\", \"in\": [\"xr\"], \"out\": \"h\", "
      "\"out_features\": 32, \"expert\": true, \"experts\": 4, \"parallel\": \"column\"},"
      "{\"name\": \"act\", \"op\": \"swiglu\", \"in\": [\"h\"], \"out\": \"a\"},"
      "{\"name\": \"e2\", \"op\": \"linear\", \"in\": [\"a\"], \"out\": \"o\", "
      "\"out_features\": 8, \"expert\": true, \"experts\": 4, \"parallel\": \"row\"},"
      "{\"name\": \"unroute\", \"op\": \"moe_unroute\", \"in\": [\"o\"], \"out\": \"m\", "
      "\"experts\": 4, \"topk\": 2, \"shape\": [4, 8]},"
      "{\"name\": \"res\", \"op\": \"add\", \"in\": [\"m\", \"x\"], \"out\": \"y\"},"
      "{\"name\": \"relu\", \"op\": \"relu\", \"in\": [\"y\"], \"out\": \"z\"}], "
      "\"output\": \"z\"},"
      "{\"name\": \"rec\", \"role\": \"last\", \"input\": {\"name\": \"x\", \"shape\": [4, 8]}, "
      "\"ops\": [{\"name\": \"i\", \"op\": \"interaction\", \"in\": [\"x\"], \"out\": \"p\"},"
      "{\"name\": \"v\", \"op\": \"scale\", \"in\": [\"p\"], \"out\": \"p2\"}],"
      "\"output\": \"p2\"}]}");
  cr_assert_eq(g->layers, 3);
  cr_assert_eq(g->ops[2].params, 4.0 * 8 * 32, "expert weights count every expert");
  wg_free(g);
  g = load_ok(
      "{\"blocks\": [{\"name\": \"bmm\", \"input\": {\"name\": \"a\", \"shape\": [2, 4, 8]}, "
      "\"ops\": [{\"name\": \"l\", \"op\": \"linear\", \"in\": [\"a\"], \"out\": \"b\", "
      "\"out_features\": 4},"
      "{\"name\": \"mm\", \"op\": \"matmul\", \"in\": [\"b\", \"b\"], \"out\": \"c\", "
      "\"parallel\": \"heads\", \"shape\": [2, 4, 4]}], \"output\": \"c\"}]}");
  cr_assert_eq(g->ops[1].kind, WG_MATMUL);
  cr_assert_eq(g->ops[1].tp, WG_TP_HEADS);
  cr_assert_eq(g->tensors[g->ops[0].out].uses, 2);
  wg_free(g);
}

/* -------------------------------------------------------------- errors */

Test(errors, cycle_names_the_operators_on_it) {
  ERR(LAYER("{\"name\": \"a\", \"op\": \"gelu\", \"in\": [\"b_out\"], \"out\": \"a_out\"}, "
            "{\"name\": \"b\", \"op\": \"add\", \"in\": [\"a_out\", \"x\"], \"out\": \"b_out\"}",
            "b_out"),
      "t.json: blocks[0].ops: ", "cycle: op 'a' -> op 'b' -> op 'a'");
  /* the walk starts at c, which only depends on the loop; the loop is
   * reported from its first written operator */
  ERR(LAYER("{\"name\": \"c\", \"op\": \"gelu\", \"in\": [\"e\"], \"out\": \"c\"}, "
            "{\"name\": \"d\", \"op\": \"gelu\", \"in\": [\"e\"], \"out\": \"d\"}, "
            "{\"name\": \"e\", \"op\": \"add\", \"in\": [\"d\", \"x\"], \"out\": \"e\"}",
            "c"),
      "cycle: op 'd' -> op 'e' -> op 'd'");
  ERR(LAYER("{\"name\": \"self\", \"op\": \"gelu\", \"in\": [\"s\"], \"out\": \"s\"}", "s"),
      "cycle: op 'self' -> op 'self'");
}

Test(errors, dangling_input) {
  ERR(LAYER("{\"name\": \"a\", \"op\": \"gelu\", \"in\": [\"q\"], \"out\": \"y\"}", "y"),
      "t.json: blocks[0].ops[0] (op \"a\"): ", "input 'q' is dangling", "tensors so far: x");
}

Test(errors, dangling_output) {
  ERR(LAYER("{\"name\": \"a\", \"op\": \"gelu\", \"in\": [\"x\"], \"out\": \"y\"}, "
            "{\"name\": \"b\", \"op\": \"relu\", \"in\": [\"x\"], \"out\": \"z\"}",
            "z"),
      "t.json: blocks[0].ops[0] (op \"a\"): ", "tensor 'y'", "dangling", "nothing reads it");
  ERR(LAYER("{\"name\": \"a\", \"op\": \"gelu\", \"in\": [\"x\"], \"out\": \"y\"}", "nope"),
      "t.json: blocks[0].output: ", "output 'nope' is not a tensor of the block");
}

Test(errors, shape_mismatch) {
  ERR(LAYER("{\"name\": \"a\", \"op\": \"linear\", \"in\": [\"x\"], \"out\": \"y\", "
            "\"out_features\": 16, \"shape\": [4, 32]}",
            "y"),
      "t.json: blocks[0].ops[0] (op \"a\"): ", "shape mismatch", "declares [4, 32]",
      "makes [4, 16]");
  ERR(LAYER("{\"name\": \"a\", \"op\": \"linear\", \"in\": [\"x\"], \"out\": \"y\", "
            "\"out_features\": 16, \"in_features\": 9}",
            "y"),
      "t.json: blocks[0].ops[0] (op \"a\"): ", "shape mismatch", "'x' is [4 x 8]",
      "in_features 9");
  ERR(LAYER("{\"name\": \"a\", \"op\": \"add\", \"in\": [\"x\", \"y\"], \"out\": \"z\"}, "
            "{\"name\": \"b\", \"op\": \"linear\", \"in\": [\"x\"], \"out\": \"y\", "
            "\"out_features\": 4}",
            "z"),
      "blocks[0].ops[0] (op \"a\"): ", "shape mismatch", "[4 x 4]");
  /* between blocks: the input of a block is the previous block's output */
  ERR("{\"blocks\": [{\"name\": \"a\", \"input\": {\"name\": \"x\", \"shape\": [4, 8]}, "
      "\"ops\": [{\"name\": \"g\", \"op\": \"gelu\", \"in\": [\"x\"], \"out\": \"y\"}], "
      "\"output\": \"y\"}, {\"name\": \"b\", \"input\": {\"name\": \"x\", \"shape\": [4, 9]}, "
      "\"ops\": [{\"name\": \"g\", \"op\": \"gelu\", \"in\": [\"x\"], \"out\": \"y\"}], "
      "\"output\": \"y\"}]}",
      "t.json: blocks[1].input: ", "shape mismatch", "[4 x 9]", "[4 x 8]");
  ERR("{\"seq\": 5, \"blocks\": [{\"name\": \"a\", \"input\": {\"name\": \"x\", \"shape\": [4, 8]}, "
      "\"ops\": [{\"name\": \"g\", \"op\": \"gelu\", \"in\": [\"x\"], \"out\": \"y\"}], "
      "\"output\": \"y\"}]}",
      "t.json: blocks[0].input.shape: ", "dimension 0 is 4 but seq is 5");
}

Test(errors, unknown_op_gets_a_suggestion_and_the_valid_ones) {
  ERR(LAYER("{\"name\": \"a\", \"op\": \"lineer\", \"in\": [\"x\"], \"out\": \"y\"}", "y"),
      "t.json: blocks[0].ops[0].op (op \"a\"): ", "unknown value string \"lineer\"",
      "did you mean \"linear\"?", "valid: linear, matmul, attention", "moe_unroute");
  ERR(LAYER("{\"name\": \"a\", \"op\": \"layer_norm\", \"in\": [\"x\"], \"out\": \"y\"}", "y"),
      "did you mean \"layernorm\"?");
}

Test(errors, unknown_key_gets_a_suggestion) {
  ERR(LAYER("{\"name\": \"a\", \"op\": \"linear\", \"in\": [\"x\"], \"out\": \"y\", "
            "\"out_featurs\": 4}",
            "y"),
      "t.json: blocks[0].ops[0].out_featurs (op \"a\"): ", "unknown key",
      "did you mean \"out_features\"?", "valid keys: name, op, in, out");
  ERR(LAYER("{\"name\": \"a\", \"op\": \"linear\", \"in\": [\"x\"], \"out\": \"y\", "
            "\"heads\": 4}",
            "y"),
      "blocks[0].ops[0].heads (op \"a\"): ", "does not apply to \"op\": \"linear\", which takes:",
      "out_features, in_features, bias, tied, parallel, expert, experts");
  ERR("{\"blokcs\": []}", "t.json: blokcs: unknown key; did you mean \"blocks\"?",
      "valid keys: name, seq, model_flops, optimizer, blocks");
  ERR("{\"blocks\": [{\"name\": \"a\", \"rol\": \"last\"}]}", "blocks[0].rol: ",
      "did you mean \"role\"?");
  ERR("{\"blocks\": [{\"name\": \"a\", \"input\": {\"name\": \"x\", \"shap\": [4]}}]}",
      "blocks[0].input.shap: ", "did you mean \"shape\"?");
  ERR("{\"optimizer\": {\"bytes\": 3}, \"blocks\": []}", "optimizer.bytes: ",
      "did you mean \"bytes_per_param\"?");
}

Test(errors, wrong_type_says_what_is_valid) {
  ERR(LAYER("{\"name\": \"a\", \"op\": \"linear\", \"in\": [\"x\"], \"out\": \"y\", "
            "\"out_features\": \"16\"}",
            "y"),
      "t.json: blocks[0].ops[0].out_features (op \"a\"): ",
      "expected an integer in 1..2^40, got string \"16\"");
  ERR(LAYER("{\"name\": \"a\", \"op\": \"linear\", \"in\": [\"x\"], \"out\": \"y\", "
            "\"out_features\": -16}",
            "y"),
      "got integer -16");
  ERR(LAYER("{\"name\": \"a\", \"op\": \"linear\", \"in\": [\"x\"], \"out\": \"y\", "
            "\"out_features\": 1099511627777}",
            "y"),
      "got integer 1099511627777");
  ERR(LAYER("{\"name\": \"a\", \"op\": \"linear\", \"in\": [\"x\"], \"out\": \"y\", "
            "\"out_features\": 8.0}",
            "y"),
      "expected an integer in 1..2^40, got number 8");
  ERR(LAYER("{\"name\": \"a\", \"op\": \"linear\", \"in\": [\"x\"], \"out\": \"y\", "
            "\"out_features\": 8, \"bias\": 1}",
            "y"),
      "blocks[0].ops[0].bias (op \"a\"): expected true or false, got integer 1");
  ERR(LAYER("{\"name\": \"a\", \"op\": \"attention\", \"in\": [\"x\"], \"out\": \"y\", "
            "\"parallel\": \"row\"}",
            "y"),
      "blocks[0].ops[0].parallel (op \"a\"): ", "unknown value string \"row\"",
      "valid: none, heads");
  ERR(LAYER("{\"name\": \"a\", \"op\": \"gelu\", \"in\": \"x\", \"out\": \"y\"}", "y"),
      "blocks[0].ops[0].in (op \"a\"): ", "expected an array of 1 to 4 tensor names");
  ERR(LAYER("{\"name\": \"a\", \"op\": \"gelu\", \"in\": [\"x\"], \"out\": \"y\", "
            "\"host_calls\": [1, 0]}",
            "y"),
      "blocks[0].ops[0].host_calls[1] (op \"a\"): ", "1..1000", "got integer 0");
  ERR(LAYER("{\"name\": \"a\", \"op\": \"linear\", \"in\": [\"x\"], \"out\": \"y\", "
            "\"out_features\": 8, \"experts\": 4}",
            "y"),
      "blocks[0].ops[0].experts (op \"a\"): ", "\"expert\": true");
  ERR("[1]", "t.json: (top level): expected a graph object");
  ERR("{\"blocks\": 3}", "t.json: blocks: expected a non-empty array of blocks, got integer 3");
  ERR("{\"blocks\": [{\"name\": \"a\", \"role\": \"head\"}]}", "blocks[0].role: ",
      "valid: layer, first, last");
  ERR("{\"blocks\": [{\"name\": \"a\", \"input\": {\"name\": \"x\", \"shape\": [4], "
      "\"dtype\": \"int8\"}}]}",
      "blocks[0].input.dtype: ", "valid: act, fp32, int, mask");
  ERR(LAYER("{\"name\": \"a\", \"op\": \"gelu\", \"in\": [\"x\"], \"out\": \"a_very_long_tensor_"
            "name_over_31_bytes\"}",
            "y"),
      "blocks[0].ops[0].out (op \"a\"): ", "a name of 1 to 31 characters");
  ERR("{\"blocks\": [{\"name\": \"a\", \"input\": {\"name\": \"x\", \"shape\": [4, 0]}}]}",
      "blocks[0].input.shape[1]: ", "got integer 0");
}

Test(errors, missing_keys_and_names_used_twice) {
  ERR(LAYER("{\"name\": \"a\", \"in\": [\"x\"], \"out\": \"y\"}", "y"),
      "blocks[0].ops[0].op (op \"a\"): missing");
  ERR(LAYER("{\"name\": \"a\", \"opp\": \"gelu\", \"in\": [\"x\"], \"out\": \"y\"}", "y"),
      "blocks[0].ops[0].opp (op \"a\"): unknown key; did you mean \"op\"?");
  ERR(LAYER("{\"name\": \"a\", \"op\": \"gelu\", \"in\": [\"x\"]}", "y"),
      "blocks[0].ops[0].out (op \"a\"): missing");
  ERR("{\"name\": \"g\"}", "t.json: blocks: missing");
  ERR(LAYER("{\"name\": \"a\", \"op\": \"gelu\", \"in\": [\"x\"], \"out\": \"y\"}, "
            "{\"name\": \"b\", \"op\": \"relu\", \"in\": [\"x\"], \"out\": \"y\"}",
            "y"),
      "blocks[0].ops[1] (op \"b\"): ", "output 'y' is also the output of blocks[0].ops[0]");
  ERR(LAYER("{\"name\": \"a\", \"op\": \"gelu\", \"in\": [\"x\"], \"out\": \"y\"}, "
            "{\"name\": \"a\", \"op\": \"relu\", \"in\": [\"y\"], \"out\": \"z\"}",
            "z"),
      "blocks[0].ops[1] (op \"a\"): ", "also the name of blocks[0].ops[0]");
  ERR("{\"blocks\": [{\"name\": \"a\", \"input\": {\"name\": \"x\", \"shape\": [4, 8]}, "
      "\"ops\": [{\"name\": \"g\", \"op\": \"gelu\", \"in\": [\"x\"], \"out\": \"y\"}], "
      "\"output\": \"y\"}, {\"name\": \"a\", \"input\": {\"name\": \"x\", \"shape\": [4, 8]}, "
      "\"ops\": [{\"name\": \"g\", \"op\": \"gelu\", \"in\": [\"x\"], \"out\": \"y\"}], "
      "\"output\": \"y\"}]}",
      "blocks[1].name: ", "also the name of blocks[0]");
}

Test(errors, block_order_and_roles) {
  ERR("{\"blocks\": [{\"name\": \"h\", \"role\": \"last\", \"input\": {\"name\": \"x\", "
      "\"shape\": [4, 8]}, \"ops\": [{\"name\": \"g\", \"op\": \"gelu\", \"in\": [\"x\"], "
      "\"out\": \"y\"}], \"output\": \"y\"}, {\"name\": \"l\", \"input\": {\"name\": \"x\", "
      "\"shape\": [4, 8]}, \"ops\": [{\"name\": \"g\", \"op\": \"gelu\", \"in\": [\"x\"], "
      "\"out\": \"y\"}], \"output\": \"y\"}]}",
      "t.json: blocks[1]: ", "a layer block cannot follow a last block");
  ERR("{\"blocks\": [{\"name\": \"e\", \"role\": \"first\", \"repeat\": 2, \"input\": {\"name\": "
      "\"x\", \"shape\": [4, 8]}, \"ops\": [{\"name\": \"g\", \"op\": \"gelu\", \"in\": [\"x\"], "
      "\"out\": \"y\"}], \"output\": \"y\"}]}",
      "t.json: blocks[0]: ", "runs once");
  ERR("{\"blocks\": [{\"name\": \"e\", \"role\": \"first\", \"input\": {\"name\": "
      "\"x\", \"shape\": [4, 8]}, \"ops\": [{\"name\": \"g\", \"op\": \"gelu\", \"in\": [\"x\"], "
      "\"out\": \"y\"}], \"output\": \"y\"}]}",
      "t.json: blocks: ", "no layer block");
}

Test(errors, syntax_error_has_line_and_column) {
  ERR("{\n  \"blocks\": [\n  }", "t.json:3:3: invalid JSON: ");
  ERR("{\"blocks\": [], \"blocks\": []}", "t.json:1:", "invalid JSON", "duplicate");
}

Test(errors, unreadable_file_is_eio) {
  wg_graph *g = (wg_graph *)&g;
  sc_error err = {0};
  cr_assert_eq(graph_json_load_file("/nonexistent/model.json", &g, &err), SC_EIO);
  cr_assert_null(g);
  cr_assert(strstr(err.msg, "/nonexistent/model.json: cannot read"), "%s", err.msg);
  cr_assert_eq(graph_json_load_file(SC_SOURCE_DIR "/examples", &g, &err), SC_EIO, "%s",
               err.msg);
  cr_assert(strstr(err.msg, "/examples: is a directory"), "%s", err.msg);
}

Test(errors, file_syntax_error_names_the_path) {
  char path[] = "/tmp/test_graph_json_XXXXXX";
  tmp_write(path, "{\"blocks\": [\n  {\"name\": x}\n]}\n");
  wg_graph *g = NULL;
  sc_error err = {0};
  int rc = graph_json_load_file(path, &g, &err);
  remove(path);
  cr_assert_eq(rc, SC_EINPUT);
  char want[64];
  snprintf(want, sizeof want, "%s:2:", path);
  cr_assert(strstr(err.msg, want) && strstr(err.msg, "invalid JSON"), "%s", err.msg);
}

/* Every allocation of the loader failing in turn: SC_ENOMEM with a
 * message and nothing leaked (builds with SC_ALLOC_FAULTS only). */
Test(errors, out_of_memory_at_every_allocation) {
  char path[512];
  snprintf(path, sizeof path, "%s/examples/graphs/gpt-2layer.json", SC_SOURCE_DIR);
  if (!mem_fail_after(-1)) cr_skip_test("allocation faults are not compiled in");
  for (long n = 0;; n++) {
    wg_graph *g = NULL;
    sc_error err = {0};
    mem_fail_after(n);
    int rc = graph_json_load_file(path, &g, &err);
    mem_fail_after(-1);
    if (rc == SC_OK) {
      cr_assert(n > 0);
      wg_free(g);
      break;
    }
    cr_assert_eq(rc, SC_ENOMEM, "allocation %ld: %s", n, err.msg);
    cr_assert_null(g);
    cr_assert(strstr(err.msg, "out of memory"), "allocation %ld: %s", n, err.msg);
  }
}
