/*
 * fuzz_kineto.c -- libFuzzer target for the PyTorch profiler (Kineto)
 * loader (src/trace/kineto.c, jscan.c) and the replay (replay.c): every
 * input either loads and replays to finite, non-negative times, or fails
 * with SC_EINPUT / SC_EMODEL / SC_ENOMEM and a message; never a crash, a
 * leak or a sanitizer report.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_replay.h"
#include "fuzz_text.h"
#include "core/mem.h"
#include "trace/kineto.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(const sc_trace_result *r) {
  const double v[] = {r->measured_step_s, r->predicted_step_s, r->span_s,    r->path.kernels,
                      r->path.copies,     r->path.comm,        r->path.host, r->path.sync};
  for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
    if (isnan(v[i])) abort();
  if (!r->path.bound) abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *buf = fuzz_text(data, size);
  if (!buf) return 0;
  tg_job *j = mem_calloc(1, sizeof *j);
  tg_rank *r = mem_calloc(1, sizeof *r);
  if (!j || !r) abort();
  sc_error err = {0};
  int rc = kin_load_buffer(buf, size, "fuzz", r, j, &err);
  if (rc != SC_OK && (!err.msg[0] || (rc != SC_EINPUT && rc != SC_ENOMEM))) abort();
  if (rc == SC_OK) {
    j->r = r, j->n = j->cap = 1;
    fuzz_replay(j, check);
    tg_job_free(j); /* frees r */
  } else {
    tg_rank_free(r);
    mem_free(r);
    mem_free(j);
  }
  free(buf);
  return 0;
}
