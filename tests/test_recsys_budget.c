/*
 * test_recsys_budget.c -- the recommendation planner's budgets and
 * progress callback: a budget stops local search early and says so, the
 * callback sees the search and can stop it, and without a budget the plan
 * found is the same with or without a callback.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "rsjob.h"
#include "stepcast_recsys.h"

/* 120 tables of mixed sizes on 16 GPUs (two nodes): local search, many
 * evaluations. */
static void many_tables(sc_rs_job *j) {
  rs_test_job(j, "40x2000000x64@1;40x300000x32@4;40x20000x16@20", 16, SC_RS_POWERLAW, 1.05);
}

typedef struct seen {
  int calls;
  long last;             /* evaluations at the last call */
  int stop_after;        /* stop at this call (0: never) */
} seen;

static int watch(void *ctx, long evaluated, double seconds) {
  seen *s = ctx;
  cr_assert(evaluated >= s->last && seconds >= 0, "evaluated %ld after %ld", evaluated, s->last);
  s->last = evaluated;
  return ++s->calls == s->stop_after;
}

static void plan(const sc_rs_job *j, const sc_rs_plan_opts *o, sc_rs_plans *ps) {
  sc_error e = {0};
  cr_assert_eq(sc_rs_plan_search(j, o, ps, &e), SC_OK, "%s", e.msg);
  cr_assert(ps->n >= 1);
}

Test(recsys_budget, max_evals_stops_local_search_and_says_so) {
  sc_rs_job j;
  many_tables(&j);
  sc_rs_plan_opts o;
  sc_rs_plan_opts_default(&o);
  sc_rs_plans all, cut;
  plan(&j, &o, &all);
  cr_assert(all.stopped == SC_RS_STOP_COMPLETE && !all.exhaustive && all.evaluated > 500,
            "stopped %d, %ld evaluated", all.stopped, all.evaluated);
  o.max_evals = 200;
  plan(&j, &o, &cut);
  cr_assert(cut.stopped == SC_RS_STOP_MAX_EVALS && cut.evaluated == 200,
            "stopped %d, %ld evaluated", cut.stopped, cut.evaluated);
  /* the best so far is never better than the whole search's */
  cr_assert(!all.res[0].fits || !cut.res[0].fits || cut.res[0].iter_s >= all.res[0].iter_s,
            "cut %g s, all %g s", cut.res[0].iter_s, all.res[0].iter_s);
  sc_rs_plans_free(&cut);
  o.max_evals = all.evaluated + 1; /* a budget it does not reach changes nothing */
  plan(&j, &o, &cut);
  cr_assert(cut.stopped == SC_RS_STOP_COMPLETE && cut.evaluated == all.evaluated &&
                cut.res[0].iter_s == all.res[0].iter_s,
            "stopped %d", cut.stopped);
  sc_rs_plans_free(&cut);
  o.max_evals = 0;
  o.max_seconds = 1e-9; /* the clock is read every 16 evaluations */
  plan(&j, &o, &cut);
  cr_assert(cut.stopped == SC_RS_STOP_MAX_SECONDS && cut.evaluated == 16, "stopped %d, %ld",
            cut.stopped, cut.evaluated);
  sc_rs_plans_free(&cut);
  sc_rs_plans_free(&all);
  sc_rs_job_free(&j);
}

/* A callback that never says stop sees the evaluations grow and leaves
 * the plan found as it is; one that says stop ends the search. */
Test(recsys_budget, progress_callback_watches_and_can_stop) {
  sc_rs_job j;
  many_tables(&j);
  sc_rs_plan_opts o;
  sc_rs_plan_opts_default(&o);
  sc_rs_plans plain, watched, stopped;
  plan(&j, &o, &plain);
  seen s = {0, 0, 0};
  o.progress = watch;
  o.progress_ctx = &s;
  plan(&j, &o, &watched);
  cr_assert(watched.stopped == SC_RS_STOP_COMPLETE && watched.evaluated == plain.evaluated &&
                watched.res[0].iter_s == plain.res[0].iter_s &&
                !memcmp(watched.plan[0].s, plain.plan[0].s,
                        sizeof *plain.plan[0].s * (size_t)plain.plan[0].n),
            "a callback changed the plan");
  seen t = {0, 0, 1};
  o.progress_ctx = &t;
  plan(&j, &o, &stopped);
  /* the first call comes 0.1 s in: on a fast machine the search may end first */
  cr_log_info("plain: %ld evaluated; stopped by the callback after %d call(s), %ld evaluated",
              plain.evaluated, t.calls, stopped.evaluated);
  cr_assert(t.calls == 0 ? stopped.stopped == SC_RS_STOP_COMPLETE
                         : stopped.stopped == SC_RS_STOP_INTERRUPTED &&
                               stopped.evaluated < plain.evaluated,
            "calls %d stopped %d", t.calls, stopped.stopped);
  sc_rs_plans_free(&plain);
  sc_rs_plans_free(&watched);
  sc_rs_plans_free(&stopped);
  sc_rs_job_free(&j);
}

Test(recsys_budget, a_negative_budget_is_an_input_error) {
  sc_rs_job j;
  many_tables(&j);
  sc_rs_plan_opts o;
  sc_rs_plan_opts_default(&o);
  o.max_evals = -1;
  sc_rs_plans ps;
  sc_error e = {0};
  cr_assert_eq(sc_rs_plan_search(&j, &o, &ps, &e), SC_EINPUT);
  cr_assert(strstr(e.msg, "max_evals"), "%s", e.msg);
  o.max_evals = 0;
  o.max_seconds = NAN; /* recsys_plan(max_seconds=float("nan")) in Python */
  cr_assert_eq(sc_rs_plan_search(&j, &o, &ps, &e), SC_EINPUT);
  cr_assert(strstr(e.msg, "max_seconds"), "%s", e.msg);
  sc_rs_job_free(&j);
}
