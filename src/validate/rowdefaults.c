/*
 * rowdefaults.c -- see rowdefaults.h. Each rule says where it comes from.
 */
#include "hw/cluster_presets.h"
#include "validate/rowdefaults.h"
#include "plan/plan_attn.h"
#include "validate/rowtext.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

/* ------------------------------------------------------------ framework */

rowd_framework rowd_framework_of(const char *notes) {
  if (rowtext_has(notes, "maxtext")) return ROWD_FW_MAXTEXT;
  /* named, or named by options only it has: Transformer Engine's
   * userbuffers (ub_tp_comm_overlap), NeMo's distributed_fused_adam.
   * NeMo as a word: "Nemotron" names a model, not the framework. */
  if (rowtext_word(notes, "nemo") || rowtext_has(notes, "megatron-core") || rowtext_has(notes, "mcore") ||
      rowtext_has(notes, "transformer engine") || rowtext_has(notes, "ub_tp_comm_overlap") ||
      rowtext_has(notes, "distributed_fused_adam"))
    return ROWD_FW_MCORE;
  return ROWD_FW_UNKNOWN;
}

void rowd_plan_framework(rowd_framework fw, sc_plan *p) {
  if (fw == ROWD_FW_MCORE) p->framework = SC_FW_NEMO;
  else if (fw == ROWD_FW_MAXTEXT) p->framework = SC_FW_MAXTEXT;
  else if (p->zero < 3) p->framework = SC_FW_MEGATRON;
}

/* -------------------------------------------------------- architecture */

/* Lowercase letters, digits and dots of s into buf: "Llama-3.1-8B" ->
 * "llama3.18b". */
static void squash(const char *s, char *buf, size_t cap) {
  size_t n = 0;
  for (; *s && n + 1 < cap; s++)
    if (isalnum((unsigned char)*s) || *s == '.') buf[n++] = (char)tolower((unsigned char)*s);
  buf[n] = '\0';
}

/* The preset whose id, squashed, is the longest prefix of the squashed
 * model text (the part before a parenthesis). */
const sc_model *rowd_named_preset(const char *model) {
  char text[96], head[96], id[96];
  snprintf(head, sizeof head, "%.*s", (int)strcspn(model, "("), model);
  char *repo = strrchr(head, '/'); /* a Hugging Face id: "meta-llama/Llama-3.1-8B" */
  if (repo) memmove(head, repo + 1, strlen(repo));
  squash(head, text, sizeof text);
  const sc_model *best = NULL;
  size_t best_len = 0;
  for (size_t i = 0; i < sc_model_preset_count(); i++) {
    const sc_model *p = sc_model_preset_at(i);
    if (p->kind != SC_MODEL_TRANSFORMER) continue; /* rows of LLM training sets */
    squash(p->name, id, sizeof id);
    size_t n = strlen(id);
    if (n > best_len && !strncmp(text, id, n)) best = p, best_len = n;
  }
  return best;
}

static void note(char *why, size_t cap, const char *fmt, const char *arg) {
  if (!why) return;
  size_t n = strlen(why);
  if (n < cap) snprintf(why + n, cap - n, fmt, arg);
}

/* What the notes state about the architecture. */
static void stated(const char *notes, sc_transformer *m) {
  if (rowtext_has(notes, "swiglu") || rowtext_has(notes, "geglu")) m->act = SC_ACT_SWIGLU;
  else if (rowtext_has(notes, "relu")) m->act = SC_ACT_RELU; /* squared ReLU costs as ReLU */
  else if (rowtext_has(notes, "gelu")) m->act = SC_ACT_GELU;
  if (rowtext_has(notes, "rmsnorm")) m->norm = SC_NORM_RMSNORM;
  else if (rowtext_has(notes, "layernorm")) m->norm = SC_NORM_LAYERNORM;
  if (rowtext_has(notes, "rope") || rowtext_has(notes, "rotary")) m->pos = SC_POS_ROPE;
  else if (rowtext_has(notes, "alibi")) m->pos = SC_POS_ALIBI;
  else if (rowtext_has(notes, "learned position")) m->pos = SC_POS_LEARNED;
  if (rowtext_has(notes, "untied")) m->tied_embeddings = 0;
  else if (rowtext_has(notes, "tied embeddings")) m->tied_embeddings = 1;
  if (rowtext_has(notes, "no bias") || rowtext_has(notes, "no_bias") || rowtext_has(notes, "bias-free")) m->bias = 0;
  if (rowtext_has(notes, "no dropout")) m->attention_dropout = m->hidden_dropout = 0;
}

void rowd_architecture(const char *model, const char *notes, sc_transformer *m, char *why,
                       size_t why_size) {
  /* GPT-2 style: what Megatron-LM's GPT model is without options */
  m->act = SC_ACT_GELU;
  m->norm = SC_NORM_LAYERNORM;
  m->pos = SC_POS_LEARNED;
  m->tied_embeddings = 1;
  m->bias = 1;
  /* Megatron's --attention-dropout and --hidden-dropout defaults, 0.1
   * (TransformerConfig in ../shared/reference/megatron-lm), for every row
   * whose model has no preset: each such row is a Megatron-family run */
  m->attention_dropout = m->hidden_dropout = 0.1;
  const sc_model *p = rowd_named_preset(model);
  if (p) {
    m->act = p->tf.act;
    m->norm = p->tf.norm;
    m->pos = p->tf.pos;
    m->tied_embeddings = p->tf.tied_embeddings;
    m->bias = p->tf.bias;
    m->attention_dropout = p->tf.attention_dropout; /* the rates its config states */
    m->hidden_dropout = p->tf.hidden_dropout;
    note(why, why_size, "architecture of preset %s", p->name);
  }
  stated(notes, m);
}

/* ----------------------------------------------------------- attention */

/* A row naming no framework is Megatron-LM of its time: its local
 * attention runs unfused (--use-flash-attn is opt-in) except where it can
 * only run Transformer Engine's modules, whose DotProductAttention picks
 * cuDNN's fused kernel: fp8/fp4 rows and Blackwell or newer
 * (plan_attn_runs_te, plan/plan_attn.h, with its sources). A Blackwell run
 * is from 2025 or later; that Megatron-LM had switched from the local
 * implementation before (its 2024 releases) is not in ../shared, an
 * assumption docs/accuracy.md states. Where it runs fused, the kernel is
 * plan.attention "auto"'s (plan_attn_auto): `predict` gives a plan that
 * names no kernel the same one. */
void rowd_attention(const char *notes, rowd_framework fw, int arch, sc_plan *p) {
  p->flash_attention = 1;
  if (rowtext_has(notes, "flashattention-3") || rowtext_has(notes, "flash attention 3") || rowtext_has(notes, "fa3"))
    p->attention = SC_ATTN_FLASH3;
  else if (rowtext_has(notes, "flashattention-2") || rowtext_has(notes, "flash attention 2") ||
           rowtext_has(notes, "fa2"))
    p->attention = SC_ATTN_FLASH2;
  else if (rowtext_has(notes, "flashattention-1") || rowtext_has(notes, "flash attention 1") ||
           rowtext_has(notes, "fa1"))
    p->attention = SC_ATTN_FLASH1;
  else if (rowtext_has(notes, "cudnn"))
    p->attention = SC_ATTN_CUDNN;
  else if (rowtext_has(notes, "flash attention") || rowtext_has(notes, "flashattention"))
    p->attention = SC_ATTN_FLASH2; /* no generation stated: the calibrated one */
  else if (fw != ROWD_FW_UNKNOWN)
    /* Transformer Engine's DotProductAttention picks cuDNN's fused kernel
     * where it runs (sm80+), and MaxText on GPUs uses the same through TE */
    p->attention = SC_ATTN_CUDNN;
  else if (plan_attn_runs_te(arch, p->dtype))
    p->attention = plan_attn_auto(arch, p); /* Megatron-LM through TE: cuDNN */
  else
    p->flash_attention = 0; /* Megatron-LM without --use-flash-attn */
  if (!p->flash_attention) p->attention = SC_ATTN_UNFUSED;
}

/* ------------------------------------------------------------- overlap */

void rowd_overlap(const char *notes, rowd_framework fw, sc_plan *p) {
  /* Megatron-LM: reduce after backward unless --overlap-grad-reduce;
   * FSDP / ZeRO-3 always prefetch and overlap */
  p->overlap_grad_reduce = p->overlap_param_gather = p->zero >= 3;
  p->overlap_tp = 0;
  p->framework_eager = 1;
  if (fw == ROWD_FW_MCORE) {
    /* NeMo's MegatronStrategy runs the distributed optimizer with
     * overlap_grad_reduce and overlap_param_gather on */
    p->overlap_grad_reduce = p->overlap_param_gather = 1;
  } else if (fw == ROWD_FW_MAXTEXT) {
    /* XLA schedules its collectives asynchronously beside the compute,
     * and a compiled step has no per-operator Python overhead */
    p->overlap_grad_reduce = p->overlap_param_gather = 1;
    p->framework_eager = 0;
  }
  if (rowtext_has(notes, "tp comm overlap") || rowtext_has(notes, "tp_comm_overlap")) p->overlap_tp = 1;
  if (rowtext_has(notes, "no gradient buckets") || rowtext_has(notes, "no overlap")) p->overlap_grad_reduce = 0;
}

/* ---------------------------------------------------------------- FSDP */

void rowd_fsdp(const char *notes, rowd_framework fw, sc_plan *p) {
  if (p->zero < 3) return;
  /* PyTorch FSDP, DeepSpeed and MaxText run the model's vocabulary as it
   * is; Megatron-Core (NeMo) pads it (plan.vocab_multiple's default) */
  if (fw != ROWD_FW_MCORE) p->vocab_multiple = 1;
  /* XLA shards parameters itself (MaxText's fsdp mesh axis): each layer's
   * weights are gathered into place, one layer ahead */
  if (fw == ROWD_FW_MAXTEXT) p->fsdp_impl = SC_FSDP_XLA;
  /* FULL_SHARD and SHARD_GRAD_OP name the sharding strategies of
   * PyTorch's FullyShardedDataParallel (FSDP1); FSDP2 has none */
  if (rowtext_has(notes, "full_shard") || rowtext_has(notes, "shard_grad_op")) p->fsdp_impl = SC_FSDP1;
  if (rowtext_has(notes, "shard_grad_op")) p->fsdp_reshard = 0;
  /* a zero-3 row naming DeepSpeed (Megatron-DeepSpeed included) runs
   * DeepSpeed's ZeRO-3 */
  if (rowtext_has(notes, "deepspeed") || rowtext_has(notes, "zero stage 3")) p->fsdp_impl = SC_FSDP_DEEPSPEED;
}

/* ------------------------------------------------------------ pipeline */

int rowd_pipeline_layout(rowd_framework fw, int layers, sc_plan *p) {
  int chunks = p->pp * (p->vpp > 1 ? p->vpp : 1);
  if (p->n_pp_layout > 0 || p->pp_first_layers > 0 || p->pp_last_layers > 0) return 0; /* stated */
  if (fw != ROWD_FW_MCORE || p->pp < 2 || layers % chunks == 0 || (layers + 2) % chunks) return 0;
  p->pp_embedding_in_split = p->pp_loss_in_split = 1;
  return 1;
}

/* ------------------------------------------------------------- network */

/* The GPU's reference system (hw/cluster_presets.h); NULL when none. */
static const sc_cluster *reference_system(const char *gpu) { return clus_reference(gpu); }

double rowd_reference_nic(const char *gpu, const char **preset) {
  const sc_cluster *c = reference_system(gpu);
  *preset = c ? c->name : NULL;
  return c ? c->nic_bw : 0;
}

const char *rowd_reference_node(const char *gpu, int *gpn, int *domain) {
  const sc_cluster *c = reference_system(gpu);
  *gpn = c ? c->gpus_per_node : 8;
  *domain = c ? c->nvlink_domain : 8;
  return c ? c->name : NULL;
}

sc_host rowd_reference_host(const char *gpu) {
  const sc_cluster *c = reference_system(gpu);
  return c ? c->host : (sc_host){0};
}
