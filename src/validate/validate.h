/*
 * validate.h -- predict published measurements and report the error
 * (module prefix: val_).
 *
 * Reads the CSV sets of ../shared/validation (format in its README):
 * training rows (one measured configuration, seconds per step) and
 * collective rows (one nccl-tests measurement, microseconds). The kind is
 * told by the header (`measured_iter_s` or `measured_time_us`).
 */
#ifndef SC_VALIDATE_H
#define SC_VALIDATE_H

#include "stepcast.h"

typedef struct val_row {
  char id[64];
  double measured;      /* s per step (training) or us (collective) */
  double predicted;     /* same unit; < 0 when skipped */
  double ape;           /* |predicted - measured| / measured */
  double bytes;         /* collective message size; 0 for training */
  char skipped[192];    /* reason, "" when predicted */
  sc_breakdown time;    /* training: where the predicted time goes */
  double mfu;           /* training: predicted MFU */
} val_row;

typedef enum val_kind { VAL_TRAINING = 0, VAL_COLLECTIVE } val_kind;

typedef struct val_file {
  char path[512];
  val_kind kind;
  val_row *rows;        /* owned */
  int n, cap;
  int predicted, skipped, within_10pct;
  double mape, median_ape, max_ape;
  double mape_small, mape_large;  /* collectives: < 1 MiB and >= 1 MiB */
  int n_small, n_large;
  double seconds;       /* wall time spent predicting */
} val_file;

/* Predict every row of the CSV at path. On success fills out (free with
 * val_free). Returns SC_EIO if unreadable, SC_EINPUT with file:line and
 * the column if a row is malformed, SC_ENOMEM when out of memory; on
 * failure out holds nothing to free. */
int val_run(const char *path, val_file *out, sc_error *err);
void val_free(val_file *f);

#endif
