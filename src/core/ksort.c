/*
 * ksort.c -- (key, index) sort; see ksort.h.
 *
 * The radix passes are stable: items of equal key keep their input order.
 * That is (key, idx) order only when the input's indices ascend (the
 * callers build their arrays in index order), so the radix path checks it
 * and otherwise falls back to insertion sort.
 */
#include "core/ksort.h"

#include <assert.h>
#include <string.h>

/* Below this many items insertion sort is cheaper than the radix passes
 * (each costs a 2,048-entry histogram). */
#define KSORT_SMALL 64

/* At most this many distinct keys: one counting pass (few_values). */
#define KSORT_FEW 8

#define KSORT_BITS 11
#define KSORT_BUCKETS (1 << KSORT_BITS)

static int before(const ksort_item *x, const ksort_item *y) {
  return x->key != y->key ? x->key < y->key : x->idx < y->idx;
}

static void insertion(ksort_item *a, int n) {
  for (int i = 1; i < n; i++) {
    ksort_item v = a[i];
    int j = i;
    while (j > 0 && before(&v, &a[j - 1])) a[j] = a[j - 1], j--;
    a[j] = v;
  }
}

/* 1 when the indices ascend (equal keys are then in index order). */
static int idx_ascending(const ksort_item *a, int n) {
  for (int i = 1; i < n; i++)
    if (a[i].idx <= a[i - 1].idx) return 0;
  return 1;
}

/* Stable sort of a[0..n) by key when the keys take at most KSORT_FEW
 * values (the flow engine's start times: one per path length): the
 * values ranked, then one counting pass. 1 when sorted, 0 (a untouched)
 * when there are more values. */
static int few_values(ksort_item *a, ksort_item *tmp, int n) {
  long long v[KSORT_FEW];
  int nv = 0, at[KSORT_FEW] = {0}, last = 0;
  for (int i = 0; i < n; i++) {
    long long k = a[i].key;
    if (nv && v[last] == k) {
      at[last]++;
      continue;
    }
    int j = 0;
    while (j < nv && v[j] != k) j++;
    if (j == nv) {
      if (nv == KSORT_FEW) return 0;
      v[nv++] = k;
    }
    at[j]++, last = j;
  }
  /* the values' ranks: order[r] is the r-th smallest value's slot */
  int order[KSORT_FEW];
  for (int j = 0; j < nv; j++) {
    int r = j;
    while (r > 0 && v[order[r - 1]] > v[j]) order[r] = order[r - 1], r--;
    order[r] = j;
  }
  int pos = 0;
  for (int r = 0; r < nv; r++) {
    int c = at[order[r]];
    at[order[r]] = pos;
    pos += c;
  }
  last = 0;
  for (int i = 0; i < n; i++) {
    long long k = a[i].key;
    if (v[last] != k) {
      last = 0;
      while (v[last] != k) last++;
    }
    tmp[at[last]++] = a[i];
  }
  memcpy(a, tmp, sizeof *a * (size_t)n);
  return 1;
}

void ksort_sort(ksort_item *a, ksort_item *tmp, int n) {
  if (n < KSORT_SMALL || !idx_ascending(a, n)) {
    insertion(a, n);
    return;
  }
  if (few_values(a, tmp, n)) return;
  unsigned long long all_or = 0;
  for (int i = 0; i < n; i++) {
    assert(a[i].key >= 0);
    all_or |= (unsigned long long)a[i].key;
  }
  int count[KSORT_BUCKETS];
  ksort_item *src = a, *dst = tmp;
  for (int shift = 0; shift < 64 && (all_or >> shift); shift += KSORT_BITS) {
    memset(count, 0, sizeof count);
    for (int i = 0; i < n; i++)
      count[((unsigned long long)src[i].key >> shift) & (KSORT_BUCKETS - 1)]++;
    /* every key has the same digit: the pass would not move anything */
    if (count[((unsigned long long)src[0].key >> shift) & (KSORT_BUCKETS - 1)] == n) continue;
    int pos = 0;
    for (int b = 0; b < KSORT_BUCKETS; b++) {
      int c = count[b];
      count[b] = pos;
      pos += c;
    }
    for (int i = 0; i < n; i++)
      dst[count[((unsigned long long)src[i].key >> shift) & (KSORT_BUCKETS - 1)]++] = src[i];
    ksort_item *x = src;
    src = dst, dst = x;
  }
  if (src != a) memcpy(a, src, sizeof *a * (size_t)n);
}
