/*
 * moe_check.c -- the GEMM model against tools/calib/moe_bench.py's
 * measurements of MoE expert GEMMs (grouped, batched, one per expert,
 * dense; data/measured/moe_bench_h200.csv).
 *
 *   moe_check [--gpu NAME] [--rows] [--plain] [CSV...]
 *
 * For each measured row the model's time of the same pass as the engine
 * costs it (src/engine/analytic.c): a grouped or batched GEMM of G experts
 * of T tokens is cost_gemm(T, n, k, batch G) forward, (T, k, n) for the
 * data gradient and (k, n, T) for the weight gradient; without grouped GEMM
 * (SequentialMLP, "loop") G GEMMs of batch 1; "dense" one GEMM of G T
 * tokens. The measured counts of "grouped", "bmm", "loop" and "dense" are
 * equal and multiples of the tile (cost_gemm); "grouped_imb" spreads them
 * and "grouped_rand" draws them (data/measured/moe_rand_h200.csv)
 * (cost_gemm_expert: each expert's rows end part-way into a tile, as the
 * engine costs every expert's forward and data gradient). Prints per row
 * (--rows) and per variant and pass the mean absolute and signed error of
 * the model's time (model / measured - 1); --plain costs grouped_imb with
 * cost_gemm too (what the model did before cost_gemm_expert).
 *
 * Build: cc -O2 -Iinclude -Isrc tools/calib/moe_check.c build/libstepcast.a -ljansson -lm
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cost/compute.h"
#include "load/csv.h"

#define N_VAR 8
#define N_PASS 3
static const char *const variants[N_VAR] = {"grouped", "grouped_imb", "bmm",         "loop",
                                            "dense",   "fp8_grouped", "grouped_rand", "fp8_dense"};
static const char *const passes[N_PASS] = {"fwd", "dgrad", "wgrad"};

static int index_of(const char *const *names, int n, const char *s) {
  for (int i = 0; i < n; i++)
    if (!strcmp(names[i], s)) return i;
  return -1;
}

/* The model's seconds for one measured row. */
static double model_s(const sc_gpu *g, int var, int pass, double G, double T, double k,
                      double n, int plain) {
  sc_dtype dt = var == 5 || var == 7 ? SC_FP8 : SC_BF16;
  double m = T, batch = G, calls = 1;
  if (var == 3) calls = G, batch = 1;             /* loop: one GEMM per expert */
  if (var == 4 || var == 7) m = G * T, batch = 1; /* dense: one GEMM of every token */
  double (*rows)(const sc_gpu *, sc_dtype, double, double, double, double) =
      (var == 1 || var == 6) && !plain ? cost_gemm_expert : cost_gemm;
  double t = pass == 0   ? rows(g, dt, m, n, k, batch)
             : pass == 1 ? rows(g, dt, m, k, n, batch)
                         : cost_gemm(g, dt, k, n, m, batch);
  return calls * t;
}

/* Adds each measured row of path to the sums (printing it with --rows). */
static int check_file(const char *path, const sc_gpu *g, int rows, int plain,
                      double abs_sum[N_VAR][N_PASS], double sgn_sum[N_VAR][N_PASS],
                      int cnt[N_VAR][N_PASS]) {
  csv_file f;
  sc_error err;
  if (csv_open(&f, path, &err)) {
    fprintf(stderr, "%s\n", err.msg);
    return 2;
  }
  int cm = csv_col(&f, "model"), cl = csv_col(&f, "layer"), ck = csv_col(&f, "k"),
      cn = csv_col(&f, "n"), cg = csv_col(&f, "experts"), ct = csv_col(&f, "tokens_per_expert"),
      cp = csv_col(&f, "pass"), cv = csv_col(&f, "variant"), cr = csv_col(&f, "max_over_mean"),
      cms = csv_col(&f, "ms");
  while (csv_next(&f, path, &err) == 1) {
    int var = index_of(variants, N_VAR, csv_get(&f, cv));
    int pass = index_of(passes, N_PASS, csv_get(&f, cp));
    double ms = atof(csv_get(&f, cms));
    if (var < 0 || pass < 0 || ms <= 0) continue;
    double G = atof(csv_get(&f, cg)), T = atof(csv_get(&f, ct)), k = atof(csv_get(&f, ck)),
           n = atof(csv_get(&f, cn));
    double pred = model_s(g, var, pass, G, T, k, n, plain) * 1e3, e = pred / ms - 1;
    abs_sum[var][pass] += fabs(e);
    sgn_sum[var][pass] += e;
    cnt[var][pass]++;
    if (rows)
      printf("%-16s %s k %5.0f n %5.0f G %2.0f T %5.0f %-5s %-12s r %s  measured %8.4f  model "
             "%8.4f ms  %+6.1f%%\n",
             csv_get(&f, cm), csv_get(&f, cl), k, n, G, T, passes[pass], variants[var],
             csv_get(&f, cr), ms, pred, 100 * e);
  }
  csv_close(&f);
  return 0;
}

int main(int argc, char **argv) {
  const char *gpu = "h200";
  const char *paths[8] = {"data/measured/moe_bench_h200.csv", "data/measured/moe_rand_h200.csv"};
  int n_paths = 2, given = 0, rows = 0, plain = 0;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--gpu") && i + 1 < argc) gpu = argv[++i];
    else if (!strcmp(argv[i], "--rows")) rows = 1;
    else if (!strcmp(argv[i], "--plain")) plain = 1;
    else if (given < 8) paths[given++] = argv[i];
  }
  if (given) n_paths = given;
  const sc_gpu *g = sc_gpu_preset(gpu);
  if (!g) {
    fprintf(stderr, "moe_check: unknown GPU '%s'\n", gpu);
    return 2;
  }
  double abs_sum[N_VAR][N_PASS] = {{0}}, sgn_sum[N_VAR][N_PASS] = {{0}};
  int cnt[N_VAR][N_PASS] = {{0}};
  for (int i = 0; i < n_paths; i++)
    if (check_file(paths[i], g, rows, plain, abs_sum, sgn_sum, cnt)) return 2;
  printf("%-12s %-6s %5s %8s %8s   (model time / measured - 1, GPU %s)\n", "variant", "pass",
         "rows", "MAPE", "signed", g->name);
  for (int v = 0; v < N_VAR; v++)
    for (int p = 0; p < N_PASS; p++)
      if (cnt[v][p])
        printf("%-12s %-6s %5d %7.1f%% %+7.1f%%\n", variants[v], passes[p], cnt[v][p],
               100 * abs_sum[v][p] / cnt[v][p], 100 * sgn_sum[v][p] / cnt[v][p]);
  return 0;
}
