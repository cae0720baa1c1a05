/*
 * etjoin.c -- see etjoin.h.
 */
#include "trace/etjoin.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/mem.h"

/* A runtime call ending this close (us) after its leaf's end is inside it
 * (Kineto rounds times to the microsecond). */
#define EJ_SLACK_US 1.0

/* An operator in execution order: (a, b) is (ET tid, rf_id) or (Kineto
 * thread, start); c orders ties (Kineto: longer first). */
typedef struct ej_key {
  double a, b, c;
  int idx;
} ej_key;

static int key_cmp(const void *p, const void *q) {
  const ej_key *x = p, *y = q;
  if (x->a != y->a) return x->a < y->a ? -1 : 1;
  if (x->b != y->b) return x->b < y->b ? -1 : 1;
  if (x->c != y->c) return x->c < y->c ? -1 : 1;
  return x->idx - y->idx;
}

/* A name hash and a position in eo or ko. */
typedef struct ej_hp {
  uint32_t hash;
  int pos;
} ej_hp;

/* Scratch of one join. */
typedef struct ej_ctx {
  const pet_graph *et;
  const tg_rank *k;
  ej_key *eo;     /* ET operators by (tid, rf_id) */
  ej_key *ko;     /* Kineto operators by (thread, ts, -dur) */
  int *match;     /* ET operator -> Kineto operator; -1 */
  int *trial;     /* a trial match */
  ej_hp *es, *ks; /* align's scratch: ne and nk entries */
  ej_key *leaf;   /* leaves by (thread, ts): idx = Kineto operator */
  int n_leaf;
} ej_ctx;

static int hp_cmp(const void *p, const void *q) {
  const ej_hp *x = p, *y = q;
  if (x->hash != y->hash) return x->hash < y->hash ? -1 : 1;
  return x->pos - y->pos;
}

/* Match ET operators eo[e0..e1) with Kineto operators ko[k0..k1) into m
 * (indexed by ET operator): the n-th ET operator of a name with the n-th
 * Kineto operator of that name, both in execution order (the two orders
 * differ locally: an operator the ET records before its caller's
 * sibling may start after it). The number matched. */
static long align(const ej_ctx *c, int e0, int e1, int k0, int k1, int *m) {
  int ne = e1 - e0, nk = k1 - k0;
  for (int i = 0; i < ne; i++)
    c->es[i] = (ej_hp){c->et->nodes.v[c->eo[e0 + i].idx].hash, e0 + i}, m[c->eo[e0 + i].idx] = -1;
  for (int l = 0; l < nk; l++) c->ks[l] = (ej_hp){c->k->ops.v[c->ko[k0 + l].idx].hash, k0 + l};
  qsort(c->es, (size_t)ne, sizeof *c->es, hp_cmp);
  qsort(c->ks, (size_t)nk, sizeof *c->ks, hp_cmp);
  long n = 0;
  for (int i = 0, l = 0; i < ne && l < nk;) {
    if (c->es[i].hash != c->ks[l].hash) {
      if (c->es[i].hash < c->ks[l].hash)
        i++;
      else
        l++;
      continue;
    }
    m[c->eo[c->es[i].pos].idx] = c->ko[c->ks[l].pos].idx;
    i++, l++, n++;
  }
  return n;
}

/* End of the run of ko (or eo) entries from i with the same a. */
static int run_end(const ej_key *v, int n, int i) {
  int e = i;
  while (e < n && v[e].a == v[i].a) e++;
  return e;
}

/* Each ET thread against the Kineto thread it matches best. */
static long match_threads(ej_ctx *c) {
  int ne = c->et->nodes.n, nk = c->k->ops.n;
  long total = 0;
  for (int e0 = 0, e1; e0 < ne; e0 = e1) {
    e1 = run_end(c->eo, ne, e0);
    long best = -1;
    int bk = 0, bk1 = 0;
    for (int k0 = 0, k1; k0 < nk; k0 = k1) {
      k1 = run_end(c->ko, nk, k0);
      long n = align(c, e0, e1, k0, k1, c->trial);
      if (n > best) best = n, bk = k0, bk1 = k1;
    }
    total += align(c, e0, e1, bk, bk1, c->match);
  }
  return total;
}

/* The matched Kineto operators that contain no other matched one. */
static int find_leaves(ej_ctx *c) {
  const tg_rank *k = c->k;
  int ne = c->et->nodes.n, n = 0;
  ej_key *m = mem_alloc((size_t)(ne ? ne : 1) * sizeof *m);
  c->leaf = mem_alloc((size_t)(ne ? ne : 1) * sizeof *c->leaf);
  if (!m || !c->leaf) return mem_free(m), -1;
  for (int e = 0; e < ne; e++)
    if (c->match[e] >= 0) {
      const tg_op *o = &k->ops.v[c->match[e]];
      m[n++] = (ej_key){o->thread, o->ts, -o->dur, e};
    }
  qsort(m, (size_t)n, sizeof *m, key_cmp);
  for (int i = 0; i < n; i++) {
    const tg_op *o = &k->ops.v[c->match[m[i].idx]];
    int contains = i + 1 < n && m[i + 1].a == m[i].a && m[i + 1].b < o->ts + o->dur;
    if (!contains) c->leaf[c->n_leaf++] = m[i];
  }
  mem_free(m);
  return 0;
}

/* The leaf (index in c->leaf) containing host call h; -1. */
static int leaf_of(const ej_ctx *c, const tg_host *h) {
  int lo = 0, hi = c->n_leaf; /* first leaf after (thread, ts) */
  while (lo < hi) {
    int mid = (lo + hi) / 2;
    const ej_key *l = &c->leaf[mid];
    if (l->a < h->thread || (l->a == h->thread && l->b <= h->ts))
      lo = mid + 1;
    else
      hi = mid;
  }
  if (lo == 0) return -1;
  const ej_key *l = &c->leaf[lo - 1];
  const tg_op *o = &c->k->ops.v[c->match[l->idx]];
  return l->a == h->thread && h->ts + h->dur <= o->ts + o->dur + EJ_SLACK_US ? lo - 1 : -1;
}

static int copy_header(tg_rank *out, const tg_rank *k, const pet_graph *et) {
  snprintf(out->path, sizeof out->path, "%.250s+%.250s", k->path, et->path);
  memcpy(out->device, k->device, sizeof out->device);
  out->arch = k->arch, out->amd = k->amd, out->rank = k->rank, out->world = k->world;
  out->pid = k->pid, out->threads = k->threads;
  for (int i = 0; i < k->steps.n; i++)
    if (VEC_PUSH(out->steps, k->steps.v[i])) return -1;
  for (int i = 0; i < k->notes.n; i++)
    if (VEC_PUSH(out->notes, k->notes.v[i])) return -1;
  return 0;
}

/* Host items: the leaves (correlation base + leaf index, which their GPU
 * operations take) and the calls outside them; *leaf_of_call[i] for the
 * calls of k. */
static int build_host(ej_ctx *c, tg_rank *out, double base, int *call_leaf, ej_stats *st) {
  const tg_rank *k = c->k;
  for (int l = 0; l < c->n_leaf; l++) {
    const pet_node *e = &c->et->nodes.v[c->leaf[l].idx];
    const tg_op *o = &k->ops.v[c->match[c->leaf[l].idx]];
    const char *nm = pet_str(c->et, e->name);
    tg_host h = {o->ts,    o->dur, o->thread, tg_name(out, nm, strlen(nm)),
                 TG_CALL,  -1,     0,         -1,
                 base + l, 0,      -1,        0};
    if (h.name < 0 || VEC_PUSH(out->host, h)) return -1;
  }
  for (int i = 0; i < k->host.n; i++) {
    const tg_host *h = &k->host.v[i];
    call_leaf[i] = -1;
    if (h->kind != TG_CALL) continue; /* the step markers: tg_link adds them */
    if ((call_leaf[i] = leaf_of(c, h)) >= 0) {
      st->calls_folded++;
      continue;
    }
    tg_host x = *h;
    const char *nm = tg_str(k, h->name);
    x.name = tg_name(out, nm, strlen(nm)), x.sync = 0, x.wait_op = -1;
    if (x.name < 0 || VEC_PUSH(out->host, x)) return -1;
    st->calls_kept++;
  }
  st->leaves = c->n_leaf;
  return 0;
}

static int build_gpu(const tg_rank *k, tg_rank *out, double base, const int *call_leaf) {
  for (int i = 0; i < k->gpu.n; i++) {
    tg_gpu g = k->gpu.v[i];
    const char *nm = tg_str(k, g.name);
    if ((g.name = tg_name(out, nm, strlen(nm))) < 0) return -1;
    if (g.launch >= 0 && call_leaf[g.launch] >= 0) g.corr = base + call_leaf[g.launch];
    g.launch = -1;
    if (VEC_PUSH(out->gpu, g)) return -1;
  }
  return 0;
}

/* Sort both sides into execution order. */
static void order(ej_ctx *c) {
  for (int e = 0; e < c->et->nodes.n; e++) {
    const pet_node *n = &c->et->nodes.v[e];
    c->eo[e] = (ej_key){n->tid, n->rf >= 0 ? n->rf : n->id, 0, e};
  }
  for (int i = 0; i < c->k->ops.n; i++) {
    const tg_op *o = &c->k->ops.v[i];
    c->ko[i] = (ej_key){o->thread, o->ts, -o->dur, i};
  }
  qsort(c->eo, (size_t)c->et->nodes.n, sizeof *c->eo, key_cmp);
  qsort(c->ko, (size_t)c->k->ops.n, sizeof *c->ko, key_cmp);
}

static void stats(const ej_ctx *c, ej_stats *st, long matched) {
  st->ops = c->et->nodes.n, st->matched = matched;
  for (int e = 0; e < c->et->nodes.n && !st->first_missing[0]; e++)
    if (c->match[e] < 0)
      snprintf(st->first_missing, sizeof st->first_missing, "%s",
               pet_str(c->et, c->et->nodes.v[e].name));
}

static int join(ej_ctx *c, tg_rank *out, ej_stats *st, sc_error *err) {
  const tg_rank *k = c->k;
  order(c);
  long matched = match_threads(c);
  stats(c, st, matched);
  if (!matched)
    return sc_error_set(err, SC_EINPUT,
                        "%s: no operator of this execution trace is in %s (expected the "
                        "PyTorch profiler trace of the same process and iteration)",
                        c->et->path, k->path);
  double base = 1; /* synthetic correlation ids above every traced one */
  for (int i = 0; i < k->host.n; i++) base = fmax(base, k->host.v[i].corr + 1);
  for (int i = 0; i < k->gpu.n; i++) base = fmax(base, k->gpu.v[i].corr + 1);
  int *call_leaf = mem_alloc((size_t)(k->host.n ? k->host.n : 1) * sizeof *call_leaf);
  int bad = !call_leaf || find_leaves(c) || copy_header(out, k, c->et) ||
            build_host(c, out, base, call_leaf, st) || build_gpu(k, out, base, call_leaf);
  mem_free(call_leaf);
  if (bad) return sc_error_set(err, SC_ENOMEM, "%s: out of memory", c->et->path);
  return tg_link(out, err);
}

int ej_join(const pet_graph *et, const tg_rank *k, tg_rank *out, ej_stats *st, sc_error *err) {
  memset(st, 0, sizeof *st);
  size_t ne = (size_t)(et->nodes.n ? et->nodes.n : 1), nk = (size_t)(k->ops.n ? k->ops.n : 1);
  ej_ctx c = {et,
              k,
              mem_alloc(ne * sizeof *c.eo),
              mem_alloc(nk * sizeof *c.ko),
              mem_alloc(ne * sizeof *c.match),
              mem_alloc(ne * sizeof *c.trial),
              mem_alloc(ne * sizeof *c.es),
              mem_alloc(nk * sizeof *c.ks),
              NULL,
              0};
  out->rank = -1, out->pid = -1;
  int rc = !c.eo || !c.ko || !c.match || !c.trial || !c.es || !c.ks
               ? sc_error_set(err, SC_ENOMEM, "%s: out of memory", et->path)
               : join(&c, out, st, err);
  mem_free(c.eo), mem_free(c.ko), mem_free(c.match), mem_free(c.trial), mem_free(c.leaf);
  mem_free(c.es), mem_free(c.ks);
  return rc;
}
