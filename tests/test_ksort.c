/*
 * test_ksort.c -- ksort_sort orders (key, idx) pairs exactly as qsort with
 * the same total order does (the flow engine relies on the same order to
 * give the same results), for short and long arrays, keys with few and
 * many distinct values, and indices in and out of order.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "core/ksort.h"

static int cmp(const void *a, const void *b) {
  const ksort_item *x = a, *y = b;
  if (x->key != y->key) return x->key < y->key ? -1 : 1;
  return (x->idx > y->idx) - (x->idx < y->idx);
}

/* A deterministic 64-bit generator (splitmix64). */
static unsigned long long next(unsigned long long *s) {
  unsigned long long z = (*s += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

Test(ksort, same_order_as_qsort) {
  static const int lens[] = {0, 1, 2, 63, 64, 65, 1000, 5000};
  /* 1-9 values: the counting pass of at most 8 values (ksort.c, few_values)
   * and one value past it */
  static const long long ranges[] = {1, 7, 8, 9, 1000, 1LL << 40, 0x7fffffffffffffffLL};
  unsigned long long seed = 42;
  for (size_t l = 0; l < sizeof lens / sizeof *lens; l++)
    for (size_t r = 0; r < sizeof ranges / sizeof *ranges; r++)
      for (int shuffled = 0; shuffled <= 1; shuffled++) {
        int n = lens[l];
        ksort_item *a = malloc(sizeof *a * (size_t)(n + 1)), *b = malloc(sizeof *b * (size_t)(n + 1)),
                   *tmp = malloc(sizeof *tmp * (size_t)(n + 1));
        cr_assert(a && b && tmp);
        for (int i = 0; i < n; i++)
          a[i] = (ksort_item){(long long)(next(&seed) % (unsigned long long)ranges[r]), i};
        if (ranges[r] == 7) /* few values far apart (a double's bits) */
          for (int i = 0; i < n; i++) a[i].key = a[i].key << 52 | 0x5a5a5a5aLL;
        if (shuffled) /* indices out of order */
          for (int i = n - 1; i > 0; i--) {
            int j = (int)(next(&seed) % (unsigned long long)(i + 1));
            ksort_item x = a[i];
            a[i] = a[j], a[j] = x;
          }
        memcpy(b, a, sizeof *a * (size_t)n);
        ksort_sort(a, tmp, n);
        qsort(b, (size_t)n, sizeof *b, cmp);
        for (int i = 0; i < n; i++)
          cr_assert(a[i].key == b[i].key && a[i].idx == b[i].idx,
                    "n %d range %lld shuffled %d: item %d differs", n, ranges[r], shuffled, i);
        free(a), free(b), free(tmp);
      }
}
