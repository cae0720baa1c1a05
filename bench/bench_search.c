/*
 * bench_search.c -- plans evaluated per second by `stepcast search`.
 *
 * Searches the plan space of Llama-3 70B on 512 H100 (global batch 512)
 * and of GPT-3 175B on 1,024 A100 (the default scenario), each twice: with the cluster's default network (NVLink domains and one
 * non-blocking NIC rail per GPU, closed forms only) and with a named
 * topology (a 2:1 oversubscribed 3-level fat-tree), where every distinct
 * collective also runs through the flow engine. Prints plans tried,
 * seconds and plans per second of each; the figure for the issue is the
 * ratio of the two and the plans/s with the topology.
 *
 *   build/bench_search [REPEATS]
 *
 * Each search opens its own job, so the flow-engine runs of its distinct
 * collectives are part of the figure. Measured on the 2-core development
 * machine (Release, 3 repeats), plans per second:
 *
 *                                   before the job   with the job
 *   llama3-70b, default network          126,000         348,000
 *   llama3-70b, fat-tree topology          4,500          52,000
 *   gpt3-175b, default network           129,000         326,000
 *   gpt3-175b, fat-tree topology           3,000         109,000
 *
 * ("before": commit 26e5c4f, every plan a fresh sc_predict that loaded the
 * topology and re-ran its collectives.)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stepcast.h"

/* Search s `reps` times on `threads` threads; print plans/s per core and
 * the counts. */
static void run(const char *name, const sc_scenario *s, int reps, int threads) {
  sc_candidate best[10];
  int n = 0;
  sc_search_stats st, sum = {0};
  sc_error err = {0};
  sc_search_opts o;
  sc_search_opts_default(&o);
  o.threads = threads;
  for (int i = 0; i < reps; i++) {
    if (sc_search(s, &o, best, 10, &n, &st, &err) != SC_OK) {
      fprintf(stderr, "%s: %s\n", name, err.msg);
      exit(2);
    }
    sum.tried += st.tried;
    sum.seconds += st.seconds;
  }
  double rate = sum.seconds > 0 ? sum.tried / sum.seconds : 0;
  printf("%-42s %d thr  %6ld plans (%5ld fit, %5ld pruned)  %8.4f s  %9.0f plans/s  "
         "%9.0f /s/core  best %.3f s\n",
         name, st.threads, st.tried, st.fit, st.pruned, sum.seconds / reps, rate,
         rate / st.threads, n > 0 ? best[0].result.step_s : 0);
}

/* Each case on one thread, then on `threads`. */
static void both(const char *name, const sc_scenario *s, int reps, int threads) {
  run(name, s, reps, 1);
  if (threads > 1) run(name, s, reps, threads);
}

int main(int argc, char **argv) {
  int reps = argc > 1 ? atoi(argv[1]) : 3;
  int threads = argc > 2 ? atoi(argv[2]) : 2;
  if (reps < 1) reps = 1;
  sc_scenario s;
  sc_scenario_default(&s);
  s.model = *sc_model_preset("llama3-70b");
  s.cluster.gpu = *sc_gpu_preset("h100-sxm5-80gb");
  s.cluster.gpus = 512;
  s.cluster.nic_bw = 400e9 / 8;
  s.plan.global_batch = 512;
  both("llama3-70b 512 h100, default network", &s, reps, threads);
  snprintf(s.cluster.topology, sizeof s.cluster.topology, "%s",
           "fat_tree:hosts=512,radix=16,levels=3,oversub=2,bw=50");
  both("llama3-70b 512 h100, fat-tree 2:1 topology", &s, reps, threads);
  sc_scenario_default(&s);
  both("gpt3-175b 1024 a100, default network", &s, reps, threads);
  snprintf(s.cluster.topology, sizeof s.cluster.topology, "%s",
           "fat_tree:hosts=1024,radix=32,levels=3,oversub=2,bw=25");
  both("gpt3-175b 1024 a100, fat-tree 2:1 topology", &s, reps, threads);
  return 0;
}
