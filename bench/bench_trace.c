/*
 * bench_trace.c -- loading and replaying Kineto traces: the 3 MB gzip
 * trace of ../shared/traces (df_index_resolver, 54 MB of JSON, 216,092
 * events) and the 8-rank DLRM job. Prints the best of 5 wall times of
 * sc_trace_load and of sc_trace_replay, and peak RSS.
 *
 *   build/bench_trace [TRACE.json.gz ...]
 */
#include <stdio.h>
#include <sys/resource.h>

#include "core/clock.h"
#include "stepcast.h"

#define REPEAT 5

static int bench(const char *const *paths, int n) {
  double best_load = 1e30, best_replay = 1e30;
  for (int k = 0; k < REPEAT; k++) {
    sc_trace *t;
    sc_error err = {0};
    double t0 = clock_now_s();
    if (sc_trace_load(paths, n, NULL, NULL, &t, &err)) {
      fprintf(stderr, "bench_trace: %s\n", err.msg);
      return 1;
    }
    double t1 = clock_now_s();
    sc_trace_result r;
    int rc = sc_trace_replay(t, NULL, &r, &err);
    double t2 = clock_now_s();
    sc_trace_close(t);
    if (rc) {
      fprintf(stderr, "bench_trace: %s\n", err.msg);
      return 1;
    }
    if (t1 - t0 < best_load) best_load = t1 - t0;
    if (t2 - t1 < best_replay) best_replay = t2 - t1;
  }
  printf("%-70s files %d  load %.3f s  replay %.3f s\n", paths[0], n, best_load, best_replay);
  return 0;
}

int main(int argc, char **argv) {
  static const char *def = "../shared/traces/hta/df_index_resolver/df_index_resolver.json.gz";
  int rc = argc > 1 ? bench((const char *const *)argv + 1, argc - 1) : bench(&def, 1);
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  printf("peak RSS %.0f MB\n", ru.ru_maxrss / 1024.0);
  return rc;
}
