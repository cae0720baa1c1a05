/*
 * lower.c -- workload graph + plan -> execution graph; see lower.h.
 *
 * Per-GPU shapes. A tensor of e elements per sample holds, on one GPU,
 * e * micro_batch / cp elements in a sequence model (cp splits dimension
 * 0) and a further 1/tp when split (SEQ, FEAT). A linear layer is a GEMM
 * of m = rows of its input, n = output features, k = input features, with
 * n / tp (column) or k / tp (row); an expert layer is `experts / ep`
 * batched GEMMs of m / batch rows each (balanced routing).
 *
 * The attention operator becomes Megatron-LM's CoreAttention with the
 * layout changes around it (framework calls counted from
 * megatron/model/transformer.py, as in src/graph/graph.c):
 *
 *   kernel          calls fwd/bwd   what
 *   qkv layout        5 / 3 flash   view, split, rearrange
 *                    13 / 6 unfused view, split, 3 views, 2 transposes, ...
 *   [cp ring]                       K and V around the context-parallel ring
 *   flash attention   3 / 3         autograd fn + kernel
 *   -- or, unfused --
 *   baddbmm (QK^T)    2 / 3         scores [b h, s, s_kv]
 *   softmax           3 / 2         fused scale-mask-softmax, or where its
 *                     6 / 5         kernel does not apply Megatron's
 *                                   PyTorch path (softmax_task)
 *   dropout           4 / 2         RNG tracker fork + dropout (none at
 *                                   a rate of 0: dropout returns its input)
 *   bmm (AV)          4 / 3
 *   context layout    3 / 2         permute, contiguous, view
 */
#include "lower/lower.h"

#include <assert.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "core/mem.h"
#include "core/vec.h"
#include "cost/amp.h"
#include "cost/compute.h"
#include "cost/fp8cast.h"
#include "cost/pool.h"
#include "cost/softmax.h"
#include "lower/moe_dispatch.h"
#include "lower/recmod.h"
#include "lower/segmemo.h"
#include "plan/plan.h"
#include "plan/strategy.h"

typedef enum lay { LAY_REPL = 0, LAY_SEQ, LAY_FEAT, LAY_PART } lay;

/* What the lowering knows of one tensor of the block being lowered. */
typedef struct tstate {
  lay lay;
  int expert;     /* on the expert side of the all-to-all */
  int origin;     /* op whose partial sums it holds (PART), for names */
  int task;       /* segment-local task that produced it, XG_NO_DEP */
  unsigned kept;  /* TS_KEPT_* bits: already counted as kept in 16 bits */
} tstate;

/* tstate.kept: a 16-bit tensor that several operators save for backward
 * is one storage (autograd saves the tensor, not a copy), counted once in
 * the activations without recompute (ALL) and with the selective modules
 * (SEL); an fp8 GEMM keeps its own cast, counted apart. */
#define TS_KEPT_ALL 1u
#define TS_KEPT_SEL 2u

typedef struct lctx {
  const wg_graph *g;
  const sc_scenario *s;
  xg *x;
  tstate *ts;
  sc_error *err;
  double e;       /* bytes of an activation element */
  double mb;      /* sequences per micro-batch */
  double cpdiv;   /* cp in a sequence model, else 1 */
  strat st;
  int g_tp, g_cp, g_ep, g_dp, g_mp;
  int g_rep, shard; /* HSDP replica group (-1 none); ranks of a ZeRO shard */
  int seg_first;  /* first task of the segment being lowered */
  int seg_hint;   /* the segment segment_for found last (-1 none): the
                     next layer's, as a rule */
  double act, act_sel, params, tied;
  double bwd_extra; /* the segment's backward transient (xg_segment.bwd_extra_bytes) */
  double params_lp; /* of those, weights of low-precision GEMMs */
  double params_cast; /* weights of GEMMs and convolutions, tied ones too */
  double params_expert; /* of params, the MoE experts' */
  int flash;
  sc_dtype lp;    /* the plan's compute type: linear layers of layer blocks */
  sc_dtype hp;    /* everything else: 16 bits when lp is fp8 or fp4 */
  lay run_lay;    /* how the op being lowered splits its elements */
  unsigned en;    /* recompute modules a selective layer re-runs (SC_RECMOD_*) */
  int cur_depth;  /* times the op being lowered re-runs under them (its
                     tasks' recompute_sel; 0 outside an op) */
  int etp_split;  /* the block's MoE dispatch sent sequence shards over
                     etp = tp > 1 (experts()): its combine mirrors it */
  segm *memo;     /* lowered segments of earlier plans, or NULL (borrowed) */
  segm_call calls[SEGM_CALLS]; /* the group calls of the segment being lowered */
  int n_calls;    /* how many (past SEGM_CALLS: counted, not kept) */
} lctx;

const char *lower_task_name(const xg_task *t, char *buf, size_t cap) {
  snprintf(buf, cap, "%s%s", t->prefix ? t->prefix : "", t->name ? t->name : "");
  return buf;
}

void lower_scratch_free(lower_scratch *s) {
  mem_free(s->state);
  mem_free(s->pieces);
  memset(s, 0, sizeof *s);
}

static double act_bytes(sc_dtype d) { return d == SC_FP32 || d == SC_TF32 ? 4.0 : 2.0; }

/* ------------------------------------------------------------ sizes */

/* Elements of tensor t on one GPU in layout l. */
static double elems_gpu(const lctx *c, int t, lay l) {
  double n = wg_tensor_elems(&c->g->tensors[t]) * c->mb / c->cpdiv;
  return l == LAY_SEQ || l == LAY_FEAT ? n / c->st.tp : n;
}

static double bytes_gpu(const lctx *c, int t, lay l) {
  return elems_gpu(c, t, l) * wg_elem_bytes(c->g->tensors[t].elem, c->e);
}

/* Rows (all dimensions but the last) of tensor t on one GPU. */
static double rows_gpu(const lctx *c, int t, lay l) {
  const wg_tensor *x = &c->g->tensors[t];
  double r = wg_tensor_elems(x) / (double)x->dim[x->rank - 1] * c->mb / c->cpdiv;
  return l == LAY_SEQ ? r / c->st.tp : r;
}

/* ------------------------------------------------------------ tasks */

/* Under plan.moe_shared_expert_overlap, the side of the dispatcher op's
 * kernels run beside (xg_task.shared): Megatron's shared_experts.py, on
 * its own stream, runs fc1 and the activation beside the dispatch (1) and
 * fc2 beside the combine (2); 0 for any other op. */
static int shared_side(const lctx *c, int op) {
  if (!c->s->plan.moe_shared_expert_overlap || op < 0) return 0;
  const wg_op *o = &c->g->ops[op];
  if (!(o->recmod & SC_RECMOD_SHARED_EXPERTS)) return 0;
  return o->kind == WG_LINEAR && o->tp == WG_TP_ROW ? 2 : 1;
}

/* Append task t; it re-runs as often as the op being lowered does under
 * selective recomputation, plus what t itself says (core attention). */
static int emit(lctx *c, const xg_task *t) {
  xg_task u = *t;
  u.recompute_sel += c->cur_depth;
  if (u.kind != XG_COMM) u.shared = shared_side(c, u.op);
  if (xg_add_task(c->x, &u) < 0) return -1;
  return c->x->n_tasks - 1 - c->seg_first;
}

static xg_task task(xg_kind kind, const char *prefix, const char *name, int op) {
  xg_task t;
  memset(&t, 0, sizeof t);
  t.kind = kind;
  t.prefix = prefix;
  t.name = name;
  t.op = op;
  t.batch = 1;
  t.bwd_scale = 2.0;
  t.dep[0] = t.dep[1] = XG_NO_DEP;
  return t;
}

/* xg_add_group, noted in the calls of the segment being lowered (the
 * memo of segments replays them: segmemo.h). */
static int add_group(lctx *c, xg_group_kind kind, int ranks, int stride) {
  int i = xg_add_group(c->x, kind, ranks, stride);
  if (c->n_calls < SEGM_CALLS) c->calls[c->n_calls] = (segm_call){kind, ranks, stride, i};
  c->n_calls++;
  return i;
}

/* A collective on group `grp` reading the output of task `dep`. */
static int comm(lctx *c, coll_op op, int grp, double bytes, const char *prefix,
                const char *name, int dep) {
  xg_task t = task(XG_COMM, prefix, name, -1);
  t.coll = op;
  t.group = grp;
  t.bytes = bytes;
  t.dep[0] = dep;
  t.host_fwd = t.host_bwd = 2;
  if (grp == c->g_tp && c->s->plan.overlap_tp) t.overlap = XG_OVL_PREV;
  /* the dispatcher's collectives (all on expert groups) */
  /* DualPipe runs the all-to-alls beside the other pass of its F&B pairs
   * (DeepSeek-V3's figure 4), as combined 1F1B does */
  if (c->x->groups[grp].kind == XG_GROUP_EP &&
      (c->s->plan.overlap_ep || c->s->plan.schedule == SC_SCHED_DUALPIPE))
    t.overlap = XG_OVL_OTHER;
  return emit(c, &t);
}

/* 1 when a tensor-parallel collective whose backward reduces a column-
 * parallel linear's input gradient runs that reduction beside the
 * linear's weight gradient (plan.tp_async_bwd; plan.overlap_tp hides it
 * its own way). */
static int async_bwd(const lctx *c) {
  return c->s->plan.tp_async_bwd && !c->s->plan.overlap_tp && c->st.tp > 1;
}

/* A memory-bound kernel named prefix + name (both static or owned by the
 * graph: the task keeps the pointers). */
static int mem_task_p(lctx *c, const char *prefix, const char *name, int op, double bytes,
                      int hf, int hb, double bwd, int dep) {
  xg_task t = task(XG_MEM, prefix, name, op);
  t.bytes = bytes;
  t.host_fwd = hf;
  t.host_bwd = hb;
  t.bwd_scale = bwd;
  t.dep[0] = dep;
  return emit(c, &t);
}

static int mem_task(lctx *c, const char *name, int op, double bytes, int hf, int hb,
                    double bwd, int dep) {
  return mem_task_p(c, "", name, op, bytes, hf, hb, bwd, dep);
}

static int gemm_task(lctx *c, const char *name, int op, double m, double n, double k,
                     double batch, int hf, int hb, int dep) {
  xg_task t = task(XG_GEMM, "", name, op);
  t.dtype = c->hp;
  t.m = m, t.n = n, t.k = k, t.batch = batch;
  t.flops = 2.0 * m * n * k * batch;
  t.host_fwd = hf;
  t.host_bwd = hb;
  t.dep[0] = dep;
  return emit(c, &t);
}

/* ------------------------------------------------------- layouts */

static const char *op_name(const lctx *c, int op) { return op >= 0 ? c->g->ops[op].name : "input"; }

static double fp8_gather(const lctx *c, const wg_op *o, fp8c_gather which);

/* Make tensor t have layout `want` before operator `op` reads it,
 * inserting the collective that takes it there. 0 or -1 (no memory). */
static int convert(lctx *c, int t, lay want, int op) {
  tstate *s = &c->ts[t];
  if (s->lay == want) return 0;
  if (c->st.tp <= 1) {
    s->lay = want == LAY_PART ? LAY_REPL : want;
    return 0;
  }
  double full = bytes_gpu(c, t, LAY_REPL);
  int k;
  switch (s->lay) {
  case LAY_PART: {
    /* partial sums: reduce-scatter onto the sequence split under
     * sequence parallelism, else all-reduce */
    int rs = want == LAY_SEQ;
    k = comm(c, rs ? COLL_REDUCE_SCATTER : COLL_ALL_REDUCE, c->g_tp, full, rs ? "rs_" : "ar_",
             op_name(c, s->origin), s->task);
    if (k < 0) return -1;
    /* the reduction belongs to the layer that made the partial sums
     * (Megatron's RowParallelLinear reduces its own output): it re-runs
     * with that layer's recompute module */
    c->x->tasks[c->seg_first + k].recompute_sel =
        s->origin >= 0 ? rm_depth(c->g, s->origin, c->en) : 0;
    /* without sequence parallelism its backward is the all-reduce of the
     * input gradient of the column-parallel linear that reads the sum:
     * which one, pair_wgrad decides at the segment's end */
    if (!rs && async_bwd(c)) {
      c->x->tasks[c->seg_first + k].overlap = XG_OVL_WGRAD;
      c->x->tasks[c->seg_first + k].wgrad = -1;
    }
    /* backward all-gathers the output gradient: quantized for an fp8 GEMM */
    if (rs && s->origin >= 0)
      c->x->tasks[c->seg_first + k].comm_scale[1] =
          fp8_gather(c, &c->g->ops[s->origin], FP8C_AG_DGRAD);
    s->task = k;
    s->lay = rs ? LAY_SEQ : LAY_REPL;
    return s->lay == want ? 0 : convert(c, t, want, op);
  }
  case LAY_SEQ:
  case LAY_FEAT:
    if (want == LAY_REPL || (s->lay == LAY_SEQ) != (want == LAY_SEQ)) {
      k = comm(c, COLL_ALL_GATHER, c->g_tp, full, "ag_", op_name(c, op), s->task);
      if (k < 0) return -1;
      s->task = k;
    }
    s->lay = want;
    return 0;
  case LAY_REPL:
    s->lay = want; /* a local slice */
    return 0;
  }
  return 0;
}

/* Tokens each expert of the busiest expert-parallel rank computes and
 * receives, as a multiple of the mean share: with a capacity factor and
 * padding (plan.moe_capacity) every expert's buffer holds capacity x the
 * mean, whatever the router did; dropless routing gives the busiest rank
 * plan.moe_imbalance x the mean (1: balanced), and every rank waits for
 * it at the all-to-all. */
static double moe_cf(const lctx *c) {
  const sc_plan *p = &c->s->plan;
  return p->moe_capacity > 0 ? p->moe_capacity : p->moe_imbalance >= 1 ? p->moe_imbalance : 1.0;
}

/* The route op of block b (its top-k and experts), or NULL. */
static const wg_op *block_route(const lctx *c, int b) {
  const wg_block *bl = &c->g->blocks[b];
  for (int i = bl->first_op; i < bl->first_op + bl->n_ops; i++)
    if (c->g->ops[i].kind == WG_ROUTE) return &c->g->ops[i];
  return NULL;
}

/* Leg k of a dispatch (expert 1) or combine of block b hides under the
 * shared experts' kernels of its side (plan.moe_shared_expert_overlap),
 * where the block has shared experts and nothing else hides it. */
static void shared_leg(lctx *c, int k, int b, int expert) {
  xg_task *ct = &c->x->tasks[c->seg_first + k];
  if (!c->s->plan.moe_shared_expert_overlap || ct->overlap != XG_OVL_NONE) return;
  const wg_block *bl = &c->g->blocks[b];
  for (int i = bl->first_op; i < bl->first_op + bl->n_ops; i++)
    if (c->g->ops[i].recmod & SC_RECMOD_SHARED_EXPERTS) {
      ct->overlap = XG_OVL_SHARED;
      ct->shared = expert ? 1 : 2;
      return;
    }
}

/* The dispatcher's collective mc on group grp for tensor t, named for the
 * direction; the task index or -1. */
static int moe_comm(lctx *c, int t, const moed_comm *mc, int grp, int expert) {
  int k = comm(c, mc->op, grp, mc->bytes, "", expert ? "ep_dispatch" : "ep_combine",
               c->ts[t].task);
  if (k < 0) return -1;
  xg_task *ct = &c->x->tasks[c->seg_first + k];
  ct->flex = mc->flex;
  ct->flex_inter = mc->inter_frac;
  shared_leg(c, k, c->g->tensors[t].block, expert);
  c->ts[t].task = k;
  return 0;
}

/* The expert-tensor-parallel leg of an all-to-all dispatch (expert = 1:
 * all-gather the tokens the rank received, so that each of the etp ranks
 * holding a shard of its experts has them all) or combine (0: reduce-
 * scatter the experts' partial outputs back): Megatron-Core's
 * MoEAlltoAllTokenDispatcher, gather_from_sequence_parallel_region /
 * reduce_scatter_to_sequence_parallel_region over the expert tensor group
 * (docs/model.md "MoE token dispatchers"). nccl-tests size: the gathered
 * tokens, cf x the mean like the all-to-all's. */
static int etp_leg(lctx *c, int t, int expert) {
  int g = add_group(c, XG_GROUP_EP, c->st.etp, 1);
  if (g < 0) return -1;
  double bytes = bytes_gpu(c, t, LAY_REPL) * moe_cf(c);
  int k = comm(c, expert ? COLL_ALL_GATHER : COLL_REDUCE_SCATTER, g, bytes, "",
               expert ? "etp_gather" : "etp_scatter", c->ts[t].task);
  if (k < 0) return -1;
  shared_leg(c, k, c->g->tensors[t].block, expert);
  c->ts[t].task = k;
  return 0;
}

/* Megatron-Core's MoEAlltoAllTokenDispatcher with more than one local
 * expert: the all-to-all delivers the tokens grouped by source rank, then
 * by expert, and the grouped GEMM wants them by local expert, so
 * dispatch_postprocess sorts the chunks ("Permutation 2: Sort tokens by
 * local expert", sort_chunks_by_idxs, after the expert-tensor all-gather)
 * and combine_preprocess restores their order before the combine
 * ("Unpermutation 2"); with padding to capacity the same copy is a
 * transpose (token_dispatcher.py, Megatron-Core 0.12 and later: our
 * reading, the file is not in ../shared). One pass over the rank's
 * received rows, `bytes` of them: read and write, forward and backward (a
 * copy's gradient is the inverse copy), one kernel each way (TE's
 * moe_sort_chunks_by_index under moe_permute_fusion). The allgather and
 * flex dispatchers permute straight into local-expert order (the route
 * op). Tensor t's task becomes the copy; 0, or -1 when out of memory. */
static int ep_sort(lctx *c, int t, int route_op, int expert, double bytes) {
  int k = mem_task(c, expert ? "ep_sort" : "ep_unsort", route_op, 2 * bytes, 1, 1, 1.0,
                   c->ts[t].task);
  if (k < 0) return -1;
  c->ts[t].task = k;
  return 0;
}

/* Move tensor t (each token's top-k copies) to (expert = 1) or from the
 * experts before op reads it: the collective of plan.moe_dispatcher
 * (src/lower/moe_dispatch.c). Tokens split by sequence over a tensor-
 * parallel group whose ranks also split the experts (etp = tp > 1) are
 * dispatched as Megatron-Core does: every rank sends its own shard's
 * copies (alltoall, then the expert-tensor all-gather), or the whole
 * etp x ep expert group gathers them at once (allgather), or DeepEP sends
 * each to all etp ranks of its experts (flex); the experts' output comes
 * back the mirror way, split by sequence again. */
static int experts(lctx *c, int t, int expert) {
  tstate *s = &c->ts[t];
  if (s->expert == expert) return 0;
  s->expert = expert;
  if (c->st.ep <= 1) return 0;
  const sc_plan *p = &c->s->plan;
  const wg_op *r = block_route(c, c->g->tensors[t].block);
  int topk = r && r->topk > 0 ? (int)r->topk : 1, n_exp = r ? (int)r->experts : 0;
  /* etp = tp > 1 with the tokens split by sequence: each rank routes its
   * own shard (the combine undoes what the dispatch did) */
  int split = expert ? s->lay == LAY_SEQ && c->st.etp > 1 : c->etp_split;
  c->etp_split = expert && split;
  /* a graph's expert output that is not partial sums (no row-parallel
   * expert linear last): gathered and re-split by sequence first, no
   * reduce-scatter */
  int scatter = split && !expert && s->lay == LAY_PART;
  if (split && !expert && !scatter && convert(c, t, LAY_SEQ, s->origin)) return -1;
  lay tok = split ? LAY_SEQ : s->lay;
  /* the combine's unsort reads the rank's rows as the experts left them */
  double unsorted = bytes_gpu(c, t, s->lay) * moe_cf(c);
  int sorts = r && p->moe_dispatcher == SC_MOE_ALLTOALL && n_exp / c->st.ep > 1;
  int route_op = r ? (int)(r - c->g->ops) : -1;
  /* the nodes the expert group spans, as the engines lay it out */
  int per = moed_per_node(&c->s->cluster, c->st.ep, c->st.etp);
  /* groups without a group topk: Megatron routes unlimited (plan_moe.c) */
  int limited = p->moe_router_group_topk > 0;
  moed_in in = {p->moe_dispatcher, bytes_gpu(c, t, tok) / topk, topk, n_exp, c->st.ep, per,
                limited ? p->moe_router_groups : 0, p->moe_router_group_topk, moe_cf(c),
                !expert, 1};
  /* a graph's expert layers with no moe_route in their block: nothing
   * routes their tokens, which go all-to-all, one copy each, unlimited */
  if (!r) in.disp = SC_MOE_ALLTOALL, in.groups = in.group_topk = 0;
  /* refused before lowering (plan_moe.c for a transformer's layers,
   * lower_check for a graph's): experts that ep does not divide, routing
   * groups that do not fit this layer's layout */
  assert(!r || (n_exp >= in.ep && n_exp % in.ep == 0));
  assert(!in.groups || (n_exp % in.groups == 0 && topk <= in.group_topk * (n_exp / in.groups)));
  assert(in.disp != SC_MOE_FLEX || !in.groups ||
         (moed_aligned(n_exp, c->st.ep, in.groups) &&
          moed_aligned(n_exp, c->st.ep / per, in.groups)));
  int grp = c->g_ep;
  if (split && in.disp != SC_MOE_ALLTOALL) {
    /* one collective over the etp x ep expert group (etp fastest) */
    grp = add_group(c, XG_GROUP_EP, c->st.ep * c->st.etp, 1);
    if (grp < 0) return -1;
    in.etp = c->st.etp;
  }
  moed_comm mc = moed_shape(&in);
  if (sorts && !expert && ep_sort(c, t, route_op, 0, unsorted)) return -1;
  if (scatter && in.disp == SC_MOE_ALLTOALL && etp_leg(c, t, 0)) return -1;
  if (moe_comm(c, t, &mc, grp, expert)) return -1;
  if (split && in.disp == SC_MOE_ALLTOALL && expert && etp_leg(c, t, 1)) return -1;
  if (split) s->lay = expert ? LAY_REPL : LAY_SEQ;
  if (sorts && expert && ep_sort(c, t, route_op, 1, bytes_gpu(c, t, s->lay) * moe_cf(c)))
    return -1;
  return 0;
}

/* The layout element-wise op `o` runs in: the inputs' common split, after
 * partial sums are reduced (unless the op is linear and all are partial). */
static int common_layout(lctx *c, const wg_op *o, int opi, lay *out) {
  int all_part = 1, any_seq = 0, any_feat = 0;
  for (int i = 0; i < o->n_in; i++) {
    lay l = c->ts[o->in[i]].lay;
    all_part &= l == LAY_PART;
    any_seq |= l == LAY_SEQ;
    any_feat |= l == LAY_FEAT;
  }
  if (all_part && o->linear_fn) {
    *out = LAY_PART;
    return 0;
  }
  lay want = any_feat ? LAY_FEAT : any_seq || c->st.sp ? LAY_SEQ : LAY_REPL;
  if (!any_feat && !any_seq) {
    /* no input is split: run on the whole tensor unless all were
     * partial sums that sequence parallelism reduce-scatters */
    int part = 0;
    for (int i = 0; i < o->n_in; i++) part |= c->ts[o->in[i]].lay == LAY_PART;
    want = part && c->st.sp ? LAY_SEQ : LAY_REPL;
  }
  for (int i = 0; i < o->n_in; i++)
    if (convert(c, o->in[i], want, opi)) return -1;
  *out = want;
  return 0;
}

/* ------------------------------------------------- saved activations */

/* 1 when op runs as a low-precision (fp8/fp4) GEMM: the linear layers and
 * convolutions of the model's layers, not those marked high_precision. */
static int low_precision(const lctx *c, const wg_op *o) {
  return (c->lp == SC_FP8 || c->lp == SC_FP4) && !c->st.hp &&
         (o->kind == WG_LINEAR || o->kind == WG_CONV) &&
         c->g->blocks[o->block].role == WG_ROLE_LAYER && !o->high_precision;
}

/* The fraction of the 16-bit bytes a sequence-parallel gather of op's
 * operand moves when Transformer Engine gathers it quantized (its input
 * in forward and again for the weight gradient, its output gradient in
 * backward: fp8c_gather_bytes, src/cost/fp8cast.c); 0 when it gathers 16
 * bits (no fp8 GEMM, or the block recipe: not modelled). */
static double fp8_gather(const lctx *c, const wg_op *o, fp8c_gather which) {
  if (!low_precision(c, o) || c->lp != SC_FP8) return 0;
  return fp8c_gather_bytes(c->s->plan.fp8_recipe, which) / c->e;
}

/* Bytes v a tensor adds to a kept total: 0 when `shared` (a 16-bit
 * tensor) and already counted there (bit of *kept), marked counted. */
static double once(unsigned *kept, unsigned bit, int shared, double v) {
  if (!shared) return v;
  if (*kept & bit) return 0;
  *kept |= bit;
  return v;
}

/* 1 when op o is a loss the plan runs as one fused softmax cross-entropy
 * kernel on the 16-bit logits (plan.fused_loss, plan.loss "fused"): flash-attn's
 * CrossEntropyLoss (flash_attn/losses/cross_entropy.py over its
 * xentropy_cuda_lib, Apex's softmax-cross-entropy kernel), which
 * llm-foundry's MPT runs as `loss_fn: fused_crossentropy` -- both read in
 * their public sources, not in ../shared, an assumption said so in
 * docs/model.md. Forward: one pass for the row's max and one for the sum
 * of exponentials and the target's logit, over the 16-bit logits, writing
 * an fp32 loss and log-sum-exp per row (2e bytes a logit); it keeps the
 * logits and the log-sum-exp for backward, which reads the logits once and
 * writes their 16-bit gradient (2e): no fp32 copy of the logits, kept or
 * moved. */
static int fused_ce(const lctx *c, const wg_op *o) {
  return o->kind == WG_LOSS && plan_loss_of(&c->s->plan) == SC_LOSS_FUSED;
}

/* Bytes a logit of F.cross_entropy(logits.float(), y) moves (plan.loss
 * "eager"), by ATen's kernels (aten/src/ATen/native/cuda/SoftMax.cu and
 * Loss.cu, recalled: not in ../shared) on e-byte logits. Forward: the
 * cast reads e and writes 4; log_softmax (cunn_SoftMaxForward) reads the
 * row for its max, again for the sum of exponentials, and a third time to
 * write the output: 16; nll_loss reads one logit a row: e + 20. Backward:
 * nll_loss_backward zero-fills its dense fp32 gradient (4) and scatters a
 * value a row; log_softmax's backward (cunn_SoftMaxBackward) reads that
 * gradient for its row sum, then the gradient and the output, writing its
 * own: 16; the cast's backward reads 4 and writes e: 24 + e. Our trace of
 * the BERT step (data/measured/traces_h200/bertbase_amp16_s128_b128, 2,560
 * rows of 30,522 fp16 logits on an H200) ran these kernels in 470 us
 * forward and 525 us backward, 23 and 26 bytes a logit at the preset's
 * memory rate (docs/calibration.md): a check, nothing fitted. Megatron's
 * loss (shape_loss: 38 forward, 14 backward) does its softmax in forward
 * instead. Logits already fp32 (e 4: an fp32 or tf32 plan) are not cast:
 * Tensor.float() returns the tensor itself when its dtype is float32 (no
 * kernel, no autograd node), so 16 bytes forward and 20 backward, one
 * call fewer each way. */
#define EAGER_CE_CAST(e) ((e) < 4 ? (e) + 4.0 : 0.0) /* the cast's bytes, each way */
#define EAGER_CE_FWD(e) (EAGER_CE_CAST(e) + 16.0)
#define EAGER_CE_BWD(e) (20.0 + EAGER_CE_CAST(e))
/* the cast, log_softmax, nll_loss */
#define EAGER_CE_FWD_CALLS(e) ((e) < 4 ? 3 : 2)
/* the NLL's fill and scatter, log_softmax's, the cast's */
#define EAGER_CE_BWD_CALLS(e) ((e) < 4 ? 4 : 3)

/* Bytes per logit the loss's backward allocates beyond what saved()
 * keeps of it between forward and backward (the fp32 softmax, 4; the
 * fused kernel the 16-bit logits, e), by plan.loss (plan_loss_of: "auto"
 * resolved):
 *   - Megatron-Core's vocab-parallel loss turns the kept fp32 softmax
 *     into its gradient in place and casts that to 16 bits: e (the
 *     16-bit logits were dropped after forward: 4 + e at its peak);
 *   - the fused kernel writes the 16-bit gradient beside the kept logits
 *     (flash-attn's cross_entropy.py allocates it unless inplace_backward,
 *     which neither it nor llm-foundry sets by default): e;
 *   - eager F.cross_entropy on logits.float() peaks at 12 bytes a logit
 *     in its backward beside the 16-bit logits (the kept fp32 log-softmax,
 *     the NLL's dense fp32 gradient, the log-softmax's fp32 gradient
 *     input, the logits' gradient; data/measured/loss_mem_h100.csv, exact
 *     at every size), and the loop has dropped the logits after the loss
 *     (torchtitan's `del pred`, Hugging Face's Trainer): 12 against 4
 *     kept, 8. A loop that keeps them (nanoGPT's) holds e more. */
static double loss_bwd_extra(const lctx *c) {
  sc_loss_impl l = plan_loss_of(&c->s->plan);
  assert(l != SC_LOSS_AUTO);
  return l == SC_LOSS_EAGER ? 8 : c->e;
}

/* What a tensor kept for backward weighs on the busiest expert-parallel
 * rank, as a multiple of its mean size: the experts' inputs and outputs
 * (between dispatch and combine) hold the rows the rank received, cf x the
 * mean (moe_cf: the buffers padded to capacity, or the dropless router's
 * busiest rank), as their GEMMs and the all-to-all already count them;
 * any other tensor 1. */
static double expert_rows(const lctx *c, int t) {
  return c->ts[t].expert ? moe_cf(c) : 1.0;
}

/* Bytes op keeps for backward: its saved inputs (as they were before the
 * op gathered them: sequence parallelism re-gathers in backward), output
 * and extras (split as the op's elements were; the experts' tensors at
 * the busiest rank's rows, expert_rows). `before` holds the
 * inputs' layouts before conversion. act_sel: what it
 * keeps under the plan's selective recompute modules (recmod.h): nothing
 * inside an enabled module, which keeps its inputs (16-bit) instead;
 * nothing discarded by an output-discarding one. */
static void saved(lctx *c, int opi, const wg_op *o, const lay *before, lay out) {
  double b = 0, extra = 0, keep = 0;
  int inside = rm_inside(c->g, opi, c->en);
  /* Transformer Engine keeps the fp8 cast of a low-precision GEMM's input
   * for its weight gradient: one byte an element instead of two (NVFP4
   * recipes keep the same fp8 copy) */
  double in_scale = low_precision(c, o) ? 0.5 : 1.0;
  for (int i = 0; i < o->n_in; i++) {
    double x = bytes_gpu(c, o->in[i], before[i]), y = bytes_gpu(c, o->in[i], c->ts[o->in[i]].lay);
    /* an expert keeps what the dispatcher delivered (its gather is not
     * the linear's own, so backward does not re-gather) */
    if (o->expert) x = y;
    double v = (x < y ? x : y) * expert_rows(c, o->in[i]);
    unsigned *kept = &c->ts[o->in[i]].kept;
    if (inside && rm_keeps_input(c->g, opi, i, c->en)) keep += once(kept, TS_KEPT_SEL, 1, v);
    if (!(o->saved & WG_SAVE_IN(i))) continue;
    int bits16 = in_scale == 1.0;
    b += once(kept, TS_KEPT_ALL, bits16, v * in_scale);
    if (!inside && !rm_discarded(c->g, o->in[i], c->en))
      keep += once(kept, TS_KEPT_SEL, bits16, v * in_scale);
  }
  if (o->saved & WG_SAVE_OUT) {
    double v = bytes_gpu(c, o->out, out) * expert_rows(c, o->out);
    unsigned *kept = &c->ts[o->out].kept;
    b += once(kept, TS_KEPT_ALL, 1, v);
    if (!inside && !rm_discarded(c->g, o->out, c->en)) keep += once(kept, TS_KEPT_SEL, 1, v);
  }
  if (o->saved_elems > 0 && !(o->kind == WG_ATTENTION && c->flash)) {
    double n = o->saved_elems * c->mb / c->cpdiv;
    if (c->run_lay == LAY_SEQ || c->run_lay == LAY_FEAT) n /= c->st.tp;
    /* the fused loss keeps the 16-bit logits alone (the log-sum-exp, 4
     * bytes a row, 1/vocab of them, is not counted) */
    extra = n * (fused_ce(c, o) ? c->e : o->saved_e * c->e + o->saved_b);
    if (o->kind == WG_LOSS) c->bwd_extra += n * loss_bwd_extra(c);
  }
  c->act += b + extra;
  c->act_sel += keep + (inside ? 0 : extra);
}

/* Parameters op holds on one GPU: the convention of the step model since
 * its first version, kept so that predictions stay comparable: every
 * parameter is divided by tp (Megatron-LM in fact replicates norms,
 * row-parallel biases and learned position embeddings over the tensor-
 * parallel group; counting them replicated moves some published rows by
 * up to 0.2 %, a modelling change left to its own measurement), experts
 * further by ep. */
static void params(lctx *c, const wg_op *o) {
  /* experts are split by the expert tensor parallelism (tp or 1) */
  double p = o->params / (o->expert ? c->st.etp : c->st.tp);
  if (o->expert) p /= c->st.ep;
  if (o->tied) c->tied += p;
  else c->params += p;
  if (o->expert && !o->tied) c->params_expert += p;
  if (low_precision(c, o)) c->params_lp += p;
  if (o->kind == WG_LINEAR || o->kind == WG_CONV) c->params_cast += p;
}

/* ------------------------------------------------------ operators */

/* 1 when o is a router: an unsplit linear whose output a route op of its
 * block reads as its scores. */
static int is_router(const lctx *c, const wg_op *o) {
  if (o->kind != WG_LINEAR || o->tp != WG_TP_NONE) return 0;
  const wg_block *bl = &c->g->blocks[o->block];
  for (int i = bl->first_op; i < bl->first_op + bl->n_ops; i++)
    if (c->g->ops[i].kind == WG_ROUTE && c->g->ops[i].n_in > 1 && c->g->ops[i].in[1] == o->out)
      return 1;
  return 0;
}

/* With tp > 1 the router runs on the tokens the rank holds (its sequence
 * shard under sequence parallelism) and the dispatcher moves them
 * (experts()); no tensor-parallel gather before it (Megatron-Core's
 * MoELayer routes the sequence-parallel hidden states). Under expert
 * tensor parallelism 1 (MoE parallel folding) the experts are token-local
 * too, with whole expert weights; under etp = tp they are split like the
 * layer's MLP. The ops: expert linears (etp 1), the route op, and the
 * router (the linear whose output a route op reads). */
static int token_local(const lctx *c, const wg_op *o) {
  if (c->st.tp <= 1) return 0;
  if (o->kind == WG_LINEAR && o->expert) return c->st.etp == 1;
  if (o->kind == WG_ROUTE) return 1;
  return is_router(c, o);
}

/* The layout a token-local op runs its input in: as it is when split by
 * sequence or whole, else whole. */
static lay local_layout(const lctx *c, int t) {
  return c->ts[t].lay == LAY_SEQ ? LAY_SEQ : LAY_REPL;
}

/* Transformer Engine's quantization of one fp8 GEMM's activation operands
 * (src/cost/fp8cast.c): a memory-bound task before the GEMM, forward the
 * input's x_elems, backward the output gradient's dy_elems, plus delayed
 * scaling's amax-history update. The input is norm-fed when a norm op
 * produced it (TE's LayerNormLinear fuses the cast into the norm);
 * `gathered` when sequence parallelism gathers it; the output gradient of
 * a row-parallel linear is gathered in backward under sequence
 * parallelism. The weight's cast is per step (engine/analytic.c). */
static int fp8_casts(lctx *c, const wg_op *o, int opi, double x_elems, double dy_elems,
                     int gathered, int local, int dep) {
  sc_fp8_recipe r = c->s->plan.fp8_recipe;
  int tn = c->s->cluster.gpu.arch < 100;
  const wg_tensor *xt = &c->g->tensors[o->in[0]];
  const wg_op *p = xt->producer >= 0 ? &c->g->ops[xt->producer] : NULL;
  /* a norm whose only reader is this linear (TE's LayerNormLinear) */
  int norm = p && p->kind == WG_NORM && xt->uses == 1 &&
             (p->fn == WG_FN_LAYERNORM || p->fn == WG_FN_RMSNORM);
  fp8c_operand in = {c->e, norm, gathered, c->st.tp, tn};
  fp8c_operand dy = {c->e, 0, !local && o->tp == WG_TP_ROW && c->st.sp, c->st.tp, tn};
  fp8c_cost fi = fp8c_activation(r, &in), fb = fp8c_activation(r, &dy);
  double f = x_elems * fi.bytes + fp8c_history_bytes(r, 1);
  double b = dy_elems * fb.bytes + fp8c_history_bytes(r, 0);
  if (fi.norm != 0) {
    /* the norm writes the fp8 copy: its forward traffic changes, its
     * backward stays */
    xg_task *nt = dep >= 0 ? &c->x->tasks[c->seg_first + dep] : NULL;
    double nb = nt && nt->kind == XG_MEM && nt->op == xt->producer ? nt->bytes : 0;
    if (nb > 0 && nb + x_elems * fi.norm > 0) { /* fi.norm <= 0: the norm writes less */
      nt->bwd_scale *= nb / (nb + x_elems * fi.norm);
      nt->bytes = nb + x_elems * fi.norm;
    } else {
      f += x_elems * fi.norm; /* not found: counted with the cast */
    }
  }
  assert(f > 0);
  return mem_task_p(c, "cast_", o->name, opi, f, fi.launches, fb.launches, b / f, dep);
}

/* Collective k (segment-relative) runs beside the weight gradient of
 * GEMM g in backward; g hides no other. */
static void hide_under(lctx *c, int k, int g) {
  xg_task *ct = &c->x->tasks[c->seg_first + k], *gt = &c->x->tasks[c->seg_first + g];
  if (ct->kind != XG_COMM || ct->group != c->g_tp || ct->overlap != XG_OVL_NONE || gt->wgrad)
    return;
  ct->overlap = XG_OVL_WGRAD;
  ct->wgrad = g;
  gt->wgrad = 1;
}

/* 1 when task t is the GEMM of a column-parallel linear split over the
 * tensor-parallel group (the vocabulary's too), no weight gradient of
 * which hides a collective yet. */
static int free_column(const lctx *c, const xg_task *t) {
  if (t->kind != XG_GEMM || t->op < 0 || t->wgrad) return 0;
  const wg_op *o = &c->g->ops[t->op];
  return o->kind == WG_LINEAR && (o->tp == WG_TP_COLUMN || o->tp == WG_TP_VOCAB) && !o->expert &&
         !token_local(c, o);
}

/* The first free column-parallel GEMM of tasks [from, to) of the
 * segment, or -1. */
static int next_column(const lctx *c, int from, int to) {
  for (int j = from; j < to; j++)
    if (free_column(c, &c->x->tasks[c->seg_first + j])) return j;
  return -1;
}

/* At a segment's end, the all-reduces of partial sums marked for
 * plan.tp_async_bwd (convert) get the column-parallel GEMM whose input
 * gradient their backward reduces: Megatron's layer reduces the
 * attention's output (ar after the output projection) and hands it,
 * through the residual add and the norm, to the MLP's first linear, and
 * the MLP's output to the next layer's QKV. So each takes the first free
 * column-parallel GEMM after it in forward order, else (the last of a
 * layer) the first of the segment: in a run of layers, the next layer's,
 * which is the same GEMM. One with none left blocks, as before. */
static void pair_wgrad(lctx *c) {
  int n = c->x->n_tasks - c->seg_first;
  for (int i = 0; i < n; i++) {
    xg_task *t = &c->x->tasks[c->seg_first + i];
    if (t->kind != XG_COMM || t->overlap != XG_OVL_WGRAD || t->wgrad >= 0) continue;
    int g = next_column(c, i + 1, n);
    if (g < 0) g = next_column(c, 0, i);
    t->overlap = XG_OVL_NONE, t->wgrad = 0;
    if (g >= 0) hide_under(c, i, g);
  }
}

/* The vocabulary's columns this rank's GEMM runs: Megatron-LM pads the
 * vocabulary to a multiple of --make-vocab-size-divisible-by x tp
 * (default 128: ../shared/reference/megatron-lm megatron/training/
 * arguments.py, "Pad the vocab size to be divisible by this value. This
 * is added for computational efficieny reasons.") so that every rank's
 * share is whole and its GEMMs aligned; plan.vocab_multiple, 0 = the
 * framework's: Megatron's 128 for the transformer builder's models and
 * graphs (a scenario setting, the same for every plan a search lowers:
 * FSDP frameworks that keep the model's vocabulary set 1, as validate
 * does for ZeRO-3 rows), none for BERT (google-research's and Hugging
 * Face's keep 30,522) and CNNs; a share that tp does not divide is
 * rounded up to whole columns. The loss reads the padded logits. */
static double vocab_cols(const lctx *c, double vocab) {
  int mult = c->s->plan.vocab_multiple;
  if (mult <= 0)
    mult = c->s->model.kind == SC_MODEL_TRANSFORMER || c->s->model.kind == SC_MODEL_GRAPH ? 128 : 1;
  double step = (double)mult * c->st.tp;
  return ceil(vocab / step) * step / c->st.tp;
}

/* A torch.nn linear's bias gradient (plan_torch_nn): autograd reduces the
 * output gradient's dy e-byte values over the rows to the bias's, one
 * read in a reduce kernel of its own (our H200 BERT trace: one
 * at::native::reduce_kernel per nn.Linear in backward), after the GEMM
 * whose epilogue added the bias in forward. Backward only: the task
 * carries the kernel's seconds as xg_task n (cost_mem of its bytes less
 * the fixed cost the engine adds) and no bytes, so forward costs nothing.
 * Beside the GEMM task `dep`, which stays the output's. */
static int bias_grad_task(lctx *c, const wg_op *o, int opi, double dy, int dep) {
  xg_task t = task(XG_MEM, "bgrad_", o->name, opi);
  t.n = cost_mem(&c->s->cluster.gpu, dy * c->e) - COST_KERNEL_T0;
  t.host_fwd = 0;
  t.host_bwd = 1;
  t.dep[0] = dep;
  return emit(c, &t);
}

static int lower_linear(lctx *c, const wg_op *o, int opi) {
  int x = o->in[0], local = token_local(c, o);
  lay want = local ? local_layout(c, x) : o->tp == WG_TP_ROW ? LAY_FEAT : LAY_REPL;
  /* sequence parallelism gathers the input of a column-parallel linear */
  int gathered = c->ts[x].lay == LAY_SEQ && want == LAY_REPL && !o->expert;
  const wg_tensor *in = &c->g->tensors[x];
  double m = rows_gpu(c, x, local ? want : LAY_REPL), k = (double)in->dim[in->rank - 1],
         n = (double)o->features, batch = 1;
  if (!local && o->tp == WG_TP_COLUMN) n /= c->st.tp;
  if (!local && o->tp == WG_TP_VOCAB) n = vocab_cols(c, n);
  if (!local && o->tp == WG_TP_ROW) k /= c->st.tp;
  if (o->expert) {
    batch = (double)o->experts / c->st.ep;
    m = m / batch * moe_cf(c);
  }
  double x_elems = m * k * batch, dy_elems = m * n * batch;
  int fp8 = low_precision(c, o) && c->lp == SC_FP8;
  if (fp8 && gathered) {
    /* TE quantizes the local shard, then gathers fp8: the cast comes
     * before the all-gather */
    int q = fp8_casts(c, o, opi, x_elems, dy_elems, gathered, local, c->ts[x].task);
    if (q < 0) return -1;
    c->ts[x].task = q;
  }
  /* the dispatcher moves an expert's input first (its expert-tensor
   * all-gather included), then the layout it runs in is there */
  if ((o->expert && experts(c, x, 1)) || convert(c, x, want, opi)) return -1;
  int dep = c->ts[x].task, gather = gathered ? dep : -1;
  if (gathered && fp8_gather(c, o, FP8C_AG_INPUT) > 0 && dep >= 0) {
    /* the forward all-gather and the weight gradient's re-gather carry
     * the quantized copies; backward's reduce-scatter of the data
     * gradient stays 16-bit */
    xg_task *ag = &c->x->tasks[c->seg_first + dep];
    if (ag->kind == XG_COMM && ag->coll == COLL_ALL_GATHER) {
      ag->comm_scale[0] = fp8_gather(c, o, FP8C_AG_INPUT);
      ag->comm_scale[2] = fp8_gather(c, o, FP8C_AG_REGATHER);
    }
  }
  if (fp8 && !gathered) {
    dep = fp8_casts(c, o, opi, x_elems, dy_elems, gathered, local, dep);
    if (dep < 0) return -1;
  } else if (low_precision(c, o) && c->lp == SC_FP4 &&
             c->s->plan.fp8_recipe == SC_FP8_CURRENT) {
    /* fp4 with current scaling: an amax pass reads the operand (16-bit)
     * before its fused cast, forward (x) and backward (the output
     * gradient); NVFP4's quantization kernels are not modelled */
    dep = mem_task_p(c, "amax_", o->name, opi, x_elems * c->e, 1, 1, dy_elems / x_elems, dep);
    if (dep < 0) return -1;
  }
  /* without grouped GEMM (Megatron's SequentialMLP) each local expert
   * runs its own GEMMs: batch separate launches (analytic.c costs them
   * one by one) */
  int calls = o->expert && !c->s->plan.moe_grouped_gemm ? (int)batch : 1;
  int fp32_router = c->s->plan.moe_router_fp32 && c->e < 4 && is_router(c, o);
  if (fp32_router) {
    /* Megatron's RouterGatingLinearFunction (--moe-router-dtype fp32)
     * casts the input to fp32 (read e, write 4 bytes an element; its
     * gradient cast back the same bytes) and multiplies in fp32: the
     * CUDA-core rate, PyTorch leaving TF32 off for matmuls */
    dep = mem_task_p(c, "cast_", o->name, opi, x_elems * (c->e + 4), 1, 1, 1.0, dep);
    if (dep < 0) return -1;
  }
  int t = gemm_task(c, o->name, opi, m, n, k, batch, o->host_fwd * calls, o->host_bwd * calls,
                    dep);
  if (t < 0) return -1;
  if (fp32_router) c->x->tasks[c->seg_first + t].dtype = SC_FP32;
  /* Transformer Engine's linear layers run the plan's type (fp8: forward,
   * data and weight gradients); the rest of the model stays in 16 bits */
  if (low_precision(c, o)) c->x->tasks[c->seg_first + t].dtype = c->lp;
  /* sequence parallelism: the gather's backward, the reduce-scatter of
   * this linear's input gradient, runs beside its weight gradient */
  if (gather >= 0 && async_bwd(c)) hide_under(c, gather, t);
  if (o->bias && plan_torch_nn(&c->s->plan) && bias_grad_task(c, o, opi, dy_elems, t) < 0)
    return -1;
  tstate *y = &c->ts[o->out];
  y->task = t;
  y->expert = o->expert;
  y->origin = opi;
  y->lay = local                               ? want
           : c->st.tp <= 1 || o->tp == WG_TP_NONE ? LAY_REPL
           : o->tp == WG_TP_ROW                 ? LAY_PART
                                                : LAY_FEAT;
  return 0;
}

/* Megatron's fused scale-mask-softmax runs only where its kernel applies
 * (megatron/model/fused_softmax.py FusedScaleMaskSoftmax.is_kernel_available,
 * and get_batch_per_block of megatron/fused_kernels/scaled_masked_softmax.h):
 * 16-bit input, 16 < s_kv <= 4096, s_q and s_kv multiples of 4, and the
 * attention batches (sequences x heads on this GPU) a multiple of 4 and,
 * with a causal mask, of the batches one 128-thread block holds (else s_q
 * a multiple of it). The 4096 is the limit of the Megatron generation
 * vTrain's Megatron-DeepSpeed ran; later Megatron-LM raised it, which only
 * matters for unfused attention beyond 4096 tokens. */
static int fused_softmax_fits(const lctx *c, double batches, double sq, double skv, int causal) {
  if (c->e > 2 || skv <= 16 || skv > 4096 || fmod(sq, 4) != 0 || fmod(skv, 4) != 0 ||
      fmod(batches, 4) != 0)
    return 0;
  double pow2 = 1;
  while (pow2 < skv) pow2 *= 2;
  double warp = pow2 < 32 ? pow2 : 32, per_block = 128 / warp * (pow2 <= 128 ? 2 : 1);
  return fmod(causal ? batches : sq, per_block) == 0;
}

/* BERT's element-wise ops where each is its own kernel
 * (plan.fused_kernels false), as the reference code of the BERT builder,
 * google-research/bert modeling.py, writes them for TensorFlow 1.x; passes
 * over the tensor (a read or a write of every element at the activation
 * width e; a bool mask 1 byte), counted op by op. The additions'
 * gradients pass through (no kernel); constants get none.
 *
 * GELU, after the dense layer's own BiasAdd:
 *   cdf = 0.5 * (1.0 + tf.tanh(sqrt(2 / pi) * (x + 0.044715 * tf.pow(x, 3))))
 *   return x * cdf
 *   forward   BiasAdd 2, Pow 2, Mul 2, Add 3, Mul 2, Tanh 2, Add 2, Mul 2,
 *             Mul 3: 20 passes in 9 kernels (fused: 2);
 *   backward  the product's two gradients 3 + 3, Mul 2, TanhGrad 3, Mul 2,
 *             Mul 2, Pow's gradient grad * 3 * pow(x, 2) (TF's PowGrad: pow,
 *             scalar mul, mul) 2 + 2 + 3, the AddN of x's three gradients
 *             4, BiasAddGrad's read 1: 27 passes in 11 kernels (fused: 4).
 * Dropout, tf.nn.dropout (TensorFlow 1.14+ dropout_v2: a uniform random
 * tensor in x's dtype, keep_mask = random >= rate, x * scale *
 * cast(keep_mask)):
 *   forward   RandomUniform 1, GreaterEqual 1 + 1 byte, Mul 2, Cast 1 byte
 *             + 1, Mul 3: 8 passes and 2 bytes in 5 kernels;
 *   backward  grad * cast(mask) 3, * scale 2: 5 passes in 2 kernels.
 * Bias, dropout and residual add (the dense output's BiasAdd, dropout,
 * then `+ layer_input` before the LayerNorm): forward 2 + 8 + 3 = 13
 * passes and 2 bytes in 7 kernels; backward the dropout's 5, BiasAddGrad's
 * read 1 and the AddN where the residual's gradient meets the other
 * branch 3: 9 passes in 4 kernels (fused: 3 passes and the 1-byte mask,
 * each way).
 * Under AMP (plan.amp) these chains run in fp32, as TensorFlow's AMP
 * graph rewrite (grappler auto_mixed_precision, TF 1.14+) leaves them: it
 * runs an op in fp16 only where it paints it "white" -- MatMul and the
 * like, and the gray ops (Add, Mul, Sub, RealDiv, Tanh, BiasAdd, ...)
 * found between white ops -- and paints "black" (fp32) every gray op on a
 * forward path from a deny-listed op (Pow, Mean, Softmax, ...). BERT's
 * GELU follows its Pow, the residual adds and the dropouts before them
 * lead into the LayerNorm's Means and follow the previous LayerNorm, the
 * attention's scale, mask and dropout surround its Softmax: none is
 * between white ops, all run fp32, forward and backward (an assumption
 * for the gradient ops, which the pass paints by the same lists). The
 * casts: the norms' and the softmax's islands (cost/amp.h) already cast
 * into and out of the fp32 regions that hold the dropouts, the residual
 * adds, the scale and the mask; the GELU's region, between fc1's MatMul
 * and fc2's, adds its own two casts each way. The pooler's tanh, built
 * as a GELU-cost kernel (bert.c), takes the GELU count on its batch x
 * hidden elements: negligible. */
typedef struct bert_chain {
  double fwd_e, fwd_b; /* forward bytes per element: fwd_e e + fwd_b */
  double bwd_e;        /* backward bytes per element: bwd_e e */
  int hf, hb;          /* kernels forward, backward */
  int amp_casts;       /* casts each way of its own fp32 region under AMP */
} bert_chain;
static const bert_chain BERT_GELU = {20, 0, 27, 9, 11, 2};
static const bert_chain BERT_DROPOUT = {8, 2, 5, 5, 2, 0};
static const bert_chain BERT_BIAS_DROPOUT_ADD = {13, 2, 9, 7, 4, 0};
#define BERT_FP32 4.0

/* Bytes of an element of an unfused BERT chain: fp32 under AMP (above),
 * else the activation width. */
static double chain_width(const lctx *c) { return amp_on(&c->s->plan) && c->e < 4 ? BERT_FP32 : c->e; }

/* 1 when a BERT model's GELU and dropouts run as modeling.py's TensorFlow
 * ops: plan.fused_kernels false, but not in a torch.nn model
 * (plan_torch_nn: F.gelu, F.dropout and the add, torch_nn_unfused). */
static int bert_tf_ops(const lctx *c) {
  return c->s->model.kind == SC_MODEL_BERT && !c->s->plan.fused_kernels &&
         !plan_torch_nn(&c->s->plan);
}

/* The chain of o when the plan runs BERT unfused, else NULL. */
static const bert_chain *bert_unfused_chain(const lctx *c, const wg_op *o) {
  if (!bert_tf_ops(c) || o->kind != WG_ELTWISE) return NULL;
  if (o->fn == WG_FN_GELU) return &BERT_GELU;
  if (o->fn == WG_FN_BIAS_DROPOUT_ADD && !o->no_dropout) return &BERT_BIAS_DROPOUT_ADD;
  if (o->fn == WG_FN_DROPOUT) return &BERT_DROPOUT;
  return NULL;
}

/* Chain k over n elements: forward bytes (returned), backward over
 * forward (*bs), kernels (*hf, *hb), with AMP's fp32 width and casts. */
static double chain_cost(const lctx *c, const bert_chain *k, double n, double *bs, int *hf,
                         int *hb) {
  double w = chain_width(c);
  int casts = w > c->e ? k->amp_casts : 0;
  double cast = casts * n * (c->e + BERT_FP32);
  double f = n * (k->fwd_e * w + k->fwd_b) + cast, b = n * k->bwd_e * w + cast;
  *bs = b / f;
  *hf = k->hf + casts, *hb = k->hb + casts;
  return f;
}

/* A memory task of n elements costed as chain k. */
static int chain_task(lctx *c, const char *name, int opi, double n, const bert_chain *k, int dep) {
  double bs;
  int hf, hb;
  double f = chain_cost(c, k, n, &bs, &hf, &hb);
  return mem_task(c, name, opi, f, hf, hb, bs, dep);
}

/* BERT's attention scores before the softmax, where the framework runs
 * each element-wise op as its own kernel (plan.fused_kernels false): the
 * reference attention_layer (google-research/bert modeling.py, which the
 * BERT builder and the BERT implementations it names follow: NVIDIA's
 * PyTorch `attention_scores / math.sqrt(...)` then `+ attention_mask`)
 * scales the scores by 1/sqrt(head_dim) and adds the mask's large negative
 * adder in two ops before tf.nn.softmax. Two kernels forward, each reading
 * and writing every score at the chain width (chain_width: fp32 under
 * AMP, inside the softmax's fp32 region); backward only the scale's (the
 * add passes its gradient through): one kernel, 2 passes. Not counted:
 * modeling.py's mask is [batch, 1, from_seq, to_seq], 1/heads of the
 * scores, and each layer recomputes its adder (1 - mask) x -10000 (Sub,
 * Mul) before the add reads it: about 5 / heads more passes of the
 * scores forward, 0.3-0.4 of a pass at 12-16 heads. Fused kernels (Megatron's
 * scale-mask-softmax, XLA's fusion) fold both into the softmax. Returns
 * dep itself where nothing is added. */
static int bert_scale_mask_task(lctx *c, int opi, double scores, int dep) {
  if (c->s->model.kind != SC_MODEL_BERT || c->s->plan.fused_kernels) return dep;
  return mem_task(c, "attn_scale_mask", opi, scores * 4 * chain_width(c), 2, 1, 0.5, dep);
}

/* The attention softmax task: the fused kernel (reads and writes the 16-bit
 * scores; backward reads the output and its gradient), or where it does not
 * apply Megatron's PyTorch path (forward_torch_softmax): scores cast to
 * fp32 (attention_softmax_in_fp32, forced by the default
 * apply_query_key_layer_scaling), scaled, masked_fill_, softmax and cast
 * back, each a kernel and a framework call (one more forward call for the
 * availability check); fp32 runs skip the casts. Bytes per score element
 * (e = 2): forward 6 + 8 + 8 + 8 x 1.33 + 6 = 38.6, backward 6 + 12 x 1.74
 * + 8 + 8 + 6 = 48.9, torch.softmax's passes as measured (cost/softmax.h). */
static int softmax_task(lctx *c, int opi, double batches, double sq, double skv, int causal,
                        int dep) {
  double scores = batches * sq * skv, e = c->e;
  /* the rule is Megatron's: the transformer builder's layer is Megatron-LM's
   * (docs/model.md); the other builders' frameworks run their own one-kernel
   * softmax (torch.softmax), whose time is measured (cost/softmax.h) */
  int framework = c->s->model.kind != SC_MODEL_TRANSFORMER;
  if (framework || fused_softmax_fits(c, batches, sq, skv, causal)) {
    /* passes a score forward and backward over forward: Megatron's fused
     * kernel by its traffic, the framework's torch.softmax as measured
     * (cost/softmax.h) */
    double fe = framework ? smx_fwd_bytes(1, 1) : 2;
    double bs = framework ? smx_bwd_bytes(1, 1) / fe : 1.5;
    if (!amp_on(&c->s->plan)) return mem_task(c, "softmax", opi, scores * e * fe, 3, 2, bs, dep);
    /* AMP's fp32 list: softmax in fp32 between two casts (cost/amp.h) */
    int casts;
    double f = amp_island_bytes(scores, fe, e, &bs, &casts);
    return mem_task(c, "softmax", opi, f, 3 + casts, 2 + casts, bs, dep);
  }
  int casts = e < 4;
  double f = casts ? 4 : e, cast = casts ? 2 * (e + 4) : 0;
  /* scale and masked_fill_ 2 passes each way each, torch.softmax as
   * measured (cost/softmax.h) */
  double fwd = 4 * f + smx_fwd_bytes(1, f) + cast, bwd = 4 * f + smx_bwd_bytes(1, f) + cast;
  int kernels = 3 + 2 * casts;
  return mem_task(c, "softmax_torch", opi, scores * fwd, kernels + 1, kernels, bwd / fwd, dep);
}

/* The attention operator as the plan's kernels. */
static int lower_attention(lctx *c, const wg_op *o, int opi) {
  int x = o->in[0];
  if (convert(c, x, LAY_FEAT, opi)) return -1;
  double tp = c->st.tp, b = c->mb, cp = c->st.cp;
  double sl = (double)c->g->tensors[x].dim[0] / c->cpdiv, skv = (double)c->g->tensors[x].dim[0];
  double hq = (double)o->heads / tp, hkv = (double)o->kv_heads / tp, d = (double)o->head_dim;
  double dv = o->v_head_dim > 0 ? (double)o->v_head_dim : d; /* MLA: v narrower than q, k */
  double e = c->e;
  int dep = c->ts[x].task;
  /* the kernels are Megatron's core attention ("core_attn" module) */
  int core = (rm_bits(c->g, opi, c->en) & SC_RECMOD_CORE_ATTN) != 0;
  int t = dep;
  if (!o->separate_qkv &&
      (t = mem_task(c, "qkv_layout", opi, 2 * elems_gpu(c, x, LAY_FEAT) * e, c->flash ? 5 : 13,
                    c->flash ? 3 : 6, 1.0, dep)) < 0)
    return -1;
  if (cp > 1) {
    /* K and V chunks travel around the context-parallel ring, hidden
     * under the attention that follows */
    int r = comm(c, COLL_SEND_RECV, c->g_cp, b * sl * hkv * (d + dv) * e * (cp - 1), "",
                 "cp_kv_ring", t);
    if (r < 0) return -1;
    c->x->tasks[c->seg_first + r].overlap = XG_OVL_NEXT;
    c->x->tasks[c->seg_first + r].stream = XG_STREAM_COMM;
  }
  if (c->flash) {
    xg_task a = task(XG_ATTN, "", "flash_attn", opi);
    a.dtype = c->hp;
    a.batch = b * hq;
    a.sq = sl;
    a.d = d;
    a.causal = o->causal;
    a.flops = o->flops * b / (tp * c->cpdiv);
    a.bwd_scale = o->bwd_scale;
    a.recompute_sel = core;
    a.host_fwd = a.host_bwd = 3;
    a.dep[0] = t;
    if ((t = emit(c, &a)) < 0) return -1;
  } else {
    double scores = b * hq * sl * skv;
    if ((t = gemm_task(c, "attn_qk", opi, sl, skv, d, b * hq, 2, 3, t)) < 0) return -1;
    c->x->tasks[c->seg_first + t].recompute_sel += core;
    int sm = bert_scale_mask_task(c, opi, scores, t);
    if (sm < 0) return -1;
    if (sm != t) c->x->tasks[c->seg_first + sm].recompute_sel += core;
    t = sm;
    if ((t = softmax_task(c, opi, b * hq, sl, skv, o->causal, t)) < 0) return -1;
    c->x->tasks[c->seg_first + t].recompute_sel += core;
    if (!o->no_dropout) {
      t = bert_tf_ops(c) ? chain_task(c, "attn_dropout", opi, scores, &BERT_DROPOUT, t)
               : mem_task(c, "attn_dropout", opi, scores * (2 * e + 1), 4, 2, 1.0, t);
      if (t < 0) return -1;
      c->x->tasks[c->seg_first + t].recompute_sel += core;
    }
    if ((t = gemm_task(c, "attn_av", opi, sl, dv, skv, b * hq, 4, 3, t)) < 0) return -1;
    c->x->tasks[c->seg_first + t].recompute_sel += core;
  }
  tstate *y = &c->ts[o->out];
  y->lay = c->run_lay = c->st.tp > 1 ? LAY_FEAT : LAY_REPL;
  if (!o->separate_qkv &&
      (t = mem_task(c, "ctx_layout", opi, 2 * elems_gpu(c, o->out, y->lay) * e, 3, 2, 1.0, t)) < 0)
    return -1;
  y->task = t;
  y->origin = opi;
  return 0;
}

/* unfused for a torch.nn model (plan_torch_nn): the linear before a
 * bias-GELU or bias-dropout-add ran its bias in the GEMM's epilogue, so
 * forward has no bias kernel, and the bias's gradient is the linear's
 * own task (bias_grad_task). Passes of e bytes, the fused op's (which
 * counts the bias's reduction) in brackets:
 *   GELU           forward F.gelu 2 (2); backward GELU's 3 (4);
 *   dropout + add  forward F.dropout 2 and its 1-byte mask, the residual
 *                  add 3: 5e + 1 (3e + 1); backward the dropout's 2e + 1
 *                  and the add where the residual's gradient meets the
 *                  branch's 3e: 5e + 1 (3e + 1);
 *   add (no dropout) forward 3 (3); backward 3 (3).
 * 1 when o is one of these (SwiGLU has no bias inside: Megatron's count). */
static int torch_nn_unfused(const lctx *c, const wg_op *o, double *traffic, double *bwd,
                            int *kernels) {
  double e = c->e;
  if (o->fn == WG_FN_GELU) {
    *bwd = 3.0 / 4.0;
    return 1;
  }
  if (o->fn != WG_FN_BIAS_DROPOUT_ADD) return 0;
  if (!o->no_dropout) *traffic = (5 * e + 1) / (3 * e + 1), *kernels = 2;
  return 1;
}

/* Without fused kernels (plan.fused_kernels false) an element-wise op
 * runs as the separate PyTorch kernels Megatron's fusions replace
 * (megatron/core/fusions: bias_gelu, bias_dropout_add, bias_swiglu):
 * bias add + GELU (2 kernels, twice the traffic), bias add + dropout +
 * residual add (3 kernels; 8 tensor passes against the fused 4), SiLU
 * then multiply (2 kernels; 5 passes against 3). At a dropout rate of 0
 * bias-dropout-add is bias add + residual add (2 kernels; 5 passes
 * against 3). *traffic and *kernels are the factors; *bwd multiplies the
 * op's backward factor. A torch.nn model's linear layers add the bias in
 * their GEMM (plan_torch_nn): torch_nn_unfused. */
static void unfused(const lctx *c, const wg_op *o, double *traffic, double *bwd, int *kernels) {
  *traffic = 1, *bwd = 1, *kernels = 1;
  if (c->s->plan.fused_kernels || o->kind != WG_ELTWISE) return;
  if (plan_torch_nn(&c->s->plan) && torch_nn_unfused(c, o, traffic, bwd, kernels)) return;
  switch (o->fn) {
  case WG_FN_GELU: *traffic = 2, *kernels = 2; break;
  case WG_FN_BIAS_DROPOUT_ADD:
    *traffic = o->no_dropout ? 5.0 / 3.0 : 2, *kernels = o->no_dropout ? 2 : 3;
    break;
  case WG_FN_SWIGLU: *traffic = 5.0 / 3.0, *kernels = 2; break;
  default: break;
  }
}

/* 1 when o runs as an fp32 island of automatic mixed precision: a layer
 * or RMS norm (on the fp32 lists of autocast, apex O1 and TensorFlow's
 * AMP; batch norm takes fp16 in cuDNN under every AMP) in a plan whose
 * activations are 16-bit. */
static int amp_island(const lctx *c, const wg_op *o) {
  return amp_on(&c->s->plan) && c->e < 4 && o->kind == WG_NORM &&
         (o->fn == WG_FN_LAYERNORM || o->fn == WG_FN_RMSNORM);
}

/* A windowed pool of an eager PyTorch plan (plan.framework_eager) runs
 * ATen's own kernels (cost/pool.h): the seconds of its forward (*fwd) and
 * backward (*bwd), which the task carries (xg_task m and n) beside its
 * bytes. Global pooling (kernel 0: adaptive average pooling, a
 * reduction) and the graph frameworks' cuDNN pooling keep their passes:
 * 0 seconds, costed by bytes. */
static void aten_pool(const lctx *c, const wg_op *o, double *fwd, double *bwd) {
  *fwd = *bwd = 0;
  if (o->kind != WG_POOL || o->kernel == 0 || !c->s->plan.framework_eager) return;
  const sc_gpu *g = &c->s->cluster.gpu;
  double per = c->mb / c->cpdiv;
  cost_pool p = {o->fn == WG_FN_MAX, o->kernel, o->kernel_w > 0 ? o->kernel_w : o->kernel,
                 o->stride, c->s->plan.channels_last,
                 wg_tensor_elems(&c->g->tensors[o->in[0]]) * per,
                 wg_tensor_elems(&c->g->tensors[o->out]) * per, c->e};
  cost_pool_aten(g, &p, fwd, bwd); /* leaves 0 where g has no SM rate */
}

/* 1 when o is a routing op (permute or unpermute) run by Transformer
 * Engine's fused kernels (plan.moe_permute_fusion, Megatron
 * --moe-permute-fusion: fused_permute_with_probs / fused_unpermute,
 * transformer_config.py). Of the n = T k h elements of a rank's T tokens'
 * k copies: the permute reads each token once and writes its k copies,
 * (1 + 1/k) n e bytes; the unpermute reads the k copies and writes their
 * sum, the same (the router's probabilities are applied inside the
 * experts' activation, Megatron's default moe_apply_probs_on_input False:
 * "instead of applying after activation and glu", so the unpermute carries
 * none); each one's backward is the other's kernel on the gradients, the
 * same bytes. Unfused (Megatron's default), the graph's own 2 passes
 * forward and 4 backward (docs/graph.md): index_select, the scatter-add of
 * its gradient, the probabilities' multiply and their gradient, an
 * estimate, not a measurement. */
static int fused_permute(const lctx *c, const wg_op *o) {
  return (o->kind == WG_ROUTE || o->kind == WG_UNROUTE) && o->topk >= 1 &&
         c->s->plan.moe_permute_fusion;
}

/* Memory-bound operators: norms, element-wise, embedding, loss, routing,
 * pooling. */
static int lower_mem(lctx *c, const wg_op *o, int opi) {
  lay l;
  if (o->kind == WG_EMBEDDING || o->kind == WG_POOL) {
    if (convert(c, o->in[0], LAY_REPL, opi)) return -1;
    l = LAY_REPL;
  } else if (o->kind == WG_LOSS && c->ts[o->in[0]].lay == LAY_FEAT) {
    l = LAY_FEAT; /* vocab-parallel cross entropy */
  } else if (o->kind == WG_ROUTE) {
    /* tokens are routed where they are (token_local: tp > 1) */
    l = token_local(c, o) ? local_layout(c, o->in[0]) : LAY_REPL;
    for (int i = 0; i < o->n_in; i++)
      if (convert(c, o->in[i], l, opi)) return -1;
  } else {
    if (o->kind == WG_UNROUTE && experts(c, o->in[0], 0)) return -1;
    if (common_layout(c, o, opi, &l)) return -1;
  }
  double n = o->elems * c->mb / c->cpdiv;
  if (l == LAY_SEQ || l == LAY_FEAT) n /= c->st.tp;
  int org = c->ts[o->in[0]].origin;
  if (o->kind == WG_LOSS && org >= 0 && c->g->ops[org].kind == WG_LINEAR &&
      c->g->ops[org].tp == WG_TP_VOCAB) {
    /* the logits' columns as the vocabulary's GEMM ran them (padded) */
    const wg_tensor *x = &c->g->tensors[o->in[0]];
    double d = (double)x->dim[x->rank - 1];
    n *= vocab_cols(c, d) * c->st.tp / d;
  }
  double traffic, bwd;
  int kernels;
  unfused(c, o, &traffic, &bwd, &kernels);
  double bytes = n * (o->traffic_e * c->e + o->traffic_b) * traffic, bs = o->bwd_scale * bwd;
  int hf = o->host_fwd * kernels, hb = o->host_bwd * kernels;
  const bert_chain *chain = bert_unfused_chain(c, o);
  if (chain) bytes = chain_cost(c, chain, n, &bs, &hf, &hb);
  if (fused_permute(c, o)) bytes = n * c->e * (1 + 1.0 / o->topk), bs = 1.0;
  if (fused_ce(c, o)) {
    /* two reads forward, a read and a write backward (fused_ce); calls
     * forward: the kernel, the ignored rows' mask and the mean, backward:
     * the mask and the kernel (flash-attn 1.0's cross_entropy.py) */
    bytes = n * 2 * c->e, bs = 1.0, hf = 3, hb = 2;
  }
  if (o->kind == WG_LOSS && plan_loss_of(&c->s->plan) == SC_LOSS_EAGER) {
    /* and its kernels' launches: the cast, log_softmax and the NLL
     * forward; the NLL's fill and scatter, log_softmax's backward and the
     * cast backward (EAGER_CE_FWD, EAGER_CE_BWD) */
    bytes = n * EAGER_CE_FWD(c->e), bs = EAGER_CE_BWD(c->e) / EAGER_CE_FWD(c->e);
    hf = EAGER_CE_FWD_CALLS(c->e), hb = EAGER_CE_BWD_CALLS(c->e);
  }
  if (amp_island(c, o)) {
    /* AMP's fp32 list: the norm in fp32 between two casts (cost/amp.h) */
    int casts;
    bytes = amp_island_bytes(n, o->traffic_e * traffic, c->e, &bs, &casts);
    hf += casts, hb += casts;
  }
  c->run_lay = l;
  int t = mem_task(c, o->name, opi, bytes, hf, hb, bs, c->ts[o->in[0]].task);
  if (t < 0) return -1;
  xg_task *mt = &c->x->tasks[c->x->n_tasks - 1];
  aten_pool(c, o, &mt->m, &mt->n);
  if (o->n_in > 1) mt->dep[1] = c->ts[o->in[1]].task;
  tstate *y = &c->ts[o->out];
  y->task = t;
  y->origin = l == LAY_PART ? c->ts[o->in[0]].origin : opi;
  y->lay = l;
  y->expert = o->kind == WG_UNROUTE ? 0 : c->ts[o->in[0]].expert;
  if (o->kind == WG_EMBEDDING && o->tp == WG_TP_VOCAB && c->st.tp > 1) y->lay = LAY_PART;
  if (o->kind == WG_LOSS) {
    if (l == LAY_FEAT && c->st.tp > 1) {
      /* max, sum of exponentials and the target logit: 3 fp32 per row */
      t = comm(c, COLL_ALL_REDUCE, c->g_tp, rows_gpu(c, o->in[0], LAY_REPL) * 12, "ar_", o->name, t);
      if (t < 0) return -1;
      y->task = t;
    }
    y->lay = LAY_REPL;
  }
  return 0;
}

/* GEMM-like operators without tensor parallelism: conv, matmul,
 * interaction. */
static int lower_dense(lctx *c, const wg_op *o, int opi) {
  for (int i = 0; i < o->n_in; i++)
    if (convert(c, o->in[i], o->tp == WG_TP_HEADS ? LAY_FEAT : LAY_REPL, opi)) return -1;
  const wg_tensor *x = &c->g->tensors[o->in[0]], *y = &c->g->tensors[o->out];
  double m, n, k, batch = c->mb;
  if (o->kind == WG_CONV) {
    m = (double)y->dim[1] * (double)y->dim[2] * c->mb;
    n = (double)o->features;
    k = (double)o->kernel * (o->kernel_w > 0 ? o->kernel_w : o->kernel) * (double)x->dim[0];
    batch = 1;
  } else if (o->kind == WG_MATMUL) {
    m = (double)x->dim[1], k = (double)x->dim[2], n = (double)y->dim[2];
    batch = c->mb * (double)x->dim[0] / (o->tp == WG_TP_HEADS ? c->st.tp : 1);
  } else { /* interaction */
    m = n = (double)x->dim[0];
    k = (double)x->dim[1];
  }
  int t = gemm_task(c, o->name, opi, m, n, k, batch, o->host_fwd, o->host_bwd, c->ts[o->in[0]].task);
  if (t < 0) return -1;
  if (low_precision(c, o)) c->x->tasks[c->seg_first + t].dtype = c->lp;
  c->ts[o->out].task = t;
  c->ts[o->out].origin = opi;
  c->ts[o->out].lay = o->tp == WG_TP_HEADS && c->st.tp > 1 ? LAY_FEAT : LAY_REPL;
  return 0;
}

/* The L2 penalty of op's weights as a TensorFlow script builds it
 * (sc_cnn.l2_ops): tf_cnn_benchmarks adds weight_decay x
 * tf.add_n([tf.nn.l2_loss(v) for v in params]) to the loss, one L2Loss op
 * per variable (its --single_l2_loss_op flag, off by default, exists to
 * concatenate them instead; benchmark_cnn.py, recalled: not in
 * ../shared/reference). On the GPU that runs the tower, over the fp32
 * variables: forward the L2Loss kernel reads each (4 bytes a parameter);
 * backward the penalty's gradient is a Mul (read the variable, write 4)
 * and an AddN with the variable's own gradient (read 8, write 4): 20
 * bytes, bwd_scale 5; three kernels a variable (wg_op_tensors: a
 * convolution's kernel and bias are two). cost_mem charges one kernel's
 * fixed cost a direction; each other kernel is COST_KERNEL_T0 worth of
 * bytes at the GPU's rate, the same t0. Nothing reads its output: the
 * scalar joins the loss, whose kernels are negligible. The gradient is
 * ready only after the AddN, so the task follows the op (same op index:
 * src/job/dpm.c counts it in that layer). 0 or -1 (no memory). */
static int l2_task(lctx *c, const wg_op *o, int opi) {
  const sc_model *m = &c->s->model;
  if (m->kind != SC_MODEL_CNN || !m->cnn.l2_ops || o->params <= 0 || o->tied) return 0;
  const sc_gpu *g = &c->s->cluster.gpu;
  int k = wg_op_tensors(o);
  double p = o->params / c->st.tp, t0 = COST_KERNEL_T0 * g->hbm_bw * g->hbm_eff; /* bytes */
  double f = 4 * p + (k - 1) * t0, b = 20 * p + (2 * k - 1) * t0;
  return mem_task_p(c, "l2_", o->name, opi, f, k, 2 * k, b / f, c->ts[o->out].task) < 0 ? -1
                                                                                        : 0;
}

static int lower_op(lctx *c, int opi) {
  const wg_op *o = &c->g->ops[opi];
  lay before[WG_MAX_IN];
  for (int i = 0; i < o->n_in; i++) before[i] = c->ts[o->in[i]].lay;
  c->run_lay = LAY_REPL;
  c->cur_depth = rm_depth(c->g, opi, c->en);
  int rc;
  switch (o->kind) {
  case WG_LINEAR: rc = lower_linear(c, o, opi); break;
  case WG_ATTENTION: rc = lower_attention(c, o, opi); break;
  case WG_CONV: case WG_MATMUL: case WG_INTERACTION: rc = lower_dense(c, o, opi); break;
  default: rc = lower_mem(c, o, opi); break;
  }
  c->cur_depth = 0;
  if (rc) return rc;
  saved(c, opi, o, before, c->ts[o->out].lay);
  params(c, o);
  return l2_task(c, o, opi);
}

/* --------------------------------------------------------- segments */

/* The layout a block of strategy st expects at its input and leaves at
 * its output: the sequence split under sequence parallelism. */
static lay boundary(const strat *st) { return st->sp && st->tp > 1 ? LAY_SEQ : LAY_REPL; }

static void groups(lctx *c) {
  const sc_plan *p = &c->s->plan;
  c->g_tp = add_group(c, XG_GROUP_TP, c->st.tp, 1);
  c->g_cp = add_group(c, XG_GROUP_CP, c->st.cp, c->st.tp);
  /* Megatron's expert ranks: etp fastest, then ep (tp when etp = tp) */
  c->g_ep = add_group(c, XG_GROUP_EP, c->st.ep, c->st.etp);
  c->g_dp = add_group(c, XG_GROUP_DP, p->dp * c->st.cp, c->st.tp);
  c->g_rep = -1;
  c->shard = p->dp * c->st.cp;
  if (c->st.zero >= 3 && p->fsdp_shard > 0 && p->fsdp_shard < c->shard) {
    /* HSDP: shards of fsdp_shard neighbouring data-parallel ranks,
     * replicated across the groups of them */
    c->g_rep = add_group(c, XG_GROUP_DP, c->shard / p->fsdp_shard, c->st.tp * p->fsdp_shard);
    if (c->g_rep < 0) c->g_rep = -2; /* out of memory, apart from "none" */
    c->g_dp = add_group(c, XG_GROUP_DP, p->fsdp_shard, c->st.tp);
    c->shard = p->fsdp_shard;
  }
  c->g_mp = add_group(c, XG_GROUP_MP, c->st.tp * c->st.cp, 1);
}

/* The expert data-parallel group of the segment being lowered into sg
 * (edp_group, eshard): Megatron-Core's expert grid lays a pipeline
 * stage's tp x cp x dp ranks out as etp x ep x edp, etp fastest
 * (parallel_state.py's expert RankGenerator, ../shared/reference), and
 * its DDP reduces the experts' gradients, and its distributed optimizer
 * shards their state, over the edp ranks (distributed_data_parallel.py:
 * dense and expert buffers apart). Under ZeRO-3 the experts' shard group
 * is likewise the shard group's tp x shard ranks over etp x ep (HSDP: the
 * shard's, not the replicas'): torchtitan shards the experts over the
 * data-parallel shard ranks that ep does not take (fully_shard on
 * moe.experts over dp_shard_mod_ep), where their units are gathered and
 * reduce-scattered (fsdp.c unit_parts). Without experts, or where the
 * grid does not fold, the dense group and shard. 0, or -1 when out of
 * memory. */
static int expert_dp(lctx *c, xg_segment *sg) {
  sg->edp_group = sg->dp_group;
  sg->eshard = sg->shard;
  long ranks = (long)c->st.tp * c->shard, per = (long)c->st.etp * c->st.ep;
  if (c->params_expert <= 0 || per < 1 || ranks % per) return 0;
  int edp = (int)(ranks / per);
  sg->eshard = edp;
  if (edp == sg->shard && per == c->st.tp) return 0; /* the dense group */
  int g = add_group(c, XG_GROUP_DP, edp, (int)per);
  if (g < 0) return -1;
  sg->edp_group = g;
  return 0;
}

/* Lower one instance of block b under strategy st into a new segment;
 * its index, or -1 when out of memory. */
static int lower_segment(lctx *c, int b, const strat *st) {
  const wg_block *bl = &c->g->blocks[b];
  c->st = *st;
  c->cpdiv = c->g->seq > 0 ? st->cp : 1;
  c->n_calls = 0;
  groups(c);
  if (c->g_tp < 0 || c->g_cp < 0 || c->g_ep < 0 || c->g_dp < 0 || c->g_mp < 0) return -1;
  if (c->g_rep == -2) return -1;
  c->seg_first = c->x->n_tasks;
  c->act = c->act_sel = c->params = c->tied = c->params_lp = c->params_cast = 0;
  c->bwd_extra = 0;
  c->params_expert = 0;
  tstate *in = &c->ts[bl->input];
  *in = (tstate){bl->role == WG_ROLE_FIRST ? LAY_REPL : boundary(st), 0, -1, XG_NO_DEP, 0};
  for (int j = 0; j < bl->n_ops; j++) {
    int opi = bl->first_op + j;
    c->ts[c->g->ops[opi].out] = (tstate){LAY_REPL, 0, opi, XG_NO_DEP, 0};
    if (lower_op(c, opi)) return -1;
  }
  /* a block hands the next one whole or sequence-split activations */
  if (bl->role != WG_ROLE_LAST && convert(c, bl->output, boundary(st), -1)) return -1;
  pair_wgrad(c);
  xg_segment sg;
  memset(&sg, 0, sizeof sg);
  sg.block = b;
  sg.role = (int)bl->role;
  sg.first_task = c->seg_first;
  sg.n_tasks = c->x->n_tasks - c->seg_first;
  sg.tp = st->tp, sg.cp = st->cp, sg.ep = st->ep, sg.sp = st->sp;
  sg.zero = st->zero;
  sg.recompute = st->recompute;
  sg.hp = st->hp;
  sg.etp = st->etp;
  sg.dp_group = c->g_dp;
  sg.rep_group = c->g_rep;
  sg.shard = c->shard;
  if (expert_dp(c, &sg)) return -1;
  sg.params = c->params;
  sg.params_expert = c->params_expert;
  sg.tied_params = c->tied;
  sg.params_lp = c->params_lp;
  sg.params_cast = c->params_cast;
  sg.act_bytes = c->act;
  sg.act_sel_bytes = c->act_sel;
  sg.bwd_extra_bytes = c->bwd_extra;
  for (int i = 0; i < sg.n_tasks; i++)
    if (c->x->tasks[sg.first_task + i].recompute_sel > sg.recomp_depth)
      sg.recomp_depth = c->x->tasks[sg.first_task + i].recompute_sel;
  sg.input_bytes = bytes_gpu(c, bl->input, boundary(st));
  return xg_add_segment(c->x, &sg);
}

_Static_assert(sizeof(strat) == 8 * sizeof(int), "segment_is compares every field of strat");

/* 1 when segment i is block b's under strategy st (strat_equal's fields,
 * compared here: a plan with partial recomputation asks once per span of
 * layers, scanning its few segments). */
static int segment_is(const lctx *c, int i, int b, const strat *st) {
  const xg_segment *s = &c->x->segs[i];
  return s->block == b && s->tp == st->tp && s->cp == st->cp && s->ep == st->ep &&
         s->sp == st->sp && s->zero == st->zero && s->recompute == st->recompute &&
         s->hp == st->hp && s->etp == st->etp;
}

/* A new segment of (block b, strategy st): from the memo of segments
 * when it holds it, else lowered (and then remembered). Its index, or -1
 * when out of memory. */
static int new_segment(lctx *c, int b, const strat *st) {
  int i = c->memo ? segm_fetch(c->memo, b, st, c->x) : -1;
  if (i != -1) return i < 0 ? -1 : i;
  i = lower_segment(c, b, st);
  if (i >= 0 && c->memo && segm_keep(c->memo, b, st, c->x, i, c->calls, c->n_calls)) return -1;
  return i;
}

/* The segment of (block b, strategy st): an existing one or a new one.
 * There is at most one of each (block, strategy), so the hint, tried
 * first, finds the one the scan would. */
static int segment_for(lctx *c, int b, const strat *st) {
  int i = c->seg_hint;
  if (i < 0 || i >= c->x->n_segs || !segment_is(c, i, b, st)) {
    for (i = 0; i < c->x->n_segs && !segment_is(c, i, b, st); i++) {}
    if (i == c->x->n_segs) i = new_segment(c, b, st);
  }
  return c->seg_hint = i;
}

/* A re-layout between a segment of strategy a and one of b (block input
 * tensor t of the later one), or -1 when none is needed; -2 when out of
 * memory. */
static int relayout(lctx *c, int t_block, const strat *a, const strat *b) {
  int same_mesh = a->tp == b->tp && a->cp == b->cp;
  lay la = boundary(a), lb = boundary(b);
  if (same_mesh && (la == lb || lb == LAY_SEQ)) return -1; /* nothing, or a local slice */
  c->st = *b;
  c->cpdiv = c->g->seq > 0 ? b->cp : 1;
  groups(c);
  c->seg_first = c->x->n_tasks;
  int t = c->g->blocks[t_block].input, k;
  if (same_mesh)
    k = comm(c, COLL_ALL_GATHER, c->g_tp, bytes_gpu(c, t, LAY_REPL), "relayout_", "ag", XG_NO_DEP);
  else
    k = comm(c, COLL_ALL_TO_ALL, c->g_mp, bytes_gpu(c, t, lb), "relayout_", "a2a", XG_NO_DEP);
  if (k < 0) return -2;
  xg_segment sg;
  memset(&sg, 0, sizeof sg);
  sg.block = -1;
  sg.role = -1;
  sg.first_task = c->seg_first;
  sg.n_tasks = 1;
  sg.tp = b->tp, sg.cp = b->cp, sg.ep = b->ep, sg.sp = b->sp, sg.zero = b->zero;
  sg.dp_group = sg.edp_group = c->g_dp;
  sg.rep_group = c->g_rep;
  sg.shard = sg.eshard = c->shard;
  int s = xg_add_segment(c->x, &sg);
  return s < 0 ? -2 : s;
}

/* ------------------------------------------------------------- plan */

/* The strategy of a segment. */
static strat seg_strat(const xg_segment *s) {
  return (strat){s->tp, s->cp, s->ep, s->sp, s->zero, s->recompute, s->hp, s->etp};
}

static int scratch(lower_scratch *scr, const wg_graph *g) {
  if (vec_grow(&scr->state, &scr->cap_state, g->n_tensors, sizeof(tstate))) return -1;
  if (vec_grow((void **)&scr->pieces, &scr->cap_pieces, g->layers, sizeof *scr->pieces))
    return -1;
  return 0;
}

/* Segments of every block instance and the re-layouts between them.
 * first_seg / last_seg: segments of the first and last blocks (-1 none),
 * last_trans: a re-layout before the last blocks. */
typedef struct chain {
  int first[8], n_first;
  int last[8], n_last;
  int last_trans;
} chain;

/* How many layers from `layer` (position in_chunk of virtual stage
 * `chunk`, of which `left` are instances of its block) have its strategy
 * without overrides: up to the end of the chunk, of the block, of the
 * layers kept in 16 bits, and of the layers recomputed under partial
 * recomputation (build_chain's per-layer knobs). With overrides, 1. */
static int same_strat_span(const lctx *c, const lower_scratch *scr, int layer, int chunk,
                           int in_chunk, int left) {
  const sc_plan *p = &c->s->plan;
  if (p->n_overrides > 0) return 1;
  int n = left, last = p->pp * c->x->vpp - 1, hp_end = c->g->layers - p->bf16_last_layers;
  if (chunk < last && scr->stage_layers[chunk] - in_chunk < n)
    n = scr->stage_layers[chunk] - in_chunk;
  if (layer < p->bf16_first_layers && p->bf16_first_layers - layer < n)
    n = p->bf16_first_layers - layer;
  if (layer < hp_end && hp_end - layer < n) n = hp_end - layer;
  if (in_chunk < p->recompute_layers && p->recompute_layers - in_chunk < n)
    n = p->recompute_layers - in_chunk;
  return n > 1 ? n : 1;
}

/* Layers first..first+n-1 in segment seg, after re-layout trans (-1
 * none): appended to scr's pieces, or to the last piece when that one is
 * in seg and no re-layout comes between. */
static void piece(lower_scratch *scr, int first, int n, int seg, int trans) {
  lower_piece *last = scr->n_pieces > 0 ? &scr->pieces[scr->n_pieces - 1] : NULL;
  assert(!last || last->first + last->n == first);
  if (last && last->seg == seg && trans < 0) {
    last->n += n;
    return;
  }
  assert(scr->n_pieces < scr->cap_pieces);
  scr->pieces[scr->n_pieces++] = (lower_piece){first, n, seg, trans};
}

static int build_chain(lctx *c, lower_scratch *scr, chain *ch) {
  const wg_graph *g = c->g;
  const sc_plan *p = &c->s->plan;
  int layer = 0, prev = -1;
  int chunk = 0, in_chunk = 0; /* virtual stage of `layer`, its position there */
  ch->n_first = ch->n_last = 0;
  ch->last_trans = -1;
  scr->n_pieces = 0;
  /* knobs that change the strategy from one layer to the next */
  int per_layer = p->recompute_layers > 0 || p->bf16_first_layers > 0 ||
                  p->bf16_last_layers > 0;
  for (int b = 0; b < g->n_blocks; b++) {
    const wg_block *bl = &g->blocks[b];
    /* without overrides every instance of a block has strat_of's strategy
     * before the per-layer knobs: asked once */
    strat base;
    if (p->n_overrides == 0) strat_of(p, bl->name, bl->role == WG_ROLE_LAYER ? layer : -1, &base);
    for (int i = 0, span; i < bl->count; i += span) {
      strat st;
      int idx = bl->role == WG_ROLE_LAYER ? layer : -1, seg, tr = -1;
      span = 1;
      if (i > 0 && p->n_overrides == 0 && !per_layer && idx >= 0) {
        /* the rest of the block's layers are the one before it: the same
         * segment, no re-layout (the chunk position only matters to the
         * per-layer knobs, so it is not kept) */
        piece(scr, layer, bl->count - i, prev, -1);
        layer += bl->count - i;
        break;
      }
      if (idx >= 0) {
        while (chunk < p->pp * c->x->vpp - 1 && in_chunk >= scr->stage_layers[chunk])
          chunk++, in_chunk = 0;
        /* the layers after it with its strategy: the same segment, no
         * re-layout, one look-up (partial recomputation and 16-bit
         * first and last layers: a few spans per chunk, not every layer) */
        span = same_strat_span(c, scr, layer, chunk, in_chunk, bl->count - i);
      }
      if (i > 0 && p->n_overrides == 0 && !per_layer) {
        /* without overrides every instance of a block has the strategy of
         * the one before it: the same segment, no re-layout (a search's
         * hot path: one lookup per block, not per layer) */
        seg = prev;
      } else {
        if (p->n_overrides == 0) st = base;
        else strat_of(p, bl->name, idx, &st);
        if (idx >= 0) {
          /* first and last layers kept in 16 bits (Megatron's
           * --first-last-layers-bf16) */
          if (idx < p->bf16_first_layers || idx >= g->layers - p->bf16_last_layers) st.hp = 1;
          /* partial recomputation: the first recompute_layers of a chunk */
          if (p->recompute_layers > 0 && st.recompute == SC_RECOMP_FULL &&
              in_chunk >= p->recompute_layers)
            st.recompute = SC_RECOMP_NONE;
        }
        seg = segment_for(c, b, &st);
      }
      if (idx >= 0) in_chunk += span;
      if (seg < 0) return -1;
      if (seg != prev && prev >= 0 && bl->role != WG_ROLE_FIRST) {
        strat a = seg_strat(&c->x->segs[prev]);
        tr = relayout(c, b, &a, &st);
        if (tr == -2) return -1;
      }
      if (bl->role == WG_ROLE_LAYER) {
        piece(scr, layer, span, seg, tr);
        layer += span;
      } else if (bl->role == WG_ROLE_FIRST) {
        if (ch->n_first == 8) return -1;
        ch->first[ch->n_first++] = seg;
      } else {
        if (ch->n_last == 8) return -1;
        if (ch->n_last == 0) ch->last_trans = tr;
        ch->last[ch->n_last++] = seg;
      }
      prev = seg;
    }
  }
  return 0;
}

/* Append segment seg to the runs of the stage being built, whose runs
 * start at `first`. */
static int run(xg *x, int first, int seg) {
  if (seg < 0) return 0;
  if (x->n_runs > first) {
    xg_run *r = &x->runs[x->n_runs - 1];
    if (r->segment == seg) {
      r->count++;
      return 0;
    }
  }
  return xg_add_run(x, seg, 1) < 0 ? -1 : 0;
}

/* run() of seg n times. */
static int run_n(xg *x, int first, int seg, int n) {
  if (seg < 0) return 0;
  if (x->n_runs > first) {
    xg_run *r = &x->runs[x->n_runs - 1];
    if (r->segment == seg) {
      r->count += n;
      return 0;
    }
  }
  return xg_add_run(x, seg, n) < 0 ? -1 : 0;
}

/* The first layer of each of the n virtual stages. */
static void stage_offsets(lower_scratch *scr, int n) {
  for (int v = 0, first = 0; v < n; v++) {
    scr->stage_first[v] = first;
    first += scr->stage_layers[v];
  }
}

/* The index of the piece of scr that holds layer l. */
static int piece_of(const lower_scratch *scr, int l) {
  int lo = 0, hi = scr->n_pieces - 1;
  while (lo < hi) {
    int mid = (lo + hi + 1) / 2;
    if (scr->pieces[mid].first <= l) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/* 1 when stages a and b have the same runs. */
static int same_runs(const xg *x, const xg_stage *a, const xg_stage *b) {
  if (a->n_runs != b->n_runs) return 0;
  for (int i = 0; i < a->n_runs; i++) {
    const xg_run *ra = &x->runs[a->first_run + i], *rb = &x->runs[b->first_run + i];
    if (ra->segment != rb->segment || ra->count != rb->count) return 0;
  }
  return 1;
}

static int build_stage(lctx *c, lower_scratch *scr, const chain *ch, int s) {
  xg *x = c->x;
  const sc_plan *p = &c->s->plan;
  int pp = p->pp, vpp = x->vpp;
  xg_stage st;
  memset(&st, 0, sizeof st);
  st.first_run = x->n_runs;
  st.same_as = -1;
  if (s == 0)
    for (int i = 0; i < ch->n_first; i++)
      if (run(x, st.first_run, ch->first[i])) return -1;
  /* virtual stages in model order: chunk k of stage s is number k*pp + s */
  for (int k = 0; k < vpp; k++) {
    int first = scr->stage_first[k * pp + s], n = scr->stage_layers[k * pp + s];
    /* each piece's layers within the chunk, after its re-layout when the
     * piece starts there: one run (run_n joins a piece to the run before
     * it in the same segment) */
    for (int i = n > 0 ? piece_of(scr, first) : scr->n_pieces; i < scr->n_pieces; i++) {
      const lower_piece *pc = &scr->pieces[i];
      if (pc->first >= first + n) break;
      int from = pc->first > first ? pc->first : first;
      int to = pc->first + pc->n < first + n ? pc->first + pc->n : first + n;
      if ((pc->first >= first && run(x, st.first_run, pc->trans)) ||
          run_n(x, st.first_run, pc->seg, to - from))
        return -1;
    }
  }
  if (s == pp - 1) {
    if (run(x, st.first_run, ch->last_trans)) return -1;
    for (int i = 0; i < ch->n_last; i++)
      if (run(x, st.first_run, ch->last[i])) return -1;
  }
  st.n_runs = x->n_runs - st.first_run;
  for (int i = 0; i < st.n_runs; i++) {
    const xg_run *r = &x->runs[st.first_run + i];
    const xg_segment *sg = &x->segs[r->segment];
    st.params += r->count * xg_seg_params(sg, s);
    if (sg->role == WG_ROLE_LAYER) st.layers += r->count;
  }
  for (int i = 0; i < x->n_stages && st.same_as < 0; i++)
    if (x->stages[i].same_as < 0 && same_runs(x, &x->stages[i], &st) &&
        x->stages[i].params == st.params)
      st.same_as = i;
  if (st.same_as >= 0) { /* share the runs of the earlier stage */
    x->n_runs = st.first_run;
    st.first_run = x->stages[st.same_as].first_run;
  }
  return xg_add_stage(x, &st) < 0 ? -1 : 0;
}

int lower_plan(const wg_graph *g, const sc_scenario *s, lower_scratch *scr, xg *x,
               sc_error *err) {
  return lower_plan_memo(g, s, scr, NULL, x, err);
}

int lower_plan_memo(const wg_graph *g, const sc_scenario *s, lower_scratch *scr, segm *memo,
                    xg *x, sc_error *err) {
  const sc_plan *p = &s->plan;
  assert(g->finalized);
  xg_reset(x);
  if (scratch(scr, g))
    return sc_error_set(err, SC_ENOMEM, "out of memory lowering the plan");
  lctx c;
  memset(&c, 0, sizeof c);
  c.g = g;
  c.s = s;
  c.x = x;
  c.ts = scr->state;
  c.err = err;
  c.seg_hint = -1;
  c.memo = memo;
  if (memo && segm_begin(memo, s) != SC_OK) goto nomem;
  c.e = act_bytes(p->dtype);
  c.mb = (double)p->micro_batch;
  c.flash = p->flash_attention;
  c.en = plan_recmod_mask(p);
  c.lp = p->dtype;
  c.hp = p->dtype;
  if (p->dtype == SC_FP8 || p->dtype == SC_FP4)
    c.hp = s->cluster.gpu.peak_flops[SC_BF16] > 0 ? SC_BF16 : SC_FP16;
  x->micro_batches = (int)(p->global_batch / ((long)p->micro_batch * p->dp));
  x->vpp = p->schedule == SC_SCHED_INTERLEAVED && p->vpp > 1 ? p->vpp : 1;
  int rc = plan_stage_layers(p, g->layers, x->vpp, scr->stage_layers, err);
  if (rc) return rc;
  chain ch;
  if (build_chain(&c, scr, &ch)) goto nomem;
  stage_offsets(scr, p->pp * x->vpp);
  for (int st = 0; st < p->pp; st++)
    if (build_stage(&c, scr, &ch, st)) goto nomem;
  /* neighbouring stages are tp*cp*dp ranks apart; an activation of the
   * layer boundary crosses each */
  x->pp_group = xg_add_group(x, XG_GROUP_PP, p->pp > 1 ? 2 : 1, p->tp * p->cp * p->dp);
  if (x->pp_group < 0) goto nomem;
  {
    /* the activation leaving the last layer of the first stage's first
     * chunk, laid out as that layer's strategy leaves it */
    int last = scr->stage_layers[0] > 0 ? scr->stage_layers[0] - 1 : 0;
    int b = wg_layer_block(g, last);
    strat st;
    strat_of(p, g->blocks[b].name, last, &st);
    c.st = st;
    c.cpdiv = g->seq > 0 ? st.cp : 1;
    x->p2p_bytes = bytes_gpu(&c, g->blocks[b].output, boundary(&st));
  }
  return SC_OK;
nomem:
  return sc_error_set(err, SC_ENOMEM, "out of memory lowering the plan");
}

/* ------------------------------------------------------------ checks */

#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static int fail(sc_error *err, const char *path, const char *fmt, ...) {
  char text[640];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(text, sizeof text, fmt, ap);
  va_end(ap);
  return sc_error_set(err, SC_EINPUT, "%s: %s", path, text);
}

/* Does tp (at key `path`) split every operator of block b evenly? */
static int check_tp(const wg_graph *g, int b, const strat *st, const char *path, sc_error *err) {
  const wg_block *bl = &g->blocks[b];
  for (int j = 0; j < bl->n_ops; j++) {
    const wg_op *o = &g->ops[bl->first_op + j];
    const wg_tensor *x = &g->tensors[o->in[0]];
    long need = 0;
    const char *what = "";
    if (o->kind == WG_LINEAR && o->tp == WG_TP_COLUMN) need = o->features, what = "out_features";
    else if (o->kind == WG_LINEAR && o->tp == WG_TP_ROW) need = x->dim[x->rank - 1], what = "in_features";
    else if (o->kind == WG_ATTENTION && o->tp == WG_TP_HEADS) {
      need = o->kv_heads % st->tp ? o->kv_heads : o->heads;
      what = o->kv_heads % st->tp ? "kv_heads" : "heads";
    } else if (o->kind == WG_MATMUL && o->tp == WG_TP_HEADS) need = x->dim[0], what = "groups";
    int split = o->expert ? st->etp : st->tp;
    if (need && need % split) {
      char valid[256];
      plan_divisors(need, valid, sizeof valid);
      return fail(err, path, "%d does not divide %s %ld of op '%s' (block '%s'); valid %s: %s",
                  split, what, need, o->name, bl->name, o->expert ? "etp" : "tp", valid);
    }
    if ((o->kind == WG_CONV || o->kind == WG_POOL || o->kind == WG_INTERACTION) && st->cp > 1)
      return fail(err, path, "cp %d: op '%s' (block '%s') has no sequence to split; valid cp: 1",
                  st->cp, o->name, bl->name);
  }
  if (st->sp && st->tp > 1 && g->seq > 0 && (g->seq / st->cp) % st->tp)
    return fail(err, path,
                "%d: sequence parallelism splits seq / cp = %ld tokens over tp %d, which does "
                "not divide them; set sp false or a tp that divides %ld",
                st->tp, g->seq / st->cp, st->tp, g->seq / st->cp);
  return SC_OK;
}

/* Block b's routing and expert layers against the layer's strategy st:
 * ep divides their experts (Megatron, arguments.py: "Number of experts
 * should be a multiple of expert model parallel_size"; `path` is the key
 * of ep), and the plan's routing groups fit the routing (plan_moe.c). */
static int check_experts(const wg_graph *g, int b, const strat *st, const sc_scenario *s,
                         const char *path, sc_error *err) {
  const wg_block *bl = &g->blocks[b];
  for (int j = 0; j < bl->n_ops; j++) {
    const wg_op *o = &g->ops[bl->first_op + j];
    if (o->kind != WG_ROUTE && !o->expert) continue;
    if (o->experts % st->ep) {
      char valid[256];
      plan_divisors(plan_gcd(o->experts, plan_ep_mesh(&s->plan, st->cp)), valid, sizeof valid);
      return fail(err, path,
                  "%d does not divide the %ld experts of op '%s' (block '%s'; Megatron: \"Number "
                  "of experts should be a multiple of expert model parallel_size.\"); valid "
                  "ep: %s",
                  st->ep, o->experts, o->name, bl->name, valid);
    }
    char what[160], at[48] = "";
    snprintf(what, sizeof what, "the %ld experts of op '%s' (block '%s')", o->experts, o->name,
             bl->name);
    if (st->tp != s->plan.tp || st->ep != s->plan.ep)
      snprintf(at, sizeof at, " with tp %d by plan.overrides", st->tp);
    int rc = o->kind == WG_ROUTE ? plan_moe_groups_fit(s, (int)o->experts, (int)o->topk, st->ep,
                                                       st->etp, what, at, err)
                                 : SC_OK;
    if (rc) return rc;
  }
  return SC_OK;
}

/* The key of `field` ("tp" or "ep") of instance `layer` of block bl: the
 * last override covering it that sets the field, else the plan's. */
static void key_of(const sc_plan *p, const wg_block *bl, int layer, const char *field,
                   char *path, size_t cap) {
  snprintf(path, cap, "plan.%s", field);
  for (int k = 0; k < p->n_overrides; k++) {
    const sc_override *o = &p->overrides[k];
    int sets = field[0] == 't' ? o->tp != SC_INHERIT : o->ep != SC_INHERIT;
    if (sets && (o->block[0] ? !strcmp(o->block, bl->name)
                             : bl->role == WG_ROLE_LAYER && layer >= o->first && layer <= o->last))
      snprintf(path, cap, "plan.overrides[%d].%s", k, field);
  }
}

static int check_overrides(const wg_graph *g, const sc_plan *p, sc_error *err) {
  char path[48];
  for (int i = 0; i < p->n_overrides; i++) {
    const sc_override *o = &p->overrides[i];
    snprintf(path, sizeof path, "plan.overrides[%d]", i);
    if (o->block[0]) {
      int found = 0;
      char names[256] = "";
      size_t len = 0;
      for (int b = 0; b < g->n_blocks; b++) {
        found |= !strcmp(g->blocks[b].name, o->block);
        if (len < sizeof names)
          len += (size_t)snprintf(names + len, sizeof names - len, "%s%s", b ? ", " : "",
                                  g->blocks[b].name);
      }
      if (!found)
        return fail(err, path, "block \"%s\" is not a block of the graph (valid: %s)", o->block,
                    names);
    } else if (o->last >= g->layers) {
      return fail(err, path, "layers [%d, %d]: the graph has %d layers (valid: 0..%d)", o->first,
                  o->last, g->layers, g->layers - 1);
    }
  }
  return SC_OK;
}

int lower_check(const wg_graph *g, const sc_scenario *s, sc_error *err) {
  const sc_plan *p = &s->plan;
  char valid[256];
  int vpp = p->schedule == SC_SCHED_INTERLEAVED && p->vpp > 1 ? p->vpp : 1, rc;
  int stage_layers[SC_MAX_PP_LAYOUT];
  if ((rc = plan_stage_layers(p, g->layers, vpp, stage_layers, err))) return rc;
  if (p->cp > 1 && g->seq <= 0)
    return fail(err, "plan.cp", "%d needs a sequence model (the graph has no \"seq\"); valid cp: 1",
                p->cp);
  if (g->seq > 0 && g->seq % p->cp) {
    plan_divisors(g->seq, valid, sizeof valid);
    return fail(err, "plan.cp", "%d does not divide the graph's seq %ld; valid cp: %s", p->cp,
                g->seq, valid);
  }
  if ((rc = check_overrides(g, p, err))) return rc;
  int layer = 0;
  for (int b = 0; b < g->n_blocks; b++) {
    const wg_block *bl = &g->blocks[b];
    for (int i = 0; i < bl->count; i++) {
      strat st;
      strat_of(p, bl->name, bl->role == WG_ROLE_LAYER ? layer : -1, &st);
      char path[48];
      int at = bl->role == WG_ROLE_LAYER ? layer : -1;
      key_of(p, bl, at, "tp", path, sizeof path);
      if ((rc = check_tp(g, b, &st, path, err))) return rc;
      key_of(p, bl, at, "ep", path, sizeof path);
      if ((rc = check_experts(g, b, &st, s, path, err))) return rc;
      if (bl->role == WG_ROLE_LAYER) layer++;
      if (bl->count > 1 && p->n_overrides == 0) { /* every instance alike */
        if (bl->role == WG_ROLE_LAYER) layer += bl->count - 1;
        break;
      }
    }
  }
  return SC_OK;
}
