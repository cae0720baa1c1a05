/*
 * scenario.c -- read a scenario (model + cluster + plan) from JSON (module
 * prefix: scn_).
 *
 * The format is documented in docs/input.md. In short: three optional
 * sections; each one is the default scenario's section (or the preset it
 * names with "preset") with the keys it gives changed. JSON keys carry
 * human units in their names (GBps, Gbps, TBps, GB, tflops, us); the
 * structs hold SI units (bytes, bytes/s, FLOP/s, seconds).
 *
 * The decoder is table driven: each section is a list of scn_field rows
 * (key, kind, offset of the struct member, valid range, unit scale, what a
 * valid value looks like). The same tables check the key paths of
 * overrides, list the valid keys in "unknown key" messages and feed the
 * suggestions. Every user error is SC_EINPUT with a message that starts
 * with the origin (file name) and the key path; JSON syntax errors carry
 * line and column instead. The relations between values (tp divides
 * heads, ...) are checked afterwards by sc_scenario_resolve (plan.c).
 *
 * Ownership: the loader owns every json_t it creates and frees it before
 * returning; *s is written only on success.
 */
#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include <jansson.h>

#include "coll/fabrics.h"
#include "core/dtype.h"
#include "core/file.h"
#include "core/mem.h"
#include "core/name.h"
#include "core/utf8.h"
#include "hw/cluster_presets.h"
#include "hw/gpu_link.h"
#include "hw/gpu_names.h"
#include "load/graph_json.h"
#include "load/jparse.h"
#include "load/jpos.h"
#include "load/ovsize.h"
#include "load/refnet.h"
#include "load/scenario.h"
#include "model/optimizer.h"
#include "plan/plan.h"
#include "stepcast.h"

#define SCN_PATH 160     /* bytes kept of a key path */
#define SCN_LIST 480     /* bytes kept of a "valid: a, b, c" list */
#define SCN_MAX_NAMES 256 /* presets or keys listed at most */
#define SCN_MIN_FRACTION 1e-9 /* nonzero numbers: at least this x the key's maximum */

_Static_assert(sizeof(sc_act) == sizeof(int), "enums are stored as int");
_Static_assert(sizeof(sc_schedule) == sizeof(int), "enums are stored as int");
_Static_assert(sizeof(sc_dtype) == sizeof(int), "enums are stored as int");

/* ------------------------------------------------------------ the schema */

typedef enum scn_kind {
  SCN_INT,     /* JSON integer -> int */
  SCN_LONG,    /* JSON integer -> long */
  SCN_BOOL,    /* true/false (or 0/1) -> int 0/1 */
  SCN_NUM,     /* JSON number x human unit -> double in SI units */
  SCN_ENUM,    /* one of `names` (any case) -> int index */
  SCN_STR,     /* string -> char[size] */
  SCN_SUB,     /* object whose keys are the fields of `sub`, same target */
  SCN_SPECIAL  /* decoded by code (preset, gpu, nodes, sections) */
} scn_kind;

typedef struct scn_section scn_section;

/* One JSON key of a section and where its value goes. */
typedef struct scn_field {
  const char *key;            /* JSON key */
  scn_kind kind;
  size_t off;                 /* offset of the member in the target struct */
  size_t size;                /* SCN_STR: capacity of the char array */
  double lo, hi;              /* valid range in JSON units */
  int lo_open;                /* SCN_NUM: 1 = must be > lo */
  int hi_open;                /* SCN_NUM: 1 = must be < hi */
  double scale;               /* SCN_NUM: SI units per JSON unit */
  const char *const *names;   /* SCN_ENUM: names, index = enum value */
  int n_names;
  const scn_section *sub;     /* SCN_SUB / SCN_SPECIAL: keys below this one */
  const char *what;           /* a valid value, in words, for messages */
} scn_field;

/* A JSON object of the format: its key path and its keys. */
struct scn_section {
  const char *path;           /* "model", "cluster.gpu", ... ("" = root) */
  const scn_field *fields;
  size_t n;
};

#define NFIELDS(a) (sizeof(a) / sizeof((a)[0]))

#define F_INT(T, k, m, l, h, w) \
  {.key = k, .kind = SCN_INT, .off = offsetof(T, m), .lo = l, .hi = h, .what = w}
#define F_LONG(T, k, m, l, h, w) \
  {.key = k, .kind = SCN_LONG, .off = offsetof(T, m), .lo = l, .hi = h, .what = w}
#define F_BOOL(T, k, m) \
  {.key = k, .kind = SCN_BOOL, .off = offsetof(T, m), .what = "true or false"}
#define F_NUM(T, k, m, l, open, h, sc, w)                                     \
  {.key = k, .kind = SCN_NUM, .off = offsetof(T, m), .lo = l, .lo_open = open, \
   .hi = h, .scale = sc, .what = w}
/* A rate in [0, 1): 1 itself is refused (the dropout rates; a rate of 1
 * zeroes the branch, which no framework trains: docs/input.md). */
#define SCN_DROPOUT_WHAT \
  "a probability in [0, 1) (0 = no dropout: no mask, no kernel; 1 is refused: it drops everything)"
#define F_RATE(T, k, m, w) \
  {.key = k, .kind = SCN_NUM, .off = offsetof(T, m), .lo = 0, .hi = 1, .hi_open = 1, .scale = 1, .what = w}
#define F_ENUM(T, k, m, nm) \
  {.key = k, .kind = SCN_ENUM, .off = offsetof(T, m), .names = nm, .n_names = NFIELDS(nm)}
#define F_STR(T, k, m) \
  {.key = k, .kind = SCN_STR, .off = offsetof(T, m), .size = sizeof(((T *)0)->m), .what = "a string"}
/* a name: a string of at least one byte (lo 1) */
#define F_NAME(T, k, m)                                                                       \
  {.key = k, .kind = SCN_STR, .off = offsetof(T, m), .size = sizeof(((T *)0)->m), .lo = 1,   \
   .what = "a name"}
#define F_SPECIAL(k, sb, w) {.key = k, .kind = SCN_SPECIAL, .sub = sb, .what = w}

static const char *const scn_act_names[] = {"gelu", "swiglu", "relu"};
static const char *const scn_norm_names[] = {"layernorm", "rmsnorm"};
static const char *const scn_pos_names[] = {"learned", "rope", "alibi"};
static const char *const scn_fp8_recipe_names[] = {"delayed", "current", "block", "mxfp8"};
static const char *const scn_router_dtype_names[] = {"auto", "fp32"};

#define TFLOPS 1e12
#define PEAK(d) \
  {.key = #d, .kind = SCN_NUM, .off = offsetof(sc_gpu, peak_flops) + SC_##d * sizeof(double), \
   .lo = 0, .hi = 1e6, .scale = TFLOPS, .what = "dense TFLOP/s >= 0 (0 = unsupported)"}
#define SC_fp32 SC_FP32
#define SC_tf32 SC_TF32
#define SC_fp16 SC_FP16
#define SC_bf16 SC_BF16
#define SC_fp8 SC_FP8
#define SC_fp4 SC_FP4

static const scn_field scn_peak_fields[] = {PEAK(fp32), PEAK(tf32), PEAK(fp16),
                                            PEAK(bf16), PEAK(fp8), PEAK(fp4)};
static const scn_section scn_peak_sec = {"cluster.gpu.peak_tflops", scn_peak_fields,
                                         NFIELDS(scn_peak_fields)};

static const scn_field scn_gpu_fields[] = {
    F_SPECIAL("preset", NULL, "a GPU preset id"),
    F_NAME(sc_gpu, "name", name),
    F_INT(sc_gpu, "arch", arch, 0, 1000, "an SM version such as 80 or 90 (0 = not NVIDIA)"),
    F_INT(sc_gpu, "sm_count", sm_count, 0, 100000, "an integer >= 0"),
    {.key = "peak_tflops", .kind = SCN_SUB, .sub = &scn_peak_sec,
     .what = "an object of dense TFLOP/s per dtype, e.g. {\"bf16\": 989}"},
    F_NUM(sc_gpu, "vector_tflops", vector_flops, 0, 0, 1e6, TFLOPS, "TFLOP/s >= 0"),
    F_NUM(sc_gpu, "hbm_GB", hbm_bytes, 0, 1, 1e6, 1e9, "GB (10^9 bytes) > 0"),
    F_NUM(sc_gpu, "hbm_GiB", hbm_bytes, 0, 1, 1e6, 1073741824.0, "GiB (2^30 bytes) > 0"),
    F_NUM(sc_gpu, "hbm_TBps", hbm_bw, 0, 1, 1e4, 1e12, "TB/s > 0"),
    F_NUM(sc_gpu, "hbm_eff", hbm_eff, 0, 1, 1, 1, "a fraction in (0, 1]"),
    F_NUM(sc_gpu, "gemm_eff", gemm_eff, 0, 1, 1, 1, "a fraction in (0, 1]"),
    F_NUM(sc_gpu, "gemm_eff_fp8", gemm_eff_fp8, 0, 0, 1, 1, "a fraction in [0, 1] (0 = gemm_eff)"),
    F_NUM(sc_gpu, "attn_eff", attn_eff, 0, 1, 1, 1, "a fraction in (0, 1]"),
    F_NUM(sc_gpu, "nvlink_GBps", nvlink_bw, 0, 0, 1e6, 1e9, "GB/s per direction >= 0"),
    F_ENUM(sc_gpu, "link", link, gpu_link_keys),
    F_NUM(sc_gpu, "host_GBps", host_bw, 0, 0, 1e5, 1e9,
          "GB/s per direction >= 0 (0 = by generation)"),
    F_NUM(sc_gpu, "launch_us", launch_s, 0, 0, 1e6, 1e-6, "microseconds >= 0 (0 = default)"),
};
static const scn_section scn_gpu_sec = {"cluster.gpu", scn_gpu_fields, NFIELDS(scn_gpu_fields)};

/* 1 when field f of a section (a number, integer, flag or name list; an
 * object's fields any of them) holds different values in a and b. */
static int scn_field_differs(const scn_field *f, const void *a, const void *b) {
  const char *x = (const char *)a + f->off, *y = (const char *)b + f->off;
  switch (f->kind) {
  case SCN_INT: case SCN_BOOL: case SCN_ENUM: return *(const int *)x != *(const int *)y;
  case SCN_LONG: return *(const long *)x != *(const long *)y;
  case SCN_NUM: return *(const double *)x != *(const double *)y;
  case SCN_SUB:
    for (size_t i = 0; i < f->sub->n; i++)
      if (scn_field_differs(&f->sub->fields[i], a, b)) return 1;
    return 0;
  default: return 0; /* names and specials: not a GPU's figures */
  }
}

/* stepcast.h: the keys of cluster.gpu (scn_gpu_fields) whose values g
 * holds apart from the preset of its name; of two keys of one member
 * (hbm_GB, hbm_GiB) the last. */
int sc_gpu_changes(const sc_gpu *g, char *buf, size_t cap) {
  const sc_gpu *p = sc_gpu_preset(g->name);
  size_t len = 0;
  int n = 0;
  if (cap) buf[0] = 0;
  for (size_t i = 0; p && i < scn_gpu_sec.n; i++) {
    const scn_field *f = &scn_gpu_sec.fields[i];
    int later = 0;
    for (size_t j = i + 1; j < scn_gpu_sec.n; j++)
      later |= scn_gpu_sec.fields[j].kind == f->kind && scn_gpu_sec.fields[j].off == f->off;
    if (later || !scn_field_differs(f, g, p)) continue;
    if (len < cap) len += (size_t)snprintf(buf + len, cap - len, "%s%s", n ? ", " : "", f->key);
    n++;
  }
  return n;
}

static const scn_field scn_cluster_fields[] = {
    F_SPECIAL("preset", NULL, "a cluster preset id"),
    F_NAME(sc_cluster, "name", name),
    F_SPECIAL("gpu", &scn_gpu_sec, "a GPU preset id or an object"),
    {.key = "gpus", .kind = SCN_SPECIAL, .lo = 1, .hi = PLAN_MAX_GPUS, .what = "a positive integer"},
    {.key = "nodes", .kind = SCN_SPECIAL, .lo = 1, .hi = PLAN_MAX_GPUS, .what = "a positive integer"},
    F_INT(sc_cluster, "gpus_per_node", gpus_per_node, 1, PLAN_MAX_DEGREE, "a positive integer"),
    F_INT(sc_cluster, "nvlink_domain", nvlink_domain, 0, PLAN_MAX_GPUS,
          "a positive integer (0 = gpus_per_node)"),
    F_NUM(sc_cluster, "nvlink_GBps", nvlink_bw, 0, 0, 1e6, 1e9,
          "GB/s per GPU per direction >= 0 (0 = the GPU's)"),
    F_NUM(sc_cluster, "nic_Gbps", nic_bw, 0, 0, 1e7, 1e9 / 8, "Gb/s per GPU per direction >= 0"),
    F_NUM(sc_cluster, "nvlink_latency_us", nvlink_lat, 0, 0, 1e6, 1e-6, "microseconds >= 0"),
    F_NUM(sc_cluster, "nic_latency_us", nic_lat, 0, 0, 1e6, 1e-6, "microseconds >= 0"),
    F_ENUM(sc_cluster, "fabric", fabric, fab_names),
    F_STR(sc_cluster, "topology", topology),
    F_INT(sc_cluster, "straggler_gpu", straggler_gpu, 0, PLAN_MAX_GPUS,
          "a GPU index 0..gpus-1 (event engine what-if)"),
    F_NUM(sc_cluster, "straggler_slowdown", straggler_slowdown, 0, 0, 100, 1,
          "a fraction >= 0 (0.2 = kernels 20 % slower; 0 = no straggler)"),
    F_STR(sc_cluster, "link_fail", link_fail),
    F_STR(sc_cluster, "link_degrade", link_degrade),
    /* the host side of a server, for activation offloading (hostlink.c) */
    F_INT(sc_cluster, "host_gpus_per_link", host.gpus_per_link, 0, PLAN_MAX_DEGREE,
          "GPUs behind one uplink to the CPU, >= 0 (0 = each its own)"),
    F_NUM(sc_cluster, "host_link_GBps", host.link_bw, 0, 0, 1e5, 1e9,
          "GB/s per direction of that uplink >= 0 (0 = the GPU's host_GBps)"),
    F_NUM(sc_cluster, "host_mem_GBps", host.mem_bw, 0, 0, 1e6, 1e9,
          "GB/s of CPU memory per server >= 0 (0 = not limited)"),
    F_NUM(sc_cluster, "host_RAM_GB", host.mem_bytes, 0, 0, 1e7, 1e9,
          "GB of CPU memory per server >= 0 (0 = not limited)"),
    /* the servers' CPU, which NCCL's tuner reads across nodes (coll_nccl.c) */
    F_ENUM(sc_cluster, "host_cpu", host.cpu, fab_cpu_names),
};
static const scn_section scn_cluster_sec = {"cluster", scn_cluster_fields,
                                            NFIELDS(scn_cluster_fields)};

static const scn_field scn_model_fields[] = {
    F_SPECIAL("preset", NULL, "a model preset id"),
    F_NAME(sc_model, "name", name),
    F_SPECIAL("graph", NULL, "the path of a JSON workload graph (docs/graph.md)"),
    F_INT(sc_model, "layers", tf.layers, 1, PLAN_MAX_LAYERS, "a positive integer"),
    F_INT(sc_model, "hidden", tf.hidden, 1, PLAN_MAX_WIDTH, "a positive integer"),
    F_INT(sc_model, "heads", tf.heads, 1, PLAN_MAX_HEADS, "a positive integer"),
    F_INT(sc_model, "kv_heads", tf.kv_heads, 0, PLAN_MAX_HEADS, "a positive integer (0 = heads)"),
    F_INT(sc_model, "head_dim", tf.head_dim, 0, PLAN_MAX_HEADS,
          "a positive integer (0 = hidden / heads)"),
    F_INT(sc_model, "ffn", tf.ffn, 0, PLAN_MAX_WIDTH, "a positive integer (0 = 4 x hidden)"),
    F_INT(sc_model, "vocab", tf.vocab, 1, PLAN_MAX_VOCAB, "a positive integer"),
    F_INT(sc_model, "seq", tf.seq, 1, PLAN_MAX_SEQ, "a positive integer (tokens)"),
    F_INT(sc_model, "experts", tf.experts, 0, PLAN_MAX_HEADS, "an integer >= 0 (0 or 1 = dense)"),
    F_INT(sc_model, "topk", tf.topk, 0, PLAN_MAX_HEADS, "an integer >= 0 (experts per token)"),
    F_ENUM(sc_model, "activation", tf.act, scn_act_names),
    F_ENUM(sc_model, "norm", tf.norm, scn_norm_names),
    F_ENUM(sc_model, "position", tf.pos, scn_pos_names),
    F_BOOL(sc_model, "tied_embeddings", tf.tied_embeddings),
    F_BOOL(sc_model, "bias", tf.bias),
    F_INT(sc_model, "dense_layers", tf.dense_layers, 0, PLAN_MAX_LAYERS,
          "the first N layers dense (MoE models; 0 = none)"),
    F_INT(sc_model, "moe_every", tf.moe_every, 0, PLAN_MAX_LAYERS,
          "layer i is MoE when (i + 1) % N == 0 (0 or 1 = every layer)"),
    F_INT(sc_model, "dense_ffn", tf.dense_ffn, 0, PLAN_MAX_WIDTH,
          "MLP size of the dense layers (0 = ffn)"),
    F_INT(sc_model, "shared_experts", tf.shared_experts, 0, PLAN_MAX_HEADS,
          "experts every token runs, each ffn wide (0 = none)"),
    F_INT(sc_model, "q_lora_rank", tf.q_lora_rank, 0, PLAN_MAX_WIDTH,
          "MLA query latent size (0 = no query latent)"),
    F_INT(sc_model, "kv_lora_rank", tf.kv_lora_rank, 0, PLAN_MAX_WIDTH,
          "MLA key/value latent size (0 = standard attention)"),
    F_INT(sc_model, "rope_dim", tf.rope_dim, 0, PLAN_MAX_HEADS,
          "MLA RoPE part of a q/k head (qk_rope_head_dim)"),
    F_SPECIAL("image", NULL, "input pixels per side of a CNN preset (an integer)"),
    F_SPECIAL("classes", NULL, "classifier outputs of a CNN preset (an integer)"),
    F_SPECIAL("fused_bn", NULL,
              "1 = a ResNet preset's batch norm fused into its convolutions (cuDNN fused ops)"),
    F_SPECIAL("l2_ops", NULL,
              "1 = a CNN preset's loss adds an L2 penalty as ops per weight tensor (TensorFlow)"),
    F_SPECIAL("keras", NULL,
              "1 = a CNN preset as Keras' applications define it (ResNet conv biases, "
              "Inception-v3 batch norms without scale)"),
    F_SPECIAL("optimizer", NULL,
              "a CNN or BERT preset's update: " OPTIM_VALID " (blank: CNN momentum, BERT adam)"),
    F_SPECIAL("tokens", NULL,
              "mean tokens per sequence of a BERT preset that unpads or packs (0 = seq)"),
    F_SPECIAL("mlm_positions", NULL,
              "masked positions per sequence of a BERT preset (an integer, 0 = 5 seq / 32)"),
    F_SPECIAL("mlm_all_positions", NULL,
              "1 = a BERT preset's masked-LM head runs on every position (NVIDIA's 2020 "
              "PyTorch BERT)"),
    F_INT(sc_model, "v_head_dim", tf.v_head_dim, 0, PLAN_MAX_HEADS,
          "MLA value head size (0 = head_dim)"),
    F_RATE(sc_model, "attention_dropout", tf.attention_dropout, SCN_DROPOUT_WHAT),
    F_RATE(sc_model, "hidden_dropout", tf.hidden_dropout, SCN_DROPOUT_WHAT),
};
static const scn_section scn_model_sec = {"model", scn_model_fields, NFIELDS(scn_model_fields)};

static const scn_field scn_override_fields[] = {
    F_SPECIAL("layers", NULL, "[first, last] (0-based, inclusive) or one layer index"),
    F_STR(sc_override, "block", block),
    F_INT(sc_override, "tp", tp, 1, PLAN_MAX_DEGREE, "a positive integer"),
    F_INT(sc_override, "cp", cp, 1, PLAN_MAX_DEGREE, "a positive integer"),
    F_INT(sc_override, "ep", ep, 1, PLAN_MAX_DEGREE, "a positive integer"),
    F_BOOL(sc_override, "sp", sp),
    F_INT(sc_override, "zero", zero, 0, 3, "an integer 0..3"),
    F_ENUM(sc_override, "recompute", recompute, plan_recomp_names),
};

static const scn_field scn_plan_fields[] = {
    F_INT(sc_plan, "tp", tp, 1, PLAN_MAX_DEGREE, "a positive integer"),
    F_INT(sc_plan, "pp", pp, 1, PLAN_MAX_DEGREE, "a positive integer"),
    F_INT(sc_plan, "dp", dp, 0, PLAN_MAX_GPUS, "a positive integer (0 = gpus / (tp*pp*cp))"),
    F_INT(sc_plan, "cp", cp, 1, PLAN_MAX_DEGREE, "a positive integer"),
    F_INT(sc_plan, "ep", ep, 1, PLAN_MAX_DEGREE, "a positive integer"),
    F_NUM(sc_plan, "moe_capacity", moe_capacity, 0, 0, 64, 1,
          "0 (dropless) or the expert capacity factor (padded), e.g. 1.25"),
    F_INT(sc_plan, "etp", etp, 0, PLAN_MAX_DEGREE, "0 (= tp) or 1 (experts whole, ep folded over tp)"),
    F_INT(sc_plan, "vpp", vpp, 0, PLAN_MAX_VPP, "a positive integer (0 = pick)"),
    F_BOOL(sc_plan, "sp", sp),
    F_INT(sc_plan, "zero", zero, 0, 3, "an integer 0..3"),
    F_INT(sc_plan, "fsdp_shard", fsdp_shard, 0, PLAN_MAX_GPUS,
          "ranks one ZeRO-3 shard spans (HSDP; 0 = every data-parallel rank)"),
    F_ENUM(sc_plan, "schedule", schedule, plan_sched_names),
    F_ENUM(sc_plan, "recompute", recompute, plan_recomp_names),
    F_LONG(sc_plan, "global_batch", global_batch, 1, PLAN_MAX_BATCH,
           "a positive integer (sequences per step)"),
    F_LONG(sc_plan, "micro_batch", micro_batch, 0, PLAN_MAX_BATCH,
           "a positive integer (0 = pick)"),
    F_ENUM(sc_plan, "dtype", dtype, dtype_names),
    F_BOOL(sc_plan, "distributed_optimizer", distributed_optimizer),
    F_BOOL(sc_plan, "overlap_grad_reduce", overlap_grad_reduce),
    F_BOOL(sc_plan, "overlap_param_gather", overlap_param_gather),
    F_BOOL(sc_plan, "overlap_tp", overlap_tp),
    F_BOOL(sc_plan, "tp_async_bwd", tp_async_bwd),
    F_BOOL(sc_plan, "overlap_ep", overlap_ep),
    F_BOOL(sc_plan, "flash_attention", flash_attention),
    F_ENUM(sc_plan, "attention", attention, plan_attn_names),
    F_BOOL(sc_plan, "fused_kernels", fused_kernels),
    F_BOOL(sc_plan, "framework_eager", framework_eager),
    F_BOOL(sc_plan, "cuda_graphs", cuda_graphs),
    F_BOOL(sc_plan, "channels_last", channels_last),
    F_BOOL(sc_plan, "conv_autotune", conv_autotune),
    F_BOOL(sc_plan, "cublas_pre11", cublas_pre11),
    F_INT(sc_plan, "vocab_multiple", vocab_multiple, 0, 65536, "0 (the framework's) or 1..65536"),
    F_BOOL(sc_plan, "amp", amp),
    F_SPECIAL("overrides", NULL,
              "an array of per-layer overrides, e.g. [{\"layers\": [0, 3], \"recompute\": \"full\"}]"),
    F_ENUM(sc_plan, "main_grads", main_grads, dtype_names),
    F_ENUM(sc_plan, "main_params_dtype", main_params, dtype_names),
    F_ENUM(sc_plan, "exp_avg_dtype", exp_avg, dtype_names),
    F_ENUM(sc_plan, "exp_avg_sq_dtype", exp_avg_sq, dtype_names),
    F_BOOL(sc_plan, "fp8_param", fp8_param),
    F_BOOL(sc_plan, "param_remainders", param_remainders),
    F_BOOL(sc_plan, "fused_loss", fused_loss),
    F_ENUM(sc_plan, "loss", loss_impl, plan_loss_names),
    F_ENUM(sc_plan, "zero_grad", zero_grad, plan_zero_grad_names),
    F_BOOL(sc_plan, "ddp_bucket_view", ddp_bucket_view),
    F_ENUM(sc_plan, "framework", framework, plan_framework_names),
    F_ENUM(sc_plan, "fp8_recipe", fp8_recipe, scn_fp8_recipe_names),
    F_INT(sc_plan, "bf16_first_layers", bf16_first_layers, 0, PLAN_MAX_LAYERS,
          "layers at the start whose GEMMs stay in 16 bits in an fp8/fp4 plan"),
    F_INT(sc_plan, "bf16_last_layers", bf16_last_layers, 0, PLAN_MAX_LAYERS,
          "layers at the end whose GEMMs stay in 16 bits in an fp8/fp4 plan"),
    F_INT(sc_plan, "offload_layers", offload_layers, 0, PLAN_MAX_LAYERS,
          "0 or the number of layers whose activations go to host memory"),
    F_INT(sc_plan, "recompute_layers", recompute_layers, 0, PLAN_MAX_LAYERS,
          "layers recomputed per model chunk (0 = all, with recompute \"full\")"),
    F_SPECIAL("recompute_modules", NULL,
              "an array of Megatron recompute modules, e.g. [\"core_attn\", \"moe_act\"]"),
    F_INT(sc_plan, "pp_first_layers", pp_first_layers, 0, PLAN_MAX_LAYERS,
          "layers of the first pipeline stage (0 = even split)"),
    F_INT(sc_plan, "pp_last_layers", pp_last_layers, 0, PLAN_MAX_LAYERS,
          "layers of the last pipeline stage (0 = even split)"),
    F_BOOL(sc_plan, "pp_embedding_in_split", pp_embedding_in_split),
    F_BOOL(sc_plan, "pp_loss_in_split", pp_loss_in_split),
    F_SPECIAL("pp_layout", NULL,
              "an array of pp*vpp layer counts, chunk k of stage s at index k*pp + s"),
    /* FSDP / ZeRO-3 per framework, MoE as run (src/plan/plan_fsdp.c) */
    F_ENUM(sc_plan, "fsdp_impl", fsdp_impl, plan_fsdp_impl_names),
    F_BOOL(sc_plan, "fsdp_reshard", fsdp_reshard),
    F_INT(sc_plan, "fsdp_prefetch", fsdp_prefetch, 0, 64, "units gathered ahead in backward, 0..64"),
    F_BOOL(sc_plan, "fsdp_forward_prefetch", fsdp_forward_prefetch),
    F_NUM(sc_plan, "ds_prefetch_bucket", ds_prefetch_bucket, 0, 0, 1e15, 1, "elements >= 0"),
    F_NUM(sc_plan, "ds_max_live", ds_max_live, 0, 0, 1e15, 1, "elements >= 0"),
    F_NUM(sc_plan, "ds_max_reuse", ds_max_reuse, 0, 0, 1e15, 1, "elements >= 0"),
    F_NUM(sc_plan, "ds_reduce_bucket", ds_reduce_bucket, 1, 0, 1e15, 1, "elements >= 1"),
    F_NUM(sc_plan, "ds_persistence", ds_persistence, 0, 0, 1e15, 1, "elements >= 0"),
    F_BOOL(sc_plan, "moe_grouped_gemm", moe_grouped_gemm),
    F_BOOL(sc_plan, "moe_permute_fusion", moe_permute_fusion),
    F_BOOL(sc_plan, "moe_shared_expert_overlap", moe_shared_expert_overlap),
    F_ENUM(sc_plan, "moe_router_dtype", moe_router_fp32, scn_router_dtype_names),
    F_NUM(sc_plan, "moe_imbalance", moe_imbalance, 1, 0, 1024, 1,
          "tokens of the busiest expert-parallel rank over the mean, >= 1"),
    /* MoE token dispatch (src/plan/plan_moe.c) */
    F_ENUM(sc_plan, "moe_dispatcher", moe_dispatcher, plan_moe_dispatcher_names),
    F_INT(sc_plan, "moe_router_groups", moe_router_groups, 0, PLAN_MAX_HEADS,
          "groups of experts for group-limited routing (0 = none)"),
    F_INT(sc_plan, "moe_router_group_topk", moe_router_group_topk, 0, PLAN_MAX_HEADS,
          "groups a token may choose (0 = none)"),
    F_INT(sc_plan, "moe_flex_sms", moe_flex_sms, 1, 1024, "SMs of the flex dispatcher, >= 1"),
};
static const scn_section scn_plan_sec = {"plan", scn_plan_fields, NFIELDS(scn_plan_fields)};

/* "dp": the data-parallel scheme (issue 9; src/dp/, docs/input.md "dp") */
static const char *const scn_dp_place_names[] = {"auto", "host_cpu", "gpu", "colocated", "servers"};
static const char *const scn_dp_tr_names[] = {"auto", "tcp", "rdma"};
static const char *const scn_dp_intra_names[] = {"auto", "nvswitch", "nvlink-hybrid-cube-mesh",
                                                 "nvlink-mesh", "pcie"};
static const char *const scn_dp_fusion_names[] = {"auto", "ddp", "horovod", "tensor", "none",
                                                  "megatron"};
static const scn_field scn_dp_fields[] = {
    F_STR(sc_dp_spec, "scheme", scheme),
    F_INT(sc_dp_spec, "ps_count", ps_count, 0, PLAN_MAX_GPUS, "parameter-server shards (0 = one per server)"),
    F_ENUM(sc_dp_spec, "ps_placement", ps_place, scn_dp_place_names),
    F_ENUM(sc_dp_spec, "transport", transport, scn_dp_tr_names),
    F_ENUM(sc_dp_spec, "intra", intra, scn_dp_intra_names),
    F_NUM(sc_dp_spec, "network_Gbps", network_bw, 0, 0, 1e6, 1e9 / 8,
          "Gb/s per server per direction (0 = cluster.nic_Gbps x gpus_per_node)"),
    F_NUM(sc_dp_spec, "host_link_GBps", host_bw, 0, 0, 1e4, 1e9, "GB/s per GPU (0 = PCIe gen3 x16)"),
    F_NUM(sc_dp_spec, "intra_GBps", intra_bw, 0, 0, 1e5, 1e9, "GB/s per GPU (0 = the cluster's)"),
    F_ENUM(sc_dp_spec, "fusion", fusion, scn_dp_fusion_names),
    F_NUM(sc_dp_spec, "bucket_MB", bucket_bytes, 0, 0, 1e6, 1048576.0, "MiB (0 = the framework's)"),
    F_NUM(sc_dp_spec, "cycle_ms", cycle_s, 0, 0, 1e4, 1e-3, "ms (0 = the framework's)"),
    F_NUM(sc_dp_spec, "grad_bytes", grad_bytes, 0, 0, 8, 1, "bytes per gradient element (0 = by dtype)"),
    F_NUM(sc_dp_spec, "extra_ms", other_s, 0, 0, 1e7, 1e-3, "ms per step added to compute (>= 0)"),
    F_NUM(sc_dp_spec, "jitter", jitter, 0, 0, 1, 1,
          "coefficient of variation of a worker's compute time, 0..1 (0 = none)"),
    F_STR(sc_dp_spec, "graph", graph),
};
static const scn_section scn_dp_sec = {"dp", scn_dp_fields, NFIELDS(scn_dp_fields)};

static const scn_field scn_root_fields[] = {
    F_SPECIAL("model", &scn_model_sec, "a model preset id or an object"),
    F_SPECIAL("cluster", &scn_cluster_sec, "a cluster preset id or an object"),
    F_SPECIAL("plan", &scn_plan_sec, "an object"),
    F_SPECIAL("dp", &scn_dp_sec, "an object (data-parallel scheme)"),
    F_SPECIAL("description", NULL, "a string"),
};
static const scn_section scn_root_sec = {"", scn_root_fields, NFIELDS(scn_root_fields)};

/* -------------------------------------------------------- suggestions */

/* Names other tools use for our keys: suggested, never accepted. */
static const char *const scn_aliases[][2] = {
    {"hidden_size", "hidden"}, {"d_model", "hidden"}, {"n_embd", "hidden"},
    {"num_layers", "layers"}, {"n_layers", "layers"}, {"num_hidden_layers", "layers"},
    {"n_layer", "layers"}, {"num_attention_heads", "heads"}, {"n_heads", "heads"},
    {"n_head", "heads"}, {"num_key_value_heads", "kv_heads"}, {"num_query_groups", "kv_heads"},
    {"n_kv_heads", "kv_heads"}, {"kv_channels", "head_dim"}, {"intermediate_size", "ffn"},
    {"ffn_hidden_size", "ffn"}, {"vocab_size", "vocab"}, {"padded_vocab_size", "vocab"},
    {"seq_length", "seq"}, {"seq_len", "seq"}, {"max_seq_len", "seq"},
    {"sequence_length", "seq"}, {"num_experts", "experts"}, {"num_local_experts", "experts"},
    {"moe_router_topk", "topk"}, {"first_k_dense_replace", "dense_layers"},
    {"interleave_moe_layer_step", "moe_every"}, {"n_shared_experts", "shared_experts"},
    {"num_shared_experts", "shared_experts"}, {"qk_rope_head_dim", "rope_dim"},
    {"qk_nope_head_dim", "head_dim"}, {"moe_intermediate_size", "ffn"}, {"num_experts_per_tok", "topk"}, {"top_k", "topk"},
    {"tensor_model_parallel_size", "tp"}, {"tensor_parallel", "tp"},
    {"pipeline_model_parallel_size", "pp"}, {"pipeline_parallel", "pp"},
    {"data_parallel", "dp"}, {"context_parallel_size", "cp"},
    {"expert_model_parallel_size", "ep"}, {"expert_tensor_parallel_size", "etp"},
    {"moe_expert_capacity_factor", "moe_capacity"},
    {"stage3_prefetch_bucket_size", "ds_prefetch_bucket"}, {"stage3_max_live_parameters", "ds_max_live"},
    {"stage3_max_reuse_distance", "ds_max_reuse"}, {"reduce_bucket_size", "ds_reduce_bucket"},
    {"stage3_param_persistence_threshold", "ds_persistence"},
    {"reshard_after_forward", "fsdp_reshard"}, {"backward_prefetch", "fsdp_prefetch"},
    {"forward_prefetch", "fsdp_forward_prefetch"}, {"virtual_pipeline_model_parallel_size", "vpp"},
    {"sequence_parallel", "sp"}, {"global_batch_size", "global_batch"},
    {"gbs", "global_batch"}, {"micro_batch_size", "micro_batch"}, {"mbs", "micro_batch"},
    {"zero_stage", "zero"}, {"precision", "dtype"},
    {"use_distributed_optimizer", "distributed_optimizer"},
    {"recompute_granularity", "recompute"}, {"recompute_num_layers", "recompute_layers"},
    {"cpu_offloading_num_layers", "offload_layers"},
    {"overlap_moe_expert_parallel_comm", "overlap_ep"},
    {"moe_token_dispatcher_type", "moe_dispatcher"}, {"token_dispatcher", "moe_dispatcher"},
    {"deepep", "flex"}, {"hybridep", "flex"}, {"all_to_all", "alltoall"},
    {"all_gather", "allgather"}, {"moe_router_num_groups", "moe_router_groups"},
    {"moe_flex_dispatcher_num_sms", "moe_flex_sms"}, {"moe_deepep_num_sms", "moe_flex_sms"},
    {"moe_hybridep_num_sms", "moe_flex_sms"}, {"moe_router_topk_limited_devices", "moe_router_group_topk"},
    {"grad_reduce_in_fp32", "main_grads"}, {"main_grads_dtype", "main_grads"}, {"num_layers_at_start_in_bf16", "bf16_first_layers"},
    {"num_layers_at_end_in_bf16", "bf16_last_layers"}, {"fp8_param_gather", "fp8_param"}, {"activation_checkpointing", "recompute"},
    {"num_layers_in_first_pipeline_stage", "pp_first_layers"},
    {"num_layers_in_last_pipeline_stage", "pp_last_layers"},
    {"account_for_embedding_in_pipeline_split", "pp_embedding_in_split"},
    {"account_for_loss_in_pipeline_split", "pp_loss_in_split"},
    {"pipeline_model_parallel_layout", "pp_layout"},
    {"num_gpus", "gpus"}, {"world_size", "gpus"}, {"num_nodes", "nodes"},
    {"gpu_type", "gpu"}, {"memory_GB", "hbm_GB"}, {"hbm", "hbm_GB"},
};

/* The candidate that `word` names by a known synonym, or NULL. */
static const char *scn_alias(const char *word, const char *const *cands, size_t n) {
  for (size_t a = 0; a < NFIELDS(scn_aliases); a++) {
    if (strcasecmp(word, scn_aliases[a][0]) != 0) continue;
    for (size_t i = 0; i < n; i++)
      if (strcmp(cands[i], scn_aliases[a][1]) == 0) return cands[i];
  }
  return NULL;
}

/* A known synonym first ("hidden_size" -> "hidden"), then name_suggest. */
const char *scn_suggest(const char *word, const char *const *cands, size_t n) {
  const char *best = scn_alias(word, cands, n);
  return best ? best : name_suggest(word, cands, n);
}

void scn_gpu_hint(const char *id, char *buf, size_t cap) {
  const char *names[512];
  size_t n = sc_gpu_preset_count() < 512 ? sc_gpu_preset_count() : 512;
  for (size_t i = 0; i < n; i++) names[i] = sc_gpu_preset_at(i)->name;
  const char *near = id ? scn_suggest(id, names, n) : NULL;
  if (near)
    snprintf(buf, cap, "; did you mean \"%s\"?", near);
  else if (cap)
    buf[0] = '\0';
}

size_t scn_join(const char *const *names, size_t n, char *buf, size_t cap) {
  size_t len = 0;
  buf[0] = '\0';
  for (size_t i = 0; i < n; i++) {
    size_t need = strlen(names[i]) + 2;
    if (len + need + 24 >= cap) {
      snprintf(buf + len, cap - len, "%s... (%zu more)", len ? ", " : "", n - i);
      return n - i;
    }
    len += (size_t)snprintf(buf + len, cap - len, "%s%s", len ? ", " : "", names[i]);
  }
  return 0;
}

/* " Did you mean \"x\"?" or "" into buf. */
static void scn_did_you_mean(const char *word, const char *const *cands, size_t n,
                             char *buf, size_t cap) {
  const char *s = scn_suggest(word, cands, n);
  if (s) snprintf(buf, cap, " did you mean \"%s\"?", s);
  else buf[0] = '\0';
}

/* ------------------------------------------------------------- errors */

/* Decoder state: where errors go and the key path of the first one. */
typedef struct scn_ctx {
  sc_error *err;
  char bad[SCN_PATH];   /* key path that failed (for override notes) */
} scn_ctx;

/* Fail with SC_EINPUT and "PATH: message"; remember PATH. */
#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static int scn_fail(scn_ctx *c, const char *path, const char *fmt, ...) {
  char text[sizeof c->err->msg];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(text, sizeof text, fmt, ap);
  va_end(ap);
  snprintf(c->bad, sizeof c->bad, "%s", path);
  return sc_error_set(c->err, SC_EINPUT, "%s: %s", *path ? path : "(top level)", text);
}

void scn_describe(const json_t *v, char *buf, size_t cap) {
  switch (json_typeof(v)) {
  case JSON_OBJECT: snprintf(buf, cap, "an object"); return;
  case JSON_ARRAY: snprintf(buf, cap, "an array"); return;
  case JSON_INTEGER:
    snprintf(buf, cap, "integer %" JSON_INTEGER_FORMAT, json_integer_value(v));
    return;
  case JSON_REAL: snprintf(buf, cap, "number %g", json_real_value(v)); return;
  case JSON_TRUE: snprintf(buf, cap, "true"); return;
  case JSON_FALSE: snprintf(buf, cap, "false"); return;
  case JSON_NULL: snprintf(buf, cap, "null"); return;
  case JSON_STRING: break;
  }
  const char *s = json_string_value(v);
  char shown[48];
  size_t i = 0;
  for (; s[i] && i < 40; i++) shown[i] = isprint((unsigned char)s[i]) ? s[i] : '?';
  shown[i] = '\0';
  snprintf(buf, cap, "string \"%s\"%s", shown, s[i] ? "..." : "");
}

/* Fail with "PATH: expected WHAT, got <value>". */
static int scn_type(scn_ctx *c, const char *path, const char *what, const json_t *v) {
  char got[96];
  scn_describe(v, got, sizeof got);
  return scn_fail(c, path, "expected %s, got %s", what, got);
}

/* "parent.key" (or "key" when parent is "") into buf, truncated to cap. */
static void scn_path(char *buf, size_t cap, const char *parent, const char *key) {
  size_t n = strnlen(parent, cap - 1);
  memcpy(buf, parent, n);
  if (n && n + 1 < cap) buf[n++] = '.';
  size_t k = strnlen(key, cap - 1 - n);
  memcpy(buf + n, key, k);
  buf[n + k] = '\0';
}

/* ------------------------------------------------------ field decoding */

/* Read a JSON integer in [f->lo, f->hi] into *out. */
static int scn_integer(scn_ctx *c, const scn_field *f, const json_t *v, const char *path,
                       long long *out) {
  /* a whole number written as a real (1e3, 8.0: what Python's json writes
   * for a float) is that integer, exactly; a fraction is refused, and a
   * whole real out of range (1e30) said to be so */
  double r = json_is_real(v) ? json_real_value(v) : 0.5;
  if (!json_is_integer(v) && r != floor(r)) return scn_type(c, path, f->what, v);
  if (!json_is_integer(v) && (r < f->lo || r > f->hi))
    return scn_fail(c, path, "%.17g is out of range (valid: %lld..%lld)", r, (long long)f->lo,
                    (long long)f->hi);
  long long x = json_is_integer(v) ? json_integer_value(v) : (long long)r;
  if (x < (long long)f->lo || x > (long long)f->hi)
    return scn_fail(c, path, "%lld is out of range (valid: %lld..%lld)", x,
                    (long long)f->lo, (long long)f->hi);
  *out = x;
  return SC_OK;
}

/* Read a JSON number in the field's range, scaled to SI units. */
static int scn_number(scn_ctx *c, const scn_field *f, const json_t *v, const char *path,
                      double *out) {
  if (!json_is_number(v)) return scn_type(c, path, f->what, v);
  double x = json_number_value(v);
  int low = f->lo_open ? !(x > f->lo) : !(x >= f->lo);
  int high = f->hi_open ? !(x < f->hi) : x > f->hi;
  if (!isfinite(x) || low || high)
    return scn_fail(c, path, "%g is out of range (valid: %s, %s %g)", x, f->what,
                    f->hi_open ? "below" : "at most", f->hi);
  /* a nonzero value below a billionth of the maximum (denormals
   * included) is no hardware: times divided by it would overflow */
  if (x != 0 && fabs(x) < f->hi * SCN_MIN_FRACTION)
    return scn_fail(c, path, "%g is too small (valid: %s; a nonzero value at least %g)", x, f->what,
                    f->hi * SCN_MIN_FRACTION);
  *out = x * f->scale;
  return SC_OK;
}

/* Read one of f->names (any case) as its index. */
static int scn_enum(scn_ctx *c, const scn_field *f, const json_t *v, const char *path,
                    int *out) {
  char valid[SCN_LIST], hint[96];
  scn_join(f->names, (size_t)f->n_names, valid, sizeof valid);
  if (!json_is_string(v)) {
    char what[SCN_LIST + 16];
    snprintf(what, sizeof what, "one of %s", valid);
    return scn_type(c, path, what, v);
  }
  const char *s = json_string_value(v);
  for (int i = 0; i < f->n_names; i++)
    if (strcasecmp(s, f->names[i]) == 0) return *out = i, SC_OK;
  scn_did_you_mean(s, f->names, (size_t)f->n_names, hint, sizeof hint);
  char got[96];
  scn_describe(v, got, sizeof got);
  return scn_fail(c, path, "unknown value %s;%s valid: %s", got, hint, valid);
}

/* Read a boolean (true/false, or the integers 0 and 1). */
static int scn_bool(scn_ctx *c, const scn_field *f, const json_t *v, const char *path,
                    int *out) {
  if (json_is_boolean(v)) return *out = json_is_true(v), SC_OK;
  if (json_is_integer(v) && (json_integer_value(v) == 0 || json_integer_value(v) == 1))
    return *out = (int)json_integer_value(v), SC_OK;
  return scn_type(c, path, f->what, v);
}

/* Read a string that fits in f->size bytes (NUL included). */
static int scn_string(scn_ctx *c, const scn_field *f, const json_t *v, const char *path,
                      char *dst) {
  if (!json_is_string(v)) return scn_type(c, path, f->what, v);
  size_t len = json_string_length(v);
  if (len >= f->size)
    return scn_fail(c, path, "is %zu bytes long; at most %zu allowed", len, f->size - 1);
  if (strlen(json_string_value(v)) != len)
    return scn_fail(c, path, "contains a NUL character");
  /* a name labels the output (table, JSON, CSV, traces): a blank one
   * would print an empty label, so it is refused rather than guessed;
   * other strings take "" for none (cluster.topology, link_fail, ...) */
  if (len == 0 && f->lo > 0)
    return scn_fail(c, path, "is empty; give a name (it labels every output)");
  memcpy(dst, json_string_value(v), len + 1);
  return SC_OK;
}

static int scn_fields(scn_ctx *c, const scn_section *sec, const json_t *obj, void *target);

/* Decode value v of field f into the struct at target. */
static int scn_field_set(scn_ctx *c, const scn_field *f, const json_t *v, const char *path,
                         void *target) {
  char *dst = (char *)target + f->off;
  int rc = SC_OK, i = 0;
  long long x = 0;
  double d = 0;
  switch (f->kind) {
  case SCN_INT:
    if (!(rc = scn_integer(c, f, v, path, &x))) i = (int)x, memcpy(dst, &i, sizeof i);
    return rc;
  case SCN_LONG:
    if (!(rc = scn_integer(c, f, v, path, &x))) {
      long l = (long)x;
      memcpy(dst, &l, sizeof l);
    }
    return rc;
  case SCN_BOOL:
  case SCN_ENUM:
    rc = f->kind == SCN_BOOL ? scn_bool(c, f, v, path, &i) : scn_enum(c, f, v, path, &i);
    if (!rc) memcpy(dst, &i, sizeof i);
    return rc;
  case SCN_NUM:
    if (!(rc = scn_number(c, f, v, path, &d))) memcpy(dst, &d, sizeof d);
    return rc;
  case SCN_STR: return scn_string(c, f, v, path, dst);
  case SCN_SUB:
    if (!json_is_object(v)) return scn_type(c, path, f->what, v);
    return scn_fields(c, f->sub, v, target);
  case SCN_SPECIAL: return SC_OK; /* decoded by the section's own code */
  }
  return rc;
}

/* The field of sec named key, or NULL. */
static const scn_field *scn_find(const scn_section *sec, const char *key) {
  for (size_t i = 0; i < sec->n; i++)
    if (strcmp(sec->fields[i].key, key) == 0) return &sec->fields[i];
  return NULL;
}

/* The keys of sec, for messages and suggestions; returns the count. */
static size_t scn_keys(const scn_section *sec, const char **names) {
  size_t n = 0;
  for (size_t i = 0; i < sec->n && n < SCN_MAX_NAMES; i++) names[n++] = sec->fields[i].key;
  return n;
}

/* A document at the top level (obj; NULL: an override) with a key of
 * another stepcast input: which command reads that file, or "". */
static const char *scn_other_input(const scn_section *sec, const json_t *obj) {
  if (sec != &scn_root_sec || !obj) return "";
  if (json_object_get(obj, "training") || json_object_get(obj, "sharding"))
    return " (a recommendation job? `stepcast recsys predict FILE` reads it)";
  if (json_object_get(obj, "nodes") || json_object_get(obj, "links") ||
      json_object_get(obj, "generator"))
    return " (a topology? `stepcast topo FILE`, or cluster.topology in a scenario)";
  if (json_object_get(obj, "blocks"))
    return " (a workload graph? `-m FILE` or model.graph in a scenario)";
  if (json_object_get(obj, "traceEvents") || json_object_get(obj, "schemaVersion"))
    return " (a profiler trace? `stepcast trace FILE` reads it)";
  return "";
}

/* Fail on an unknown key of sec, with a suggestion and the valid keys. */
static int scn_unknown(scn_ctx *c, const scn_section *sec, const char *key, const json_t *obj) {
  const char *names[SCN_MAX_NAMES];
  size_t n = scn_keys(sec, names);
  char path[SCN_PATH], hint[96], valid[SCN_LIST];
  scn_path(path, sizeof path, sec->path, key);
  scn_did_you_mean(key, names, n, hint, sizeof hint);
  size_t left = scn_join(names, n, valid, sizeof valid);
  return scn_fail(c, path, "unknown key;%s valid keys in %s: %s%s%s", hint,
                  *sec->path ? sec->path : "the top level", valid,
                  left ? "; docs/input.md lists them all" : "", scn_other_input(sec, obj));
}

/* Every key of obj must be a field of sec (checked before any value, so
 * that a typo is reported first). */
static int scn_known(scn_ctx *c, const scn_section *sec, const json_t *obj) {
  const char *key;
  json_t *v;
  json_object_foreach((json_t *)obj, key, v) {
    if (!scn_find(sec, key)) return scn_unknown(c, sec, key, obj);
  }
  return SC_OK;
}

/* Check the keys of obj and decode every non-special one into target. */
static int scn_fields(scn_ctx *c, const scn_section *sec, const json_t *obj, void *target) {
  const char *key;
  json_t *v;
  int rc = scn_known(c, sec, obj);
  if (rc) return rc;
  json_object_foreach((json_t *)obj, key, v) {
    char path[SCN_PATH];
    scn_path(path, sizeof path, sec->path, key);
    if ((rc = scn_field_set(c, scn_find(sec, key), v, path, target))) return rc;
  }
  return SC_OK;
}

/* ------------------------------------------------------------ presets */

typedef const char *(*scn_name_at)(size_t i);

static const char *scn_model_id(size_t i) { return sc_model_preset_at(i)->name; }
static const char *scn_cluster_id(size_t i) { return sc_cluster_preset_at(i)->name; }
static const char *scn_gpu_id(size_t i) { return sc_gpu_preset_at(i)->name; }

/* Fail on an unknown preset id: suggestion plus every valid id. */
static int scn_unknown_preset(scn_ctx *c, const char *path, const char *kind, const char *id,
                              scn_name_at at, size_t count) {
  const char *names[SCN_MAX_NAMES];
  size_t n = 0;
  for (size_t i = 0; i < count && n < SCN_MAX_NAMES; i++) names[n++] = at(i);
  char hint[96], valid[SCN_LIST], shown[48];
  scn_did_you_mean(id, names, n, hint, sizeof hint);
  size_t left = scn_join(names, n, valid, sizeof valid);
  snprintf(shown, sizeof shown, "%s", id);
  return scn_fail(c, path, "unknown %s preset \"%s\";%s valid: %s%s", kind, shown, hint, valid,
                  left ? "; `stepcast presets` lists them all" : "");
}

/* The string value of a "preset" key, or fail with its type. */
static int scn_preset_id(scn_ctx *c, const char *path, const json_t *v, const char **id) {
  if (!json_is_string(v)) return scn_type(c, path, "a preset id (string)", v);
  *id = json_string_value(v);
  return SC_OK;
}

/* --------------------------------------------------------------- model */

/* Forget the derived shape fields of a preset (kv_heads == heads, head_dim
 * == hidden / heads, ffn == 4 hidden) so that they follow edits of
 * hidden and heads; sc_scenario_resolve derives them again. */
static void scn_model_relax(sc_model *model) {
  sc_transformer *m = &model->tf;
  if (model->kind != SC_MODEL_TRANSFORMER) return;
  if (m->kv_heads == m->heads) m->kv_heads = 0;
  if ((long)m->head_dim * m->heads == m->hidden) m->head_dim = 0;
  if (m->ffn == 4L * m->hidden) m->ffn = 0;
}

static int scn_model_preset(scn_ctx *c, const char *path, const char *id, sc_model *m) {
  const sc_model *p = sc_model_preset(id);
  if (!p && strchr(id, '/')) /* a path, not an id: a graph file ends in .json */
    return scn_fail(c, path, "\"%.100s\" is no model preset, and a workload graph file's name "
                    "ends in .json (docs/graph.md)", id);
  if (!p)
    return scn_unknown_preset(c, path, "model", id, scn_model_id, sc_model_preset_count());
  *m = *p;
  return SC_OK;
}

/* The first key of obj that changes the shape of a transformer (not only
 * name or seq), or NULL. */
static const char *scn_model_shaped(const json_t *obj) {
  static const char *const shape[] = {"layers", "hidden", "heads", "kv_heads", "head_dim",
                                      "ffn", "vocab", "experts", "topk", "activation",
                                      "norm", "position", "tied_embeddings", "bias"};
  for (size_t i = 0; i < NFIELDS(shape); i++)
    if (json_object_get(obj, shape[i])) return shape[i];
  return NULL;
}

/* "dir/x.json" -> "x" into buf: the default name of a graph model. */
static void scn_stem(const char *path, char *buf, size_t cap) {
  const char *base = strrchr(path, '/');
  base = base ? base + 1 : path;
  size_t n = strlen(base);
  if (n > 5 && !strcmp(base + n - 5, ".json")) n -= 5;
  snprintf(buf, cap, "%.*s", (int)n, base);
}

/* A graph model: {"graph": path} with an optional name; the transformer
 * keys do not apply. */
/* Keys of the CNN and BERT presets beside preset and name, with the
 * presets each applies to. */
static const struct {
  const char *key, *presets;
} scn_zoo_keys[] = {{"image", "CNN"},         {"classes", "CNN"},
                    {"fused_bn", "ResNet"},     {"l2_ops", "CNN"},
                    {"keras", "CNN"},           {"optimizer", "CNN and BERT"},
                    {"mlm_positions", "BERT"},  {"tokens", "BERT"},
                    {"mlm_all_positions", "BERT"}};

/* A model object v that is not a CNN or BERT preset (`what`: "presets",
 * "a graph") given one of their keys: the error; else SC_OK. */
static int scn_no_zoo_keys(scn_ctx *c, const json_t *v, const char *what) {
  for (size_t i = 0; i < NFIELDS(scn_zoo_keys); i++)
    if (json_object_get(v, scn_zoo_keys[i].key))
      return scn_fail(c, "model", "model.%s applies to %s presets only, not to %s",
                      scn_zoo_keys[i].key, scn_zoo_keys[i].presets, what);
  return SC_OK;
}

static int scn_graph_model(scn_ctx *c, const json_t *v, sc_model *m) {
  const json_t *g = json_object_get(v, "graph"), *name = json_object_get(v, "name");
  const char *shaped = scn_model_shaped(v);
  if (json_object_get(v, "preset"))
    return scn_fail(c, "model.graph", "give a preset or a graph, not both");
  static const char *const drop[] = {"model.attention_dropout", "model.hidden_dropout"};
  for (size_t i = 0; i < NFIELDS(drop); i++)
    if (json_object_get(v, drop[i] + strlen("model.")))
      return scn_fail(c, drop[i], "applies to transformer specs, not to a graph, whose "
                      "dropout is its own operators (docs/graph.md)");
  int rc = scn_no_zoo_keys(c, v, "a graph");
  if (rc) return rc;
  if (shaped || json_object_get(v, "seq"))
    return scn_fail(c, shaped ? "model.layers" : "model.seq",
                    "a graph model takes its shape from the graph file; drop model.%s",
                    shaped ? shaped : "seq");
  if (!json_is_string(g) || !json_string_value(g)[0])
    return scn_type(c, "model.graph", "the path of a JSON workload graph (docs/graph.md)", g);
  const char *path = json_string_value(g);
  if (strlen(path) >= sizeof m->graph.path)
    return scn_fail(c, "model.graph", "the path is longer than %zu bytes",
                    sizeof m->graph.path - 1);
  memset(m, 0, sizeof *m);
  m->kind = SC_MODEL_GRAPH;
  snprintf(m->graph.path, sizeof m->graph.path, "%s", path);
  scn_stem(path, m->name, sizeof m->name);
  if (name) {
    if (!json_is_string(name)) return scn_type(c, "model.name", "a string", name);
    snprintf(m->name, sizeof m->name, "%s", json_string_value(name));
  }
  return SC_OK;
}

/* A string naming a model: a preset id, or a graph file (".json"). */
static int scn_model_string(scn_ctx *c, const json_t *v, sc_model *m) {
  const char *id = json_string_value(v);
  size_t n = strlen(id);
  if (n > 5 && !strcmp(id + n - 5, ".json")) {
    json_t *obj = json_pack("{s:O}", "graph", (json_t *)v);
    if (!obj) return sc_error_set(c->err, SC_ENOMEM, "out of memory");
    int rc = scn_graph_model(c, obj, m);
    json_decref(obj);
    return rc;
  }
  return scn_model_preset(c, "model", id, m);
}

/* An integer key of the model object into *out (untouched if absent). */
static int scn_zoo_int(scn_ctx *c, const json_t *v, const char *key, int lo, int hi, int *out) {
  const json_t *x = json_object_get(v, key);
  char path[64];
  snprintf(path, sizeof path, "model.%s", key);
  if (!x) return SC_OK;
  /* a whole number written as a real (224.0) too, as scn_integer */
  double n = json_number_value(x); /* 0 for a non-number */
  int whole = json_is_integer(x) || (json_is_real(x) && n == floor(n));
  if (!whole || n < lo || n > hi) {
    char what[64];
    snprintf(what, sizeof what, "an integer %d..%d", lo, hi);
    return scn_type(c, path, what, x);
  }
  *out = (int)n;
  return SC_OK;
}

/* The model object's optimizer name into *out (untouched if absent):
 * model/optimizer.h's names. */
static int scn_zoo_optimizer(scn_ctx *c, const json_t *v, sc_optimizer *out) {
  const json_t *x = json_object_get(v, "optimizer");
  if (!x) return SC_OK;
  if (!json_is_string(x)) return scn_type(c, "model.optimizer", OPTIM_VALID " (a string)", x);
  if (optim_from_name(json_string_value(x), out))
    return scn_fail(c, "model.optimizer", "\"%.40s\" is not an optimizer (valid: %s)",
                    json_string_value(x), OPTIM_VALID);
  return SC_OK;
}

/* A CNN or BERT preset edited: {"preset": id, "image": 224} or
 * {"preset": "bert_large", "seq": 128, "mlm_positions": 20}; other keys
 * of the transformer do not apply. The builder checks the values. */
static int scn_zoo_model(scn_ctx *c, const json_t *v, sc_model *m) {
  int cnn = m->kind == SC_MODEL_CNN, rc;
  const char *key;
  json_t *x;
  json_object_foreach((json_t *)v, key, x) {
    int ok = !strcmp(key, "preset") || !strcmp(key, "name") ||
             !strcmp(key, "optimizer") ||
             (cnn ? !strcmp(key, "image") || !strcmp(key, "classes") ||
                        !strcmp(key, "fused_bn") || !strcmp(key, "l2_ops") ||
                        !strcmp(key, "keras")
                  : !strcmp(key, "seq") || !strcmp(key, "mlm_positions") ||
                        !strcmp(key, "tokens") || !strcmp(key, "mlm_all_positions"));
    if (!ok)
      return scn_fail(c, "model", "model.%s does not apply to %s (a %s preset); valid: preset, "
                      "name, optimizer, %s", key, m->name, cnn ? "CNN" : "BERT",
                      cnn ? "image, classes, fused_bn, l2_ops, keras"
                          : "seq, tokens, mlm_positions, mlm_all_positions");
  }
  const json_t *name = json_object_get(v, "name");
  if (name && !json_is_string(name)) return scn_type(c, "model.name", "a string", name);
  if (name) snprintf(m->name, sizeof m->name, "%s", json_string_value(name));
  if ((rc = scn_zoo_optimizer(c, v, &m->optimizer))) return rc;
  if (cnn)
    return (rc = scn_zoo_int(c, v, "image", 0, 1 << 20, &m->cnn.image)) ||
                   (rc = scn_zoo_int(c, v, "classes", 0, 1 << 24, &m->cnn.classes)) ||
                   (rc = scn_zoo_int(c, v, "fused_bn", 0, 1, &m->cnn.fused_bn)) ||
                   (rc = scn_zoo_int(c, v, "l2_ops", 0, 1, &m->cnn.l2_ops))
               ? rc
               : scn_zoo_int(c, v, "keras", 0, 1, &m->cnn.keras);
  if ((rc = scn_zoo_int(c, v, "seq", 1, PLAN_MAX_SEQ, &m->bert.seq)) ||
      (rc = scn_zoo_int(c, v, "tokens", 0, PLAN_MAX_SEQ, &m->bert.tokens)) ||
      (rc = scn_zoo_int(c, v, "mlm_all_positions", 0, 1, &m->bert.mlm_all_positions)))
    return rc;
  return scn_zoo_int(c, v, "mlm_positions", 0, PLAN_MAX_SEQ, &m->bert.mlm_positions);
}

/* Decode the "model" section: a preset id, or an object (the preset it
 * names, else *m, with the keys given changed). */
static int scn_model(scn_ctx *c, const json_t *v, sc_model *m) {
  const char *id = NULL;
  int rc;
  if (json_is_string(v)) return scn_model_string(c, v, m);
  if (!json_is_object(v))
    return scn_type(c, "model", "a model preset id (string) or an object", v);
  if ((rc = scn_known(c, &scn_model_sec, v))) return rc;
  if (json_object_get(v, "graph")) return scn_graph_model(c, v, m);
  const json_t *p = json_object_get(v, "preset");
  if (p && ((rc = scn_preset_id(c, "model.preset", p, &id)) ||
            (rc = scn_model_preset(c, "model.preset", id, m))))
    return rc;
  if (m->kind == SC_MODEL_CNN || m->kind == SC_MODEL_BERT) return scn_zoo_model(c, v, m);
  if ((rc = scn_no_zoo_keys(c, v, "a transformer spec"))) return rc;
  if (m->kind != SC_MODEL_TRANSFORMER) { /* a graph model edited: a transformer again */
    sc_scenario d;
    sc_scenario_default(&d);
    *m = d.model;
  }
  scn_model_relax(m);
  if (!p && scn_model_shaped(v)) snprintf(m->name, sizeof m->name, "custom");
  return scn_fields(c, &scn_model_sec, v, m);
}

/* ----------------------------------------------------------------- GPU */

static int scn_gpu_preset(scn_ctx *c, const char *path, const char *id, sc_gpu *g) {
  const sc_gpu *p = sc_gpu_preset(id);
  char note[128]; /* a published spelling that names one preset: say which */
  const sc_gpu *named = p ? NULL : gpun_resolve(id, note, sizeof note);
  if (named && !note[0])
    return scn_fail(c, path, "unknown GPU preset \"%.48s\"; it names the preset \"%s\" "
                    "(docs/hardware.md): give that id", id, named->name);
  if (!p) return scn_unknown_preset(c, path, "GPU", id, scn_gpu_id, sc_gpu_preset_count());
  *g = *p;
  return SC_OK;
}

/* Decode "cluster.gpu": a GPU preset id, or an object (its preset, else
 * the cluster's current GPU, with the keys given changed). Without a
 * preset the GPU keeps its name (a variant: more HBM, ...) unless the
 * object sets peak_tflops, which makes it "custom" (unless named). */
static int scn_gpu(scn_ctx *c, const json_t *v, sc_gpu *g) {
  const char *id = NULL;
  int rc;
  if (json_is_string(v)) return scn_gpu_preset(c, "cluster.gpu", json_string_value(v), g);
  if (!json_is_object(v))
    return scn_type(c, "cluster.gpu", "a GPU preset id (string) or an object", v);
  if ((rc = scn_known(c, &scn_gpu_sec, v))) return rc;
  if (json_object_get(v, "hbm_GB") && json_object_get(v, "hbm_GiB"))
    return scn_fail(c, "cluster.gpu.hbm_GiB", "give hbm_GB or hbm_GiB, not both");
  const json_t *p = json_object_get(v, "preset");
  if (p && ((rc = scn_preset_id(c, "cluster.gpu.preset", p, &id)) ||
            (rc = scn_gpu_preset(c, "cluster.gpu.preset", id, g))))
    return rc;
  if (!p && json_object_get(v, "peak_tflops")) /* another chip, not a variant */
    snprintf(g->name, sizeof g->name, "custom");
  /* the user's own speeds: nothing of them was measured by stepcast */
  static const char *const speeds[] = {"peak_tflops", "gemm_eff", "gemm_eff_fp8", "attn_eff"};
  for (size_t i = 0; i < NFIELDS(speeds); i++)
    if (json_object_get(v, speeds[i])) g->calibrated = 0;
  return scn_fields(c, &scn_gpu_sec, v, g);
}

/* ------------------------------------------------------------- cluster */

static int scn_cluster_preset(scn_ctx *c, const char *path, const char *id, sc_cluster *cl) {
  if (clus_preset_fill(cl, id)) return SC_OK;
  if (sc_cluster_preset(id))  /* known cluster whose GPU preset is missing */
    return scn_fail(c, path, "preset \"%s\" names GPU \"%s\", which is not a GPU preset", id,
                    sc_cluster_preset(id)->gpu.name);
  return scn_unknown_preset(c, path, "cluster", id, scn_cluster_id, sc_cluster_preset_count());
}

/* Set cluster.gpus from "gpus" or "nodes" x gpus_per_node (both: they
 * must agree). */
static int scn_cluster_size(scn_ctx *c, const json_t *v, sc_cluster *cl) {
  const json_t *jn = json_object_get(v, "nodes"), *jg = json_object_get(v, "gpus");
  long long nodes = 0, gpus = 0;
  int rc;
  if ((jn && (rc = scn_integer(c, scn_find(&scn_cluster_sec, "nodes"), jn, "cluster.nodes", &nodes))) ||
      (jg && (rc = scn_integer(c, scn_find(&scn_cluster_sec, "gpus"), jg, "cluster.gpus", &gpus))))
    return rc;
  if (!jn) {
    if (jg) cl->gpus = (int)gpus;
    return SC_OK;
  }
  long long total = nodes * cl->gpus_per_node;
  if (total > PLAN_MAX_GPUS)
    return scn_fail(c, "cluster.nodes", "%lld nodes x gpus_per_node %d = %lld GPUs exceeds %ld",
                    nodes, cl->gpus_per_node, total, PLAN_MAX_GPUS);
  if (jg && gpus != total)
    return scn_fail(c, "cluster.gpus",
                    "%lld disagrees with cluster.nodes %lld x gpus_per_node %d = %lld; "
                    "give one of the two",
                    gpus, nodes, cl->gpus_per_node, total);
  cl->gpus = (int)total;
  return SC_OK;
}

/* Let the NVLink domain of a single-server preset follow edits of
 * gpus_per_node (nvlink_domain 0 = gpus_per_node for resolve). */
static void scn_cluster_relax(sc_cluster *cl) {
  if (cl->nvlink_domain == cl->gpus_per_node) cl->nvlink_domain = 0;
}

/* True when obj changes more than the size or name of the cluster. */
static int scn_cluster_shaped(const json_t *obj) {
  const char *key;
  json_t *v;
  json_object_foreach((json_t *)obj, key, v) {
    if (strcmp(key, "nodes") && strcmp(key, "gpus") && strcmp(key, "name")) return 1;
  }
  return 0;
}

/* Decode the "cluster" section: a preset id (one node), or an object (its
 * preset, else *cl, with the keys given changed). */
static int scn_cluster(scn_ctx *c, const json_t *v, sc_cluster *cl) {
  const char *id = NULL;
  int rc;
  if (json_is_string(v)) return scn_cluster_preset(c, "cluster", json_string_value(v), cl);
  if (!json_is_object(v))
    return scn_type(c, "cluster", "a cluster preset id (string) or an object", v);
  if ((rc = scn_known(c, &scn_cluster_sec, v))) return rc;
  const json_t *p = json_object_get(v, "preset");
  if (p && ((rc = scn_preset_id(c, "cluster.preset", p, &id)) ||
            (rc = scn_cluster_preset(c, "cluster.preset", id, cl))))
    return rc;
  scn_cluster_relax(cl);
  if (!p && scn_cluster_shaped(v)) snprintf(cl->name, sizeof cl->name, "custom");
  const json_t *g = json_object_get(v, "gpu");
  if (g && (rc = scn_gpu(c, g, &cl->gpu))) return rc;
  /* another GPU without a preset is another server: the base's NIC and
   * host side no longer apply; its reference system's do where the
   * document states none (load/refnet.h; nic_Gbps, host_* keys below) */
  if (g && !p) refnet_fill(cl, v);
  else if (g) refnet_note_preset(cl, v, id);
  if ((rc = scn_fields(c, &scn_cluster_sec, v, cl))) return rc;
  /* a fabric brings its per-traversal latency unless the document gives
   * nic_latency_us (docs/network.md "Fabrics") */
  if (json_object_get(v, "fabric") && !json_object_get(v, "nic_latency_us"))
    cl->nic_lat = sc_fabric_latency(cl->fabric);
  return scn_cluster_size(c, v, cl);
}

/* ------------------------------------------------------------ overrides */

/* "layers": [first, last] or one index. */
static int scn_override_layers(scn_ctx *c, const json_t *v, const char *path, sc_override *o) {
  const scn_field f = {.key = "layers", .lo = 0, .hi = PLAN_MAX_LAYERS - 1,
                       .what = "a layer index (0-based)"};
  long long a = 0, b = 0;
  int rc;
  if (json_is_number(v)) { /* a whole real too (scn_integer) */
    if ((rc = scn_integer(c, &f, v, path, &a))) return rc;
    o->first = o->last = (int)a;
    return SC_OK;
  }
  if (!json_is_array(v) || json_array_size(v) != 2)
    return scn_type(c, path, "[first, last] (0-based, inclusive) or one layer index", v);
  if ((rc = scn_integer(c, &f, json_array_get(v, 0), path, &a)) ||
      (rc = scn_integer(c, &f, json_array_get(v, 1), path, &b)))
    return rc;
  if (b < a) return scn_fail(c, path, "[%lld, %lld]: last is before first", a, b);
  o->first = (int)a;
  o->last = (int)b;
  return SC_OK;
}

/* "plan.overrides": an array of objects, each naming layers or a block. */
static int scn_overrides(scn_ctx *c, const json_t *v, sc_plan *p) {
  if (!json_is_array(v))
    return scn_type(c, "plan.overrides", "an array of override objects", v);
  if (json_array_size(v) > SC_MAX_OVERRIDES)
    return scn_fail(c, "plan.overrides", "%zu overrides; at most %d", json_array_size(v),
                    SC_MAX_OVERRIDES);
  p->n_overrides = 0;
  for (size_t i = 0; i < json_array_size(v); i++) {
    const json_t *e = json_array_get(v, i);
    char path[64], lp[SCN_PATH];
    snprintf(path, sizeof path, "plan.overrides[%zu]", i);
    scn_section sec = {path, scn_override_fields, NFIELDS(scn_override_fields)};
    sc_override *o = &p->overrides[i];
    sc_override_init(o);
    if (!json_is_object(e)) return scn_type(c, path, "an object", e);
    int rc = scn_fields(c, &sec, e, o);
    if (rc) return rc;
    const json_t *layers = json_object_get(e, "layers");
    int has_block = json_object_get(e, "block") != NULL;
    snprintf(lp, sizeof lp, "%s.layers", path);
    if (layers && has_block) return scn_fail(c, lp, "give layers or a block, not both");
    if (!layers && !has_block)
      return scn_fail(c, path, "name the layers (\"layers\": [first, last]) or a block (\"block\": \"layer\")");
    if (layers && (rc = scn_override_layers(c, layers, lp, o))) return rc;
    if (has_block && !o->block[0]) return scn_fail(c, path, "block: an empty name");
    p->n_overrides++;
  }
  return SC_OK;
}

/* "plan.pp_layout": an array of layer counts, one per virtual stage;
 * [] (the default, docs/input.md) is no explicit layout, so an override
 * can take a file's layout away. */
static int scn_pp_layout(scn_ctx *c, const json_t *v, sc_plan *p) {
  const scn_field f = {.key = "pp_layout", .lo = 0, .hi = PLAN_MAX_LAYERS,
                       .what = "a layer count (0 or more)"};
  if (!json_is_array(v)) return scn_type(c, "plan.pp_layout", "an array of layer counts", v);
  if (json_array_size(v) > SC_MAX_PP_LAYOUT)
    return scn_fail(c, "plan.pp_layout", "%zu virtual stages; at most %d", json_array_size(v),
                    SC_MAX_PP_LAYOUT);
  for (size_t i = 0; i < json_array_size(v); i++) {
    char path[48];
    long long n = 0;
    snprintf(path, sizeof path, "plan.pp_layout[%zu]", i);
    int rc = scn_integer(c, &f, json_array_get(v, i), path, &n);
    if (rc) return rc;
    p->pp_layout[i] = (int)n;
  }
  p->n_pp_layout = (int)json_array_size(v);
  return SC_OK;
}

/* "plan.recompute_modules": Megatron-Core's module names (plan_recmod.c). */
static int scn_recompute_modules(scn_ctx *c, const json_t *v, sc_plan *p) {
  const char *k = "plan.recompute_modules";
  if (!json_is_array(v))
    return scn_type(c, k, "an array of module names, e.g. [\"core_attn\", \"moe_act\"]", v);
  /* an empty list: selective layers re-run nothing, as in Megatron */
  unsigned set = json_array_size(v) == 0 ? SC_RECMOD_NONE : 0;
  for (size_t i = 0; i < json_array_size(v); i++) {
    char path[64];
    const json_t *e = json_array_get(v, i);
    unsigned bit = 0;
    snprintf(path, sizeof path, "%s[%zu]", k, i);
    if (!json_is_string(e)) return scn_type(c, path, "a module name (a string)", e);
    int rc = plan_recmod_bit(json_string_value(e), &bit, c->err, path);
    if (rc) {
      snprintf(c->bad, sizeof c->bad, "%s", k);
      return rc;
    }
    set |= bit;
  }
  p->recompute_modules = set;
  return SC_OK;
}

/* ------------------------------------------------------------ document */

/* A CNN or BERT (data-parallel models) starts from a plan of its own
 * where the document does not set the keys: no tensor or pipeline
 * parallelism, no ZeRO, no recomputation (the default scenario's are
 * GPT-3's), and the GPU's 16-bit type for mixed precision (fp16 where
 * bf16 is missing, as AMP on Volta; fp32 on GPUs without fast 16-bit
 * math, K80). Attention: plan.attention auto (unfused before Ampere). */
static void scn_dp_defaults(sc_scenario *s, const json_t *plan) {
  if (s->model.kind != SC_MODEL_CNN && s->model.kind != SC_MODEL_BERT) return;
  sc_plan *p = &s->plan;
  if (!plan || !json_object_get(plan, "tp")) p->tp = 1;
  if (!plan || !json_object_get(plan, "pp")) p->pp = 1;
  if (!plan || !json_object_get(plan, "sp")) p->sp = 0;
  if (!plan || !json_object_get(plan, "zero")) p->zero = 0;
  if (!plan || !json_object_get(plan, "distributed_optimizer")) p->distributed_optimizer = 0;
  if (!plan || !json_object_get(plan, "recompute")) p->recompute = SC_RECOMP_NONE;
  if (plan && json_object_get(plan, "dtype")) return;
  const sc_gpu *g = &s->cluster.gpu;
  p->dtype = g->peak_flops[SC_BF16] > 0 ? SC_BF16 : g->peak_flops[SC_FP16] > 0 ? SC_FP16 : SC_FP32;
}

/* dp.scheme names one of the schemes (src/dp/scheme.c), checked here so
 * that a typo is reported before the plan's checks that follow from it. */
static int scn_dp_scheme(scn_ctx *c, const char *name) {
  if (!name[0]) return SC_OK;
  const char *names[SCN_MAX_NAMES];
  size_t n = 0;
  for (int i = 0; i < sc_dp_scheme_count() && n < SCN_MAX_NAMES; i++) {
    names[n++] = sc_dp_scheme_name(i);
    if (!strcmp(name, names[n - 1])) return SC_OK;
  }
  char hint[96], valid[SCN_LIST];
  scn_did_you_mean(name, names, n, hint, sizeof hint);
  scn_join(names, n, valid, sizeof valid);
  return scn_fail(c, "dp.scheme", "unknown scheme '%.40s';%s valid: %s", name, hint, valid);
}

/* The plan keys that a named plan.framework would fill with its own
 * default and whose writing sc_plan.given records: written at their
 * default value they are still the user's (plan_fw.c). */
static const struct {
  const char *key;
  unsigned bit;
} scn_given_keys[] = {
    {"fused_kernels", SC_GIVEN_FUSED_KERNELS}, {"framework_eager", SC_GIVEN_FRAMEWORK_EAGER},
    {"fsdp_impl", SC_GIVEN_FSDP_IMPL},         {"amp", SC_GIVEN_AMP},
};

/* The SC_GIVEN_* bits of the keys the plan object names (overrides and
 * CLI flags are keys of it by now). */
static unsigned scn_given(const json_t *plan) {
  unsigned bits = 0;
  for (size_t i = 0; plan && i < sizeof scn_given_keys / sizeof scn_given_keys[0]; i++)
    if (json_object_get(plan, scn_given_keys[i].key)) bits |= scn_given_keys[i].bit;
  return bits;
}

/* Decode a whole document into *s, starting from the default scenario. */
static int scn_decode(scn_ctx *c, const json_t *root, sc_scenario *s) {
  int rc;
  if (!json_is_object(root))
    return scn_type(c, "", "an object with keys model, cluster, plan", root);
  if ((rc = scn_known(c, &scn_root_sec, root))) return rc;
  sc_scenario_default(s);
  const json_t *d = json_object_get(root, "description");
  const json_t *m = json_object_get(root, "model");
  const json_t *cl = json_object_get(root, "cluster");
  const json_t *p = json_object_get(root, "plan");
  if (d && !json_is_string(d)) return scn_type(c, "description", "a string", d);
  if (m && (rc = scn_model(c, m, &s->model))) return rc;
  if (cl && (rc = scn_cluster(c, cl, &s->cluster))) return rc;
  if (p && !json_is_object(p)) return scn_type(c, "plan", "an object", p);
  if (json_object_get(root, "dp")) { /* data-parallel: every GPU a whole replica */
    s->plan.tp = s->plan.pp = 1;
    s->plan.sp = s->plan.zero = 0;
    s->plan.recompute = SC_RECOMP_NONE;
  }
  scn_dp_defaults(s, p);
  if (p && (rc = scn_fields(c, &scn_plan_sec, p, &s->plan))) return rc;
  s->plan.given = scn_given(p);
  const json_t *ov = p ? json_object_get(p, "overrides") : NULL;
  if (ov && (rc = scn_overrides(c, ov, &s->plan))) return rc;
  const json_t *lay = p ? json_object_get(p, "pp_layout") : NULL;
  if (lay && (rc = scn_pp_layout(c, lay, &s->plan))) return rc;
  const json_t *rm = p ? json_object_get(p, "recompute_modules") : NULL;
  if (rm && (rc = scn_recompute_modules(c, rm, &s->plan))) return rc;
  const json_t *dp = json_object_get(root, "dp");
  if (dp && !json_is_object(dp)) return scn_type(c, "dp", "an object", dp);
  if (dp && (rc = scn_fields(c, &scn_dp_sec, dp, &s->dp))) return rc;
  if (dp && (rc = scn_dp_scheme(c, s->dp.scheme))) return rc;
  return SC_OK;
}

/* ----------------------------------------------------------- overrides */

/* Fail with SC_EINPUT and 'override "TEXT": message'. */
#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static int scn_ov_fail(sc_error *err, const char *text, const char *fmt, ...) {
  char msg[sizeof err->msg], shown[SCN_PATH];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  snprintf(shown, sizeof shown, "%s", text ? text : "(null)");
  return sc_error_set(err, SC_EINPUT, "override \"%s\": %s", shown, msg);
}

/* Split the key path of an override (in place) into at most 4 segments,
 * checking each against the schema. Returns the segment count, or 0 after
 * failing with SC_EINPUT in *err. */
static int scn_override_path(const char *text, char *path, char **seg, sc_error *err) {
  const scn_section *sec = &scn_root_sec;
  char done[SCN_PATH] = "";
  int n = 0;
  for (char *s = path, *next; s; s = next) {
    next = strchr(s, '.');
    if (next) *next++ = '\0';
    if (n == 4 || !sec) {
      scn_ov_fail(err, text, "%s takes a value, not keys below it", done);
      return 0;
    }
    const scn_field *f = scn_find(sec, s);
    if (!f) {
      sc_error inner = {0};
      scn_ctx c = {.err = &inner};
      scn_unknown(&c, sec, s, NULL);
      scn_ov_fail(err, text, "%s", inner.msg);
      return 0;
    }
    scn_path(done, sizeof done, sec->path, s);
    seg[n++] = s;
    sec = f->sub;
  }
  return n;
}

/* scenario.h */
int scn_override_value(const char *text, json_t **v, char *why, size_t cap) {
  json_error_t je;
  int rc = jparse(text, strlen(text), JSON_DECODE_ANY | JSON_REJECT_DUPLICATES, v, &je);
  if (rc == SC_ENOMEM) return rc;
  const char *first = text + strspn(text, " \t\r\n");
  if (!*v && (*first == '[' || *first == '{')) { /* meant as JSON: say where it breaks */
    snprintf(why, cap, "the value starts as a JSON %s but is not valid JSON: %s at column %d",
             *first == '[' ? "array" : "object", je.text, je.column);
    return SC_EINPUT;
  }
  if (!*v && !(*v = json_string(text))) {
    if (!utf8_valid(text)) return snprintf(why, cap, "the value is not valid UTF-8"), SC_EINPUT;
    return SC_ENOMEM;
  }
  return SC_OK;
}

int scn_apply_override(json_t *root, const char *assignment, sc_error *err) {
  char path[SCN_PATH], *seg[4];
  const char *eq = assignment ? strchr(assignment, '=') : NULL;
  if (!eq || eq == assignment || !json_is_object(root))
    return scn_ov_fail(err, assignment, "expected KEY=VALUE with a key path, e.g. plan.tp=8");
  size_t len = (size_t)(eq - assignment);
  if (len >= sizeof path) return scn_ov_fail(err, assignment, "the key path is too long");
  memcpy(path, assignment, len);
  path[len] = '\0';
  if (path[0] == '.' || path[len - 1] == '.' || strstr(path, ".."))
    return scn_ov_fail(err, assignment, "empty key in the key path");
  int n = scn_override_path(assignment, path, seg, err);
  if (n == 0) return SC_EINPUT;
  json_t *val;
  char why[160];
  int vrc = scn_override_value(eq + 1, &val, why, sizeof why);
  if (vrc == SC_ENOMEM) return sc_error_set(err, SC_ENOMEM, "out of memory");
  if (vrc) return scn_ov_fail(err, assignment, "%s", why);
  json_t *obj = root;
  for (int i = 0; i < n - 1; i++) {
    json_t *child = json_object_get(obj, seg[i]);
    if (!child || json_is_string(child)) { /* create, or preset id -> {"preset": id} */
      json_t *o = json_object();
      /* a model named by its graph file keeps the file */
      const char *id = child ? json_string_value(child) : NULL;
      size_t idn = id ? strlen(id) : 0;
      const char *as = i == 0 && !strcmp(seg[0], "model") && idn > 5 &&
                               !strcmp(id + idn - 5, ".json")
                           ? "graph"
                           : "preset";
      if (!o || (child && json_object_set(o, as, child)) ||
          json_object_set_new(obj, seg[i], o)) {
        json_decref(val);
        return sc_error_set(err, SC_ENOMEM, "override \"%s\": out of memory", assignment);
      }
      child = o;
    } else if (!json_is_object(child)) {
      char got[96];
      scn_describe(child, got, sizeof got);
      json_decref(val);
      return scn_ov_fail(err, assignment, "%s is %s, not an object", seg[i], got);
    }
    obj = child;
  }
  if (json_object_set_new(obj, seg[n - 1], val))
    return sc_error_set(err, SC_ENOMEM, "override \"%s\": out of memory", assignment);
  return SC_OK;
}

/* --------------------------------------------------------------- loading */

/* The depth at which an override applies (scn_apply_overrides): the
 * segments of its key path ("a.b.c=v": 3), less one for a section's
 * identity (`preset`, and `model.graph`), which is the section set
 * whole: `--set model.preset=X` and `-m Y` keep the order given, and
 * both come before `model.seq`. 0 without a '='. */
static int scn_ov_depth(const char *ov) {
  const char *eq = ov ? strchr(ov, '=') : NULL;
  if (!eq) return 0;
  int n = 1;
  const char *last = ov;
  for (const char *p = ov; p < eq; p++)
    if (*p == '.') n++, last = p + 1;
  size_t len = (size_t)(eq - last);
  int identity = (len == 6 && !strncmp(last, "preset", 6)) ||
                 ((size_t)(eq - ov) == 11 && !strncmp(ov, "model.graph", 11));
  return n > 1 && identity ? n - 1 : n;
}

/* The override (if any) that set the key path `bad` or an object holding
 * it: of those whose key path equals bad or is a prefix of it, the one
 * applied last (the deepest, scn_ov_depth, then the latest;
 * scn_apply_overrides). */
static const char *scn_blame(const char *bad, const char *const *ov, size_t n) {
  const char *who = NULL;
  int best = 0;
  for (size_t i = n; i-- > 0;) { /* the last applied: the deepest, then the latest */
    const char *eq = ov[i] ? strchr(ov[i], '=') : NULL;
    if (!eq) continue;
    size_t len = (size_t)(eq - ov[i]);
    int depth = scn_ov_depth(ov[i]);
    if (strncmp(bad, ov[i], len) == 0 && (bad[len] == '\0' || bad[len] == '.') && depth > best)
      who = ov[i], best = depth;
  }
  return who;
}

/* The key path at the start of a resolve message ("plan.tp: ..."). */
static void scn_msg_path(const char *msg, char *path, size_t cap) {
  size_t len = strcspn(msg, ": ");
  if (msg[len] != ':' || len >= cap) len = 0;
  memcpy(path, msg, len);
  path[len] = '\0';
}

/* Apply overrides to root, decode and resolve. On failure err holds the
 * message prefixed with origin and followed by the override to blame. */
/* Make the relative file path at obj[key] relative to `dir` (the
 * scenario file's folder). 0, or SC_ENOMEM / SC_EINPUT (too long). */
static int scn_rebase_key(json_t *obj, const char *key, const char *dir, size_t dlen,
                          sc_error *err) {
  json_t *v = json_is_object(obj) ? json_object_get(obj, key) : NULL;
  const char *path = json_is_string(v) ? json_string_value(v) : NULL;
  size_t n = path ? strlen(path) : 0;
  if (!path || path[0] == '/' || n < 6 || strcmp(path + n - 5, ".json")) return SC_OK;
  char joined[512];
  if (dlen + 1 + n >= sizeof joined)
    return sc_error_set(err, SC_EINPUT, "%s: the path \"%s\" is too long", key, path);
  snprintf(joined, sizeof joined, "%.*s/%s", (int)dlen, dir, path);
  return json_object_set_new(obj, key, json_string(joined)) ? sc_error_set(err, SC_ENOMEM, "out of memory") : SC_OK;
}

/* The same for dp.graph's "@PATH" (an edge-list or matrix file). */
static int scn_rebase_at(json_t *dp, const char *dir, size_t dlen, sc_error *err) {
  json_t *v = json_is_object(dp) ? json_object_get(dp, "graph") : NULL;
  const char *at = json_is_string(v) ? json_string_value(v) : NULL;
  if (!at || at[0] != '@' || at[1] == '/' || !at[1]) return SC_OK;
  char joined[512];
  if (dlen + strlen(at) + 1 >= sizeof joined)
    return sc_error_set(err, SC_EINPUT, "dp.graph: the path \"%s\" is too long", at + 1);
  snprintf(joined, sizeof joined, "@%.*s/%s", (int)dlen, dir, at + 1);
  return json_object_set_new(dp, "graph", json_string(joined)) ? sc_error_set(err, SC_ENOMEM, "out of memory") : SC_OK;
}

/* Files a scenario file names (model.graph, cluster.topology, dp.graph's
 * "@PATH") are
 * relative to the scenario file's folder; those given by overrides are
 * relative to the working directory (they are applied afterwards). */
static int scn_rebase(json_t *root, const char *file, sc_error *err) {
  const char *slash = file ? strrchr(file, '/') : NULL;
  if (!slash || !json_is_object(root)) return SC_OK;
  size_t dlen = (size_t)(slash - file);
  int rc = scn_rebase_key(root, "model", file, dlen, err);
  if (!rc) rc = scn_rebase_key(json_object_get(root, "model"), "graph", file, dlen, err);
  if (!rc) rc = scn_rebase_key(json_object_get(root, "cluster"), "topology", file, dlen, err);
  if (!rc) rc = scn_rebase_at(json_object_get(root, "dp"), file, dlen, err);
  return rc;
}

/* A graph model's file must load: report its errors when the scenario is
 * read, with the graph file's line and column. */
static int scn_check_graph(const sc_model *m, sc_error *err) {
  if (m->kind != SC_MODEL_GRAPH) return SC_OK;
  wg_graph *g = NULL;
  int rc = graph_json_load_file(m->graph.path, &g, err);
  wg_free(g);
  return rc;
}

/* Apply the overrides, shallower key paths first and otherwise in the
 * order given: a whole section or preset (`-m llama3-70b`, `model=...`,
 * `cluster.gpu=h100-sxm5-80gb`) is set before the keys inside it, so that
 * `--set model.seq=4096 -m llama3-70b` edits the preset rather than
 * being replaced by it in silence. */
static int scn_apply_overrides(json_t *root, const char *const *ov, size_t n_ov, sc_error *err) {
  int max = 0;
  ovs_drop_replaced(root, ov, n_ov); /* -n replaces the document's nodes (load/ovsize.h) */
  for (size_t i = 0; i < n_ov; i++)
    if (scn_ov_depth(ov[i]) > max) max = scn_ov_depth(ov[i]);
  for (int d = 0; d <= max; d++)
    for (size_t i = 0; i < n_ov; i++) {
      if (scn_ov_depth(ov[i]) != d) continue;
      int rc = scn_apply_override(root, ov[i], err);
      if (rc) return rc;
    }
  return SC_OK;
}

static int scn_load(sc_scenario *s, json_t *root, const char *origin, const char *file,
                    const char *const *ov, size_t n_ov, unsigned flags, sc_error *err) {
  sc_error local = {0};
  scn_ctx c = {.err = &local};
  sc_scenario t;
  int rc = SC_OK;
  if (n_ov && !ov) return sc_error_set(err, SC_EINPUT, "overrides: NULL list of %zu", n_ov);
  if ((rc = scn_rebase(root, file, &local))) return sc_error_set(err, rc, "%s: %s", origin, local.msg);
  if ((rc = scn_apply_overrides(root, ov, n_ov, err))) return rc;
  rc = scn_decode(&c, root, &t);
  /* the graph file first: a missing or malformed model is the error to
   * report, not the plan checks that follow from it */
  if (!rc && (rc = scn_check_graph(&t.model, err))) return rc;
  if (!rc && (rc = flags & SC_LOAD_PLAN_UNCHECKED ? sc_scenario_resolve_model(&t, &local)
                                                  : sc_scenario_resolve(&t, &local)))
    scn_msg_path(local.msg, c.bad, sizeof c.bad);
  if (!rc) {
    *s = t;
    return sc_error_set(err, SC_OK, "%s", "");
  }
  const char *who = c.bad[0] ? scn_blame(c.bad, ov, n_ov) : NULL;
  char note[sizeof local.msg / 2] = "";
  if (who) snprintf(note, sizeof note, " (set by override \"%s\")", who);
  return sc_error_set(err, rc, "%s: %s%s", origin, local.msg, note);
}

/* Fail with a jansson parse error as "origin:line:column: text". */
static int scn_syntax(const json_error_t *je, const char *origin, sc_error *err) {
  return sc_error_set(err, SC_EINPUT, "%s:%d:%d: invalid JSON: %s", origin, je->line,
                      je->column, je->text);
}

int sc_scenario_load_string(sc_scenario *s, const char *json, const char *origin,
                            const char *const *overrides, size_t n_overrides, sc_error *err) {
  return sc_scenario_load_string_ex(s, json, origin, overrides, n_overrides, 0, err);
}

int sc_scenario_load_file(sc_scenario *s, const char *path, const char *const *overrides,
                          size_t n_overrides, sc_error *err) {
  return sc_scenario_load_file_ex(s, path, overrides, n_overrides, 0, err);
}

/* Parse text (len bytes) and load it into s: `where` names it in
 * messages, `path` (NULL for a string) is the file relative paths in it
 * are read against. Frees nothing of text. */
static int scn_load_text(sc_scenario *s, const char *text, size_t len, const char *where,
                         const char *path, const char *const *overrides, size_t n_overrides,
                         unsigned flags, sc_error *err) {
  json_error_t je;
  json_t *root;
  int prc = jparse(text, len, JSON_REJECT_DUPLICATES, &root, &je);
  if (prc == SC_ENOMEM) return sc_error_set(err, SC_ENOMEM, "%s: out of memory", where);
  if (prc) return scn_syntax(&je, where, err);
  int rc = scn_load(s, root, where, path, overrides, n_overrides, flags, err);
  json_decref(root);
  if (rc == SC_EINPUT) jpos_annotate(err, where, text, len); /* where the value is */
  return rc;
}

int sc_scenario_load_string_ex(sc_scenario *s, const char *json, const char *origin,
                               const char *const *overrides, size_t n_overrides, unsigned flags,
                               sc_error *err) {
  const char *where = origin ? origin : "<string>";
  if (!json) return sc_error_set(err, SC_EINPUT, "%s: no JSON text (NULL)", where);
  return scn_load_text(s, json, strlen(json), where, NULL, overrides, n_overrides, flags, err);
}

int sc_scenario_load_file_ex(sc_scenario *s, const char *path, const char *const *overrides,
                             size_t n_overrides, unsigned flags, sc_error *err) {
  char *text;
  size_t len;
  int rc = file_read(path, "scenario file", FILE_MAX_SCENARIO, &text, &len, err);
  if (rc) return rc;
  rc = scn_load_text(s, text, len, path, path, overrides, n_overrides, flags, err);
  mem_free(text);
  return rc;
}
