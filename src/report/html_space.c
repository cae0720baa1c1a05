/*
 * html_space.c -- a search's plan space as an HTML page
 * (sc_html_search_space; stepcast.h): the fastest plans, fitting or not,
 * with the plan the search chose marked. What `stepcast search --html`
 * writes, and sc_search_json_ex for bindings.
 */
#include <stdio.h>
#include <stdlib.h>

#include "stepcast.h"

/* The most plans drawn: the fastest, fitting or not. */
#define HTML_MAX_PLANS 1000

/* 1 when a and b are the same plan with the same time (the chosen plan
 * found again among the closed form's). */
static int same_plan(const sc_candidate *a, const sc_candidate *b) {
  const sc_plan *p = &a->plan, *q = &b->plan;
  return p->tp == q->tp && p->pp == q->pp && p->dp == q->dp && p->cp == q->cp &&
         p->ep == q->ep && p->vpp == q->vpp && p->micro_batch == q->micro_batch &&
         p->zero == q->zero && p->recompute == q->recompute && p->schedule == q->schedule &&
         a->result.step_s == b->result.step_s;
}

int sc_html_search_space(FILE *out, const sc_scenario *s, const sc_search_opts *o,
                         const sc_candidate *chosen, sc_error *err) {
  sc_search_opts all = *o;
  all.require_fit = 0;
  all.rerank = 0; /* the picture is of the closed form's times (1000 plans) */
  sc_candidate *plans = malloc(sizeof *plans * HTML_MAX_PLANS);
  if (!plans) return sc_error_set(err, SC_ENOMEM, "out of memory for %d plans", HTML_MAX_PLANS);
  sc_search_stats st;
  int n = 0, rc = sc_search(s, &all, plans, HTML_MAX_PLANS, &n, &st, err);
  int mark = -1;
  for (int i = 0; rc == SC_OK && chosen && i < n && mark < 0; i++)
    if (same_plan(&plans[i], chosen)) mark = i;
  /* the memory a plan may use (search.c usable): the capacity less o's
   * headroom, drawn beside the capacity */
  double cap = s->cluster.gpu.hbm_bytes;
  double limit = sc_memory_usable(cap, o->headroom_bytes, o->headroom_frac);
  if (rc == SC_OK) sc_html_search_ex(out, s, plans, n, mark, &st, limit < cap ? limit : 0);
  free(plans);
  return rc;
}
