/*
 * memo.h -- a memo of pure functions: up to MEMO_KEY doubles in, MEMO_VAL
 * doubles out (module prefix: memo_).
 *
 * An open-addressing hash table, at most half full, grown by doubling.
 * Keys are compared bit for bit, so a memoised call returns exactly what
 * the function would. A prepared job keeps one for the kernel and
 * collective costs its plans share.
 */
#ifndef SC_CORE_MEMO_H
#define SC_CORE_MEMO_H

#include <stdint.h>
#include <string.h>

#define MEMO_KEY 6
#define MEMO_VAL 3 /* a collective's time, SM share and HBM share */

typedef struct memo_ent {
  double key[MEMO_KEY];
  double val[MEMO_VAL];
  int used;
} memo_ent;

typedef struct memo {
  memo_ent *e;   /* owned, cap slots (a power of two), NULL when empty */
  int n, cap;
} memo;

void memo_init(memo *m);
void memo_free(memo *m);
/* Forget every entry, keeping the table (a job reused for another
 * search: job_park). */
void memo_clear(memo *m);

/* The entry of key[0..MEMO_KEY) (unused key slots must be 0), or NULL. */
const double *memo_get(const memo *m, const double *key);

/* Remember val[0..MEMO_VAL) for key. 0, or -1 when out of memory (nothing is
 * remembered; the memo is still valid). */
int memo_put(memo *m, const double *key, const double *val);

/* FNV-1a of h and n bytes at b, a 64-bit word at a time: the hash of the
 * memos keyed by raw structs (lower/lcache.c, lower/segmemo.c). Inline:
 * they call it on every plan. */
static inline uint64_t memo_hash_bytes(uint64_t h, const void *b, size_t n) {
  const unsigned char *c = b;
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    uint64_t w;
    memcpy(&w, c + i, 8);
    h = (h ^ w) * 1099511628211u;
  }
  for (; i < n; i++) h = (h ^ c[i]) * 1099511628211u;
  return h;
}

#endif /* SC_CORE_MEMO_H */
