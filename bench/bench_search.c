/*
 * bench_search.c -- plans evaluated per second by `stepcast search`.
 *
 * Searches the plan space of Llama-3 70B on 512 H100 (global batch 512)
 * and of GPT-3 175B on 1,024 A100 (the default scenario), each with the
 * cluster's default network (NVLink domains and one non-blocking NIC rail
 * per GPU, closed forms only) and with a named topology (a 2:1
 * oversubscribed 3-level fat-tree), where every distinct collective is
 * also timed on the topology (flow engine, or its closed form where
 * there is one); each on one thread and on THREADS.
 * Prints plans tried (and of them fitting and pruned), seconds per
 * search, plans per second of wall time and per CPU-second (all threads).
 *
 *   build/bench_search [REPEATS] [THREADS] [CASE]   (defaults 3, 2, every case)
 *
 * Each search opens its own job(s), so the cold memos (every distinct
 * GEMM, NCCL tuning and flow-engine run costed once per thread) are part
 * of the figure. The last case (212,816 plans: Qwen3-30B-A3B on 16,384
 * H100 at 32k tokens, cp and ep widening the space) measures the thread
 * scaling. The machine is shared: compare instructions per search
 * (valgrind --tool=callgrind --toggle-collect=sc_search
 * build/bench_search 1 1 CASE). One thread, main 28c1533 -> this
 * version (docs/search.md, Speed), instructions per search and plans/s
 * of the fastest of 3 x 20 searches on the loaded 2-core machine:
 *
 *                               instructions         plans/s              plans (fit, pruned)
 *   llama3-70b, default       11.03 M ->  10.97 M   614,000 -> 614,000   420 (154, 0)
 *   llama3-70b, fat-tree      42.23 M ->  21.74 M   119,000 -> 306,000   420 (154, 144)
 *   gpt3-175b, default        29.51 M ->  27.07 M   551,000 -> 568,000   912 (401, 0)
 *   gpt3-175b, fat-tree       44.92 M ->  40.15 M   331,000 -> 389,000   912 (401, 390)
 *   qwen3-30b-a3b (threads)    586 M  ->   574 M                        23,160 (8,329, 0)
 *
 * The whole space (uneven stages, ZeRO 0-3, HSDP, partial recompute,
 * offload, etp; main 01dd4b2 -> this version), instructions per plan
 * (one search, cold memos) and fastest plans/s of 3 x 20 (one thread):
 *
 *                               plans (fit, pruned)         instr./plan       plans/s
 *   llama3-70b, default        420 -> 2,442 (575, 0)     28,700 -> 30,700  548,000 -> 540,000
 *   llama3-70b, fat-tree       420 -> 2,442 (575, 564)   54,600 -> 35,600  275,000 -> 464,000
 *   gpt3-175b, default         912 -> 4,412 (1,163, 0)   33,200 -> 30,100  483,000 -> 570,000
 *   gpt3-175b, fat-tree        912 -> 4,412 (1,163, 1,152) 47,700 -> 33,300 349,000 -> 511,000
 *   qwen3-30b-a3b (threads)  23,160 -> 212,816 (73,553, 0) 26,400 -> 32,200
 *
 * The memo of lowered plans and the unformatted rejections (main 0e49652
 * -> this version, docs/search.md "Lowered plans remembered"),
 * instructions per plan, one search, one thread:
 *
 *   llama3-70b, default        37,500 -> 26,600
 *   llama3-70b, fat-tree       47,700 -> 36,700
 *   gpt3-175b, default         35,900 -> 27,900
 *   gpt3-175b, fat-tree        40,300 -> 32,300
 *   qwen3-30b-a3b              39,700 -> 26,300
 *
 * With a topology no collective of these searches runs the flow engine
 * any more: each has a closed form (net/flowcf.h). Threads, quiet
 * machine (before this version): the 23,160-plan case 613,000-639,000
 * plans/s on one thread, 1,210,000-1,250,000 on two (1.95x); on the
 * small spaces a late second thread costs more than it brings to a
 * 1-2 ms search.
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
