/*
 * plan_fw.c -- plan.framework: what each framework stepcast models implies
 * for the other plan keys, and what it says about who owns the parameters
 * and their gradients (module prefix: plan_).
 *
 * A named framework (anything but "auto") does three things when the
 * scenario resolves, in this order:
 *   1. it refuses a key set to a value the framework cannot have (SC_EINPUT
 *      naming the key, the framework and what is valid);
 *   2. it supplies its defaults to the keys left at their own default and
 *      not written (sc_plan.given: a key written at its default value is
 *      the user's, and wins or is refused in step 1, never overridden);
 *   3. it replaces the proxies of plan.c and plan_attn.c (plan_torch_nn,
 *      torch_params, plan_attn_auto) with its own answer.
 * "auto" does none of it: every figure is what it was before the key.
 * The sources of each row of the table are in fw_table's comments and in
 * docs/input.md, "plan.framework".
 */
#include "plan/plan.h"

#include <stdio.h>
#include <string.h>

const char *const plan_framework_names[PLAN_FRAMEWORKS] = {
    "auto", "megatron", "nemo", "pytorch_ddp", "torchtitan", "deepspeed", "maxtext", "hf_trainer"};

/* When a 16-bit plan runs torch.autocast (plan.amp) rather than a model
 * cast to 16 bits. */
typedef enum fw_autocast {
  FW_CAST_NEVER = 0,     /* leaves plan.amp as written */
  FW_CAST_ALWAYS,        /* plan.amp on for fp16/bf16 */
  FW_CAST_UNSHARDED      /* on below zero 3 (FSDP2's MixedPrecisionPolicy
                            casts the sharded fp32 parameters itself) */
} fw_autocast;

#define FW_IMPL(i) (1u << (i))

/* What one framework implies. */
typedef struct fw_info {
  int eager;          /* plan.framework_eager: 1 = PyTorch's eager mode */
  int torch_grads;    /* 1 = the gradients are the parameters' own .grad
                         under torch.optim (DDP's reducer beside them) */
  int torch_nn;       /* 1 = a model of torch.nn's layers (plan_torch_nn):
                         plan.fused_kernels false, plan.loss "eager" */
  int te;             /* 1 = Transformer Engine's attention (cuDNN) */
  int vocab;          /* plan.vocab_multiple when left 0 */
  fw_autocast cast;   /* plan.amp when left false */
  int no_amp;         /* 1 = plan.amp true is refused */
  int remainders;     /* 1 = plan.param_remainders may be true */
  int replicate;      /* 1 = every GPU holds the whole model: tp, pp, cp,
                         ep 1 */
  int max_zero;       /* the highest plan.zero it runs */
  sc_fsdp_impl fsdp;  /* plan.fsdp_impl when left "fsdp2" */
  unsigned fsdp_ok;   /* FW_IMPL bits of the fsdp_impl values it runs */
} fw_info;

/* Indexed by sc_framework; SC_FW_AUTO's row is never read. */
static const fw_info fw_table[PLAN_FRAMEWORKS] = {
    [SC_FW_AUTO] = {.eager = 1, .vocab = 0, .max_zero = 3},
    /* Megatron-LM: --make-vocab-size-divisible-by 128 (megatron/training/
     * arguments.py); the model cast to 16 bits (Float16Module, no
     * autocast); gradients in its own contiguous buffer, zeroed in place
     * each step (zero_grad_buffer(), megatron/training/training.py);
     * Transformer Engine's layers (cuDNN attention); ZeRO-3 through
     * --use-torch-fsdp2 (arguments.py) */
    [SC_FW_MEGATRON] = {.eager = 1, .te = 1, .vocab = 128, .no_amp = 1, .max_zero = 3,
                        .fsdp = SC_FSDP2, .fsdp_ok = FW_IMPL(SC_FSDP2)},
    /* NeMo: Megatron-Core underneath (the same rows), and Apex's
     * distributed_fused_adam with its parameter remainders */
    [SC_FW_NEMO] = {.eager = 1, .te = 1, .vocab = 128, .no_amp = 1, .remainders = 1,
                    .max_zero = 3, .fsdp = SC_FSDP2, .fsdp_ok = FW_IMPL(SC_FSDP2)},
    /* PyTorch DDP: each rank a whole replica ("DDP ... replicates the
     * model on each device", torch/nn/parallel/distributed.py), .grad
     * under torch.optim beside the reducer's buckets, torch.autocast for
     * 16 bits; ZeRO-1 as ZeroRedundancyOptimizer at most */
    [SC_FW_PYTORCH_DDP] = {.eager = 1, .torch_grads = 1, .torch_nn = 1, .vocab = 1,
                           .cast = FW_CAST_ALWAYS, .replicate = 1, .max_zero = 1,
                           .fsdp = SC_FSDP2},
    /* torchtitan: fully_shard (FSDP2), the model's vocabulary unpadded
     * (torchtitan/models/llama3/__init__.py: vocab_size 128256), its loss
     * F.cross_entropy on .float() logits, autocast only where FSDP's
     * MixedPrecisionPolicy does not cast (maybe_enable_amp, recalled) */
    [SC_FW_TORCHTITAN] = {.eager = 1, .torch_grads = 1, .torch_nn = 1, .vocab = 1,
                          .cast = FW_CAST_UNSHARDED, .max_zero = 3, .fsdp = SC_FSDP2,
                          .fsdp_ok = FW_IMPL(SC_FSDP2)},
    /* DeepSpeed: its engine around the user's torch.nn.Module; its own
     * gradient partitions and buckets (deepspeed/runtime/zero/config.py),
     * the model cast to 16 bits by its fp16/bf16 sections */
    [SC_FW_DEEPSPEED] = {.eager = 1, .torch_nn = 1, .vocab = 1, .max_zero = 3,
                         .fsdp = SC_FSDP_DEEPSPEED, .fsdp_ok = FW_IMPL(SC_FSDP_DEEPSPEED)},
    /* MaxText: one XLA-compiled step, parameters sharded by XLA, TE's
     * attention on GPUs */
    [SC_FW_MAXTEXT] = {.eager = 0, .te = 1, .vocab = 1, .max_zero = 3, .fsdp = SC_FSDP_XLA,
                       .fsdp_ok = FW_IMPL(SC_FSDP_XLA)},
    /* Hugging Face Trainer: transformers' torch.nn models, DDP for
     * several GPUs, --bf16/--fp16 as torch.autocast, FSDP through
     * accelerate (FullyShardedDataParallel by default; fully_shard with
     * fsdp_version 2) or DeepSpeed (recalled, not in ../shared) */
    [SC_FW_HF_TRAINER] = {.eager = 1, .torch_grads = 1, .torch_nn = 1, .vocab = 1,
                          .cast = FW_CAST_ALWAYS, .max_zero = 3, .fsdp = SC_FSDP1,
                          .fsdp_ok = FW_IMPL(SC_FSDP1) | FW_IMPL(SC_FSDP2) |
                                     FW_IMPL(SC_FSDP_DEEPSPEED)},
};

/* The row of a named framework; NULL for "auto" or a value out of range. */
static const fw_info *fw_of(const sc_plan *p) {
  if (p->framework <= SC_FW_AUTO || p->framework >= PLAN_FRAMEWORKS) return NULL;
  return &fw_table[p->framework];
}

int plan_fw_torch_grads(const sc_plan *p) {
  const fw_info *f = fw_of(p);
  return f ? f->torch_grads : p->framework_eager;
}

int plan_fw_torch_nn(const sc_plan *p) {
  const fw_info *f = fw_of(p);
  return f && f->torch_nn;
}

int plan_fw_te(const sc_plan *p) {
  const fw_info *f = fw_of(p);
  return f && f->te;
}

/* The fsdp_impl names of mask into buf ("none" when empty). */
static void fw_impls(unsigned mask, char *buf, size_t cap) {
  size_t n = 0;
  buf[0] = '\0';
  for (int i = 0; i < PLAN_FSDP_IMPLS && n < cap; i++)
    if (mask & FW_IMPL(i))
      n += (size_t)snprintf(buf + n, cap - n, "%s\"%s\"", n ? ", " : "", plan_fsdp_impl_names[i]);
  if (!n) snprintf(buf, cap, "none (it shards no parameters)");
}

/* A switch a framework cannot have on: its key, why, and what is valid. */
typedef struct fw_switch {
  const char *key, *why, *valid;
} fw_switch;

static const fw_switch fw_amp = {"amp", ", which casts the model to plan.dtype (no autocast)",
                                 "false"};
static const fw_switch fw_remainders = {
    "param_remainders", " (Apex's distributed_fused_adam keeps them, as NeMo runs it)",
    "false, or plan.framework \"nemo\""};
static const fw_switch fw_bucket_view = {"ddp_bucket_view", ", which runs no PyTorch DDP reducer",
                                         "false"};

/* 1 when the key of bit (SC_GIVEN_*) was written (sc_plan.given). */
static int fw_given(const sc_plan *p, unsigned bit) { return (p->given & bit) != 0; }

/* SC_EINPUT: switch w on under framework fw. */
static int fw_refuse_on(const fw_switch *w, const char *fw, sc_error *err) {
  return sc_error_set(err, SC_EINPUT, "plan.%s: true with plan.framework \"%s\"%s; valid: %s",
                      w->key, fw, w->why, w->valid);
}

/* Step 1: the keys the framework cannot have. */
static int fw_check(const sc_plan *p, const fw_info *f, sc_error *err) {
  const char *fw = plan_framework_names[p->framework];
  if (f->eager && !p->framework_eager)
    return sc_error_set(err, SC_EINPUT,
                        "plan.framework_eager: false with plan.framework \"%s\", which runs "
                        "PyTorch eagerly; valid: true (for kernels replayed from CUDA graphs, "
                        "plan.cuda_graphs true), or plan.framework \"maxtext\" or \"auto\"",
                        fw);
  if (!f->eager && p->framework_eager && fw_given(p, SC_GIVEN_FRAMEWORK_EAGER))
    return sc_error_set(err, SC_EINPUT,
                        "plan.framework_eager: true with plan.framework \"%s\", which compiles "
                        "the step with XLA; valid: false (or leave the key out)",
                        fw);
  /* "fsdp2" is the key's default: refused only when written */
  if ((unsigned)p->fsdp_impl < PLAN_FSDP_IMPLS &&
      (p->fsdp_impl != SC_FSDP2 || fw_given(p, SC_GIVEN_FSDP_IMPL)) &&
      !(f->fsdp_ok & FW_IMPL(p->fsdp_impl))) {
    char valid[128];
    fw_impls(f->fsdp_ok, valid, sizeof valid);
    return sc_error_set(err, SC_EINPUT,
                        "plan.fsdp_impl: \"%s\" with plan.framework \"%s\"; valid: %s",
                        plan_fsdp_impl_names[p->fsdp_impl], fw, valid);
  }
  if (p->zero > f->max_zero)
    return sc_error_set(err, SC_EINPUT,
                        "plan.zero: %d with plan.framework \"%s\", which replicates the "
                        "gradients and parameters; valid: 0..%d (or plan.framework "
                        "\"torchtitan\", \"deepspeed\" or \"hf_trainer\" to shard them)",
                        p->zero, fw, f->max_zero);
  if (f->replicate && (p->tp > 1 || p->pp > 1 || p->cp > 1 || p->ep > 1))
    return sc_error_set(err, SC_EINPUT,
                        "plan.tp/pp/cp/ep: %d/%d/%d/%d with plan.framework \"%s\", whose every "
                        "rank holds the whole model; valid: 1 each (or plan.framework "
                        "\"megatron\" or \"torchtitan\" to split it)",
                        p->tp, p->pp, p->cp, p->ep, fw);
  /* the loss: Megatron-Core's vocab-parallel one is not a torch.nn
   * model's, F.cross_entropy not Megatron's (MaxText's may be either) */
  int bad = f->torch_nn ? SC_LOSS_VOCAB_PARALLEL : f->eager ? SC_LOSS_EAGER : -1;
  if (p->loss_impl == bad)
    return sc_error_set(err, SC_EINPUT,
                        "plan.loss: \"%s\" with plan.framework \"%s\"; valid: \"auto\", "
                        "\"%s\", \"fused\"",
                        plan_loss_names[bad], fw,
                        plan_loss_names[f->torch_nn ? SC_LOSS_EAGER : SC_LOSS_VOCAB_PARALLEL]);
  if (f->no_amp && p->amp) return fw_refuse_on(&fw_amp, fw, err);
  if (!f->remainders && p->param_remainders) return fw_refuse_on(&fw_remainders, fw, err);
  if (!f->torch_grads && p->ddp_bucket_view) return fw_refuse_on(&fw_bucket_view, fw, err);
  return SC_OK;
}

/* Step 2: the framework's defaults into the keys left at theirs and not
 * written (loss "auto" and vocab_multiple 0 name no value of their own). */
static void fw_defaults(sc_plan *p, const fw_info *f) {
  if (!f->eager && !fw_given(p, SC_GIVEN_FRAMEWORK_EAGER)) p->framework_eager = 0;
  if (f->torch_nn) {
    if (!fw_given(p, SC_GIVEN_FUSED_KERNELS)) p->fused_kernels = 0;
    if (p->loss_impl == SC_LOSS_AUTO && !p->fused_loss) p->loss_impl = SC_LOSS_EAGER;
  }
  if (p->vocab_multiple == 0) p->vocab_multiple = f->vocab;
  if (p->fsdp_impl == SC_FSDP2 && !fw_given(p, SC_GIVEN_FSDP_IMPL)) p->fsdp_impl = f->fsdp;
  int half = p->dtype == SC_BF16 || p->dtype == SC_FP16;
  if (half && !fw_given(p, SC_GIVEN_AMP) &&
      (f->cast == FW_CAST_ALWAYS || (f->cast == FW_CAST_UNSHARDED && p->zero < 3)))
    p->amp = 1;
}

int plan_framework(sc_plan *p, sc_error *err) {
  if ((unsigned)p->framework >= PLAN_FRAMEWORKS) {
    char valid[160] = "";
    for (int i = 0; i < PLAN_FRAMEWORKS; i++)
      snprintf(valid + strlen(valid), sizeof valid - strlen(valid), "%s\"%s\"", i ? ", " : "",
               plan_framework_names[i]);
    return sc_error_set(err, SC_EINPUT, "plan.framework: %d; valid: %s", p->framework, valid);
  }
  const fw_info *f = fw_of(p);
  if (!f) return SC_OK;
  int rc = fw_check(p, f, err);
  if (rc) return rc;
  fw_defaults(p, f);
  return SC_OK;
}
