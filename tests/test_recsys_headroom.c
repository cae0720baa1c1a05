/*
 * test_recsys_headroom.c -- the recommendation planner's memory headroom
 * (sc_rs_plan_opts.headroom_bytes, .headroom_frac; `recsys plan
 * --headroom`): every plan it calls fitting leaves the headroom free, the
 * best under a headroom is the fastest plan clear of it (exhaustive
 * enumeration, so that is exact), the greedy seed places tables within it,
 * and a headroom that is not one is refused.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "rsjob.h"
#include "stepcast_recsys.h"

#define GIB 1073741824.0

/* 3 tables of 200,000 rows read 30 times a sample on 2 A100 80 GB: 5
 * options a table, 125 plans, enumerated; the fastest (0.54 GiB on its
 * fullest GPU) is not the one that needs least memory (0.40 GiB). */
static void hot_tables(sc_rs_job *j) {
  rs_test_job(j, "3x200000x128@30", 2, SC_RS_UNIFORM, 0);
}

static void plan(const sc_rs_job *j, const sc_rs_plan_opts *o, sc_rs_plans *ps) {
  sc_error e = {0};
  cr_assert_eq(sc_rs_plan_search(j, o, ps, &e), SC_OK, "%s", e.msg);
  cr_assert(ps->n >= 1);
}

/* Every plan listed says fits exactly when it leaves `room` bytes free. */
static void verdicts_leave(const sc_rs_plans *ps, double room) {
  for (int i = 0; i < ps->n; i++) {
    const sc_rs_result *r = &ps->res[i];
    cr_assert(fabs(r->mem_headroom - room) <= 1e-6 * room + 1, "plan %d: headroom %g, want %g",
              i + 1, r->mem_headroom, room);
    cr_assert_eq(r->fits, r->mem_bytes <= r->mem_capacity - room,
                 "plan %d: %g of %g bytes, %g kept free: fits %d", i + 1, r->mem_bytes,
                 r->mem_capacity, room, r->fits);
  }
}

Test(recsys_headroom, the_best_under_a_headroom_is_the_fastest_plan_clear_of_it) {
  sc_rs_job j;
  hot_tables(&j);
  sc_rs_plan_opts o;
  sc_rs_plan_opts_default(&o);
  o.top = 16;
  sc_rs_plans all, room;
  plan(&j, &o, &all);
  cr_assert(all.exhaustive && all.res[0].fits && all.res[0].mem_headroom == 0);
  verdicts_leave(&all, 0);
  /* a limit below the unconstrained best's memory, at the memory of the
   * fullest plan listed under it: the best no longer fits, that one does */
  double cap = all.res[0].mem_capacity, best_mem = all.res[0].mem_bytes, below = 0;
  for (int i = 1; i < all.n; i++)
    if (all.res[i].mem_bytes < best_mem && all.res[i].mem_bytes > below) below = all.res[i].mem_bytes;
  cr_assert(below > 0, "no plan listed needs less memory than the best (%g GiB)", best_mem / GIB);
  o.headroom_bytes = cap - below;
  plan(&j, &o, &room);
  verdicts_leave(&room, o.headroom_bytes);
  cr_assert(room.exhaustive && room.res[0].fits, "nothing fits %g GiB", (cap - o.headroom_bytes) / GIB);
  cr_assert(room.res[0].mem_bytes < best_mem && room.res[0].iter_s >= all.res[0].iter_s,
            "under the headroom: %g bytes, %g s; without: %g bytes, %g s", room.res[0].mem_bytes,
            room.res[0].iter_s, best_mem, all.res[0].iter_s);
  /* no plan of the unconstrained list that fits the lower limit is faster */
  for (int i = 0; i < all.n; i++)
    if (all.res[i].mem_bytes <= cap - o.headroom_bytes)
      cr_assert(all.res[i].iter_s >= room.res[0].iter_s, "plan %d: %g s beats %g s", i + 1,
                all.res[i].iter_s, room.res[0].iter_s);
  sc_rs_plans_free(&room);
  /* the same headroom as a fraction of the GPU's memory */
  o.headroom_bytes = 0;
  o.headroom_frac = (cap - below) / cap * (1 - 1e-12);
  plan(&j, &o, &room);
  verdicts_leave(&room, o.headroom_frac * cap);
  cr_assert(room.res[0].mem_bytes < best_mem);
  sc_rs_plans_free(&room);
  sc_rs_plans_free(&all);
  sc_rs_job_free(&j);
}

Test(recsys_headroom, the_greedy_seed_places_tables_within_it) {
  /* 3 tables of 14.3 GiB and 6 small ones on 2 GPUs (local search): the
   * greedy seed, balancing lookups, puts two large tables on GPU 0
   * (29.4 GiB); under a limit 1 GiB below that it must place the third
   * elsewhere (column slices over both GPUs) and fit */
  sc_rs_job j;
  rs_test_job(&j, "3x30000000x128@1;6x100000x128@40", 2, SC_RS_UNIFORM, 0);
  sc_rs_plan_opts o;
  sc_rs_plan_opts_default(&o);
  o.max_evals = 1; /* the first plan evaluated: the greedy seed as it is */
  sc_rs_plans seed, room;
  plan(&j, &o, &seed);
  cr_assert(!seed.exhaustive && seed.res[0].fits);
  double limit = seed.res[0].mem_bytes - GIB;
  o.headroom_bytes = seed.res[0].mem_capacity - limit;
  plan(&j, &o, &room);
  cr_assert(room.res[0].fits && room.res[0].mem_bytes <= limit, "greedy under %g GiB: %g GiB",
            limit / GIB, room.res[0].mem_bytes / GIB);
  verdicts_leave(&room, o.headroom_bytes);
  sc_rs_plans_free(&seed);
  sc_rs_plans_free(&room);
  sc_rs_job_free(&j);
}

Test(recsys_headroom, a_headroom_that_is_not_one_is_refused) {
  sc_rs_job j;
  hot_tables(&j);
  double bad_frac[] = {1, 1.5, -0.1, NAN}, bad_bytes[] = {-1, NAN, INFINITY};
  for (size_t i = 0; i < sizeof bad_frac / sizeof bad_frac[0] + sizeof bad_bytes / sizeof bad_bytes[0]; i++) {
    sc_rs_plan_opts o;
    sc_rs_plan_opts_default(&o);
    if (i < 4) o.headroom_frac = bad_frac[i];
    else o.headroom_bytes = bad_bytes[i - 4];
    sc_rs_plans ps;
    sc_error e = {0};
    cr_assert_eq(sc_rs_plan_search(&j, &o, &ps, &e), SC_EINPUT, "case %zu accepted", i);
    cr_assert(strstr(e.msg, "headroom") && strstr(e.msg, "valid"), "%s", e.msg);
  }
  sc_rs_job_free(&j);
}

Test(recsys_headroom, a_prediction_keeps_none) {
  sc_rs_job j;
  hot_tables(&j);
  sc_rs_plan p;
  sc_rs_result r;
  rs_test_plan(&j, SC_RS_DATA_PARALLEL, 0, &p);
  rs_test_eval(&j, &p, &r);
  cr_assert(r.mem_headroom == 0 && r.fits == (r.mem_bytes <= r.mem_capacity));
  sc_rs_result_free(&r);
  sc_rs_plan_free(&p);
  sc_rs_job_free(&j);
}
