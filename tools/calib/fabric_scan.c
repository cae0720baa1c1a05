/*
 * fabric_scan.c -- the fit of a fabric's per-traversal latency
 * (src/coll/fabrics.c, docs/calibration.md "Fabrics"): scans the latency
 * from 2.7 to MAX us in 0.1 us steps and prints the one with the least
 * median |predicted / measured - 1| of NCCL's all-reduce time over the
 * rows given on standard input ("bytes seconds" per line).
 *
 *   fabric_scan RANKS PPN ARCH NVLINK_GBPS NIC_GBITPS FABRIC [MAX] < rows
 *
 * The rows as tools/calib/coll_fabrics.py --rows prints them, e.g. EFA's
 * (AWS p6-b200 rows 128-150 even):
 *   python3 tools/calib/coll_fabrics.py --rows | awk '$1 == "row" &&
 *     $2 >= 128 && $2 <= 150 && $2 % 2 == 0 {print $3, $6 * 1e-6}' |
 *     fabric_scan 32 8 100 900 400 efa 200
 * and TCPXO's (GCP A3 Mega rows 28-44): 16 8 90 450 200 tcpxo.
 *
 * Build: cc -O2 -Iinclude tools/calib/fabric_scan.c build/libstepcast.a -ljansson -lm
 */
#include <stdio.h>
#include <stdlib.h>

#include "stepcast.h"

#define MAX_ROWS 256

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static double median_err(const sc_coll_group *g, const double *b, const double *t, int n) {
  double e[MAX_ROWS];
  for (int i = 0; i < n; i++) {
    double r = sc_coll_nccl_time(SC_COLL_ALL_REDUCE, b[i], g).time / t[i] - 1;
    e[i] = r < 0 ? -r : r;
  }
  qsort(e, (size_t)n, sizeof *e, cmp);
  return n % 2 ? e[n / 2] : 0.5 * (e[n / 2 - 1] + e[n / 2]);
}

int main(int argc, char **argv) {
  if (argc < 7) {
    fprintf(stderr, "usage: fabric_scan RANKS PPN ARCH NVLINK_GBPS NIC_GBITPS FABRIC [MAX_US]\n");
    return 2;
  }
  sc_coll_group g = {.ranks = atoi(argv[1]), .ranks_per_node = atoi(argv[2]),
                     .arch = atoi(argv[3]), .intra_bw = atof(argv[4]) * 1e9,
                     .inter_bw = atof(argv[5]) * 1e9 / 8,
                     .fabric = sc_fabric_from_name(argv[6])};
  double max_us = argc > 7 ? atof(argv[7]) : 60.0;
  if (g.fabric < 0) {
    fprintf(stderr, "fabric_scan: unknown fabric %s\n", argv[6]);
    return 2;
  }
  double b[MAX_ROWS], t[MAX_ROWS];
  int n = 0;
  while (n < MAX_ROWS && scanf("%lf %lf", &b[n], &t[n]) == 2) n++;
  if (n == 0) {
    fprintf(stderr, "fabric_scan: no rows on standard input\n");
    return 2;
  }
  double best = -1, best_us = 0;
  for (int i = 0; 2.7 + 0.1 * i <= max_us + 1e-9; i++) {
    double us = 2.7 + 0.1 * i;
    g.inter_lat = us * 1e-6;
    double m = median_err(&g, b, t, n);
    if (best < 0 || m < best - 1e-12) best = m, best_us = us;
  }
  g.inter_lat = 2.7e-6;
  printf("%d rows: %.1f us, median |error| %.2f %% (%.2f %% at 2.7 us)\n", n, best_us,
         100 * best, 100 * median_err(&g, b, t, n));
  return 0;
}
