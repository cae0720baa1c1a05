/*
 * bench_ranking.c -- how well stepcast ranks plans of the same job:
 * Kendall's tau between predicted and measured step times within groups
 * of rows with the same model, GPU count and global batch, averaged over
 * groups of three or more rows, and the groups whose predicted-best plan
 * is within 5 % of the measured best (src/search/rankq.h).
 *
 *   build/bench_ranking [--groups] [TRAINING.csv ...]
 *
 * --groups also prints every group (worst tau first is `sort -k2 -n` of
 * the "group" lines): its tau, whether its predicted best is within 5 %
 * of the measured best, and its rows by measured time with the predicted
 * time and the ratio -- the per-group diagnostic of docs/search.md.
 *
 * Default: ../shared/validation/training/vtrain_single_node.csv (run
 * from the repository root). Measured (see docs/search.md):
 *
 *   vtrain_single_node.csv   136 groups   mean tau 0.882   best within 5 %: 103
 *   (plan.tp_async_bwd off, the default; 0.875 and 91 with it on)
 */
#include <stdio.h>
#include <string.h>

#include "search/rankq.h"

/* Print one group and its rows. */
static void show(void *ud, const char *key, const rankq_row *rows, int n, double tau, int ok) {
  (void)ud;
  printf("group %6.3f %s %s\n", tau, ok ? "best-ok  " : "best-MISS", key);
  double best_p = rows[0].predicted;
  for (int i = 1; i < n; i++)
    if (rows[i].predicted < best_p) best_p = rows[i].predicted;
  for (int i = 0; i < n; i++)
    printf("    %-12s measured %9.4f s  predicted %9.4f s  ratio %.3f%s\n", rows[i].id,
           rows[i].measured, rows[i].predicted, rows[i].predicted / rows[i].measured,
           rows[i].predicted == best_p ? "  <- predicted best" : "");
}

int main(int argc, char **argv) {
  const char *dflt = "../shared/validation/training/vtrain_single_node.csv";
  int groups = argc > 1 && !strcmp(argv[1], "--groups");
  int first = 1 + groups, rc = 0;
  for (int i = first; i < (argc > first ? argc : first + 1); i++) {
    const char *path = argc > first ? argv[i] : dflt;
    rankq q;
    sc_error err = {0};
    if (rankq_file_ex(path, 0.05, &q, groups ? show : NULL, NULL, &err) != SC_OK) {
      fprintf(stderr, "bench_ranking: %s\n", err.msg);
      rc = 2;
      continue;
    }
    printf("%s: %d groups (%d rows), mean Kendall tau %.3f, predicted best within 5 %% of the "
           "measured best in %d (%.0f %%)\n",
           path, q.groups, q.rows, q.mean_tau, q.best_within,
           q.groups ? 100.0 * q.best_within / q.groups : 0);
  }
  return rc;
}
