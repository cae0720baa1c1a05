/*
 * bheap.c -- a min-heap of bounded plans; see bheap.h.
 */
#include "search/bheap.h"

int bheap_before(const bounded *a, const bounded *b) {
  if (a->bound != b->bound) return a->bound < b->bound;
  return a->idx < b->idx;
}

void bheap_put(bheap *h, bounded b) {
  long i = h->n++;
  while (i > 0) {
    long up = (i - 1) / 2;
    if (!bheap_before(&b, &h->a[up])) break;
    h->a[i] = h->a[up];
    i = up;
  }
  h->a[i] = b;
}

int bheap_take(bheap *h, bounded *out) {
  if (h->n == 0) return 0;
  *out = h->a[0];
  bounded last = h->a[--h->n];
  long i = 0;
  for (;;) {
    long c = 2 * i + 1;
    if (c >= h->n) break;
    if (c + 1 < h->n && bheap_before(&h->a[c + 1], &h->a[c])) c++;
    if (!bheap_before(&h->a[c], &last)) break;
    h->a[i] = h->a[c];
    i = c;
  }
  if (h->n > 0) h->a[i] = last;
  return 1;
}
