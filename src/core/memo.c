/*
 * memo.c -- see memo.h.
 */
#include "core/memo.h"

#include <stdint.h>
#include <string.h>

#include "core/mem.h"

void memo_init(memo *m) { memset(m, 0, sizeof *m); }

void memo_free(memo *m) {
  mem_free(m->e);
  memo_init(m);
}

void memo_clear(memo *m) {
  if (m->e) memset(m->e, 0, (size_t)m->cap * sizeof *m->e);
  m->n = 0;
}

static uint64_t hash(const double *key) {
  uint64_t h = 0x9E3779B97F4A7C15ull;
  for (int i = 0; i < MEMO_KEY; i++) {
    uint64_t b;
    memcpy(&b, &key[i], sizeof b);
    h = (h ^ b) * 0xBF58476D1CE4E5B9ull;
    h ^= h >> 31;
  }
  return h;
}

/* The slot of key: its entry or the free slot where it goes. */
static memo_ent *slot(memo_ent *e, int cap, const double *key) {
  uint64_t i = hash(key) & (uint64_t)(cap - 1);
  for (;; i = (i + 1) & (uint64_t)(cap - 1))
    if (!e[i].used || !memcmp(e[i].key, key, sizeof e[i].key)) return &e[i];
}

const double *memo_get(const memo *m, const double *key) {
  if (!m->e) return NULL;
  const memo_ent *s = slot(m->e, m->cap, key);
  return s->used ? s->val : NULL;
}

/* Double the table. Its memory is zeroed by writing it, not by calloc:
 * a look-up probes the table before anything is put there, and a fresh
 * page that is read first faults twice, in as the system's zero page and
 * again when written (docs/search.md, "Threads: the memory a thread
 * touches"). */
static int grow(memo *m) {
  int cap = m->cap ? 2 * m->cap : 256;
  memo_ent *e = mem_alloc((size_t)cap * sizeof *e);
  if (!e) return -1;
  memset(e, 0, (size_t)cap * sizeof *e);
  for (int i = 0; i < m->cap; i++)
    if (m->e[i].used) *slot(e, cap, m->e[i].key) = m->e[i];
  mem_free(m->e);
  m->e = e;
  m->cap = cap;
  return 0;
}

int memo_put(memo *m, const double *key, const double *val) {
  if (2 * (m->n + 1) > m->cap && grow(m)) return -1;
  memo_ent *s = slot(m->e, m->cap, key);
  if (!s->used) m->n++;
  memcpy(s->key, key, sizeof s->key);
  memcpy(s->val, val, sizeof s->val);
  s->used = 1;
  return 0;
}

/* A shared entry: tag == gen when set, gen | MEMO_BUSY while its claimer
 * writes it, anything else when free (entries of earlier generations:
 * memo_shared_clear only moves gen on). */
#define MEMO_BUSY 0x80000000u

typedef struct memo_sent {
  double key[MEMO_KEY];
  double val[MEMO_VAL];
  unsigned tag;       /* atomic */
} memo_sent;

struct memo_shared {
  unsigned gen;       /* written by memo_shared_clear alone; read by every
                         look-up, so on a cache line of its own: */
  char pad[60];
  int n;              /* slots claimed (atomic: written by every put) */
  char pad2[60];
  memo_sent e[MEMO_SHARED_SLOTS];
};

/* Written whole at once, so that a search's look-ups do not fault its
 * pages in twice (grow's note). */
memo_shared *memo_shared_new(void) {
  memo_shared *m = mem_alloc(sizeof *m);
  if (!m) return NULL;
  memset(m, 0, sizeof *m);
  m->gen = 1;
  return m;
}

void memo_shared_free(memo_shared *m) { mem_free(m); }

void memo_shared_clear(memo_shared *m) {
  m->n = 0;
  m->gen = (m->gen + 1) & ~MEMO_BUSY;
  if (m->gen == 0) { /* wrapped: tags of old generations could match */
    memset(m->e, 0, sizeof m->e);
    m->gen = 1;
  }
}

const double *memo_shared_get(const memo_shared *m, const double *key) {
  for (uint64_t i = hash(key);; i++) {
    const memo_sent *s = &m->e[i & (MEMO_SHARED_SLOTS - 1)];
    unsigned tag = __atomic_load_n(&s->tag, __ATOMIC_ACQUIRE);
    if (tag == m->gen && !memcmp(s->key, key, sizeof s->key)) return s->val;
    if (tag != m->gen && tag != (m->gen | MEMO_BUSY)) return NULL; /* free */
  }
}

void memo_shared_put(memo_shared *m, const double *key, const double *val) {
  if (2 * (__atomic_load_n(&m->n, __ATOMIC_RELAXED) + 1) > MEMO_SHARED_SLOTS) return;
  for (uint64_t i = hash(key);;) {
    memo_sent *s = &m->e[i & (MEMO_SHARED_SLOTS - 1)];
    unsigned tag = __atomic_load_n(&s->tag, __ATOMIC_ACQUIRE);
    if (tag == m->gen && !memcmp(s->key, key, sizeof s->key)) return; /* put already */
    if (tag == m->gen || tag == (m->gen | MEMO_BUSY)) {
      i++;
      continue;
    }
    if (!__atomic_compare_exchange_n(&s->tag, &tag, m->gen | MEMO_BUSY, 0, __ATOMIC_ACQUIRE,
                                     __ATOMIC_ACQUIRE))
      continue; /* another thread claimed it: look again */
    __atomic_add_fetch(&m->n, 1, __ATOMIC_RELAXED);
    memcpy(s->key, key, sizeof s->key);
    memcpy(s->val, val, sizeof s->val);
    __atomic_store_n(&s->tag, m->gen, __ATOMIC_RELEASE);
    return;
  }
}
