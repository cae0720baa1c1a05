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
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "stepcast.h"

#define MAX_REPEATS 1000
#define MAX_THREADS 256

static double now_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + 1e-9 * t.tv_nsec;
}

/* CPU seconds of the process so far (every thread). */
static double cpu_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return t.tv_sec + 1e-9 * t.tv_nsec;
}

/* One search of s on `threads` threads: its wall seconds (the whole
 * sc_search call), its counts into *st and best step into *best_s. */
static double search_once(const char *name, const sc_scenario *s, int threads,
                          sc_search_stats *st, double *best_s) {
  sc_candidate best[10];
  int n = 0;
  sc_error err = {0};
  sc_search_opts o;
  sc_search_opts_default(&o);
  o.threads = threads;
  double t0 = now_s();
  if (sc_search(s, &o, best, 10, &n, st, &err) != SC_OK) {
    fprintf(stderr, "%s: %s\n", name, err.msg);
    exit(2);
  }
  double t = now_s() - t0;
  if (best_s) *best_s = n > 0 ? best[0].result.step_s : 0;
  return t;
}

static int by_value(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* The median of v[0..n-1] (sorts v). */
static double median(double *v, int n) {
  qsort(v, (size_t)n, sizeof *v, by_value);
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* A one-thread search repeated, on a thread of its own (concurrent). */
typedef struct solo {
  const char *name;
  const sc_scenario *s;
  int reps;
  long plans;            /* plans tried, all its searches */
} solo;

static void *solo_run(void *arg) {
  solo *j = arg;
  sc_search_stats st;
  for (int i = 0; i < j->reps; i++) {
    search_once(j->name, j->s, 1, &st, NULL);
    j->plans += st.tried;
  }
  return NULL;
}

/* `threads` one-thread searches at once, reps each: plans per second of
 * them together (what the cores give when each runs its own search). */
static double concurrent(const char *name, const sc_scenario *s, int reps, int threads) {
  pthread_t th[MAX_THREADS];
  solo jobs[MAX_THREADS];
  double t0 = now_s();
  for (int t = 0; t < threads; t++) {
    jobs[t] = (solo){name, s, reps, 0};
    if (pthread_create(&th[t], NULL, solo_run, &jobs[t])) {
      fprintf(stderr, "%s: cannot start a thread\n", name);
      exit(2);
    }
  }
  long plans = 0;
  for (int t = 0; t < threads; t++) {
    pthread_join(th[t], NULL);
    plans += jobs[t].plans;
  }
  return plans / (now_s() - t0);
}

/* Only the cases whose name contains this (NULL: every case). */
static const char *only;

/* One case: a warm-up search on `threads` (not counted: it starts the
 * OpenMP threads), then `reps` rounds of a one-thread search followed by
 * a `threads`-thread search (interleaved, so that the machine's load
 * falls on both alike), then `threads` one-thread searches at once. */
static void bench(const char *name, const sc_scenario *s, int reps, int threads) {
  if (only && !strstr(name, only)) return;
  if (threads < 0) { /* profiling: only searches on -threads threads */
    sc_search_stats st;
    double best, t = 0;
    for (int i = 0; i < reps; i++) t += search_once(name, s, -threads, &st, &best);
    printf("%s: %d x %ld plans on %d threads, %.3f ms each, best step %.3f s\n", name, reps,
           st.tried, st.threads, 1e3 * t / reps, best);
    return;
  }
  static double t1[MAX_REPEATS], tn[MAX_REPEATS];
  sc_search_stats st1, stn;
  double best1, bestn, cpu1 = 0, cpun = 0;
  search_once(name, s, threads, &stn, NULL);
  for (int i = 0; i < reps; i++) {
    double c = cpu_s();
    t1[i] = search_once(name, s, 1, &st1, &best1);
    cpu1 += cpu_s() - c;
    c = cpu_s();
    tn[i] = threads > 1 ? search_once(name, s, threads, &stn, &bestn) : t1[i];
    cpun += cpu_s() - c;
  }
  if (threads < 2) stn = st1, bestn = best1, cpun = cpu1;
  if (st1.tried != stn.tried || st1.fit != stn.fit || st1.pruned != stn.pruned ||
      best1 != bestn) {
    fprintf(stderr, "%s: 1 and %d threads disagree\n", name, threads);
    exit(1);
  }
  double m1 = median(t1, reps), mn = median(tn, reps), f1 = t1[0], fn = tn[0];
  double plans = (double)st1.tried;
  printf("%s\n", name);
  printf("  plans %ld tried, %ld valid, %ld fit, %ld pruned; best step %.3f s\n", st1.tried,
         st1.valid, st1.fit, st1.pruned, best1);
  printf("  one search, 1 thread : %8.3f ms  %9.0f plans/s  (fastest %9.0f)  %9.0f per CPU-s\n",
         1e3 * m1, plans / m1, plans / f1, reps * plans / cpu1);
  printf("  one search, %d threads: %8.3f ms  %9.0f plans/s  (fastest %9.0f)  %9.0f per CPU-s"
         "  %8.0f per thread\n",
         stn.threads, 1e3 * mn, plans / mn, plans / fn, reps * plans / cpun,
         plans / mn / stn.threads);
  printf("  speed-up %.2fx median (%.2fx fastest) on %d threads\n", m1 / mn, f1 / fn,
         stn.threads);
  if (threads > 1) {
    double c = concurrent(name, s, reps, threads);
    printf("  %d one-thread searches at once: %9.0f plans/s together, %9.0f per thread "
           "(%.2fx one search on 1 thread)\n",
           threads, c, c / threads, c / (plans / m1));
  }
  fflush(stdout);
}

int main(int argc, char **argv) {
  int reps = argc > 1 ? atoi(argv[1]) : 11;
  int threads = argc > 2 ? atoi(argv[2]) : 2;
  only = argc > 3 ? argv[3] : NULL;
  if (reps < 1) reps = 1;
  if (reps > MAX_REPEATS) reps = MAX_REPEATS;
  if (threads == 0) threads = 1;
  if (threads > MAX_THREADS || threads < -MAX_THREADS) threads = MAX_THREADS;
  printf("bench_search: %d rounds of (1 thread, %d threads) per case; medians of the wall "
         "time of one whole sc_search call\n", reps, threads);
  sc_scenario s;
  sc_scenario_default(&s);
  s.model = *sc_model_preset("llama3-70b");
  s.cluster.gpu = *sc_gpu_preset("h100-sxm5-80gb");
  s.cluster.gpus = 512;
  s.cluster.nic_bw = 400e9 / 8;
  s.plan.global_batch = 512;
  bench("llama3-70b 512 h100, default network", &s, reps, threads);
  snprintf(s.cluster.topology, sizeof s.cluster.topology, "%s",
           "fat_tree:hosts=512,radix=16,levels=3,oversub=2,bw=50");
  bench("llama3-70b 512 h100, fat-tree 2:1 topology", &s, reps, threads);
  sc_scenario_default(&s);
  bench("gpt3-175b 1024 a100, default network", &s, reps, threads);
  snprintf(s.cluster.topology, sizeof s.cluster.topology, "%s",
           "fat_tree:hosts=1024,radix=32,levels=3,oversub=2,bw=25");
  bench("gpt3-175b 1024 a100, fat-tree 2:1 topology", &s, reps, threads);
  /* thread scaling: a space of tens of thousands of plans (MoE: ep; 32k
   * tokens: cp) */
  sc_scenario_default(&s);
  s.model = *sc_model_preset("qwen3-30b-a3b");
  s.model.tf.seq = 32768;
  s.cluster.gpu = *sc_gpu_preset("h100-sxm5-80gb");
  s.cluster.gpus = 16384;
  s.cluster.nic_bw = 400e9 / 8;
  s.plan.global_batch = 16384;
  bench("qwen3-30b-a3b 16384 h100 seq 32k (threads)", &s, reps, threads);
  return 0;
}
