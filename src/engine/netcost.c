/*
 * netcost.c -- collectives of the step model on a topology; see netcost.h.
 */
#include <stdio.h>
#include <stdlib.h>

#include <math.h>
#include <pthread.h>
#include <string.h>

#include "core/mem.h"
#include "core/vec.h"

#include "coll/sched.h"
#include "engine/netcost.h"
#include "engine/place.h"
#include "net/flow.h"
#include "net/flowcf.h"
#include "net/linkwhatif.h"
#include "net/route.h"
#include "load/topo_json.h"

/* The flow engine finishes together the flows due within 1e-3 of the
 * next event (FLOW_PRECISION, flow.c), so its time may fall short of the
 * link-load bound by about that fraction: the bound is lowered by 1 %. */
#define NCOST_BOUND_SAFETY 0.99

/* Significant bits of the collective sizes the flow engine runs at
 * (on_grid). */
#define NCOST_GRID_BITS 16

/* One simulated collective. */
typedef struct memo {
  coll_op op;
  double bytes;
  int ranks, stride;
  int window;         /* ranks whose groups run it at once, 0 = alone */
  double flow;        /* flow-engine seconds (state DONE) */
  int used;           /* 0 = free slot, else an entry_state */
} memo;

/* Where a memoised result (a flow-engine run, a shape's bound) stands:
 * one thread claims a missing one and computes it outside the lock while
 * the others wait for it; a failure is not remembered (the next thread
 * asking runs it again and reports its own error). */
typedef enum entry_state { ENTRY_DONE = 1, ENTRY_PENDING, ENTRY_FAILED } entry_state;

/* What one group shape (op, ranks, stride) costs per byte of the
 * collective: its link-load bound (cf->lat, cf->per_byte: see
 * ncost_bound) and the closed form of its flow-engine time where there is
 * one (net/flowcf.h). The closed form is written once, before the entry
 * is marked done, and read without the lock after (threads copy only the
 * entry under it). */
typedef struct shape {
  coll_op op;
  int ranks, stride;
  int window;         /* as memo's */
  int k;              /* groups run side by side: copies() of the window,
                         or 1 when they cannot share a link, or would
                         pass the flow engine's limit (alone_enough) */
  double factor;      /* by_factor: what the k groups do to one (>= 1) */
  int state;          /* an entry_state */
  fcf *cf;            /* owned by the core when done, else NULL */
} shape;

/* A collective asked for in want mode (ncost_want) whose shape or
 * flow-engine run was missing: the arguments of the ncost_time or
 * ncost_bound that met it, for another thread to compute (ncost_help). */
typedef struct want {
  int bound;          /* 1: ncost_bound's (a shape), 0: ncost_time's */
  coll_op op;
  double bytes;
  int ranks, stride, window, per;
} want;

/* What the ncosts of a search's threads share (ncost_open_sharing): the
 * topology, the memo of flow-engine runs, the shapes bounded and the
 * first failure. The memo is an open-addressing hash table of `cap` slots
 * (a power of two), at most half full: a search simulates each distinct
 * collective once for all the plans it evaluates. The memo and the shapes
 * are read and written under `mu` (a thread that finds an entry another
 * is computing sleeps on `done` until an entry is stored), the error
 * under `mu_err`; simulations and bounds run outside them, each thread on
 * its own routes. The locks are the core's: searches in other threads of
 * the process do not share them. */
typedef struct core {
  pthread_mutex_t mu, mu_err;
  pthread_cond_t done; /* broadcast whenever a pending entry is stored */
  topo *t;            /* owned */
  memo *m;            /* owned, cap slots */
  int n_memo, cap;
  shape *sh;          /* owned: the shapes bounded so far */
  int n_sh, cap_sh;
  want *wants;        /* owned: collectives posted in want mode, not yet
                         taken by ncost_help (a stack: the last posted is
                         taken first, while its poster computes its
                         misses from the first) */
  int n_want, cap_want;
  sc_error err;       /* the first failure since ncost_error, code SC_OK if none */
  int failed;         /* err.code != SC_OK, read without the lock (atomic) */
} core;

/* One thread's view: the shared core and the thread's own routes (a
 * route table is a cache filled as paths are asked for, route.h: one per
 * thread lets simulations run side by side; a view's table shares the
 * owner's hop counts, route_new_sharing) and scratch. */
struct ncost {
  core *c;            /* owned when `owner` */
  int owner;          /* 1 = opened by ncost_open, closed last */
  route_table *rt;    /* owned */
  fcf_scratch w;      /* owned: scratch of shape_bound */
  flow_scratch *fs;   /* borrowed: the flow engine's arrays (NULL: its
                         own for each run) */
  int want;           /* ncost_want: misses posted, not computed */
  int missed;         /* in want mode: a collective was posted (the
                         times since are not the prediction's) */
  int helping;        /* in ncost_help: never wait for an entry another
                         thread computes, keep failures to the owner's
                         own run (the entry is marked failed and asked
                         again) */
};

/* The closed form's NVLink domain (when the cluster states one) against
 * the topology's as built (before failed cables): every collective is
 * scaled from a reference fabric of the cluster's domain, so they must
 * agree. A topology short of GPUs is left to ncost_open's message. */
static int domain_check(const sc_cluster *c, const topo *t, sc_error *err) {
  int dom = c->nvlink_domain > 0 ? c->nvlink_domain : c->gpus_per_node;
  if (dom <= 0 || c->gpus < 1 || t->n_gpus < c->gpus) return SC_OK;
  int rc = topo_domain_check(t, c->gpus, dom, c->nvlink_domain > 0 ? "cluster.nvlink_domain"
                                                                    : "cluster.gpus_per_node",
                             err);
  if (rc != SC_OK) {
    char msg[sizeof err->msg];
    snprintf(msg, sizeof msg, "%s", err->msg);
    sc_error_set(err, SC_EINPUT, "cluster.topology: %s", msg);
  }
  return rc;
}

int ncost_topology(const sc_cluster *c, topo **out, sc_error *err) {
  *out = NULL;
  if (!c->topology[0] && (c->link_fail[0] || c->link_degrade[0]))
    return sc_error_set(err, SC_EINPUT, "cluster.%s names cables but cluster.topology is "
                        "empty", c->link_fail[0] ? "link_fail" : "link_degrade");
  if (!c->topology[0]) return SC_OK;
  topo *t = NULL;
  int rc = topo_load_spec(c->topology, &t, err);
  if (rc == SC_OK) rc = domain_check(c, t, err);
  if (rc == SC_OK) /* the what-ifs on its cables (net/linkwhatif.h) */
    rc = lwi_apply(&t, c->link_fail, c->link_degrade, "cluster.link_fail",
                   "cluster.link_degrade", err);
  if (rc != SC_OK) {
    topo_free(t);
    return rc;
  }
  *out = t;
  return SC_OK;
}

int ncost_open(const sc_cluster *c, ncost **out, sc_error *err) {
  *out = NULL;
  topo *t = NULL;
  int rc = ncost_topology(c, &t, err);
  if (rc != SC_OK || !t) return rc;
  if (t->n_gpus < c->gpus) {
    sc_error_set(err, SC_EINPUT,
                 "cluster.topology: '%s' has %d GPUs but cluster.gpus is %d; "
                 "a topology needs at least as many GPUs as the cluster",
                 c->topology, t->n_gpus, c->gpus);
    topo_free(t);
    return SC_EINPUT;
  }
  ncost *n = mem_calloc(1, sizeof *n);
  core *shared = mem_calloc(1, sizeof *shared);
  route_table *rt = route_new(t, (route_policy)t->routing);
  if (!n || !shared || !rt) {
    mem_free(n);
    mem_free(shared);
    route_free(rt);
    topo_free(t);
    return sc_error_set(err, SC_ENOMEM, "out of memory loading the topology");
  }
  shared->t = t;
  pthread_mutex_init(&shared->mu, NULL);
  pthread_mutex_init(&shared->mu_err, NULL);
  pthread_cond_init(&shared->done, NULL);
  n->c = shared;
  n->owner = 1;
  n->rt = rt;
  fcf_scratch_init(&n->w);
  *out = n;
  return SC_OK;
}

int ncost_open_sharing(ncost *base, ncost **out, sc_error *err) {
  *out = NULL;
  if (!base) return SC_OK;
  ncost *n = mem_calloc(1, sizeof *n);
  route_table *rt = route_new_sharing(base->rt); /* base's hop counts, its own paths */
  if (!n || !rt) {
    mem_free(n);
    route_free(rt);
    return sc_error_set(err, SC_ENOMEM, "out of memory sharing the topology");
  }
  n->c = base->c;
  n->rt = rt;
  fcf_scratch_init(&n->w);
  *out = n;
  return SC_OK;
}

void ncost_lend_scratch(ncost *n, flow_scratch *fs) {
  if (n) n->fs = fs;
}

void ncost_close(ncost *n) {
  if (!n) return;
  route_free(n->rt);
  fcf_scratch_free(&n->w);
  if (n->owner) {
    topo_free(n->c->t);
    mem_free(n->c->m);
    for (int i = 0; i < n->c->n_sh; i++) mem_free(n->c->sh[i].cf);
    mem_free(n->c->sh);
    mem_free(n->c->wants);
    pthread_cond_destroy(&n->c->done);
    pthread_mutex_destroy(&n->c->mu_err);
    pthread_mutex_destroy(&n->c->mu);
    mem_free(n->c);
  }
  mem_free(n);
}

/* Remember the first failure for ncost_error (not while helping: the
 * thread whose plan asks for the collective runs it again and reports). */
static void fail(ncost *n, const sc_error *e) {
  if (n->helping) return;
  core *c = n->c;
  pthread_mutex_lock(&c->mu_err);
  if (c->err.code == SC_OK) c->err = *e;
  pthread_mutex_unlock(&c->mu_err);
  __atomic_store_n(&c->failed, 1, __ATOMIC_RELEASE);
}

/* 1 when a failure may be waiting: the threads of a search check after
 * every plan, so only a failure takes the lock. */
static int may_have_failed(const ncost *n) {
  return n && __atomic_load_n(&n->c->failed, __ATOMIC_ACQUIRE);
}

/* The schedule NCCL would run for op over `ranks` GPUs, `per` of them in
 * each NVLink domain; 0, or -1 when out of memory. Every transfer's size
 * is proportional to `bytes`. */
static int build(ncost *n, sched *s, coll_op op, double bytes, int ranks, int per) {
  if (op == COLL_ALL_REDUCE || op == COLL_REDUCE_SCATTER || op == COLL_ALL_GATHER) {
    /* NCCL's rings with one channel per NIC, each crossing between the
     * NVLink domains on its own rail (coll/ring_rails.c) */
    sched_params p = {
        .n = ranks, .ppn = per > 0 && ranks % per == 0 ? per : 1, .chunks = 1, .bytes = bytes};
    return coll_alg_find(op, "rails")->build(s, &p);
  }
  const coll_alg *a = coll_alg_find(op, op == COLL_ALL_TO_ALL ? "pairwise" : "ring");
  sched_params p = {0};
  p.n = ranks;
  p.ppn = 1;
  p.chunks = 1;
  p.bytes = bytes;
  if (!a) return -1;
  /* an all-to-all's n^2 transfers: refused before they are built, and
   * the reason kept (the first failure is the one reported) */
  double nx = sched_size(a, &p);
  if (nx > SCHED_MAX_XFERS) {
    sc_error e;
    sc_error_set(&e, SC_EINPUT,
                 "%s on %d ranks of the topology: %.0f transfers, more than the flow engine's "
                 "limit of %d (docs/input.md, Limits)",
                 coll_op_name(op), ranks, nx, SCHED_MAX_XFERS);
    fail(n, &e);
    return -1;
  }
  return a->build(s, &p);
}

/* The topology's GPU of each rank of the k groups (k = 1: the group
 * alone, at job rank 0; else every group in the first `window` ranks, as
 * engine/place.h lays them out): a new array of k ranks entries, or NULL
 * when out of memory. */
static int *group_nodes(const ncost *n, int ranks, int stride, int window, int k) {
  int *node = mem_alloc(sizeof(int) * (size_t)ranks * (size_t)k);
  if (!node) return NULL;
  if (k > 1) place_ranks(ranks, stride, window, node);
  for (int i = 0; i < ranks * k; i++) node[i] = n->c->t->gpus[k > 1 ? node[i] : i * stride];
  return node;
}

/* Groups running at once in `window` ranks (1: alone). */
static int copies(int ranks, int stride, int window) {
  int k = window > 0 ? place_count(ranks, stride, window) : 1;
  return k > 1 ? k : 1;
}

/* 1 when node v is a GPU with a single neighbour: the links to and from
 * it carry its own traffic only (no shortest path passes through it). */
static int stub_gpu(const topo *t, int v) {
  return t->nodes[v].kind == TOPO_GPU && t->out_start[v + 1] - t->out_start[v] == 1 &&
         t->in_start[v + 1] - t->in_start[v] == 1;
}

/* 1 when the group of (op, ranks, stride) alone crosses only links at one
 * of its own GPUs with a single neighbour (a host link of a fat-tree:
 * groups inside one leaf switch), so that no other group can share a
 * link with it and its copies change nothing, or when k copies of its
 * schedule would pass the flow engine's limit of transfers (the group is
 * then costed alone: docs/network.md); 0 otherwise, or when its schedule
 * or a route cannot be made (the full run then reports it). */
static int alone_enough(ncost *n, coll_op op, int ranks, int stride, int k, int per) {
  const topo *t = n->c->t;
  sched s;
  sched_init(&s);
  int *node = group_nodes(n, ranks, stride, 0, 1);
  int ok = node && build(n, &s, op, 1.0, ranks, per) == 0;
  if (ok && (double)s.nx * k > SCHED_MAX_XFERS) {
    mem_free(node);
    sched_free(&s);
    return 1;
  }
  for (int i = 0; ok && i < s.nx; i++) {
    const int *l;
    int len;
    if (route_path(n->rt, node[s.x[i].src], node[s.x[i].dst], &l, &len)) ok = 0;
    for (int j = 0; ok && j < len; j++)
      ok = stub_gpu(t, t->links[l[j]].src) || stub_gpu(t, t->links[l[j]].dst);
  }
  mem_free(node);
  sched_free(&s);
  return ok;
}

/* The transfers of every step of `one` in one step of *out (begun
 * empty), each moving its bytes times its step's repeat: a collective
 * whose transfers NCCL posts all at once (an all-to-all's grouped sends
 * and receives), without the barriers between the steps of the pairwise
 * schedule. 0, or -1 when out of memory. */
static int flatten(const sched *one, sched *out) {
  if (sched_begin(out, 1)) return -1;
  for (int si = 0; si < one->ns; si++) {
    const sched_step *st = &one->s[si];
    for (int j = 0; j < st->count; j++) {
      const sched_xfer *x = &one->x[st->first + j];
      if (st->repeat > 0 && sched_add(out, x->src, x->dst, x->bytes * st->repeat)) return -1;
    }
  }
  return 0;
}

/* The schedule of op on one group (build), or on k groups side by side
 * (place_replicate), flattened when `flat` (each group's transfers at
 * once): into *s, begun empty. 0, or -1 (out of memory, or the
 * transfers past the flow engine's limit: the reason kept, see build). */
static int build_all(ncost *n, sched *s, coll_op op, double bytes, int ranks, int k, int flat,
                     int per) {
  if (k == 1 && !flat) return build(n, s, op, bytes, ranks, per);
  sched one;
  sched_init(&one);
  int rc = build(n, &one, op, bytes, ranks, per);
  if (rc == 0 && (double)one.nx * k > SCHED_MAX_XFERS) {
    sc_error e;
    sc_error_set(&e, SC_EINPUT,
                 "%s on %d groups of %d ranks of the topology at once: %.0f transfers, more "
                 "than the flow engine's limit of %d (docs/input.md, Limits)",
                 coll_op_name(op), k, ranks, (double)one.nx * k, SCHED_MAX_XFERS);
    fail(n, &e);
    rc = -1;
  } else if (rc == 0 && flat) {
    sched fl;
    sched_init(&fl);
    rc = flatten(&one, &fl) ? -1 : place_replicate(&fl, ranks, k, s);
    sched_free(&fl);
  } else if (rc == 0) {
    rc = place_replicate(&one, ranks, k, s);
  }
  sched_free(&one);
  return rc;
}

static void fail_nomem(ncost *n, coll_op op) {
  sc_error err = {0};
  sc_error_set(&err, SC_ENOMEM, "out of memory simulating a %s on the topology",
               coll_op_name(op));
  fail(n, &err);
}

/* Flow-engine seconds of op on the group, or -1 when it cannot run (the
 * reason is kept for ncost_error). */
static double simulate(ncost *n, coll_op op, double bytes, int ranks, int stride,
                       int window, int k, int flat, int per) {
  sched s;
  sched_init(&s);
  int built = build_all(n, &s, op, bytes, ranks, k, flat, per);
  int *node = group_nodes(n, ranks, stride, window, k);
  double t = -1;
  sc_error err = {0};
  if (node && built == 0) {
    flow_stats st;
    if (flow_run_in(n->fs, n->c->t, n->rt, &s, node, &st, &err) == SC_OK) t = st.time;
    else fail(n, &err);
  } else {
    fail_nomem(n, op);
  }
  mem_free(node);
  sched_free(&s);
  return t;
}

/* 1 when the copies of op run as a factor on the group alone (a2a_factor)
 * rather than side by side: the pairwise all-to-all, whose steps each
 * pair other ranks, so that k groups held together step by step (the flow
 * engine's steps are barriers) would wait for each other's hashed
 * collisions at every step, which groups running on their own do not. */
static int by_factor(coll_op op, int k) { return op == COLL_ALL_TO_ALL && k > 1; }

/* The busiest link's load over its bandwidth, s per byte, of op's
 * transfers flattened (all at once) on k groups; -1 when out of memory
 * or past the limit (the reason kept). */
static double flat_load(ncost *n, coll_op op, int ranks, int stride, int window, int k,
                        int per) {
  sched s;
  sched_init(&s);
  int built = build_all(n, &s, op, 1.0, ranks, k, 1, per);
  int *node = group_nodes(n, ranks, stride, window, k);
  fcf f;
  double load = -1;
  if (built == 0 && node && fcf_build(n->c->t, n->rt, &s, node, &n->w, &f) == 0)
    load = f.per_byte;
  mem_free(node);
  sched_free(&s);
  return load;
}

/* What the k groups of an all-to-all at once do to one, into sh->factor:
 * with every group's transfers at once (as NCCL posts them), the busiest
 * link's load of the k groups over one group's -- the bandwidth-bound
 * limit of the event engine's fleet factor (fleet.h: the flow-engine
 * times of the same runs), independent of the size. 0, or -1 (out of
 * memory, the limit: reported). */
static int a2a_factor(ncost *n, shape *sh, int per) {
  double all = flat_load(n, sh->op, sh->ranks, sh->stride, sh->window, sh->k, per);
  double one = all < 0 ? -1 : flat_load(n, sh->op, sh->ranks, sh->stride, 0, 1, per);
  if (all < 0 || one < 0) return -1;
  sh->factor = one > 0 && all > one ? all / one : 1;
  return 0;
}

/* The copies of shape sh (op, ranks, stride, window set) to run into
 * sh->k, and its bound and closed form, from their schedule at one byte
 * (net/flowcf.h). 0, or -1 when out of memory. */
static int shape_bound(ncost *n, shape *sh, int per) {
  sh->k = copies(sh->ranks, sh->stride, sh->window);
  if (sh->k > 1 && alone_enough(n, sh->op, sh->ranks, sh->stride, sh->k, per)) sh->k = 1;
  sh->cf = NULL;
  if (by_factor(sh->op, sh->k)) return a2a_factor(n, sh, per); /* no bound: a factor */
  sched s;
  sched_init(&s);
  int built = build_all(n, &s, sh->op, 1.0, sh->ranks, sh->k, 0, per);
  int *node = group_nodes(n, sh->ranks, sh->stride, sh->window, sh->k);
  int rc = -1;
  sh->cf = mem_alloc(sizeof *sh->cf);
  if (built == 0 && node && sh->cf) rc = fcf_build(n->c->t, n->rt, &s, node, &n->w, sh->cf);
  if (rc != 0) {
    mem_free(sh->cf);
    sh->cf = NULL;
  }
  mem_free(node);
  sched_free(&s);
  return rc;
}

static unsigned long memo_hash(coll_op op, double bytes, int ranks, int stride, int window) {
  unsigned long long b;
  memcpy(&b, &bytes, sizeof b);
  unsigned long long h = b * 0x9E3779B97F4A7C15ull;
  h ^= (unsigned long long)op * 0xC2B2AE3D27D4EB4Full + (unsigned long long)ranks * 0x165667B19E3779F9ull +
       (unsigned long long)stride + (unsigned long long)window * 0x27D4EB2F165667C5ull;
  return (unsigned long)(h ^ (h >> 29));
}

/* The slot of (op, bytes, ranks, stride, window): its entry, or the
 * free slot where it goes. */
static memo *memo_slot(core *n, coll_op op, double bytes, int ranks, int stride, int window) {
  unsigned long i = memo_hash(op, bytes, ranks, stride, window) & (unsigned long)(n->cap - 1);
  for (;; i = (i + 1) & (unsigned long)(n->cap - 1)) {
    memo *m = &n->m[i];
    if (!m->used || (m->op == op && m->bytes == bytes && m->ranks == ranks &&
                     m->stride == stride && m->window == window))
      return m;
  }
}

/* Double the table (or create it); 0, or -1 when out of memory. */
static int memo_grow(core *n) {
  int cap = n->cap ? 2 * n->cap : 64;
  memo *old = n->m;
  int old_cap = n->cap;
  n->m = mem_calloc((size_t)cap, sizeof *n->m);
  if (!n->m) {
    n->m = old;
    return -1;
  }
  n->cap = cap;
  for (int i = 0; i < old_cap; i++)
    if (old[i].used) {
      const memo *o = &old[i];
      *memo_slot(n, o->op, o->bytes, o->ranks, o->stride, o->window) = *o;
    }
  mem_free(old);
  return 0;
}

/* bytes rounded to 16 significant bits (a relative change of at most
 * 2^-16): the sizes a search meets differ by a few KiB where a stage holds
 * a norm more or less (4,803,608,576 and 4,803,612,672 bytes), and each
 * distinct size would cost a flow-engine run. The run is made at the
 * rounded size and its time scaled by bytes / rounded, which moves it by
 * at most about 2^-16 = 0.0015 % (the part of the time that does not grow
 * with the size is scaled too; the flow engine's own precision is 0.1 %:
 * FLOW_PRECISION in flow.c). Measured against direct runs over 1,296
 * (topology, op, group, size) cases on a fat-tree, a torus and a rail
 * network: at most 0.0013 %; tests/test_netcost.c checks some.
 * Deterministic: the rounded size depends on bytes alone. */
static double on_grid(double bytes) {
  int e;
  double m = frexp(bytes, &e); /* bytes = m 2^e, 0.5 <= m < 1 */
  return ldexp(round(ldexp(m, NCOST_GRID_BITS)), e - NCOST_GRID_BITS);
}

/* What claim() found. */
typedef enum claim_rc { CLAIM_DONE, CLAIM_WAIT, CLAIM_MINE, CLAIM_NOMEM } claim_rc;

/* The memo entry of (op, bytes, ranks, stride): its time when done
 * (*flow), CLAIM_WAIT while another thread computes it, or CLAIM_MINE
 * when it was missing (or failed) and is now this thread's to compute.
 * Under the core's mu. */
static claim_rc claim(core *c, coll_op op, double bytes, int ranks, int stride, int window,
                      double *flow) {
  if (2 * (c->n_memo + 1) > c->cap && memo_grow(c)) return CLAIM_NOMEM;
  memo *m = memo_slot(c, op, bytes, ranks, stride, window);
  if (m->used == ENTRY_DONE) {
    *flow = m->flow;
    return CLAIM_DONE;
  }
  if (m->used == ENTRY_PENDING) return CLAIM_WAIT;
  if (!m->used) c->n_memo++;
  *m = (memo){op, bytes, ranks, stride, window, 0, ENTRY_PENDING};
  return CLAIM_MINE;
}

/* Store the time of a claimed entry (flow < 0: it failed). Under
 * the core's mu. */
static void store(core *c, coll_op op, double bytes, int ranks, int stride, int window,
                  double flow) {
  memo *m = memo_slot(c, op, bytes, ranks, stride, window);
  m->flow = flow;
  m->used = flow < 0 ? ENTRY_FAILED : ENTRY_DONE;
}

/* Under c->mu: sleep until another thread stores an entry (its core goes
 * to the thread computing the one waited for, if they share it). */
static void wait_for_entry(core *c) { pthread_cond_wait(&c->done, &c->mu); }

/* Leave c->mu after storing an entry others may wait for. */
static void stored(core *c) {
  pthread_cond_broadcast(&c->done);
  pthread_mutex_unlock(&c->mu);
}

static int shape_of(ncost *n, coll_op op, int ranks, int stride, int window, int per,
                    shape *out);
static int shape_find(const core *c, coll_op op, int ranks, int stride, int window);
static void help(ncost *n, const want *w);

/* Under c->mu, in want mode: post the collective (its ncost_time's or
 * ncost_bound's arguments) for ncost_help, and mark n's times as not the
 * prediction's. A stack that cannot grow leaves it to the poster's own
 * run. */
static void post(ncost *n, int bound, coll_op op, double bytes, int ranks, int stride,
                 int window, int per) {
  core *c = n->c;
  n->missed = 1;
  if (vec_grow((void **)&c->wants, &c->cap_want, (long)c->n_want + 1, sizeof *c->wants)) return;
  c->wants[c->n_want++] = (want){bound, op, bytes, ranks, stride, window, per};
}

/* Where a posted collective stands (take_wanted). */
typedef enum want_state { WANT_READY, WANT_BUSY, WANT_DONE } want_state;

/* Under c->mu: WANT_DONE when the memo holds what w needs (or it needs
 * nothing), WANT_BUSY when another thread computes its shape or its run,
 * else WANT_READY. */
static int window_of(const core *c, int ranks, int stride, int window);

static want_state want_of(core *c, const want *w) {
  coll_op key = w->op == COLL_REDUCE_SCATTER ? COLL_ALL_GATHER : w->op;
  int window = w->bound ? 0 : window_of(c, w->ranks, w->stride, w->window);
  int i = shape_find(c, key, w->ranks, w->stride, window);
  if (i < 0 || c->sh[i].state == ENTRY_FAILED) return WANT_READY;
  if (c->sh[i].state == ENTRY_PENDING) return WANT_BUSY;
  const shape *sh = &c->sh[i];
  double cf;
  if (w->bound || fcf_time(sh->cf, w->bytes, &cf)) return WANT_DONE;
  if (by_factor(key, sh->k)) return WANT_READY; /* the group alone: help() sees */
  const memo *m =
      c->cap ? memo_slot(c, key, on_grid(w->bytes), w->ranks, w->stride, window) : NULL;
  if (m && m->used == ENTRY_DONE) return WANT_DONE;
  return m && m->used == ENTRY_PENDING ? WANT_BUSY : WANT_READY;
}

/* Under c->mu: the last posted collective that is ready into *w, taken
 * off the stack (with those found done); 1, or 0 when none is ready (*busy
 * 1 when some wait for entries other threads compute). */
static int take_wanted(core *c, want *w, int *busy) {
  *busy = 0;
  for (int i = c->n_want - 1; i >= 0; i--) {
    want_state st = want_of(c, &c->wants[i]);
    if (st == WANT_BUSY) {
      *busy = 1;
      continue;
    }
    if (st == WANT_READY) *w = c->wants[i];
    memmove(&c->wants[i], &c->wants[i + 1], sizeof *c->wants * (size_t)(c->n_want - 1 - i));
    c->n_want--;
    if (st == WANT_READY) return 1;
  }
  return 0;
}

/* Under c->mu, while another thread computes an entry n's thread needs:
 * compute a posted collective meanwhile (leaving the lock and taking it
 * again), else sleep until an entry is stored. 0, or -1 when n is
 * helping (it never waits: the caller leaves the entry to whoever
 * computes it). */
static int wait_or_help(ncost *n) {
  core *c = n->c;
  if (n->helping) return -1;
  want w;
  int busy;
  if (take_wanted(c, &w, &busy)) {
    pthread_mutex_unlock(&c->mu);
    help(n, &w);
    pthread_mutex_lock(&c->mu);
    return 0;
  }
  wait_for_entry(c);
  return 0;
}

/* What a collective needs once both are known, in one look: the shape of
 * (op, ranks, stride) into *sh and, when the memo holds the flow-engine
 * time of (op, grid, ranks, stride), that time into *flow (*have = 1).
 * 0, or -1 when the shape is not bounded yet. Under the core's mu. */
static int lookup(core *c, coll_op op, double grid, int ranks, int stride, int window,
                  shape *sh, double *flow, int *have) {
  *have = 0;
  int i = shape_find(c, op, ranks, stride, window);
  if (i < 0 || c->sh[i].state != ENTRY_DONE) return -1;
  *sh = c->sh[i];
  const memo *m = c->cap ? memo_slot(c, op, grid, ranks, stride, window) : NULL;
  if (m && m->used == ENTRY_DONE) *flow = m->flow, *have = 1;
  return 0;
}

/* The flow-engine seconds of (op, grid, ranks, stride), from the memo or
 * simulated by this thread (claim); -1 when it cannot run (reported by
 * ncost_error), or when n is helping and another thread computes it. */
static double flow_of(ncost *n, coll_op op, double grid, int ranks, int stride, int window,
                      int k, int per) {
  core *c = n->c;
  double flow = 0;
  claim_rc rc;
  pthread_mutex_lock(&c->mu);
  while ((rc = claim(c, op, grid, ranks, stride, window, &flow)) == CLAIM_WAIT)
    if (wait_or_help(n)) {
      pthread_mutex_unlock(&c->mu);
      return -1; /* helping: the thread computing it stores it */
    }
  pthread_mutex_unlock(&c->mu);
  if (rc == CLAIM_NOMEM) {
    sc_error e;
    sc_error_set(&e, SC_ENOMEM, "out of memory remembering collective times");
    fail(n, &e);
    return -1;
  }
  if (rc == CLAIM_MINE) {
    /* on this thread's routes, outside the lock */
    flow = simulate(n, op, grid, ranks, stride, window, k, 0, per);
    pthread_mutex_lock(&c->mu);
    store(c, op, grid, ranks, stride, window, flow);
    stored(c);
  }
  return flow;
}

/* The window of a collective as the memo keys it: 0 (the group alone)
 * where no other group runs beside it on the topology's GPUs. */
static int window_of(const core *c, int ranks, int stride, int window) {
  if (window > c->t->n_gpus || copies(ranks, stride, window) == 1) return 0;
  return window;
}

static double time_of(ncost *n, coll_op op, double bytes, int ranks, int stride, int window,
                      int per, double nccl) {
  if (!n || ranks <= 1 || bytes <= 0) return nccl;
  core *c = n->c;
  if ((long)(ranks - 1) * stride >= c->t->n_gpus) return nccl;
  int asked = window;
  window = window_of(c, ranks, stride, window);
  /* a reduce-scatter and an all-gather of the same size on the same group
   * run the same ring schedule (the rails plug-in): one simulation serves both */
  coll_op key = op == COLL_REDUCE_SCATTER ? COLL_ALL_GATHER : op;
  double grid = on_grid(bytes), flow = 0, cf;
  shape sh;
  int known, have;
  /* once the shape is bounded and the size simulated: one lock per
   * collective */
  pthread_mutex_lock(&c->mu);
  known = lookup(c, key, grid, ranks, stride, window, &sh, &flow, &have) == 0;
  if (n->want && !(known && (by_factor(key, sh.k) || have || fcf_time(sh.cf, bytes, &cf)))) {
    post(n, 0, op, bytes, ranks, stride, asked, per);
    pthread_mutex_unlock(&c->mu);
    return nccl;
  }
  pthread_mutex_unlock(&c->mu);
  int r = known ? 0 : shape_of(n, key, ranks, stride, window, per, &sh);
  if (r) { /* out of memory, or helping and another thread bounds it */
    if (r < 0) fail_nomem(n, op);
    return nccl;
  }
  if (by_factor(key, sh.k)) /* the group alone, times the factor */
    return time_of(n, op, bytes, ranks, stride, 0, per, nccl) * sh.factor;
  /* where max-min sharing leaves no choice, the time in closed form
   * (net/flowcf.h), whatever the memo holds for the rounded size */
  if (fcf_time(sh.cf, bytes, &cf)) return cf > nccl ? cf : nccl;
  if (!known || !have) flow = flow_of(n, key, grid, ranks, stride, window, sh.k, per);
  if (flow < 0) return nccl; /* a failure: reported by ncost_error */
  flow *= bytes / grid;
  return flow > nccl ? flow : nccl;
}

/* The index of shape (op, ranks, stride, window) among c's, or -1. Under
 * the core's mu. */
static int shape_find(const core *c, coll_op op, int ranks, int stride, int window) {
  for (int i = 0; i < c->n_sh; i++)
    if (c->sh[i].op == op && c->sh[i].ranks == ranks && c->sh[i].stride == stride &&
        c->sh[i].window == window)
      return i;
  return -1;
}

/* claim() for the shape of (op, ranks, stride): *out is the shape when
 * done, *at its index when it is this thread's to bound. Under the core's mu. */
static claim_rc shape_claim(core *c, coll_op op, int ranks, int stride, int window, shape *out,
                            int *at) {
  int i = shape_find(c, op, ranks, stride, window);
  if (i >= 0 && c->sh[i].state == ENTRY_DONE) {
    *out = c->sh[i];
    return CLAIM_DONE;
  }
  if (i >= 0 && c->sh[i].state == ENTRY_PENDING) return CLAIM_WAIT;
  if (i < 0) {
    if (vec_grow((void **)&c->sh, &c->cap_sh, (long)c->n_sh + 1, sizeof *c->sh)) return CLAIM_NOMEM;
    i = c->n_sh++;
  }
  c->sh[i].op = op, c->sh[i].ranks = ranks, c->sh[i].stride = stride, c->sh[i].window = window;
  c->sh[i].state = ENTRY_PENDING;
  c->sh[i].cf = NULL;
  *at = i;
  return CLAIM_MINE;
}

/* The bound of (op, ranks, stride) into *out, computed on first use (on
 * this thread's routes, outside the lock); 0, -1 when out of memory, or
 * 1 when n is helping and another thread bounds it. */
static int shape_of(ncost *n, coll_op op, int ranks, int stride, int window, int per,
                    shape *out) {
  core *c = n->c;
  int at = -1;
  claim_rc rc;
  pthread_mutex_lock(&c->mu);
  while ((rc = shape_claim(c, op, ranks, stride, window, out, &at)) == CLAIM_WAIT)
    if (wait_or_help(n)) {
      pthread_mutex_unlock(&c->mu);
      return 1;
    }
  pthread_mutex_unlock(&c->mu);
  if (rc != CLAIM_MINE) return rc == CLAIM_DONE ? 0 : -1;
  out->op = op, out->ranks = ranks, out->stride = stride, out->window = window;
  out->state = ENTRY_DONE;
  int failed = shape_bound(n, out, per) != 0;
  if (failed) out->state = ENTRY_FAILED;
  pthread_mutex_lock(&c->mu);
  c->sh[at] = *out;
  stored(c);
  return failed ? -1 : 0;
}

static double bound_of(ncost *n, coll_op op, double bytes, int ranks, int stride, int window,
                       int per, double nccl) {
  if (!n || ranks <= 1 || bytes <= 0) return nccl;
  if ((long)(ranks - 1) * stride >= n->c->t->n_gpus) return nccl;
  /* the group alone: the other groups only add bytes to the links, so
   * its bound is below theirs together, and costs routes of one group
   * (a search bounds every plan, and times only those it keeps) */
  (void)window;
  window = 0;
  coll_op key = op == COLL_REDUCE_SCATTER ? COLL_ALL_GATHER : op;
  shape sh;
  if (n->want) { /* a shape not bounded yet: posted */
    core *c = n->c;
    pthread_mutex_lock(&c->mu);
    int i = shape_find(c, key, ranks, stride, window);
    int done = i >= 0 && c->sh[i].state == ENTRY_DONE;
    if (!done) post(n, 1, op, bytes, ranks, stride, window, per);
    pthread_mutex_unlock(&c->mu);
    if (!done) return nccl;
  }
  int r = shape_of(n, key, ranks, stride, window, per, &sh);
  if (r) {
    if (r < 0) fail_nomem(n, op);
    return nccl;
  }
  double b = NCOST_BOUND_SAFETY * fmax(sh.cf->lat, sh.cf->per_byte * bytes);
  return b > nccl ? b : nccl;
}

/* On n's thread, for another's plan: the posted collective w computed
 * into the memo (its result dropped), waiting for nothing. */
static void help(ncost *n, const want *w) {
  int was = n->want;
  n->want = 0;
  n->helping = 1;
  if (w->bound) bound_of(n, w->op, w->bytes, w->ranks, w->stride, w->window, w->per, 0);
  else time_of(n, w->op, w->bytes, w->ranks, w->stride, w->window, w->per, 0);
  n->helping = 0;
  n->want = was;
}

int ncost_want(ncost *n, int on) {
  if (!n) return 0;
  int missed = n->missed;
  n->want = on;
  n->missed = 0;
  return missed;
}

int ncost_help(ncost *n) {
  if (!n) return 0;
  core *c = n->c;
  want w;
  int busy;
  pthread_mutex_lock(&c->mu);
  int ready = take_wanted(c, &w, &busy);
  if (!ready && busy) wait_for_entry(c); /* then the caller asks again */
  pthread_mutex_unlock(&c->mu);
  if (ready) help(n, &w);
  return ready || busy;
}

double ncost_bound(ncost *n, coll_op op, double bytes, int ranks, int stride, int window,
                   int per, double nccl) {
  return bound_of(n, op, bytes, ranks, stride, window, per, nccl);
}

double ncost_time(ncost *n, coll_op op, double bytes, int ranks, int stride, int window,
                  int per, double nccl) {
  return time_of(n, op, bytes, ranks, stride, window, per, nccl);
}

int ncost_failed(const ncost *n) {
  if (n && n->missed) return 1;
  if (!may_have_failed(n)) return 0;
  pthread_mutex_lock(&n->c->mu_err);
  int failed = n->c->err.code != SC_OK;
  pthread_mutex_unlock(&n->c->mu_err);
  return failed;
}

int ncost_error(ncost *n, sc_error *err) {
  if (!may_have_failed(n)) return SC_OK;
  int rc = SC_OK;
  core *c = n->c;
  pthread_mutex_lock(&c->mu_err);
  if (c->err.code != SC_OK) {
    rc = sc_error_set(err, c->err.code, "%s", c->err.msg);
    c->err = (sc_error){0};
    __atomic_store_n(&c->failed, 0, __ATOMIC_RELEASE);
  }
  pthread_mutex_unlock(&c->mu_err);
  return rc;
}
