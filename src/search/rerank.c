/*
 * rerank.c -- the top k re-ranked by the event engine; see rerank.h.
 *
 * Plan i goes to whichever thread is free (the next plan not taken, on a
 * crew of threads: crew.h): a plan
 * costs milliseconds (pipelines with many micro-batches) down to tens of
 * microseconds, and k is small. Results land in arrays indexed by i, and
 * an error is reported for the least i that failed, so neither depends
 * on which thread ran what.
 */
#include "search/rerank.h"

#include <string.h>

#include "core/mem.h"
#include "job/job.h"
#include "search/crew.h"

/* The most micro-batches per pipeline of a plan the event engine re-runs:
 * it simulates every micro-batch's passes, about 40 us and 3.4 KB each on
 * GPT-3 175B with pp 8 (`predict --engine event --gb 153600`: 19,200
 * micro-batches, 0.8 s, 67 MB; measured here), so 4,096 costs at most
 * about 0.2 s a plan; a batch of 2^34 sequences would not end. */
#define RERANK_MAX_MICRO_BATCHES 4096

/* One thread's first failure: the least plan index, its code and text. */
typedef struct fail {
  int at;                /* plan index, or -1 */
  int rc;
  sc_error err;
} fail;

/* Plan i of t on job j: its event step and breakdown into ev[i]. */
static int one(sc_job *j, const topk *t, int i, sc_result *ev, sc_error *err) {
  sc_event_opts eo = {1, 0}; /* folded, no spans kept */
  return sc_job_predict_event(j, &t->c[i].plan, &eo, &ev[i], NULL, err);
}

/* On thread `th`: plan i, opening the thread's job first if it has none;
 * a failure kept in f[th] when it is the thread's least so far. Nothing
 * once *halt is set. */
static void run_one(sc_job **jobs, int th, const topk *t, int i, sc_result *ev, fail *f,
                    const int *halt) {
  if (__atomic_load_n(halt, __ATOMIC_RELAXED)) return;
  sc_error e = {0};
  int rc = jobs[th] ? SC_OK : job_open_sharing(jobs[0], &jobs[th], &e);
  if (rc == SC_OK) rc = one(jobs[th], t, i, ev, &e);
  if (rc != SC_OK && (f[th].at < 0 || i < f[th].at)) {
    f[th].at = i, f[th].rc = rc;
    if (rc == SC_EINPUT) /* say which plan */
      sc_error_set(&f[th].err, rc, "the event engine cannot run plan %d: %s", i + 1, e.msg);
    else f[th].err = e;
  }
}

/* What the threads of a re-rank share (run_plans). */
typedef struct plans {
  sc_job **jobs;
  const topk *t;
  sc_result *ev;
  fail *f;
  int *halt;
  rerank_stop_fn stop;
  void *ctx;
  int next;              /* the next plan to take (atomic) */
} plans;

/* On thread th of the crew: plans not yet taken, one at a time, until
 * none is left (thread 0 asks stop after each). */
static void run_plans(crew *c, void *ctx, int th) {
  plans *p = ctx;
  for (int i; (i = __atomic_fetch_add(&p->next, 1, __ATOMIC_RELAXED)) < p->t->n;) {
    run_one(p->jobs, th, p->t, i, p->ev, p->f, p->halt);
    if (th == 0 && p->stop && p->stop(p->ctx)) __atomic_store_n(p->halt, 1, __ATOMIC_RELAXED);
  }
  crew_shut(c);
}

/* The failure of the least plan index over nt threads' (SC_OK if none). */
static int first_fail(const fail *f, int nt, sc_error *err) {
  int best = -1;
  for (int th = 0; th < nt; th++)
    if (f[th].at >= 0 && (best < 0 || f[th].at < f[best].at)) best = th;
  if (best < 0) return SC_OK;
  *err = f[best].err;
  return f[best].rc;
}

/* SC_EMODEL naming the first plan of t with more micro-batches than the
 * event engine is run on, else SC_OK. */
static int too_many_passes(const topk *t, sc_error *err) {
  for (int i = 0; i < t->n; i++) {
    int m = t->c[i].result.micro_batches;
    if (m > RERANK_MAX_MICRO_BATCHES)
      return sc_error_set(err, SC_EMODEL,
                          "the event engine is not run on plan %d: %d micro-batches per pipeline, "
                          "more than the %d it simulates within a fraction of a second",
                          i + 1, m, RERANK_MAX_MICRO_BATCHES);
  }
  return SC_OK;
}

int rerank_topk(crew_pool *pool, sc_job **jobs, int nt, topk *t, rerank_stop_fn stop, void *ctx,
                int *stopped, sc_error *err) {
  int n = t->n, halt = 0;
  *stopped = 0;
  if (n == 0) return SC_OK;
  int rc = too_many_passes(t, err);
  if (rc != SC_OK) return rc;
  if (nt > n) nt = n;
  if (nt < 1) nt = 1;
  sc_result *ev = mem_alloc(sizeof *ev * (size_t)n);
  fail *f = mem_alloc(sizeof *f * (size_t)nt);
  if (!ev || !f) {
    mem_free(ev);
    mem_free(f);
    return sc_error_set(err, SC_ENOMEM, "out of memory re-ranking the plans");
  }
  for (int th = 0; th < nt; th++) f[th].at = -1;
  plans p = {jobs, t, ev, f, &halt, stop, ctx, 0};
  crew_run(pool, nt, run_plans, &p);
  rc = first_fail(f, nt, err);
  if (rc == SC_OK && halt) *stopped = 1, rc = -1; /* t untouched */
  for (int i = 0; i < n && rc == SC_OK; i++) {
    t->c[i].event_s = ev[i].step_s;
    t->c[i].event_time = ev[i].time;
  }
  if (rc == SC_OK) topk_by_event(t);
  mem_free(ev);
  mem_free(f);
  return rc < 0 ? SC_OK : rc;
}
