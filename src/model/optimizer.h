/*
 * optimizer.h -- the optimizer of a CNN or BERT preset (model.optimizer,
 * sc_optimizer): what one update step moves through HBM per parameter and
 * the optimizer state it keeps per parameter (module prefix: optim_).
 *
 * The names are those src/recsys reads for training.optimizer (sgd,
 * adagrad, adam), with momentum, lamb, and adamw as a name of adam (the
 * decoupled weight decay moves no bytes of its own in a fused kernel).
 * The transformer and JSON-graph builders keep Adam (graph.c).
 */
#ifndef SC_MODEL_OPTIMIZER_H
#define SC_MODEL_OPTIMIZER_H

#include "graph/graph.h"
#include "stepcast.h"

/* The names model.optimizer accepts, for error messages. */
#define OPTIM_VALID "sgd, momentum, adam, adamw, lamb or adagrad"

/* The name of o ("sgd", ...; "default" for SC_OPT_DEFAULT). */
const char *optim_name(sc_optimizer o);

/* The optimizer called s into *out: SC_OK, or SC_EINPUT for a name that
 * is none of OPTIM_VALID (*out untouched). */
int optim_from_name(const char *s, sc_optimizer *out);

/* Check model->optimizer (SC_OPT_DEFAULT stays blank: resolving leaves a
 * complete preset as it is): SC_OK, or SC_EINPUT with err naming
 * model.optimizer and the valid names. */
int optim_check(const sc_model *model, sc_error *err);

/* For the builders that keep their own optimizer (transformer, graph:
 * `kind`, updating with `uses`): SC_OK when model->optimizer is blank
 * (SC_OPT_DEFAULT), else SC_EINPUT with err naming model.optimizer, the
 * value, what the model updates with and what is valid. The JSON loader
 * refuses the key on these models in the same way (src/load/scenario.c);
 * this makes the C API do the same instead of ignoring it. */
int optim_check_blank(const sc_model *model, const char *kind, const char *uses, sc_error *err);

/* The optimizer the model updates with: its own, else preset_default. */
sc_optimizer optim_of(const sc_model *model, sc_optimizer preset_default);

/* The graph's optimizer for the resolved o: update bytes per parameter
 * and state bytes per parameter. */
void optim_apply(sc_optimizer o, wg_optimizer *g);

/* The precision-aware optimizer (plan.main_params_dtype, exp_avg_dtype,
 * exp_avg_sq_dtype; plan_precision_aware), per parameter:
 * optim_state_bytes: the optimizer's state -- `state` (the graph's) where
 * the plan keeps the moments in fp32, else Adam's two moments at their
 * dtypes' bytes (4, 2, 2, 1); optim_master_bytes: the master copy of a
 * 16-bit parameter -- 4, 2 in fp16, or the 2 bytes of the remainders
 * (plan.param_remainders); optim_update_bytes: the HBM bytes of one update
 * -- `update` (the graph's fused figure), and for each state kept in less
 * than fp32 its round trip through an fp32 temporary (optimizer.c). */
double optim_state_bytes(const sc_plan *p, double state);
double optim_master_bytes(const sc_plan *p);
double optim_update_bytes(const sc_plan *p, double update);

#endif
