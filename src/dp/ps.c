/*
 * ps.c -- parameter servers (TensorFlow's parameter_server,
 * distributed_replicated, asynchronous PS, dedicated CPU servers); see
 * dp.h.
 *
 * Every step each worker pushes its gradients to the server holding each
 * variable and pulls the updated variables back. TensorFlow places whole
 * variables on PS tasks round-robin, so a push of one variable from every
 * server converges on one PS, while different variables go to different
 * PS tasks in parallel ("lanes"). Pushes leave per tensor as the backward
 * pass produces them (overlap.c); pulls are read by the next forward pass
 * layer by layer, which waits for each (ps_pull_exposed).
 *
 * Per message of b bytes per worker:
 *   one server, variables on its CPU: every GPU copies b over PCIe (two
 *     GPUs per switch uplink) and the CPUs sum gpus x b (distributed_
 *     replicated: summed on the GPUs, then one copy; ps_local_cpu); the
 *     pull copies b to every GPU;
 *   one server, variables on GPU 0: GPU 0's links carry (gpus-1) x b;
 *   several servers: a server sends its part (gpn x b per tower for
 *     parameter_server, b after summing locally for
 *     distributed_replicated) to the PS holding the variable: out
 *     (1 - 1/PS servers) of it, in at that PS (senders x part), spread
 *     over min(shards, PS servers) lanes; TCP by gRPC; plus the host copy
 *     when the PS is on CPUs.
 * TensorFlow places each variable's apply op with the variable
 * (replica_device_setter, tf_cnn_benchmarks' variable managers): on a
 * CPU PS the update leaves the GPU's step (dp_ps_worker_compute) and the
 * PS's CPUs apply each variable once its push is summed (one more pass of
 * three bytes per byte over host memory, DP_PS_APPLY_PASSES).
 * Distributed TensorFlow (distributed_replicated, the asynchronous PS)
 * runs its PS tasks as processes of their own: in one server their
 * traffic also crosses a local socket (dp_loop_time). distributed_
 * replicated applies each variable on its PS and assigns the new value
 * to every GPU's replica in the same step (tf_cnn_benchmarks'
 * VariableMgrDistributedReplicated, variable_mgr.py: apply, a barrier
 * of the workers per variable, then the assigns): the pull follows the
 * push per variable and the GPU runs the assign (DP_PS_ASSIGN_PASSES).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/mem.h"
#include "dp/dp.h"

/* Host-memory passes of the CPU apply per byte of variable, in units of
 * a sum's (read variable and gradient, write variable: three bytes, as
 * summing two buffers): plain SGD, tf_cnn_benchmarks' and the KungFu
 * benchmarks' default optimizer. */
#define DP_PS_APPLY_PASSES 1.0

typedef struct ps_ctx {
  const dp_ctx *c;
  int servers;        /* machines holding PS shards */
  int lanes;          /* PS tasks serving in parallel */
  int dedicated;      /* 1 = PS machines are not workers */
  double per_node;    /* worker payload per server per byte of gradient */
  int on_gpu;         /* variables on GPU 0 (one server) */
  double local_s;     /* per byte: summing the server's towers first */
  int pull;           /* 1 = costing the pull (variables to the GPUs) */
  int processes;      /* 1 = distributed TensorFlow: the PS tasks are
                         processes of their own, reached over sockets
                         even on the worker's server */
  int copy_back;      /* 1 = each variable's pull follows its push in the
                         same step (distributed_replicated) */
} ps_ctx;

/* One server, variables on its CPUs: a push, or the pull when p->pull.
 * parameter_server: every GPU copies b over PCIe (two GPUs per switch
 * uplink) while the CPUs sum gpus x b and apply it.
 * distributed_replicated: the towers' gradients are summed on the GPUs
 * first (replicated copies, local_s; tf_cnn_benchmarks'
 * VariableMgrDistributedReplicated aggregates with
 * aggregate_gradients_using_copy_with_device_selection before the PS
 * sees them), then the sum goes to the host once and the CPUs apply it:
 * one step after the other. The pull of either is every GPU's copy from
 * the host, which sums nothing. */
static double ps_local_cpu(const ps_ctx *p, double b) {
  const dp_fabric *f = p->c->f;
  double link = dp_host_time(f, b, f->host_share);
  double sock = p->processes ? dp_loop_time(f, b) : 0; /* to the PS process */
  if (p->pull) return sock + link;
  if (p->per_node == 1 && f->gpus > 1)
    return p->local_s * b + dp_host_time(f, b, 1) + sock + f->host_lat +
           DP_PS_APPLY_PASSES * b / f->cpu_reduce_bw;
  return fmax(link, f->host_lat + (f->gpus + DP_PS_APPLY_PASSES) * b / f->cpu_reduce_bw) + sock;
}

/* The host copies of one message of b bytes per worker on a server of
 * several GPUs, as on one server (ps_local_cpu): every GPU copies its own
 * b over PCIe, two GPUs per switch uplink -- a push of towers not summed
 * first (parameter_server), and every pull (each GPU's replica receives
 * the variable); a push summed on the GPUs first (distributed_replicated,
 * dedicated CPU servers) is one copy of b. (It charged every GPU's copy
 * of the server through one uplink: gpn x b, 4x the one-server figure on
 * a DGX-1.) */
static double ps_host_copy(const ps_ctx *p, double b, int push) {
  const dp_fabric *f = p->c->f;
  return dp_host_time(f, b, push && p->per_node == 1 ? 1 : f->host_share);
}

/* One direction of one message of b gradient bytes per worker. */
static double ps_dir(const ps_ctx *p, double b) {
  const dp_fabric *f = p->c->f;
  if (f->nodes == 1 && !p->dedicated) {
    if (p->on_gpu) return f->intra_lat + (f->gpus - 1) * b / f->intra_bw;
    return ps_local_cpu(p, b);
  }
  double part = p->per_node * b;
  double out = p->dedicated ? part : part * (p->servers - 1) / p->servers;
  double senders = p->dedicated ? f->nodes : f->nodes - 1;
  double in = senders * part / p->lanes;
  double wire = f->topo_rate > 0 ? f->net_lat + f->net_msg_s + b * f->topo_rate
                                 : dp_net_time(f, fmax(out, in), p->lanes);
  return wire + ps_host_copy(p, b, !p->pull) + p->local_s * b;
}

/* One message (dp_msg_cost): its push; with copy_back the push and then
 * its pull, one after the other on the variable's way (with the PS tasks
 * on the workers' servers a NIC's outgoing side carries both the pushes
 * to other servers and the updated values it returns, and one server's
 * socket and CPUs serve both). */
static double ps_msg(const void *ctx, double b, int tensors) {
  (void)tensors;
  const ps_ctx *p = ctx;
  if (!p->copy_back || p->pull) return ps_dir(p, b);
  ps_ctx back = *p;
  back.pull = 1;
  return ps_dir(p, b) + ps_dir(&back, b);
}

/* Pushes across servers with whole variables on PS tasks (TF's
 * replica_device_setter: round-robin over the k tasks in creation, i.e.
 * forward, order; task j on server j mod servers). Each server holding
 * tasks is a lane: a variable's push takes its senders x part through
 * that server's NIC, one variable after another; every worker server's
 * own NIC sends its part of each variable, one after another. The push
 * ends when the last lane and the last send are done. Fills o like
 * dp_overlap_run (no SM share: the host moves the bytes) and busy[j]
 * (p->lanes of them, the caller's) with lane j's work in the step;
 * SC_OK or SC_ENOMEM. */
static int ps_push_lanes(const dp_model *m, const ps_ctx *p, int k, dp_overlap *o,
                         double *busy, sc_error *err) {
  const dp_fabric *f = p->c->f;
  dp_spans *rec = o->rec;
  memset(o, 0, sizeof *o);
  o->rec = rec;
  double *lane = mem_calloc((size_t)p->lanes, sizeof *lane);
  if (!lane) return sc_error_set(err, SC_ENOMEM, "parameter servers: out of memory");
  for (int j = 0; j < p->lanes; j++) busy[j] = 0;
  double senders = p->dedicated ? f->nodes : f->nodes - 1, ready = 0, out_end = 0;
  int fwd = m->tensors; /* forward index of the next tensor, counted down */
  for (int i = 0; i < m->n; i++) {
    const dp_layer *l = &m->layers[i];
    ready += l->bwd_s;
    for (int t = 0; t < l->tensors && l->grad_bytes > 0; t++) {
      double b = l->grad_bytes / l->tensors, part = p->per_node * b;
      int ln = ((--fwd) % k) % p->lanes;
      double host = ps_host_copy(p, b, 1) + p->local_s * b;
      double in = dp_net_time(f, senders * part, (int)senders) +
                  DP_PS_APPLY_PASSES * b / f->cpu_reduce_bw;
      if (p->copy_back) /* the updated variable back to every server's GPUs */
        in += dp_net_time(f, senders * b, (int)senders) + ps_host_copy(p, b, 0);
      double start = fmax(lane[ln], ready + host);
      lane[ln] = start + in;
      dp_spans_add(rec, start, lane[ln]);
      busy[ln] += host + in;
      out_end = fmax(out_end, ready + host) + dp_net_time(f, part, 1);
      o->comm_s += host + in;
      o->messages++;
    }
  }
  double end = out_end;
  for (int j = 0; j < p->lanes; j++) end = fmax(end, lane[j]);
  mem_free(lane);
  o->exposed_s = fmax(0, end - m->bwd_s);
  return SC_OK;
}

/* The first forward of the step reading the pulled variables: each
 * layer's kernels wait for its variables, pulled one after another from
 * the step's start, on the two clocks of the forward (dp/model.c): the
 * GPU's, which waits, and the host's, which issues on meanwhile and so
 * builds a lead that the layers after a wait run on (a window of the
 * unwaited forward, a launch-bound layer's, would be charged again
 * after the wait: a faster GPU, whose forward leaves less lead, then
 * lengthened the step). Returns the forward's end (s from the step's
 * start), *total the pulls' seconds, *lead the GPU clock's lead over the
 * host's at its end; copy_back: no pull (read within the push). */
static double ps_pulled_forward(const dp_model *m, const ps_ctx *push, double *total,
                                double *lead) {
  ps_ctx pull = *push;
  pull.pull = 1;
  double pulled = 0, host = m->head_host_s, gpu = fmax(m->head_gpu_s, host);
  *total = 0;
  for (int i = m->n - 1; i >= 0; i--) {
    const dp_layer *l = &m->layers[i];
    if (l->grad_bytes > 0 && !push->copy_back) {
      double c = ps_msg(&pull, l->grad_bytes, l->tensors);
      pulled += c;
      *total += c;
      gpu = fmax(gpu, pulled);
    }
    host += l->host_fwd_s;
    gpu = fmax(gpu + l->gpu_fwd_s, host);
  }
  *lead = gpu - host;
  return gpu;
}

static int ps_setup(const dp_ctx *c, ps_ctx *p, sc_error *err) {
  const dp_fabric *f = c->f;
  const sc_dp_spec *d = c->spec;
  *p = (ps_ctx){.c = c};
  int k = d->ps_count > 0 ? d->ps_count : 0;
  if (k > c->m->tensors && c->m->tensors > 0)
    return sc_error_set(err, SC_EINPUT,
                        "dp.ps_count: %d parameter-server shards but the model has only %d "
                        "variables to place on them", k, c->m->tensors);
  sc_dp_place place = d->ps_place;
  p->dedicated = c->scheme == DP_PS_SYNC_CPU_SERVERS || place == SC_PS_SERVERS;
  if (p->dedicated && k == 0) k = f->nodes;
  if (k == 0) k = f->nodes;
  p->on_gpu = place == SC_PS_GPU && f->nodes == 1;
  p->servers = p->dedicated ? k : (k < f->nodes ? k : f->nodes);
  p->lanes = k < p->servers ? k : p->servers;
  if (p->lanes < 1) p->lanes = 1;
  int local_sum = c->scheme == DP_PS_SYNC_DIST_REPLICATED || c->scheme == DP_PS_SYNC_CPU_SERVERS;
  /* distributed_replicated and the asynchronous PS run only as
   * distributed TensorFlow (a PS task, a worker task per server: gRPC
   * between them); parameter_server in one server is one process */
  p->processes = c->scheme == DP_PS_SYNC_DIST_REPLICATED || c->scheme == DP_PS_ASYNC;
  /* VariableMgrDistributedReplicated applies each variable on its PS and
   * assigns the updated value to every GPU's replica inside the same
   * step (after a per-variable barrier of all workers): the pull is part
   * of the variable's exchange, not read by the next forward pass */
  p->copy_back = c->scheme == DP_PS_SYNC_DIST_REPLICATED;
  p->per_node = local_sum ? 1 : f->gpn;
  if (local_sum && f->gpn > 1) /* replicated copies inside the server first */
    p->local_s = 2.0 * (f->gpn - 1) / f->gpn / f->intra_bw;
  return SC_OK;
}

/* distributed_replicated: the assign of the updated value to a GPU's
 * replica reads the copied value and writes the variable on the GPU. */
#define DP_PS_ASSIGN_PASSES 2.0

double dp_ps_worker_compute(const dp_ctx *c) {
  int on_gpu = c->spec->ps_place == SC_PS_GPU && c->f->nodes == 1 &&
               c->scheme != DP_PS_SYNC_CPU_SERVERS;
  if (on_gpu) return c->compute_s;
  double t = c->compute_s - c->m->opt_s;
  if (c->scheme == DP_PS_SYNC_DIST_REPLICATED && c->f->gpu_mem_bw > 0) /* ps_assign */
    t += DP_PS_ASSIGN_PASSES * c->m->param_bytes / c->f->gpu_mem_bw;
  return t;
}

/* The pushes of one step beside backward m (its windows laid): fills o
 * and busy, *stations (see ps_push_lanes). */
static int ps_push(const dp_ctx *c, const dp_model *m, ps_ctx *p, dp_overlap *o, double *busy,
                   int *stations, sc_error *err) {
  int k = c->spec->ps_count > 0 ? c->spec->ps_count : p->servers;
  *stations = p->lanes;
  if ((c->f->nodes > 1 || p->dedicated) && c->f->topo_rate <= 0)
    return ps_push_lanes(m, p, k, o, busy, err);
  dp_fusion fu;
  dp_fusion_for(c->spec, c->scheme, c->f->gpus, dp_grad_elem(m), &fu);
  dp_overlap_run(m, &fu, ps_msg, p, 1, 0, o);
  busy[0] = o->comm_s, *stations = 1; /* one queue serves every push */
  return SC_OK;
}

int dp_ps_cost(const dp_ctx *c, dp_cost *out, sc_error *err) {
  ps_ctx p;
  int rc = ps_setup(c, &p, err);
  if (rc) return rc;
  const dp_model *m = c->m;
  double pull_total, lead;
  double fwd_end = ps_pulled_forward(m, &p, &pull_total, &lead);
  /* one micro-batch: its backward starts from the lead the waits on the
   * pulls left (the host issued on meanwhile); with several, the
   * training loop levels the clocks at each micro-batch (engine/
   * analytic.c stage_cost) and the last backward keeps its own */
  dp_model mb = *m;
  if (m->micro_steps <= 1 && lead != m->lead_s) {
    mb.layers = mem_alloc(sizeof *mb.layers * (size_t)m->n);
    if (!mb.layers) return sc_error_set(err, SC_ENOMEM, "parameter servers: out of memory");
    memcpy(mb.layers, m->layers, sizeof *mb.layers * (size_t)m->n);
    dp_model_backward(&mb, lead);
  }
  dp_overlap push = {.rec = c->rec};
  /* per PS lane: its work in one round of every worker, then the
   * asynchronous queue's scratch */
  double *busy = mem_calloc(2 * (size_t)p.lanes, sizeof *busy);
  int stations = 1;
  if (!busy) rc = sc_error_set(err, SC_ENOMEM, "parameter servers: out of memory");
  else rc = ps_push(c, &mb, &p, &push, busy, &stations, err);
  if (mb.layers != m->layers) mem_free(mb.layers);
  if (rc) {
    mem_free(busy);
    return rc;
  }
  out->comm_s = push.comm_s + pull_total;
  out->messages = 2 * push.messages;
  /* the one-GPU step with its first forward waiting on the pulls and its
   * last backward (from the lead they left) on the pushes */
  double step = c->compute_s + (fwd_end - m->fwd_s) + (mb.bwd_s - m->bwd_s) + push.exposed_s;
  const char *where = p.dedicated ? "dedicated CPU servers"
                      : p.on_gpu  ? "GPU 0"
                      : c->f->nodes == 1 ? "host CPU" : "workers' CPUs";
  if (c->scheme == DP_PS_ASYNC) {
    /* no barrier, but the PS lanes serve every worker's pushes: each
     * worker puts 1/gpus of a lane's round on it, and waits behind the
     * other workers' pushes in progress (async.c) */
    for (int j = 0; j < stations; j++) busy[j] /= c->f->gpus;
    step = dp_async_step(c->f->gpus, step, busy, busy + p.lanes, stations);
  }
  mem_free(busy);
  out->step_s = step;
  out->exposed_s = step - c->compute_s;
  snprintf(out->how, sizeof out->how, "%d PS shard%s on %s, %d tensors pushed and pulled",
           p.lanes, p.lanes > 1 ? "s" : "", where, push.messages);
  return SC_OK;
}
