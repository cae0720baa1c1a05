/*
 * predict.c -- sc_dp_predict and sc_dp_compare: one worker's compute from
 * the single-GPU prediction of the scenario, the model's gradient
 * messages from its workload graph, then the scheme's exchange; see dp.h.
 *
 * The single-GPU step (plan forced to tp = pp = cp = ep = dp = 1, the
 * per-GPU batch, the scenario's micro-batch for gradient accumulation)
 * gives the compute, host and optimizer seconds and the memory of one
 * GPU; a batch that does not fit is an input error. The backward pass of
 * the last micro-batch, layer by layer (dpm_layers), is what the exchange
 * overlaps.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/mem.h"
#include "core/vec.h"
#include "cost/amp.h"
#include "dp/dp.h"

/* What every scheme of one scenario shares. */
typedef struct dp_prep {
  sc_scenario s;       /* the data-parallel scenario */
  sc_result one;       /* the single-GPU step */
  dp_model m;
  long per_gpu;        /* samples per GPU per step */
} dp_prep;

static int dp_unknown(const char *name, sc_error *err) {
  char valid[800] = "";
  for (int i = 0; i < DP_SCHEME_COUNT; i++)
    snprintf(valid + strlen(valid), sizeof valid - strlen(valid), "%s%s", i ? ", " : "",
             dp_scheme_name((dp_scheme)i));
  return sc_error_set(err, SC_EINPUT, "dp.scheme: unknown scheme '%s'; valid: %s", name, valid);
}

/* A data-parallel scheme runs a whole replica on every GPU: a parallel
 * degree or ZeRO stage in the plan of a scenario that names its scheme
 * (dp.scheme) would be dropped in silence. An error naming the key, unless
 * it is the value that means none. (sc_dp_compare, `stepcast dp`, reads
 * any scenario's model, cluster and batch and leaves its plan's degrees
 * aside, as documented; the CLI says so.) */
static int dp_whole_replica(const sc_plan *p, sc_error *err) {
  const struct {
    const char *key;
    int v, none;
  } k[] = {{"tp", p->tp, 1}, {"pp", p->pp, 1}, {"cp", p->cp, 1}, {"ep", p->ep, 1},
           {"zero", p->zero, 0}};
  for (size_t i = 0; i < sizeof k / sizeof k[0]; i++)
    if (k[i].v > k[i].none)
      return sc_error_set(err, SC_EINPUT,
                          "plan.%s: %d does not apply to a data-parallel scheme (dp.scheme): "
                          "every GPU holds a whole replica; valid: %d, or leave "
                          "it out", k[i].key, k[i].v, k[i].none);
  return SC_OK;
}

/* The single-GPU scenario of s: one GPU, the per-GPU batch. */
static int dp_single(const sc_scenario *s, sc_scenario *one, long *per_gpu, sc_error *err) {
  int gpus = s->cluster.gpus;
  if (gpus < 1 || s->plan.global_batch < 1 || s->plan.global_batch % gpus)
    return sc_error_set(err, SC_EINPUT,
                        "plan.global_batch: %ld is not a positive multiple of the %d GPUs "
                        "(data parallelism splits the batch evenly)",
                        s->plan.global_batch, gpus);
  *per_gpu = s->plan.global_batch / gpus;
  *one = *s;
  one->dp.scheme[0] = '\0';
  sc_cluster *cl = &one->cluster;
  cl->gpus = 1, cl->gpus_per_node = 1, cl->nvlink_domain = 1;
  cl->topology[0] = cl->link_fail[0] = cl->link_degrade[0] = '\0'; /* no network */
  sc_plan *p = &one->plan;
  p->tp = p->pp = p->cp = p->ep = p->dp = 1;
  p->etp = 0, p->vpp = 0, p->zero = 0, p->fsdp_shard = 0, p->sp = 0;
  p->distributed_optimizer = 0;
  p->schedule = SC_SCHED_1F1B;
  /* one replica of several: its gradients as predict holds them at dp =
   * gpus (plan_ddp_buckets, plan_grads_freed read dp_replicas): a PyTorch
   * DDP replica's buckets kept beside its .grad tensors, which the step
   * frees; any other replica's gradients kept once (docs/model.md
   * section 5) */
  if (gpus > 1) p->dp_replicas = gpus;
  /* what only a pipeline, expert or tensor split reads goes with it (as
   * the search's neutral plan): the stage layout, the per-layer
   * strategies, the flex dispatcher and the overlaps between ranks */
  p->pp_first_layers = p->pp_last_layers = p->n_pp_layout = 0;
  p->pp_embedding_in_split = p->pp_loss_in_split = 0;
  p->n_overrides = 0;
  if (p->moe_dispatcher == SC_MOE_FLEX) p->moe_dispatcher = SC_MOE_ALLTOALL;
  p->overlap_ep = p->overlap_tp = p->tp_async_bwd = 0;
  p->global_batch = *per_gpu;
  /* a micro-batch at least the GPU's samples is all of them at once
   * (no accumulation); a smaller one that does not split them evenly is
   * the user's to change, not ours to replace */
  if (p->micro_batch > *per_gpu) p->micro_batch = *per_gpu;
  if (p->micro_batch > 0 && *per_gpu % p->micro_batch)
    return sc_error_set(err, SC_EINPUT,
                        "plan.micro_batch: %ld does not divide the %ld samples per GPU "
                        "(plan.global_batch %ld over %d GPUs); give a divisor of %ld, or 0 "
                        "(gradient accumulation off: the whole per-GPU batch at once)",
                        p->micro_batch, *per_gpu, s->plan.global_batch, gpus, *per_gpu);
  if (p->micro_batch == 0) p->micro_batch = *per_gpu;
  return SC_OK;
}

static void dp_free_prep(dp_prep *pr) { dp_model_free(&pr->m); }

static int dp_prepare(const sc_scenario *s, dp_prep *pr, sc_error *err) {
  memset(pr, 0, sizeof *pr);
  pr->s = *s;
  sc_scenario one;
  int rc = dp_single(s, &one, &pr->per_gpu, err);
  if (rc) return rc;
  if ((rc = sc_scenario_resolve(&one, err))) return rc;
  sc_job *j;
  if ((rc = sc_job_open(&one, &j, err))) return rc;
  rc = sc_job_predict(j, NULL, &pr->one, err);
  if (rc == SC_OK && !pr->one.mem.fits && !s->dp.keep_unfit)
    rc = sc_error_set(err, SC_EINPUT,
                      "plan.global_batch: %ld samples per GPU (micro-batch %ld) do not fit: "
                      "%.1f GB needed of the %.1f GB of one %s",
                      pr->per_gpu, pr->one.micro_batch, pr->one.mem.total / 1e9,
                      pr->one.mem.capacity / 1e9, s->cluster.gpu.name);
  sc_job_close(j);
  if (rc) return rc;
  dpm_model dm;
  if ((rc = dpm_layers(&one, &dm, err))) return rc;
  /* gradients in the parameters' dtype: 16 bits in fp16/bf16 training,
   * fp32 under AMP (fp32 parameters, cost/amp.h) and in fp32/tf32 */
  sc_dtype dt = one.plan.dtype;
  double ge = s->dp.grad_bytes > 0                                  ? s->dp.grad_bytes
              : (dt == SC_FP16 || dt == SC_BF16) && !amp_on(&one.plan) ? 2
                                                                     : 4;
  rc = dp_model_from_dpm(&dm, ge, 4, &pr->m, err);
  dpm_free(&dm);
  pr->m.samples = (double)pr->per_gpu;
  pr->m.micro_steps = pr->one.micro_batches > 0 ? pr->one.micro_batches : 1;
  pr->one.step_s += s->dp.other_s;
  return rc;
}

/* The transport a scheme's library uses unless the scenario says: NCCL
 * and BlueFog's NCCL path use RDMA, the rest (gRPC, MPI over TCP, KungFu)
 * sockets. */
static sc_dp_transport dp_transport_for(dp_scheme sc, sc_dp_transport t) {
  if (t != SC_DP_TR_AUTO) return t;
  switch (sc) {
  case DP_ALLREDUCE_NCCL:
  case DP_ALLREDUCE_RING_NCCL:
  case DP_ALLREDUCE_HIER:
  case DP_REPLICATED_NCCL:
  case DP_NEIGHBOR_EXP2:
  case DP_HIER_NEIGHBOR:
  case DP_GOSSIP_GRAPH: return SC_DP_TR_RDMA;
  default: return SC_DP_TR_TCP;
  }
}

/* Expected largest of k independent standard normal variables: the
 * exact values for k <= 10 (tables of normal order statistics, Harter
 * 1961), above them Blom's approximation Phi^-1((k - 3/8) / (k + 1/4)),
 * the inverse by bisection on erfc. */
static double dp_max_normal(int k) {
  static const double exact[] = {0, 0, 0.5642, 0.8463, 1.0294, 1.1630,
                                 1.2672, 1.3522, 1.4236, 1.4850, 1.5388};
  if (k <= 10) return exact[k < 0 ? 0 : k];
  double p = (k - 0.375) / (k + 0.25), lo = 0, hi = 10;
  for (int i = 0; i < 60; i++) {
    double mid = 0.5 * (lo + hi);
    if (0.5 * erfc(-mid / sqrt(2.0)) < p) lo = mid;
    else hi = mid;
  }
  return 0.5 * (lo + hi);
}

/* Workers one synchronous step waits for: every worker for all-reduce and
 * synchronous PS, a worker and its peers for neighbour averaging, none
 * for the asynchronous schemes. */
static int dp_barrier(const dp_prep *pr, dp_scheme sc, const dp_fabric *f) {
  if (dp_scheme_async(sc) || sc == DP_SINGLE_GPU) return 1;
  if (sc == DP_NEIGHBOR_EXP2) return 2;
  if (sc == DP_HIER_NEIGHBOR) return 2 * f->gpn < f->gpus ? 2 * f->gpn : f->gpus;
  if (sc == DP_GOSSIP_GRAPH) {
    dp_graph g;
    sc_error e = {0};
    int deg = 0;
    if (dp_graph_parse(pr->s.dp.graph, f->gpus, &g, &e) == SC_OK) {
      for (int i = 0; i < g.n; i++) {
        int d = 0;
        for (int j = 0; j < g.n; j++) d += j != i && g.w[(size_t)i * g.n + j] != 0;
        if (d > deg) deg = d;
      }
      dp_graph_free(&g);
    }
    return deg + 1;
  }
  return f->gpus;
}

static int dp_eval(const dp_prep *pr, dp_scheme sc, sc_dp_result *r, dp_spans *rec,
                   sc_error *err) {
  memset(r, 0, sizeof *r);
  sc_scenario s = pr->s;
  s.dp.transport = dp_transport_for(sc, s.dp.transport);
  dp_fabric f;
  int rc = dp_fabric_resolve(&s, &f, err);
  if (rc) return rc;
  dp_ctx c = {&s, &s.dp, &pr->m, &f, sc, pr->one.step_s, rec};
  if (dp_scheme_family(sc) == DP_FAM_PS) c.compute_s = dp_ps_worker_compute(&c);
  dp_cost cost = {0};
  double rate = 0;
  if ((rc = dp_topo_rate(&c, &rate, err))) return rc;
  f.topo_rate = rate;
  if (f.nodes > 1 && f.net_bw <= 0 && rate <= 0 && sc != DP_SINGLE_GPU)
    return sc_error_set(err, SC_EINPUT,
                        "dp.network_Gbps: the job spans %d servers but no network bandwidth "
                        "is given (set dp.network_Gbps or cluster.nic_Gbps%s)", f.nodes,
                        s.cluster.topology[0] ? "; on a topology this scheme keeps its closed form"
                                               : "");
  switch (dp_scheme_family(sc)) {
  case DP_FAM_NONE:
    if (f.gpus > 1)
      return sc_error_set(err, SC_EINPUT,
                          "dp.scheme: single_gpu, but cluster.gpus is %d", f.gpus);
    cost.step_s = c.compute_s;
    snprintf(cost.how, sizeof cost.how, "no exchange");
    break;
  case DP_FAM_PS: rc = dp_ps_cost(&c, &cost, err); break;
  case DP_FAM_ALLREDUCE: rc = dp_allreduce_cost(&c, &cost, err); break;
  case DP_FAM_GOSSIP: rc = dp_gossip_cost(&c, &cost, err); break;
  }
  if (rc) return rc;
  if (s.dp.jitter > 0) { /* the slowest of the workers a step waits for */
    double wait = c.compute_s * s.dp.jitter * dp_max_normal(dp_barrier(pr, sc, &f));
    cost.step_s += wait;
    cost.exposed_s += wait;
  }
  snprintf(r->scheme, sizeof r->scheme, "%s", dp_scheme_name(sc));
  r->family = dp_family_name(dp_scheme_family(sc));
  r->async = dp_scheme_async(sc);
  r->step_s = cost.step_s;
  r->samples_per_s = f.gpus * (double)pr->per_gpu / cost.step_s;
  r->efficiency = pr->one.step_s / cost.step_s;
  r->compute_s = c.compute_s;
  r->comm_s = cost.comm_s;
  r->exposed_s = cost.exposed_s;
  r->grad_bytes = pr->m.grad_bytes;
  r->messages = cost.messages;
  snprintf(r->how, sizeof r->how, "%.80s%s%s", cost.how, f.nodes > 1 ? ", " : "",
           f.nodes > 1 ? f.transport : "");
  r->mem = pr->one.mem;
  return SC_OK;
}

int sc_dp_predict(const sc_scenario *s, sc_dp_result *r, sc_error *err) {
  int sc = dp_scheme_from_name(s->dp.scheme);
  if (sc < 0) return dp_unknown(s->dp.scheme, err);
  dp_prep pr;
  int rc = dp_whole_replica(&s->plan, err);
  if (rc) return rc;
  rc = dp_prepare(s, &pr, err);
  if (rc == SC_OK) rc = dp_eval(&pr, (dp_scheme)sc, r, NULL, err);
  dp_free_prep(&pr);
  return rc;
}

/* Where layer i of the last backward ends, from that backward's start:
 * on the clock the messages beside it slowed when the run recorded it
 * (overlap.c), else on its own. */
static double dp_layer_end(const dp_model *m, const dp_spans *rec, int i, double own) {
  return rec->bwd_n == m->n && rec->bwd_end ? rec->bwd_end[i] : own;
}

/* Compute spans of the step around the recorded messages: the micro-steps
 * before the last one (forward, backward), the last forward, the last
 * backward layer by layer (slowed where messages ran beside it), then the
 * optimizer and host time after the exposed exchange. Messages were
 * recorded from the start of the last backward: shifted here. */
static void dp_layout(const dp_prep *pr, const sc_dp_result *r, dp_spans *rec) {
  const dp_model *m = &pr->m;
  int first_msg = 0, M = m->micro_steps > 0 ? m->micro_steps : 1;
  double t = 0, b0 = 0;
  sc_span sp = {.stage = 0, .lane = 0, .chunk = 0};
  int n_msgs = rec->n;
  for (int k = 0; k < M; k++) {
    sp.micro_batch = k;
    sp.kind = 'F', sp.start = t, sp.dur = m->fwd_s;
    if (!vec_grow((void **)&rec->v, &rec->cap, rec->n + 1L, sizeof *rec->v)) rec->v[rec->n++] = sp;
    else rec->oom = 1;
    t += m->fwd_s;
    b0 = t;
    double own = 0, prev = 0;
    for (int i = 0; i < m->n && (k == M - 1 || i == 0); i++) {
      double d = m->bwd_s, end = d;
      if (k == M - 1) own += m->layers[i].bwd_s, end = dp_layer_end(m, rec, i, own), d = end - prev;
      sp.kind = 'B', sp.start = b0 + prev, sp.dur = d;
      if (d > 0 && !vec_grow((void **)&rec->v, &rec->cap, rec->n + 1L, sizeof *rec->v))
        rec->v[rec->n++] = sp;
      prev = end;
    }
    t = b0 + prev;
    if (k == M - 1)
      for (int j = first_msg; j < n_msgs; j++) rec->v[j].start += b0;
  }
  /* the exposed exchange counts from the end of the unslowed backward */
  double start = b0 + m->bwd_s + r->exposed_s, other = r->step_s - start;
  sp.kind = 'O', sp.micro_batch = -1, sp.start = start, sp.dur = other > 0 ? other : 0;
  if (!vec_grow((void **)&rec->v, &rec->cap, rec->n + 1L, sizeof *rec->v)) rec->v[rec->n++] = sp;
}

int sc_dp_timeline(const sc_scenario *s, sc_span **spans, size_t *n, double *step_s,
                   sc_error *err) {
  *spans = NULL, *n = 0;
  int sc = dp_scheme_from_name(s->dp.scheme);
  if (sc < 0) return dp_unknown(s->dp.scheme, err);
  dp_prep pr;
  dp_spans rec = {0};
  sc_dp_result r;
  int rc = dp_whole_replica(&s->plan, err);
  if (rc) return rc;
  rc = dp_prepare(s, &pr, err);
  if (rc == SC_OK) rc = dp_eval(&pr, (dp_scheme)sc, &r, &rec, err);
  if (rc == SC_OK) dp_layout(&pr, &r, &rec);
  if (rc == SC_OK && rec.oom) rc = sc_error_set(err, SC_ENOMEM, "out of memory for the timeline");
  dp_free_prep(&pr);
  mem_free(rec.bwd_end);
  if (rc) {
    mem_free(rec.v);
    return rc;
  }
  *spans = rec.v, *n = (size_t)rec.n, *step_s = r.step_s;
  return SC_OK;
}

/* 1 when scheme sc is worth listing for the job of pr. */
static int dp_applies(const dp_prep *pr, dp_scheme sc) {
  const sc_cluster *cl = &pr->s.cluster;
  int gpn = cl->gpus_per_node < cl->gpus ? cl->gpus_per_node : cl->gpus;
  int nodes = gpn > 0 ? cl->gpus / gpn : 1;
  if (cl->gpus == 1) return sc == DP_SINGLE_GPU;
  switch (sc) {
  case DP_SINGLE_GPU: return 0;
  case DP_REPLICATED_NCCL:
  case DP_REPLICATED_COPY: return nodes == 1;
  case DP_ALLREDUCE_HIER:
  case DP_HIER_NEIGHBOR: return nodes > 1 && gpn > 1;
  case DP_GOSSIP_GRAPH: return pr->s.dp.graph[0] != '\0';
  default: return 1;
  }
}

static int dp_by_step(const void *a, const void *b) {
  const sc_dp_result *x = a, *y = b;
  if (x->step_s != y->step_s) return x->step_s < y->step_s ? -1 : 1;
  return strcmp(x->scheme, y->scheme);
}

int sc_dp_compare(const sc_scenario *s, sc_dp_result *out, int max, sc_error *err) {
  /* the comparison runs every scheme, but a scheme name that is none of
   * them is a typo to report, not a value to ignore */
  if (s->dp.scheme[0] && dp_scheme_from_name(s->dp.scheme) < 0) return -dp_unknown(s->dp.scheme, err);
  dp_prep pr;
  int rc = dp_prepare(s, &pr, err);
  if (rc) return -rc;
  int n = 0;
  for (int i = 0; i < DP_SCHEME_COUNT && n < max && rc == SC_OK; i++) {
    if (!dp_applies(&pr, (dp_scheme)i)) continue;
    int r = dp_eval(&pr, (dp_scheme)i, &out[n], NULL, err);
    if (r == SC_OK) n++;
    else rc = r;
  }
  dp_free_prep(&pr);
  /* dp_applies leaves out the schemes the cluster's shape rules out; an
   * input error of one that applies is the job's (dp.ps_count over the
   * model's variables, a bad or disconnected dp.graph): say what, rather
   * than drop the scheme from the list in silence */
  if (rc) return -rc;
  qsort(out, (size_t)n, sizeof *out, dp_by_step);
  return n;
}
