/*
 * lower.h -- compile a workload graph and a plan into an execution graph
 * (module prefix: lower_).
 *
 * For every distinct (block, per-layer strategy) the lowering walks the
 * block's operators in order and tracks how each tensor is laid out over
 * the tensor-parallel group:
 *
 *   REPL  every rank holds the whole tensor
 *   SEQ   the sequence is split over the ranks (sequence parallelism)
 *   FEAT  the features (or heads) are split
 *   PART  every rank holds partial sums of the whole tensor
 *
 * An operator states what it needs (a column-parallel linear layer the
 * whole input, a row-parallel one split features, an element-wise op
 * anything but partial sums, ...) and the lowering inserts what turns one
 * layout into another: an all-gather (SEQ -> REPL), an all-reduce or,
 * under sequence parallelism, a reduce-scatter (PART -> REPL / SEQ), a
 * free local slice (REPL -> SEQ / FEAT). Expert operators get the
 * expert-parallel all-to-alls around them, attention the context-parallel
 * ring of keys and values, and the attention operator expands into the
 * kernels of the plan (FlashAttention or Megatron-LM's unfused
 * baddbmm + softmax + dropout + bmm). This reproduces where Megatron-LM
 * places its collectives (tests/test_lower.c) and extends to any graph.
 *
 * Between layers of different strategies (sequence parallelism on/off,
 * another tp x cp split) a re-layout segment is inserted.
 */
#ifndef SC_LOWER_H
#define SC_LOWER_H

#include "exec/xg.h"
#include "graph/graph.h"
#include "stepcast.h"

/* Working memory of the lowering, reused across calls (owned by a job). */
/* Layers first..first+n-1 in one segment, a re-layout before the first
 * of them or none. */
typedef struct lower_piece {
  int first, n;              /* layers */
  int seg;                   /* their segment */
  int trans;                 /* a re-layout segment before them, or -1 */
} lower_piece;

typedef struct lower_scratch {
  void *state;               /* per tensor of the graph */
  int cap_state;
  lower_piece *pieces;       /* the layers in order, in pieces (at most one
                                per layer) */
  int n_pieces, cap_pieces;
  int stage_layers[SC_MAX_PP_LAYOUT]; /* layers of virtual stage k*pp + s */
  int stage_first[SC_MAX_PP_LAYOUT];  /* its first layer */
} lower_scratch;

void lower_scratch_free(lower_scratch *s);

/* Check a plan (resolved against the model and cluster) against the
 * graph: pp divides its layers, tp divides what tensor parallelism splits
 * in every layer's strategy, the overrides name existing blocks and
 * layers, ... SC_OK or SC_EINPUT naming the key path, the value, the
 * operator and what would be valid. */
int lower_check(const wg_graph *g, const sc_scenario *s, sc_error *err);

/* Lower the resolved scenario's plan on graph g into x (emptied first).
 * The stages of x are the pipeline stages 0..pp-1 in order. SC_OK or
 * SC_ENOMEM. */
int lower_plan(const wg_graph *g, const sc_scenario *s, lower_scratch *scr, xg *x,
               sc_error *err);

/* lower_plan, taking the segments it needs from memo (segmemo.h: those an
 * earlier plan of the same job lowered alike) and remembering the ones it
 * lowers: the same graph as lower_plan's. memo NULL: lower_plan. */
struct segm;
int lower_plan_memo(const wg_graph *g, const sc_scenario *s, lower_scratch *scr,
                    struct segm *memo, xg *x, sc_error *err);

/* The printable name of a task (prefix + name) into buf. */
const char *lower_task_name(const xg_task *t, char *buf, size_t cap);

#endif /* SC_LOWER_H */
