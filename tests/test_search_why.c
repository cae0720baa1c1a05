/*
 * test_search_why.c -- a search says why it found nothing and how it
 * stopped: the plan check's reasons when no plan is valid (counted, with
 * predict's message), why an empty space is empty, and a max_plans cut
 * reported as a stop with the whole space's size.
 */
#include <criterion/criterion.h>
#include <string.h>

#include "stepcast.h"

/* GPT-3 175B (96 heads) on 1,024 A100, global batch 1,536. */
static void gpt3(sc_scenario *s) {
  sc_scenario_default(s);
  s->plan.dp = 0;
  s->plan.pp = 1;
}

static void search(const sc_scenario *s, const sc_search_opts *o, int *n, sc_search_stats *st) {
  sc_candidate best[3];
  sc_error err = {0};
  cr_assert_eq(sc_search(s, o, best, 3, n, st, &err), SC_OK, "%s", err.msg);
}

/* tp 64 does not divide the 96 heads: every plan is rejected for that,
 * and the reason is predict's message for the same plan. */
Test(search_why, no_valid_plan_gives_the_plan_checks_reason) {
  sc_scenario s;
  gpt3(&s);
  sc_search_opts o;
  sc_search_opts_default(&o);
  o.tp = 64;
  int n = -1;
  sc_search_stats st;
  search(&s, &o, &n, &st);
  cr_assert(n == 0 && st.valid == 0 && st.tried > 0, "n %d valid %ld tried %ld", n, st.valid,
            st.tried);
  cr_assert(st.rechecked == (st.total < 4096 ? st.total : 4096), "rechecked %ld of %ld",
            st.rechecked, st.total);
  cr_assert(st.n_reasons >= 1, "no reason");
  long sum = 0;
  for (int i = 0; i < st.n_reasons; i++) sum += st.reasons[i].count;
  cr_assert(sum <= st.rechecked && st.reasons[0].count > 0, "counts %ld of %ld", sum,
            st.rechecked);
  cr_assert(strstr(st.reasons[0].example, "plan.tp: 64 does not divide model.heads 96"),
            "reason: %s", st.reasons[0].example);
  /* predict words the same plan the same way */
  gpt3(&s);
  s.plan.tp = 64;
  s.plan.dp = 16;
  sc_result r;
  sc_error err = {0};
  cr_assert_eq(sc_predict(&s, &r, &err), SC_EINPUT);
  cr_assert(strstr(err.msg, "plan.tp: 64 does not divide model.heads 96"), "%s", err.msg);
}

/* A search with valid plans formats no reason. */
Test(search_why, valid_plans_give_no_reasons) {
  sc_scenario s;
  gpt3(&s);
  sc_search_opts o;
  sc_search_opts_default(&o);
  o.tp = 8;
  o.max_plans = 50;
  int n = -1;
  sc_search_stats st;
  search(&s, &o, &n, &st);
  cr_assert(st.valid > 0 && st.n_reasons == 0 && st.rechecked == 0, "valid %ld reasons %d",
            st.valid, st.n_reasons);
}

/* A fixed degree that cannot divide the GPUs leaves no plan to check:
 * the space is empty and the reason names the degree. */
Test(search_why, an_empty_space_says_which_degree) {
  sc_scenario s;
  gpt3(&s);
  sc_search_opts o;
  sc_search_opts_default(&o);
  o.tp = 3;
  int n = -1;
  sc_search_stats st;
  search(&s, &o, &n, &st);
  cr_assert(st.total == 0 && st.full == 0 && st.rechecked == 0 && st.n_reasons == 1,
            "total %ld reasons %d", st.total, st.n_reasons);
  cr_assert(strstr(st.reasons[0].example, "tp: 3 does not divide the 1024 GPUs"), "%s",
            st.reasons[0].example);
  o.tp = 0;
  o.ep = 2; /* GPT-3 is dense */
  search(&s, &o, &n, &st);
  cr_assert(st.n_reasons == 1 && strstr(st.reasons[0].example, "without experts"), "%s",
            st.reasons[0].example);
}

/* A fixed micro-batch, vpp or recomputation that no plan of the degrees
 * can have: the space is empty and the reason names it, with the values
 * the other constraints leave. */
Test(search_why, an_empty_space_says_which_inner_constraint) {
  sc_scenario s;
  gpt3(&s); /* global batch 1536 over 1024 GPUs: dp <= 512, batches of 3 x 2^k */
  sc_search_opts o;
  sc_search_opts_default(&o);
  o.tp = 8;
  o.micro_batch = 5;
  int n = -1;
  sc_search_stats st;
  search(&s, &o, &n, &st);
  cr_assert(st.full == 0 && st.n_reasons == 1, "full %ld", st.full);
  cr_assert(strstr(st.reasons[0].example, "micro_batch: 5 (--mb) divides no plan's per-replica "
                                          "batch (global batch 1536 / dp)"), "%s",
            st.reasons[0].example);
  cr_assert(strstr(st.reasons[0].example, "(up to max_micro_batch 16): 1, 2, 3, 4, 6, 8, 12, 16"),
            "%s", st.reasons[0].example);
  o.micro_batch = 0;
  o.pp = 1;
  o.vpp = 2; /* interleaving needs stages */
  search(&s, &o, &n, &st);
  cr_assert(st.full == 0 && strstr(st.reasons[0].example, "vpp: 2 (--vpp) fits no plan") &&
                strstr(st.reasons[0].example, "valid there (up to max_vpp 4): 1"),
            "%s", st.reasons[0].example);
  o.vpp = 0;
  o.recompute = SC_SEARCH_RECOMP_SELECTIVE | SC_SEARCH_RECOMP_PARTIAL;
  s.cluster.gpus = 768;
  o.pp = 96; /* one layer a stage: no partial; GPT-3 has attention: selective stays */
  search(&s, &o, &n, &st);
  cr_assert(st.full > 0 && st.n_reasons == 0, "full %ld: %s", st.full, st.reasons[0].example);
  o.recompute = SC_SEARCH_RECOMP_PARTIAL;
  search(&s, &o, &n, &st);
  cr_assert(st.full == 0 && strstr(st.reasons[0].example, "recompute: no plan under the other "
                                                          "constraints has partial") &&
                strstr(st.reasons[0].example, "valid there: none,selective,full"),
            "%s", st.reasons[0].example);
  /* a degree that cannot be is named first */
  o.tp = 5;
  search(&s, &o, &n, &st);
  cr_assert(strstr(st.reasons[0].example, "tp: 5 does not divide"), "%s", st.reasons[0].example);
}

/* max_plans cuts the space: the search says so (stopped, the whole
 * space's size); without the cut it is complete. */
Test(search_why, a_max_plans_cut_is_a_stop) {
  sc_scenario s;
  gpt3(&s);
  sc_search_opts o;
  sc_search_opts_default(&o);
  o.tp = 8;
  o.zero_stages = 1u << 3;
  int n = -1;
  sc_search_stats all, cut;
  search(&s, &o, &n, &all);
  cr_assert(all.stopped == SC_SEARCH_COMPLETE && all.full == all.total && all.total > 100,
            "stopped %d full %ld total %ld", all.stopped, all.full, all.total);
  o.max_plans = 100;
  search(&s, &o, &n, &cut);
  cr_assert(cut.stopped == SC_SEARCH_MAX_PLANS && cut.total == 100 && cut.full == all.total,
            "stopped %d total %ld full %ld", cut.stopped, cut.total, cut.full);
  o.max_plans = all.total; /* a budget that cuts nothing */
  search(&s, &o, &n, &cut);
  cr_assert_eq(cut.stopped, SC_SEARCH_COMPLETE);
}
