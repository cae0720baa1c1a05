/*
 * dp_rows.c -- predict the rows of a dp_training set; see dp_rows.h.
 *
 * How a row becomes a data-parallel scenario (blank cells: what the row's
 * framework would have used, the same way for every row):
 *   - the model preset named by `model_variant` (BERT: `seq` tokens,
 *     half of them on Wikipedia data at 512 when the notes say the
 *     implementations pack or unpad, unless the framework is TensorFlow
 *     alone, whose BERT pads: vdp_tokens; a CNN: the square input
 *     the notes state, "224x224", else the model's own);
 *     batch_per_gpu x gpus x grad_accum samples per step, micro-batch
 *     batch_per_gpu;
 *   - dtype amp = fp16 GEMMs, fp32 gradients exchanged (AMP keeps fp32
 *     weights) and the frameworks' AMP compute (plan.amp: fp32 norms and
 *     softmax, casts, loss scaling; cost/amp.h); `unknown`
 *     (MLPerf) = fp16, as NVIDIA's implementations train (MLPerf note 1);
 *   - the GPU preset `gpu`; `gpus_per_node` blank = min(gpus, 8);
 *     `intra_node` gives the wiring (nvswitch, DGX-1 hybrid cube-mesh,
 *     4-GPU NVLink mesh, PCIe) and `intra_node_GBps` its bandwidth;
 *     `host_link` the PCIe generation; `network_Gbps` the server's NICs;
 *   - `transport` tcp or rdma; blank/unknown = the scheme's library
 *     default (NCCL RDMA, gRPC/MPI/KungFu sockets);
 *   - `framework` (read by validate/framework.c, its spellings there) with
 *     Horovod: Horovod tensor fusion; TensorFlow 2 without Horovod: one
 *     message after the backward pass; NVIDIA's BERT (a BERT row on
 *     PyTorch, MXNet or a container's list, without Horovod): one message
 *     after the backward pass, vdp_nvidia_bert; else the scheme's default
 *     (src/dp/overlap.c); eager (PyTorch) or a graph executor (TensorFlow,
 *     MXNet, OneFlow, Paddle, KungFu, HugeCTR) as vfw_plan sets it;
 *     unfused attention before
 *     Ampere (no FlashAttention on sm70 and older), and on every GPU
 *     where the framework has no fused attention (TensorFlow, gluon-nlp's
 *     MXNet: vfw_plan);
 *   - `ps_placement` host_cpu, gpu0, co-located (worker CPUs), dedicated;
 *     `ps_count` blank = one PS per server.
 * The target is measured_iter_s (synchronous) or worker_step_s
 * (asynchronous rows). Nothing here is fitted to a row.
 *
 * Ranking: rows that differ only in the scheme (same model, batch,
 * precision, data, GPU, GPUs per server, servers, wiring, network) form a
 * group; every pair of predicted rows of a group with different schemes
 * and different measured times counts, and is right when the predicted
 * order is the measured one (a predicted tie counts half).
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/mem.h"
#include "core/vec.h"
#include "dp/dp.h"
#include "model/builder.h"
#include "validate/dp_rows.h"
#include "validate/framework.h"
#include "validate/rowdefaults.h"
#include "validate/rowgpu.h"
#include "validate/rowhorovod.h"
#include "validate/rowtext.h"
#include "validate/rowvalues.h"

#define VDP_KEY 256

/* What the summary needs of each row beside its val_row. */
typedef struct vdp_info {
  char group[VDP_KEY];  /* "scheme#" + what must be equal for the ranking */
  char base[VDP_KEY];   /* "scheme#" + the configuration of one GPU */
  int gpus;
} vdp_info;

typedef struct vdp_ctx {
  csv_file *f;
  const char *path;
  sc_error *err;
  int bad;
} vdp_ctx;

static const char *vdp_cell(vdp_ctx *c, const char *col) {
  return csv_get(c->f, csv_col(c->f, col));
}

/* The `scheme` cell lowercased and trimmed into buf (cap bytes): the
 * vocabulary of DP-AND-RECSYS.md in any case. */
static const char *vdp_scheme(vdp_ctx *c, char *buf, size_t cap) {
  const char *s = vdp_cell(c, "scheme");
  while (isspace((unsigned char)*s)) s++;
  size_t n = 0;
  for (; *s && n + 1 < cap; s++) buf[n++] = (char)tolower((unsigned char)*s);
  while (n > 0 && isspace((unsigned char)buf[n - 1])) n--;
  buf[n] = '\0';
  return buf;
}

/* A number in col; dflt when blank; sets c->bad on garbage. */
static double vdp_num(vdp_ctx *c, const char *col, double dflt) {
  return csv_num(c->f, c->path, col, dflt, 0, &c->bad, c->err);
}

/* A count of GPUs in col (dflt when blank): a whole number in
 * 1..2^24, else a malformed cell (c->bad; never 0, which divided). */
static int vdp_count(vdp_ctx *c, const char *col, int dflt) {
  double v = vdp_num(c, col, dflt);
  if (!c->bad && (v < 1 || v != floor(v) || v > (double)(1 << 24)))
    csv_malformed(c->f, c->path, col, "a whole number in 1..16777216", &c->bad, c->err);
  return c->bad ? dflt : (int)v;
}

int vdp_is_dp_set(const csv_file *f) {
  return csv_col(f, "measured_iter_s") >= 0 && csv_col(f, "model_variant") >= 0 &&
         csv_col(f, "scheme") >= 0;
}

/* How the row's framework turns gradients into messages: Horovod's
 * tensor fusion where it names Horovod; TensorFlow 2's distribution
 * strategies (no Horovod) sum the gradients in the optimizer's
 * apply_gradients, after the backward pass has produced all of them, as
 * one batch (docs/dp.md "Per framework"): one message after the backward
 * pass; else the scheme's default. */
static sc_dp_fusion_kind vdp_fusion(const vfw_text *fw) {
  if (fw->horovod) return SC_DP_FUSION_HOROVOD;
  if (fw->tf_major == 2) return SC_DP_FUSION_NONE;
  return SC_DP_FUSION_AUTO;
}

/* 1 when the row is BERT pre-training in NVIDIA's implementation, read
 * from its framework text alone, the same way for every BERT row: PyTorch
 * or MXNet named first (the BERT pre-training those frameworks ran on
 * NVIDIA GPUs is NVIDIA's: DeepLearningExamples for PyTorch, which NGC's
 * PyTorch builds ship and the MLPerf submissions derive from, NVIDIA's
 * MLPerf code for MXNet) or several frameworks listed (an NGC container's
 * contents, framework.h), and no Horovod (whose tensor fusion the text
 * states instead: gluon-nlp's MXNet BERT). No framework named, TensorFlow
 * or Paddle alone: another or an unknown implementation, the scheme's
 * default. NVIDIA's BERT pre-training sums the accumulated gradients in
 * one flat fp16 all-reduce after the last micro-batch's backward pass
 * instead of bucketing them beside it: DeepLearningExamples
 * PyTorch/LanguageModeling/BERT run_pretraining.py,
 * `--allreduce_post_accumulation --allreduce_post_accumulation_fp16`
 * (the defaults of its scripts/run_pretraining.sh; recalled from the
 * published source, which is not in ../shared/reference); docs/dp.md
 * "Per framework". The notes are not read: the "NVIDIA-derived" of the
 * MLPerf rows' precision sentence stands in every row of that set,
 * whatever ran, so keying on it would key on the source. */
#define VDP_VOCAB_PAD 8 /* NVIDIA's BERT pads its vocabulary to a multiple of this */
static int vdp_nvidia_bert(const sc_model *m, const vfw_text *fw) {
  if (m->kind != SC_MODEL_BERT || fw->horovod) return 0;
  return fw->n_named > 1 || fw->first == VFW_PYTORCH || fw->first == VFW_MXNET;
}

/* NVIDIA's PyTorch BERT of 2019-2020 runs its masked-LM head on every
 * position (sc_bert.mlm_all_positions, src/model/bert.c):
 * DeepLearningExamples' BertPreTrainingHeads on the whole sequence output,
 * mixed precision through apex.amp (`--fp16`), the implementation NGC's
 * PyTorch containers of that time shipped; recalled, not in
 * ../shared/reference. A row is run so when it is NVIDIA's BERT
 * (vdp_nvidia_bert), PyTorch is named first and the text names APEX: that
 * era's stack. NVIDIA's MLPerf BERT (a text naming a PyTorch release
 * alone, or a container list) is another code base, tuned for the
 * benchmark, that unpads its sequences and gathers the masked positions
 * before the head (its dense_seq_output; recalled likewise): it keeps the
 * gathered head, as does every other framework's BERT (Google's
 * gather_indexes). The same way for every row; decided looking at the
 * DLPerf set (validate marks it IN-SAMPLE). */
static void vdp_mlm_all(const char *framework, const vfw_text *fw, sc_model *m, char *assumed,
                        size_t an) {
  if (!vdp_nvidia_bert(m, fw) || fw->first != VFW_PYTORCH || !rowtext_word(framework, "apex"))
    return;
  m->bert.mlm_all_positions = 1;
  rowv_note(assumed, an, "masked-LM head on every position (NVIDIA's PyTorch BERT with APEX)");
}

static sc_dp_intra vdp_intra(const char *s) {
  if (rowtext_has(s, "nvswitch")) return SC_DP_INTRA_NVSWITCH;
  if (rowtext_has(s, "hybrid-cube-mesh")) return SC_DP_INTRA_CUBEMESH;
  if (rowtext_has(s, "nvlink-mesh")) return SC_DP_INTRA_NVLINK_MESH;
  if (rowtext_has(s, "pcie")) return SC_DP_INTRA_PCIE;
  return SC_DP_INTRA_AUTO;
}

static double vdp_pcie(const char *s) {
  if (rowtext_has(s, "gen5")) return 63e9;
  if (rowtext_has(s, "gen4")) return 31.5e9;
  return 15.75e9; /* gen3 x16, PCI-SIG */
}

static sc_dp_place vdp_place(const char *s) {
  if (!*s) return SC_PS_AUTO;
  if (rowtext_has(s, "gpu")) return SC_PS_GPU;
  if (rowtext_has(s, "co-located")) return SC_PS_COLOCATED;
  if (rowtext_has(s, "dedicated")) return SC_PS_SERVERS;
  return SC_PS_HOST_CPU;
}

/* The square input size the notes state ("224x224"), 0 when none. */
static int vdp_image(const char *notes) {
  for (const char *p = notes; *p; p++) {
    if (!isdigit((unsigned char)*p) || (p > notes && isdigit((unsigned char)p[-1]))) continue;
    char *end;
    long a = strtol(p, &end, 10);
    if (*end == 'x' && isdigit((unsigned char)end[1]) && strtol(end + 1, NULL, 10) == a && a >= 32 &&
        a <= 4096)
      return (int)a;
  }
  return 0;
}

/* Tokens per sequence BERT's encoder runs, on average, for a row whose
 * notes say the implementations pack or unpad their sequences; 0 (= seq,
 * padded) otherwise. Only BERT pre-training data from Wikipedia at the
 * maximum length 512 has a published padding share: about half of its
 * tokens are padding (Krell et al. 2021, "Efficient sequence packing
 * without cross-contamination", arXiv:2107.02027, on the BERT Wikipedia
 * pre-training set at sequence length 512: packing doubles throughput),
 * so such rows run seq / 2 tokens. Other data or lengths stay padded, and
 * so does a row whose framework text names TensorFlow alone: TensorFlow's
 * BERT (google-research/bert's create_pretraining_data.py and
 * run_pretraining.py, and the TF 2 Model Garden's official/nlp that
 * follows them) pads every instance to max_seq_length and runs fixed
 * [batch, max_seq_length] shapes, with an input mask over the padding
 * (recalled from those public sources, not in ../shared/reference). */
#define VDP_WIKI512_PAD 0.5 /* padding share of BERT's Wikipedia set at 512 [Krell 2021] */
static int vdp_tokens(const char *notes, const char *data, const vfw_text *fw, int seq) {
  if (seq != 512 || !rowtext_has(data, "wikipedia")) return 0;
  if (fw->sole == VFW_TENSORFLOW) return 0;
  if (!rowtext_has(notes, "unpad") && !rowtext_has(notes, "pack")) return 0;
  return (int)(seq * (1 - VDP_WIKI512_PAD));
}

/* NVIDIA's MXNet ResNet: a ResNet row whose framework text names MXNet,
 * in 16 bits on the tensor cores (dtype fp16, amp or unknown, read as
 * fp16 mixed precision) and NHWC, runs batch norm fused into its
 * convolutions (cuDNN's fused operations, fp16 NHWC only: sc_cnn.fused_bn,
 * src/model/cnn.c); the same way for every row. Decided looking at the
 * MLPerf set (validate marks it IN-SAMPLE; docs/calibration.md). */
static void vdp_fused_bn(const vfw_text *fw, sc_model *m, const sc_plan *p, const char *dt,
                         char *assumed, size_t an) {
  if (m->kind != SC_MODEL_CNN || !model_cnn_is_resnet(m->cnn.arch) ||
      !(fw->named >> VFW_MXNET & 1) || !strcmp(dt, "fp32") || !strcmp(dt, "tf32") ||
      !p->channels_last)
    return;
  m->cnn.fused_bn = 1;
  rowv_note(assumed, an, "batch norm fused into the convolutions (NVIDIA's MXNet ResNet)");
}

/* Keras' networks: a CNN row whose notes name the implementation as
 * Keras' (DP-AND-RECSYS.md: "the implementation is named at the start of
 * `notes`", here "tf.keras.applications ResNet50") builds the network as
 * Keras' applications define it (sc_cnn.keras, src/model/cnn.c: ResNet
 * convolutions with biases, Inception-v3 batch norms without scale), where
 * Keras defines the row's network (model_cnn_in_keras). The same way for
 * every row. */
static void vdp_keras(const char *notes, sc_model *m, char *assumed, size_t an) {
  if (m->kind != SC_MODEL_CNN || !model_cnn_in_keras(m->cnn.arch) || !rowtext_has(notes, "keras"))
    return;
  m->cnn.keras = 1;
  rowv_note(assumed, an, "the network as Keras' applications define it");
}

/* The GEMM library a row's framework text dates: an NGC container
 * release before 20.06 ships CUDA 10.x and its cuBLAS 10 (NGC 20.03: CUDA
 * 10.2.89; 20.06 is the first release on CUDA 11.0 -- NGC's framework
 * release notes, recalled, not a file in ../shared), so its 16-bit GEMMs
 * with a dimension not a multiple of 8 run on the CUDA cores
 * (plan.cublas_pre11, cost/compute.c cost_gemm_lib). A row naming no
 * container but one framework's release whose own GPU builds all predate
 * CUDA 11.0 (vfw_builds_pre_cuda11: TensorFlow before 2.4, PyTorch before
 * 1.7, MXNet 1.6 and older, Paddle 1.x) ran cuBLAS 10 as well, on a GPU
 * CUDA 10 runs (before Ampere: CUDA 11.0 is the first toolkit with sm_80,
 * so an "MXNet 1.6.0" on an A100 is a container's rebuild). A row that
 * names neither keeps the default (cuBLAS 11 or newer); the same way for
 * every row. */
#define VDP_NGC_FIRST_CUDA11 20.06
#define VDP_ARCH_CUDA11_ONLY 80 /* sm_80 (Ampere): CUDA 11.0 and later only */
static void vdp_cublas(const char *framework, const vfw_text *fw, int arch, sc_plan *p,
                       char *assumed, size_t an) {
  double ngc = vhv_ngc_release(framework);
  int by_release = ngc <= 0 && arch < VDP_ARCH_CUDA11_ONLY && vfw_builds_pre_cuda11(framework, fw);
  if (!by_release && (ngc <= 0 || ngc >= VDP_NGC_FIRST_CUDA11)) return;
  p->cublas_pre11 = 1;
  if (p->dtype != SC_FP16 && p->dtype != SC_BF16) return; /* fp32 runs no tensor cores here */
  if (by_release) rowv_note(assumed, an, "cuBLAS 10 (the release's own builds predate CUDA 11)");
  else rowv_note(assumed, an, "cuBLAS 10 (NGC %.2f)", ngc);
}

/* Plain SGD: a CNN row whose framework text names tf_cnn_benchmarks (its
 * --optimizer flag defaults to `sgd`, TensorFlow's GradientDescent; recalled,
 * benchmark_cnn.py is not in ../shared/reference) or whose notes say
 * "plain SGD" (the KungFu benchmarks' rows) updates with plain SGD
 * (model.optimizer sgd: 12 bytes a parameter and no state, not momentum's
 * 20 and 4; model/optimizer.c), as a CPU
 * parameter server applies it (dp/ps.c); the same way for every row. */
static void vdp_plain_sgd(const char *framework, const char *notes, sc_model *m,
                          char *assumed, size_t an) {
  if (m->kind != SC_MODEL_CNN ||
      (!rowtext_has(framework, "tf_cnn") && !rowtext_has(notes, "plain sgd")))
    return;
  m->optimizer = SC_OPT_SGD;
  rowv_note(assumed, an, "plain SGD (%s)",
            rowtext_has(framework, "tf_cnn") ? "tf_cnn_benchmarks' default" : "notes");
}

/* tf_cnn_benchmarks' weight decay: a CNN row whose framework text names
 * tf_cnn_benchmarks adds the L2 penalty as one L2Loss op per variable on
 * the GPU, and its gradient's Mul and AddN (model.l2_ops; the
 * --weight_decay flag defaults to 0.00004 and --single_l2_loss_op to off,
 * benchmark_cnn.py, recalled: not in ../shared/reference). Other rows
 * name no script that says how it decays (PyTorch's, MXNet's and
 * OneFlow's optimizers fold the decay into the update kernel), so they
 * keep none. */
static void vdp_l2_ops(const char *framework, sc_model *m, char *assumed, size_t an) {
  if (m->kind != SC_MODEL_CNN || !rowtext_has(framework, "tf_cnn")) return;
  m->cnn.l2_ops = 1;
  rowv_note(assumed, an, "an L2Loss op per variable (tf_cnn_benchmarks' weight decay)");
}

/* The model_variant of the row; blank: the `model` preset, except a
 * ResNet-50 of TensorFlow named alone, whose implementations (Keras
 * ResNet50, tf_cnn_benchmarks resnet50) are v1 (the schema's
 * model_variant column); said in assumed. */
static const char *vdp_variant(vdp_ctx *c, const vfw_text *fw, char *assumed, size_t an) {
  const char *v = vdp_cell(c, "model_variant"), *model = vdp_cell(c, "model");
  if (*v) return v;
  v = fw->sole == VFW_TENSORFLOW && !strcmp(model, "resnet50") ? "resnet50_v1" : model;
  const sc_model *m = sc_model_preset(v);
  if (m && m->kind == SC_MODEL_CNN && m->cnn.arch == SC_CNN_RESNET50_V15) v = "resnet50_v1.5";
  rowv_note(assumed, an, "model_variant %s (blank%s)", v,
            fw->sole == VFW_TENSORFLOW && !strcmp(v, "resnet50_v1") ? "; TensorFlow's ResNet-50"
                                                                    : "");
  return v;
}

/* The dtype cell: fp32, tf32, amp (fp16 mixed precision; also "mixed",
 * "fp16-mixed", "amp_fp16"), bf16 (bf16 mixed precision under autocast,
 * fp32 weights: also "bf16-mixed", "amp_bf16"), fp16 (16-bit weights),
 * unknown or blank (fp16 mixed precision, said); any case. 1 and *dt
 * set to one of "fp32", "tf32", "amp", "amp_bf16", "fp16", "unknown";
 * 0 when the cell names none of them. */
static int vdp_dtype(const char *cell, const char **dt) {
  char b[24];
  size_t n = 0;
  for (const char *p = cell; *p && n + 1 < sizeof b; p++)
    if (!isspace((unsigned char)*p)) b[n++] = (char)tolower((unsigned char)*p);
  b[n] = '\0';
  if (!strcmp(b, "unknown") || !strcmp(b, "notstated") || !n) return *dt = "unknown", 1;
  if (!strcmp(b, "amp") || !strcmp(b, "mixed") || !strcmp(b, "mixedprecision") ||
      !strcmp(b, "amp_fp16") || !strcmp(b, "fp16-mixed") || !strcmp(b, "16-mixed"))
    return *dt = "amp", 1;
  if (!strcmp(b, "amp_bf16") || !strcmp(b, "bf16") || !strcmp(b, "bf16-mixed") ||
      !strcmp(b, "bfloat16"))
    return *dt = "amp_bf16", 1;
  sc_dtype d;
  if (!rowv_dtype(b, &d) || d == SC_FP8 || d == SC_FP4) return 0;
  *dt = d == SC_FP32 ? "fp32" : d == SC_TF32 ? "tf32" : d == SC_BF16 ? "amp_bf16" : "fp16";
  return 1;
}

/* The GPUs of the job: the cell; blank: nodes x gpus_per_node when both
 * are given, else global_batch / (batch_per_gpu x grad_accum) when whole
 * (the schema's identity); said in assumed. 0 when nothing gives it. */
static int vdp_gpus(vdp_ctx *c, char *assumed, size_t an) {
  if (*vdp_cell(c, "gpus")) return vdp_count(c, "gpus", 1);
  if (*vdp_cell(c, "nodes") && *vdp_cell(c, "gpus_per_node")) {
    long n = (long)vdp_count(c, "nodes", 1) * vdp_count(c, "gpus_per_node", 1);
    if (c->bad || n > 1L << 24) return 0;
    rowv_note(assumed, an, "gpus %ld = nodes x gpus_per_node (blank)", n);
    return (int)n;
  }
  double g = vdp_num(c, "global_batch", 0), b = vdp_num(c, "batch_per_gpu", 0);
  double acc = vdp_num(c, "grad_accum", 1);
  double per = b * (acc >= 1 ? acc : 1);
  if (c->bad || per < 1 || g < per || fmod(g, per) != 0 || g / per > 1 << 24) return 0;
  rowv_note(assumed, an, "gpus %.0f = global_batch / (batch_per_gpu x grad_accum) (blank)",
            g / per);
  return (int)(g / per);
}

/* The GPUs per server: the cell; blank: gpus / nodes where `nodes`
 * divides gpus, else the server of the GPU's reference system
 * (rowd_reference_node), else 8 -- at most gpus; said in assumed. */
static int vdp_gpn(vdp_ctx *c, const char *gpu, int gpus, char *assumed, size_t an) {
  if (*vdp_cell(c, "gpus_per_node")) return vdp_count(c, "gpus_per_node", 1);
  int nodes = *vdp_cell(c, "nodes") ? vdp_count(c, "nodes", 1) : 0;
  int ref_gpn, domain;
  const char *ref = rowd_reference_node(gpu, &ref_gpn, &domain);
  int by_nodes = nodes > 0 && gpus % nodes == 0;
  int gpn = by_nodes ? gpus / nodes : gpus < ref_gpn ? gpus : ref_gpn;
  if (gpus > 1)
    rowv_note(assumed, an, "%d GPUs/server (blank; %s%s)", gpn,
              by_nodes ? "gpus / nodes" : ref ? "as " : "at most 8", by_nodes || !ref ? "" : ref);
  return gpn;
}

/* fp32 on Ampere or newer (arch 80+) runs in TF32 where the framework's
 * default does: TensorFlow (2.4+, and NVIDIA's TF1 builds, enable TF32
 * unless told not to: tf.config.experimental.
 * enable_tensor_float_32_execution) for every op, and PyTorch for
 * convolutions (torch.backends.cudnn.allow_tf32 defaults to True, while
 * its matmuls stay fp32 since 1.12): a CNN row; said in assumed. */
static void vdp_tf32(const vfw_text *fw, const sc_model *m, int arch, sc_plan *p, char *assumed,
                     size_t an) {
  if (p->dtype != SC_FP32 || arch < 80) return;
  int tf = fw->sole == VFW_TENSORFLOW, torch_cnn = fw->sole == VFW_PYTORCH && m->kind == SC_MODEL_CNN;
  if (!tf && !torch_cnn) return;
  p->dtype = SC_TF32;
  rowv_note(assumed, an, "TF32 for fp32 (%s default on Ampere and newer)",
            tf ? "TensorFlow's" : "PyTorch cuDNN's");
}

/* A blank batch_per_gpu from the schema's identity global_batch =
 * batch_per_gpu x gpus x grad_accum, when it divides; else 0. */
static long vdp_batch(vdp_ctx *c, int gpus, long acc, char *assumed, size_t an) {
  double g = vdp_num(c, "global_batch", 0);
  double per = gpus * (double)acc;
  if (c->bad || g < 1 || fmod(g, per) != 0) return 0;
  rowv_note(assumed, an, "batch_per_gpu %ld = global/(gpus*accum) (blank)",
            (long)(g / per));
  return (long)(g / per);
}

/* The scenario of the current row; 0, or 1 with `why` when the row cannot
 * be modelled (c->bad on a malformed cell). */
static int vdp_scenario(vdp_ctx *c, sc_scenario *s, char *why, size_t wn, char *assumed,
                        size_t an) {
  sc_scenario_default(s);
  vfw_text fw = vfw_read(vdp_cell(c, "framework"));
  const char *variant = vdp_variant(c, &fw, assumed, an);
  const sc_model *m = sc_model_preset(variant);
  if (!m) m = sc_model_preset(vdp_cell(c, "model"));
  if (!m) return snprintf(why, wn, "no model preset for '%s'", variant), 1;
  s->model = *m;
  int seq = (int)vdp_num(c, "seq", 0);
  if (s->model.kind == SC_MODEL_BERT && seq > 0) s->model.bert.seq = seq;
  if (s->model.kind == SC_MODEL_BERT)
    s->model.bert.tokens = vdp_tokens(vdp_cell(c, "notes"), vdp_cell(c, "data"), &fw,
                                      s->model.bert.seq);
  if (s->model.kind == SC_MODEL_BERT && s->model.bert.tokens > 0)
    rowv_note(assumed, an, "%d tokens per sequence (packed)", s->model.bert.tokens);
  int image = vdp_image(vdp_cell(c, "notes"));
  if (s->model.kind == SC_MODEL_CNN && image > 0) s->model.cnn.image = image;
  const char *gname = vdp_cell(c, "gpu");
  const sc_gpu *g = rowg_gpu(gname, assumed, an); /* validate/rowgpu.h */
  if (!g && !*gname) return snprintf(why, wn, "gpu is blank (required)"), 1;
  if (!g) return snprintf(why, wn, "unknown GPU '%s' (no preset)", gname), 1;
  sc_cluster *cl = &s->cluster;
  cl->gpu = *g;
  snprintf(cl->name, sizeof cl->name, "validation row");
  cl->gpus = vdp_gpus(c, assumed, an);
  if (cl->gpus < 1) return snprintf(why, wn, "gpus is blank and nothing gives it (nodes x "
                                             "gpus_per_node, or global_batch / batch_per_gpu)"), 1;
  int gpn = vdp_gpn(c, g->name, cl->gpus, assumed, an);
  if (gpn < 1) gpn = 1;
  if (gpn > cl->gpus) gpn = cl->gpus;
  cl->gpus_per_node = gpn;
  cl->nvlink_domain = gpn;
  cl->topology[0] = '\0';
  sc_dp_spec *d = &s->dp;
  const char *intra = vdp_cell(c, "intra_node");
  d->intra = vdp_intra(intra);
  double ibw = vdp_num(c, "intra_node_GBps", 0) * 1e9;
  if (d->intra == SC_DP_INTRA_PCIE) {
    d->intra_bw = ibw > 0 ? ibw * 0.88 : 0; /* PCIe efficiency: src/dp/fabric.c */
    cl->nvlink_bw = 0;
  } else if (ibw > 0) {
    cl->nvlink_bw = ibw;
  }
  d->host_bw = vdp_pcie(vdp_cell(c, "host_link"));
  double net = vdp_num(c, "network_Gbps", 0);
  d->network_bw = net * 1e9 / 8;
  cl->nic_bw = d->network_bw / gpn;
  int nodes = cl->gpus / gpn;
  if (nodes > 1 && net <= 0) {
    /* not stated: the NIC of the GPU's reference system (as for training
     * sets, rowdefaults.c), else 10 Gb/s Ethernet, the network AWS lists
     * for the p2.8xlarge K80 servers of the rows that leave it blank (from
     * AWS's instance-type table, not a file in ../shared) */
    const char *ref = NULL;
    double per_gpu = rowd_reference_nic(g->name, &ref);
    d->network_bw = ref ? per_gpu * gpn : 10e9 / 8;
    cl->nic_bw = d->network_bw / gpn;
    rowv_note(assumed, an, "network %.0f Gb/s per server (not stated; %s)",
              d->network_bw * 8 / 1e9, ref ? ref : "10 GbE");
  }
  /* the server's CPUs and memory: the GPU's reference system, as for the
   * NIC above; none (p2.8xlarge K80, DGX-1 P100): src/dp/fabric.c's default
   * server */
  cl->host = rowd_reference_host(g->name);
  const char *tr = vdp_cell(c, "transport"); /* any case */
  d->transport = !strcasecmp(tr, "tcp") ? SC_DP_TR_TCP
                 : !strcasecmp(tr, "rdma") ? SC_DP_TR_RDMA : SC_DP_TR_AUTO;
  char sbuf[48];
  const char *scheme = vdp_scheme(c, sbuf, sizeof sbuf); /* any case */
  if (dp_scheme_from_name(scheme) < 0)
    return snprintf(why, wn, "unknown scheme '%s'", vdp_cell(c, "scheme")), 1;
  snprintf(d->scheme, sizeof d->scheme, "%s", scheme);
  d->ps_count = (int)vdp_num(c, "ps_count", 0);
  d->ps_place = vdp_place(vdp_cell(c, "ps_placement"));
  d->fusion = vdp_fusion(&fw);
  if (fw.horovod) { /* the fusion defaults of the Horovod the text dates */
    vhv_defaults hv = vhv_for(vdp_cell(c, "framework"));
    if (hv.before_021) d->bucket_bytes = hv.fusion_bytes, d->cycle_s = hv.cycle_s;
  }
  if (vdp_nvidia_bert(&s->model, &fw)) {
    d->fusion = SC_DP_FUSION_NONE;
    rowv_note(assumed, an, "all-reduce after backward (NVIDIA BERT)");
    /* and updates with LAMB (apex FusedLAMB: run_pretraining.py's
     * optimizer; MLPerf BERT's too), model/optimizer.c; other BERT rows
     * keep the preset's AdamW (google-research/bert's) */
    s->model.optimizer = SC_OPT_LAMB;
    rowv_note(assumed, an, "LAMB (NVIDIA BERT)");
    /* and pads its vocabulary to a multiple of 8 for the tensor cores
     * (run_pretraining.py: "Padding for divisibility by 8"; recalled, as
     * above): BERT's 30,522 becomes 30,528 */
    int v = s->model.bert.vocab;
    s->model.bert.vocab = (v + VDP_VOCAB_PAD - 1) / VDP_VOCAB_PAD * VDP_VOCAB_PAD;
  }
  vdp_mlm_all(vdp_cell(c, "framework"), &fw, &s->model, assumed, an);
  sc_plan *p = &s->plan;
  sc_plan_default(p);
  long b = (long)vdp_num(c, "batch_per_gpu", 0);
  long acc = (long)vdp_num(c, "grad_accum", 1);
  if (b < 1) b = vdp_batch(c, cl->gpus, acc > 0 ? acc : 1, assumed, an);
  if (b < 1)
    return snprintf(why, wn, "batch_per_gpu is blank and global_batch does not give it "
                             "(global_batch / (gpus x grad_accum))"), 1;
  p->micro_batch = b;
  p->global_batch = b * (acc > 0 ? acc : 1) * cl->gpus;
  /* eager or graph executor, and PyTorch's layout (validate/framework.h);
   * a text naming no framework keeps the default */
  vfw_plan(&fw, p);
  /* otherwise plan.attention auto: unfused before Ampere (plan/plan_attn.h) */
  const char *dt = NULL;
  if (!vdp_dtype(vdp_cell(c, "dtype"), &dt)) {
    csv_malformed(c->f, c->path, "dtype", "fp32, tf32, amp, bf16, fp16 or unknown", &c->bad,
                  c->err);
    return 1;
  }
  p->dtype = !strcmp(dt, "fp32") ? SC_FP32 : !strcmp(dt, "tf32") ? SC_TF32
             : !strcmp(dt, "amp_bf16") ? SC_BF16 : SC_FP16;
  if (!strcmp(dt, "amp_bf16")) dt = "amp"; /* autocast: fp32 weights, as fp16 AMP */
  /* automatic mixed precision keeps the fp32 weights as the model's
   * parameters (fp16 casts inserted before the GEMMs), so the gradients
   * the all-reduce moves are fp32 (docs/dp.md "Mixed precision") */
  if (!strcmp(dt, "amp")) s->dp.grad_bytes = 4;
  /* except NVIDIA's BERT, whose post-accumulation all-reduce casts the
   * flat gradient buffer to fp16 under --fp16 (vdp_nvidia_bert's flags;
   * docs/dp.md "Per framework") */
  if (!strcmp(dt, "amp") && d->fusion == SC_DP_FUSION_NONE && vdp_nvidia_bert(&s->model, &fw))
    s->dp.grad_bytes = 2;
  /* and runs the frameworks' fp32 lists, casts and loss scaling
   * (plan.amp, cost/amp.h) */
  p->amp = !strcmp(dt, "amp");
  vdp_cublas(vdp_cell(c, "framework"), &fw, g->arch, p, assumed, an);
  vdp_tf32(&fw, &s->model, g->arch, p, assumed, an);
  vdp_fused_bn(&fw, &s->model, p, dt, assumed, an);
  vdp_keras(vdp_cell(c, "notes"), &s->model, assumed, an);
  vdp_plain_sgd(vdp_cell(c, "framework"), vdp_cell(c, "notes"), &s->model, assumed, an);
  vdp_l2_ops(vdp_cell(c, "framework"), &s->model, assumed, an);
  if (!strcmp(dt, "unknown") || !*dt)
    rowv_note(assumed, an, "fp16 mixed precision (dtype unknown)");
  return 0;
}

/* "scheme#" and the cells of cols, '|'-separated, into key. */
static void vdp_key(vdp_ctx *c, const char *const *cols, size_t n, char *key) {
  char b[48];
  snprintf(key, VDP_KEY, "%.40s#", vdp_scheme(c, b, sizeof b));
  for (size_t i = 0; i < n; i++)
    snprintf(key + strlen(key), VDP_KEY - strlen(key), "%.60s|", vdp_cell(c, cols[i]));
}

/* The row's keys: its ranking group and its one-GPU configuration. */
static void vdp_keys(vdp_ctx *c, vdp_info *in) {
  static const char *const group[] = {"model_variant", "batch_per_gpu", "grad_accum", "seq",
                                      "dtype", "data", "gpu", "gpus", "gpus_per_node", "nodes",
                                      "intra_node", "network_Gbps", "fabric"};
  static const char *const base[] = {"model_variant", "batch_per_gpu", "grad_accum", "seq",
                                     "dtype", "data", "gpu", "framework"};
  vdp_key(c, group, sizeof group / sizeof group[0], in->group);
  vdp_key(c, base, sizeof base / sizeof base[0], in->base);
  in->gpus = *vdp_cell(c, "gpus") ? vdp_count(c, "gpus", 1) : 0; /* blank: in no baseline */
}

static int vdp_add(val_file *vf, const val_row *r) {
  if (vec_grow((void **)&vf->rows, &vf->cap, vf->n + 1L, sizeof *vf->rows)) return -1;
  vf->rows[vf->n++] = *r;
  return 0;
}

/* 1 when the row is asynchronous: its `synchronous` cell (0/1, true/
 * false, yes/no, on/off); blank: the scheme's own (ps_async and
 * pair_averaging_async are asynchronous), said in assumed. A cell that is
 * none of these is malformed (c->bad). */
static int vdp_async(vdp_ctx *c, char *assumed, size_t an) {
  const char *cellv = vdp_cell(c, "synchronous");
  int v;
  if (rowv_flag(cellv, &v)) return !v;
  if (strspn(cellv, " ") != strlen(cellv)) {
    csv_malformed(c->f, c->path, "synchronous", "1 or 0 (also true/false, yes/no)", &c->bad,
                  c->err);
    return 0;
  }
  char b[48];
  int k = dp_scheme_from_name(vdp_scheme(c, b, sizeof b));
  int async = k >= 0 && dp_scheme_async((dp_scheme)k);
  rowv_note(assumed, an, "%s (blank: the scheme's)", async ? "asynchronous" : "synchronous");
  return async;
}

/* The row's scheme family: its `scheme_family` cell, blank: the scheme's
 * (ps, allreduce, gossip, none), for the per-family summary. */
static void vdp_family(vdp_ctx *c, char *fam, size_t cap) {
  char b[48];
  int k = dp_scheme_from_name(vdp_scheme(c, b, sizeof b));
  const char *cellv = vdp_cell(c, "scheme_family");
  snprintf(fam, cap, "%s", *cellv || k < 0 ? cellv : dp_family_name(dp_scheme_family((dp_scheme)k)));
}

/* Predict the current row into r. SC_OK (r may be skipped), or SC_ENOMEM. */
static int vdp_row(vdp_ctx *c, val_row *r) {
  int async = vdp_async(c, r->assumed, sizeof r->assumed);
  r->measured = vdp_num(c, async ? "worker_step_s" : "measured_iter_s", 0);
  vdp_family(c, r->family, sizeof r->family);
  double unc = vdp_num(c, "measured_uncertainty", 0);
  if (c->bad) return SC_OK;
  if (r->measured <= 0) {
    snprintf(r->skipped, sizeof r->skipped, "no measured %s", async ? "worker_step_s" : "measured_iter_s");
    return SC_OK;
  }
  sc_scenario s;
  char why[160] = "";
  if (vdp_scenario(c, &s, why, sizeof why, r->assumed, sizeof r->assumed)) {
    if (!c->bad) snprintf(r->skipped, sizeof r->skipped, "%s", why);
    return SC_OK;
  }
  if (c->bad) return SC_OK;
  sc_dp_result res;
  sc_error e = {0};
  s.dp.keep_unfit = 1; /* the run did run: its time is what is checked */
  int rc = sc_dp_predict(&s, &res, &e);
  if (rc == SC_ENOMEM) return sc_error_set(c->err, rc, "%s:%d: %s", c->path, c->f->record_line, e.msg);
  if (rc != SC_OK) {
    snprintf(r->skipped, sizeof r->skipped, "%.180s", e.msg);
    return SC_OK;
  }
  if (!res.mem.fits)
    rowv_note(r->assumed, sizeof r->assumed, "memory model %.1f GiB > %.1f GiB (the run fit)",
              res.mem.total / 1073741824.0, res.mem.capacity / 1073741824.0);
  r->predicted = res.step_s;
  r->ape = fabs(r->predicted - r->measured) / r->measured;
  r->unc_x = -1;
  if (unc > 0) {
    double samples = (double)s.plan.global_batch;
    r->unc_x = fabs(samples / r->predicted - samples / r->measured) / unc;
  }
  return SC_OK;
}

/* Ranking over groups (info[i] of row i). */
static void vdp_rank(val_file *vf, const vdp_info *info) {
  for (int i = 0; i < vf->n; i++)
    for (int j = i + 1; j < vf->n; j++) {
      const val_row *a = &vf->rows[i], *b = &vf->rows[j];
      const char *ka = strchr(info[i].group, '#'), *kb = strchr(info[j].group, '#');
      if (a->skipped[0] || b->skipped[0] || strcmp(ka, kb)) continue;
      /* same scheme: not a comparison of schemes */
      if (ka - info[i].group == kb - info[j].group &&
          !strncmp(info[i].group, info[j].group, (size_t)(ka - info[i].group)))
        continue;
      if (a->measured == b->measured) continue;
      vf->rank_pairs++;
      if (a->predicted == b->predicted) vf->rank_right += 0.5; /* a tie: half right */
      else if ((a->measured < b->measured) == (a->predicted < b->predicted)) vf->rank_right++;
    }
}

/* The one-GPU row of row i's configuration (same scheme first, else any
 * scheme), -1 when the set has none predicted. */
static int vdp_base(const val_file *vf, const vdp_info *info, int i) {
  int any = -1;
  const char *ki = strchr(info[i].base, '#');
  for (int j = 0; j < vf->n; j++) {
    if (info[j].gpus != 1 || vf->rows[j].skipped[0]) continue;
    if (!strcmp(info[j].base, info[i].base)) return j;
    if (any < 0 && !strcmp(strchr(info[j].base, '#'), ki)) any = j;
  }
  return any;
}

/* Mean |error| of the predicted scaling efficiency (one GPU's step over
 * the row's) of multi-GPU rows against the one-GPU row of the same
 * configuration: the exchange's error with the compute's cancelled. */
static double vdp_scaling(const val_file *vf, const vdp_info *info, int *n) {
  double sum = 0;
  *n = 0;
  for (int i = 0; i < vf->n; i++) {
    const val_row *r = &vf->rows[i];
    if (info[i].gpus < 2 || r->skipped[0]) continue;
    int b = vdp_base(vf, info, i);
    if (b < 0) continue;
    double em = vf->rows[b].measured / r->measured, ep = vf->rows[b].predicted / r->predicted;
    sum += fabs(ep / em - 1);
    ++*n;
  }
  return *n ? sum / *n : 0;
}

/* The note: MAPE per family, ranking, scaling, uncertainty multiples. */
static void vdp_note(val_file *vf, const vdp_info *info) {
  static const char *const fams[] = {"none", "allreduce", "ps", "gossip"};
  char *n = vf->note;
  size_t cap = sizeof vf->note;
  snprintf(n, cap, "per family:");
  for (size_t k = 0; k < sizeof fams / sizeof fams[0]; k++) {
    int rows = 0, skip = 0;
    double sum = 0;
    for (int i = 0; i < vf->n; i++) {
      if (strcmp(vf->rows[i].family, fams[k])) continue;
      if (vf->rows[i].skipped[0]) skip++;
      else rows++, sum += vf->rows[i].ape;
    }
    if (rows + skip == 0) continue;
    snprintf(n + strlen(n), cap - strlen(n), " %s %.1f%% (%d rows, %d skipped);", fams[k],
             rows ? 100 * sum / rows : 0.0, rows, skip);
  }
  if (vf->rank_pairs)
    snprintf(n + strlen(n), cap - strlen(n), " ranking %.1f of %d scheme pairs right (%.0f%%);",
             vf->rank_right, vf->rank_pairs, 100.0 * vf->rank_right / vf->rank_pairs);
  int ns;
  double sc = vdp_scaling(vf, info, &ns);
  vf->scaling_err = sc, vf->scaling_rows = ns;
  if (ns)
    snprintf(n + strlen(n), cap - strlen(n),
             " scaling efficiency vs the one-GPU row %.1f%% off (%d rows);", 100 * sc, ns);
  int u = 0, within = 0;
  double su = 0;
  for (int i = 0; i < vf->n; i++)
    if (!vf->rows[i].skipped[0] && vf->rows[i].unc_x >= 0)
      u++, su += vf->rows[i].unc_x, within += vf->rows[i].unc_x <= 1;
  if (u)
    snprintf(n + strlen(n), cap - strlen(n),
             " digitised rows: error %.1fx their reading uncertainty on average, %d of %d within it",
             su / u, within, u);
}

int vdp_row_scenario(csv_file *f, const char *path, sc_scenario *out, sc_error *err) {
  vdp_ctx c = {f, path, err, 0};
  char why[160] = "", assumed[128] = "";
  int skip = vdp_scenario(&c, out, why, sizeof why, assumed, sizeof assumed);
  if (c.bad) return SC_EINPUT;
  if (skip)
    return sc_error_set(err, SC_EMODEL, "%s:%d: row %s: %s", path, f->record_line,
                        vdp_cell(&c, "id"), why);
  out->dp.keep_unfit = 1;
  return SC_OK;
}

int vdp_read(csv_file *f, const char *path, val_file *vf, sc_error *err) {
  vdp_ctx c = {f, path, err, 0};
  vdp_info *info = NULL;
  int kcap = 0;
  int rc;
  while ((rc = csv_next(f, path, err)) == 1) {
    if (f->n_fields != f->n_cols) {
      sc_error_set(err, SC_EINPUT, "%s:%d: %d fields, but the header names %d columns", path,
                   f->record_line, f->n_fields, f->n_cols);
      rc = -SC_EINPUT;
      break;
    }
    val_row r;
    memset(&r, 0, sizeof r);
    r.predicted = -1, r.unc_x = -1;
    snprintf(r.id, sizeof r.id, "%s", vdp_cell(&c, "id"));
    int prc = vdp_row(&c, &r);
    if (c.bad) { rc = -SC_EINPUT; break; }
    if (prc) { rc = -prc; break; }
    if (vec_grow((void **)&info, &kcap, vf->n + 1L, sizeof *info) || vdp_add(vf, &r)) {
      rc = -sc_error_set(err, SC_ENOMEM, "%s: out of memory", path);
      break;
    }
    vdp_keys(&c, &info[vf->n - 1]);
  }
  if (rc == 0) {
    vdp_rank(vf, info);
    vdp_note(vf, info);
  }
  mem_free(info);
  return rc < 0 ? -rc : SC_OK;
}
