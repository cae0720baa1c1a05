/*
 * strategy.h -- the strategy of each layer: the plan with its per-layer
 * overrides applied (module prefix: strat_).
 *
 * A plan (sc_plan) is a strategy tree of two levels: the plan's own
 * degrees and switches are the default, and its overrides change them for
 * ranges of layers or for every instance of a named block, later
 * overrides winning. strat_of gives what one block instance runs with.
 */
#ifndef SC_PLAN_STRATEGY_H
#define SC_PLAN_STRATEGY_H

#include "stepcast.h"

typedef struct strat {
  int tp, cp, ep;
  int sp;                 /* 0/1, 0 when tp == 1 */
  int zero;               /* 0..3 */
  sc_recompute recompute;
  int hp;                 /* 1 = this layer's GEMMs stay in 16 bits in an
                             fp8/fp4 plan (first/last layers in bf16) */
} strat;

/* The strategy of instance `layer` (its index over all layer-block
 * instances, or -1 for a first/last block) of the block named `block`,
 * under the resolved plan p. First and last blocks (embedding, head) are
 * not recomputed unless an override names them. */
void strat_of(const sc_plan *p, const char *block, int layer, strat *out);

/* 1 when a and b are the same strategy. */
int strat_equal(const strat *a, const strat *b);

#endif /* SC_PLAN_STRATEGY_H */
