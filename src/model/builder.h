/*
 * builder.h -- model builders: from a model spec to a workload graph
 * (module prefix: model_).
 *
 * sc_model is a tagged spec (stepcast.h); each kind has one builder,
 * one file behind this table of functions:
 *   transformer.c   SC_MODEL_TRANSFORMER: dense, GQA, SwiGLU and MoE
 *                   decoder-only transformers (Megatron-LM's GPT layer);
 *   graph_model.c   SC_MODEL_GRAPH: a workload graph read from a JSON file
 *                   (src/load/graph_json.c, docs/graph.md);
 *   cnn.c           SC_MODEL_CNN: ResNet v1/v1.5, VGG16, Inception-v3,
 *                   AlexNet;
 *   bert.c          SC_MODEL_BERT: BERT with its pre-training heads.
 * Other builders (DLRM) plug in here the same way.
 */
#ifndef SC_MODEL_BUILDER_H
#define SC_MODEL_BUILDER_H

#include "graph/graph.h"
#include "stepcast.h"

typedef struct model_builder {
  sc_model_kind kind;
  const char *name;       /* "transformer", "graph" */
  /* Check the spec and fill its derived fields (0 = derive). SC_OK or
   * SC_EINPUT with the key path (model.heads, ...). Reads no file. */
  int (*resolve)(sc_model *m, sc_error *err);
  /* Build the workload graph of a resolved spec. On success *out owns a
   * finalized graph (wg_free); SC_EINPUT, SC_EIO or SC_ENOMEM otherwise. */
  int (*build)(const sc_model *m, wg_graph **out, sc_error *err);
  /* Parameters (all experts) and those one token uses; negative when the
   * spec alone does not tell (a graph file). */
  double (*params)(const sc_model *m);
  double (*active_params)(const sc_model *m);
} model_builder;

/* Parameters of a spec that only its graph counts: resolve a copy with
 * b's resolve, build it with b's build, count the graph's parameters;
 * -1 when the spec does not build. For a builder's `params`. */
double model_params_from_graph(const model_builder *b, const sc_model *m);

/* The end of a builder's build: g (which the call takes over) was built
 * with result rc. When rc is SC_OK g is finalized (wg_finalize) and, if
 * that succeeds, handed to *out; on any failure g is freed. Returns the
 * result. */
int model_build_done(wg_graph *g, int rc, wg_graph **out, sc_error *err);

/* The builder of kind k; NULL for an unknown kind. */
const model_builder *model_builder_for(sc_model_kind k);

/* The builders, defined in their own files. */
extern const model_builder model_transformer;
extern const model_builder model_graph;
extern const model_builder model_cnn;
extern const model_builder model_bert;

/* 1 when a is a ResNet (bottleneck blocks: the architectures that take
 * sc_cnn.fused_bn), else 0. */
int model_cnn_is_resnet(sc_cnn_arch a);
/* 1 when Keras' applications define a (ResNet50/101/152, which are v1,
 * VGG16, InceptionV3: the architectures that take sc_cnn.keras), else 0. */
int model_cnn_in_keras(sc_cnn_arch a);

#endif /* SC_MODEL_BUILDER_H */
