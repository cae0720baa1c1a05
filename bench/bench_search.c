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
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stepcast.h"

static void run(const char *name, const sc_scenario *s, int reps) {
  sc_candidate best[10];
  int n = 0;
  sc_search_stats st, sum = {0, 0, 0, 0};
  sc_error err = {0};
  for (int i = 0; i < reps; i++) {
    if (sc_search(s, NULL, best, 10, &n, &st, &err) != SC_OK) {
      fprintf(stderr, "%s: %s\n", name, err.msg);
      exit(2);
    }
    sum.tried += st.tried;
    sum.seconds += st.seconds;
  }
  printf("%-44s %8ld plans in %8.3f s  %10.0f plans/s  (best %.3f s/step)\n", name,
         sum.tried, sum.seconds, sum.seconds > 0 ? sum.tried / sum.seconds : 0,
         n > 0 ? best[0].result.step_s : 0);
}

int main(int argc, char **argv) {
  int reps = argc > 1 ? atoi(argv[1]) : 3;
  if (reps < 1) reps = 1;
  sc_scenario s;
  sc_scenario_default(&s);
  s.model = *sc_model_preset("llama3-70b");
  s.cluster.gpu = *sc_gpu_preset("h100-sxm5-80gb");
  s.cluster.gpus = 512;
  s.cluster.nic_bw = 400e9 / 8;
  s.plan.global_batch = 512;
  run("llama3-70b 512 h100, default network", &s, reps);
  snprintf(s.cluster.topology, sizeof s.cluster.topology, "%s",
           "fat_tree:hosts=512,radix=16,levels=3,oversub=2,bw=50");
  run("llama3-70b 512 h100, fat-tree 2:1 topology", &s, reps);
  sc_scenario_default(&s);
  run("gpt3-175b 1024 a100, default network", &s, reps);
  snprintf(s.cluster.topology, sizeof s.cluster.topology, "%s",
           "fat_tree:hosts=1024,radix=32,levels=3,oversub=2,bw=25");
  run("gpt3-175b 1024 a100, fat-tree 2:1 topology", &s, reps);
  return 0;
}
