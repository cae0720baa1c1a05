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

#include <stddef.h>

#include "load/csv.h"

/* GPUs one host thread of the benchmark drove: N when the notes quote
 * nccl-tests' header "nGpus N" (each of its nThread threads issues every
 * collective for nGpus GPUs, `-g N`), else 1 (one GPU per process, as
 * MPI-launched runs and training frameworks run). A malformed or
 * implausible count (< 1 or > 1024) also gives 1. */
int collrow_host_gpus(const char *notes);

/* The collective an `op` cell names, as coll_op_from_name reads it after
 * dropping ASCII case, '-' and spaces: NCCL's "AllReduce", "ReduceScatter",
 * nccl-tests' "alltoall", "all-to-all"; -1 when none. */
int collrow_op(const char *op);

/* The first of the cells a collective cannot be predicted without (op,
 * bytes, ranks, gpu) that is blank in the current record of f, or NULL. */
const char *collrow_blank(const csv_file *f);

/* The GPUs per node of a row whose `gpus_per_node` is blank: the NVLink
 * domain of the GPU's reference system (a DGX/HGX server 8, GB200 NVL72
 * 72: the GPUs a collective reaches over NVLink), else 8; said in
 * assumed (capacity an). */
int collrow_node(const char *gpu, char *assumed, size_t an);

/* The links of a row whose cells may be blank: *intra_bw (bytes/s per
 * direction) = nvl_GBps, blank (0) = the GPU preset's NVLink (gpu_nvlink,
 * bytes/s); *inter_bw = nic_Gbps, blank (0) with the ranks spanning
 * servers (`spans`) = the NIC of the GPU's reference system
 * (rowd_reference_nic), else 0. Each value taken for a blank cell is said
 * in assumed (capacity an). Returns 0, or 1 when the ranks span servers,
 * the NIC is blank and the GPU has no reference system (nothing to take;
 * the caller skips the row). */
int collrow_links(const char *gpu, double gpu_nvlink, double nvl_GBps, double nic_Gbps,
                  int spans, double *intra_bw, double *inter_bw, char *assumed, size_t an);

#endif /* SC_VALIDATE_COLLROW_H */
