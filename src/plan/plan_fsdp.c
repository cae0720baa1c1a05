/*
 * plan_fsdp.c -- the plan keys of FSDP / ZeRO-3 as each framework runs it
 * and of MoE as it is run: their defaults (each the framework's own,
 * sourced next to it) and their checks (module prefix: plan_).
 */
#include "plan/plan.h"

#include <stdio.h>
#include <string.h>

/* DeepSpeed ZeRO-3's defaults, deepspeed/runtime/zero/config.py
 * (../shared/reference/deepspeed): stage3_prefetch_bucket_size 5e7,
 * stage3_max_live_parameters 1e9, stage3_max_reuse_distance 1e9,
 * reduce_bucket_size 5e8, stage3_param_persistence_threshold 1e5
 * (elements). */
#define DS_PREFETCH_BUCKET 5e7
#define DS_MAX_LIVE 1e9
#define DS_MAX_REUSE 1e9
#define DS_REDUCE_BUCKET 5e8
#define DS_PERSISTENCE 1e5

const char *const plan_fsdp_impl_names[PLAN_FSDP_IMPLS] = {"fsdp2", "fsdp1", "deepspeed", "xla"};

void plan_fsdp_moe_default(sc_plan *p) {
  p->fsdp_impl = SC_FSDP2;   /* PyTorch's current FSDP (fully_shard) */
  p->fsdp_reshard = 1;       /* FSDP2 reshard_after_forward=True, FSDP1
                                FULL_SHARD, DeepSpeed stage 3 */
  p->fsdp_prefetch = SC_FSDP_PREFETCH_AUTO; /* each implementation's own
                                               (plan_fsdp_resolve) */
  p->fsdp_forward_prefetch = 0; /* FSDP1 forward_prefetch=False; FSDP2
                                   prefetches forward implicitly */
  p->ds_prefetch_bucket = DS_PREFETCH_BUCKET;
  p->ds_max_live = DS_MAX_LIVE;
  p->ds_max_reuse = DS_MAX_REUSE;
  p->ds_reduce_bucket = DS_REDUCE_BUCKET;
  p->ds_persistence = DS_PERSISTENCE;
  /* every MoE recipe of the Megatron-MoE model zoo sets moe_grouped_gemm
   * (../shared/reference/megatron-moe-modelzoo/model_configs/benchmarking:
   * DeepSeek-V3, Mixtral, Qwen3), while transformer_config.py defaults it
   * to False: the default follows what MoE runs use */
  p->moe_grouped_gemm = 1;
  /* likewise --moe-permute-fusion, set by every model zoo recipe above
   * (transformer_config.py: False) */
  p->moe_permute_fusion = 1;
  p->moe_imbalance = 1.0;    /* balanced: no measurement of a trained
                                router's imbalance is in ../shared */
  plan_moe_default(p);       /* dispatcher, routing groups (plan_moe.c) */
}

/* FSDP1 as PyTorch 1.13 defines it (the release whose kernels
 * src/engine/fsdp1k.c costs; torch/distributed/fsdp/
 * fully_sharded_data_parallel.py in Debian's python3-torch 1.13.1, not in
 * ../shared/reference): FullyShardedDataParallel.__init__ takes
 * backward_prefetch=None, so no unit is gathered ahead in backward and
 * each unit's gather waits behind the reduce-scatter issued before it on
 * the process group's one NCCL stream (the BackwardPrefetch docstring:
 * "all_gather and reduce_scatter are blocked each other in the single
 * NCCL stream"). FSDP2 prefetches the previous group by default
 * (../shared/reference/pytorch/torch/distributed/fsdp/_fully_shard/
 * _fsdp_state.py); DeepSpeed's depth is its bucket's (fsdp.c) and XLA
 * gathers one layer ahead: 1. */
void plan_fsdp_resolve(sc_plan *p) {
  if (p->fsdp_prefetch != SC_FSDP_PREFETCH_AUTO) return;
  p->fsdp_prefetch = p->fsdp_impl == SC_FSDP1 ? 0 : 1;
}

static int fsdp_keys(const sc_plan *p, sc_error *err) {
  if ((unsigned)p->fsdp_impl >= PLAN_FSDP_IMPLS) {
    char valid[64] = "";
    for (int i = 0; i < PLAN_FSDP_IMPLS; i++)
      snprintf(valid + strlen(valid), sizeof valid - strlen(valid), "%s\"%s\"", i ? ", " : "",
               plan_fsdp_impl_names[i]);
    return sc_error_set(err, SC_EINPUT, "plan.fsdp_impl: %d; valid: %s", (int)p->fsdp_impl, valid);
  }
  if (p->fsdp_prefetch < 0 || p->fsdp_prefetch > 64)
    return sc_error_set(err, SC_EINPUT, "plan.fsdp_prefetch: %d; valid: 0..64 units ahead",
                        p->fsdp_prefetch);
  if (p->fsdp_impl == SC_FSDP1 && p->fsdp_prefetch > 1)
    return sc_error_set(err, SC_EINPUT,
                        "plan.fsdp_prefetch: %d; FSDP1 prefetches one unit (BACKWARD_PRE) or "
                        "none; valid: 0, 1 (or plan.fsdp_impl \"fsdp2\" for deeper prefetch)",
                        p->fsdp_prefetch);
  /* DeepSpeed's PipelineEngine asserts a ZeRO stage below 2 ("ZeRO-2 and
   * ZeRO-3 are incompatible with pipeline parallelism",
   * deepspeed/runtime/pipe/engine.py; recalled, not in ../shared) */
  if (p->zero >= 3 && p->fsdp_impl == SC_FSDP_DEEPSPEED && p->pp > 1)
    return sc_error_set(err, SC_EINPUT,
                        "plan.pp: %d with DeepSpeed ZeRO-3 (plan.fsdp_impl \"deepspeed\"), which "
                        "DeepSpeed's pipeline engine refuses (ZeRO-2 and -3 are incompatible with "
                        "pipeline parallelism); valid: pp 1, plan.zero 1 (Megatron-DeepSpeed's "
                        "pipelines), or plan.fsdp_impl \"fsdp2\" (torchtitan pipelines FSDP2)",
                        p->pp);
  if (p->fsdp_impl == SC_FSDP_DEEPSPEED && !p->fsdp_reshard)
    return sc_error_set(err, SC_EINPUT,
                        "plan.fsdp_reshard: false is not a DeepSpeed stage-3 mode (parameters are "
                        "kept by stage3_max_reuse_distance); valid: true, or plan.zero 2");
  const double *ds[] = {&p->ds_prefetch_bucket, &p->ds_max_live, &p->ds_max_reuse,
                        &p->ds_reduce_bucket, &p->ds_persistence};
  const char *name[] = {"ds_prefetch_bucket", "ds_max_live", "ds_max_reuse", "ds_reduce_bucket",
                        "ds_persistence"};
  for (int i = 0; i < 5; i++)
    if (!(*ds[i] >= 0 && *ds[i] <= 1e15))
      return sc_error_set(err, SC_EINPUT, "plan.%s: %g; valid: 0..1e15 elements", name[i],
                          *ds[i]);
  if (p->ds_reduce_bucket < 1)
    return sc_error_set(err, SC_EINPUT,
                        "plan.ds_reduce_bucket: %g; valid: at least 1 element (DeepSpeed's "
                        "default 5e8)",
                        p->ds_reduce_bucket);
  return SC_OK;
}

static int moe_keys(const sc_scenario *s, sc_error *err) {
  const sc_plan *p = &s->plan;
  if (!(p->moe_imbalance >= 1.0 && p->moe_imbalance <= 1024))
    return sc_error_set(err, SC_EINPUT,
                        "plan.moe_imbalance: %g; valid: 1 (balanced) to 1024 (tokens of the "
                        "busiest expert-parallel rank over the mean)",
                        p->moe_imbalance);
  int moe = s->model.kind == SC_MODEL_TRANSFORMER && s->model.tf.experts > 1;
  if (p->moe_imbalance > 1.0 && s->model.kind == SC_MODEL_TRANSFORMER && !moe)
    return sc_error_set(err, SC_EINPUT,
                        "plan.moe_imbalance: %g needs an MoE model (model.experts > 1); valid: 1",
                        p->moe_imbalance);
  if (!moe) return SC_OK;
  /* DeepSpeed's engine asserts "MoE not supported with Stage 3" when the
   * model holds its MoE layers (deepspeed/runtime/engine.py,
   * _configure_zero_optimizer; recalled, not in ../shared): its stages 1
   * and 2 shard the experts over their expert-data-parallel group
   * (stage_1_and_2.py), its stage 3 partitions every parameter over the
   * data-parallel group and has no expert groups. With ep 1 the experts
   * are plain modules (a Hugging Face MoE), gathered with the rest. */
  if (p->zero >= 3 && p->fsdp_impl == SC_FSDP_DEEPSPEED && p->ep > 1)
    return sc_error_set(err, SC_EINPUT,
                        "plan.ep: %d with DeepSpeed ZeRO-3 (plan.fsdp_impl \"deepspeed\"), which "
                        "DeepSpeed's engine refuses for its MoE layers (MoE not supported with "
                        "stage 3); valid: ep 1 (the experts gathered over the data-parallel group "
                        "like the rest), plan.zero 2 (DeepSpeed shards the experts over the "
                        "expert-data-parallel group), or plan.fsdp_impl \"fsdp2\" (torchtitan "
                        "shards experts over their own group)",
                        p->ep);
  /* the busiest rank gets each token at most min(topk, experts per rank)
   * times, against topk / ep of every token on average */
  const sc_transformer *m = &s->model.tf;
  int topk = m->topk > 0 ? m->topk : 1, local = m->experts / (p->ep > 0 ? p->ep : 1);
  double most = (double)p->ep * (topk < local ? topk : local) / topk;
  if (p->moe_imbalance > most * (1 + 1e-12))
    return sc_error_set(err, SC_EINPUT,
                        "plan.moe_imbalance: %g is more than the busiest of ep %d ranks can hold "
                        "(at most %d of each token's experts are on one rank); valid: 1..%g",
                        p->moe_imbalance, p->ep, topk < local ? topk : local, most);
  return SC_OK;
}

int plan_fsdp_moe(const sc_scenario *s, sc_error *err) {
  int rc = fsdp_keys(&s->plan, err);
  if (!rc) rc = moe_keys(s, err);
  return rc ? rc : plan_moe(s, err);
}
