/*
 * test_moe_shared_overlap.c -- Megatron's --moe-shared-expert-overlap
 * (plan.moe_shared_expert_overlap): the shared experts run on their own
 * stream, fc1 and the activation beside the dispatch, fc2 beside the
 * combine, in both passes; without it (the default) nothing of the
 * all-to-all hides. Megatron's checks: alltoall or flex only, not with
 * overlap_moe_expert_parallel_comm.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "lowered.h"

/* lowered_small_moe with one shared expert: tp 1, dp 8, ep 4, the
 * alltoall dispatcher. */
static sc_scenario small(int overlap) {
  sc_scenario s = lowered_small_moe(1, 4, SC_MOE_ALLTOALL);
  s.model.tf.shared_experts = 1;
  s.plan.moe_shared_expert_overlap = overlap;
  return s;
}

Test(moe_shared_overlap, legs_and_kernels_are_marked_by_side) {
  static const struct { const char *name; int side; } want[] = {
      {"ep_dispatch", 1}, {"ep_combine", 2}, {"shared_fc1", 1},
      {"shared_swiglu", 1}, {"shared_fc2", 2}, {"fc1", 0}, {"route", 0}};
  for (int on = 0; on <= 1; on++) {
    sc_scenario s = small(on);
    lowered l;
    lowered_make(&l, &s);
    for (size_t i = 0; i < sizeof want / sizeof *want; i++) {
      const xg_task *t = lowered_task(&l, want[i].name);
      cr_assert_eq(t->shared, on ? want[i].side : 0, "overlap %d: %s side %d", on, want[i].name,
                   t->shared);
      if (t->kind == XG_COMM)
        cr_assert_eq(t->overlap, on ? XG_OVL_SHARED : XG_OVL_NONE, "%s", want[i].name);
    }
    lowered_done(&l);
  }
}

Test(moe_shared_overlap, hides_ep_time_and_the_engines_agree) {
  /* no host time (framework_eager false): this small layer is otherwise
   * bound by its launches, where hiding a collective gains nothing */
  sc_scenario off = small(0), on = small(1);
  off.plan.framework_eager = on.plan.framework_eager = 0;
  sc_result a0 = lowered_predict(&off, 0), a1 = lowered_predict(&on, 0);
  sc_result e0 = lowered_predict(&off, 1), e1 = lowered_predict(&on, 1);
  /* the shared experts' compute is there either way: what changes is the
   * all-to-all's exposed part, never more than all of it */
  cr_assert(a1.time.ep_comm < a0.time.ep_comm, "ep %g -> %g", a0.time.ep_comm, a1.time.ep_comm);
  cr_assert(a1.step_s < a0.step_s && a0.step_s - a1.step_s <= a0.time.ep_comm * (1 + 1e-9),
            "step %g -> %g, ep %g", a0.step_s, a1.step_s, a0.time.ep_comm);
  cr_assert(fabs(e1.step_s / a1.step_s - 1) < 0.02, "closed %g event %g", a1.step_s, e1.step_s);
  cr_assert(fabs(e1.time.ep_comm - a1.time.ep_comm) <= 0.02 * a0.time.ep_comm,
            "ep closed %g event %g", a1.time.ep_comm, e1.time.ep_comm);
  cr_assert(e1.step_s < e0.step_s);
}

Test(moe_shared_overlap, without_shared_experts_nothing_changes) {
  sc_scenario off = small(0), on = small(1);
  off.model.tf.shared_experts = on.model.tf.shared_experts = 0;
  cr_assert_eq(lowered_predict(&off, 0).step_s, lowered_predict(&on, 0).step_s);
}

Test(moe_shared_overlap, megatrons_checks) {
  sc_error err = {0};
  sc_result r;
  sc_scenario s = small(1);
  s.plan.moe_dispatcher = SC_MOE_ALLGATHER;
  cr_assert_eq(sc_predict(&s, &r, &err), SC_EINPUT);
  cr_assert(strstr(err.msg, "only works with alltoall or flex"), "%s", err.msg);
  s = small(1);
  s.plan.overlap_ep = 1;
  memset(&err, 0, sizeof err);
  cr_assert_eq(sc_predict(&s, &r, &err), SC_EINPUT);
  cr_assert(strstr(err.msg, "not with plan.overlap_ep"), "%s", err.msg);
}
