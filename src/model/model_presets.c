/*
 * model_presets.c -- the models stepcast knows by name.
 *
 * Every preset is a complete sc_model: head_dim, kv_heads and ffn are
 * written out even where they follow from hidden/heads, so that a caller
 * of sc_model_preset() sees final values without resolving. Each preset
 * names its source in the comment beside it. Ids are lowercase; lookup is
 * case-insensitive.
 *
 * Sources:
 *   [GPT3]  Brown et al. 2020, "Language Models are Few-Shot Learners",
 *           Table 2.1 (n_layers, d_model, n_heads, d_head); context 2048;
 *           the GPT-2 BPE vocabulary of 50257 tokens; GPT-2 architecture
 *           (learned positions, LayerNorm, GELU, biases, tied embeddings).
 *   [SC21]  Narayanan et al. SC'21, "Efficient Large-Scale Language Model
 *           Training on GPU Clusters Using Megatron-LM", Table 1; Megatron
 *           GPT: vocab 51200 (padded GPT-2 BPE), seq 2048, ffn 4h, tied.
 *   [L2]    Touvron et al. 2023, "Llama 2", Table 1 + HF config.json of
 *           meta-llama/Llama-2-{7b,13b,70b}-hf (intermediate_size,
 *           num_key_value_heads, vocab_size 32000); context 4096.
 *   [L3]    Llama Team 2024, "The Llama 3 Herd of Models", Table 3 + HF
 *           config.json of meta-llama/Meta-Llama-3{,.1}-{8B,70B,405B}:
 *           vocab 128256, 8 KV heads, pre-training context 8192 (3.1's
 *           128K comes from continued training, not the main run).
 *   [MPT]   mosaicml/llm-foundry scripts/train/yamls/pretrain/mpt-*.yaml:
 *           d_model, n_heads, n_layers, expansion_ratio 4, max_seq_len
 *           2048, vocab_size 50368, ALiBi, no_bias, tied (MPT default),
 *           low-precision LayerNorm, GELU.
 *   [MIX]   Jiang et al. 2024, "Mixtral of Experts", Table 1 (dim 4096,
 *           32 layers, head_dim 128, 32 heads, 8 kv heads, hidden_dim
 *           14336, vocab 32000, 8 experts, top 2). The paper's context is
 *           32768; the preset trains at 4096 (override model.seq).
 *   [REF]   ../shared/reference/model_configs.csv and the files it cites
 *           (Megatron-MoE-ModelZoo yamls for Qwen3 and Mixtral 8x22B,
 *           torchtitan's llama4/__init__.py, HF config values quoted in
 *           TensorRT-LLM's Llama 4 test for Maverick's interleave step 2).
 *   [NEMO4] Nemotron-4 15B technical report (Parmar et al. 2024, Table 1)
 *           and Nemotron-4 340B technical report (NVIDIA 2024, Table 1):
 *           squared-ReLU MLP (relu here: the same GEMMs), LayerNorm, RoPE,
 *           GQA with 8 KV heads, no biases, untied embeddings, vocab
 *           256000, seq 4096; the shapes the DGX Cloud benchmark rows of
 *           ../shared/validation/training state.
 *   [DP]    ../shared/validation/MODELS.md, family A, and the papers and
 *           model definitions src/model/cnn.c names per architecture.
 *   [BERT]  Devlin et al. 2019, "BERT", Sec. 3 and A.2; google-research/
 *           bert run_pretraining.py (max_predictions_per_seq 20 at 128).
 *
 * Dropout rates (attention_dropout, hidden_dropout; 0 = none, no mask and
 * no kernel):
 *   [D-MEG] 0.1 and 0.1: Megatron's defaults, TransformerConfig
 *           hidden_dropout = attention_dropout = 0.1 (../shared/reference/
 *           megatron-lm/megatron/core/transformer/transformer_config.py,
 *           lines 188-192), the --hidden-dropout / --attention-dropout
 *           defaults (arguments.py builds them from that dataclass,
 *           ArgumentGroupFactory(TransformerConfig), line 2373). The GPT-3
 *           paper states no rate; GPT-1/GPT-2 trained with 0.1 (Radford et
 *           al. 2018, Sec. 4.1: "residual, embedding, and attention
 *           dropouts with a rate of 0.1").
 *   [D-ZOO] 0 and 0: Megatron-MoE-ModelZoo's training arguments
 *           --attention-dropout 0.0 --hidden-dropout 0.0 (../shared/
 *           reference/megatron-moe-modelzoo/model_configs/benchmarking/
 *           Mixtral-8x7B.yaml, Mixtral-8x22B.yaml, Qwen3-235B-A22B.yaml,
 *           Qwen3-30B-A3B.yaml, DeepSeek-V3.yaml).
 *   [D-LLAMA] 0 and 0, not in ../shared (our reading): Meta's reference
 *           model.py (meta-llama/llama, llama3, llama-models) has no
 *           dropout module, HF's config.json of the Llama 2/3/3.1 models
 *           states attention_dropout 0.0, and NeMo's LlamaConfig
 *           (nemo/collections/llm/gpt/model/llama.py) sets attention_dropout
 *           = hidden_dropout = 0.0; torchtitan's Llama 3/4 have no dropout.
 *   [D-MPT] 0 and 0, not in ../shared (our reading): llm-foundry's
 *           MPTConfig defaults (llmfoundry/models/mpt/configuration_mpt.py:
 *           resid_pdrop 0.0, emb_pdrop 0.0, attn_config attn_pdrop 0.0),
 *           which the pretrain yamls of [MPT] leave as they are.
 *   [D-NEMO4] 0 and 0, not in ../shared (our reading): the Nemotron-4
 *           15B report (Parmar et al. 2024, Sec. 2: "no bias terms,
 *           dropout rate of zero, and untied input-output embeddings");
 *           the 340B report builds on the same architecture.
 */
#include <stddef.h>
#include <strings.h>

#include "stepcast.h"

/* GPT-2-style dense transformer (GPT-3, Megatron): learned positions,
 * LayerNorm, GELU, biases, tied embeddings, MHA, ffn 4h, dropout 0.1. */
#define GPT(id, l, h, nh, hd, v)                                        \
  {.kind = SC_MODEL_TRANSFORMER, .name = id, .tf = {.layers = l, .hidden = h, .heads = nh, .kv_heads = nh,   \
   .head_dim = hd, .ffn = 4 * (h), .vocab = v, .seq = 2048,             \
   .experts = 0, .topk = 0, .act = SC_ACT_GELU,                         \
   .norm = SC_NORM_LAYERNORM, .pos = SC_POS_LEARNED,                    \
   .tied_embeddings = 1, .bias = 1,                                     \
   .attention_dropout = 0.1, .hidden_dropout = 0.1 /* [D-MEG] */}}

/* Llama-style: RoPE, RMSNorm, SwiGLU, no biases, untied embeddings, no
 * dropout. */
#define LLAMA(id, l, h, nh, kv, f, v, s)                                \
  {.kind = SC_MODEL_TRANSFORMER, .name = id, .tf = {.layers = l, .hidden = h, .heads = nh, .kv_heads = kv,   \
   .head_dim = (h) / (nh), .ffn = f, .vocab = v, .seq = s,              \
   .experts = 0, .topk = 0, .act = SC_ACT_SWIGLU,                       \
   .norm = SC_NORM_RMSNORM, .pos = SC_POS_ROPE,                         \
   .tied_embeddings = 0, .bias = 0,                                     \
   .attention_dropout = 0, .hidden_dropout = 0 /* [D-LLAMA] */}}

/* MPT: ALiBi, LayerNorm without bias, GELU, no biases, tied, ffn 4h, no
 * dropout. */
#define MPT(id, l, h, nh)                                               \
  {.kind = SC_MODEL_TRANSFORMER, .name = id, .tf = {.layers = l, .hidden = h, .heads = nh, .kv_heads = nh,   \
   .head_dim = (h) / (nh), .ffn = 4 * (h), .vocab = 50368, .seq = 2048, \
   .experts = 0, .topk = 0, .act = SC_ACT_GELU,                         \
   .norm = SC_NORM_LAYERNORM, .pos = SC_POS_ALIBI,                      \
   .tied_embeddings = 1, .bias = 0,                                     \
   .attention_dropout = 0, .hidden_dropout = 0 /* [D-MPT] */}}

/* A CNN of src/model/cnn.c at its input size. */
#define CNN(id, a, px) {.kind = SC_MODEL_CNN, .name = id, .cnn = {.arch = a, .image = px, .classes = 1000}}

/* BERT pre-training (src/model/bert.c): ffn 4h, 512 positions. */
#define BERT(id, l, h, nh, s, mlm)                                      \
  {.kind = SC_MODEL_BERT, .name = id, .bert = {.layers = l, .hidden = h, .heads = nh,  \
   .ffn = 4 * (h), .vocab = 30522, .positions = 512, .seq = s, .mlm_positions = mlm}}

static const sc_model model_presets[] = {
    /* GPT-3 family [GPT3] Table 2.1. */
    GPT("gpt3-125m", 12, 768, 12, 64, 50257),    /* Small */
    GPT("gpt3-350m", 24, 1024, 16, 64, 50257),   /* Medium */
    GPT("gpt3-760m", 24, 1536, 16, 96, 50257),   /* Large */
    /* XL: the table prints 24 heads of d_head 128 with d_model 2048; that
     * attention width (3072) would make 1.5B parameters, not 1.3B. 16
     * heads of 128 keep the width at d_model and the published total. */
    GPT("gpt3-1.3b", 24, 2048, 16, 128, 50257),
    GPT("gpt3-2.7b", 32, 2560, 32, 80, 50257),
    GPT("gpt3-6.7b", 32, 4096, 32, 128, 50257),
    /* 13B: the table prints d_model 5140, which 40 heads x 128 contradict;
     * 5120 = 40 x 128 is what the parameter count (12.9B) implies. */
    GPT("gpt3-13b", 40, 5120, 40, 128, 50257),
    GPT("gpt3-175b", 96, 12288, 96, 128, 50257),

    /* Megatron-LM GPT models [SC21] Table 1 (layers, hidden, heads). */
    GPT("megatron-1.7b", 24, 2304, 24, 96, 51200),
    GPT("megatron-3.6b", 30, 3072, 32, 96, 51200),
    GPT("megatron-7.5b", 36, 4096, 32, 128, 51200),
    GPT("megatron-18b", 40, 6144, 48, 128, 51200),
    GPT("megatron-39b", 48, 8192, 64, 128, 51200),
    GPT("megatron-76b", 60, 10240, 80, 128, 51200),
    GPT("megatron-145b", 80, 12288, 96, 128, 51200),
    GPT("megatron-310b", 96, 16384, 128, 128, 51200),
    GPT("megatron-530b", 105, 20480, 128, 160, 51200),
    GPT("megatron-1t", 128, 25600, 160, 160, 51200),

    /* Llama 2 [L2]: 7B and 13B are MHA, 70B uses GQA with 8 KV heads. */
    LLAMA("llama2-7b", 32, 4096, 32, 32, 11008, 32000, 4096),
    LLAMA("llama2-13b", 40, 5120, 40, 40, 13824, 32000, 4096),
    LLAMA("llama2-70b", 80, 8192, 64, 8, 28672, 32000, 4096),

    /* Llama 3 and 3.1 [L3]: same shapes; 405B was released as 3.1. */
    LLAMA("llama3-8b", 32, 4096, 32, 8, 14336, 128256, 8192),
    LLAMA("llama3-70b", 80, 8192, 64, 8, 28672, 128256, 8192),
    LLAMA("llama3-405b", 126, 16384, 128, 8, 53248, 128256, 8192),
    LLAMA("llama3.1-8b", 32, 4096, 32, 8, 14336, 128256, 8192),
    LLAMA("llama3.1-70b", 80, 8192, 64, 8, 28672, 128256, 8192),
    LLAMA("llama3.1-405b", 126, 16384, 128, 8, 53248, 128256, 8192),

    /* MPT [MPT]: one yaml per size. */
    MPT("mpt-125m", 12, 768, 12),
    MPT("mpt-350m", 24, 1024, 16),
    MPT("mpt-760m", 24, 1536, 12),
    MPT("mpt-1b", 24, 2048, 16),
    MPT("mpt-3b", 32, 2560, 20),
    MPT("mpt-7b", 32, 4096, 32),
    MPT("mpt-13b", 40, 5120, 40),
    MPT("mpt-30b", 48, 7168, 56),
    MPT("mpt-70b", 80, 8192, 64),

    /* Mixtral 8x7B [MIX]: Llama-style blocks with a top-2 of 8 MoE MLP;
     * ffn is the size of one expert. */
    {.kind = SC_MODEL_TRANSFORMER, .name = "mixtral-8x7b", .tf = {.layers = 32, .hidden = 4096, .heads = 32,
     .kv_heads = 8, .head_dim = 128, .ffn = 14336, .vocab = 32000,
     .seq = 4096, .experts = 8, .topk = 2, .act = SC_ACT_SWIGLU,
     .norm = SC_NORM_RMSNORM, .pos = SC_POS_ROPE, .tied_embeddings = 0,
     .bias = 0,
     .attention_dropout = 0, .hidden_dropout = 0 /* [D-ZOO] */}},
    /* Mixtral 8x22B [REF]: 56 layers, 6144, 48/8 heads, experts of 16384,
     * top-2 of 8; vocab 32000 (v0.1); trains at 4096 here. */
    {.kind = SC_MODEL_TRANSFORMER, .name = "mixtral-8x22b", .tf = {.layers = 56, .hidden = 6144,
     .heads = 48, .kv_heads = 8, .head_dim = 128, .ffn = 16384, .vocab = 32000, .seq = 4096,
     .experts = 8, .topk = 2, .act = SC_ACT_SWIGLU, .norm = SC_NORM_RMSNORM, .pos = SC_POS_ROPE,
     .tied_embeddings = 0, .bias = 0,
     .attention_dropout = 0, .hidden_dropout = 0 /* [D-ZOO] */}},
    /* Qwen3-235B-A22B [REF]: 94 layers, 4096, 64/4 heads of 128, 128
     * experts of 1536, top-8, every layer MoE; seq 4096 as the ModelZoo
     * benchmark runs it. (QK-layernorm left out: two small norms.) */
    {.kind = SC_MODEL_TRANSFORMER, .name = "qwen3-235b-a22b", .tf = {.layers = 94, .hidden = 4096,
     .heads = 64, .kv_heads = 4, .head_dim = 128, .ffn = 1536, .vocab = 151936, .seq = 4096,
     .experts = 128, .topk = 8, .act = SC_ACT_SWIGLU, .norm = SC_NORM_RMSNORM,
     .pos = SC_POS_ROPE, .tied_embeddings = 0, .bias = 0,
     .attention_dropout = 0, .hidden_dropout = 0 /* [D-ZOO] */}},
    /* Qwen3-30B-A3B [REF]: 48 layers, 2048, 32/4 heads of 128, 128 experts
     * of 768, top-8. */
    {.kind = SC_MODEL_TRANSFORMER, .name = "qwen3-30b-a3b", .tf = {.layers = 48, .hidden = 2048,
     .heads = 32, .kv_heads = 4, .head_dim = 128, .ffn = 768, .vocab = 151936, .seq = 4096,
     .experts = 128, .topk = 8, .act = SC_ACT_SWIGLU, .norm = SC_NORM_RMSNORM,
     .pos = SC_POS_ROPE, .tied_embeddings = 0, .bias = 0,
     .attention_dropout = 0, .hidden_dropout = 0 /* [D-ZOO] */}},
    /* Llama 4 Scout 17B-16E [REF]: 48 layers, 5120, 40/8 heads of 128, 16
     * routed experts of 8192, top-1, one shared expert, every layer MoE;
     * seq 8192 (NoPE layers counted as RoPE: the same GEMMs). */
    {.kind = SC_MODEL_TRANSFORMER, .name = "llama4-scout", .tf = {.layers = 48, .hidden = 5120,
     .heads = 40, .kv_heads = 8, .head_dim = 128, .ffn = 8192, .vocab = 202048, .seq = 8192,
     .experts = 16, .topk = 1, .act = SC_ACT_SWIGLU, .norm = SC_NORM_RMSNORM,
     .pos = SC_POS_ROPE, .tied_embeddings = 0, .bias = 0, .shared_experts = 1,
     .dense_ffn = 16384,
     .attention_dropout = 0, .hidden_dropout = 0 /* [D-LLAMA] */}},
    /* Llama 4 Maverick 17B-128E [REF]: as Scout with 128 routed experts on
     * every second layer (interleave step 2: layers 1, 3, ... MoE), dense
     * layers of 16384. */
    {.kind = SC_MODEL_TRANSFORMER, .name = "llama4-maverick", .tf = {.layers = 48,
     .hidden = 5120, .heads = 40, .kv_heads = 8, .head_dim = 128, .ffn = 8192, .vocab = 202048,
     .seq = 8192, .experts = 128, .topk = 1, .act = SC_ACT_SWIGLU, .norm = SC_NORM_RMSNORM,
     .pos = SC_POS_ROPE, .tied_embeddings = 0, .bias = 0, .shared_experts = 1, .moe_every = 2,
     .dense_ffn = 16384,
     .attention_dropout = 0, .hidden_dropout = 0 /* [D-LLAMA] */}},
    /* DeepSeek-V3 [REF] (inference/configs/config_671B.json): 61 layers of
     * 7168, MLA (128 heads, q latent 1536, kv latent 512, q/k heads 128 +
     * 64 RoPE, v 128), 3 dense layers of 18432, then 256 routed experts of
     * 2048 with top-8 and one shared expert; vocab 129280; pre-training
     * seq 4096. The multi-token-prediction module is left out (671B is
     * counted without it). */
    {.kind = SC_MODEL_TRANSFORMER, .name = "deepseek-v3", .tf = {.layers = 61, .hidden = 7168,
     .heads = 128, .kv_heads = 128, .head_dim = 128, .ffn = 2048, .vocab = 129280, .seq = 4096,
     .experts = 256, .topk = 8, .act = SC_ACT_SWIGLU, .norm = SC_NORM_RMSNORM,
     .pos = SC_POS_ROPE, .tied_embeddings = 0, .bias = 0, .dense_layers = 3, .dense_ffn = 18432,
     .shared_experts = 1, .q_lora_rank = 1536, .kv_lora_rank = 512, .rope_dim = 64,
     .v_head_dim = 128,
     .attention_dropout = 0, .hidden_dropout = 0 /* [D-ZOO] */}},
    /* Nemotron-4 [NEMO4]. */
    {.kind = SC_MODEL_TRANSFORMER, .name = "nemotron4-15b", .tf = {.layers = 32, .hidden = 6144,
     .heads = 48, .kv_heads = 8, .head_dim = 128, .ffn = 24576, .vocab = 256000, .seq = 4096,
     .experts = 0, .topk = 0, .act = SC_ACT_RELU, .norm = SC_NORM_LAYERNORM, .pos = SC_POS_ROPE,
     .tied_embeddings = 0, .bias = 0,
     .attention_dropout = 0, .hidden_dropout = 0 /* [D-NEMO4] */}},
    {.kind = SC_MODEL_TRANSFORMER, .name = "nemotron4-340b", .tf = {.layers = 96,
     .hidden = 18432, .heads = 96, .kv_heads = 8, .head_dim = 192, .ffn = 73728, .vocab = 256000,
     .seq = 4096, .experts = 0, .topk = 0, .act = SC_ACT_RELU, .norm = SC_NORM_LAYERNORM,
     .pos = SC_POS_ROPE, .tied_embeddings = 0, .bias = 0,
     .attention_dropout = 0, .hidden_dropout = 0 /* [D-NEMO4] */}},

    /* Data-parallel CNNs and BERT [DP]: the architectures of
     * ../shared/validation/MODELS.md (src/model/cnn.c, bert.c); ids are
     * the `model` and `model_variant` values of the dp_training sets.
     * "resnet50" is v1.5 (torchvision, NVIDIA, MLPerf). */
    CNN("resnet50", SC_CNN_RESNET50_V15, 224),
    CNN("resnet50_v1", SC_CNN_RESNET50_V1, 224),
    CNN("resnet50_v1.5", SC_CNN_RESNET50_V15, 224),
    CNN("resnet101", SC_CNN_RESNET101_V1, 224),
    CNN("resnet101_v1", SC_CNN_RESNET101_V1, 224),
    CNN("resnet152", SC_CNN_RESNET152_V1, 224),
    CNN("resnet152_v1", SC_CNN_RESNET152_V1, 224),
    CNN("vgg16", SC_CNN_VGG16, 224),
    CNN("inception_v3", SC_CNN_INCEPTION_V3, 299),
    CNN("alexnet", SC_CNN_ALEXNET, 227),
    CNN("alexnet_tfcnn", SC_CNN_ALEXNET, 227),
    /* BERT [BERT] Table/Sec. 3: base L12 H768 A12, large L24 H1024 A16,
     * WordPiece vocabulary 30522, 512 positions; seq 128 (phase 1, the
     * DLPerf rows) and 512 (phase 2, the MLPerf rows), with Google's
     * max_predictions_per_seq of 20 and 80 masked positions. */
    BERT("bert_base", 12, 768, 12, 128, 20),
    BERT("bert_large", 24, 1024, 16, 512, 80),
};

#define N_MODEL (sizeof model_presets / sizeof model_presets[0])

/* Look up a model preset by id, ignoring case. Returns a pointer to static
 * read-only storage, or NULL when name is NULL or unknown. */
const sc_model *sc_model_preset(const char *name) {
  if (!name) return NULL;
  for (size_t i = 0; i < N_MODEL; i++)
    if (strcasecmp(model_presets[i].name, name) == 0) return &model_presets[i];
  return NULL;
}

/* Number of model presets. */
size_t sc_model_preset_count(void) { return N_MODEL; }

/* The i-th model preset in table order, or NULL when i is out of range. */
const sc_model *sc_model_preset_at(size_t i) {
  return i < N_MODEL ? &model_presets[i] : NULL;
}
