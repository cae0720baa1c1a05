/*
 * coll_op.c -- names of collective operations, algorithms and protocols,
 * and nccl-tests' bus-bandwidth factors.
 */
#include <assert.h>
#include <string.h>

#include "coll/coll.h"
#include "core/name.h"

static const char *const op_names[COLL_OP_COUNT] = {
    "all_reduce", "all_gather", "reduce_scatter", "all_to_all",
    "broadcast",  "reduce",     "send_recv"};

static const char *const algo_names[COLL_ALGO_COUNT] = {"ring", "tree", "nvls"};
static const char *const proto_names[COLL_PROTO_COUNT] = {"LL", "LL128", "Simple"};

const char *coll_op_name(coll_op op) {
  assert(op >= 0 && op < COLL_OP_COUNT);
  return op_names[op];
}

/* Accepts the nccl-tests spellings too ("allreduce", "alltoall",
 * "sendrecv"): underscores and case are ignored when comparing
 * ("All_Reduce", as the fabric and CPU names). */
int coll_op_from_name(const char *name) {
  for (int i = 0; name && i < COLL_OP_COUNT; i++)
    if (name_eq(op_names[i], name, (size_t)-1, 1)) return i;
  return -1;
}

const char *coll_algo_name(coll_algo a) {
  assert(a >= 0 && a < COLL_ALGO_COUNT);
  return algo_names[a];
}

const char *coll_proto_name(coll_proto p) {
  assert(p >= 0 && p < COLL_PROTO_COUNT);
  return proto_names[p];
}

/* nccl-tests (src/<op>.cu, GetBw): busbw = algbw * factor. */
double coll_busbw_factor(coll_op op, int n) {
  if (n <= 1) return op == COLL_BROADCAST || op == COLL_REDUCE ||
                     op == COLL_SEND_RECV ? 1.0 : 0.0;
  switch (op) {
  case COLL_ALL_REDUCE: return 2.0 * (n - 1) / n;
  case COLL_ALL_GATHER:
  case COLL_REDUCE_SCATTER:
  case COLL_ALL_TO_ALL: return (double)(n - 1) / n;
  default: return 1.0;
  }
}
