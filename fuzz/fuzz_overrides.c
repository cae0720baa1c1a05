/*
 * fuzz_overrides.c -- libFuzzer target for scenario overrides, the
 * `--set KEY=VALUE` of every command: the input is up to 8 lines, each an
 * override of the default scenario. Every input must load or fail with a
 * message (never crash, leak or trip a sanitizer); a loaded scenario is
 * predicted (without its topology, which fuzz_topo_gen covers) and the
 * prediction is either finite and positive or an input error.
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
  if (size > 4096) return 0;
  char *buf = fuzz_text(data, size);
  if (!buf) return 0;
  const char *ov[MAX_OVERRIDES];
  size_t n_ov = 0;
  for (char *p = buf; p && n_ov < MAX_OVERRIDES;) {
    char *nl = strchr(p, '\n');
    if (nl) *nl = '\0';
    if (*p) ov[n_ov++] = p;
    p = nl ? nl + 1 : NULL;
  }
  sc_scenario s;
  sc_error err = {0};
  int rc = sc_scenario_load_string(&s, "{}", "fuzz", ov, n_ov, &err);
  if (rc != SC_OK && rc != SC_EINPUT && rc != SC_EIO) abort();
  if (rc != err.code || (rc != SC_OK && !err.msg[0])) abort();
  if (rc == SC_OK && (s.model.kind != SC_MODEL_TRANSFORMER || s.model.tf.layers / s.plan.pp <= 2000)) {
    sc_result r;
    s.cluster.topology[0] = '\0';
    rc = sc_predict(&s, &r, &err);
    if (rc == SC_OK && !(r.step_s > 0 && isfinite(r.step_s) && isfinite(r.mem.total))) abort();
    if (rc != SC_OK && rc != SC_EINPUT && rc != SC_EIO && rc != SC_EMODEL) abort();
  }
  free(buf);
  return 0;
}
