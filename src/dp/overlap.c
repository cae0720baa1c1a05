/*
 * overlap.c -- gradients into messages, and the closed form of their
 * overlap with the backward pass (PerfTop's layer-wise overlap); see dp.h.
 *
 * Gradients become ready in backward order: layer i's at the end of its
 * backward, R_i = sum_{j <= i} bwd_j after the backward pass starts. A
 * framework groups them into messages:
 *   - PyTorch DDP: buckets of bucket_cap_mb (25 MiB) in backward order, the
 *     first one capped at 1 MiB (torch/nn/parallel/distributed.py,
 *     _DEFAULT_BUCKET_CAP_MB, dist._DEFAULT_FIRST_BUCKET_BYTES); a bucket
 *     leaves when its last gradient is ready;
 *   - Horovod: a background thread wakes every cycle (HOROVOD_CYCLE_TIME,
 *     1 ms; at once after a cycle that ran longer) and fuses the tensors
 *     ready by then, up to the fusion threshold (HOROVOD_FUSION_THRESHOLD,
 *     128 MiB), into one message (horovod/common/operations.cc
 *     RunLoopOnce); its ticks' phase against the backward is nobody's
 *     choice: a gradient ready while the thread idles waits half a cycle
 *     on average;
 *   - TensorFlow (PS, replicated): one transfer per gradient tensor, as
 *     soon as it is ready.
 * Messages run one after another on the exchange's channel: message k
 * starts at max(its ready time, the end of message k-1). The exchange is
 * exposed for what runs past the end of the backward pass.
 */
#include <assert.h>
#include <math.h>
#include <string.h>

#include "core/vec.h"
#include "dp/dp.h"
#include "engine/ddpbucket.h"

#define MiB (1024.0 * 1024.0)
#define DP_DDP_BUCKET (25 * MiB)       /* reducer.hpp kDefaultBucketBytesCap */
#define DP_DDP_FIRST (1 * MiB)         /* reducer.hpp kDefaultFirstBucketBytes */
#define DP_HVD_FUSION (128 * MiB)      /* operations.cc SetTensorFusionThresholdBytes */
#define DP_HVD_CYCLE 1e-3              /* operations.cc SetCycleTimeMs(1) */

static void dp_fusion_kind(sc_dp_fusion_kind k, int dp, double elem, dp_fusion *fu) {
  memset(fu, 0, sizeof *fu);
  switch (k) {
  case SC_DP_FUSION_DDP:
    fu->bucket_bytes = DP_DDP_BUCKET;
    fu->first_bytes = DP_DDP_FIRST;
    break;
  case SC_DP_FUSION_HOROVOD:
    fu->bucket_bytes = DP_HVD_FUSION;
    fu->cycle_s = DP_HVD_CYCLE;
    break;
  case SC_DP_FUSION_TENSOR: fu->per_tensor = 1; break;
  case SC_DP_FUSION_NONE: fu->bucket_bytes = INFINITY; break;
  case SC_DP_FUSION_MEGATRON: /* Megatron-Core DDP's bucket (engine/ddpbucket.h) */
    fu->bucket_bytes = ddpb_size(dp) * elem;
    break;
  case SC_DP_FUSION_AUTO: break;
  }
}

/* The framework each scheme names: Horovod for the MPI all-reduce,
 * TensorFlow's per-tensor transfers for PS and replicated schemes, KungFu
 * and BlueFog hook every parameter's gradient (per tensor, fused by
 * KungFu into 1 MiB chunks below the message), DDP buckets for NCCL. */
void dp_fusion_for(const sc_dp_spec *spec, dp_scheme sc, int dp, double elem, dp_fusion *fu) {
  sc_dp_fusion_kind k = spec->fusion;
  /* PS and TF replicated move each variable on its own whatever is asked */
  dp_family fam = dp_scheme_family(sc);
  if (fam == DP_FAM_PS || sc == DP_REPLICATED_NCCL || sc == DP_REPLICATED_COPY)
    k = SC_DP_FUSION_AUTO;
  if (k == SC_DP_FUSION_AUTO) {
    switch (sc) {
    case DP_ALLREDUCE_MPI_HOST:
    case DP_ALLREDUCE_RING_NCCL:
    case DP_ALLREDUCE_HIER: k = SC_DP_FUSION_HOROVOD; break;
    case DP_ALLREDUCE_NCCL:
    case DP_NEIGHBOR_EXP2:
    case DP_HIER_NEIGHBOR:
    case DP_GOSSIP_GRAPH: k = SC_DP_FUSION_DDP; break;
    case DP_PAIR_AVERAGING_ASYNC: k = SC_DP_FUSION_NONE; break;
    default: k = SC_DP_FUSION_TENSOR; break;
    }
  }
  dp_fusion_kind(k, dp, elem, fu);
  if (fu->per_tensor) return;
  if (spec->bucket_bytes > 0) fu->bucket_bytes = spec->bucket_bytes;
  if (spec->cycle_s > 0 && fu->cycle_s > 0) fu->cycle_s = spec->cycle_s;
}

void dp_spans_add(dp_spans *r, double start, double end) {
  if (!r || r->oom) return;
  if (vec_grow((void **)&r->v, &r->cap, r->n + 1L, sizeof *r->v)) {
    r->oom = 1;
    return;
  }
  r->v[r->n++] = (sc_span){.stage = 0, .lane = 1, .kind = 'D', .micro_batch = -1,
                           .start = start, .dur = end - start};
}

/* One run of messages beside the backward pass. The backward pass slows
 * by `share` of the time a message overlaps it (contend.c), so the
 * gradients after that overlap are ready `shift` seconds later than
 * the layers' own times say: a gradient's ready time is R_i + shift at
 * the point it is reached (first order: the messages keep their times). */
typedef struct ovl_run {
  dp_overlap *o;
  const dp_model *m;
  double share;            /* slowdown of the backward per second of overlap, 0..1 */
  double shift;            /* s: the backward's slowdown so far */
} ovl_run;

/* When gradient `ready` (s after the backward pass starts, on the
 * unslowed clock) is ready: overlap 0 puts every message after the
 * backward pass. */
static double ovl_ready(const ovl_run *r, double ready, int overlap) {
  return (overlap ? ready : r->m->bwd_s) + r->shift;
}

/* Layer i's backward ends at `ready` (unslowed clock): recorded for the
 * timeline when the run records, put on the slowed clock by ovl_clock
 * once the run's messages are known. */
static void ovl_mark(ovl_run *r, int i, double ready) {
  dp_spans *rec = r->o->rec;
  if (!rec || rec->oom) return;
  if (vec_grow((void **)&rec->bwd_end, &rec->bwd_cap, i + 1L, sizeof *rec->bwd_end)) {
    rec->oom = 1;
    return;
  }
  rec->bwd_end[i] = ready;
  if (rec->bwd_n < i + 1) rec->bwd_n = i + 1;
}

/* The recorded layer ends (s of backward work, from its start) on the
 * clock the run's messages (spans first.., back to back or apart, never
 * beside each other) slowed: the backward runs at full pace between
 * messages and at 1 - share of it beside one. A layer that ends while a
 * message runs ends there, not after that message's whole slowdown
 * (which the next gradient's ready time, ovl_ready, may carry: it cannot
 * leave before that message ends anyway). Returns where the last ends. */
static double ovl_clock(dp_spans *rec, int first, double share) {
  double w = 0, t = 0, pace = 1 - share; /* w s of work done by time t */
  int j = first;
  for (int i = 0; i < rec->bwd_n; i++) {
    double want = rec->bwd_end[i];
    for (; j < rec->n; j++) {
      double s = fmax(rec->v[j].start, t), e = rec->v[j].start + rec->v[j].dur;
      if (w + (s - t) >= want) break; /* done before this message */
      w += s - t, t = s;
      if (pace > 0 && w + pace * (e - t) >= want) { /* done beside it */
        t += (want - w) / pace, w = want;
        break;
      }
      w += pace * (e - t), t = e;
    }
    t += want - w, w = want;
    rec->bwd_end[i] = t;
  }
  return t;
}

/* Seconds of [start, end] inside the backward pass, which ends at `bwd`
 * if nothing else runs beside it. A message running past that end slows
 * the rest too: the bwd - start s of backward left at `start` run at
 * 1 - share of their pace beside it, so the backward ends inside the
 * message after (bwd - start) / (1 - share) s, or runs beside all of it
 * (share 1: it stops while the message runs). */
static double ovl_inside(double start, double end, double bwd, double share) {
  if (end <= bwd || start >= bwd) return fmin(end, bwd) - start;
  double left = bwd - start;
  return share < 1 ? fmin(end - start, left / (1 - share)) : end - start;
}

/* k messages of t s each, back to back from `start`: counted, the part
 * of them inside the (slowed) backward pass, which slows it further, and
 * their span when the run records. Returns their end. */
static double dp_send(ovl_run *r, double start, double t, int k) {
  dp_overlap *o = r->o;
  double end = start + k * t;
  double in = ovl_inside(start, end, r->m->bwd_s + r->shift, r->share);
  if (in > 0) {
    o->overlapped_s += in;
    /* the backward pass runs past `in` by share x in (the messages keep
     * their own times: first order) */
    r->shift += in * r->share;
  }
  dp_spans_add(o->rec, start, end);
  o->comm_s += k * t;
  o->messages += k;
  return end;
}

/* Per-tensor messages: each layer's tensors leave one by one when the
 * layer is ready. Returns the end of the last message. */
static double dp_run_tensors(ovl_run *r, dp_msg_cost cost, const void *ctx, int overlap) {
  const dp_model *m = r->m;
  double ready = 0, end = 0;
  for (int i = 0; i < m->n; i++) {
    const dp_layer *l = &m->layers[i];
    ready += l->bwd_s;
    ovl_mark(r, i, ready);
    if (l->grad_bytes <= 0) continue;
    int k = l->tensors > 0 ? l->tensors : 1;
    double t = cost(ctx, l->grad_bytes / k, 1);
    end = dp_send(r, fmax(ovl_ready(r, ready, overlap), end), t, k);
  }
  return end;
}

/* Size-capped buckets in backward order (DDP): a bucket leaves when it
 * is full (or holds the last gradient) and the previous one is done. */
static double dp_run_buckets(ovl_run *r, const dp_fusion *fu, dp_msg_cost cost,
                             const void *ctx, int overlap) {
  const dp_model *m = r->m;
  double end = 0, ready = 0, bytes = 0;
  int tensors = 0, first = 1;
  for (int i = 0; i < m->n; i++) {
    const dp_layer *l = &m->layers[i];
    ready += l->bwd_s;
    ovl_mark(r, i, ready);
    bytes += l->grad_bytes;
    tensors += l->tensors;
    double cap = first && fu->first_bytes > 0 ? fu->first_bytes : fu->bucket_bytes;
    int last = i == m->n - 1;
    if (bytes <= 0 || (bytes < cap && !last)) continue;
    double start = fmax(ovl_ready(r, ready, overlap), end);
    end = dp_send(r, start, cost(ctx, bytes, tensors), 1);
    bytes = 0, tensors = 0, first = 0;
  }
  return end;
}

/* Horovod: at each cycle tick after the previous collective, every
 * gradient ready by then (up to the fusion threshold) goes in one
 * message. */
static double dp_run_cycles(ovl_run *r, const dp_fusion *fu, dp_msg_cost cost,
                            const void *ctx, int overlap) {
  const dp_model *m = r->m;
  double end = 0, ready = 0;
  int i = 0;
  while (i < m->n) {
    const dp_layer *l = &m->layers[i];
    if (l->grad_bytes <= 0) { /* nothing to send: time only */
      ready += l->bwd_s;
      ovl_mark(r, i++, ready);
      continue;
    }
    double rl = ovl_ready(r, ready + l->bwd_s, overlap);
    /* the loop's next cycle: at once when the last one ran longer than a
     * cycle (RunLoopOnce sleeps only what is left of it), else, its
     * ticks free-running at a phase the backward does not set, half a
     * cycle after the gradient on average (ticks counted from the
     * backward's start made the wait a sawtooth of its ready time: a
     * faster GPU could wait a whole cycle longer) */
    double start = fmax(rl + 0.5 * fu->cycle_s, end);
    double bytes = 0;
    int tensors = 0;
    while (i < m->n) {
      const dp_layer *k = &m->layers[i];
      double rk = ovl_ready(r, ready + k->bwd_s, overlap);
      if (rk > start + 1e-12 || (bytes > 0 && bytes + k->grad_bytes > fu->bucket_bytes)) break;
      bytes += k->grad_bytes, tensors += k->tensors;
      ready += k->bwd_s;
      ovl_mark(r, i++, ready);
    }
    end = dp_send(r, start, cost(ctx, bytes, tensors), 1);
  }
  return end;
}

void dp_overlap_run(const dp_model *m, const dp_fusion *fu, dp_msg_cost cost, const void *ctx,
                    int overlap, double sm_share, dp_overlap *out) {
  dp_spans *rec = out->rec;
  memset(out, 0, sizeof *out);
  out->rec = rec;
  ovl_run r = {.o = out, .m = m, .share = fmin(fmax(sm_share, 0), 1)};
  int first = rec ? rec->n : 0;
  double end = fu->per_tensor   ? dp_run_tensors(&r, cost, ctx, overlap)
               : fu->cycle_s > 0 ? dp_run_cycles(&r, fu, cost, ctx, overlap)
                                 : dp_run_buckets(&r, fu, cost, ctx, overlap);
  if (rec && !rec->oom && rec->bwd_n == m->n) {
    double bwd_end = ovl_clock(rec, first, r.share);
    /* the layer-by-layer clock and the closed form agree on the end */
    assert(fabs(bwd_end - (m->bwd_s + r.shift)) <= 1e-9 * (1 + m->bwd_s + r.shift));
    (void)bwd_end;
  }
  /* the backward pass ends `shift` late; the exchange adds what runs past
   * that end, plus the slowdown itself */
  out->stretch_s = r.shift;
  out->exposed_s = r.shift + fmax(0, end - m->bwd_s - r.shift);
}
