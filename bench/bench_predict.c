/*
 * bench_predict.c -- CPU cost of one prediction (issue target: < 1 ms).
 *
 * Runs sc_predict on the default scenario (GPT-3 175B, 1,024 A100s, pp 16)
 * and on a pipeline-free plan, N times each, and prints the mean
 * microseconds per prediction. For a repeatable figure on a noisy machine
 * count instructions instead:
 *   valgrind --tool=callgrind build/bench_predict 100
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "stepcast.h"

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + 1e-9 * t.tv_nsec;
}

static double bench(const char *name, const sc_scenario *s, int n) {
  sc_result r;
  sc_error err = {0};
  double sink = 0, t0 = now();
  for (int i = 0; i < n; i++) {
    if (sc_predict(s, &r, &err) != SC_OK) {
      fprintf(stderr, "%s: %s\n", name, err.msg);
      exit(2);
    }
    sink += r.step_s;
  }
  double us = (now() - t0) / n * 1e6;
  printf("%-40s %9.1f us per prediction  (%d runs, step %.3f s)\n", name, us, n, sink / n);
  return us;
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 2000;
  if (n < 1) n = 1;
  sc_scenario s;
  sc_scenario_default(&s);
  double a = bench("gpt3-175b 1024 a100 tp8 pp16 (default)", &s, n);
  s.plan.pp = 1;
  s.plan.tp = 8;
  s.plan.dp = 128;
  s.plan.zero = 3;
  double b = bench("gpt3-175b 1024 a100 tp8 fsdp", &s, n);
  double worst = a > b ? a : b;
  printf("worst %.1f us: %s the 1 ms target\n", worst, worst < 1000 ? "within" : "ABOVE");

  /* the timeline: a discrete-event simulation of every pass of the step */
  sc_scenario_default(&s);
  int reps = n / 100 > 0 ? n / 100 : 1;
  sc_span *spans = NULL;
  size_t count = 0;
  double step = 0, t0 = now();
  sc_error err = {0};
  for (int i = 0; i < reps; i++) {
    free(spans);
    spans = NULL;
    if (sc_timeline(&s, &spans, &count, &step, &err) != SC_OK) {
      fprintf(stderr, "timeline: %s\n", err.msg);
      return 2;
    }
  }
  printf("%-40s %9.1f us per timeline   (%zu spans, step %.3f s)\n",
         "gpt3-175b 1024 a100 timeline", (now() - t0) / reps * 1e6, count, step);
  free(spans);
  return 0;
}
