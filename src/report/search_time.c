/*
 * search_time.c -- where the time goes in each plan a search lists
 * (report_int.h): a block under the table, the CSV columns and the JSON
 * member of the event engine's breakdown, with the parts and the names
 * of predict's breakdown (report_time_parts). The rest of the search's
 * report is report.c's.
 */
#include <assert.h>

#include "report/report_int.h"

/* The table's compact names of report_time_parts' parts, in its order. */
static const char *const short_name[REPORT_PARTS] = {
    "compute", "host", "tp", "ep", "pp", "bubble", "dp", "optim", "offload"};

/* The breakdown that ranked c: the event engine's when it re-ranked the
 * plans, else the closed form's. */
static const sc_breakdown *ranked_time(const sc_candidate *c, int reranked) {
  return reranked ? &c->event_time : &c->result.time;
}

void report_search_time_text(FILE *out, const sc_candidate *c, int n, int reranked) {
  if (n == 0) return;
  double most = 0; /* the longest step listed: seconds, or ms below 1 s */
  for (int i = 0; i < n; i++) {
    double step = reranked ? c[i].event_s : c[i].result.step_s;
    if (step > most) most = step;
  }
  int ms = most < 1;
  fprintf(out, "\n  where the time goes, %s: %s\n", ms ? "ms" : "s",
          reranked ? "the event engine's critical path (adds up to event s)"
                   : "the closed form's (adds up to step s)");
  fprintf(out, "  rank");
  for (int k = 0; k < REPORT_PARTS; k++) fprintf(out, " %8s", short_name[k]);
  fputc('\n', out);
  for (int i = 0; i < n; i++) {
    const char *names[REPORT_PARTS];
    double secs[REPORT_PARTS];
    int m = report_time_parts(ranked_time(&c[i], reranked), names, secs);
    assert(m == REPORT_PARTS);
    fprintf(out, "  %4d", i + 1);
    for (int k = 0; k < m; k++) {
      if (secs[k] == 0) fprintf(out, " %8s", "-");
      else fprintf(out, ms ? " %8.2f" : " %8.3f", ms ? 1e3 * secs[k] : secs[k]);
    }
    fputc('\n', out);
  }
}

/* The parts of t as CSV cells, each after a comma: names `prefix`NAME_s
 * (header) or the seconds. */
static void csv_parts(FILE *out, const sc_breakdown *t, const char *prefix, int header) {
  const char *names[REPORT_PARTS];
  double secs[REPORT_PARTS];
  int m = report_time_parts(t, names, secs);
  for (int k = 0; k < m; k++) {
    if (header) fprintf(out, ",%s%s_s", prefix, names[k]);
    else fprintf(out, ",%.6g", secs[k]);
  }
}

void report_search_time_csv(FILE *out, const sc_candidate *c, int header) {
  static const sc_candidate none; /* the header's */
  if (!c) c = &none;
  csv_parts(out, &c->result.time, "", header);
  if (header) fprintf(out, ",event_step_s");
  else fprintf(out, ",%.6g", c->event_s);
  csv_parts(out, &c->event_time, "event_", header);
}

void report_search_event_json(FILE *out, const sc_candidate *c) {
  const char *names[REPORT_PARTS];
  double secs[REPORT_PARTS];
  int m = report_time_parts(&c->event_time, names, secs);
  fprintf(out, "\"event_time_s\": {");
  for (int k = 0; k < m; k++) fprintf(out, "%s\"%s\": %.6g", k ? ", " : "", names[k], secs[k]);
  fprintf(out, "},\n ");
}
