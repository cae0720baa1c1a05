/*
 * test_split_sched.c -- the schedules that split a backward into B (the
 * input gradient) and W (the weight gradient): ZB-H1 (Zero Bubble, arXiv
 * 2311.06231) and DualPipe (DeepSeek-V3, arXiv 2412.19437). Their orders
 * hold every pass once and each W after its B; their bubbles by hand on
 * small shapes and their closed forms against the run of the order
 * (pipe_makespan) on random shapes; the engines' closed form against the
 * timeline and the event engine on a grid; DualPipe's memory; and the
 * validity rules with what would be valid.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "pipeline/pipe.h"
#include "schedgrid.h"
#include "stepcast.h"

#define MAXPP 16
#define MAXM 64

/* The run of schedule ps over pp equal stages (f, whole backward b + w,
 * w split off) with p2p per send; s. */
static double run(const pipe_sched *ps, int pp, int m, double f, double b, double w, double p2p) {
  static double endf[MAXPP * 2 * MAXM], endb[MAXPP * 2 * MAXM], fa[MAXPP];
  static pipe_pass order[MAXPP * 6 * MAXM];
  static int count[MAXPP], next[MAXPP];
  double fs[MAXPP], bs[MAXPP], ws[MAXPP];
  cr_assert(pp <= MAXPP && m <= MAXM);
  for (int s = 0; s < pp; s++) fs[s] = f, bs[s] = b + w, ws[s] = w;
  pipe_shape sh = pipe_shape_of(ps->id, pp, 1, m);
  return pipe_makespan(ps, &sh, fs, bs, NULL, ws, p2p, endf, endb, order, count, next, fa);
}

Test(split_sched, bubbles_by_hand) {
  /* F = B = W = 1 s (B the input gradient), pp 4, 8 micro-batches: each
   * stage computes 8 x 3 = 24 s. 1F1B: (pp - 1)(F + B + W) = 9 more;
   * ZB-H1: (pp - 1)(F + B - W) = 3; DualPipe, in the report's terms
   * (B whole = 2, F&B = F + B whole = 3): (pp/2 - 1)(F&B + B - 3W) =
   * 1 x (3 + 2 - 3) = 2 */
  cr_assert_float_eq(run(&pipe_onef1b, 4, 8, 1, 2, 0, 0), 33, 1e-12);
  cr_assert_float_eq(run(&pipe_zbh1, 4, 8, 1, 1, 1, 0), 27, 1e-12);
  cr_assert_float_eq(run(&pipe_dualpipe, 4, 8, 1, 1, 1, 0), 26, 1e-12);
  /* pp 8, 20 micro-batches (the report's figure 5): DualPipe 60 + 3 x 2 */
  cr_assert_float_eq(run(&pipe_dualpipe, 8, 20, 1, 1, 1, 0), 66, 1e-12);
  /* the closed forms say the same */
  pipe_shape z = pipe_shape_of(SC_SCHED_ZBH1, 4, 1, 8), d = pipe_shape_of(SC_SCHED_DUALPIPE, 8, 1, 20);
  cr_assert_float_eq(pipe_zbh1.bubble_split(&z, 1, 1, 1), 3, 1e-12);
  cr_assert_float_eq(pipe_dualpipe.bubble_split(&d, 1, 1, 1), 6, 1e-12);
}

/* splitmix64 */
static double draw(unsigned long long *s, double lo, double hi) {
  unsigned long long z = (*s += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  z ^= z >> 31;
  return lo + (hi - lo) * (double)(z >> 11) / 9007199254740992.0;
}

Test(split_sched, closed_forms_are_the_run_of_the_order) {
  unsigned long long seed = 33;
  const pipe_sched *ps[2] = {&pipe_zbh1, &pipe_dualpipe};
  for (int i = 0; i < 400; i++) {
    int pp = 2 * (1 + (int)draw(&seed, 0, 7.999)), m = 2 * pp + 2 * (int)draw(&seed, 0, 8.999);
    double f = draw(&seed, 0.1, 3), b = draw(&seed, 0.1, 3), w = draw(&seed, 0.1, 3);
    if (m > MAXM) m = MAXM - MAXM % 2;
    for (int k = 0; k < 2; k++) {
      pipe_shape sh = pipe_shape_of(ps[k]->id, pp, 1, m);
      double t = run(ps[k], pp, m, f, b, w, 0), cf = m * (f + b + w) + ps[k]->bubble_split(&sh, f, b, w);
      cr_assert(fabs(t - cf) <= 1e-9 * t, "%s pp %d m %d f %g b %g w %g: run %.9g, closed form %.9g",
                ps[k]->name, pp, m, f, b, w, t, cf);
      /* the sends on the critical path (p2p small against the passes):
       * at most the closed form's count where the forward is no longer
       * than the input gradient; exactly it with f = b = w, where every
       * path of the fill and drain ties */
      double dp = (run(ps[k], pp, m, f, b, w, 1e-4) - t) / 1e-4;
      cr_assert(f > b || dp < ps[k]->p2p_steps(&sh) + 1e-3, "%s pp %d m %d: %g sends, closed "
                "form %g", ps[k]->name, pp, m, dp, ps[k]->p2p_steps(&sh));
      double tie = (run(ps[k], pp, m, 1, 1, 1, 1e-4) - run(ps[k], pp, m, 1, 1, 1, 0)) / 1e-4;
      cr_assert(fabs(tie - ps[k]->p2p_steps(&sh)) < 1e-3, "%s pp %d m %d: %g sends, closed form "
                "%g", ps[k]->name, pp, m, tie, ps[k]->p2p_steps(&sh));
    }
  }
}

Test(split_sched, orders_hold_every_pass_once_and_each_w_after_its_b) {
  static pipe_pass o[6 * MAXM];
  const pipe_sched *ps[2] = {&pipe_zbh1, &pipe_dualpipe};
  for (int k = 0; k < 2; k++)
    for (int pp = 2; pp <= 8; pp += 2)
      for (int m = 2 * pp; m <= 4 * pp; m += 2) {
        pipe_shape sh = pipe_shape_of(ps[k]->id, pp, 1, m);
        for (int s = 0; s < pp; s++) {
          int n = ps[k]->order(&sh, s, o), f[2 * MAXM] = {0}, b[2 * MAXM] = {0}, w[2 * MAXM] = {0};
          cr_assert(n > 0 && n <= 3 * m);
          for (int i = 0; i < n; i++) {
            int cell = o[i].chunk * m + o[i].mb;
            cr_assert(o[i].mb >= 0 && o[i].mb < m && o[i].chunk >= 0 && o[i].chunk < sh.vpp);
            /* DualPipe: micro-batches 0..m/2-1 run down, the rest up */
            if (sh.dual) cr_assert_eq(o[i].chunk, o[i].mb >= m / 2);
            if (o[i].kind == 'F') f[cell]++;
            if (o[i].kind == 'B') {
              b[cell]++;
              cr_assert(f[cell], "%s: B before its F", ps[k]->name);
            }
            if (o[i].kind == 'W') {
              w[cell]++;
              cr_assert(b[cell], "%s pp %d m %d stage %d: W %d before its B", ps[k]->name, pp, m,
                        s, o[i].mb);
            }
          }
          int nf = 0, nb = 0, nw = 0, split = 0;
          for (int c = 0; c < 2 * m; c++) {
            cr_assert(f[c] <= 1 && b[c] <= 1 && w[c] <= 1);
            nf += f[c], nb += b[c], nw += w[c];
          }
          for (int i = 0; i < n; i++) split += o[i].kind == 'B' && o[i].split;
          cr_assert(nf == m && nb == m && nw == split, "%s pp %d m %d stage %d: %d F %d B %d W "
                    "(%d split)", ps[k]->name, pp, m, s, nf, nb, nw, split);
        }
      }
}

/* A check of stage s's order o (n passes) under schedule ps and shape
 * sh; it asserts. */
typedef void (*order_check)(const pipe_sched *ps, const pipe_shape *sh, int s,
                            const pipe_pass *o, int n);

/* check on every stage's order of both split schedules over pp 2-16
 * (even) and m 2 pp to 2 pp + 8 micro-batches (even, at most MAXM). */
static void each_stage_order(order_check check) {
  static pipe_pass o[6 * MAXM];
  const pipe_sched *ps[2] = {&pipe_zbh1, &pipe_dualpipe};
  for (int k = 0; k < 2; k++)
    for (int pp = 2; pp <= 16; pp += 2)
      for (int m = 2 * pp; m <= 2 * pp + 8 && m <= MAXM; m += 2) {
        pipe_shape sh = pipe_shape_of(ps[k]->id, pp, 1, m);
        for (int s = 0; s < pp; s++) check(ps[k], &sh, s, o, ps[k]->order(&sh, s, o));
      }
}

/* split_share of each chunk on stage s is the share of its backwards the
 * order splits. */
static void split_share_is_the_orders(const pipe_sched *ps, const pipe_shape *sh, int s,
                                      const pipe_pass *o, int n) {
  int split[2] = {0, 0};
  for (int i = 0; i < n; i++) split[o[i].chunk] += o[i].kind == 'B' && o[i].split;
  for (int c = 0; c < sh->vpp; c++)
    cr_assert_float_eq(ps->split_share(sh, s, c) * sh->m / sh->vpp, split[c], 1e-9,
                       "%s pp %d m %d stage %d chunk %d: %d split", ps->name, sh->pp, sh->m, s,
                       c, split[c]);
}

/* in_flight of stage s is the peak of micro-batches its order holds, a
 * pending W's counted whole. */
static void in_flight_is_the_orders_peak(const pipe_sched *ps, const pipe_shape *sh, int s,
                                         const pipe_pass *o, int n) {
  int live = 0, peak = 0;
  for (int i = 0; i < n; i++) {
    live += o[i].kind == 'F';
    live -= o[i].kind == 'W' || (o[i].kind == 'B' && !o[i].split);
    if (live > peak) peak = live;
  }
  cr_assert_float_eq(ps->in_flight(sh, s), peak, 1e-12, "%s pp %d m %d stage %d: %d", ps->name,
                     sh->pp, sh->m, s, peak);
}

Test(split_sched, split_share_counts_the_order) {
  /* the closed form's share of each chunk's backwards that are split on
   * a rank (pipe_sched.split_share) is what the order splits: DualPipe
   * pp 8, 20 micro-batches, rank 0: phase 3's 3 of chunk 1, phases 6-7's
   * 1 + 3 of chunk 0, each of 10 */
  pipe_shape d = pipe_shape_of(SC_SCHED_DUALPIPE, 8, 1, 20);
  cr_assert_float_eq(pipe_dualpipe.split_share(&d, 0, 0), 0.4, 1e-12);
  cr_assert_float_eq(pipe_dualpipe.split_share(&d, 0, 1), 0.3, 1e-12);
  each_stage_order(split_share_is_the_orders);
}

Test(split_sched, paired_share_counts_the_pairs) {
  /* the share of DualPipe's passes in F&B pairs on the rank with the
   * fewest (the all-to-alls' window, eng_other_window): pp 8, 20
   * micro-batches: the last rank pairs 2 (10 - 8 + 1) + 3 - 1 = 8 of its
   * 20 forwards, m - 3 pp / 2 */
  static pipe_pass o[6 * MAXM];
  pipe_shape d = pipe_shape_of(SC_SCHED_DUALPIPE, 8, 1, 20);
  cr_assert_float_eq(pipe_dualpipe.paired_share(&d), 8 / 20.0, 1e-12);
  for (int pp = 2; pp <= 16; pp += 2)
    for (int m = 2 * pp; m <= 2 * pp + 8 && m <= MAXM; m += 2) {
      pipe_shape sh = pipe_shape_of(SC_SCHED_DUALPIPE, pp, 1, m);
      int fewest = m;
      for (int s = 0; s < pp; s++) {
        int n = pipe_dualpipe.order(&sh, s, o), pairs = 0;
        for (int i = 0; i < n; i++) pairs += o[i].kind == 'F' && o[i].pair;
        if (pairs < fewest) fewest = pairs;
      }
      cr_assert_float_eq(pipe_dualpipe.paired_share(&sh) * m, fewest, 1e-9, "pp %d m %d: %d",
                         pp, m, fewest);
    }
}

Test(split_sched, in_flight_is_what_the_order_holds) {
  /* micro-batches whose activations a stage holds at its peak, a pending
   * W's counted whole: DualPipe pp + 1 on every rank (the report's table
   * 2), ZB-H1 pp on every stage (1F1B's first stage's) */
  each_stage_order(in_flight_is_the_orders_peak);
}

/* The grid's scenario (schedgrid.h) under schedule `sc`. */
static int sched_case(sc_scenario *s, sc_schedule sc, int pp, int m) {
  grid_case(s, pp * 8, pp, 1, m);
  s->plan.schedule = sc;
  sc_error err = {0};
  return sc_scenario_resolve(s, &err);
}

Test(split_sched, closed_form_agrees_with_the_timeline_and_the_event_engine) {
  /* the tolerance of the 1F1B / interleaved grid (test_search.c): 5 % */
  int checked = 0;
  double worst = 0;
  for (int k = 0; k < 2; k++)
    for (int pp = 2; pp <= 8; pp += 2)
      for (int m = 2 * pp; m <= 32; m += 2 + 4 * k) {
        sc_scenario s;
        sc_schedule sc = k ? SC_SCHED_DUALPIPE : SC_SCHED_ZBH1;
        cr_assert_eq(sched_case(&s, sc, pp, m), SC_OK, "pp %d m %d", pp, m);
        double step, tl;
        grid_both(&s, &step, &tl);
        sc_error err = {0};
        sc_result ev;
        sc_event_opts o = {0, 0};
        cr_assert_eq(sc_predict_event(&s, &o, &ev, NULL, &err), SC_OK, "%s", err.msg);
        double e = fabs(step - tl) / tl, e2 = fabs(ev.step_s - step) / step;
        worst = fmax(worst, fmax(e, e2));
        cr_assert(e <= 0.05 && e2 <= 0.05, "%s pp %d m %d: closed form %.6g s, timeline %.6g s, "
                  "event %.6g s", k ? "dualpipe" : "zb-h1", pp, m, step, tl, ev.step_s);
        checked++;
      }
  cr_log_info("%d split schedules, worst %.2f %%", checked, 100 * worst);
  cr_assert(checked > 40, "only %d", checked);
}

Test(split_sched, zb_h1_is_between_1f1b_and_no_bubble) {
  sc_scenario a, z;
  cr_assert_eq(sched_case(&a, SC_SCHED_1F1B, 4, 16), SC_OK);
  cr_assert_eq(sched_case(&z, SC_SCHED_ZBH1, 4, 16), SC_OK);
  sc_error err = {0};
  sc_result ra, rz;
  cr_assert_eq(sc_predict(&a, &ra, &err), SC_OK, "%s", err.msg);
  cr_assert_eq(sc_predict(&z, &rz, &err), SC_OK, "%s", err.msg);
  /* the same work; the weight gradients fill part of the bubble */
  cr_assert_float_eq(rz.time.compute, ra.time.compute, 1e-9 * ra.time.compute);
  cr_assert(rz.time.bubble < ra.time.bubble && rz.time.bubble > 0, "zb-h1 %g s, 1f1b %g s",
            rz.time.bubble, ra.time.bubble);
  /* its peak: pp micro-batches on every stage (1F1B's pp - s, and s
   * whose W is pending, each charged whole), 1F1B's first stage's */
  pipe_shape sh = pipe_shape_of(SC_SCHED_ZBH1, 4, 1, 16);
  for (int s = 0; s < 4; s++) cr_assert_float_eq(pipe_zbh1.in_flight(&sh, s), 4, 1e-12);
  cr_assert_float_eq(pipe_onef1b.in_flight(&sh, 0), 4, 1e-12);
  cr_assert_float_eq(pipe_onef1b.in_flight(&sh, 3), 1, 1e-12);
  cr_assert_geq(rz.mem.activations, ra.mem.activations);
}

Test(split_sched, dualpipe_memory_holds_two_stages_and_pp_plus_one_micro_batches) {
  /* pp 2: each rank holds stage 0 and stage 1, the whole model, as one
   * GPU does without a pipeline; its pp + 1 = 3 micro-batches run half
   * through each stage, so 3/2 of one micro-batch of the whole model,
   * but for the loss's backward transient (its 16-bit gradient, 2 bytes
   * a logit: 2,048 x 50,257 / tp 8 logits, as the graph counts them),
   * counted once */
  sc_scenario d, one;
  sc_error err = {0};
  grid_case(&d, 16, 2, 1, 8);
  grid_case(&one, 16, 1, 1, 8);
  /* untied: a pipeline holds a tied embedding on its first and last stage */
  d.model.tf.tied_embeddings = one.model.tf.tied_embeddings = 0;
  d.plan.schedule = SC_SCHED_DUALPIPE;
  cr_assert_eq(sc_scenario_resolve(&d, &err), SC_OK, "%s", err.msg);
  cr_assert_eq(sc_scenario_resolve(&one, &err), SC_OK, "%s", err.msg);
  sc_result rd, r1;
  cr_assert_eq(sc_predict(&d, &rd, &err), SC_OK, "%s", err.msg);
  cr_assert_eq(sc_predict(&one, &r1, &err), SC_OK, "%s", err.msg);
  cr_assert_float_eq(rd.mem.weights, r1.mem.weights, 1e-9 * r1.mem.weights);
  cr_assert_float_eq(rd.mem.gradients, r1.mem.gradients, 1e-9 * r1.mem.gradients);
  cr_assert_float_eq(rd.mem.optimizer, r1.mem.optimizer, 1e-9 * r1.mem.optimizer);
  double loss = 2.0 * 2048 * 50257 / 8;
  cr_assert_float_eq(rd.mem.activations, 1.5 * (r1.mem.activations - loss) + loss,
                     1e-6 * r1.mem.activations, "dualpipe %g, one GPU %g", rd.mem.activations,
                     r1.mem.activations);
}

Test(split_sched, invalid_shapes_say_what_is_valid) {
  sc_scenario s;
  sc_error err = {0};
  grid_case(&s, 24, 3, 1, 12);
  s.plan.schedule = SC_SCHED_DUALPIPE;
  cr_assert_eq(sc_scenario_resolve(&s, &err), SC_EINPUT);
  cr_assert(strstr(err.msg, "plan.pp") && strstr(err.msg, "even") && strstr(err.msg, "2 or 4"),
            "%s", err.msg);
  grid_case(&s, 32, 4, 1, 6); /* 6 micro-batches < 2 pp */
  s.plan.schedule = SC_SCHED_DUALPIPE;
  cr_assert_eq(sc_scenario_resolve(&s, &err), SC_EINPUT);
  cr_assert(strstr(err.msg, "plan.micro_batch") && strstr(err.msg, "8, 10"), "%s", err.msg);
  grid_case(&s, 32, 4, 1, 9); /* odd */
  s.plan.schedule = SC_SCHED_DUALPIPE;
  cr_assert_eq(sc_scenario_resolve(&s, &err), SC_EINPUT);
  cr_assert(strstr(err.msg, "10, 12"), "%s", err.msg);
  grid_case(&s, 32, 4, 2, 8);
  s.plan.schedule = SC_SCHED_ZBH1;
  cr_assert_eq(sc_scenario_resolve(&s, &err), SC_EINPUT);
  cr_assert(strstr(err.msg, "plan.vpp") && strstr(err.msg, "valid vpp: 1"), "%s", err.msg);
}
