/*
 * test_memo.c -- the memo of pure functions (src/core/memo.h): every
 * value slot comes back (a collective's time, SM and HBM shares in one
 * entry), through growth, and keys are compared bit for bit; the memo
 * threads share (memo_shared) keeps what any thread put, up to half its
 * slots, and forgets it all when cleared.
 */
#include <criterion/criterion.h>
#include <pthread.h>

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

/* Thread `t` of 4 puts keys t, t + 4, t + 8, ... below 1,000 into the
 * shared memo, each twice (a put of a key already set changes nothing),
 * and looks up every key put so far by any thread: what it finds is the
 * value put. */
typedef struct putter {
  memo_shared *m;
  int t;
  int wrong;
} putter;

static void shared_kv(int i, double *key, double *val) {
  memset(key, 0, sizeof(double) * MEMO_KEY);
  key[0] = 2, key[1] = i, key[2] = 1e6 * i;
  for (int k = 0; k < MEMO_VAL; k++) val[k] = i + 0.5 / (1 << k);
}

static void *put_some(void *p) {
  putter *w = p;
  for (int i = w->t; i < 1000; i += 4) {
    double key[MEMO_KEY], val[MEMO_VAL];
    shared_kv(i, key, val);
    memo_shared_put(w->m, key, val);
    memo_shared_put(w->m, key, val);
    for (int j = 0; j <= i; j++) {
      shared_kv(j, key, val);
      const double *v = memo_shared_get(w->m, key);
      if (v && memcmp(v, val, sizeof val)) w->wrong++;
    }
  }
  return NULL;
}

Test(memo, shared_between_threads_keeps_every_put_until_half_full) {
  memo_shared *m = memo_shared_new();
  cr_assert(m);
  pthread_t th[4];
  putter w[4];
  for (int t = 0; t < 4; t++) {
    w[t] = (putter){m, t, 0};
    cr_assert_eq(pthread_create(&th[t], NULL, put_some, &w[t]), 0);
  }
  for (int t = 0; t < 4; t++) {
    pthread_join(th[t], NULL);
    cr_expect_eq(w[t].wrong, 0, "thread %d read %d wrong values", t, w[t].wrong);
  }
  for (int i = 0; i < 1000; i++) { /* 1,000 of 2,048 slots */
    double key[MEMO_KEY], val[MEMO_VAL];
    shared_kv(i, key, val);
    const double *v = memo_shared_get(m, key);
    cr_assert(v && !memcmp(v, val, sizeof val), "entry %d", i);
  }
  /* past half the slots, a put keeps nothing (the threads' own memos do) */
  int kept = 0;
  for (int i = 1000; i < MEMO_SHARED_SLOTS; i++) {
    double key[MEMO_KEY], val[MEMO_VAL];
    shared_kv(i, key, val);
    memo_shared_put(m, key, val);
    kept += memo_shared_get(m, key) != NULL;
  }
  cr_expect_eq(kept, MEMO_SHARED_SLOTS / 2 - 1000, "%d kept", kept);
  memo_shared_clear(m);
  double key[MEMO_KEY], val[MEMO_VAL];
  shared_kv(7, key, val);
  cr_expect_null(memo_shared_get(m, key), "cleared");
  memo_shared_put(m, key, val);
  cr_expect(memo_shared_get(m, key) != NULL);
  memo_shared_free(m);
}
