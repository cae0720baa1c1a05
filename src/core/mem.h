/*
 * mem.h -- the one allocation entry point of the library (module prefix:
 * mem_).
 *
 * Every allocation of src/ goes through these functions, so that a test
 * build can make any one of them fail and check that the caller reports
 * SC_ENOMEM and leaks nothing (tests/test_alloc_faults.c). They behave as
 * malloc, calloc, realloc and free, with two differences: a request for
 * 0 bytes returns a unique pointer (never NULL on success), and
 * mem_calloc fails instead of wrapping when count * size overflows.
 *
 * Fault injection exists only in builds configured with SC_ALLOC_FAULTS
 * (the sanitizer build of scripts/test.sh). It is the library's only
 * mutable state outside the objects callers own: a countdown kept per
 * thread, so tests running in parallel threads do not disturb each other.
 * Without SC_ALLOC_FAULTS the two control functions do nothing.
 */
#ifndef SC_CORE_MEM_H
#define SC_CORE_MEM_H

#include <stddef.h>

/* NULL when out of memory (or when a fault was injected). */
void *mem_alloc(size_t bytes);
void *mem_calloc(size_t count, size_t size);
/* On failure p is left allocated and NULL is returned. */
void *mem_realloc(void *p, size_t bytes);
void mem_free(void *p);
/* A copy of s (NULL when out of memory). */
char *mem_strdup(const char *s);

/* Test builds: the next `n` allocations succeed and every one after them
 * fails, until mem_fail_after(-1) turns injection off (the default).
 * Returns 1 when injection is compiled in, 0 otherwise. */
int mem_fail_after(long n);
/* Test builds: allocations made (successful or failed) since the last
 * mem_fail_after call on this thread; 0 when injection is not compiled in. */
long mem_alloc_count(void);

#endif /* SC_CORE_MEM_H */
