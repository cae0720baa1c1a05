/*
 * test_search.c -- the plan search keeps the fastest plans that fit, in
 * order, and each is what sc_predict says of that plan.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "stepcast.h"
#include "schedgrid.h"

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

/* ------------------------------------------- against an exhaustive walk */

#include <stdlib.h>

#include "core/mem.h"
#include "job/job.h"
#include "search/space.h"

/* One plan of the exhaustive walk. */
typedef struct ranked {
  double step, mem;
  long idx;
  int fits;
} ranked;

static int by_rank(const void *a, const void *b) {
  const ranked *x = a, *y = b;
  if (x->step != y->step) return x->step < y->step ? -1 : 1;
  if (x->mem != y->mem) return x->mem < y->mem ? -1 : 1;
  return (x->idx > y->idx) - (x->idx < y->idx);
}

/* Every plan of s's space predicted on its own, fitting ones ranked in
 * the search's order: *n of them in a new array; *space plans in the
 * space, *valid of them accepted by the checks. */
static ranked *exhaustive(const sc_scenario *s, int *n, long *space, long *valid) {
  sc_error err = {0};
  sc_job *j;
  cr_assert_eq(sc_job_open(s, &j, &err), SC_OK, "%s", err.msg);
  sc_search_opts o;
  sc_search_opts_default(&o);
  o.max_tp = 8;
  o.max_pp = 64;
  o.max_micro_batch = 16;
  o.max_vpp = 4;
  space_pt *pts;
  long np;
  cr_assert_eq(space_build(s, job_graph(j), &o, &pts, &np, &err), SC_OK);
  ranked *r = malloc(sizeof *r * (size_t)np);
  *n = 0;
  *space = np;
  *valid = 0;
  for (long i = 0; i < np; i++) {
    sc_plan p;
    space_plan(&s->plan, &pts[i], &p);
    sc_result res;
    int rc = sc_job_predict(j, &p, &res, &err);
    cr_assert(rc == SC_OK || rc == SC_EINPUT, "plan %ld: %s", i, err.msg);
    *valid += rc == SC_OK;
    if (rc == SC_OK && res.mem.fits) r[(*n)++] = (ranked){res.step_s, res.mem.total, i, 1};
  }
  qsort(r, (size_t)*n, sizeof *r, by_rank);
  mem_free(pts);
  sc_job_close(j);
  return r;
}

/* The search on 1-3 threads returns the exhaustive walk's top k, with the
 * same counts (each plan of the space looked at once, by one thread);
 * some plans are pruned (by their bound with a topology, else by their
 * floor), as many on every thread count. */
static void same_as_exhaustive(const sc_scenario *s, int topology) {
  int n_all;
  long space, valid;
  ranked *all = exhaustive(s, &n_all, &space, &valid);
  enum { K = 12 };
  long pruned = -1;
  for (int threads = 1; threads <= 3; threads++) {
    sc_search_opts o;
    sc_search_opts_default(&o);
    o.threads = threads;
    sc_candidate best[K];
    int n = 0;
    sc_search_stats st;
    sc_error err = {0};
    cr_assert_eq(sc_search(s, &o, best, K, &n, &st, &err), SC_OK, "%s", err.msg);
    cr_assert_eq(st.threads, threads, "threads %d: ran %d (space %ld)", threads, st.threads,
                 st.total);
    cr_assert(st.total == space && st.tried == space && st.valid == valid,
              "threads %d: space %ld, tried %ld, valid %ld; exhaustive %ld, %ld valid", threads,
              st.total, st.tried, st.valid, space, valid);
    cr_assert_eq(st.fit, n_all, "threads %d: fit %ld, exhaustive %d", threads, st.fit, n_all);
    cr_assert_eq(n, n_all < K ? n_all : K);
    for (int i = 0; i < n; i++) {
      cr_assert(best[i].result.step_s == all[i].step && best[i].result.mem.total == all[i].mem,
                "threads %d, rank %d: step %.9g mem %.6g, exhaustive %.9g %.6g (plan %ld)",
                threads, i + 1, best[i].result.step_s, best[i].result.mem.total, all[i].step,
                all[i].mem, all[i].idx);
    }
    if (pruned < 0) pruned = st.pruned;
    cr_assert_eq(st.pruned, pruned, "threads %d: pruned %ld, 1 thread %ld", threads, st.pruned,
                 pruned);
  }
  /* with a topology by their bound, without by their floor; never a plan
   * of the top k */
  cr_assert(pruned > 0, "topology %d: pruned nothing", topology);
  cr_assert(pruned <= n_all - (n_all < K ? n_all : K), "topology %d: pruned %ld of %d fitting",
            topology, pruned, n_all);
  free(all);
}

Test(search, same_top_k_as_every_plan_evaluated_on_1_to_3_threads) {
  sc_scenario s;
  sc_scenario_default(&s); /* GPT-3 175B, 1,024 A100: about 900 plans */
  same_as_exhaustive(&s, 0);
}

Test(search, same_top_k_on_a_topology_with_pruning) {
  sc_scenario s;
  sc_scenario_default(&s);
  snprintf(s.cluster.topology, sizeof s.cluster.topology, "%s",
           "fat_tree:hosts=1024,radix=32,levels=3,oversub=2,bw=25");
  same_as_exhaustive(&s, 1);
}

Test(search, same_top_k_on_a_torus_where_the_flow_engine_runs) {
  /* on a torus some collectives have no closed form (net/flowcf.h): the
   * threads share the flow engine's memo (engine/netcost.c), and 2 or 3
   * threads find what one does, bit for bit */
  sc_scenario s;
  sc_scenario_default(&s);
  sc_error e = {0};
  cr_assert_eq(sc_scenario_load_string(&s,
                                       "{\"model\": \"gpt3-1.3b\", \"cluster\": {\"gpus\": 64, "
                                       "\"gpus_per_node\": 1, \"nvlink_domain\": 1, "
                                       "\"topology\": \"torus:x=4,y=4,z=4,bw=25\"}, "
                                       "\"plan\": {\"tp\": 1, \"pp\": 1}}",
                                       "test", NULL, 0, &e),
               SC_OK, "%s", e.msg);
  enum { K = 20 };
  sc_candidate one[K], best[K];
  sc_search_stats st1, st;
  int n1 = 0, n = 0;
  for (int threads = 1; threads <= 3; threads++) {
    sc_search_opts o;
    sc_search_opts_default(&o);
    o.threads = threads;
    cr_assert_eq(sc_search(&s, &o, threads == 1 ? one : best, K, threads == 1 ? &n1 : &n,
                           threads == 1 ? &st1 : &st, &e),
                 SC_OK, "%s", e.msg);
    if (threads == 1) {
      cr_assert(n1 == K && st1.pruned > 0, "1 thread: %d plans, %ld pruned", n1, st1.pruned);
      continue;
    }
    cr_assert_eq(n, n1, "threads %d: %d plans, 1 thread %d", threads, n, n1);
    cr_expect(st.fit == st1.fit && st.pruned == st1.pruned,
              "threads %d: fit %ld pruned %ld, 1 thread %ld %ld", threads, st.fit, st.pruned,
              st1.fit, st1.pruned);
    for (int i = 0; i < n; i++)
      cr_expect(best[i].result.step_s == one[i].result.step_s &&
                    best[i].result.mem.total == one[i].result.mem.total,
                "threads %d, rank %d: step %.17g mem %.17g, 1 thread %.17g %.17g", threads,
                i + 1, best[i].result.step_s, best[i].result.mem.total, one[i].result.step_s,
                one[i].result.mem.total);
  }
}

/* A searcher (threads kept between searches) finds what sc_search does,
 * search after search, on fewer and more threads than it keeps. */
Test(search, a_searcher_finds_what_sc_search_finds) {
  sc_scenario s;
  sc_scenario_default(&s);
  sc_error e = {0};
  enum { K = 10 };
  sc_candidate one[K], best[K];
  sc_search_stats st1, st;
  int n1 = 0, n = 0;
  sc_search_opts o;
  sc_search_opts_default(&o);
  o.threads = 1;
  cr_assert_eq(sc_search(&s, &o, one, K, &n1, &st1, &e), SC_OK, "%s", e.msg);
  sc_searcher *sr = NULL;
  cr_assert_eq(sc_searcher_open(2, &sr, &e), SC_OK, "%s", e.msg);
  for (int round = 0; round < 6; round++) {
    o.threads = 1 + round % 3; /* 3: one helper created beside the searcher's */
    o.rerank = round % 2;
    cr_assert_eq(sc_searcher_search(sr, &s, &o, best, K, &n, &st, &e), SC_OK, "%s", e.msg);
    cr_assert(n == n1 && st.tried == st1.tried && st.fit == st1.fit && st.pruned == st1.pruned,
              "round %d, %d threads: %d plans, %ld tried, %ld fit, %ld pruned; sc_search %d %ld "
              "%ld %ld", round, o.threads, n, st.tried, st.fit, st.pruned, n1, st1.tried,
              st1.fit, st1.pruned);
    for (int i = 0; i < n && !o.rerank; i++)
      cr_assert(!memcmp(&best[i].plan, &one[i].plan, sizeof one[i].plan) &&
                    best[i].result.step_s == one[i].result.step_s,
                "round %d, rank %d: step %.17g, sc_search %.17g", round, i + 1,
                best[i].result.step_s, one[i].result.step_s);
  }
  sc_searcher_close(sr);
  sc_searcher_close(NULL);
}

/* A searcher keeps its jobs' memory from one search to the next
 * (job_park): searches of other models, clusters and a topology in turn
 * find what a new search of each does, bit for bit. */
Test(search, a_searcher_forgets_the_search_before) {
  static const char *const scen[] = {
      "{\"model\": \"gpt3-1.3b\", \"cluster\": {\"gpus\": 64, \"gpus_per_node\": 1, "
      "\"nvlink_domain\": 1, \"topology\": \"torus:x=4,y=4,z=4,bw=25\"}, "
      "\"plan\": {\"tp\": 1, \"pp\": 1}}",
      "{\"model\": \"llama2-7b\", \"cluster\": {\"gpus\": 64}, "
      "\"plan\": {\"tp\": 1, \"pp\": 1, \"global_batch\": 256}}",
      NULL};
  enum { K = 8 };
  sc_error e = {0};
  sc_searcher *sr = NULL;
  cr_assert_eq(sc_searcher_open(2, &sr, &e), SC_OK, "%s", e.msg);
  for (int round = 0; round < 6; round++) {
    sc_scenario s;
    sc_scenario_default(&s);
    const char *text = scen[round % 3];
    if (text)
      cr_assert_eq(sc_scenario_load_string(&s, text, "test", NULL, 0, &e), SC_OK, "%s", e.msg);
    sc_search_opts o;
    sc_search_opts_default(&o);
    o.threads = 1 + round % 2;
    sc_candidate a[K], b[K];
    sc_search_stats sa, sb;
    int na = 0, nb = 0;
    cr_assert_eq(sc_search(&s, &o, a, K, &na, &sa, &e), SC_OK, "%s", e.msg);
    cr_assert_eq(sc_searcher_search(sr, &s, &o, b, K, &nb, &sb, &e), SC_OK, "%s", e.msg);
    cr_assert(na == nb && sa.tried == sb.tried && sa.valid == sb.valid && sa.fit == sb.fit &&
                  sa.pruned == sb.pruned,
              "round %d: %d plans, %ld/%ld/%ld/%ld tried/valid/fit/pruned; a new search %d "
              "%ld/%ld/%ld/%ld", round, nb, sb.tried, sb.valid, sb.fit, sb.pruned, na, sa.tried,
              sa.valid, sa.fit, sa.pruned);
    for (int i = 0; i < na; i++)
      cr_assert(!memcmp(&a[i].plan, &b[i].plan, sizeof a[i].plan) &&
                    !memcmp(&a[i].result, &b[i].result, sizeof a[i].result),
                "round %d, rank %d: step %.17g, a new search %.17g", round, i + 1,
                b[i].result.step_s, a[i].result.step_s);
  }
  sc_searcher_close(sr);
}

/* Every plan the search accepts passes the framework's checks: the plan
 * validation (which holds Megatron's interleaved rule) accepts it. */
Test(search, every_plan_listed_is_a_valid_plan) {
  sc_scenario s;
  sc_scenario_default(&s);
  sc_candidate best[200];
  int n = 0;
  sc_search_stats st;
  sc_error err = {0};
  sc_search_opts o;
  sc_search_opts_default(&o);
  o.require_fit = 0;
  cr_assert_eq(sc_search(&s, &o, best, 200, &n, &st, &err), SC_OK, "%s", err.msg);
  for (int i = 0; i < n; i++) {
    sc_scenario t = s;
    t.plan = best[i].plan;
    cr_assert_eq(sc_scenario_resolve(&t, &err), SC_OK, "plan %d: %s", i, err.msg);
    if (t.plan.vpp > 1)
      cr_assert_eq(best[i].result.micro_batches % t.plan.pp, 0, "plan %d", i);
  }
}

/* An MoE scenario with uneven pipeline stages and the flex dispatcher (the
 * model zoo's DeepSeek-V3): the search starts from it (the neutral plan's
 * pp 1 cannot hold its stage split), and every plan it lists passes the
 * plan checks: flex only where ep > 1 (Megatron's DeepEP moves tokens
 * between expert ranks), the all-to-all where the candidate has ep 1. */
Test(search, an_moe_scenario_with_uneven_stages_and_flex_lists_valid_plans) {
  sc_scenario s;
  sc_error err = {0};
  const char *path = SC_SOURCE_DIR "/examples/deepseek-v3-modelzoo-h100.json";
  cr_assert_eq(sc_scenario_load_file(&s, path, NULL, 0, &err), SC_OK, "%s", err.msg);
  cr_assert(s.plan.pp_first_layers > 0 && s.plan.moe_dispatcher == SC_MOE_FLEX);
  sc_candidate best[100];
  int n = 0, ep1 = 0;
  sc_search_stats st;
  sc_search_opts o;
  sc_search_opts_default(&o);
  o.require_fit = 0;
  cr_assert_eq(sc_search(&s, &o, best, 100, &n, &st, &err), SC_OK, "%s", err.msg);
  cr_assert(n > 0);
  for (int i = 0; i < n; i++) {
    sc_scenario t = s;
    t.plan = best[i].plan;
    cr_assert_eq(sc_scenario_resolve(&t, &err), SC_OK, "plan %d: %s", i, err.msg);
    int ep = t.plan.ep;
    cr_assert_eq(t.plan.moe_dispatcher, ep > 1 ? SC_MOE_FLEX : SC_MOE_ALLTOALL, "plan %d ep %d",
                 i, ep);
    ep1 += ep == 1;
  }
  cr_assert(ep1 > 0 && ep1 < n, "%d of %d plans with ep 1", ep1, n);
  /* flex keys no ep makes valid stop the search, rather than leave only
   * the ep 1 plans */
  s.plan.moe_capacity = 1.25;
  cr_assert_eq(sc_search(&s, &o, best, 100, &n, &st, &err), SC_EINPUT);
  cr_assert(strstr(err.msg, "moe_pad_expert_input_to_capacity"), "%s", err.msg);
  s.plan.moe_capacity = 0;
  s.plan.moe_flex_sms = 1000;
  cr_assert_eq(sc_search(&s, &o, best, 100, &n, &st, &err), SC_EINPUT);
  cr_assert(strstr(err.msg, "plan.moe_flex_sms: 1000; valid: 1..132"), "%s", err.msg);
  /* overlap_ep (Megatron's overlap_moe_expert_parallel_comm) needs
   * ep > 1, which the candidates have: kept where Megatron allows it */
  s.plan.moe_flex_sms = 20;
  s.plan.overlap_ep = 1;
  cr_assert_eq(sc_search(&s, &o, best, 100, &n, &st, &err), SC_OK, "%s", err.msg);
  int overlapped = 0;
  for (int i = 0; i < n; i++) {
    sc_scenario t = s;
    t.plan = best[i].plan;
    cr_assert_eq(sc_scenario_resolve(&t, &err), SC_OK, "plan %d: %s", i, err.msg);
    overlapped += t.plan.overlap_ep;
  }
  cr_assert(overlapped > 0, "no plan of %d overlaps", n);
  /* not with the all-gather dispatcher, at any ep */
  s.plan.moe_dispatcher = SC_MOE_ALLGATHER;
  cr_assert_eq(sc_search(&s, &o, best, 100, &n, &st, &err), SC_EINPUT);
  cr_assert(strstr(err.msg, "supported with alltoall/flex token dispatcher"), "%s", err.msg);
}

/* Megatron-LM rejects an interleaved schedule whose micro-batch count is
 * not a multiple of pp; so does the plan validation. */
Test(search, interleaved_needs_a_multiple_of_pp_micro_batches) {
  sc_scenario s;
  sc_scenario_default(&s);
  s.plan.tp = 8;
  s.plan.pp = 8;
  s.plan.dp = 16;
  s.plan.vpp = 2;
  s.plan.micro_batch = 1;
  s.plan.global_batch = 16 * 12; /* 12 micro-batches, pp 8 */
  sc_error err = {0};
  cr_assert_eq(sc_scenario_resolve(&s, &err), SC_EINPUT);
  cr_assert(strstr(err.msg, "multiple of pp 8") && strstr(err.msg, "8 or 16"), "%s", err.msg);
  s.plan.global_batch = 16 * 16;
  cr_assert_eq(sc_scenario_resolve(&s, &err), SC_OK, "%s", err.msg);
}

/* The closed form's bubble agrees with the timeline for every schedule the
 * validation accepts: pp 2-8, vpp 1-4, 1-32 micro-batches. */
Test(search, closed_form_agrees_with_the_timeline_on_a_grid) {
  int checked = 0;
  for (int pp = 2; pp <= 8; pp++)
    for (int vpp = 1; vpp <= 4; vpp++)
      for (int m = 1; m <= 32; m++) {
        sc_scenario s;
        grid_case(&s, pp * vpp * 8, pp, vpp, m); /* layers outweigh the embedding and head */
        sc_error err = {0};
        if (sc_scenario_resolve(&s, &err) != SC_OK) {
          cr_assert(vpp > 1 && m % pp, "pp %d vpp %d m %d rejected: %s", pp, vpp, m, err.msg);
          continue;
        }
        double step, tl;
        grid_both(&s, &step, &tl);
        cr_assert(fabs(step - tl) <= 0.05 * tl,
                  "pp %d vpp %d m %d: closed form %.6g s, timeline %.6g s (%+.1f %%)", pp, vpp,
                  m, step, tl, 100 * (step - tl) / tl);
        checked++;
      }
  cr_assert(checked > 350, "only %d schedules checked", checked);
}

static int stop_now(void *ctx, long done, long total, double seconds) {
  (*(int *)ctx)++;
  return 1;
}

/* A progress callback that says stop ends the search with the best plans
 * so far (on a topology: the top k is filled first). */
Test(search, a_stop_from_the_progress_callback_returns_the_best_so_far) {
  sc_scenario s;
  sc_scenario_default(&s);
  snprintf(s.cluster.topology, sizeof s.cluster.topology, "%s",
           "fat_tree:hosts=1024,radix=32,levels=3,oversub=2,bw=25");
  sc_search_opts o;
  sc_search_opts_default(&o);
  int calls = 0;
  o.progress = stop_now;
  o.progress_ctx = &calls;
  o.threads = 1;
  sc_candidate best[5];
  int n = 0;
  sc_search_stats st;
  sc_error err = {0};
  cr_assert_eq(sc_search(&s, &o, best, 5, &n, &st, &err), SC_OK, "%s", err.msg);
  cr_assert_eq(st.stopped, SC_SEARCH_INTERRUPTED);
  cr_assert(calls >= 1 && st.tried < st.total, "calls %d, tried %ld of %ld", calls, st.tried,
            st.total);
  cr_assert(n == 5 || n == st.fit, "n %d, fit %ld", n, st.fit);
}

/* With nothing fitting, the closest plan is the valid one that needs
 * least memory, costed. */
Test(search, nothing_fits_names_the_closest_plan) {
  sc_scenario s;
  sc_scenario_default(&s);
  s.cluster.gpus = 8;
  s.plan.global_batch = 64;
  sc_candidate best[2];
  int n = -1;
  sc_search_stats st;
  sc_error err = {0};
  cr_assert_eq(sc_search(&s, NULL, best, 2, &n, &st, &err), SC_OK, "%s", err.msg);
  cr_assert(n == 0 && st.has_closest && !st.closest.result.mem.fits);
  sc_search_opts o;
  sc_search_opts_default(&o);
  o.require_fit = 0;
  sc_candidate all[1];
  cr_assert_eq(sc_search(&s, &o, all, 1, &n, &st, &err), SC_OK, "%s", err.msg);
  (void)all;
  /* every valid plan needs at least the closest's memory */
  sc_candidate many[100];
  cr_assert_eq(sc_search(&s, &o, many, 100, &n, &st, &err), SC_OK, "%s", err.msg);
  sc_search_stats st0;
  cr_assert_eq(sc_search(&s, NULL, best, 2, &n, &st0, &err), SC_OK, "%s", err.msg);
  for (int i = 0; i < 100 && i < st.valid; i++)
    cr_assert(many[i].result.mem.total >= st0.closest.result.mem.total, "plan %d", i);
}

/* The searches the issue names succeed: the default scenario and Llama-3
 * 405B on 16,384 H100 with a global batch of 2,048 (every example is a
 * golden case, tests/golden/cases.txt). */
Test(search, succeeds_on_the_default_and_llama3_405b_16384_h100) {
  sc_scenario s;
  sc_scenario_default(&s);
  sc_candidate best[3];
  int n = 0;
  sc_search_stats st;
  sc_error err = {0};
  cr_assert_eq(sc_search(&s, NULL, best, 3, &n, &st, &err), SC_OK, "%s", err.msg);
  cr_assert_eq(n, 3);
  sc_scenario_default(&s);
  s.model = *sc_model_preset("llama3-405b");
  s.cluster.gpu = *sc_gpu_preset("h100-sxm5-80gb");
  s.cluster.gpus = 16384;
  s.plan.global_batch = 2048;
  cr_assert_eq(sc_search(&s, NULL, best, 3, &n, &st, &err), SC_OK, "%s", err.msg);
  cr_assert(n >= 1 && best[0].result.mem.fits, "%d plans of %ld fit", n, st.valid);
  /* 126 layers: pipelines of 8 and more stages exist only with the
   * embedding and the loss counted in the split (126 + 2 = 128), and the
   * best plan uses one */
  cr_assert(best[0].plan.pp >= 8 && best[0].plan.pp_embedding_in_split &&
                best[0].plan.pp_loss_in_split,
            "best pp %d, split %d/%d", best[0].plan.pp, best[0].plan.pp_embedding_in_split,
            best[0].plan.pp_loss_in_split);
  cr_assert_gt(best[0].result.mfu, 0.25, "best MFU %g", best[0].result.mfu);
}

/* --rerank: the same plans, each with the event engine's step, in that
 * order. */
Test(search, rerank_orders_the_top_k_by_the_event_engine) {
  sc_scenario s;
  sc_scenario_default(&s);
  sc_search_opts o;
  sc_search_opts_default(&o);
  enum { K = 8 };
  sc_candidate a[K], b[K];
  int na = 0, nb = 0;
  sc_search_stats sa, sb;
  sc_error err = {0};
  cr_assert_eq(sc_search(&s, &o, a, K, &na, &sa, &err), SC_OK, "%s", err.msg);
  o.rerank = 1;
  cr_assert_eq(sc_search(&s, &o, b, K, &nb, &sb, &err), SC_OK, "%s", err.msg);
  cr_assert(na == K && nb == K && !sa.reranked && sb.reranked);
  for (int i = 0; i < nb; i++) {
    int found = 0;
    for (int j = 0; j < na; j++) found += a[j].result.step_s == b[i].result.step_s &&
                                          a[j].result.mem.total == b[i].result.mem.total;
    cr_assert(found >= 1, "re-ranked plan %d is not among the closed form's top %d", i, K);
    sc_scenario t = s;
    t.plan = b[i].plan;
    sc_result r;
    cr_assert_eq(sc_predict_event(&t, NULL, &r, NULL, &err), SC_OK, "%s", err.msg);
    cr_assert(r.step_s == b[i].event_s, "plan %d: event engine %.9g, search says %.9g", i,
              r.step_s, b[i].event_s);
    if (i) cr_assert(b[i - 1].event_s <= b[i].event_s, "not in the event engine's order at %d", i);
  }
}

/* The re-rank shares the top k among the search's threads, each plan on
 * whichever thread's job is free: the same steps, breakdowns and order on
 * any thread count; each event breakdown adds up to its step; the stats
 * time it. */
Test(search, rerank_is_the_same_on_any_thread_count) {
  sc_scenario s;
  sc_scenario_default(&s); /* GPT-3 175B on 1,024 A100: pipelines among the top 12 */
  sc_search_opts o;
  sc_search_opts_default(&o);
  o.rerank = 1;
  o.pp = 8; /* interleaved and 1F1B plans, where the event engine has work to do */
  enum { K = 12 };
  sc_candidate a[K], b[K];
  int na = 0, nb = 0;
  sc_search_stats sa, sb;
  sc_error err = {0};
  o.threads = 1;
  cr_assert_eq(sc_search(&s, &o, a, K, &na, &sa, &err), SC_OK, "%s", err.msg);
  cr_assert(na == K && sa.reranked && sa.rerank_seconds > 0 &&
                sa.rerank_seconds <= sa.seconds && !sa.rerank_err.code,
            "n %d reranked %d %g of %g s", na, sa.reranked, sa.rerank_seconds, sa.seconds);
  for (int i = 0; i < na; i++) {
    const sc_breakdown *t = &a[i].event_time;
    double sum = t->compute + t->host + t->tp_comm + t->ep_comm + t->pp_comm + t->bubble +
                 t->dp_comm + t->optimizer + t->offload;
    cr_assert(fabs(sum - a[i].event_s) <= 1e-9 * a[i].event_s && a[i].event_s > 0,
              "plan %d: parts %.9g, event step %.9g", i, sum, a[i].event_s);
    cr_assert(t->bubble > 0 && a[i].plan.pp == 8, "plan %d: pp %d bubble %g", i, a[i].plan.pp,
              t->bubble);
  }
  for (int th = 2; th <= 3; th++) {
    o.threads = th;
    cr_assert_eq(sc_search(&s, &o, b, K, &nb, &sb, &err), SC_OK, "%s", err.msg);
    cr_assert_eq(nb, na);
    for (int i = 0; i < nb; i++) {
      cr_assert(!memcmp(&a[i].plan, &b[i].plan, sizeof a[i].plan) &&
                    a[i].event_s == b[i].event_s &&
                    !memcmp(&a[i].event_time, &b[i].event_time, sizeof a[i].event_time) &&
                    a[i].pareto == b[i].pareto,
                "%d threads: plan %d differs (event %.9g vs %.9g)", th, i, b[i].event_s,
                a[i].event_s);
    }
  }
}

#include "search/rerank.h"

static int stop_at_once(void *ctx) { return 1; }

/* A plan the event engine cannot run (here one the plan check refuses):
 * SC_EINPUT naming it by its place in the list, the list untouched (the
 * closed form's order, no event steps). */
Test(search, rerank_keeps_the_closed_form_order_when_a_plan_cannot_run_or_is_stopped) {
  sc_scenario s;
  sc_scenario_default(&s);
  s.cluster.gpus = 64;
  s.model.tf.layers = 8;
  s.plan.tp = 8, s.plan.pp = 1, s.plan.dp = 8, s.plan.vpp = 1;
  s.plan.schedule = SC_SCHED_1F1B;
  s.plan.global_batch = 64;
  sc_error err = {0};
  cr_assert_eq(sc_scenario_resolve(&s, &err), SC_OK, "%s", err.msg);
  sc_job *j;
  cr_assert_eq(sc_job_open(&s, &j, &err), SC_OK, "%s", err.msg);
  sc_candidate c[3];
  memset(c, 0, sizeof c);
  topk t;
  cr_assert_eq(topk_init(&t, c, 3, &err), SC_OK);
  for (int i = 0; i < 3; i++) {
    sc_candidate x;
    memset(&x, 0, sizeof x);
    x.plan = s.plan;
    cr_assert_eq(sc_job_predict(j, &x.plan, &x.result, &err), SC_OK, "%s", err.msg);
    x.result.step_s += i; /* in this order */
    if (i == 1) x.plan.tp = 3; /* 3 does not divide the heads */
    topk_add(&t, &x, i);
  }
  sc_job *jobs[2] = {j, NULL};
  int stopped = -1;
  cr_assert_eq(rerank_topk(NULL, jobs, 2, &t, NULL, NULL, &stopped, &err), SC_EINPUT);
  cr_assert(strstr(err.msg, "the event engine cannot run plan 2: "), "%s", err.msg);
  for (int i = 0; i < 3; i++)
    cr_assert(c[i].event_s == 0 && c[i].plan.tp == (i == 1 ? 3 : 8), "plan %d", i);
  /* told to stop (a budget, Ctrl-C): untouched too, and no error */
  c[1].plan.tp = 8;
  cr_assert_eq(rerank_topk(NULL, jobs, 1, &t, stop_at_once, NULL, &stopped, &err), SC_OK, "%s", err.msg);
  cr_assert(stopped == 1 && c[0].event_s == 0 && c[2].event_s == 0, "stopped %d", stopped);
  /* more micro-batches than the event engine is run on: nothing run */
  c[2].result.micro_batches = 1 << 20;
  cr_assert_eq(rerank_topk(NULL, jobs, 1, &t, NULL, NULL, &stopped, &err), SC_EMODEL);
  cr_assert(strstr(err.msg, "not run on plan 3: 1048576 micro-batches per pipeline"), "%s",
            err.msg);
  cr_assert(c[0].event_s == 0 && c[2].event_s == 0);
  c[2].result.micro_batches = c[0].result.micro_batches;
  cr_assert_eq(rerank_topk(NULL, jobs, 1, &t, NULL, NULL, &stopped, &err), SC_OK, "%s", err.msg);
  cr_assert(stopped == 0 && c[0].event_s > 0 && c[2].event_s > 0, "stopped %d", stopped);
  topk_free(&t);
  sc_job_close(jobs[1]);
  sc_job_close(j);
}

/* The stats name the GEMM types the space held: the scenario's by
 * default, the ones asked for that the GPU has a peak for (the A100 has
 * none for fp8). The table shows a dtype column only when they mix. */
Test(search, stats_name_the_types_searched) {
  sc_scenario s;
  sc_scenario_default(&s); /* GPT-3 175B on A100: nothing fits 8 GPUs, quick */
  s.cluster.gpus = 8;
  s.plan.dp = 0;
  s.plan.pp = 1;
  s.plan.global_batch = 64;
  sc_search_opts o;
  sc_search_opts_default(&o);
  sc_candidate best[2];
  int n = 0;
  sc_search_stats st;
  sc_error err = {0};
  cr_assert_eq(sc_search(&s, &o, best, 2, &n, &st, &err), SC_OK, "%s", err.msg);
  cr_expect_eq(st.dtypes, 1u << s.plan.dtype);
  o.dtypes = 1u << SC_BF16 | 1u << SC_FP8;
  cr_assert_eq(sc_search(&s, &o, best, 2, &n, &st, &err), SC_OK, "%s", err.msg);
  cr_expect_eq(st.dtypes, 1u << SC_BF16, "the A100 has no fp8 peak: %#x", st.dtypes);
  o.dtypes = 1u << SC_BF16 | 1u << SC_FP16;
  cr_assert_eq(sc_search(&s, &o, best, 2, &n, &st, &err), SC_OK, "%s", err.msg);
  cr_expect_eq(st.dtypes, 1u << SC_BF16 | 1u << SC_FP16);
  cr_assert(st.has_closest);
  char *text = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&text, &len);
  sc_report_search(f, SC_FORMAT_TABLE, &s, best, n, &st);
  fclose(f);
  cr_expect(strstr(text, "global batch 64, dtypes fp16, bf16, attention flash2\n"), "%s", text);
  cr_expect(strstr(text, "GiB/GPU  dtype\n"), "%s", text);
  free(text);
  f = open_memstream(&text, &len); /* JSON lists them too */
  sc_report_search(f, SC_FORMAT_JSON, &s, best, n, &st);
  fclose(f);
  cr_expect(strstr(text, "\"global_batch\": 64, \"dtypes\": [\"fp16\", \"bf16\"],"), "%s", text);
  free(text);
  o.dtypes = 1u << SC_FP16; /* one type: in the title, no column */
  cr_assert_eq(sc_search(&s, &o, best, 2, &n, &st, &err), SC_OK, "%s", err.msg);
  f = open_memstream(&text, &len);
  sc_report_search(f, SC_FORMAT_TABLE, &s, best, n, &st);
  fclose(f);
  cr_expect(strstr(text, "global batch 64, fp16, attention flash2\n"), "%s", text);
  cr_expect(!strstr(text, "dtype"), "%s", text);
  free(text);
}
