/*
 * tgraph.c -- see tgraph.h.
 */
#include "trace/tgraph.h"

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/mem.h"

/* A call this long (us) that returned within this long of a GPU
 * operation's end waited for it. */
#define TG_BLOCKED_US 20.0

/* ------------------------------------------------------------ name pool */

uint32_t tg_hash(const char *s, size_t len) {
  uint32_t h = 2166136261u; /* FNV-1a */
  for (size_t i = 0; i < len; i++) h = (h ^ (unsigned char)s[i]) * 16777619u;
  return h;
}

/* Double the hash table of r (rehashing every name); 0 or -1. */
static int names_rehash(tg_rank *r) {
  int cap = r->name_cap ? 2 * r->name_cap : 1024;
  int *t = mem_alloc((size_t)cap * sizeof *t);
  if (!t) return -1;
  for (int i = 0; i < cap; i++) t[i] = -1;
  for (int i = 0; i < r->name_cap; i++) {
    int off = r->name_hash[i];
    if (off < 0) continue;
    const char *s = r->names.v + off;
    uint32_t h = tg_hash(s, strlen(s)) & (uint32_t)(cap - 1);
    while (t[h] >= 0) h = (h + 1) & (uint32_t)(cap - 1);
    t[h] = off;
  }
  mem_free(r->name_hash);
  r->name_hash = t, r->name_cap = cap;
  return 0;
}

int tg_name(tg_rank *r, const char *s, size_t len) {
  if (2 * (r->n_names + 1) > r->name_cap && names_rehash(r)) return -1;
  uint32_t mask = (uint32_t)r->name_cap - 1, h = tg_hash(s, len) & mask;
  for (; r->name_hash[h] >= 0; h = (h + 1) & mask) {
    const char *o = r->names.v + r->name_hash[h];
    if (!strncmp(o, s, len) && o[len] == '\0') return r->name_hash[h];
  }
  int off = r->names.n;
  if (vec_grow((void **)&r->names.v, &r->names.cap, (long)off + (long)len + 1, 1)) return -1;
  memcpy(r->names.v + off, s, len);
  r->names.v[off + len] = '\0';
  r->names.n += (int)len + 1;
  r->name_hash[h] = off;
  r->n_names++;
  return off;
}

/* ------------------------------------------------------------- sorting */

static int host_cmp(const void *a, const void *b) {
  const tg_host *x = a, *y = b;
  if (x->thread != y->thread) return x->thread < y->thread ? -1 : 1;
  if (x->ts != y->ts) return x->ts < y->ts ? -1 : 1;
  /* at one instant: a step ends, the next begins, then calls */
  static const int order[] = {[TG_STEP_END] = 0, [TG_STEP_BEGIN] = 1, [TG_CALL] = 2};
  if (x->kind != y->kind) return order[x->kind] - order[y->kind];
  if (x->dur != y->dur) return x->dur > y->dur ? -1 : 1; /* enclosing first */
  return (x->corr > y->corr) - (x->corr < y->corr);
}

static int gpu_cmp(const void *a, const void *b) {
  const tg_gpu *x = a, *y = b;
  if (x->ts != y->ts) return x->ts < y->ts ? -1 : 1;
  if (x->stream != y->stream) return x->stream < y->stream ? -1 : 1;
  return (x->corr > y->corr) - (x->corr < y->corr);
}

int tg_kv_cmp(const void *a, const void *b) {
  const tg_kv *x = a, *y = b;
  if (x->key != y->key) return x->key < y->key ? -1 : 1;
  return x->idx - y->idx;
}

int tg_kv_last_le(const tg_kv *a, int n, double k) {
  int lo = 0, hi = n; /* first with key > k */
  while (lo < hi) {
    int mid = (lo + hi) / 2;
    if (a[mid].key <= k)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo - 1;
}

/* --------------------------------------------------------------- link */

static int add_markers(tg_rank *r) {
  for (int i = 0; i < r->steps.n; i++) {
    const tg_step *s = &r->steps.v[i];
    tg_host b = {s->ts, 0, s->thread, -1, TG_STEP_BEGIN, i, 0, -1, -1, 0, -1, 0};
    tg_host e = b;
    e.ts = s->ts + s->dur, e.kind = TG_STEP_END;
    if (VEC_PUSH(r->host, b) || VEC_PUSH(r->host, e)) return -1;
  }
  return 0;
}

/* Each GPU operation's launch: the host call with its correlation id. */
static int link_launches(tg_rank *r) {
  tg_kv *c = mem_alloc((size_t)(r->host.n ? r->host.n : 1) * sizeof *c);
  if (!c) return -1;
  int n = 0;
  for (int i = 0; i < r->host.n; i++)
    if (r->host.v[i].kind == TG_CALL && r->host.v[i].corr >= 0)
      c[n++] = (tg_kv){r->host.v[i].corr, i};
  qsort(c, (size_t)n, sizeof *c, tg_kv_cmp);
  for (int i = 0; i < r->gpu.n; i++) {
    tg_gpu *g = &r->gpu.v[i];
    int k = g->corr >= 0 ? tg_kv_last_le(c, n, g->corr) : -1;
    g->launch = k >= 0 && c[k].key == g->corr ? c[k].idx : -1;
  }
  mem_free(c);
  return 0;
}

/* The GPU operation a synchronize call at host item h waited for: the one
 * that ended last, no later than the call (plus 1 us of clock noise),
 * among those issued before it. -1 if none. by_end: ops by end time. */
static int waited_op(const tg_rank *r, const tg_kv *by_end, int n, const tg_host *h) {
  int k = tg_kv_last_le(by_end, n, h->ts + h->dur + 1.0);
  for (int scanned = 0; k >= 0 && scanned < 256; k--, scanned++) {
    const tg_gpu *g = &r->gpu.v[by_end[k].idx];
    double issued = g->launch >= 0 ? r->host.v[g->launch].ts : g->ts;
    if (issued < h->ts) return by_end[k].idx;
  }
  return -1;
}

/* Calls whose wait an exported graph states: the GPU operation by uid. */
static int explicit_syncs(tg_rank *r) {
  tg_kv *u = mem_alloc((size_t)(r->gpu.n ? r->gpu.n : 1) * sizeof *u);
  if (!u) return -1;
  int n = 0;
  for (int i = 0; i < r->gpu.n; i++)
    if (r->gpu.v[i].uid >= 0) u[n++] = (tg_kv){r->gpu.v[i].uid, i};
  qsort(u, (size_t)n, sizeof *u, tg_kv_cmp);
  for (int i = 0; i < r->host.n; i++) {
    tg_host *h = &r->host.v[i];
    if (!h->has_wait || h->wait_uid < 0) continue;
    int k = tg_kv_last_le(u, n, h->wait_uid);
    if (k >= 0 && u[k].key == h->wait_uid) h->sync = 1, h->wait_op = u[k].idx;
  }
  mem_free(u);
  return 0;
}

double tg_sync_own(const tg_rank *r, const tg_host *h) {
  if (h->has_wait) return h->own;
  const tg_gpu *g = &r->gpu.v[h->wait_op];
  double waited = fmin(h->dur, fmax(0, g->ts + g->dur - h->ts));
  return fmax(0, h->dur - waited);
}

static void mark_syncs(tg_rank *r, const tg_kv *by_end) {
  for (int i = 0; i < r->gpu.n; i++) { /* copies that returned after the copy */
    tg_gpu *g = &r->gpu.v[i];
    if (g->launch < 0 || g->kind != TG_MEMCPY) continue;
    tg_host *h = &r->host.v[g->launch];
    if (h->has_wait) continue;
    if (g->ts >= h->ts && g->ts + g->dur <= h->ts + h->dur) h->sync = 1, h->wait_op = i;
  }
  for (int i = 0; i < r->host.n; i++) {
    tg_host *h = &r->host.v[i];
    if (h->kind != TG_CALL || h->sync || h->has_wait) continue;
    int explicit_sync = strstr(tg_str(r, h->name), "Synchronize") != NULL;
    if (!explicit_sync && h->dur < TG_BLOCKED_US) continue;
    int k = waited_op(r, by_end, r->gpu.n, h);
    if (k < 0) continue;
    double end = r->gpu.v[k].ts + r->gpu.v[k].dur;
    /* any other call that returned as a GPU operation ended was blocked
     * by it (a full launch queue, a pageable copy, an allocator wait) */
    if (explicit_sync || (end > h->ts && end >= h->ts + h->dur - TG_BLOCKED_US))
      h->sync = 1, h->wait_op = k;
  }
}

static int note_cmp(const void *a, const void *b) {
  const tg_comm_note *x = a, *y = b;
  if (x->thread != y->thread) return x->thread < y->thread ? -1 : 1;
  return (x->ts > y->ts) - (x->ts < y->ts);
}

/* The innermost note on thread th enclosing time t; NULL. */
static const tg_comm_note *note_at(const tg_rank *r, int th, double t) {
  int lo = 0, hi = r->notes.n; /* first after (th, t) */
  while (lo < hi) {
    int mid = (lo + hi) / 2;
    const tg_comm_note *n = &r->notes.v[mid];
    if (n->thread < th || (n->thread == th && n->ts <= t))
      lo = mid + 1;
    else
      hi = mid;
  }
  for (int k = lo - 1, seen = 0; k >= 0 && seen < 8 && r->notes.v[k].thread == th; k--, seen++)
    if (r->notes.v[k].ts + r->notes.v[k].dur >= t) return &r->notes.v[k];
  return NULL;
}

/* Collectives without a size take it from the nccl: annotation around
 * their launch (nccl-tests sizes: an all-gather's output is its input
 * times the group). */
static void size_collectives(tg_rank *r) {
  if (r->notes.n) qsort(r->notes.v, (size_t)r->notes.n, sizeof *r->notes.v, note_cmp);
  for (int i = 0; i < r->gpu.n; i++) {
    tg_gpu *g = &r->gpu.v[i];
    if (g->kind != TG_COMM || g->bytes > 0 || g->launch < 0) continue;
    const tg_host *h = &r->host.v[g->launch];
    const tg_comm_note *n = note_at(r, h->thread, h->ts);
    if (!n || !(n->bytes > 0)) continue;
    if (n->coll_op >= 0) g->coll_op = n->coll_op;
    g->bytes = n->bytes * (g->coll_op == SC_COLL_ALL_GATHER && g->group > 0 ? g->group : 1);
  }
}

int tg_link(tg_rank *r, sc_error *err) {
  if (add_markers(r)) return sc_error_set(err, SC_ENOMEM, "out of memory");
  if (r->host.n) qsort(r->host.v, (size_t)r->host.n, sizeof *r->host.v, host_cmp);
  if (r->gpu.n) qsort(r->gpu.v, (size_t)r->gpu.n, sizeof *r->gpu.v, gpu_cmp);
  for (int i = 0; i < r->host.n; i++) r->host.v[i].wait_op = -1, r->host.v[i].sync = 0;
  if (link_launches(r) || explicit_syncs(r)) return sc_error_set(err, SC_ENOMEM, "out of memory");
  size_collectives(r);
  tg_kv *by_end = mem_alloc((size_t)(r->gpu.n ? r->gpu.n : 1) * sizeof *by_end);
  if (!by_end) return sc_error_set(err, SC_ENOMEM, "out of memory");
  for (int i = 0; i < r->gpu.n; i++) by_end[i] = (tg_kv){r->gpu.v[i].ts + r->gpu.v[i].dur, i};
  qsort(by_end, (size_t)r->gpu.n, sizeof *by_end, tg_kv_cmp);
  mark_syncs(r, by_end);
  mem_free(by_end);
  return SC_OK;
}

int tg_stream_overlaps(const tg_rank *r, double *most, int *stream, double *at) {
  int streams[64], ns = 0, count = 0;
  double end[64];
  *most = 0, *stream = -1, *at = 0;
  for (int i = 0; i < r->gpu.n; i++) { /* sorted by ts */
    const tg_gpu *g = &r->gpu.v[i];
    int s = 0;
    while (s < ns && streams[s] != g->stream) s++;
    if (s == ns && ns < 64) streams[ns] = g->stream, end[ns++] = -INFINITY;
    if (s == 64) continue; /* more streams than that: not checked */
    double over = end[s] - g->ts;
    if (over > TG_OVERLAP_US) {
      if (!count++) *stream = g->stream, *at = g->ts;
      *most = fmax(*most, over);
    }
    end[s] = fmax(end[s], g->ts + g->dur);
  }
  return count;
}

/* ---------------------------------------------------------- warnings */

void tg_warn(tg_job *j, const char *fmt, ...) {
  size_t used = strlen(j->warn), room = sizeof j->warn - used;
  if (room < 2) return;
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(j->warn + used, room, fmt, ap);
  va_end(ap);
  used = n < 0                                   ? used
         : used + (size_t)n < sizeof j->warn - 1 ? used + (size_t)n
                                                 : sizeof j->warn - 2;
  j->warn[used] = '\n', j->warn[used + 1] = '\0';
}

void tg_rank_free(tg_rank *r) {
  mem_free(r->host.v);
  mem_free(r->gpu.v);
  mem_free(r->steps.v);
  mem_free(r->notes.v);
  mem_free(r->ops.v);
  mem_free(r->names.v);
  mem_free(r->name_hash);
  memset(r, 0, sizeof *r);
}

void tg_job_free(tg_job *j) {
  if (!j) return;
  for (int i = 0; i < j->n; i++) tg_rank_free(&j->r[i]);
  mem_free(j->r);
  mem_free(j);
}
