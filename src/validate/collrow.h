/*
 * collrow.h -- what a collective measurement row leaves blank (module
 * prefix: collrow_).
 *
 * A row of ../shared/validation/collectives gives the op, size, ranks and
 * hardware; how the benchmark's processes drove the GPUs is only in the
 * row's notes, when they quote nccl-tests' header. The same rule for
 * every row, whatever its source: nothing here looks at a row's source,
 * id or measured value.
 */
#ifndef SC_VALIDATE_COLLROW_H
#define SC_VALIDATE_COLLROW_H

/* GPUs one host thread of the benchmark drove: N when the notes quote
 * nccl-tests' header "nGpus N" (each of its nThread threads issues every
 * collective for nGpus GPUs, `-g N`), else 1 (one GPU per process, as
 * MPI-launched runs and training frameworks run). A malformed or
 * implausible count (< 1 or > 1024) also gives 1. */
int collrow_host_gpus(const char *notes);

#endif /* SC_VALIDATE_COLLROW_H */
