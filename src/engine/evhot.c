/*
 * evhot.c -- which links the running activities could fill; see evhot.h.
 */
#include "engine/evhot.h"

#include <assert.h>
#include <string.h>

#include "core/mem.h"
#include "engine/evshare.h"

#define TERM_MAX (4 * EVH_ONE) /* a term counts at most this */

int evh_init(evh *h, int n_links, const double *bw) {
  memset(h, 0, sizeof *h);
  size_t nl = (size_t)(n_links > 0 ? n_links : 1);
  h->units = mem_calloc(nl, sizeof *h->units);
  h->inv = mem_alloc(sizeof *h->inv * nl);
  if (!h->units || !h->inv) {
    evh_free(h);
    return -1;
  }
  for (int l = 0; l < n_links; l++) h->inv[l] = 0x1p40 / bw[l];
  h->n_links = (int)nl;
  return 0;
}

void evh_free(evh *h) {
  mem_free(h->units), mem_free(h->inv);
  memset(h, 0, sizeof *h);
}

/* v B/s on a link of inv units per B/s, rounded up: v / bw x 2^40 is
 * computed within 2 x 2^-53 of itself (< 1 unit below 4 bandwidths), so
 * its whole part plus 2 is never below it. */
static int64_t units(double v, double inv) {
  double x = v * inv;
  if (!(v >= 0) || !(x < (double)TERM_MAX)) return TERM_MAX;
  return (int64_t)x + 2;
}

void evh_change(evh *h, const evs_demand *d, double w, int sign) {
  for (int k = 0; d && k < d->n; k++) {
    int l = d->link[k];
    assert(l >= 0 && l < h->n_links);
    int64_t *u = &h->units[l];
    int was = *u >= EVH_HOT;
    *u += sign * units(w * d->rate[k], h->inv[l]);
    assert(*u >= 0 && "an activity removed that was not added");
    h->hot += (*u >= EVH_HOT) - was;
  }
}
