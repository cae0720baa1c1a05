/*
 * optimizer.c -- see optimizer.h.
 *
 * Bytes per parameter of one fused update over fp32 parameters (each a
 * read or a write of 4 bytes), and the fp32 state kept per parameter
 * (before ZeRO's sharding; the master copy of 16-bit parameters is
 * engine/memory.c's, not the optimizer's):
 *
 *   sgd       w, g read; w written                           12   0
 *             (TensorFlow's ApplyGradientDescent, torch.optim.SGD
 *             without momentum)
 *   momentum  w, g, buf read; w, buf written                 20   4
 *             (TensorFlow's ApplyMomentum, torch.optim.SGD with
 *             momentum: torchvision's and MLPerf ResNet's scripts)
 *   adam      master, m, v read and written (24), gradient read (4),
 *             16-bit copy written (2), gradient-norm pass (4)  34   8
 *             (apex / PyTorch multi-tensor Adam, Megatron's; the figure
 *             graph.c gives every graph)
 *   lamb      adam's 34, and: stage 1 writes the update (4), the L2 norms
 *             of weights and updates read both (8), stage 2 reads update
 *             and weight and writes the weight (12)           58   8
 *             (apex FusedLAMB's multi_tensor_lamb stage 1 / l2norm /
 *             stage 2, as NVIDIA's BERT and MLPerf BERT run it; recalled,
 *             apex is not in ../shared/reference)
 *   adagrad   w, g, accumulator read; w, accumulator written  20   4
 *             (torch.optim.Adagrad, TensorFlow's ApplyAdagrad)
 */
#include <string.h>

#include "model/optimizer.h"
#include "plan/plan.h"

static const struct {
  const char *name;
  double update, state; /* bytes per parameter */
} optim_tab[SC_OPT_COUNT] = {
    [SC_OPT_DEFAULT] = {"default", 34.0, 8.0},
    [SC_OPT_SGD] = {"sgd", 12.0, 0.0},
    [SC_OPT_MOMENTUM] = {"momentum", 20.0, 4.0},
    [SC_OPT_ADAM] = {"adam", 34.0, 8.0},
    [SC_OPT_LAMB] = {"lamb", 58.0, 8.0},
    [SC_OPT_ADAGRAD] = {"adagrad", 20.0, 4.0},
};

const char *optim_name(sc_optimizer o) {
  return (unsigned)o < SC_OPT_COUNT ? optim_tab[o].name : "?";
}

int optim_from_name(const char *s, sc_optimizer *out) {
  if (!strcmp(s, "adamw")) { /* decoupled decay: Adam's bytes */
    *out = SC_OPT_ADAM;
    return SC_OK;
  }
  for (int i = SC_OPT_SGD; i < SC_OPT_COUNT; i++)
    if (!strcmp(s, optim_tab[i].name)) {
      *out = (sc_optimizer)i;
      return SC_OK;
    }
  return SC_EINPUT;
}

int optim_check(const sc_model *model, sc_error *err) {
  if ((unsigned)model->optimizer >= SC_OPT_COUNT)
    return sc_error_set(err, SC_EINPUT, "model.optimizer: %d is not valid (valid: %s)",
                        (int)model->optimizer, OPTIM_VALID);
  return SC_OK;
}

int optim_check_blank(const sc_model *model, const char *kind, const char *uses, sc_error *err) {
  if (model->optimizer == SC_OPT_DEFAULT) return SC_OK;
  return sc_error_set(err, SC_EINPUT,
                      "model.optimizer: %s (%d) set on a %s model, which updates with %s; "
                      "model.optimizer applies to CNN and BERT presets only (valid here: "
                      "SC_OPT_DEFAULT, 0)",
                      optim_name(model->optimizer), (int)model->optimizer, kind, uses);
}

sc_optimizer optim_of(const sc_model *model, sc_optimizer preset_default) {
  return model->optimizer == SC_OPT_DEFAULT ? preset_default : model->optimizer;
}

void optim_apply(sc_optimizer o, wg_optimizer *g) {
  if ((unsigned)o >= SC_OPT_COUNT) o = SC_OPT_DEFAULT;
  g->bytes_per_param = optim_tab[o].update;
  g->state_bytes_per_param = optim_tab[o].state;
}

/* Megatron's precision-aware optimizer runs Transformer Engine's FusedAdam
 * (transformer_engine/pytorch/optimizers/fused_adam.py; recalled, TE's
 * optimizers are not in ../shared/reference): it keeps exp_avg,
 * exp_avg_sq and the master weights at their dtypes (fp8 moments as
 * Float8Tensors, fp16 ones with a per-tensor scale: negligible bytes),
 * and its step runs the fp32 kernel on fp32 temporaries -- each state not
 * in fp32 is read and written out as an fp32 copy before the kernel
 * (get_unscaled_state) and read and cast back after it (_apply_scale).
 * Counted here: d + 4 before, 4 + d after, for a state of d bytes, beside
 * the kernel's 8; the absmax and scaling passes of fp16 and fp8 states
 * (two or three more fp32 passes) are not counted. */
static double pa_round_trip(sc_dtype d) {
  return d == SC_FP32 ? 0 : 2 * sc_dtype_bytes(d) + 8;
}

double optim_state_bytes(const sc_plan *p, double state) {
  if (p->exp_avg == SC_FP32 && p->exp_avg_sq == SC_FP32) return state;
  return sc_dtype_bytes(p->exp_avg) + sc_dtype_bytes(p->exp_avg_sq);
}

double optim_master_bytes(const sc_plan *p) {
  if (p->main_params != SC_FP32) return sc_dtype_bytes(p->main_params);
  return p->param_remainders ? 2.0 : 4.0;
}

double optim_update_bytes(const sc_plan *p, double update) {
  if (!plan_precision_aware(p)) return update;
  return update + pa_round_trip(p->exp_avg) + pa_round_trip(p->exp_avg_sq) +
         pa_round_trip(p->main_params);
}
