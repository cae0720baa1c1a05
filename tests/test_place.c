/*
 * test_place.c -- the replica groups of a collective (engine/place.h):
 * Megatron's layout tiles a window of ranks with groups of one shape.
 */
#include <criterion/criterion.h>

#include "engine/place.h"

/* The groups of n members `stride` apart in `window` ranks against the
 * expected ranks, group after group. */
static void expect_groups(int n, int stride, int window, int k, const int *want) {
  cr_assert_eq(place_count(n, stride, window), k, "%d x %d in %d", n, stride, window);
  int got[64];
  place_ranks(n, stride, window, got);
  for (int i = 0; i < k * n; i++)
    cr_expect_eq(got[i], want[i], "%d x %d in %d: rank %d is %d, want %d", n, stride, window, i,
                 got[i], want[i]);
}

Test(place, groups_tile_the_window) {
  /* tp 2 on a stage of 8 */
  expect_groups(2, 1, 8, 4, (int[]){0, 1, 2, 3, 4, 5, 6, 7});
  /* dp 4 after tp 2 */
  expect_groups(4, 2, 8, 2, (int[]){0, 2, 4, 6, 1, 3, 5, 7});
  /* the sends of two stages of 4: every GPU to its counterpart */
  expect_groups(2, 4, 8, 4, (int[]){0, 4, 1, 5, 2, 6, 3, 7});
  /* ep 2 after tp 2, inside dp 4: two blocks of 4 */
  expect_groups(2, 2, 8, 4, (int[]){0, 2, 1, 3, 4, 6, 5, 7});
}

Test(place, groups_that_do_not_tile_are_none) {
  cr_expect_eq(place_count(2, 4, 12), 0); /* 8 does not divide 12 */
  cr_expect_eq(place_count(4, 4, 8), 0);  /* wider than the window */
  cr_expect_eq(place_count(0, 1, 8), 0);
  cr_expect_eq(place_count(2, 0, 8), 0);
  cr_expect_eq(place_count(8, 1, 8), 1);  /* the window is one group */
}

Test(place, copies_side_by_side_keep_the_steps) {
  sched one, all;
  sched_init(&one), sched_init(&all);
  cr_assert_eq(sched_begin(&one, 3), 0); /* a ring of 2 ranks, 3 times */
  cr_assert_eq(sched_add(&one, 0, 1, 10.0), 0);
  cr_assert_eq(sched_add(&one, 1, 0, 10.0), 0);
  cr_assert_eq(place_replicate(&one, 2, 3, &all), 0);
  cr_assert_eq(all.ns, 1);
  cr_assert_eq(all.s[0].repeat, 3);
  cr_assert_eq(all.s[0].count, 6);
  for (int q = 0; q < 3; q++) {
    cr_expect_eq(all.x[2 * q].src, 2 * q);
    cr_expect_eq(all.x[2 * q].dst, 2 * q + 1);
    cr_expect_eq(all.x[2 * q + 1].src, 2 * q + 1);
    cr_expect(all.x[2 * q].bytes == 10.0);
  }
  sched_free(&one), sched_free(&all);
}
