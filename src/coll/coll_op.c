/*
 * coll_op.c -- names of collective operations, algorithms and protocols,
 * and nccl-tests' bus-bandwidth factors.
 */
#include <assert.h>
#include <ctype.h>
#include <string.h>

#include "coll/coll.h"

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
  if (!name) return -1;
  for (int i = 0; i < COLL_OP_COUNT; i++) {
    const char *a = op_names[i], *b = name;
    while (*a || *b) {
      if (*a == '_') { a++; continue; }
      if (*b == '_') { b++; continue; }
      if (tolower((unsigned char)*a) != tolower((unsigned char)*b)) break;
      a++, b++;
    }
    if (!*a && !*b) return i;
  }
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
