/*
 * rs_model.h -- recommendation models: the table-list grammar and the
 * derived sizes of a model (module prefix: rs_; the public part is
 * sc_rs_tables_parse & co in stepcast_recsys.h).
 */
#ifndef SC_RECSYS_RS_MODEL_H
#define SC_RECSYS_RS_MODEL_H

#include "stepcast_recsys.h"

/* Lookups per sample of table t (sum over its features). */
double rs_table_lookups(const sc_rs_table *t);
/* Width of the bottom MLP's output (the dense features when none). */
int rs_bottom_out(const sc_rs_model *m);
/* SC_OK, or SC_EINPUT naming table i and what would be valid. */
int rs_table_check(const sc_rs_table *t, int i, sc_error *err);
/* SC_OK, or SC_EINPUT naming the key of the dense part (model.top_mlp,
 * bottom_mlp, cross_layers, tables) that does not fit the interaction:
 * a top MLP that does not end in one logit, a bottom MLP over no dense
 * features, a dcnv2 without cross layers, only wide tables, a dot over
 * tables of another width than the bottom output. */
int rs_dense_check(const sc_rs_model *m, sc_error *err);

#endif
