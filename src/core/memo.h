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

/* The entry of key[0..MEMO_KEY) (unused key slots must be 0), or NULL. */
const double *memo_get(const memo *m, const double *key);

/* Remember val[0..MEMO_VAL) for key. 0, or -1 when out of memory (nothing is
 * remembered; the memo is still valid). */
int memo_put(memo *m, const double *key, const double *val);

#endif /* SC_CORE_MEMO_H */
