/*
 * model.c -- one worker's gradient messages (dp_model) from the
 * data-parallel view of the model (src/job/dpm.h, dpm_layers: the
 * contract with the model builders and compute costs); see dp.h.
 *
 * An entry's gradient is ready once the GPU has run its backward work
 * and, in an eager framework, the host has issued it: its time is the
 * larger of the two. The backward work after the last gradient (input
 * side, no parameters) is a final entry without bytes.
 */
#include <math.h>
#include <string.h>

#include "core/mem.h"
#include "dp/dp.h"

int dp_model_from_dpm(const dpm_model *d, double grad_elem, double param_elem, dp_model *m,
                      sc_error *err) {
  memset(m, 0, sizeof *m);
  m->layers = mem_alloc(sizeof *m->layers * (size_t)(d->n + 1));
  if (!m->layers) return sc_error_set(err, SC_ENOMEM, "data-parallel model: out of memory");
  for (int i = 0; i < d->n; i++) {
    const dpm_layer *src = &d->layers[i];
    dp_layer *l = &m->layers[m->n++];
    l->grad_bytes = src->params * grad_elem;
    l->bwd_s = fmax(src->bwd_s, src->host_bwd_s);
    l->tensors = src->tensors;
    l->fwd_s = src->fwd_s;
    m->param_bytes += src->params * param_elem;
  }
  m->layers[m->n++] = (dp_layer){.bwd_s = d->tail_s};
  for (int i = 0; i < m->n; i++) {
    m->bwd_s += m->layers[i].bwd_s;
    m->grad_bytes += m->layers[i].grad_bytes;
    m->tensors += m->layers[i].tensors;
  }
  m->fwd_s = d->fwd_s;
  m->mem_frac = d->bwd_s > 0 ? fmin(1, d->bwd_mem_s / d->bwd_s) : 0;
  m->opt_s = d->optimizer_s;
  m->head_s = d->head_s;
  m->micro_steps = 1;
  m->samples = (double)d->batch;
  return SC_OK;
}

double dp_grad_elem(const dp_model *m) {
  return m->param_bytes > 0 ? 4 * m->grad_bytes / m->param_bytes : 4;
}

void dp_model_free(dp_model *m) {
  mem_free(m->layers);
  memset(m, 0, sizeof *m);
}
