/*
 * flow.c -- max-min fair flow simulation of a collective schedule.
 *
 * Per step: flows are built from the step's transfers (same node pair and
 * size = one flow of weight w), each becomes active after its path
 * latency, and the event loop advances to the next start or finish.
 * Rates are the max-min fair allocation by progressive filling:
 * repeatedly take the link with the smallest fair share rem/cnt, freeze
 * its flows at that share, and charge their other links. The heap holds
 * one entry per link keyed by its share when pushed: shares only grow as
 * flows are frozen (a frozen flow takes at most the share of every link
 * it crosses), so a popped entry whose link's share has grown is pushed
 * back with the new key, and the first entry popped with a current key is
 * the minimum.
 *
 * Layout for speed (a direct all-to-all over 1,024 GPUs is one step of a
 * million flows and some 6 million path entries):
 *  - routes come from per-source hop counts (net/route.h), so a million
 *    pairs cost one breadth-first search per source and a byte per node;
 *  - the paths of a step's flows are copied into one contiguous array in
 *    flow order (flows sorted by node pair), so the passes of a solve read
 *    memory sequentially;
 *  - the link -> flows index (CSR) is built once per step over the flows
 *    that may run, and rebuilt over the active ones only when fewer than
 *    half of its entries are still active;
 *  - only the active flows are visited by a solve and by the event loop
 *    (an active list, compacted as flows finish), and a solve touches only
 *    the links they cross.
 * So a solve costs the active flows' path entries, not the step's.
 */
#include "net/flow.h"

#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/heap.h"
#include "core/ksort.h"
#include "core/mem.h"

/* Time precision of the event loop: flows due within a relative
 * precision of the next event finish with it (their last bytes are
 * counted as delivered then), so flows that differ only by rounding or by
 * a hair of contention do not each cost a re-solve. The simulated time is
 * then exact to about that fraction (SimGrid's surf/precision plays the
 * same role). FLOW_PRECISION 1e-3 cuts the solves of a direct all-to-all
 * over 128 GPUs 16x (2,999 -> 181) and moves its time by 0.01 %. A step
 * of more than FLOW_MANY flows, where each solve walks millions of path
 * entries, runs at FLOW_PRECISION_MANY: measured on the direct all-to-all
 * over 256 GPUs (fat_tree:hosts=256,radix=16,levels=3,bw=50, 65,280
 * flows, forced to 1e-2): 285 -> 58 solves, simulated time equal to 6
 * digits (0.021950 s); over 1,024 GPUs 549 -> 81 solves, 0.021756 s both. */
#define FLOW_PRECISION 1e-3
#define FLOW_PRECISION_MANY 1e-2
#define FLOW_MANY 100000

/* How far ahead in a link's flow list the freeze loop fetches. */
#define FLOW_AHEAD 12


/* Batching: the (src, dst) node pair packed into one 64-bit key per
 * transfer, sorted (ties by index, so the order is deterministic). */
typedef ksort_item pair_key;

/* Flow states. */
enum { F_PENDING = 0, F_ACTIVE, F_DONE };

/* The fields of a flow a solve touches, together so that visiting a
 * flow costs one cache line. */
typedef struct flow {
  int poff, len;    /* its path: pent[poff .. poff+len) */
  int w;            /* transfers it stands for (same pair and size) */
  int state;        /* F_* */
  int frozen;       /* epoch of the solve that last set its rate */
  double rate;      /* bytes/s of each of its w transfers */
} flow;

/* Working memory of one run, sized before the first step. */
typedef struct run {
  const topo *t;
  int max_flows;
  long max_entries;
  /* flows of the current step */
  flow *fl;         /* what a solve reads, one struct per flow */
  double *left, *start, *total;
  int *src, *dst;
  int n;
  int *pent;        /* path entries (link ids) of the step, flow after flow */
  int *act, nact;   /* active flows, in flow order */
  int *pend, npend, ipend; /* pending flows by start time; next at ipend */
  /* links */
  double *rem;
  int *cnt, *stamp, *touched, *off, *end;
  int *lflows;      /* flows per link (CSR by off/end), the indexed ones */
  int *lpoff;       /* beside each entry, the flow's path offset (so the
                       path can be fetched ahead without the flow) */
  long csr_entries; /* entries in lflows */
  long act_entries; /* path entries of the active flows */
  unsigned epoch;
  int ntouched;
  heap heap;        /* links keyed by fair share rem/cnt when pushed,
                       bytes/s; at most one entry per link */
  pair_key *keys;   /* max_flows, for batching a step's transfers */
  pair_key *ktmp;   /* max_flows, scratch of the sort */
  size_t bytes;     /* working memory allocated for the run */
  /* progress: transfers of the schedule, of the steps done, callback */
  long xfers, xfers_done, step_done; /* step_done: finished flows' weight */
  flow_progress_fn progress;
  void *progress_ud;
  double *lb;       /* per link: bytes of this step, or NULL (not asked) */
  flow_scratch *scr; /* borrowed: where the arrays are (NULL: allocated) */
  /* bitmaps over the step's flows, small enough to stay in cache while a
   * solve walks the links' flow lists (most entries it meets belong to
   * flows already frozen through another link): */
  unsigned long long *idle; /* 1 = not active (pending or done) */
  unsigned long long *fz;   /* 1 = frozen in the current solve */
} run;

#define BIT(a, f) (((a)[(f) >> 6] >> ((f) & 63)) & 1ULL)
#define SET(a, f) ((a)[(f) >> 6] |= 1ULL << ((f) & 63))
#define CLR(a, f) ((a)[(f) >> 6] &= ~(1ULL << ((f) & 63)))

/* ----------------------------------------------------- link index */

/* Index the flows in list[0..n) by link: off[l]..end[l] in lflows. The
 * links are stamped with a fresh epoch. */
static void index_links(run *r, const int *list, int n) {
  r->epoch++;
  r->ntouched = 0;
  long entries = 0;
  for (int i = 0; i < n; i++) {
    int f = list[i];
    const int *p = r->pent + r->fl[f].poff;
    for (int k = 0; k < r->fl[f].len; k++) {
      int l = p[k];
      if (r->stamp[l] != (int)r->epoch) {
        r->stamp[l] = (int)r->epoch;
        r->off[l] = 0;
        r->touched[r->ntouched++] = l;
      }
      r->off[l]++;
    }
    entries += r->fl[f].len;
  }
  int pos = 0;
  for (int i = 0; i < r->ntouched; i++) {
    int l = r->touched[i], c = r->off[l];
    r->off[l] = r->end[l] = pos;
    pos += c;
  }
  for (int i = 0; i < n; i++) {
    int f = list[i];
    const int *p = r->pent + r->fl[f].poff;
    for (int k = 0; k < r->fl[f].len; k++) {
      int e = r->end[p[k]]++;
      r->lflows[e] = f;
      r->lpoff[e] = r->fl[f].poff;
    }
  }
  r->csr_entries = entries;
}

/* ----------------------------------------------------- max-min solve */

static void solve(run *r) {
  const topo *t = r->t;
  /* the index may list finished flows: rebuild it over the active ones
   * once they are fewer than half of it */
  if (r->ipend == r->npend && 2 * r->act_entries < r->csr_entries)
    index_links(r, r->act, r->nact); /* (no flow still to start: the index
                                        must cover every flow that may run) */
  unsigned ep = ++r->epoch; /* marks the links counted and flows frozen now */
  memset(r->fz, 0, sizeof *r->fz * (size_t)((r->n + 63) / 64));
  int nl = 0;
  for (int i = 0; i < r->nact; i++) {
    int f = r->act[i];
    const int *p = r->pent + r->fl[f].poff;
    int len = r->fl[f].len, w = r->fl[f].w;
    for (int k = 0; k < len; k++) {
      int l = p[k];
      if (r->stamp[l] != (int)ep) {
        r->stamp[l] = (int)ep;
        r->rem[l] = t->links[l].bw;
        r->cnt[l] = 0;
        r->touched[nl++] = l;
      }
      r->cnt[l] += w;
    }
  }
  r->ntouched = nl;
  heap_clear(&r->heap);
  for (int i = 0; i < nl; i++) {
    int l = r->touched[i];
    heap_push(&r->heap, r->rem[l] / r->cnt[l], l);
  }
  /* once every active flow is frozen every link's count is 0: the links
   * left in the heap would each be popped for nothing */
  int unfrozen = r->nact;
  while (unfrozen > 0 && !heap_empty(&r->heap)) {
    heap_ent e = heap_pop(&r->heap);
    int l = e.id;
    if (r->cnt[l] <= 0) continue;
    double share = fmax(r->rem[l], 0) / r->cnt[l];
    if (share > e.key * (1 + 1e-12) + 1e-300) { /* grew since pushed */
      heap_push(&r->heap, share, l);
      continue;
    }
    for (int k = r->off[l]; k < r->end[l]; k++) {
      int f = r->lflows[k];
#if defined(__GNUC__)
      /* the flows of a link and their paths are scattered over memory
       * (6 million path entries in a direct all-to-all over 1,024 GPUs):
       * fetch ahead; the bitmaps skip the ones frozen already */
      if (k + FLOW_AHEAD < r->end[l]) {
        int g = r->lflows[k + FLOW_AHEAD];
        if (!(BIT(r->idle, g) | BIT(r->fz, g))) {
          __builtin_prefetch(&r->fl[g], 1);
          __builtin_prefetch(r->pent + r->lpoff[k + FLOW_AHEAD]);
        }
      }
#endif
      if (BIT(r->idle, f) | BIT(r->fz, f)) continue;
      SET(r->fz, f);
      unfrozen--;
      flow *q = &r->fl[f];
      assert(q->state == F_ACTIVE);
      q->frozen = (int)ep;
      q->rate = share;
      const int *p = r->pent + q->poff;
      int len = q->len, w = q->w;
      double take = share * w; /* what the flow takes on each of its links */
      for (int j = 0; j < len; j++) {
        r->rem[p[j]] -= take;
        r->cnt[p[j]] -= w;
      }
    }
  }
#ifdef SC_DEBUG_CHECKS
  for (int i = 0; i < nl; i++) r->rem[r->touched[i]] = 0;
  for (int i = 0; i < r->nact; i++) {
    int f = r->act[i];
    assert(r->fl[f].frozen == (int)ep && "active flow without a rate");
    const flow *q = &r->fl[f];
    for (int k = 0; k < q->len; k++) r->rem[r->pent[q->poff + k]] += q->rate * q->w;
  }
  for (int i = 0; i < nl; i++) {
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

static int nomem(sc_error *err) {
  return sc_error_set(err, SC_ENOMEM, "flow engine: out of memory");
}

/* Pending flows by start time, ties by index (the start times' bits are
 * packed with the index into the keys array). */
static void order_pending(run *r) {
  for (int f = 0; f < r->n; f++) {
    double s = r->start[f];
    long long bits;
    memcpy(&bits, &s, sizeof bits); /* non-negative doubles sort as integers */
    r->keys[f] = (pair_key){bits, f};
  }
  ksort_sort(r->keys, r->ktmp, r->n);
  for (int f = 0; f < r->n; f++) r->pend[f] = r->keys[f].idx;
  r->npend = r->n, r->ipend = 0;
}

/* Load the flows of one step (batched by node pair), their paths copied
 * into pent. */
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
  ksort_sort(keys, r->ktmp, st->count);
  r->n = 0;
  long pos = 0;
  for (int k = 0; k < st->count; k++) {
    const sched_xfer *x = &s->x[st->first + keys[k].idx];
    int a = (int)(keys[k].key / t->n_nodes), b = (int)(keys[k].key % t->n_nodes);
    if (a == b) continue; /* to itself (send_recv on one rank): crosses no link, costs 0 */
    if (r->n > 0 && r->src[r->n - 1] == a && r->dst[r->n - 1] == b &&
        r->total[r->n - 1] == x->bytes) {
      r->fl[r->n - 1].w++;
      continue;
    }
    int f = r->n++;
    r->src[f] = a, r->dst[f] = b;
    const int *path = NULL;
    int len = 0;
    int rc = a == b ? 0 : route_path(rt, a, b, &path, &len);
    if (rc == ROUTE_NOMEM) return nomem(err);
    if (rc)
      return sc_error_set(err, SC_EINPUT, "no route from %s to %s", t->nodes[a].name,
                          t->nodes[b].name);
    assert(pos + len <= r->max_entries);
    r->fl[f].poff = (int)pos, r->fl[f].len = len;
    double lat = 0;
    for (int j = 0; j < len; j++) r->pent[pos + j] = path[j], lat += t->links[path[j]].lat;
    pos += len;
    r->fl[f].w = 1;
    r->total[f] = r->left[f] = x->bytes;
    r->start[f] = lat;
    r->fl[f].state = F_PENDING;
    r->fl[f].rate = 0;
    r->fl[f].frozen = 0;
  }
  return SC_OK;
}

/* Tell the progress callback how many transfers are done: those of the
 * steps before, and the finished flows of this one (by weight). */
static void report(run *r) {
  long done = r->xfers_done + r->step_done;
  r->progress(r->progress_ud, r->xfers > 0 ? (double)done / r->xfers : 1.0);
}

/* Start the pending flows due by `now`; empty ones finish at once. */
static void start_due(run *r, double now, flow_stats *st) {
  while (r->ipend < r->npend && r->start[r->pend[r->ipend]] <= now * (1 + 1e-12) + 1e-18) {
    int f = r->pend[r->ipend++];
    st->events++;
    if (r->left[f] <= 0 || r->fl[f].len == 0) {
      r->fl[f].state = F_DONE, r->step_done += r->fl[f].w;
    } else {
      r->fl[f].state = F_ACTIVE;
      CLR(r->idle, f);
      r->act[r->nact++] = f;
      r->act_entries += r->fl[f].len;
    }
  }
}

/* Advance the active flows by dt to `next`; the one due at next (who)
 * and those due within the precision of it finish. The active list
 * keeps its order. */
static void advance(run *r, double now, double next, int who, flow_stats *st) {
  double dt = next - now;
  double horizon = next + (r->n > FLOW_MANY ? FLOW_PRECISION_MANY : FLOW_PRECISION) * next;
  int k = 0;
  for (int i = 0; i < r->nact; i++) {
    int f = r->act[i];
    if (r->lb) { /* what the flow moved over each of its links */
      const flow *q = &r->fl[f];
      double moved = (r->left[f] < q->rate * dt ? r->left[f] : q->rate * dt) * q->w;
      for (int j = 0; j < q->len; j++) r->lb[r->pent[q->poff + j]] += moved;
    }
    double due = now + r->left[f] / r->fl[f].rate;
    r->left[f] -= r->fl[f].rate * dt;
    if (f == who || due <= horizon || r->left[f] <= r->total[f] * 1e-12) {
      r->left[f] = 0, r->fl[f].state = F_DONE, st->events++;
      SET(r->idle, f);
      r->step_done += r->fl[f].w;
      r->act_entries -= r->fl[f].len;
    } else {
      r->act[k++] = f;
    }
  }
  r->nact = k;
}

/* Event loop of one loaded step; returns its duration (s). */
static double run_step(run *r, flow_stats *st) {
  double now = 0;
  r->step_done = 0;
  r->nact = 0, r->act_entries = 0;
  memset(r->idle, 0xff, sizeof *r->idle * (size_t)((r->n + 63) / 64));
  order_pending(r);
  index_links(r, r->pend, r->npend);
  for (;;) {
    start_due(r, now, st);
    if (!r->nact && r->ipend == r->npend) break;
    if (r->nact) solve(r), st->solves++;
    double next = INFINITY;
    int who = -1;
    if (r->ipend < r->npend) next = r->start[r->pend[r->ipend]];
    for (int i = 0; i < r->nact; i++) {
      int f = r->act[i];
      double due = now + r->left[f] / r->fl[f].rate;
      if (due < next) next = due, who = f;
    }
    assert(isfinite(next) && next >= now && "time went back");
    advance(r, now, next, who, st);
    now = next;
    if (r->progress) report(r);
  }
#ifdef SC_DEBUG_CHECKS
  for (int f = 0; f < r->n; f++) assert(r->fl[f].state == F_DONE && r->left[f] == 0 && "bytes lost");
#endif
  return now;
}

/* Pre-pass: size the run (its largest step, in flows and in path
 * entries, from the routes' lengths) and count the transfers progress is
 * measured in. The route table computes each source's hop counts once
 * (net/route.h). SC_OK or SC_ENOMEM. */
static int size_run(run *r, route_table *rt, const sched *s, const int *rank_node,
                    sc_error *err) {
  const topo *t = r->t;
  r->max_entries = 0;
  for (int i = 0; i < s->ns; i++) {
    r->xfers += s->s[i].count;
    if (s->s[i].count > r->max_flows) r->max_flows = s->s[i].count;
    if (s->s[i].repeat == 0) continue; /* never loaded (run_all) */
    long e = 0;
    for (int k = 0; k < s->s[i].count; k++) {
      const sched_xfer *x = &s->x[s->s[i].first + k];
      int a = endpoint(t, rank_node, x->src, x->via), b = endpoint(t, rank_node, x->dst, x->via);
      if (a < 0 || b < 0 || a == b) continue; /* load_step reports a missing switch */
      int n = route_len(rt, a, b);
      if (n == ROUTE_NOMEM) return nomem(err);
      if (n > 0) e += n; /* load_step reports a missing route */
    }
    if (e > r->max_entries) r->max_entries = e;
  }
  return SC_OK;
}

/* A run's arrays and their element counts (nf flows, nl links, ne path
 * entries), each given to X(pointer, count). */
#define RUN_ARRAYS(X)                                                                        \
  X(r->fl, nf) X(r->left, nf) X(r->start, nf) X(r->total, nf) X(r->src, nf) X(r->dst, nf)   \
  X(r->keys, nf) X(r->ktmp, nf) X(r->act, nf) X(r->pend, nf) X(r->idle, (nf + 63) / 64)     \
  X(r->fz, (nf + 63) / 64) X(r->rem, nl) X(r->cnt, nl) X(r->touched, nl) X(r->off, nl)       \
  X(r->end, nl) X(r->pent, ne) X(r->lflows, ne) X(r->lpoff, ne) X(r->stamp, nl)

/* Bytes of an array of n elements of p's type (at least one), rounded up
 * to 16 within a scratch block. */
#define RUN_BYTES(p, n) (sizeof *(p) * (size_t)((n) > 0 ? (n) : 1))
#define RUN_ROUND(b) (((b) + 15) & ~(size_t)15)

#define ALLOC(p, n)                                                     \
  do {                                                                  \
    (p) = mem_alloc(RUN_BYTES(p, n));                                   \
    r->bytes += RUN_BYTES(p, n);                                        \
    if (!(p)) ok = 0;                                                   \
  } while (0);
#define SUM(p, n) need += RUN_ROUND(RUN_BYTES(p, n));
#define CARVE(p, n)                                                     \
  (p) = (void *)at;                                                     \
  at += RUN_ROUND(RUN_BYTES(p, n));                                     \
  r->bytes += RUN_BYTES(p, n);

/* The arrays of a run in r->scr's block, grown when too small (its old
 * contents are not kept). 0, or -1 when out of memory. */
static int run_carve(run *r, int nf, int nl, long ne) {
  flow_scratch *s = r->scr;
  size_t need = 0;
  RUN_ARRAYS(SUM)
  if (need > s->cap) {
    mem_free(s->block);
    s->cap = 0;
    if (!(s->block = mem_alloc(need))) return -1;
    s->cap = need;
  }
  char *at = s->block;
  RUN_ARRAYS(CARVE)
  return 0;
}

/* The working memory of a run, allocated once before its first step (in
 * r->scr's block when it has one) and counted in r->bytes. SC_OK or
 * SC_ENOMEM; run_free releases whatever was allocated either way. */
static int run_alloc(run *r, sc_error *err) {
  int ok = 1;
  int nf = r->max_flows, nl = r->t->n_links;
  long ne = r->max_entries;
  if (ne > 0x7fffffffL) return nomem(err); /* path offsets are int */
  if (r->scr) ok = run_carve(r, nf, nl, ne) == 0;
  else {
    RUN_ARRAYS(ALLOC)
  }
  if (r->stamp) memset(r->stamp, 0, RUN_BYTES(r->stamp, nl));
  if (heap_init(&r->heap, nl)) ok = 0; /* one entry per link at any time */
  r->bytes += sizeof(heap_ent) * (size_t)(nl > 0 ? nl : 1);
  return ok ? SC_OK : nomem(err);
}

void flow_scratch_init(flow_scratch *s) { memset(s, 0, sizeof *s); }

void flow_scratch_free(flow_scratch *s) {
  mem_free(s->block);
  flow_scratch_init(s);
}

static void run_free(run *r) {
  heap_free(&r->heap);
  if (r->scr) return; /* its arrays are the scratch's */
  mem_free(r->fl), mem_free(r->left), mem_free(r->start);
  mem_free(r->total), mem_free(r->src), mem_free(r->dst), mem_free(r->keys);
  mem_free(r->ktmp);
  mem_free(r->act), mem_free(r->pend), mem_free(r->idle), mem_free(r->fz);
  mem_free(r->rem), mem_free(r->cnt), mem_free(r->touched), mem_free(r->off);
  mem_free(r->end), mem_free(r->pent), mem_free(r->lflows), mem_free(r->stamp);
  mem_free(r->lpoff);
}

int flow_run(const topo *t, route_table *rt, const sched *s, const int *rank_node,
             flow_stats *out, sc_error *err) {
  return flow_run_ex(t, rt, s, rank_node, out, NULL, NULL, err);
}

/* The run behind flow_run_ex, flow_run_links and flow_run_in
 * (link_bytes and scr may be NULL). */
static int run_all(flow_scratch *scr, const topo *t, route_table *rt, const sched *s,
                   const int *rank_node, flow_stats *out, flow_progress_fn fn, void *ud,
                   double *link_bytes, sc_error *err) {
  memset(out, 0, sizeof *out);
  run r;
  memset(&r, 0, sizeof r);
  r.scr = scr;
  r.t = t;
  r.progress = fn;
  r.progress_ud = ud;
  int rc = size_run(&r, rt, s, rank_node, err);
  if (rc == SC_OK) rc = run_alloc(&r, err);
  if (rc == SC_OK && link_bytes) {
    r.lb = mem_calloc((size_t)(t->n_links > 0 ? t->n_links : 1), sizeof *r.lb);
    if (!r.lb) rc = nomem(err);
  }
  for (int i = 0; i < s->ns && rc == SC_OK; i++) {
    if (s->s[i].repeat == 0) continue; /* a step that does not run */
    rc = load_step(&r, rt, s, i, rank_node, err);
    if (rc) break;
    double dt = run_step(&r, out);
    r.xfers_done += s->s[i].count;
    out->time += dt * s->s[i].repeat;
    if (r.lb)
      for (int l = 0; l < t->n_links; l++) link_bytes[l] += r.lb[l] * s->s[i].repeat, r.lb[l] = 0;
    for (int f = 0; f < r.n; f++) out->bytes += r.total[f] * r.fl[f].w * s->s[i].repeat;
  }
  out->max_flows = r.max_flows;
  out->mem_bytes = r.bytes;
  mem_free(r.lb);
  run_free(&r);
  return rc;
}

int flow_run_ex(const topo *t, route_table *rt, const sched *s, const int *rank_node,
                flow_stats *out, flow_progress_fn fn, void *ud, sc_error *err) {
  return run_all(NULL, t, rt, s, rank_node, out, fn, ud, NULL, err);
}

int flow_run_in(flow_scratch *scr, const topo *t, route_table *rt, const sched *s,
                const int *rank_node, flow_stats *out, sc_error *err) {
  return run_all(scr, t, rt, s, rank_node, out, NULL, NULL, NULL, err);
}

int flow_run_links(const topo *t, route_table *rt, const sched *s, const int *rank_node,
                   flow_stats *out, double *link_bytes, sc_error *err) {
  return run_all(NULL, t, rt, s, rank_node, out, NULL, NULL, link_bytes, err);
}
