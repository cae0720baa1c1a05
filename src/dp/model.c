/*
 * model.c -- a workload graph as the gradient messages of one
 * data-parallel step (dp_model); see dp.h.
 *
 * Every operator with parameters is one layer: its gradient is ready when
 * the backward pass has gone through it and through every operator after
 * it in forward order. The step's backward seconds are shared between the
 * operators in proportion to their roofline time on the GPU (FLOPs at the
 * peak of the compute type, or bytes at the HBM bandwidth, whichever is
 * longer): the compute predictor gives the total, the graph the shape.
 */
#include <math.h>
#include <string.h>

#include "core/mem.h"
#include "cost/compute.h"
#include "dp/dp.h"

/* Roofline seconds of one operator (relative weights only). */
static double dp_op_weight(const wg_op *op, const sc_gpu *g, sc_dtype dt) {
  double act = sc_dtype_bytes(dt) < 2 ? 2 : sc_dtype_bytes(dt);
  double bytes = op->elems * (op->traffic_e * act + op->traffic_b);
  double tf = op->flops / cost_peak(g, dt);
  double tm = g->hbm_bw > 0 ? bytes / g->hbm_bw : 0;
  return fmax(tf, tm);
}

/* Gradient tensors of an operator: weight, bias, norm scale and shift,
 * learned positions. */
static int dp_op_tensors(const wg_op *op) {
  switch (op->kind) {
  case WG_LINEAR:
  case WG_CONV: return 1 + (op->bias != 0);
  case WG_NORM: return op->fn == WG_FN_RMSNORM ? 1 : 2;
  case WG_EMBEDDING: return 1 + (op->positions > 0);
  default: return 1;
  }
}

/* Layers the graph yields: operators with parameters, times instances,
 * plus one for the backward after the first of them. */
static long dp_count(const wg_graph *wg) {
  long n = 1;
  for (int b = 0; b < wg->n_blocks; b++) {
    const wg_block *bl = &wg->blocks[b];
    for (int k = 0; k < bl->n_ops; k++)
      if (wg->ops[bl->first_op + k].params > 0 && !wg->ops[bl->first_op + k].tied) n += bl->count;
  }
  return n;
}

int dp_model_from_graph(const wg_graph *wg, const sc_gpu *g, sc_dtype dt, double fwd_s,
                        double bwd_s, double other_s, double grad_elem, double param_elem,
                        dp_model *m, sc_error *err) {
  memset(m, 0, sizeof *m);
  long cap = dp_count(wg);
  m->layers = mem_alloc(sizeof *m->layers * (size_t)cap);
  if (!m->layers) return sc_error_set(err, SC_ENOMEM, "data-parallel model: out of memory");
  double total = 0, acc = 0;
  for (int b = wg->n_blocks - 1; b >= 0; b--) {
    const wg_block *bl = &wg->blocks[b];
    for (int c = 0; c < bl->count; c++)
      for (int k = bl->n_ops - 1; k >= 0; k--) {
        const wg_op *op = &wg->ops[bl->first_op + k];
        double w = dp_op_weight(op, g, dt);
        acc += w, total += w;
        /* a tied weight is the embedding's: one gradient, counted there */
        if (op->params <= 0 || op->tied) continue;
        dp_layer *l = &m->layers[m->n++];
        l->grad_bytes = op->params * grad_elem;
        l->bwd_s = acc;
        l->tensors = dp_op_tensors(op);
        m->param_bytes += op->params * param_elem;
        acc = 0;
      }
  }
  dp_layer *tail = &m->layers[m->n++];
  tail->bwd_s = acc, tail->grad_bytes = 0, tail->tensors = 0;
  double scale = total > 0 ? bwd_s / total : 0;
  for (int i = 0; i < m->n; i++) {
    m->layers[i].bwd_s *= scale;
    m->grad_bytes += m->layers[i].grad_bytes;
    m->tensors += m->layers[i].tensors;
  }
  if (total <= 0 && m->n > 0) m->layers[0].bwd_s = bwd_s;
  m->fwd_s = fwd_s;
  m->bwd_s = bwd_s;
  m->other_s = other_s;
  m->micro_steps = 1;
  return SC_OK;
}

void dp_model_free(dp_model *m) {
  mem_free(m->layers);
  memset(m, 0, sizeof *m);
}
