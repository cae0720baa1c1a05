/*
 * test_search.c -- the plan search keeps the fastest plans that fit, in
 * order, and each is what sc_predict says of that plan.
 */
#include <criterion/criterion.h>
#include <math.h>

#include "stepcast.h"

Test(search, best_plans_are_sorted_fit_and_reproducible) {
  sc_scenario s;
  sc_scenario_default(&s);
  s.cluster.gpus = 64;
  s.model.tf.layers = 48; /* a smaller GPT so that many plans fit */
  s.model.tf.hidden = 6144;
  s.model.tf.heads = 48;
  s.model.tf.kv_heads = 48;
  s.model.tf.head_dim = 128;
  s.model.tf.ffn = 4 * 6144;
  s.plan.dp = 0;
  s.plan.pp = 1;
  s.plan.global_batch = 256;
  sc_candidate best[20];
  int n = 0;
  sc_search_stats st;
  sc_error err = {0};
  cr_assert_eq(sc_search(&s, NULL, best, 20, &n, &st, &err), SC_OK, "%s", err.msg);
  cr_assert(n == 20 && st.valid >= n && st.fit >= n && st.tried >= st.valid,
            "n %d tried %ld valid %ld fit %ld", n, st.tried, st.valid, st.fit);
  for (int i = 0; i < n; i++) {
    cr_assert(best[i].result.mem.fits, "plan %d does not fit", i);
    if (i) cr_assert(best[i - 1].result.step_s <= best[i].result.step_s, "not sorted at %d", i);
    sc_scenario t = s;
    t.plan = best[i].plan;
    sc_result r;
    cr_assert_eq(sc_predict(&t, &r, &err), SC_OK, "%s", err.msg);
    cr_assert_float_eq(r.step_s, best[i].result.step_s, 1e-12 * r.step_s, "plan %d", i);
    cr_assert_eq(t.plan.tp * t.plan.pp * t.plan.dp * t.plan.cp, 64);
  }
  /* the default plan is one of the plans searched, so the best is no slower */
  s.plan.tp = 8;
  s.plan.dp = 8;
  sc_result def;
  cr_assert_eq(sc_predict(&s, &def, &err), SC_OK, "%s", err.msg);
  cr_assert(best[0].result.step_s <= def.step_s * (1 + 1e-9), "best %g vs tp8 %g",
            best[0].result.step_s, def.step_s);
}

Test(search, nothing_fits_a_tiny_cluster) {
  sc_scenario s;
  sc_scenario_default(&s); /* GPT-3 175B */
  s.cluster.gpus = 8;
  s.plan.dp = 0;
  s.plan.pp = 1;
  s.plan.global_batch = 64;
  sc_candidate best[4];
  int n = -1;
  sc_search_stats st;
  sc_error err = {0};
  cr_assert_eq(sc_search(&s, NULL, best, 4, &n, &st, &err), SC_OK, "%s", err.msg);
  cr_assert_eq(n, 0, "%d plans of GPT-3 175B fit on 8 GPUs", n);
  cr_assert(st.valid > 0 && st.fit == 0);
}
