/*
 * test_evshare.c -- communication activities sharing links
 * (src/engine/evshare.h): two that each fill a link alone run at half
 * speed while they overlap and at full speed again after; one on another
 * link, or off a topology, is not touched.
 */
#include <criterion/criterion.h>
#include <math.h>

#include "engine/evshare.h"

static int l0[] = {0}, l1[] = {1};
static double full[] = {10}; /* bytes/s: fills a 10 B/s link */

/* Run the set until empty; each activity's end by id into end[]. */
static void drain(evs *s, double *end) {
  double t;
  int k;
  while ((k = evs_next(s, &t)) >= 0) {
    int id = s->a[k].id;
    double st;
    evs_remove(s, k, t, &st);
    end[id] = t;
  }
}

Test(evshare, two_on_one_link_share_it_while_they_overlap) {
  double bw[2] = {10, 10}, end[3] = {0};
  evs s;
  cr_assert_eq(evs_init(&s, 4, 2, bw), 0);
  evs_demand d0 = {l0, full, 1}, d1 = {l1, full, 1};
  evs_add(&s, 0, 0, 1.0, &d0, 1);   /* 1 s alone */
  evs_add(&s, 0.5, 1, 1.0, &d0, 1); /* from 0.5 s: both at half speed */
  evs_add(&s, 0.5, 2, 1.0, &d1, 1); /* another link: untouched */
  drain(&s, end);
  /* the first has 0.5 s left at 0.5, at half speed: ends at 1.5; the
   * second has done 0.5 s by then and runs the rest alone: 2.0 */
  cr_expect(fabs(end[0] - 1.5) < 1e-12, "first ends at %g s", end[0]);
  cr_expect(fabs(end[1] - 2.0) < 1e-12, "second ends at %g s", end[1]);
  cr_expect(fabs(end[2] - 1.5) < 1e-12, "other link ends at %g s", end[2]);
  evs_free(&s);
}

Test(evshare, demand_below_the_link_is_not_slowed_and_weights_count) {
  double bw[1] = {10}, end[2] = {0}, third[] = {3};
  evs s;
  cr_assert_eq(evs_init(&s, 4, 1, bw), 0);
  evs_demand d = {l0, third, 1};
  evs_add(&s, 0, 0, 1.0, &d, 1); /* 3 + 3 of 10 B/s: no slowdown */
  evs_add(&s, 0, 1, 1.0, &d, 1);
  drain(&s, end);
  cr_expect(end[0] == 1.0 && end[1] == 1.0, "ends %g, %g s", end[0], end[1]);
  /* weight 2 each (replicas it stands for): 12 B/s on 10: x 1.2 */
  evs_add(&s, 0, 0, 1.0, &d, 2);
  evs_add(&s, 0, 1, 1.0, &d, 2);
  drain(&s, end);
  cr_expect(fabs(end[0] - 1.2) < 1e-12 && fabs(end[1] - 1.2) < 1e-12, "ends %g, %g s", end[0],
            end[1]);
  evs_free(&s);
}

Test(evshare, off_a_topology_an_activity_keeps_its_time) {
  double end[2] = {0};
  evs s;
  cr_assert_eq(evs_init(&s, 2, 0, NULL), 0);
  evs_demand d = {l0, full, 1};
  evs_add(&s, 0, 0, 1.0, &d, 1);
  evs_add(&s, 0.25, 1, 1.0, &d, 1);
  drain(&s, end);
  cr_expect(end[0] == 1.0 && end[1] == 1.25, "ends %g, %g s", end[0], end[1]);
  evs_free(&s);
}

Test(evshare, a_pass_slows_only_in_its_collectives) {
  /* a pass of 2 s alone, half of it an expert all-to-all whose bytes
   * average 5 B/s on the link over the pass, beside a send filling the
   * 10 B/s link alone for 1 s: 15 B/s of 10, each link user at 1/1.5.
   * The send takes 1.5 s; the pass 1 + 0.5 x 1.5 = 1.25 x alone while
   * the send runs (1.5 s: 1.2 alone-seconds done), then the last 0.8 s
   * at its own pace: 2.3 s */
  double bw[1] = {10}, end[2] = {0}, half[] = {5};
  evs s;
  cr_assert_eq(evs_init(&s, 2, 1, bw), 0);
  evs_demand pass = {l0, half, 1}, send = {l0, full, 1};
  evs_add_part(&s, 0, 0, 2.0, &pass, 1, 0.5);
  evs_add(&s, 0, 1, 1.0, &send, 1);
  drain(&s, end);
  cr_expect(fabs(end[1] - 1.5) < 1e-12, "send %.15g s", end[1]);
  cr_expect(fabs(end[0] - 2.3) < 1e-12, "pass %.15g s", end[0]);
  /* no collective in it (q 0): the pass keeps its time, the send still
   * sees its bytes */
  end[0] = end[1] = 0;
  evs_add_part(&s, 0, 0, 2.0, &pass, 1, 0);
  evs_add(&s, 0, 1, 1.0, &send, 1);
  drain(&s, end);
  cr_expect(fabs(end[0] - 2) < 1e-12 && fabs(end[1] - 1.5) < 1e-12, "pass %g s, send %g s",
            end[0], end[1]);
  evs_free(&s);
}
