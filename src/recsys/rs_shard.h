/*
 * rs_shard.h -- the iteration time of one sharding (module prefix: rs_).
 *
 * A prepared context holds what every evaluation of one job shares (the
 * tables' statistics, the dense part's time, the collective group) and
 * per-GPU scratch arrays sized once, so the planner evaluates plans
 * without allocating.
 */
#ifndef SC_RECSYS_RS_SHARD_H
#define SC_RECSYS_RS_SHARD_H

#include "coll/coll.h"
#include "recsys/rs_dense.h"
#include "recsys/rs_emb.h"

/* Collective volumes of one plan, bytes. */
typedef struct rs_volumes {
  double recv;        /* pooled vectors each GPU receives by all-to-all */
  double a2a;         /* the all-to-all's buffer: the largest sender or recv */
  double rs;          /* row-wise partial sums reduce-scattered over all GPUs */
  double rs_node;     /* table-row-wise partial sums reduce-scattered in a node */
  double ids;         /* lookup ids each GPU sends */
  double dp_grad;     /* replicated tables' gradients all-reduced */
  double allreduce;   /* dense and replicated gradients all-reduced */
  int kinds_used;     /* bit per shard kind */
} rs_volumes;

/* The seconds of a table's last shards (rs_shard_time), a memo: the
 * planner evaluates plans that differ in a table or two, so the other
 * tables' shards recur with the same geometry. A hit returns what the call
 * returned for the same inputs. */
#define RS_MEMO_WAYS 4
typedef struct rs_memo {
  rs_shard_geo g[RS_MEMO_WAYS];
  double fwd[RS_MEMO_WAYS], bwd[RS_MEMO_WAYS]; /* s */
  int n, next;                                 /* entries filled, the next to replace */
} rs_memo;

/* The last collectives timed (coll_nccl_time_ex on the context's groups),
 * a memo as rs_memo: a plan's volumes recur from plan to plan. */
#define RS_COLL_MEMO 16
typedef struct rs_coll_memo {
  int op[RS_COLL_MEMO];
  int node[RS_COLL_MEMO];          /* 1: on rs_ctx.node, 0: on rs_ctx.all */
  double bytes[RS_COLL_MEMO], s[RS_COLL_MEMO];
  int n, next;
} rs_coll_memo;

typedef struct rs_ctx {
  const sc_rs_job *j;         /* borrowed */
  rs_tstat *st;               /* owned: one per table */
  rs_memo *memo;              /* owned: one per table */
  rs_coll_memo *cmemo;        /* owned: one */
  rs_dense_time dense;        /* per local batch */
  rs_dense_time dense_global; /* per global batch (a bottom MLP on GPU 0) */
  coll_group all;             /* every GPU */
  coll_group node;            /* the GPUs of one node */
  coll_intra intra;
  double l2;                  /* L2 bytes */
  double act_b;               /* bytes per activation element */
  double headroom;            /* bytes kept free on every GPU (the planner's
                                 headroom; 0 from rs_ctx_open): a plan fits
                                 when its fullest GPU holds at most the GPU's
                                 memory less this */
  int nodes;
  /* scratch, gpus entries each (owned) */
  double *fwd, *bwd, *mem, *send, *lookups;
  int *shards;                /* shards per GPU; owns xops and xfops too */
  int *xops;                  /* extra framework ops per GPU (tables of several features) */
  int *xfops;                 /* of them, the forward pass's */
  /* what the last rs_eval found beyond its result (rs_trace.c reads them;
     fwd and bwd above hold its per-GPU lookup seconds) */
  rs_volumes vol;             /* its collective volumes */
  double allreduce_s;         /* its whole all-reduce, hidden or not, seconds */
} rs_ctx;

/* Prepare c for job j (checked). SC_OK, SC_EINPUT, SC_ENOMEM. */
int rs_ctx_open(rs_ctx *c, const sc_rs_job *j, sc_error *err);
void rs_ctx_close(rs_ctx *c);

/* Check plan p against the job: SC_OK, or SC_EINPUT naming the table. */
int rs_plan_check(const rs_ctx *c, const sc_rs_plan *p, sc_error *err);

/* Bytes table t sharded as s puts on each GPU holding a shard (*peak)
 * and on every GPU together (*total), as rs_eval counts them (a plan's
 * GPU holds the sum over its shards plus the dense part's activations). */
void rs_shard_mem(const rs_ctx *c, int t, const sc_rs_shard *s, double *peak, double *total);

/* Evaluate a checked plan into r; r's per-GPU arrays are filled when
 * not NULL (gpus entries, caller-owned). */
void rs_eval(rs_ctx *c, const sc_rs_plan *p, sc_rs_result *r);

/* Seconds a prefetching data reader per node (j's reader_batch_s +
 * reader_sample_s x global_batch / nodes) adds to an iteration of iter_s
 * seconds: what it exceeds iter_s by, else 0. */
double rs_reader_exposed(const sc_rs_job *j, int nodes, double iter_s);

/* Per-GPU seconds of table t placed whole on one GPU (planner): its
 * lookups, and a per-table framework's fixed cost per table. */
double rs_table_tw_s(const rs_ctx *c, int t);

/* Whole tables greedily, heaviest first, on the least-loaded GPU with
 * memory left (less c->headroom); a table that fits none is sliced by columns over the
 * fewest consecutive GPUs it fits on (rows split when none) when `split`.
 * p holds n_tables entries. SC_OK or SC_ENOMEM. (rs_api.c) */
int rs_plan_greedy_tw(const rs_ctx *c, int split, sc_rs_plan *p);

/* Plan p made to fit as the planner makes a seed that does not fit fit
 * (steepest descent: the move of one table with the lowest rank key, step
 * by step, where a step takes at most 8,192 evaluations; rs_plan.c
 * fit_seed); p is left as it is when it fits, when no plan can fit (a
 * floor under every plan's fullest GPU exceeds it: mem_floor) or the case
 * is larger. r
 * (per-GPU arrays caller-owned, as rs_eval's) gets p's result. SC_OK or
 * SC_ENOMEM. */
int rs_plan_fit(const rs_ctx *c, sc_rs_plan *p, sc_rs_result *r);

#endif
