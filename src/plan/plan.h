/*
 * plan.h -- limits of the scenario fields (module prefix: plan_).
 *
 * sc_plan_default, sc_scenario_default and sc_scenario_resolve (declared
 * in stepcast.h) live in plan.c. This header gives the JSON loader
 * (src/load/scenario.c) the same ranges that sc_scenario_resolve enforces,
 * so that a value out of range is reported with its key path once, by
 * whichever sees it first. The limits are far beyond any real job; they
 * exist so that products of them cannot overflow 64-bit integers.
 */
#ifndef SC_PLAN_H
#define SC_PLAN_H

#include <stddef.h>

#include "stepcast.h"

#define PLAN_MAX_LAYERS 100000L
#define PLAN_MAX_WIDTH (1L << 22)     /* hidden, ffn: elements */
#define PLAN_MAX_HEADS (1L << 16)     /* heads, kv_heads, head_dim, experts */
#define PLAN_MAX_VOCAB (1L << 24)     /* tokens */
#define PLAN_MAX_SEQ (1L << 26)       /* tokens per sequence */
#define PLAN_MAX_GPUS (1L << 24)      /* gpus, dp, nvlink_domain */
#define PLAN_MAX_DEGREE (1L << 20)    /* tp, pp, cp, ep, gpus_per_node */
#define PLAN_MAX_VPP 1024L            /* model chunks per pipeline rank */
#define PLAN_MAX_BATCH (1L << 40)     /* sequences per step */
#define PLAN_MAX_MICRO (1L << 20)     /* micro-batches per pipeline per step (an int everywhere) */

/* The names of the plan's enums, in enum order: the one table of each
 * (the scenario's keys, the reports). plan.c. */
#define PLAN_SCHEDS (SC_SCHED_DUALPIPE + 1)
extern const char *const plan_sched_names[PLAN_SCHEDS];
#define PLAN_RECOMPS (SC_RECOMP_FULL + 1)
extern const char *const plan_recomp_names[PLAN_RECOMPS];
#define PLAN_ATTNS (SC_ATTN_AUTO + 1)
extern const char *const plan_attn_names[PLAN_ATTNS];
#define PLAN_LOSSES (SC_LOSS_EAGER + 1)
extern const char *const plan_loss_names[PLAN_LOSSES];
/* How a resolved plan computes its loss (plan.loss; "auto": the fused
 * kernel where plan.fused_loss, else Megatron's vocab-parallel loss);
 * never SC_LOSS_AUTO. */
sc_loss_impl plan_loss_of(const sc_plan *p);
/* 1 when a plan's model is written with torch.nn's own layers (nn.Linear,
 * F.gelu, F.dropout, F.cross_entropy) rather than Megatron's: an eager
 * framework (plan.framework_eager) without fused kernels
 * (plan.fused_kernels false) whose loss is F.cross_entropy (plan.loss
 * "eager"). Its linear layers add their bias inside the GEMM (cuBLASLt's
 * epilogue) and reduce its gradient in a kernel of their own. */
int plan_torch_nn(const sc_plan *p);
#define PLAN_ZERO_GRADS (SC_ZERO_GRAD_ZERO + 1)
extern const char *const plan_zero_grad_names[PLAN_ZERO_GRADS];
/* 1 when a resolved plan's gradients are freed between steps (plan.zero_grad
 * "set_to_none", or "auto" on a plan whose gradients are PyTorch's own
 * parameters' .grad under torch.optim); 0 when they are kept. */
int plan_grads_freed(const sc_plan *p);
/* 1 when a resolved plan runs PyTorch DDP whose reducer keeps its
 * gradient buckets beside the .grad tensors (plan.ddp_bucket_view false,
 * PyTorch's default): a second copy of the gradients, kept between steps
 * (memory.c). */
int plan_ddp_buckets(const sc_plan *p);

/* sc_scenario_resolve in place: on an error *s is left half resolved
 * (for a scratch copy the caller drops then, without the 4 KB copies
 * that keep the caller's scenario whole). */
int plan_resolve_scratch(sc_scenario *s, sc_error *err);
/* plan_resolve_scratch after its first step, resolving the model and the
 * cluster: s's plan checked and resolved against them as they are (a
 * job's, resolved once when it opened: a search does not resolve them
 * again for every plan). */
int plan_resolve_plan(sc_scenario *s, sc_error *err);

/* SC_EINPUT ("PATH: V is out of range (valid: LO..HI)") unless
 * lo <= v <= hi. */
int plan_range(long long v, long long lo, long long hi, const char *path, sc_error *err);

/* gcd of two non-negative integers. */
long long plan_gcd(long long a, long long b);

/* The divisors of n (n >= 1) as "1, 2, 3, ..." into buf, about 24 at
 * most ("1, 2, ..., 512, 1024" when there are more). */
void plan_divisors(long long n, char *buf, size_t cap);

/* The divisors of n that are at most max ("none" when n < 1). */
void plan_divisors_upto(long long n, long long max, char *buf, size_t cap);

/* The ranks plan p's expert parallelism spreads over in layers of
 * context parallelism cp: dp x cp, and x tp where experts stay whole
 * (etp 1); ep must divide it. */
long long plan_ep_mesh(const sc_plan *p, int cp);

/* Layers of each virtual pipeline stage of plan p over a model of
 * `layers` layers, as Megatron-Core splits them (even, uneven first/last
 * stage, embedding/loss counted in the split, or an explicit layout):
 * out[k*pp + s] = layers of chunk k on stage s, for vpp >= 1 resolved
 * chunks per stage (out has room for pp*vpp ints). Returns SC_OK or
 * SC_EINPUT naming the plan key and what would be valid. */
int plan_stage_layers(const sc_plan *p, int layers, int vpp, int *out, sc_error *err);

/* The name of each sc_fsdp_impl, in enum order: the one table of them
 * (the scenario key plan.fsdp_impl, the report, the checks' messages).
 * plan_fsdp.c. */
#define PLAN_FSDP_IMPLS (SC_FSDP_XLA + 1)
extern const char *const plan_fsdp_impl_names[PLAN_FSDP_IMPLS];

/* plan_fsdp.c: the FSDP / ZeRO-3 implementation keys and the MoE run
 * keys (grouped GEMM, imbalance). plan_fsdp_moe_default sets the
 * frameworks' defaults into p; plan_fsdp_moe checks the keys against each
 * other and the plan: SC_OK or SC_EINPUT naming the key and what would be
 * valid. */
void plan_fsdp_moe_default(sc_plan *p);
/* Sets plan.fsdp_prefetch, when left to the implementation
 * (SC_FSDP_PREFETCH_AUTO), to plan.fsdp_impl's default. */
void plan_fsdp_resolve(sc_plan *p);
int plan_fsdp_moe(const sc_scenario *s, sc_error *err);

/* plan_fw.c: plan.framework. plan_framework_names names each
 * sc_framework, in enum order (the scenario key, the messages). */
#define PLAN_FRAMEWORKS (SC_FW_HF_TRAINER + 1)
extern const char *const plan_framework_names[PLAN_FRAMEWORKS];
/* Checks plan.framework and the keys a named framework cannot have
 * (SC_EINPUT naming the key, the framework and what is valid), then sets
 * its defaults into the keys left at theirs and not written
 * (sc_plan.given; docs/input.md). "auto" changes nothing. Idempotent. */
int plan_framework(sc_plan *p, sc_error *err);
/* 1 when PyTorch's own parameters hold the gradients in .grad under
 * torch.optim (DDP's reducer, if any, beside them): for a named framework
 * its own answer, for "auto" plan.framework_eager (the proxy; plan.c adds
 * the dtype's part). */
int plan_fw_torch_grads(const sc_plan *p);
/* 1 when a named framework's model is torch.nn's layers (0 for "auto":
 * plan_torch_nn reads the keys then). */
int plan_fw_torch_nn(const sc_plan *p);
/* 1 when a named framework runs Transformer Engine's attention (0 for
 * "auto": plan_attn_auto reads the keys then). */
int plan_fw_te(const sc_plan *p);

/* plan_optim.c: the precision-aware optimizer (Megatron's --use-precision-
 * aware-optimizer with Transformer Engine's FusedAdam). plan_precision_
 * aware: 1 when any of plan.main_params_dtype, exp_avg_dtype, exp_avg_sq_
 * dtype is not fp32 (which turns it on). plan_optim_dtypes checks the
 * three against Megatron's choices and the plan: SC_OK or SC_EINPUT
 * naming the key and what would be valid. */
int plan_precision_aware(const sc_plan *p);
int plan_optim_dtypes(const sc_scenario *s, sc_error *err);

/* plan_moe.c: the MoE token dispatcher, group-limited routing and the
 * flex dispatcher's SMs: defaults into p, and their checks (SC_OK or
 * SC_EINPUT naming the key and what would be valid). */
void plan_moe_default(sc_plan *p);
int plan_moe(const sc_scenario *s, sc_error *err);
/* plan_moe's checks that hold at any ep (overlap_ep not with the
 * all-gather; flex's SMs, no padding to capacity with flex), for the
 * search's base plan at ep 1. */
int plan_moe_base(const sc_scenario *s, sc_error *err);
/* Plan s's group-limited routing (when its group topk is set) against
 * layers of `experts` experts, each token picking `topk`, over `ep`
 * expert-parallel ranks with expert tensor parallelism `etp`: groups
 * that divide the experts, hold at least topk experts in the chosen
 * ones, and under flex nest with the ranks and their nodes. `what` names
 * the experts in a message ("model.experts 8"), `at` the layers when
 * their layout is not the plan's ("" for the plan's). SC_OK, or
 * SC_EINPUT naming the key and what would be valid. */
int plan_moe_groups_fit(const sc_scenario *s, int experts, int topk, int ep, int etp,
                        const char *what, const char *at, sc_error *err);

/* The name of each sc_moe_dispatcher, in enum order: the one table of
 * them (the scenario key plan.moe_dispatcher, the checks' messages). */
#define PLAN_MOE_DISPATCHERS (SC_MOE_FLEX + 1)
extern const char *const plan_moe_dispatcher_names[PLAN_MOE_DISPATCHERS];

/* plan_recmod.c: Megatron-Core's selective recompute modules
 * (plan.recompute_modules). plan_recmod_names[i] names bit 1 << i. */
#define PLAN_RECMODS 7
extern const char *const plan_recmod_names[PLAN_RECMODS];
/* The modules a selective layer of plan p re-runs: its list, or
 * Megatron's default ["core_attn"] when it gives none. */
unsigned plan_recmod_mask(const sc_plan *p);
/* The bit of module `name` into *bit; SC_EINPUT naming `path` and the
 * valid names otherwise (Megatron's modules of layers stepcast does not
 * build said so). */
int plan_recmod_bit(const char *name, unsigned *bit, sc_error *err, const char *path);
/* The names of mask's modules, "a, b" ("none" for SC_RECMOD_NONE), into
 * buf. */
void plan_recmod_list(unsigned mask, char *buf, size_t cap);
/* 1 when some layer of p recomputes selectively (plan or override). */
int plan_recmod_used(const sc_plan *p);
/* Megatron's checks of the list against the plan and the model: SC_OK or
 * SC_EINPUT naming the key and what would be valid. */
int plan_recmod(const sc_scenario *s, sc_error *err);
/* What of s's list runs nothing, as a report note ("" when all of it
 * runs): the whole list when no layer recomputes selectively (Megatron
 * reads it only then), the MoE modules on a dense model, shared_experts
 * without shared experts. Megatron accepts these; so does stepcast. */
void plan_recmod_note(const sc_scenario *s, char *buf, size_t cap);

#endif /* SC_PLAN_H */
