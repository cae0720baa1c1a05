/*
 * test_dropout.c -- dropout rates of the transformer builder: the rates
 * presets state, the scenario keys and their defaults, what a rate of 0
 * removes (the 1-byte masks kept for backward, the unfused attention's
 * dropout kernel and mask, the mask byte of bias-dropout-add's traffic),
 * each against arithmetic a reader can redo, and the rule validation rows
 * follow.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "gpt4.h"
#include "graph/graph.h"
#include "load/graph_json.h"
#include "predict.h" /* predict_ok */
#include "stepcast.h"
#include "validate/rowdefaults.h"

/* The operator of one layer named `name`, or NULL. */
static const sc_op_time *op_named(const sc_op_time *ops, int n, const char *name) {
  for (int i = 0; i < n; i++)
    if (!strcmp(ops[i].name, name)) return &ops[i];
  return NULL;
}

static int layer_ops(const sc_scenario *s, sc_op_time *ops, int max) {
  sc_error err = {0};
  int n = sc_explain_layer(s, ops, max, &err);
  cr_assert_gt(n, 0, "%s", err.msg);
  return n;
}

/* ------------------------------------------------------------ presets */

Test(presets, state_the_rates_of_their_published_configs) {
  static const char *const none[] = {"llama2-7b", "llama3-70b", "llama3.1-405b", "mixtral-8x7b",
                                     "mixtral-8x22b", "qwen3-235b-a22b", "qwen3-30b-a3b",
                                     "llama4-scout", "deepseek-v3", "nemotron4-15b",
                                     "nemotron4-340b", "mpt-7b", "mpt-70b"};
  static const char *const megatron[] = {"gpt3-125m", "gpt3-175b", "megatron-1.7b", "megatron-1t"};
  for (size_t i = 0; i < sizeof none / sizeof *none; i++) {
    const sc_model *m = sc_model_preset(none[i]);
    cr_assert_not_null(m, "%s", none[i]);
    cr_assert(m->tf.attention_dropout == 0 && m->tf.hidden_dropout == 0, "%s: %g, %g", none[i],
              m->tf.attention_dropout, m->tf.hidden_dropout);
  }
  for (size_t i = 0; i < sizeof megatron / sizeof *megatron; i++) {
    const sc_model *m = sc_model_preset(megatron[i]);
    cr_assert_not_null(m, "%s", megatron[i]);
    cr_assert(m->tf.attention_dropout == 0.1 && m->tf.hidden_dropout == 0.1, "%s: %g, %g",
              megatron[i], m->tf.attention_dropout, m->tf.hidden_dropout);
  }
}

/* ----------------------------------------------------------- scenario */

static sc_scenario load_ok(const char *doc) {
  sc_scenario s;
  sc_error err = {0};
  cr_assert_eq(sc_scenario_load_string(&s, doc, "t.json", NULL, 0, &err), SC_OK, "%s: %s", doc,
               err.msg);
  return s;
}

static void load_fails(const char *doc, const char *words) {
  sc_scenario s;
  sc_error err = {0};
  cr_assert_eq(sc_scenario_load_string(&s, doc, "t.json", NULL, 0, &err), SC_EINPUT, "%s", doc);
  cr_assert(strstr(err.msg, words), "%s: '%s' lacks '%s'", doc, err.msg, words);
}

Test(scenario, a_model_without_a_preset_keeps_megatrons_default) {
  sc_scenario s = load_ok("{\"model\": {\"layers\": 8, \"hidden\": 1024, \"heads\": 16}, "
                          "\"plan\": {\"pp\": 1}}");
  cr_assert_eq(s.model.tf.attention_dropout, 0.1);
  cr_assert_eq(s.model.tf.hidden_dropout, 0.1);
}

Test(scenario, a_preset_brings_its_rates_and_the_keys_change_them) {
  sc_scenario s = load_ok("{\"model\": \"llama3-8b\"}");
  cr_assert(s.model.tf.attention_dropout == 0 && s.model.tf.hidden_dropout == 0);
  s = load_ok("{\"model\": {\"preset\": \"llama3-8b\", \"hidden_dropout\": 0.1}}");
  cr_assert(s.model.tf.attention_dropout == 0 && s.model.tf.hidden_dropout == 0.1);
  cr_assert_str_eq(s.model.name, "llama3-8b"); /* a rate changes no shape */
  s = load_ok("{\"model\": {\"preset\": \"gpt3-1.3b\", \"attention_dropout\": 0}, "
              "\"plan\": {\"pp\": 1}}");
  cr_assert(s.model.tf.attention_dropout == 0 && s.model.tf.hidden_dropout == 0.1);
}

Test(scenario, rates_outside_0_to_below_1_and_on_graphs_are_refused) {
  load_fails("{\"model\": {\"hidden_dropout\": 1.5}}", "model.hidden_dropout");
  load_fails("{\"model\": {\"attention_dropout\": -0.1}}", "model.attention_dropout");
  /* the type error names the whole valid range too, not only its floor */
  load_fails("{\"model\": {\"attention_dropout\": \"none\"}}",
             "model.attention_dropout: expected a probability in [0, 1)");
  /* a rate of 1 is refused, not costed as a masked dropout (docs/input.md) */
  load_fails("{\"model\": {\"hidden_dropout\": 1}}",
             "model.hidden_dropout: 1 is out of range (valid: a probability in [0, 1)");
  load_fails("{\"model\": {\"attention_dropout\": 1}}", "1 is refused: it drops everything), below 1");
  load_fails("{\"model\": {\"graph\": \"x.json\", \"hidden_dropout\": 0}}",
             "model.hidden_dropout: applies to transformer specs");
  load_fails("{\"model\": {\"preset\": \"bert_large\", \"hidden_dropout\": 0}}",
             "model.hidden_dropout does not apply to bert_large");
}

Test(scenario, the_builder_checks_a_spec_filled_by_hand) {
  sc_scenario s = gpt4_h100(0.1, 2.0);
  sc_result r;
  sc_error err = {0};
  cr_assert_eq(sc_predict(&s, &r, &err), SC_EINPUT);
  cr_assert(strstr(err.msg, "model.hidden_dropout: 2 is not a probability below 1 (valid: 0 <= rate < 1"),
            "%s", err.msg);
  s = gpt4_h100(1, 0.1); /* 1 itself: refused, not costed like 0.5 */
  cr_assert_eq(sc_predict(&s, &r, &err), SC_EINPUT);
  cr_assert(strstr(err.msg, "model.attention_dropout: 1 is not a probability below 1"), "%s", err.msg);
  s = gpt4_h100(0.1, 1);
  cr_assert_eq(sc_predict(&s, &r, &err), SC_EINPUT);
  cr_assert(strstr(err.msg, "model.hidden_dropout: 1 is not a probability below 1"), "%s", err.msg);
  s = gpt4_h100(nextafter(1, 0), nextafter(1, 0)); /* just below 1: a rate */
  cr_assert_eq(sc_predict(&s, &r, &err), SC_OK, "%s", err.msg);
  s = gpt4_h100(NAN, 0.1); /* NaN fails both comparisons */
  cr_assert_eq(sc_predict(&s, &r, &err), SC_EINPUT);
  cr_assert(strstr(err.msg, "model.attention_dropout: nan is not a probability"), "%s", err.msg);
}

/* ------------------------------------------------------------- memory */

Test(memory, hidden_dropout_0_keeps_no_masks) {
  /* two bias-dropout-adds a layer, each a 1-byte mask of s x h elements
   * a sequence: 8 sequences x 4 layers x 2 x 1024 x 1024 bytes = 64 MiB */
  sc_scenario s = gpt4_h100(0.1, 0.1), t = gpt4_h100(0.1, 0);
  s.plan.global_batch = s.plan.micro_batch = t.plan.global_batch = t.plan.micro_batch = 8;
  sc_result a = predict_ok(&s), b = predict_ok(&t);
  cr_assert_float_eq(a.mem.activations - b.mem.activations, 8.0 * 4 * 2 * 1024 * 1024, 1e-3,
                     "%.0f - %.0f", a.mem.activations, b.mem.activations);
  cr_assert_lt(b.step_s, a.step_s, "%g vs %g", b.step_s, a.step_s);
}

Test(memory, flash_attention_keeps_no_mask_either_way) {
  sc_scenario s = gpt4_h100(0.1, 0.1), t = gpt4_h100(0, 0.1);
  sc_result a = predict_ok(&s), b = predict_ok(&t);
  cr_assert_eq(a.mem.activations, b.mem.activations);
  cr_assert_eq(a.step_s, b.step_s);
}

Test(memory, unfused_attention_at_0_keeps_the_softmax_output_alone) {
  /* the scores kept: softmax output, mask and dropout output (2e + 1 = 5
   * bytes a score in bf16) against the softmax output (e = 2): 3 bytes of
   * 16 heads x 1024 x 1024 scores a layer, 4 layers */
  sc_scenario s = gpt4_h100(0.1, 0.1), t = gpt4_h100(0, 0.1);
  s.plan.flash_attention = t.plan.flash_attention = 0;
  s.plan.attention = t.plan.attention = SC_ATTN_UNFUSED;
  sc_result a = predict_ok(&s), b = predict_ok(&t);
  cr_assert_float_eq(a.mem.activations - b.mem.activations, 4.0 * 3 * 16 * 1024 * 1024, 1e-3,
                     "%.0f - %.0f", a.mem.activations, b.mem.activations);
  cr_assert_lt(b.step_s, a.step_s, "%g vs %g", b.step_s, a.step_s);
}

/* ------------------------------------------------------------ kernels */

Test(kernels, no_dropout_kernel_and_no_mask_byte_at_0) {
  sc_op_time ops[64];
  sc_scenario s = gpt4_h100(0.1, 0.1), t = gpt4_h100(0, 0);
  s.plan.flash_attention = t.plan.flash_attention = 0;
  s.plan.attention = t.plan.attention = SC_ATTN_UNFUSED;
  int n = layer_ops(&s, ops, 64);
  const sc_op_time *d = op_named(ops, n, "attn_dropout");
  cr_assert_not_null(d, "the unfused attention drops out at 0.1");
  /* forward: read and write 2-byte scores and write the mask, 5 bytes a score */
  cr_assert_float_eq(d->bytes, 5.0 * 16 * 1024 * 1024, 1e-3, "%g", d->bytes);
  const sc_op_time *bda = op_named(ops, n, "bias_dropout_add1");
  cr_assert_not_null(bda);
  cr_assert_float_eq(bda->bytes, 1024.0 * 1024 * 7, 1e-3, "%g", bda->bytes); /* 3e + 1 */
  n = layer_ops(&t, ops, 64);
  cr_assert_null(op_named(ops, n, "attn_dropout"), "no dropout kernel at a rate of 0");
  bda = op_named(ops, n, "bias_dropout_add1");
  cr_assert_not_null(bda);
  cr_assert_float_eq(bda->bytes, 1024.0 * 1024 * 6, 1e-3, "%g", bda->bytes); /* 3e */
}

Test(kernels, unfused_bias_dropout_add_at_0_is_bias_add_and_residual_add) {
  /* without Megatron's fusion: bias add (2 passes) + residual add (3
   * passes), 5 passes of 2 bytes, against 8 passes with dropout */
  sc_op_time ops[64];
  sc_scenario s = gpt4_h100(0, 0);
  s.plan.fused_kernels = 0;
  int n = layer_ops(&s, ops, 64);
  const sc_op_time *bda = op_named(ops, n, "bias_dropout_add2");
  cr_assert_not_null(bda);
  cr_assert_float_eq(bda->bytes, 1024.0 * 1024 * 10, 1e-3, "%g", bda->bytes);
}

/* --------------------------------------------------------- validation */

Test(validation, rows_take_the_rates_of_the_preset_they_name_else_megatrons) {
  sc_transformer m;
  memset(&m, 0, sizeof m);
  rowd_architecture("GPT-1.7B", "", &m, NULL, 0);
  cr_assert(m.attention_dropout == 0.1 && m.hidden_dropout == 0.1);
  rowd_architecture("MPT-7b", "FSDP (FULL_SHARD), flash attention", &m, NULL, 0);
  cr_assert(m.attention_dropout == 0 && m.hidden_dropout == 0);
  rowd_architecture("Nemotron-4-340B", "", &m, NULL, 0);
  cr_assert(m.attention_dropout == 0 && m.hidden_dropout == 0);
  rowd_architecture("GPT-3-175B", "", &m, NULL, 0);
  cr_assert(m.attention_dropout == 0.1 && m.hidden_dropout == 0.1);
  rowd_architecture("GPT", "trained with no dropout", &m, NULL, 0);
  cr_assert(m.attention_dropout == 0 && m.hidden_dropout == 0);
}

/* --------------------------------------------------------- JSON graphs */

/* One layer block [4, 8] -> y: a bias-dropout-add of x with itself. */
#define BDA_LAYER(extra)                                                                  \
  "{\"blocks\": [{\"name\": \"layer\", \"input\": {\"name\": \"x\", \"shape\": [4, 8]}, " \
  "\"ops\": [{\"name\": \"b\", \"op\": \"bias_dropout_add\", \"in\": [\"x\", \"x\"], "    \
  "\"out\": \"y\"" extra "}], \"output\": \"y\"}]}"

static int load(const char *json, wg_graph **g, sc_error *err) {
  return graph_json_load_buffer(json, strlen(json), "t.json", g, err);
}

Test(graph_json, no_dropout_drops_the_mask_of_bias_dropout_add) {
  wg_graph *g = NULL, *h = NULL;
  sc_error err = {0};
  cr_assert_eq(load(BDA_LAYER(""), &g, &err), SC_OK, "%s", err.msg);
  cr_assert_eq(load(BDA_LAYER(", \"no_dropout\": true"), &h, &err), SC_OK, "%s", err.msg);
  const wg_op *a = &g->ops[0], *b = &h->ops[0];
  cr_assert(a->traffic_b == 1 && a->saved_elems == 32 && a->saved_b == 1, "%g %g %g",
            a->traffic_b, a->saved_elems, a->saved_b);
  cr_assert(b->no_dropout && b->traffic_b == 0 && b->saved_elems == 0, "%g %g", b->traffic_b,
            b->saved_elems);
  cr_assert_eq(a->traffic_e, b->traffic_e); /* 3e both */
  wg_free(g);
  wg_free(h);
  cr_assert_eq(load(BDA_LAYER(", \"no_dropout\": 1"), &g, &err), SC_EINPUT);
  cr_assert(strstr(err.msg, "no_dropout") && strstr(err.msg, "true or false"), "%s", err.msg);
}

Test(graph_json, no_dropout_applies_to_attention_and_bias_dropout_add_only) {
  const char *doc =
      "{\"blocks\": [{\"name\": \"layer\", \"input\": {\"name\": \"x\", \"shape\": [4, 8]}, "
      "\"ops\": [{\"name\": \"a\", \"op\": \"relu\", \"in\": [\"x\"], \"out\": \"y\", "
      "\"no_dropout\": true}], \"output\": \"y\"}]}";
  wg_graph *g = NULL;
  sc_error err = {0};
  cr_assert_eq(load(doc, &g, &err), SC_EINPUT);
  cr_assert(strstr(err.msg, "no_dropout") && strstr(err.msg, "does not apply"), "%s", err.msg);
}
