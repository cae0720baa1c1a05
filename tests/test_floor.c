/*
 * test_floor.c -- the floors the search drops plans by (docs/search.md,
 * "How a plan is evaluated"): for every plan of three spaces, evaluated as
 * the search does (job_lower, then on a topology job_bound_floor and
 * job_bound, then job_finish_below),
 * - on a topology the bound's floor is at most the bound, the bound at
 *   most the step;
 * - job_finish_below at a bar of the step itself costs the plan (its
 *   floor is at most the step) and gives job_finish's result bit for bit
 *   (sc_job_predict on a job of its own);
 * - below the floor it drops the plan and leaves the result unwritten,
 *   and the floor is a real cut: it is above the step of the best plan for
 *   most plans.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "core/mem.h"
#include "job/job.h"
#include "memsame.h"
#include "search/space.h"
#include "searchcases.h"
#include "stepcast.h"

/* Every plan of in's space (micro-batch up to 8, vpp up to 4) as above;
 * how many were costed. */
static long floors(const sc_scenario *in) {
  sc_error err = {0};
  sc_scenario base;
  base_of(in, &base);
  sc_job *a, *b;
  two_jobs(&base, &a, &b);
  space_pt *pts;
  long n, costed = 0, dropped = 0;
  space_of(&base, job_graph(a), 8, 64, 8, 4, &pts, &n);
  double best = INFINITY;
  double *steps = mem_alloc(sizeof *steps * (size_t)n);
  cr_assert(steps);
  for (long i = 0; i < n; i++) {
    sc_plan p;
    space_plan(&base.plan, &pts[i], &p);
    sc_memory m;
    steps[i] = NAN;
    if (job_lower(a, &p, &m, &err) != SC_OK) continue;
    double floor_b = 0, bound = 0;
    if (job_has_topology(a)) {
      cr_assert_eq(job_bound_floor(a, &floor_b, &err), SC_OK, "%s", err.msg);
      cr_assert_eq(job_bound(a, &bound, &err), SC_OK, "%s", err.msg);
      cr_assert(floor_b <= bound, "plan %ld: bound's floor %.17g above the bound %.17g", i,
                floor_b, bound);
    }
    sc_result r1, r2;
    memset(&r2, 0, sizeof r2);
    cr_assert_eq(sc_job_predict(b, &p, &r2, &err), SC_OK, "%s", err.msg);
    double fl = INFINITY;
    memset(&r1, 0, sizeof r1);
    cr_assert_eq(job_finish_below(a, r2.step_s, &r1, &fl, &err), SC_OK, "%s", err.msg);
    cr_assert(fl <= r2.step_s, "plan %ld: its floor %.17g is above its own step %.17g", i, fl,
              r2.step_s);
    cr_assert(same_result(&r1, &r2), "plan %ld: step %.17g below the bar, %.17g predicted", i,
              r1.step_s, r2.step_s);
    cr_assert(bound <= r1.step_s, "plan %ld: bound %.17g above the step %.17g", i, bound,
              r1.step_s);
    costed++;
    steps[i] = r1.step_s;
    if (r1.step_s < best) best = r1.step_s;
  }
  /* every plan again against the best step: dropped where its floor
   * exceeds it (never the best plan), the result then left unwritten */
  for (long i = 0; i < n; i++) {
    if (isnan(steps[i])) continue;
    sc_plan p;
    space_plan(&base.plan, &pts[i], &p);
    sc_memory m;
    cr_assert_eq(job_lower(a, &p, &m, &err), SC_OK, "%s", err.msg);
    sc_result r;
    memset(&r, 0, sizeof r);
    r.step_s = -1;
    double fl = -1;
    cr_assert_eq(job_finish_below(a, best, &r, &fl, &err), SC_OK, "%s", err.msg);
    cr_assert(fl >= 0 && fl <= steps[i], "plan %ld: floor %.17g, step %.17g", i, fl, steps[i]);
    if (fl > best) {
      dropped++;
      cr_assert(steps[i] > best, "plan %ld: the best plan (%.17g s) dropped", i, steps[i]);
      cr_assert_eq(r.step_s, -1, "plan %ld: a dropped plan's result written", i);
    } else {
      cr_assert_eq(r.step_s, steps[i], "plan %ld: %.17g s, %.17g before", i, r.step_s,
                   steps[i]);
    }
  }
  cr_assert_gt(dropped, costed / 2, "the floor drops only %ld of %ld plans", dropped, costed);
  cr_log_info("%ld plans costed, %ld dropped by their floor at the best step", costed, dropped);
  mem_free(steps);
  mem_free(pts);
  sc_job_close(a);
  sc_job_close(b);
  return costed;
}

Test(floor, llama_default_network) {
  sc_scenario s = llama();
  cr_assert_gt(floors(&s), 500);
}

Test(floor, llama_fat_tree) {
  sc_scenario s = llama_fat_tree();
  cr_assert_gt(floors(&s), 500);
}

Test(floor, moe_fp8) {
  sc_scenario s = moe_fp8();
  cr_assert_gt(floors(&s), 100);
}
