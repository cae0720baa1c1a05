/*
 * segmemo.h -- a memo of lowered segments, for a search (module prefix:
 * segm_).
 *
 * The memo of lowered plans (lcache.h) misses whenever a plan's graph
 * differs from every remembered one, yet most of such a graph is often
 * already known: the interleaved (vpp) and partial-recomputation variants
 * of a plan, and its ZeRO stages once those are lowered, consist of the
 * same segments (one block instance under one strategy) in other runs and
 * stages. lower_segment is a pure function of
 *
 *   - the workload graph (the memo belongs to one job: one graph),
 *   - the resolved scenario, less the fields it never reads: the ZeRO
 *     stage and the recomputation mode (it reads them only through the
 *     segment's strategy, below), vpp and the schedule, recompute_layers
 *     and offload_layers (read by build_chain, build_stage and the engine,
 *     never by lower_segment or what it calls) -- the segment's context;
 *   - the block and its strategy, with the ZeRO stage reduced to "3 or
 *     not" (groups() reads only zero >= 3: ZeRO 3's HSDP replica group)
 *     and the recomputation mode set aside (lower_segment only records
 *     it; the selective modules' re-run counts are in the tasks whatever
 *     the mode);
 *   - the execution graph it writes into only through the indices of the
 *     groups it adds (xg_add_group: an existing group's index, or a new
 *     one at the end).
 *
 * The context is also what the engine's memo of queues (engine/qmemo.h)
 * relies on: a segment's number stands for its context, and the queues
 * read fields lower_segment never does (cuda_graphs, attention,
 * moe_grouped_gemm, the cluster; framework_eager too, which lower_segment
 * also reads for a CNN's pooling kernels, cost/pool.h). A field may be set aside
 * here (segmemo.c, normalise) only when neither reads it; tests/
 * test_memo_mix.c turns such fields one at a time and fails otherwise.
 *
 * So the memo keys a segment by (context, block, strategy so reduced),
 * keeps its tasks and its segment record with every group index replaced
 * by the ordinal of the group call that returned it, and the list of
 * those calls; a hit replays the calls on the new graph (same arguments,
 * so the same groups in the same order as lower_segment would add), maps
 * the ordinals back to indices, appends the tasks and the segment, and
 * writes the plan's ZeRO stage and recomputation mode into it. Each
 * segment remembered gets a number (xg_segment.memo_id) that the engine's
 * memo of queues keys on (engine/qmemo.h): segments of one number have
 * the same tasks and fields but for those two, in the same context. The graph
 * is then what lower_plan gives without the memo: tests/test_lcache.c and
 * tests/test_segmemo.c compare whole search spaces; built with
 * SC_DEBUG_CHECKS, lcache.c lowers a sample of the plans that took
 * segments from here again without it and asserts the same graph.
 *
 * One memo per job (per thread): no sharing, no locks. Memory:
 * SEGM_CONTEXTS scenarios (4 KiB each) and SEGM_SLOTS segments with their
 * tasks (arrays grown once, then reused: no allocation once warm).
 */
#ifndef SC_LOWER_SEGMEMO_H
#define SC_LOWER_SEGMEMO_H

#include <stdint.h>

#include "exec/xg.h"
#include "plan/strategy.h"
#include "stepcast.h"

#define SEGM_CONTEXTS 16  /* scenarios remembered (least recently used out) */
#define SEGM_SLOTS 64     /* segments remembered (least recently used out) */
#define SEGM_CALLS 16     /* group calls of one segment (groups() makes 5-6) */

/* One xg_add_group call of a segment's lowering and what it returned. */
typedef struct segm_call {
  xg_group_kind kind;
  int ranks, stride;
  int index;              /* its result in the graph lowered into */
} segm_call;

typedef struct segm_ctx {
  uint64_t serial;        /* 0 = unused; else unique over the memo's life */
  uint64_t hash;          /* of key's plan */
  uint64_t stamp;         /* last use */
  sc_scenario key;        /* the resolved scenario, normalised (segm_begin) */
} segm_ctx;

typedef struct segm_slot {
  uint64_t ctx;           /* serial of its context; 0 = unused */
  uint64_t id;            /* unique to this filling (xg_segment.memo_id) */
  uint64_t stamp;         /* last use */
  int block;
  strat st;               /* reduced (segmemo.c, key_strat) */
  xg_segment seg;         /* first_task 0; dp_group, rep_group as call
                             ordinals (-1 stays -1) */
  xg_task *tasks;         /* owned; a collective's group as a call ordinal */
  int n_tasks, cap_tasks;
  segm_call calls[SEGM_CALLS];
  int n_calls;
} segm_slot;

typedef struct segm {
  segm_ctx *ctxs;         /* owned, SEGM_CONTEXTS, allocated on first use;
                             ctxs[0 .. n_ctxs) filled, the rest never
                             read (not yet written: no page touched) */
  int n_ctxs;
  segm_slot *slots;       /* owned, SEGM_SLOTS, allocated on first use;
                             slots[0 .. n_slots) set, the rest never read */
  int n_slots;
  uint64_t cur;           /* serial of the context of the plan being lowered */
  uint64_t serials;       /* contexts made so far */
  uint64_t ids;           /* segments remembered so far */
  uint64_t clock;         /* uses so far, for eviction */
  int cur_slots[SEGM_SLOTS]; /* the slots of context `cur` (segm_begin
                             lists them, segm_keep adds to them; a slot
                             listed may have been emptied since) */
  int n_cur;
  long hits, misses;      /* segments, for tests and benchmarks */
} segm;

void segm_init(segm *m);
void segm_free(segm *m);
/* Forget every context and segment, keeping the slots' task arrays
 * (lcache_clear); serials and ids go on counting (unique over the
 * memo's life). */
void segm_clear(segm *m);

/* Start lowering the resolved scenario s: find or make its context. SC_OK
 * or SC_ENOMEM. */
int segm_begin(segm *m, const sc_scenario *s);

/* Block b under strategy st from the memo, appended to x (its tasks, the
 * groups it adds, the segment with st's ZeRO stage and recomputation
 * mode, its memo_id): the new segment's index; -1 when the memo does not
 * hold it; -2 when x cannot grow. */
int segm_fetch(segm *m, int b, const strat *st, xg *x);

/* Remember segment `seg` of x (and tag it with its memo_id), just lowered
 * for block b under strategy st
 * with the group calls calls[0..n_calls) (n_calls > SEGM_CALLS: too
 * many, not remembered). 0, or -1 when out of memory (nothing is
 * remembered; reported like any allocation of the lowering, so that
 * fault injection sees every failure). */
int segm_keep(segm *m, int b, const strat *st, xg *x, int seg, const segm_call *calls,
               int n_calls);

#endif /* SC_LOWER_SEGMEMO_H */
