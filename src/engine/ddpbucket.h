/*
 * ddpbucket.h -- Megatron-Core DDP's gradient buckets and the chain of
 * their reductions beside the last backward: the one definition the
 * closed form (dpoverlap.c) and the event engine (evbucket.c) both run,
 * so that they agree where the closed form is exact.
 *
 * Buckets hold at least ddpb_size parameters, filled in backward order
 * and closed at a layer's boundary (ddpb_fill). A bucket leaves when the
 * backward that completes it ends; its reduction starts when it has left
 * and the bucket before it is done, one after another on the DP stream.
 * While a reduction runs beside the backward, the backward loses `share`
 * of its pace (groups.h grp_slow) for the time they overlap, so the
 * buckets it completes later leave later by the slowdown so far.
 */
#ifndef SC_ENGINE_DDPBUCKET_H
#define SC_ENGINE_DDPBUCKET_H

/* Parameters per bucket over `ranks` data-parallel ranks (dp x cp, the
 * data-parallel world with context parallelism), with overlap_grad_reduce:
 * distributed_data_parallel.py, max(40,000,000, 1,000,000 x ranks). */
double ddpb_size(double ranks);

/* Adds a layer's lp parameters (> 0) to the open bucket of *acc
 * parameters; returns the bucket's parameters when that closes it
 * (*acc >= size, *acc reset to 0), else 0. */
double ddpb_fill(double *acc, double lp, double size);

/* The chain of bucket reductions; times in s, on any one clock. */
typedef struct ddpb_chain {
  double prev;  /* the last reduction's end (-inf before the first) */
  double d;     /* the backward's slowdown so far */
  double end;   /* the backward's end, unslowed */
  double share; /* the backward's pace lost beside a reduction (grp_slow) */
} ddpb_chain;

/* An empty chain beside a backward ending at `end`. */
ddpb_chain ddpb_chain_new(double end, double share);

/* A reduction of dur s whose bucket left at `issue` (before the slowdown
 * so far); returns its start (its end is start + dur). */
double ddpb_add(ddpb_chain *c, double issue, double dur);

/* What runs past the unslowed backward's end: the chain's last end or the
 * slowed backward's end, whichever is later, less `end` (>= 0). */
double ddpb_exposed(const ddpb_chain *c);

#endif
