/*
 * report.h -- print predictions and validation results (module prefix:
 * rep_): a readable table for people, JSON and CSV for programs.
 * Output is deterministic: fixed formats, fixed order.
 */
#ifndef SC_REPORT_H
#define SC_REPORT_H

#include <stdio.h>

#include "validate/validate.h"
#include "stepcast.h"

typedef enum rep_format { REP_TABLE = 0, REP_JSON, REP_CSV } rep_format;

/* Parse "table", "json", "csv"; -1 when unknown. */
int rep_format_from(const char *s);

/* train_tokens > 0 adds the days needed to train on that many tokens. */
void rep_prediction(FILE *out, rep_format fmt, const sc_scenario *s,
                    const sc_result *r, double train_tokens);

/* The operators of one layer (sc_explain_layer). */
void rep_layer_ops(FILE *out, rep_format fmt, const sc_op_time *ops, int n);

/* The fastest plans of a search, fastest first. */
void rep_search(FILE *out, rep_format fmt, const sc_scenario *s, const sc_candidate *c,
                int n, const sc_search_stats *st);

/* A step's timeline as Chrome trace JSON (chrome://tracing, Perfetto):
 * one process per pipeline stage, a compute and a communication thread,
 * times in microseconds. */
void rep_chrome_trace(FILE *out, const sc_scenario *s, const sc_span *spans,
                      size_t n);

/* Validation: rows of every file, then the per-file summary. */
void rep_validation(FILE *out, rep_format fmt, const val_file *files, int n,
                    int show_rows);

#endif
