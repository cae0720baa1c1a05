/*
 * coll_api.c -- the collectives of the public header (stepcast.h): NCCL's
 * cost model, op names and the algorithm plug-ins, over coll.h and
 * sched.h. The public types mirror the module's own: the op enums share
 * their values (checked here at compile time), the structs are copied
 * field by field.
 */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "coll/coll.h"
#include "coll/sched.h"
#include "stepcast.h"

_Static_assert(SC_COLL_ALL_REDUCE == (int)COLL_ALL_REDUCE &&
                   SC_COLL_ALL_GATHER == (int)COLL_ALL_GATHER &&
                   SC_COLL_REDUCE_SCATTER == (int)COLL_REDUCE_SCATTER &&
                   SC_COLL_ALL_TO_ALL == (int)COLL_ALL_TO_ALL &&
                   SC_COLL_BROADCAST == (int)COLL_BROADCAST &&
                   SC_COLL_REDUCE == (int)COLL_REDUCE &&
                   SC_COLL_SEND_RECV == (int)COLL_SEND_RECV &&
                   SC_COLL_OP_COUNT == (int)COLL_OP_COUNT,
               "sc_coll_op and coll_op must list the same ops in the same order");
/* A field added to one struct and not the other breaks these. */
_Static_assert(sizeof(sc_coll_group) == sizeof(coll_group), "sc_coll_group != coll_group");
_Static_assert(sizeof(sc_coll_cost) == sizeof(coll_cost), "sc_coll_cost != coll_cost");

/* Public entry points check what they are given: an op outside
 * sc_coll_op, an algorithm index out of range or a NULL group gets a
 * documented failure value (stepcast.h), never an assert or a crash. */
static int op_ok(sc_coll_op op) { return (unsigned)op < SC_COLL_OP_COUNT; }

coll_group coll_group_of(const sc_coll_group *g) {
  return (coll_group){.ranks = g->ranks,
                      .ranks_per_node = g->ranks_per_node,
                      .arch = g->arch,
                      .intra_bw = g->intra_bw,
                      .inter_bw = g->inter_bw,
                      .intra_lat = g->intra_lat,
                      .inter_lat = g->inter_lat,
                      .node_gpus = g->node_gpus,
                      .host_gpus = g->host_gpus,
                      .fabric = g->fabric,
                      .pcie = g->pcie,
                      .host_cpu = g->host_cpu};
}

sc_coll_cost sc_coll_nccl_time(sc_coll_op op, double bytes, const sc_coll_group *g) {
  if (!op_ok(op) || !g || !(bytes >= 0) || g->ranks < 1) return (sc_coll_cost){.time = -1};
  coll_group cg = coll_group_of(g);
  coll_cost c = coll_nccl_time((coll_op)op, bytes, &cg);
  return (sc_coll_cost){c.time, c.algo, c.proto, c.launch, c.channels};
}

double sc_coll_busbw_factor(sc_coll_op op, int ranks) {
  return op_ok(op) && ranks >= 1 ? coll_busbw_factor((coll_op)op, ranks) : 0;
}

const char *sc_coll_op_name(sc_coll_op op) {
  return op_ok(op) ? coll_op_name((coll_op)op) : "invalid";
}

int sc_coll_op_from_name(const char *name) { return coll_op_from_name(name); }

int sc_coll_algo_count(void) { return coll_alg_count(); }

const char *sc_coll_algo_name(int i) {
  return i >= 0 && i < coll_alg_count() ? coll_alg_at(i)->name : NULL;
}

sc_coll_op sc_coll_algo_op(int i) {
  return i >= 0 && i < coll_alg_count() ? (sc_coll_op)coll_alg_at(i)->op : (sc_coll_op)-1;
}

int sc_coll_algo_find(sc_coll_op op, const char *name, sc_error *err) {
  if (!op_ok(op)) {
    sc_error_set(err, SC_EINPUT, "op: %d is not a collective (valid: 0..%d)", (int)op,
                 SC_COLL_OP_COUNT - 1);
    return -1;
  }
  for (int i = 0; i < coll_alg_count(); i++)
    if ((sc_coll_op)coll_alg_at(i)->op == op && (!name || !strcmp(coll_alg_at(i)->name, name)))
      return i;
  char valid[256] = "";
  size_t len = 0;
  for (int i = 0; i < coll_alg_count() && len < sizeof valid; i++)
    if ((sc_coll_op)coll_alg_at(i)->op == op)
      len += (size_t)snprintf(valid + len, sizeof valid - len, " %s", coll_alg_at(i)->name);
  sc_error_set(err, SC_EINPUT, "no algorithm '%s' for %s (valid:%s)", name ? name : "",
               coll_op_name((coll_op)op), valid);
  return -1;
}
