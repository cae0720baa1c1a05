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
