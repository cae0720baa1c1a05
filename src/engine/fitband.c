/*
 * fitband.c -- how sure a memory verdict is.
 *
 * The memory model (memory.c) is not exact: on the training validation
 * rows, which all ran and so all fitted, it puts five Mosaic rows 0.2 to
 * 1.1 GiB (up to 2.7 % of a 40 GB A100) over the GPU's capacity. A
 * predicted total within SC_MEMORY_BAND of the capacity, either side, is
 * therefore a marginal verdict: a plan said to fit may not, and a plan
 * said not to may. docs/accuracy.md ("The memory model's band") derives
 * the band from those rows; tests/test_memband.c checks that it still
 * covers them. Those rows are all LLMs of the transformer builder: on
 * other models (CNNs, BERT, JSON workload graphs) the band is not
 * measured and a verdict is plain, as `stepcast dp` and `recsys` print
 * it (docs/dp.md, "The memory verdict is plain").
 */
#include "stepcast.h"

#include <math.h>

/* 1 when m's GPU total lies within SC_MEMORY_BAND of its capacity (either
 * side) and nothing else decides the verdict: the host memory of
 * offloading, when it is over, makes the plan not fit whatever the GPU's
 * margin (the band was measured on GPU memory only). 0 otherwise, and for
 * a capacity that is not positive. */
int sc_memory_marginal(const sc_memory *m) {
  if (!(m->capacity > 0)) return 0;
  if (m->host_capacity > 0 && m->host > m->host_capacity) return 0;
  return fabs(m->total - m->capacity) <= SC_MEMORY_BAND * m->capacity;
}

/* The training rows the band comes from are built by the transformer
 * builder (docs/accuracy.md, "The memory model's band"). */
int sc_memory_band_measured(const sc_scenario *s) {
  return s->model.kind == SC_MODEL_TRANSFORMER;
}

const char *sc_fits_confidence(const sc_scenario *s, const sc_memory *m) {
  if (!sc_memory_band_measured(s)) return "unmeasured";
  return sc_memory_marginal(m) ? "marginal" : "clear";
}
