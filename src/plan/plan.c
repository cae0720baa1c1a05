/*
 * plan.c -- default scenario, and the checks and picks that turn a
 * scenario as written into one the engines can run (module prefix: plan_).
 *
 * sc_scenario_resolve() is the single gate between user input (JSON, CLI
 * flags, CSV rows, API callers) and the cost model: every relation the
 * engines rely on (tp divides heads, gpus = tp*pp*dp*cp, micro-batches
 * divide the batch, ...) is checked here, and every "0 = pick" field is
 * filled in the way the framework would. Each failure is SC_EINPUT with a
 * message that starts with the key path (e.g. "plan.tp") and says which
 * values would be valid. Checks run in dependency order: model, cluster,
 * plan basics, then the relations between them.
 */
#include <assert.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "hw/cluster_presets.h"
#include "model/builder.h"
#include "plan/plan.h"
#include "plan/plan_attn.h"
#include "stepcast.h"

/* ------------------------------------------------------------ defaults */

/* Fill *p with the neutral plan: every degree 1 (dp, vpp and micro_batch
 * 0 = pick), plain 1F1B, no recompute, no ZeRO, bf16, gradient reduce and
 * parameter gather overlapped, flash attention and fused kernels on, an
 * eager framework. global_batch is 0 and must be set before resolving. */
void sc_plan_default(sc_plan *p) {
  memset(p, 0, sizeof *p);
  p->tp = p->pp = p->cp = p->ep = 1;
  p->dp = 0;  /* gpus / (tp*pp*cp) */
  p->vpp = 0; /* 1, or 2 for the interleaved schedule */
  p->schedule = SC_SCHED_1F1B;
  p->recompute = SC_RECOMP_NONE;
  p->global_batch = 0;
  p->micro_batch = 0;
  p->dtype = SC_BF16;
  p->overlap_grad_reduce = 1;
  p->overlap_param_gather = 1;
  p->overlap_tp = 0;
  /* off: every Megatron-family framework runs it on, but with it every
   * validation set with tp > 1 moved away from its measurements
   * (docs/accuracy.md, "The asynchronous tensor-parallel backward") */
  p->tp_async_bwd = 0;
  p->flash_attention = 1;
  p->attention = SC_ATTN_AUTO; /* resolved per GPU: plan/plan_attn.h */
  p->fused_kernels = 1;
  p->framework_eager = 1;
  p->channels_last = 1;
  plan_fsdp_moe_default(p);
}

/* Fill *s with the default scenario: GPT-3 175B on 128 DGX A100 (1,024
 * A100 80GB, NVLink 300 GB/s per direction, 200 Gb/s per GPU), Megatron
 * style: tp 8 inside the node, pp 16 with plain 1F1B, dp derived (8),
 * sequence parallelism, distributed optimizer (ZeRO 1), selective
 * recompute, global batch 1536 of micro-batch 1 (picked), bf16.
 * Cannot fail: the presets are compiled in (asserted by the tests). */
void sc_scenario_default(sc_scenario *s) {
  memset(s, 0, sizeof *s);
  const sc_model *m = sc_model_preset("gpt3-175b");
  if (m) s->model = *m;
  if (clus_preset_fill(&s->cluster, "dgx-a100"))
    s->cluster.gpus = 128 * s->cluster.gpus_per_node;
  sc_plan *p = &s->plan;
  sc_plan_default(p);
  p->tp = 8;
  p->pp = 16;
  p->dp = 0;          /* 1024 / (8 * 16) = 8 */
  p->sp = 1;
  p->zero = 1;
  p->distributed_optimizer = 0; /* zero 1 is the distributed optimizer */
  p->recompute = SC_RECOMP_SELECTIVE;
  p->global_batch = 1536;
  p->micro_batch = 0; /* pp > 1: 1 */
}

/* ------------------------------------------------------ message helpers */

/* Saturating product of two non-negative integers (saturates at 2^62). */
static long long plan_mul(long long a, long long b) {
  const long long cap = 1LL << 62;
  if (a <= 0 || b <= 0) return 0;
  return a > cap / b ? cap : a * b;
}

long long plan_gcd(long long a, long long b) {
  while (b) {
    long long t = a % b;
    a = b;
    b = t;
  }
  return a;
}

/* Write the divisors of n (n >= 1) into buf as "1, 2, 3, ...", keeping at
 * most about 24 of them ("1, 2, ..., 512, 1024" when there are more).
 * Costs O(sqrt n) steps; n <= 2^40 by the limits above. */
void plan_divisors(long long n, char *buf, size_t cap) {
  enum { KEEP = 24 };
  long long lo[KEEP], hi[KEEP];
  int nlo = 0, nhi = 0, more = 0;
  for (long long i = 1; i <= n / i; i++) {
    if (n % i) continue;
    if (nlo < KEEP) lo[nlo++] = i;
    else more = 1;
    if (i != n / i) {
      if (nhi < KEEP) hi[nhi++] = n / i;
      else more = 1;
    }
  }
  /* hi holds the largest divisors in decreasing order, but only the first
   * KEEP of them: those pair with lo[]. */
  size_t len = 0;
  buf[0] = '\0';
  int shown_lo = more ? KEEP / 2 : nlo;
  int shown_hi = more ? 4 : nhi;
  for (int i = 0; i < shown_lo && len < cap; i++)
    len += (size_t)snprintf(buf + len, cap - len, "%s%lld", i ? ", " : "", lo[i]);
  if (more && len < cap) len += (size_t)snprintf(buf + len, cap - len, ", ...");
  for (int i = shown_hi - 1; i >= 0 && len < cap; i--)
    len += (size_t)snprintf(buf + len, cap - len, ", %lld", hi[i]);
}

/* Divisors of n that are at most `max`, as text ("none" if n < 1). */
void plan_divisors_upto(long long n, long long max, char *buf, size_t cap) {
  size_t len = 0;
  buf[0] = '\0';
  if (n < 1) {
    snprintf(buf, cap, "none");
    return;
  }
  int count = 0;
  for (long long d = 1; d <= max && d <= n && len < cap; d++) {
    if (n % d) continue;
    if (++count > 24) {
      snprintf(buf + len, cap - len, ", ...");
      return;
    }
    len += (size_t)snprintf(buf + len, cap - len, "%s%lld", count > 1 ? ", " : "", d);
  }
}

const char *const plan_sched_names[PLAN_SCHEDS] = {"1f1b", "gpipe", "interleaved", "zb-h1",
                                                   "dualpipe"};
const char *const plan_recomp_names[PLAN_RECOMPS] = {"none", "selective", "full"};
const char *const plan_attn_names[PLAN_ATTNS] = {"flash2", "flash1", "flash3", "unfused", "cudnn", "auto"};
const char *const plan_loss_names[PLAN_LOSSES] = {"auto", "vocab_parallel", "fused", "eager"};
const char *const plan_zero_grad_names[PLAN_ZERO_GRADS] = {"auto", "set_to_none", "zero"};

/* SC_EINPUT unless lo <= v <= hi; `path` names the key. */
int plan_range(long long v, long long lo, long long hi, const char *path, sc_error *err) {
  if (v >= lo && v <= hi) return SC_OK;
  return sc_error_set(err, SC_EINPUT, "%s: %lld is out of range (valid: %lld..%lld)",
                      path, v, lo, hi);
}

/* SC_EINPUT unless v is finite and lo <= v (or lo < v when strict). */
static int plan_positive(double v, double lo, int strict, double unit,
                         const char *path, const char *unit_name, sc_error *err) {
  int ok = isfinite(v) && (strict ? v > lo : v >= lo);
  if (ok) return SC_OK;
  return sc_error_set(err, SC_EINPUT, "%s: %g %s is invalid (valid: a finite number %s %g)",
                      path, v / unit, unit_name, strict ? ">" : ">=", lo / unit);
}

/* ---------------------------------------------------------------- model */

/* Check the model spec with its builder (ranges, derived fields). */
static int plan_model(sc_model *m, sc_error *err) {
  const model_builder *b = model_builder_for(m->kind);
  if (!b)
    return sc_error_set(err, SC_EINPUT, "model: kind %d is not valid (transformer, graph)",
                        (int)m->kind);
  return b->resolve(m, err);
}

/* -------------------------------------------------------------- cluster */

/* Check the GPU constants that every prediction divides by. */
static int plan_gpu(const sc_gpu *g, sc_error *err) {
  int rc;
  if ((rc = plan_positive(g->hbm_bytes, 0, 1, 1e9, "cluster.gpu.hbm_GB", "GB", err)) ||
      (rc = plan_positive(g->hbm_bw, 0, 1, 1e12, "cluster.gpu.hbm_TBps", "TB/s", err)) ||
      (rc = plan_positive(g->vector_flops, 0, 0, 1e12, "cluster.gpu.vector_tflops", "TFLOP/s", err)) ||
      (rc = plan_positive(g->nvlink_bw, 0, 0, 1e9, "cluster.gpu.nvlink_GBps", "GB/s", err)) ||
      (rc = plan_positive(g->launch_s, 0, 0, 1e-6, "cluster.gpu.launch_us", "us", err)))
    return rc;
  const double eff[3] = {g->hbm_eff, g->gemm_eff, g->attn_eff};
  const char *name[3] = {"hbm_eff", "gemm_eff", "attn_eff"};
  for (int i = 0; i < 3; i++)
    if (!(eff[i] > 0 && eff[i] <= 1))
      return sc_error_set(err, SC_EINPUT, "cluster.gpu.%s: %g is not valid (a fraction in (0, 1])",
                          name[i], eff[i]);
  if (!(g->gemm_eff_fp8 >= 0 && g->gemm_eff_fp8 <= 1))
    return sc_error_set(err, SC_EINPUT,
                        "cluster.gpu.gemm_eff_fp8: %g is not valid (a fraction in [0, 1], 0 = gemm_eff)",
                        g->gemm_eff_fp8);
  for (int d = 0; d < SC_DTYPE_COUNT; d++)
    if (!(isfinite(g->peak_flops[d]) && g->peak_flops[d] >= 0))
      return sc_error_set(err, SC_EINPUT, "cluster.gpu.peak_tflops.%s: %g is not valid (>= 0; 0 = unsupported)",
                          sc_dtype_name((sc_dtype)d), g->peak_flops[d] / 1e12);
  return SC_OK;
}

/* Check the sizes of the cluster and fill nvlink_domain (0: one node) and
 * nvlink_bw (0: the GPU's). */
static int plan_cluster_sizes(sc_cluster *c, sc_error *err) {
  int rc;
  if ((rc = plan_range(c->gpus, 1, PLAN_MAX_GPUS, "cluster.gpus", err)) ||
      (rc = plan_range(c->gpus_per_node, 1, PLAN_MAX_DEGREE, "cluster.gpus_per_node", err)) ||
      (rc = plan_range(c->nvlink_domain, 0, PLAN_MAX_GPUS, "cluster.nvlink_domain", err)))
    return rc;
  if (c->nvlink_domain == 0) c->nvlink_domain = c->gpus_per_node;
  if (c->gpus > c->gpus_per_node && c->gpus % c->gpus_per_node) {
    int lo = c->gpus / c->gpus_per_node * c->gpus_per_node;
    return sc_error_set(err, SC_EINPUT,
                        "cluster.gpus: %d is not a whole number of nodes of "
                        "cluster.gpus_per_node %d%s%.96s%s; valid nearby: %d or %d",
                        c->gpus, c->gpus_per_node, c->node_from[0] ? " (" : "", c->node_from,
                        c->node_from[0] ? ")" : "", lo, lo + c->gpus_per_node);
  }
  if (c->nvlink_domain % c->gpus_per_node && c->gpus_per_node % c->nvlink_domain)
    return sc_error_set(err, SC_EINPUT,
                        "cluster.nvlink_domain: %d must be a multiple of cluster.gpus_per_node %d "
                        "(rack-scale NVLink) or divide it",
                        c->nvlink_domain, c->gpus_per_node);
  if (c->straggler_slowdown > 0 && c->straggler_gpu >= c->gpus) /* whichever engine runs */
    return sc_error_set(err, SC_EINPUT,
                        "cluster.straggler_gpu: GPU %d does not exist (the job has GPUs 0..%d)",
                        c->straggler_gpu, c->gpus - 1);
  return SC_OK;
}

/* Check the links of the cluster. */
static int plan_cluster_links(sc_cluster *c, sc_error *err) {
  int rc;
  if (c->nvlink_bw == 0) c->nvlink_bw = c->gpu.nvlink_bw;
  if ((rc = plan_positive(c->nvlink_bw, 0, 0, 1e9, "cluster.nvlink_GBps", "GB/s", err)) ||
      (rc = plan_positive(c->nic_bw, 0, 0, 1e9 / 8, "cluster.nic_Gbps", "Gb/s", err)) ||
      (rc = plan_positive(c->nvlink_lat, 0, 0, 1e-6, "cluster.nvlink_latency_us", "us", err)) ||
      (rc = plan_positive(c->nic_lat, 0, 0, 1e-6, "cluster.nic_latency_us", "us", err)))
    return rc;
  if (c->nvlink_domain > 1 && c->gpus > 1 && c->nvlink_bw <= 0)
    return sc_error_set(err, SC_EINPUT,
                        "cluster.nvlink_GBps: required (> 0) for an NVLink domain of %d GPUs "
                        "(GPU %s has none); or set cluster.nvlink_domain 1",
                        c->nvlink_domain, c->gpu.name);
  if (c->gpus > c->nvlink_domain && c->nic_bw <= 0)
    return sc_error_set(err, SC_EINPUT,
                        "cluster.nic_Gbps: required (> 0) when the cluster spans more than one "
                        "NVLink domain (cluster.gpus %d > nvlink_domain %d), e.g. 200 or 400",
                        c->gpus, c->nvlink_domain);
  return SC_OK;
}

static int plan_cluster(sc_cluster *c, sc_error *err) {
  int rc;
  c->name[sizeof c->name - 1] = '\0';
  c->topology[sizeof c->topology - 1] = '\0';
  c->gpu.name[sizeof c->gpu.name - 1] = '\0';
  if ((rc = plan_gpu(&c->gpu, err))) return rc;
  if ((rc = plan_cluster_sizes(c, err))) return rc;
  return plan_cluster_links(c, err);
}

/* ------------------------------------------------------------ the plan */

/* Check the ranges and enums of the plan on its own. */
static int plan_basics(sc_plan *p, sc_error *err) {
  int rc;
  if ((rc = plan_range(p->tp, 1, PLAN_MAX_DEGREE, "plan.tp", err)) ||
      (rc = plan_range(p->pp, 1, PLAN_MAX_DEGREE, "plan.pp", err)) ||
      (rc = plan_range(p->dp, 0, PLAN_MAX_GPUS, "plan.dp", err)) ||
      (rc = plan_range(p->cp, 1, PLAN_MAX_DEGREE, "plan.cp", err)) ||
      (rc = plan_range(p->ep, 1, PLAN_MAX_DEGREE, "plan.ep", err)) ||
      (rc = plan_range(p->vpp, 0, PLAN_MAX_VPP, "plan.vpp", err)) ||
      (rc = plan_range(p->zero, 0, 3, "plan.zero", err)) ||
      (rc = plan_range(p->vocab_multiple, 0, 65536, "plan.vocab_multiple", err)))
    return rc;
  if (p->global_batch == 0)
    return sc_error_set(err, SC_EINPUT,
                        "plan.global_batch: required (sequences per optimizer step, e.g. 1536)");
  if ((rc = plan_range(p->global_batch, 1, PLAN_MAX_BATCH, "plan.global_batch", err)) ||
      (rc = plan_range(p->micro_batch, 0, p->global_batch, "plan.micro_batch", err)))
    return rc;
  if ((unsigned)p->schedule > SC_SCHED_DUALPIPE)
    return sc_error_set(err, SC_EINPUT,
                        "plan.schedule: %d is not valid (1f1b, gpipe, interleaved, zb-h1, "
                        "dualpipe)",
                        (int)p->schedule);
  if ((unsigned)p->recompute > SC_RECOMP_FULL)
    return sc_error_set(err, SC_EINPUT, "plan.recompute: %d is not valid (none, selective, full)",
                        (int)p->recompute);
  if ((unsigned)p->attention > SC_ATTN_AUTO)
    return sc_error_set(err, SC_EINPUT,
                        "plan.attention: %d is not valid (auto, flash2, flash1, flash3, unfused, cudnn)",
                        (int)p->attention);
  if ((unsigned)p->main_grads >= SC_DTYPE_COUNT)
    return sc_error_set(err, SC_EINPUT, "plan.main_grads: %d is not valid (fp32, bf16)",
                        (int)p->main_grads);
  if ((unsigned)p->main_params >= SC_DTYPE_COUNT || (unsigned)p->exp_avg >= SC_DTYPE_COUNT ||
      (unsigned)p->exp_avg_sq >= SC_DTYPE_COUNT)
    return sc_error_set(err, SC_EINPUT,
                        "plan.main_params_dtype/exp_avg_dtype/exp_avg_sq_dtype: %d/%d/%d; not "
                        "valid sc_dtype values (fp32, fp16, bf16, fp8)",
                        (int)p->main_params, (int)p->exp_avg, (int)p->exp_avg_sq);
  if ((unsigned)p->dtype >= SC_DTYPE_COUNT)
    return sc_error_set(err, SC_EINPUT, "plan.dtype: %d is not valid (fp32, tf32, fp16, bf16, fp8, fp4)",
                        (int)p->dtype);
  return SC_OK;
}

/* The GPU must compute in the plan's dtype. */
static int plan_dtype(const sc_scenario *s, sc_error *err) {
  const sc_gpu *g = &s->cluster.gpu;
  if (g->peak_flops[s->plan.dtype] > 0) return SC_OK;
  char valid[96] = "";
  size_t len = 0;
  for (int d = 0; d < SC_DTYPE_COUNT && len < sizeof valid; d++)
    if (g->peak_flops[d] > 0)
      len += (size_t)snprintf(valid + len, sizeof valid - len, "%s%s", len ? ", " : "",
                              sc_dtype_name((sc_dtype)d));
  return sc_error_set(err, SC_EINPUT,
                      "plan.dtype: %s is not supported by cluster.gpu %s (peak_tflops.%s is 0); "
                      "valid: %s",
                      sc_dtype_name(s->plan.dtype), g->name, sc_dtype_name(s->plan.dtype),
                      len ? valid : "none (set cluster.gpu.peak_tflops)");
}

/* Tensor parallelism splits heads, KV heads and the MLP of a transformer:
 * tp must divide each (Megatron-LM asserts the same); with sequence
 * parallelism it also splits the sequence (per context-parallel rank).
 * `path` is the key path of tp ("plan.tp", "plan.overrides[0].tp"). */
static int plan_tensor_split(const sc_transformer *m, int tp, int cp, int sp, const char *path,
                             sc_error *err) {
  const char *what = NULL;
  int of = 0;
  if (m->heads % tp) what = "model.heads", of = m->heads;
  else if (m->kv_heads % tp) what = "model.kv_heads", of = m->kv_heads;
  else if (m->ffn % tp) what = "model.ffn", of = m->ffn;
  if (what && !err) return SC_EINPUT; /* no message wanted (job_quiet_checks) */
  if (what) {
    char valid[256]; /* formatted only on the error path (a search's hot loop) */
    plan_divisors(plan_gcd(plan_gcd(m->heads, m->kv_heads), m->ffn), valid, sizeof valid);
    return sc_error_set(err, SC_EINPUT,
                        "%s: %d does not divide %s %d (tensor parallelism splits "
                        "heads, KV heads and the MLP evenly); valid tp: %s",
                        path, tp, what, of, valid);
  }
  if (sp && tp > 1 && (m->seq % cp == 0) && (m->seq / cp) % tp) {
    char sp_path[64]; /* the sp key beside the tp key */
    snprintf(sp_path, sizeof sp_path, "%.*ssp", (int)strlen(path) - 2, path);
    return sc_error_set(err, SC_EINPUT,
                        "%s: sequence parallelism splits model.seq / cp = %d tokens over "
                        "tp %d, which does not divide them; set %s false or a tp that divides %d",
                        sp_path, m->seq / cp, tp, sp_path, m->seq / cp);
  }
  return SC_OK;
}

static int plan_tensor(sc_scenario *s, sc_error *err) {
  sc_plan *p = &s->plan;
  if (p->tp == 1) p->sp = 0; /* sequence parallelism is a no-op without tp */
  p->sp = !!p->sp;
  if (s->model.kind != SC_MODEL_TRANSFORMER) return SC_OK; /* checked against the graph */
  return plan_tensor_split(&s->model.tf, p->tp, p->cp, p->sp, "plan.tp", err);
}

/* Context parallelism splits each sequence into cp equal chunks. */
static int plan_context_split(const sc_model *m, int cp, const char *path, sc_error *err) {
  char valid[256];
  if (m->kind != SC_MODEL_TRANSFORMER || m->tf.seq % cp == 0) return SC_OK;
  plan_divisors(m->tf.seq, valid, sizeof valid);
  return sc_error_set(err, SC_EINPUT, "%s: %d does not divide model.seq %d; valid cp: %s", path,
                      cp, m->tf.seq, valid);
}

static int plan_context(const sc_scenario *s, sc_error *err) {
  return plan_context_split(&s->model, s->plan.cp, "plan.cp", err);
}

/* Data parallelism: derive dp = gpus / (tp*pp*cp) when 0, else require
 * tp*pp*dp*cp == gpus. */
static int plan_data(sc_scenario *s, sc_error *err) {
  sc_plan *p = &s->plan;
  long long gpus = s->cluster.gpus;
  long long mp = plan_mul(plan_mul(p->tp, p->pp), p->cp);
  if (mp > gpus)
    return sc_error_set(err, SC_EINPUT,
                        "plan: tp*pp*cp = %d*%d*%d = %lld exceeds cluster.gpus %lld; "
                        "lower plan.tp/pp/cp or add GPUs",
                        p->tp, p->pp, p->cp, mp, gpus);
  if (p->dp == 0) {
    if (gpus % mp)
      return sc_error_set(err, SC_EINPUT,
                          "plan.dp: cannot derive dp: cluster.gpus %lld is not divisible by "
                          "tp*pp*cp = %d*%d*%d = %lld; use a multiple of %lld GPUs or change tp/pp/cp",
                          gpus, p->tp, p->pp, p->cp, mp, mp);
    p->dp = (int)(gpus / mp);
    return SC_OK;
  }
  long long all = plan_mul(mp, p->dp);
  if (all == gpus) return SC_OK;
  if (gpus % mp == 0)
    return sc_error_set(err, SC_EINPUT,
                        "plan.dp: tp*pp*dp*cp = %d*%d*%d*%d = %lld but cluster.gpus = %lld; "
                        "use dp %lld (or omit plan.dp to derive it)",
                        p->tp, p->pp, p->dp, p->cp, all, gpus, gpus / mp);
  return sc_error_set(err, SC_EINPUT,
                      "plan.dp: tp*pp*dp*cp = %d*%d*%d*%d = %lld but cluster.gpus = %lld, "
                      "which tp*pp*cp = %lld does not divide; change tp/pp/cp or cluster.gpus",
                      p->tp, p->pp, p->dp, p->cp, all, gpus, mp);
}

/* Expert parallelism distributes the experts over ep ranks taken from the
 * data (x context) parallel group. */
long long plan_ep_mesh(const sc_plan *p, int cp) {
  /* experts whole on each GPU (etp 1): ep folds over tp x dp x cp */
  int folded = p->etp == 1 && p->tp > 1;
  return plan_mul(p->dp, cp) * (folded ? p->tp : 1);
}

static int plan_expert_split(const sc_scenario *s, int ep, int cp, const char *path,
                             sc_error *err) {
  const sc_plan *p = &s->plan;
  if (ep == 1) return SC_OK;
  int tf = s->model.kind == SC_MODEL_TRANSFORMER;
  int experts = tf ? s->model.tf.experts : 0;
  if (tf && experts <= 1)
    return sc_error_set(err, SC_EINPUT,
                        "%s: %d needs an MoE model, but model.experts is %d; valid ep: 1", path,
                        ep, experts);
  int folded = p->etp == 1 && p->tp > 1;
  long long mesh = plan_ep_mesh(p, cp);
  if ((!tf || experts % ep == 0) && mesh % ep == 0) return SC_OK;
  char valid[256];
  plan_divisors(tf ? plan_gcd(experts, mesh) : mesh, valid, sizeof valid);
  const char *where = folded ? "tp*dp*cp" : "dp*cp";
  if (!tf)
    return sc_error_set(err, SC_EINPUT,
                        "%s: %d must divide %s %lld (experts are spread over those ranks); "
                        "valid ep: %s%s",
                        path, ep, where, mesh, valid,
                        folded ? "" : "; or plan.etp 1 folds ep over the tensor-parallel ranks");
  return sc_error_set(err, SC_EINPUT,
                      "%s: %d must divide model.experts %d and %s %lld "
                      "(experts are spread over those ranks); valid ep: %s%s",
                      path, ep, experts, where, mesh, valid,
                      folded ? "" : "; or plan.etp 1 folds ep over the tensor-parallel ranks");
}

/* HSDP (plan.fsdp_shard below dp*cp) with experts: the experts' shard
 * group is the part of one shard group's tp x fsdp_shard ranks that ep
 * does not take, so ep must divide that shard's own mesh (plan_ep_mesh
 * with fsdp_shard for dp*cp). Megatron asserts its expert data-parallel
 * size is a multiple of num_distributed_optimizer_instances
 * (parallel_state.py), torchtitan builds dp_shard_mod_ep = dp_shard x cp
 * (x tp with etp 1) / ep (parallel_dims.py): an ep wider than the shard
 * would lay an expert's shards across the replicas, which neither does. */
static int plan_expert_hsdp(const sc_plan *p, sc_error *err) {
  if (p->ep <= 1 || p->fsdp_shard <= 0 || p->dp <= 0) return SC_OK;
  if ((long long)p->fsdp_shard >= plan_mul(p->dp, p->cp)) return SC_OK;
  int folded = p->etp == 1 && p->tp > 1;
  long long mesh = (long long)p->fsdp_shard * (folded ? p->tp : 1);
  if (mesh % p->ep == 0) return SC_OK;
  char valid[256];
  plan_divisors(mesh, valid, sizeof valid);
  return sc_error_set(err, SC_EINPUT,
                      "plan.ep: %d must divide the HSDP shard's %s %lld (plan.fsdp_shard %d; an "
                      "expert's shards would span the replicas); valid ep: %s, or a larger "
                      "plan.fsdp_shard",
                      p->ep, folded ? "tp*fsdp_shard" : "fsdp_shard", mesh, p->fsdp_shard, valid);
}

static int plan_expert(const sc_scenario *s, sc_error *err) {
  int rc = plan_expert_split(s, s->plan.ep, s->plan.cp, "plan.ep", err);
  return rc != SC_OK ? rc : plan_expert_hsdp(&s->plan, err);
}

/* Pick vpp and check the schedule against pp and vpp. 1F1B with vpp >= 2
 * is interleaved 1F1B (Megatron-LM's virtual pipeline). */
static int plan_schedule(sc_plan *p, sc_error *err) {
  if (p->vpp == 0) p->vpp = p->schedule == SC_SCHED_INTERLEAVED ? 2 : 1;
  if (p->vpp >= 2 && p->schedule == SC_SCHED_1F1B) p->schedule = SC_SCHED_INTERLEAVED;
  if (p->vpp >= 2 && p->schedule == SC_SCHED_GPIPE)
    return sc_error_set(err, SC_EINPUT,
                        "plan.vpp: %d model chunks per rank need plan.schedule \"interleaved\" "
                        "(or \"1f1b\"); gpipe runs one chunk per rank, valid vpp: 1",
                        p->vpp);
  int split = p->schedule == SC_SCHED_ZBH1 || p->schedule == SC_SCHED_DUALPIPE;
  if (split && p->vpp >= 2)
    return sc_error_set(err, SC_EINPUT,
                        "plan.vpp: schedule \"%s\" runs %s per rank, so vpp %d is not valid; "
                        "valid vpp: 1 (or schedule \"interleaved\")",
                        plan_sched_names[p->schedule],
                        p->schedule == SC_SCHED_ZBH1 ? "one model chunk" : "its own two chunks",
                        p->vpp);
  if (p->schedule == SC_SCHED_ZBH1 && p->pp < 2)
    return sc_error_set(err, SC_EINPUT,
                        "plan.schedule: \"zb-h1\" fills a pipeline's bubble and needs plan.pp "
                        ">= 2 (pp is 1); use \"1f1b\" or raise plan.pp");
  if (p->schedule == SC_SCHED_DUALPIPE && (p->pp < 2 || p->pp % 2))
    return sc_error_set(err, SC_EINPUT,
                        "plan.pp: DualPipe feeds micro-batches from both ends and pairs rank s "
                        "with rank pp-1-s, so pp must be even and at least 2 (is %d); valid: "
                        "%d or %d, or another schedule",
                        p->pp, p->pp < 2 ? 2 : p->pp - 1, p->pp < 2 ? 4 : p->pp + 1);
  if (p->schedule == SC_SCHED_INTERLEAVED && p->pp == 1)
    return sc_error_set(err, SC_EINPUT,
                        "plan.schedule: \"interleaved\" needs plan.pp > 1 (pp is 1); "
                        "use \"1f1b\" or raise plan.pp");
  if (p->schedule == SC_SCHED_INTERLEAVED && p->vpp < 2)
    return sc_error_set(err, SC_EINPUT,
                        "plan.vpp: the interleaved schedule needs vpp >= 2 model chunks per "
                        "pipeline rank (vpp is %d); set plan.vpp or use schedule \"1f1b\"",
                        p->vpp);
  return SC_OK;
}

/* ------------------------------------------------------ stage layout */

/* An explicit layout: pp*vpp counts that add up to the model's layers. */
static int layout_explicit(const sc_plan *p, int layers, int vpp, int *out, sc_error *err) {
  int n = p->pp * vpp, sum = 0;
  if (p->n_pp_layout != n)
    return sc_error_set(err, SC_EINPUT,
                        "plan.pp_layout: %d entries; pp %d x vpp %d needs %d (layers of chunk "
                        "k on stage s at index k*pp + s)",
                        p->n_pp_layout, p->pp, vpp, n);
  for (int v = 0; v < n; v++) {
    if (p->pp_layout[v] < 0)
      return sc_error_set(err, SC_EINPUT, "plan.pp_layout[%d]: %d; valid: 0 or more layers", v,
                          p->pp_layout[v]);
    sum += out[v] = p->pp_layout[v];
  }
  if (sum != layers)
    return sc_error_set(err, SC_EINPUT,
                        "plan.pp_layout: the entries add up to %d layers; the model has %d",
                        sum, layers);
  return SC_OK;
}

/* Megatron's num_layers_in_first/last_pipeline_stage: the first (last)
 * stage holds the given layers, the stages between share the rest evenly;
 * every stage splits its layers evenly over its vpp chunks. */
static int layout_first_last(const sc_plan *p, int layers, int vpp, int *out, sc_error *err) {
  int f = p->pp_first_layers, l = p->pp_last_layers, pp = p->pp;
  int left = pp - (f > 0) - (l > 0), rest = layers - f - l, mid = 0;
  if (pp < 2)
    return sc_error_set(err, SC_EINPUT,
                        "plan.pp_first_layers/pp_last_layers: uneven stages need pp >= 2 "
                        "(pp is 1)");
  if (f % vpp || l % vpp)
    return sc_error_set(err, SC_EINPUT,
                        "plan.%s: %d layers do not split over vpp %d chunks; valid: a multiple "
                        "of %d",
                        f % vpp ? "pp_first_layers" : "pp_last_layers", f % vpp ? f : l, vpp,
                        vpp);
  if (rest < 0 || (left == 0 && rest != 0) || (left > 0 && (rest % left || (rest / left) % vpp)))
    return sc_error_set(err, SC_EINPUT,
                        "plan.pp_first_layers/pp_last_layers: %d and %d leave %d of the %d "
                        "layers for %d middle stages; valid: a remainder that splits evenly "
                        "over the middle stages and their %d chunks (Megatron-Core's rule)",
                        f, l, rest, layers, left, vpp);
  if (left > 0) mid = rest / left;
  for (int s = 0; s < pp; s++) {
    int n = s == 0 && f > 0 ? f : s == pp - 1 && l > 0 ? l : mid;
    for (int k = 0; k < vpp; k++) out[k * pp + s] = n / vpp;
  }
  return SC_OK;
}

/* Even chunks, the embedding (loss) counted as one layer of the first
 * (last) chunk when the plan says so (account_for_embedding/loss_in_
 * pipeline_split). */
static int layout_even(const sc_plan *p, int layers, int vpp, int *out, sc_error *err) {
  int e = p->pp_embedding_in_split != 0, l = p->pp_loss_in_split != 0, pp = p->pp;
  int units = layers + e + l;
  char valid[256];
  if (units % pp) {
    plan_divisors(units, valid, sizeof valid);
    if (e || l)
      return sc_error_set(err, SC_EINPUT,
                          "plan.pp: %d does not divide the %d layers with the embedding/loss "
                          "counted (%d layers + %d); valid pp: %s",
                          pp, units, layers, e + l, valid);
    return sc_error_set(err, SC_EINPUT,
                        "plan.pp: %d does not divide the %d layers of the model (each stage "
                        "holds whole layers); valid pp: %s; or uneven stages: plan.pp_first_layers/"
                        "pp_last_layers, plan.pp_embedding_in_split/pp_loss_in_split (%d + 2 "
                        "= %d units) or an explicit plan.pp_layout",
                        pp, layers, valid, layers, layers + 2);
  }
  int per = units / pp;
  if (per % vpp) {
    plan_divisors(per, valid, sizeof valid);
    return sc_error_set(err, SC_EINPUT,
                        "plan.vpp: %d does not divide the %d layers per pipeline stage "
                        "(%d layers%s / pp %d); valid vpp: %s",
                        vpp, per, layers, e || l ? " with the embedding/loss counted" : "", pp,
                        valid);
  }
  int chunk = per / vpp;
  for (int v = 0; v < pp * vpp; v++) out[v] = chunk;
  out[0] -= e;
  out[pp * vpp - 1] -= l;
  if (out[0] < 0 || out[pp * vpp - 1] < 0)
    return sc_error_set(err, SC_EINPUT,
                        "plan.pp_embedding_in_split/pp_loss_in_split: %d layer per chunk "
                        "cannot also hold the embedding and the loss; lower pp or vpp",
                        chunk);
  return SC_OK;
}

int plan_stage_layers(const sc_plan *p, int layers, int vpp, int *out, sc_error *err) {
  int ways = (p->n_pp_layout > 0) + (p->pp_first_layers > 0 || p->pp_last_layers > 0) +
             (p->pp_embedding_in_split || p->pp_loss_in_split);
  assert(vpp >= 1 && p->pp >= 1);
  if (p->pp * vpp > SC_MAX_PP_LAYOUT)
    return sc_error_set(err, SC_EINPUT, "plan.pp: pp %d x vpp %d virtual stages; at most %d",
                        p->pp, vpp, SC_MAX_PP_LAYOUT);
  if (ways > 1)
    return sc_error_set(err, SC_EINPUT,
                        "plan.pp_layout: give one stage layout: an explicit pp_layout, "
                        "pp_first_layers/pp_last_layers, or pp_embedding_in_split/"
                        "pp_loss_in_split (Megatron-Core accepts one)");
  if (p->pp_first_layers < 0 || p->pp_last_layers < 0)
    return sc_error_set(err, SC_EINPUT,
                        "plan.pp_first_layers/pp_last_layers: negative; valid: 0 (even) or more");
  if (p->n_pp_layout > 0) return layout_explicit(p, layers, vpp, out, err);
  if (p->pp_first_layers > 0 || p->pp_last_layers > 0)
    return layout_first_last(p, layers, vpp, out, err);
  return layout_even(p, layers, vpp, out, err);
}

/* Precision and recomputation knobs that only make sense together. */
static int plan_memory_knobs(const sc_scenario *s, sc_error *err) {
  const sc_plan *p = &s->plan;
  if (p->main_grads != SC_FP32 && p->main_grads != SC_BF16)
    return sc_error_set(err, SC_EINPUT, "plan.main_grads: \"%s\"; valid: \"fp32\", \"bf16\"",
                        sc_dtype_name(p->main_grads));
  int rc = plan_optim_dtypes(s, err);
  if (rc) return rc;
  if (p->fp8_param && p->dtype != SC_FP8 && p->dtype != SC_FP4)
    return sc_error_set(err, SC_EINPUT,
                        "plan.fp8_param: fp8 primary weights need plan.dtype \"fp8\" (is \"%s\")",
                        sc_dtype_name(p->dtype));
  if (p->param_remainders && p->dtype != SC_BF16 && p->dtype != SC_FP8 && p->dtype != SC_FP4)
    return sc_error_set(err, SC_EINPUT,
                        "plan.param_remainders: the remainders of fp32 master weights need bf16 "
                        "parameters: plan.dtype \"bf16\", \"fp8\" or \"fp4\" (is \"%s\")",
                        sc_dtype_name(p->dtype));
  if (p->amp && p->dtype != SC_FP16 && p->dtype != SC_BF16)
    return sc_error_set(err, SC_EINPUT,
                        "plan.amp: automatic mixed precision runs 16-bit GEMMs beside fp32 "
                        "parameters: plan.dtype \"fp16\" or \"bf16\" (is \"%s\"); or "
                        "plan.amp false",
                        sc_dtype_name(p->dtype));
  if (p->amp && p->param_remainders)
    return sc_error_set(err, SC_EINPUT,
                        "plan.param_remainders: the remainders complete bf16 parameters to fp32, "
                        "but plan.amp keeps the parameters fp32; valid: one of the two");
  if (p->amp && p->main_grads != SC_FP32)
    return sc_error_set(err, SC_EINPUT,
                        "plan.main_grads: \"%s\", but plan.amp keeps fp32 parameters, whose "
                        "gradients are fp32; valid: \"fp32\" with plan.amp",
                        sc_dtype_name(p->main_grads));
  if (p->etp != 0 && p->etp != 1 && p->etp != p->tp)
    return sc_error_set(err, SC_EINPUT,
                        "plan.etp: %d; valid: 0 or %d (= tp: experts split like the rest of the "
                        "layer), 1 (experts whole, ep folded over tp)",
                        p->etp, p->tp);
  if ((unsigned)p->fp8_recipe > SC_FP8_MXFP8)
    return sc_error_set(err, SC_EINPUT,
                        "plan.fp8_recipe: %d; valid: delayed, current, block, mxfp8",
                        (int)p->fp8_recipe);
  if (p->fp8_recipe == SC_FP8_MXFP8 && p->dtype == SC_FP8 && s->cluster.gpu.arch < 100)
    return sc_error_set(err, SC_EINPUT,
                        "plan.fp8_recipe: \"mxfp8\" needs a Blackwell GPU (sm100), and "
                        "cluster.gpu is %s (sm%d); valid: delayed, current, block",
                        s->cluster.gpu.name, s->cluster.gpu.arch);
  if (p->fsdp_shard > 0 && p->zero < 3)
    return sc_error_set(err, SC_EINPUT,
                        "plan.fsdp_shard: %d needs plan.zero 3 (FSDP / ZeRO-3 sharding; zero is "
                        "%d)",
                        p->fsdp_shard, p->zero);
  if (p->fsdp_shard > 0 && p->dp > 0 && ((long long)p->dp * p->cp) % p->fsdp_shard) {
    char valid[256];
    plan_divisors((long long)p->dp * p->cp, valid, sizeof valid);
    return sc_error_set(err, SC_EINPUT,
                        "plan.fsdp_shard: %d does not divide dp*cp %lld (shards replicate "
                        "whole); valid: %s",
                        p->fsdp_shard, (long long)p->dp * p->cp, valid);
  }
  /* Megatron's layer-level CPU offloading (transformer_config.py): no
   * pipeline parallelism, no recomputation, no per-layer CUDA graphs,
   * fewer layers than the model */
  if (p->offload_layers > 0 && p->pp > 1)
    return sc_error_set(err, SC_EINPUT,
                        "plan.offload_layers: activation offloading needs plan.pp 1 (is %d); "
                        "Megatron does not support it with pipeline parallelism",
                        p->pp);
  if (p->offload_layers > 0 && p->recompute != SC_RECOMP_NONE)
    return sc_error_set(err, SC_EINPUT,
                        "plan.offload_layers: activation offloading needs plan.recompute "
                        "\"none\" (Megatron: it does not work with recomputation)");
  if (p->offload_layers > 0 && p->cuda_graphs)
    return sc_error_set(err, SC_EINPUT,
                        "plan.offload_layers: activation offloading needs plan.cuda_graphs "
                        "false (Megatron: \"CUDA graphs not supported with CPU offloading\")");
  if (p->offload_layers > 0 && s->model.kind == SC_MODEL_TRANSFORMER &&
      p->offload_layers >= s->model.tf.layers)
    return sc_error_set(err, SC_EINPUT,
                        "plan.offload_layers: %d; valid: 0 to %d (fewer than the model's layers)",
                        p->offload_layers, s->model.tf.layers - 1);
  /* Megatron's checks of --overlap-moe-expert-parallel-comm
   * (transformer_config.py) */
  if (p->overlap_ep && p->ep <= 1)
    return sc_error_set(err, SC_EINPUT,
                        "plan.overlap_ep: overlapping the MoE all-to-alls needs plan.ep > 1 "
                        "(is %d)",
                        p->ep);
  if (p->overlap_ep && (p->recompute == SC_RECOMP_FULL || p->recompute_layers > 0))
    return sc_error_set(err, SC_EINPUT,
                        "plan.overlap_ep: needs plan.recompute \"none\" or \"selective\" "
                        "(Megatron disables it with full recomputation)");
  if (p->overlap_ep && p->pp > 1 && p->vpp < 2)
    return sc_error_set(err, SC_EINPUT,
                        "plan.overlap_ep: with plan.pp %d Megatron needs an interleaved "
                        "schedule; valid: plan.vpp 2 or more",
                        p->pp);
  if (p->recompute_layers > 0 && p->recompute != SC_RECOMP_FULL)
    return sc_error_set(err, SC_EINPUT,
                        "plan.recompute_layers: %d layers per chunk need plan.recompute \"full\"",
                        p->recompute_layers);
  return SC_OK;
}

/* Pipeline parallelism: pp*vpp chunks of whole layers. */
static int plan_pipeline(sc_scenario *s, sc_error *err) {
  sc_plan *p = &s->plan;
  int rc = plan_memory_knobs(s, err);
  if (rc) return rc;
  rc = plan_schedule(p, err);
  if (rc || s->model.kind != SC_MODEL_TRANSFORMER) return rc; /* graphs: at lowering */
  int out[SC_MAX_PP_LAYOUT];
  return plan_stage_layers(p, s->model.tf.layers, p->vpp, out, err);
}

/* The micro-batches per pipeline (local / micro_batch) are counted in an
 * int by the engines and each is a pass of the schedule: at most
 * PLAN_MAX_MICRO. */
static int plan_micro_count(const sc_plan *p, long local, sc_error *err) {
  long m = local / p->micro_batch;
  if (m <= PLAN_MAX_MICRO) return SC_OK;
  return sc_error_set(err, SC_EINPUT,
                      "plan.global_batch: %ld sequences / dp %d / micro_batch %ld = %ld "
                      "micro-batches per pipeline; at most %ld (raise plan.micro_batch to %ld "
                      "or more, or lower plan.global_batch)",
                      p->global_batch, p->dp, p->micro_batch, m, PLAN_MAX_MICRO,
                      (local + PLAN_MAX_MICRO - 1) / PLAN_MAX_MICRO);
}

/* Batch: each of the dp replicas takes global_batch / dp sequences in
 * micro-batches of micro_batch. Pick micro_batch when 0: the whole local
 * batch without pipelining (DDP/FSDP: no gradient accumulation), else 1. */
static int plan_batch(sc_plan *p, sc_error *err) {
  char valid[256];
  if (p->global_batch % p->dp) {
    long lo = p->global_batch / p->dp * p->dp;
    if (lo == 0)
      return sc_error_set(err, SC_EINPUT,
                          "plan.global_batch: %ld is smaller than dp %d (every data-parallel "
                          "replica takes at least one sequence); valid: a multiple of %d",
                          p->global_batch, p->dp, p->dp);
    return sc_error_set(err, SC_EINPUT,
                        "plan.global_batch: %ld is not divisible by dp %d (every data-parallel "
                        "replica takes the same number of sequences); valid nearby: %ld or %ld",
                        p->global_batch, p->dp, lo, lo + p->dp);
  }
  long local = p->global_batch / p->dp;
  if (p->micro_batch == 0) p->micro_batch = p->pp == 1 ? local : 1;
  if (local % p->micro_batch) {
    plan_divisors(local, valid, sizeof valid);
    return sc_error_set(err, SC_EINPUT,
                        "plan.micro_batch: %ld x dp %d does not divide plan.global_batch %ld "
                        "(%ld sequences per replica); valid micro_batch: %s",
                        p->micro_batch, p->dp, p->global_batch, local, valid);
  }
  return plan_micro_count(p, local, err);
}

/* Megatron-LM's interleaved schedule runs micro-batches in groups of
 * microbatch_group_size_per_vp_stage (default pp) per model chunk and
 * rejects a group larger than the micro-batch count or a last group
 * smaller than pp (megatron/core/pipeline_parallel/schedules.py,
 * forward_backward_pipelining_with_interleaving): the count must be a
 * multiple of pp. */
static int plan_interleaved_batches(const sc_plan *p, sc_error *err) {
  if (p->schedule != SC_SCHED_INTERLEAVED) return SC_OK;
  long m = p->global_batch / p->dp / p->micro_batch;
  if (m % p->pp == 0) return SC_OK;
  long lo = m / p->pp * p->pp;
  if (lo == 0) /* fewer micro-batches than stages: pp itself is the nearest */
    return sc_error_set(err, SC_EINPUT,
                        "plan.micro_batch: the interleaved schedule (vpp %d) needs the micro-batch "
                        "count per replica to be a multiple of pp %d, as Megatron-LM requires; "
                        "it is %ld (global_batch %ld / dp %d / micro_batch %ld); valid counts: "
                        "%d, %d, ... (or use vpp 1)",
                        p->vpp, p->pp, m, p->global_batch, p->dp, p->micro_batch, p->pp,
                        2 * p->pp);
  return sc_error_set(err, SC_EINPUT,
                      "plan.micro_batch: the interleaved schedule (vpp %d) needs the micro-batch "
                      "count per replica to be a multiple of pp %d, as Megatron-LM requires; "
                      "it is %ld (global_batch %ld / dp %d / micro_batch %ld); valid counts "
                      "nearby: %ld or %ld (or use vpp 1)",
                      p->vpp, p->pp, m, p->global_batch, p->dp, p->micro_batch, lo, lo + p->pp);
}

/* DualPipe (sched_dualpipe.c) sends half of the micro-batches each way
 * and its steady state needs a pass on every rank: the micro-batch count
 * per replica must be even and at least 2 pp (DeepSeek-V3's figure 5
 * runs 20 on 8 ranks). */
static int plan_dualpipe_batches(const sc_plan *p, sc_error *err) {
  if (p->schedule != SC_SCHED_DUALPIPE) return SC_OK;
  long m = p->global_batch / p->dp / p->micro_batch;
  if (m % 2 == 0 && m >= 2L * p->pp) return SC_OK;
  long lo = m < 2L * p->pp ? 2L * p->pp : m + 1;
  return sc_error_set(err, SC_EINPUT,
                      "plan.micro_batch: DualPipe needs an even micro-batch count per replica of "
                      "at least 2 pp = %d (half enter at each end of the pipeline); it is %ld "
                      "(global_batch %ld / dp %d / micro_batch %ld); valid counts: %ld, %ld, ...",
                      2 * p->pp, m, p->global_batch, p->dp, p->micro_batch, lo, lo + 2);
}

/* Normalize the switches to 0/1 and apply their implications. */
static void plan_switches(sc_plan *p) {
  p->distributed_optimizer = !!p->distributed_optimizer;
  if (p->distributed_optimizer && p->zero < 1) p->zero = 1;
  p->overlap_grad_reduce = !!p->overlap_grad_reduce;
  p->overlap_param_gather = !!p->overlap_param_gather;
  p->overlap_tp = !!p->overlap_tp;
  p->tp_async_bwd = !!p->tp_async_bwd;
  p->flash_attention = !!p->flash_attention;
  /* flash_attention off means the unfused kernels, and naming them turns
   * flash attention off */
  if (!p->flash_attention) p->attention = SC_ATTN_UNFUSED;
  if (p->attention == SC_ATTN_UNFUSED) p->flash_attention = 0;
  p->fused_kernels = !!p->fused_kernels;
  p->framework_eager = !!p->framework_eager;
  p->ddp_bucket_view = !!p->ddp_bucket_view;
  p->channels_last = !!p->channels_last;
  p->conv_autotune = !!p->conv_autotune;
  p->cublas_pre11 = !!p->cublas_pre11;
  p->amp = !!p->amp;
}

/* Check every relation of the scenario and fill the fields left 0 for the
 * framework to pick. Works on a copy: on failure *s is unchanged and err
 * holds SC_EINPUT with the key path and the valid values. Idempotent. */
/* "auto" resolved (plan/plan_attn.h), then the kernel checked against the
 * GPU: FlashAttention-3 uses Hopper's wgmma and TMA (sm90 only); cuDNN's
 * fused attention runs on Ampere and newer. */
static int plan_attention(sc_scenario *s, sc_error *err) {
  plan_attn_resolve(s);
  int arch = s->cluster.gpu.arch;
  if (!s->plan.flash_attention) return SC_OK;
  if (s->plan.attention == SC_ATTN_FLASH3 && (arch < 90 || arch >= 100))
    return sc_error_set(err, SC_EINPUT,
                        "plan.attention: \"flash3\" needs a Hopper GPU (sm90), and cluster.gpu "
                        "is %s (sm%d); valid: flash2, flash1, unfused%s",
                        s->cluster.gpu.name, arch, arch >= 80 ? ", cudnn" : "");
  if (s->plan.attention == SC_ATTN_CUDNN && arch < 80)
    return sc_error_set(err, SC_EINPUT,
                        "plan.attention: \"cudnn\" (fused attention) needs an NVIDIA GPU of sm80 "
                        "or newer, and cluster.gpu is %s (sm%d); valid: flash2, flash1, unfused",
                        s->cluster.gpu.name, arch);
  return SC_OK;
}

/* plan.loss against plan.fused_loss: "auto" takes fused_loss's word,
 * "fused" is fused_loss; the two may not disagree. Nothing is written
 * back (plan_loss_of reads both when lowering), so that a caller may still
 * set either key on a resolved scenario. */
static int plan_loss(const sc_plan *p, sc_error *err) {
  if ((unsigned)p->loss_impl >= PLAN_LOSSES)
    return sc_error_set(err, SC_EINPUT,
                        "plan.loss: %d; valid: \"auto\", \"vocab_parallel\", \"fused\", "
                        "\"eager\"",
                        (int)p->loss_impl);
  if (p->fused_loss && p->loss_impl != SC_LOSS_AUTO && p->loss_impl != SC_LOSS_FUSED)
    return sc_error_set(err, SC_EINPUT,
                        "plan.loss: \"%s\" with plan.fused_loss true (the fused kernel); valid: "
                        "plan.loss \"fused\" or \"auto\", or plan.fused_loss false",
                        plan_loss_names[p->loss_impl]);
  return SC_OK;
}

/* plan.zero_grad one of its names (plan_grads_freed reads it). */
static int plan_zero_grad(const sc_plan *p, sc_error *err) {
  if ((unsigned)p->zero_grad < PLAN_ZERO_GRADS) return SC_OK;
  return sc_error_set(err, SC_EINPUT,
                      "plan.zero_grad: %d; valid: \"auto\", \"set_to_none\", \"zero\"",
                      (int)p->zero_grad);
}

sc_loss_impl plan_loss_of(const sc_plan *p) {
  if (p->loss_impl != SC_LOSS_AUTO) return (sc_loss_impl)p->loss_impl;
  return p->fused_loss ? SC_LOSS_FUSED : SC_LOSS_VOCAB_PARALLEL;
}

/* PyTorch 2's F.linear (aten/src/ATen/native/Linear.cpp, recalled: not in
 * ../shared) runs addmm for a 2-D input with a bias and folds a contiguous
 * 3-D input to 2-D first; addmm_out_cuda_impl (native/cuda/Blas.cpp) hands
 * a 1-D bias with beta 1 to cuBLASLt's bias epilogue. Seen in our own
 * trace (data/measured/traces_h200/bertbase_amp16_s128_b128: every
 * forward nn.Linear is one nvjet_*_bias_* GEMM, no bias-add kernel; each
 * backward reduces its output gradient to the bias's in a reduce_kernel
 * of its own). Megatron's linear layers skip the bias (skip_bias_add) for
 * its fused bias-GELU and bias-dropout-add, and add it in a kernel of its
 * own where those fusions are off (fused kernels: the fused op counts the
 * bias either way). plan.loss "eager" is what says the model is not
 * Megatron's. */
int plan_torch_nn(const sc_plan *p) {
  if (p->framework != SC_FW_AUTO) return plan_fw_torch_nn(p) && !p->fused_kernels;
  return p->framework_eager && !p->fused_kernels && plan_loss_of(p) == SC_LOSS_EAGER;
}

/* 1 when PyTorch's own parameters hold the gradients in .grad under
 * torch.optim: an eager plan whose parameters are fp32 and updated in
 * place by the optimizer -- under plan.amp (autocast) or in fp32/tf32; the
 * 16-bit plans are Megatron's and apex O2's, whose fp32 main gradients
 * are a persistent buffer of their own. A named framework says itself
 * whether PyTorch holds them (plan_fw_torch_grads: not Megatron's, NeMo's,
 * DeepSpeed's or MaxText's, whatever the dtype). */
static int torch_params(const sc_plan *p) {
  return plan_fw_torch_grads(p) && (p->amp || p->dtype == SC_FP32 || p->dtype == SC_TF32);
}

/* The replicas the gradients are reduced over: plan.dp, or the count
 * `stepcast dp` gives its one-GPU plan (plan.dp_replicas). */
static int plan_replicas(const sc_plan *p) {
  return p->dp_replicas > p->dp ? p->dp_replicas : p->dp;
}

/* PyTorch DDP (torch_params, no ZeRO, dp > 1) with gradient_as_bucket_view
 * False, its default: the reducer allocates its flat buckets once, copies
 * each .grad into its bucket for the all-reduce and the result back, so
 * a step holds the gradients twice ("the saved memory size will be equal
 * to the total gradients size", distributed.py's docstring of the flag,
 * ../shared/reference/pytorch/torch/nn/parallel/distributed.py); with the
 * flag each .grad is a view of its bucket and only the buckets hold
 * gradients. */
int plan_ddp_buckets(const sc_plan *p) {
  return torch_params(p) && p->zero == 0 && plan_replicas(p) > 1 && !p->ddp_bucket_view;
}

/* plan.zero_grad "auto": the gradients are the parameters' own .grad, which
 * torch.optim's zero_grad(set_to_none=True) frees (PyTorch's default since
 * 2.0: ../shared/reference/pytorch/torch/nn/parallel/distributed.py, "(the
 * default)"), where PyTorch itself holds them (torch_params) with no
 * ZeRO and one replica, or under DDP whose reducer keeps its buckets apart
 * (plan_ddp_buckets: the buckets stay, the .grad tensors go; with
 * gradient_as_bucket_view the .grad tensors are the buckets, kept) --
 * DeepSpeed keeps its partitions --; or FSDP2, whose post-backward sets each
 * sharded .grad (_fsdp_param_group.py). FSDP1 is modelled as PyTorch
 * 1.13's (section 4b), whose zero_grad zeroed in place by default. ZeRO-1
 * over one replica shards nothing, and zero 1 is the key's default (the
 * distributed optimizer of a Megatron plan): a one-GPU eager plan left at
 * it is plain PyTorch, as at zero 0. */
int plan_grads_freed(const sc_plan *p) {
  if (p->zero_grad != SC_ZERO_GRAD_AUTO) return p->zero_grad == SC_ZERO_GRAD_SET_TO_NONE;
  if (p->zero >= 3) return p->fsdp_impl == SC_FSDP2;
  return torch_params(p) && p->zero <= 1 && (plan_replicas(p) == 1 || plan_ddp_buckets(p));
}

/* ------------------------------------------------------------ overrides */

void sc_override_init(sc_override *o) {
  memset(o, 0, sizeof *o);
  o->first = o->last = SC_INHERIT;
  o->tp = o->cp = o->ep = o->sp = o->zero = o->recompute = SC_INHERIT;
}

/* The layers an override names: a range, or a block (checked against the
 * graph when the job lowers the plan, for graph models). */
static int plan_override_layers(const sc_scenario *s, const sc_override *o, const char *path,
                                sc_error *err) {
  if (o->block[0]) {
    /* the transformer builder's blocks (src/model/transformer.c) */
    if (s->model.kind == SC_MODEL_TRANSFORMER && strcmp(o->block, "layer") &&
        strcmp(o->block, "embedding") && strcmp(o->block, "head"))
      return sc_error_set(err, SC_EINPUT,
                          "%s.block: \"%.32s\" is not a block of model %s (valid: embedding, "
                          "layer, head)",
                          path, o->block, s->model.name);
    return SC_OK;
  }
  long layers = s->model.kind == SC_MODEL_TRANSFORMER ? s->model.tf.layers : PLAN_MAX_LAYERS;
  if (o->first < 0 || o->last < o->first || o->last >= layers) {
    if (s->model.kind == SC_MODEL_TRANSFORMER)
      return sc_error_set(err, SC_EINPUT,
                          "%s.layers: [%d, %d] is not a range of layers (valid: 0 <= first <= "
                          "last <= %ld, model.layers - 1)",
                          path, o->first, o->last, layers - 1);
    return sc_error_set(err, SC_EINPUT,
                        "%s.layers: [%d, %d] is not a range of layers (valid: 0 <= first <= last)",
                        path, o->first, o->last);
  }
  return SC_OK;
}

/* tp and cp of an override: the product tp * cp stays the plan's; one of
 * the two given derives the other. */
static int plan_override_mesh(const sc_scenario *s, sc_override *o, const char *path,
                              sc_error *err) {
  const sc_plan *p = &s->plan;
  int mp = p->tp * p->cp;
  char valid[256];
  if (o->tp == SC_INHERIT && o->cp == SC_INHERIT) return SC_OK;
  plan_divisors(mp, valid, sizeof valid);
  if (o->cp == SC_INHERIT || o->tp == SC_INHERIT) {
    int given = o->tp != SC_INHERIT ? o->tp : o->cp;
    const char *key = o->tp != SC_INHERIT ? "tp" : "cp";
    if (given < 1 || mp % given)
      return sc_error_set(err, SC_EINPUT,
                          "%s.%s: %d must divide the plan's tp*cp = %d*%d = %d (a layer keeps "
                          "its data-parallel group; the other of tp and cp follows); valid: %s",
                          path, key, given, p->tp, p->cp, mp, valid);
    if (o->tp == SC_INHERIT) o->tp = mp / o->cp;
    else o->cp = mp / o->tp;
    return SC_OK;
  }
  if (o->tp < 1 || o->cp < 1 || (long long)o->tp * o->cp != mp)
    return sc_error_set(err, SC_EINPUT,
                        "%s: tp %d x cp %d must equal the plan's tp*cp = %d*%d = %d (a layer "
                        "keeps its data-parallel group); valid tp (or cp): %s",
                        path, o->tp, o->cp, p->tp, p->cp, mp, valid);
  return SC_OK;
}

/* Check override i and fill what it derives (tp/cp, sp with tp 1). */
static int plan_override(sc_scenario *s, int i, sc_error *err) {
  sc_override *o = &s->plan.overrides[i];
  char path[48], key[64];
  int rc;
  snprintf(path, sizeof path, "plan.overrides[%d]", i);
  o->block[sizeof o->block - 1] = '\0';
  if ((rc = plan_override_layers(s, o, path, err)) || (rc = plan_override_mesh(s, o, path, err)))
    return rc;
  if (o->zero != SC_INHERIT && (o->zero < 0 || o->zero > 3))
    return sc_error_set(err, SC_EINPUT, "%s.zero: %d is out of range (valid: 0..3)", path, o->zero);
  if (o->recompute != SC_INHERIT && (o->recompute < 0 || o->recompute > SC_RECOMP_FULL))
    return sc_error_set(err, SC_EINPUT, "%s.recompute: %d is not valid (none, selective, full)",
                        path, o->recompute);
  if (o->sp != SC_INHERIT && o->sp != 0 && o->sp != 1)
    return sc_error_set(err, SC_EINPUT, "%s.sp: %d is not valid (true or false)", path, o->sp);
  if (o->ep != SC_INHERIT && o->ep < 1)
    return sc_error_set(err, SC_EINPUT, "%s.ep: %d is out of range (valid: >= 1)", path, o->ep);
  int tp = o->tp == SC_INHERIT ? s->plan.tp : o->tp;
  int cp = o->cp == SC_INHERIT ? s->plan.cp : o->cp;
  int sp = o->sp == SC_INHERIT ? s->plan.sp : o->sp;
  if (tp == 1 && o->sp != SC_INHERIT) o->sp = 0;
  snprintf(key, sizeof key, "%s.tp", path);
  if (s->model.kind == SC_MODEL_TRANSFORMER &&
      (rc = plan_tensor_split(&s->model.tf, tp, cp, sp && tp > 1, key, err)))
    return rc;
  snprintf(key, sizeof key, "%s.cp", path);
  if ((rc = plan_context_split(&s->model, cp, key, err))) return rc;
  snprintf(key, sizeof key, "%s.ep", path);
  return plan_expert_split(s, o->ep == SC_INHERIT ? s->plan.ep : o->ep, cp, key, err);
}

static int plan_overrides(sc_scenario *s, sc_error *err) {
  int n = s->plan.n_overrides, rc;
  if (n < 0 || n > SC_MAX_OVERRIDES)
    return sc_error_set(err, SC_EINPUT, "plan.overrides: %d overrides (valid: 0..%d)", n,
                        SC_MAX_OVERRIDES);
  for (int i = 0; i < n; i++)
    if ((rc = plan_override(s, i, err))) return rc;
  return SC_OK;
}

/* ------------------------------------------------------------- resolve */

static void plan_clear_error(sc_error *err) {
  if (err) {
    err->code = SC_OK;
    err->msg[0] = '\0';
  }
}

int sc_scenario_resolve_model(sc_scenario *s, sc_error *err) {
  sc_scenario t = *s;
  int rc;
  if ((rc = plan_model(&t.model, err)) || (rc = plan_cluster(&t.cluster, err))) return rc;
  *s = t;
  plan_clear_error(err);
  return SC_OK;
}

int plan_resolve_scratch(sc_scenario *t, sc_error *err) {
  int rc;
  if ((rc = plan_model(&t->model, err)) || (rc = plan_cluster(&t->cluster, err))) return rc;
  return plan_resolve_plan(t, err);
}

int plan_resolve_plan(sc_scenario *t, sc_error *err) {
  int rc;
  if ((rc = plan_framework(&t->plan, err))) return rc;
  plan_fsdp_resolve(&t->plan);
  if ((rc = plan_basics(&t->plan, err)) || (rc = plan_dtype(t, err)) ||
      (rc = plan_tensor(t, err)) || (rc = plan_context(t, err)) ||
      (rc = plan_data(t, err)) || (rc = plan_expert(t, err)) ||
      (rc = plan_pipeline(t, err)) || (rc = plan_batch(&t->plan, err)) ||
      (rc = plan_interleaved_batches(&t->plan, err)) ||
      (rc = plan_dualpipe_batches(&t->plan, err)) || (rc = plan_attention(t, err)) ||
      (rc = plan_loss(&t->plan, err)) || (rc = plan_zero_grad(&t->plan, err)) ||
      (rc = plan_overrides(t, err)) ||
      (rc = plan_fsdp_moe(t, err)) || (rc = plan_recmod(t, err)))
    return rc;
  plan_switches(&t->plan);
  plan_clear_error(err);
  return SC_OK;
}

int sc_scenario_resolve(sc_scenario *s, sc_error *err) {
  sc_scenario t = *s;
  int rc = plan_resolve_scratch(&t, err);
  if (rc == SC_OK) *s = t;
  return rc;
}
