/*
 * qmemo.h -- a memo of the analytic engine's queue summaries per segment,
 * for a search (module prefix: qmemo_).
 *
 * Costing a plan starts with the queues of every segment of its execution
 * graph (analytic.c, build_queues: each task's GPU and host time through
 * the host/GPU queue model, summarised per segment and pass as eng_qsum).
 * In a search most segments recur from plan to plan: the ZeRO stages,
 * recomputation modes, interleaving (vpp) and offloading variants of a
 * plan hold the same segments. A segment's two summaries read:
 *
 *   - its tasks and fields, and the groups its collectives run on. A
 *     segment the memo of segments made (lower/segmemo.h) carries a number
 *     (xg_segment.memo_id) shared only by segments of the same tasks,
 *     groups and fields in the same context (the scenario less zero,
 *     recompute, vpp, schedule, recompute_layers and offload_layers),
 *     but for the ZeRO stage and recomputation mode written into them. Of
 *     the stage the queues read only zero >= 3 (an FSDP1 unit's launches,
 *     fsdp.c), of the mode all of it (the recomputation passes);
 *   - the scenario: of the fields that context sets aside the queues read
 *     none (they read the plan's kernels, dtype, framework and FSDP
 *     switches, the cluster, and the graph's micro-batch count: all in the
 *     context);
 *   - the engine's mode: net_bound (a topology's collectives bounded, or
 *     run) and net_alone; the topology and the job's memos are the job's.
 *
 * So the key is (memo_id, zero >= 3, recompute, mode); a segment without a
 * number (a re-layout, a plan lowered without the memos) is always
 * costed. Built with SC_DEBUG_CHECKS, every QMEMO_CHECK_EVERY-th hit is
 * costed again and compared bit for bit (analytic.c).
 *
 * One memo per job (per thread). Memory: QMEMO_SLOTS x 2 summaries (56
 * bytes each), allocated once and each set of it written (emptied) only
 * when a summary is first put into it: a look-up in a set never written
 * reads no slot, so a search touches only the pages of the sets it uses
 * (a page read before it is written faults twice; docs/search.md,
 * "Threads: the memory a thread touches").
 */
#ifndef SC_ENGINE_QMEMO_H
#define SC_ENGINE_QMEMO_H

#include <stdint.h>

#include "engine/engine.h"

#define QMEMO_WAYS 8
#define QMEMO_SETS 256                 /* power of two */
#define QMEMO_SLOTS (QMEMO_WAYS * QMEMO_SETS)
#define QMEMO_CHECK_EVERY 8            /* SC_DEBUG_CHECKS: hits recomputed */

typedef struct qmemo_key {
  uint64_t id;            /* xg_segment.memo_id (0: never remembered) */
  int zero3;              /* 1: the segment's zero >= 3 */
  int recompute;          /* the segment's recompute */
  int mode;               /* eng.net_bound | eng.net_alone << 1 */
} qmemo_key;

typedef struct qmemo_slot {
  qmemo_key k;            /* k.id 0: unused */
  uint64_t stamp;         /* last use */
  eng_qsum qs[2];         /* forward, backward (as eng.qs) */
} qmemo_slot;

typedef struct qmemo {
  qmemo_slot *slots;      /* owned, QMEMO_SLOTS, allocated on first put;
                             a set's slots are set only once its bit in
                             `ready` is */
  uint64_t ready[QMEMO_SETS / 64];
  uint64_t clock;
  long hits, misses;      /* for tests and benchmarks */
} qmemo;

void qmemo_init(qmemo *m);
void qmemo_free(qmemo *m);
/* Forget every summary, keeping the slots (job_park). */
void qmemo_clear(qmemo *m);

/* The two summaries remembered for k, or NULL. Borrowed, valid until the
 * next qmemo_put. */
const eng_qsum *qmemo_get(qmemo *m, const qmemo_key *k);

/* Remember qs[0..2) for k (the least recently used slot of its set goes).
 * 0, or -1 when out of memory (nothing remembered). */
int qmemo_put(qmemo *m, const qmemo_key *k, const eng_qsum *qs);

#endif /* SC_ENGINE_QMEMO_H */
