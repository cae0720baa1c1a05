/*
 * allreduce.c -- all-reduce schemes: NCCL (as NCCL chooses, or the ring of
 * NCCL 2.0), TF replicated in one server (NCCL or device copies), MPI in
 * host memory (Horovod "allreduce on CPU"), hierarchical, and KungFu's
 * collective over TCP; see dp.h. Each gives the cost of one message; the
 * overlap with the backward pass is overlap.c's.
 */
#include <math.h>
#include <stdio.h>

#include "dp/dp.h"

typedef struct ar_ctx {
  const dp_ctx *c;
  coll_group all;      /* every GPU */
  coll_group local;    /* the GPUs of one server */
  coll_group cross;    /* one GPU per server, its share of the NIC */
  coll_intra intra;
  dp_msg_cost inner;   /* the scheme's message cost, under ar_fused */
  double fuse_s;       /* seconds per byte of Horovod's fusion memcpy on
                          the GPU (0 = none) */
  int max_ch;          /* channels NCCL's ring kernel may use in one
                          server (0 = NCCL's count; 1 = NCCL 1.x) */
} ar_ctx;

/* On a named topology: the flow engine's rate, one latency. */
static double ar_on_topo(const dp_fabric *f, double bytes) {
  return f->net_lat + f->net_msg_s + bytes * f->topo_rate;
}

/* NCCL as it chooses. */
static double ar_nccl(const void *ctx, double bytes, int tensors) {
  (void)tensors;
  const ar_ctx *a = ctx;
  if (a->c->f->topo_rate > 0) return ar_on_topo(a->c->f, bytes);
  return coll_nccl_time_ex(COLL_ALL_REDUCE, bytes, &a->all, a->intra).time;
}

/* NCCL's ring with the fastest of LL and Simple (NCCL 2.0-2.3 had no
 * tree and no LL128). */
static double ar_ring_on(const coll_group *g, coll_intra intra, double bytes, int max_ch) {
  if (g->ranks <= 1) return 0;
  double best = INFINITY;
  coll_proto ps[] = {COLL_PROTO_LL, COLL_PROTO_SIMPLE};
  for (int i = 0; i < 2; i++) {
    double t =
        coll_nccl_algo_time_ch(COLL_ALL_REDUCE, bytes, g, intra, COLL_ALGO_RING, ps[i], max_ch);
    if (t >= 0 && t < best) best = t;
  }
  return isfinite(best) ? best : coll_nccl_time_ex(COLL_ALL_REDUCE, bytes, g, intra).time;
}

static double ar_ring(const void *ctx, double bytes, int tensors) {
  (void)tensors;
  const ar_ctx *a = ctx;
  if (a->c->f->topo_rate > 0) return ar_on_topo(a->c->f, bytes);
  return ar_ring_on(&a->all, a->intra, bytes, a->max_ch);
}

/* TF replicated without NCCL: each tensor's copies are summed on one GPU
 * (chosen round-robin, so n tensors are in flight on n GPUs' links) and
 * the sum copied back: two rounds of copies of (n-1)/n of the tensor per
 * GPU link; PCIe GPUs share their switch uplink. */
static double ar_copy(const void *ctx, double bytes, int tensors) {
  (void)tensors;
  const ar_ctx *a = ctx;
  const dp_fabric *f = a->c->f;
  int n = f->gpus;
  if (n == 1) return 0;
  if (f->topo_rate > 0) return 2 * f->host_lat + bytes * f->topo_rate;
  double bw = f->intra == SC_DP_INTRA_PCIE ? f->intra_bw / f->host_share : f->intra_bw;
  return 2 * (f->host_lat + (n - 1) * bytes / ((double)n * bw));
}

/* MPI all-reduce in host memory (Horovod with CPU tensors over Open
 * MPI): mpi.c; on a named topology the flow engine's rate carries the
 * ring's bytes, Horovod's host side and the ring's sums as mpi.c has
 * them. */
static double ar_mpi(const void *ctx, double bytes, int tensors) {
  const ar_ctx *a = ctx;
  const dp_fabric *f = a->c->f;
  int n = f->gpus;
  if (n == 1) return 0;
  if (f->topo_rate > 0)
    return dp_mpi_host_side(f, bytes, tensors) + bytes * f->topo_rate +
           2.0 * (n - 1) * f->net_msg_s + dp_mpi_sum_time(f, bytes);
  return dp_mpi_allreduce_time(f, bytes, tensors);
}

/* KungFu's all-reduce through its Go runtime: kungfu.c. */
static double ar_kungfu(const void *ctx, double bytes, int tensors) {
  (void)tensors;
  const ar_ctx *a = ctx;
  return dp_kf_allreduce_time(a->c->f, bytes);
}

/* Reduce-scatter inside each server, all-reduce of 1/gpn across servers
 * by every GPU on its share of the NIC, all-gather inside: the phases of
 * Horovod's NCCLHierarchicalAllreduce (horovod/common/ops/
 * nccl_operations.cc), each costed as NCCL runs it; Horovod itself does
 * the cross-server phase with MPI through a host buffer, which this
 * leaves out (no row measures it). */
static double ar_hier(const void *ctx, double bytes, int tensors) {
  (void)tensors;
  const ar_ctx *a = ctx;
  const dp_fabric *f = a->c->f;
  if (f->nodes == 1 || f->gpn == 1 || f->topo_rate > 0) return ar_nccl(ctx, bytes, tensors);
  double rs = coll_nccl_time_ex(COLL_REDUCE_SCATTER, bytes, &a->local, a->intra).time;
  double ag = coll_nccl_time_ex(COLL_ALL_GATHER, bytes, &a->local, a->intra).time;
  double x = coll_nccl_time_ex(COLL_ALL_REDUCE, bytes / f->gpn, &a->cross, a->intra).time;
  return rs + x + ag;
}

/* Horovod's NCCL path (horovod/common/ops/nccl_operations.cc,
 * NCCLAllreduce::Execute): a message of more than one tensor is copied
 * into the fusion buffer before the all-reduce and out of it after
 * (MemcpyInFusionBuffer / MemcpyOutFusionBuffer, device-to-device on the
 * same stream): two copies, each reading and writing every byte, at the
 * GPU's achievable HBM bandwidth. */
static double ar_fusion_s_per_byte(const dp_fabric *f) {
  return f->gpu_mem_bw > 0 ? 2 * 2 / f->gpu_mem_bw : 0;
}

/* A message's cost with Horovod's fusion copies around it. */
static double ar_fused(const void *ctx, double bytes, int tensors) {
  const ar_ctx *a = ctx;
  return a->inner(ctx, bytes, tensors) + (tensors > 1 ? bytes * a->fuse_s : 0);
}

/* TensorFlow 1.x's replicated variables with NCCL (tf_cnn_benchmarks'
 * variable_update=replicated, use_nccl; tf.contrib.nccl.all_sum per
 * gradient), as its NcclManager runs them (recalled: TensorFlow's
 * contrib/nccl and NCCL 1.x are not in ../shared/reference):
 *  - the ops ran NCCL 1.x, whose kernels are one block a GPU on one ring
 *    (TensorFlow's performance guide: "this kernel uses a single SM of
 *    the GPU"): one channel, one ring's share of the NVLinks;
 *  - an all-reduce is launched when the last GPU's tower adds its
 *    gradient, and NcclManager makes each GPU's NCCL stream wait for
 *    everything enqueued on that GPU's compute stream by then
 *    (ThenWaitFor(tensor_stream)). TensorFlow's executor enqueues GPU
 *    kernels without waiting for them (a tower's whole backward pass
 *    takes milliseconds of host time, the GPU hundreds), so the other
 *    towers have queued the rest of their backward pass when the last
 *    one reaches a gradient, and the all-reduces run after it: no
 *    overlap. */
static void ar_tf_nccl(ar_ctx *a, int *overlap) {
  a->max_ch = 1;
  *overlap = 0;
}

static void ar_groups(const dp_ctx *c, ar_ctx *a) {
  const dp_fabric *f = c->f;
  a->c = c;
  a->intra = dp_coll_intra(f->intra);
  dp_fabric_group(f, f->gpus, f->gpn, &a->all);
  dp_fabric_group(f, f->gpn, f->gpn, &a->local);
  dp_fabric_group(f, f->nodes, 1, &a->cross);
  a->cross.node_gpus = 1;
}

int dp_allreduce_cost(const dp_ctx *c, dp_cost *out, sc_error *err) {
  const dp_fabric *f = c->f;
  ar_ctx a = {0};
  ar_groups(c, &a);
  dp_msg_cost fn = ar_nccl;
  const char *how = "NCCL all-reduce";
  int overlap = 1; /* messages leave as their gradients are ready */
  switch (c->scheme) {
  case DP_REPLICATED_NCCL:
  case DP_REPLICATED_COPY:
    if (f->nodes > 1)
      return sc_error_set(err, SC_EINPUT,
                          "dp.scheme: %s runs inside one server, but the job spans %d",
                          dp_scheme_name(c->scheme), f->nodes);
    fn = c->scheme == DP_REPLICATED_NCCL ? ar_ring : ar_copy;
    how = c->scheme == DP_REPLICATED_NCCL ? "per-tensor NCCL ring" : "per-tensor device copies";
    if (c->scheme == DP_REPLICATED_NCCL) ar_tf_nccl(&a, &overlap);
    break;
  case DP_ALLREDUCE_RING_NCCL: fn = ar_ring, how = "NCCL ring"; break;
  case DP_ALLREDUCE_MPI_HOST: fn = ar_mpi, how = "MPI ring in host memory"; break;
  case DP_ALLREDUCE_KUNGFU: fn = ar_kungfu, how = "KungFu binary-tree-star over sockets"; break;
  case DP_ALLREDUCE_HIER: fn = ar_hier, how = "reduce-scatter, cross-server all-reduce, all-gather"; break;
  default: break;
  }
  dp_fusion fu;
  dp_fusion_for(c->spec, c->scheme, c->f->gpus, dp_grad_elem(c->m), &fu);
  /* NCCL's kernels take SMs and HBM bandwidth from the backward pass
   * they overlap (contend.c) */
  int nccl = fn == ar_nccl || fn == ar_ring || fn == ar_hier;
  double share = nccl ? dp_gpu_share(c, &a.all, fmin(c->m->grad_bytes, fu.bucket_bytes)) : 0;
  /* Horovod (cycle fusion) running NCCL on the GPU copies through its
   * fusion buffer; its MPI path charges the host memcpy itself (mpi.c) */
  if (nccl && fu.cycle_s > 0) {
    a.inner = fn, fn = ar_fused;
    a.fuse_s = ar_fusion_s_per_byte(c->f);
  }
  dp_overlap o = {.rec = c->rec};
  dp_overlap_run(c->m, &fu, fn, &a, overlap, share, &o);
  out->comm_s = o.comm_s;
  out->exposed_s = o.exposed_s;
  out->messages = o.messages;
  out->step_s = c->compute_s + o.exposed_s;
  snprintf(out->how, sizeof out->how, "%s, %d messages", how, o.messages);
  return SC_OK;
}
