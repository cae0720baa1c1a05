/*
 * whatif.h -- durations of traced GPU operations under a what-if (module
 * prefix: wi_).
 *
 * A kernel moved to another GPU takes its measured time times the cost
 * model's ratio for its class (src/cost/compute.h): GEMM and convolution
 * by large-GEMM throughput (peak x efficiency, fp16 unless the name says
 * fp32), attention by peak x attention efficiency, memory-bound kernels,
 * sets and device copies by achievable HBM bandwidth; host copies keep
 * their time (PCIe). A collective takes NCCL's modelled time on the
 * what-if group (sc_coll_nccl_time), or its measured time times the ratio
 * of the modelled times what-if / as traced -- for a collective not
 * joined over every rank, only the part up to the model's time as
 * traced; the rest is waiting for other ranks and is kept.
 */
#ifndef SC_TRACE_WHATIF_H
#define SC_TRACE_WHATIF_H

#include "stepcast.h"
#include "trace/tgraph.h"

/* Prepared what-if for one rank. */
typedef struct wi_ctx {
  const sc_gpu *from;  /* the traced GPU's preset (NULL: unknown) */
  const sc_gpu *to;    /* the what-if GPU (NULL: same as traced) */
  sc_trace_whatif w;   /* with defaults filled */
  int world;           /* traced world size (0 unknown) */
  int network_changed; /* any of dp_scale, gpu, nvlink, nic, ranks_per_node */
} wi_ctx;

/* The preset of a traced device name / SM version; NULL when unknown. */
const sc_gpu *wi_traced_gpu(const char *name, int arch);

/* Prepare c for rank r under w (NULL: as traced). SC_OK, or SC_EINPUT
 * with err naming the bad what-if value and what is valid. */
int wi_prepare(wi_ctx *c, const tg_rank *r, const sc_trace_whatif *w, sc_error *err);

/* Duration (us) of op g under c; joined: g is a collective joined over
 * every rank of its job (its measured time holds no wait for a rank the
 * replay lacks). *retimed is set to 1 when the network model set or
 * scaled it (collective of known size over more than one rank as
 * traced, or any size under comm_model). */
double wi_duration(const wi_ctx *c, const tg_gpu *g, int joined, int *retimed);

/* NCCL's modelled seconds of collective g over `ranks` ranks on gpu with
 * the what-if's network; 0 when unknown. */
double wi_coll_model(const wi_ctx *c, const tg_gpu *g, const sc_gpu *gpu, int ranks);

#endif
