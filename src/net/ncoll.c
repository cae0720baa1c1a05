/*
 * ncoll.c -- a collective as NCCL runs it, on a topology; see ncoll.h.
 */
#include "net/ncoll.h"

#include <stdio.h>
#include <string.h>

#include "core/mem.h"
#include "net/topo_gen.h"

/* Pipelining chunks of broadcast and reduce chains: NCCL's chain moves
 * one 512 KiB step at a time (coll_nccl.c CHAIN_CHUNKSTEPS x
 * SIMPLE_STEP_BYTES); the flow engine needs only enough chunks to fill
 * the chain, so 8 (what `stepcast collective` ran before). */
#define NCOLL_CHAIN_CHUNKS 8

/* The PCIe bandwidth NCCL assumes between GPUs without NVLink, GB/s
 * (coll_nccl.c PCI_BW, nccl_tuning_constants.csv row 383): the
 * reference fabric's intra-node links when the group has no NVLink. */
#define NCOLL_PCI_GBPS 12.0

int ncoll_schedule(sched *s, coll_op op, double bytes, int n, int ppn) {
  const char *alg;
  switch (op) {
  case COLL_ALL_REDUCE:
  case COLL_REDUCE_SCATTER:
  case COLL_ALL_GATHER: alg = "rails"; break;
  case COLL_ALL_TO_ALL: alg = "direct"; break;
  case COLL_BROADCAST:
  case COLL_REDUCE: alg = "chain"; break;
  default: alg = NULL; break;
  }
  const coll_alg *a = coll_alg_find(op, alg);
  if (!a) a = coll_alg_find(op, NULL);
  if (!a) return -1;
  sched_params p = {.n = n, .ppn = ppn >= 1 && n % ppn == 0 ? ppn : 1, .root = 0,
                    .chunks = NCOLL_CHAIN_CHUNKS, .bytes = bytes};
  return a->build(s, &p);
}

/* The (algorithm, protocol) NCCL picks, as indices of coll.h. */
static void choice(coll_op op, double bytes, const coll_group *g, int *a, int *p) {
  coll_cost c = coll_nccl_time(op, bytes, g);
  *a = COLL_ALGO_RING, *p = COLL_PROTO_SIMPLE;
  for (int i = 0; i < COLL_ALGO_COUNT; i++)
    if (!strcmp(c.algo, coll_algo_name(i))) *a = i;
  for (int i = 0; i < COLL_PROTO_COUNT; i++)
    if (!strcmp(c.proto, coll_proto_name(i))) *p = i;
}

double ncoll_fixed(coll_op op, double bytes, const coll_group *g) {
  if (g->ranks <= 1 || bytes <= 0) return 0;
  int a, p;
  choice(op, bytes, g, &a, &p);
  /* the tuner's latency + size/bandwidth at one byte is its latency */
  double t = coll_nccl_tuner_time(op, 1.0, g, COLL_INTRA_AUTO, a, p);
  return t > 0 ? t : 0;
}

double ncoll_scale(double nccl, double fixed, double flow_topo, double flow_ref) {
  if (fixed > nccl) fixed = nccl;
  if (!(flow_ref > 0)) return nccl;
  return fixed + (nccl - fixed) * flow_topo / flow_ref;
}

/* Run ncoll_schedule on t; SC_OK or flow_run's error. */
static int run_on(const topo *t, route_table *rt, coll_op op, double bytes, int n, int ppn,
                  const int *rank_node, flow_progress_fn fn, void *ud, double *flow_s,
                  sc_error *err) {
  sched s;
  sched_init(&s);
  int rc;
  if (ncoll_schedule(&s, op, bytes, n, ppn))
    rc = sc_error_set(err, SC_ENOMEM, "out of memory building the schedule of a %s",
                      coll_op_name(op));
  else {
    flow_stats st;
    rc = flow_run_ex(t, rt, &s, rank_node, &st, fn, ud, err);
    if (rc == SC_OK) *flow_s = st.time;
  }
  sched_free(&s);
  return rc;
}

int ncoll_reference(coll_op op, double bytes, const coll_group *g, double *flow_s,
                    sc_error *err) {
  int ppn = g->ranks_per_node >= 1 && g->ranks % g->ranks_per_node == 0 ? g->ranks_per_node
                                                                         : 1;
  char spec[256];
  double nvl = g->intra_bw > 0 ? g->intra_bw / 1e9 : NCOLL_PCI_GBPS;
  double nic = g->inter_bw > 0 ? g->inter_bw * 8 / 1e9 : 8 * NCOLL_PCI_GBPS;
  snprintf(spec, sizeof spec, "rail:nodes=%d,gpus=%d,nvlink=%.17g,nic=%.17g,spines=%d",
           g->ranks / ppn, ppn, nvl, nic, ppn);
  topo *t = NULL;
  int rc = topo_gen(spec, &t, err);
  if (rc) return rc;
  route_table *rt = route_new(t, (route_policy)t->routing);
  if (!rt) rc = sc_error_set(err, SC_ENOMEM, "out of memory for the routes of %s", spec);
  else rc = run_on(t, rt, op, bytes, g->ranks, ppn, t->gpus, NULL, NULL, flow_s, err);
  route_free(rt);
  topo_free(t);
  return rc;
}

int ncoll_time(const topo *t, route_table *rt, coll_op op, double bytes, const coll_group *g,
               const int *rank_node, flow_progress_fn fn, void *ud, double *seconds,
               double *flow_s, sc_error *err) {
  /* the network scales what the links hold; the GPU's memory holds the
   * kernels as it does on the reference (coll_nccl_time_split) */
  double links, mem;
  double nccl = coll_nccl_time_split(op, bytes, g, &links, &mem).time;
  if (g->ranks <= 1 || bytes <= 0) {
    *seconds = nccl;
    if (flow_s) *flow_s = 0;
    return SC_OK;
  }
  double topo_s = 0, ref_s = 0;
  int ppn = g->ranks_per_node >= 1 && g->ranks % g->ranks_per_node == 0 ? g->ranks_per_node
                                                                         : 1;
  int rc = run_on(t, rt, op, bytes, g->ranks, ppn, rank_node, fn, ud, &topo_s, err);
  if (rc == SC_OK) rc = ncoll_reference(op, bytes, g, &ref_s, err);
  if (rc) return rc;
  double scaled = ncoll_scale(links, ncoll_fixed(op, bytes, g), topo_s, ref_s);
  *seconds = scaled > mem ? scaled : mem;
  if (flow_s) *flow_s = topo_s;
  return SC_OK;
}
