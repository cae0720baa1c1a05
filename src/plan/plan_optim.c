/*
 * plan_optim.c -- the precision-aware optimizer's dtypes (plan.main_params_
 * dtype, exp_avg_dtype, exp_avg_sq_dtype) and the checks Megatron makes
 * (module prefix: plan_).
 *
 * Sources: the choices are megatron/training/arguments.py's
 * (--main-params-dtype fp32 or fp16; --exp-avg-dtype and --exp-avg-sq-dtype
 * fp32, fp16, bf16 or fp8), ../shared/reference/megatron-lm. The
 * combinations refused are megatron/core/optimizer/optimizer_config.py's
 * __post_init__ (recalled: that file is not in ../shared/reference): the
 * precision-aware optimizer is Adam only, needs the distributed optimizer
 * and Transformer Engine's FusedAdam, and without it every one of the
 * dtypes must be fp32. PyTorch FSDP2 refuses the distributed optimizer
 * (arguments.py: "--use-torch-fsdp2 is not supported with MCore's
 * distributed optimizer"), so ZeRO-3 is refused too; Megatron-FSDP's own
 * --megatron-fsdp-main-params-dtype is not modelled.
 */
#include "model/optimizer.h"
#include "plan/plan.h"

int plan_precision_aware(const sc_plan *p) {
  return p->main_params != SC_FP32 || p->exp_avg != SC_FP32 || p->exp_avg_sq != SC_FP32;
}

/* A moment's dtype at key: fp32, fp16, bf16 or fp8. */
static int moment_ok(sc_dtype d, const char *key, sc_error *err) {
  if (d == SC_FP32 || d == SC_FP16 || d == SC_BF16 || d == SC_FP8) return SC_OK;
  return sc_error_set(err, SC_EINPUT,
                      "plan.%s: \"%s\"; valid: \"fp32\", \"fp16\", \"bf16\", \"fp8\" "
                      "(Megatron's choices)",
                      key, sc_dtype_name(d));
}

/* The optimizer the model updates with is Adam: the transformer and graph
 * builders always (graph.c); a CNN or BERT preset when model.optimizer
 * says adam or adamw. */
static int updates_with_adam(const sc_model *m) {
  if (m->kind != SC_MODEL_CNN && m->kind != SC_MODEL_BERT) return 1;
  return m->optimizer == SC_OPT_ADAM;
}

int plan_optim_dtypes(const sc_scenario *s, sc_error *err) {
  const sc_plan *p = &s->plan;
  int rc;
  if (p->main_params != SC_FP32 && p->main_params != SC_FP16)
    return sc_error_set(err, SC_EINPUT,
                        "plan.main_params_dtype: \"%s\"; valid: \"fp32\", \"fp16\" (Megatron's "
                        "choices; bf16 master weights are Megatron-FSDP's, not modelled)",
                        sc_dtype_name(p->main_params));
  if ((rc = moment_ok(p->exp_avg, "exp_avg_dtype", err)) ||
      (rc = moment_ok(p->exp_avg_sq, "exp_avg_sq_dtype", err)))
    return rc;
  if (!plan_precision_aware(p)) return SC_OK;
  if (!updates_with_adam(&s->model))
    return sc_error_set(err, SC_EINPUT,
                        "plan.exp_avg_dtype/exp_avg_sq_dtype/main_params_dtype: the "
                        "precision-aware optimizer is Adam only (Megatron), and model.optimizer "
                        "is \"%s\" (\"default\": the preset's own); valid: model.optimizer "
                        "\"adam\", or all three \"fp32\"",
                        optim_name(s->model.optimizer));
  if (p->zero != 1)
    return sc_error_set(err, SC_EINPUT,
                        "plan.exp_avg_dtype/exp_avg_sq_dtype/main_params_dtype: the "
                        "precision-aware optimizer needs Megatron's distributed optimizer, "
                        "plan.zero 1 (is %d: Megatron refuses it without the distributed "
                        "optimizer, and PyTorch FSDP2 with it); valid: plan.zero 1, or all "
                        "three \"fp32\"",
                        p->zero);
  if (p->amp)
    return sc_error_set(err, SC_EINPUT,
                        "plan.exp_avg_dtype/exp_avg_sq_dtype/main_params_dtype: plan.amp keeps "
                        "fp32 parameters updated by PyTorch's optimizer, not Megatron's "
                        "precision-aware one; valid: plan.amp false, or all three \"fp32\"");
  if (p->main_params != SC_FP32 && (p->dtype == SC_FP32 || p->dtype == SC_TF32))
    return sc_error_set(err, SC_EINPUT,
                        "plan.main_params_dtype: \"%s\", but plan.dtype \"%s\" keeps fp32 "
                        "parameters, which need no master copy; valid: \"fp32\"",
                        sc_dtype_name(p->main_params), sc_dtype_name(p->dtype));
  if (p->main_params != SC_FP32 && p->param_remainders)
    return sc_error_set(err, SC_EINPUT,
                        "plan.param_remainders: the remainders complete bf16 parameters to "
                        "fp32 master weights, and plan.main_params_dtype is \"%s\" (Transformer "
                        "Engine keeps them with fp32 master weights only); valid: one of the two",
                        sc_dtype_name(p->main_params));
  return SC_OK;
}
