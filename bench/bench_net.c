/*
 * bench_net.c -- the flow engine at scale: ring all-reduce over 16,384
 * GPUs on a 3-level fat-tree, and pairwise (1,023 steps) and direct (one
 * step of 1,047,552 concurrent flows) all-to-all over 1,024 GPUs.
 * Prints wall seconds (build + routes + simulation) and peak RSS.
 */
#include <stdio.h>
#include <sys/resource.h>

#include "coll/sched.h"
#include "core/clock.h"
#include "net/flow.h"
#include "net/route.h"
#include "net/topo_gen.h"

static int bench(const char *spec, coll_op op, const char *alg_name, double bytes) {
  double t0 = clock_now_s();
  topo *t;
  sc_error e = {0};
  if (topo_gen(spec, &t, &e)) {
    fprintf(stderr, "%s\n", e.msg);
    return 1;
  }
  route_table *rt = route_new(t, ROUTE_ECMP);
  const coll_alg *a = coll_alg_find(op, alg_name);
  sched s;
  sched_init(&s);
  sched_params p = {.n = t->n_gpus, .ppn = 1, .chunks = 1, .bytes = bytes};
  a->build(&s, &p);
  flow_stats st;
  if (flow_run(t, rt, &s, t->gpus, &st, &e)) {
    fprintf(stderr, "%s\n", e.msg);
    return 1;
  }
  double wall = clock_now_s() - t0;
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  printf("%-8s %-8s %6d GPUs on %-40s  %.0f B: simulated %.6f s | wall %.3f s, %ld solves, "
         "%ld events, %d flows/step, routes %.1f MB, engine %.1f MB, peak RSS %.1f MB\n",
         coll_op_name(op), alg_name, t->n_gpus, spec, bytes, st.time, wall, st.solves,
         st.events, st.max_flows, route_bytes(rt) / 1e6, st.mem_bytes / 1e6,
         ru.ru_maxrss / 1024.0);
  sched_free(&s);
  route_free(rt);
  topo_free(t);
  return 0;
}

int main(void) {
  int rc = bench("fat_tree:hosts=16384,radix=64,levels=3,bw=50", COLL_ALL_REDUCE, "ring", 1e9);
  rc |= bench("fat_tree:hosts=1024,radix=32,levels=3,bw=50", COLL_ALL_TO_ALL, "pairwise", 1e9);
  rc |= bench("fat_tree:hosts=1024,radix=32,levels=3,bw=50", COLL_ALL_TO_ALL, "direct", 1e9);
  return rc;
}
