/*
 * ksort.h -- sort (key, index) pairs by key, then index (module prefix:
 * ksort_).
 *
 * The order is total (keys are non-negative 64-bit integers, indices are
 * distinct), so the result is the one any correct sort gives, qsort with
 * the same comparison included: a caller can swap one for the other
 * without changing its output. Long arrays go through an LSD radix sort
 * (11-bit digits, passes where every key has the same digit skipped), short
 * ones through insertion sort, keys of at most 8 values through one
 * counting pass. No allocation: the caller passes a scratch
 * array as long as the input.
 */
#ifndef SC_CORE_KSORT_H
#define SC_CORE_KSORT_H

typedef struct ksort_item {
  long long key;  /* >= 0 */
  int idx;        /* the caller's index; distinct within one sort */
} ksort_item;

/* Sort a[0..n) by (key, idx) ascending; tmp has room for n items (its
 * contents on return are unspecified). */
void ksort_sort(ksort_item *a, ksort_item *tmp, int n);

#endif /* SC_CORE_KSORT_H */
