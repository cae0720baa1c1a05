/*
 * bench_ranking.c -- how well stepcast ranks plans of the same job:
 * Kendall's tau between predicted and measured step times within groups
 * of rows with the same model, GPU count and global batch, averaged over
 * groups of three or more rows, and the groups whose predicted-best plan
 * is within 5 % of the measured best (src/search/rankq.h).
 *
 *   build/bench_ranking [TRAINING.csv ...]
 *
 * Default: ../shared/validation/training/vtrain_single_node.csv (run
 * from the repository root). Measured (see docs/search.md):
 *
 *   vtrain_single_node.csv   136 groups   mean tau 0.841   best within 5 %: 91
 */
#include <stdio.h>

#include "search/rankq.h"

int main(int argc, char **argv) {
  const char *dflt = "../shared/validation/training/vtrain_single_node.csv";
  int rc = 0;
  for (int i = argc > 1 ? 1 : 0; i < (argc > 1 ? argc : 1); i++) {
    const char *path = argc > 1 ? argv[i] : dflt;
    rankq q;
    sc_error err = {0};
    if (rankq_file(path, 0.05, &q, &err) != SC_OK) {
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
