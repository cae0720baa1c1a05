/*
 * fuzz_chakra.c -- libFuzzer target for the Chakra ET decoder
 * (src/trace/chakra.c) and its replay (replay.c): every input either
 * decodes and replays to finite times, or fails with SC_EINPUT /
 * SC_EMODEL / SC_ENOMEM and a message; never a crash, a leak or a
 * sanitizer report.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "trace/chakra.h"
#include "trace/replay.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  ch_graph g = {0};
  sc_error err = {0};
  (void)ch_sniff(data, size);
  int rc = ch_load_buffer(data, size, "fuzz", &g, &err);
  if (rc != SC_OK && (!err.msg[0] || (rc != SC_EINPUT && rc != SC_ENOMEM))) abort();
  if (rc == SC_OK) {
    rp_run run = {0};
    sc_trace_result r;
    rc = rp_replay_chakra(&run, &g, 1, NULL, &r, &err);
    if (rc == SC_OK && (isnan(r.predicted_step_s) || r.predicted_step_s < 0 || !r.path.bound))
      abort();
    if (rc != SC_OK && !err.msg[0]) abort();
    rp_free(&run);
  }
  ch_free(&g);
  return 0;
}
