/*
 * test_deal.c -- the search's points dealt out to threads (src/search/
 * deal.h): every point handed out exactly once, in ranges, to threads
 * that start late, run at once, or never come; the first shares cut
 * where neighbours differ.
 */
#include <criterion/criterion.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>

#include "search/deal.h"

/* Units of 37 points: neighbours inside one belong together. */
static int same37(const void *ctx, long a) {
  (void)ctx;
  return (a + 1) % 37 != 0;
}

typedef struct taker {
  deal *d;
  int t;
  int *seen;             /* shared: times each point was handed out (atomic) */
  long n;
  int yield;             /* 1 = let the others run after each range */
  long ranges, points;
} taker;

static void *take_all(void *arg) {
  taker *k = arg;
  long lo, hi;
  while (deal_next(k->d, k->t, &lo, &hi)) {
    cr_assert(lo >= 0 && lo < hi && hi <= k->n, "range [%ld, %ld) of %ld points", lo, hi, k->n);
    for (long i = lo; i < hi; i++) __atomic_add_fetch(&k->seen[i], 1, __ATOMIC_RELAXED);
    k->ranges++;
    k->points += hi - lo;
    if (k->yield) sched_yield();
  }
  return NULL;
}

/* nt threads (of which `absent` never call) deal n points: each once. */
static void deal_all(long n, int nt, int absent, deal_same_fn same) {
  deal d;
  sc_error err = {0};
  cr_assert_eq(deal_open(&d, n, nt, same, NULL, &err), SC_OK);
  int *seen = calloc((size_t)(n > 0 ? n : 1), sizeof *seen);
  pthread_t th[16];
  taker k[16];
  for (int t = 0; t < nt - absent; t++) {
    k[t] = (taker){&d, t, seen, n, t % 2, 0, 0};
    cr_assert_eq(pthread_create(&th[t], NULL, take_all, &k[t]), 0);
  }
  long points = 0;
  for (int t = 0; t < nt - absent; t++) {
    pthread_join(th[t], NULL);
    points += k[t].points;
  }
  for (long i = 0; i < n; i++)
    cr_assert_eq(seen[i], 1, "n %ld, %d threads (%d absent): point %ld handed out %d times", n,
                 nt, absent, i, seen[i]);
  cr_assert_eq(points, n);
  free(seen);
  deal_close(&d);
}

Test(deal, every_point_once) {
  long sizes[] = {0, 1, 2, 7, 8, 9, 255, 256, 1000, 4412, 100003};
  int threads[] = {1, 2, 3, 5, 16};
  for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++)
    for (size_t j = 0; j < sizeof threads / sizeof *threads; j++) {
      deal_all(sizes[i], threads[j], 0, NULL);
      deal_all(sizes[i], threads[j], 0, same37);
    }
}

/* A thread that never comes (or comes after the others are done): the
 * others take its share. */
Test(deal, absent_threads_share_taken) {
  deal_all(5000, 2, 1, same37);
  deal_all(5000, 16, 15, NULL);
  deal_all(3, 16, 7, NULL);
}

/* Repeated, so that the steals race with the owners' takes. */
Test(deal, races) {
  for (int r = 0; r < 200; r++) deal_all(2000 + r, 4, 0, r % 2 ? same37 : NULL);
}

/* The first shares cut between units (37 points) where one is near. */
Test(deal, first_shares_cut_between_units) {
  deal d;
  sc_error err = {0};
  /* 1,517 points: even shares would start at 379, 758, 1137; the
   * nearest unit boundaries are 370, 740 and 1147 */
  cr_assert_eq(deal_open(&d, 37 * 41, 4, same37, NULL, &err), SC_OK);
  long lo, hi, start[4] = {0, 370, 740, 1147};
  for (int t = 0; t < 4; t++) {
    cr_assert(deal_next(&d, t, &lo, &hi));
    cr_assert_eq(lo, start[t], "thread %d starts at %ld, not %ld", t, lo, start[t]);
  }
  deal_close(&d);
}

/* One thread takes every point in order, a few at a time. */
Test(deal, one_thread_in_order) {
  deal d;
  sc_error err = {0};
  cr_assert_eq(deal_open(&d, 100, 1, NULL, NULL, &err), SC_OK);
  long lo, hi, next = 0;
  while (deal_next(&d, 0, &lo, &hi)) {
    cr_assert_eq(lo, next);
    next = hi;
  }
  cr_assert_eq(next, 100);
  deal_close(&d);
}
