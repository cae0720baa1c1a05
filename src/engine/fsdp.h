/*
 * fsdp.h -- ZeRO-3 / FSDP as each framework schedules it (module prefix:
 * fsdp_): the exposed time of a stage's parameter gathers and gradient
 * reductions per step, and the memory of the units gathered at once.
 *
 * The implementations (plan.fsdp_impl) differ in what a unit is, which
 * kernels surround the collectives, how far ahead gathers are issued and
 * what stays gathered; docs/model.md, "FSDP and ZeRO-3", gives the model
 * and the sources.
 */
#ifndef SC_ENGINE_FSDP_H
#define SC_ENGINE_FSDP_H

#include "engine/engine.h"

/* One segment as an FSDP unit (or a segment FSDP does not shard, whose
 * compute still hides the gathers beside it). */
typedef struct fsdp_unit {
  double f, b;        /* forward, backward (+ recompute) compute, s */
  double host;        /* host time of the forward queue, s */
  double gather;      /* copy-in (FSDP2) or shard cast (FSDP1) + all-gather(s)
                         on the gather stream, s */
  double copy_out;    /* FSDP2 copy-out on the compute stream per gather, s */
  double reduce;      /* reduce-scatter of its gradients (DeepSpeed: 0, its
                         gradients go to the reduce bucket; FSDP1: with the
                         kernels around it, fsdp1k.h), s */
  double rs_copy;     /* FSDP2 chunk-cat before the reduce-scatter, FSDP1
                         the gradient's cat (fsdp1k.h), compute stream, s */
  double params;      /* elements per GPU it gathers (0: not a unit) */
  grp_share share;    /* the gather's SM and HBM shares (groups.h) */
  grp_share rs_share; /* ... and the reduce-scatter's */
  double allreduce;   /* HSDP, FSDP1/FSDP2: all-reduce of its reduced shard
                         across the replicas after its reduce-scatter, s */
  grp_share ar_share; /* ... its shares */
  int layer;          /* 1 = a layer unit (resharded after forward) */
} fsdp_unit;

/* What the gathers and reductions of stage st move in one step, per GPU:
 * for the tests' arithmetic and docs/model.md. */
typedef struct fsdp_traffic {
  double gathers;     /* all-gather calls */
  double gather_bytes;/* bytes of their gathered outputs */
  double reduces;     /* reduce-scatter calls */
  double reduce_bytes;/* bytes of their inputs */
  double copy_bytes;  /* HBM bytes of FSDP2's copy-in, copy-out, chunk-cat;
                         FSDP1's kernels (fsdp1k.h) */
  double allreduces;  /* HSDP all-reduces across replicas (FSDP1/FSDP2) */
  double allreduce_bytes;
} fsdp_traffic;

/* 1 when plan p's HSDP all-reduce runs after each unit's reduce-scatter
 * in every backward (FSDP1 HYBRID_SHARD, FSDP2's all_reduce_grads
 * default), which fsdp_exposed costs; 0 when it runs once per step. */
int fsdp_hsdp_per_unit(const sc_plan *p);

/* Exposed seconds per step of stage st's ZeRO-3 units over mbs
 * micro-batches (0 when none): the two passes of each micro-batch run
 * through a compute stream and a communication stream. Needs
 * eng_prepare's groups and queues. */
double fsdp_exposed(const eng *e, const xg_stage *st, int mbs);

/* Framework calls the implementation adds around layer unit sg in the
 * forward (bwd 0) or backward (bwd 1) pass of one micro-batch, beyond its
 * lowered tasks and its collectives: FSDP1's kernels (fsdp1k.h); 0 for a
 * segment that is not a layer unit and for the other implementations
 * (their copies' launches are not counted). The root unit's are not
 * counted either (one unit of the stage's layers + 1). */
int fsdp_unit_launches(const eng *e, const xg_segment *sg, int bwd);

/* Count what stage st gathers and reduces in mbs micro-batches (no
 * times; needs only the lowered graph). */
void fsdp_count(const eng *e, const xg_stage *st, int mbs, fsdp_traffic *out);

/* Bytes per GPU that stage st holds beyond its shards at the peak:
 * gathered weights (*w) and unsharded gradients (*g); eb the bytes of
 * a weight. Needs only the lowered graph. */
void fsdp_memory(const eng *e, const xg_stage *st, double eb, double *w, double *g);

#endif
