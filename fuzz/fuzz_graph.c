/*
 * fuzz_graph.c -- libFuzzer target for the JSON workload-graph loader
 * (src/load/graph_json.c): every input either loads, and then the graph
 * is finalized and consistent, or fails with SC_EINPUT (SC_ENOMEM) and a
 * message; never a crash, a leak or a sanitizer report.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "load/graph_json.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int finite_nonneg(double x) { return x >= 0 && isfinite(x); }

/* A block's operators lie in the graph's and follow the previous ones;
 * its tensors belong to it. */
static void check_block(const wg_graph *g, int b) {
  const wg_block *bl = &g->blocks[b];
  int next = b ? g->blocks[b - 1].first_op + g->blocks[b - 1].n_ops : 0;
  if (bl->count < 1 || bl->n_ops < 1 || bl->first_op != next ||
      bl->first_op + bl->n_ops > g->n_ops)
    abort();
  if (bl->input < 0 || bl->input >= g->n_tensors || bl->output < 0 ||
      bl->output >= g->n_tensors || g->tensors[bl->input].block != b ||
      g->tensors[bl->output].block != b)
    abort();
}

/* An operator reads tensors of its block made before it and makes its
 * output; what wg_add derived is finite and not negative. */
static void check_op(const wg_graph *g, int i) {
  const wg_op *o = &g->ops[i];
  if (o->out < 0 || o->out >= g->n_tensors || g->tensors[o->out].producer != i) abort();
  if (o->n_in < 1 || o->n_in > WG_MAX_IN) abort();
  for (int k = 0; k < o->n_in; k++) {
    if (o->in[k] < 0 || o->in[k] >= g->n_tensors) abort();
    const wg_tensor *t = &g->tensors[o->in[k]];
    if (t->block != o->block || t->producer >= i || t->uses < 1) abort();
  }
  if (!finite_nonneg(o->flops) || !finite_nonneg(o->model_flops) || !finite_nonneg(o->params) ||
      !finite_nonneg(o->elems) || !(o->bwd_scale > 0) || o->host_fwd < 1 || o->host_bwd < 1)
    abort();
}

static void check_tensor(const wg_tensor *t) {
  if (t->rank < 1 || t->rank > WG_MAX_RANK) abort();
  for (int i = 0; i < t->rank; i++)
    if (t->dim[i] < 1 || t->dim[i] > WG_MAX_DIM) abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  wg_graph *g = NULL;
  sc_error err = {0};
  if (size > 1 << 16) return 0;
  int rc = graph_json_load_buffer((const char *)data, size, "fuzz", &g, &err);
  if (rc != SC_OK && rc != SC_EINPUT && rc != SC_ENOMEM) abort();
  if (rc != err.code || (rc != SC_OK && (err.msg[0] == '\0' || g))) abort();
  if (rc != SC_OK) return 0;
  if (!g || !g->finalized || g->layers < 1 || g->n_blocks < 1) abort();
  for (int b = 0; b < g->n_blocks; b++) check_block(g, b);
  for (int i = 0; i < g->n_ops; i++) check_op(g, i);
  for (int i = 0; i < g->n_tensors; i++) check_tensor(&g->tensors[i]);
  if (!finite_nonneg(wg_params(g)) || !finite_nonneg(g->model_flops)) abort();
  wg_free(g);
  return 0;
}
