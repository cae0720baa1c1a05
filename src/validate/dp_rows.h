/*
 * dp_rows.h -- rows of the data-parallel training sets
 * (../shared/validation/dp_training/, DP-AND-RECSYS.md family A) as
 * data-parallel scenarios (module prefix: vdp_).
 */
#ifndef SC_VALIDATE_DP_ROWS_H
#define SC_VALIDATE_DP_ROWS_H

#include "load/csv.h"
#include "validate/validate.h"

/* 1 when the header of f is a dp_training set (`scheme` and
 * `model_variant` beside `measured_iter_s`). */
int vdp_is_dp_set(const csv_file *f);

/* Predict every remaining record of f (header read) into vf: rows
 * appended with their family and error in units of the reading
 * uncertainty; rows stepcast cannot model skipped with the reason;
 * vf->note and vf->rank_* filled. SC_OK; SC_EINPUT naming path:line and
 * the column of a malformed row; SC_ENOMEM. */
int vdp_read(csv_file *f, const char *path, val_file *vf, sc_error *err);

/* The scenario of the current record of f (a dp_training set), with its
 * dp section and keep_unfit set; SC_OK, SC_EINPUT (malformed cell) or
 * SC_EMODEL (a row stepcast cannot model: err says why). */
int vdp_row_scenario(csv_file *f, const char *path, sc_scenario *out, sc_error *err);

#endif
