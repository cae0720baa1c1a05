/*
 * test_tp_async.c -- plan.tp_async_bwd: in backward the reduction of a
 * column-parallel linear's input gradient runs beside that linear's
 * weight-gradient GEMM (Megatron's LinearWithGradAccumulationAndAsync-
 * Communication, TE's Linear). Which collectives the lowering marks and
 * with which GEMM, what the closed form charges for them, and that the
 * event engine charges the same.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "engine/engine.h"
#include "engine/groups.h"
#include "job/job.h"
#include "lowered.h"
#include "predict.h" /* scenario_ok */

/* GPT-3 1.3B on 8 A100 of one node: tp 8 (or tp), pp 1, no recompute,
 * no host overhead (the step is the GPU's sum), sp as asked. */
static sc_scenario one_node(int tp, int sp, int async) {
  sc_scenario s = scenario_ok("{\"model\": \"gpt3-1.3b\", \"cluster\": "
                              "{\"preset\": \"dgx-a100\", \"gpus\": 8}, "
                              "\"plan\": {\"pp\": 1, \"global_batch\": 16, "
                              "\"micro_batch\": 2, \"recompute\": \"none\"}}");
  s.plan.tp = tp, s.plan.dp = 0, s.plan.sp = sp, s.plan.tp_async_bwd = async;
  s.plan.framework_eager = 0;
  return s;
}

static const char *name_of(const lowered *l, const xg_segment *sg, int i, char *buf, size_t n) {
  return lower_task_name(&l->x.tasks[sg->first_task + i], buf, n);
}

/* The GEMM collective `comm` hides under, by name ("-" when it blocks). */
static const char *hider(const lowered *l, const char *comm, char *buf, size_t n) {
  const xg_segment *sg = lowered_layer_seg(l);
  const xg_task *t = lowered_task(l, comm);
  if (t->overlap != XG_OVL_WGRAD) return "-";
  cr_assert(t->wgrad >= 0 && t->wgrad < sg->n_tasks, "%s: wgrad %d", comm, t->wgrad);
  return name_of(l, sg, t->wgrad, buf, n);
}

Test(tp_async, the_lowering_pairs_each_reduction_with_its_column_parallel_linear) {
  char b1[64], b2[64];
  lowered l;
  /* without sequence parallelism: the attention output's all-reduce
   * reaches fc1 (through the residual and the norm), the MLP's the next
   * layer's qkv -- in a run of layers the segment's own */
  sc_scenario s = one_node(8, 0, 1);
  lowered_make(&l, &s);
  cr_expect_str_eq(hider(&l, "ar_proj", b1, sizeof b1), "fc1");
  cr_expect_str_eq(hider(&l, "ar_fc2", b2, sizeof b2), "qkv");
  lowered_done(&l);
  /* with it: each gather before a column-parallel linear (its backward
   * is the reduce-scatter of the input gradient) under that linear; the
   * reduce-scatters (backward: the output gradient's all-gather, which
   * the row-parallel linear waits for) block */
  s = one_node(8, 1, 1);
  lowered_make(&l, &s);
  cr_expect_str_eq(hider(&l, "ag_qkv", b1, sizeof b1), "qkv");
  cr_expect_str_eq(hider(&l, "ag_fc1", b2, sizeof b2), "fc1");
  cr_expect_eq(lowered_task(&l, "rs_proj")->overlap, XG_OVL_NONE);
  cr_expect_eq(lowered_task(&l, "rs_fc2")->overlap, XG_OVL_NONE);
  lowered_done(&l);
  /* switched off, every tensor-parallel collective blocks as before;
   * under plan.overlap_tp they stay TE's userbuffers overlap */
  for (int sp = 0; sp <= 1; sp++) {
    s = one_node(8, sp, 0);
    lowered_make(&l, &s);
    cr_expect_str_eq(hider(&l, sp ? "ag_qkv" : "ar_proj", b1, sizeof b1), "-");
    lowered_done(&l);
    s = one_node(8, sp, 1);
    s.plan.overlap_tp = 1;
    lowered_make(&l, &s);
    cr_expect_eq(lowered_task(&l, sp ? "ag_fc1" : "ar_fc2")->overlap, XG_OVL_PREV);
    lowered_done(&l);
  }
}

Test(tp_async, a_gemm_hides_one_collective_at_most) {
  for (int sp = 0; sp <= 1; sp++) {
    sc_scenario s = one_node(4, sp, 1);
    lowered l;
    lowered_make(&l, &s);
    for (int k = 0; k < l.x.n_segs; k++) {
      const xg_segment *sg = &l.x.segs[k];
      int hidden[256] = {0};
      cr_assert(sg->n_tasks <= 256);
      for (int i = 0; i < sg->n_tasks; i++) {
        const xg_task *t = &l.x.tasks[sg->first_task + i];
        if (t->kind != XG_COMM || t->overlap != XG_OVL_WGRAD) continue;
        const xg_task *g = &l.x.tasks[sg->first_task + t->wgrad];
        cr_expect(g->kind == XG_GEMM && g->wgrad == 1, "sp %d seg %d task %d: hider %d", sp, k,
                  i, t->wgrad);
        cr_expect_eq(++hidden[t->wgrad], 1, "sp %d seg %d: GEMM %d hides two", sp, k, t->wgrad);
      }
    }
    lowered_done(&l);
  }
}

/* What the backward's collectives of stage 0 marked XG_OVL_WGRAD save per
 * micro-batch, from first principles: alone c, beside a weight gradient of
 * w seconds the uncovered part plus the SM share's slowdown of the
 * covered; a sequence-parallel gather's backward gathers the input again
 * beside the data gradient, which costs the same way (and nothing with
 * the switch off, as before). *n counts them, *ag the re-gathers. */
static double expected_saving(const sc_scenario *s, int *n, int *ag) {
  sc_job *j;
  sc_error err = {0};
  cr_assert_eq(sc_job_open(s, &j, &err), SC_OK, "%s", err.msg);
  struct eng *e;
  cr_assert_eq(job_prepare(j, NULL, &e, &err), SC_OK, "%s", err.msg);
  const xg *x = e->x;
  const xg_stage *st = &x->stages[0];
  double save = 0;
  *n = *ag = 0;
  for (int r = 0; r < st->n_runs; r++) {
    const xg_run *run = &x->runs[st->first_run + r];
    const xg_segment *sg = &x->segs[run->segment];
    for (int i = 0; i < sg->n_tasks; i++) {
      const xg_task *t = &x->tasks[sg->first_task + i];
      if (t->kind != XG_COMM || t->overlap != XG_OVL_WGRAD) continue;
      const xg_task *g = &x->tasks[sg->first_task + t->wgrad];
      grp_share sh;
      double c = eng_task_comm_share(e, t, 1, &sh), w = eng_task_wgrad(e, g);
      double bwd = eng_task_compute(e, g, 1);
      /* a weight gradient is one of the GEMM's two backward GEMMs */
      cr_expect(w > 0.3 * bwd && w < 0.7 * bwd, "wgrad %g s of backward %g s", w, bwd);
      cr_expect(sh.sm > 0 && sh.sm < 0.5, "SM share %g", sh.sm);
      double hid = c < w ? c : w;
      save += run->count * (hid - sh.sm * hid);
      *n += run->count;
      grp_share sa;
      double a = eng_regather(e, t, &sa), d = eng_task_dgrad(e, g);
      if (t->coll != COLL_ALL_GATHER) {
        cr_expect_eq(a, 0, "a re-gather for an all-reduce");
        continue;
      }
      /* the forward's gather again, beside the other backward GEMM */
      cr_expect(a == eng_task_comm(e, t, 0) && fabs(d + w - bwd) < 1e-12 * bwd, "re-gather %g s",
                a);
      double hid2 = a < d ? a : d;
      save -= run->count * (a - hid2 + sa.sm * hid2);
      *ag += run->count;
    }
  }
  sc_job_close(j);
  return save;
}

Test(tp_async, the_closed_form_hides_the_reduction_under_the_weight_gradient) {
  for (int sp = 0; sp <= 1; sp++) {
    sc_scenario on = one_node(8, sp, 1), off = one_node(8, sp, 0);
    sc_result a = lowered_predict(&on, 0), b = lowered_predict(&off, 0);
    int n, ag;
    double want = a.micro_batches * expected_saving(&on, &n, &ag);
    double got = b.time.tp_comm - a.time.tp_comm;
    /* two a layer (24 layers), and under sequence parallelism the output
     * layer's gather (a column-parallel linear too) */
    cr_expect_eq(n, 48 + sp, "sp %d: %d collectives beside a weight gradient", sp, n);
    cr_expect_eq(ag, sp ? n : 0, "sp %d: %d re-gathers", sp, ag);
    /* without sequence parallelism a clear saving; with it the re-gathers
     * (16 MiB over 8 GPUs beside a data gradient of about as long) take
     * it back */
    if (!sp)
      cr_expect(want > 0.1 * b.time.tp_comm, "saving %g s of %g s", want, b.time.tp_comm);
    cr_expect(fabs(got - want) < 1e-9 * b.step_s, "sp %d: tp comm %g -> %g s, saved %g, want %g",
              sp, b.time.tp_comm, a.time.tp_comm, got, want);
    cr_expect(fabs((b.step_s - a.step_s) - got) < 1e-9 * b.step_s, "sp %d: step %g -> %g s", sp,
              b.step_s, a.step_s);
    /* only the backward moves: the compute is the same (within rounding:
     * a GEMM beside such a collective is queued as its data and weight
     * gradients, analytic.c eng_wgrad_split) */
    cr_expect(fabs(a.time.compute - b.time.compute) < 1e-12 * b.time.compute,
              "sp %d: compute %.17g -> %.17g s", sp, b.time.compute, a.time.compute);
  }
  /* no tensor parallelism, nothing to hide */
  sc_scenario on = one_node(1, 0, 1), off = one_node(1, 0, 0);
  cr_expect_eq(lowered_predict(&on, 0).step_s, lowered_predict(&off, 0).step_s);
}

Test(tp_async, the_event_engine_charges_what_the_closed_form_does) {
  for (int sp = 0; sp <= 1; sp++)
    for (int async = 0; async <= 1; async++) {
      sc_scenario s = one_node(8, sp, async);
      sc_result c = lowered_predict(&s, 0), ev = lowered_predict(&s, 1);
      cr_expect(fabs(ev.step_s / c.step_s - 1) < 1e-9, "sp %d async %d: event %.9g s, closed %.9g",
                sp, async, ev.step_s, c.step_s);
      cr_expect(fabs(ev.time.tp_comm / c.time.tp_comm - 1) < 1e-9,
                "sp %d async %d: tp comm event %.9g s, closed %.9g", sp, async, ev.time.tp_comm,
                c.time.tp_comm);
    }
  /* with a pipeline, host overhead and recomputation (which re-runs the
   * forward's collectives blocking): within the engines' usual 2 % */
  sc_scenario s = one_node(2, 0, 1);
  s.cluster.gpus = 8, s.plan.pp = 4, s.plan.dp = 0, s.plan.framework_eager = 1;
  s.plan.recompute = SC_RECOMP_FULL;
  sc_result c = lowered_predict(&s, 0), ev = lowered_predict(&s, 1);
  cr_expect(fabs(ev.step_s / c.step_s - 1) < 0.02, "pp 4: event %g s, closed %g s", ev.step_s,
            c.step_s);
  s.plan.tp_async_bwd = 0;
  sc_result c0 = lowered_predict(&s, 0), ev0 = lowered_predict(&s, 1);
  double dc = c0.step_s - c.step_s, de = ev0.step_s - ev.step_s;
  cr_expect(dc > 0 && fabs(de / dc - 1) < 0.05, "pp 4: closed form saves %g s, event %g s", dc, de);
}
