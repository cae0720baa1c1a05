/*
 * memory.c -- memory per GPU: weights, gradients, optimizer states,
 * activations of the in-flight micro-batches, buffers.
 *
 * Activations follow Korthikanti et al. 2022 ("Reducing Activation
 * Recomputation in Large Transformer Models", Sec. 4): per layer and
 * micro-batch, s*b*h*(34 + 5*a*s/h) bytes in 16-bit training without
 * parallelism; tensor parallelism divides the TP region, sequence
 * parallelism the rest; selective recomputation and flash attention drop
 * the 5*a*s/h term; full recomputation keeps only the layer input.
 */
#include <math.h>

#include "engine/step.h"
#include "model/ops.h"

#define GIB 1073741824.0

/* CUDA context, cuBLAS and NCCL workspaces and allocator slack: about
 * 1 GiB is what PyTorch reports reserved beyond tensors on an idle
 * training process (CUDA context ~0.5 GiB + NCCL/cuBLAS buffers). */
#define BUFFER_FIXED (1.0 * GIB)
/* Caching-allocator fragmentation, fraction of the rest. */
#define BUFFER_FRAG 0.05

double step_stage_params(const sc_scenario *s, int stage) {
  const sc_model *m = &s->model;
  const sc_plan *p = &s->plan;
  double lp = ops_layer_params(m);
  if (m->experts > 1) {
    /* experts are split over ep, the rest replicated */
    double per_mlp = (m->act == SC_ACT_SWIGLU ? 3.0 : 2.0) * m->hidden * m->ffn;
    double experts = per_mlp * m->experts;
    lp = lp - experts + experts / (p->ep > 0 ? p->ep : 1);
  }
  double params = lp * m->layers / p->pp;
  double h = m->hidden, emb = (double)m->vocab * h;
  if (stage == 0) {
    params += emb;
    if (m->pos == SC_POS_LEARNED) params += (double)m->seq * h;
  }
  if (stage == p->pp - 1 && (!m->tied_embeddings || p->pp > 1)) params += emb;
  return params / p->tp;
}

/* Activation bytes of one layer for one micro-batch of b sequences. */
static double layer_activations(const sc_scenario *s, double b) {
  const sc_model *m = &s->model;
  const sc_plan *p = &s->plan;
  double sl = (double)m->seq / p->cp, h = m->hidden, t = p->tp;
  double a = (double)m->heads;
  double sbh = sl * b * h;
  if (p->recompute == SC_RECOMP_FULL) return 2.0 * sbh / (p->sp ? t : 1);
  double quad = 5.0 * a * sl / h; /* attention scores, softmax, dropout mask */
  if (p->recompute == SC_RECOMP_SELECTIVE || p->flash_attention) quad = 0;
  double mlp_scale = (double)m->ffn / (4.0 * h);
  if (m->act == SC_ACT_SWIGLU) mlp_scale *= 1.5;
  if (m->experts > 1) mlp_scale *= (m->topk > 0 ? m->topk : 1);
  /* 10 = norms and dropout masks outside the TP region, 24 inside it
   * (of which 16 in the MLP, scaled by its width) */
  double outside = 10.0, inside = 8.0 + 16.0 * mlp_scale + quad;
  return sbh * (outside / (p->sp ? t : 1) + inside / t);
}

/* Micro-batches whose activations stage 0 holds at the peak. */
static double in_flight(const sc_plan *p, int micro_batches) {
  double m = micro_batches;
  if (p->pp <= 1) return 1;
  if (p->schedule == SC_SCHED_GPIPE) return m;
  double f = p->pp < m ? p->pp : m;
  if (p->schedule == SC_SCHED_INTERLEAVED && p->vpp > 1)
    f *= 1.0 + (p->pp - 1.0) / (p->pp * (double)p->vpp);
  return f;
}

void step_memory(const sc_scenario *s, int micro_batches, sc_memory *out) {
  const sc_model *m = &s->model;
  const sc_plan *p = &s->plan;
  double dp = (double)p->dp * p->cp;
  double P = step_stage_params(s, 0);
  double Plast = step_stage_params(s, p->pp - 1);
  if (Plast > P) P = Plast;
  double e = p->dtype == SC_FP32 || p->dtype == SC_TF32 ? 4 : 2;
  double b = (double)p->micro_batch;

  out->weights = P * e;
  out->gradients = P * (e < 4 ? 4 : e); /* fp32 gradient accumulation buffer */
  out->optimizer = P * 12.0;             /* fp32 master weights + Adam m, v */
  if (e == 4) out->optimizer = P * 8.0;  /* fp32 training: no master copy */
  if (p->zero >= 1) out->optimizer /= dp;
  if (p->zero >= 2) out->gradients /= dp;
  if (p->zero >= 3) {
    /* sharded weights plus the gathered layers in flight (this one and
     * the prefetched next one) */
    double lp = ops_layer_params(m) / p->tp;
    out->weights = out->weights / dp + 2.0 * lp * e;
    out->gradients += 2.0 * lp * e;
  }
  double layers = (double)m->layers / p->pp;
  double act = layer_activations(s, b) * layers * in_flight(p, micro_batches);
  if (p->recompute == SC_RECOMP_FULL) {
    /* one layer is rematerialised at a time during backward */
    sc_scenario tmp = *s;
    tmp.plan.recompute = SC_RECOMP_NONE;
    act += layer_activations(&tmp, b);
  }
  /* last stage: fp32 logits for the loss (when pp == 1 also stage 0) */
  if (p->pp == 1)
    act += b * ((double)m->seq / p->cp) * ((double)m->vocab / p->tp) * (e + 4);
  out->activations = act;
  double sum = out->weights + out->gradients + out->optimizer + act;
  out->buffers = BUFFER_FIXED + BUFFER_FRAG * sum;
  out->total = sum + out->buffers;
  out->capacity = s->cluster.gpu.hbm_bytes;
  out->fits = out->total <= out->capacity;
}
