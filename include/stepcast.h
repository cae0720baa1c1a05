/*
 * stepcast.h -- the public API of the stepcast library.
 *
 * stepcast predicts the performance of distributed deep-learning training:
 * time per step, throughput, MFU, memory per GPU and where the time goes,
 * from a description of the model, the cluster and the parallel plan.
 *
 * Data flows one way:
 *
 *   sc_scenario (model + cluster + plan)  --sc_predict-->  sc_result
 *
 * Units, everywhere in this header unless a field says otherwise:
 *   time in seconds, sizes in bytes, bandwidth in bytes per second per
 *   direction, compute in FLOP/s (dense, no sparsity).
 *
 * Errors: functions that can fail on user input return an int code
 * (SC_OK or one of sc_code) and fill an sc_error with a message that names
 * the place (file:line:column or key path) and what would be valid.
 * The library holds no global mutable state; every function is reentrant.
 */
#ifndef STEPCAST_H
#define STEPCAST_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Everything declared here is the library's interface: exported from the
 * shared library, which hides every other symbol (-fvisibility=hidden). */
#if defined(__GNUC__)
#pragma GCC visibility push(default)
#endif

#define SC_VERSION "0.1.0"

/* ---------------------------------------------------------------- errors */

typedef enum sc_code {
  SC_OK = 0,
  SC_EINPUT = 2,   /* bad user input: malformed, unknown key, impossible plan */
  SC_EIO = 3,      /* a file could not be read or written */
  SC_ENOMEM = 4,   /* allocation failed */
  SC_EMODEL = 5    /* valid input the model cannot handle (yet) */
} sc_code;

typedef struct sc_error {
  int code;        /* sc_code; SC_OK when nothing went wrong */
  char msg[768];   /* one or more lines, no trailing newline */
} sc_error;

/* Set err (if not NULL) to code and a printf-style message; returns code. */
int sc_error_set(sc_error *err, int code, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* ----------------------------------------------------------- data types */

typedef enum sc_dtype {
  SC_FP32 = 0,
  SC_TF32,
  SC_FP16,
  SC_BF16,
  SC_FP8,
  SC_FP4,
  SC_DTYPE_COUNT
} sc_dtype;

/* Name of d ("invalid" for a value outside sc_dtype). */
const char *sc_dtype_name(sc_dtype d);
/* Bytes of one element of d (fp4: 0.5; 0 for a value outside sc_dtype). */
double sc_dtype_bytes(sc_dtype d);

/* ------------------------------------------------------------------ GPU */

/* What joins a GPU to the other GPUs of its server: the link nvlink_bw
 * describes (a preset without NVLink gives its PCIe slot's rate). */
typedef enum sc_gpu_link {
  SC_LINK_NVLINK = 0,     /* NVLink (NVSwitch, mesh or bridge) */
  SC_LINK_PCIE,           /* no GPU-to-GPU link: the PCIe x16 slot */
  SC_LINK_INFINITY_FABRIC /* AMD Infinity Fabric (xGMI) */
} sc_gpu_link;

/* One GPU type. Each preset names the source of each constant in
 * src/hw/gpu_presets.c. */
typedef struct sc_gpu {
  char name[32];                        /* preset id, e.g. "a100-sxm4-80gb" */
  int arch;                             /* SM version: 70, 80, 90, 100; 0 = not NVIDIA */
  int sm_count;                         /* streaming multiprocessors (CUs on AMD) */
  double peak_flops[SC_DTYPE_COUNT];    /* dense tensor FLOP/s; 0 = unsupported */
  double vector_flops;                  /* non-tensor fp32 FLOP/s */
  double hbm_bytes;                     /* memory capacity, bytes */
  double hbm_bw;                        /* datasheet HBM bandwidth, bytes/s */
  double hbm_eff;                       /* achievable fraction of hbm_bw (STREAM) */
  double gemm_eff;                      /* fraction of peak reached by large GEMMs
                                           in 16- and 32-bit types */
  double gemm_eff_fp8;                  /* the same in fp8 and fp4 (0 = gemm_eff) */
  double attn_eff;                      /* FlashAttention-2's forward+backward
                                           rate as a fraction of the 16-bit
                                           peak at seq 8192, head dim 128, no
                                           mask (the kernel model derives the
                                           rest: src/cost/compute.c) */
  double nvlink_bw;                     /* NVLink per GPU per direction, bytes/s */
  sc_gpu_link link;                     /* what nvlink_bw is: the preset's;
                                           a scenario's cluster.gpu.link, else
                                           the GPU it changes (0: NVLink) */
  double host_bw;                       /* host link (PCIe or NVLink-C2C) per
                                           direction, achievable bytes/s
                                           (0 = by generation, cost/compute.c) */
  double launch_s;                      /* host time to issue one kernel in an
                                           eager framework, seconds */
  unsigned calibrated;                  /* bit 1 << dtype: GEMMs of that type were
                                           measured on this GPU (calibration data);
                                           0 = efficiencies borrowed */
} sc_gpu;

/* Look up a GPU preset by id (case-insensitive). NULL when unknown. */
const sc_gpu *sc_gpu_preset(const char *name);
/* Number of GPU presets and the i-th one (0 <= i < count). */
size_t sc_gpu_preset_count(void);
const sc_gpu *sc_gpu_preset_at(size_t i);
/* The cluster.gpu keys (docs/input.md) in which g differs from the preset
 * of its name (an override such as cluster.gpu.hbm_GiB=40), written
 * ", "-separated into buf (cap bytes, cut short to fit); returns how many
 * (0, buf "": g is its preset, or its name is no preset). */
int sc_gpu_changes(const sc_gpu *g, char *buf, size_t cap);

/* ---------------------------------------------------------------- model */

typedef enum sc_act { SC_ACT_GELU = 0, SC_ACT_SWIGLU, SC_ACT_RELU } sc_act;
typedef enum sc_norm { SC_NORM_LAYERNORM = 0, SC_NORM_RMSNORM } sc_norm;
typedef enum sc_pos { SC_POS_LEARNED = 0, SC_POS_ROPE, SC_POS_ALIBI } sc_pos;

/* A decoder-only transformer (the transformer builder, src/model/). */
typedef struct sc_transformer {
  int layers;          /* transformer blocks */
  int hidden;          /* model width h */
  int heads;           /* attention heads */
  int kv_heads;        /* key/value heads (GQA); == heads for MHA */
  int head_dim;        /* hidden / heads unless set */
  int ffn;             /* MLP inner size (per expert for MoE) */
  int vocab;           /* vocabulary size */
  int seq;             /* training sequence length */
  int experts;         /* MoE experts per layer; 0 or 1 = dense */
  int topk;            /* experts per token */
  sc_act act;
  sc_norm norm;
  sc_pos pos;
  int tied_embeddings; /* 1 = output projection shares the input embedding */
  int bias;            /* 1 = linear layers have biases */
  /* MoE layout (experts > 1): which layers are MoE, and what beside them */
  int dense_layers;    /* the first N layers are dense (DeepSeek's
                          first_k_dense_replace); 0 = none */
  int moe_every;       /* after those, layer i is MoE when (i + 1) % N == 0
                          (Llama 4 Maverick's interleave step 2); 0, 1 = all */
  int dense_ffn;       /* MLP size of the dense layers (0 = ffn) */
  int shared_experts;  /* experts every token runs beside its routed ones,
                          each ffn wide (DeepSeek, Llama 4: 1) */
  /* Multi-head latent attention (DeepSeek-V2/V3) when kv_lora_rank > 0:
   * q and kv are projected down to low-rank latents, normalised and
   * projected up per head; head_dim is then the no-RoPE part of a q/k
   * head (qk_nope_head_dim) */
  int q_lora_rank;     /* 0 = q projected directly */
  int kv_lora_rank;    /* 0 = standard attention */
  int rope_dim;        /* RoPE part of a q/k head (qk_rope_head_dim) */
  int v_head_dim;      /* value head size (0 = head_dim) */
  /* Dropout probabilities in training, 0..1 (src/model/transformer.c).
   * 0 = none: the framework skips the dropout, so no 1-byte mask is kept
   * for backward and no dropout kernel runs. The presets state their
   * models' rates (GPT-style 0.1, Megatron's default; Llama, Mixtral,
   * Qwen3, DeepSeek-V3, Nemotron-4, MPT 0); a scenario's model without a
   * preset starts from the default GPT-3 preset, so 0.1; a spec filled
   * in by hand has whatever it sets (0 when zeroed). */
  double attention_dropout; /* on the attention probabilities */
  double hidden_dropout;    /* on the attention and MLP outputs before
                               each residual add (bias-dropout-add) */
} sc_transformer;

/* A model described as a workload graph in a JSON file (docs/graph.md). */
typedef struct sc_graph_spec {
  char path[256];      /* the graph file; read when a job is opened */
} sc_graph_spec;

/* The optimizer that updates a CNN or BERT preset's weights
 * (model.optimizer; src/model/optimizer.c): it sets the update's bytes
 * per parameter and the optimizer state each parameter keeps. Names as
 * src/recsys names its optimizers (training.optimizer). */
typedef enum sc_optimizer {
  SC_OPT_DEFAULT = 0, /* the preset's own: CNN momentum, BERT adam */
  SC_OPT_SGD,         /* plain SGD: no state */
  SC_OPT_MOMENTUM,    /* SGD with momentum: one fp32 buffer */
  SC_OPT_ADAM,        /* Adam / AdamW: two fp32 moments */
  SC_OPT_LAMB,        /* LAMB: Adam's moments, a trust ratio per tensor */
  SC_OPT_ADAGRAD,     /* Adagrad: one fp32 accumulator */
  SC_OPT_COUNT
} sc_optimizer;

/* A convolutional network of the built-in zoo (src/model/cnn.c); the
 * architectures are those of docs/model.md, "CNN and BERT models". */
typedef enum sc_cnn_arch {
  SC_CNN_RESNET50_V1 = 0, /* stride 2 in the first 1x1 of a down-sampling block */
  SC_CNN_RESNET50_V15,    /* stride 2 in the 3x3 (torchvision, NVIDIA, MLPerf) */
  SC_CNN_RESNET101_V1,
  SC_CNN_RESNET152_V1,
  SC_CNN_VGG16,
  SC_CNN_INCEPTION_V3,    /* without the auxiliary head */
  SC_CNN_ALEXNET,         /* tf_cnn_benchmarks alexnet_model.py */
  SC_CNN_ARCH_COUNT
} sc_cnn_arch;

typedef struct sc_cnn {
  sc_cnn_arch arch;
  int image;           /* input height = width, pixels (0 = the arch's own:
                          224, Inception 299, AlexNet 227) */
  int classes;         /* classifier outputs (0 = 1000) */
  int fused_bn;        /* ResNet: 1 = batch norm fused into the
                          convolutions as NVIDIA's MXNet ResNet-50 runs it
                          (src/model/cnn.c); 0 = separate kernels */
  int l2_ops;          /* 1 = the loss adds an L2 penalty as ops of its
                          own per weight tensor, as TensorFlow scripts
                          such as tf_cnn_benchmarks build it
                          (tf.nn.l2_loss per variable; src/lower/lower.c
                          l2_task); 0 = none, or inside the optimizer */
  int keras;           /* 1 = the network as Keras' applications define it
                          (tf.keras.applications): a ResNet's convolutions
                          keep a bias before their batch norm, Inception-
                          v3's batch norms have no scale; VGG16 as is
                          (src/model/cnn.c); 0 = the reference's */
} sc_cnn;

/* A BERT encoder with its pre-training heads (src/model/bert.c). */
typedef struct sc_bert {
  int layers, hidden, heads, ffn;
  int vocab;           /* 30522 (uncased WordPiece) */
  int positions;       /* learned position rows (512) */
  int seq;             /* tokens per sequence */
  int mlm_positions;   /* masked positions the MLM head predicts per
                          sequence (0 = ceil(5 seq / 32): Google BERT's
                          max_predictions_per_seq 20 at 128, 80 at 512) */
  int tokens;          /* tokens per sequence the encoder runs, on average,
                          when the implementation unpads or packs its
                          inputs (NVIDIA's MLPerf BERT); 0 = seq (padded) */
  int mlm_all_positions; /* 1 = the MLM head (dense, GELU, LayerNorm, the
                          tied decoder, its loss) runs on every position
                          the encoder runs and the loss ignores the
                          unmasked ones (NVIDIA's 2020 PyTorch BERT,
                          src/model/bert.c); 0 = on mlm_positions rows
                          gathered first (Google's BERT) */
} sc_bert;

/* Which builder turns a model spec into a workload graph. */
typedef enum sc_model_kind {
  SC_MODEL_TRANSFORMER = 0, /* the transformer builder: `tf` */
  SC_MODEL_GRAPH,           /* a JSON workload graph: `graph` */
  SC_MODEL_CNN,             /* a convolutional network: `cnn` */
  SC_MODEL_BERT,            /* BERT pre-training: `bert` */
  SC_MODEL_KIND_COUNT
} sc_model_kind;

/* A model: a tagged spec, one member per builder. */
typedef struct sc_model {
  sc_model_kind kind;
  char name[64];
  sc_optimizer optimizer; /* CNN and BERT presets (SC_OPT_DEFAULT: the
                             preset's own); the other kinds update with
                             Adam and refuse any other value (SC_EINPUT) */
  union {
    sc_transformer tf;     /* SC_MODEL_TRANSFORMER */
    sc_graph_spec graph;   /* SC_MODEL_GRAPH */
    sc_cnn cnn;            /* SC_MODEL_CNN */
    sc_bert bert;          /* SC_MODEL_BERT */
  };
} sc_model;

const sc_model *sc_model_preset(const char *name);
size_t sc_model_preset_count(void);
const sc_model *sc_model_preset_at(size_t i);

/* Parameters of the whole model (all experts), and those a token uses.
 * Transformer, CNN and BERT specs (0 for a graph file: open a job and
 * read sc_result.params instead). */
double sc_model_params(const sc_model *m);
double sc_model_active_params(const sc_model *m);

/* -------------------------------------------------------------- cluster */

/* The server's CPU as NCCL's tuner tells them apart across nodes
 * (tuning.cc: its LL bandwidth cap and per-step network overhead have an
 * AMD row; Intel's row serves every other CPU, Arm included). AUTO takes
 * the CPU of the GPU's reference server (DGX A100: AMD; the others
 * Intel or Arm; docs/network.md "The host's CPU"). */
typedef enum sc_host_cpu {
  SC_CPU_AUTO = 0,
  SC_CPU_INTEL,
  SC_CPU_AMD,
  SC_CPU_ARM,
  SC_CPU_COUNT
} sc_host_cpu;

/* The host side of one server as activation offloading sees it
 * (docs/input.md "cluster"; 0 in a field = not limited / the default). */
typedef struct sc_host {
  int gpus_per_link;    /* GPUs behind one uplink to the CPU (a PCIe switch
                           or a Grace's NVLink-C2C); 0 = 1 (own link) */
  double link_bw;       /* that uplink, bytes/s per direction (0 = the GPU's
                           own host-link rate, cost_host_bw) */
  double mem_bw;        /* CPU memory bandwidth of the server, bytes/s,
                           shared by all its GPUs' copies (0 = not limited) */
  double mem_bytes;     /* CPU memory of the server, bytes, for pinned
                           offload buffers (0 = not limited) */
  int cpu;              /* sc_host_cpu: the server's CPU, which NCCL's tuner
                           reads across nodes (0 = the CPU of the GPU's
                           reference server, docs/network.md) */
} sc_host;

/* The kind of scale-out network (cluster.fabric; docs/network.md
 * "Fabrics"). It sets the latency of one network traversal (unless
 * cluster.nic_latency_us is given) and the fraction of the NIC line rate
 * NCCL reaches; InfiniBand (0) is the model without a fabric. */
typedef enum sc_fabric {
  SC_FABRIC_INFINIBAND = 0, /* NCCL's IB verbs transport */
  SC_FABRIC_ROCE,           /* RoCE v2 through the same transport */
  SC_FABRIC_EFA,            /* AWS EFA (SRD) through aws-ofi-nccl */
  SC_FABRIC_TCPXO,          /* GCP GPUDirect-TCPXO (A3 Mega) */
  SC_FABRIC_COUNT
} sc_fabric;

/* "infiniband", "roce", "efa", "tcpxo"; out of range as "infiniband". */
const char *sc_fabric_name(int f);
/* The sc_fabric of a name (any case), or -1 when unknown. */
int sc_fabric_from_name(const char *name);
/* One network traversal of fabric f, seconds (cluster.nic_latency_us's
 * default on that fabric). */
double sc_fabric_latency(int f);

/* "auto", "intel", "amd", "arm" (sc_host_cpu); out of range as "auto". */
const char *sc_host_cpu_name(int c);
/* The sc_host_cpu of a name (any case), or -1 when unknown. */
int sc_host_cpu_from_name(const char *name);

typedef struct sc_cluster {
  char name[64];        /* preset id or free text */
  sc_gpu gpu;           /* the GPU type (copied from a preset, maybe edited) */
  int gpus;             /* total GPUs */
  int gpus_per_node;    /* GPUs per server */
  int nvlink_domain;    /* GPUs reachable over NVLink/NVSwitch */
  double nvlink_bw;     /* per GPU per direction, bytes/s (0 = gpu.nvlink_bw) */
  double nic_bw;        /* scale-out per GPU per direction, bytes/s */
  double nvlink_lat;    /* one NVLink hop, seconds */
  double nic_lat;       /* one network traversal, seconds */
  char topology[256];   /* optional topology spec (preset, generator or file) */
  /* what-ifs the event engine answers (docs/event.md): */
  int straggler_gpu;    /* job rank of a slow GPU (with straggler_slowdown) */
  double straggler_slowdown; /* its kernels take 1 + this as long; 0 = none */
  char link_fail[256];  /* cables of the topology that failed: "a-b,c-d" */
  char link_degrade[256]; /* cables running slower: "a-b:0.5,..." */
  sc_host host;         /* host links and memory per server (offload) */
  int fabric;           /* sc_fabric of the scale-out network */
  char nic_from[96];    /* where nic_bw came from when the document chose
                           a GPU without a cluster preset and stated no
                           nic_Gbps (docs/input.md "cluster"): "dgx-h100,
                           the reference system of h100-sxm5-80gb"; "" =
                           stated, or the preset's */
  char node_from[96];   /* the same for gpus_per_node / nvlink_domain
                           when the document stated neither (or one):
                           "gb200-nvl72, the reference system of gb200" */
} sc_cluster;

const sc_cluster *sc_cluster_preset(const char *name);
size_t sc_cluster_preset_count(void);
const sc_cluster *sc_cluster_preset_at(size_t i);

/* ----------------------------------------------------------------- plan */

typedef enum sc_schedule {
  SC_SCHED_1F1B = 0,
  SC_SCHED_GPIPE,
  SC_SCHED_INTERLEAVED,
  SC_SCHED_ZBH1,      /* Zero Bubble's ZB-H1 (arXiv 2311.06231) */
  SC_SCHED_DUALPIPE   /* DeepSeek-V3's DualPipe (arXiv 2412.19437) */
} sc_schedule;

/* The attention kernel when plan.flash_attention is on. */
typedef enum sc_attention {
  SC_ATTN_FLASH2 = 0,  /* FlashAttention-2 (the calibration measurements) */
  SC_ATTN_FLASH1,      /* FlashAttention (v1) */
  SC_ATTN_FLASH3,      /* FlashAttention-3 (Hopper and newer) */
  SC_ATTN_UNFUSED,     /* baddbmm + softmax + dropout + bmm (= flash off) */
  SC_ATTN_CUDNN,       /* cuDNN fused attention (Transformer Engine's default
                          on Ampere and newer) */
  SC_ATTN_AUTO         /* the default: what the framework most likely runs
                          on the GPU (plan/plan_attn.h); resolving the
                          scenario replaces it with one of the above */
} sc_attention;

/* How fp8 GEMM operands are scaled (Transformer Engine recipes). */
typedef enum sc_fp8_recipe {
  SC_FP8_DELAYED = 0,  /* per-tensor scale from an amax history (TE's
                          default): cast + transpose of each operand, the
                          cast fused into a norm that produces it */
  SC_FP8_CURRENT,      /* per-tensor scale from the tensor itself: an amax
                          pass over each operand before its cast */
  SC_FP8_BLOCK,        /* 1x128 / 128x128 block scales (DeepSeek-V3's
                          recipe, Hopper): scales within the cast kernel */
  SC_FP8_MXFP8         /* MX block scaling of 32 elements (Blackwell's
                          native format) */
} sc_fp8_recipe;

typedef enum sc_recompute {
  SC_RECOMP_NONE = 0,
  SC_RECOMP_SELECTIVE,
  SC_RECOMP_FULL
} sc_recompute;

/* Megatron-Core's selective recompute modules (plan.recompute_modules,
 * TransformerConfig.recompute_modules): bits of sc_plan.recompute_modules.
 * Normal checkpointing keeps a module's inputs and re-runs it before its
 * backward; output-discarding checkpointing (moe_act, layernorm,
 * mla_up_proj) also frees its output (docs/model.md). */
typedef enum sc_recompute_module {
  SC_RECMOD_CORE_ATTN = 1 << 0,     /* core attention (the default) */
  SC_RECMOD_MOE_ACT = 1 << 1,       /* the experts' activation function */
  SC_RECMOD_LAYERNORM = 1 << 2,     /* input and pre-MLP norms (unfused ones) */
  SC_RECMOD_MLA_UP_PROJ = 1 << 3,   /* MLA up-projections, their norms, RoPE */
  SC_RECMOD_MLP = 1 << 4,           /* the MLP of a dense layer */
  SC_RECMOD_MOE = 1 << 5,           /* the whole MoE part of a layer */
  SC_RECMOD_SHARED_EXPERTS = 1 << 6, /* the shared experts */
  SC_RECMOD_NONE = 1 << 7            /* the list was given empty: a selective
                                        layer re-runs nothing (as Megatron) */
} sc_recompute_module;

/* How the framework computes a language model's cross-entropy loss
 * (plan.loss): what its backward holds beside the logits (docs/model.md
 * section 2; bytes per logit measured in data/measured/loss_mem_h100.csv
 * and read from Megatron-Core's and flash-attn's sources). */
typedef enum sc_loss_impl {
  SC_LOSS_AUTO = 0,       /* plan.fused_loss decides: SC_LOSS_FUSED, else
                             SC_LOSS_VOCAB_PARALLEL */
  SC_LOSS_VOCAB_PARALLEL, /* Megatron-Core's vocab-parallel cross entropy on
                             an fp32 copy of the logits, softmax and its
                             gradient computed in place */
  SC_LOSS_FUSED,          /* one fused kernel on the 16-bit logits
                             (flash-attn's CrossEntropyLoss; = fused_loss) */
  SC_LOSS_EAGER           /* torch.nn.functional.cross_entropy on
                             logits.float() (log-softmax and NLL in fp32),
                             the logits dropped after the loss (torchtitan,
                             Hugging Face's Trainer) */
} sc_loss_impl;

/* Whether the gradients outlive the step (plan.zero_grad; docs/model.md
 * section 5, "Gradients freed between steps"). */
typedef enum sc_zero_grad {
  SC_ZERO_GRAD_AUTO = 0,    /* set_to_none where the plan is PyTorch's own
                               parameters' .grad under torch.optim: fp32
                               parameters (plan.amp, fp32, tf32) in an
                               eager framework with no ZeRO and dp 1, or
                               FSDP2's sharded .grad (plan_grads_freed);
                               else zero */
  SC_ZERO_GRAD_SET_TO_NONE, /* optimizer.zero_grad(set_to_none=True),
                               PyTorch's default since 2.0: each step frees
                               the gradients, the first backward allocates
                               them again */
  SC_ZERO_GRAD_ZERO         /* kept between steps and zeroed in place
                               (set_to_none=False; Megatron's and DDP's
                               persistent buffers) */
} sc_zero_grad;

/* The FSDP / ZeRO-3 implementation (plan.fsdp_impl). */
typedef enum sc_fsdp_impl {
  SC_FSDP2 = 0,        /* PyTorch fully_shard: per-parameter sharding, one
                          all-gather per unit with copy-in/copy-out kernels */
  SC_FSDP1,            /* PyTorch FullyShardedDataParallel: flat parameter
                          per unit, gathered and reduced in place */
  SC_FSDP_DEEPSPEED,   /* DeepSpeed ZeRO-3: per-module gathers prefetched by
                          numel, gradients in reduce buckets */
  SC_FSDP_XLA          /* XLA (JAX/MaxText) parameter sharding: one gather per
                          layer into its weights, one layer ahead */
} sc_fsdp_impl;

/* The training framework a plan runs in (plan.framework; docs/input.md
 * "plan.framework"). SC_FW_AUTO (the default) names none: the keys say
 * what runs, and the decisions that depend on who owns the parameters and
 * their gradients read them as proxies (plan.framework_eager, plan.amp,
 * plan.dtype, plan.fused_kernels, plan.loss). A named framework supplies
 * the defaults of the keys it implies that were not written (sc_plan.given),
 * refuses the values it cannot have, and decides those questions itself
 * (src/plan/plan_fw.c). */
typedef enum sc_framework {
  SC_FW_AUTO = 0,      /* none named: today's reading of the keys */
  SC_FW_MEGATRON,      /* Megatron-LM / Megatron-Core (Transformer Engine) */
  SC_FW_NEMO,          /* NeMo (Megatron-Core underneath) */
  SC_FW_PYTORCH_DDP,   /* a torch.nn model under DistributedDataParallel */
  SC_FW_TORCHTITAN,    /* torchtitan: FSDP2 (fully_shard), torch.nn */
  SC_FW_DEEPSPEED,     /* DeepSpeed's engine around a torch.nn model */
  SC_FW_MAXTEXT,       /* MaxText on JAX/XLA */
  SC_FW_HF_TRAINER     /* Hugging Face Trainer (accelerate underneath) */
} sc_framework;

/* plan.fsdp_prefetch left to the implementation: FSDP1 prefetches nothing
 * in backward (PyTorch 1.13's FullyShardedDataParallel defaults
 * backward_prefetch to None), FSDP2 the previous group (1). */
#define SC_FSDP_PREFETCH_AUTO (-1)

/* How MoE tokens reach their experts and come back (Megatron-Core's
 * moe_token_dispatcher_type; docs/model.md "MoE token dispatchers"). */
typedef enum sc_moe_dispatcher {
  SC_MOE_ALLTOALL = 0, /* all-to-all of each token's top-k copies */
  SC_MOE_ALLGATHER,    /* all-gather of every rank's tokens over the expert
                          group, reduce-scatter of the outputs */
  SC_MOE_FLEX          /* DeepEP-style: a token crosses the network once per
                          destination node, fanned out over NVLink there */
} sc_moe_dispatcher;

/* One override of the plan for some layers: the strategy tree of Proteus
 * (a default plan plus per-layer or per-block changes). An int field set
 * to SC_INHERIT keeps the plan's value. Overrides apply in order; a later
 * one wins where two cover the same layer.
 *
 * tp and cp of a layer may differ from the plan's only with the same
 * product tp * cp (the layer keeps the data-parallel group and the
 * micro-batch; giving one of the two derives the other); activations are
 * re-laid out between layers of different tp/cp by an all-to-all over the
 * tp * cp GPUs. */
#define SC_INHERIT (-1)
#define SC_MAX_OVERRIDES 16
/* Most virtual pipeline stages (pp * vpp) an explicit layout may name. */
#define SC_MAX_PP_LAYOUT 256
typedef struct sc_override {
  int first, last;           /* layers first..last, 0-based, inclusive */
  char block[32];            /* or every layer of the block of that name
                                ("" = use first..last) */
  int tp, cp, ep;            /* parallel degrees of these layers */
  int sp;                    /* 0/1 sequence parallelism */
  int zero;                  /* 0..3: how their state is sharded */
  int recompute;             /* an sc_recompute */
} sc_override;

/* An override that changes nothing (every field SC_INHERIT, no layers). */
void sc_override_init(sc_override *o);

/* The parallel plan. A value of 0 in an int field means "pick what the
 * framework would" (sc_plan_resolve fills it in). */
typedef struct sc_plan {
  int tp;                    /* tensor parallel */
  int pp;                    /* pipeline parallel */
  int dp;                    /* data parallel (0 = gpus / (tp*pp*cp)) */
  int cp;                    /* context parallel */
  int ep;                    /* expert parallel (within dp*cp; with etp 1
                                folded over tp*dp*cp) */
  double moe_capacity;       /* MoE: expert capacity factor with padding to it
                                (Megatron --moe-expert-capacity-factor and
                                --moe-pad-expert-input-to-capacity): every
                                expert computes and exchanges capacity x the
                                mean tokens; 0 = dropless, balanced */
  int etp;                   /* expert tensor parallel: 0 = tp (Megatron's
                                default), or 1: experts whole on each GPU,
                                ep folded over the tensor-parallel ranks too
                                (Megatron-Core's MoE parallel folding) */
  int vpp;                   /* model chunks per pipeline rank (interleaved) */
  int sp;                    /* 1 = sequence parallelism with tp */
  int zero;                  /* 0..3; 3 = FSDP full shard */
  int fsdp_shard;            /* zero 3: the ranks one shard spans (HSDP /
                                ZeRO++ hpZ: shard within, replicate across);
                                0 = every data-parallel rank (dp * cp) */
  sc_schedule schedule;
  sc_recompute recompute;
  long global_batch;         /* sequences per optimizer step */
  long micro_batch;          /* sequences per micro-batch (0 = pick) */
  sc_dtype dtype;            /* compute type of the GEMMs */
  int distributed_optimizer; /* Megatron distributed optimizer: resolving
                                sets zero to at least 1 */
  int overlap_grad_reduce;   /* gradient reduce overlapped with backward */
  int overlap_param_gather;  /* ZeRO-3 gather overlapped with compute */
  int overlap_tp;            /* TP communication overlapped with GEMMs */
  int tp_async_bwd;          /* 1 = in backward, the reduction of a column-
                                parallel linear's input gradient (all-reduce;
                                reduce-scatter under sequence parallelism)
                                runs beside that linear's weight-gradient
                                GEMM (Megatron's async TP all-reduce, TE's
                                Linear); 0 = it blocks the stream */
  int overlap_ep;            /* MoE all-to-alls of one micro-batch hidden
                                under another's compute (Megatron
                                --overlap-moe-expert-parallel-comm,
                                combined 1F1B) */
  int flash_attention;       /* 1 = fused flash attention */
  sc_attention attention;    /* which kernel; unfused <=> flash_attention 0 */
  int fused_kernels;         /* 1 = fused bias/activation/softmax kernels */
  int framework_eager;       /* 1 = eager framework (PyTorch): host launch
                                overhead counts, and a CNN's pools run
                                ATen's kernels (src/cost/pool.h); 0 = a
                                graph framework, cuDNN's pooling */
  int channels_last;         /* 1 = CNN activations in NHWC, the layout of
                                cuDNN's tensor-core convolutions; 0 = NCHW
                                (PyTorch's default memory format): each
                                tensor-core convolution pass transposes
                                its operands (src/cost/conv.c) */
  int conv_autotune;         /* 1 = the framework times cuDNN's convolution
                                algorithms and keeps the fastest
                                (TensorFlow, MXNet by default; PyTorch with
                                cudnn.benchmark): non-fused Winograd and
                                FFT compete with the implicit GEMM
                                (src/cost/conv.c); 0 = cuDNN's heuristic
                                choice */
  int cublas_pre11;          /* 1 = the GEMM library predates cuBLAS 11.0
                                (CUDA 10.x or older): a 16-bit GEMM with
                                m, n or k not a multiple of 8 runs on the
                                CUDA cores (src/cost/compute.c
                                cost_gemm_lib); 0 = cuBLAS 11 or newer */
  int vocab_multiple;        /* the vocabulary's GEMMs run padded to a
                                multiple of this x tp (Megatron-LM's
                                --make-vocab-size-divisible-by); 0 = the
                                framework's: 128 for the transformer
                                builder's models and graphs (Megatron,
                                NeMo), 1 (none) for BERT and CNNs; FSDP
                                frameworks that keep the vocabulary: 1 */
  int cuda_graphs;           /* 1 = the step's kernels replay from CUDA graphs
                                (Megatron --enable-cuda-graph, TE graphed
                                callables): a graph node's launch cost per
                                kernel instead of the framework's host time */
  int n_overrides;           /* per-layer changes in overrides[0..n) */
  sc_override overrides[SC_MAX_OVERRIDES];
  /* Pipeline stage layout, as Megatron-Core splits layers (0 = unset: an
   * even split, which needs pp*vpp to divide the layers). At most one way
   * of the three: */
  int pp_first_layers;       /* layers of the first stage (all its chunks) */
  int pp_last_layers;        /* layers of the last stage */
  int pp_embedding_in_split; /* 1 = the embedding counts as one layer of
                                the first chunk of the first stage */
  int pp_loss_in_split;      /* 1 = the loss counts as one layer of the
                                last chunk of the last stage */
  sc_dtype main_grads;       /* gradient accumulation buffer: SC_FP32 (the
                                default, Megatron's main_grad) or SC_BF16 */
  /* The precision-aware optimizer (Megatron --use-precision-aware-
   * optimizer, Transformer Engine's FusedAdam): any of these three other
   * than SC_FP32 (the default) turns it on; plan.c checks the rest */
  sc_dtype main_params;      /* master weights: SC_FP32 or SC_FP16
                                (--main-params-dtype) */
  sc_dtype exp_avg;          /* Adam's first moment: SC_FP32, SC_FP16,
                                SC_BF16 or SC_FP8 (--exp-avg-dtype) */
  sc_dtype exp_avg_sq;       /* its second moment (--exp-avg-sq-dtype) */
  sc_fp8_recipe fp8_recipe;  /* fp8 plans: how operands are scaled */
  int bf16_first_layers;     /* fp8/fp4 plans: the first N layers' GEMMs stay
                                in 16 bits (Megatron --first-last-layers-bf16,
                                --num-layers-at-start-in-bf16) */
  int bf16_last_layers;      /* ... and the last N layers' */
  int fp8_param;             /* 1 = fp8 primary weights (Megatron --fp8-param-
                                gather): no 16-bit copy of the fp8 GEMM weights */
  int param_remainders;      /* 1 = the optimizer keeps the low 16 bits of the
                                fp32 master weights beside the bf16 parameters
                                (Apex DistributedFusedAdam store_param_remainders,
                                NeMo's distributed_fused_adam): 2 bytes per
                                parameter instead of 4; needs bf16 parameters */
  int fused_loss;            /* 1 = the loss is one fused softmax cross-entropy
                                kernel on the 16-bit logits (flash-attn's
                                CrossEntropyLoss, llm-foundry's
                                fused_crossentropy): it keeps the logits alone
                                for backward; 0 = Megatron's, on an fp32 copy
                                (docs/model.md section 2) */
  int loss_impl;             /* sc_loss_impl: how the framework computes the
                                loss, for its backward's memory (SC_LOSS_AUTO:
                                fused_loss decides, else Megatron's) */
  int offload_layers;        /* activations of the first N layers kept in host
                                 memory between forward and backward
                                 (Megatron --cpu-offloading-num-layers);
                                 0 = none */
  int recompute_layers;      /* with recompute full: only the first N layers of
                                every model chunk are recomputed (Megatron's
                                "block" method, recompute_num_layers); 0 = all */
  unsigned recompute_modules; /* selective recompute: SC_RECMOD_* bits of the
                                modules re-run (Megatron --recompute-modules);
                                0 = Megatron's default, core_attn;
                                SC_RECMOD_NONE = an empty list */
  int n_pp_layout;           /* explicit layers per virtual stage: pp_layout
                                [k*pp + s] = layers of chunk k on stage s */
  int pp_layout[SC_MAX_PP_LAYOUT];
  /* ZeRO-3 / FSDP as each framework schedules it (zero 3; src/engine/
   * fsdp.c, docs/model.md "FSDP and ZeRO-3"). The defaults are the
   * frameworks' own (sc_plan_default). */
  sc_fsdp_impl fsdp_impl;    /* which implementation runs it */
  int fsdp_reshard;          /* 1 = free the gathered weights after forward and
                                gather again in backward (FULL_SHARD, ZeRO-3);
                                0 = keep them to the backward (SHARD_GRAD_OP,
                                FSDP2 reshard_after_forward=False) */
  int fsdp_prefetch;         /* FSDP1/FSDP2: units gathered ahead in backward
                                (FSDP1 BACKWARD_PRE: 1, None: 0; FSDP2: 1, or
                                more through set_modules_to_backward_prefetch);
                                SC_FSDP_PREFETCH_AUTO (the default): the
                                implementation's own default, which
                                sc_scenario_resolve sets (FSDP1 0, others 1) */
  int fsdp_forward_prefetch; /* 1 = the next unit's gather is issued before
                                this unit's forward (FSDP1 forward_prefetch);
                                0 = when the host reaches it (implicit) */
  double ds_prefetch_bucket; /* DeepSpeed stage3_prefetch_bucket_size, elements */
  double ds_max_live;        /* stage3_max_live_parameters, elements */
  double ds_max_reuse;       /* stage3_max_reuse_distance, elements */
  double ds_reduce_bucket;   /* reduce_bucket_size, elements */
  double ds_persistence;     /* stage3_param_persistence_threshold, elements */
  /* MoE as it is run (src/lower/lower.c, docs/model.md) */
  int moe_grouped_gemm;      /* 1 = each expert linear is one grouped GEMM over
                                the rank's experts (Megatron --moe-grouped-gemm);
                                0 = one GEMM per expert (SequentialMLP) */
  int moe_router_fp32;       /* 1 = the router's GEMM in fp32 (Megatron
                                --moe-router-dtype fp32; key
                                moe_router_dtype "fp32"); 0 = "auto", the
                                activations' type */
  int moe_shared_expert_overlap; /* 1 = the shared experts run beside the
                                dispatch (fc1 and activation) and the
                                combine (fc2) on their own stream (Megatron
                                --moe-shared-expert-overlap; alltoall or
                                flex, not with overlap_ep) */
  int moe_permute_fusion;    /* 1 = the tokens' permute/unpermute (and the
                                alltoall dispatcher's chunk sort) run
                                Transformer Engine's fused kernels (Megatron
                                --moe-permute-fusion); 0 = PyTorch ops */
  double moe_imbalance;      /* tokens of the busiest expert-parallel rank over
                                the mean (>= 1; 1 = balanced) */
  sc_moe_dispatcher moe_dispatcher; /* token dispatcher (src/lower/moe_dispatch.c) */
  int moe_router_groups;     /* group-limited routing: experts in this many
                                equal groups (0 = none) */
  int moe_router_group_topk; /* groups each token may choose (0 = none) */
  int moe_flex_sms;          /* SMs the flex dispatcher's kernels hold */
  /* Automatic mixed precision (src/cost/amp.h, docs/model.md) */
  int amp;                   /* 1 = fp32 parameters, 16-bit GEMMs as the
                                frameworks' AMP runs them: norms and the
                                attention softmax in fp32 with casts,
                                weight casts and loss scaling each step;
                                0 = the model cast wholly to plan.dtype */
  int zero_grad;             /* sc_zero_grad: whether the gradients are freed
                                between steps (SC_ZERO_GRAD_AUTO: by the
                                framework, plan_grads_freed) */
  int ddp_bucket_view;       /* PyTorch DDP's gradient_as_bucket_view:
                                1 = each .grad a view of the reducer's
                                buckets; 0 (PyTorch's default) = the
                                reducer keeps its buckets, a second copy
                                of the gradients, beside the .grad
                                tensors (plan_ddp_buckets) */
  int framework;             /* sc_framework: the framework that runs the
                                plan (SC_FW_AUTO: read from the keys) */
  int dp_replicas;           /* replicas the gradients are reduced over when
                                this plan is one of them and dp says 1
                                (`stepcast dp`'s one-GPU plan); 0 = plan.dp.
                                No JSON key: set by the library */
  unsigned given;            /* SC_GIVEN_* bits: the keys below whose value
                                was written, which a named plan.framework
                                leaves as written (or refuses, when it
                                cannot have that value) rather than filling
                                with its own default. The loader sets the
                                bit of each key a plan object (a file,
                                --set, a CLI flag) names; API users who fill
                                sc_plan by hand set them; sc_plan_default
                                clears them. A value other than the key's
                                default is kept without its bit */
} sc_plan;

/* Bits of sc_plan.given: the plan keys a named plan.framework gives a
 * default of its own (src/plan/plan_fw.c, docs/input.md "framework").
 * vocab_multiple 0 and loss "auto" name no value: written out, they still
 * take the framework's. */
enum {
  SC_GIVEN_FUSED_KERNELS = 1u << 0,   /* plan.fused_kernels */
  SC_GIVEN_FRAMEWORK_EAGER = 1u << 1, /* plan.framework_eager */
  SC_GIVEN_FSDP_IMPL = 1u << 2,       /* plan.fsdp_impl */
  SC_GIVEN_AMP = 1u << 3              /* plan.amp */
};

/* Plan defaults: tp, pp, cp, ep 1; dp, vpp, micro_batch 0 (= pick);
 * global_batch 0 (must be set); 1F1B, no recompute, no ZeRO, bf16;
 * gradient reduce and parameter gather overlapped, flash attention, fused
 * kernels, an eager framework. */
void sc_plan_default(sc_plan *p);

/* ------------------------------------------------- data-parallel schemes */

/* How a data-parallel job exchanges gradients (issue 9; docs/input.md,
 * "dp"): a scheme of ../shared/validation/DP-AND-RECSYS.md, where the
 * parameter servers live, the transport and the gossip graph. A scenario
 * whose dp.scheme is "" is not a data-parallel scenario. */
typedef enum sc_dp_place {
  SC_PS_AUTO = 0,      /* the scheme's framework default */
  SC_PS_HOST_CPU,      /* variables in the server's host memory (/cpu:0) */
  SC_PS_GPU,           /* on one GPU of the server (/gpu:0) */
  SC_PS_COLOCATED,     /* PS tasks on the worker servers' CPUs */
  SC_PS_SERVERS        /* dedicated CPU-only machines */
} sc_dp_place;
typedef enum sc_dp_transport { SC_DP_TR_AUTO = 0, SC_DP_TR_TCP, SC_DP_TR_RDMA } sc_dp_transport;
typedef enum sc_dp_intra {
  SC_DP_INTRA_AUTO = 0,      /* from the GPU: NVLink GPUs NVSwitch (V100/P100
                                with <= 8 per server: DGX-1 cube-mesh), else PCIe */
  SC_DP_INTRA_NVSWITCH,
  SC_DP_INTRA_CUBEMESH,      /* DGX-1 hybrid cube-mesh */
  SC_DP_INTRA_NVLINK_MESH,   /* 4-GPU boards, every pair linked */
  SC_DP_INTRA_PCIE           /* through PCIe switches and the host */
} sc_dp_intra;
typedef enum sc_dp_fusion_kind {
  SC_DP_FUSION_AUTO = 0,     /* what the scheme's framework does */
  SC_DP_FUSION_DDP,          /* PyTorch DDP buckets (bucket_MB, first 1 MiB) */
  SC_DP_FUSION_HOROVOD,      /* Horovod tensor fusion (bucket_MB, cycle_ms) */
  SC_DP_FUSION_TENSOR,       /* one message per gradient tensor (TF) */
  SC_DP_FUSION_NONE,         /* one message after the backward pass */
  SC_DP_FUSION_MEGATRON      /* Megatron-Core DDP buckets: max(40M, 1M x dp)
                                gradient elements */
} sc_dp_fusion_kind;

typedef struct sc_dp_spec {
  char scheme[40];           /* scheme name; "" = not data-parallel */
  int ps_count;              /* parameter-server shards (0 = 1 per server) */
  sc_dp_place ps_place;
  sc_dp_transport transport;
  sc_dp_intra intra;
  double network_bw;         /* per server per direction, bytes/s (0 =
                                cluster.nic_bw x gpus_per_node) */
  double host_bw;            /* GPU-host link per GPU, bytes/s (0 = PCIe gen3 x16) */
  double intra_bw;           /* GPU-GPU per GPU, bytes/s (0 = cluster) */
  sc_dp_fusion_kind fusion;
  double bucket_bytes;       /* fusion threshold (0 = the framework's) */
  double cycle_s;            /* Horovod cycle time (0 = the framework's) */
  double grad_bytes;         /* bytes per gradient element (0 = 2 under fp16/
                                bf16 compute without plan.amp, else 4) */
  double other_s;            /* extra seconds per step (input pipeline), >= 0 */
  double jitter;             /* coefficient of variation of a worker's compute
                                time (0 = none): a synchronous step waits for
                                the slowest of the workers it synchronises */
  int keep_unfit;            /* 1 = predict a batch the memory model says does
                                not fit (validation of runs that did run) */
  char graph[256];           /* gossip graph: "exp2", "ring", "full", an edge
                                list "0-1,1-2" or a mixing matrix "w,w;w,w" */
} sc_dp_spec;


/* -------------------------------------------------------------- scenario */

typedef struct sc_scenario {
  sc_model model;
  sc_cluster cluster;
  sc_plan plan;
  sc_dp_spec dp;        /* data-parallel scheme (dp.scheme "" = none) */
} sc_scenario;

/* GPT-3 175B on 1,024 A100 80 GB (128 DGX A100, 200 Gb/s per GPU). */
void sc_scenario_default(sc_scenario *s);

/* Check the scenario and fill the "pick" fields of its plan (dp, micro
 * batch, vpp). Returns SC_OK or SC_EINPUT with a message naming the key
 * path (e.g. "plan.tp") and what would be valid. */
int sc_scenario_resolve(sc_scenario *s, sc_error *err);

/* As sc_scenario_resolve, but check the model and cluster only: the plan
 * keeps its values unchecked (types and ranges aside). For callers that
 * choose the plan themselves (sc_search, sc_job_open). */
int sc_scenario_resolve_model(sc_scenario *s, sc_error *err);

/* Load a scenario from a JSON file (path) or string. Later overrides
 * ("plan.tp=8", key path = JSON value) are applied before checking.
 * On error the message names the file, line and column or the key path. */
int sc_scenario_load_file(sc_scenario *s, const char *path,
                          const char *const *overrides, size_t n_overrides,
                          sc_error *err);
int sc_scenario_load_string(sc_scenario *s, const char *json,
                            const char *origin,
                            const char *const *overrides, size_t n_overrides,
                            sc_error *err);

/* sc_scenario_load_file/string with flags: SC_LOAD_PLAN_UNCHECKED checks
 * the model and cluster only (sc_scenario_resolve_model), for callers that
 * choose the plan themselves (`stepcast search`). */
#define SC_LOAD_PLAN_UNCHECKED 1u
int sc_scenario_load_file_ex(sc_scenario *s, const char *path,
                             const char *const *overrides, size_t n_overrides,
                             unsigned flags, sc_error *err);
int sc_scenario_load_string_ex(sc_scenario *s, const char *json, const char *origin,
                               const char *const *overrides, size_t n_overrides,
                               unsigned flags, sc_error *err);

/* --------------------------------------------------------------- result */

/* Memory per GPU (the most loaded GPU: first pipeline stage), bytes. */
typedef struct sc_memory {
  double weights;      /* parameters held in compute dtype (+ master copy) */
  double gradients;
  double optimizer;    /* optimizer state (Adam: m, v; model.optimizer)
                          and fp32 master weights */
  double activations;  /* stored for backward, all in-flight micro-batches
                          (plan.amp: with the 16-bit weight copies) */
  double buffers;      /* communication buffers, workspace, fragmentation */
  double total;
  double capacity;     /* HBM of the GPU */
  int fits;            /* total <= capacity, and host <= host_capacity */
  double host;         /* offloaded activations pinned in CPU memory, per
                          server (all its GPUs), bytes */
  double host_capacity; /* the server's CPU memory (cluster.host_RAM_GB),
                           bytes; 0 = not limited */
  double headroom;     /* memory the caller asked to keep free on the GPU
                          (--headroom: capacity - sc_memory_usable), bytes;
                          0 = none. The engines leave it 0; whoever judges
                          `fits` under a headroom sets it (the CLI's
                          --headroom, search's plans), and the JSON reports
                          print it (docs/output.md) */
} sc_memory;

/* The memory model's error band, a fraction of the GPU's capacity
 * (docs/accuracy.md, "The memory model's band": the largest amount by
 * which it puts a training validation row, all of which ran, over its
 * GPU's memory, 2.7 %, rounded up to a whole percent). */
#define SC_MEMORY_BAND 0.03

/* 1 when m's predicted total is within SC_MEMORY_BAND of its capacity,
 * either side: its `fits` verdict is marginal (a plan said to fit may
 * not, one said not to may). 0 when the total is clear of the band, when
 * offloading's host memory does not fit (that decides), or without a
 * capacity. `fits` itself is unchanged by the band. */
int sc_memory_marginal(const sc_memory *m);
/* 1 when the band was measured on s's kind of model: the transformer
 * builder's LLMs, whose training rows it comes from. CNNs, BERT and JSON
 * workload graphs get plain verdicts, never marginal, as `stepcast dp`
 * and `stepcast recsys` give them. */
int sc_memory_band_measured(const sc_scenario *s);
/* How sure the verdict m of s is, as the JSON outputs' `fits_confidence`
 * says it (static strings): "unmeasured" (!sc_memory_band_measured),
 * else "marginal" (sc_memory_marginal) or "clear". */
const char *sc_fits_confidence(const sc_scenario *s, const sc_memory *m);

/* Where one step's time goes on the critical path; the parts add up to
 * step_s. */
typedef struct sc_breakdown {
  double compute;      /* GPU kernels of forward, backward, recompute */
  double host;         /* host (launch) time not hidden behind GPU work */
  double tp_comm;      /* exposed tensor/sequence/context parallel comm */
  double ep_comm;      /* exposed expert-parallel all-to-all (MoE dispatch
                          and combine) */
  double pp_comm;      /* exposed pipeline send/recv */
  double bubble;       /* pipeline fill and drain */
  double dp_comm;      /* exposed data-parallel reduce and ZeRO gathers */
  double optimizer;    /* optimizer step */
  double offload;      /* activation copies to and from host memory not
                          hidden behind the layers' compute */
} sc_breakdown;

typedef struct sc_result {
  double step_s;          /* seconds per optimizer step */
  double tokens_per_s;    /* whole cluster */
  double seq_per_s;
  double model_flops;     /* per step, 6*N*T + attention (no recompute) */
  double hw_flops;        /* per step, including recompute */
  double tflops_per_gpu;  /* model FLOP/s per GPU / 1e12 */
  double mfu;             /* model FLOP/s / the dense 16-bit peak (bf16, or
                             fp16; fp32 plans: the fp32 peak), as frameworks
                             report it whatever the GEMM type */
  double mfu_lowp;        /* model FLOP/s / the peak of the plan's GEMM type
                             (fp8, fp4); == mfu for 16- and 32-bit plans */
  int micro_batches;      /* per pipeline per step */
  long micro_batch;       /* resolved micro-batch size */
  sc_breakdown time;
  sc_memory mem;
  double params;          /* total parameters */
} sc_result;

/* Predict one step. s must have been resolved (sc_scenario_resolve) or be
 * resolvable; returns SC_OK or an error code. Costs well under 1 ms. */
int sc_predict(const sc_scenario *s, sc_result *r, sc_error *err);

/* ------------------------------------- data-parallel schemes: prediction */

/* The prediction of one scheme. */
typedef struct sc_dp_result {
  char scheme[40];
  const char *family;        /* static: "ps", "allreduce", "gossip", "none" */
  int async;                 /* 1 = step_s is a worker's mean step */
  double step_s;             /* seconds per step (async: per worker step) */
  double samples_per_s;      /* whole job */
  double efficiency;         /* samples/s over gpus x one GPU's samples/s */
  double compute_s;          /* one worker's compute (fwd, bwd, update) */
  double comm_s;             /* the exchange's total time */
  double exposed_s;          /* exchange not hidden by the backward pass */
  double grad_bytes;         /* bytes of gradients per worker per step */
  int messages;              /* messages per step (buckets, tensors) */
  char how[112];             /* algorithm, bottleneck, in words */
  sc_memory mem;             /* one GPU's memory (single-GPU plan) */
} sc_dp_result;

/* Predict s under its dp.scheme. SC_OK; SC_EINPUT (unknown scheme, a
 * scheme that does not apply, a gossip graph that is not connected, more
 * PS shards than gradient tensors, a batch that does not fit) with a
 * message naming the dp.* key; SC_ENOMEM. */
int sc_dp_predict(const sc_scenario *s, sc_dp_result *r, sc_error *err);
/* Every scheme that applies to s, fastest first (stable), at most max;
 * returns how many (or -code on error). A scheme whose prediction is an
 * input error is left out; when every one is, that error (the first
 * scheme's) is returned. */
int sc_dp_compare(const sc_scenario *s, sc_dp_result *out, int max, sc_error *err);
/* The scenario JSON `stepcast dp` starts from without a file (a static
 * string): ResNet-50 v1.5 on 16 V100 in two servers over 25 GbE, 64
 * images per GPU in fp16, the question PerfTop answers. */
const char *sc_dp_default_scenario(void);
/* Number of scheme names and the i-th (static strings). */
int sc_dp_scheme_count(void);
const char *sc_dp_scheme_name(int i);

/* One operator of a transformer layer as the engine costs it, for one
 * micro-batch on one GPU. */
typedef struct sc_op_time {
  char name[32];
  char kind[8];        /* "gemm", "attn", "mem", "comm" */
  double fwd_s;        /* forward time (comm: time of the collective) */
  double bwd_s;        /* backward time */
  double flops;        /* forward FLOPs */
  double bytes;        /* forward bytes moved (mem) or sent (comm) */
  double eff;          /* gemm: the fraction of the dtype's dense peak the forward
                          achieves as costed, flops / (fwd_s x peak); 0 otherwise */
  char path[8];        /* gemm: the kernel costed, "tile", "memory" (a tile kernel
                          bound by its bytes), "narrow" (the SIMT kernel of a
                          dimension <= 16) or "conv" (cuDNN's); "" otherwise */
} sc_op_time;

/* The operators of one transformer layer of s with their costs; fills at
 * most `max` entries and returns how many (or -code on error). */
int sc_explain_layer(const sc_scenario *s, sc_op_time *out, int max,
                     sc_error *err);

/* The whole step of s by operator kind: one row per kind that occurs
 * (name "conv", "gemm", "attention", "norm", "eltwise", "pool",
 * "embedding", "interaction", "loss", "moe_route", "comm", "other"; kind
 * "kind"), summed over every layer of the first pipeline stage (all its
 * model chunks) for one micro-batch on one GPU: fwd_s and bwd_s the
 * kernels' GPU times as the engine costs them (comm: the collectives'
 * times), without host time, overlap or recomputation; flops the forward
 * FLOPs of its compute tasks, bytes the forward bytes of its memory-bound
 * and communication tasks, eff 0. Fills at most `max` rows, in order of
 * first occurrence, and returns how many (or -code on error). */
int sc_explain_kinds(const sc_scenario *s, sc_op_time *out, int max, sc_error *err);

/* -------------------------------------------------------------- search */

/* What a search is told while it runs: plans done of the total, and the
 * wall time so far. Return nonzero to stop it (the best plans so far are
 * returned, stats.stopped = SC_SEARCH_INTERRUPTED). Called from the
 * calling thread only, at most about ten times a second. */
typedef int (*sc_search_progress)(void *ctx, long done, long total, double seconds);

/* Bounds of the plan space sc_search walks and how it runs; 0 = the
 * default in brackets. Start from sc_search_opts_default. */
typedef struct sc_search_opts {
  int max_tp;            /* tensor parallel, powers of two [NVLink domain] */
  int max_pp;            /* pipeline stages, divisors of layers [64] */
  int max_micro_batch;   /* sequences per micro-batch [16] */
  int max_vpp;           /* interleaving chunks tried [4] */
  int require_fit;       /* 1 = keep only plans that fit in memory [1] */
  int threads;           /* threads [every core: OpenMP's default count];
                            at most one per 256 plans, and a thread that
                            starts when fewer than 512 are left does not
                            join; the result does not depend on it */
  long max_plans;        /* budget: the first N plans of the space [all] */
  double max_seconds;    /* budget: stop after this wall time, s [none] */
  int rerank;            /* 1 = re-rank the top k by the event engine
                            (sc_job_predict_event), on the search's
                            threads [0; `stepcast search` and Python: 1] */
  sc_search_progress progress;  /* NULL = none */
  void *progress_ctx;    /* passed to progress */
  /* The user's constraints (docs/search.md, "The space"): */
  int tp, pp, dp, cp, ep; /* a fixed degree [0: searched] */
  unsigned zero_stages;  /* bit z: ZeRO stage z searched [0: 0, 1, 2, 3] */
  unsigned dtypes;       /* bit d (an sc_dtype): GEMM type searched, where
                            the GPU has a peak for it [0: the scenario's] */
  double headroom_bytes; /* memory kept free on every GPU, bytes [0] */
  double headroom_frac;  /* ... and as a fraction of its memory [0]; a plan
                            fits when its total <= capacity less both */
  int micro_batch;       /* a fixed micro-batch, sequences; need not be
                            within max_micro_batch [0: searched] */
  int vpp;               /* fixed interleaving chunks: 1 = 1F1B only, > 1
                            interleaved (pp > 1 only); need not be within
                            max_vpp [0: searched] */
  unsigned recompute;    /* SC_SEARCH_RECOMP_* bits: the recomputation
                            searched [0: every kind] */
} sc_search_opts;

/* Bits of sc_search_opts.recompute (docs/search.md, "The space"). */
#define SC_SEARCH_RECOMP_NONE (1u << 0)      /* none, offloading plans too */
#define SC_SEARCH_RECOMP_SELECTIVE (1u << 1) /* the scenario's recompute_modules */
#define SC_SEARCH_RECOMP_FULL (1u << 2)      /* full, every layer of each chunk */
#define SC_SEARCH_RECOMP_PARTIAL (1u << 3)   /* full, the first N layers of each
                                                chunk (recompute_layers N) */

void sc_search_opts_default(sc_search_opts *o);
/* Set one option of o from text, as `stepcast search` reads its command
 * line (for bindings, docs/python.md): key is a field's name (max_tp,
 * max_pp, max_micro_batch, max_vpp, threads, max_plans, max_seconds,
 * rerank, tp, pp, dp, cp, ep, micro_batch, vpp), "all" (= !require_fit),
 * or the command's "zero" ("1,3"), "dtypes" ("bf16,fp8"), "recompute"
 * ("full" or "full,partial": none, selective, full, partial) and
 * "headroom" (GiB "4", a fraction "0.1" or a percentage "10%"). SC_OK, or
 * SC_EINPUT naming the option and what is valid (o unchanged). */
int sc_search_opts_set(sc_search_opts *o, const char *key, const char *value, sc_error *err);

/* The memory a plan may use on a GPU of capacity bytes under a headroom of
 * headroom_bytes and headroom_frac x capacity (sc_search_opts' fields):
 * a plan fits when its total is at most this, bytes. The search, its HTML
 * view and the CLI's --headroom on predict and dp read it. */
double sc_memory_usable(double capacity, double headroom_bytes, double headroom_frac);

typedef struct sc_candidate {
  sc_plan plan;          /* resolved */
  sc_result result;
  int pareto;            /* 1 = on the time-vs-memory Pareto front of the
                            plans returned (no other is both faster and
                            smaller) */
  double event_s;        /* re-ranked: the event engine's step, s; else 0 */
  sc_breakdown event_time; /* re-ranked: the event engine's breakdown (its
                            critical path; adds up to event_s); else 0 */
} sc_candidate;

/* Why a search ended. */
#define SC_SEARCH_COMPLETE 0
#define SC_SEARCH_BUDGET 1       /* max_seconds reached */
#define SC_SEARCH_INTERRUPTED 2  /* the progress callback said stop */
#define SC_SEARCH_MAX_PLANS 3    /* max_plans cut the space (total < full) */

/* Why plans were rejected, when none is valid: one reason (the key path
 * the plan check names, "plan.tp"), how many plans it rejected of those
 * re-checked, and the first one's message as `predict` words it. */
#define SC_SEARCH_REASONS 4
typedef struct sc_search_reason {
  long count;            /* plans rejected for it */
  char example[768];     /* the first one's message (sc_error.msg) */
} sc_search_reason;

typedef struct sc_search_stats {
  long tried;            /* plans generated and looked at */
  long valid;            /* plans the checks accepted */
  long fit;              /* valid plans that fit in memory */
  long pruned;           /* fitting plans whose time lower bound exceeds
                            the final k-th best step: on a topology its
                            bound (every collective at the larger of NCCL's
                            closed form and its link-load bound), or its
                            floor where the search never bounded it; without
                            one the floor (the step less its data-parallel
                            reduction and optimizer). Such plans are not
                            costed whole (search.md) */
  long total;            /* plans in the space (within max_plans) */
  long full;             /* plans in the whole space (> total: max_plans
                            cut it) */
  int threads;           /* threads used */
  int stopped;           /* SC_SEARCH_COMPLETE, _BUDGET, _INTERRUPTED or
                            _MAX_PLANS */
  int reranked;          /* 1 = best[] is ordered by event_s (the event
                            engine), 0 = by the closed form's step_s */
  double seconds;        /* wall time of the search */
  unsigned dtypes;       /* bit d (an sc_dtype): the GEMM types the space
                            held (opts' that the GPU has a peak for, or the
                            scenario's) */
  int has_closest;       /* 1 when no plan fits and closest is set */
  sc_candidate closest;  /* then: the valid plan that needs least memory */
  /* When no plan is valid: the first `rechecked` plans of the space
   * checked again with messages, their reasons by key, most first. */
  long rechecked;
  int n_reasons;
  sc_search_reason reasons[SC_SEARCH_REASONS];
  double rerank_seconds; /* of seconds: the re-rank's wall time */
  sc_error rerank_err;   /* rerank asked but the event engine could not
                            run a plan (SC_EINPUT), or a plan has more
                            micro-batches than it is run on (SC_EMODEL):
                            why; the plans keep the closed form's order
                            (reranked 0) */
} sc_search_stats;

/* Search the plans of base's model, cluster, global batch and dtype:
 * tp, pp (with uneven first/last stages), dp (derived), cp for long
 * sequences, ep and etp for MoE, micro-batch, 1F1B or interleaved
 * (micro-batch counts a multiple of pp, as Megatron-LM requires), ZeRO
 * 0-3 and HSDP, each recompute mode and partial recomputation,
 * offloading, and opts' dtypes (docs/search.md, "The space"). Keeps the
 * `max_best` fastest in best[] (fastest first; ties: less memory, then
 * the earlier plan of the space), *n_best of them. The result is the same
 * whatever the thread count (docs/search.md). opts NULL = defaults. */
int sc_search(const sc_scenario *base, const sc_search_opts *opts,
              sc_candidate *best, int max_best, int *n_best,
              sc_search_stats *stats, sc_error *err);

/* A searcher: a search's helper threads kept parked from one search to
 * the next. sc_search creates its helpers, and a thread created while
 * its creator works may wait milliseconds for a core, as long as a
 * search of a few thousand plans. A kept thread polls for work for 0.2 s
 * after its last search (napping 50 us between looks: about a sixth of a
 * core) and joins a search within about 0.1 ms; then it sleeps, and a
 * sleeper woken may be queued on the searching thread's own core
 * (docs/search.md, "Threads: a pool kept between searches" and "a pool
 * that polls before it sleeps"). Open one early in a program that
 * searches (its threads start while the program reads its input) and
 * search on it; the result is sc_search's. One search at a time: a
 * search on a searcher another thread is searching on creates its
 * helpers as sc_search does. */
typedef struct sc_searcher sc_searcher;
/* A searcher for searches of up to `threads` threads [<= 0: every core,
 * sc_search_opts.threads' default]: threads - 1 parked. SC_OK with *out
 * (owned by the caller: sc_searcher_close), or SC_ENOMEM (*out NULL). */
int sc_searcher_open(int threads, sc_searcher **out, sc_error *err);
/* End its threads and free it (NULL: nothing); no search may be running
 * on it. */
void sc_searcher_close(sc_searcher *s);
/* sc_search, its helper threads s's (s NULL: sc_search itself); a search
 * of more threads than s keeps creates the others. */
int sc_searcher_search(sc_searcher *s, const sc_scenario *base, const sc_search_opts *opts,
                       sc_candidate *best, int max_best, int *n_best, sc_search_stats *stats,
                       sc_error *err);

/* MPI (a build with -DSC_MPI=ON, run under mpirun): start MPI if the
 * program has not, and return this process's rank (-1 if MPI could not
 * start); sc_search then splits its space over the processes and every
 * process gets the whole result. Finalize before exit. Without SC_MPI:
 * rank 0 and nothing to do. */
int sc_mpi_init(int *argc, char ***argv);
void sc_mpi_finalize(void);

/* ------------------------------------------------------------ timeline */

/* One span of a step's timeline: a forward or backward pass of one
 * micro-batch (and model chunk) on one pipeline stage, or what follows the
 * pipeline flush. Times in seconds from the start of the step. */
typedef struct sc_span {
  int stage;           /* pipeline stage; one GPU stands for its stage */
  int lane;            /* 0 = compute stream, 1 = communication */
  char kind;           /* 'F' forward, 'B' backward (with recompute),
                          'W' weight gradients (zb-h1, dualpipe: split
                          from their backward), 'D' data-parallel
                          reduction, 'O' optimizer */
  int micro_batch;     /* F, B: micro-batch index; else -1 */
  int chunk;           /* F, B, W: model chunk (interleaved; dualpipe:
                          1 = the micro-batches fed from the last
                          stage); else 0 */
  double start, dur;   /* seconds */
} sc_span;

/* Lay out one step: the pipeline schedule of the plan (GPipe, 1F1B or
 * Megatron's interleaved 1F1B) run as a discrete-event simulation over the
 * stages, with send/recv between stages, then the exposed data-parallel
 * reduction and the optimizer. On success *spans is a malloc'd array of
 * *n spans (the caller frees it) and *step_s the timeline's step time. */
int sc_timeline(const sc_scenario *s, sc_span **spans, size_t *n,
                double *step_s, sc_error *err);

/* --------------------------------------------------------- event engine */

/* The event engine (docs/event.md): the plan's execution graph run as a
 * discrete-event simulation -- per rank class the compute stream, one
 * stream per parallel group kind (TP, CP, EP, MP, PP, DP) and the host,
 * the pipeline schedule with send/recv, the reduction across replicas,
 * overlap slowdown, what-ifs (cluster.straggler_gpu) -- with the critical
 * path of the step. */
typedef struct sc_event_opts {
  int fold;              /* 1 = one replica stands for all when they are
                            equal (default); 0 = simulate every replica */
  int trace;             /* 1 = keep every task's span (sc_report_event_trace) */
} sc_event_opts;

typedef struct sc_event_pred sc_event_pred;

/* Predict one step of s with the event engine. On success *r is filled
 * as sc_predict fills it (step, breakdown from the critical path,
 * throughput, memory) and *out owns the run (sc_event_pred_free; out may
 * be NULL). Errors as sc_predict's, and SC_EINPUT for a what-if the job
 * cannot have (a straggler on a GPU it does not have). */
int sc_predict_event(const sc_scenario *s, const sc_event_opts *o, sc_result *r,
                     sc_event_pred **out, sc_error *err);
void sc_event_pred_free(sc_event_pred *p);

/* sc_predict_event of `plan` (NULL: the scenario's) against a prepared
 * job, e.g. to re-rank a search's best plans (sc_job_open). */
struct sc_job;
int sc_job_predict_event(struct sc_job *j, const sc_plan *plan, const sc_event_opts *o,
                         sc_result *r, sc_event_pred **out, sc_error *err);

/* The closed form's step of the same plan, s (for comparison). */
double sc_event_closed_step(const sc_event_pred *p);


/* The step of s under its dp.scheme as spans (sc_timeline's format, one
 * stage): forward and backward per layer on lane 0, every gradient or
 * model message on lane 1 ('D'), optimizer and host time ('O'); *spans
 * is malloc'd (the caller frees it), *step_s the step. Errors as
 * sc_dp_predict. */
int sc_dp_timeline(const sc_scenario *s, sc_span **spans, size_t *n, double *step_s,
                   sc_error *err);

/* ------------------------------------------------------------------- job */

/* A prepared job: what every evaluation of one scenario's model and
 * cluster shares -- the workload graph (built by the model's builder, or
 * read from its graph file), the topology with its routes, and the memos
 * of collective costs -- so that a search evaluates many plans without
 * repeating that work, and no evaluation reads a file.
 *
 * sc_predict, sc_timeline and sc_explain_layer are one-call conveniences
 * that open a job, evaluate the scenario's own plan and close it.
 *
 * A job is not thread-safe (its memos grow as it predicts): one thread
 * uses it at a time; open one job per thread. */
typedef struct sc_job sc_job;

/* Resolve the model and cluster of s (sc_scenario_resolve_model), build
 * the workload graph and load the topology. On success *out owns a new job
 * (close it with sc_job_close); on error *out is NULL and err says why
 * (the graph file's line and column, the topology's element, ...). */
int sc_job_open(const sc_scenario *s, sc_job **out, sc_error *err);
void sc_job_close(sc_job *j);

/* The job's scenario: model and cluster resolved, the plan as given. */
const sc_scenario *sc_job_scenario(const sc_job *j);

/* Predict one step of `plan` (NULL: the scenario's plan) on the job's
 * model and cluster. The plan is checked against them first (SC_EINPUT
 * with the key path, as sc_scenario_resolve). */
int sc_job_predict(sc_job *j, const sc_plan *plan, sc_result *r, sc_error *err);

/* sc_timeline, sc_explain_layer and sc_explain_kinds of `plan` against the job. */
int sc_job_timeline(sc_job *j, const sc_plan *plan, sc_span **spans, size_t *n,
                    double *step_s, sc_error *err);
int sc_job_explain_layer(sc_job *j, const sc_plan *plan, sc_op_time *out, int max,
                         sc_error *err);
int sc_job_explain_kinds(sc_job *j, const sc_plan *plan, sc_op_time *out, int max,
                         sc_error *err);

/* ----------------------------------------------------------- collectives */

/* Collective operations. Sizes follow nccl-tests: `bytes` is the size of
 * the whole buffer (all_reduce: the buffer; all_gather: the gathered
 * output; reduce_scatter: the input; all_to_all: what one rank sends in
 * all; broadcast, reduce: the buffer; send_recv: the message). */
typedef enum sc_coll_op {
  SC_COLL_ALL_REDUCE = 0,
  SC_COLL_ALL_GATHER,
  SC_COLL_REDUCE_SCATTER,
  SC_COLL_ALL_TO_ALL,
  SC_COLL_BROADCAST,
  SC_COLL_REDUCE,
  SC_COLL_SEND_RECV,
  SC_COLL_OP_COUNT
} sc_coll_op;

/* The GPUs of one collective as NCCL's cost model sees them: `ranks`
 * GPUs, `ranks_per_node` of them in each NVLink domain. */
typedef struct sc_coll_group {
  int ranks;           /* participants, >= 1 */
  int ranks_per_node;  /* participants per NVLink domain, divides ranks */
  int arch;            /* GPU SM version (70, 80, 90, 100): NCCL's tables */
  double intra_bw;     /* NVLink per GPU per direction, bytes/s */
  double inter_bw;     /* scale-out NIC per GPU per direction, bytes/s */
  double intra_lat;    /* one NVLink hop, seconds */
  double inter_lat;    /* one network traversal, seconds */
  int node_gpus;       /* GPUs wired together in one node's NVLink fabric
                          (8 on DGX-1 and DGX A100, 16 on DGX-2); 0 =
                          unknown, taken as ranks_per_node */
  int host_gpus;       /* GPUs one host thread issues every collective for
                          (nccl-tests -g N in one process: N); 0 or 1 =
                          one GPU per process, as frameworks run. An op
                          costs at least host_gpus x (5.19 us + 0.31 us a
                          channel) (docs/network.md, "The host side") */
  int fabric;          /* sc_fabric of the network (0 = InfiniBand): its
                          efficiency, and its latency when inter_lat is 0 */
  int pcie;            /* 1 = the node's GPUs share no NVLink, only PCIe:
                          intra_bw is their slot's datasheet x16 rate per
                          direction (0 = Gen3), which NCCL runs at 12 GB/s x
                          rate / 15.75 GB/s (Gen4 x16: 24; docs/network.md) */
  int host_cpu;        /* sc_host_cpu of the servers (0 = the GPU's reference
                          server's): NCCL's tuner across nodes */
} sc_coll_group;

/* Cost of one collective as NCCL would run it. */
typedef struct sc_coll_cost {
  double time;         /* seconds */
  const char *algo;    /* static string: "ring", "tree", "nvls", ... */
  const char *proto;   /* static string: "LL", "LL128", "Simple" */
  double launch;       /* part of `time` that is the per-call overhead
                          nccl-tests sees around the kernel, seconds */
  int channels;        /* CTAs the kernel occupies on each GPU */
} sc_coll_cost;

/* Time of one collective of `bytes` over g with the algorithm and protocol
 * NCCL's tuner would choose (docs/network.md). ranks == 1 costs 0. An op
 * outside sc_coll_op, a NULL g, ranks < 1 or bytes < 0 give time -1. */
sc_coll_cost sc_coll_nccl_time(sc_coll_op op, double bytes, const sc_coll_group *g);

/* nccl-tests' bus-bandwidth factor of op over `ranks` ranks: busbw =
 * algbw * factor (all_reduce 2(n-1)/n, all_gather (n-1)/n, ...); 0 for
 * an op outside sc_coll_op or ranks < 1. */
double sc_coll_busbw_factor(sc_coll_op op, int ranks);

/* Name of an op ("all_reduce", ...; a static string), and the op of a
 * name (nccl-tests spellings such as "allreduce" too); -1 when unknown.
 * An op outside sc_coll_op is named "invalid". */
const char *sc_coll_op_name(sc_coll_op op);
int sc_coll_op_from_name(const char *name);

/* The algorithm plug-ins the flow engine can run (src/coll/, one file
 * each): how many there are, and the name (static string: "ring",
 * "tree", "rhd", "hier", "nvls", "direct", ...) and op of the i-th,
 * 0 <= i < count (NULL and -1 for any other i). */
int sc_coll_algo_count(void);
const char *sc_coll_algo_name(int i);
sc_coll_op sc_coll_algo_op(int i);

/* Index of the plug-in of op called name (NULL: the first one for op).
 * When there is none, returns -1 and sets err (if not NULL) to SC_EINPUT
 * with a message listing the valid names for op. */
int sc_coll_algo_find(sc_coll_op op, const char *name, sc_error *err);

/* ------------------------------------------------------------ topologies */

/* A cluster network: GPUs, NVSwitches, NICs and switches joined by
 * directed links (docs/network.md). Opaque; it owns its graph and, built
 * on first use by sc_coll_simulate, its table of routes (ECMP). */
typedef struct sc_topo sc_topo;

/* Load a topology from a generator spec ("fat_tree:hosts=64,radix=8",
 * "rail:nodes=2,gpus=8"; sc_topo_generators_help lists them) or from the
 * path of a .json file, and check it (connected, bandwidths > 0). On
 * success *out owns a new topology (free it with sc_topo_free); on error
 * *out is NULL and err names the file:line:column, the key path or the
 * generator key and what would be valid. Returns SC_OK, SC_EINPUT, SC_EIO
 * (unreadable file) or SC_ENOMEM. */
int sc_topo_load(const char *spec, sc_topo **out, sc_error *err);
/* Free t and everything it owns; NULL is allowed. */
void sc_topo_free(sc_topo *t);

/* Number of GPUs of t; rank i of sc_coll_simulate runs on the i-th. */
int sc_topo_gpus(const sc_topo *t);

/* SC_OK when the NVLink domains of t's first `ranks` GPUs hold `per` of
 * them (min(per, ranks)), as a job with `per` ranks per node or domain
 * assumes; GPUs on no NVSwitch are not judged. Else SC_EINPUT with err
 * naming `key` (the caller's name of per), the GPU, its NVSwitch and the
 * count. ranks <= sc_topo_gpus(t), 1 <= per. */
int sc_topo_domain_check(const sc_topo *t, int ranks, int per, const char *key, sc_error *err);

/* The bisection-style figure of t: every GPU i of the first half of its
 * GPUs and GPU i + n/2 send each other 1 GB at once, on the flow engine
 * with ECMP routes (as sc_coll_simulate); *Bps is the bandwidth each GPU
 * gets per direction, bytes/s (the GB over the time, path latency in it),
 * 0 with fewer than 2 GPUs. SC_OK, SC_EINPUT (no route) or SC_ENOMEM. */
int sc_topo_exchange(sc_topo *t, double *Bps, sc_error *err);

/* Human summary to out: counts per kind of node, links, bandwidth range. */
void sc_topo_describe(const sc_topo *t, FILE *out);

/* Check t again: SC_OK, or SC_EINPUT with err naming the element at fault
 * (sc_topo_load has already done this). Asymmetric links (a->b without
 * b->a, or a different bandwidth back) are not errors: they are written to
 * warn (warn_size bytes, one per line; "" when none; may be NULL). */
int sc_topo_check(const sc_topo *t, sc_error *err, char *warn, size_t warn_size);

/* Graphviz DOT of t to out; a duplex pair of equal bandwidth is one edge. */
void sc_topo_write_dot(const sc_topo *t, FILE *out);

/* One line per topology generator to out: its name, keys and defaults
 * (bw, nvlink: GB/s per direction; nic: Gb/s; lat: microseconds). */
void sc_topo_generators_help(FILE *out);

/* Topology generator i (0-based): its name ("rail"), its keys with their
 * defaults ("nodes=4 gpus=8 nvlink=300 ...") and what it builds (static
 * strings); 0, or -1 past the last. */
int sc_topo_generator(int i, const char **name, const char **keys, const char **what);

/* --------------------------------------------- collectives on a topology */

/* Progress of a long run: done_fraction (0..1) of the schedule's transfers
 * simulated so far, reported after every event of the flow engine. The
 * callback decides how often to show it and must not call the library. */
typedef void (*sc_progress_fn)(void *ud, double done_fraction);

/* Run one collective through the flow engine: plug-in `algo` of op (NULL:
 * the first for op) builds the schedule of `bytes` (nccl-tests size) over
 * `ranks` ranks, `ranks_per_node` per node (hierarchical algorithms;
 * divides ranks), `chunks` pipelining chunks (broadcast, reduce; >= 1),
 * root rank 0; rank i runs on the i-th GPU of t. Link bandwidth is shared
 * max-min fairly. fn (may be NULL) gets progress with ud.
 * On success *seconds is the simulated time of the collective. Errors:
 * SC_EINPUT for an unknown algorithm (the message lists the valid ones),
 * more ranks than t has GPUs, bad counts or a transfer with no route;
 * SC_ENOMEM. The routes found are kept in t for later runs, so t is not
 * const; do not run two collectives on one t at the same time. */
int sc_coll_simulate(sc_topo *t, sc_coll_op op, const char *algo, double bytes, int ranks,
                     int ranks_per_node, int chunks, sc_progress_fn fn, void *ud,
                     double *seconds, sc_error *err);

/* Run one collective as NCCL would on t: the schedule of its algorithm
 * (rings one per GPU of a node on their own NIC rails, all peers at once
 * for all-to-all, ...) through the flow engine on t and on the reference
 * fabric the closed form assumes for g (non-blocking rails, g's NVLink
 * and NIC bandwidths); NCCL's closed-form time for g with its bandwidth
 * part scaled by their ratio (docs/network.md): the part its links hold;
 * where the GPU's memory holds NCCL's kernels (A100), no network makes it
 * shorter than the closed form with the memory alone. Rank i runs on the
 * i-th GPU of t. *seconds is that time, *flow_s (may be NULL) the flow
 * engine's own seconds on t. Errors as sc_coll_simulate's. */
int sc_coll_simulate_nccl(sc_topo *t, sc_coll_op op, double bytes, const sc_coll_group *g,
                          sc_progress_fn fn, void *ud, double *seconds, double *flow_s,
                          sc_error *err);

/* ---------------------------------------------- a collective over sizes */

/* What `stepcast collective` runs: one collective at sizes min_bytes,
 * min_bytes * factor, ... up to max_bytes, with NCCL's model and, when
 * `topo` is set, the flow engine on that topology. */
typedef struct sc_coll_sweep_opts {
  sc_coll_op op;
  int ranks;             /* 1..16777216 */
  int ranks_per_node;    /* divides ranks */
  int arch;              /* GPU SM version: NCCL's tables */
  double nvlink_GBps;    /* NVLink per GPU per direction, GB/s */
  double nic_Gbps;       /* NIC per GPU per direction, Gb/s */
  double min_bytes, max_bytes;  /* nccl-tests sizes, bytes */
  double factor;         /* > 1 */
  char topo[256];        /* topology spec or file ("" = NCCL model only) */
  char algo[32];         /* flow-engine plug-in ("" = the first for op) */
  int gpus_per_thread;   /* GPUs one benchmark thread drives, 1..1024
                            (nccl-tests -g; 1 = one GPU per process) */
  int fabric;            /* sc_fabric of the network (0 = InfiniBand) */
  int pcie;              /* 1 = no NVLink: nvlink_GBps is the GPUs' PCIe slot
                            rate (sc_coll_group.pcie) */
  int host_cpu;          /* sc_host_cpu of the servers (0 = the GPU's reference
                            server's: sc_coll_group.host_cpu) */
} sc_coll_sweep_opts;

/* One size of a sweep. */
typedef struct sc_coll_point {
  double bytes;
  sc_coll_cost nccl;     /* NCCL's model */
  double algbw, busbw;   /* of the model, bytes/s (nccl-tests' definitions) */
  double flow_s;         /* flow engine, seconds; < 0 without a topology.
                            With an algo: that schedule's flow time, no
                            shorter than the GPU's memory lets NCCL's
                            kernels move the op (A100; docs/network.md) */
  double flow_busbw;     /* flow engine bus bandwidth, bytes/s (0 without) */
} sc_coll_point;

typedef struct sc_coll_sweep {
  sc_coll_sweep_opts opts;  /* as run */
  sc_coll_point *points;    /* owned: n points, smallest first */
  int n;
} sc_coll_sweep;

/* All-reduce over 8 ranks of one DGX A100, 1 KiB to 1 GiB by 2. */
void sc_coll_sweep_default(sc_coll_sweep_opts *o);

/* Run the sweep o into *out (free it with sc_coll_sweep_free). fn (may be
 * NULL) gets the flow engine's progress with ud. SC_OK, SC_EINPUT (a bad
 * option, named, or more than 100,000 sizes), SC_EIO (topology file) or
 * SC_ENOMEM; on error out holds nothing. */
int sc_coll_sweep_run(const sc_coll_sweep_opts *o, sc_progress_fn fn, void *ud,
                      sc_coll_sweep *out, sc_error *err);
void sc_coll_sweep_free(sc_coll_sweep *s);

/* ------------------------------------------------------------ validation */

/* Predictions of published measurements (data/validation, format in its
 * README): a training set (one measured transformer configuration a row,
 * seconds per step; header has `measured_iter_s`), a collective set (one nccl-tests measurement a row,
 * microseconds; `measured_time_us`), or a set of models stepcast cannot
 * build yet (CNN and BERT data-parallel sets, recommendation models:
 * `measured_iter_s` with a `model_variant` column, or `measured_iter_ms`): its rows are
 * counted and listed as skipped, "not supported yet", never hidden. */
typedef enum sc_validation_kind {
  SC_VALIDATION_TRAINING = 0,
  SC_VALIDATION_COLLECTIVE,
  SC_VALIDATION_UNSUPPORTED,
  SC_VALIDATION_DP,         /* data-parallel CNN/BERT runs over a scheme
                               (`measured_iter_s` with `scheme`; issue 9):
                               seconds per step, async rows a worker's step */
  SC_VALIDATION_RECSYS      /* recommendation models (`measured_iter_ms` + `tables`):
                               times in seconds, rows grouped by sharding */
} sc_validation_kind;

/* One row of a set. */
typedef struct sc_validation_row {
  char id[64];          /* the row's id column */
  double measured;      /* s per step (training) or us (collective) */
  double predicted;     /* same unit; < 0 when skipped */
  double ape;           /* |predicted - measured| / measured */
  double bytes;         /* collective message size, bytes; 0 for training */
  char skipped[192];    /* why the row was not predicted; "" when it was */
  char assumed[256];    /* what the prediction assumed for a blank cell the
                           row's framework does not decide (e.g. the NIC of
                           the GPU's reference system); "" if nothing */
  sc_breakdown time;    /* training: where the predicted time goes */
  double mfu;           /* training: predicted MFU */
  char family[12];      /* dp sets: the row's scheme family */
  double unc_x;         /* dp sets: |error| in samples/s over the row's
                           measured_uncertainty; -1 when none is given */
  char group[32];       /* recsys: the row's sharding kind; "" otherwise */
  int fit;              /* training: 1 = the memory model says the row's plan
                           fits, -1 = it says it does not (every row ran, so
                           that is a false verdict), 0 = no verdict (not a
                           predicted training row) */
  double mem_total;     /* training: predicted memory of the fullest GPU
                           (sc_memory.total), bytes; 0 without a verdict */
  double mem_capacity;  /* ... and that GPU's memory, bytes */
} sc_validation_row;

/* One set: its rows and the summary of their errors (fractions). */
typedef struct sc_validation {
  char path[512];       /* the CSV, as given */
  sc_validation_kind kind;
  sc_validation_row *rows;  /* owned: n rows (cap allocated) */
  int n, cap;
  int predicted, skipped, within_10pct;  /* rows of each kind */
  double mape, median_ape, max_ape;      /* over predicted rows */
  double mape_small, mape_large;  /* collectives: below 1 MiB, from 1 MiB */
  char in_sample[1024]; /* what was fitted to this set (its figure is then
                           not an independent check), "" when nothing */
  int n_small, n_large;           /* rows in each of those */
  double seconds;       /* wall time spent predicting (reported only with
                           SC_REPORT_TIMINGS: outputs are deterministic) */
  char note[640];       /* dp sets: MAPE per scheme family, the ranking of
                           schemes within groups, the error in units of the
                           reading uncertainty; "" otherwise */
  int rank_pairs;       /* dp sets: scheme pairs compared */
  double rank_right;    /* ... of them ordered right (a predicted tie: 1/2) */
  double scaling_err;   /* dp sets: mean |error| of the scaling efficiency
                           against the one-GPU row (fraction) ... */
  int scaling_rows;     /* ... over this many multi-GPU rows (0: none) */
  int no_fit;           /* training: predicted rows the memory model says do
                           not fit (rows with fit -1: false verdicts) */
} sc_validation;

/* Predict every row of the CSV at path. On success fills *out (release it
 * with sc_validation_free) and returns SC_OK; a row the model cannot
 * handle is kept, skipped, with the reason. On error out owns nothing and
 * the return is SC_EIO (unreadable) or SC_EINPUT with file:line and the
 * column of a malformed row, or SC_ENOMEM; on failure out holds nothing
 * to free. */
int sc_validate_file(const char *path, sc_validation *out, sc_error *err);
/* sc_validate_file with the training rows predicted by the event engine
 * (event != 0: sc_predict_event) instead of the closed form. */
int sc_validate_file_engine(const char *path, int event, sc_validation *out, sc_error *err);
/* The scenario stepcast predicts for the training row `id` of the CSV at
 * path (its blank cells filled as docs/accuracy.md says), unresolved.
 * SC_OK, SC_EIO, SC_EINPUT (no such row, a malformed row) or SC_EMODEL
 * (a row stepcast cannot model, e.g. an unknown GPU). */
int sc_validate_row_scenario(const char *path, const char *id, sc_scenario *out, sc_error *err);
/* sc_validate_row_scenario with what the prediction assumed for the row
 * (the `assumed` text of its sc_validation_row, "" if nothing) into
 * assumed[0..n) (NUL-terminated, cut to fit); assumed may be NULL. */
int sc_validate_row_scenario_assumed(const char *path, const char *id, sc_scenario *out,
                                     char *assumed, size_t n, sc_error *err);

/* Free the rows of v (not v itself); v is left empty. */
void sc_validation_free(sc_validation *v);

/* --------------------------------------------------------------- reports */

/* Output formats: an aligned table for people, JSON and CSV for programs.
 * Every report is deterministic (fixed formats, fixed order) and is
 * written to a FILE the caller owns; docs/output.md describes each. */
typedef enum sc_format { SC_FORMAT_TABLE = 0, SC_FORMAT_JSON, SC_FORMAT_CSV } sc_format;

/* The format called "table", "json" or "csv"; -1 when unknown. */
int sc_format_from_name(const char *name);

/* The "did you mean" the loaders print: the name of cands[0..n) closest
 * to a misspelt `word` (a prefix of one, else the least edit distance
 * within a limit growing with word's length), or NULL when none is close.
 * The result points into cands. */
const char *sc_name_suggest(const char *word, const char *const *cands, size_t n);

/* A prediction of s (sc_predict's r). train_tokens > 0 adds the days
 * needed to train on that many tokens. */
void sc_report_prediction(FILE *out, sc_format fmt, const sc_scenario *s,
                          const sc_result *r, double train_tokens);

/* Data-parallel scheme predictions (sc_dp_predict, sc_dp_compare) of s,
 * one row each in the order given (docs/output.md). */
void sc_report_dp(FILE *out, sc_format fmt, const sc_scenario *s, const sc_dp_result *r, int n);

/* sc_report_prediction with the n_ops operators of one layer
 * (sc_explain_layer; ops NULL: none) in the same document: JSON adds a
 * "layer_ops" array to the prediction's object, CSV gives one table with a
 * row per operator (the prediction's columns repeated, then op_*), the
 * table format appends the operators' table. */
void sc_report_prediction_ops(FILE *out, sc_format fmt, const sc_scenario *s,
                              const sc_result *r, double train_tokens,
                              const sc_op_time *ops, int n_ops);
/* ... and the step by operator kind (sc_explain_kinds; kinds NULL: none):
 * JSON adds an "op_kinds" array, the table format a second table; CSV
 * leaves them out (its rows are one layer's operators). */
void sc_report_prediction_kinds(FILE *out, sc_format fmt, const sc_scenario *s,
                                const sc_result *r, double train_tokens,
                                const sc_op_time *ops, int n_ops,
                                const sc_op_time *kinds, int n_kinds);

/* The n operators of one layer (sc_explain_layer) on their own. */
void sc_report_layer_ops(FILE *out, sc_format fmt, const sc_op_time *ops, int n);

/* The n plans c of a search of s (sc_search), fastest first, with st. */
void sc_report_search(FILE *out, sc_format fmt, const sc_scenario *s,
                      const sc_candidate *c, int n, const sc_search_stats *st);

/* A step's timeline (sc_timeline's n spans) as Chrome trace JSON
 * (chrome://tracing, Perfetto): one process per pipeline stage, a compute
 * and a communication thread, times in microseconds. */
void sc_report_trace(FILE *out, const sc_scenario *s, const sc_span *spans, size_t n);
/* The same, covering the step a prediction reports (step_s, seconds;
 * sc_predict's): otherData carries "step_s" and the layout's end
 * ("layout_s"), and where the layout ends first a span "rest of the
 * predicted step" (cat "remainder") fills the rest on the compute thread
 * of the stage that ends it. step_s 0: sc_report_trace. */
void sc_report_trace_step(FILE *out, const sc_scenario *s, const sc_span *spans, size_t n,
                          double step_s);

/* The prediction r (from sc_predict_event) with the critical path (table:
 * one line per task with its seconds and share of the step; JSON: the
 * prediction's fields plus "engine", "closed_form_step_s" and
 * "critical_path"; CSV: the critical path). */
void sc_report_event(FILE *out, sc_format fmt, const sc_scenario *s, const sc_result *r,
                     const sc_event_pred *p);

/* The run as Chrome trace JSON (Perfetto): a process per rank class
 * (stage, replica), a thread per stream, named; the critical path in the
 * metadata. Needs sc_event_opts.trace. */
void sc_report_event_trace(FILE *out, const sc_scenario *s, const sc_event_pred *p);

/* Flags of sc_report_validation: SC_REPORT_ROWS lists each set's rows in
 * the table (JSON and CSV always list them); SC_REPORT_TIMINGS adds the
 * wall time of each set (JSON `seconds`), which makes the output differ
 * from run to run. */
#define SC_REPORT_ROWS 1u
#define SC_REPORT_TIMINGS 2u

/* A collective sweep (sc_coll_sweep_run): table, JSON {"op", "ranks",
 * "rows": [...]} or CSV, a row per size (docs/output.md). */
void sc_report_collective(FILE *out, sc_format fmt, const sc_coll_sweep *s);

/* The GPU, model and cluster presets (`stepcast presets`); CSV is one
 * table with a `kind` column (gpu, model, cluster). */
void sc_report_presets(FILE *out, sc_format fmt);

/* The summary of topology t (sc_topo_describe) in fmt; JSON and CSV give
 * node counts per kind, links and the bandwidth and latency ranges, and
 * `warnings` (may be NULL: not checked) the lines of sc_topo_check. */
void sc_report_topo(FILE *out, sc_format fmt, const sc_topo *t, const char *warnings);
/* sc_report_topo with the bandwidth per GPU of sc_topo_exchange (bytes/s;
 * < 0: not measured, nothing printed). */
void sc_report_topo_ex(FILE *out, sc_format fmt, const sc_topo *t, const char *warnings,
                       double exchange_Bps);

/* The generators in fmt (`stepcast topo --list`): the table of
 * sc_topo_generators_help under a line of units; JSON {"generators":
 * [{"name", "keys": [{"key", "default", "unit"}], "description"}]} (unit
 * "GB/s" or "Gb/s" per direction, "us", or "" for a count or ratio); CSV
 * name,keys,description (the keys as the table writes them). */
void sc_report_topo_generators(FILE *out, sc_format fmt);

/* n validated sets: the rows (see flags), then the summary per set. */
void sc_report_validation(FILE *out, sc_format fmt, const sc_validation *sets, int n,
                          unsigned flags);

/* ------------------------------------------------------- HTML reports */

/* Self-contained HTML pages (one file, inline SVG charts, no script, no
 * network; docs/report.md), deterministic like every report. */

/* A prediction: summary, the step's time breakdown, the pipeline timeline
 * (sc_timeline's n_spans spans; none when NULL), and memory per GPU by
 * kind against capacity. */
void sc_html_prediction(FILE *out, const sc_scenario *s, const sc_result *r,
                        const sc_span *spans, size_t n_spans);
/* sc_html_prediction with the time to train on train_tokens tokens in the
 * summary (predict --html with --train-tokens; 0: none, as above). */
void sc_html_prediction_ex(FILE *out, const sc_scenario *s, const sc_result *r,
                           const sc_span *spans, size_t n_spans, double train_tokens);
/* A search: the n plans as step time against memory per GPU, their
 * Pareto front, and plans[chosen] marked (chosen < 0: none). */
void sc_html_search(FILE *out, const sc_scenario *s, const sc_candidate *plans, int n,
                    int chosen, const sc_search_stats *st);
/* The same with the memory a plan may use under a search's headroom
 * (`limit`, bytes per GPU: the capacity less the headroom) drawn as a
 * second line below the capacity and said in the summary; limit 0 (or
 * not below the capacity): none, as sc_html_search. */
void sc_html_search_ex(FILE *out, const sc_scenario *s, const sc_candidate *plans, int n,
                       int chosen, const sc_search_stats *st, double limit);
/* The plan space of a search of s under o as sc_html_search draws it:
 * the fastest 1,000 plans, fitting or not, by the closed form (o's
 * require_fit and rerank are set aside), with chosen (NULL: none; the
 * plan the search chose) marked where it is among them: what `stepcast
 * search --html` writes. Runs that search: SC_OK, or sc_search's codes
 * (nothing written). */
int sc_html_search_space(FILE *out, const sc_scenario *s, const sc_search_opts *o,
                         const sc_candidate *chosen, sc_error *err);
/* Validated sets: the summary table, and per set with predictions a
 * predicted-against-measured scatter with the 10 % and 25 % error bands. */
void sc_html_validation(FILE *out, const sc_validation *sets, int n);
/* A collective sweep: the bus bandwidth against the size, NCCL's model and
 * (with a topology) the flow engine. */
void sc_html_collective(FILE *out, const sc_coll_sweep *sw);

/* ------------------------------------------------- text in, text out */

/* For language bindings (the Python module, docs/python.md): each entry
 * takes a scenario as a file `path` or as JSON `json` text (at most one;
 * neither = the built-in default), key-path overrides as sc_scenario_load
 * does, and on success sets *out to a malloc'd, NUL-terminated JSON
 * document -- byte for byte what the command prints with --format json --
 * that the caller frees with sc_free. On error *out is NULL and err says
 * why (the code as elsewhere: SC_EINPUT, SC_EIO, SC_ENOMEM, SC_EMODEL). */

/* `stepcast predict --format json` (ops: with `--ops`; train_tokens > 0:
 * with `--train-tokens`). */
int sc_predict_json(const char *path, const char *json, const char *const *overrides,
                    size_t n_overrides, int ops, double train_tokens, char **out,
                    sc_error *err);
/* What `stepcast predict` adds to its document and writes beside it (all
 * zero: the closed form's document alone, as sc_predict_json without ops
 * or train_tokens). */
typedef struct sc_predict_json_opts {
  int ops;               /* 1 = --ops: the operators of one layer, the step by kind */
  double train_tokens;   /* --train-tokens: the days to train on this many tokens,
                            1..1e18 [0: none] */
  int event;             /* 1 = --engine event: the event engine's document, with its
                            critical path (not with ops, train_tokens or html) */
  const char *trace;     /* --trace: a file for the step's Chrome trace (Perfetto), of
                            the engine chosen [NULL: none] */
  const char *html;      /* --html: a file for the HTML report (closed form) [NULL] */
} sc_predict_json_opts;

/* `stepcast predict --format json` with the options o (NULL: none): the
 * document into *out, the files o names written after it. A data-parallel
 * scenario (dp.scheme) gives the document of its scheme and takes a trace,
 * not ops, html or the event engine. SC_EINPUT for a combination the
 * command refuses, naming the options, or a file named "-" (standard
 * output is the command's); SC_EIO when a file cannot be written ("trace:
 * cannot write PATH (reason)"; *out is then NULL); as sc_predict_json else. */
int sc_predict_json_ex(const char *path, const char *json, const char *const *overrides,
                       size_t n_overrides, const sc_predict_json_opts *o, char **out,
                       sc_error *err);
/* `stepcast search --format json`: the `top` (1..100000) fastest plans. */
int sc_search_json(const char *path, const char *json, const char *const *overrides,
                   size_t n_overrides, const sc_search_opts *opts, int top, char **out,
                   sc_error *err);
/* sc_search_json, and when html is not NULL the plan space as an HTML
 * page written to that file after the document (sc_html_search_space,
 * the first plan marked), as `stepcast search --html FILE`: "-" is
 * SC_EINPUT (standard output is the command's); SC_EIO "html: cannot
 * write PATH (reason)", *out NULL, when it cannot be written. */
int sc_search_json_ex(const char *path, const char *json, const char *const *overrides,
                      size_t n_overrides, const sc_search_opts *opts, int top, const char *html,
                      char **out, sc_error *err);
/* sc_search_json_ex on searcher s's threads (sc_searcher_search; s NULL:
 * sc_search_json_ex itself): a program that searches many times (the
 * Python module's Searcher) keeps one. */
int sc_searcher_search_json(sc_searcher *s, const char *path, const char *json,
                            const char *const *overrides, size_t n_overrides,
                            const sc_search_opts *opts, int top, const char *html, char **out,
                            sc_error *err);
/* `stepcast validate --format json` of the n CSVs at paths, set i called
 * names[i] in the report (names NULL, or names[i] NULL: paths[i]; the
 * command names its shipped sets "validation/KIND/FILE.csv"). */
int sc_validate_json(const char *const *paths, const char *const *names, size_t n, char **out,
                     sc_error *err);
/* What `stepcast validate` adds: its options as sc_validate_json_ex
 * takes them (all zero: sc_validate_json). */
typedef struct sc_validate_json_opts {
  int event;             /* 1 = --engine event: training rows predicted by the event
                            engine (sc_validate_file_engine) */
  int timings;           /* 1 = --timings: each set's wall time, "seconds" (differs run
                            to run) */
  const char *html;      /* --html: a file for the HTML report [NULL: none; not "-"] */
} sc_validate_json_opts;

/* sc_validate_json with the options o (NULL: none); the HTML report is
 * written after the document (SC_EIO "html: cannot write PATH (reason)",
 * *out NULL, when it cannot be). */
int sc_validate_json_ex(const char *const *paths, const char *const *names, size_t n,
                        const sc_validate_json_opts *o, char **out, sc_error *err);
/* `stepcast validate --row ID FILE.csv [--engine event] [--ops] --format
 * json`: the document `predict` prints for the scenario row `id` of the
 * training set at path gives (sc_validate_row_scenario), by the closed
 * form with the operators of one layer when ops, or by the event engine
 * when event (not both: SC_EINPUT); a data-parallel row gives its
 * scheme's document. Codes as sc_validate_row_scenario and sc_predict. */
int sc_validate_row_json(const char *path, const char *id, int event, int ops, char **out,
                         sc_error *err);
/* `stepcast dp --format json`: every data-parallel scheme that applies to
 * the scenario's job, fastest first (the scenario's plan degrees are not
 * checked, as `stepcast dp`; neither path nor json: sc_dp_default_scenario). */
int sc_dp_json(const char *path, const char *json, const char *const *overrides,
               size_t n_overrides, char **out, sc_error *err);
/* `stepcast collective --format json` of the sweep o. */
int sc_collective_json(const sc_coll_sweep_opts *o, char **out, sc_error *err);
/* `stepcast presets --format json` (sc_report_presets) into *out
 * (malloc'd; sc_free): SC_OK, or SC_ENOMEM with *out NULL. */
int sc_presets_json(char **out, sc_error *err);
/* sc_collective_json, and when html is not NULL the page of `stepcast
 * collective --html FILE` (sc_html_collective) written to that file after
 * the document ("-" is SC_EINPUT; SC_EIO "html: cannot write PATH
 * (reason)", *out NULL, when it cannot be written). */
int sc_collective_json_ex(const sc_coll_sweep_opts *o, const char *html, char **out,
                          sc_error *err);
/* Free what the *_json entries return (NULL is allowed). */
void sc_free(void *p);

/* ---------------------------------------------------------------- traces */

/* A profiled job (docs/trace.md): one PyTorch profiler (Kineto) trace
 * per rank, replayed to predict its step and asked what-if questions.
 * Opaque; it owns what it loaded. */
typedef struct sc_trace sc_trace;

/* Load the n trace files of one job (one file per rank): PyTorch
 * profiler (Kineto) JSON, plain or gzip, or Chakra protobuf ETs. fn (may
 * be NULL) gets progress with ud after each file. On
 * success *out owns a new trace (sc_trace_close it); on error *out is
 * NULL and err names the file and the line:column or key path at fault
 * (traceEvents[12].dur) and what was expected. Returns SC_OK, SC_EIO,
 * SC_EINPUT or SC_ENOMEM. A PyTorch execution trace (JSON) is joined
 * with the Kineto trace of the same process (pid), which must be among
 * the files; alone it is refused with a message saying so. */
int sc_trace_load(const char *const *paths, int n, sc_progress_fn fn, void *ud, sc_trace **out,
                  sc_error *err);
/* Free t; NULL is allowed. */
void sc_trace_close(sc_trace *t);

/* Warnings of the load and of the last replay, one per line ("" none). */
const char *sc_trace_warnings(const sc_trace *t);

/* What was loaded. */
typedef struct sc_trace_info {
  int ranks;             /* files */
  int steps;             /* complete ProfilerSteps on rank 0 */
  char gpu[64];          /* device name of rank 0 ("" unknown) */
  int arch;              /* SM version (70, 80, ...); 0 not NVIDIA or unknown */
  int amd;               /* ROCm trace */
  int world;             /* world size the trace states (0 unknown) */
  long kernels, copies, collectives, host_calls;  /* over all ranks */
  int chakra;            /* Chakra ETs: kernels = GPU compute nodes, host_calls
                            = CPU compute nodes, collectives = communication nodes */
  long et_comp, et_comm_coll;  /* Chakra COMP_NODE and COMM_COLL_NODE counts */
  long et_ops, et_matched;     /* PyTorch execution traces joined with their Kineto
                                  traces: operators, and those found in Kineto */
} sc_trace_info;
void sc_trace_info_get(const sc_trace *t, sc_trace_info *out);

/* A what-if: how the replayed job differs from the traced one. The
 * default (sc_trace_whatif_default) is the job as traced. */
typedef struct sc_trace_whatif {
  double dp_scale;       /* data-parallel degree x this (2 = twice the nodes);
                            collectives over the whole world grow with it */
  const char *gpu;       /* GPU preset to run on (sc_gpu_preset); NULL = traced */
  int comm_model;        /* 1: collectives take the network model's time;
                            0: their measured time (scaled by the model's
                            ratio when the network or group changes) */
  int overlap;           /* 1: as traced; 0: no two GPU operations of a
                            rank overlap (communication serialised) */
  double nvlink_bw;      /* NVLink per GPU per direction, bytes/s; 0 = the GPU's */
  double nic_bw;         /* scale-out NIC per GPU per direction, bytes/s; 0 = 25e9 */
  int ranks_per_node;    /* GPUs per NVLink domain; 0 = 8 */
} sc_trace_whatif;
void sc_trace_whatif_default(sc_trace_whatif *w);

/* Parts of the critical path of a step, seconds (mean over steps and ranks). */
typedef struct sc_trace_path {
  double kernels;        /* computation kernels */
  double copies;         /* memory copies and sets */
  double comm;           /* collectives (their time on the GPU) */
  double host;           /* host work and launch latency between GPU work */
  double sync;           /* synchronising calls' own time */
  const char *bound;     /* static: the largest part ("kernels", "copies",
                            "communication", "host", "synchronisation") */
} sc_trace_path;

/* A replay. */
typedef struct sc_trace_result {
  int steps;             /* steps measured (over all ranks) */
  double measured_step_s;   /* mean traced ProfilerStep; 0 when none */
  double predicted_step_s;  /* mean replayed ProfilerStep; 0 when none */
  double span_s;         /* replayed time from first to last event (rank 0) */
  double gpu_busy_s;     /* time per step some GPU operation runs (any
                            stream), mean over steps and ranks */
  sc_trace_path path;
  double comm_measured_s;   /* collectives per step as traced (rank 0) */
  double comm_predicted_s;  /* the same in this replay */
  int comm_retimed;      /* collectives whose time the network model set or scaled */
  int comm_unsized;      /* collectives with no message size (kept as measured) */
  int coupled;           /* collectives joined across ranks */
  int kernels_scaled;    /* kernels scaled to another GPU */
} sc_trace_result;

/* Replay t under w (NULL: as traced) into r. SC_OK, SC_EINPUT (unknown
 * GPU preset, bad what-if value, with what is valid), SC_EMODEL (a trace
 * with no GPU work) or SC_ENOMEM. */
int sc_trace_replay(sc_trace *t, const sc_trace_whatif *w, sc_trace_result *r, sc_error *err);

/* The schedule of the last sc_trace_replay as Chrome trace JSON
 * (Perfetto): one process per rank, a thread per host thread and per
 * stream, times in microseconds. Nothing when there was no replay. */
void sc_trace_write_perfetto(const sc_trace *t, FILE *out);

/* The loaded graph of rank (0 .. ranks-1, in rank order) as a PyTorch
 * profiler (Kineto) trace that sc_trace_load reads back into the same
 * graph (docs/trace.md): what the replay uses, editable. SC_OK, or
 * SC_EINPUT for a rank out of range or a job of Chakra ETs (the ET is
 * the graph already). */
int sc_trace_write_graph(const sc_trace *t, int rank, FILE *out, sc_error *err);

/* The name of rank's file (0 .. ranks-1) when the graphs of a job of
 * `ranks` ranks are exported to path (`stepcast trace --export-graph
 * PATH`): path itself for one rank, else path with "-rankN" before its
 * ".json" (or at its end), into buf[0..n), NUL-terminated and cut to fit.
 * The length of the whole name, as snprintf (n or more: it was cut). */
int sc_trace_graph_name(const char *path, int rank, int ranks, char *buf, size_t n);

/* The replay of t as traced (base) and, when whatif is not NULL, under
 * w: table (what-if columns with the difference), JSON (one document,
 * "jobs": [...]) or CSV (a row as traced, one for the what-if). */
void sc_report_trace_replay(FILE *out, sc_format fmt, const sc_trace *t,
                            const sc_trace_result *base, const sc_trace_whatif *w,
                            const sc_trace_result *whatif);

/* `stepcast trace --format json` of the n files (sc_trace_load), with
 * the what-if w (NULL: none, as without what-if options) into *out
 * (sc_free it); perfetto (NULL: none) a file to write the replayed
 * schedule to, as --perfetto. Codes as sc_trace_load and sc_trace_replay,
 * SC_EIO when perfetto cannot be written. */
int sc_trace_json(const char *const *paths, int n, const sc_trace_whatif *w,
                  const char *perfetto, char **out, sc_error *err);

/* sc_trace_json, and into *warnings (sc_free it; NULL on error) the
 * load's and the replays' warnings, one per line ending in '\n' ("" for
 * none): what `stepcast trace` prints on standard error. */
int sc_trace_json_warn(const char *const *paths, int n, const sc_trace_whatif *w,
                       const char *perfetto, char **out, char **warnings, sc_error *err);

/* sc_trace_json_warn, and when graph is not NULL the loaded graph of
 * every rank written after the document (sc_trace_write_graph) to the
 * files sc_trace_graph_name names after graph, as `--export-graph`:
 * SC_EINPUT for a job of Chakra ETs or a name that is too long, SC_EIO
 * "trace: cannot write NAME (reason)"; on either *out and *warnings are
 * NULL. */
int sc_trace_json_ex(const char *const *paths, int n, const sc_trace_whatif *w,
                     const char *perfetto, const char *graph, char **out, char **warnings,
                     sc_error *err);

#if defined(__GNUC__)
#pragma GCC visibility pop
#endif

#ifdef __cplusplus
}
#endif
#endif /* STEPCAST_H */
