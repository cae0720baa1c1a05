/*
 * space.h -- the plan space of a search, in its canonical order (module
 * prefix: space_).
 *
 * A point of the space is the few fields a search varies; the rest of a
 * plan (batch, dtype, switches) is the base scenario's. The order of the
 * points is the search's tie-break of last resort: of two plans with the
 * same step and memory, the earlier point ranks first, so the ranking is
 * the same whatever the thread or process count.
 */
#ifndef SC_SEARCH_SPACE_H
#define SC_SEARCH_SPACE_H

#include <stdint.h>

#include "graph/graph.h"
#include "stepcast.h"

/* The most points a search lists (1.07 GB of space_pt; 16 s of plans at
 * a million a second): more is refused before it is listed. */
#define SPACE_MAX_POINTS (1L << 24)

typedef struct space_pt {
  int tp, pp, dp, cp, ep, vpp;
  long micro_batch;      /* sequences */
  int fsdp_shard;        /* zero 3: ranks one shard spans (HSDP); 0 = all */
  int first, last;       /* layers of the first / last pipeline stage
                            (Megatron's num_layers_in_first/last_pipeline_
                            stage); 0 = the even share */
  int recompute_layers;  /* recompute full: the first N layers of every
                            chunk (Megatron's block method); 0 = all */
  int offload_layers;    /* activations of the first N layers in host memory */
  signed char zero;      /* 0..3 */
  signed char recompute; /* an sc_recompute */
  signed char emb_loss;  /* 1 = the embedding and the loss count as layers
                            of the pipeline split (Megatron-Core's
                            account_for_embedding/loss_in_pipeline_split),
                            for layers that pp does not divide */
  signed char etp;       /* 0 = experts split by tp, 1 = whole (ep folded
                            over tp x dp x cp) */
  signed char dtype;     /* an sc_dtype: the GEMMs' type */
} space_pt;

/* The points of base's plan space within o's bounds (o's zeros already
 * replaced by defaults), for graph g: *pts is a new array of *n points
 * (mem_free it). Skips what a framework would reject before a run starts:
 * degrees that do not divide the GPUs, layers (with the stage layouts of
 * space.c), batch (Megatron: micro-batch x dp divides the global batch)
 * or experts, interleaved schedules whose micro-batch count is not a
 * multiple of pp (Megatron-LM), ZeRO 2 and 3 with pipelining (DeepSpeed),
 * offloading with pipelining, recomputation or CUDA graphs (Megatron), dtypes the GPU
 * has no peak for, and what o's constraints exclude (fixed degrees,
 * micro-batch, vpp; the recomputation kinds); and selective
 * recomputation where it re-runs nothing (a CNN: the "none" plan again). SC_OK, SC_EINPUT (more than SPACE_MAX_POINTS points:
 * counted before anything is allocated, the message gives the count and
 * the memory) or SC_ENOMEM. */
int space_build(const sc_scenario *base, const wg_graph *g, const sc_search_opts *o,
                space_pt **pts, long *n, sc_error *err);
/* space_build into *pts, an array of room for *cap points (NULL, 0: none)
 * that is kept when the space fits in it and else replaced (its old
 * points are not kept): a searcher lists each search's space in the
 * memory of the last (search.c). On an error *pts and *cap are left as
 * they were, *n 0. */
int space_build_in(const sc_scenario *base, const wg_graph *g, const sc_search_opts *o,
                   space_pt **pts, long *cap, long *n, sc_error *err);

/* Names of the SC_SEARCH_RECOMP_* bits, bit b at [b] (--recompute's
 * items, and the search's messages). */
#define SPACE_RECOMP_KINDS 4
extern const char *const space_recomp_names[SPACE_RECOMP_KINDS];

/* The dimensions space_probe reports. */
#define SPACE_PROBE_MB 1        /* micro-batch, sequences */
#define SPACE_PROBE_VPP 2       /* interleaving chunks */
#define SPACE_PROBE_RECOMPUTE 3 /* recomputation, SC_SEARCH_RECOMP_* bits */

/* Walk base's space under o (as space_build, without listing it) and
 * note the values dimension dim (a SPACE_PROBE_*) takes: bit x of *seen
 * for value x below 63, bit 63 for any larger; for RECOMPUTE the
 * SC_SEARCH_RECOMP_* bits. The number of points. */
long space_probe(const sc_scenario *base, const wg_graph *g, const sc_search_opts *o, int dim,
                 uint64_t *seen);

/* 1 when selective recomputation re-runs nothing in g: no operator is in
 * a module of base's recompute_modules (core attention by default;
 * lower/recmod.h). A CNN has no attention, so its selective plan is its
 * "none" plan, step and memory alike; the space leaves it out. */
int space_selective_void(const sc_scenario *base, const wg_graph *g);

/* The GEMM types base's space holds, bit d an sc_dtype: o's dtypes that
 * the GPU has a peak for, or (o->dtypes 0) the scenario's. */
unsigned space_dtypes(const sc_scenario *base, const sc_search_opts *o);

/* The largest expert count of g's operators (0 for a dense model). */
int space_experts(const wg_graph *g);

/* The plan of point pt: base with pt's fields. */
void space_plan(const sc_plan *base, const space_pt *pt, sc_plan *out);
/* space_plan in place: *p holds the base plan (a fresh copy of it: the
 * fields a point sets are overwritten, the ones it clears cleared). */
void space_apply(const space_pt *pt, sc_plan *p);

#endif
