/*
 * spread.c -- a search split over MPI processes; see spread.h.
 */
#include "search/spread.h"

#include <string.h>

#include "core/mem.h"
#include "stepcast.h"

long spread_count(long n, int rank, int size) {
  long full = n / SPREAD_BLOCK, rem = n % SPREAD_BLOCK;
  long count = full > rank ? (full - rank + size - 1) / size * SPREAD_BLOCK : 0;
  return count + (rem > 0 && full % size == rank ? rem : 0);
}

long spread_point(long j, int rank, int size) {
  long b = j / SPREAD_BLOCK;
  return (b * size + rank) * SPREAD_BLOCK + j % SPREAD_BLOCK;
}

#ifdef SC_MPI
#include <mpi.h>

/* 1 when MPI is up (sc_mpi_init, or the embedding program's MPI_Init). */
static int mpi_up(void) {
  int init = 0, fin = 0;
  MPI_Initialized(&init);
  MPI_Finalized(&fin);
  return init && !fin;
}

int sc_mpi_init(int *argc, char ***argv) {
  int init = 0;
  MPI_Initialized(&init);
  if (!init && MPI_Init(argc, argv) != MPI_SUCCESS) return -1;
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  return rank;
}

void sc_mpi_finalize(void) {
  if (mpi_up()) MPI_Finalize();
}

void spread_where(int *rank, int *size) {
  *rank = 0;
  *size = 1;
  if (!mpi_up()) return;
  MPI_Comm_rank(MPI_COMM_WORLD, rank);
  MPI_Comm_size(MPI_COMM_WORLD, size);
}

/* One candidate as it travels: the candidate and its space index. */
typedef struct wire {
  sc_candidate c;
  long idx;
} wire;

int spread_topk(topk *t, sc_error *err) {
  int rank, size;
  spread_where(&rank, &size);
  if (size == 1) return SC_OK;
  wire *mine = mem_calloc((size_t)(t->n > 0 ? t->n : 1), sizeof *mine);
  wire *all = mem_calloc((size_t)size * (size_t)t->max, sizeof *all);
  int *counts = mem_calloc((size_t)size * 2, sizeof *counts);
  int rc = mine && all && counts ? SC_OK
                                 : sc_error_set(err, SC_ENOMEM, "out of memory merging the best plans");
  /* every process learns whether every other could allocate */
  int ok = rc == SC_OK, all_ok = 0;
  MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (all_ok) {
    for (int i = 0; i < t->n; i++) mine[i] = (wire){t->c[i], t->idx[i]};
    int bytes = t->n * (int)sizeof *mine, *displ = counts + size;
    MPI_Allgather(&bytes, 1, MPI_INT, counts, 1, MPI_INT, MPI_COMM_WORLD);
    for (int r = 0; r < size; r++) displ[r] = r * t->max * (int)sizeof *all;
    MPI_Allgatherv(mine, bytes, MPI_BYTE, all, counts, displ, MPI_BYTE, MPI_COMM_WORLD);
    t->n = 0;
    for (int r = 0; r < size; r++)
      for (int i = 0; i < counts[r] / (int)sizeof *all; i++)
        topk_add(t, &all[r * t->max + i].c, all[r * t->max + i].idx);
  } else if (rc == SC_OK) {
    rc = sc_error_set(err, SC_ENOMEM, "out of memory merging the best plans (another process)");
  }
  mem_free(mine);
  mem_free(all);
  mem_free(counts);
  return rc;
}

int spread_any(int failed) {
  int rank, size;
  spread_where(&rank, &size);
  if (size > 1) MPI_Allreduce(MPI_IN_PLACE, &failed, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  return failed != 0;
}

void spread_sum(long *v, int n) {
  int rank, size;
  spread_where(&rank, &size);
  if (size > 1) MPI_Allreduce(MPI_IN_PLACE, v, n, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
}

void spread_least(double *mem, long *idx) {
  int rank, size;
  spread_where(&rank, &size);
  if (size == 1) return;
  double m = *idx >= 0 ? *mem : 1e300;
  MPI_Allreduce(MPI_IN_PLACE, &m, 1, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD);
  /* of the processes holding that memory, the earliest plan */
  long least = *idx >= 0 && *mem == m ? *idx : 0x7fffffffffffffffL;
  MPI_Allreduce(MPI_IN_PLACE, &least, 1, MPI_LONG, MPI_MIN, MPI_COMM_WORLD);
  *mem = m;
  *idx = least == 0x7fffffffffffffffL ? -1 : least;
}

#else /* one process */

int sc_mpi_init(int *argc, char ***argv) { return 0; }
void sc_mpi_finalize(void) {}

void spread_where(int *rank, int *size) {
  *rank = 0;
  *size = 1;
}

int spread_any(int failed) { return failed != 0; }
int spread_topk(topk *t, sc_error *err) { return SC_OK; }
void spread_sum(long *v, int n) {}
void spread_least(double *mem, long *idx) {}

#endif
