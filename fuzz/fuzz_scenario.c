/*
 * fuzz_scenario.c -- libFuzzer target for the scenario loader.
 *
 * Input: a JSON document, optionally followed by a NUL byte and overrides
 * separated by newlines ("plan.tp=8\ncluster.gpu=h100"). Every input must
 * either load and resolve, or fail with SC_EINPUT (never crash, leak or
 * trip a sanitizer), and a loaded scenario must resolve again unchanged.
 * A loaded scenario is then predicted (without its topology, which
 * fuzz_topo covers; a graph model's file is read, fuzz_graph covers its
 * loader): the step time must be finite and positive.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_text.h"
#include "stepcast.h"

#define MAX_OVERRIDES 8

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *buf = fuzz_text(data, size);
  if (!buf) return 0;
  const char *ov[MAX_OVERRIDES];
  size_t n_ov = fuzz_overrides(buf, size, ov, MAX_OVERRIDES);
  sc_scenario s;
  sc_error err;
  int rc = sc_scenario_load_string(&s, buf, "fuzz", ov, n_ov, &err);
  /* SC_EIO: a model named by a graph file that is not there */
  if (rc != SC_OK && rc != SC_EINPUT && rc != SC_ENOMEM && rc != SC_EIO) abort();
  if (rc != err.code || (rc != SC_OK && err.msg[0] == '\0')) abort();
  if (rc == SC_OK) {
    sc_scenario again = s;
    if (sc_scenario_resolve(&again, &err) != SC_OK) abort();
    if (memcmp(&again, &s, sizeof s) != 0) abort();
    /* a stage costs one layer, but the lowering keeps an entry per layer:
     * keep each run short */
    if (s.model.kind != SC_MODEL_TRANSFORMER || s.model.tf.layers / s.plan.pp <= 2000) {
      sc_result r;
      s.cluster.topology[0] = '\0';
      rc = sc_predict(&s, &r, &err);
      if (rc == SC_OK && !(r.step_s > 0 && isfinite(r.step_s))) abort();
      if (rc != SC_OK && rc != SC_EINPUT && rc != SC_EIO) abort();
    }
  }
  free(buf);
  return 0;
}
