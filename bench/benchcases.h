/*
 * benchcases.h -- what bench_search and bench_rerank share: the medians
 * they report and issue 14's four search cases (Llama-3 70B on 512 H100,
 * GPT-3 175B on 1,024 A100, each on the default network and on a 2:1
 * fat-tree). Times: clock_now_s (core/clock.h).
 */
#ifndef SC_BENCH_BENCHCASES_H
#define SC_BENCH_BENCHCASES_H

#include <stdio.h>
#include <stdlib.h>

#include "stepcast.h"

static inline int bench_by_value(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* The median of v[0..n-1] (sorts v). */
static inline double bench_median(double *v, int n) {
  qsort(v, (size_t)n, sizeof *v, bench_by_value);
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* Issue 14's Llama-3 70B case: 512 H100 (400 Gb/s a GPU), global batch
 * 512, on the default network or (fat_tree) bench_search's 2:1 fat-tree
 * of 512 hosts; tests/searchcases.h runs the search's tests on it. */
static inline sc_scenario bench_llama(int fat_tree) {
  sc_scenario s;
  sc_scenario_default(&s);
  s.model = *sc_model_preset("llama3-70b");
  s.cluster.gpu = *sc_gpu_preset("h100-sxm5-80gb");
  s.cluster.gpus = 512;
  s.cluster.nic_bw = 400e9 / 8;
  s.plan.global_batch = 512;
  if (fat_tree)
    snprintf(s.cluster.topology, sizeof s.cluster.topology, "%s",
             "fat_tree:hosts=512,radix=16,levels=3,oversub=2,bw=50");
  return s;
}

/* Each of the four cases in turn: run(name, scenario, ctx). */
typedef void (*bench_case_fn)(const char *name, const sc_scenario *s, void *ctx);
static inline void bench_four_cases(bench_case_fn run, void *ctx) {
  sc_scenario s = bench_llama(0);
  run("llama3-70b 512 h100, default network", &s, ctx);
  s = bench_llama(1);
  run("llama3-70b 512 h100, fat-tree 2:1 topology", &s, ctx);
  sc_scenario_default(&s);
  run("gpt3-175b 1024 a100, default network", &s, ctx);
  snprintf(s.cluster.topology, sizeof s.cluster.topology, "%s",
           "fat_tree:hosts=1024,radix=32,levels=3,oversub=2,bw=25");
  run("gpt3-175b 1024 a100, fat-tree 2:1 topology", &s, ctx);
}

#endif
