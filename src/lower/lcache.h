/*
 * lcache.h -- a memo of lowered plans, for a search (module prefix:
 * lcache_).
 *
 * lower_plan is a pure function of the workload graph and the resolved
 * scenario, and it is half of what a search spends on a plan (the
 * lowering walks every operator of every distinct block). Many plans of
 * a search lower to the same execution graph: the offloading variants of
 * a plan (offload_layers is read only by the memory model and the
 * engine), its ZeRO stages 0-3 (the lowering records the stage in every
 * segment, `xg_segment.zero`, and reads it nowhere else, except that
 * ZeRO 3 with an HSDP shard adds the replica group) and its
 * recomputation modes none, selective and full (recorded in the segments
 * of layer blocks, `xg_segment.recompute`; the selective modules' re-run
 * counts are in the tasks whatever the mode). The memo keeps the last
 * execution graphs it lowered, keyed by the resolved scenario with those
 * fields set aside (not where per-layer overrides or partial
 * recomputation make them differ from layer to layer), and on a hit
 * writes the plan's stage and mode into the segments: the graph is then
 * exactly what lower_plan gives (tests/test_lcache.c compares whole
 * search spaces; built with SC_DEBUG_CHECKS every hit is lowered again
 * and compared).
 *
 * A miss is lowered with the memo of segments (segmemo.h), so that only
 * the segments no earlier plan had are lowered again.
 *
 * One memo per job (so per thread): no sharing, no locks. Memory, touched
 * only as far as it is used: a table of LCACHE_SLOTS small slot headers
 * (4 KiB), and for each slot once it is first filled an entry, the key
 * (its plan less the overrides and the stage layout, which a search
 * leaves zero: 320 bytes) and an execution graph whose arrays are sized
 * once to the largest graph seen and then reused. The key's model, cluster and
 * the rest of the scenario are kept once per memo (`ctx`): a search
 * evaluates every plan against one model and cluster, and a look-up
 * with another forgets every slot. A memo that is given back to the
 * system after each search (a fresh thread, a fresh process) pays a page
 * fault for each page it touches the first time (docs/search.md,
 * "Threads: the memory a thread touches"): hence no large array
 * allocated zeroed and read before it is written.
 */
#ifndef SC_LOWER_LCACHE_H
#define SC_LOWER_LCACHE_H

#include <stdint.h>

#include "exec/xg.h"
#include "graph/graph.h"
#include "lower/lower.h"
#include "lower/segmemo.h"
#include "stepcast.h"

#define LCACHE_WAYS 8                   /* slots a key may sit in */
#define LCACHE_SETS 16                  /* power of two; a search's hits come from
                                           a plan's neighbours in the space (its
                                           ZeRO, recomputation and offloading
                                           variants): 128 slots hit as often as
                                           256, and a thread touches half the
                                           memory (docs/search.md, "Threads: a
                                           crew ...") */
#define LCACHE_SLOTS (LCACHE_WAYS * LCACHE_SETS)

/* A key's bytes kept in every entry: its plan but for the overrides and
 * the explicit stage layout, 2 KiB of zeros in a search's plans. */
#define LCACHE_KEY                                                     \
  (sizeof(sc_plan) - sizeof(((sc_plan *)0)->overrides) -               \
   sizeof(((sc_plan *)0)->pp_layout))

/* What a filled slot holds. */
typedef struct lcache_entry {
  unsigned char key[LCACHE_KEY]; /* the resolved scenario's plan,
                         normalised, less its overrides and stage layout
                         (lcache.c, pack); the rest of the scenario is
                         lcache.ctx */
  int plain;          /* 1: the key's overrides and stage layout are all
                         zero bytes */
  sc_plan *full;      /* owned: the whole plan, normalised (lcache.c,
                         key_of), where not plain (allocated once one is) */
  xg x;               /* its execution graph (owned) */
} lcache_entry;

typedef struct lcache_slot {
  uint64_t hash;      /* of key.plan */
  uint64_t stamp;     /* last use, for eviction (least recently used) */
  lcache_entry *e;    /* owned; NULL until the slot is first filled */
  int used;           /* e holds a key of the current ctx */
} lcache_slot;

typedef struct lcache {
  lcache_slot *slots; /* owned, LCACHE_SLOTS, allocated on first use */
  sc_scenario ctx;    /* the scenario of the last look-up: every used
                         slot's key has its bytes outside the plan */
  int has_ctx;        /* ctx is set */
  uint64_t clock;     /* lookups so far */
  xg most;            /* counts only: the most tasks, segments, runs,
                         stages and groups a graph of this memo held (a
                         slot used for the first time is sized to them
                         at once, not grown element by element) */
  long hits, misses;  /* counts, for tests and benchmarks */
  segm segs;          /* the segments of the plans lowered on a miss
                         (segmemo.h): a miss re-lowers only the segments
                         no earlier plan had */
  long checked;       /* SC_DEBUG_CHECKS: misses that took segments from
                         segs (every SEGM_CHECK_EVERY-th is lowered again
                         without them and compared) */
} lcache;

void lcache_init(lcache *c);
void lcache_free(lcache *c);
/* Forget every plan and segment, keeping the slots' graphs' arrays and
 * the sizes they were given (job_park: a job reused for another search). */
void lcache_clear(lcache *c);

/* The execution graph of the resolved scenario s on graph g, exactly as
 * lower_plan(g, s, scr, x, err) would lower it: a remembered one, or
 * lowered now into the least recently used slot. *out is borrowed from
 * the memo, valid until the next call. SC_OK, SC_ENOMEM, or lower_plan's
 * error (the slot is then forgotten). */
int lcache_lower(lcache *c, const wg_graph *g, const sc_scenario *s, lower_scratch *scr,
                 const xg **out, sc_error *err);

/* 1 when a and b hold the same execution graph, field by field (the
 * check behind the memo's tests). */
int lcache_xg_equal(const xg *a, const xg *b);

#endif /* SC_LOWER_LCACHE_H */
