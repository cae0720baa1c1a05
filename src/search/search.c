/*
 * search.c -- walk the plan space and keep the fastest plans (sc_search).
 *
 * The space (space.c) is a list of points in a canonical order. Every
 * plan is evaluated in phases against a prepared job (job.h):
 *
 * 1. memory first: the plan is checked and lowered and the memory of its
 *    stages summed; a plan that does not fit is dropped before any time
 *    is costed (unless the caller asked for every plan);
 * 2. without a topology the plan's stages are then costed and, unless
 *    the step without its data-parallel reduction and optimizer (its
 *    floor, job_finish_below) already exceeds the k-th best step (the
 *    least of the threads': lower_bar), the whole step, which is offered
 *    to the thread's top-k;
 * 3. with a topology the first pass keeps only the floor of each plan's
 *    bound (job_bound_floor: the stages with every collective at the
 *    larger of NCCL's closed form and its link-load bound; a topology can
 *    only slow a collective down: netcost.h), and a best-first second
 *    pass bounds the plans in order of their floor and costs them in
 *    order of their bound (second_next) against the shared k-th best
 *    step: the data-parallel collectives are bounded only for plans whose
 *    floor could still enter the top k, and the flow engine runs only for
 *    plans whose bound could.
 *
 * Threads (a crew, crew.h: the caller and helpers that join while at
 * least JOIN_MIN plans are left; one job each, sharing the first job's
 * topology, its flow-engine memo and its routes' hop counts; at most one
 * thread per 256 plans) walk contiguous shares of the space and steal
 * from each other (deal.h); both passes run on the same threads, which
 * meet between them (both_passes); in the second pass a plan's missing
 * collectives are split between the threads (finish_shared, take_next),
 * and halfway through the first one thread bounds the least floor so
 * far (foresee); MPI
 * processes take blocks of SPREAD_BLOCK points round-robin (spread.h).
 * The ranking is a total order (topk.h: step, memory, space index), so
 * the top k is the same whatever the thread count; the "pruned" count is
 * taken against the final k-th best, so it is too.
 */
#include <assert.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "core/clock.h"
#include "core/mem.h"
#include "core/vec.h"
#include "job/job.h"
#include "plan/plan.h"
#include "search/bheap.h"
#include "search/crew.h"
#include "search/deal.h"
#include "search/rejects.h"
#include "search/rerank.h"
#include "search/space.h"
#include "search/spread.h"
#include "search/topk.h"

#define PLANS_PER_THREAD 256
/* A helper thread joins only while this many plans are left to hand out
 * (crew.h). Its cold start (its own job and memos, its memory touched
 * for the first time) costs the CPU time of 300-700 plans on the bench's
 * spaces (a 2-thread search's CPU time less a 1-thread one's, bench_search
 * at load 3-5: 0.28 ms on Llama-3 70B, 0.7 ms on GPT-3 175B): even with a
 * core of its own a helper gains only where it takes over more plans than
 * that (the upper end here, rounded to a power of two). */
#define JOIN_MIN 512
#define PROGRESS_EVERY_S 0.1
#define TICK_EVERY 16
#define PARTIAL_MAX 4 /* partial recomputation variants of a plan (space.c: 3) */

/* What one thread owns. */
typedef struct worker {
  int id;                /* its thread's number (0: the caller's) */
  sc_job *job;           /* owned (worker 0: the search's job, borrowed) */
  sc_job *spare;         /* owned: a searcher's parked job, reopened by
                            worker_job as this worker's (NULL: none) */
  sc_candidate *slots;   /* owned: best.c */
  topk best;
  long tried, valid, fit;
  int unticked;          /* plans done not yet added to shared.done */
  long closest;          /* valid plan with least memory (-1 none) */
  space_pt held;         /* the last plan lowered, and of its most loaded */
  double held_static;    /* stage the weights, gradients and optimizer
                            states, bytes: the same for every plan that
                            differs only in micro-batch, vpp, recompute */
  space_pt full;         /* the last plan lowered with full recomputation
                            of every layer, and its variants after it that
                            recompute only the first n of a chunk's layers: */
  int part_n[PARTIAL_MAX];        /* their n */
  double part_floor[PARTIAL_MAX]; /* a lower bound of their memory, bytes
                                     (job_mem_floor_partial; 0: none) */
  double closest_mem;    /* its memory, bytes */
  double capacity;       /* the GPU's memory, bytes (once a plan is lowered) */
  bounded *b;            /* owned: plans for the second pass (without a
                            topology: every plan costed, with its floor) */
  int n_b, cap_b;
  bounded least;         /* with a topology, more than one thread: its
                            least floor so far (bound INFINITY: none) */
  int rc;                /* SC_OK, or what failed */
  sc_error err;
  char pad[64];          /* the next worker's counters on other cache lines */
} worker;

/* What the threads share. */
typedef struct shared {
  const sc_scenario *base;      /* resolved model and cluster */
  const sc_search_opts *o;
  crew_pool *pool;              /* the searcher's parked threads (NULL: none) */
  const space_pt *pts;
  long n;                       /* points searched (all processes) */
  int rank, size;               /* this process takes blocks rank, rank + size, ...
                                   of SPREAD_BLOCK points (proc_point) */
  long count;                   /* its points */
  deal deal;                    /* them (0 .. count - 1) among its threads */
  int topo;                     /* the job has a topology */
  int stop;                     /* an SC_SEARCH_* reason, or -1 on error (atomic) */
  long done;                    /* plans looked at (atomic) */
  double t0, last_report;       /* clock_now_s() */
  topk top;                     /* second pass: the shared top k */
  double bar;                   /* second pass: topk_bar(&top); first pass without
                                   a topology: lower_bar (atomic) */
  pthread_mutex_t mu;           /* the second pass's queue and top k, and: */
  pthread_cond_t more;          /* broadcast when `posted` grows */
  int met;                      /* threads at the meeting (atomic) */
  int nt;                       /* threads asked */
  bounded first;                /* with a topology on more than one thread:
                                   the least floor any has found so far
                                   (under mu; bound INFINITY: none) */
  int foreseen;                 /* 1 once a thread bounded `first` (atomic) */
  int busy;                     /* second pass: plans being bounded or
                                   costed (take_next) */
  long posted;                  /* second pass: plans done, and plans whose
                                   missing collectives were posted
                                   (finish_shared), so far */
  /* between the passes (order_bounded, by the last thread done with the
   * first; read by all after the meeting) */
  bounded *all;                 /* owned: every fitting plan with the floor of its
                                   bound (job_bound_floor), least first; the
                                   second pass writes the bounds it computes */
  long nb;                      /* their count; 0 when the second pass is skipped */
  long next;                    /* second pass: all[next] is the next to bound */
  bheap wait;                   /* second pass: plans bounded, not yet costed
                                   (its array owned, room for nb) */
  int ordered;                  /* sh->top is open (best_first_done closes it) */
  int order_rc;                 /* SC_OK, or why ordering failed (order_err) */
  sc_error order_err;
} shared;

void sc_search_opts_default(sc_search_opts *o) {
  memset(o, 0, sizeof *o);
  o->require_fit = 1;
}

/* The flags threads share, read and written whole (GCC/Clang atomics). */
static int get_stop(shared *sh) { return __atomic_load_n(&sh->stop, __ATOMIC_RELAXED); }

static void set_stop(shared *sh, int why) { __atomic_store_n(&sh->stop, why, __ATOMIC_RELAXED); }

static double get_bar(shared *sh) {
  double bar;
  __atomic_load(&sh->bar, &bar, __ATOMIC_RELAXED);
  return bar;
}

/* Without a topology, the first pass's sh->bar: the least of the
 * threads' k-th best steps (each its own top k's), so that a thread drops
 * a plan another thread's top k already shuts out: a plan whose step
 * exceeds one thread's k-th best has k plans before it. */
static void lower_bar(shared *sh, double bar) {
  double cur = get_bar(sh);
  while (bar < cur &&
         !__atomic_compare_exchange(&sh->bar, &cur, &bar, 1, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
  }
}

/* Every thread watches the time budget (thread 0 may run out of plans
 * first and stop looking); the calling thread alone reports progress. */
static void watch(shared *sh, long done, int t) {
  double now = clock_now_s();
  if (sh->o->max_seconds > 0 && now - sh->t0 > sh->o->max_seconds && get_stop(sh) == 0)
    set_stop(sh, SC_SEARCH_BUDGET);
  if (t != 0) return;
  if (sh->o->progress && now - sh->last_report >= PROGRESS_EVERY_S) {
    sh->last_report = now;
    if (sh->o->progress(sh->o->progress_ctx, done, sh->n, now - sh->t0) && get_stop(sh) == 0)
      set_stop(sh, SC_SEARCH_INTERRUPTED);
  }
}

/* Count one plan of the first pass done: each worker adds its plans to
 * the shared count 16 at a time (and thread 0 then watches), so that the
 * threads do not contend for one counter on every plan. */
static void tick(shared *sh, worker *w) {
  if (++w->unticked < TICK_EVERY) return;
  long done = __atomic_add_fetch(&sh->done, w->unticked, __ATOMIC_RELAXED);
  w->unticked = 0;
  watch(sh, done, w->id);
}

static void fail(shared *sh, worker *w, int rc, const sc_error *e) {
  if (w->rc == SC_OK) {
    w->rc = rc;
    w->err = *e;
  }
  set_stop(sh, -1);
}

/* Check and lower plan i; SC_OK with its memory, or what rejected it.
 * The job's scenario is the search's base (sc_search), so the point's
 * fields go straight into the job's copy of its plan. */
static int lower(shared *sh, worker *w, long i, sc_memory *m, sc_error *e) {
  space_apply(&sh->pts[i], job_plan(w->job));
  return job_lower(w->job, NULL, m, e);
}

/* 1 when a plan of step, mem and index i would enter top. */
static int enters(const topk *top, const sc_result *r, long i) {
  return top->n < top->max || topk_before(top, r->step_s, r->mem.total, i, top->n - 1);
}

/* Offer the plan just costed (index i, result r) to top: a candidate is
 * copied only when it enters. */
static void offer(sc_job *job, topk *top, const sc_result *r, long i) {
  if (!enters(top, r, i)) return;
  sc_candidate c;
  c.plan = job_current(job)->plan;
  c.result = *r;
  c.pareto = 0;
  c.event_s = 0;
  memset(&c.event_time, 0, sizeof c.event_time);
  topk_add(top, &c, i);
}

static int push_bounded(worker *w, double bound, long i);

/* What a thread of the second pass does next (second_next). */
enum { NEXT_NONE, NEXT_BOUND, NEXT_COST };

static int finish_shared(shared *sh, worker *w, double bar, sc_result *r, double *fl,
                         sc_error *e);

/* Cost the lowered plan i and offer it to top (locked when shared). */
static void cost(shared *sh, worker *w, long i, topk *top) {
  sc_result r;
  sc_error e = {0};
  /* a plan whose step without its data-parallel reduction already
   * exceeds the k-th best (this thread's, or any thread's: lower_bar)
   * cannot enter (the bar only falls) */
  double at = top == &w->best ? fmin(topk_bar(top), get_bar(sh)) : get_bar(sh);
  double fl;
  int rc = top == &w->best ? job_finish_below(w->job, at, &r, &fl, &e)
                            : finish_shared(sh, w, at, &r, &fl, &e);
  /* without a topology, its floor for the pruned count (pruned_of) */
  if (rc == SC_OK && top == &w->best && push_bounded(w, fl, i))
    rc = sc_error_set(&e, SC_ENOMEM, "out of memory keeping the plans' floors");
  if (rc != SC_OK) {
    fail(sh, w, rc, &e);
    return;
  }
  if (fl > at) return;
  if (top == &w->best) {
    offer(w->job, top, &r, i);
    lower_bar(sh, topk_bar(top));
    return;
  }
  pthread_mutex_lock(&sh->mu);
  offer(w->job, top, &r, i);
  double bar = topk_bar(top);
  __atomic_store(&sh->bar, &bar, __ATOMIC_RELAXED);
  pthread_mutex_unlock(&sh->mu);
}

static int push_bounded(worker *w, double bound, long i) {
  if (vec_grow((void **)&w->b, &w->cap_b, (long)w->n_b + 1, sizeof *w->b)) return -1;
  w->b[w->n_b++] = (bounded){bound, i};
  return 0;
}

/* 1 when plan i cannot fit, known without lowering it: the last plan
 * lowered had the same degrees and ZeRO stage (so the same weights,
 * gradients and optimizer states on each stage, whatever the micro-batch,
 * vpp and recompute) and those alone exceeded the GPU. Only once this
 * worker has found a plan that fits (so that the closest plan, needed
 * when none fits, is always exact) and when only fitting plans are kept. */
static int cannot_fit(const shared *sh, const worker *w, long i, double capacity) {
  const space_pt *a = &sh->pts[i], *b = &w->held;
  return sh->o->require_fit && w->fit > 0 && w->held_static > capacity && a->tp == b->tp &&
         a->cp == b->cp && a->pp == b->pp && a->dp == b->dp && a->ep == b->ep &&
         a->zero == b->zero && a->fsdp_shard == b->fsdp_shard && a->etp == b->etp &&
         a->dtype == b->dtype && a->first == b->first && a->last == b->last &&
         a->emb_loss == b->emb_loss;
}

/* 1 when a and b are the same point but for recompute_layers. */
static int same_but_layers(const space_pt *a, const space_pt *b) {
  return a->tp == b->tp && a->pp == b->pp && a->dp == b->dp && a->cp == b->cp &&
         a->ep == b->ep && a->vpp == b->vpp && a->micro_batch == b->micro_batch &&
         a->fsdp_shard == b->fsdp_shard && a->first == b->first && a->last == b->last &&
         a->offload_layers == b->offload_layers && a->zero == b->zero &&
         a->recompute == b->recompute && a->emb_loss == b->emb_loss && a->etp == b->etp &&
         a->dtype == b->dtype;
}

/* 1 when plan i, full recomputation of the first n layers of each chunk,
 * cannot fit, known without lowering it: the last plan with full
 * recomputation of every layer that this worker lowered is plan i but for
 * n, and the lower bound of that variant's memory (job_mem_floor_partial)
 * exceeds the GPU. Only once a plan fits and only fitting plans are kept
 * (as cannot_fit). */
static int partial_cannot_fit(const shared *sh, const worker *w, long i, double capacity) {
  const space_pt *a = &sh->pts[i];
  if (!sh->o->require_fit || w->fit == 0 || a->recompute != SC_RECOMP_FULL ||
      a->recompute_layers == 0 || !same_but_layers(a, &w->full))
    return 0;
  for (int k = 0; k < PARTIAL_MAX; k++)
    if (w->part_n[k] == a->recompute_layers) return w->part_floor[k] > capacity;
  return 0;
}

/* After plan i is lowered: what partial_cannot_fit needs of it, for the
 * variants that follow it in the space (the points of a share are
 * consecutive: deal.c). */
static void note_full(const shared *sh, worker *w, long i) {
  const space_pt *a = &sh->pts[i];
  if (a->recompute != SC_RECOMP_FULL || a->recompute_layers > 0) return;
  w->full = *a;
  for (int k = 0; k < PARTIAL_MAX; k++) {
    const space_pt *v = i + 1 + k < sh->n ? &sh->pts[i + 1 + k] : NULL;
    int ok = v && v->recompute_layers > 0 && same_but_layers(v, a);
    w->part_n[k] = ok ? v->recompute_layers : 0;
    w->part_floor[k] = ok ? job_mem_floor_partial(w->job, v->recompute_layers) : 0;
  }
}

/* The memory a plan may use on each GPU of the given capacity, bytes: the
 * capacity less the caller's headroom. */
static double usable(const sc_search_opts *o, double capacity) {
  return sc_memory_usable(capacity, o->headroom_bytes, o->headroom_frac);
}

/* With a topology on more than one thread: plan b's floor, into the
 * least of the worker's and of every thread's (sh->first; the lock only
 * when the worker's falls). */
static void note_least(shared *sh, worker *w, bounded b) {
  if (!bheap_before(&b, &w->least)) return;
  w->least = b;
  pthread_mutex_lock(&sh->mu);
  if (bheap_before(&b, &sh->first)) sh->first = b;
  pthread_mutex_unlock(&sh->mu);
}

/* With a topology on more than one thread, once half of the first pass is
 * done: the first thread there computes what the bound of the plan of
 * least floor so far (sh->first) misses, the plan the second pass most
 * likely bounds first: the shapes of its data-parallel groups, the second
 * pass's first and often longest wait (a 512-rank ring on a fat-tree: 0.4
 * ms, every thread waiting for it), are then computed while the other
 * threads still walk the space. Its bound runs in want mode (job_want)
 * and the thread computes what it posted (job_help): only the topology's
 * memo keeps anything of it, the same entries whoever computes them, and
 * a failure is left to the second pass, which reports it if it bounds
 * the plan (a failed entry is asked again). */
static void foresee(shared *sh, worker *w) {
  if (sh->nt < 2 || !sh->topo || __atomic_load_n(&sh->foreseen, __ATOMIC_RELAXED) ||
      2 * __atomic_load_n(&sh->done, __ATOMIC_RELAXED) < sh->count ||
      __atomic_exchange_n(&sh->foreseen, 1, __ATOMIC_RELAXED))
    return;
  pthread_mutex_lock(&sh->mu);
  bounded b = sh->first;
  pthread_mutex_unlock(&sh->mu);
  sc_memory m;
  sc_error e = {0};
  double bound;
  if (b.bound == INFINITY || lower(sh, w, b.idx, &m, &e) != SC_OK) return;
  job_want(w->job, 1);
  job_bound(w->job, &bound, &e);
  if (job_want(w->job, 0))
    while (job_help(w->job)) {
    }
}

/* First pass over plan i: memory, then the step (or its bound). */
static void first_pass(shared *sh, worker *w, long i) {
  sc_memory m;
  sc_error e = {0};
  w->tried++;
  int unfit = cannot_fit(sh, w, i, w->capacity);
  int partial_unfit = !unfit && partial_cannot_fit(sh, w, i, w->capacity);
#ifdef SC_DEBUG_CHECKS
  double floor_was = 0; /* lowered all the same, and checked */
  for (int k = 0; partial_unfit && k < PARTIAL_MAX; k++)
    if (w->part_n[k] == sh->pts[i].recompute_layers) floor_was = w->part_floor[k];
  if (unfit) {
#else
  if (unfit || partial_unfit) {
#endif
    space_apply(&sh->pts[i], job_plan(w->job));
    job_quiet_checks(w->job, 1); /* a rejection's message is not read */
    int rc = job_check(w->job, NULL, &e);
    job_quiet_checks(w->job, 0);
    if (rc == SC_OK) w->valid++;
    else if (rc != SC_EINPUT) fail(sh, w, rc, &e);
    return;
  }
  job_quiet_checks(w->job, 1);
  int rc = lower(sh, w, i, &m, &e);
  job_quiet_checks(w->job, 0);
  if (rc == SC_EINPUT) return; /* a plan the checks reject (no message) */
  if (rc != SC_OK) {
    fail(sh, w, rc, &e);
    return;
  }
  w->valid++;
  w->held = sh->pts[i];
  w->held_static = m.weights + m.gradients + m.optimizer;
  w->capacity = usable(sh->o, m.capacity);
  note_full(sh, w, i);
  m.fits = m.total <= w->capacity && (m.host_capacity <= 0 || m.host <= m.host_capacity);
#ifdef SC_DEBUG_CHECKS
  assert(!partial_unfit || (!m.fits && m.total >= floor_was));
#endif
  if (w->closest < 0 || m.total < w->closest_mem ||
      (m.total == w->closest_mem && i < w->closest)) {
    w->closest = i;
    w->closest_mem = m.total;
  }
  if (m.fits) w->fit++;
  else if (sh->o->require_fit) return;
  if (!sh->topo) {
    cost(sh, w, i, &w->best);
    return;
  }
  double bound; /* its floor: the second pass bounds the plans it may cost */
  if ((rc = job_bound_floor(w->job, &bound, &e)) != SC_OK) fail(sh, w, rc, &e);
  else if (push_bounded(w, bound, i)) {
    sc_error_set(&e, SC_ENOMEM, "out of memory keeping the plans to cost");
    fail(sh, w, SC_ENOMEM, &e);
  } else if (sh->nt > 1) {
    note_least(sh, w, (bounded){bound, i});
  }
}


/* Under sh->mu: the next step of the best-first pass. The plans
 * wait in two lists: sh->all from sh->next on, by the floor of their
 * bound, and sh->wait, bounded, by bound. Whichever holds the least is
 * taken: a floor is bounded (NEXT_BOUND, *j its place in sh->all), a
 * bound is costed (NEXT_COST, *b). So plans are costed in the order of
 * their bounds, as when every bound was computed first, and a plan is
 * bounded only once its floor is the least left. A floor or bound above
 * the k-th best drops the plan and every one after it in its list (the
 * bar only falls, so its bound is above the final bar too: pruned_of
 * counts the same plans as with every bound computed). NEXT_NONE when
 * none is left, or on an error, or on an interruption once the top k is
 * full (so that it always shows the best plans so far). */
static int second_next(shared *sh, long *j, bounded *b) {
  double bar = get_bar(sh);
  int stop = get_stop(sh);
  if (stop < 0 || (stop > 0 && bar < INFINITY)) return NEXT_NONE;
  if (sh->next < sh->nb && sh->all[sh->next].bound > bar) sh->next = sh->nb;
  if (sh->wait.n > 0 && sh->wait.a[0].bound > bar) sh->wait.n = 0;
  const bounded *f = sh->next < sh->nb ? &sh->all[sh->next] : NULL;
  if (sh->wait.n > 0 && (!f || sh->wait.a[0].bound <= f->bound)) {
    bheap_take(&sh->wait, b);
    return NEXT_COST;
  }
  if (!f) return NEXT_NONE;
  *j = sh->next++;
  return NEXT_BOUND;
}

/* Under sh->mu: one more plan done, or plans' collectives posted: wake
 * the threads waiting in take_next. */
static void announce(shared *sh) {
  sh->posted++;
  pthread_cond_broadcast(&sh->more);
}

/* job_finish_below(bar) of the second pass's lowered plan. With more
 * than one thread in the second pass, first in want mode (job_want): a
 * plan whose collectives the topology has all costed is done at once;
 * one that misses some has posted them, wakes the threads with nothing
 * to take (announce) and is evaluated again, its own run computing the
 * missing collectives from the first while the others take them from the
 * last (job_help), so that the few plans that run the flow engine for
 * milliseconds are split between the threads, not only taken whole.
 * (Bounds are not posted: on the bench's fat-trees that lost more, in
 * plans evaluated twice, than it gained; a thread that waits for a shape
 * another bounds helps with posted collectives meanwhile all the same.) */
static int finish_shared(shared *sh, worker *w, double bar, sc_result *r, double *fl,
                         sc_error *e) {
  for (int want = sh->met > 1;; want = 0) {
    if (want) job_want(w->job, 1);
    int rc = job_finish_below(w->job, bar, r, fl, e);
    if (!want || !job_want(w->job, 0)) return rc;
    pthread_mutex_lock(&sh->mu);
    announce(sh);
    pthread_mutex_unlock(&sh->mu);
  }
}

/* Under sh->mu: second_next's step for this thread. While it has none to
 * give and other threads are evaluating plans (which may bound more, or
 * post their collectives), the thread computes a posted collective or
 * sleeps until one is posted or a plan is done; NEXT_NONE once none is
 * left and no thread is busy. A step taken counts in sh->busy until
 * second_pass ends it. */
static int take_next(shared *sh, worker *w, long *j, bounded *b) {
  int what;
  while ((what = second_next(sh, j, b)) == NEXT_NONE && sh->busy > 0) {
    long seen = sh->posted;
    pthread_mutex_unlock(&sh->mu);
    int helped = job_help(w->job);
    pthread_mutex_lock(&sh->mu);
    if (!helped && seen == sh->posted) pthread_cond_wait(&sh->more, &sh->mu);
  }
  if (what != NEXT_NONE) sh->busy++;
  return what;
}

static void second_step(shared *sh, worker *w, int what, long j, bounded b);

/* The second pass on one thread: bound and cost plans as second_next
 * says until none is left and no other thread is busy (take_next). A
 * bound goes into sh->all (each place written by the thread that took
 * it, read after the pass) and sh->wait. */
static void second_pass(shared *sh, worker *w) {
  for (;;) {
    watch(sh, sh->n, w->id);
    long j = 0;
    bounded b = {0, 0};
    pthread_mutex_lock(&sh->mu);
    int what = take_next(sh, w, &j, &b);
    pthread_mutex_unlock(&sh->mu);
    if (what == NEXT_NONE) return;
    second_step(sh, w, what, j, b);
    pthread_mutex_lock(&sh->mu);
    sh->busy--;
    announce(sh);
    pthread_mutex_unlock(&sh->mu);
  }
}

/* One step of the second pass (take_next's): plan sh->all[j] bounded
 * (NEXT_BOUND) or plan b.idx costed (NEXT_COST). */
static void second_step(shared *sh, worker *w, int what, long j, bounded b) {
  long idx = what == NEXT_BOUND ? sh->all[j].idx : b.idx;
  sc_memory m;
  sc_error e = {0};
  int rc = lower(sh, w, idx, &m, &e);
  if (rc == SC_OK && what == NEXT_BOUND && (rc = job_bound(w->job, &b.bound, &e)) == SC_OK) {
    sh->all[j].bound = b.bound;
    b.idx = idx;
    pthread_mutex_lock(&sh->mu);
    bheap_put(&sh->wait, b);
    pthread_mutex_unlock(&sh->mu);
  }
  if (rc != SC_OK) {
    fail(sh, w, rc, &e);
    return;
  }
  if (what == NEXT_COST) cost(sh, w, idx, &sh->top);
}

static int by_bound(const void *a, const void *b) {
  return bheap_before(a, b) ? -1 : bheap_before(b, a) ? 1 : 0;
}

/* ----------------------------------------------------------- searcher */

/* Threads kept between searches, and their jobs (stepcast.h). */
struct sc_searcher {
  crew_pool *pool;      /* owned: its threads - 1 parked helpers */
  int n;                /* room in jobs: its threads */
  sc_job **jobs;        /* owned: jobs[t], thread t's job of the last
                           search, parked (job_park; NULL: none) */
  space_pt *pts;        /* owned: the last search's space (space_build_in),
                           room for cap_pts points; NULL: none */
  long cap_pts;
};

/* sr for the calling thread's search, or NULL when sr is NULL or another
 * search holds it: holding its pool holds its jobs and space too. */
static sc_searcher *searcher_hold(sc_searcher *sr) {
  return sr && crew_pool_hold(sr->pool) ? sr : NULL;
}

/* Thread t's parked job, taken out of sr (NULL: none). */
static sc_job *searcher_take(sc_searcher *sr, int t) {
  if (!sr || t >= sr->n) return NULL;
  sc_job *j = sr->jobs[t];
  sr->jobs[t] = NULL;
  return j;
}

/* Keep j, an open job (or NULL), parked as thread t's in sr; closed when
 * sr is NULL or already keeps one there. Jobs that share a job: before
 * that job (job_park). */
static void searcher_keep(sc_searcher *sr, int t, sc_job *j) {
  if (!j) return;
  if (!sr || t >= sr->n || sr->jobs[t]) {
    sc_job_close(j);
    return;
  }
  job_park(j);
  sr->jobs[t] = j;
}

/* The search's first job on b: sr's parked one reopened, or a new one. */
static int first_job(sc_searcher *sr, const sc_scenario *b, sc_job **job, sc_error *err) {
  sc_job *j = searcher_take(sr, 0);
  if (!j) return sc_job_open(b, job, err);
  int rc = job_reopen(j, b, err);
  if (rc != SC_OK) sc_job_close(j), j = NULL;
  *job = j;
  return rc;
}

/* ------------------------------------------------------------ workers */

/* The workers' slots and top k; worker 0 takes job0, the others open
 * their jobs on their own threads (worker_job). */
static int workers_open(worker *ws, int n, sc_job *job0, sc_candidate *slots0, int k,
                        sc_error *err) {
  for (int t = 0; t < n; t++) {
    worker *w = &ws[t];
    w->id = t;
    w->closest = -1;
    w->least = (bounded){INFINITY, LONG_MAX};
    if (t == 0) w->job = job0;
    int rc;
    w->slots = t == 0 ? slots0 : mem_alloc(sizeof *w->slots * (size_t)k);
    if (!w->slots) return sc_error_set(err, SC_ENOMEM, "out of memory starting the threads");
    if ((rc = topk_init(&w->best, w->slots, k, err)) != SC_OK) return rc;
  }
  return SC_OK;
}

/* The workers' own: the helpers' jobs (and spares not used) kept by sr
 * (NULL: closed). */
static void workers_close(sc_searcher *sr, worker *ws, int n) {
  for (int t = 0; t < n; t++) {
    if (t > 0) {
      searcher_keep(sr, t, ws[t].job);
      searcher_keep(sr, t, ws[t].spare);
      mem_free(ws[t].slots);
    }
    topk_free(&ws[t].best);
    mem_free(ws[t].b);
  }
}

static int worker_error(const worker *ws, int nt, sc_error *err);

/* The workers' bounded plans, each list sorted by its own thread
 * (both_passes), merged into all (room for every one): least bound first
 * in bheap_before's total order, so the same list whatever split the
 * threads had. at: room for nt. A scan of the nt heads per plan: nt is
 * the threads of one process. */
static void merge_bounded(const worker *ws, int nt, bounded *all, long *at) {
  for (int t = 0; t < nt; t++) at[t] = 0;
  for (long m = 0;; m++) {
    int first = -1;
    for (int t = 0; t < nt; t++)
      if (at[t] < ws[t].n_b &&
          (first < 0 || bheap_before(&ws[t].b[at[t]], &ws[first].b[at[first]])))
        first = t;
    if (first < 0) return;
    all[m] = ws[first].b[at[first]++];
  }
}

/* Between the passes of a search with a topology, on one thread (the
 * last done with the first pass), while the others wait at the barrier:
 * every worker's bounded plans, sorted by their threads, merged into
 * sh->all, best bound first (a total order: the same whoever runs it),
 * and the shared top k (in scratch) empty. The second pass is skipped
 * (sh->nb 0) after a first-pass error; a failure here is kept in
 * sh->order_rc. */
static void order_bounded(shared *sh, worker *ws, int nt, sc_candidate *scratch, int k) {
  sh->nb = 0;
  sh->bar = INFINITY;
  sh->order_rc = SC_OK;
  sc_error ignored;
  if (worker_error(ws, nt, &ignored) != SC_OK) return; /* run() reports the worker's */
  long nb = 0;
  for (int t = 0; t < nt; t++) nb += ws[t].n_b;
  size_t room = sizeof *sh->all * (size_t)(nb > 0 ? nb : 1);
  sh->all = mem_alloc(room);
  sh->wait = (bheap){mem_alloc(room), 0};
  long *at = mem_alloc(sizeof *at * (size_t)nt);
  if (sh->all && sh->wait.a && at) merge_bounded(ws, nt, sh->all, at);
  else
    sh->order_rc =
        sc_error_set(&sh->order_err, SC_ENOMEM, "out of memory ordering the plans to cost");
  mem_free(at);
  if (sh->order_rc != SC_OK) return; /* sh->all and sh->wait.a: freed by run() */
  sh->next = 0;
  sh->order_rc = topk_init(&sh->top, scratch, k, &sh->order_err);
  if (sh->order_rc == SC_OK) sh->nb = nb, sh->ordered = 1;
}

/* After the second pass: the shared top k into workers[0]'s slots. */
static void best_first_done(shared *sh, worker *ws) {
  if (!sh->ordered) return;
  sh->ordered = 0;
  ws[0].best.n = 0;
  topk_merge(&ws[0].best, &sh->top);
  topk_free(&sh->top);
}

/* Pruned: bounded plans whose bound exceeds the final k-th best (of every
 * process), whatever the order they were costed in; without a topology,
 * plans whose floor exceeds it (cost() drops all or some of them, as the
 * threads' bars fall: the count is the same whatever the split). */
static long pruned_of(const bounded *all, long nb, double bar) {
  long n = 0;
  for (long i = 0; i < nb; i++) n += all[i].bound > bar;
  return n;
}

/* On worker t's thread: open its job, sharing worker 0's (in parallel:
 * building a job's graph is the threads' only start-up work). 0, or -1
 * when it failed (the search then stops). */
static int worker_job(shared *sh, worker *ws, int t) {
  if (ws[t].job) return 0;
  sc_error e = {0};
  sc_job *j = ws[t].spare;
  ws[t].spare = NULL;
  int rc = j ? job_reopen_sharing(j, ws[0].job, &e) : job_open_sharing(ws[0].job, &ws[t].job, &e);
  if (j && rc == SC_OK) ws[t].job = j;
  else if (j) sc_job_close(j);
  if (rc == SC_OK) return 0;
  fail(sh, &ws[t], rc, &e);
  return -1;
}

/* ------------------------------------------------------------- driver */

/* The space's index of this process's point j (spread.h). */
static long proc_point(const shared *sh, long j) { return spread_point(j, sh->rank, sh->size); }

/* 1 when points a and a + 1 lower alike but for ZeRO, the HSDP shard,
 * the dtype, micro-batch, vpp, recomputation and offloading (the fields
 * of space.c's outer loops): a thread that takes both reuses its memo of
 * lowered plans and the static memory of the first (cannot_fit). */
static int same_unit(const void *ctx, long a) {
  const shared *sh = ctx;
  long i = proc_point(sh, a), j = proc_point(sh, a + 1);
  if (j != i + 1) return 0;
  const space_pt *p = &sh->pts[i], *q = &sh->pts[j];
  return p->tp == q->tp && p->cp == q->cp && p->pp == q->pp && p->dp == q->dp &&
         p->ep == q->ep && p->etp == q->etp && p->first == q->first && p->last == q->last &&
         p->emb_loss == q->emb_loss;
}

/* Threads for n plans (this process's share): o->threads, else every
 * core (OpenMP's default thread count, which follows OMP_NUM_THREADS and
 * the process's CPU mask; without OpenMP the cores online). */
static int thread_count(const sc_search_opts *o, long n) {
#ifdef _OPENMP
  long t = o->threads > 0 ? o->threads : omp_get_max_threads();
#else
  long t = o->threads > 0 ? o->threads : sysconf(_SC_NPROCESSORS_ONLN);
#endif
  long most = (n + PLANS_PER_THREAD - 1) / PLANS_PER_THREAD;
  if (t > most) t = most;
  return t < 1 ? 1 : (int)t;
}

/* The valid plan that needs least memory (of every thread and process),
 * costed: none fits. */
static int closest_plan(shared *sh, worker *ws, int nt, sc_search_stats *st, sc_error *err) {
  long best = -1;
  double mem = 0;
  for (int t = 0; t < nt; t++)
    if (ws[t].closest >= 0 &&
        (best < 0 || ws[t].closest_mem < mem || (ws[t].closest_mem == mem && ws[t].closest < best))) {
      best = ws[t].closest;
      mem = ws[t].closest_mem;
    }
  spread_least(&mem, &best);
  if (best < 0) return SC_OK;
  sc_memory m;
  int rc = lower(sh, &ws[0], best, &m, err);
  if (rc == SC_OK) rc = job_finish(ws[0].job, &st->closest.result, err);
  if (rc != SC_OK) return rc;
  st->closest.plan = job_current(ws[0].job)->plan;
  st->closest.pareto = 0;
  st->closest.event_s = 0;
  memset(&st->closest.event_time, 0, sizeof st->closest.event_time);
  st->has_closest = 1;
  return SC_OK;
}

/* The first error of any worker (SC_OK if none). */
static int worker_error(const worker *ws, int nt, sc_error *err) {
  for (int t = 0; t < nt; t++)
    if (ws[t].rc != SC_OK) {
      *err = ws[t].err;
      return ws[t].rc;
    }
  return SC_OK;
}

/* What the threads of a search run with (both_passes). */
typedef struct passes {
  shared *sh;
  worker *ws;
  int nt;
  sc_candidate *scratch; /* the second pass's top k slots */
  int k;
} passes;

/* On thread t of the crew: the first pass over this process's share,
 * then (with a topology) the best-first second pass, so that a search
 * starts its threads once. A thread that finds no point left shuts the
 * crew's door (a helper starting later does nothing). The last thread
 * done with the first pass orders the bounded plans while the others
 * wait at the meeting. */
static void both_passes(crew *c, void *ctx, int t) {
  const passes *p = ctx;
  shared *sh = p->sh;
  int ok = worker_job(sh, p->ws, t) == 0;
  long lo, hi;
  while (ok && !get_stop(sh) && deal_next(&sh->deal, t, &lo, &hi)) {
    /* a helper that would start now would spend its cold start (its
     * job, its memos, fresh memory) on too few plans; the plans left are
     * read off the progress count (one shared counter, short by the
     * plans not yet counted: up to TICK_EVERY and deal.c's chunk a thread),
     * not summed over every thread's share */
    if (sh->count - __atomic_load_n(&sh->done, __ATOMIC_RELAXED) < JOIN_MIN) crew_shut(c);
    for (long j = lo; j < hi && !get_stop(sh); j++) {
      first_pass(sh, &p->ws[t], proc_point(sh, j));
      tick(sh, &p->ws[t]);
    }
    foresee(sh, &p->ws[t]);
  }
  crew_shut(c);
  if (!sh->topo) return; /* every thread alike: none meets */
  /* its own bounded plans in order, in parallel with the others: the
   * last at the meeting only merges them (order_bounded) */
  worker *w = &p->ws[t];
  if (w->n_b > 1) qsort(w->b, (size_t)w->n_b, sizeof *w->b, by_bound);
  __atomic_add_fetch(&sh->met, 1, __ATOMIC_RELAXED); /* read after the meeting */
  if (crew_meet(c)) {
    order_bounded(sh, p->ws, p->nt, p->scratch, p->k);
    crew_go(c);
  }
  second_pass(sh, &p->ws[t]);
}

/* Both passes over this process's share of the space with nt workers,
 * merged over the processes; results in ws[0].best. */
static int run(shared *sh, worker *ws, int nt, sc_candidate *scratch, int k,
               sc_search_stats *st, sc_error *err) {
  int rc = deal_open(&sh->deal, sh->count, nt, same_unit, sh, err);
  if (rc != SC_OK) return rc;
  passes p = {sh, ws, nt, scratch, k};
  pthread_mutex_init(&sh->mu, NULL);
  pthread_cond_init(&sh->more, NULL);
  crew_run(sh->pool, nt, both_passes, &p);
  pthread_cond_destroy(&sh->more);
  pthread_mutex_destroy(&sh->mu);
  deal_close(&sh->deal);
  rc = worker_error(ws, nt, err); /* of either pass */
  for (int t = 1; t < nt; t++) topk_merge(&ws[0].best, &ws[t].best);
  long counts[4] = {0, 0, 0, nt};
  for (int t = 0; t < nt; t++) {
    counts[0] += ws[t].tried;
    counts[1] += ws[t].valid;
    counts[2] += ws[t].fit;
  }
  best_first_done(sh, ws);
  if (rc == SC_OK && sh->order_rc != SC_OK) *err = sh->order_err, rc = sh->order_rc;
  /* processes fail together, or none waits for one that gave up */
  if (spread_any(rc != SC_OK) && rc == SC_OK)
    rc = sc_error_set(err, SC_ENOMEM, "another search process failed");
  if (rc == SC_OK) rc = spread_topk(&ws[0].best, err);
  if (rc == SC_OK) {
    long pruned = sh->topo ? pruned_of(sh->all, sh->nb, topk_bar(&ws[0].best)) : 0;
    for (int t = 0; t < nt && !sh->topo; t++)
      pruned += pruned_of(ws[t].b, ws[t].n_b, topk_bar(&ws[0].best));
    spread_sum(&pruned, 1);
    spread_sum(counts, 4);
    st->tried = counts[0];
    st->valid = counts[1];
    st->fit = counts[2];
    st->threads = (int)counts[3];
    st->pruned = pruned;
  }
  mem_free(sh->all);
  mem_free(sh->wait.a);
  sh->all = NULL;
  sh->wait.a = NULL;
  if (rc != SC_OK) return rc;
  return st->fit == 0 ? closest_plan(sh, ws, nt, st, err) : SC_OK;
}

/* The re-rank's watch, after each plan the calling thread runs: the time
 * budget of the whole search, and the progress callback (the walk's last
 * count) at most every PROGRESS_EVERY_S. */
typedef struct rerank_watch {
  const sc_search_opts *o;
  double t0, last;      /* clock_now_s() of the search's start, last report */
  long done;            /* plans the walk looked at */
  int stop;             /* an SC_SEARCH_* reason, 0 none */
} rerank_watch;

static int rerank_stop(void *ctx) {
  rerank_watch *w = ctx;
  double now = clock_now_s();
  if (w->o->max_seconds > 0 && now - w->t0 > w->o->max_seconds) w->stop = SC_SEARCH_BUDGET;
  else if (w->o->progress && now - w->last >= PROGRESS_EVERY_S) {
    w->last = now;
    if (w->o->progress(w->o->progress_ctx, w->done, w->done, now - w->t0))
      w->stop = SC_SEARCH_INTERRUPTED;
  }
  return w->stop;
}

/* Re-rank worker 0's top k by the event engine on the workers' jobs
 * (rerank.h; a job it opens is kept for workers_close) within the
 * search's budget: its wall time, why the event engine could not run a
 * plan, or the stop (the closed form's order kept in both), into st. */
static int rerank(crew_pool *pool, worker *ws, int nt, const sc_search_opts *o, double t0,
                  sc_search_stats *st, sc_error *err) {
  double r0 = clock_now_s();
  sc_job **jobs = mem_alloc(sizeof *jobs * (size_t)nt);
  if (!jobs) return sc_error_set(err, SC_ENOMEM, "out of memory re-ranking the plans");
  for (int t = 0; t < nt; t++) jobs[t] = ws[t].job;
  rerank_watch w = {o, t0, r0, st->tried, 0};
  int stopped = 0, rc = rerank_topk(pool, jobs, nt, &ws[0].best, rerank_stop, &w, &stopped, err);
  for (int t = 0; t < nt; t++) ws[t].job = jobs[t];
  mem_free(jobs);
  st->reranked = rc == SC_OK && !stopped && ws[0].best.n > 0;
  if (stopped) st->stopped = w.stop;
  if (rc == SC_EINPUT || rc == SC_EMODEL) st->rerank_err = *err, rc = SC_OK;
  st->rerank_seconds = clock_now_s() - r0;
  return rc;
}

/* Resolve base's model and cluster with a plan that cannot be wrong (one
 * GPU per replica, a batch of one sequence per GPU); the user's plan only
 * contributes its batch, dtype and switches. */
static int resolve_base(const sc_scenario *base, sc_scenario *b, sc_error *err) {
  *b = *base;
  sc_plan neutral = base->plan;
  neutral.tp = neutral.pp = neutral.cp = neutral.ep = neutral.vpp = 1;
  neutral.dp = 0;
  neutral.micro_batch = 0;
  neutral.schedule = SC_SCHED_1F1B;
  neutral.n_overrides = 0; /* the search picks one strategy for every layer */
  neutral.pp_first_layers = neutral.pp_last_layers = 0; /* uneven stages need pp > 1;
                                                           space.c sets each candidate's */
  neutral.global_batch = base->cluster.gpus;
  b->plan = neutral;
  /* the flex dispatcher and overlap_ep need ep > 1: checked at the
   * neutral plan's ep 1 as the all-to-all without the overlap, their
   * keys that hold at any ep on their own, and kept for the candidates
   * (space.c) */
  b->plan.moe_dispatcher = base->plan.moe_dispatcher == SC_MOE_FLEX ? SC_MOE_ALLTOALL
                                                                    : base->plan.moe_dispatcher;
  b->plan.overlap_ep = 0;
  int rc = sc_scenario_resolve(b, err);
  if (rc != SC_OK) return rc;
  b->plan.moe_dispatcher = base->plan.moe_dispatcher;
  b->plan.overlap_ep = base->plan.overlap_ep;
  if (base->plan.attention == SC_ATTN_AUTO) { /* resolved per candidate: its dtype */
    b->plan.attention = SC_ATTN_AUTO;
    b->plan.flash_attention = !!base->plan.flash_attention;
  }
  if ((rc = plan_moe_base(b, err)) != SC_OK) return rc;
  b->plan.global_batch = base->plan.global_batch;
  if (b->plan.global_batch < 1)
    return sc_error_set(err, SC_EINPUT, "plan.global_batch: a search needs a global batch >= 1");
  return SC_OK;
}

/* dtypes asked for (o->dtypes) of which the GPU has a peak for none:
 * an input error naming those it has, not an empty search. */
static int check_dtypes(const sc_scenario *b, const sc_search_opts *o, sc_error *err) {
  if (!o->dtypes || space_dtypes(b, o)) return SC_OK;
  char valid[128] = "";
  for (int d = 0; d < SC_DTYPE_COUNT; d++)
    if (b->cluster.gpu.peak_flops[d] > 0)
      snprintf(valid + strlen(valid), sizeof valid - strlen(valid), "%s%s", *valid ? ", " : "",
               sc_dtype_name((sc_dtype)d));
  return sc_error_set(err, SC_EINPUT,
                      "dtypes: the GPU %s has a dense peak for none of the types asked; valid: %s",
                      b->cluster.gpu.name, valid);
}

static void fill_defaults(const sc_scenario *b, const sc_search_opts *opts, sc_search_opts *o) {
  if (opts) *o = *opts;
  else sc_search_opts_default(o);
  int domain = b->cluster.nvlink_domain > 0 ? b->cluster.nvlink_domain : b->cluster.gpus_per_node;
  if (o->max_tp <= 0) o->max_tp = domain;
  if (o->max_pp <= 0) o->max_pp = 64;
  if (o->max_micro_batch <= 0) o->max_micro_batch = 16;
  if (o->max_vpp <= 0) o->max_vpp = 4;
}

/* ------------------------------------------------- searcher, sc_search */

int sc_searcher_open(int threads, sc_searcher **out, sc_error *err) {
  *out = NULL;
  sc_search_opts o;
  sc_search_opts_default(&o);
  o.threads = threads;
  sc_searcher *s = mem_calloc(1, sizeof *s);
  /* every core when threads <= 0; a space big enough for all of them */
  int helpers = thread_count(&o, LONG_MAX / 2) - 1;
  if (s) s->n = helpers + 1;
  if (!s || !(s->jobs = mem_calloc((size_t)s->n, sizeof *s->jobs)) ||
      crew_pool_open(helpers, &s->pool)) {
    if (s) mem_free(s->jobs);
    mem_free(s);
    return sc_error_set(err, SC_ENOMEM, "out of memory (or threads) opening a searcher of %d "
                        "threads", helpers + 1);
  }
  *out = s;
  return SC_OK;
}

void sc_searcher_close(sc_searcher *s) {
  if (!s) return;
  crew_pool_close(s->pool);
  for (int t = s->n - 1; t >= 0; t--) sc_job_close(s->jobs[t]); /* parked: none shares */
  mem_free(s->jobs);
  mem_free(s->pts);
  mem_free(s);
}

int sc_search(const sc_scenario *base, const sc_search_opts *opts,
              sc_candidate *best, int max_best, int *n_best,
              sc_search_stats *stats, sc_error *err) {
  return sc_searcher_search(NULL, base, opts, best, max_best, n_best, stats, err);
}

/* sc_searcher_search on sr, held by this search (NULL: none). */
static int search_on(sc_searcher *sr, const sc_scenario *base, const sc_search_opts *opts,
                     sc_candidate *best, int max_best, int *n_best, sc_search_stats *stats,
                     sc_error *err) {
  sc_scenario b;
  int rc = resolve_base(base, &b, err);
  if (rc != SC_OK) return rc;
  if (max_best < 1) return sc_error_set(err, SC_EINPUT, "a search keeps at least 1 plan");
  sc_search_opts o;
  fill_defaults(&b, opts, &o);
  if ((rc = check_dtypes(&b, &o, err)) != SC_OK) return rc;
  double t0 = clock_now_s();
  sc_job *job;
  if ((rc = first_job(sr, &b, &job, err)) != SC_OK) return rc;
  /* lower() writes points into the job's copy of b's plan */
  assert(!memcmp(&sc_job_scenario(job)->plan, &b.plan, sizeof b.plan));
  space_pt *pts = sr ? sr->pts : NULL; /* sr's array, taken */
  long n = 0, cap_pts = sr ? sr->cap_pts : 0;
  if (sr) sr->pts = NULL, sr->cap_pts = 0;
  sc_search_stats st;
  memset(&st, 0, sizeof st);
  st.dtypes = space_dtypes(&b, &o);
  worker *ws = NULL;
  sc_candidate *scratch = NULL;
  rc = space_build_in(&b, job_graph(job), &o, &pts, &cap_pts, &n, err);
  long full = n;
  if (o.max_plans > 0 && n > o.max_plans) n = o.max_plans;
  int rank, size;
  spread_where(&rank, &size);
  long count = spread_count(n, rank, size);
  int nt = thread_count(&o, count);
  if (rc == SC_OK) {
    ws = mem_calloc((size_t)nt, sizeof *ws);
    scratch = mem_alloc(sizeof *scratch * (size_t)max_best);
    if (!ws || !scratch) rc = sc_error_set(err, SC_ENOMEM, "out of memory starting the search");
  }
  for (int t = 1; ws && t < nt; t++) ws[t].spare = searcher_take(sr, t);
  if (rc == SC_OK) rc = workers_open(ws, nt, job, best, max_best, err);
  if (rc == SC_OK) {
    shared sh = {.base = &b, .o = &o, .pool = sr ? sr->pool : NULL, .pts = pts, .n = n,
                 .rank = rank, .size = size, .count = count, .topo = job_has_topology(job), .t0 = t0,
                 .last_report = t0 - PROGRESS_EVERY_S, .bar = INFINITY, .order_rc = SC_OK,
                 .nt = nt, .first = {INFINITY, LONG_MAX}};
    rc = run(&sh, ws, nt, scratch, max_best, &st, err);
    st.stopped = sh.stop > 0 ? sh.stop : n < full ? SC_SEARCH_MAX_PLANS : SC_SEARCH_COMPLETE;
  }
  /* none valid: why, in the plan check's words (formatted only now) */
  if (rc == SC_OK && full == 0) rejects_empty(&b, job_graph(job), &o, &st);
  else if (rc == SC_OK && st.valid == 0) rc = rejects_explain(job, pts, n, &st, err);
  /* a walk the budget or the user stopped keeps the closed form's order */
  if (rc == SC_OK && o.rerank && (st.stopped == SC_SEARCH_COMPLETE || st.stopped == SC_SEARCH_MAX_PLANS))
    rc = rerank(sr ? sr->pool : NULL, ws, nt, &o, t0, &st, err);
  if (rc == SC_OK) {
    topk_pareto(&ws[0].best);
    *n_best = ws[0].best.n;
    st.total = n;
    st.full = full;
    st.seconds = clock_now_s() - t0;
    if (stats) *stats = st;
  }
  /* all but worker 0's job, which is job: kept by sr after a search
   * that went well, else closed */
  if (rc != SC_OK) sr = NULL;
  if (ws) workers_close(sr, ws, nt);
  searcher_keep(sr, 0, job);
  mem_free(ws);
  mem_free(scratch);
  if (sr) sr->pts = pts, sr->cap_pts = cap_pts;
  else mem_free(pts);
  return rc;
}

int sc_searcher_search(sc_searcher *sr, const sc_scenario *base, const sc_search_opts *opts,
                       sc_candidate *best, int max_best, int *n_best, sc_search_stats *stats,
                       sc_error *err) {
  sc_searcher *held = searcher_hold(sr);
  int rc = search_on(held, base, opts, best, max_best, n_best, stats, err);
  if (held) crew_pool_let_go(held->pool);
  return rc;
}
