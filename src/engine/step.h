/*
 * step.h -- internals shared by the analytic step model and the memory
 * model (module prefix: step_).
 */
#ifndef SC_ENGINE_STEP_H
#define SC_ENGINE_STEP_H

#include "stepcast.h"

/* Parameters held by one GPU of the most loaded pipeline stage, before
 * any ZeRO sharding (tp and ep applied). */
double step_stage_params(const sc_scenario *s, int stage);

/* Memory per GPU of the most loaded stage (stage 0 in 1F1B). */
void step_memory(const sc_scenario *s, int micro_batches, sc_memory *out);

#endif
