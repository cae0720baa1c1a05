/*
 * deal.c -- contiguous shares of a search's points, with work stealing;
 * see deal.h.
 *
 * A share's range only shrinks (its owner takes from the front, thieves
 * cut off the back) until it is empty; only then does its owner refill it
 * with a range it cut off another share (the one plain store: no thief
 * swaps an empty range). Every point is in at most one range at any time,
 * or with the thief moving it. Each compare-and-swap takes points out of
 * the range it expected, computed from that value alone, so it is right
 * whenever it succeeds, even where a range has come back (one point
 * stolen back and forth: an ABA that does no harm); a point handed out
 * for evaluation never returns to any range.
 */
#include "search/deal.h"

#include <assert.h>

#include "core/mem.h"

/* Points a thread takes from its own share at a time: one compare-and-
 * swap on its own cache line per 8 plans (each several microseconds). */
#define DEAL_CHUNK 8
/* How far from the middle a cut looks for a place where neighbours
 * differ, points each way. */
#define DEAL_SNAP 256

static uint64_t pack(long lo, long hi) { return (uint64_t)hi << 32 | (uint64_t)lo; }
static long lo_of(uint64_t r) { return (long)(r & 0xffffffffu); }
static long hi_of(uint64_t r) { return (long)(r >> 32); }

static uint64_t load(const deal_share *s) { return __atomic_load_n(&s->range, __ATOMIC_ACQUIRE); }

static int swap(deal_share *s, uint64_t *expected, uint64_t to) {
  return __atomic_compare_exchange_n(&s->range, expected, to, 0, __ATOMIC_ACQ_REL,
                                     __ATOMIC_ACQUIRE);
}

/* Where to cut [lo, hi) (offsets) near mid: the nearest place within
 * DEAL_SNAP where two neighbours differ, strictly inside, or mid. */
static long cut_near(const deal *d, long lo, long hi, long mid) {
  if (!d->same) return mid;
  for (long k = 0; k <= DEAL_SNAP; k++) {
    long up = mid + k, down = mid - k; /* cut before point up / down */
    if (up > lo && up < hi && !d->same(d->ctx, up - 1)) return up;
    if (down > lo && down < hi && !d->same(d->ctx, down - 1)) return down;
    if (up >= hi && down <= lo) break;
  }
  return mid;
}

int deal_open(deal *d, long n, int nt, deal_same_fn same, const void *ctx,
              sc_error *err) {
  assert(n >= 0 && n < (1L << 32) && nt >= 1);
  d->s = mem_calloc((size_t)nt, sizeof *d->s);
  if (!d->s) return sc_error_set(err, SC_ENOMEM, "out of memory sharing the plans out");
  d->nt = nt;
  d->same = same;
  d->ctx = ctx;
  long lo = 0;
  for (int t = 0; t < nt; t++) {
    long hi = t == nt - 1 ? n : cut_near(d, lo, n, n * (t + 1) / nt);
    if (hi < lo) hi = lo;
    d->s[t].range = pack(lo, hi);
    lo = hi;
  }
  return SC_OK;
}

void deal_close(deal *d) {
  mem_free(d->s);
  d->s = NULL;
}

/* Cut off the back half of the largest share other than t's into t's
 * (empty) share: 1, or 0 when every other share is empty. */
static int steal(deal *d, int t) {
  for (;;) {
    int v = -1;
    long most = 0;
    uint64_t r = 0;
    for (int u = 0; u < d->nt; u++) {
      uint64_t x = load(&d->s[u]);
      if (u != t && hi_of(x) - lo_of(x) > most) v = u, most = hi_of(x) - lo_of(x), r = x;
    }
    if (v < 0) return 0;
    long lo = lo_of(r), hi = hi_of(r);
    long cut = most < 2 ? lo : cut_near(d, lo, hi, lo + most / 2);
    if (swap(&d->s[v], &r, pack(lo, cut))) {
      __atomic_store_n(&d->s[t].range, pack(cut, hi), __ATOMIC_RELEASE);
      return 1;
    }
  }
}

int deal_next(deal *d, int t, long *lo, long *hi) {
  deal_share *s = &d->s[t];
  for (;;) {
    uint64_t r = load(s);
    long a = lo_of(r), b = hi_of(r);
    if (a < b) {
      long c = b - a < DEAL_CHUNK ? b : a + DEAL_CHUNK;
      if (!swap(s, &r, pack(c, b))) continue; /* a thief cut the back off */
      *lo = a;
      *hi = c;
      return 1;
    }
    if (!steal(d, t)) return 0;
  }
}
