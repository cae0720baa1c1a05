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

/* The pieces of a step the timeline lays out: per micro-batch forward
 * and backward seconds of the first, a middle and the last pipeline stage
 * (all model chunks of the stage together), one pipeline send/recv, and
 * what follows the pipeline flush. */
typedef struct step_costs {
  int stages;             /* pp */
  int vpp;                /* model chunks per stage (1 unless interleaved) */
  int micro_batches;      /* per pipeline per step */
  int gpipe;              /* 1 = all forwards, then all backwards */
  double f[3], b[3];      /* first, middle, last stage, seconds */
  double p2p;             /* one activation send/recv between stages, s */
  double dp;              /* exposed data-parallel communication, s */
  double opt;             /* optimizer step, s */
} step_costs;

/* Fill c for scenario in (resolved here). SC_OK or the resolve error. */
int step_costs_of(const sc_scenario *in, step_costs *c, sc_error *err);

/* Memory per GPU of the most loaded stage (stage 0 in 1F1B). */
void step_memory(const sc_scenario *s, int micro_batches, sc_memory *out);

#endif
