/*
 * sched.h -- collectives as schedules of point-to-point transfers
 * (module prefix: sched_), and the table of algorithm plug-ins.
 *
 * A schedule is a list of steps; a step is a set of transfers that run
 * at the same time, and starts when the previous step has finished
 * (barrier between steps). A step may be marked to repeat k times when
 * the same transfers happen k times in a row (a ring's 2(n-1) steps), so
 * a 16,384-rank ring is one step, not 32,766.
 *
 * Every algorithm is one file (allreduce_ring.c, alltoall.c, ...) that
 * fills a coll_alg: a builder of its schedule and its closed form on
 * uniform links (per-transfer latency alpha, per-rank bandwidth bw), so
 * the flow engine and the closed form can be compared where the closed
 * form is exact.
 */
#ifndef SC_COLL_SCHED_H
#define SC_COLL_SCHED_H

#include "coll/coll.h"

/* Destination meaning "the NVSwitch the source GPU hangs off" (in-switch
 * reduction), and source meaning "that NVSwitch" for the multicast. */
#define SCHED_SWITCH (-1)

typedef struct sched_xfer {
  int src, dst;     /* ranks 0..n-1, or SCHED_SWITCH (then `via` is the rank) */
  int via;          /* the rank whose switch is meant, else -1 */
  double bytes;
} sched_xfer;

typedef struct sched_step {
  int first, count; /* transfers x[first .. first+count) */
  int repeat;       /* the step runs this many times in a row, >= 0 */
} sched_step;

typedef struct sched {
  sched_xfer *x;
  int nx, capx;
  sched_step *s;
  int ns, caps;
  int counting;     /* 1: sched_begin and sched_add only count (sched_size) */
  double counted;   /* transfers counted while counting */
} sched;

/* The most transfers one schedule may hold: beyond it the schedule and
 * the flow engine's state for it would take gigabytes (an O(n^2)
 * all-to-all on 16,384 ranks is 268 million transfers). */
#define SCHED_MAX_XFERS (1 << 22)
/* Bytes per transfer: the schedule's entry and the flow engine's state
 * of its flow and route (src/net/flow.c), for the estimate in messages. */
#define SCHED_BYTES_PER_XFER 160.0

/* What an algorithm needs to know. */
typedef struct sched_params {
  int n;            /* ranks */
  int ppn;          /* ranks per node (hierarchical algorithms), divides n */
  int root;         /* broadcast/reduce root */
  int chunks;       /* pipelining chunks (broadcast, reduce), >= 1 */
  double bytes;     /* nccl-tests size (see coll.h) */
  double alpha;     /* closed forms: latency of one transfer, s */
  double bw;        /* closed forms: bandwidth of each rank's link, bytes/s */
} sched_params;

typedef struct coll_alg {
  const char *name;  /* "ring", "rhd", "tree", "hier", "nvls", "direct", ... */
  coll_op op;
  int (*build)(sched *s, const sched_params *p); /* 0, or -1 out of memory */
  double (*closed)(const sched_params *p);       /* seconds */
  int exact;         /* closed form exact on an idle ring / non-blocking switch */
  int pow2;          /* 1: the ranks must be a power of two */
} coll_alg;

void sched_init(sched *s);
void sched_free(sched *s);
void sched_clear(sched *s);
/* Open a new step that repeats `repeat` times (0: the step does not run,
 * as in a ring of one rank); 0 or -1. */
int sched_begin(sched *s, int repeat);
/* Add a transfer to the open step; 0 or -1. */
int sched_add(sched *s, int src, int dst, double bytes);
int sched_add_switch(sched *s, int src, int dst, int via, double bytes);
/* The transfers alg's schedule for p would hold, counted without
 * building it (no allocation). */
double sched_size(const coll_alg *alg, const sched_params *p);

/* Bytes sent over all steps (repeat counted). */
double sched_bytes(const sched *s);

/* The plug-ins. */
int coll_alg_count(void);
const coll_alg *coll_alg_at(int i);
/* The plug-in for op and name; NULL if none. */
const coll_alg *coll_alg_find(coll_op op, const char *name);

#endif /* SC_COLL_SCHED_H */
