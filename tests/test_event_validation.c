/*
 * test_event_validation.c -- the event engine against the closed form on
 * every predicted row of ../shared/validation/training. The two agree
 * within 2 % where the closed form is exact; where they differ by more,
 * the difference must be one of the two the closed form does not see
 * (docs/event.md), checked row by row:
 *  - host warm-up: where the host's lead over the GPU differs between the
 *    engines (both level it at every micro-batch since issue 14, so no
 *    row shows it now), a step of few micro-batches with launch-bound
 *    kernels differs. Without host time (plan.framework_eager off) the two
 *    agree within 2 %.
 *  - send/recv: both engines charge Megatron's blocking send/recv
 *    (pipe.h p2p_per_mb: the closed form through the pipeline's pace,
 *    the event engine as rendezvous); should they part, the rest of the
 *    step must still agree within 2 % with the path's send/recv counted
 *    alike (no row needs it today).
 *  - gradient buckets: the event engine runs the data-parallel reduction
 *    bucket by bucket beside the last backward (engine/evbucket.c), the
 *    closed form hides it under at most 90 % of that backward; with
 *    plan.overlap_grad_reduce off the two agree within 2 %.
 * The event engine's error against the measurements is printed per set
 * beside the closed form's. Needs ../shared (fails loudly without it).
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stepcast.h"

static int cmp_str(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

Test(event_validation, agrees_with_the_closed_form_on_every_training_row) {
  const char *dir = SC_SHARED_DIR "/validation/training";
  DIR *d = opendir(dir);
  cr_assert(d, "%s is missing: this test needs ../shared", dir);
  char *names[64];
  int n = 0;
  struct dirent *de;
  while ((de = readdir(d)) && n < 64)
    if (strstr(de->d_name, ".csv")) names[n++] = strdup(de->d_name);
  closedir(d);
  cr_assert(n > 0, "no training sets in %s", dir);
  qsort(names, (size_t)n, sizeof *names, cmp_str);
  fprintf(stderr, "%-28s %5s %12s %12s %12s\n", "set", "rows", "closed MAPE", "event MAPE",
          "max |ev-cf|");
  int rows_all = 0;
  int worse = 0;
  for (int i = 0; i < n; i++) {
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, names[i]);
    sc_validation v;
    sc_error e = {0};
    cr_assert_eq(sc_validate_file(path, &v, &e), SC_OK, "%s: %s", path, e.msg);
    double ape_c = 0, ape_e = 0, worst = 0;
    int rows = 0, n_pp = 0, n_host = 0, n_bk = 0;
    for (int k = 0; k < v.n; k++) {
      const sc_validation_row *r = &v.rows[k];
      if (r->predicted < 0) continue;
      sc_scenario s;
      cr_assert_eq(sc_validate_row_scenario(path, r->id, &s, &e), SC_OK, "%s %s: %s", path,
                   r->id, e.msg);
      sc_result ev;
      sc_event_opts o = {1, 0};
      cr_assert_eq(sc_predict_event(&s, &o, &ev, NULL, &e), SC_OK, "%s %s: %s", path, r->id,
                   e.msg);
      double diff = fabs(ev.step_s / r->predicted - 1);
      if (diff > 0.02) {
        sc_result cf;
        cr_assert_eq(sc_predict(&s, &cf, &e), SC_OK, "%s", e.msg);
        double rest = fabs((ev.step_s - ev.time.pp_comm) - (cf.step_s - cf.time.pp_comm));
        sc_scenario q = s;
        q.plan.framework_eager = 0;
        sc_result ev0, cf0;
        cr_assert_eq(sc_predict(&q, &cf0, &e), SC_OK, "%s", e.msg);
        cr_assert_eq(sc_predict_event(&q, &o, &ev0, NULL, &e), SC_OK, "%s", e.msg);
        int pp = rest <= 0.02 * cf.step_s, host = fabs(ev0.step_s / cf0.step_s - 1) <= 0.02;
        sc_scenario q2 = s;
        q2.plan.overlap_grad_reduce = 0;
        sc_result ev2, cf2;
        cr_assert_eq(sc_predict(&q2, &cf2, &e), SC_OK, "%s", e.msg);
        cr_assert_eq(sc_predict_event(&q2, &o, &ev2, NULL, &e), SC_OK, "%s", e.msg);
        int buckets = fabs(ev2.step_s / cf2.step_s - 1) <= 0.02;
        n_pp += pp, n_host += !pp && host, n_bk += !pp && !host && buckets;
        cr_expect(pp || host || buckets,
                  "%s row %s: event %g s, closed form %g s (%.2f %%), not explained by the "
                  "send/recv (rest differs by %g s), the host (without: %g vs %g s) nor the "
                  "gradient buckets",
                  names[i], r->id, ev.step_s, r->predicted, 100 * diff, rest, ev0.step_s,
                  cf0.step_s);
      }
      if (diff > worst) worst = diff;
      ape_c += fabs(r->predicted / r->measured - 1);
      ape_e += fabs(ev.step_s / r->measured - 1);
      rows++;
    }
    if (rows) {
      fprintf(stderr, "%-28s %5d %11.2f%% %11.2f%% %11.2f%%   > 2 %%: %d send/recv, %d host, "
              "%d buckets\n", names[i], rows, 100 * ape_c / rows, 100 * ape_e / rows,
              100 * worst, n_pp, n_host, n_bk);
      /* no worse than the closed form's (to rounding: 0.05 points) */
      worse |= ape_e / rows > ape_c / rows + 0.0005;
      rows_all += rows;
    }
    sc_validation_free(&v);
    free(names[i]);
  }
  cr_expect(rows_all > 1000, "only %d rows predicted", rows_all);
  cr_expect(!worse, "the event engine's MAPE is worse than the closed form's on some set "
                    "(table above)");
}
