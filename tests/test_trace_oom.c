/*
 * test_trace_oom.c -- out of memory at every allocation of loading and
 * replaying a trace: each failure is SC_ENOMEM and leaks nothing (the
 * sanitizer build runs LeakSanitizer on the whole suite), and the first
 * run without a fault gives the fault-free result: Kineto traces, an
 * execution trace joined with its Kineto trace, Chakra ETs. Runs only where the
 * fault injector is compiled in (SC_ALLOC_FAULTS); elsewhere it checks
 * that mem_fail_after says so.
 */
#include <criterion/criterion.h>
#include <stdio.h>

#include "core/mem.h"
#include "stepcast.h"

#define SYNTH SC_SOURCE_DIR "/tests/data/trace/synth_2rank_r0.json"

#define DATA SC_SOURCE_DIR "/tests/data/trace/"

/* Load files[n] and replay them; the code and the step. */
static int load_and_replay(const char *const *files, int n, double *step, sc_error *err) {
  sc_trace *t = NULL;
  int rc = sc_trace_load(files, n, NULL, NULL, &t, err);
  if (rc) return rc;
  sc_trace_result r;
  sc_trace_whatif w;
  sc_trace_whatif_default(&w);
  w.dp_scale = 2;
  rc = sc_trace_replay(t, &w, &r, err);
  *step = r.predicted_step_s;
  sc_trace_close(t);
  return rc;
}

static void every_allocation_fails_cleanly(const char *const *files, int n_files) {
  double want = 0, got = 0;
  sc_error err = {0};
  cr_assert_eq(load_and_replay(files, n_files, &want, &err), SC_OK, "%s", err.msg);
  if (!mem_fail_after(0)) {
    cr_assert_eq(mem_alloc_count(), 0); /* no injector in this build */
    return;
  }
  mem_fail_after(-1);
  for (long n = 0; n < 100000; n++) {
    mem_fail_after(n);
    int rc = load_and_replay(files, n_files, &got, &err);
    mem_fail_after(-1);
    if (rc == SC_OK) {
      cr_assert_float_eq(got, want, 1e-15, "after %ld allocations: %g vs %g", n, got, want);
      cr_assert_gt(n, 10, "loading and replaying make more than %ld allocations", n);
      return;
    }
    cr_assert_eq(rc, SC_ENOMEM, "allocation %ld failing gave %d: %s", n + 1, rc, err.msg);
  }
  cr_assert_fail("never succeeded");
}

/* Two Kineto ranks joined on their collective. */
Test(trace_oom, kineto_two_ranks) {
  const char *files[] = {SYNTH, DATA "synth_2rank_r1.json"};
  every_allocation_fails_cleanly(files, 2);
}

/* An execution trace joined with its Kineto trace (pyet.c, etjoin.c). */
Test(trace_oom, execution_trace_join) {
  const char *files[] = {DATA "synth_et.json", DATA "synth_et_kineto.json"};
  every_allocation_fails_cleanly(files, 2);
}

/* A Chakra ET (with SC_CHAKRA_PROTOBUF: libprotobuf-c's allocations). */
Test(trace_oom, chakra) {
  const char *files[] = {
      SC_SHARED_DIR "/traces/astra_sim_microbench_allreduce_8npus_1MB/all_reduce.0.et",
      SC_SHARED_DIR "/traces/astra_sim_microbench_allreduce_8npus_1MB/all_reduce.1.et"};
  FILE *f = fopen(files[0], "rb");
  cr_assert_not_null(f, "%s is missing: this test needs ../shared/traces", files[0]);
  fclose(f);
  every_allocation_fails_cleanly(files, 2);
}
