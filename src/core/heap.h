/*
 * heap.h -- a binary min-heap of (key, id) pairs (module prefix: heap_).
 *
 * Sized once (heap_init) and never grown, so that an event loop pushing
 * and popping it allocates nothing: pushing beyond the capacity is a
 * broken invariant (assert). Equal keys come out in an order fixed by
 * the sequence of pushes and pops, so runs are deterministic.
 */
#ifndef SC_CORE_HEAP_H
#define SC_CORE_HEAP_H

typedef struct heap_ent {
  double key;   /* smallest first */
  int id;       /* the caller's index */
} heap_ent;

typedef struct heap {
  heap_ent *e;  /* owned, cap entries */
  int n, cap;
} heap;

/* Room for `cap` entries; 0, or -1 when out of memory (then h is empty
 * and heap_free is still safe). */
int heap_init(heap *h, int cap);
void heap_free(heap *h);

void heap_push(heap *h, double key, int id);
/* Remove and return the smallest entry; h must not be empty. */
heap_ent heap_pop(heap *h);
static inline int heap_empty(const heap *h) { return h->n == 0; }
/* Remove every entry (the capacity stays). */
static inline void heap_clear(heap *h) { h->n = 0; }

#endif /* SC_CORE_HEAP_H */
