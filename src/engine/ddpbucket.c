/*
 * ddpbucket.c -- Megatron-Core DDP's gradient buckets and their chain of
 * reductions (ddpbucket.h).
 */
#include "engine/ddpbucket.h"

#include <math.h>

/* distributed_data_parallel.py: bucket_size = max(40000000, 1000000 x
 * data_parallel_world_size(with_context_parallel=True)) parameters */
#define DDPB_MIN_PARAMS 40e6
#define DDPB_PER_RANK 1e6

double ddpb_size(double ranks) {
  return fmax(DDPB_MIN_PARAMS, DDPB_PER_RANK * ranks);
}

double ddpb_fill(double *acc, double lp, double size) {
  *acc += lp;
  if (*acc < size) return 0;
  double n = *acc;
  *acc = 0;
  return n;
}

ddpb_chain ddpb_chain_new(double end, double share) {
  return (ddpb_chain){-INFINITY, 0, end, share};
}

double ddpb_add(ddpb_chain *c, double issue, double dur) {
  issue += c->d;
  double start = issue > c->prev ? issue : c->prev, stop = start + dur, bend = c->end + c->d;
  if (start < bend) /* beside the backward: it slows for the overlap */
    c->d += c->share * ((stop < bend ? stop : bend) - start);
  c->prev = stop;
  return start;
}

double ddpb_exposed(const ddpb_chain *c) {
  double slowed = c->end + c->d;
  return (c->prev > slowed ? c->prev : slowed) - c->end;
}
