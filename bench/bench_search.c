/*
 * bench_search.c -- plans evaluated per second by `stepcast search`.
 *
 * Searches the plan space of Llama-3 70B on 512 H100 (global batch 512)
 * and of GPT-3 175B on 1,024 A100 (the default scenario), each with the
 * cluster's default network (NVLink domains and one non-blocking NIC rail
 * per GPU, closed forms only) and with a named topology (a 2:1
 * oversubscribed 3-level fat-tree), where every distinct collective also
 * runs through the flow engine; each on one thread and on THREADS.
 * Prints plans tried (and of them fitting and pruned), seconds per
 * search, plans per second of wall time and per CPU-second (all threads).
 *
 *   build/bench_search [REPEATS] [THREADS] [CASE]   (defaults 3, 2, every case)
 *
 * Each search opens its own job(s), so the cold memos (every distinct
 * GEMM, NCCL tuning and flow-engine run costed once per thread) are part
 * of the figure. Measured on the 2-core development machine (Release,
 * 20 repeats, best of 3 runs interleaved with main's bench; the machine
 * was shared, load 5-8), plans per second on one thread (per CPU-second
 * in brackets):
 *
 *                                   main 1eab61f   this search         plans (fit, pruned)
 *   llama3-70b, default network          242,000       406,000 (404,000)   420 (154, 0)
 *   llama3-70b, fat-tree topology         26,000        58,000  (67,000)   420 (154, 37)
 *   gpt3-175b, default network           162,000       371,000 (379,000)   912 (401, 0)
 *   gpt3-175b, fat-tree topology          55,000       114,000 (133,000)   912 (401, 149)
 *
 * (main walks more plans: it also accepted the interleaved plans whose
 * micro-batch count is not a multiple of pp, 10,260 and 28,380 over 20
 * repeats.) With a topology 61 % of the instructions are the flow
 * engine's cold runs: 76 distinct collectives per Llama search, about
 * 0.4 M instructions each (its qsort 12 %, route lookups 15 %, heap 8 %). Threads: on this shared 2-core
 * machine two threads were slower than one for these small spaces (a
 * few milliseconds each: the second thread's cold memos and the OS
 * scheduling it late); the speed-up over cores is still to be measured
 * on an idle many-core machine.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "stepcast.h"

/* CPU seconds of the process so far (every thread). */
static double cpu_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return t.tv_sec + 1e-9 * t.tv_nsec;
}

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
  double cpu0 = cpu_s(), fastest = INFINITY;
  for (int i = 0; i < reps; i++) {
    if (sc_search(s, &o, best, 10, &n, &st, &err) != SC_OK) {
      fprintf(stderr, "%s: %s\n", name, err.msg);
      exit(2);
    }
    sum.tried += st.tried;
    sum.seconds += st.seconds;
    if (st.seconds < fastest) fastest = st.seconds;
  }
  double rate = sum.seconds > 0 ? sum.tried / sum.seconds : 0, cpu = cpu_s() - cpu0;
  printf("%-44s %d thr  %6ld plans (%5ld fit, %5ld pruned)  %8.4f s  %8.0f plans/s  "
         "(fastest %8.0f)  %8.0f per CPU-s  best %.3f s\n",
         name, st.threads, st.tried, st.fit, st.pruned, sum.seconds / reps, rate,
         fastest > 0 ? st.tried / fastest : 0, cpu > 0 ? sum.tried / cpu : 0,
         n > 0 ? best[0].result.step_s : 0);
}

/* Only the cases whose name contains this (NULL: every case). */
static const char *only;

/* Each case on one thread, then on `threads`. */
static void both(const char *name, const sc_scenario *s, int reps, int threads) {
  if (only && !strstr(name, only)) return;
  run(name, s, reps, 1);
  if (threads > 1) run(name, s, reps, threads);
}

int main(int argc, char **argv) {
  int reps = argc > 1 ? atoi(argv[1]) : 3;
  int threads = argc > 2 ? atoi(argv[2]) : 2;
  only = argc > 3 ? argv[3] : NULL;
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
  /* thread scaling: a space of tens of thousands of plans (MoE: ep; 32k
   * tokens: cp) */
  sc_scenario_default(&s);
  s.model = *sc_model_preset("qwen3-30b-a3b");
  s.model.tf.seq = 32768;
  s.cluster.gpu = *sc_gpu_preset("h100-sxm5-80gb");
  s.cluster.gpus = 16384;
  s.cluster.nic_bw = 400e9 / 8;
  s.plan.global_batch = 16384;
  both("qwen3-30b-a3b 16384 h100 seq 32k (threads)", &s, reps, threads);
  return 0;
}
