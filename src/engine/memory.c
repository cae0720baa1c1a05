/*
 * memory.c -- memory per GPU of a pipeline stage: weights, gradients,
 * optimizer states, activations of the in-flight micro-batches, buffers.
 *
 * Activations are what each operator keeps for its backward pass
 * (src/graph/graph.c, src/lower/lower.c), which for a transformer layer
 * is Korthikanti et al. 2022 ("Reducing Activation Recomputation in Large
 * Transformer Models", Sec. 4): s b h (34 + 5 a s / h) bytes in 16-bit
 * training of an MHA layer without parallelism; tensor parallelism divides
 * the TP region, sequence parallelism the rest; selective recomputation
 * and flash attention drop the 5 a s / h term; full recomputation keeps
 * only the layer input (and rematerialises one layer at a time). The
 * schedule says how many micro-batches a stage holds at its peak.
 */
#include "cost/compute.h"
#include "cost/hostlink.h"
#include "engine/engine.h"
#include "engine/fsdp.h"
#include "pipeline/pipe.h"

#define GIB 1073741824.0

/* CUDA context, cuBLAS and NCCL workspaces and allocator slack: about
 * 1 GiB is what PyTorch reports reserved beyond tensors on an idle
 * training process (CUDA context ~0.5 GiB + NCCL/cuBLAS buffers). */
#define BUFFER_FIXED (1.0 * GIB)
/* Caching-allocator fragmentation, fraction of the rest. */
#define BUFFER_FRAG 0.05

/* Activation bytes one micro-batch of segment sg keeps under its
 * recomputation mode. */
static double seg_act(const xg_segment *sg) {
  switch (sg->recompute) {
  case SC_RECOMP_FULL: return sg->input_bytes;
  case SC_RECOMP_SELECTIVE: return sg->act_sel_bytes;
  case SC_RECOMP_NONE: break;
  }
  return sg->act_bytes;
}

void eng_memory(eng *e, int s) {
  const sc_plan *p = &e->s->plan;
  const xg *x = e->x;
  const xg_stage *st = &x->stages[s];
  sc_memory *out = &e->st[s].m;
  double eb = eng_param_bytes(p);
  double act = 0, remat = 0, offloaded = 0, off_buf = 0;
  int off_left = p->offload_layers;
  out->weights = out->gradients = out->optimizer = 0;
  for (int j = 0; j < st->n_runs; j++) {
    const xg_run *r = &x->runs[st->first_run + j];
    const xg_segment *sg = &x->segs[r->segment];
    if (sg->block < 0) continue;
    double params = r->count * xg_seg_params(sg, s);
    double dp = sg->shard > 0 ? sg->shard : (double)p->dp * sg->cp; /* ZeRO's ranks */
    /* main gradients in fp32 (Megatron's main_grad) or 16 bits */
    double gb = eb == 4 || p->main_grads == SC_FP32 ? 4 : 2;
    double w = params * eb, g = params * gb;
    /* fp8 GEMM weights: Transformer Engine keeps an fp8 copy and its
     * transpose (2 bytes) beside the 16-bit weight; with fp8 primary
     * weights (fp8_param) the fp8 copy and transpose replace it */
    double lp = r->count * sg->params_lp;
    if (lp > 0) w += lp * (p->fp8_param ? 2.0 - eb : 2.0);
    double o = params * (eb == 4 ? 8.0 : 12.0); /* fp32 master + Adam m, v */
    if (sg->zero >= 1) o /= dp;
    if (sg->zero >= 2) g /= dp;
    if (sg->zero >= 3) w /= dp;
    out->weights += w;
    out->gradients += g;
    out->optimizer += o;
    act += r->count * seg_act(sg);
    if (off_left > 0 && sg->role == WG_ROLE_LAYER) {
      /* offloaded layers' activations live in host memory; one layer's
       * worth stays as the buffer the copy in flight uses */
      int n = r->count < off_left ? r->count : off_left;
      off_left -= n;
      offloaded += n * seg_act(sg);
      if (seg_act(sg) > off_buf) off_buf = seg_act(sg);
    }
    /* one layer is rematerialised at a time during backward */
    if (sg->recompute == SC_RECOMP_FULL && sg->act_bytes > remat) remat = sg->act_bytes;
  }
  /* ZeRO-3 / FSDP: the units gathered at once (fsdp.c) */
  double gw, gg;
  fsdp_memory(e, st, eb, &gw, &gg);
  out->weights += gw;
  out->gradients += gg;
  pipe_shape shape = {p->pp, x->vpp, x->micro_batches};
  double in_flight = pipe_for(p->schedule)->in_flight(&shape, s);
  out->activations = (act - offloaded) * in_flight + remat + (offloaded > 0 ? off_buf : 0);
  double sum = out->weights + out->gradients + out->optimizer + out->activations;
  out->buffers = BUFFER_FIXED + BUFFER_FRAG * sum;
  out->total = sum + out->buffers;
  out->capacity = e->s->cluster.gpu.hbm_bytes;
  /* the offloaded activations sit in pinned CPU buffers until their
   * backward (Megatron model_parallel_config.py: "the pinned CPU buffers"
   * of cpu_offloading_retain_pinned_cpu_buffers); every GPU of the server
   * holds as much (offloading needs pp 1) */
  out->host = offloaded * in_flight * e->s->cluster.gpus_per_node;
  out->host_capacity = hostlink_capacity(&e->s->cluster);
  out->fits = out->total <= out->capacity &&
              (out->host_capacity <= 0 || out->host <= out->host_capacity);
  e->st[s].mem = out->total;
}
