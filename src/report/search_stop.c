/*
 * search_stop.c -- the parts of a search's report that say why it found
 * fewer plans than a user expects: how it stopped (a budget, Ctrl-C) and,
 * when no plan was valid, the reasons the plan check gave (report_int.h;
 * the rest of the search's report is report.c's).
 */
#include <string.h>

#include "report/esc.h"
#include "report/report_int.h"

const char *report_stop_name(int stopped) {
  return stopped == SC_SEARCH_BUDGET        ? "budget"
         : stopped == SC_SEARCH_INTERRUPTED ? "interrupted"
         : stopped == SC_SEARCH_MAX_PLANS   ? "max_plans"
                                            : "complete";
}

void report_search_stop_text(FILE *out, const sc_search_stats *st) {
  if (st->stopped == SC_SEARCH_MAX_PLANS)
    fprintf(out, "stopped (max_plans): searched the first %ld of the space's %ld plans: the best "
                 "of those\n", st->total, st->full);
  else if (st->stopped != SC_SEARCH_COMPLETE && st->rerank_seconds > 0) /* the walk was done */
    fprintf(out, "stopped (%s) while the event engine re-ranked the best plans: the closed "
                 "form's order\n",
            st->stopped == SC_SEARCH_BUDGET ? "budget: max_seconds" : "interrupted");
  else if (st->stopped != SC_SEARCH_COMPLETE)
    fprintf(out, "stopped (%s) after %ld of %ld plans%s: the best so far\n",
            st->stopped == SC_SEARCH_BUDGET ? "budget: max_seconds" : "interrupted", st->tried,
            st->full, st->total < st->full ? " (max_plans cut the space)" : "");
}

/* msg on lines indented by `indent` spaces after the first. */
static void indented(FILE *out, const char *msg, int indent) {
  char text[sizeof ((sc_error *)0)->msg];
  esc_text(text, sizeof text, msg);
  for (const char *p = text; *p; p++) {
    fputc(*p, out);
    if (*p == '\n') fprintf(out, "%*s", indent, "");
  }
  fputc('\n', out);
}

void report_search_rejects_text(FILE *out, const sc_search_stats *st) {
  if (st->n_reasons == 0) return;
  if (st->rechecked == 0) { /* rejects_empty: no plan to check */
    fprintf(out, "  the space is empty: ");
    indented(out, st->reasons[0].example, 4);
    return;
  }
  fprintf(out, "  the plan check's reasons, over %s %ld plans of the space:\n",
          st->rechecked < st->total ? "the first" : "all", st->rechecked);
  for (int i = 0; i < st->n_reasons; i++) {
    const sc_search_reason *r = &st->reasons[i];
    fprintf(out, "    %ld plan%s, e.g. ", r->count, r->count == 1 ? "" : "s");
    indented(out, r->example, 6);
  }
}

void report_search_rejects_json(FILE *out, const sc_search_stats *st) {
  if (st->n_reasons == 0) return; /* "plans": 0: the space is empty */
  fprintf(out, ",\n \"rejected\": {\"rechecked\": %ld, \"reasons\": [", st->rechecked);
  for (int i = 0; i < st->n_reasons; i++) {
    fprintf(out, "%s{\"plans\": %ld, \"example\": ", i ? ", " : "", st->reasons[i].count);
    esc_json(out, st->reasons[i].example);
    fputc('}', out);
  }
  fputs("]}", out);
}
