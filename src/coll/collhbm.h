/*
 * collhbm.h -- the HBM traffic of NCCL's collective kernels (module
 * prefix: collhbm_), for the overlap slowdown of memory-bound kernels
 * running beside a collective.
 */
#ifndef SC_COLL_COLLHBM_H
#define SC_COLL_COLLHBM_H

#include "coll/coll.h"

/* Bytes one GPU's HBM reads and writes while `op` moves `bytes` (the
 * nccl-tests size: the whole buffer) over n ranks with NCCL's algorithm
 * `algo` and protocol `proto` (coll_cost's names). Counted from how
 * NCCL's ring kernels move data (collhbm.c); 0 for n <= 1. */
double collhbm_bytes(coll_op op, double bytes, int n, const char *algo, const char *proto);

/* HBM bytes per byte each GPU sends (nccl-tests' bus bytes): the ratio
 * the docs quote, e.g. 2 + n / (n - 1) for a Simple ring all-reduce. */
double collhbm_per_bus_byte(coll_op op, int n, const char *algo, const char *proto);

#endif
