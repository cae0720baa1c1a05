/*
 * evint.h -- what the files of the event engine share (event.c: templates
 * and passes; evloop.c: the event loop; critpath.c: the critical path).
 * Private to src/engine/.
 */
#ifndef SC_ENGINE_EVINT_H
#define SC_ENGINE_EVINT_H

#include "engine/event.h"
#include "engine/evshare.h"
#include "pipeline/pipe.h"

/* One task of a pass template, as one GPU of the class runs it. */
typedef struct ev_task {
  int name;            /* into ev_out.names */
  ev_stream stream;
  int overlap;         /* xg_overlap of a collective */
  char pass;           /* 'F', 'R', 'B' */
  double gpu;          /* s: the kernel, or the collective alone */
  double host;         /* s: issuing it */
  grp_share share;     /* a collective: the SMs its channels hold and the
                          HBM bandwidth its kernels take (groups.h) */
  int mem;             /* 1 = a memory-bound kernel (XG_MEM): slowed by
                          the HBM share beside a collective (grp_slow) */
  double grads;        /* backward: parameters whose gradients are
                          complete when this task ends (the last task of a
                          layer's backward), ZeRO 0-2 */
  double bytes;        /* a collective: its size (0 = none) ... */
  int group;           /* ... its group (index into xg.groups) */
  coll_op op;          /* ... and its operation as this pass runs it */
  double flex;         /* an MoE flex dispatch or combine: the part of its
                          bytes over the network (xg_task.flex_inter);
                          -1 = another collective or none */
  double window;       /* s: a backward collective marked XG_OVL_WGRAD:
                          the weight-gradient GEMM it runs beside
                          (eng_task_wgrad); 0 otherwise */
  double regather;     /* s: ... under sequence parallelism, the gather of
                          the GEMM's input again (eng_regather), of
                          regather_bytes (the forward's) ... */
  double regather_bytes;
  double dgrad;        /* s: ... beside its data-gradient GEMM */
  grp_share share2;    /* the re-gather's shares */
  double window_mem;   /* a collective marked XG_OVL_OTHER (combined 1F1B):
                          window is the other micro-batch's compute it runs
                          beside (eng_other_window), this its memory-bound
                          fraction */
} ev_task;

/* The tasks of one stage's forward or backward pass in issue order. */
typedef struct ev_tmpl {
  ev_task *t;          /* owned unless shared */
  int n, cap;
  int shared;          /* 1 = another stage's (same_as) */
  /* backward with bucketed gradient reduction (evbucket.c): bucket k
   * leaves when task bk_task[k] ends (n = at the pass's end) and takes
   * bk_dur[k] s on the DP stream; owned with t */
  int *bk_task;
  double *bk_dur;
  int nbk;
} ev_tmpl;

/* Time of one pass on its compute chain by stream (EV_HOST: launch
 * gaps); the categories add up to the pass's duration. */
typedef struct ev_pass_acc {
  double cat[EV_STREAMS];
} ev_pass_acc;

/* One pass as the loop laid it out. */
typedef struct ev_inst {
  double start, end;   /* s */
  double host_in;      /* the host clock at its start */
  int pred;            /* the instance whose free point (its send's end
                          if it sent, else its end) set this pass's start:
                          the class's previous pass or the producer; -1 =
                          started at 0 */
  int sent;            /* 1 = ends with a send to another stage */
  /* the send (Megatron's blocking send/recv is a rendezvous: it starts
   * when the sender has finished the pass and the receiver has posted
   * its receive, i.e. is idle with the consuming pass next) */
  int consumer;        /* class that receives it */
  int send_pred;       /* the receiver's instance whose free point set the
                          send's start, -1 = the sender's own end */
  int send_started;
  double send_start, arrive; /* s; arrive = when the data is there (the
                          send's end, or the pass's end without a send) */
  int cls, mb;
  char kind;           /* 'F', 'B', 'W' */
  int pred_send;       /* 1 = pred's free point was its send's end, 0 its
                          pass's end (a stage that does not wait for its
                          sends; a producer whose send the pair hid) */
  const ev_tmpl *tp;   /* the template it ran */
} ev_inst;

typedef struct ev_ctx {
  eng *e;
  const ev_opts *o;
  ev_out *out;
  int cap_names;
  int host_name;       /* "host (launch-bound)" */
  int send_name, dp_name, opt_name, fill_name; /* the tasks outside the
                          templates: send/recv, gradient reduction,
                          optimizer step, pipeline fill/drain */
  int share_name;      /* what a pass's collectives lose to shared links */
  ev_tmpl *tm;         /* 2 per stage: forward, backward */
  int n_tm;
  ev_tmpl *tw;         /* schedules that split their backwards: 2 per
                          stage, the backward less its weight gradients
                          (a split 'B') and those ('W'); else NULL */
  pipe_shape sh;       /* the schedule's shape (lay_out) */
  int async;           /* 1 = a stage does not wait for its sends
                          (pipe_sched.sends_async) */
  double scale;        /* 1 / model chunks: a pass is one chunk */
  /* trace */
  int out_spans;
  long cap_spans;
  int span_oom;
  /* critical path parts, dense: names x EV_STREAMS */
  int acc_parts;
  double *part_s;
  long *part_n;
  /* the pipeline */
  int S, R, C;         /* stages, replicas, classes = R * S */
  int vpp, m;
  int rendezvous;      /* 1 = a send waits for the receiver to post its
                          receive (1F1B, GPipe: Megatron's blocking
                          send/recv); 0 = it starts at the pass's end
                          (interleaved: receives posted ahead) */
  int straggler_cls;   /* -1 = none */
  double slow;         /* its kernels' factor */
  pipe_pass *order;    /* per stage, `per` slots */
  int *count;          /* passes per stage */
  long per;
  ev_inst *inst;       /* per class: base[c] .. base[c] + count */
  long *base;
  long n_inst;
  int *idf, *idb;      /* per class, chunk, mb: instance, -1 = not yet */
  int *ended;          /* per instance: its data has arrived */
  int *pdone;          /* per instance: the pass has ended */
  int *next, *busy;    /* per class: next pass; a pass is running */
  int *sending;        /* per class: its last pass's send has not ended */
  int *pair2;          /* per class: 1 = its next pass is the backward of
                          a pair whose forward ran (pipe.h pair) */
  int *is_ready;       /* per class: all passes and sends done */
  double *free_at, *host, *ready; /* per class */
  double p2p, dp, opt; /* s */
  double *dp_start;    /* per stage */
  int *dp_who;         /* per stage: the replica that was ready last */
  double *end;         /* per class: optimizer end */
  /* the gradient reduction bucket by bucket beside the last backward
   * (evbucket.c); buckets = 0: one reduction of dp s after it */
  int buckets;         /* 1 = on */
  int nb;              /* most buckets of a stage */
  double *issue;       /* per class x nb: when each bucket left, s */
  double *dpx;         /* per stage: the reduction's time after the last
                          replica's backward (what the path carries), s */
  double *dp_tail;     /* per stage, s after the buckets: ZeRO gathers, parameter
                          gathers, as the closed form exposes them */
  double dp_factor;    /* bucket times x this: every group at once */
  double *dp_share;    /* per stage: the share of its time the backward
                          beside the reduction loses (grp_slow) */
  /* interleaved (vpp > 1): one bucket per model chunk, bucket k holding
   * chunk vpp - 1 - k, launched as Megatron's grad_sync_func is
   * (evbucket.c); chunks = 0: the buckets of the templates */
  int chunks;
  int *chunk_at;       /* per stage x vpp: the position in the stage's
                          pass order after whose end bucket k leaves */
  double *chunk_dur;   /* per stage: one chunk's reduction, s */
  /* send/recv and the reductions after the backward, sharing the
   * topology's links while they run (evshare.h) */
  evs share;
  /* per stage x (forward, backward): the bytes one pass's collectives
   * (every group of the stage at once, one model chunk) put on the links
   * that other traffic also crosses (evlinks.c); empty = the pass never
   * shares and ends when ev_pass says */
  evs_demand *pdem;
} ev_ctx;

int ev_name(ev_out *out, int *cap, const char *name);
int ev_templates(ev_ctx *c);

/* The template pass p of stage s runs: the forward or backward of the
 * stage its chunk is (pipe_chunk_stage), a split backward's or a W's. */
const ev_tmpl *ev_tmpl_of(const ev_ctx *c, int s, const pipe_pass *p);

/* pdem's index for pass p of stage s: the links of stage s's GPUs, which
 * run it whichever stage's layers it runs (DualPipe's chunk 1: stage
 * pp-1-s's, whose collectives have the same groups), forward or not. */
int ev_dem_of(const ev_ctx *c, int s, const pipe_pass *p);
void ev_templates_free(ev_ctx *c);
double ev_pass(ev_ctx *c, const ev_tmpl *tp, int cls, int mb, double t0, double *h,
               double slow, ev_pass_acc *acc, double *issue);

/* Plan the buckets of every backward template (after ev_templates):
 * sets c->buckets, c->nb, c->dp_share and c->dp_tail. 0 or -1 (out of
 * memory). */
int ev_buckets_plan(ev_ctx *c);

/* With chunk buckets: pass `pos` of class c's order (stage s) ended at
 * `end`: the chunks Megatron launches after it leave then. */
void ev_chunks_issue(ev_ctx *c, int cls, int s, int pos, double end);

/* Every replica of stage s is ready at t (its last backward ended): run
 * its buckets on the DP stream from when they left, and set c->dpx[s].
 * Spans of the buckets into the trace when recording. */
void ev_buckets_reduce(ev_ctx *c, int s, double t);
void ev_part_add(ev_ctx *c, int name, ev_stream s, double t);

/* The links each stage's passes share with other traffic (evlinks.c,
 * after ev_templates and lay_out, on a topology): fills c->pdem. 0 or -1
 * (out of memory). */
int ev_pass_links(ev_ctx *c);
void ev_pass_links_free(ev_ctx *c);

/* The critical path of a finished run into c->out (critpath.c).
 * 0, or -1 when out of memory. */
int ev_critical(ev_ctx *c);

#endif
