/*
 * test_memo.c -- the memo of pure functions (src/core/memo.h): every
 * value slot comes back (a collective's time, SM and HBM shares in one
 * entry), through growth, and keys are compared bit for bit.
 */
#include <criterion/criterion.h>

#include "core/memo.h"

Test(memo, every_value_of_an_entry_comes_back_after_growth) {
  memo m;
  memo_init(&m);
  for (int i = 0; i < 1000; i++) { /* grows past the first 256 slots */
    const double key[MEMO_KEY] = {2, i, 1e6 * i};
    const double val[MEMO_VAL] = {i + 0.5, i + 0.25, i + 0.125};
    cr_assert_eq(memo_put(&m, key, val), 0, "put %d", i);
  }
  cr_expect_eq(m.n, 1000, "%d entries", m.n);
  for (int i = 0; i < 1000; i++) {
    const double key[MEMO_KEY] = {2, i, 1e6 * i};
    const double *v = memo_get(&m, key);
    cr_assert(v, "entry %d missing", i);
    for (int k = 0; k < MEMO_VAL; k++)
      cr_expect_eq(v[k], i + 0.5 / (1 << k), "entry %d value %d: %g", i, k, v[k]);
  }
  const double absent[MEMO_KEY] = {5, 3, 3e6};
  cr_expect_null(memo_get(&m, absent), "a key of another kind is absent");
  memo_free(&m);
}

Test(memo, keys_are_compared_bit_for_bit) {
  memo m;
  memo_init(&m);
  const double key[MEMO_KEY] = {1, 0.1 + 0.2};
  const double val[MEMO_VAL] = {7, 8, 9};
  cr_assert_eq(memo_put(&m, key, val), 0);
  const double near[MEMO_KEY] = {1, 0.3}; /* 0.1 + 0.2 != 0.3 */
  cr_expect_null(memo_get(&m, near));
  /* putting a key again replaces its values, one entry */
  const double val2[MEMO_VAL] = {1, 2, 3};
  cr_assert_eq(memo_put(&m, key, val2), 0);
  cr_expect_eq(m.n, 1);
  cr_expect_eq(memo_get(&m, key)[2], 3);
  memo_free(&m);
}
