/*
 * validate.c -- run the predictor over measurement CSVs; see validate.h.
 *
 * How a training row becomes a scenario (blank cells are "not published";
 * the choice is what the row's framework would have used):
 *   - activation GELU, LayerNorm, learned positions, tied embeddings and
 *     biases (GPT/Megatron/MPT rows); `kv_heads` blank = heads, `ffn`
 *     blank = 4 x hidden;
 *   - flash attention when the row's notes say "flash attention" (MPT),
 *     else the framework's (rowd_attention: cuDNN's through Transformer
 *     Engine for Megatron-Core, MaxText, and Megatron-LM in fp8/fp4 or on
 *     Blackwell), else the unfused attention of Megatron/Megatron-DeepSpeed; the
 *     generation is the one the notes name ("FlashAttention-2", "FA3"),
 *     else the one the row's framework shipped when the source was
 *     published (flash_generation below), else FlashAttention-2;
 *   - recompute blank = none; micro_batch blank = picked by
 *     sc_scenario_resolve; dp blank = gpus / (tp*pp*cp); vpp blank = 1,
 *     vpp > 1 = interleaved 1F1B; the spellings of coded cells, the
 *     blanks other sources leave and the layout cells beyond the schema:
 *     validate/rowtrain.c (each said in the row's `assumed` text);
 *   - an eager PyTorch framework (host launch overhead counts);
 *   - zero = 3 is FSDP (FULL_SHARD): gathers and reduce-scatters are
 *     prefetched and overlapped with the layers' compute, as FSDP always
 *     does; zero < 3 is Megatron-LM / Megatron-DeepSpeed, whose default
 *     reduces gradients after the backward pass (Megatron-LM's
 *     --overlap-grad-reduce is opt-in; Megatron-DeepSpeed rows say "no
 *     gradient buckets").
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "coll/coll.h"
#include "core/clock.h"
#include "core/dtype.h"
#include "core/mem.h"
#include "core/vec.h"
#include "load/csv.h"
#include "validate/collrow.h"
#include "validate/dp_rows.h"
#include "validate/recsys_rows.h"
#include "validate/rowdefaults.h"
#include "validate/rowgpu.h"
#include "validate/rowmem.h"
#include "validate/rowmoe.h"
#include "validate/rowtrain.h"
#include "validate/rowvalues.h"
#include "validate/validate.h"

/* Column lookup and typed parsing of the current record. */
typedef struct row_ctx {
  const csv_file *f;
  const char *path;
  sc_error *err;
  int bad;              /* set when a field failed to parse */
  int event;            /* 1 = training rows through the event engine */
} row_ctx;

static const char *cell(row_ctx *c, const char *col) {
  return csv_get(c->f, csv_col(c->f, col));
}

/* A number in column col; `dflt` when blank; sets c->bad on garbage. */
static double num(row_ctx *c, const char *col, double dflt, double min) {
  return csv_num(c->f, c->path, col, dflt, min, &c->bad, c->err);
}

/* A whole number in min..max in column col (`dflt` when blank): a
 * fraction, or a value beyond max, is an error naming the cell (never
 * truncated or wrapped). */
static long whole(row_ctx *c, const char *col, long dflt, long min, long max) {
  double v = num(c, col, (double)dflt, (double)min);
  if (!c->bad && (v != floor(v) || v > (double)max)) {
    char want[64];
    snprintf(want, sizeof want, "a whole number in %ld..%ld", min, max);
    csv_malformed(c->f, c->path, col, want, &c->bad, c->err);
  }
  return c->bad ? dflt : (long)v;
}

/* Counts of a row (layers, degrees, GPUs): the scenario's limit. */
#define VAL_MAX_COUNT (1L << 24)

static int integer(row_ctx *c, const char *col, int dflt, int min) {
  return (int)whole(c, col, dflt, min, VAL_MAX_COUNT);
}

/* Append r to vf->rows; 0, or -1 when out of memory (nothing added). */
static int add_row(val_file *vf, const val_row *r) {
  if (vec_grow((void **)&vf->rows, &vf->cap, vf->n + 1L, sizeof *vf->rows)) return -1;
  vf->rows[vf->n++] = *r;
  return 0;
}

/* Fill scenario from a training row. Returns SC_OK, SC_EINPUT (malformed
 * row: err set) or SC_EMODEL (cannot model: reason in `why`). */
static int training_scenario(row_ctx *c, sc_scenario *s, char *why, size_t wn, char *assumed,
                             size_t an) {
  sc_scenario_default(s);
  memset(&s->model, 0, sizeof s->model);
  s->model.kind = SC_MODEL_TRANSFORMER;
  snprintf(s->model.name, sizeof s->model.name, "%s", cell(c, "model"));
  sc_transformer *m = &s->model.tf;
  m->layers = integer(c, "layers", 0, 1);
  m->hidden = integer(c, "hidden", 0, 1);
  m->heads = integer(c, "heads", 0, 1);
  m->kv_heads = integer(c, "kv_heads", m->heads, 1);
  m->ffn = integer(c, "ffn", 4 * m->hidden, 1);
  m->vocab = integer(c, "vocab", 0, 1);
  m->seq = integer(c, "seq", 0, 1);
  m->experts = integer(c, "experts", 0, 0);
  m->topk = integer(c, "topk", m->experts > 1 ? 2 : 0, 0);
  const char *notes = cell(c, "notes");
  rowd_architecture(cell(c, "model"), notes, m, NULL, 0);
  /* blank shape cells, and what the named preset adds: validate/rowtrain.c */
  if (rowt_model(c->f, cell(c, "model"), m, why, wn, assumed, an))
    return c->bad ? SC_EINPUT : SC_EMODEL;

  sc_plan *p = &s->plan;
  sc_plan_default(p);
  p->global_batch = whole(c, "global_batch", 0, 1, 1L << 40);
  p->micro_batch = whole(c, "micro_batch", 0, 1, 1L << 40);
  p->tp = integer(c, "tp", 1, 1);
  p->pp = integer(c, "pp", 1, 1);
  p->dp = integer(c, "dp", 0, 1); /* blank: gpus / (tp*pp*cp), resolved */
  p->cp = integer(c, "cp", 1, 1);
  p->ep = integer(c, "ep", 1, 1);
  p->vpp = integer(c, "vpp", 0, 1);
  p->schedule = p->vpp > 1 ? SC_SCHED_INTERLEAVED : SC_SCHED_1F1B;
  /* sp, zero, recompute, dtype in their spellings: validate/rowtrain.c */
  rowt_plan_cells(c->f, c->path, p, assumed, an, &c->bad, c->err);
  const char *gname = cell(c, "gpu");
  const sc_gpu *g = rowg_gpu(gname, assumed, an); /* validate/rowgpu.h */
  if (!g) {
    snprintf(why, wn, *gname ? "unknown GPU '%.60s' (no preset)" : "gpu is blank (required)",
             gname);
    return c->bad ? SC_EINPUT : SC_EMODEL;
  }
  rowd_framework fw = rowd_framework_of(notes);
  rowd_attention(notes, fw, g->arch, p);
  rowd_overlap(notes, fw, p);
  rowd_fsdp(notes, fw, p);
  rowmem_defaults(notes, p); /* validate/rowmem.c: what the framework keeps in memory */
  int lrc = rowt_layout(c->f, c->path, notes, p, why, wn, assumed, an, &c->bad, c->err);
  if (lrc) return c->bad ? SC_EINPUT : lrc; /* etp, pp layout, HSDP, sp: rowtrain.c */
  if (rowd_pipeline_layout(fw, m->layers, p))
    rowv_note(assumed, an, "embedding and loss counted as layers in the pipeline split");
  if (rowm_moe_columns(notes, cell(c, "moe_dispatcher"), cell(c, "moe_router_num_groups"),
                       cell(c, "moe_router_group_topk"), fw, p) &&
      m->experts > 1 && p->ep > 1) /* validate/rowmoe.c */
    rowv_note(assumed, an, "MoE dispatcher %s (%s default; the notes name none)",
              p->moe_dispatcher == SC_MOE_ALLTOALL ? "alltoall" : "allgather",
              p->moe_dispatcher == SC_MOE_ALLTOALL ? "NeMo's MoE configs'" : "Megatron's");
  if (m->experts <= 1) /* a dense row's "num_groups" is not a router's (GroupNorm's) */
    p->moe_router_groups = p->moe_router_group_topk = 0;
  p->fused_kernels = 1;
  p->distributed_optimizer = 0;
  rowd_plan_framework(fw, p);

  sc_cluster *cl = &s->cluster;
  cl->gpu = *g;
  snprintf(cl->name, sizeof cl->name, "validation row");
  cl->gpus = integer(c, "gpus", 1, 1);
  if (rowt_gpus(c->f, p, &cl->gpus, why, wn, assumed, an)) return c->bad ? SC_EINPUT : SC_EMODEL;
  cl->gpus_per_node = integer(c, "gpus_per_node", 8, 1);
  cl->nvlink_domain = integer(c, "nvlink_domain", cl->gpus_per_node, 1);
  rowt_node(c->f, cl, assumed, an); /* blank: the GPU's reference server */
  cl->nvlink_bw = num(c, "nvlink_GBps", g->nvlink_bw / 1e9, 0) * 1e9;
  cl->nic_bw = num(c, "nic_Gbps", 0, 0) * 1e9 / 8;
  cl->topology[0] = '\0';
  if (cl->nic_bw <= 0 && cl->gpus > cl->nvlink_domain) {
    /* not published: the NIC of the GPU's reference system, said in the row */
    const char *ref;
    cl->nic_bw = rowd_reference_nic(g->name, &ref);
    if (!ref) {
      snprintf(why, wn, "nic_Gbps is blank, the GPUs span NVLink domains, and %s has no "
               "reference system to take it from", g->name);
      return c->bad ? SC_EINPUT : SC_EMODEL;
    }
    rowv_note(assumed, an, "nic_Gbps %.0f of %s (not published)", cl->nic_bw * 8 / 1e9, ref);
  }
  rowt_blank_notes(c->f, p, cl, assumed, an);
  if (c->bad) return SC_EINPUT;
  return SC_OK;
}

/* Predict a training row into r (or mark it skipped). SC_OK, or
 * SC_ENOMEM with c->err set; a malformed row sets c->bad instead. */
static int predict_training(row_ctx *c, val_row *r) {
  sc_scenario s;
  char why[160] = "";
  int rc = training_scenario(c, &s, why, sizeof why, r->assumed, sizeof r->assumed);
  if (rc == SC_EMODEL) {
    snprintf(r->skipped, sizeof r->skipped, "%s", why);
    return SC_OK;
  }
  if (rc != SC_OK) return SC_OK;
  sc_result res;
  sc_error e = {0};
  sc_event_opts eo = {1, 0};
  rc = c->event ? sc_predict_event(&s, &eo, &res, NULL, &e) : sc_predict(&s, &res, &e);
  if (rc == SC_ENOMEM) /* not the row's fault: no prediction at all */
    return sc_error_set(c->err, rc, "%s:%d: %s", c->path, c->f->record_line, e.msg);
  if (rc != SC_OK) {
    /* the row's own plan is inconsistent: report it as skipped with the
     * checker's reason rather than guess */
    snprintf(r->skipped, sizeof r->skipped, "%.180s", e.msg);
    return SC_OK;
  }
  r->predicted = res.step_s;
  r->time = res.time;
  r->mfu = res.mfu;
  /* the row ran, so "does not fit" is a false verdict of the memory model */
  r->fit = res.mem.fits ? 1 : -1;
  r->mem_total = res.mem.total;
  r->mem_capacity = res.mem.capacity;
  return SC_OK;
}

static void predict_collective(row_ctx *c, val_row *r) {
  const char *opn = cell(c, "op");
  int op = collrow_op(opn); /* any case, '-' (validate/collrow.c) */
  double bytes = num(c, "bytes", 0, 1);
  if (!c->bad && bytes > 1125899906842624.0) { /* 2^50, as sc_coll_sweep_run */
    sc_error_set(c->err, SC_EINPUT, "%s:%d: column 'bytes': %g is more than 2^50 (1 PiB)",
                 c->path, c->f->record_line, bytes);
    c->bad = 1;
  }
  int ranks = integer(c, "ranks", 1, 1);
  int gpn = integer(c, "gpus_per_node", 8, 1);
  const char *gname = cell(c, "gpu");
  double nvl = num(c, "nvlink_GBps", 0, 0);
  double nic = num(c, "nic_Gbps", 0, 0);
  if (c->bad) return;
  r->bytes = bytes;
  const char *blank_cell = collrow_blank(c->f); /* validate/collrow.c */
  if (blank_cell) {
    snprintf(r->skipped, sizeof r->skipped, "%s is blank (required)", blank_cell);
    return;
  }
  if (op < 0) {
    snprintf(r->skipped, sizeof r->skipped, "unknown collective '%s'", opn);
    return;
  }
  const sc_gpu *g = rowg_gpu(gname, r->assumed, sizeof r->assumed);
  if (!g) {
    snprintf(r->skipped, sizeof r->skipped, "unknown GPU '%s' (no preset)", gname);
    return;
  }
  sc_scenario def;
  sc_scenario_default(&def);
  if (csv_col(c->f, "gpus_per_node") < 0 || !*cell(c, "gpus_per_node"))
    gpn = collrow_node(g->name, r->assumed, sizeof r->assumed); /* validate/collrow.c */
  coll_group grp = {0};
  grp.ranks = ranks;
  grp.ranks_per_node = ranks < gpn ? ranks : gpn;
  grp.arch = g->arch;
  int spans = ranks > grp.ranks_per_node;
  if (collrow_links(g->name, g->nvlink_bw, nvl, nic, spans, &grp.intra_bw, &grp.inter_bw,
                    r->assumed, sizeof r->assumed)) {
    snprintf(r->skipped, sizeof r->skipped, "spans %d nodes but nic_Gbps is blank (and no "
             "reference system of %s to take it from)", ranks / grp.ranks_per_node, g->name);
    return;
  }
  grp.intra_lat = def.cluster.nvlink_lat;
  grp.inter_lat = def.cluster.nic_lat;
  grp.node_gpus = gpn;
  grp.host_gpus = collrow_host_gpus(cell(c, "notes")); /* validate/collrow.h */
  grp.pcie = g->link == SC_LINK_PCIE; /* its slot's rate: coll_nccl_pci_bw */
  r->predicted = coll_nccl_time((coll_op)op, bytes, &grp).time * 1e6;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* Fill the per-file statistics of vf's rows; 0, or -1 when out of
 * memory (the median needs a sorted copy of the errors). */
static int summarize(val_file *vf) {
  double *apes = mem_alloc(sizeof *apes * (size_t)vf->n);
  if (!apes) return -1;
  int k = 0;
  double sum = 0, ss = 0, sl = 0;
  for (int i = 0; i < vf->n; i++) {
    val_row *r = &vf->rows[i];
    if (r->skipped[0]) { vf->skipped++; continue; }
    vf->predicted++;
    if (r->fit < 0) vf->no_fit++;
    apes[k++] = r->ape;
    sum += r->ape;
    if (r->ape > vf->max_ape) vf->max_ape = r->ape;
    if (r->ape <= 0.10) vf->within_10pct++;
    if (vf->kind == VAL_COLLECTIVE) {
      if (r->bytes < 1048576) { ss += r->ape; vf->n_small++; }
      else { sl += r->ape; vf->n_large++; }
    }
  }
  if (k > 0) {
    vf->mape = sum / k;
    qsort(apes, (size_t)k, sizeof *apes, cmp_double);
    vf->median_ape = k % 2 ? apes[k / 2] : 0.5 * (apes[k / 2 - 1] + apes[k / 2]);
  }
  if (vf->n_small) vf->mape_small = ss / vf->n_small;
  if (vf->n_large) vf->mape_large = sl / vf->n_large;
  mem_free(apes);
  return 0;
}

static int nomem(sc_error *err, const char *path) {
  return sc_error_set(err, SC_ENOMEM, "%s: out of memory", path);
}

/* The sets a model constant was chosen on (docs/calibration.md, "Fitted
 * constants"): their figures are in-sample, and every report says so next
 * to them. This is the provenance of constants, never an input of a
 * prediction. */
/* One choice made on every training set with tp > 1 (docs/calibration.md) */
#define VAL_TP_ASYNC "plan.tp_async_bwd off by default, chosen on the training sets with tp > 1"
static const struct {
  const char *file;
  const char *what;
} val_fitted[] = {
    {"azure_allreduce_a100_h100.csv",
     "COLL_LAUNCH_S (20 us) and the Simple-protocol step latency were chosen on this set"},
    {"vtrain_allreduce_a100.csv",
     "COLL_LAUNCH_S (20 us) and the Simple-protocol step latency were chosen on this set; "
     "A100's memory throughput of NCCL's kernels (calibration rows 61-62) added after "
     "seeing its two-GPU rows"},
    {"vtrain_allreduce_v100.csv",
     "COLL_LAUNCH_S (20 us) and the push/pull step latency were chosen on this set"},
    {"echo_allreduce_a100_2_to_32.csv",
     "added while splitting this set's errors (their constants are not fitted to it): the "
     "-g N host's per-channel term (calibration rows 83-90) and A100 hosts read as AMD in "
     "NCCL's tuner across nodes (DGX A100 datasheet); A100's memory throughput of NCCL's "
     "kernels (calibration rows 61-62)"},
    {"mlperf_resnet50_bert_v0.7-v2.1.csv",
     "decided looking at this set: packed BERT rows at half their tokens (Krell et al. "
     "2021); the layout and fused kernels of container-named rows, tf2.0 as TensorFlow 2 "
     "(validate/framework.c); BERT on PyTorch, MXNet or a container all-reduces once after "
     "backward, TensorFlow's BERT stays padded; MXNet ResNet rows in 16 bits fuse batch "
     "norm (validate/dp_rows.c)"},
    {"dlperf_v100_frameworks.csv",
     "decided looking at this set: PyTorch-alone rows run NCHW; AMP all-reduces fp32 "
     "gradients and runs plan.amp; TensorFlow 2 sends one message after backward; "
     "TensorFlow without XLA unfused (BERT's modeling.py op chains and optimizer, fp32 under "
     "AMP); NVIDIA's BERT exchange (keyed on the "
     "framework alone) and its fp16 under AMP; Horovod before 0.21 fuses 64 MiB every 5 ms; "
     "the MXNet ResNet fused batch norm reached its MXNet rows with its figures seen; "
     "pre-20.06 NGC rows, and framework releases named without a container whose own builds "
     "predate CUDA 11 on GPUs before Ampere, run cuBLAS 10 (16-bit GEMMs off multiples of 8 "
     "on the CUDA cores) and NVIDIA's BERT pads its vocabulary to a multiple of 8; NVIDIA's PyTorch BERT with "
     "APEX runs its masked-LM head on every position"},
    {"kungfu_2xdgx1_allreduce_ps_gossip.csv",
     "added looking at this set's figures: the MPI path's per-thread copies and sums "
     "(dp/mpi.c, a derived core rate, not fitted); Horovod 0.16.1 fuses 64 MiB every 5 ms "
     "(validate/rowhorovod.c); asynchronous workers queue at shared servers (dp/async.c, "
     "mean value analysis, nothing fitted); plain SGD read off the notes, adopted with its "
     "figures seen; cuDNN autotuning (plan.conv_autotune) extended to TensorFlow under KungFu "
     "after seeing this set's ranking; the networks as Keras defines them (model.keras: ResNet "
     "conv biases, Inception-v3 batch norms without scale) read off the notes, adopted with "
     "its figures seen"},
    {"tf_cnn_benchmarks_2017.csv",
     "adopted with its figures seen: plain SGD, tf_cnn_benchmarks' default optimizer "
     "(validate/dp_rows.c); the K80 costed at its 562 MHz base clock rather than its "
     "875 MHz autoboost ceiling, both datasheet figures (hw/gpu_presets.c); under cuDNN "
     "autotuning the derived Winograd left out for 3x3 filters, whose measured Winograd stays "
     "(cost/conv.c), decided after seeing this set's VGG16 rows; TensorFlow's replicated "
     "NCCL on one ring after the backward pass (dp/allreduce.c), adopted after seeing its "
     "P100 VGG16 and AlexNet rows; its weight decay as an L2Loss op per variable "
     "(model.l2_ops, lower/lower.c), sought after seeing its per-step constant, adopted "
     "with its figures seen"},
    {"megatron_2020_scaling.csv",
     "the V100s' gemm_eff kept at the A100 value: a published lower V100 figure was not "
     "adopted after it moved this set from 4.0 to 8.2 %; " VAL_TP_ASYNC},
    {"megatron_sc21_table1.csv", VAL_TP_ASYNC},
    {"vtrain_single_node.csv", VAL_TP_ASYNC},
    {"hugectr_wdl_batch_sweep.csv",
     "the notes' vocab_size read as the hash tables' capacity per GPU, which HugeCTR's global "
     "Adam sweeps (validate/recsys_rows.c): adopted looking at this set's one-GPU residual"},
    {"merlin_distributed_embeddings_synthetic.csv",
     "a Horovod job's host launches hidden only by the GPU work between its all-to-alls, "
     "with a table's ops split 6 forward / 6 backward (recsys/rs_shard.c): adopted after "
     "seeing this set move with the split (a forward share of 0.2 to 0.6 of the launches: "
     "25.4 to 23.0 %)"},
    {"nvidia_dle_dlrm_dcnv2.csv",
     "a Horovod job's host launches hidden only by the GPU work between its all-to-alls "
     "(recsys/rs_shard.c): its TensorFlow rows were seen with the Merlin set's split sweep"},
    {"mlperf_dlrm_v0.7-v2.1.csv",
     "PyTorch rows keep the bottom MLP on GPU 0 (NVIDIA's PyTorch DLRM): applied after "
     "looking at this set"},
    {"mosaic_fsdp_a100.csv",
     "FSDP1's backward prefetch read as PyTorch 1.13's default (None), the release whose kernels "
     "fsdp1k.c costs, rather than later releases' BACKWARD_PRE: chosen after seeing this set"},
    {"dgxc_benchmarking.csv",
     "rows naming no framework run Transformer Engine's attention in fp8/fp4 and on Blackwell "
     "(rowd_attention): decided looking at this set's GB200 rows; NeMo/Apex memory defaults "
     "(rowmem.c) written after its false verdicts; " VAL_TP_ASYNC},
};

static void mark_in_sample(val_file *vf) {
  const char *base = strrchr(vf->path, '/');
  base = base ? base + 1 : vf->path;
  for (size_t i = 0; i < sizeof val_fitted / sizeof val_fitted[0]; i++)
    if (!strcmp(base, val_fitted[i].file))
      snprintf(vf->in_sample, sizeof vf->in_sample, "%s", val_fitted[i].what);
}

/* The kind of set f's header says it is; SC_EINPUT when none. */
static int set_kind(const csv_file *f, val_kind *kind) {
  /* data-parallel sets of CNN and BERT runs name a `model_variant` where
   * transformer sets give `layers`; recommendation sets are in ms */
  int dp_set = csv_col(f, "measured_iter_s") >= 0 && csv_col(f, "model_variant") >= 0;
  if (vdp_is_dp_set(f)) *kind = VAL_DP; /* issue 9: src/validate/dp_rows.c */
  else if (csv_col(f, "measured_time_us") >= 0) *kind = VAL_COLLECTIVE;
  else if (valrs_is_recsys(f)) *kind = VAL_RECSYS; /* recsys/recsys_rows.c */
  else if (dp_set || csv_col(f, "measured_iter_ms") >= 0) *kind = VAL_UNSUPPORTED;
  else if (csv_col(f, "measured_iter_s") >= 0) *kind = VAL_TRAINING;
  else return SC_EINPUT;
  return SC_OK;
}

/* The columns a set of `kind` must have: a file without one of them
 * would skip or misread every row, so it fails at its header. */
static int required_columns(const csv_file *f, val_kind kind, const char *path, sc_error *err) {
  static const char *const training[] = {"id", "model", "layers", "hidden", "heads", "vocab",
                                         "seq", "global_batch", "dtype", "gpu", "gpus",
                                         "measured_iter_s", NULL};
  static const char *const collective[] = {"id", "op", "bytes", "ranks", "gpu",
                                           "measured_time_us", NULL};
  const char *const *need = kind == VAL_TRAINING ? training
                            : kind == VAL_COLLECTIVE ? collective : NULL;
  for (int i = 0; need && need[i]; i++)
    if (csv_col(f, need[i]) < 0)
      return sc_error_set(err, SC_EINPUT, "%s:1: the header lacks the column '%s' (a %s set "
                          "needs: %s)", path, need[i],
                          kind == VAL_TRAINING ? "training" : "collective",
                          kind == VAL_TRAINING
                              ? "id, model, layers, hidden, heads, vocab, seq, global_batch, "
                                "dtype, gpu, gpus, measured_iter_s"
                              : "id, op, bytes, ranks, gpu, measured_time_us");
  return SC_OK;
}

/* A row of a set stepcast cannot model yet: its measurement (seconds per
 * step, as published; 0 when blank) and why it is skipped. */
static void unsupported_row(row_ctx *c, val_row *r) {
  const char *s = cell(c, "measured_iter_s");
  double scale = 1;
  if (csv_col(c->f, "measured_iter_s") < 0) s = cell(c, "measured_iter_ms"), scale = 1e-3;
  char *end;
  double v = strtod(s, &end);
  r->measured = end != s && isfinite(v) ? v * scale : 0;
  snprintf(r->skipped, sizeof r->skipped,
           "not supported yet: no builder for model '%.64s' (stepcast builds "
           "transformers and JSON workload graphs)", cell(c, "model"));
}

int sc_validate_file(const char *path, val_file *vf, sc_error *err) {
  return sc_validate_file_engine(path, 0, vf, err);
}

int sc_validate_file_engine(const char *path, int event, val_file *vf, sc_error *err) {
  memset(vf, 0, sizeof *vf);
  snprintf(vf->path, sizeof vf->path, "%s", path);
  csv_file f;
  int rc = csv_open(&f, path, err);
  if (rc != SC_OK) return rc;
  if (set_kind(&f, &vf->kind) != SC_OK) {
    csv_close(&f);
    return sc_error_set(err, SC_EINPUT,
                        "%s:1: header has neither 'measured_iter_s' (training "
                        "set) nor 'measured_time_us' (collective set) nor "
                        "'measured_iter_ms' (recommendation set)", path);
  }
  if ((rc = required_columns(&f, vf->kind, path, err))) {
    csv_close(&f);
    return rc;
  }
  mark_in_sample(vf);
  double t0 = clock_now_s();
  row_ctx c = {&f, path, err, 0, event};
  if (vf->kind == VAL_DP) rc = -vdp_read(&f, path, vf, err);
  while (vf->kind != VAL_DP && (rc = csv_next(&f, path, err)) == 1) {
    if (f.n_fields != f.n_cols) {
      rc = -sc_error_set(err, SC_EINPUT,
                         "%s:%d: %d fields, but the header names %d columns",
                         path, f.record_line, f.n_fields, f.n_cols);
      break;
    }
    val_row r;
    memset(&r, 0, sizeof r);
    r.predicted = -1;
    snprintf(r.id, sizeof r.id, "%s", cell(&c, "id"));
    if (vf->kind == VAL_RECSYS) {
      int vrc = valrs_row(&f, path, &r, err);
      if (vrc) { rc = -vrc; break; }
      if (!r.skipped[0]) r.ape = fabs(r.predicted - r.measured) / r.measured;
      else r.predicted = -1;
      if (add_row(vf, &r)) { rc = -nomem(err, path); break; }
      continue;
    }
    if (vf->kind == VAL_UNSUPPORTED) {
      unsupported_row(&c, &r);
      if (add_row(vf, &r)) { rc = -nomem(err, path); break; }
      continue;
    }
    const char *target = vf->kind == VAL_TRAINING ? "measured_iter_s" : "measured_time_us";
    r.measured = num(&c, target, 0, 0);
    if (!c.bad && !*cell(&c, target)) { /* nothing to judge against: said, not guessed */
      snprintf(r.skipped, sizeof r.skipped, "no measurement: %s is blank", target);
      r.predicted = -1;
      if (add_row(vf, &r)) { rc = -nomem(err, path); break; }
      continue;
    }
    if (!c.bad && r.measured <= 0) {
      sc_error_set(err, SC_EINPUT, "%s:%d: the measured value must be > 0",
                   path, f.record_line);
      c.bad = 1;
    }
    int prc = SC_OK;
    if (!c.bad) {
      if (vf->kind == VAL_TRAINING) prc = predict_training(&c, &r);
      else predict_collective(&c, &r);
    }
    if (c.bad) { rc = -SC_EINPUT; break; }
    if (prc) { rc = -prc; break; }
    if (!r.skipped[0]) r.ape = fabs(r.predicted - r.measured) / r.measured;
    else r.predicted = -1;
    if (add_row(vf, &r)) { rc = -nomem(err, path); break; }
  }
  csv_close(&f);
  vf->seconds = clock_now_s() - t0;
  if (rc == 0 && summarize(vf)) rc = -nomem(err, path);
  if (rc < 0) {
    sc_validation_free(vf);
    return -rc;
  }
  return SC_OK;
}

void sc_validation_free(val_file *f) {
  mem_free(f->rows);
  f->rows = NULL;
  f->n = f->cap = 0;
}

int sc_validate_row_scenario(const char *path, const char *id, sc_scenario *out, sc_error *err) {
  return sc_validate_row_scenario_assumed(path, id, out, NULL, 0, err);
}

int sc_validate_row_scenario_assumed(const char *path, const char *id, sc_scenario *out,
                                     char *assumed_out, size_t n, sc_error *err) {
  csv_file f;
  int rc = csv_open(&f, path, err);
  if (rc != SC_OK) return rc;
  if (csv_col(&f, "measured_iter_s") < 0) {
    int rs = valrs_is_recsys(&f), coll = csv_col(&f, "measured_time_us") >= 0;
    csv_close(&f);
    return sc_error_set(err, SC_EINPUT, "%s: not a training set (no 'measured_iter_s' column)%s",
                        path, rs ? "; a recommendation set: stepcast recsys row FILE ID"
                              : coll ? "; a collectives set: `stepcast validate FILE --format "
                                       "csv` gives each row's prediction, `stepcast collective` "
                                       "the sweep of one" : "");
  }
  row_ctx c = {&f, path, err, 0, 0};
  rc = csv_seek_id(&f, path, id, err);
  if (rc == 1 && vdp_is_dp_set(&f)) { /* issue 9: a data-parallel scenario */
    rc = vdp_row_scenario(&f, path, out, err);
  } else if (rc == 1) {
    char why[160] = "", assumed[sizeof ((sc_validation_row *)0)->assumed] = "";
    rc = training_scenario(&c, out, why, sizeof why, assumed, sizeof assumed);
    if (rc == SC_EMODEL) rc = sc_error_set(err, SC_EMODEL, "%s: row %s: %s", path, id, why);
    if (assumed_out && n) snprintf(assumed_out, n, "%s", assumed); /* as the file's row says */
  } else if (rc == 0) {
    rc = SC_EINPUT; /* csv_seek_id said which ids there are */
  }
  csv_close(&f);
  return rc < 0 ? -rc : rc;
}
