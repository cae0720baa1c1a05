/*
 * model.c -- one worker's gradient messages (dp_model) from the
 * data-parallel view of the model (src/job/dpm.h, dpm_layers: the
 * contract with the model builders and compute costs); see dp.h.
 *
 * An entry's gradient is ready once the GPU has run its backward work
 * and, in an eager framework, the host has issued it: two clocks from the
 * backward's start (the forward windows alike from the step's start), the
 * host's the sum of the issue times so far, the
 * GPU's the later of its previous entry's end plus this entry's work and
 * the host's; an entry's time is what it adds to the GPU clock. (Each
 * entry the larger of its own two times, as before, ignored the lead the
 * host builds over GPU-bound entries: a backward of alternating host- and
 * GPU-bound layers came out longer than the engine's, and a faster GPU
 * shortened it more than the step, exposing more of the exchange, found
 * by tests/test_metamorphic.c.) The backward work after the last
 * gradient (input side, no parameters) is a final entry without bytes.
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
  double gpu = 0, host = 0; /* the two clocks from the backward's start, s */
  for (int i = 0; i < d->n; i++) {
    const dpm_layer *src = &d->layers[i];
    dp_layer *l = &m->layers[m->n++];
    l->grad_bytes = src->params * grad_elem;
    host += src->host_bwd_s;
    double end = fmax(gpu + src->bwd_s, host);
    l->bwd_s = end - gpu;
    gpu = end;
    l->tensors = src->tensors;
    m->param_bytes += src->params * param_elem;
  }
  m->layers[m->n++] = (dp_layer){.bwd_s = d->tail_s};
  for (int i = 0; i < m->n; i++) {
    m->bwd_s += m->layers[i].bwd_s;
    m->grad_bytes += m->layers[i].grad_bytes;
    m->tensors += m->layers[i].tensors;
  }
  /* the forward windows on the same two clocks from the step's start:
   * the head, then the layers in forward order (the list's reverse) */
  host = d->host_head_s;
  gpu = fmax(d->head_s, host);
  m->head_s = gpu;
  for (int i = d->n - 1; i >= 0; i--) {
    host += d->layers[i].host_fwd_s;
    double end = fmax(gpu + d->layers[i].fwd_s, host);
    m->layers[i].fwd_s = end - gpu;
    gpu = end;
  }
  m->fwd_s = gpu;
  m->mem_frac = d->bwd_s > 0 ? fmin(1, d->bwd_mem_s / d->bwd_s) : 0;
  m->opt_s = d->optimizer_s;
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
