/*
 * test_pipeline_layout.c -- uneven pipeline stages as Megatron-Core splits
 * them: first/last stage layer counts, the embedding and loss counted as
 * layers, an explicit layout; the lowered stages hold those layers, the
 * bubble follows the stages' own times, and bad layouts are refused with
 * what would be valid.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lowered.h"
#include "pipeline/pipe.h"
#include "plan/plan.h"
#include "stepcast.h"

static sc_plan plan(int pp) {
  sc_plan p;
  sc_plan_default(&p);
  p.pp = pp;
  return p;
}

Test(layout, embedding_and_loss_in_the_split_405b) {
  /* Llama 3.1 405B: 126 layers + embedding + loss = 128 units over pp 8 x
   * vpp 8 = 64 chunks of 2; the first chunk of stage 0 and the last chunk
   * of stage 7 hold one transformer layer each */
  sc_plan p = plan(8);
  p.pp_embedding_in_split = p.pp_loss_in_split = 1;
  int out[SC_MAX_PP_LAYOUT], sum = 0;
  sc_error err = {0};
  cr_assert_eq(plan_stage_layers(&p, 126, 8, out, &err), SC_OK, "%s", err.msg);
  cr_assert_eq(out[0], 1);
  cr_assert_eq(out[63], 1);
  for (int v = 1; v < 63; v++) cr_assert_eq(out[v], 2, "chunk %d", v);
  for (int v = 0; v < 64; v++) sum += out[v];
  cr_assert_eq(sum, 126);
  /* 30-layer proxy on pp 4 x vpp 8: 32 units, one per chunk; the first
   * and last chunks hold only the embedding and the loss */
  p.pp = 4;
  cr_assert_eq(plan_stage_layers(&p, 30, 8, out, &err), SC_OK, "%s", err.msg);
  cr_assert_eq(out[0], 0);
  cr_assert_eq(out[31], 0);
  cr_assert_eq(out[1], 1);
}

Test(layout, first_and_last_stage_counts) {
  /* 30 layers, pp 4, first 6, last 6: the two middle stages share 18 */
  sc_plan p = plan(4);
  p.pp_first_layers = 6;
  p.pp_last_layers = 6;
  int out[SC_MAX_PP_LAYOUT];
  sc_error err = {0};
  cr_assert_eq(plan_stage_layers(&p, 30, 1, out, &err), SC_OK, "%s", err.msg);
  cr_assert_eq(out[0], 6);
  cr_assert_eq(out[1], 9);
  cr_assert_eq(out[2], 9);
  cr_assert_eq(out[3], 6);
  /* with vpp 3 every stage splits its layers over 3 chunks: 2, 3, 3, 2 */
  cr_assert_eq(plan_stage_layers(&p, 30, 3, out, &err), SC_OK, "%s", err.msg);
  for (int k = 0; k < 3; k++) {
    cr_assert_eq(out[k * 4 + 0], 2);
    cr_assert_eq(out[k * 4 + 1], 3);
    cr_assert_eq(out[k * 4 + 3], 2);
  }
  /* only the first set: the other three share 24 */
  p.pp_last_layers = 0;
  cr_assert_eq(plan_stage_layers(&p, 30, 1, out, &err), SC_OK, "%s", err.msg);
  cr_assert_eq(out[3], 8);
}

Test(layout, errors_say_what_is_valid) {
  int out[SC_MAX_PP_LAYOUT];
  sc_error err = {0};
  sc_plan p = plan(8);
  cr_assert_eq(plan_stage_layers(&p, 126, 1, out, &err), SC_EINPUT);
  cr_assert(strstr(err.msg, "plan.pp: 8 does not divide the 126 layers of the model"), "%s", err.msg);
  cr_assert(strstr(err.msg, "pp_embedding_in_split"), "%s", err.msg);
  p.pp_first_layers = 7; /* 119 left for 7 stages: 17 each */
  cr_assert_eq(plan_stage_layers(&p, 126, 1, out, &err), SC_OK, "%s", err.msg);
  p.pp_first_layers = 8; /* 118 left for 7 stages */
  cr_assert_eq(plan_stage_layers(&p, 126, 1, out, &err), SC_EINPUT);
  cr_assert(strstr(err.msg, "leave 118 of the 126 layers for 7 middle stages"), "%s", err.msg);
  p.pp_embedding_in_split = 1; /* two ways at once */
  cr_assert_eq(plan_stage_layers(&p, 126, 1, out, &err), SC_EINPUT);
  cr_assert(strstr(err.msg, "give one stage layout"), "%s", err.msg);
  p = plan(2);
  p.n_pp_layout = 3;
  cr_assert_eq(plan_stage_layers(&p, 10, 1, out, &err), SC_EINPUT);
  cr_assert(strstr(err.msg, "3 entries; pp 2 x vpp 1 needs 2"), "%s", err.msg);
  p.n_pp_layout = 2;
  p.pp_layout[0] = 4;
  p.pp_layout[1] = 5;
  cr_assert_eq(plan_stage_layers(&p, 10, 1, out, &err), SC_EINPUT);
  cr_assert(strstr(err.msg, "add up to 9 layers; the model has 10"), "%s", err.msg);
}

/* A 10-layer GPT on 4 GPUs in pp 2, lowered with layout `first`/`last`
 * layers per stage. */
static void lower_layout(lowered *l, int first, int last) {
  sc_scenario in;
  sc_scenario_default(&in);
  sc_transformer *m = &in.model.tf;
  m->layers = 10;
  m->hidden = 1024;
  m->heads = 16;
  m->kv_heads = 16;
  m->ffn = 4096;
  m->vocab = 32000;
  m->seq = 2048;
  in.cluster.gpus = 4;
  sc_plan *p = &in.plan;
  p->tp = 2;
  p->pp = 2;
  p->dp = 1;
  p->global_batch = 16;
  p->micro_batch = 1;
  p->n_pp_layout = 2;
  p->pp_layout[0] = first;
  p->pp_layout[1] = last;
  lowered_make(l, &in);
}

static void done(lowered *l) { lowered_done(l); }

Test(layout, lowered_stages_hold_the_layout) {
  lowered l;
  lower_layout(&l, 3, 7);
  cr_assert_eq(l.x.n_stages, 2);
  cr_assert_eq(l.x.stages[0].layers, 3);
  cr_assert_eq(l.x.stages[1].layers, 7);
  done(&l);
}

Test(layout, the_bubble_runs_at_the_other_stages_pace) {
  /* 1F1B: the fill and drain pass through the stages that are not the
   * slowest, at their own pace. Moving layers from one stage to the other
   * makes the heavy stage slower and the bubble (the light stage's pass)
   * smaller; the event timeline of the same plan agrees with the closed
   * form within 2 % for even and uneven stages */
  sc_error err = {0};
  sc_result r[2];
  const int firsts[2] = {5, 3};
  for (int i = 0; i < 2; i++) {
    lowered l;
    lower_layout(&l, firsts[i], 10 - firsts[i]);
    cr_assert_eq(sc_predict(&l.s, &r[i], &err), SC_OK, "%s", err.msg);
    sc_span *sp = NULL;
    size_t n = 0;
    double step = 0;
    cr_assert_eq(sc_timeline(&l.s, &sp, &n, &step, &err), SC_OK, "%s", err.msg);
    free(sp);
    cr_assert_lt(fabs(step - r[i].step_s) / r[i].step_s, 0.02, "layout %d/%d: timeline %g s, "
                 "closed form %g s", firsts[i], 10 - firsts[i], step, r[i].step_s);
    done(&l);
  }
  cr_assert_gt(r[1].step_s, r[0].step_s);
  cr_assert_lt(r[1].time.bubble, r[0].time.bubble);
}

Test(layout, the_schedule_run_pass_by_pass_hides_a_heavy_stage_s_warm_up) {
  /* 1F1B over 4 stages, forwards 11, 11, 10, 8 and backwards twice
   * that, 2 micro-batches: worked by hand, the last stage's passes and
   * the fill and drain around them set the step, 11 + 11 + 10 + 8 + 16
   * + 8 + 16 + 20 + 22 + 22 = 144; the first stage's two forwards hide
   * under the first micro-batch's trip. The usual form (m x the slowest
   * stage's f + b + the others' once) says 2 x 33 + 87 = 153. With 64
   * micro-batches the first stage paces it: 64 x 33 + the fill and
   * drain of the stages after it, less what its warm-up hides. */
  const double f[4] = {11, 11, 10, 8}, b[4] = {22, 22, 20, 16};
  double endf[4 * 64], endb[4 * 64], free_at[4];
  pipe_pass order[4 * 3 * 64];
  int next[4], count[4];
  pipe_shape sh = {4, 1, 2, 0};
  cr_assert_float_eq(pipe_makespan(&pipe_onef1b, &sh, f, b, NULL, NULL, 0, endf, endb, order, count, next, free_at), 144,
                     1e-9);
  /* GPipe, every forward then every backward, by hand: the last stage's
   * second forward ends at 11 + 11 + 11 + 10 + 8 = 51, its backwards at
   * 83, then stage 2's second backward waits for its first (67 + 20) and
   * so on up (87 + 20 = 107, stage 1 free at 109 and done at 131),
   * stage 0's two backwards from 109 to 153 */
  double g = pipe_makespan(&pipe_gpipe, &sh, f, b, NULL, NULL, 0, endf, endb, order, count, next, free_at);
  cr_assert_float_eq(g, 153, 1e-9);
  sh.m = 64;
  double t = pipe_makespan(&pipe_onef1b, &sh, f, b, NULL, NULL, 0, endf, endb, order, count, next, free_at);
  cr_assert(t >= 64 * 33 && t <= 64 * 33 + (33 + 30 + 24), "%g", t);
  /* equal stages: the usual (m + pp - 1) (f + b) */
  const double fe[4] = {10, 10, 10, 10}, be[4] = {20, 20, 20, 20};
  cr_assert_float_eq(pipe_makespan(&pipe_onef1b, &sh, fe, be, NULL, NULL, 0, endf, endb, order, count, next, free_at),
                     (64 + 3) * 30.0, 1e-9);
}

/* Run stage s's passes in the schedule's order, counting the forwards of
 * each chunk whose backward has not run; at the first time the total
 * peaks, the counts per chunk. Returns the peak. */
static int peak_by_order(const pipe_sched *ps, const pipe_shape *sh, int s, int *per_chunk) {
  pipe_pass order[3 * 64 * 4];
  int n = ps->order(sh, s, order), live[4] = {0}, total = 0, peak = 0;
  cr_assert_gt(n, 0);
  for (int i = 0; i < n; i++) {
    int d = order[i].kind == 'F' ? 1 : order[i].kind == 'B' ? -1 : 0;
    live[order[i].chunk] += d;
    total += d;
    if (total > peak) {
      peak = total;
      memcpy(per_chunk, live, sizeof live);
    }
  }
  return peak;
}

Test(layout, interleaved_in_flight_is_what_its_order_holds) {
  /* Megatron's interleaved 1F1B: every stage holds about pp micro-batches
   * (the last (vpp - 1) pp + 1 chunk passes, not one micro-batch), the
   * first stages every forward of the step when m = pp. By hand, pp 4,
   * vpp 2, m 8: stage 0 warms up with 3 x 2 + 4 = 10 chunk forwards and
   * peaks at 11: chunk 0 of micro-batches 0-3, chunk 1 of 0-3, chunk 0
   * of 4-6, so 7 + 4 chunk passes, 5.5 micro-batches of the stage; stage
   * 3 peaks at 5: 4 of chunk 0 and 1 of chunk 1 (the loss's chunk). And
   * the closed forms match the order over a grid */
  pipe_shape sh = {4, 2, 8, 0};
  cr_assert_float_eq(pipe_interleaved.in_flight(&sh, 0), 5.5, 1e-12);
  cr_assert_float_eq(pipe_chunk_in_flight(&pipe_interleaved, &sh, 0, 0), 7, 1e-12);
  cr_assert_float_eq(pipe_chunk_in_flight(&pipe_interleaved, &sh, 0, 1), 4, 1e-12);
  cr_assert_float_eq(pipe_interleaved.in_flight(&sh, 3), 2.5, 1e-12);
  cr_assert_float_eq(pipe_chunk_in_flight(&pipe_interleaved, &sh, 3, 1), 1, 1e-12);
  sh.m = 4; /* m = pp: 8 forwards < 11, all of them */
  cr_assert_float_eq(pipe_interleaved.in_flight(&sh, 0), 4, 1e-12);
  for (int pp = 2; pp <= 8; pp++)
    for (int vpp = 1; vpp <= 4; vpp++)
      for (int m = pp; m <= 4 * pp && m * vpp <= 64; m += pp)
        for (int s = 0; s < pp; s++) {
          pipe_shape g = {pp, vpp, m, 0};
          int per[4] = {0};
          int peak = peak_by_order(&pipe_interleaved, &g, s, per);
          cr_assert_float_eq(pipe_interleaved.in_flight(&g, s) * vpp, peak, 1e-9,
                             "pp %d vpp %d m %d stage %d: %g x %d vs %d", pp, vpp, m, s,
                             pipe_interleaved.in_flight(&g, s), vpp, peak);
          for (int k = 0; k < vpp; k++)
            cr_assert_float_eq(pipe_chunk_in_flight(&pipe_interleaved, &g, s, k), per[k], 1e-9,
                               "pp %d vpp %d m %d stage %d chunk %d", pp, vpp, m, s, k);
        }
}
