/*
 * crew.h -- the threads of one search: the calling thread and helpers
 * that join only while there is work (module prefix: crew_).
 *
 * A search of a few milliseconds must not wait for a thread that has not
 * started: on a machine whose cores are busy with other work a woken or
 * new thread can wait milliseconds for a core, as long as the search
 * itself. An OpenMP parallel region waits for every thread of its team
 * at its end (and, the first time, for each new thread to start before
 * the calling thread goes on), and GNU OpenMP's waiting threads spin,
 * holding the core the late thread needs (docs/search.md, "Threads: a
 * crew that waits for no late thread"). Here the calling thread works at
 * once; a helper that starts after the door is shut (crew_shut: all the
 * work has been handed out) does nothing and ends, and every wait
 * spins at most CREW_SPIN_S (0.1 ms: the usual wait, without giving the
 * core away) and then sleeps (a mutex and a condition variable), so a
 * long wait gives its core to the thread it waits for (GNU OpenMP spins
 * for hundreds of thousands of iterations).
 *
 * Threads are numbered 0 (the caller) to nt - 1; helper t runs fn(ctx,
 * t) if it joins in time. Nothing is global: a crew's helpers are either
 * threads created for it, detached, or the parked threads of a pool the
 * caller keeps (crew_pool) from one crew to the next.
 *
 * Why a pool: a thread just created is slow to start when its creator
 * keeps working: on the 2-core development VM a thread created by a busy
 * thread began 0.2-3 ms later, median 2.5 ms (often not within 3 ms),
 * against 20-35 us for a parked thread woken through a condition
 * variable (Linux places a new task behind the running ones; a woken
 * sleeper may preempt them): a search of 2-5 ms lost most of its helper
 * (docs/search.md, "Threads: a pool kept between searches").
 */
#ifndef SC_SEARCH_CREW_H
#define SC_SEARCH_CREW_H

typedef struct crew crew;

/* Threads parked between crews: helper t of a crew run on the pool is
 * its thread t - 1 (t <= crew_pool_size). One thread at a time runs
 * crews on it, the one that holds it (crew_pool_hold). */
typedef struct crew_pool crew_pool;

/* Start a pool of `helpers` parked threads (0 allowed: an empty pool)
 * into *out; 0, or -1 when the memory or a thread could not be had
 * (nothing then is left open). Owned by the caller: crew_pool_close. */
int crew_pool_open(int helpers, crew_pool **out);
/* Wake, end and join the pool's threads and free it (NULL: nothing).
 * No crew_run on it may be running. */
void crew_pool_close(crew_pool *p);
int crew_pool_size(const crew_pool *p);
/* p for the calling thread's crews until crew_pool_let_go, or NULL when
 * p is NULL or another thread holds it (its crews then create their
 * helpers). */
crew_pool *crew_pool_hold(crew_pool *p);
void crew_pool_let_go(crew_pool *p);

/* What each thread of a crew runs: its number t (0: the caller). */
typedef void (*crew_fn)(crew *c, void *ctx, int t);

/* Run fn(c, ctx, 0) on the calling thread and fn(c, ctx, t) on up to
 * nt - 1 helper threads, t = 1 .. nt - 1, each only if it starts before
 * the door is shut; return once the caller's and every joined helper's
 * fn have returned (the door is shut then if fn did not). Helpers 1 ..
 * crew_pool_size(pool) are the pool's threads (pool: NULL, or held by
 * the calling thread: crew_pool_hold), the others are created. A helper that cannot be created, or whose crew
 * cannot be allocated, is a helper that never joins (the work is the
 * caller's and the others'). */
void crew_run(crew_pool *pool, int nt, crew_fn fn, void *ctx);

/* No helper joins after this (idempotent): call it once no work is left
 * to hand out, so that a helper starting later ends without waiting. */
void crew_shut(crew *c);

/* A meeting of every thread that joined: shuts the door, then returns 1
 * to the last thread to arrive, which must call crew_go once it has done
 * what the others wait for; the others return 0 after crew_go. Every
 * joined thread must call it, or none. */
int crew_meet(crew *c);
void crew_go(crew *c);

#endif
