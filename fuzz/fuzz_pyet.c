/*
 * fuzz_pyet.c -- libFuzzer target for the PyTorch execution-trace loader
 * (src/trace/pyet.c) and its join with a Kineto trace (etjoin.c), then
 * the replay: every input either loads, joins with the fixed Kineto trace
 * below and replays to finite times, or fails with SC_EINPUT / SC_ENOMEM
 * / SC_EMODEL and a message; never a crash, a leak or a sanitizer report.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_replay.h"
#include "fuzz_text.h"
#include "core/mem.h"
#include "trace/etjoin.h"
#include "trace/kineto.h"
#include "trace/pyet.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A process (pid 7) with two operators, a launch in each and two kernels. */
static const char kineto[] =
    "{\"traceEvents\": ["
    "{\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"ProfilerStep#1\", \"pid\": 7, "
    "\"tid\": 7, \"ts\": 0, \"dur\": 100},"
    "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::mm\", \"pid\": 7, \"tid\": 7, "
    "\"ts\": 5, \"dur\": 20},"
    "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": 7, "
    "\"tid\": 7, \"ts\": 10, \"dur\": 5, \"args\": {\"correlation\": 1}},"
    "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::add\", \"pid\": 7, \"tid\": 7, "
    "\"ts\": 40, \"dur\": 20},"
    "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": 7, "
    "\"tid\": 7, \"ts\": 45, \"dur\": 5, \"args\": {\"correlation\": 2}},"
    "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"gemm\", \"pid\": 0, \"tid\": 7, "
    "\"ts\": 20, \"dur\": 30, \"args\": {\"stream\": 7, \"correlation\": 1}},"
    "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"add\", \"pid\": 0, \"tid\": 7, "
    "\"ts\": 55, \"dur\": 10, \"args\": {\"stream\": 7, \"correlation\": 2}}]}";

static void check(const sc_trace_result *r) {
  const double v[] = {r->predicted_step_s, r->span_s, r->path.kernels, r->path.host};
  for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
    if (isnan(v[i])) abort();
}

static void join_and_replay(const pet_graph *g) {
  tg_job *j = mem_calloc(1, sizeof *j);
  tg_rank *k = mem_calloc(1, sizeof *k), *out = mem_calloc(1, sizeof *out);
  if (!j || !k || !out) abort();
  sc_error err = {0};
  if (kin_load_buffer(kineto, sizeof kineto - 1, "kineto", k, NULL, &err)) abort();
  ej_stats st;
  int rc = ej_join(g, k, out, &st, &err);
  if (rc != SC_OK && (!err.msg[0] || (rc != SC_EINPUT && rc != SC_ENOMEM))) abort();
  if (rc == SC_OK) {
    if (st.matched > st.ops) abort();
    j->r = out, j->n = j->cap = 1, out = NULL;
    fuzz_replay(j, check);
  }
  if (out) tg_rank_free(out), mem_free(out);
  tg_rank_free(k), mem_free(k);
  tg_job_free(j);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *buf = fuzz_text(data, size);
  if (!buf) return 0;
  (void)pet_sniff(buf, size);
  pet_graph g = {0};
  sc_error err = {0};
  int rc = pet_load_buffer(buf, size, "fuzz", &g, &err);
  if (rc != SC_OK && (!err.msg[0] || (rc != SC_EINPUT && rc != SC_ENOMEM))) abort();
  if (rc == SC_OK) join_and_replay(&g);
  pet_free(&g);
  free(buf);
  return 0;
}
