/*
 * route.c -- lazily computed, cached shortest paths (see route.h).
 */
#include "net/route.h"

#include <assert.h>
#include <stdint.h>
#include <string.h>

#include "core/mem.h"
#include "core/vec.h"

typedef struct slot {
  uint64_t key;  /* (src << 32 | dst) + 1; 0 = empty */
  int off, len;  /* into pool */
} slot;

struct route_table {
  const topo *t;
  route_policy policy;
  /* BFS state from `src` */
  int src;
  int *dist;     /* per node; valid where stamp == epoch */
  unsigned *stamp;
  unsigned epoch;
  int *queue, head, tail;
  /* path storage */
  int *pool;     /* link ids of all cached paths */
  int pool_len, pool_cap;
  slot *slots;
  size_t n_slots, used;
  int *scratch;  /* one path, reversed, n_nodes long */
};

route_table *route_new(const topo *t, route_policy policy) {
  assert(t && t->out_start);
  route_table *r = mem_calloc(1, sizeof *r);
  if (!r) return NULL;
  size_t n = (size_t)t->n_nodes;
  r->t = t, r->policy = policy, r->src = -1;
  r->dist = mem_alloc(n * sizeof *r->dist);
  r->stamp = mem_calloc(n, sizeof *r->stamp);
  r->queue = mem_alloc(n * sizeof *r->queue);
  r->scratch = mem_alloc(n * sizeof *r->scratch);
  r->n_slots = 1024;
  r->slots = mem_calloc(r->n_slots, sizeof *r->slots);
  if (!r->dist || !r->stamp || !r->queue || !r->scratch || !r->slots) {
    route_free(r);
    return NULL;
  }
  return r;
}

void route_free(route_table *r) {
  if (!r) return;
  mem_free(r->dist), mem_free(r->stamp), mem_free(r->queue), mem_free(r->scratch);
  mem_free(r->pool), mem_free(r->slots);
  mem_free(r);
}

static uint64_t mix(uint64_t x) {
  x ^= x >> 33, x *= 0xff51afd7ed558ccdULL, x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ULL, x ^= x >> 33;
  return x;
}

static slot *find_slot(slot *slots, size_t n, uint64_t key) {
  size_t i = mix(key) & (n - 1);
  while (slots[i].key && slots[i].key != key) i = (i + 1) & (n - 1);
  return &slots[i];
}

static int grow_slots(route_table *r) {
  size_t n = r->n_slots * 2;
  slot *s = mem_calloc(n, sizeof *s);
  if (!s) return -1;
  for (size_t i = 0; i < r->n_slots; i++)
    if (r->slots[i].key) *find_slot(s, n, r->slots[i].key) = r->slots[i];
  mem_free(r->slots);
  r->slots = s, r->n_slots = n;
  return 0;
}

static int known(const route_table *r, int v) { return r->stamp[v] == r->epoch; }

/* Continue the BFS from r->src until dst has a distance (or all done). */
static void bfs_until(route_table *r, int dst) {
  const topo *t = r->t;
  while (!known(r, dst) && r->head < r->tail) {
    int v = r->queue[r->head++];
    for (int k = t->out_start[v]; k < t->out_start[v + 1]; k++) {
      int w = t->links[t->out_link[k]].dst;
      if (!known(r, w)) {
        r->stamp[w] = r->epoch, r->dist[w] = r->dist[v] + 1;
        r->queue[r->tail++] = w;
      }
    }
  }
}

static void bfs_start(route_table *r, int src) {
  r->src = src;
  if (++r->epoch == 0) { /* wrapped: clear the stamps */
    memset(r->stamp, 0, sizeof *r->stamp * (size_t)r->t->n_nodes);
    r->epoch = 1;
  }
  r->head = r->tail = 0;
  r->queue[r->tail++] = src;
  r->stamp[src] = r->epoch, r->dist[src] = 0;
}

/* Walk back from dst choosing a predecessor one hop closer to src. */
static int walk_back(route_table *r, int src, int dst) {
  const topo *t = r->t;
  int len = 0, v = dst;
  while (v != src) {
    int best = -1, nbest = 0;
    for (int k = t->in_start[v]; k < t->in_start[v + 1]; k++) {
      int id = t->in_link[k], u = t->links[id].src;
      if (!known(r, u) || r->dist[u] != r->dist[v] - 1) continue;
      if (r->policy == ROUTE_DOR && best >= 0) {
        int d = t->links[id].dim, bd = t->links[best].dim;
        if (d < bd) continue;
        if (d > bd) { best = id, nbest = 1; continue; }
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

int route_path(route_table *r, int src, int dst, const int **links, int *n) {
  assert(src >= 0 && src < r->t->n_nodes && dst >= 0 && dst < r->t->n_nodes);
  uint64_t key = ((uint64_t)(uint32_t)src << 32 | (uint32_t)dst) + 1;
  slot *s = find_slot(r->slots, r->n_slots, key);
  if (!s->key) {
    if (r->src != src) bfs_start(r, src);
    bfs_until(r, dst);
    if (!known(r, dst)) return ROUTE_UNREACHABLE;
    int len = walk_back(r, src, dst);
    if (vec_grow((void **)&r->pool, &r->pool_cap, (long)r->pool_len + len, sizeof *r->pool))
      return ROUTE_NOMEM;
    for (int i = 0; i < len; i++) r->pool[r->pool_len + i] = r->scratch[len - 1 - i];
    if ((r->used + 1) * 2 > r->n_slots) {
      if (grow_slots(r)) return ROUTE_NOMEM;
      s = find_slot(r->slots, r->n_slots, key);
    }
    s->key = key, s->off = r->pool_len, s->len = len;
    r->pool_len += len;
    r->used++;
  }
  *links = s->len ? r->pool + s->off : NULL; /* the pool may not exist yet */
  *n = s->len;
  return 0;
}

size_t route_bytes(const route_table *r) {
  size_t n = (size_t)r->t->n_nodes;
  return sizeof *r + (size_t)r->pool_cap * sizeof *r->pool + r->n_slots * sizeof *r->slots +
         n * (sizeof *r->dist + sizeof *r->stamp + sizeof *r->queue + sizeof *r->scratch);
}
