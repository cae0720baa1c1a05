/*
 * etjoin.h -- a PyTorch execution trace joined with the Kineto trace of
 * the same process into a traced rank (module prefix: ej_).
 *
 * The execution trace (pyet.h) says which host operators ran, on which
 * thread, in which order; it has no times. The Kineto trace has the
 * times of the same operators (its cpu_op and user_annotation events),
 * the runtime calls and the GPU work. The join, as Chakra's trace_link
 * does it:
 *   - each ET thread's operators are matched with the Kineto operators of
 *     one host thread (the thread that matches most): the n-th operator
 *     of a name in record-function order with the n-th of that name in
 *     time order (operators one side lacks, such as ProfilerStep#N, shift
 *     nothing else);
 *   - the matched operators that contain no other matched operator (the
 *     leaves: aten::mm, aten::copy_, c10d::allreduce_, ...) become the
 *     host items of the rank, with their Kineto start and length;
 *   - a runtime call inside a leaf is folded into it: the GPU operations
 *     it launched are launched by the leaf; calls outside every leaf
 *     (the autograd engine's, the optimizer's own) stay host items;
 *   - GPU operations, ProfilerSteps and the collectives' sizes are the
 *     Kineto trace's.
 * The result is linked (tg_link) and replays like any Kineto rank; host
 * time is then per operator, not per runtime call.
 */
#ifndef SC_TRACE_ETJOIN_H
#define SC_TRACE_ETJOIN_H

#include "trace/pyet.h"
#include "trace/tgraph.h"

/* What a join found. */
typedef struct ej_stats {
  long ops;               /* operators of the ET */
  long matched;           /* found in the Kineto trace */
  long leaves;            /* host items made of operators */
  long calls_folded;      /* runtime calls folded into a leaf */
  long calls_kept;        /* runtime calls outside every leaf */
  char first_missing[64]; /* name of the first operator not found; "" */
} ej_stats;

/* Join et with k (a loaded, linked Kineto rank) into out (zeroed). SC_OK,
 * SC_EINPUT when no operator matches (naming both files), SC_ENOMEM. On
 * error out may hold partial data: tg_rank_free it. */
int ej_join(const pet_graph *et, const tg_rank *k, tg_rank *out, ej_stats *st, sc_error *err);

#endif
