/*
 * rankq.h -- how well predictions rank plans: Kendall's tau between
 * predicted and measured step times within groups of measured
 * configurations of one job (module prefix: rankq_).
 *
 * A search is only as good as its ranking. A training validation set
 * (the CSVs of ../shared/validation/training) holds many plans of a job:
 * rows with the same model (model, layers, hidden), GPU count and global
 * batch form a group; groups of three or more rows are scored. For each
 * group: Kendall's tau-b between the predicted and measured step times,
 * and whether the plan predicted fastest is within `within` (e.g. 0.05)
 * of the group's measured fastest.
 */
#ifndef SC_SEARCH_RANKQ_H
#define SC_SEARCH_RANKQ_H

#include "stepcast.h"

typedef struct rankq {
  int groups;            /* groups of >= 3 predicted rows */
  double mean_tau;       /* Kendall tau-b averaged over them */
  int best_within;       /* groups whose predicted best is within `within`
                            of the measured best */
  int rows;              /* predicted rows in those groups */
} rankq;

/* One scored row of a group, for a per-group diagnostic. */
typedef struct rankq_row {
  const char *id;        /* the row's id */
  double measured, predicted;  /* step seconds */
} rankq_row;

/* Called once per scored group (key "model|layers|hidden|gpus|global_batch",
 * its n rows sorted by measured time, its tau-b, and whether its predicted
 * best is within `within` of the measured best). */
typedef void (*rankq_group_fn)(void *ud, const char *key, const rankq_row *rows, int n,
                               double tau, int best_within);

/* Predict every row of the training CSV at path and score the ranking.
 * SC_OK, or the error of reading or predicting the file. */
int rankq_file(const char *path, double within, rankq *out, sc_error *err);

/* rankq_file, calling fn (may be NULL) for every scored group. */
int rankq_file_ex(const char *path, double within, rankq *out, rankq_group_fn fn, void *ud,
                  sc_error *err);

#endif
