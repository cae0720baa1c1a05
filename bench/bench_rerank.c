/*
 * bench_rerank.c -- what re-ranking a search's top 10 by the event engine
 * (`stepcast search`'s default, --no-rerank to skip it) adds to a search.
 *
 * The cases of bench_search.c (Llama-3 70B on 512 H100, GPT-3 175B on
 * 1,024 A100, each on the cluster's default network and on a 2:1
 * oversubscribed 3-level fat-tree). Per case and thread count, ROUNDS
 * rounds of one search without the re-rank then one with it (interleaved,
 * so that the machine's load falls on both alike): the median wall time
 * of the whole sc_search call of each, the median re-rank time
 * (sc_search_stats.rerank_seconds) and what it adds. The bench exits 1 if
 * the re-ranked top 10 is not the closed form's ten plans, or differs
 * between thread counts.
 *
 *   build/bench_rerank [ROUNDS] [THREADS] [CASE]   (defaults 7, 2, every case)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "benchcases.h"
#include "core/clock.h"
#include "stepcast.h"

#define MAX_ROUNDS 200
#define K 10

/* One search of s (rerank or not) on `threads`: its wall seconds; the
 * plans into best, the stats into *st. */
static double search_once(const char *name, const sc_scenario *s, int threads, int rerank,
                          sc_candidate *best, int *n, sc_search_stats *st) {
  struct timespec pause = {0, 30000000}; /* the last search's OpenMP threads asleep */
  nanosleep(&pause, NULL);
  sc_search_opts o;
  sc_search_opts_default(&o);
  o.threads = threads;
  o.rerank = rerank;
  sc_error err = {0};
  double t0 = clock_now_s();
  if (sc_search(s, &o, best, K, n, st, &err) != SC_OK) {
    fprintf(stderr, "%s: %s\n", name, err.msg);
    exit(2);
  }
  return clock_now_s() - t0;
}

/* 1 when a and b hold the same plans (any order). */
static int same_set(const sc_candidate *a, const sc_candidate *b, int n) {
  for (int i = 0; i < n; i++) {
    int found = 0;
    for (int j = 0; j < n && !found; j++) found = !memcmp(&a[i].plan, &b[j].plan, sizeof a[i].plan);
    if (!found) return 0;
  }
  return 1;
}

static const char *only;
static sc_candidate first[K]; /* the case's re-ranked top 10 on its first thread count */

static void bench(const char *name, const sc_scenario *s, int reps, int threads, int first_run) {
  static double off[MAX_ROUNDS], on[MAX_ROUNDS], rr[MAX_ROUNDS];
  sc_candidate a[K], b[K];
  int na = 0, nb = 0;
  sc_search_stats sa, sb;
  search_once(name, s, threads, 1, b, &nb, &sb); /* warm-up, not counted */
  for (int i = 0; i < reps; i++) {
    off[i] = search_once(name, s, threads, 0, a, &na, &sa);
    on[i] = search_once(name, s, threads, 1, b, &nb, &sb);
    rr[i] = sb.rerank_seconds;
  }
  if (na != nb || !same_set(a, b, na) || !sb.reranked) {
    fprintf(stderr, "%s: the re-ranked plans are not the closed form's top %d\n", name, K);
    exit(1);
  }
  if (first_run) memcpy(first, b, sizeof first);
  else
    for (int i = 0; i < nb; i++)
      if (memcmp(&first[i].plan, &b[i].plan, sizeof b[i].plan) || first[i].event_s != b[i].event_s) {
        fprintf(stderr, "%s: the re-rank differs on %d threads\n", name, sb.threads);
        exit(1);
      }
  int moved = 0;
  for (int i = 0; i < nb; i++) moved += memcmp(&a[i].plan, &b[i].plan, sizeof a[i].plan) != 0;
  double m0 = bench_median(off, reps), m1 = bench_median(on, reps), mr = bench_median(rr, reps);
  printf("  %d thread%s: without %8.2f ms, with %8.2f ms (+%5.1f %%); re-rank %7.2f ms, "
         "%.2f ms a plan; %d of %d places changed\n",
         sb.threads, sb.threads == 1 ? " " : "s", 1e3 * m0, 1e3 * m1, 100 * (m1 - m0) / m0,
         1e3 * mr, 1e3 * mr / nb * sb.threads, moved, nb);
  fflush(stdout);
}

typedef struct bench_reps { int reps, threads; } bench_reps;

static void run_case(const char *name, const sc_scenario *s, int reps, int threads) {
  if (only && !strstr(name, only)) return;
  sc_search_stats st;
  sc_candidate c[K];
  int n = 0;
  search_once(name, s, 1, 0, c, &n, &st);
  printf("%s: %ld plans tried, %ld fit, best step %.3f s\n", name, st.tried, st.fit,
         n ? c[0].result.step_s : 0);
  bench(name, s, reps, 1, 1);
  if (threads > 1) bench(name, s, reps, threads, 0);
}

static void case_of(const char *name, const sc_scenario *s, void *ctx) {
  const bench_reps *r = ctx;
  run_case(name, s, r->reps, r->threads);
}

int main(int argc, char **argv) {
  int reps = argc > 1 ? atoi(argv[1]) : 7;
  int threads = argc > 2 ? atoi(argv[2]) : 2;
  only = argc > 3 ? argv[3] : NULL;
  if (reps < 1) reps = 1;
  if (reps > MAX_ROUNDS) reps = MAX_ROUNDS;
  printf("bench_rerank: top %d, %d rounds per case and thread count (without, then with the "
         "re-rank); medians of the wall time of one whole sc_search call\n", K, reps);
  bench_reps r = {reps, threads};
  bench_four_cases(case_of, &r);
  return 0;
}
