/*
 * analytic.c -- the closed-form step model over an execution graph.
 *
 * One micro-batch on one pipeline stage costs F (forward) + B (backward
 * and recomputation); each is the run of the stage's tasks through the
 * host/GPU queue of an eager framework:
 *   GPU time   kernels, and the tensor/context/expert-parallel
 *              collectives that sit on the compute stream,
 * bounded below by the host time of issuing them (a layer whose kernels
 * are shorter than their launches is host-bound). The step is then
 *   m (F + B)                       the micro-batches of the slowest stage
 * + bubble (F + B)                  pipeline fill and drain (the schedule's)
 * + pipeline send/recv on the critical path
 * + exposed data-parallel communication (what the overlap with the last
 *   backward or with the layers' compute does not hide)
 * + the optimizer step.
 */
#include <assert.h>
#include <math.h>
#include <string.h>

#include "core/mem.h"
#include "core/vec.h"
#include "cost/compute.h"
#include "cost/conv.h"
#include "cost/amp.h"
#include "cost/optchain.h"
#include "cost/fp8cast.h"
#include "engine/engine.h"
#include "engine/fp8amax.h"
#include "engine/fsdp.h"
#include "engine/offload.h"
#include "engine/qmemo.h"
#include "model/optimizer.h"
#include "pipeline/pipe.h"

void eng_init(eng *e) { memset(e, 0, sizeof *e); }

void eng_free(eng *e) {
  mem_free(e->grps);
  mem_free(e->q);
  mem_free(e->qoff);
  mem_free(e->qs);
  mem_free(e->qw);
  mem_free(e->st);
  mem_free(e->fill);
  mem_free(e->fill_order);
  mem_free(e->fill_next);
  eng_init(e);
}

double eng_param_bytes(const sc_plan *p) {
  return p->dtype == SC_FP32 || p->dtype == SC_TF32 || amp_on(p) ? 4 : 2;
}

/* 1 when the plan's schedule splits its backwards over a pipeline
 * (plan.c refuses them without one). */
static int splits(const eng *e) {
  return pipe_for(e->s->plan.schedule)->splits && e->s->plan.pp > 1;
}

/* Look up key in the job's cost memo; NULL when absent (or no memo). */
static const double *recall(const eng *e, const double *key) {
  return e->costs ? memo_get(e->costs, key) : NULL;
}

/* Remember val for key; a memo that cannot grow fails the evaluation. */
static void remember(const eng *e, const double *key, const double *val) {
  if (e->costs && memo_put(e->costs, key, val)) ((eng *)e)->oom = 1;
}

/* cost_gemm as the plan's GEMM library runs it (cost_gemm_lib: before
 * cuBLAS 11, plan.cublas_pre11) or, for the m rows of MoE experts' tokens
 * (rows 1), cost_gemm_expert (the pre-11 fallback is not applied to
 * experts' mean token counts); memoised: a search meets the same few
 * dozen shapes in millions of plans. */
static double gemm_rows(const eng *e, sc_dtype dt, double m, double n, double k, double batch,
                        int rows) {
  int pre11 = e->s->plan.cublas_pre11;
  const double key[MEMO_KEY] = {rows ? 6 : pre11 ? 5 : 1, m, n, k, batch, dt};
  const double *v = recall(e, key);
  if (v) return v[0];
  const sc_gpu *g = &e->s->cluster.gpu;
  double t[MEMO_VAL] = {rows ? cost_gemm_expert(g, dt, m, n, k, batch)
                             : cost_gemm_lib(g, dt, m, n, k, batch, pre11)};
  remember(e, key, t);
  return t[0];
}

/* A convolution task (src/cost/conv.c), memoised: forward, or data +
 * weight gradient; -1 for a convolution whose output is 1 x 1 (a fully-
 * connected layer, which frameworks run as a GEMM). */
static double conv(const eng *e, const xg_task *t, int bwd) {
  const wg_op *o = &e->g->ops[t->op];
  const wg_tensor *x = &e->g->tensors[o->in[0]], *y = &e->g->tensors[o->out];
  double pq = (double)y->dim[1] * (double)y->dim[2];
  if (pq <= 1) return -1;
  cost_conv cv = {.n = t->m / pq, .c = (double)x->dim[0], .k = (double)o->features,
                  .r = o->kernel, .s = o->kernel_w > 0 ? o->kernel_w : o->kernel,
                  .p = (double)y->dim[1], .q = (double)y->dim[2], .stride = o->stride,
                  .first = x->producer < 0 && x->block == 0,
                  .nchw = !e->s->plan.channels_last, .autotune = e->s->plan.conv_autotune};
  const double key[MEMO_KEY] = {3 + bwd, t->m, t->n, t->k,
                                cv.r + 64 * cv.s + 4096.0 * cv.stride + 65536.0 * cv.first +
                                    131072.0 * cv.nchw + 262144.0 * cv.autotune,
                                t->dtype};
  const double *v = recall(e, key);
  if (v) return v[0];
  const sc_gpu *g = &e->s->cluster.gpu;
  double c[MEMO_VAL] = {bwd ? cost_conv_time(g, t->dtype, &cv, COST_CONV_DGRAD) +
                                  cost_conv_time(g, t->dtype, &cv, COST_CONV_WGRAD)
                            : cost_conv_time(g, t->dtype, &cv, COST_CONV_FWD)};
  remember(e, key, c);
  return c[0];
}

/* grp_cost of the job's cluster, memoised by (op, bytes, group) under
 * key 2: the time, the SM share and the HBM share in one entry. */
static double coll(const eng *e, const grp *g, coll_op op, double bytes, grp_share *share);

/* The same for fsdp.c: the time of `op` on the job's group `group`, with
 * the SM and HBM shares of its kernels in *share (may be NULL). */
double eng_coll(const eng *e, int group, coll_op op, double bytes, grp_share *share) {
  return coll(e, &e->grps[group], op, bytes, share);
}

double eng_coll_on(const eng *e, const grp *g, coll_op op, double bytes, grp_share *share) {
  return coll(e, g, op, bytes, share);
}

static double coll(const eng *e, const grp *g, coll_op op, double bytes, grp_share *share) {
  /* ranks per node follows from ranks and stride except in the flex
   * dispatcher's sub-groups (epflex.c): part of the key */
  int window = e->net ? g->window : 0;
  /* tag 2 for the group alone, -window with the groups beside it */
  const double key[MEMO_KEY] = {window ? -window : 2, op, bytes, g->g.ranks, g->stride,
                                g->g.ranks_per_node};
  const double *v = recall(e, key);
  if (v) {
    if (share) share->sm = v[1], share->hbm = v[2];
    return v[0];
  }
  grp_share sh;
  grp gw = *g;
  gw.window = window;
  double t = grp_cost_ex(e->net, e->net_bound, &e->s->cluster.gpu, &gw, op, bytes, &sh);
  if (!ncost_failed(e->net)) { /* never a fallback */
    const double val[MEMO_VAL] = {t, sh.sm, sh.hbm};
    remember(e, key, val);
  }
  if (share) *share = sh;
  return t;
}

/* One of GEMM task t's GEMMs, [m, n, k], whose m runs over t's rows when
 * `rows` (forward, data gradient) and over its k otherwise (weight
 * gradient): an MoE expert's rows are its tokens (cost_gemm_expert), and
 * without grouped GEMM each local expert runs on its own (SequentialMLP:
 * each its own waves). */
/* How task t's GEMMs are called: *expert 1 for an MoE expert's; the
 * batch of one call (1 when experts run one GEMM each, without grouped
 * GEMM); returns the calls. */
static double gemm_calls(const eng *e, const xg_task *t, int *expert, double *batch) {
  *expert = t->op >= 0 && e->g && e->g->ops[t->op].expert;
  int loop = *expert && !e->s->plan.moe_grouped_gemm;
  *batch = loop ? 1 : t->batch;
  return loop ? t->batch : 1;
}

static double task_gemm(const eng *e, const xg_task *t, double m, double n, double k, int rows) {
  int expert;
  double batch, calls = gemm_calls(e, t, &expert, &batch);
  return calls * gemm_rows(e, t->dtype, m, n, k, batch, expert && rows);
}

int eng_task_gemm_path(const eng *e, const xg_task *t) {
  if (t->kind != XG_GEMM) return -1;
  if (t->op >= 0 && e->g && e->g->ops[t->op].kind == WG_CONV && conv(e, t, 0) >= 0) return -1;
  int expert; /* as task_gemm's forward */
  double batch;
  gemm_calls(e, t, &expert, &batch);
  cost_gemm_path p;
  cost_gemm_lib_path(&e->s->cluster.gpu, t->dtype, t->m, t->n, t->k, batch,
                     e->s->plan.cublas_pre11, expert, &p);
  return (int)p;
}

/* Hopper's (and Ada's) fp8 tensor cores keep a narrow accumulator; with
 * cuBLASLt's fast accumulation off, the library promotes partial sums to
 * fp32 as it goes, which costs time. Transformer Engine turns it off
 * (use_split_accumulator) for the data and weight gradients of its
 * delayed and current scaling and for all three GEMMs of its block
 * scaling (../shared/reference/transformerengine/.../recipe/__init__.py:
 * Float8CurrentScaling fprop False, dgrad and wgrad True;
 * Float8BlockScaling True for all). Measured on an H100 (data/measured/
 * gemm_fp8_h100.csv, tools/calib/gemm_bench.py --dtypes fp8,bf16
 * --graph): the same (m, n, k) runs at a median 0.935 of its fast rate
 * (33 pairs of 2^31 MACs or more, 0.76-1.16; bf16's backward over forward
 * at the same shapes 0.99). Blackwell accumulates in fp32: no factor (TE's
 * MMParams docstring scopes the option to "FP8 fast accumulation on Hopper
 * or Ada"; nothing in ../shared measures or states a narrow accumulator on
 * sm100; docs/accuracy.md, dgxc (7)). The time factor of task t's forward
 * (bwd 0) or backward GEMMs. */
#define FP8_SPLIT_ACC 0.935
static double fp8_accumulate(const eng *e, const xg_task *t, int bwd) {
  int arch = e->s->cluster.gpu.arch;
  if (t->dtype != SC_FP8 || (arch != 89 && arch != 90)) return 1.0;
  if (!bwd && e->s->plan.fp8_recipe != SC_FP8_BLOCK) return 1.0;
  return 1.0 / FP8_SPLIT_ACC;
}

double eng_task_compute(const eng *e, const xg_task *t, int bwd) {
  const sc_gpu *g = &e->s->cluster.gpu;
  sc_dtype dt = t->dtype;
  switch (t->kind) {
  case XG_GEMM:
    if (t->op >= 0 && e->g && e->g->ops[t->op].kind == WG_CONV) {
      double c = conv(e, t, bwd);
      if (c >= 0) return c;
    }
    if (!bwd) return task_gemm(e, t, t->m, t->n, t->k, 1) * fp8_accumulate(e, t, 0);
    /* data gradient [m,n]x[n,k] and weight gradient [k,m]x[m,n] */
    return (task_gemm(e, t, t->m, t->k, t->n, 1) + task_gemm(e, t, t->k, t->n, t->m, 0)) *
           fp8_accumulate(e, t, 1);
  case XG_ATTN: {
    sc_attention a = e->s->plan.attention;
    if (bwd)
      return cost_flash_attn_bwd(g, dt, a, t->flops * t->bwd_scale, t->sq, t->d, t->causal);
    return cost_flash_attn_k(g, dt, a, t->flops, t->sq, t->d, t->causal);
  }
  case XG_MEM: {
    double s = bwd ? t->n : t->m; /* kernels bound by per-thread work (xg_task) */
    if (s > 0) return s + COST_KERNEL_T0; /* as cost_mem's fixed cost */
    return cost_mem(g, bwd ? t->bytes * t->bwd_scale : t->bytes);
  }
  case XG_COMM: return 0;
  }
  return 0;
}

/* One of GEMM task t's two backward GEMMs, [m, n, k] as eng_task_compute
 * costs it (fp8's accumulation included); 0 for other kinds and
 * convolutions. */
static double bwd_gemm(const eng *e, const xg_task *t, double m, double n, double k, int rows) {
  if (t->kind != XG_GEMM || (t->op >= 0 && e->g && e->g->ops[t->op].kind == WG_CONV)) return 0;
  return task_gemm(e, t, m, n, k, rows) * fp8_accumulate(e, t, 1);
}

double eng_task_wgrad(const eng *e, const xg_task *t) { return bwd_gemm(e, t, t->k, t->n, t->m, 0); }

double eng_task_dgrad(const eng *e, const xg_task *t) { return bwd_gemm(e, t, t->m, t->k, t->n, 1); }

double eng_regather(const eng *e, const xg_task *t, grp_share *share) {
  share->sm = share->hbm = 0;
  if (t->kind != XG_COMM || t->overlap != XG_OVL_WGRAD || t->coll != COLL_ALL_GATHER) return 0;
  return coll(e, &e->grps[t->group], COLL_ALL_GATHER, xg_regather_bytes(t), share);
}

static double comm_cost(const eng *e, const xg_task *t, int bwd, grp_share *share) {
  if (t->flex) return eng_flex_cost(e, t, bwd, share);
  coll_op op = xg_comm_op(t, bwd);
  return coll(e, &e->grps[t->group], op, xg_comm_bytes(t, bwd), share);
}

double eng_task_comm(const eng *e, const xg_task *t, int bwd) {
  return t->kind == XG_COMM ? comm_cost(e, t, bwd, NULL) : 0;
}

double eng_task_comm_share(const eng *e, const xg_task *t, int bwd, grp_share *share) {
  share->sm = share->hbm = 0;
  return t->kind == XG_COMM ? comm_cost(e, t, bwd, share) : 0;
}

/* Cost on the critical path of a collective of `comm` seconds overlapped
 * with `window` seconds of compute: the part the window does not cover,
 * plus the slowdown of the covered compute, which loses `share` of its
 * pace (grp_slow: the SMs NCCL's CTAs hold, for memory-bound kernels the
 * HBM bandwidth its kernels take). */
static double overlapped(double comm, double window, double share) {
  double hidden = comm < window ? comm : window;
  return comm - hidden + share * hidden;
}

/* Megatron's LinearWithGradAccumulationAndAsyncCommunication.backward
 * (TE's Linear and LayerNormLinear the same): the input gradient's
 * all-reduce (reduce-scatter under sequence parallelism) is issued
 * asynchronously after the data-gradient GEMM and waited for after the
 * weight-gradient GEMM, so only that GEMM covers it; under sequence
 * parallelism the input the weight gradient needs is all-gathered
 * asynchronously first and waited for after the data-gradient GEMM. Both
 * beside GEMMs, so the SMs NCCL holds are what those lose. */
static double wgrad_part(const eng *e, const xg_segment *sg, const xg_task *t, double comm,
                         grp_share share) {
  assert(t->overlap == XG_OVL_WGRAD && t->wgrad >= 0 && t->wgrad < sg->n_tasks);
  const xg_task *g = &e->x->tasks[sg->first_task + t->wgrad];
  return overlapped(comm, eng_task_wgrad(e, g), grp_slow(share, 0));
}

double eng_regather_exposed(const eng *e, const xg_segment *sg, const xg_task *t) {
  grp_share sh;
  double ag = eng_regather(e, t, &sh);
  return ag > 0 ? overlapped(ag, eng_task_dgrad(e, &e->x->tasks[sg->first_task + t->wgrad]),
                             grp_slow(sh, 0))
                : 0;
}

double eng_wgrad_exposed(const eng *e, const xg_segment *sg, const xg_task *t, double comm,
                         grp_share share) {
  return wgrad_part(e, sg, t, comm, share) + eng_regather_exposed(e, sg, t);
}

/* ------------------------------------------------------------ queues */

/* A split backward (pipeline/pipe.h) runs as PASS_BWD_IN (the backward
 * less the weight-gradient GEMMs) and later PASS_WGRAD (those GEMMs). */
typedef enum pass_kind {
  PASS_FWD, PASS_BWD, PASS_RECOMP_FULL, PASS_RECOMP_SEL, PASS_BWD_IN, PASS_WGRAD
} pass_kind;

/* Compute another micro-batch's pass hides one all-to-all of segment sg
 * under combined 1F1B (plan.overlap_ep, Megatron's
 * combined_1f1b_schedule): the forward of one micro-batch runs with the
 * backward of the one before, so the all-to-alls of either pass hide under
 * the other's compute, shared among the segment's all-to-alls of that
 * pass; the first forward and the last backward of a stage run alone,
 * which leaves (m - 1) / m of the passes paired (DualPipe: its F&B pairs,
 * pipe_sched.paired_share). *mem_frac: the part of that compute in
 * memory-bound kernels. */
double eng_other_window(const eng *e, const xg_segment *sg, int bwd, double *mem_frac) {
  double other = 0, mem = 0;
  int n = 0;
  for (int i = 0; i < sg->n_tasks; i++) {
    const xg_task *t = &e->x->tasks[sg->first_task + i];
    double c = t->kind != XG_COMM ? eng_task_compute(e, t, !bwd) : 0;
    other += c;
    mem += t->kind == XG_MEM ? c : 0;
    n += t->kind == XG_COMM && t->overlap == XG_OVL_OTHER;
  }
  double m = e->x->micro_batches;
  const sc_plan *p = &e->s->plan;
  const pipe_sched *ps = pipe_for(p->schedule);
  pipe_shape sh = pipe_shape_of(p->schedule, p->pp, e->x->vpp, e->x->micro_batches);
  double paired = ps->paired_share && p->pp > 1 ? ps->paired_share(&sh) : (m - 1) / m;
  *mem_frac = other > 0 ? mem / other : 0;
  return n > 0 && m > 1 ? other / n * paired : 0;
}

double eng_shared_window(const eng *e, const xg_segment *sg, int side, int bwd,
                         double *mem_frac) {
  double w = 0, mem = 0;
  int n = 0;
  for (int i = 0; i < sg->n_tasks; i++) {
    const xg_task *t = &e->x->tasks[sg->first_task + i];
    if (t->shared != side) continue;
    if (t->kind == XG_COMM) {
      n += t->overlap == XG_OVL_SHARED;
      continue;
    }
    double c = eng_task_compute(e, t, bwd);
    w += c;
    mem += t->kind == XG_MEM ? c : 0;
  }
  *mem_frac = w > 0 ? mem / w : 0;
  return n > 0 ? w / n : 0;
}

/* GPU time of task i of segment sg in pass k, collectives included
 * (their exposed part); prev_compute is the GPU time of the last kernel
 * issued before it in this pass, prev_mem 1 when that kernel is
 * memory-bound. */
static double task_gpu(const eng *e, const xg_segment *sg, int i, pass_kind k,
                       double prev_compute, int prev_mem) {
  const xg_task *t = &e->x->tasks[sg->first_task + i];
  int bwd = k == PASS_BWD || k == PASS_BWD_IN;
  if (k == PASS_WGRAD) return eng_task_wgrad(e, t);
  if (t->kind != XG_COMM)
    return eng_task_compute(e, t, bwd) - (k == PASS_BWD_IN ? eng_task_wgrad(e, t) : 0);
  /* blocks the stream (an async backward reduction blocks in forward) */
  if (t->overlap == XG_OVL_NONE || (t->overlap == XG_OVL_WGRAD && !bwd))
    return comm_cost(e, t, bwd, NULL);
  grp_share share;
  double c = comm_cost(e, t, bwd, &share);
  if (t->overlap == XG_OVL_NEXT) {
    /* hidden under the task that follows it in the forward order */
    const xg_task *nx = i + 1 < sg->n_tasks ? &e->x->tasks[sg->first_task + i + 1] : NULL;
    double hide = nx ? eng_task_compute(e, nx, bwd) : 0;
    c = overlapped(c, hide, grp_slow(share, nx && nx->kind == XG_MEM));
  } else if (t->overlap == XG_OVL_OTHER) {
    double mf, w = eng_other_window(e, sg, bwd, &mf);
    c = overlapped(c, w, grp_slow(share, mf));
  } else if (t->overlap == XG_OVL_SHARED) {
    double mf, w = eng_shared_window(e, sg, t->shared, bwd, &mf);
    c = overlapped(c, w, grp_slow(share, mf));
  } else if (t->overlap == XG_OVL_WGRAD) {
    /* the re-gather queued before the data gradient (eng_regather_first) */
    c = k == PASS_BWD && eng_regather_first(e, sg, t->wgrad) == i
            ? wgrad_part(e, sg, t, c, share)
            : eng_wgrad_exposed(e, sg, t, c, share);
  } else if (t->overlap == XG_OVL_PREV) {
    /* chunked GEMM/collective overlap hides it behind the GEMM next to
     * it, never completely */
    c = overlapped(c, prev_compute < 0.9 * c ? prev_compute : 0.9 * c,
                   grp_slow(share, prev_mem));
  }
  return c;
}

double eng_wgrad_host(const eng *e, const xg_segment *sg, int i) {
  const sc_plan *p = &e->s->plan;
  if (eng_task_wgrad(e, &e->x->tasks[sg->first_task + i]) <= 0) return 0;
  if (p->cuda_graphs) return cost_graph_launch(&e->s->cluster.gpu);
  return p->framework_eager ? cost_launch(&e->s->cluster.gpu) : 0;
}

double eng_task_host(const eng *e, const xg_segment *sg, int i, int bwd, int recompute) {
  const sc_plan *p = &e->s->plan;
  const xg_task *t = &e->x->tasks[sg->first_task + i];
  /* replayed from a CUDA graph: one graph node per kernel, no framework */
  if (p->cuda_graphs) return cost_graph_launch(&e->s->cluster.gpu);
  if (!p->framework_eager) return 0;
  double launch = cost_launch(&e->s->cluster.gpu);
  /* a collective: its autograd function, then the torch.distributed call */
  double host = t->kind == XG_COMM ? launch + cost_coll_host(&e->s->cluster.gpu)
                                   : launch * (bwd ? t->host_bwd : t->host_fwd);
  if (i == 0 && !recompute) host += launch * fsdp_unit_launches(e, sg, bwd);
  return host;
}

/* 1 when collective task i of segment sg hides under the last kernel
 * queued (task `last`, -1 none): a context-parallel ring step in a
 * backward pass (its window, the next task in forward order, came first
 * in backward order), or a chunked TP collective after its GEMM. The
 * framework issues such a collective before the kernel it overlaps, and
 * the queue must too: its exposed part then follows the host's issue of
 * the collective, not the host's of that kernel as well, so that a
 * launch-bound pass, which stretches the kernel's wall time, hides as
 * much of it as the kernel's GPU time did (task_gpu's window). */
static int issued_before(const eng *e, const xg_segment *sg, int i, int last, int bwd) {
  const xg_task *t = &e->x->tasks[sg->first_task + i];
  if (t->kind != XG_COMM || last < 0) return 0;
  return (t->overlap == XG_OVL_NEXT && bwd && last == i + 1) || t->overlap == XG_OVL_PREV;
}

/* 1 when, in a whole backward (PASS_BWD), task i of sg is a GEMM whose
 * weight gradient a collective runs beside (XG_OVL_WGRAD): queued as its
 * data gradient here and its weight gradient after that collective
 * (wgrad_after), as Megatron issues them
 * (LinearWithGradAccumulationAndAsyncCommunication.backward: the data-
 * gradient GEMM, the collective, the weight-gradient GEMM, the wait).
 * In a launch-bound pass the stream then holds the GPU for the host's
 * issue of the weight gradient and for its GPU time after the
 * collective started, which hides it; queued whole before it, the
 * weight gradient ran while the host issued the collective, and a faster
 * GPU, whose shorter weight gradient exposes more of the collective,
 * gained nothing for it. event.c build_tmpl queues them the same way. */
int eng_wgrad_split(const eng *e, const xg_segment *sg, int i) {
  const xg_task *t = &e->x->tasks[sg->first_task + i];
  return t->kind == XG_GEMM && t->wgrad && eng_task_wgrad(e, t) > 0;
}

/* Under sequence parallelism the collective beside GEMM g's weight
 * gradient is the gather of its input, whose backward gathers that input
 * again, issued before the data gradient and waited for after it
 * (eng_regather): where g is split and the collective comes after g in
 * the backward's order, that re-gather's exposed part is queued before
 * g's data gradient, so that the host's issue of the data gradient hides
 * it as well. The collective's task, or -1. */
int eng_regather_first(const eng *e, const xg_segment *sg, int g) {
  if (!eng_wgrad_split(e, sg, g)) return -1;
  for (int i = 0; i < g; i++) { /* before g in forward order, after it in backward */
    const xg_task *t = &e->x->tasks[sg->first_task + i];
    if (t->kind == XG_COMM && t->overlap == XG_OVL_WGRAD && t->wgrad == g) {
      grp_share sh;
      return eng_regather(e, t, &sh) > 0 ? i : -1;
    }
  }
  return -1;
}

/* Append the weight gradient of GEMM g of sg (eng_wgrad_split) to the
 * queue, after the collective beside it. Its GPU time (s; 0 when g is not
 * split), or -1 (out of memory). */
static double wgrad_after(eng *e, const xg_segment *sg, int g) {
  if (!eng_wgrad_split(e, sg, g)) return 0;
  if (vec_grow((void **)&e->q, &e->cap_q, (long)e->n_q + 1, sizeof *e->q)) return -1;
  double w = eng_task_wgrad(e, &e->x->tasks[sg->first_task + g]);
  e->q[e->n_q++] = (eng_qop){.gpu = w, .host = eng_wgrad_host(e, sg, g)};
  return w;
}

/* Append the tasks of segment sg in pass k to the queue (backward: in
 * reverse order; selective recomputation: the tasks re-run at least
 * `level` times). 0 or -1 (out of memory). */
static int enqueue(eng *e, const xg_segment *sg, pass_kind k, int level) {
  double prev = 0;
  int prev_mem = 0, bwd = k == PASS_BWD || k == PASS_BWD_IN || k == PASS_WGRAD;
  /* the last kernel that runs in this pass: its task, its place in the
   * queue, and 1 while no collective has been queued after it */
  int last = -1, win = -1, clean = 0;
  for (int j = 0; j < sg->n_tasks; j++) {
    int i = bwd ? sg->n_tasks - 1 - j : j;
    const xg_task *t = &e->x->tasks[sg->first_task + i];
    if (k == PASS_RECOMP_SEL && t->recompute_sel < level) continue;
    double wh = k == PASS_BWD_IN || k == PASS_WGRAD ? eng_wgrad_host(e, sg, i) : 0;
    if (k == PASS_WGRAD && eng_task_wgrad(e, t) <= 0) continue;
    int ci = k == PASS_BWD ? eng_regather_first(e, sg, i) : -1;
    if (vec_grow((void **)&e->q, &e->cap_q, (long)e->n_q + 2, sizeof *e->q)) return -1;
    if (ci >= 0) { /* its host time is the collective's, issued later */
      const xg_task *ct = &e->x->tasks[sg->first_task + ci];
      e->q[e->n_q++] = (eng_qop){.gpu = eng_regather_exposed(e, sg, ct), .comm = 1};
      clean = 0;
    }
    eng_qop *q = &e->q[e->n_q++];
    q->gpu = task_gpu(e, sg, i, k, prev, prev_mem);
    q->host = k == PASS_WGRAD ? wh
                              : eng_task_host(e, sg, i, bwd,
                                              k == PASS_RECOMP_FULL || k == PASS_RECOMP_SEL) - wh;
    if (k == PASS_BWD && eng_wgrad_split(e, sg, i)) /* its data gradient */
      q->gpu -= eng_task_wgrad(e, t), q->host -= eng_wgrad_host(e, sg, i);
    q->comm = t->kind == XG_COMM;
    q->ep = q->comm && e->x->groups[t->group].kind == XG_GROUP_EP;
    q->mem = t->kind == XG_MEM;
    /* a kernel that does not run in this pass (a torch.nn bias
     * gradient's reduction forward: lower.c bias_grad_task) leaves the
     * GEMM before it the one a collective overlaps (XG_OVL_PREV) */
    if (!q->comm && q->gpu > 0) prev = q->gpu, prev_mem = q->mem, last = i, win = e->n_q - 1;
    if (q->comm) {
      if (k != PASS_WGRAD && clean && issued_before(e, sg, i, last, bwd)) {
        /* queued before its window's kernel, past the ops of no GPU time
         * after it */
        eng_qop c = *q;
        memmove(&e->q[win + 1], &e->q[win], (size_t)(e->n_q - 1 - win) * sizeof *e->q);
        e->q[win++] = c;
      } else {
        clean = 0;
      }
    } else if (q->gpu > 0) {
      clean = 1;
    }
    if (k == PASS_BWD && q->comm && t->overlap == XG_OVL_WGRAD) {
      double w = wgrad_after(e, sg, t->wgrad);
      if (w < 0) return -1;
      if (w > 0) prev = w, prev_mem = 0; /* the kernel before what follows */
    }
  }
  return 0;
}

/* The two clocks of the queue model: when the host has issued everything
 * so far, and when the GPU stream will have run it. */
typedef struct qclock {
  double h, g;       /* seconds */
  double compute;    /* GPU time of compute kernels run so far */
  double comm;       /* GPU time of collectives run so far */
  double comm_ep;    /* of that, expert-parallel all-to-alls */
} qclock;

/* Running a queue through the clocks: the host issues each task after its
 * host time a; the GPU starts it when issued and when the task before has
 * finished, and runs it for b. With d = g - h, one task maps d to
 * max(0, d - a) + b = max(b, d + b - a), and a composition of such maps is
 * again max(K, d + M): a whole queue is (K, M) with M = sum(b - a), and r
 * repetitions of it map d to max(K + max(0, (r - 1) M), d + r M) while h
 * advances by r sum(a). So a stage of 126 layers costs what one layer
 * does. eng_qsum holds K, M and the sums. */
static void summarize(const eng *e, int off, int n, eng_qsum *out) {
  out->k = -INFINITY;
  out->m = out->host = out->compute = out->comm = out->comm_ep = out->mem = 0;
  for (int i = off; i < off + n; i++) {
    const eng_qop *q = &e->q[i];
    double a = q->host, b = q->gpu;
    out->k = out->k - a + b > b ? out->k - a + b : b;
    out->m += b - a;
    out->host += a;
    if (q->comm) out->comm += b;
    else out->compute += b;
    if (q->ep) out->comm_ep += b;
    if (q->mem) out->mem += b;
  }
}

/* The GPU clock's lead over the host's after queue q ran reps >= 1
 * times from a lead of d s. */
static double qsum_gap(const eng_qsum *q, int reps, double d) {
  double r = reps;
  double lo = q->k + (reps > 1 && q->m > 0 ? (r - 1) * q->m : 0), hi = d + r * q->m;
  return lo > hi ? lo : hi;
}

double eng_qsum_wall(const eng_qsum *q, int reps, double *d) {
  if (reps <= 0) return 0;
  double nd = qsum_gap(q, reps, *d), wall = reps * q->host + nd - *d;
  *d = nd;
  return wall;
}

/* Run a queue `reps` times through the clocks. */
static void run(const eng_qsum *q, int reps, qclock *c) {
  if (reps <= 0) return;
#ifdef SC_DEBUG_CHECKS
  double g0 = c->g, h0 = c->h;
#endif
  double r = reps, d = qsum_gap(q, reps, c->g - c->h);
  c->h += r * q->host;
  c->g = c->h + d;
  c->compute += r * q->compute;
  c->comm += r * q->comm;
  c->comm_ep += r * q->comm_ep;
#ifdef SC_DEBUG_CHECKS
  /* time never goes back, and the GPU never runs ahead of what was issued */
  assert(isnan(c->g) || isnan(c->h) || (c->g >= g0 && c->h >= h0 && c->g >= c->h - 1e-12));
#endif
}

/* The recomputation segment sg's strategy asks for before its backward. */
static int recompute_queue(eng *e, const xg_segment *sg) {
  if (sg->recompute == SC_RECOMP_FULL && enqueue(e, sg, PASS_RECOMP_FULL, 0)) return -1;
  /* a module inside another re-runs once per enclosing recomputation */
  for (int lv = 1; sg->recompute == SC_RECOMP_SELECTIVE && lv <= sg->recomp_depth; lv++)
    if (enqueue(e, sg, PASS_RECOMP_SEL, lv)) return -1;
  return 0;
}

/* A schedule that splits its backwards: segment s's backward less its
 * weight gradients (its recomputation first) and those, summarised into
 * e->qw[2s..2s+1]. */
static int split_queues(eng *e, int s) {
  const xg_segment *sg = &e->x->segs[s];
  e->n_q = 0;
  if (recompute_queue(e, sg) || enqueue(e, sg, PASS_BWD_IN, 0)) return -1;
  int n = e->n_q;
  if (enqueue(e, sg, PASS_WGRAD, 0)) return -1;
  summarize(e, 0, n, &e->qw[2 * s]);
  summarize(e, n, e->n_q - n, &e->qw[2 * s + 1]);
  return 0;
}

/* The forward queue of segment s and its backward queue (with the
 * recomputation its strategy asks for), summarised into e->qs[2s..2s+1]. */
static int segment_queues(eng *e, int s) {
  const xg_segment *sg = &e->x->segs[s];
  int *off = &e->qoff[4 * s];
  e->n_q = 0;
  off[0] = e->n_q;
  if (enqueue(e, sg, PASS_FWD, 0)) return -1;
  off[1] = e->n_q - off[0];
  off[2] = e->n_q;
  if (recompute_queue(e, sg) || enqueue(e, sg, PASS_BWD, 0)) return -1;
  off[3] = e->n_q - off[2];
  summarize(e, off[0], off[1], &e->qs[2 * s]);
  summarize(e, off[2], off[3], &e->qs[2 * s + 1]);
  return 0;
}

/* The key of segment sg's queues in the memo of queues (qmemo.h). */
static qmemo_key queue_key(const eng *e, const xg_segment *sg) {
  return (qmemo_key){sg->memo_id, sg->zero >= 3, (int)sg->recompute,
                     e->net_bound | e->net_alone << 1};
}

/* The queues of segment s: from the memo of queues where it holds them,
 * else costed (and then remembered). 0 or -1 (out of memory). */
static int queues_of(eng *e, int s) {
  /* the split schedules' queues read the schedule (eng_other_window), which
   * the memo's context sets aside: not memoised (no search ranks them) */
  if (splits(e)) return segment_queues(e, s);
  qmemo_key k = queue_key(e, &e->x->segs[s]);
  const eng_qsum *got = e->qm ? qmemo_get(e->qm, &k) : NULL;
  if (got) {
    e->qs[2 * s] = got[0];
    e->qs[2 * s + 1] = got[1];
#ifdef SC_DEBUG_CHECKS
    /* a sample of the hits costed again: the same bits */
    if (e->qm->hits % QMEMO_CHECK_EVERY == 0) {
      if (segment_queues(e, s)) return -1;
      assert(!memcmp(&e->qs[2 * s], got, 2 * sizeof *got));
    }
#endif
    return 0;
  }
  if (segment_queues(e, s)) return -1;
  /* a memo of costs that could not grow fails the evaluation, and a
   * collective the topology did not cost (a failure, or ncost_want's
   * stand-in) makes the queues not the prediction's: not kept */
  return e->qm && k.id && !e->oom && !ncost_failed(e->net) ? qmemo_put(e->qm, &k, &e->qs[2 * s])
                                                           : 0;
}

/* The queues of every segment into e->qs (and e->qw). 0 or -1 (out of
 * memory). */
static int build_queues(eng *e) {
  const xg *x = e->x;
  if (vec_grow((void **)&e->qoff, &e->cap_seg4, 4L * x->n_segs, sizeof *e->qoff) ||
      vec_grow((void **)&e->qs, &e->cap_seg2, 2L * x->n_segs, sizeof *e->qs))
    return -1;
  for (int s = 0; s < x->n_segs; s++)
    if (queues_of(e, s)) return -1;
  /* the split backwards' queues (not memoised: no search ranks these
   * schedules) */
  if (!splits(e)) return 0;
  if (vec_grow((void **)&e->qw, &e->cap_qw, 2L * x->n_segs, sizeof *e->qw)) return -1;
  for (int s = 0; s < x->n_segs; s++)
    if (split_queues(e, s)) return -1;
  return 0;
}

/* Forward (runs in order) or backward (reverse) pass of a stage: queue
 * k of each segment's two in qs (0 forward, 1 backward). */
static void run_queues(const eng *e, const xg_stage *st, const eng_qsum *qs, int k, int bwd,
                       qclock *c) {
  for (int j = 0; j < st->n_runs; j++) {
    const xg_run *r = &e->x->runs[st->first_run + (bwd ? st->n_runs - 1 - j : j)];
    run(&qs[2 * r->segment + k], r->count, c);
  }
}

/* run_queues of e->qs with each run cut where its offloaded instances
 * end (in forward order they come first, in backward order last), those
 * with their waits on their copies (offload.h) if `wait`: without, the
 * same sums in the same order, so that the two clocks differ by the
 * waits alone. */
static void run_offloaded(const eng *e, const xg_stage *st, int bwd, int wait, qclock *c) {
  for (int j = 0; j < st->n_runs; j++) {
    int i = bwd ? st->n_runs - 1 - j : j;
    const xg_run *r = &e->x->runs[st->first_run + i];
    const eng_qsum *q = &e->qs[2 * r->segment + bwd];
    int n = offl_count(e, st, i);
    eng_qsum w = offl_wait(q, wait && n > 0 ? offl_copy(e, &e->x->segs[r->segment]) : 0);
    run(bwd ? q : &w, bwd ? r->count - n : n, c);
    run(bwd ? &w : q, bwd ? n : r->count - n, c);
  }
}

/* Delayed scaling's amax reductions of stage st at the end of its
 * forward (bwd 0) or backward (fp8amax.h): collectives on the compute
 * stream, issued by the host as any (the event engine's too: event.c
 * add_amax). */
static void run_amax(const eng *e, const xg_stage *st, int bwd, qclock *c) {
  amax_red a = amax_of(e, (int)(st - e->x->stages), bwd);
  eng_qsum q = {a.gpu, a.gpu - a.host, a.host, 0, a.gpu, 0, 0};
  run(&q, a.n, c);
}

/* A stage's pass: its runs, then its amax reductions. Returns the
 * seconds the offloaded layers' waits on their copies add to its GPU
 * clock (offload.h): the copies' exposed part. */
static double run_pass(const eng *e, const xg_stage *st, int bwd, qclock *c) {
  if (e->s->plan.offload_layers <= 0) {
    run_queues(e, st, e->qs, bwd, bwd, c);
    run_amax(e, st, bwd, c);
    return 0;
  }
  qclock plain = *c;
  run_offloaded(e, st, bwd, 0, &plain);
  run_amax(e, st, bwd, &plain);
  run_offloaded(e, st, bwd, 1, c);
  run_amax(e, st, bwd, c);
  return c->g - plain.g;
}

/* The fraction of stage st's backward kernel time (recomputation
 * included) in memory-bound kernels. */
static double bwd_mem_frac(const eng *e, const xg_stage *st) {
  double mem = 0, all = 0;
  for (int j = 0; j < st->n_runs; j++) {
    const xg_run *r = &e->x->runs[st->first_run + j];
    const eng_qsum *q = &e->qs[2 * r->segment + 1];
    mem += r->count * q->mem, all += r->count * q->compute;
  }
  return all > 0 ? mem / all : 0;
}

/* The fraction of a collective's time beside stage r's backward by which
 * the backward slows (groups.h grp_slow at its memory-bound share): only
 * its kernels slow, not the stream's own collectives nor its waits on the
 * host (a launch-bound backward) or on offload copies, so the slowdown
 * is that of the kernels' share of its wall time (spread evenly). */
static double bwd_slow(grp_share sh, const eng_stage *r) {
  return grp_slow(sh, r->bmem) * r->bkern;
}

/* A split backward (pipeline/pipe.h): the B pass (the backward less its
 * weight gradients, with the offload copies' exposed part ob) and the W
 * pass, each from clocks levelled by the send/recv as any pass with
 * pipeline parallelism, into r->bs and r->w (the kernels are the whole
 * backward's). */
static void split_cost(const eng *e, const xg_stage *st, double ob, eng_stage *r) {
  qclock cb = {0, 0, 0, 0, 0}, cw = {0, 0, 0, 0, 0};
  run_queues(e, st, e->qw, 0, 1, &cb);
  run_amax(e, st, 1, &cb); /* the backward's reductions are in its B */
  run_queues(e, st, e->qw, 1, 1, &cw);
  r->bs = cb.g + ob;
  r->w = cw.g;
}

/* Per-micro-batch time of stage s. Every micro-batch starts with the
 * host level with the GPU: the training loop waits for the GPU before it
 * issues a micro-batch's forward (Megatron's get_batch copies the batch
 * to the GPU with a blocking .cuda() and reads the broadcast sizes back
 * with .cpu(), megatron/core/tensor_parallel/data.py broadcast_data;
 * DeepSpeed's engine synchronises the device in its throughput timer at
 * every forward and step, deepspeed/utils/timer.py ThroughputTimer), so
 * the host's lead never carries from one micro-batch to the next; then it
 * spends cost_batch_host on the batch before the first layer. With
 * pipeline parallelism the blocking send/recv levels the clocks again at
 * the start of the backward. */
static void stage_cost(const eng *e, const xg_stage *st, eng_stage *r) {
  qclock c = {0, 0, 0, 0, 0};
  /* the batch's host work (cost_batch_host) before the first layer */
  if (e->s->plan.framework_eager) c.h = c.g = cost_batch_host(&e->s->cluster.gpu);
  /* the offload copies' exposed part: the stream's waits on them (the
   * host issues on meanwhile), layer by layer (offload.h) */
  double h0 = c.g, of = run_pass(e, st, 0, &c), ob;
  r->f = c.g;
  /* the kernels' share of the pass's wall time (recomputation, which
   * re-runs the forward's blocking collectives, does not move it) */
  r->bkern = c.g - h0 > c.compute ? c.compute / (c.g - h0) : 1;
  r->offload_f = of;
  r->bwd_lead = e->s->plan.pp > 1 ? 0 : c.g - c.h;
  if (e->s->plan.pp > 1) {
    qclock cb = {0, 0, 0, 0, 0};
    ob = run_pass(e, st, 1, &cb);
    r->b = cb.g;
    if (splits(e)) split_cost(e, st, ob, r);
    c.compute += cb.compute;
    c.comm += cb.comm;
    c.comm_ep += cb.comm_ep;
  } else {
    ob = run_pass(e, st, 1, &c);
    r->b = c.g - r->f;
  }
  r->offload = of + ob;
  r->compute = c.compute;
  r->bmem = bwd_mem_frac(e, st);
  r->comm = c.comm;
  r->comm_ep = c.comm_ep;
  r->host = r->f + r->b - r->offload - c.compute - c.comm;
  if (r->host < 0) r->host = 0;
}

int eng_window(const sc_scenario *s, const xg_group *g) {
  int pp = s->plan.pp > 0 ? s->plan.pp : 1, span = s->cluster.gpus / pp;
  if (g->kind == XG_GROUP_PP) return pp > 1 ? 2 * span : 0;
  return span;
}

/* uneven_fill's scratch for the pipeline of x (nothing without one):
 * grown here, where running out is reported, so that the step's
 * arithmetic allocates nothing. 0, or -1 when out of memory. */
static int grow_fill(eng *e) {
  const xg *x = e->x;
  int pp = x->n_stages;
  if (pp < 2) return 0;
  /* DualPipe runs two chunks per stage: room for vpp 2 */
  long m = x->micro_batches > 0 ? x->micro_batches : 1;
  return vec_grow((void **)&e->fill, &e->cap_fill, 4L * pp * m + 5L * pp, sizeof *e->fill) ||
         vec_grow((void **)&e->fill_order, &e->cap_fill_order, 6L * pp * m,
                  sizeof *e->fill_order) ||
         vec_grow((void **)&e->fill_next, &e->cap_fill_next, 2L * pp, sizeof *e->fill_next);
}

int eng_prepare(eng *e, sc_error *err) {
  const xg *x = e->x;
  if (vec_grow((void **)&e->grps, &e->cap_grps, x->n_groups, sizeof *e->grps) ||
      vec_grow((void **)&e->st, &e->cap_st, x->n_stages, sizeof *e->st) || grow_fill(e))
    return sc_error_set(err, SC_ENOMEM, "out of memory evaluating the plan");
  for (int i = 0; i < x->n_groups; i++) {
    e->grps[i] = grp_make(&e->s->cluster, &x->groups[i]);
    /* the event engine's base (net_alone): alone, but for the sends,
     * which it does not scale (engine.h) */
    if (!e->net_alone || x->groups[i].kind == XG_GROUP_PP)
      e->grps[i].window = eng_window(e->s, &x->groups[i]);
  }
  if (build_queues(e)) return sc_error_set(err, SC_ENOMEM, "out of memory evaluating the plan");
  /* the memory of every stage, kept where it was computed already for
   * this graph and scenario (job_lower's eng_prepare_memory, or job_bound
   * before job_finish: the memory reads neither the network nor the mode) */
  int keep = e->mem_ready;
  eng_memory_pass(e);
  for (int s = 0; s < x->n_stages; s++) {
    const xg_stage *st = &x->stages[s];
    sc_memory m = e->st[s].m;
    double total = e->st[s].mem;
    if (st->same_as >= 0) {
      e->st[s] = e->st[st->same_as];
    } else {
      memset(&e->st[s], 0, sizeof e->st[s]);
      stage_cost(e, st, &e->st[s]);
    }
    if (!keep) {
      eng_memory(e, s);
      continue;
    }
    e->st[s].m = m;
    e->st[s].mem = total;
#ifdef SC_DEBUG_CHECKS
    eng_memory(e, s); /* computed again: the same */
    assert(e->st[s].m.total == m.total && e->st[s].m.weights == m.weights &&
           e->st[s].m.activations == m.activations && e->st[s].m.host == m.host &&
           e->st[s].m.fits == m.fits && e->st[s].mem == total);
#endif
  }
  e->mem_ready = 1;
  return SC_OK;
}

int eng_prepare_memory(eng *e, sc_memory *out, sc_error *err) {
  const xg *x = e->x;
  if (vec_grow((void **)&e->st, &e->cap_st, x->n_stages, sizeof *e->st))
    return sc_error_set(err, SC_ENOMEM, "out of memory evaluating the plan");
  int ms = 0;
  eng_memory_pass(e);
  for (int s = 0; s < x->n_stages; s++) {
    eng_memory(e, s);
    if (e->st[s].m.total > e->st[ms].m.total) ms = s;
  }
  e->mem_worst = ms;
  *out = e->st[ms].m;
  e->mem_ready = 1;
  return SC_OK;
}

/* ------------------------------------------------- data parallelism */

/* The larger of two collectives' shares, resource by resource. */
static void share_max(grp_share *a, grp_share b) {
  a->sm = b.sm > a->sm ? b.sm : a->sm;
  a->hbm = b.hbm > a->hbm ? b.hbm : a->hbm;
}

double eng_grad_bytes(const sc_plan *p) {
  int bf = p->dtype == SC_BF16 || p->dtype == SC_FP8 || p->dtype == SC_FP4;
  return bf && p->main_grads == SC_FP32 ? 4 : eng_param_bytes(p);
}

/* The gradient reduction of stage st after its backward, ZeRO 0-2: an
 * all-reduce (ZeRO 0) or a reduce-scatter and a gather of the updated
 * parameters (ZeRO 1, 2) per data-parallel group, each group's alone
 * (the step model's collective); into *red, *ag (the gathers), *share
 * (the largest SM and HBM shares of the reductions), *params (the
 * parameters reduced). */
static void grad_reduction(const eng *e, const xg_stage *st, double *red, double *ag,
                           grp_share *share, double *params) {
  double e_b = eng_grad_bytes(&e->s->plan), p_b = eng_param_bytes(&e->s->plan);
  *red = *ag = *params = 0;
  share->sm = share->hbm = 0;
  for (int gi = 0; gi < e->x->n_groups; gi++) {
    if (e->x->groups[gi].kind != XG_GROUP_DP) continue;
    double bytes_ar = 0, bytes_rs = 0;
    for (int j = 0; j < st->n_runs; j++) {
      const xg_run *r = &e->x->runs[st->first_run + j];
      const xg_segment *sg = &e->x->segs[r->segment];
      if (sg->block < 0 || sg->zero >= 3) continue;
      /* the experts' gradients over their own group (xg.h edp_group) */
      double ex = r->count * sg->params_expert;
      double n = (sg->dp_group == gi ? r->count * xg_seg_params(sg, (int)(st - e->x->stages)) - ex
                                     : 0) + (sg->edp_group == gi ? ex : 0);
      double bytes = n * e_b;
      if (sg->zero >= 1) bytes_rs += bytes;
      else bytes_ar += bytes;
    }
    const grp *g = &e->grps[gi];
    grp_share s1, s2;
    *red += coll(e, g, COLL_ALL_REDUCE, bytes_ar, &s1) +
            coll(e, g, COLL_REDUCE_SCATTER, bytes_rs, &s2);
    share_max(share, s1);
    share_max(share, s2);
    *ag += coll(e, g, COLL_ALL_GATHER, bytes_rs / e_b * p_b, NULL); /* parameters */
    *params += (bytes_ar + bytes_rs) / e_b;
  }
}

double eng_red_exposed(const sc_plan *p, double red, double b, double share) {
  if (!p->overlap_grad_reduce) return red;
  double window = 0.9 * b < 0.9 * red ? 0.9 * b : 0.9 * red;
  return overlapped(red, window, share);
}

/* The exposed part of stage st's gradient reduction: with
 * overlap_grad_reduce and one model chunk per stage, Megatron's buckets
 * (dpoverlap.c); otherwise (interleaved, HSDP) hidden under at most 90 %
 * of the slowest stage's backward (eng_red_exposed), or all of it. */
static double red_exposed_stage(const eng *e, const xg_stage *st, double red, double params,
                                grp_share sh, int hsdp, const eng_stage *worst) {
  const sc_plan *p = &e->s->plan;
  if (!p->overlap_grad_reduce || red <= 0) return red;
  int si = (int)(st - e->x->stages);
  double share = bwd_slow(sh, &e->st[si]);
  /* interleaved: per model chunk (the event engine's order needs m % pp
   * == 0, else it runs one chunk) */
  double p2p = p->pp > 1 && !hsdp ? coll(e, &e->grps[e->x->pp_group], COLL_SEND_RECV,
                                          e->x->p2p_bytes, NULL)
                                   : 0;
  if (!hsdp && e->x->vpp > 1 && e->x->micro_batches % p->pp == 0)
    return eng_dp_overlap_chunks(e, si, red, share, p2p);
  /* a schedule that splits its backwards ends on weight-gradient passes,
   * which the buckets' model of the last backward does not run */
  if (hsdp || e->x->vpp > 1 || pipe_for(p->schedule)->splits)
    return eng_red_exposed(p, red, worst->b, bwd_slow(sh, worst));
  return eng_dp_overlap(e, si, red, params, share, p2p);
}

/* Exposed data-parallel communication per step of the stage with the most
 * parameters, the reduction window being the slowest stage's backward;
 * an overlapped parameter gather exposes 10 % (an assumption without a
 * measurement). */
static double dp_exposed(const eng *e, const xg_stage *st, const eng_stage *worst, int mbs) {
  const sc_plan *p = &e->s->plan;
  double e_b = eng_param_bytes(p), red, ag, params;
  grp_share share;
  double t = fsdp_exposed(e, st, mbs); /* ZeRO-3 / FSDP units: fsdp.c */
  grad_reduction(e, st, &red, &ag, &share, &params);
  /* HSDP: each shard's reduced gradients are all-reduced across its
   * replicas, once per step (FSDP1 and FSDP2 do it after every
   * backward, unit by unit: fsdp.c) */
  double rep = 0;
  int rep_grp = -1;
  for (int j = 0; j < st->n_runs && !fsdp_hsdp_per_unit(p); j++) {
    const xg_run *r = &e->x->runs[st->first_run + j];
    const xg_segment *sg = &e->x->segs[r->segment];
    if (sg->block < 0 || sg->zero < 3 || sg->rep_group < 0) continue;
    /* a shard's elements: the dense over shard, the experts over eshard */
    double n = r->count * xg_seg_params(sg, (int)(st - e->x->stages));
    rep += xg_seg_sharded(sg, n * e_b, n, r->count);
    rep_grp = sg->rep_group;
  }
  /* the replicas' all-reduce needs every unit's reduce-scatter done, the
   * last of which leaves when the backward ends (fsdp.c): nothing of the
   * backward is left to hide it, and FSDP's own gathers and reduce-
   * scatters are what that backward hides (hiding it again made a faster
   * GPU expose both) */
  double all = rep_grp >= 0 ? coll(e, &e->grps[rep_grp], COLL_ALL_REDUCE, rep, NULL) : 0;
  double exposed = red_exposed_stage(e, st, red, params, share, rep_grp >= 0, worst) + all;
  return t + exposed + (p->overlap_param_gather ? 0.1 * ag : ag);
}

double eng_dp_exposed_stage(const eng *e, int s, int worst) {
  return dp_exposed(e, &e->x->stages[s], &e->st[worst], e->x->micro_batches);
}

void eng_dp_reduction(const eng *e, int s, int worst, eng_dpred *out) {
  const xg_stage *st = &e->x->stages[s];
  double ag;
  grp_share sh;
  grad_reduction(e, st, &out->red, &ag, &sh, &out->params);
  out->share = bwd_slow(sh, &e->st[s]);
  double rep = 0;
  /* HSDP reduced once per step shares the overlap window (as dp_exposed:
   * FSDP1/FSDP2 reduce unit by unit, fsdp.c, and keep the buckets) */
  for (int j = 0; j < st->n_runs && !fsdp_hsdp_per_unit(&e->s->plan); j++) {
    const xg_segment *sg = &e->x->segs[e->x->runs[st->first_run + j].segment];
    rep += sg->block >= 0 && sg->zero >= 3 && sg->rep_group >= 0;
  }
  if (rep > 0) out->red = out->params = 0;
  out->exposed = red_exposed_stage(e, st, out->red, out->params, sh, 0, &e->st[worst]);
}

/* Transformer Engine's cast of the fp8 GEMM weights (fp8 copy and its
 * transpose, cost/fp8cast.c), once per step on the first micro-batch
 * (is_first_microbatch): charged with the optimizer step that updated
 * those weights, one pass over the stage's lp local weights (16-bit).
 * With fp8 primary weights (fp8_param) the optimizer writes the fp8
 * weights itself; that path's kernels are not modelled (0). */
static double fp8_weight_cast(const eng *e, double lp) {
  const sc_plan *p = &e->s->plan;
  if (p->dtype != SC_FP8 || p->fp8_param || lp <= 0) return 0;
  double eb = 2; /* fp8 plans keep 16-bit weights (lower.c's hp) */
  int tn = e->s->cluster.gpu.arch < 100; /* Hopper: a transposed copy too */
  return cost_mem(&e->s->cluster.gpu, lp * fp8c_weight_bytes(p->fp8_recipe, eb, tn));
}

/* Adam step over the local shard: read/write fp32 master, m, v, read the
 * gradient, write the 16-bit copy, plus the gradient-norm pass (the graph's
 * optimizer bytes per parameter, 34; more with the precision-aware
 * optimizer's states in less than fp32, optim_update_bytes). */
static double optimizer_time(const eng *e, const xg_stage *st) {
  const sc_plan *p = &e->s->plan;
  double n = 0, lp = 0, local = 0, whole = 0;
  for (int j = 0; j < st->n_runs; j++) {
    const xg_run *r = &e->x->runs[st->first_run + j];
    const xg_segment *sg = &e->x->segs[r->segment];
    if (sg->block < 0) continue;
    double params = r->count * xg_seg_params(sg, (int)(st - e->x->stages));
    n += sg->zero >= 1 ? xg_seg_sharded(sg, params, params, r->count) : params;
    local += params;
    whole += sg->zero < 3 ? params : 0; /* FSDP units free the gradient each micro-batch */
    lp += r->count * sg->params_lp;
  }
  /* AMP's weight and gradient casts (each micro-batch, every local
   * weight), PyTorch's accumulation of the fp32 gradients it keeps whole
   * (each micro-batch after the first) and loss scaling (the shard),
   * cost/amp.h */
  double added = p->framework_eager ? whole : 0;
  double amp =
      amp_on(p) ? amp_pass_bytes(local, n, e->x->micro_batches, added, p->dtype == SC_FP16) : 0;
  /* BERT's optimizer as separate ops where kernels are unfused
   * (cost/optchain.h); the precision-aware optimizer's states through fp32
   * temporaries (model/optimizer.h) */
  double bpp = optim_update_bytes(p, optc_bytes_per_param(e->s, e->g->opt.bytes_per_param));
  return cost_mem(&e->s->cluster.gpu, n * bpp + amp) + fp8_weight_cast(e, lp);
}

/* pipe_p2p_on_path's fb: forward + backward of stage s per micro-batch. */
static double stage_fb(const void *ud, int s) {
  const eng *e = ud;
  return e->st[s].f + e->st[s].b;
}

/* The fill and drain of a pipeline of one chunk per stage (DualPipe:
 * its two) whose slowest stage is not the last, or whose schedule splits
 * its backwards over uneven stages, from the schedule run pass by pass
 * over the stages' f, b and w (pipe_makespan, with p2p s per send): the
 * step less m times the pace's f + b, s. The usual form (the other
 * stages' f + b once) holds when the last stage paces the step; a slower
 * stage before it runs its warm-up forwards while the first micro-batch
 * travels to the last stage and back, so with few micro-batches part of
 * that trip hides under them (and the last stage's own passes can set
 * the step instead). -1 if the schedule deadlocked (pipe_makespan: never
 * for these schedules). Allocates nothing: the scratch is the engine's
 * (grow_fill). */
static double uneven_fill(const eng *e, const pipe_sched *ps, const pipe_shape *sh,
                          const eng_stage *pace, double p2p) {
  int pp = sh->pp, m = sh->m;
  size_t cells = (size_t)pp * sh->vpp * m;
  /* eng_prepare grew the scratch for this pipeline (grow_fill) */
  assert(e->fill && e->fill_order && e->fill_next &&
         (long)(2 * cells + 5 * (size_t)pp) <= (long)e->cap_fill &&
         (long)(3 * cells) <= (long)e->cap_fill_order && 2 * pp <= e->cap_fill_next);
  double *d = e->fill, *f = d + 2 * cells, *b = f + pp, *bs = b + pp, *w = bs + pp;
  double *free_at = w + pp;
  for (int s = 0; s < pp; s++)
    f[s] = e->st[s].f, b[s] = e->st[s].b, bs[s] = e->st[s].bs, w[s] = e->st[s].w;
  double t = pipe_makespan(ps, sh, f, b, bs, ps->splits ? w : NULL, p2p, d, d + cells,
                           e->fill_order, e->fill_next + pp, e->fill_next, free_at);
  double per = m * (pace->f + pace->b);
  if (t >= 0) t -= per;
  if (t < 0 && t > -1e-9 * per) t = 0; /* rounding */
  return t;
}

/* Stage t's per-micro-batch costs with `share` of its backwards split
 * into a B and a W (each its own queue: bs + w, not b; the difference is
 * host time, the kernels being the same). */
static eng_stage split_part(const eng_stage *t, double share) {
  eng_stage r = *t;
  r.b += share * (t->bs + t->w - t->b);
  r.host = r.f + r.b - r.offload - r.compute - r.comm;
  if (r.host < 0) r.host = 0;
  return r;
}

/* The per-micro-batch costs of rank s: its stage's, or under DualPipe the
 * mean of its two stages' (s for chunk 0, pp-1-s for chunk 1, half of
 * the micro-batches each); a schedule that splits its backwards runs
 * split_share of each chunk's as a B and a W. Memory is eng_memory's. */
static eng_stage rank_of(const eng *e, const pipe_sched *ps, const pipe_shape *sh, int s) {
  int split = ps->splits && e->s->plan.pp > 1;
  eng_stage a = split_part(&e->st[s], split ? ps->split_share(sh, s, 0) : 0);
  if (!sh->dual) return a;
  eng_stage z = split_part(&e->st[e->x->n_stages - 1 - s], split ? ps->split_share(sh, s, 1) : 0);
  eng_stage r = a;
  r.f = (a.f + z.f) / 2, r.b = (a.b + z.b) / 2;
  r.bs = (a.bs + z.bs) / 2, r.w = (a.w + z.w) / 2;
  r.compute = (a.compute + z.compute) / 2, r.comm = (a.comm + z.comm) / 2;
  r.comm_ep = (a.comm_ep + z.comm_ep) / 2, r.offload = (a.offload + z.offload) / 2;
  r.bmem = (a.bmem + z.bmem) / 2, r.bkern = (a.bkern + z.bkern) / 2;
  r.host = r.f + r.b - r.offload - r.compute - r.comm;
  if (r.host < 0) r.host = 0;
  return r;
}

/* The fill and drain of a schedule that splits its backwards, in its
 * closed form over the mean f, b - w and w of the ranks other than the
 * slowest (equal ranks: the slowest's own), as 1F1B's form takes the
 * other stages' f + b. */
static double split_bubble(const eng *e, const pipe_sched *ps, const pipe_shape *sh, int worst) {
  double f = 0, b = 0, w = 0;
  int n = 0;
  for (int s = 0; s < sh->pp; s++) {
    if (s == worst) continue;
    eng_stage r = rank_of(e, ps, sh, s);
    f += r.f, b += r.b - r.w, w += r.w, n++;
  }
  return n ? ps->bubble_split(sh, f / n, b / n, w / n) : 0;
}

/* 1 when every rank of the pipeline costs what `pace` does. */
static int ranks_even(const eng *e, const pipe_sched *ps, const pipe_shape *sh,
                      const eng_stage *pace) {
  for (int s = 0; s < sh->pp; s++) {
    eng_stage r = rank_of(e, ps, sh, s);
    if (fabs(r.f - pace->f) + fabs(r.b - pace->b) + fabs(r.w - pace->w) >
        1e-12 * (pace->f + pace->b))
      return 0;
  }
  return 1;
}

/* eng_step_of without the data-parallel reduction and the optimizer
 * (out->dp, out->opt and out->dp_stage left 0): the slowest stage, the
 * bubble and the pipeline's sends. */
static void step_pipeline(const eng *e, eng_step *out) {
  const sc_plan *p = &e->s->plan;
  const xg *x = e->x;
  memset(out, 0, sizeof *out);
  pipe_shape shape = pipe_shape_of(p->schedule, p->pp, x->vpp, x->micro_batches);
  const pipe_sched *ps = pipe_for(p->schedule);
  int dual = shape.dual && x->n_stages == p->pp;
  if (!dual) shape.dual = 0, shape.vpp = x->vpp;
  if (shape.dual || (ps->splits && p->pp > 1)) {
    out->pace = rank_of(e, ps, &shape, 0);
    for (int s = 1; s < x->n_stages; s++) {
      eng_stage a = rank_of(e, ps, &shape, s);
      if (a.f + a.b > out->pace.f + out->pace.b) out->worst = s, out->pace = a;
    }
  } else { /* a rank is its stage: compare in place, copy the slowest once */
    for (int s = 1; s < x->n_stages; s++)
      if (e->st[s].f + e->st[s].b > e->st[out->worst].f + e->st[out->worst].b) out->worst = s;
    out->pace = rank_of(e, ps, &shape, out->worst);
  }
  const eng_stage *w = &out->pace;
  out->per_mb = w->f + w->b;
  /* fill and drain pass through the other stages: (pp - 1) of them in
   * the schedule's closed form, each at its own pace when stages are
   * uneven (equal stages: the usual bubble x the slowest stage) */
  double others = 0;
  for (int s = 0; s < x->n_stages; s++)
    if (s != out->worst) others += e->st[s].f + e->st[s].b;
  /* the batch's host work (stage_cost) precedes a micro-batch's first
   * chunk only: the fill waits for it whole at each of the pp - 1 stages
   * it passes, while the rest of a stage's pass is cut into vpp chunks */
  double bh = p->framework_eager ? cost_batch_host(&e->s->cluster.gpu) : 0;
  out->bubble = p->pp > 1 ? ps->bubble(&shape) * (others - (p->pp - 1) * bh) / (p->pp - 1) +
                                (p->pp - 1) * bh
                          : 0;
  int lowered = p->pp > 1 && (x->vpp == 1 || dual) && x->n_stages == p->pp;
  out->p2p = p->pp > 1 ? coll(e, &e->grps[x->pp_group], COLL_SEND_RECV, x->p2p_bytes, NULL) : 0;
  if (ps->splits && lowered) {
    /* the split schedules' closed forms hold for equal ranks; uneven
     * ones run the schedule pass by pass. Their sends, which do not hold
     * a stage, lie on the path as the passes' times decide (the closed
     * count holds for equal passes): the run with them less without */
    out->bubble = split_bubble(e, ps, &shape, out->worst);
    double fill = ranks_even(e, ps, &shape, w) ? -1 : uneven_fill(e, ps, &shape, w, 0);
    if (fill >= 0) out->bubble = fill;
    double sent = uneven_fill(e, ps, &shape, w, out->p2p), alone = uneven_fill(e, ps, &shape, w, 0);
    out->pp_comm = sent >= 0 && alone >= 0 ? sent - alone : out->p2p * ps->p2p_steps(&shape);
    return;
  }
  if (lowered && out->worst != p->pp - 1 && p->schedule != SC_SCHED_INTERLEAVED) {
    /* one chunk per stage (the batch's host work then cancels above) and
     * a slowest stage before the last: the schedule's own fill and drain */
    double fill = uneven_fill(e, ps, &shape, w, 0);
    if (fill >= 0) out->bubble = fill;
  }
  /* activations of one micro-batch cross each stage boundary forward and
   * gradients come back; Megatron's p2p is blocking (pipe.h) */
  out->pp_comm = x->n_stages == p->pp && ps->p2p_per_mb
                     ? pipe_p2p_on_path(ps, &shape, stage_fb, e, out->worst, out->p2p)
                     : out->p2p * ps->p2p_steps(&shape);
}

void eng_step_of(const eng *e, eng_step *out) {
  const xg *x = e->x;
  step_pipeline(e, out);
  const eng_stage *w = &out->pace;
  int dual = e->s->plan.schedule == SC_SCHED_DUALPIPE && x->n_stages == e->s->plan.pp;
  /* after the flush every stage reduces its gradients, then steps its
   * optimizer; the step computes the global gradient norm first
   * (Megatron's clip_grad, 1.0 by default: get_grad_norm_fp32
   * all-reduces it over the model-parallel group, the pipeline stages
   * included), so no stage updates before the slowest reduction has
   * ended: the slowest reduction, then the slowest update (the event
   * engine's order too: evloop.c). DualPipe's rank s reduces and
   * updates stage s's and stage pp-1-s's parameters. */
  for (int s = 0; s < x->n_stages; s++) {
    const xg_stage *st = &x->stages[s];
    if (st->same_as >= 0 && !dual) continue;
    double dp = dp_exposed(e, st, w, x->micro_batches), opt = optimizer_time(e, st);
    if (dual) {
      const xg_stage *z = &x->stages[x->n_stages - 1 - s];
      dp += dp_exposed(e, z, w, x->micro_batches), opt += optimizer_time(e, z);
    }
    if (s == 0 || dp > out->dp) out->dp = dp, out->dp_stage = s;
    if (s == 0 || opt > out->opt) out->opt = opt;
  }
}

/* r's times and step from step k (r zeroed before). */
static void step_sum(const eng *e, const eng_step *k, sc_result *r) {
  const eng_stage *w = &k->pace;
  int mbs = e->x->micro_batches;
  r->time.compute = mbs * w->compute;
  r->time.host = mbs * w->host;
  r->time.tp_comm = mbs * (w->comm - w->comm_ep);
  r->time.ep_comm = mbs * w->comm_ep;
  r->time.bubble = k->bubble;
  r->time.pp_comm = k->pp_comm;
  r->time.dp_comm = k->dp;
  r->time.optimizer = k->opt;
  r->time.offload = mbs * w->offload;
  r->step_s = r->time.compute + r->time.host + r->time.tp_comm + r->time.ep_comm + k->bubble +
              k->pp_comm + k->dp + k->opt + r->time.offload;
}

double eng_step_floor(const eng *e) {
  eng_step k;
  step_pipeline(e, &k); /* k.dp = k.opt = 0 */
  sc_result r;
  memset(&r, 0, sizeof r);
  step_sum(e, &k, &r);
  return r.step_s;
}

void eng_result(const eng *e, sc_result *r) {
  const sc_scenario *s = e->s;
  const sc_plan *p = &s->plan;
  eng_step k;
  eng_step_of(e, &k);
  int mbs = e->x->micro_batches;
  memset(r, 0, sizeof *r);
  step_sum(e, &k, r);
  double seqs = (double)p->global_batch;
  double tokens = seqs * (e->g->seq > 0 ? (double)e->g->seq : 1);
  r->micro_batches = mbs;
  r->micro_batch = p->micro_batch;
  r->tokens_per_s = tokens / r->step_s;
  r->seq_per_s = seqs / r->step_s;
  r->model_flops = e->g->model_flops * seqs;
  r->hw_flops = r->model_flops * (p->recompute == SC_RECOMP_FULL ? 4.0 / 3.0 : 1.0);
  r->tflops_per_gpu = r->model_flops / r->step_s / s->cluster.gpus / 1e12;
  /* MFU against the dense 16-bit peak, as Megatron, NeMo and MaxText
   * report it for fp8 runs too; the plan type's own peak beside it */
  const sc_gpu *gpu = &s->cluster.gpu;
  sc_dtype ref = p->dtype == SC_FP32 || p->dtype == SC_TF32 ? p->dtype
                 : gpu->peak_flops[SC_BF16] > 0      ? SC_BF16
                                                     : SC_FP16;
  if (p->dtype == SC_FP16) ref = SC_FP16;
  double per_gpu = r->model_flops / r->step_s / s->cluster.gpus;
  r->mfu = per_gpu / cost_peak(gpu, ref);
  r->mfu_lowp = per_gpu / cost_peak(gpu, p->dtype);
  r->params = s->model.kind == SC_MODEL_TRANSFORMER ? sc_model_params(&s->model) : wg_params(e->g);
  /* memory of the most loaded stage */
  int ms = 0;
  for (int i = 1; i < e->x->n_stages; i++)
    if (e->st[i].m.total > e->st[ms].m.total) ms = i;
  r->mem = e->st[ms].m;
#ifdef SC_DEBUG_CHECKS
  /* every part is a finite, non-negative time and the step is their sum
   * (a step that is not finite is the job's input error: job.c) */
  const double parts[] = {r->time.compute, r->time.host, r->time.tp_comm, r->time.ep_comm,
                          r->time.bubble,
                          r->time.pp_comm, r->time.dp_comm, r->time.optimizer,
                          r->time.offload};
  for (size_t i = 0; isfinite(r->step_s) && i < sizeof parts / sizeof parts[0]; i++)
    assert(isfinite(parts[i]) && parts[i] >= 0);
  assert(!isfinite(r->step_s) || r->step_s > 0);
  assert(!isfinite(r->mem.total) || r->mem.total >= r->mem.weights + r->mem.activations);
#endif
}
