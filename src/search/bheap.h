/*
 * bheap.h -- the plans of a search's best-first pass waiting to be costed,
 * least bound first (module prefix: bheap_).
 *
 * A binary min-heap of (bound, space index) over a caller's array, in the
 * order of by_bound in search.c: smaller bound first, equal bounds by the
 * earlier point of the space. Not locked: the search takes and puts
 * under its own critical section.
 */
#ifndef SC_SEARCH_BHEAP_H
#define SC_SEARCH_BHEAP_H

/* A fitting plan with a lower bound of its step. */
typedef struct bounded {
  double bound;          /* lower bound of the step, s */
  long idx;              /* space index */
} bounded;

typedef struct bheap {
  bounded *a;            /* borrowed: room for every plan put */
  long n;
} bheap;

/* 1 when a comes before b (smaller bound, then smaller index). */
int bheap_before(const bounded *a, const bounded *b);

/* Put b in; the array must have room. */
void bheap_put(bheap *h, bounded b);

/* The least entry into *out and out of h; 0 when h is empty. */
int bheap_take(bheap *h, bounded *out);

#endif
