/*
 * test_spread.c -- a search's space split over MPI processes in blocks
 * (src/search/spread.h, spread_count and spread_point): over the
 * processes every point is taken exactly once, in blocks of SPREAD_BLOCK
 * neighbours, whatever the space's size and the process count. Runs
 * without MPI (the split is plain arithmetic).
 */
#include <criterion/criterion.h>
#include <stdlib.h>

#include "search/spread.h"

/* size processes split n points: each point once, each process's points
 * in increasing order, a block's points neighbours. */
static void split(long n, int size) {
  int *seen = calloc((size_t)(n > 0 ? n : 1), sizeof *seen);
  cr_assert_not_null(seen);
  long total = 0;
  for (int r = 0; r < size; r++) {
    long c = spread_count(n, r, size), last = -1;
    total += c;
    for (long j = 0; j < c; j++) {
      long i = spread_point(j, r, size);
      cr_assert(i > last && i < n, "n %ld, %d processes: rank %d's point %ld is %ld (after %ld)",
                n, size, r, j, i, last);
      if (j % SPREAD_BLOCK) cr_assert_eq(i, last + 1, "a block's points are neighbours");
      seen[i]++;
      last = i;
    }
  }
  cr_assert_eq(total, n, "n %ld, %d processes: %ld points taken", n, size, total);
  for (long i = 0; i < n; i++)
    cr_assert_eq(seen[i], 1, "n %ld, %d processes: point %ld taken %d times", n, size, i, seen[i]);
  free(seen);
}

Test(spread, every_point_once_in_blocks) {
  long sizes[] = {0, 1, 255, 256, 257, 511, 512, 513, 767, 768, 1775, 4412, 21696, 100003};
  for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++)
    for (int size = 1; size <= 7; size++) split(sizes[i], size);
}

/* One process takes the space in its order. */
Test(spread, one_process_is_the_identity) {
  cr_assert_eq(spread_count(1000, 0, 1), 1000);
  for (long j = 0; j < 1000; j++) cr_assert_eq(spread_point(j, 0, 1), j);
}

/* 2 processes, 600 points: blocks 0 and 2 (88 points) to rank 0, block 1
 * to rank 1. */
Test(spread, blocks_alternate) {
  cr_assert_eq(spread_count(600, 0, 2), 256 + 88);
  cr_assert_eq(spread_count(600, 1, 2), 256);
  cr_assert_eq(spread_point(255, 0, 2), 255);
  cr_assert_eq(spread_point(256, 0, 2), 512);
  cr_assert_eq(spread_point(0, 1, 2), 256);
}
