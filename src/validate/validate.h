/*
 * validate.h -- predict published measurements and report the error
 * (module prefix: val_).
 *
 * The entry points and types are public (stepcast.h, "validation"):
 * sc_validate_file reads one CSV set of ../shared/validation (format in
 * its README), training rows (one measured configuration, seconds per
 * step) or collective rows (one nccl-tests measurement, microseconds);
 * the kind is told by the header (`measured_iter_s`, `measured_time_us`); sets of models no builder handles yet (CNN, BERT,
 * recommendation: `measured_iter_s` with `model_variant`,
 * `measured_iter_ms`)
 * are read as unsupported, every row skipped with the reason. This header gives the module (and the report of a
 * validation, src/report/report.c) its short names for those types.
 */
#ifndef SC_VALIDATE_H
#define SC_VALIDATE_H

#include "stepcast.h"

typedef sc_validation_row val_row;
typedef sc_validation val_file;
typedef sc_validation_kind val_kind;
#define VAL_TRAINING SC_VALIDATION_TRAINING
#define VAL_COLLECTIVE SC_VALIDATION_COLLECTIVE
#define VAL_UNSUPPORTED SC_VALIDATION_UNSUPPORTED
#define VAL_DP SC_VALIDATION_DP
#define VAL_RECSYS SC_VALIDATION_RECSYS

#endif
