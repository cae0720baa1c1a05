/*
 * sweep.c -- a collective over a range of sizes, as nccl-tests runs it:
 * NCCL's model at each size and, on a topology, the flow engine
 * (sc_coll_sweep_run, stepcast.h). `stepcast collective`, the Python
 * module and the HTML report all read these points.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "coll/coll.h"
#include "coll/collhbm.h"
#include "core/mem.h"
#include "stepcast.h"

/* More points than any size range needs (1 B to 1 PiB in steps of 1.1 is
 * 365): a larger count means a factor too close to 1 or an infinite max. */
#define SWEEP_MAX_POINTS 100000
#define SWEEP_MAX_BYTES 1125899906842624.0 /* 2^50: 1 PiB, the largest size */

void sc_coll_sweep_default(sc_coll_sweep_opts *o) {
  memset(o, 0, sizeof *o);
  o->op = SC_COLL_ALL_REDUCE;
  o->ranks = 8;
  o->ranks_per_node = 8;
  o->arch = 80;
  o->nvlink_GBps = 300; /* DGX A100: NVLink 3, 12 links x 25 GB/s per direction */
  o->nic_Gbps = 200;    /* DGX A100: one 200 Gb/s HDR HCA per GPU */
  o->min_bytes = 1024;
  o->max_bytes = 1073741824;
  o->factor = 2;
  o->gpus_per_thread = 1; /* one GPU per process, as frameworks run */
}

/* Check o; SC_OK or SC_EINPUT naming the field and what is valid. */
static int sweep_check(const sc_coll_sweep_opts *o, long *points, sc_error *err) {
  if ((unsigned)o->op >= SC_COLL_OP_COUNT)
    return sc_error_set(err, SC_EINPUT, "op: %d is not a collective (valid: 0..%d)", (int)o->op,
                        SC_COLL_OP_COUNT - 1);
  if (o->ranks < 1 || o->ranks > 1 << 24)
    return sc_error_set(err, SC_EINPUT, "ranks must be 1..16777216, got %d", o->ranks);
  if (o->ranks_per_node < 1 || o->ranks % o->ranks_per_node)
    return sc_error_set(err, SC_EINPUT, "ranks_per_node %d must divide ranks %d",
                        o->ranks_per_node, o->ranks);
  /* the ranges of the scenario's cluster.nvlink_GBps and nic_Gbps */
  if (!(o->nvlink_GBps >= 1e-3 && o->nvlink_GBps <= 1e6))
    return sc_error_set(err, SC_EINPUT, "nvlink_GBps%s: %g; valid: 0.001..1e6 (GB/s per direction)",
                        o->pcie ? " (pcie: the PCIe slot's x16 rate, --pcie)" : "",
                        o->nvlink_GBps);
  if (!(o->nic_Gbps >= 1e-2 && o->nic_Gbps <= 1e7))
    return sc_error_set(err, SC_EINPUT, "nic_Gbps: %g; valid: 0.01..1e7 (Gb/s per direction)",
                        o->nic_Gbps);
  if (!(o->min_bytes >= 1) || !(o->max_bytes <= SWEEP_MAX_BYTES) || o->min_bytes > o->max_bytes)
    return sc_error_set(err, SC_EINPUT, "sizes: need 1 <= min_bytes <= max_bytes <= 2^50 "
                        "(1 PiB) (got %g and %g)", o->min_bytes, o->max_bytes);
  if (o->gpus_per_thread < 1 || o->gpus_per_thread > 1024)
    return sc_error_set(err, SC_EINPUT, "gpus_per_thread must be 1..1024 (GPUs one thread "
                        "drives, nccl-tests -g), got %d", o->gpus_per_thread);
  if (o->ranks_per_node % o->gpus_per_thread) /* a thread's GPUs are one process's, one node's */
    return sc_error_set(err, SC_EINPUT, "gpus_per_thread %d must divide ranks_per_node %d (each "
                        "node runs whole processes of that many GPUs, as nccl-tests -g does)",
                        o->gpus_per_thread, o->ranks_per_node);
  if ((unsigned)o->fabric >= SC_FABRIC_COUNT)
    return sc_error_set(err, SC_EINPUT, "fabric: %d is not a fabric (valid: 0..%d, "
                        "infiniband roce efa tcpxo)", o->fabric, SC_FABRIC_COUNT - 1);
  if (!(o->factor > 1) || !isfinite(o->factor))
    return sc_error_set(err, SC_EINPUT, "factor must be > 1, got %g", o->factor);
  double n = floor(log(o->max_bytes / o->min_bytes) / log(o->factor)) + 2;
  if (!(n <= SWEEP_MAX_POINTS))
    return sc_error_set(err, SC_EINPUT, "%g sizes from %g to %g by a factor %.9g: at most %d "
                        "(use a larger factor)", n, o->min_bytes, o->max_bytes, o->factor,
                        SWEEP_MAX_POINTS);
  *points = (long)n;
  return SC_OK;
}

/* Load o's topology into *t and check ranks and algorithm against it. */
static int sweep_topo(const sc_coll_sweep_opts *o, sc_topo **t, sc_error *err) {
  int rc = sc_topo_load(o->topo, t, err);
  if (rc) return rc;
  if (sc_topo_gpus(*t) < o->ranks)
    rc = sc_error_set(err, SC_EINPUT, "ranks %d is larger than the %d GPUs of %s", o->ranks,
                      sc_topo_gpus(*t), o->topo);
  else if (sc_coll_algo_find(o->op, o->algo[0] ? o->algo : NULL, err) < 0)
    rc = SC_EINPUT;
  else /* NCCL's model is scaled from a reference of ranks_per_node per node */
    rc = sc_topo_domain_check(*t, o->ranks, o->ranks_per_node, "ranks_per_node", err);
  if (rc) {
    sc_topo_free(*t);
    *t = NULL;
  }
  return rc;
}

int sc_coll_sweep_run(const sc_coll_sweep_opts *o, sc_progress_fn fn, void *ud,
                      sc_coll_sweep *out, sc_error *err) {
  memset(out, 0, sizeof *out);
  long cap = 0;
  int rc = sweep_check(o, &cap, err);
  sc_topo *t = NULL;
  if (!rc && o->topo[0]) rc = sweep_topo(o, &t, err);
  if (rc) return rc;
  out->opts = *o;
  out->points = mem_alloc(sizeof *out->points * (size_t)cap);
  if (!out->points) {
    sc_topo_free(t);
    return sc_error_set(err, SC_ENOMEM, "collective sweep: out of memory for %ld sizes", cap);
  }
  sc_coll_group g = {.ranks = o->ranks,
                     .ranks_per_node = o->ranks_per_node,
                     .arch = o->arch,
                     .intra_bw = o->nvlink_GBps * 1e9,
                     .inter_bw = o->nic_Gbps * 1e9 / 8,
                     .host_gpus = o->gpus_per_thread,
                     .fabric = o->fabric,
                     .pcie = o->pcie,
                     .host_cpu = o->host_cpu};
  double fac = sc_coll_busbw_factor(o->op, o->ranks);
  for (double b = o->min_bytes; b <= o->max_bytes * 1.0000001 && out->n < cap && !rc;
       b *= o->factor) {
    sc_coll_point *p = &out->points[out->n];
    p->bytes = floor(b);
    p->nccl = sc_coll_nccl_time(o->op, p->bytes, &g);
    p->algbw = p->nccl.time > 0 ? p->bytes / p->nccl.time : 0;
    p->busbw = p->algbw * fac;
    p->flow_s = -1;
    p->flow_busbw = 0;
    if (t) {
      if (o->algo[0]) { /* that plug-in's schedule alone, the flow engine's time */
        rc = sc_coll_simulate(t, o->op, o->algo, p->bytes, o->ranks, o->ranks_per_node, 8,
                              fn, ud, &p->flow_s, err);
        /* no shorter than the GPU's memory lets NCCL's kernels move the
         * op's bytes, as the closed form holds them (coll_nccl_mem_bw) */
        double mbw = coll_nccl_mem_bw(o->arch);
        double mem = mbw > 0 ? collhbm_bytes((coll_op)o->op, p->bytes, o->ranks, "ring",
                                             "Simple") / mbw : 0;
        if (!rc && mem > p->flow_s) p->flow_s = mem;
      } else /* NCCL's schedule, scaled to its closed form (docs/network.md) */
        rc = sc_coll_simulate_nccl(t, o->op, p->bytes, &g, fn, ud, &p->flow_s, NULL, err);
      if (p->flow_s > 0) p->flow_busbw = p->bytes / p->flow_s * fac;
    }
    if (!rc) out->n++;
  }
  sc_topo_free(t);
  if (rc) sc_coll_sweep_free(out);
  return rc;
}

void sc_coll_sweep_free(sc_coll_sweep *s) {
  mem_free(s->points);
  s->points = NULL;
  s->n = 0;
}
