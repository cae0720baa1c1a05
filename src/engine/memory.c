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
#include <assert.h>
#include <string.h>

#include "cost/amp.h"
#include "cost/compute.h"
#include "cost/fp8cast.h"
#include "cost/hostlink.h"
#include "engine/engine.h"
#include "engine/fsdp.h"
#include "model/optimizer.h"
#include "pipeline/pipe.h"
#include "plan/plan.h"

#define GIB 1073741824.0

/* CUDA context, cuBLAS and NCCL workspaces and allocator slack: about
 * 1 GiB is what PyTorch reports reserved beyond tensors on an idle
 * training process (CUDA context ~0.5 GiB + NCCL/cuBLAS buffers). */
#define BUFFER_FIXED (1.0 * GIB)
/* Caching-allocator fragmentation: a fraction (an assumption, not a
 * measurement) of what the step allocates and frees again -- the
 * activations and, under ZeRO-3, the gathered units. The persistent state
 * is allocated once, in whole buffers, before the first step: Megatron's
 * ParamAndGradBuffer takes one torch.zeros for its parameters and one for
 * its gradients (../shared/reference/megatron-lm/megatron/core/
 * distributed/param_and_grad_buffer.py), FSDP its flat or sharded
 * parameters, Apex's DistributedFusedAdam contiguous buffers; PyTorch's
 * caching allocator rounds such blocks up to 2 MiB only, so they leave
 * no holes to speak of. */
#define BUFFER_FRAG 0.05

/* Optimizer state bytes per parameter (before ZeRO's sharding): the
 * optimizer's own (state, the graph's: Adam's m and v in fp32 8, momentum
 * 4, plain SGD 0; model/optimizer.c; the precision-aware optimizer's
 * moments at plan.exp_avg_dtype and exp_avg_sq_dtype, optim_state_bytes),
 * plus, for 16-bit parameters, the master weight: fp32 (4), fp16 under
 * plan.main_params_dtype (2), or only the fp32 master's low 16 bits (2)
 * where the optimizer keeps the remainders the bf16 parameter lacks (Apex
 * DistributedFusedAdam's store_param_remainders, plan.param_remainders;
 * optim_master_bytes). Under AMP eb is 4 (eng_param_bytes): the fp32
 * parameters are what the optimizer updates, no master copy. */
static double opt_bytes(const sc_plan *p, double eb, double state) {
  state = optim_state_bytes(p, state);
  if (eb == 4) return state;
  return state + optim_master_bytes(p);
}

/* 1 when segment sg's shards are PyTorch FSDP's fp32 parameters: FSDP1
 * and FSDP2 under mixed precision keep each sharded parameter in its
 * original dtype, fp32, and cast it to the 16-bit param_dtype only for
 * the all-gather (FSDP2: foreach_all_gather's copy-in allocates the
 * param_dtype buffer and copies the shard into it, ../shared/reference/
 * pytorch/torch/distributed/fsdp/_fully_shard/_fsdp_collectives.py; the
 * reduced gradient is cast back to orig_dtype before it is accumulated,
 * ibid. foreach_reduce; FSDP1: the flat parameter's fp32 _local_shard and
 * its transient low-precision _mp_shard, PyTorch 1.13's
 * fully_sharded_data_parallel.py, read in Debian's python3-torch 1.13 --
 * the cast fsdp1k.c already costs). The optimizer is built on those fp32
 * shards, so there is no master copy beside them: 4 bytes of weight and
 * the optimizer's state per sharded parameter, against 2 + 4 + state for a
 * 16-bit parameter with an fp32 master (DeepSpeed's ZeRO-3, Megatron).
 * bf16 and fp16 plans only: fp8 plans keep Transformer Engine's copies
 * (lp_bytes), and AMP's parameters are fp32 already. */
static int fsdp_fp32_shards(const sc_plan *p, const xg_segment *sg, double eb) {
  return sg->zero >= 3 && eb == 2 && (p->dtype == SC_BF16 || p->dtype == SC_FP16) &&
         (p->fsdp_impl == SC_FSDP1 || p->fsdp_impl == SC_FSDP2);
}

/* Bytes per GEMM or convolution weight of the 16-bit copies AMP makes in
 * each forward and autograd keeps for that op's backward, which needs the
 * weight for its input gradient: autocast casts a weight once per autocast
 * region (its weight cast cache, cleared when the region exits:
 * torch/amp/autocast_mode.py __exit__, torch.clear_autocast_cache; read
 * in Debian's python3-torch 1.13, not in ../shared/reference) and the
 * cast tensor is what the GEMM saves; TensorFlow's AMP rewrite keeps its
 * Cast node's output for the gradient op likewise. So every micro-batch
 * between its forward and its backward holds one 16-bit copy of those
 * weights (tied ones too: a tied head casts the embedding table), an
 * activation by lifetime; under full recomputation the forward keeps
 * nothing for backward and the copies live one forward (the cache), the
 * recomputation then casting one layer at a time. Norm, embedding and
 * batch-norm weights are not cast (autocast's fp32 list, no list, cuDNN's
 * batch norm takes fp32 scale and bias). 2 bytes: fp16 or bf16. */
#define AMP_COPY_BYTES 2.0

/* Bytes of AMP's 16-bit weight copies of run r (segment sg): *kept those
 * held per micro-batch in flight, *once those held by one forward. */
static void amp_copies(const sc_plan *p, const xg_run *r, const xg_segment *sg, double *kept,
                       double *once) {
  if (!amp_on(p)) return;
  double b = r->count * sg->params_cast * AMP_COPY_BYTES;
  if (sg->recompute == SC_RECOMP_FULL) *once += b;
  else *kept += b;
}

/* Bytes per weight of the low-precision copies Transformer Engine keeps
 * of a GEMM weight between micro-batches (cached on the first one,
 * is_first_microbatch): in fp8 what its weight quantizer writes
 * (cost/fp8cast.c, the same bytes its cast costs) -- per-tensor recipes
 * an fp8 copy and, on Hopper, its transpose (2; Blackwell's fp8 GEMMs
 * take any layout: 1); the block recipes a rowwise and a columnwise copy
 * with their scales (MXFP8: 2 x (1 + 1/32)). fp4: 2, as a pair of fp8
 * copies (NVFP4's packed 4-bit copies are not modelled). */
static double lp_bytes(const eng *e) {
  const sc_plan *p = &e->s->plan;
  if (p->dtype != SC_FP8) return 2.0;
  return fp8c_weight_bytes(p->fp8_recipe, 0, e->s->cluster.gpu.arch < 100);
}

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

void eng_memory_pass(eng *e) { e->mem_pass++; }

/* One run's step of the backward sweep of a step that frees its
 * gradients (freed_peak): when the backward has passed the runs after a
 * boundary, the runs before it still hold their activations and those
 * after it their gradients. *d is the activations less the gradients of
 * the runs summed so far (forward order), m->rise its largest value at a
 * boundary between two runs (0 when none is above 0: the backward's end).
 * Within a run of like layers the sum moves linearly, so its ends are the
 * boundaries to look at. A layer's backward frees its saved activations
 * node by node as it makes its gradients (autograd releases a node's
 * saved tensors once the node has run; AccumulateGrad allocates .grad
 * there): its two ends bound it, kept or rebuilt alike. A fully
 * recomputed layer first rebuilds what its forward dropped (remat bytes
 * beyond the input it kept: Megatron's CheckpointFunction.backward runs
 * the forward again, then the backward), all of it held with none of its
 * gradients made yet, so at its backward's start: beside the run's state
 * with the run not begun (the end where its gradients are unmade) or with
 * one layer of it left, whichever is larger. An offloaded layer brought
 * back from the host likewise (remat: its activations). m->rise_remat:
 * the most of that over such runs (a layer is rebuilt only inside its own
 * run: a boundary elsewhere holds none), which may exceed m->rise where
 * every boundary's value is below 0. (It was counted beside the larger of
 * the run's ends, which is the one with the run's gradients made when
 * they outweigh its kept activations: a rebuilt layer was held beside its
 * own finished gradients, a kept one never; full recomputation came out
 * above selective, tests/test_metamorphic.c.) kept: the run's activations
 * held on the GPU; g: its gradients; count: its layers; first: no run
 * before it. */
static void sweep_run(eng_memsum *m, double *d, int first, double kept, double g, double remat,
                      int count) {
  /* the gradients the backward has not made yet at the run's two ends:
   * the runs' before it (m->gradients holds this run's already) */
  double g_start = m->gradients - g, g_end = m->gradients;
  if (!first && *d > m->rise) m->rise = *d, m->rise_g = g_start;
  double before = *d;
  *d += kept - g;
  if (remat <= 0) return;
  double n = count > 0 ? count : 1, last = before + (kept - g) / n; /* one layer left */
  double in = (last > *d ? last : *d) + remat;
  if (in > m->rise_remat) m->rise_remat = in, m->rise_remat_g = last > *d ? g_start + g / n : g_end;
}

/* What the runs of stage s add up to. It reads the stage's runs and,
 * through xg_seg_params, only whether s is the first stage (stages after
 * it hold the tied weights again): the same for two stages with the same
 * runs on the same side of stage 0. */
static void sums_of(const eng *e, int s, eng_memsum *m) {
  const sc_plan *p = &e->s->plan;
  const xg *x = e->x;
  const xg_stage *st = &x->stages[s];
  double eb = eng_param_bytes(p);
  int off_left = p->offload_layers, seen_layer = 0, first = 1;
  double tail = 0; /* after the last layer run so far */
  double d = 0;    /* sweep_run's */
  int ddp = plan_ddp_buckets(p);
  memset(m, 0, sizeof *m);
  for (int j = 0; j < st->n_runs; j++) {
    const xg_run *r = &x->runs[st->first_run + j];
    const xg_segment *sg = &x->segs[r->segment];
    if (sg->block < 0) continue;
    double params = r->count * xg_seg_params(sg, s);
    /* main gradients in fp32 (Megatron's main_grad) or 16 bits */
    double gb = eb == 4 || p->main_grads == SC_FP32 ? 4 : 2;
    double w = params * eb, g = params * gb;
    /* fp8 GEMM weights: Transformer Engine keeps its fp8 copies beside
     * the 16-bit weight; with fp8 primary weights (fp8_param) they
     * replace it */
    double lp = r->count * sg->params_lp;
    if (lp > 0) w += lp * (p->fp8_param ? lp_bytes(e) - eb : lp_bytes(e));
    double o = params * opt_bytes(p, eb, e->g->opt.state_bytes_per_param); /* master + state */
    if (fsdp_fp32_shards(p, sg, eb)) { /* the fp32 shard is the master */
      w = params * 4;
      o = params * e->g->opt.state_bytes_per_param;
    }
    /* ZeRO's ranks: the dense part's shard, the experts' own
     * (xg_seg_sharded; the fp8 copies split as the parameters do) */
    if (sg->zero >= 1) o = xg_seg_sharded(sg, o, params, r->count);
    if (sg->zero >= 2) g = xg_seg_sharded(sg, g, params, r->count);
    if (sg->zero >= 3) w = xg_seg_sharded(sg, w, params, r->count);
    m->weights += w;
    m->gradients += g;
    if (ddp) m->buckets += g;
    m->optimizer += o;
    double a = r->count * seg_act(sg);
    amp_copies(p, r, sg, &a, &m->copies_once);
    m->act += a;
    double kept = a, reload = 0;
    if (sg->role == WG_ROLE_LAYER) {
      seen_layer = 1;
      tail = 0;
    } else if (!seen_layer) {
      m->act_head += a;
    } else {
      tail += a;
    }
    if (off_left > 0 && sg->role == WG_ROLE_LAYER) {
      /* offloaded layers' activations live in host memory; one layer's
       * worth stays as the buffer the copy in flight uses */
      int n = r->count < off_left ? r->count : off_left;
      off_left -= n;
      m->offloaded += n * seg_act(sg);
      kept -= n * seg_act(sg);
      if (seg_act(sg) > m->off_buf) m->off_buf = seg_act(sg);
      if (n > 0) reload = seg_act(sg);
    }
    /* one layer is rematerialised at a time during backward; an
     * offloaded one's activations come back for its backward as one
     * layer's (no recomputation with offloading) */
    double remat = sg->recompute == SC_RECOMP_FULL ? sg->act_bytes : 0;
    double rebuilt = remat > sg->input_bytes ? remat - sg->input_bytes : 0;
    sweep_run(m, &d, first, kept, g, remat > 0 ? rebuilt : reload, r->count);
    first = 0;
    if (remat > m->remat) m->remat = remat;
    if (sg->bwd_extra_bytes > m->bwd_extra) m->bwd_extra = sg->bwd_extra_bytes;
    /* stage 0 holds the embedding: a tied head there is its second use */
    if (s == 0 && sg->zero < 2) m->tied_grad += r->count * sg->tied_params * gb;
  }
  m->act_tail = tail;
  /* ZeRO-3 / FSDP: the units gathered at once (fsdp.c) */
  fsdp_memory(e, st, eb, &m->gw, &m->gg);
}

/* DualPipe's rank s holds stage s's layers and stage pp-1-s's (DeepSeek-
 * V3's table 2: "2x" parameters): their weights, gradients and optimizer
 * states add up, and a micro-batch's activations are the mean of the two
 * stages' (half of the pp + 1 in flight run through each). *m: stage s's
 * sums, made the rank's. */
static void dual_sums(const eng *e, int s, eng_memsum *m) {
  eng_memsum z;
  sums_of(e, e->x->n_stages - 1 - s, &z);
  m->weights += z.weights, m->gradients += z.gradients, m->optimizer += z.optimizer;
  m->gw += z.gw, m->gg += z.gg, m->copies_once += z.copies_once, m->tied_grad += z.tied_grad;
  m->buckets += z.buckets;
  if (z.rise > m->rise) m->rise = z.rise, m->rise_g = z.rise_g;
  if (z.rise_remat > m->rise_remat) m->rise_remat = z.rise_remat, m->rise_remat_g = z.rise_remat_g;
  m->act = (m->act + z.act) / 2, m->offloaded = (m->offloaded + z.offloaded) / 2;
  m->act_head = (m->act_head + z.act_head) / 2, m->act_tail = (m->act_tail + z.act_tail) / 2;
  if (z.remat > m->remat) m->remat = z.remat;
  if (z.bwd_extra > m->bwd_extra) m->bwd_extra = z.bwd_extra;
  if (z.off_buf > m->off_buf) m->off_buf = z.off_buf;
}

/* 1 when stage s's chunks hold different numbers of layers may matter:
 * the schedule counts its chunks apart and the plan splits the layers
 * unevenly (a layout key; the even split gives every chunk as many). */
static int chunks_apart(const sc_plan *p, const pipe_sched *ps, const pipe_shape *shape) {
  return shape->vpp > 1 && ps->chunk_in_flight &&
         (p->n_pp_layout > 0 || p->pp_first_layers > 0 || p->pp_last_layers > 0 ||
          p->pp_embedding_in_split || p->pp_loss_in_split);
}

/* Micro-batches in flight on stage s for its layers: the schedule's
 * count per model chunk (pipe_chunk_in_flight) weighted by the chunk's
 * layers lay (plan_stage_layers' split), or in_flight itself where lay is
 * NULL (one chunk, or equal ones). The runs do not say which chunk a
 * layer is in (a run spans chunks), so a chunk's layers are taken as
 * alike. */
static double layers_in_flight(const sc_plan *p, int s, const pipe_sched *ps,
                               const pipe_shape *shape, const int *lay) {
  if (!lay) return ps->in_flight(shape, s);
  double sum = 0, n = 0;
  for (int k = 0; k < shape->vpp; k++) {
    sum += lay[k * p->pp + s] * ps->chunk_in_flight(shape, s, k);
    n += lay[k * p->pp + s];
  }
  return n > 0 ? sum / n : ps->in_flight(shape, s);
}

/* The layers of each virtual stage into e->lay, made once per pass of
 * eng_memory over the stages; NULL where chunks_apart is not. */
static const int *chunk_layers(eng *e, const pipe_sched *ps, const pipe_shape *shape) {
  const sc_plan *p = &e->s->plan;
  if (!chunks_apart(p, ps, shape)) return NULL;
  if (e->lay_pass != e->mem_pass) {
    e->lay_pass = e->mem_pass;
    e->lay_ok = p->pp * shape->vpp <= SC_MAX_PP_LAYOUT &&
                plan_stage_layers(p, e->g->layers, shape->vpp, e->lay, NULL) == SC_OK;
  }
  return e->lay_ok ? e->lay : NULL;
}

/* Activation bytes stage s holds at its peak: the runs before its first
 * layer times the micro-batches its first chunk holds, those after its
 * last layer times its last chunk's, the layers times layers_in_flight
 * (in_flight for all of them with one chunk). */
static double act_in_flight(eng *e, int s, const eng_memsum *m, const pipe_sched *ps,
                            const pipe_shape *shape) {
  double mid = m->act - m->act_head - m->act_tail - m->offloaded;
  if (shape->vpp <= 1 || !ps->chunk_in_flight)
    return (mid + m->act_head + m->act_tail) * ps->in_flight(shape, s);
  double a = mid * layers_in_flight(&e->s->plan, s, ps, shape, chunk_layers(e, ps, shape));
  if (m->act_head > 0) a += m->act_head * ps->chunk_in_flight(shape, s, 0);
  if (m->act_tail > 0) a += m->act_tail * ps->chunk_in_flight(shape, s, shape->vpp - 1);
  return a;
}

/* 1 when the gradients of plan p's step x are freed between steps
 * (plan_grads_freed) and the step runs one micro-batch per pipeline:
 * then no gradient exists during its forward, and its backward allocates
 * them as it frees the activations. With two or more, the first
 * micro-batch's gradients are held through the others' forwards, and the
 * peak is the sum, as with gradients kept. */
static int grads_freed_once(const sc_plan *p, const xg *x) {
  return x->micro_batches == 1 && plan_grads_freed(p);
}

/* The most that the activations and the gradients of a step that frees
 * its gradients hold together once its backward has begun, bytes: the
 * gradients (all of them at the backward's end) and, on a stage whose
 * tied head shares the embedding's table, that table's second gradient,
 * plus the larger of the sweep's rise (sweep_run: activations still held
 * where the backward has already made the gradients of the runs after
 * them -- a VGG's classifier, most of its parameters, before its
 * convolutions, most of its activations) and, within a fully recomputed
 * or offloaded run, the layer it rematerialises or brings back beside the
 * larger of that run's ends (m->rise_remat; a boundary below 0 can still
 * leave it above 0), which
 * fall at different moments: the larger, not their sum. The tied table's
 * second gradient adds to either: the head's backward, early, makes the
 * table's gradient (while the head's input is still held), which the
 * sweep counts only with the embedding's run, last, and the embedding's
 * backward allocates its own and adds it in place (autograd's
 * AccumulateGrad, variable_grad += new_grad): from the head's backward to
 * the end the table's gradient is held once more than the sweep says. */
static double freed_end(const eng_memsum *m) {
  double in = m->rise > m->rise_remat ? m->rise : m->rise_remat;
  return m->gradients + m->tied_grad + in;
}

/* Of freed_end's bytes, the gradients not made yet at its moment (the
 * runs' before the boundary, or before the rebuilt layer's run end):
 * sweep_run's excess is the activations those runs hold less these. */
static double freed_end_unmade(const eng_memsum *m) {
  return m->rise > m->rise_remat ? m->rise_g : m->rise_remat_g;
}

/* The peak of a step whose gradients are freed between steps and which
 * runs one micro-batch (grads_freed_once), out's parts made those held
 * at that moment: the backward's start (out->activations as summed, with
 * the loss's transient, and no gradient) or, where larger, freed_end's
 * (every gradient, reported with the gradients; the activations and
 * transients then held, with the activations). FSDP's gathered units
 * (gw, gg) and DDP's buckets are held at both as before. Returns the gradient bytes now
 * among what the step allocates and frees (their allocator slack), 0
 * where the backward's start is the peak. */
static double freed_peak(const eng_memsum *m, sc_memory *out) {
  double end = freed_end(m);
  if (out->activations >= end) {
    out->gradients = m->gg + m->buckets;
    return 0;
  }
  /* held at that moment: the gradients made so far and the tied table's
   * second one; the activations of the runs whose backward is to come
   * (the sweep's excess plus those runs' unmade gradients) */
  double made = m->gradients - freed_end_unmade(m) + m->tied_grad;
  out->gradients = made + m->gg + m->buckets;
  out->activations = end - made;
  return made;
}

void eng_memory(eng *e, int s) {
  const sc_plan *p = &e->s->plan;
  const xg *x = e->x;
  const xg_stage *st = &x->stages[s];
  sc_memory *out = &e->st[s].m;
  /* a stage with the runs of an earlier one on its side of stage 0 (a
   * pipeline's middle stages) sums what that one summed in this pass */
  int t = st->same_as;
  eng_memsum m;
  if (t >= 0 && t < s && (t > 0) == (s > 0) && e->st[t].sums_pass == e->mem_pass) {
    m = e->st[t].sums;
#ifdef SC_DEBUG_CHECKS
    eng_memsum fresh;
    sums_of(e, s, &fresh);
    assert(!memcmp(&fresh, &m, sizeof m));
#endif
  } else {
    sums_of(e, s, &m);
  }
  e->st[s].sums = m;
  e->st[s].sums_pass = e->mem_pass;
  if (p->schedule == SC_SCHED_DUALPIPE && x->n_stages == p->pp) dual_sums(e, s, &m);
  out->weights = m.weights + m.gw;
  out->gradients = m.gradients + m.gg + m.buckets;
  out->optimizer = m.optimizer;
  pipe_shape shape = pipe_shape_of(p->schedule, p->pp, x->vpp, x->micro_batches);
  const pipe_sched *ps = pipe_for(p->schedule);
  double in_flight = ps->in_flight(&shape, s);
  /* one backward transient at a time: a layer rematerialised, or the
   * loss's gradients (the loss's backward ends before the last layer's
   * recomputation starts) */
  double transient = m.remat > m.bwd_extra ? m.remat : m.bwd_extra;
  out->activations = act_in_flight(e, s, &m, ps, &shape) + transient +
                     (m.offloaded > 0 ? m.off_buf : 0) + m.copies_once;
  /* what the step allocates and frees again: the activations, FSDP's
   * gathered units, and gradients freed between steps */
  double freed = 0;
  e->st[s].act_all = out->activations;
  if (grads_freed_once(p, x)) freed = freed_peak(&m, out);
  double sum = out->weights + out->gradients + out->optimizer + out->activations;
  out->buffers = BUFFER_FIXED + BUFFER_FRAG * (out->activations + m.gw + m.gg + freed);
  out->total = sum + out->buffers;
  out->capacity = e->s->cluster.gpu.hbm_bytes;
  /* the offloaded activations sit in pinned CPU buffers until their
   * backward (Megatron model_parallel_config.py: "the pinned CPU buffers"
   * of cpu_offloading_retain_pinned_cpu_buffers); every GPU of the server
   * holds as much (offloading needs pp 1) */
  out->host = m.offloaded * in_flight * e->s->cluster.gpus_per_node;
  out->host_capacity = hostlink_capacity(&e->s->cluster);
  out->headroom = 0; /* a caller's --headroom is set by that caller */
  out->fits = out->total <= out->capacity &&
              (out->host_capacity <= 0 || out->host <= out->host_capacity);
  e->st[s].mem = out->total;
}

static double larger(double a, double b) { return a > b ? a : b; }

/* The least a fully recomputed layer segment of stage s keeps beyond its
 * input (act_bytes - input_bytes, bytes per micro-batch); -1 when one
 * keeps less than its input; 0 when it has none. */
static double least_gain(const xg *x, int s) {
  const xg_stage *st = &x->stages[s];
  double least = -1;
  for (int j = 0; j < st->n_runs; j++) {
    const xg_segment *sg = &x->segs[x->runs[st->first_run + j].segment];
    if (sg->recompute != SC_RECOMP_FULL) continue;
    double d = sg->act_bytes - sg->input_bytes;
    if (d < 0) return -1;
    if (sg->role == WG_ROLE_LAYER && (least < 0 || d < least)) least = d;
  }
  return least < 0 ? 0 : least;
}

/* Layers of stage s that recomputing only the first n of each of its
 * chunks leaves not recomputed (plan_stage_layers' split). */
static long layers_left(const sc_plan *p, int layers, int vpp, int s, int n) {
  int lay[SC_MAX_PP_LAYOUT];
  if (p->pp * vpp > SC_MAX_PP_LAYOUT || plan_stage_layers(p, layers, vpp, lay, NULL) != SC_OK)
    return 0;
  long left = 0;
  for (int k = 0; k < vpp; k++)
    if (lay[k * p->pp + s] > n) left += lay[k * p->pp + s] - n;
  return left;
}

/* Partial recomputation (the first n layers of each chunk fully
 * recomputed, the others not: lower.c) changes only the layer segments'
 * mode, from full to none; weights, gradients, optimizer states, the
 * micro-batches in flight and every other segment stay. A layer that is
 * no longer recomputed keeps its activations (act_bytes, at least the
 * stage's least_gain more than the input_bytes it kept) per micro-batch
 * in flight, and AMP's weight copies per micro-batch in flight instead of
 * once (in_flight >= 1); only the largest layer rematerialised
 * (sums.remat) and FSDP's gathered units (gw, gg: not compared here) may
 * shrink. Each byte of activations brings its allocator slack
 * (BUFFER_FRAG). So stage s's total, less those that may shrink, plus the
 * layers left times least_gain per micro-batch in flight, is a lower bound
 * of the partial plan's; less 1e-9 of it for the rounding of the sums.
 * Where the gradients are freed between steps and one micro-batch runs
 * (freed_peak), the total holds the larger of the activations A and the
 * backward's later peak E (freed_end, each with its slack), and the
 * partial plan's E is at least the gradients' end G (gradients and the
 * tied table's second one): the growth is at least max(A + gain - remat,
 * G) - max(A, E). */
double eng_memory_floor_partial(const eng *e, int s, int n) {
  const sc_plan *p = &e->s->plan;
  const eng_stage *es = &e->st[s];
  if (p->recompute != SC_RECOMP_FULL || p->recompute_layers > 0 || p->offload_layers > 0 ||
      p->n_overrides > 0 || n < 1)
    return 0;
  double gain = least_gain(e->x, s);
  const pipe_sched *ps = pipe_for(p->schedule);
  pipe_shape shape = pipe_shape_of(p->schedule, p->pp, e->x->vpp, e->x->micro_batches);
  int lay[SC_MAX_PP_LAYOUT];
  int apart = chunks_apart(p, ps, &shape) && p->pp * shape.vpp <= SC_MAX_PP_LAYOUT &&
              plan_stage_layers(p, e->g->layers, shape.vpp, lay, NULL) == SC_OK;
  double in_flight = layers_in_flight(p, s, ps, &shape, apart ? lay : NULL);
  if (gain < 0 || in_flight < 1) return 0;
  if (gain > 0) gain *= in_flight * layers_left(p, e->g->layers, e->x->vpp, s, n);
  double grow = gain - es->sums.remat;
  if (grads_freed_once(p, e->x)) {
    /* the partial plan's sweep may rise less (a smaller remat): its
     * backward's end alone is certain */
    double a = es->act_all, end = es->sums.gradients + es->sums.tied_grad;
    grow = larger(a + grow, end) - larger(a, freed_end(&es->sums));
  }
  double f = es->m.total + (1 + BUFFER_FRAG) * (grow - es->sums.gw - es->sums.gg);
  f *= 1 - 1e-9;
  return f > 0 ? f : 0;
}
