/*
 * vec.h -- growable arrays (module prefix: vec_).
 *
 * A growable array is three members of the struct that owns it: a
 * pointer, a count and a capacity (elements, int). vec_grow makes room
 * and leaves the count to the caller, so any struct can hold several
 * arrays without a wrapper type:
 *
 *   if (vec_grow((void **)&t->links, &t->cap_links, t->n_links + 1,
 *                sizeof *t->links)) return -1;
 *   t->links[t->n_links++] = link;
 *
 * VEC_PUSH does the same in one expression for a struct with members
 * `v`, `n`, `cap` (VEC(T) declares one). Memory comes from mem_alloc;
 * free the pointer with mem_free.
 */
#ifndef SC_CORE_VEC_H
#define SC_CORE_VEC_H

#include <stddef.h>

/* Make *p (of *cap elements of `elem` bytes) hold at least `need`
 * elements, doubling from 16. 0, or -1 when out of memory or when `need`
 * exceeds INT_MAX elements (then *p and *cap are unchanged). */
int vec_grow_to(void **p, int *cap, long need, size_t elem);
/* (inline: most calls find room already, and an append is the inner loop
 * of schedule builds and lowering) */
static inline int vec_grow(void **p, int *cap, long need, size_t elem) {
  return need <= *cap ? 0 : vec_grow_to(p, cap, need, elem);
}

/* Make *p hold at least `need` elements, exactly `need` when it must
 * grow (no doubling): an array sized once to what it will hold, so that
 * no memory past it is allocated and touched. 0, or -1 as vec_grow. */
int vec_reserve(void **p, int *cap, long need, size_t elem);

/* An anonymous growable array of T. */
#define VEC(T) struct { T *v; int n, cap; }

/* Append x to a VEC; 0, or -1 when out of memory (nothing appended). */
#define VEC_PUSH(a, x)                                                     \
  (vec_grow((void **)&(a).v, &(a).cap, (long)(a).n + 1, sizeof *(a).v)     \
       ? -1                                                                \
       : ((a).v[(a).n++] = (x), 0))

#endif /* SC_CORE_VEC_H */
