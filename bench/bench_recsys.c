/*
 * bench_recsys.c -- the recommendation planner's speed: plans evaluated
 * per second and the wall time of a search, for the MLPerf DLRM (26
 * tables) on 8 GPUs and the 3.1 TiB distributed-embeddings Jumbo (1,022
 * tables) on 1 GPU, where no plan fits (the planner proves it and lists
 * those that need least memory), and on 128 GPUs. Usage: bench_recsys [EXAMPLES_DIR] (default
 * examples/recsys, run from the source root).
 */
#include <stdio.h>

#include "core/clock.h"
#include "stepcast_recsys.h"

static int bench(const char *path, int gpus) {
  sc_rs_job j;
  sc_rs_plan p;
  int autop;
  sc_error e = {0};
  if (sc_rs_job_load_file(path, &j, &p, &autop, &e)) {
    fprintf(stderr, "%s\n", e.msg);
    return 1;
  }
  sc_rs_plan_free(&p);
  if (gpus) {
    j.gpus = gpus;
    j.gpus_per_node = 8;
    if (j.nic_bw <= 0) j.nic_bw = 25e9;
  }
  double t0 = clock_now_s();
  sc_rs_plans ps;
  int rc = sc_rs_plan_search(&j, NULL, &ps, &e);
  double dt = clock_now_s() - t0;
  if (rc) {
    fprintf(stderr, "%s\n", e.msg);
    sc_rs_job_free(&j);
    return 1;
  }
  printf("%-48s %4d tables %4d GPUs: %8ld plans in %7.3f s = %9.0f plans/s, best %.3f ms%s\n",
         path, j.model.n_tables, j.gpus, ps.evaluated, dt, ps.evaluated / dt,
         ps.n ? ps.res[0].iter_s * 1e3 : 0, ps.n && !ps.res[0].fits ? " (none fits)" : "");
  sc_rs_plans_free(&ps);
  sc_rs_job_free(&j);
  return 0;
}

int main(int argc, char **argv) {
  const char *dir = argc > 1 ? argv[1] : "examples/recsys";
  char a[512], b[512];
  snprintf(a, sizeof a, "%s/dlrm_criteo_8gpu.json", dir);
  snprintf(b, sizeof b, "%s/synthetic_jumbo_1gpu.json", dir);
  return bench(a, 0) || bench(b, 0) || bench(b, 128);
}
