/*
 * deal.h -- a search's points dealt out to its threads in contiguous
 * ranges, with work stealing (module prefix: deal_).
 *
 * Each thread starts on its own contiguous share of the points and takes
 * a few at a time from its front; a thread whose share is empty takes the
 * back half of the largest share left. Neighbouring points of the space
 * lower alike (the memo of lowered plans, lcache.h) and share their
 * static memory (search.c, cannot_fit), so a thread that walks a
 * contiguous range does what one thread would do, with as few cuts as
 * there are threads and steals; a thread that starts late or is
 * descheduled has its share taken by the others. Cuts fall where
 * `same` says two neighbours differ, when such a place is near.
 *
 * Which thread evaluates which point changes from run to run; the search
 * makes its result independent of that (topk.h's total order).
 */
#ifndef SC_SEARCH_DEAL_H
#define SC_SEARCH_DEAL_H

#include <stdint.h>

#include "stepcast.h"

/* 1 when points a and a + 1 of ctx belong together (a cut between them
 * would cost the thread after it what the thread before it has). */
typedef int (*deal_same_fn)(const void *ctx, long a);

/* One thread's range [lo, hi), packed as hi << 32 | lo so that one
 * compare-and-swap moves both; on a cache line of its own. */
typedef struct deal_share {
  uint64_t range;
  char pad[56];
} deal_share;

typedef struct deal {
  deal_share *s;         /* owned: nt shares */
  int nt;
  deal_same_fn same;     /* NULL: cut anywhere */
  const void *ctx;       /* same's */
} deal;

/* Points 0 .. n - 1 (n < 2^32) into nt contiguous shares. SC_OK or
 * SC_ENOMEM (d then holds nothing to free). */
int deal_open(deal *d, long n, int nt, deal_same_fn same, const void *ctx,
              sc_error *err);
void deal_close(deal *d);

/* The next points for thread t (0 <= t < nt): 1 with [*lo, *hi) its to
 * evaluate, 0 when no share holds any point (every point has been handed
 * out, or is being moved by a thief that will take it itself: a thread
 * may stop while another still works). Safe to call from every thread at
 * once; every point is handed out once if each thread calls until 0. */
int deal_next(deal *d, int t, long *lo, long *hi);

#endif
