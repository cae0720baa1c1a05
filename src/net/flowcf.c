/*
 * flowcf.c -- closed form of the flow engine's step times; see flowcf.h.
 */
#include "net/flowcf.h"

#include <string.h>

#include "core/mem.h"

void fcf_scratch_init(fcf_scratch *w) { memset(w, 0, sizeof *w); }

void fcf_scratch_free(fcf_scratch *w) {
  mem_free(w->load), mem_free(w->lmin), mem_free(w->count), mem_free(w->touched);
  mem_free(w->pent), mem_free(w->poff), mem_free(w->plen), mem_free(w->plat);
  fcf_scratch_init(w);
}

/* Per-link arrays for t (allocated once, again for a topology with more
 * links); 0 or -1. */
static int scratch_links(fcf_scratch *w, const topo *t) {
  if (w->load && w->lmin && w->count && w->touched && w->n_links >= t->n_links) return 0;
  if (w->n_links < t->n_links) {
    mem_free(w->load), mem_free(w->lmin), mem_free(w->count), mem_free(w->touched);
    w->load = w->lmin = NULL;
    w->count = w->touched = NULL;
  }
  size_t n = (size_t)t->n_links + 1;
  if (!w->load) w->load = mem_calloc(n, sizeof *w->load);
  if (!w->lmin) w->lmin = mem_alloc(n * sizeof *w->lmin);
  if (!w->count) w->count = mem_calloc(n, sizeof *w->count);
  if (!w->touched) w->touched = mem_alloc(n * sizeof *w->touched);
  w->n_links = t->n_links;
  return w->load && w->lmin && w->count && w->touched ? 0 : -1;
}

/* Room for `n` transfers in a step; 0 or -1. */
static int scratch_xfers(fcf_scratch *w, long n) {
  if (n <= w->cap_x) return 0;
  int *poff = mem_realloc(w->poff, (size_t)n * sizeof *poff);
  if (poff) w->poff = poff;
  int *plen = mem_realloc(w->plen, (size_t)n * sizeof *plen);
  if (plen) w->plen = plen;
  double *plat = mem_realloc(w->plat, (size_t)n * sizeof *plat);
  if (plat) w->plat = plat;
  if (!poff || !plen || !plat) return -1;
  w->cap_x = n;
  return 0;
}

/* Room for `n` path entries; 0 or -1. */
static int scratch_pent(fcf_scratch *w, long n) {
  if (n <= w->cap_pent) return 0;
  long cap = w->cap_pent ? 2 * w->cap_pent : 4096;
  while (cap < n) cap *= 2;
  int *p = mem_realloc(w->pent, (size_t)cap * sizeof *p);
  if (!p) return -1;
  w->pent = p, w->cap_pent = cap;
  return 0;
}

/* Add line (lat, slope) to a family of at most FCF_LINES undominated
 * lines (a line is dominated when another has no smaller latency and no
 * smaller slope: it is never above the envelope). 0, or -1 when full. */
static int add_line(fcf_line *set, int *n, double lat, double slope) {
  for (int i = 0; i < *n; i++)
    if (set[i].lat >= lat && set[i].slope >= slope) return 0;
  int k = 0;
  for (int i = 0; i < *n; i++)
    if (!(lat >= set[i].lat && slope >= set[i].slope)) set[k++] = set[i];
  if (k == FCF_LINES) return -1;
  set[k++] = (fcf_line){lat, slope};
  *n = k;
  return 0;
}

/* Route the transfers of step st (those kept get w->poff[k] >= 0) and add
 * them into the per-link load, count and shortest latency, in transfer
 * order; *lat is the longest path latency, *nt the links touched, *whole 0
 * when a transfer was left out. 0 or -1 (out of memory). */
static int route_step(const topo *t, route_table *rt, const sched *s, const sched_step *st,
                      const int *rank_node, fcf_scratch *w, double *lat, int *nt,
                      int *whole) {
  long npe = 0;
  *lat = 0, *nt = 0, *whole = 1;
  if (scratch_xfers(w, st->count)) return -1;
  for (int k = 0; k < st->count; k++) {
    const sched_xfer *x = &s->x[st->first + k];
    w->poff[k] = -1;
    if (x->src == SCHED_SWITCH || x->dst == SCHED_SWITCH || !(x->bytes > 0)) {
      *whole = 0;
      continue;
    }
    int a = rank_node[x->src], b = rank_node[x->dst];
    const int *path;
    int len = 0;
    if (a == b) continue; /* crosses no link: the flow engine skips it too */
    if (route_path(rt, a, b, &path, &len) != 0) {
      *whole = 0;
      continue;
    }
    if (scratch_pent(w, npe + len)) return -1;
    double l = 0; /* summed in path order, as the flow engine does */
    for (int j = 0; j < len; j++) {
      int id = path[j];
      l += t->links[id].lat;
      if (w->load[id] == 0) w->touched[(*nt)++] = id;
      w->load[id] += x->bytes;
      w->pent[npe + j] = id;
    }
    for (int j = 0; j < len; j++) {
      int id = path[j];
      if (w->count[id] == 0 || l < w->lmin[id]) w->lmin[id] = l;
      w->count[id]++;
    }
    w->poff[k] = (int)npe, w->plen[k] = len, w->plat[k] = l;
    npe += len;
    if (l > *lat) *lat = l;
  }
  return 0;
}

/* The two families of step st (routed by route_step) into *out; 0, or -1
 * when a family overflows or a link has no bandwidth. */
static int step_lines(const topo *t, const sched *s, const sched_step *st, const fcf_scratch *w,
                      int nt, double lat, fcf_step *out) {
  out->repeat = st->repeat;
  out->n_lo = out->n_hi = 0;
  if (add_line(out->lo, &out->n_lo, lat, 0)) return -1;
  for (int i = 0; i < nt; i++) {
    int id = w->touched[i];
    if (!(t->links[id].bw > 0)) return -1;
    if (add_line(out->lo, &out->n_lo, w->lmin[id], w->load[id] / t->links[id].bw)) return -1;
  }
  fcf_line last = {-1, -1};
  for (int k = 0; k < st->count; k++) {
    if (w->poff[k] < 0) continue;
    const int *p = w->pent + w->poff[k];
    double worst = 0; /* the most flows per bandwidth on its path */
    for (int j = 0; j < w->plen[k]; j++) {
      double r = w->count[p[j]] / t->links[p[j]].bw;
      if (r > worst) worst = r;
    }
    fcf_line h = {w->plat[k], s->x[st->first + k].bytes * worst};
    if (h.lat == last.lat && h.slope == last.slope) continue; /* the common case */
    if (add_line(out->hi, &out->n_hi, h.lat, h.slope)) return -1;
    last = h;
  }
  return 0;
}

/* Clear the per-link sums of the nt links touched; the busiest link's
 * load over its bandwidth. */
static double clear_links(const topo *t, fcf_scratch *w, int nt) {
  double busy = 0;
  for (int j = 0; j < nt; j++) {
    int id = w->touched[j];
    if (w->load[id] / t->links[id].bw > busy) busy = w->load[id] / t->links[id].bw;
    w->load[id] = 0;
    w->count[id] = 0;
  }
  return busy;
}

int fcf_build(const topo *t, route_table *rt, const sched *s, const int *rank_node,
              fcf_scratch *w, fcf *out) {
  out->ok = 1;
  out->ns = 0;
  out->lat = out->per_byte = 0;
  if (scratch_links(w, t)) return -1;
  for (int i = 0; i < s->ns; i++) {
    const sched_step *st = &s->s[i];
    double lat;
    int nt, whole;
    if (route_step(t, rt, s, st, rank_node, w, &lat, &nt, &whole)) {
      clear_links(t, w, nt);
      return -1;
    }
    if (st->repeat > 0 && out->ok) { /* a step that does not run is no step */
      if (!whole || out->ns == FCF_STEPS ||
          step_lines(t, s, st, w, nt, lat, &out->s[out->ns]))
        out->ok = 0;
      else
        out->ns++;
    }
    double busy = clear_links(t, w, nt);
    out->lat += lat * st->repeat;
    out->per_byte += busy * st->repeat;
  }
  return 0;
}

int fcf_time(const fcf *f, double bytes, double *seconds) {
  if (!f->ok) return 0;
  double total = 0;
  for (int i = 0; i < f->ns; i++) {
    const fcf_step *st = &f->s[i];
    double lo = 0, hi = 0;
    for (int k = 0; k < st->n_lo; k++)
      if (st->lo[k].lat + st->lo[k].slope * bytes > lo) lo = st->lo[k].lat + st->lo[k].slope * bytes;
    for (int k = 0; k < st->n_hi; k++)
      if (st->hi[k].lat + st->hi[k].slope * bytes > hi) hi = st->hi[k].lat + st->hi[k].slope * bytes;
    if (hi > lo * (1 + FCF_TOL)) return 0;
    total += lo * st->repeat;
  }
  *seconds = total;
  return 1;
}
