/*
 * test_crew.c -- a search's threads (src/search/crew.h): helpers join
 * while the door is open and never after, every joined thread runs once,
 * a meeting waits for every joined thread and its last one acts alone,
 * and crew_run returns only once every joined thread is done.
 */
#include <criterion/criterion.h>
#include <pthread.h>
#include <sched.h>
#include <time.h>

#include "search/crew.h"

#define MAX_T 16

typedef struct tally {
  int calls[MAX_T];      /* fn calls per thread (atomic) */
  int running;           /* threads inside fn (atomic) */
  int total;             /* fn calls (atomic) */
  int wait_all;          /* thread 0 waits until every helper has joined */
  int shut_at_once;      /* thread 0 shuts the door first thing */
  int nt;
  /* meetings */
  int before;            /* threads that reached the meeting (atomic) */
  int lasts;             /* threads crew_meet returned 1 to (atomic) */
  int seen_at_last;      /* `before` when the last one acted */
  int acted;             /* the last one's work done (atomic) */
  int saw_unacted;       /* a thread went on before the last one acted (atomic) */
} tally;

static void nap(long us) {
  struct timespec t = {0, us * 1000};
  nanosleep(&t, NULL);
}

static int get(const int *p) { return __atomic_load_n(p, __ATOMIC_ACQUIRE); }
static void add(int *p, int v) { __atomic_add_fetch(p, v, __ATOMIC_ACQ_REL); }

static void count(crew *c, void *ctx, int t) {
  tally *y = ctx;
  cr_assert(t >= 0 && t < y->nt, "thread %d of %d", t, y->nt);
  add(&y->calls[t], 1);
  add(&y->total, 1);
  add(&y->running, 1);
  if (t == 0 && y->shut_at_once) crew_shut(c);
  /* every helper joins while the door is open (5 s at most) */
  for (int i = 0; t == 0 && y->wait_all && get(&y->total) < y->nt && i < 5000; i++) nap(1000);
  nap(200);
  add(&y->running, -1);
}

Test(crew, every_helper_joins_while_the_door_is_open_and_runs_once) {
  tally y = {.nt = 8, .wait_all = 1};
  crew_run(NULL, y.nt, count, &y);
  cr_assert_eq(y.total, y.nt, "%d of %d threads ran", y.total, y.nt);
  for (int t = 0; t < y.nt; t++) cr_assert_eq(y.calls[t], 1, "thread %d ran %d times", t, y.calls[t]);
  cr_assert_eq(get(&y.running), 0, "crew_run returned with %d threads in fn", get(&y.running));
}

Test(crew, no_helper_joins_after_the_door_is_shut) {
  for (int round = 0; round < 20; round++) {
    tally y = {.nt = 4, .shut_at_once = 1};
    crew_run(NULL, y.nt, count, &y);
    int ran = get(&y.total);
    cr_assert_eq(get(&y.running), 0, "crew_run returned with %d threads in fn", get(&y.running));
    cr_assert_eq(y.calls[0], 1, "the caller ran %d times", y.calls[0]);
    nap(20000); /* helpers that start now find the door shut */
    cr_assert_eq(get(&y.total), ran, "round %d: %d threads ran, %d after crew_run returned",
                 round, ran, get(&y.total));
  }
}

Test(crew, one_thread_is_the_caller_alone) {
  tally y = {.nt = 1};
  crew_run(NULL, 1, count, &y);
  cr_assert_eq(y.total, 1);
  cr_assert_eq(y.calls[0], 1);
}

static void meet(crew *c, void *ctx, int t) {
  tally *y = ctx;
  add(&y->calls[t], 1);
  add(&y->total, 1);
  if (t == 0) nap(2000); /* let helpers join */
  add(&y->before, 1);
  if (crew_meet(c)) {
    add(&y->lasts, 1);
    y->seen_at_last = get(&y->before);
    nap(1000);
    add(&y->acted, 1);
    crew_go(c);
  } else if (!get(&y->acted)) {
    add(&y->saw_unacted, 1);
  }
}

Test(crew, a_meeting_waits_for_every_joined_thread) {
  for (int round = 0; round < 20; round++) {
    tally y = {.nt = 6};
    crew_run(NULL, y.nt, meet, &y);
    cr_assert_eq(y.lasts, 1, "round %d: %d threads were last", round, y.lasts);
    cr_assert_eq(y.seen_at_last, y.total,
                 "round %d: the last of %d joined threads acted when %d had arrived", round,
                 y.total, y.seen_at_last);
    cr_assert_eq(y.saw_unacted, 0, "round %d: %d threads went on before the last acted", round,
                 y.saw_unacted);
  }
}

/* A pool's threads are the helpers of crew after crew: each joined
 * thread runs once per crew, the pool's seats and created threads mix
 * when a crew wants more helpers than the pool has, and a door shut at
 * once leaves no pool thread running after crew_run returns. */
Test(crew, a_pool_serves_crew_after_crew) {
  crew_pool *p = NULL;
  cr_assert_eq(crew_pool_open(3, &p), 0);
  cr_assert_eq(crew_pool_size(p), 3);
  cr_assert_eq(crew_pool_hold(p), p);
  cr_assert_null(crew_pool_hold(p), "held twice");
  for (int round = 0; round < 30; round++) {
    tally y = {.nt = round % 3 == 2 ? 6 : 4, .wait_all = round % 3 != 1,
               .shut_at_once = round % 3 == 1};
    crew_run(p, y.nt, count, &y);
    int ran = get(&y.total);
    cr_assert_eq(get(&y.running), 0, "round %d: crew_run returned with %d threads in fn", round,
                 get(&y.running));
    cr_assert_eq(y.calls[0], 1, "round %d: the caller ran %d times", round, y.calls[0]);
    for (int t = 0; t < y.nt; t++)
      cr_assert(y.calls[t] <= 1, "round %d: thread %d ran %d times", round, t, y.calls[t]);
    if (y.wait_all) cr_assert_eq(ran, y.nt, "round %d: %d of %d threads ran", round, ran, y.nt);
    else {
      nap(2000); /* a pool thread woken now finds the door shut */
      cr_assert_eq(get(&y.total), ran, "round %d: %d threads ran, %d after crew_run returned",
                   round, ran, get(&y.total));
    }
  }
  crew_pool_let_go(p);
  crew_pool_close(p);
}

typedef struct both_on_one {
  crew_pool *p;
  tally y;
} both_on_one;

static void *crew_on_pool(void *arg) {
  both_on_one *b = arg;
  crew_pool *held = crew_pool_hold(b->p);
  crew_run(held, b->y.nt, count, &b->y);
  crew_pool_let_go(held);
  return NULL;
}

/* Two threads' crews at once, each on the pool if it could hold it: one
 * holds it, the other creates its helpers; both have every helper. */
Test(crew, two_crews_at_once_share_one_pool_safely) {
  crew_pool *p = NULL;
  cr_assert_eq(crew_pool_open(2, &p), 0);
  for (int round = 0; round < 10; round++) {
    both_on_one a = {p, {.nt = 3, .wait_all = 1}}, b = {p, {.nt = 3, .wait_all = 1}};
    pthread_t th;
    cr_assert_eq(pthread_create(&th, NULL, crew_on_pool, &a), 0);
    crew_on_pool(&b);
    pthread_join(th, NULL);
    cr_assert(a.y.total == 3 && b.y.total == 3, "round %d: %d and %d threads ran", round,
              a.y.total, b.y.total);
  }
  crew_pool_close(p);
  crew_pool_close(NULL);
  cr_assert_eq(crew_pool_open(0, &p), 0); /* an empty pool: created helpers */
  tally y = {.nt = 3, .wait_all = 1};
  crew_run(crew_pool_hold(p), y.nt, count, &y);
  cr_assert_eq(y.total, 3);
  crew_pool_let_go(p);
  crew_pool_close(p);
}
