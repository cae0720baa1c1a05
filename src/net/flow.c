/*
 * flow.c -- max-min fair flow simulation of a collective schedule.
 *
 * Per step: flows are built from the step's transfers (same node pair =
 * one flow of weight w), each becomes active after its path latency, and
 * the event loop advances to the next start or finish. Rates are the
 * max-min fair allocation by progressive filling: repeatedly take the
 * link with the smallest fair share rem/cnt, freeze its flows at that
 * share, and charge their other links. The heap holds one entry per link
 * keyed by its share when pushed: shares only grow as flows are frozen
 * (a frozen flow takes at most the share of every link it crosses), so a
 * popped entry whose link's share has grown is pushed back with the new
 * key, and the first entry popped with a current key is the minimum.
 */
#include "net/flow.h"

#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/heap.h"
#include "core/mem.h"

/* Time precision of the event loop: flows due within a relative
 * FLOW_PRECISION of the next event finish with it (their last bytes are
 * counted as delivered then), so flows that differ only by rounding or by
 * a hair of contention do not each cost a re-solve. The simulated time is
 * then exact to about that fraction (SimGrid's surf/precision plays the
 * same role). 1e-3 cuts the solves of a direct all-to-all over 128 GPUs
 * 16x (2,999 -> 181) and moves its time by 0.01 %. */
#define FLOW_PRECISION 1e-3

/* Batching: the (src, dst) node pair packed into one 64-bit key per
 * transfer, sorted (ties by index, so the order is deterministic). */
typedef struct pair_key {
  long long key;
  int idx;
} pair_key;

/* Working memory of one run, sized before the first step. */
typedef struct run {
  const topo *t;
  int max_flows, max_entries;
  /* flows of the current step */
  const int **path;
  int *len, *w, *state, *frozen;
  double *left, *rate, *start, *total;
  int *src, *dst;
  int n;
  /* links */
  double *rem;
  int *cnt, *stamp, *touched, *off, *fill;
  int *lflows;      /* flows per touched link, CSR by off */
  unsigned epoch;
  int ntouched;
  heap heap;        /* links keyed by fair share rem/cnt when pushed,
                       bytes/s; at most one entry per link */
  pair_key *keys;   /* max_flows, for batching a step's transfers */
  size_t bytes;     /* working memory allocated for the run */
  /* progress: transfers of the schedule, of the steps done, callback */
  long xfers, xfers_done, step_done; /* step_done: finished flows' weight */
  flow_progress_fn progress;
  void *progress_ud;
} run;

/* ----------------------------------------------------- max-min solve */

static void solve(run *r) {
  const topo *t = r->t;
  r->epoch++;
  r->ntouched = 0;
  for (int f = 0; f < r->n; f++) {
    if (r->state[f] != 1) continue;
    r->frozen[f] = 0;
    /* in locals: the int stores below could alias them for the compiler */
    const int *path = r->path[f];
    int len = r->len[f], w = r->w[f];
    for (int k = 0; k < len; k++) {
      int l = path[k];
      if (r->stamp[l] != (int)r->epoch) {
        r->stamp[l] = (int)r->epoch;
        r->rem[l] = t->links[l].bw;
        r->cnt[l] = 0;
        r->off[l] = 0;
        r->touched[r->ntouched++] = l;
      }
      r->cnt[l] += w;
      r->off[l]++;
    }
  }
  /* CSR of active flows per touched link: off[l] becomes the start */
  int pos = 0;
  for (int i = 0; i < r->ntouched; i++) {
    int l = r->touched[i], c = r->off[l];
    r->off[l] = r->fill[l] = pos;
    pos += c;
  }
  for (int f = 0; f < r->n; f++)
    if (r->state[f] == 1)
      for (int k = 0; k < r->len[f]; k++) r->lflows[r->fill[r->path[f][k]]++] = f;
  heap_clear(&r->heap);
  for (int i = 0; i < r->ntouched; i++) {
    int l = r->touched[i];
    heap_push(&r->heap, r->rem[l] / r->cnt[l], l);
  }
  while (!heap_empty(&r->heap)) {
    heap_ent e = heap_pop(&r->heap);
    int l = e.id;
    if (r->cnt[l] <= 0) continue;
    double share = fmax(r->rem[l], 0) / r->cnt[l];
    if (share > e.key * (1 + 1e-12) + 1e-300) { /* grew since pushed */
      heap_push(&r->heap, share, l);
      continue;
    }
    for (int k = r->off[l]; k < r->fill[l]; k++) {
      int f = r->lflows[k];
      if (r->frozen[f]) continue;
      r->frozen[f] = 1;
      r->rate[f] = share;
      const int *path = r->path[f];
      int len = r->len[f], w = r->w[f];
      double take = share * w; /* what the flow takes on each of its links */
      for (int j = 0; j < len; j++) {
        r->rem[path[j]] -= take;
        r->cnt[path[j]] -= w;
      }
    }
  }
#ifdef SC_DEBUG_CHECKS
  for (int i = 0; i < r->ntouched; i++) r->rem[r->touched[i]] = 0;
  for (int f = 0; f < r->n; f++)
    if (r->state[f] == 1)
      for (int k = 0; k < r->len[f]; k++) r->rem[r->path[f][k]] += r->rate[f] * r->w[f];
  for (int i = 0; i < r->ntouched; i++) {
    int l = r->touched[i];
    assert(r->rem[l] <= t->links[l].bw * (1 + 1e-9) && "link over capacity");
  }
#endif
}

/* ------------------------------------------------------------ steps */

/* Node of a transfer endpoint; -1 when a switch endpoint has none. */
static int endpoint(const topo *t, const int *rank_node, int rank, int via) {
  if (rank != SCHED_SWITCH) return rank_node[rank];
  int g = rank_node[via];
  for (int k = t->out_start[g]; k < t->out_start[g + 1]; k++) {
    int d = t->links[t->out_link[k]].dst;
    if (t->nodes[d].kind == TOPO_NVSWITCH) return d;
  }
  return -1;
}

static int cmp_key(const void *a, const void *b) {
  const pair_key *x = a, *y = b;
  if (x->key != y->key) return x->key < y->key ? -1 : 1;
  return (x->idx > y->idx) - (x->idx < y->idx);
}

static int nomem(sc_error *err) {
  return sc_error_set(err, SC_ENOMEM, "flow engine: out of memory");
}

/* Load the flows of one step (batched by node pair). */
static int load_step(run *r, route_table *rt, const sched *s, int si, const int *rank_node,
                     sc_error *err) {
  const sched_step *st = &s->s[si];
  const topo *t = r->t;
  pair_key *keys = r->keys;
  for (int k = 0; k < st->count; k++) {
    const sched_xfer *x = &s->x[st->first + k];
    int a = endpoint(t, rank_node, x->src, x->via), b = endpoint(t, rank_node, x->dst, x->via);
    if (a < 0 || b < 0)
      return sc_error_set(err, SC_EINPUT,
                          "in-switch reduction: GPU %s has no link to an NVSwitch",
                          t->nodes[rank_node[x->via]].name);
    keys[k] = (pair_key){(long long)a * t->n_nodes + b, k};
  }
  qsort(keys, (size_t)st->count, sizeof *keys, cmp_key);
  r->n = 0;
  for (int k = 0; k < st->count; k++) {
    const sched_xfer *x = &s->x[st->first + keys[k].idx];
    int a = (int)(keys[k].key / t->n_nodes), b = (int)(keys[k].key % t->n_nodes);
    if (a == b) continue; /* to itself (send_recv on one rank): crosses no link, costs 0 */
    if (r->n > 0 && r->src[r->n - 1] == a && r->dst[r->n - 1] == b &&
        r->total[r->n - 1] == x->bytes) {
      r->w[r->n - 1]++;
      continue;
    }
    int f = r->n++;
    r->src[f] = a, r->dst[f] = b;
    r->path[f] = NULL, r->len[f] = 0;
    int rc = route_path(rt, a, b, &r->path[f], &r->len[f]);
    if (rc == ROUTE_NOMEM) return nomem(err); /* never: size_run cached the routes */
    if (rc)
      return sc_error_set(err, SC_EINPUT, "no route from %s to %s", t->nodes[a].name,
                          t->nodes[b].name);
    r->w[f] = 1;
    r->total[f] = r->left[f] = x->bytes;
    double lat = 0;
    for (int j = 0; j < r->len[f]; j++) lat += t->links[r->path[f][j]].lat;
    r->start[f] = lat;
    r->state[f] = 0;
    r->rate[f] = 0;
  }
  return SC_OK;
}

/* Tell the progress callback how many transfers are done: those of the
 * steps before, and the finished flows of this one (by weight). */
static void report(run *r) {
  long done = r->xfers_done + r->step_done;
  r->progress(r->progress_ud, r->xfers > 0 ? (double)done / r->xfers : 1.0);
}

/* Event loop of one loaded step; returns its duration (s). */
static double run_step(run *r, flow_stats *st) {
  double now = 0;
  r->step_done = 0;
  int pending = r->n, active = 0;
  for (;;) {
    /* start flows whose latency has elapsed; finish empty ones */
    for (int f = 0; f < r->n; f++)
      if (r->state[f] == 0 && r->start[f] <= now * (1 + 1e-12) + 1e-18) {
        pending--, st->events++;
        if (r->left[f] <= 0 || r->len[f] == 0) r->state[f] = 2, r->step_done += r->w[f];
        else r->state[f] = 1, active++;
      }
    if (!active && !pending) break;
    if (active) solve(r), st->solves++;
    double next = INFINITY;
    int who = -1;
    for (int f = 0; f < r->n; f++) {
      if (r->state[f] == 0 && r->start[f] < next) next = r->start[f], who = -1;
      if (r->state[f] == 1 && now + r->left[f] / r->rate[f] < next)
        next = now + r->left[f] / r->rate[f], who = f;
    }
    assert(isfinite(next));
    double dt = next - now;
    /* flows due within FLOW_PRECISION of `next` finish together */
    double horizon = next + FLOW_PRECISION * next;
    for (int f = 0; f < r->n; f++)
      if (r->state[f] == 1) {
        double due = now + r->left[f] / r->rate[f];
        r->left[f] -= r->rate[f] * dt;
        if (f == who || due <= horizon || r->left[f] <= r->total[f] * 1e-12) {
          r->left[f] = 0, r->state[f] = 2, active--, st->events++;
          r->step_done += r->w[f];
        }
      }
    now = next;
    if (r->progress) report(r);
  }
#ifdef SC_DEBUG_CHECKS
  for (int f = 0; f < r->n; f++) assert(r->state[f] == 2 && r->left[f] == 0 && "bytes lost");
#endif
  return now;
}

/* Pre-pass: size the run (its largest step, in flows and in path
 * entries) and count the transfers progress is measured in. Every route
 * is computed here, so that load_step only looks routes up and the path
 * pointers it keeps stay valid (route.h). SC_OK or SC_ENOMEM. */
static int size_run(run *r, route_table *rt, const sched *s, const int *rank_node,
                    long *max_entries, sc_error *err) {
  const topo *t = r->t;
  *max_entries = 0;
  for (int i = 0; i < s->ns; i++) {
    r->xfers += s->s[i].count;
    if (s->s[i].count > r->max_flows) r->max_flows = s->s[i].count;
    long e = 0;
    for (int k = 0; k < s->s[i].count; k++) {
      const sched_xfer *x = &s->x[s->s[i].first + k];
      int a = endpoint(t, rank_node, x->src, x->via), b = endpoint(t, rank_node, x->dst, x->via);
      const int *p;
      int n = 0;
      if (a < 0 || b < 0 || a == b) continue; /* load_step reports a missing switch */
      int rc = route_path(rt, a, b, &p, &n);
      if (rc == ROUTE_NOMEM) return nomem(err);
      if (rc == 0) e += n; /* load_step reports a missing route */
    }
    if (e > *max_entries) *max_entries = e;
  }
  return SC_OK;
}

#define ALLOC(p, n)                                                     \
  do {                                                                  \
    size_t sz_ = sizeof *(p) * (size_t)((n) > 0 ? (n) : 1);             \
    (p) = mem_alloc(sz_);                                               \
    r->bytes += sz_;                                                    \
    if (!(p)) ok = 0;                                                   \
  } while (0)

/* The working memory of a run, allocated once before its first step and
 * counted in r->bytes. SC_OK or SC_ENOMEM; run_free releases whatever
 * was allocated either way. */
static int run_alloc(run *r, long max_entries, sc_error *err) {
  int ok = 1;
  int nf = r->max_flows, nl = r->t->n_links;
  ALLOC(r->path, nf); ALLOC(r->len, nf); ALLOC(r->w, nf); ALLOC(r->state, nf);
  ALLOC(r->frozen, nf); ALLOC(r->left, nf); ALLOC(r->rate, nf); ALLOC(r->start, nf);
  ALLOC(r->total, nf); ALLOC(r->src, nf); ALLOC(r->dst, nf); ALLOC(r->keys, nf);
  ALLOC(r->rem, nl); ALLOC(r->cnt, nl); ALLOC(r->touched, nl); ALLOC(r->off, nl);
  ALLOC(r->fill, nl);
  ALLOC(r->lflows, max_entries);
  if (heap_init(&r->heap, nl)) ok = 0; /* one entry per link at any time */
  r->bytes += sizeof(heap_ent) * (size_t)(nl > 0 ? nl : 1);
  r->stamp = mem_calloc((size_t)nl, sizeof *r->stamp);
  r->bytes += sizeof *r->stamp * (size_t)nl;
  if (!r->stamp) ok = 0;
  return ok ? SC_OK : nomem(err);
}

static void run_free(run *r) {
  mem_free(r->path), mem_free(r->len), mem_free(r->w), mem_free(r->state);
  mem_free(r->frozen), mem_free(r->left), mem_free(r->rate), mem_free(r->start);
  mem_free(r->total), mem_free(r->src), mem_free(r->dst), mem_free(r->keys);
  mem_free(r->rem), mem_free(r->cnt), mem_free(r->touched), mem_free(r->off);
  mem_free(r->fill), mem_free(r->lflows), mem_free(r->stamp);
  heap_free(&r->heap);
}

int flow_run(const topo *t, route_table *rt, const sched *s, const int *rank_node,
             flow_stats *out, sc_error *err) {
  return flow_run_ex(t, rt, s, rank_node, out, NULL, NULL, err);
}

int flow_run_ex(const topo *t, route_table *rt, const sched *s, const int *rank_node,
                flow_stats *out, flow_progress_fn fn, void *ud, sc_error *err) {
  memset(out, 0, sizeof *out);
  run r;
  memset(&r, 0, sizeof r);
  r.t = t;
  r.progress = fn;
  r.progress_ud = ud;
  long max_entries = 0;
  int rc = size_run(&r, rt, s, rank_node, &max_entries, err);
  if (rc == SC_OK) rc = run_alloc(&r, max_entries, err);
  for (int i = 0; i < s->ns && rc == SC_OK; i++) {
    if (s->s[i].repeat == 0) continue; /* a step that does not run */
    rc = load_step(&r, rt, s, i, rank_node, err);
    if (rc) break;
    double dt = run_step(&r, out);
    r.xfers_done += s->s[i].count;
    out->time += dt * s->s[i].repeat;
    for (int f = 0; f < r.n; f++) out->bytes += r.total[f] * r.w[f] * s->s[i].repeat;
  }
  out->max_flows = r.max_flows;
  out->mem_bytes = r.bytes;
  run_free(&r);
  return rc;
}
