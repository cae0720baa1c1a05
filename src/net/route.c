/*
 * route.c -- shortest paths from per-source hop counts (see route.h).
 *
 * A source asked for more than ROUTE_KEEP destinations gets its own
 * hop-count array (a byte per node: 1.2 MB for every GPU of a 1,024-GPU
 * fat-tree, where a cache of every pair's path took 67 MB and grew as
 * n^2), filled by one breadth-first search. Other sources (a ring asks
 * each GPU for one neighbour) share one search that runs lazily from the
 * most recent source and stops at the destination. A path is then
 * walked back from its destination, one hop closer to the source at a
 * time, choosing among equally short predecessors by the policy (the
 * nodes one hop closer are all known either way, so a pair always gets
 * the same path); it costs its length times the in-degree, and is
 * written into the table's path buffer.
 *
 * Sharing (route_new_sharing): the hop-count arrays live in a `hops`
 * block that the tables of a search's threads share. An array is built
 * privately by the first table that needs it, then published with a
 * compare-and-swap on its slot; once published it is never written again,
 * so every table reads it without a lock (a table that loses the race
 * frees its own copy and takes the winner's: the same counts). The memo of
 * paths walked back from a neighbour's array (`walked`) is in the block
 * too, each path published once by a compare-and-swap (walked_put).
 * Everything else a table writes -- the asks, the lazy search, its memo
 * of lazily searched paths, the path buffers -- is its own.
 */
#include "net/route.h"

#include <assert.h>
#include <stdint.h>
#include <string.h>
#include <strings.h>

#include "core/mem.h"

#define FAR 255 /* hop count of a node not reached (paths < 255 hops) */

/* Destinations asked of one source before it gets its own array. */
#define ROUTE_KEEP 8

/* Paths found by the lazy search are remembered per pair, up to this
 * many links in all (16 MB): a table asked for the same ring again and
 * again (a search's flow runs) walks each pair once. */
#define ROUTE_MEMO_LINKS (4L << 20)

/* Paths walked back from published hop counts for a source without its
 * own (a GPU with one neighbour, from its leaf switch's: route_path) are
 * remembered in a memo the tables of route_new_sharing share (`walked`),
 * up to this many links (256 KB) in WALKED_SLOTS slots: a search's group
 * shapes and flow runs ask for the same pairs again and again, on every
 * thread (GPT-3 175B's 1,024-GPU fat-tree: 9,521 paths asked, 3,078
 * distinct pairs), and a walk back costs its length times the in-degree
 * (the ECMP hash of every candidate). */
#define ROUTE_MEMO_WALKED (64L << 10)
#define WALKED_SLOTS (1 << 15)
/* A walked slot's word: key << WALKED_KEY_SHIFT | off << 8 | len. */
#define WALKED_KEY_SHIFT 24

/* One remembered path: links memo_links[off .. off + len). */
typedef struct route_memo {
  long key;   /* src * n_nodes + dst + 1; 0 = empty slot */
  long off;
  int len;
} route_memo;

/* The walked paths' memo: a slot is 0 or one word, the pair's key, the
 * path's place in `links` and its length (WALKED_KEY_SHIFT), set once by
 * a compare-and-swap after its links are written (a reader that sees the
 * word sees them) and never rewritten, so a path read stays valid; the
 * links are reserved by fetch-and-add. Open addressing, at most half
 * full. */
typedef struct walked {
  uint64_t slot[WALKED_SLOTS];
  long used;             /* links reserved (atomic; may pass the room) */
  int n;                 /* slots set (atomic) */
  int links[ROUTE_MEMO_WALKED];
} walked;

/* The per-source hop counts, shared by the tables of route_new_sharing:
 * slot v NULL until published (atomic pointer, set once), then
 * read-only; freed with the block by the table that created it. So is
 * the walked paths' memo (created by the first table that walks a path,
 * published as the arrays are). */
typedef struct hops {
  unsigned char **dist;  /* per node: hop counts from it, or NULL (owned) */
  long n_dist;           /* sources with an array (atomic) */
  walked *walked;        /* owned (atomic pointer; NULL: none yet, or keys
                            of this topology do not fit a slot's word) */
  /* read-only views of the topology, made with the block (owned): */
  int *out_dst;          /* per entry of t->out_link: the link's head, so
                            that a search reads one array */
  int *in_src;           /* per entry of t->in_link: the link's tail, so
                            that a walk back reads one array */
  int *stub;             /* per node: stub_link's answer */
  int max_in;            /* the most in-links of a node */
} hops;

struct route_table {
  const topo *t;
  route_policy policy;
  hops *h;               /* owned when `owner`, else the base table's */
  int owner;
  unsigned char *asks;   /* per node: destinations asked of it, to ROUTE_KEEP */
  /* the shared lazy search from `src` */
  int src;
  int *ldist;            /* per node; valid where stamp == epoch */
  unsigned *stamp;
  unsigned epoch;
  int head, tail;
  int *queue;            /* BFS, n_nodes */
  int *scratch;          /* one path, reversed, n_nodes */
  int *path;             /* the last path returned, n_nodes */
  const int *out_dst, *in_src, *stub; /* h's */
  int *cand;             /* a walk back's candidate links at one node, in
                            link order (h->max_in; owned) */
  /* paths of lazily searched pairs (owned; grown to ROUTE_MEMO_LINKS) */
  route_memo *memo;      /* open addressing, cap_memo slots (power of 2) */
  long n_memo, cap_memo;
  int *memo_links;
  long n_links, cap_links;
};

/* The link out of src when src has exactly one neighbour, joined to it
 * by one link each way (a host on its leaf switch), else -1. Every path
 * from such a node leaves over that link, and the hop counts from it are
 * its neighbour's plus one: the walk back from the neighbour's counts
 * meets the same candidates at every node, so it picks the same path,
 * and the GPUs of one switch share one search. */
static int stub_link(const topo *t, int src) {
  if (t->out_start[src + 1] - t->out_start[src] != 1 || t->in_start[src + 1] - t->in_start[src] != 1)
    return -1;
  int out = t->out_link[t->out_start[src]], in = t->in_link[t->in_start[src]];
  return t->links[out].dst == t->links[in].src ? out : -1;
}

/* The block's views of t (h->out_dst, in_src, stub, max_in); an array
 * left NULL when out of memory. */
static void views_new(hops *h, const topo *t) {
  int degrees = t->out_start[t->n_nodes], in_degrees = t->in_start[t->n_nodes];
  h->out_dst = mem_alloc((size_t)(degrees > 0 ? degrees : 1) * sizeof *h->out_dst);
  if (h->out_dst)
    for (int k = 0; k < degrees; k++) h->out_dst[k] = t->links[t->out_link[k]].dst;
  h->in_src = mem_alloc((size_t)(in_degrees > 0 ? in_degrees : 1) * sizeof *h->in_src);
  if (h->in_src)
    for (int k = 0; k < in_degrees; k++) h->in_src[k] = t->links[t->in_link[k]].src;
  h->stub = mem_alloc((size_t)(t->n_nodes > 0 ? t->n_nodes : 1) * sizeof *h->stub);
  if (h->stub)
    for (int v = 0; v < t->n_nodes; v++) h->stub[v] = stub_link(t, v);
  h->max_in = 1;
  for (int v = 0; v < t->n_nodes; v++) {
    int in = t->in_start[v + 1] - t->in_start[v];
    if (in > h->max_in) h->max_in = in;
  }
}

/* A table over t whose hop counts are h (NULL: a block of its own). */
static route_table *table_new(const topo *t, route_policy policy, hops *h) {
  assert(t && t->out_start);
  route_table *r = mem_calloc(1, sizeof *r);
  if (!r) return NULL;
  size_t n = (size_t)t->n_nodes;
  r->t = t, r->policy = policy, r->src = -1;
  r->owner = !h;
  if (h) {
    r->h = h;
  } else if ((r->h = mem_calloc(1, sizeof *r->h))) {
    r->h->dist = mem_calloc(n, sizeof *r->h->dist);
    views_new(r->h, t);
  }
  r->asks = mem_calloc(n, 1);
  r->ldist = mem_alloc(n * sizeof *r->ldist);
  r->stamp = mem_calloc(n, sizeof *r->stamp);
  r->queue = mem_alloc(n * sizeof *r->queue);
  r->scratch = mem_alloc(n * sizeof *r->scratch);
  r->path = mem_alloc(n * sizeof *r->path);
  if (r->h) {
    r->out_dst = r->h->out_dst, r->in_src = r->h->in_src, r->stub = r->h->stub;
    r->cand = mem_alloc((size_t)r->h->max_in * sizeof *r->cand);
  }
  if (!r->h || !r->h->dist || !r->asks || !r->ldist || !r->stamp || !r->queue || !r->scratch ||
      !r->path || !r->out_dst || !r->in_src || !r->stub || !r->cand) {
    route_free(r);
    return NULL;
  }
  return r;
}

route_table *route_new(const topo *t, route_policy policy) { return table_new(t, policy, NULL); }

route_table *route_new_sharing(const route_table *base) {
  return table_new(base->t, base->policy, base->h);
}

void route_free(route_table *r) {
  if (!r) return;
  if (r->owner && r->h) {
    if (r->h->dist)
      for (int v = 0; v < r->t->n_nodes; v++) mem_free(r->h->dist[v]);
    mem_free(r->h->dist);
    mem_free(r->h->walked);
    mem_free(r->h->out_dst), mem_free(r->h->in_src), mem_free(r->h->stub);
    mem_free(r->h);
  }
  mem_free(r->queue), mem_free(r->scratch), mem_free(r->path);
  mem_free(r->asks), mem_free(r->ldist), mem_free(r->stamp);
  mem_free(r->memo), mem_free(r->memo_links), mem_free(r->cand);
  mem_free(r);
}

static const char *const policy_names[] = {"ecmp", "dor", "dmodk"};

const char *route_policy_name(route_policy p) {
  assert(p >= ROUTE_ECMP && p <= ROUTE_DMODK);
  return policy_names[p];
}

int route_policy_from_name(const char *s) {
  for (int i = 0; i <= ROUTE_DMODK; i++)
    if (s && !strcasecmp(s, policy_names[i])) return i;
  return -1;
}

static uint64_t mix(uint64_t x) {
  x ^= x >> 33, x *= 0xff51afd7ed558ccdULL, x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ULL, x ^= x >> 33;
  return x;
}

/* The published hop counts from src, or NULL (none yet). */
static inline const unsigned char *published(const route_table *r, int src) {
  return __atomic_load_n(&r->h->dist[src], __ATOMIC_ACQUIRE);
}

/* Publish d as the hop counts from src: d itself, or the array another
 * table published first (d is then freed; the counts are the same). */
static const unsigned char *publish(route_table *r, int src, unsigned char *d) {
  unsigned char *none = NULL;
  if (!__atomic_compare_exchange_n(&r->h->dist[src], &none, d, 0, __ATOMIC_ACQ_REL,
                                   __ATOMIC_ACQUIRE)) {
    mem_free(d);
    return none; /* the winner's */
  }
  __atomic_add_fetch(&r->h->n_dist, 1, __ATOMIC_RELAXED);
  return d;
}

/* The hop counts from src, computed on first use; NULL when out of
 * memory. */
static const unsigned char *dist_from(route_table *r, int src) {
  const unsigned char *have = published(r, src);
  if (have) return have;
  if (r->src == src) r->src = -1; /* the lazy search's queue is reused */
  const topo *t = r->t;
  unsigned char *d = mem_alloc((size_t)t->n_nodes);
  if (!d) return NULL;
  memset(d, FAR, (size_t)t->n_nodes);
  int head = 0, tail = 0;
  r->queue[tail++] = src;
  d[src] = 0;
  while (head < tail) {
    int v = r->queue[head++];
    if (d[v] + 1 >= FAR) continue;
    for (int k = t->out_start[v]; k < t->out_start[v + 1]; k++) {
      int w = r->out_dst[k];
      if (d[w] != FAR) continue;
      d[w] = (unsigned char)(d[v] + 1);
      /* a node whose one way out leads back to v (a GPU on its leaf
       * switch) reaches nothing new: not queued */
      int o = t->out_start[w];
      if (t->out_start[w + 1] - o != 1 || r->out_dst[o] != v) r->queue[tail++] = w;
    }
  }
  return publish(r, src, d);
}

/* The shared lazy search: start from src (the stamps mark what it knows). */
static void lazy_start(route_table *r, int src) {
  r->src = src;
  if (++r->epoch == 0) { /* wrapped: clear the stamps */
    memset(r->stamp, 0, sizeof *r->stamp * (size_t)r->t->n_nodes);
    r->epoch = 1;
  }
  r->head = r->tail = 0;
  r->queue[r->tail++] = src;
  r->stamp[src] = r->epoch, r->ldist[src] = 0;
}

static int lazy_known(const route_table *r, int v) { return r->stamp[v] == r->epoch; }

/* Continue the lazy search until dst has a hop count (or all is done). */
static void lazy_until(route_table *r, int dst) {
  const topo *t = r->t;
  while (!lazy_known(r, dst) && r->head < r->tail) {
    int v = r->queue[r->head++];
    for (int k = t->out_start[v]; k < t->out_start[v + 1]; k++) {
      int w = r->out_dst[k];
      if (!lazy_known(r, w)) {
        r->stamp[w] = r->epoch, r->ldist[w] = r->ldist[v] + 1;
        r->queue[r->tail++] = w;
      }
    }
  }
}

/* Hop count of u from the source: from its array d, or the lazy search
 * (d NULL); -1 when not known. */
static inline int hop(const route_table *r, const unsigned char *d, int u) {
  if (d) return d[u] == FAR ? -1 : d[u];
  return lazy_known(r, u) ? r->ldist[u] : -1;
}

/* The digits destination-mod-k routes to dst by: its place among the
 * GPUs (t->gpus is in node order), so that the GPUs -- the NICs of a
 * server's GPUs -- under one leaf count up by one; other nodes their id. */
static long dmodk_digits(const topo *t, int dst) {
  int lo = 0, hi = t->n_gpus - 1;
  while (lo <= hi) {
    int mid = (lo + hi) / 2;
    if (t->gpus[mid] == dst) return mid;
    if (t->gpus[mid] < dst) lo = mid + 1;
    else hi = mid - 1;
  }
  return dst;
}

/* Destination-mod-k's pick at v, walking back from the destination: the
 * (*digits mod n)-th of the n predecessors one hop closer (in link
 * order), the digits then divided by n -- at the destination's leaf the
 * spine (or aggregation switch) by the lowest digit, above it the core
 * by the next (Zahavi et al.'s D-mod-k on k-ary n-trees, what OpenSM's
 * ftree engine programs). */
static int dmodk_pick(const route_table *r, const unsigned char *d, int v, long *digits) {
  const topo *t = r->t;
  int n = 0, hv = hop(r, d, v);
  for (int k = t->in_start[v]; k < t->in_start[v + 1]; k++) {
    int hu = hop(r, d, r->in_src[k]);
    if (hu >= 0 && hu + 1 == hv) r->cand[n++] = t->in_link[k];
  }
  assert(n > 0);
  int want = (int)(*digits % n);
  *digits /= n;
  return r->cand[want];
}

/* Walk back from dst to `from` (the node d counts hops from) choosing a
 * predecessor one hop closer, among equals by the policy: ECMP's hash
 * seeded with the path's source src, DOR's highest dimension, DMODK's
 * digits of dst. */
static int walk_back(route_table *r, const unsigned char *d, int src, int from, int dst) {
  const topo *t = r->t;
  int len = 0, v = dst;
  long digits = r->policy == ROUTE_DMODK ? dmodk_digits(t, dst) : 0;
  while (v != from) {
    int best = -1, nbest = 0;
    if (r->policy == ROUTE_DMODK) {
      best = dmodk_pick(r, d, v, &digits);
      r->scratch[len++] = best;
      v = t->links[best].src;
      continue;
    }
    for (int k = t->in_start[v]; k < t->in_start[v + 1]; k++) {
      int id = t->in_link[k], u = r->in_src[k];
      int hu = hop(r, d, u);
      if (hu < 0 || hu + 1 != hop(r, d, v)) continue;
      if (r->policy == ROUTE_DOR && best >= 0) {
        int dm = t->links[id].dim, bd = t->links[best].dim;
        if (dm < bd) continue;
        if (dm > bd) { best = id, nbest = 1; continue; }
      }
      /* reservoir choice among equals, seeded by (src, dst, v) */
      nbest++;
      if (best < 0 || mix(((uint64_t)src << 40) ^ ((uint64_t)dst << 20) ^ (uint64_t)v ^
                          (uint64_t)nbest << 58) % (uint64_t)nbest == 0)
        best = id;
    }
    assert(best >= 0);
    r->scratch[len++] = best;
    v = t->links[best].src;
  }
  return len;
}

/* The source's hop counts: its array (*d), or the lazy search run to dst
 * (*d NULL); `eager`: its array at once (the neighbour of GPUs with one
 * neighbour: those GPUs' paths all walk back from it). 0,
 * ROUTE_UNREACHABLE or ROUTE_NOMEM. */
static int reach(route_table *r, int src, int dst, const unsigned char **d, int eager) {
  *d = published(r, src);
  if (!*d && r->asks[src] < ROUTE_KEEP) r->asks[src]++;
  if (!*d && (eager || r->asks[src] >= ROUTE_KEEP)) {
    *d = dist_from(r, src);
    if (!*d) return ROUTE_NOMEM;
  }
  if (!*d) {
    if (r->src != src) lazy_start(r, src);
    lazy_until(r, dst);
  }
  return hop(r, *d, dst) < 0 ? ROUTE_UNREACHABLE : 0;
}

/* The slot of key in the memo: its entry, or the empty slot it would
 * take; NULL when there is no memo. */
static route_memo *memo_slot(const route_table *r, long key) {
  if (!r->cap_memo) return NULL;
  long mask = r->cap_memo - 1, i = (long)(mix((uint64_t)key) & (uint64_t)mask);
  while (r->memo[i].key && r->memo[i].key != key) i = (i + 1) & mask;
  return &r->memo[i];
}

/* Remember path p[0..len) of key; quietly nothing when the memo is full
 * (it is only a cache); ROUTE_NOMEM when it cannot grow (every failed
 * allocation is reported: tests/test_alloc_faults.c), else 0. */
static int memo_put(route_table *r, long key, const int *p, int len) {
  if (r->n_links + len > ROUTE_MEMO_LINKS) return 0;
  if (2 * (r->n_memo + 1) > r->cap_memo) {
    long cap = r->cap_memo ? 2 * r->cap_memo : 1024;
    route_memo *m = mem_calloc((size_t)cap, sizeof *m);
    if (!m) return ROUTE_NOMEM;
    route_memo *old = r->memo;
    long old_cap = r->cap_memo;
    r->memo = m, r->cap_memo = cap;
    for (long i = 0; i < old_cap; i++)
      if (old[i].key) *memo_slot(r, old[i].key) = old[i];
    mem_free(old);
  }
  if (r->n_links + len > r->cap_links) {
    long cap = r->cap_links ? 2 * r->cap_links : 4096;
    while (cap < r->n_links + len) cap *= 2;
    int *l = mem_realloc(r->memo_links, (size_t)cap * sizeof *l);
    if (!l) return ROUTE_NOMEM;
    r->memo_links = l, r->cap_links = cap;
  }
  if (len > 0) memcpy(r->memo_links + r->n_links, p, (size_t)len * sizeof *p);
  *memo_slot(r, key) = (route_memo){key, r->n_links, len};
  r->n_links += len;
  r->n_memo++;
  return 0;
}

/* The walked paths' memo of r's tables, created on first use; NULL when
 * the topology's pair keys do not fit a slot, or out of memory (*nomem
 * set). */
static walked *walked_of(route_table *r, int *nomem) {
  walked *w = __atomic_load_n(&r->h->walked, __ATOMIC_ACQUIRE);
  long n = r->t->n_nodes;
  if (w || n * n + 1 >= 1L << (64 - WALKED_KEY_SHIFT)) return w;
  walked *mine = mem_calloc(1, sizeof *mine);
  if (!mine) return *nomem = 1, NULL;
  if (__atomic_compare_exchange_n(&r->h->walked, &w, mine, 0, __ATOMIC_ACQ_REL,
                                  __ATOMIC_ACQUIRE))
    return mine;
  mem_free(mine);
  return w; /* another table's, made first */
}

/* The walked path of key into *links, *len: 1, or 0 when not remembered. */
static int walked_get(const route_table *r, long key, const int **links, int *len) {
  const walked *w = __atomic_load_n(&r->h->walked, __ATOMIC_ACQUIRE);
  if (!w) return 0;
  for (uint64_t i = mix((uint64_t)key);; i++) {
    uint64_t v = __atomic_load_n(&w->slot[i & (WALKED_SLOTS - 1)], __ATOMIC_ACQUIRE);
    if (!v) return 0;
    if ((long)(v >> WALKED_KEY_SHIFT) == key) {
      *len = (int)(v & 0xff);
      *links = *len ? w->links + ((v >> 8) & 0xffff) : NULL;
      return 1;
    }
  }
}

/* Remember the walked path p[0..len) of key for every table of r's; quietly
 * nothing when the memo is full (it is only a cache); ROUTE_NOMEM when it
 * cannot be made, else 0. */
static int walked_put(route_table *r, long key, const int *p, int len) {
  int nomem = 0;
  walked *w = walked_of(r, &nomem);
  if (nomem) return ROUTE_NOMEM;
  if (!w || len > 0xff || __atomic_load_n(&w->n, __ATOMIC_RELAXED) >= WALKED_SLOTS / 2) return 0;
  long off = __atomic_fetch_add(&w->used, len, __ATOMIC_RELAXED);
  if (off + len > ROUTE_MEMO_WALKED) return 0;
  if (len > 0) memcpy(w->links + off, p, sizeof *p * (size_t)len);
  uint64_t v = (uint64_t)key << WALKED_KEY_SHIFT | (uint64_t)off << 8 | (uint64_t)len;
  for (uint64_t i = mix((uint64_t)key);; i++) {
    uint64_t cur = 0, *at = &w->slot[i & (WALKED_SLOTS - 1)];
    if (__atomic_compare_exchange_n(at, &cur, v, 0, __ATOMIC_RELEASE, __ATOMIC_ACQUIRE)) {
      __atomic_add_fetch(&w->n, 1, __ATOMIC_RELAXED);
      return 0;
    }
    if ((long)(cur >> WALKED_KEY_SHIFT) == key) return 0; /* another table's, the same */
  }
}

int route_path(route_table *r, int src, int dst, const int **links, int *n) {
  assert(src >= 0 && src < r->t->n_nodes && dst >= 0 && dst < r->t->n_nodes);
  long key = (long)src * r->t->n_nodes + dst + 1;
  int own = published(r, src) != NULL;
  int stub = src != dst && !own ? r->stub[src] : -1;
  int from = stub >= 0 ? r->t->links[stub].dst : src; /* whose hop counts */
  const route_memo *m = own ? NULL : memo_slot(r, key);
  if (m && m->key == key) {
    *links = m->len ? r->memo_links + m->off : NULL;
    *n = m->len;
    return 0;
  }
  if (!own && walked_get(r, key, links, n)) return 0;
  const unsigned char *d;
  int rc = reach(r, from, dst, &d, stub >= 0);
  if (rc) return rc;
  int len = walk_back(r, d, src, from, dst);
  if (stub >= 0) r->scratch[len++] = stub;
  for (int i = 0; i < len; i++) r->path[i] = r->scratch[len - 1 - i];
  if (!d) rc = memo_put(r, key, r->path, len);
  else if (!own) rc = walked_put(r, key, r->path, len);
  if (rc) return rc;
  *links = len ? r->path : NULL;
  *n = len;
  return 0;
}

int route_len(route_table *r, int src, int dst) {
  int stub = src != dst && !published(r, src) ? r->stub[src] : -1;
  if (stub >= 0) { /* the path route_path walks: the neighbour's hops, then one */
    int from = r->t->links[stub].dst;
    const unsigned char *d = published(r, from);
    if (d) return d[dst] == FAR ? ROUTE_UNREACHABLE : d[dst] + 1;
    int rc = reach(r, from, dst, &d, 1);
    return rc ? rc : hop(r, d, dst) + 1;
  }
  if (!published(r, src)) { /* lazily searched: the path, remembered for later */
    const int *links;
    int n, rc = route_path(r, src, dst, &links, &n);
    return rc ? rc : n;
  }
  const unsigned char *d;
  int rc = reach(r, src, dst, &d, 0);
  return rc ? rc : hop(r, d, dst);
}

size_t route_bytes(const route_table *r) {
  size_t n = (size_t)r->t->n_nodes;
  return sizeof *r + n * (sizeof *r->h->dist + sizeof *r->queue + sizeof *r->scratch +
                          sizeof *r->path + 1 + sizeof *r->ldist + sizeof *r->stamp +
                          sizeof *r->stub) +
         (size_t)__atomic_load_n(&r->h->n_dist, __ATOMIC_RELAXED) * n +
         (__atomic_load_n(&r->h->walked, __ATOMIC_RELAXED) ? sizeof(walked) : 0) +
         (size_t)r->cap_memo * sizeof *r->memo +
         (size_t)r->cap_links * sizeof *r->memo_links +
         (size_t)r->t->out_start[r->t->n_nodes] * sizeof *r->out_dst +
         (size_t)r->t->in_start[r->t->n_nodes] * sizeof *r->in_src +
         (size_t)r->h->max_in * sizeof *r->cand;
}
