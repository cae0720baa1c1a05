/*
 * test_graph_model.c -- a transformer written as a JSON workload graph
 * (examples/graphs/) predicts exactly what the transformer builder does
 * for the same shape, under every plan; bad graphs fail the scenario with
 * the graph's own message.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "stepcast.h"

#define GRAPHS SC_SOURCE_DIR "/examples/graphs/"

/* The scenario of a model (preset edited, or a graph file) on a cluster
 * of `gpus` GPUs with a plan of tp, pp, sp. */
static sc_scenario scenario(const sc_model *m, const char *gpu, int gpus, int tp, int pp, int sp,
                            long gb, long mb) {
  sc_scenario s;
  sc_scenario_default(&s);
  s.model = *m;
  s.cluster.gpu = *sc_gpu_preset(gpu);
  s.cluster.gpus = gpus;
  s.plan.tp = tp;
  s.plan.pp = pp;
  s.plan.dp = 0;
  s.plan.sp = sp;
  s.plan.global_batch = gb;
  s.plan.micro_batch = mb;
  return s;
}

static sc_model graph_model(const char *file) {
  sc_model m;
  memset(&m, 0, sizeof m);
  m.kind = SC_MODEL_GRAPH;
  snprintf(m.name, sizeof m.name, "graph");
  snprintf(m.graph.path, sizeof m.graph.path, "%s%s", GRAPHS, file);
  return m;
}

static void same(const sc_model *tf, const sc_model *gr, const char *gpu, int gpus, int tp, int pp,
                 int sp, long gb, long mb, sc_recompute rec) {
  sc_scenario a = scenario(tf, gpu, gpus, tp, pp, sp, gb, mb);
  sc_scenario b = scenario(gr, gpu, gpus, tp, pp, sp, gb, mb);
  a.plan.recompute = b.plan.recompute = rec;
  sc_result ra, rb;
  sc_error err = {0};
  cr_assert_eq(sc_predict(&a, &ra, &err), SC_OK, "builder: %s", err.msg);
  cr_assert_eq(sc_predict(&b, &rb, &err), SC_OK, "graph: %s", err.msg);
  cr_assert(ra.step_s == rb.step_s,
            "tp %d pp %d sp %d mb %ld recompute %d: builder %.9g s, graph %.9g s", tp, pp, sp, mb,
            (int)rec, ra.step_s, rb.step_s);
  cr_assert(ra.mem.total == rb.mem.total && ra.mfu == rb.mfu, "memory %g vs %g, MFU %g vs %g",
            ra.mem.total, rb.mem.total, ra.mfu, rb.mfu);
  /* the builder's parameter count takes a final norm of 2 h whatever the
   * norm, the graph counts what the norm has (RMSNorm: h) */
  cr_assert(fabs(ra.params - rb.params) <= 2.0 * 16384, "params %g vs %g", ra.params, rb.params);
}

Test(graph_model, gpt_two_layers_as_json_is_the_builder) {
  sc_model tf = *sc_model_preset("gpt3-125m");
  tf.tf.layers = 2;
  sc_model gr = graph_model("gpt-2layer.json");
  same(&tf, &gr, "a100-sxm4-80gb", 8, 1, 1, 0, 64, 8, SC_RECOMP_NONE);
  same(&tf, &gr, "a100-sxm4-80gb", 8, 4, 1, 1, 64, 2, SC_RECOMP_SELECTIVE);
  same(&tf, &gr, "a100-sxm4-80gb", 16, 2, 2, 0, 64, 1, SC_RECOMP_FULL);
}

Test(graph_model, llama_two_layers_as_json_is_the_builder) {
  sc_model tf = *sc_model_preset("llama3-8b");
  tf.tf.layers = 2;
  tf.tf.hidden = 4096;
  sc_model gr = graph_model("llama-2layer.json");
  same(&tf, &gr, "h100-sxm5-80gb", 8, 8, 1, 1, 32, 1, SC_RECOMP_SELECTIVE);
  same(&tf, &gr, "h100-sxm5-80gb", 16, 4, 2, 1, 32, 1, SC_RECOMP_NONE);
}

Test(graph_model, overrides_name_the_graphs_blocks) {
  sc_model gr = graph_model("gpt-2layer.json");
  sc_scenario s = scenario(&gr, "a100-sxm4-80gb", 8, 1, 1, 0, 64, 8);
  sc_override_init(&s.plan.overrides[0]);
  strcpy(s.plan.overrides[0].block, "decoder");
  s.plan.n_overrides = 1;
  sc_result r;
  sc_error err = {0};
  cr_assert_eq(sc_predict(&s, &r, &err), SC_EINPUT);
  cr_assert(strstr(err.msg, "block \"decoder\" is not a block of the graph (valid: embedding, "
                            "layer, head)"),
            "%s", err.msg);
  s.plan.overrides[0] = (sc_override){.first = 1, .last = 1, .tp = SC_INHERIT, .cp = SC_INHERIT,
                                      .ep = SC_INHERIT, .sp = SC_INHERIT, .zero = SC_INHERIT,
                                      .recompute = SC_RECOMP_FULL};
  cr_assert_eq(sc_predict(&s, &r, &err), SC_OK, "%s", err.msg);
  s.plan.pp = 3; /* the graph has two layers */
  s.cluster.gpus = 6;
  cr_assert_eq(sc_predict(&s, &r, &err), SC_EINPUT);
  cr_assert(strstr(err.msg, "plan.pp: 3 does not divide the 2 layers of the model (each stage holds whole layers); valid pp: 1, 2"),
            "%s", err.msg);
}

Test(graph_model, a_scenario_reports_the_graphs_errors) {
  const char *doc = "{\"model\": {\"graph\": \"" SC_SOURCE_DIR "/tests/no-such-graph.json\"}}";
  sc_scenario s;
  sc_error err = {0};
  cr_assert_eq(sc_scenario_load_string(&s, doc, "t.json", NULL, 0, &err), SC_EIO, "%s", err.msg);
  cr_assert(strstr(err.msg, "no-such-graph.json"), "%s", err.msg);
  cr_assert_eq(sc_scenario_load_string(&s, "{\"model\": {\"graph\": \"x.json\", \"layers\": 4}}",
                                       "t.json", NULL, 0, &err),
               SC_EINPUT);
  cr_assert(strstr(err.msg, "a graph model takes its shape from the graph file; drop model.layers"),
            "%s", err.msg);
}
