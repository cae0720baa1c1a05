/*
 * spread.h -- a search split over MPI processes (module prefix: spread_).
 *
 * Built with -DSC_MPI=ON, a search started under mpirun splits its plan
 * space over the processes (process r of n takes the blocks r, r + n,
 * r + 2n, ... of SPREAD_BLOCK points of the canonical order:
 * spread_count, spread_point), each on its own threads, then
 * merges: the top k (the same total order, so the same plans as one
 * process finds), the counts, the closest plan. Every process ends with
 * the whole result. Without SC_MPI, or outside mpirun, there is one
 * process and every function here is the identity.
 */
#ifndef SC_SEARCH_SPREAD_H
#define SC_SEARCH_SPREAD_H

#include "search/topk.h"

/* Points of the space a process takes at a time: blocks keep neighbours
 * together (they lower alike) and spread the cheap and dear parts of the
 * space over the processes. */
#define SPREAD_BLOCK 256

/* The points of a space of n that process rank of size takes. */
long spread_count(long n, int rank, int size);

/* The space's index of that process's point j (0 <= j < spread_count):
 * over the processes, every point 0 .. n - 1 exactly once. */
long spread_point(long j, int rank, int size);

/* This process's rank and the number of processes (0 and 1 without MPI
 * or before sc_mpi_init). */
void spread_where(int *rank, int *size);

/* 1 when `failed` is nonzero on any process (every process must call it
 * at the same point, so that none waits for one that gave up). */
int spread_any(int failed);

/* Merge every process's top k into t (t->c and t->idx hold t->max slots).
 * SC_OK or SC_ENOMEM. */
int spread_topk(topk *t, sc_error *err);

/* Sum n counts over the processes, in place. */
void spread_sum(long *v, int n);

/* The least (mem, idx) over the processes, in place (idx -1 = none). */
void spread_least(double *mem, long *idx);

#endif
