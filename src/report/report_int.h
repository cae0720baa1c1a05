/*
 * report_int.h -- what the report files share beyond esc.h (module
 * prefix: report_). Private to src/report/.
 */
#ifndef SC_REPORT_INT_H
#define SC_REPORT_INT_H

#include <stdio.h>

#include "stepcast.h"

/* The members of predict's JSON object from "{" to the last member, no
 * closing brace (report.c), for documents that add members. */
void report_pred_json(FILE *out, const sc_scenario *s, const sc_result *r);

/* The parts of a time breakdown as predict names them ("compute",
 * "host_overhead", ..., "offload_exposed"), in its order: names[i] and
 * secs[i] for i below the count returned, REPORT_PARTS (report.c). */
#define REPORT_PARTS 9
int report_time_parts(const sc_breakdown *t, const char **names, double *secs);

/* Where the time goes in a search's plans (search_time.c): under the
 * table, a block of c[0..n-1]'s parts (the event engine's when reranked,
 * else the closed form's); the CSV cells of c's parts, its event step and
 * the event engine's parts, each after a comma (the header's names when
 * header != 0, c may then be NULL); the JSON member `"event_time_s":
 * {...},` and a line break, for a re-ranked plan. */
void report_search_time_text(FILE *out, const sc_candidate *c, int n, int reranked);
void report_search_time_csv(FILE *out, const sc_candidate *c, int header);
void report_search_event_json(FILE *out, const sc_candidate *c);

/* The job's JSON members `"model": ..., "gpu": ..., "gpus": N` of s, no
 * separator before or after (report.c): every document that names its
 * job; with `"gpu_modified": ["hbm_GiB", ...]` after "gpu" where an
 * override changed the GPU preset (sc_gpu_changes). */
void report_json_job(FILE *out, const sc_scenario *s);

/* g's name as a table prints it (escaped for a terminal), with
 * " (modified: KEYS)" where it differs from its preset (sc_gpu_changes),
 * into buf of REPORT_GPU_CAP bytes (report.c). */
#define REPORT_GPU_CAP 160
void report_gpu_label(const sc_gpu *g, char *buf);

/* 1 when the verdict m of s is marginal: within the band, on a model the
 * band was measured on (sc_memory_band_measured) (report.c). */
int report_marginal(const sc_scenario *s, const sc_memory *m);

/* 1 when a validation row's memory verdict is marginal (it has one and
 * its predicted total is within SC_MEMORY_BAND of the capacity,
 * sc_memory_marginal); the count of such rows in a set (report.c). */
int report_val_marginal(const sc_validation_row *r);
int report_val_marginal_rows(const sc_validation *f);

/* A search's stop (search_stop.c): its JSON/CSV name ("complete",
 * "budget", "interrupted", "max_plans"); the table's line when it did not
 * complete (none when it did); and, when no plan was valid, the plan
 * check's reasons (st->reasons) as table lines or as the JSON member
 * `, "rejected": {...}`. */
const char *report_stop_name(int stopped);
void report_search_stop_text(FILE *out, const sc_search_stats *st);
void report_search_rejects_text(FILE *out, const sc_search_stats *st);
void report_search_rejects_json(FILE *out, const sc_search_stats *st);

#endif
