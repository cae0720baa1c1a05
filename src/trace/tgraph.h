/*
 * tgraph.h -- the traced execution graph (module prefix: tg_).
 *
 * What a profile says happened on each rank of a job, in the form the
 * replay needs: host items (runtime/driver calls and ProfilerStep
 * markers) per host thread in time order, and GPU operations (kernels,
 * memory copies and sets, collectives) per stream, each linked to the
 * host call that launched it through the trace's correlation id.
 * Loaders (kineto.c) fill it; replay.c reads it and never changes it.
 *
 * Times are microseconds on the trace's own clock (Kineto's `ts`), as
 * doubles; ranks of one job share that clock when their hosts do.
 */
#ifndef SC_TRACE_TGRAPH_H
#define SC_TRACE_TGRAPH_H

#include <stddef.h>
#include <stdint.h>

#include "core/vec.h"
#include "stepcast.h"

/* Kinds of host item. */
typedef enum tg_host_kind {
  TG_CALL = 0,   /* a runtime or driver call (launch, query, ...) */
  TG_STEP_BEGIN, /* start of a ProfilerStep annotation (zero length) */
  TG_STEP_END    /* its end (zero length) */
} tg_host_kind;

/* One host item. */
typedef struct tg_host {
  double ts, dur; /* start and length, us */
  int thread;     /* index of its host thread in the rank */
  int name;       /* offset of its name in the rank's name pool */
  int kind;       /* tg_host_kind */
  int step;       /* TG_STEP_*: index in the rank's steps; else -1 */
  int sync;       /* the call blocks until a GPU operation ends
                     (set by tg_link: synchronize calls, copies that
                     returned after their copy ended) */
  int wait_op;    /* sync: the GPU operation it waited for; -1 none */
  double corr;    /* correlation id (-1 when absent) */
  int has_wait;   /* an exported graph said what it waits for (tgraph_write.h):
                     wait_uid (-1: no wait) and own; nothing is inferred */
  double wait_uid; /* uid of the GPU operation it waits for; -1 */
  double own;      /* us it takes after the wait */
} tg_host;

/* Kinds of GPU operation. */
typedef enum tg_gpu_kind { TG_KERNEL = 0, TG_MEMCPY, TG_MEMSET, TG_COMM } tg_gpu_kind;

/* Classes of kernel, for scaling to another GPU (whatif.c). */
typedef enum tg_class { TG_CL_GEMM = 0, TG_CL_ATTN, TG_CL_MEM, TG_CL_COPY, TG_CL_COMM } tg_class;

/* One GPU operation. */
typedef struct tg_gpu {
  double ts, dur; /* start and length, us */
  int stream;     /* stream id as the trace numbers it */
  int name;       /* name pool offset */
  int kind;       /* tg_gpu_kind */
  int cls;        /* tg_class */
  int fp32;       /* the kernel name says it computes in fp32 */
  int launch;     /* index of the launching host item; -1 unknown */
  double corr;    /* correlation id (-1 when absent) */
  int coll_op;    /* TG_COMM: sc_coll_op, -1 when not known */
  double bytes;   /* TG_COMM: nccl-tests size, bytes; 0 unknown */
  int group;      /* TG_COMM: ranks in its group; 0 unknown */
  double uid;     /* "stepcast op" of an exported graph; -1 */
} tg_gpu;

/* One ProfilerStep annotation. */
typedef struct tg_step {
  double ts, dur; /* us */
  long number;    /* the N of ProfilerStep#N */
  int thread;
} tg_step;

/* A "nccl:<op>" annotation of the host: the collective it issued and the
 * size of its input, for kernels whose args lack them (older traces). */
typedef struct tg_comm_note {
  double ts, dur; /* us */
  int thread;
  int coll_op;  /* sc_coll_op; -1 unknown */
  double bytes; /* first input, bytes; 0 unknown */
} tg_comm_note;

/* A host operator of the Kineto trace (cpu_op, user_annotation events):
 * what the operators of an execution trace are matched with (etjoin.c). */
typedef struct tg_op {
  double ts, dur; /* us */
  int thread;
  uint32_t hash; /* tg_hash of its name */
} tg_op;

/* A rank: what one trace file holds. */
typedef struct tg_rank {
  char path[512];
  char device[64];         /* deviceProperties[0].name; "" unknown */
  int arch;                /* computeMajor*10+computeMinor, NVIDIA only; 0 */
  int amd;                 /* ROCm trace (hip* calls or an AMD device) */
  int rank, world;         /* distributedInfo; -1/0 when absent */
  VEC(tg_host) host;       /* sorted by (thread, ts) after tg_link */
  VEC(tg_gpu) gpu;         /* sorted by ts after tg_link */
  VEC(tg_step) steps;      /* in file order */
  VEC(tg_comm_note) notes; /* sorted by (thread, ts) after tg_link */
  VEC(tg_op) ops;          /* host operators, in file order */
  double pid;              /* process id of the host events; -1 unknown */
  VEC(char) names;         /* NUL-separated name pool */
  int *name_hash;          /* open addressing over offsets; owned */
  int name_cap;            /* slots of name_hash (power of two) */
  int n_names;
  int threads;  /* host threads seen */
  long ignored; /* events read and not used (cpu ops, flows) */
  long unknown; /* events of an unknown category, skipped */
} tg_rank;

/* A job: one rank per file. */
typedef struct tg_job {
  tg_rank *r; /* owned, n ranks */
  int n, cap;
  char warn[1024]; /* warnings, one per line ("" none) */
} tg_job;

/* A (key, index) pair: host items or GPU ops by correlation id or end time. */
typedef struct tg_kv {
  double key;
  int idx;
} tg_kv;
/* qsort order: key, then index. */
int tg_kv_cmp(const void *a, const void *b);
/* Index of the last entry of a (n, sorted) with key <= k; -1 if none. */
int tg_kv_last_le(const tg_kv *a, int n, double k);

/* FNV-1a hash of len bytes of s. */
uint32_t tg_hash(const char *s, size_t len);

/* Intern s (len bytes) in r's name pool: its offset, or -1 out of memory. */
int tg_name(tg_rank *r, const char *s, size_t len);
static inline const char *tg_str(const tg_rank *r, int off) { return r->names.v + off; }

/* After loading: sort host items and GPU operations, link each GPU
 * operation to its launch, mark synchronizing calls, and add the step
 * markers. SC_OK or SC_ENOMEM. */
int tg_link(tg_rank *r, sc_error *err);
/* GPU operations (of a linked rank) that start more than TG_OVERLAP_US
 * before the one before them on their stream ended: their count; *most
 * the largest overlap (us), *stream and *at (us) the stream and start of
 * the first. The replay runs a stream's operations one after the other. */
#define TG_OVERLAP_US 1.0
int tg_stream_overlaps(const tg_rank *r, double *most, int *stream, double *at);

/* Append a warning line to j (truncated when full). */
void tg_warn(tg_job *j, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* The time (us) sync call h of r takes after the GPU operation it waits
 * for ends: as exported, else its traced length less the wait. */
double tg_sync_own(const tg_rank *r, const tg_host *h);

void tg_rank_free(tg_rank *r);
void tg_job_free(tg_job *j);

#endif
