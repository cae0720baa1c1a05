/*
 * recsys_rows.h -- rows of the recommendation-model measurement sets
 * (../shared/validation/DP-AND-RECSYS.md, family B) into recsys jobs and
 * predictions (module prefix: valrs_).
 */
#ifndef SC_VALIDATE_RECSYS_ROWS_H
#define SC_VALIDATE_RECSYS_ROWS_H

#include "load/csv.h"
#include "stepcast_recsys.h"
#include "validate/validate.h"

/* 1 when f's header is a recsys set (`measured_iter_ms` and `tables`). */
int valrs_is_recsys(const csv_file *f);

/* Predict the current record of f into r: r->measured and r->predicted
 * in seconds, r->group the sharding kind, r->skipped with the reason when
 * the row cannot be modelled. SC_OK; SC_EINPUT when the row is malformed
 * (err names file:line and the column); SC_ENOMEM. */
int valrs_row(const csv_file *f, const char *path, val_row *r, sc_error *err);

/* The job and plan of the current record (what valrs_row predicts);
 * SC_OK, SC_EMODEL with the reason in err, SC_EINPUT, SC_ENOMEM. The caller
 * frees j and p. */
int valrs_job(const csv_file *f, const char *path, sc_rs_job *j, sc_rs_plan *p, char *assumed,
              size_t an, sc_error *err);

#endif
