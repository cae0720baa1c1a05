/*
 * topk.h -- the k best plans of a search in the search's total order
 * (module prefix: topk_).
 *
 * Order: faster step first; equal steps, less memory first; then the
 * earlier point of the space (space.h). The order is total, so merging
 * the top-k of any partition of the plans gives the same top-k.
 */
#ifndef SC_SEARCH_TOPK_H
#define SC_SEARCH_TOPK_H

#include "stepcast.h"

typedef struct topk {
  sc_candidate *c;       /* borrowed, max slots, best first */
  long *idx;             /* owned: the space index of c[i] */
  int n, max;
} topk;

/* A top-k over the caller's array c of max slots. SC_OK or SC_ENOMEM. */
int topk_init(topk *t, sc_candidate *c, int max, sc_error *err);
void topk_free(topk *t);

/* 1 when (step, mem, idx) ranks before candidate i of t. */
int topk_before(const topk *t, double step, double mem, long idx, int i);

/* The step a plan must beat (or tie) to enter: +inf while not full. */
double topk_bar(const topk *t);

/* Keep candidate c, space index idx, if it ranks among the best. */
void topk_add(topk *t, const sc_candidate *c, long idx);

/* Add every candidate of src to dst. */
void topk_merge(topk *dst, const topk *src);

/* Re-order t by event_s (then memory, then space index): the top k
 * re-ranked by the event engine. */
void topk_by_event(topk *t);

/* Mark each candidate on the time-vs-memory Pareto front of t's plans. */
void topk_pareto(topk *t);

#endif
