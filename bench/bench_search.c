/*
 * bench_search.c -- plans evaluated per second by `stepcast search`, on
 * one thread and on many.
 *
 * Searches the plan space of Llama-3 70B on 512 H100 (global batch 512)
 * and of GPT-3 175B on 1,024 A100 (the default scenario), each with the
 * cluster's default network (NVLink domains and one non-blocking NIC rail
 * per GPU, closed forms only) and with a named topology (a 2:1
 * oversubscribed 3-level fat-tree), and a larger space (Qwen3-30B-A3B on
 * 16,384 H100 at 32k tokens, 212,816 plans) for the thread scaling.
 *
 *   build/bench_search [ROUNDS] [THREADS] [CASE]   (defaults 11, 2, every case)
 *   build/bench_search ROUNDS -T CASE               (only T-thread searches: profiling)
 *   build/bench_search --hot [ROUNDS] [THREADS] [CASE]
 *   build/bench_search --created ...                (helpers created per search: sc_search)
 *
 * Per case it prints (docs/search.md, "Speed"):
 * - plans tried, valid, fitting and pruned (the same on any thread count:
 *   the bench exits 1 if the 1- and T-thread searches disagree);
 * - the first search of the case on T threads (not counted: it touches
 *   the case's memory for the first time);
 * - ROUNDS rounds of one search on 1 thread then one on T threads
 *   (interleaved, so that the machine's load falls on both alike): the
 *   median wall time of one whole search (sc_searcher_search on a
 *   searcher of T threads opened once, as `stepcast search` does; each
 *   search opens its own jobs and wakes the searcher's parked threads:
 *   the cold memos, the threads' start-up work and the joins are in it;
 *   --created: sc_search, whose helpers are created for each search), plans per second of it and of
 *   the fastest search, plans per CPU-second (every thread's CPU time) and,
 *   on T threads, plans per second per thread (T asked: src/search/crew.h
 *   lets a thread that starts too late not join);
 * - the speed-up: median 1-thread time / median T-thread time (and the
 *   same of the fastest searches);
 * - the CPU time of the T-thread searches over the 1-thread ones' (every
 *   thread's, spinning included): T / that ratio is the speed-up the
 *   search could reach with a free core per thread and threads that start
 *   at once, whatever the machine's load (what a helper's cold start
 *   costs: its memos, the first touch of its memory);
 * - T one-thread searches at once, ROUNDS each (each its own thread):
 *   plans per second together. This is what the cores give when no search
 *   shares anything: the ceiling of the T-thread search's speed-up on
 *   this machine at this load (a shared 2-core machine rarely gives 2x).
 * - before each timed search the bench sleeps 30 ms, so that nothing of
 *   the search before still runs (a helper thread that started too late
 *   to join ends then); CPU seconds are counted from the end of the sleep;
 * - the load average when the case started (/proc/loadavg): with more
 *   runnable processes than cores, a thread that waits at a join is
 *   descheduled for milliseconds, longer than a small search.
 *
 * --created: every search by sc_search (helpers created for it, not
 *   parked: what a searcher saves).
 *
 * --hot: searches back to back, without the 30 ms sleep, so that (on a
 *   virtual machine) the idle vCPUs are awake when a search starts: the
 *   speed-up of searches run in a loop or of a long search, without the
 *   wake-up of a sleeping core that a single short search pays. The "at
 *   once" line is left out.
 *
 * The machine is shared: compare instructions (valgrind --tool=callgrind
 * --toggle-collect=sc_search build/bench_search 1 -1 CASE), and ratios
 * measured in one run.
 */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "benchcases.h"
#include "core/clock.h"
#include "stepcast.h"

#define MAX_REPEATS 1000
#define MAX_THREADS 256

/* CPU seconds of the process so far (every thread). */
static double cpu_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return t.tv_sec + 1e-9 * t.tv_nsec;
}

/* Sleep 30 ms: OpenMP's idle threads spin for milliseconds after a
 * parallel search (GOMP_SPINCOUNT) before they sleep; a search timed
 * right after one would share the cores with them. */
static int hot; /* --hot: no settle (the file comment) */
/* The parked threads of the T-thread searches (NULL: --created). */
static sc_searcher *searcher;

static void settle(void) {
  if (hot) return;
  struct timespec t = {0, 30000000};
  nanosleep(&t, NULL);
}

/* One search of s on `threads` threads: its wall seconds (the whole
 * sc_search call), its counts into *st, best step into *best_s and (cpu
 * not NULL: after settle) the process's CPU seconds during it added to
 * *cpu. */
static double search_once(const char *name, const sc_scenario *s, int threads,
                          sc_search_stats *st, double *best_s, double *cpu) {
  if (cpu) settle();
  double c0 = cpu ? cpu_s() : 0;
  sc_candidate best[10];
  int n = 0;
  sc_error err = {0};
  sc_search_opts o;
  sc_search_opts_default(&o);
  o.threads = threads;
  double t0 = clock_now_s();
  if (sc_searcher_search(searcher, s, &o, best, 10, &n, st, &err) != SC_OK) {
    fprintf(stderr, "%s: %s\n", name, err.msg);
    exit(2);
  }
  double t = clock_now_s() - t0;
  if (cpu) *cpu += cpu_s() - c0;
  if (best_s) *best_s = n > 0 ? best[0].result.step_s : 0;
  return t;
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
    search_once(j->name, j->s, 1, &st, NULL, NULL);
    j->plans += st.tried;
  }
  return NULL;
}

/* `threads` one-thread searches at once, reps each: plans per second of
 * them together (what the cores give when each runs its own search). */
static double concurrent(const char *name, const sc_scenario *s, int reps, int threads) {
  pthread_t th[MAX_THREADS];
  solo jobs[MAX_THREADS];
  double t0 = clock_now_s();
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
  return plans / (clock_now_s() - t0);
}

/* Only the cases whose name contains this (NULL: every case). */
static const char *only;

/* The 1-minute load average (runnable processes), or -1. */
static double load_1min(void) {
  FILE *f = fopen("/proc/loadavg", "r");
  double l = -1;
  if (f && fscanf(f, "%lf", &l) != 1) l = -1;
  if (f) fclose(f);
  return l;
}

/* One case: a warm-up search on `threads` (not counted: it starts the
 * OpenMP threads), then `reps` rounds of a one-thread search followed by
 * a `threads`-thread search (interleaved, so that the machine's load
 * falls on both alike), then `threads` one-thread searches at once. */
static void bench(const char *name, const sc_scenario *s, int reps, int threads) {
  if (only && !strstr(name, only)) return;
  if (threads < 0) { /* profiling: only searches on -threads threads */
    sc_search_stats st = {0};
    double best = 0, t = 0;
    for (int i = 0; i < reps; i++) t += search_once(name, s, -threads, &st, &best, NULL);
    printf("%s: %d x %ld plans on %d threads, %.3f ms each, best step %.3f s\n", name, reps,
           st.tried, st.threads, 1e3 * t / reps, best);
    return;
  }
  static double t1[MAX_REPEATS], tn[MAX_REPEATS];
  sc_search_stats st1 = {0}, stn = {0};
  double best1 = 0, bestn = 0, cpu1 = 0, cpun = 0;
  double load = load_1min();
  double warm = search_once(name, s, threads, &stn, NULL, NULL);
  for (int i = 0; i < reps; i++) {
    t1[i] = search_once(name, s, 1, &st1, &best1, &cpu1);
    tn[i] = threads > 1 ? search_once(name, s, threads, &stn, &bestn, &cpun) : t1[i];
  }
  if (threads < 2) stn = st1, bestn = best1, cpun = cpu1;
  if (st1.tried != stn.tried || st1.fit != stn.fit || st1.pruned != stn.pruned ||
      best1 != bestn) {
    fprintf(stderr, "%s: 1 and %d threads disagree\n", name, threads);
    exit(1);
  }
  double m1 = bench_median(t1, reps), mn = bench_median(tn, reps), f1 = t1[0], fn = tn[0];
  double plans = (double)st1.tried;
  printf("%s (load average %.2f on start)\n", name, load);
  printf("  plans %ld tried, %ld valid, %ld fit, %ld pruned; best step %.3f s\n", st1.tried,
         st1.valid, st1.fit, st1.pruned, best1);
  printf("  first search, %d threads: %8.3f ms (not counted)\n", stn.threads, 1e3 * warm);
  printf("  one search, 1 thread : %8.3f ms  %9.0f plans/s  (fastest %9.0f)  %9.0f per CPU-s\n",
         1e3 * m1, plans / m1, plans / f1, reps * plans / cpu1);
  printf("  one search, %d threads: %8.3f ms  %9.0f plans/s  (fastest %9.0f)  %9.0f per CPU-s"
         "  %8.0f per thread\n",
         stn.threads, 1e3 * mn, plans / mn, plans / fn, reps * plans / cpun,
         plans / mn / stn.threads);
  printf("  speed-up %.2fx median (%.2fx fastest) on %d threads\n", m1 / mn, f1 / fn,
         stn.threads);
  if (threads > 1)
    printf("  CPU time of a %d-thread search %.2fx a 1-thread one's: with a free core per thread "
           "and no start-up delay at most %.2fx\n",
           threads, cpun / cpu1, threads * cpu1 / cpun);
  if (threads > 1 && !hot) {
    double c = concurrent(name, s, reps, threads);
    printf("  %d one-thread searches at once: %9.0f plans/s together, %9.0f per thread "
           "(%.2fx one search on 1 thread)\n",
           threads, c, c / threads, c / (plans / m1));
  }
  fflush(stdout);
}

typedef struct bench_reps { int reps, threads; } bench_reps;

static void case_of(const char *name, const sc_scenario *s, void *ctx) {
  const bench_reps *r = ctx;
  bench(name, s, r->reps, r->threads);
}

int main(int argc, char **argv) {
  int created = 0;
  for (; argc > 1 && (!strcmp(argv[1], "--hot") || !strcmp(argv[1], "--created")); argv++, argc--)
    *(argv[1][2] == 'h' ? &hot : &created) = 1;
  int reps = argc > 1 ? atoi(argv[1]) : 11;
  int threads = argc > 2 ? atoi(argv[2]) : 2;
  only = argc > 3 ? argv[3] : NULL;
  if (reps < 1) reps = 1;
  if (reps > MAX_REPEATS) reps = MAX_REPEATS;
  if (threads == 0) threads = 1;
  if (threads > MAX_THREADS || threads < -MAX_THREADS) threads = MAX_THREADS;
  if (threads > 0)
    printf("bench_search: %d rounds of (1 thread, %d threads) per case; medians of the wall "
           "time of one whole search%s%s\n", reps, threads,
           hot ? "; hot: back to back, no sleep between searches" : "",
           created ? "; created: sc_search, helpers created per search" : "; on a searcher");
  sc_error err = {0};
  if (!created && sc_searcher_open(threads < 0 ? -threads : threads, &searcher, &err) != SC_OK) {
    fprintf(stderr, "bench_search: %s\n", err.msg);
    return 2;
  }
  bench_reps r = {reps, threads};
  bench_four_cases(case_of, &r);
  sc_scenario s;
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
  sc_searcher_close(searcher);
  return 0;
}
