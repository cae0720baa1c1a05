/*
 * qmemo.c -- a memo of queue summaries per segment; see qmemo.h for the
 * key and why it is complete.
 *
 * A set-associative table: the key's hash picks a set of QMEMO_WAYS
 * slots, compared field by field.
 */
#include "engine/qmemo.h"

#include <string.h>

#include "core/mem.h"

void qmemo_init(qmemo *m) { memset(m, 0, sizeof *m); }

void qmemo_free(qmemo *m) {
  mem_free(m->slots);
  qmemo_init(m);
}

void qmemo_clear(qmemo *m) {
  memset(m->ready, 0, sizeof m->ready); /* a set is emptied when first put into */
  m->hits = m->misses = 0;
}

static int same(const qmemo_key *a, const qmemo_key *b) {
  return a->id == b->id && a->zero3 == b->zero3 && a->recompute == b->recompute &&
         a->mode == b->mode;
}

/* The number of k's set. */
static size_t set_of(const qmemo_key *k) {
  uint64_t h = (k->id ^ (uint64_t)(k->zero3 | k->recompute << 1 | k->mode << 4) << 56) *
               0x9e3779b97f4a7c15u;
  h ^= h >> 29;
  return (size_t)(h & (QMEMO_SETS - 1));
}

/* 1 when set i has been emptied (its slots may be read). */
static int ready(const qmemo *m, size_t i) { return m->ready[i / 64] >> (i % 64) & 1u; }

const eng_qsum *qmemo_get(qmemo *m, const qmemo_key *k) {
  if (!m->slots || !k->id) return NULL;
  size_t i = set_of(k);
  m->clock++;
  if (!ready(m, i)) {
    m->misses++;
    return NULL;
  }
  qmemo_slot *set = &m->slots[i * QMEMO_WAYS];
  for (int w = 0; w < QMEMO_WAYS; w++)
    if (set[w].k.id && same(&set[w].k, k)) {
      set[w].stamp = m->clock;
      m->hits++;
      return set[w].qs;
    }
  m->misses++;
  return NULL;
}

int qmemo_put(qmemo *m, const qmemo_key *k, const eng_qsum *qs) {
  if (!m->slots && !(m->slots = mem_alloc(QMEMO_SLOTS * sizeof *m->slots))) return -1;
  size_t i = set_of(k);
  qmemo_slot *set = &m->slots[i * QMEMO_WAYS], *v = set;
  if (!ready(m, i)) {
    memset(set, 0, QMEMO_WAYS * sizeof *set);
    m->ready[i / 64] |= (uint64_t)1 << (i % 64);
  }
  for (int w = 0; w < QMEMO_WAYS; w++) {
    if (!set[w].k.id || same(&set[w].k, k)) {
      v = &set[w];
      break;
    }
    if (set[w].stamp < v->stamp) v = &set[w];
  }
  v->k = *k;
  v->qs[0] = qs[0];
  v->qs[1] = qs[1];
  v->stamp = ++m->clock;
  return 0;
}
