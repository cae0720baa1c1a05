/*
 * replay.c -- see replay.h.
 */
#include "trace/replay.h"

#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/heap.h"
#include "core/mem.h"
#include "core/vec.h"
#include "trace/whatif.h"

/* A GPU operation that starts this much (us) after it could have (launch
 * plus latency, stream free) waited for something else: an event on
 * another stream, when one ended then. */
#define RP_DELAY_US 5.0
/* Launch latency (us) when a rank shows none unqueued. */
#define RP_LAT_DEFAULT_US 5.0

/* Per-rank facts about GPU operations, derived from the trace once per
 * replay. */
typedef struct rp_pre {
  int *prev;   /* the op before on its stream (all streams: overlap off); -1 */
  int *dep;    /* op on another stream it waited for; -1 */
  double *lat; /* launch latency, us */
  double *dur; /* duration under the what-if, us */
  int *coll;   /* index among the rank's collectives; -1 */
  int n_coll;
  double shift; /* us added to this rank's clock to align it with rank 0's */
  wi_ctx wi;
} rp_pre;

static void pre_free(rp_pre *p) {
  mem_free(p->prev), mem_free(p->dep), mem_free(p->lat), mem_free(p->dur), mem_free(p->coll);
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* Last stream op before each op (prev); returns the launch latency: the
 * low decile of launch-to-start times of ops whose stream was free. */
static double stream_prev(const tg_rank *r, rp_pre *p, int overlap, double *scratch) {
  int streams[64], last[64], ns = 0, nl = 0;
  for (int i = 0; i < r->gpu.n; i++) {
    const tg_gpu *g = &r->gpu.v[i];
    int s = 0;
    while (s < ns && streams[s] != g->stream) s++;
    if (s == ns && ns < 64) streams[ns] = g->stream, last[ns++] = -1;
    if (s == 64) s = 63; /* more streams than that: the last ones share */
    p->prev[i] = overlap ? last[s] : i - 1;
    last[s] = i;
    double free_at =
        p->prev[i] >= 0 ? r->gpu.v[p->prev[i]].ts + r->gpu.v[p->prev[i]].dur : -INFINITY;
    if (g->launch >= 0 && g->ts > free_at + 1.0 && g->ts >= r->host.v[g->launch].ts)
      scratch[nl++] = g->ts - r->host.v[g->launch].ts;
  }
  if (!nl) return RP_LAT_DEFAULT_US;
  qsort(scratch, (size_t)nl, sizeof *scratch, cmp_double);
  return scratch[nl / 10]; /* low decile: the ones nothing else held back */
}

/* The op on another stream that ended last in [ready, ts + 0.5]; -1. */
static int find_dep(const tg_rank *r, const tg_kv *by_end, int i, double ready) {
  const tg_gpu *g = &r->gpu.v[i];
  int k = tg_kv_last_le(by_end, r->gpu.n, g->ts + 0.5);
  for (int seen = 0; k >= 0 && seen < 512 && by_end[k].key >= ready; k--, seen++)
    if (r->gpu.v[by_end[k].idx].stream != g->stream && by_end[k].idx != i) return by_end[k].idx;
  return -1;
}

/* Fill p for rank r: stream order, waits, latencies, durations
 * (joined: the job's collectives are joined over every rank of its
 * world, job_joined). */
static int pre_build(rp_pre *p, const tg_rank *r, const sc_trace_whatif *w, int joined,
                     int *retimed, int *unsized, int *scaled, sc_error *err) {
  int n = r->gpu.n ? r->gpu.n : 1, rc = wi_prepare(&p->wi, r, w, err);
  if (rc) return rc;
  p->prev = mem_alloc((size_t)n * sizeof *p->prev);
  p->dep = mem_alloc((size_t)n * sizeof *p->dep);
  p->coll = mem_alloc((size_t)n * sizeof *p->coll);
  p->lat = mem_alloc((size_t)n * sizeof *p->lat);
  p->dur = mem_alloc((size_t)n * sizeof *p->dur);
  tg_kv *by_end = mem_alloc((size_t)n * sizeof *by_end);
  if (!p->prev || !p->dep || !p->coll || !p->lat || !p->dur || !by_end) {
    mem_free(by_end);
    return sc_error_set(err, SC_ENOMEM, "trace replay: out of memory");
  }
  double lat0 = stream_prev(r, p, p->wi.w.overlap, p->lat);
  for (int i = 0; i < r->gpu.n; i++) by_end[i] = (tg_kv){r->gpu.v[i].ts + r->gpu.v[i].dur, i};
  qsort(by_end, (size_t)r->gpu.n, sizeof *by_end, tg_kv_cmp);
  p->n_coll = 0;
  for (int i = 0; i < r->gpu.n; i++) {
    const tg_gpu *g = &r->gpu.v[i];
    double launched = g->launch >= 0 ? r->host.v[g->launch].ts : -INFINITY;
    double free_at =
        p->prev[i] >= 0 ? r->gpu.v[p->prev[i]].ts + r->gpu.v[p->prev[i]].dur : -INFINITY;
    double ready = fmax(launched + lat0, free_at);
    p->dep[i] = g->ts > ready + RP_DELAY_US ? find_dep(r, by_end, i, ready) : -1;
    int queued = g->ts <= free_at + 1.0;
    p->lat[i] = queued || p->dep[i] >= 0 || g->launch < 0 ? lat0 : fmax(0, g->ts - launched);
    int rt;
    p->dur[i] = wi_duration(&p->wi, g, joined, &rt);
    *retimed += rt;
    *unsized += g->kind == TG_COMM && !(g->bytes > 0);
    *scaled += g->kind == TG_KERNEL && p->wi.to != NULL;
    p->coll[i] = g->kind == TG_COMM ? p->n_coll++ : -1;
  }
  mem_free(by_end);
  return SC_OK;
}

/* ----------------------------------------------------------- nodes */

static int node_new(rp_run *run, int rank, int ref, int cat, int is_gpu, double dur, double key) {
  if (vec_grow((void **)&run->nodes, &run->cap, (long)run->n + 1, sizeof *run->nodes)) return -1;
  run->nodes[run->n] = (rp_node){0, 0, dur, -INFINITY, key, 0, 0, -1, rank, ref, cat, is_gpu};
  return run->n++;
}

static int edge_add(rp_run *run, int from, int use_start, double w, int is_gap) {
  if (vec_grow((void **)&run->edges, &run->cap_edges, (long)run->n_edges + 1, sizeof *run->edges))
    return -1;
  run->edges[run->n_edges++] = (rp_edge){from, use_start, w, is_gap};
  return 0;
}

static int gpu_cat(const tg_gpu *g) {
  return g->kind == TG_COMM ? RP_COMM : g->kind == TG_KERNEL ? RP_KERNEL : RP_COPY;
}

static int rank_nodes(rp_run *run, const tg_rank *r, int ri, const rp_pre *p) {
  rp_map *m = &run->map[ri];
  int nh = r->host.n ? r->host.n : 1, ng = r->gpu.n ? r->gpu.n : 1;
  m->hf = mem_alloc((size_t)nh * sizeof *m->hf);
  m->hl = mem_alloc((size_t)nh * sizeof *m->hl);
  m->gn = mem_alloc((size_t)ng * sizeof *m->gn);
  if (!m->hf || !m->hl || !m->gn) return -1;
  for (int i = 0; i < r->host.n; i++) {
    const tg_host *h = &r->host.v[i];
    int cat = h->kind != TG_CALL ? RP_MARK : h->sync ? RP_SYNC : RP_HOST;
    /* a sync: the call (no length), then its own time after the wait */
    m->hf[i] = m->hl[i] = node_new(run, ri, i, cat, 0, h->sync ? 0 : h->dur, h->ts + p->shift);
    if (m->hf[i] < 0) return -1;
    if (h->sync && (m->hl[i] = node_new(run, ri, i, RP_SYNC, 0, tg_sync_own(r, h),
                                        h->ts + h->dur + p->shift)) < 0)
      return -1;
  }
  for (int i = 0; i < r->gpu.n; i++)
    if ((m->gn[i] = node_new(run, ri, i, gpu_cat(&r->gpu.v[i]), 1, p->dur[i],
                             r->gpu.v[i].ts + p->shift)) < 0)
      return -1;
  return 0;
}

/* ----------------------------------------------------------- edges */

/* A host item that follows a gap this long (us) on its thread waited
 * for another thread when one of its items ended in the gap. */
#define RP_THREAD_GAP_US 100.0

/* The item of another thread of r that ended last in (lo, hi]; -1. by_end
 * holds every host item by end time. */
static int other_thread(const tg_rank *r, const tg_kv *by_end, int thread, double lo, double hi) {
  for (int k = tg_kv_last_le(by_end, r->host.n, hi), seen = 0;
       k >= 0 && by_end[k].key > lo && seen < 64; k--, seen++)
    if (r->host.v[by_end[k].idx].thread != thread) return by_end[k].idx;
  return -1;
}

/* The edges of host item i that follows item enc (-1: first of its
 * thread): the traced gap after enc, and after a long gap the other
 * thread it waited for (the autograd thread, the main thread). */
static int chain_edges(rp_run *run, const tg_rank *r, const rp_map *m, const tg_kv *by_end, int i,
                       int enc, double shift) {
  const tg_host *h = &r->host.v[i];
  if (enc < 0) return run->nodes[m->hf[i]].release = h->ts + shift, 0;
  const tg_host *e = &r->host.v[enc];
  double e_end = e->ts + e->dur;
  int after = h->ts >= e_end;
  if (edge_add(run, after ? m->hl[enc] : m->hf[enc], !after, after ? h->ts - e_end : h->ts - e->ts,
               1))
    return -1;
  if (!after || h->ts - e_end < RP_THREAD_GAP_US) return 0;
  int o = other_thread(r, by_end, h->thread, e_end, h->ts);
  const tg_host *oh = o >= 0 ? &r->host.v[o] : NULL;
  return oh ? edge_add(run, m->hl[o], 0, h->ts - (oh->ts + oh->dur), 1) : 0;
}

/* Host chains of rank ri: each item after the one that encloses or
 * precedes it, keeping the traced gap; syncs wait for their op. */
static int host_edges(rp_run *run, const tg_rank *r, int ri, double shift) {
  const rp_map *m = &run->map[ri];
  tg_kv *by_end = mem_alloc((size_t)(r->host.n ? r->host.n : 1) * sizeof *by_end);
  if (!by_end) return -1;
  for (int i = 0; i < r->host.n; i++) by_end[i] = (tg_kv){r->host.v[i].ts + r->host.v[i].dur, i};
  qsort(by_end, (size_t)r->host.n, sizeof *by_end, tg_kv_cmp);
  int enc = -1, rc = 0;
  for (int i = 0; i < r->host.n && !rc; i++) {
    const tg_host *h = &r->host.v[i];
    if (enc >= 0 && r->host.v[enc].thread != h->thread) enc = -1;
    run->nodes[m->hf[i]].e0 = run->n_edges;
    rc = chain_edges(run, r, m, by_end, i, enc, shift);
    run->nodes[m->hf[i]].ne = run->n_edges - run->nodes[m->hf[i]].e0;
    if (!rc && h->sync) {
      rp_node *b = &run->nodes[m->hl[i]];
      b->e0 = run->n_edges;
      rc = edge_add(run, m->hf[i], 0, 0, 0) || edge_add(run, m->gn[h->wait_op], 0, 0, 0);
      b->ne = 2;
    }
    if (enc < 0 || h->ts + h->dur >= r->host.v[enc].ts + r->host.v[enc].dur) enc = i;
  }
  mem_free(by_end);
  return rc;
}

/* Constraints of op i of rank ri on the node being built. */
static int op_edges(rp_run *run, const tg_job *j, const rp_pre *pre, int ri, int i,
                    double *release) {
  const tg_rank *r = &j->r[ri];
  const rp_map *m = &run->map[ri];
  const tg_gpu *g = &r->gpu.v[i];
  const rp_pre *p = &pre[ri];
  if (g->launch >= 0 && edge_add(run, m->hf[g->launch], 1, p->lat[i], 1)) return -1;
  if (g->launch < 0) *release = fmax(*release, g->ts + p->shift);
  if (p->prev[i] >= 0 && edge_add(run, m->gn[p->prev[i]], 0, 0, 0)) return -1;
  if (p->dep[i] >= 0 && edge_add(run, m->gn[p->dep[i]], 0, 0, 0)) return -1;
  return 0;
}

/* ops[k][rank]: the k-th collective of each rank, when every rank has
 * the same number (then they are joined); NULL otherwise, and *oom set
 * when that was for lack of memory. */
static int *coll_table(const tg_job *j, const rp_pre *pre, int *n_coll, int *oom) {
  *n_coll = 0, *oom = 0;
  if (j->n < 2) return NULL;
  for (int ri = 1; ri < j->n; ri++)
    if (pre[ri].n_coll != pre[0].n_coll) return NULL;
  int nc = pre[0].n_coll;
  int *t = mem_alloc((size_t)(nc ? nc : 1) * (size_t)j->n * sizeof *t);
  if (!t) return *oom = 1, NULL;
  for (int ri = 0; ri < j->n; ri++)
    for (int i = 0; i < j->r[ri].gpu.n; i++)
      if (pre[ri].coll[i] >= 0) t[pre[ri].coll[i] * j->n + ri] = i;
  *n_coll = nc;
  return t;
}

static int gpu_edges(rp_run *run, const tg_job *j, const rp_pre *pre, const int *ct, int ri) {
  const tg_rank *r = &j->r[ri];
  for (int i = 0; i < r->gpu.n; i++) {
    rp_node *nd = &run->nodes[run->map[ri].gn[i]];
    double release = -INFINITY;
    int e0 = run->n_edges, k = pre[ri].coll[i];
    if (ct && k >= 0) { /* joined: every rank's constraints, the fastest kernel */
      double dur = INFINITY;
      for (int rj = 0; rj < j->n; rj++) {
        int op = ct[k * j->n + rj];
        if (op_edges(run, j, pre, rj, op, &release)) return -1;
        dur = fmin(dur, pre[rj].dur[op]);
      }
      run->nodes[run->map[ri].gn[i]].dur = dur;
    } else if (op_edges(run, j, pre, ri, i, &release))
      return -1;
    nd = &run->nodes[run->map[ri].gn[i]];
    nd->e0 = e0, nd->ne = run->n_edges - e0, nd->release = release;
  }
  return 0;
}

/* ------------------------------------------------------------ solve */

/* Start of node v from its edges and release; sets bound. */
static void node_eval(rp_run *run, int v) {
  rp_node *nd = &run->nodes[v];
  double s = nd->release;
  nd->bound = -1;
  for (int e = nd->e0; e < nd->e0 + nd->ne; e++) {
    const rp_edge *ed = &run->edges[e];
    const rp_node *f = &run->nodes[ed->from];
    double t = (ed->use_start ? f->start : f->end) + ed->w;
    if (t > s) s = t, nd->bound = e;
  }
  if (!isfinite(s)) s = nd->key; /* no constraint at all: as traced */
  nd->start = s, nd->end = s + nd->dur;
}

/* Evaluate every node in a topological order (Kahn). SC_OK or
 * SC_EMODEL when the dependencies form a cycle, SC_ENOMEM. */
static int solve(rp_run *run, sc_error *err) {
  int n = run->n, rc = SC_OK;
  int *indeg = mem_calloc((size_t)n + 1, sizeof *indeg);
  int *off = mem_calloc((size_t)n + 2, sizeof *off),
      *cur = mem_alloc(((size_t)n + 1) * sizeof *cur);
  int *succ = mem_alloc(((size_t)run->n_edges + 1) * sizeof *succ);
  heap h = {0};
  if (!indeg || !off || !cur || !succ || heap_init(&h, n + 1)) {
    rc = sc_error_set(err, SC_ENOMEM, "trace replay: out of memory");
    goto out;
  }
  for (int e = 0; e < run->n_edges; e++) off[run->edges[e].from + 1]++;
  for (int v = 0; v < n; v++) off[v + 1] += off[v];
  memcpy(cur, off, (size_t)n * sizeof *cur);
  for (int v = 0; v < n; v++) {
    const rp_node *nd = &run->nodes[v];
    for (int e = nd->e0; e < nd->e0 + nd->ne; e++) succ[cur[run->edges[e].from]++] = v;
    indeg[v] = nd->ne;
    if (!indeg[v]) heap_push(&h, nd->key, v);
  }
  int done = 0;
  while (!heap_empty(&h)) {
    int v = heap_pop(&h).id;
    node_eval(run, v);
    done++;
    for (int k = off[v]; k < off[v + 1]; k++)
      if (!--indeg[succ[k]]) heap_push(&h, run->nodes[succ[k]].key, succ[k]);
  }
  if (done < n)
    rc = sc_error_set(err, SC_EMODEL,
                      "trace replay: the dependencies of %d operations form a cycle (collectives "
                      "issued in a different order on different ranks?)",
                      n - done);
out:
  mem_free(indeg), mem_free(off), mem_free(cur), mem_free(succ), heap_free(&h);
  return rc;
}

/* ---------------------------------------------------------- results */

/* Add [lo, hi] clipped to >= floor to part cat of the path. */
static void path_add(double *part, int cat, double lo, double hi, double floor) {
  lo = fmax(lo, floor);
  if (hi > lo) part[cat] += hi - lo;
}

/* Walk back from node v (a step's end) to time t0 (its begin) along the
 * edges that bound each start, adding each stretch to its part (us). */
static void critical_path(const rp_run *run, int v, double t0, double *part) {
  double at = run->nodes[v].end;
  for (int guard = 0; guard <= run->n; guard++) {
    const rp_node *nd = &run->nodes[v];
    path_add(part, nd->cat == RP_MARK ? RP_HOST : nd->cat, nd->start, fmin(at, nd->end), t0);
    if (nd->start <= t0) return;
    if (nd->bound < 0) {
      path_add(part, RP_HOST, t0, nd->start, t0);
      return;
    }
    const rp_edge *e = &run->edges[nd->bound];
    const rp_node *f = &run->nodes[e->from];
    at = e->use_start ? f->start : f->end;
    path_add(part, e->is_gap ? RP_HOST : RP_SYNC, at, nd->start, t0);
    v = e->from;
  }
}

static const char *bound_name(const sc_trace_path *p) {
  const double v[] = {p->kernels, p->copies, p->comm, p->host, p->sync};
  static const char *const names[] = {"kernels", "copies", "communication", "host",
                                      "synchronisation"};
  int best = 0;
  for (int i = 1; i < 5; i++)
    if (v[i] > v[best]) best = i;
  return names[best];
}

/* Time (us) in [lo, hi] when at least one of the n GPU operations by_start
 * (replayed start, node index; sorted) runs. */
static double gpu_busy(const rp_run *run, const tg_kv *by_start, int n, double lo, double hi) {
  double busy = 0, a = lo, b = lo; /* the current union interval [a, b] */
  for (int k = 0; k < n && by_start[k].key < hi; k++) {
    const rp_node *nd = &run->nodes[by_start[k].idx];
    if (nd->end <= lo) continue;
    double s = fmax(nd->start, lo), e = fmin(nd->end, hi);
    if (s > b)
      busy += b - a, a = s, b = e;
    else if (e > b)
      b = e;
  }
  return busy + (b - a);
}

/* rank ri's GPU operations by replayed start into by_start; their count. */
static int gpu_by_start(const rp_run *run, const tg_job *j, int ri, tg_kv *by_start) {
  int n = j->r[ri].gpu.n;
  for (int i = 0; i < n; i++) {
    int v = run->map[ri].gn[i];
    by_start[i] = (tg_kv){run->nodes[v].start, v};
  }
  if (n) qsort(by_start, (size_t)n, sizeof *by_start, tg_kv_cmp);
  return n;
}

/* Traced window (us) from the first ProfilerStep's begin to the last
 * one's end; the whole line when the rank has no step, so that
 * "collectives per step" leaves out those issued after the last step. */
static void steps_window(const tg_rank *rk, double *lo, double *hi) {
  *lo = rk->steps.n ? INFINITY : -INFINITY, *hi = rk->steps.n ? -INFINITY : INFINITY;
  for (int i = 0; i < rk->steps.n; i++)
    *lo = fmin(*lo, rk->steps.v[i].ts), *hi = fmax(*hi, rk->steps.v[i].ts + rk->steps.v[i].dur);
}

/* Steps of every rank: measured and replayed length, critical path, GPU
 * busy time. scratch holds the largest rank's GPU operations. */
static void results(const rp_run *run, const tg_job *j, sc_trace_result *r, tg_kv *scratch) {
  double part[RP_MARK + 1] = {0}, meas = 0, pred = 0, busy = 0;
  int steps = 0;
  for (int ri = 0; ri < j->n; ri++) {
    const tg_rank *rk = &j->r[ri];
    int ng = gpu_by_start(run, j, ri, scratch);
    for (int i = 0; i < rk->host.n; i++) {
      const tg_host *h = &rk->host.v[i];
      if (h->kind != TG_STEP_END) continue;
      int b = -1; /* its begin marker: same thread, same step, earlier */
      for (int k = i - 1; k >= 0 && rk->host.v[k].thread == h->thread; k--)
        if (rk->host.v[k].kind == TG_STEP_BEGIN && rk->host.v[k].step == h->step) {
          b = k;
          break;
        }
      if (b < 0) continue;
      const rp_node *nb = &run->nodes[run->map[ri].hf[b]], *ne = &run->nodes[run->map[ri].hf[i]];
      meas += rk->steps.v[h->step].dur;
      pred += ne->start - nb->start;
      critical_path(run, run->map[ri].hf[i], nb->start, part);
      busy += gpu_busy(run, scratch, ng, nb->start, ne->start);
      steps++;
    }
  }
  r->steps = steps;
  double k = steps ? 1e-6 / steps : 0;
  r->measured_step_s = meas * k, r->predicted_step_s = pred * k, r->gpu_busy_s = busy * k;
  r->path = (sc_trace_path){part[RP_KERNEL] * k, part[RP_COPY] * k, part[RP_COMM] * k,
                            part[RP_HOST] * k,   part[RP_SYNC] * k, NULL};
  r->path.bound = bound_name(&r->path);
  double lo = INFINITY, hi = -INFINITY, cm = 0, cp = 0, s0, s1;
  steps_window(&j->r[0], &s0, &s1);
  for (int v = 0; v < run->n; v++) {
    const rp_node *nd = &run->nodes[v];
    if (nd->rank) continue;
    lo = fmin(lo, nd->start), hi = fmax(hi, nd->end);
    const tg_gpu *g = nd->cat == RP_COMM ? &j->r[0].gpu.v[nd->ref] : NULL;
    if (g && g->ts >= s0 && g->ts < s1) cm += g->dur, cp += nd->dur;
  }
  int per = j->r[0].steps.n ? j->r[0].steps.n : 1;
  r->span_s = hi > lo ? (hi - lo) * 1e-6 : 0;
  r->comm_measured_s = cm * 1e-6 / per, r->comm_predicted_s = cp * 1e-6 / per;
}

/* ----------------------------------------------------------- replay */

static void run_reset(rp_run *run) {
  for (int i = 0; i < run->n_map; i++)
    mem_free(run->map[i].hf), mem_free(run->map[i].hl), mem_free(run->map[i].gn);
  mem_free(run->map);
  run->map = NULL, run->n_map = 0, run->n = 0, run->n_edges = 0, run->warn[0] = '\0';
}

/* Hosts of different nodes keep different clocks, and a collective
 * ends at about the same time on every rank: each rank's shift is the
 * median over joined collectives of rank 0's end minus its own. */
static int align_clocks(const tg_job *j, rp_pre *pre, const int *ct, int n_coll) {
  double *d = mem_alloc((size_t)(n_coll ? n_coll : 1) * sizeof *d);
  if (!d) return -1;
  for (int ri = 1; ri < j->n && n_coll; ri++) {
    for (int k = 0; k < n_coll; k++) {
      const tg_gpu *a = &j->r[0].gpu.v[ct[k * j->n]], *b = &j->r[ri].gpu.v[ct[k * j->n + ri]];
      d[k] = (a->ts + a->dur) - (b->ts + b->dur);
    }
    qsort(d, (size_t)n_coll, sizeof *d, cmp_double);
    pre[ri].shift = d[n_coll / 2];
  }
  mem_free(d);
  return 0;
}

static int build(rp_run *run, const tg_job *j, rp_pre *pre, sc_trace_result *r, sc_error *err) {
  run->map = mem_calloc((size_t)j->n, sizeof *run->map);
  if (!run->map) return sc_error_set(err, SC_ENOMEM, "trace replay: out of memory");
  run->n_map = j->n;
  int n_coll, oom, *ct = coll_table(j, pre, &n_coll, &oom);
  if (oom) return sc_error_set(err, SC_ENOMEM, "trace replay: out of memory");
  if (j->n > 1 && !ct)
    snprintf(
        run->warn, sizeof run->warn,
        "the ranks issue different numbers of collectives (rank 0: %d): collectives not joined",
        pre[0].n_coll);
  int rc = ct && align_clocks(j, pre, ct, n_coll) ? SC_ENOMEM : SC_OK;
  for (int ri = 0; ri < j->n && !rc; ri++)
    if (rank_nodes(run, &j->r[ri], ri, &pre[ri])) rc = SC_ENOMEM;
  if (rc) {
    mem_free(ct);
    return sc_error_set(err, SC_ENOMEM, "trace replay: out of memory");
  }
  r->coupled = ct ? n_coll : 0;
  for (int ri = 0; ri < j->n && !rc; ri++)
    if (host_edges(run, &j->r[ri], ri, pre[ri].shift) || gpu_edges(run, j, pre, ct, ri))
      rc = sc_error_set(err, SC_ENOMEM, "trace replay: out of memory");
  mem_free(ct);
  return rc;
}

/* 1 when the replay joins the job's collectives (coll_table: two ranks
 * or more, each with as many) over every rank of its world (as many
 * files as world_size, or the world unknown): then no collective's time
 * holds a wait for a rank the replay lacks. */
static int job_joined(const tg_job *j) {
  if (j->n < 2 || (j->r[0].world > 0 && j->n < j->r[0].world)) return 0;
  long first = -1;
  for (int ri = 0; ri < j->n; ri++) {
    long k = 0;
    for (int i = 0; i < j->r[ri].gpu.n; i++) k += j->r[ri].gpu.v[i].kind == TG_COMM;
    if (ri && k != first) return 0;
    first = k;
  }
  return 1;
}

int rp_replay(rp_run *run, const tg_job *j, const sc_trace_whatif *w, sc_trace_result *r,
              sc_error *err) {
  memset(r, 0, sizeof *r);
  run_reset(run);
  long ops = 0;
  for (int ri = 0; ri < j->n; ri++) ops += j->r[ri].gpu.n;
  if (!ops)
    return sc_error_set(err, SC_EMODEL, "%s: the trace has no GPU work (kernels, copies) to replay",
                        j->n ? j->r[0].path : "trace");
  rp_pre *pre = mem_calloc((size_t)j->n, sizeof *pre);
  if (!pre) return sc_error_set(err, SC_ENOMEM, "trace replay: out of memory");
  int rc = SC_OK, joined = job_joined(j);
  for (int ri = 0; ri < j->n && !rc; ri++)
    rc = pre_build(&pre[ri], &j->r[ri], w, joined, &r->comm_retimed, &r->comm_unsized,
                   &r->kernels_scaled, err);
  if (!rc) rc = build(run, j, pre, r, err);
  if (!rc) rc = solve(run, err);
  int most = 1;
  for (int ri = 0; ri < j->n; ri++) most = j->r[ri].gpu.n > most ? j->r[ri].gpu.n : most;
  tg_kv *scratch = rc ? NULL : mem_alloc((size_t)most * sizeof *scratch);
  if (!rc && !scratch) rc = sc_error_set(err, SC_ENOMEM, "trace replay: out of memory");
  if (!rc) results(run, j, r, scratch);
  mem_free(scratch);
  for (int ri = 0; ri < j->n; ri++) pre_free(&pre[ri]);
  mem_free(pre);
  return rc;
}

void rp_free(rp_run *run) {
  run_reset(run);
  mem_free(run->nodes), mem_free(run->edges);
  memset(run, 0, sizeof *run);
}

/* ----------------------------------------------------------- Chakra */

/* Duration (us) of Chakra node nd of a job of n ranks under wi. */
static double chakra_dur(const wi_ctx *wi, const ch_node *nd, int n, int *retimed) {
  *retimed = 0;
  if (nd->type != CH_COLL) return nd->dur; /* no kernel names: not scaled to another GPU */
  tg_gpu g = {.dur = nd->dur,
              .kind = TG_COMM,
              .cls = TG_CL_COMM,
              .coll_op = nd->coll_op,
              .bytes = nd->bytes,
              .group = n};
  /* not joined: each rank's ET replays with its own durations */
  if (nd->dur > 0) return wi_duration(wi, &g, 0, retimed);
  int ranks = (int)lround(n * wi->w.dp_scale);
  double s = wi_coll_model(wi, &g, wi->to ? wi->to : wi->from, ranks < 1 ? 1 : ranks);
  *retimed = s > 0;
  return s * 1e6;
}

static int chakra_cat(const ch_node *nd) {
  if (nd->type == CH_COLL || nd->type == CH_SEND || nd->type == CH_RECV) return RP_COMM;
  return nd->type == CH_COMP && nd->is_cpu ? RP_HOST : RP_KERNEL;
}

/* Nodes and edges of rank ri (its nodes start at index base). */
static int chakra_rank(rp_run *run, const ch_graph *g, int ri, int n, const wi_ctx *wi,
                       sc_trace_result *r) {
  int base = run->n;
  for (int k = 0; k < g->nodes.n; k++) {
    const ch_node *nd = &g->nodes.v[k];
    int rt, v = node_new(run, ri, k, chakra_cat(nd), !nd->is_cpu, chakra_dur(wi, nd, n, &rt), k);
    if (v < 0) return -1;
    r->comm_retimed += rt;
    r->comm_unsized += nd->type == CH_COLL && !(nd->bytes > 0);
  }
  for (int k = 0; k < g->nodes.n; k++) {
    const ch_node *nd = &g->nodes.v[k];
    rp_node *v = &run->nodes[base + k];
    v->e0 = run->n_edges, v->release = 0;
    for (int d = nd->dep0; d < nd->dep0 + nd->ndep; d++)
      if (g->deps.v[d] != UINT64_MAX && edge_add(run, base + (int)g->deps.v[d], 0, 0, 0)) return -1;
    v = &run->nodes[base + k];
    v->ne = run->n_edges - v->e0;
  }
  return 0;
}

/* Time (us) when at least one GPU node (GPU compute, communication) of
 * rank 0 runs: the Chakra counterpart of gpu_busy over the one step;
 * -1 out of memory. */
static double chakra_busy(const rp_run *run) {
  tg_kv *by = mem_alloc((size_t)(run->n ? run->n : 1) * sizeof *by);
  if (!by) return -1;
  int n = 0;
  for (int v = 0; v < run->n; v++)
    if (run->nodes[v].rank == 0 && run->nodes[v].is_gpu) by[n++] = (tg_kv){run->nodes[v].start, v};
  if (n) qsort(by, (size_t)n, sizeof *by, tg_kv_cmp);
  double busy = gpu_busy(run, by, n, 0, INFINITY);
  mem_free(by);
  return busy;
}

int rp_replay_chakra(rp_run *run, const ch_graph *g, int n, const sc_trace_whatif *w,
                     sc_trace_result *r, sc_error *err) {
  memset(r, 0, sizeof *r);
  run_reset(run);
  tg_rank none = {.world = n}; /* a Chakra ET names no device */
  if (w && w->gpu)
    return sc_error_set(err, SC_EINPUT,
                        "%s: a Chakra ET names neither its device nor its kernels, so --gpu "
                        "cannot scale it (the network what-ifs apply)",
                        g[0].path);
  wi_ctx wi;
  int rc = wi_prepare(&wi, &none, w, err);
  for (int ri = 0; ri < n && !rc; ri++)
    if (chakra_rank(run, &g[ri], ri, n, &wi, r))
      rc = sc_error_set(err, SC_ENOMEM, "trace replay: out of memory");
  if (!rc && !run->n)
    rc = sc_error_set(err, SC_EMODEL, "%s: the Chakra ET has no nodes", g[0].path);
  if (!rc) rc = solve(run, err);
  if (rc) return rc;
  int last = 0;
  double part[RP_MARK + 1] = {0};
  for (int v = 0; v < run->n; v++) {
    const rp_node *nd = &run->nodes[v];
    if (nd->end > run->nodes[last].end) last = v;
    if (nd->rank == 0 && nd->cat == RP_COMM)
      r->comm_measured_s += g[0].nodes.v[nd->ref].dur * 1e-6, r->comm_predicted_s += nd->dur * 1e-6;
  }
  critical_path(run, last, 0, part);
  double busy = chakra_busy(run);
  if (busy < 0) return sc_error_set(err, SC_ENOMEM, "trace replay: out of memory");
  r->gpu_busy_s = busy * 1e-6;
  r->steps = 1;
  r->predicted_step_s = r->span_s = run->nodes[last].end * 1e-6;
  r->path = (sc_trace_path){part[RP_KERNEL] * 1e-6, part[RP_COPY] * 1e-6, part[RP_COMM] * 1e-6,
                            part[RP_HOST] * 1e-6,   part[RP_SYNC] * 1e-6, NULL};
  r->path.bound = bound_name(&r->path);
  return SC_OK;
}
