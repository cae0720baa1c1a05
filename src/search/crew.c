/*
 * crew.c -- a search's threads, joining only while there is work; see
 * crew.h.
 *
 * The helpers are detached: the caller never waits for a helper that has
 * not started (under load that can be milliseconds, as long as the
 * search), only for those that joined. So a helper may start after
 * crew_run has returned; it then reads only the crew's block, finds the
 * door shut and ends. The block is freed by whichever of the caller and
 * the helpers lets go of it last (`refs`); the caller's context (ctx) is
 * read only by helpers that joined, all of which have left fn before
 * crew_run returns. A helper joins with one compare-and-swap on `door`
 * (the door's bit and the count of threads in), without the lock: one
 * that starts after the door is shut never touches the lock, so it cannot
 * hold it while the system takes its core away from it (the working
 * threads would then sleep on the lock, and wait for a core again when
 * woken: milliseconds on a busy machine). `left` helpers have returned
 * from fn; `arrived` joined threads are at the meeting, and `met` says
 * its last one has called crew_go.
 *
 * A pool's thread sits on a seat: crew_run puts the crew (a reference)
 * and a helper number on the seat and signals it; the thread takes them
 * off under the seat's lock and helps as a created helper does. At its
 * end crew_run takes back what no seat's thread has taken (a thread that
 * wakes later finds its seat empty and parks again), so a seat holds at
 * most one crew, and a thread that took one holds its reference: it may
 * still be at the door when crew_run has returned, as a created helper.
 */
#include "search/crew.h"

#include <assert.h>
#include <pthread.h>
#include <time.h>

#include "core/clock.h"
#include "core/mem.h"

#if defined(__SANITIZE_ADDRESS__)
#define CREW_LSAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define CREW_LSAN 1
#endif
#endif
#ifdef CREW_LSAN
#include <sanitizer/lsan_interface.h>
#endif

#define DOOR_OPEN 1
/* How long a thread that waits for the others (at the meeting, or the
 * caller for the helpers at the end) first keeps its core, seconds,
 * before it sleeps: the waits are usually shorter (the last thread's
 * final plans, the merge between the passes: 10-100 us), and on a busy
 * machine a thread that sleeps gives its core away: woken, it waits for
 * one again, and the thread that woke it may lose its own core to it
 * (milliseconds each; docs/search.md, "Threads: where a small search's
 * second thread goes"). It does not yield either: that too hands the
 * core to another process for a time slice. Kept short: on a topology
 * the waits are often long (a plan costed for milliseconds), and a spin
 * that runs out is CPU lost. */
#define CREW_SPIN_S 1e-4

/* How long a pool's thread, back from a crew (or just started), keeps
 * polling its seat before it sleeps on the seat's condition variable,
 * seconds: Intel's OpenMP runtime keeps its threads for KMP_BLOCKTIME,
 * 200 ms by default, for the same reason. A sleeping thread woken is
 * queued on its waker's core (Linux wakes a task near its waker), where
 * the waker goes on searching: on the 2-core development VM a search of
 * a few milliseconds after 30 ms of idle ran on one core, 1.0x on 2
 * threads (docs/search.md, "Threads: a pool kept between searches"). A
 * polling thread naps between its looks, so its core stays free for
 * others. */
#define CREW_POOL_SPIN_S 0.2
/* Between two looks the thread naps, nanoseconds: a timer wakes it on
 * its own core (not queued behind its waker), and a look costs a few
 * microseconds (with the wake-up): about a sixth of a core on the 2-core
 * development VM. */
#define CREW_POOL_NAP_NS 50000

/* A created helper thread's argument: its crew and number. */
typedef struct helper {
  crew *c;
  int t;
} helper;

struct crew {
  pthread_mutex_t mu;
  pthread_cond_t cv;   /* signalled when a helper leaves fn and on crew_go */
  int refs;            /* the caller and the helpers not yet ended (atomic) */
  int door;            /* DOOR_OPEN | threads in (the caller included) << 1 (atomic) */
  int left;            /* joined helpers returned from fn (written under
                          mu, read atomically: spin) */
  int arrived;         /* joined threads at the meeting (under mu) */
  int met;             /* crew_go called (written under mu, read
                          atomically: spin) */
  crew_fn fn;
  void *ctx;
  helper h[];          /* h[t] for helper t, 1 <= t < nt */
};

/* A pool's thread and what it is to do next. */
typedef struct seat {
  pthread_mutex_t mu;
  pthread_cond_t cv;   /* signalled when `c` is set and on close */
  crew *c;             /* the crew to help, a reference held (under mu;
                          NULL: none) */
  int t;               /* its helper number there (under mu) */
  int quit;            /* end the thread (under mu) */
  int posted;          /* c or quit set since the thread last looked
                          (written under mu, atomically: seat_poll reads
                          it without the lock) */
  pthread_t th;
} seat;

struct crew_pool {
  int n;               /* seats, one thread each */
  int busy;            /* a thread holds the pool (atomic) */
  seat s[];            /* s[t - 1] for helper t */
};

/* Let go of c: the last holder frees it. */
static void release(crew *c) {
  if (__atomic_sub_fetch(&c->refs, 1, __ATOMIC_ACQ_REL) > 0) return;
  pthread_cond_destroy(&c->cv);
  pthread_mutex_destroy(&c->mu);
  mem_free(c);
}

/* 1 when the calling helper got in: the door was open, and the count of
 * threads in now counts it. */
static int join(crew *c) {
  int d = __atomic_load_n(&c->door, __ATOMIC_ACQUIRE);
  while (d & DOOR_OPEN)
    if (__atomic_compare_exchange_n(&c->door, &d, d + 2, 1, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
      return 1;
  return 0;
}

/* Helper t of c, on its thread: work if the door is open, then let go
 * of the reference it held. */
static void help(crew *c, int t) {
  if (join(c)) {
    c->fn(c, c->ctx, t);
    pthread_mutex_lock(&c->mu);
    __atomic_add_fetch(&c->left, 1, __ATOMIC_RELEASE);
    pthread_cond_broadcast(&c->cv);
    pthread_mutex_unlock(&c->mu);
  }
  release(c);
}

static void *helper_main(void *arg) {
  helper *h = arg;
  help(h->c, h->t);
  return NULL;
}

/* Shut the door: the threads in, the caller included (final from now). */
static int shut(crew *c) {
  return __atomic_and_fetch(&c->door, ~DOOR_OPEN, __ATOMIC_ACQ_REL) >> 1;
}

void crew_shut(crew *c) {
  if (__atomic_load_n(&c->door, __ATOMIC_RELAXED) & DOOR_OPEN) shut(c);
}

/* A hint to the core that the thread spins (x86's pause: the other
 * hardware thread of the core runs faster meanwhile); nothing elsewhere. */
static void relax(void) {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

/* Wait up to CREW_SPIN_S for *v (read atomically) to reach at least
 * `want`: 1 when it did (the caller then need not sleep). */
static int spin(const int *v, int want) {
  double until = clock_now_s() + CREW_SPIN_S;
  for (int i = 0;; i++) {
    if (__atomic_load_n(v, __ATOMIC_ACQUIRE) >= want) return 1;
    if (i % 64 == 0 && clock_now_s() > until) return 0;
    relax();
  }
}

int crew_meet(crew *c) {
  int joined = shut(c); /* final: no thread joins once one has arrived */
  pthread_mutex_lock(&c->mu);
  int last = ++c->arrived == joined;
  pthread_mutex_unlock(&c->mu);
  if (last || spin(&c->met, 1)) return last;
  pthread_mutex_lock(&c->mu);
  while (!c->met) pthread_cond_wait(&c->cv, &c->mu);
  pthread_mutex_unlock(&c->mu);
  return 0;
}

void crew_go(crew *c) {
  pthread_mutex_lock(&c->mu);
  __atomic_store_n(&c->met, 1, __ATOMIC_RELEASE);
  pthread_cond_broadcast(&c->cv);
  pthread_mutex_unlock(&c->mu);
}

/* ------------------------------------------------------------- pools */

/* Poll s for up to CREW_POOL_SPIN_S until something is posted on it. */
static void seat_poll(seat *s) {
  double until = clock_now_s() + CREW_POOL_SPIN_S;
  const struct timespec nap = {0, CREW_POOL_NAP_NS};
  while (!__atomic_load_n(&s->posted, __ATOMIC_ACQUIRE) && clock_now_s() < until)
    nanosleep(&nap, NULL);
}

static void *seat_main(void *arg) {
  seat *s = arg;
  for (;;) {
    seat_poll(s);
    pthread_mutex_lock(&s->mu);
    while (!s->c && !s->quit) pthread_cond_wait(&s->cv, &s->mu);
    crew *c = s->c;
    int t = s->t;
    s->c = NULL;
    __atomic_store_n(&s->posted, 0, __ATOMIC_RELAXED);
    pthread_mutex_unlock(&s->mu);
    if (!c) return NULL; /* quit */
    help(c, t);
  }
}

/* Seat s's thread is to be helper t of c (the seat is empty). */
static void seat_post(seat *s, crew *c, int t) {
  __atomic_add_fetch(&c->refs, 1, __ATOMIC_RELAXED);
  pthread_mutex_lock(&s->mu);
  assert(!s->c);
  s->c = c;
  s->t = t;
  __atomic_store_n(&s->posted, 1, __ATOMIC_RELEASE);
  pthread_cond_signal(&s->cv);
  pthread_mutex_unlock(&s->mu);
}

/* Take c back off seat s if its thread has not taken it (the caller
 * still holds c, so this is not its last reference). */
static void seat_retract(seat *s, crew *c) {
  pthread_mutex_lock(&s->mu);
  int mine = s->c == c;
  if (mine) s->c = NULL, __atomic_store_n(&s->posted, 0, __ATOMIC_RELAXED);
  pthread_mutex_unlock(&s->mu);
  if (mine) __atomic_sub_fetch(&c->refs, 1, __ATOMIC_ACQ_REL);
}

int crew_pool_open(int helpers, crew_pool **out) {
  *out = NULL;
  if (helpers < 0) helpers = 0;
  crew_pool *p = mem_alloc(sizeof *p + sizeof *p->s * (size_t)helpers);
  if (!p) return -1;
  p->n = 0;
  p->busy = 0;
  for (; p->n < helpers; p->n++) {
    seat *s = &p->s[p->n];
    *s = (seat){.c = NULL};
    pthread_mutex_init(&s->mu, NULL);
    pthread_cond_init(&s->cv, NULL);
    if (pthread_create(&s->th, NULL, seat_main, s)) {
      pthread_cond_destroy(&s->cv);
      pthread_mutex_destroy(&s->mu);
      crew_pool_close(p);
      return -1;
    }
  }
  *out = p;
  return 0;
}

void crew_pool_close(crew_pool *p) {
  if (!p) return;
  assert(!p->busy);
  for (int i = 0; i < p->n; i++) {
    seat *s = &p->s[i];
    pthread_mutex_lock(&s->mu);
    s->quit = 1;
    __atomic_store_n(&s->posted, 1, __ATOMIC_RELEASE);
    pthread_cond_signal(&s->cv);
    pthread_mutex_unlock(&s->mu);
    pthread_join(s->th, NULL);
    pthread_cond_destroy(&s->cv);
    pthread_mutex_destroy(&s->mu);
  }
  mem_free(p);
}

int crew_pool_size(const crew_pool *p) { return p ? p->n : 0; }

/* ------------------------------------------------------------- crews */

/* Start helpers from .. nt - 1 of c, detached; each one started holds a
 * reference. */
static void start_helpers(crew *c, int from, int nt) {
  if (from >= nt) return;
  pthread_attr_t attr;
  if (pthread_attr_init(&attr)) return;
  pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
  for (int t = from; t < nt; t++) {
    c->h[t] = (helper){c, t};
    __atomic_add_fetch(&c->refs, 1, __ATOMIC_RELAXED);
    pthread_t th;
    if (pthread_create(&th, &attr, helper_main, &c->h[t])) {
      __atomic_sub_fetch(&c->refs, 1, __ATOMIC_RELAXED);
      break;
    }
  }
  pthread_attr_destroy(&attr);
}

crew_pool *crew_pool_hold(crew_pool *p) {
  int free_ = 0;
  return p && __atomic_compare_exchange_n(&p->busy, &free_, 1, 0, __ATOMIC_ACQUIRE,
                                          __ATOMIC_RELAXED)
             ? p
             : NULL;
}

void crew_pool_let_go(crew_pool *p) {
  if (p) __atomic_store_n(&p->busy, 0, __ATOMIC_RELEASE);
}

void crew_run(crew_pool *pool, int nt, crew_fn fn, void *ctx) {
  crew *c = nt > 1 ? mem_alloc(sizeof *c + sizeof *c->h * (size_t)nt) : NULL;
  crew one; /* nt 1, or no memory for the helpers: the caller alone */
  if (!c) c = &one, nt = 1;
  *c = (crew){.refs = 1, .door = DOOR_OPEN | 1 << 1, .fn = fn, .ctx = ctx};
  pthread_mutex_init(&c->mu, NULL);
  pthread_cond_init(&c->cv, NULL);
#ifdef CREW_LSAN
  /* a helper not yet started when the process exits still holds it */
  if (c != &one) __lsan_ignore_object(c);
#endif
  crew_pool *p = nt > 1 ? pool : NULL;
  assert(!p || __atomic_load_n(&p->busy, __ATOMIC_RELAXED));
  int seats = p ? (p->n < nt - 1 ? p->n : nt - 1) : 0; /* helpers 1 .. seats */
  for (int t = 1; t <= seats; t++) seat_post(&p->s[t - 1], c, t);
  if (nt > 1) start_helpers(c, seats + 1, nt);
  fn(c, ctx, 0);
  int helpers = shut(c) - 1;
  for (int t = 1; t <= seats; t++) seat_retract(&p->s[t - 1], c);
  if (helpers > 0) spin(&c->left, helpers);
  pthread_mutex_lock(&c->mu);
  while (c->left < helpers) pthread_cond_wait(&c->cv, &c->mu);
  pthread_mutex_unlock(&c->mu);
  if (c != &one) release(c);
  else pthread_cond_destroy(&c->cv), pthread_mutex_destroy(&c->mu);
}
