/*
 * stepcast_recsys.h -- recommendation models in the public API: embedding
 * tables, their sharding over GPUs, the iteration time of a sharding and a
 * planner that searches for the fastest one (docs/recsys.md).
 *
 *   sc_rs_job (model + cluster + training)  --sc_rs_evaluate(plan)-->  sc_rs_result
 *                                           --sc_rs_plan_search-->     sc_rs_plans
 *
 * Units as in stepcast.h: seconds, bytes, bytes per second per direction.
 * Functions that can fail on user input return SC_OK or an sc_code and
 * fill sc_error with a message naming the table or key and what would be
 * valid. Every function is reentrant; objects with a _free own memory.
 */
#ifndef STEPCAST_RECSYS_H
#define STEPCAST_RECSYS_H

#include "stepcast.h"

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#pragma GCC visibility push(default)
#endif

/* ------------------------------------------------------------- tables */

/* How the ids of a table's lookups are distributed over its rows. */
typedef enum sc_rs_dist {
  SC_RS_UNIFORM = 0,   /* every row equally likely */
  SC_RS_POWERLAW,      /* row of rank i with probability ~ i^-alpha */
  SC_RS_HISTOGRAM      /* piecewise uniform: hist_rows/hist_mass pairs */
} sc_rs_dist;

#define SC_RS_MAX_FEATURES 4   /* features that may read one table */
#define SC_RS_MAX_HIST 8       /* pieces of a histogram */

/* One embedding table. */
typedef struct sc_rs_table {
  char name[32];               /* "t0", ... or the user's name */
  double rows;                 /* rows (> 0) */
  int dim;                     /* width, elements */
  int features;                /* features reading it (pooled vectors per sample) */
  double hot[SC_RS_MAX_FEATURES]; /* lookups per sample of each feature (pooling factor) */
  int wide;                    /* 1 = the wide (linear) part of Wide&Deep: summed into
                                  the output, not an input of the deep MLP */
  sc_rs_dist dist;
  double alpha;                /* power-law exponent (SC_RS_POWERLAW) */
  int hist_n;                  /* histogram pieces (SC_RS_HISTOGRAM) */
  double hist_rows[SC_RS_MAX_HIST]; /* cumulative fraction of rows, increasing to 1 */
  double hist_mass[SC_RS_MAX_HIST]; /* cumulative fraction of lookups they receive */
} sc_rs_table;

typedef enum sc_rs_interaction {
  SC_RS_DOT = 0,     /* DLRM: pairwise dot products + the bottom MLP output */
  SC_RS_DCNV2,       /* DCNv2 cross network on the concatenation */
  SC_RS_CONCAT       /* concatenation (Wide&Deep, synthetic models) */
} sc_rs_interaction;

#define SC_RS_MAX_LAYERS 16

/* A recommendation model: tables + dense part. */
typedef struct sc_rs_model {
  char name[64];
  int n_tables;
  sc_rs_table *tables;         /* owned: n_tables (sc_rs_model_free) */
  int dense_features;          /* numerical inputs */
  int n_bottom, bottom[SC_RS_MAX_LAYERS]; /* bottom MLP widths after the input (0 = none) */
  int n_top, top[SC_RS_MAX_LAYERS];       /* top MLP widths after the interaction */
  sc_rs_interaction inter;
  int cross_layers;            /* DCNv2 cross layers */
  int cross_rank;              /* DCNv2 low rank; 0 = full-rank cross weights */
  int concat_pool;             /* concat: average pooling of the concatenated embeddings
                                  with this window and stride before the MLP
                                  (distributed-embeddings synthetic models); 0 = none */
  int dropout;                 /* 1 = dropout after every MLP layer but the top MLP's
                                  last (a uniform float mask drawn per element, applied
                                  forward and backward) */
} sc_rs_model;

void sc_rs_model_free(sc_rs_model *m);

/* Parse a table list into m's tables (replacing them). The grammar
 * (docs/recsys.md): `;`-separated groups COUNTxROWSxDIM@H[+H...], e.g.
 * "1x40000000x128@1;16x10x8@1+10" (COUNT tables of ROWS rows of width DIM,
 * read by one feature per `+`-separated pooling factor H). ROWS may be `?`
 * (unknown: rows set to 0, for the caller to fill). Every table gets
 * distribution `dist` / `alpha`. SC_OK, SC_EINPUT naming the group and what
 * would be valid, SC_ENOMEM. */
int sc_rs_tables_parse(const char *spec, sc_rs_dist dist, double alpha, sc_rs_model *m,
                       sc_error *err);

/* The interaction output width of m (the top MLP's input). */
int sc_rs_interaction_width(const sc_rs_model *m);
/* Dense (MLP, cross network) parameters of m. */
double sc_rs_dense_params(const sc_rs_model *m);
/* Embedding elements of m (sum of rows x dim). */
double sc_rs_embedding_elems(const sc_rs_model *m);

/* ------------------------------------------------------------ training */

typedef enum sc_rs_opt {
  SC_RS_SGD = 0,
  SC_RS_ADAGRAD,       /* one accumulator per element */
  SC_RS_ADAM,          /* two moments per element, rows touched by the batch */
  SC_RS_ADAM_GLOBAL,   /* HugeCTR update_type Global: every row, every step */
  SC_RS_ROWWISE_ADAGRAD /* one accumulator per row (TorchRec's RowWiseAdagrad, FBGEMM's
                           exact_rowwise_adagrad); the dense part under Adagrad */
} sc_rs_opt;

typedef enum sc_rs_kernel {
  SC_RS_FUSED = 0,     /* table-batched fused lookup + backward-and-update kernels
                          (FBGEMM TBE, distributed-embeddings, HugeCTR index tables) */
  SC_RS_HASH,          /* GPU hash table (HugeCTR *Hash embeddings): a probe per key */
  SC_RS_PER_TABLE      /* framework ops per table (TensorFlow + distributed-embeddings):
                          the same traffic, but every table issues its own kernels */
} sc_rs_kernel;

/* Model, cluster and training of one job. */
typedef struct sc_rs_job {
  sc_rs_model model;           /* owned */
  sc_gpu gpu;
  int gpus;                    /* GPUs in the job */
  int gpus_per_node;           /* GPUs per NVLink domain */
  double nvlink_bw;            /* per GPU per direction, bytes/s (0 = GPU's) */
  double nic_bw;               /* per GPU per direction, bytes/s (multi-node) */
  int intra;                   /* 0 auto, 1 NVSwitch, 2 DGX-1 cube-mesh, 3 PCIe */
  long global_batch;           /* samples per iteration */
  sc_dtype dtype;              /* dense compute: fp32, tf32, fp16 (amp) */
  sc_rs_opt opt;
  sc_rs_kernel kernel;
  int emb_bytes;               /* bytes per stored embedding element (4) */
  int eager;                   /* 1 = eager framework: host launches bound small steps */
  int bottom_on_gpu0;          /* 1 = the bottom MLP runs on GPU 0 for the whole batch and
                                  its output joins the all-to-all (NVIDIA's PyTorch DLRM) */
  int pooled_table_type;       /* 1 = lookups write pooled vectors in the table's element
                                  type, cast to the compute type after (PyTorch
                                  embedding_bag, Keras Embedding under mixed precision) */
  int keys_from_reader;        /* 1 = the data reader hands every GPU the keys its shards
                                  serve (HugeCTR): no all-to-all of lookup ids */
  double hash_capacity;        /* rows the GPU hash table of one embedding layer reserves
                                  on every GPU holding a shard of it (kernel hash: HugeCTR's
                                  max_vocabulary_size_per_gpu, i.e. workspace_size_per_gpu_
                                  in_mb x 2^20 / (dim x 4)); the wide tables are one layer,
                                  the others another, and a layer's tables share it in
                                  proportion to their rows; 0, or less than the layer's
                                  rows = the layer's rows */
  double coll_cycle_s;         /* collectives start on a background cycle of this period
                                  (Horovod: 1 ms); each waits half of it, and the host
                                  learns that it ended (the ops reading its output are
                                  launched after it: docs/recsys.md); 0 = none */
  double reader_batch_s;       /* data reader, one per node, prefetching: seconds per
                                  batch (fixed part); 0 with reader_sample_s = not modelled */
  double reader_sample_s;      /* data reader: seconds per sample of the node's share of
                                  the global batch */
  char assumed[128];           /* what the loader took for a key the job leaves out
                                  (a multi-node job's NIC: docs/input.md); "" if nothing */
} sc_rs_job;

/* Defaults: no tables, one A100 80 GB, batch 65536, fp32, SGD, fused. */
void sc_rs_job_default(sc_rs_job *j);
void sc_rs_job_free(sc_rs_job *j);
/* Check the job (every table, the cluster, the batch); SC_EINPUT naming
 * the table or key and what would be valid. */
int sc_rs_job_check(const sc_rs_job *j, sc_error *err);

/* ------------------------------------------------------------ sharding */

typedef enum sc_rs_shard_kind {
  SC_RS_DATA_PARALLEL = 0,  /* replicated on every GPU; gradients all-reduced */
  SC_RS_TABLE_WISE,         /* whole table on GPU `gpu` */
  SC_RS_ROW_WISE,           /* rows split over all GPUs (hash-partitioned) */
  SC_RS_COLUMN_WISE,        /* columns split in `parts` shards on GPUs gpu.. gpu+parts-1 */
  SC_RS_TABLE_ROW_WISE,     /* rows split over the GPUs of node `gpu` */
  SC_RS_SHARD_KINDS
} sc_rs_shard_kind;

typedef struct sc_rs_shard {
  sc_rs_shard_kind kind;
  int gpu;                    /* TW: the GPU; CW: the first GPU; TWRW: the node */
  int parts;                  /* CW: shards (divides dim); else 1 */
} sc_rs_shard;

/* One sharding: a shard spec per table of the job's model. */
typedef struct sc_rs_plan {
  int n;
  sc_rs_shard *s;             /* owned: n (sc_rs_plan_free) */
} sc_rs_plan;

int sc_rs_plan_alloc(sc_rs_plan *p, int n);
void sc_rs_plan_free(sc_rs_plan *p);
const char *sc_rs_shard_name(sc_rs_shard_kind k);   /* "table_wise", ... */
int sc_rs_shard_from_name(const char *name);        /* -1 when unknown */

/* Uniform shardings: every table of kind k (TW: tables placed greedily,
 * heaviest first, on the GPU with the least predicted lookup time that has
 * memory left; with `split` a table that fits no GPU is sliced by columns
 * over the fewest consecutive GPUs it fits on, or split by rows; CW: the
 * most parts <= gpus dividing the width; TWRW: tables dealt over nodes).
 * p is allocated here (sc_rs_plan_free). SC_OK, SC_EINPUT, SC_ENOMEM. */
int sc_rs_plan_uniform(const sc_rs_job *j, sc_rs_shard_kind k, int split, sc_rs_plan *p,
                       sc_error *err);

/* ------------------------------------------------------------- results */

/* Where one iteration's time goes (seconds, on the slowest GPU's path). */
typedef struct sc_rs_result {
  double iter_s;               /* predicted time per iteration */
  double samples_per_s;
  double emb_fwd_s, emb_bwd_s; /* lookups, and backward + optimizer update (slowest GPU) */
  double ids_s;                /* all-to-all of the lookup ids */
  double a2a_fwd_s, a2a_bwd_s; /* all-to-all of pooled embeddings and their gradients */
  double rs_fwd_s, ag_bwd_s;   /* reduce-scatter of row-wise partial sums, all-gather back */
  double a2a_fwd_exposed_s, rs_fwd_exposed_s; /* of a2a_fwd_s, rs_fwd_s: the part the bottom
                                  MLP's forward beside them (run first, then the other)
                                  does not hide; the iteration is the sum of these four
                                  exposed parts and the other phases (docs/output.md) */
  double a2a_bwd_exposed_s, ag_bwd_exposed_s; /* the same beside the bottom MLP's backward */
  double dense_fwd_s, dense_bwd_s; /* MLPs and interaction */
  double allreduce_s;          /* exposed all-reduce of dense and replicated gradients */
  double optimizer_s;          /* dense optimizer step */
  double overhead_s;           /* host launches beyond the GPU, and collectives waiting
                                  for a framework's communication cycle */
  double reader_s;             /* data reader time beyond the rest of the iteration (the
                                  reader bounds it: iter_s >= its time per batch) */
  double ids_bytes;            /* the collectives' buffers per GPU, bytes, as nccl-tests
                                  sizes them (all-to-all: what one rank sends, itself
                                  included; reduce-scatter and all-gather: the whole
                                  input): the lookup ids' all-to-all, */
  double a2a_bytes;            /* the pooled vectors' all-to-all (each way: the larger of
                                  the busiest sender's and what every GPU receives), */
  double rs_bytes;             /* the row-wise partial sums over all GPUs, */
  double rs_node_bytes;        /* the table-row-wise partial sums in a node, */
  double allreduce_bytes;      /* the dense and replicated tables' fp32 gradients */
  double mem_bytes;            /* memory of the fullest GPU */
  double mem_capacity;         /* one GPU's memory */
  double mem_headroom;         /* bytes the planner kept free on every GPU (its
                                  headroom_bytes + headroom_frac x capacity); 0: none */
  int fits;                    /* 1 when every GPU's memory fits: mem_bytes <=
                                  mem_capacity - mem_headroom */
  int worst_gpu;               /* the GPU with the longest embedding time */
  int fullest_gpu;
  int gpus;
  double *gpu_emb_s;           /* owned: per GPU embedding fwd+bwd seconds */
  double *gpu_mem;             /* owned: per GPU bytes */
} sc_rs_result;

void sc_rs_result_free(sc_rs_result *r);

/* Predict one iteration of job j under plan p. SC_OK; SC_EINPUT when the
 * plan does not fit the job (a table or GPU out of range, a column split
 * that does not divide the width, ...), naming the table and what would be
 * valid; SC_ENOMEM. A plan that does not fit in memory is predicted with
 * fits = 0. */
int sc_rs_evaluate(const sc_rs_job *j, const sc_rs_plan *p, sc_rs_result *r, sc_error *err);

/* ------------------------------------------------------------- planner */

/* What the planner is told while it runs: plans evaluated so far and the
 * wall time, s. Return nonzero to stop it (the best plans so far are
 * returned, stopped = SC_RS_STOP_INTERRUPTED). Called at most about ten
 * times a second, from the calling thread. */
typedef int (*sc_rs_progress)(void *ctx, long evaluated, double seconds);

typedef struct sc_rs_plan_opts {
  int top;                     /* plans to keep (1..16) */
  int exhaustive_max;          /* enumerate every plan when there are at most this many */
  int local_iters;             /* local-search moves tried */
  double max_seconds;          /* budget: stop after this wall time, s [0: none] */
  long max_evals;              /* budget: stop after this many evaluations [0: none] */
  sc_rs_progress progress;     /* NULL = none */
  void *progress_ctx;          /* passed to progress */
  double headroom_bytes;       /* memory kept free on every GPU, bytes [0] */
  double headroom_frac;        /* ... and as a fraction of its memory, 0..1 [0]: a plan
                                  fits when its fullest GPU holds at most the capacity
                                  less both (as sc_search_opts; the greedy seed places
                                  tables within it too) */
} sc_rs_plan_opts;

/* Why the planner ended (sc_rs_plans.stopped). */
#define SC_RS_STOP_COMPLETE 0
#define SC_RS_STOP_MAX_SECONDS 1   /* max_seconds reached */
#define SC_RS_STOP_MAX_EVALS 2     /* max_evals reached */
#define SC_RS_STOP_INTERRUPTED 3   /* the progress callback said stop */

void sc_rs_plan_opts_default(sc_rs_plan_opts *o);

/* The best plans found, fastest first, each with its prediction. */
typedef struct sc_rs_plans {
  int n;
  sc_rs_plan plan[16];
  sc_rs_result res[16];
  char why[16][160];           /* one line: what decides this plan's time */
  long evaluated;              /* plans evaluated */
  int exhaustive;              /* 1 = the plans were enumerated (every one
                                  unless `stopped`) */
  int stopped;                 /* SC_RS_STOP_*: COMPLETE, or the plans are
                                  the best found before a budget or the
                                  callback stopped the search */
  int bounded;                 /* 1 = local search reached its own bound of
                                  300,000 evaluations (docs/recsys.md, "Speed") */
} sc_rs_plans;

/* Search the per-table shardings of j (greedy, then local search;
 * exhaustive on small cases) and keep the fastest that fit. SC_OK (n may
 * be 0 when nothing fits: then the plans kept are the least-memory ones,
 * fits = 0), SC_EINPUT, SC_ENOMEM. */
int sc_rs_plan_search(const sc_rs_job *j, const sc_rs_plan_opts *o, sc_rs_plans *out,
                      sc_error *err);
void sc_rs_plans_free(sc_rs_plans *p);

/* ------------------------------------------------------------- loading */

/* A recsys job from a JSON file (docs/input.md, "Recommendation models"):
 * the model (a kind with a `tables` list or explicit table objects), the
 * cluster, the training and optionally a sharding (a kind name for every
 * table, "auto", or one entry per table), returned in *plan (n = 0 when
 * none or "auto"). SC_OK, SC_EIO, SC_EINPUT (naming the key path), SC_ENOMEM. */
int sc_rs_job_load_file(const char *path, sc_rs_job *j, sc_rs_plan *plan, int *auto_plan,
                        sc_error *err);
/* The same with overrides[0..n_overrides) ("cluster.gpus=16",
 * "training.optimizer=adagrad", "sharding=row_wise": `stepcast recsys
 * --set`) applied to the document before it is read: a key path is a
 * top-level key or SECTION.KEY of model, cluster or training; an unknown
 * one is SC_EINPUT naming the valid keys, and a value the job refuses
 * names the override that set it. */
int sc_rs_job_load_file_ex(const char *path, const char *const *overrides, size_t n_overrides,
                           sc_rs_job *j, sc_rs_plan *plan, int *auto_plan, sc_error *err);

/* The job and plan stepcast predicts for row `id` of the recommendation
 * set at path (docs/accuracy.md says how blank cells are filled); the
 * caller frees both. SC_OK, SC_EIO, SC_EINPUT (no such row, malformed),
 * SC_EMODEL (a row stepcast cannot model, with the reason), SC_ENOMEM. */
int sc_rs_row_job(const char *path, const char *id, sc_rs_job *j, sc_rs_plan *p, sc_error *err);

/* ------------------------------------------------------------- reports */

/* One prediction (table, JSON or CSV: a header and one row). */
void sc_rs_report_result(FILE *out, sc_format fmt, const sc_rs_job *j, const sc_rs_plan *p,
                         const sc_rs_result *r);
/* One iteration of job j under plan p as Chrome trace JSON for Perfetto
 * (docs/recsys.md, "Timeline"): a process per GPU (at most 64, the slowest
 * always among them) with lanes for dense compute, embedding lookups and
 * update, embedding communication, the dense all-reduce and the host, laid
 * out from the prediction's per-GPU times; the last span ends at iter_s.
 * res (may be NULL) receives the prediction, without its per-GPU arrays.
 * SC_OK; SC_EINPUT when p does not fit j (as sc_rs_evaluate); SC_ENOMEM.
 * (src/recsys/rs_trace.c) */
int sc_rs_report_trace(FILE *out, const sc_rs_job *j, const sc_rs_plan *p, sc_rs_result *res,
                       sc_error *err);
/* The planner's plans (table, JSON or CSV: a row per plan). */
void sc_rs_report_plans(FILE *out, sc_format fmt, const sc_rs_job *j, const sc_rs_plans *p);

/* ------------------------------------------------------ text in, text out */

/* The `stepcast recsys predict JOB.json [--sharding KIND] --format json`
 * document of the job file at path (sharding NULL: the job's own, or the
 * planner's best when it has none), and the `stepcast recsys plan --top K
 * [--max-seconds S] [--max-evals N] --format json` document (a budget
 * of 0: none; a negative or NaN one is SC_EINPUT), in *out (malloc'd,
 * free with sc_free; NULL on error). For bindings (python/stepcast).
 * SC_OK, SC_EIO, SC_EINPUT, SC_ENOMEM. */
int sc_rs_predict_json(const char *path, const char *sharding, char **out, sc_error *err);
int sc_rs_plan_json(const char *path, int top, double max_seconds, long max_evals, char **out,
                    sc_error *err);
/* The same with what the command's other options give: overrides[0..
 * n_overrides) applied to the job file as `stepcast recsys --set` does
 * (sc_rs_job_load_file_ex, with its messages); for the plan, the
 * planner's options o (NULL: sc_rs_plan_opts_default; top, budgets and
 * headroom_bytes/headroom_frac as `recsys plan --headroom`, checked by
 * sc_rs_plan_search; its progress callback, when set, is called from the
 * calling thread); trace (NULL: none) a file for the iteration as Chrome
 * trace JSON (sc_rs_report_trace, as --trace; of the best plan found for
 * a plan), written after the document ("-" is SC_EINPUT: standard output
 * is the command's; SC_EIO "trace: cannot write PATH (reason)", *out
 * NULL, when it cannot be written). sc_rs_predict_json_ex plans an
 * unsharded job with the defaults, as sc_rs_predict_json. */
int sc_rs_predict_json_ex(const char *path, const char *const *overrides, size_t n_overrides,
                          const char *sharding, const char *trace, char **out, sc_error *err);
int sc_rs_plan_json_ex(const char *path, const char *const *overrides, size_t n_overrides,
                       const sc_rs_plan_opts *o, const char *trace, char **out, sc_error *err);
/* `stepcast recsys row FILE.csv ID --format json`: the prediction of row
 * id of the recommendation set at path (sc_rs_row_job). Codes as
 * sc_rs_row_job, and SC_ENOMEM. */
int sc_rs_row_json(const char *path, const char *id, char **out, sc_error *err);

#if defined(__GNUC__)
#pragma GCC visibility pop
#endif

#ifdef __cplusplus
}
#endif

#endif /* STEPCAST_RECSYS_H */
