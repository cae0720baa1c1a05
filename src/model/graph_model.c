/*
 * graph_model.c -- the builder of SC_MODEL_GRAPH: a workload graph read
 * from a JSON file (format: docs/graph.md, loader: src/load/graph_json.c).
 */
#include "load/graph_json.h"
#include "model/builder.h"
#include "model/optimizer.h"

static int gm_resolve(sc_model *m, sc_error *err) {
  m->name[sizeof m->name - 1] = '\0';
  m->graph.path[sizeof m->graph.path - 1] = '\0';
  if (!m->graph.path[0])
    return sc_error_set(err, SC_EINPUT,
                        "model.graph: required for a graph model (the path of a JSON "
                        "workload graph, docs/graph.md)");
  return optim_check_blank(m, "graph",
                           "Adam, or the graph file's optimizer.bytes_per_param (docs/graph.md)",
                           err);
}

static int gm_build(const sc_model *m, wg_graph **out, sc_error *err) {
  return graph_json_load_file(m->graph.path, out, err);
}

/* The spec alone does not tell: the graph file does. */
static double gm_params(const sc_model *m) {
  (void)m;
  return -1;
}

const model_builder model_graph = {SC_MODEL_GRAPH, "graph", gm_resolve, gm_build, gm_params,
                                   gm_params};
