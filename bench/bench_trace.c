/*
 * bench_trace.c -- loading and replaying Kineto traces: the 3 MB gzip
 * trace of ../shared/traces (df_index_resolver, 54 MB of JSON, 216,092
 * events), and the 8-rank DLRM job from its Kineto traces, then with its
 * PyTorch execution traces joined (unpacked into /tmp). Prints the best
 * of 5 wall times of sc_trace_load and of sc_trace_replay, and peak RSS.
 *
 *   build/bench_trace [TRACE.json.gz ...]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "core/clock.h"
#include "stepcast.h"

#define REPEAT 5
#define DLRM "../shared/traces/param_dlrm_8rank_v100"

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

/* The DLRM job: 8 Kineto traces, then with the 8 ETs. */
static int bench_dlrm(void) {
  char dir[64], cmd[512], paths[16][256];
  const char *files[16];
  snprintf(dir, sizeof dir, "/tmp/sc_bench_dlrm_%d", (int)getpid());
  snprintf(cmd, sizeof cmd,
           "mkdir -p %s && tar xzf %s/dlrm_kineto.tar.gz -C %s 2>/dev/null && tar xzf "
           "%s/dlrm_pytorch_et.tar.gz -C %s 2>/dev/null",
           dir, DLRM, dir, DLRM, dir);
  if (system(cmd)) return fprintf(stderr, "bench_trace: cannot unpack %s\n", DLRM), 1;
  snprintf(cmd, sizeof cmd, "ls %s/dlrm_kineto/*.json %s/dlrm_pytorch_et/*.json | sort -V", dir,
           dir);
  FILE *p = popen(cmd, "r");
  int n = 0;
  while (p && n < 16 && fgets(paths[n], sizeof paths[n], p))
    paths[n][strcspn(paths[n], "\n")] = '\0', files[n] = paths[n], n++;
  if (p) pclose(p);
  int rc = n == 16 ? bench(files, 8) || bench(files, 16) : 1;
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  return system(cmd) || rc;
}

int main(int argc, char **argv) {
  static const char *def = "../shared/traces/hta/df_index_resolver/df_index_resolver.json.gz";
  int rc =
      argc > 1 ? bench((const char *const *)argv + 1, argc - 1) : bench(&def, 1) || bench_dlrm();
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  printf("peak RSS %.0f MB\n", ru.ru_maxrss / 1024.0);
  return rc;
}
