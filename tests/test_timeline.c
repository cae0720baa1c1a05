/*
 * test_timeline.c -- the discrete-event pipeline timeline: every pass once,
 * no overlap on a stage, dependencies respected, and the same step time as
 * the closed-form bubble of the analytic model.
 */
#include <criterion/criterion.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stepcast.h"

static sc_scenario plan(int pp, sc_schedule sched, int vpp, long gb) {
  sc_scenario s;
  sc_scenario_default(&s);
  s.plan.pp = pp;
  s.plan.dp = 0;
  s.plan.schedule = sched;
  s.plan.vpp = vpp;
  s.plan.global_batch = gb;
  return s;
}

static void check(const sc_scenario *s, const char *what) {
  sc_span *sp = NULL;
  size_t n = 0;
  double step = 0;
  sc_error err = {0};
  cr_assert_eq(sc_timeline(s, &sp, &n, &step, &err), SC_OK, "%s: %s", what, err.msg);
  sc_result r;
  cr_assert_eq(sc_predict(s, &r, &err), SC_OK, "%s", err.msg);
  int pp = s->plan.pp, m = r.micro_batches;
  int vpp = s->plan.schedule == SC_SCHED_INTERLEAVED ? s->plan.vpp : 1;
  /* every pass once per stage */
  size_t passes = 0;
  for (size_t i = 0; i < n; i++) passes += sp[i].kind == 'F' || sp[i].kind == 'B';
  cr_assert_eq(passes, (size_t)2 * pp * m * vpp, "%s: %zu passes", what, passes);
  /* compute lane of a stage never overlaps; dependencies hold */
  for (size_t i = 0; i < n; i++)
    for (size_t j = i + 1; j < n; j++) {
      const sc_span *a = &sp[i], *b = &sp[j];
      if (a->stage == b->stage && a->lane == 0 && b->lane == 0)
        cr_assert(a->start + a->dur <= b->start + 1e-12 || b->start + b->dur <= a->start + 1e-12,
                  "%s: overlap on stage %d: %c%d and %c%d", what, a->stage, a->kind,
                  a->micro_batch, b->kind, b->micro_batch);
      if (a->kind == b->kind && a->micro_batch == b->micro_batch && a->chunk == b->chunk &&
          abs(a->stage - b->stage) == 1) {
        const sc_span *up = a->stage < b->stage ? a : b, *down = a->stage < b->stage ? b : a;
        if (a->kind == 'F')
          cr_assert(down->start >= up->start + up->dur - 1e-12, "%s: F%d on stage %d starts early",
                    what, a->micro_batch, down->stage);
        if (a->kind == 'B')
          cr_assert(up->start >= down->start + down->dur - 1e-12, "%s: B%d on stage %d starts early",
                    what, a->micro_batch, up->stage);
      }
    }
  /* the simulated fill and drain agree with the closed form */
  cr_assert(fabs(step - r.step_s) <= 0.05 * r.step_s, "%s: timeline %g s vs analytic %g s", what,
            step, r.step_s);
  free(sp);
}

Test(timeline, one_f_one_b) { sc_scenario s = plan(4, SC_SCHED_1F1B, 1, 256); check(&s, "1F1B pp4"); }
Test(timeline, gpipe) { sc_scenario s = plan(4, SC_SCHED_GPIPE, 1, 256); check(&s, "GPipe pp4"); }
Test(timeline, interleaved) { sc_scenario s = plan(8, SC_SCHED_INTERLEAVED, 3, 256); check(&s, "interleaved pp8 vpp3"); }
Test(timeline, no_pipeline) { sc_scenario s = plan(1, SC_SCHED_1F1B, 1, 1024); check(&s, "pp1"); }

Test(timeline, chrome_trace_is_valid_json) {
  sc_scenario s = plan(4, SC_SCHED_1F1B, 1, 256);
  sc_span *sp = NULL;
  size_t n = 0;
  double step = 0;
  sc_error err = {0};
  cr_assert_eq(sc_timeline(&s, &sp, &n, &step, &err), SC_OK, "%s", err.msg);
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  sc_report_trace(f, &s, sp, n);
  fclose(f);
  json_error_t je;
  json_t *root = json_loads(buf, 0, &je);
  cr_assert_not_null(root, "invalid JSON at %d:%d: %s", je.line, je.column, je.text);
  json_t *ev = json_object_get(root, "traceEvents");
  cr_assert(json_is_array(ev) && json_array_size(ev) >= n, "traceEvents has %zu entries",
            json_array_size(ev));
  json_decref(root);
  free(buf);
  free(sp);
}

/* A trace written for a prediction's step covers it: a step 1 s past the
 * layout's end adds one "remainder" span of that second after the last
 * span, and otherData carries both figures; without a step, neither. */
Test(timeline, chrome_trace_covers_the_predicted_step) {
  sc_scenario s = plan(4, SC_SCHED_1F1B, 1, 256);
  sc_span *sp = NULL;
  size_t n = 0;
  double step = 0, end = 0;
  sc_error err = {0};
  cr_assert_eq(sc_timeline(&s, &sp, &n, &step, &err), SC_OK, "%s", err.msg);
  for (size_t i = 0; i < n; i++) end = fmax(end, sp[i].start + sp[i].dur);
  for (int with = 0; with < 2; with++) {
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    sc_report_trace_step(f, &s, sp, n, with ? end + 1 : 0);
    fclose(f);
    json_error_t je;
    json_t *root = json_loads(buf, 0, &je);
    cr_assert_not_null(root, "invalid JSON at %d:%d: %s", je.line, je.column, je.text);
    json_t *od = json_object_get(root, "otherData"), *ev = json_object_get(root, "traceEvents");
    int rest = 0;
    for (size_t i = 0; i < json_array_size(ev); i++) {
      json_t *e = json_array_get(ev, i);
      const char *cat = json_string_value(json_object_get(e, "cat"));
      if (!cat || strcmp(cat, "remainder")) continue;
      rest++;
      cr_expect_float_eq(json_number_value(json_object_get(e, "ts")), end * 1e6, 1e-3, "start");
      cr_expect_float_eq(json_number_value(json_object_get(e, "dur")), 1e6, 1e-3, "duration");
    }
    cr_expect_eq(rest, with, "%d remainder spans", rest);
    cr_expect_eq(json_object_get(od, "step_s") != NULL, with);
    if (with)
      cr_expect_float_eq(json_number_value(json_object_get(od, "layout_s")), end, 1e-8 * end,
                         "layout_s");
    json_decref(root);
    free(buf);
  }
  free(sp);
}
