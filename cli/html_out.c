/*
 * html_out.c -- `stepcast search --html FILE`: the plan space as a picture.
 * Kept out of cmd_search.c so that the search command only passes the file
 * name on (docs/report.md).
 */
#include <stdio.h>
#include <stdlib.h>

#include "cli.h"
#include "stepcast.h"

/* The most plans drawn: the fastest, fitting or not. */
#define HTML_MAX_PLANS 1000

static int same_plan(const sc_candidate *a, const sc_candidate *b) {
  const sc_plan *p = &a->plan, *q = &b->plan;
  return p->tp == q->tp && p->pp == q->pp && p->dp == q->dp && p->cp == q->cp &&
         p->ep == q->ep && p->vpp == q->vpp && p->micro_batch == q->micro_batch &&
         p->zero == q->zero && p->recompute == q->recompute && p->schedule == q->schedule &&
         a->result.step_s == b->result.step_s;
}

int cli_search_html(const char *path, const sc_scenario *s, const sc_search_opts *o,
                    const sc_candidate *chosen) {
  sc_search_opts all = *o;
  all.require_fit = 0;
  all.rerank = 0; /* the picture is of the closed form's times (1000 plans) */
  sc_candidate *plans = malloc(sizeof *plans * HTML_MAX_PLANS);
  if (!plans) return 4;
  sc_search_stats st;
  sc_error err = {0};
  int n = 0, rc = sc_search(s, &all, plans, HTML_MAX_PLANS, &n, &st, &err);
  if (rc != SC_OK) {
    fprintf(stderr, "stepcast search: %s\n", err.msg);
    free(plans);
    return cli_exit_code(rc);
  }
  int mark = -1;
  for (int i = 0; chosen && i < n && mark < 0; i++)
    if (same_plan(&plans[i], chosen)) mark = i;
  FILE *f = cli_open_out("search", path);
  if (f) sc_html_search(f, s, plans, n, mark, &st);
  free(plans);
  return f ? cli_close_out("search", path, f) : 3;
}
