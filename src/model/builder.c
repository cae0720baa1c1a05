/*
 * builder.c -- the table of model builders; see builder.h.
 */
#include "model/builder.h"

static const model_builder *const builders[SC_MODEL_KIND_COUNT] = {
    [SC_MODEL_TRANSFORMER] = &model_transformer,
    [SC_MODEL_GRAPH] = &model_graph,
    [SC_MODEL_CNN] = &model_cnn,
    [SC_MODEL_BERT] = &model_bert,
};

const model_builder *model_builder_for(sc_model_kind k) {
  return (unsigned)k < SC_MODEL_KIND_COUNT ? builders[k] : NULL;
}

double model_params_from_graph(const model_builder *b, const sc_model *model) {
  sc_model m = *model;
  wg_graph *g = NULL;
  if (b->resolve(&m, NULL) != SC_OK || b->build(&m, &g, NULL) != SC_OK) return -1;
  double p = wg_params(g);
  wg_free(g);
  return p;
}

int model_build_done(wg_graph *g, int rc, wg_graph **out, sc_error *err) {
  if (rc || (rc = wg_finalize(g, err))) {
    wg_free(g);
    return rc;
  }
  *out = g;
  return SC_OK;
}

double sc_model_params(const sc_model *m) {
  const model_builder *b = model_builder_for(m->kind);
  double p = b ? b->params(m) : 0;
  return p > 0 ? p : 0;
}

double sc_model_active_params(const sc_model *m) {
  const model_builder *b = model_builder_for(m->kind);
  double p = b ? b->active_params(m) : 0;
  return p > 0 ? p : 0;
}
