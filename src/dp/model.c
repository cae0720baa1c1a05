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

void dp_model_backward(dp_model *m, double lead_s) {
  double gpu = 0, host = -lead_s, kern = 0; /* the two clocks from the backward's start */
  m->bwd_s = 0;
  for (int i = 0; i < m->n; i++) {
    dp_layer *l = &m->layers[i];
    kern += l->gpu_bwd_s;
    host += l->host_bwd_s;
    double end = fmax(gpu + l->gpu_bwd_s, host);
    l->bwd_s = end - gpu;
    gpu = end;
    m->bwd_s += l->bwd_s;
  }
  m->kern_frac = m->bwd_s > 0 ? fmin(1, kern / m->bwd_s) : 1;
  m->lead_s = lead_s;
}

int dp_model_from_dpm(const dpm_model *d, double grad_elem, double param_elem, dp_model *m,
                      sc_error *err) {
  memset(m, 0, sizeof *m);
  m->layers = mem_calloc((size_t)(d->n + 1), sizeof *m->layers);
  if (!m->layers) return sc_error_set(err, SC_ENOMEM, "data-parallel model: out of memory");
  m->n = d->n + 1;
  for (int i = 0; i < d->n; i++) {
    const dpm_layer *src = &d->layers[i];
    dp_layer *l = &m->layers[i];
    l->grad_bytes = src->params * grad_elem;
    l->tensors = src->tensors;
    l->gpu_fwd_s = src->fwd_s, l->host_fwd_s = src->host_fwd_s;
    l->gpu_bwd_s = src->bwd_s, l->host_bwd_s = src->host_bwd_s;
    m->param_bytes += src->params * param_elem;
    m->grad_bytes += l->grad_bytes;
    m->tensors += l->tensors;
  }
  m->layers[d->n].gpu_bwd_s = d->tail_s; /* the input side, no gradient */
  /* the forward windows on the two clocks from the step's start: the
   * head, then the layers in forward order (the list's reverse) */
  m->head_gpu_s = d->head_s, m->head_host_s = d->host_head_s;
  double host = d->host_head_s, gpu = fmax(d->head_s, host);
  m->head_s = gpu;
  for (int i = d->n - 1; i >= 0; i--) {
    host += d->layers[i].host_fwd_s;
    double end = fmax(gpu + d->layers[i].fwd_s, host);
    m->layers[i].fwd_s = end - gpu;
    gpu = end;
  }
  m->fwd_s = gpu;
  /* the backward keeps the lead the host built over a GPU-bound forward
   * (nothing synchronises the two between the passes: loss.backward()
   * issues at once; the engine's queue carries it alike, engine/
   * analytic.c stage_cost). Started level, a backward the engine's step
   * has GPU-bound came out launch-bound and longer than the step's: a
   * faster GPU shortened it by more than the step, exposing more of an
   * exchange that outlasts it (tests/test_metamorphic.c) */
  dp_model_backward(m, gpu - host);
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
