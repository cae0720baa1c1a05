/*
 * place.c -- replica groups of a collective; see place.h.
 */
#include "engine/place.h"

int place_count(int n, int stride, int window) {
  if (n < 1 || stride < 1 || (long)(n - 1) * stride >= window || window % ((long)n * stride))
    return 0;
  return window / n;
}

void place_ranks(int n, int stride, int window, int *rank) {
  int k = place_count(n, stride, window);
  for (int q = 0, b = 0; q < k && b < window; b++) {
    if ((b / stride) % n) continue;
    for (int i = 0; i < n; i++) rank[q * n + i] = b + i * stride;
    q++;
  }
}

int place_replicate(const sched *one, int n, int k, sched *out) {
  for (int si = 0; si < one->ns; si++) {
    const sched_step *st = &one->s[si];
    if (sched_begin(out, st->repeat)) return -1;
    for (int q = 0; q < k; q++)
      for (int j = 0; j < st->count; j++) {
        const sched_xfer *x = &one->x[st->first + j];
        if (sched_add(out, x->src + q * n, x->dst + q * n, x->bytes)) return -1;
      }
  }
  return 0;
}
