/*
 * test_evshare.c -- communication activities sharing links
 * (src/engine/evshare.h): two that each fill a link alone run at half
 * speed while they overlap and at full speed again after; one on another
 * link, or off a topology, is not touched; max-min: one held back on
 * another link leaves the rest to the others; a pass slows only in its
 * collectives; the two transfers of a batch do not slow each other.
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
    evs_remove(s, k, t);
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

Test(evshare, the_two_of_a_batch_do_not_slow_each_other_but_share_with_the_rest) {
  /* a rank's two batched receives (evshare.h BATCHES): each fills the
   * 10 B/s link alone; together they load it by the larger, 10 B/s, and
   * both end at 1 s (unbatched: 2 s, test above) */
  double bw[2] = {10, 10}, end[4] = {0}, half[] = {5};
  evs s;
  cr_assert_eq(evs_init(&s, 4, 2, bw), 0);
  evs_demand d0 = {l0, full, 1}, h0 = {l0, half, 1};
  evs_add_batch(&s, 0, 0, 1.0, &d0, 1, 0);
  evs_add_batch(&s, 0, 1, 1.0, &d0, 1, 0);
  drain(&s, end);
  cr_expect(end[0] == 1.0 && end[1] == 1.0, "batch ends %g, %g s", end[0], end[1]);
  /* with a transfer of no batch on the link too: 10 + 10 B/s at speed 1,
   * all three at half speed, ending at 2 s (bisected speeds: within the
   * solver's 1e-12 of a link, evshare.c) */
  evs_add_batch(&s, 0, 0, 1.0, &d0, 1, 0);
  evs_add_batch(&s, 0, 1, 1.0, &d0, 1, 0);
  evs_add(&s, 0, 2, 1.0, &d0, 1);
  drain(&s, end);
  for (int i = 0; i < 3; i++) cr_expect(fabs(end[i] - 2.0) < 1e-9, "%d ends %.17g s", i, end[i]);
  /* unequal terms: 10 and 5 B/s of one batch load the link by 10, a
   * third of 5 B/s of another batch makes 15: all at 10/15 of their
   * pace, 1.5 s */
  evs_add_batch(&s, 0, 0, 1.0, &d0, 1, 0);
  evs_add_batch(&s, 0, 1, 1.0, &h0, 1, 0);
  evs_add_batch(&s, 0, 3, 1.0, &h0, 1, 1);
  drain(&s, end);
  for (int i = 0; i < 4; i++)
    cr_expect(i == 2 || fabs(end[i] - 1.5) < 1e-9, "%d ends %.17g s", i, end[i]);
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
   * 10 B/s link alone for 1 s. Both collectives at speed x: the send
   * puts 10 x on the link, the pass 5 p with p = 1 / (0.5 + 0.5 / x) its
   * pace; full at 10 x + 10 x / (1 + x) = 10: x^2 + x - 1 = 0, x = 0.618.
   * The send ends at 1 / x = 1.618 s; by then the pass has done
   * 1.618 p = 1.236 alone-seconds and runs the last 0.764 s alone */
  double bw[1] = {10}, end[2] = {0}, half[] = {5};
  double x = (sqrt(5) - 1) / 2, p = 1 / (0.5 + 0.5 / x);
  evs s;
  cr_assert_eq(evs_init(&s, 2, 1, bw), 0);
  evs_demand pass = {l0, half, 1}, send = {l0, full, 1};
  evs_add_part(&s, 0, 0, 2.0, &pass, 1, 0.5);
  evs_add(&s, 0, 1, 1.0, &send, 1);
  drain(&s, end);
  cr_expect(fabs(end[1] - 1 / x) < 1e-9, "send %.15g s, want %.15g", end[1], 1 / x);
  cr_expect(fabs(end[0] - (1 / x + 2 - p / x)) < 1e-9, "pass %.15g s, want %.15g", end[0],
            1 / x + 2 - p / x);
  /* a tenth of it collectives (q 0.1), 1 B/s on average: 10 x + x / (0.9 x
   * + 0.1) = 10 -- the send gives up only what the pass's bursts take */
  end[0] = end[1] = 0;
  double tenth[] = {1};
  evs_demand small = {l0, tenth, 1};
  evs_add_part(&s, 0, 0, 2.0, &small, 1, 0.1);
  evs_add(&s, 0, 1, 1.0, &send, 1);
  double t;
  int k = evs_next(&s, &t);
  cr_assert_eq(s.a[k].id, 1, "the send ends first");
  double xs = 1 / s.a[k].f; /* the send's speed */
  cr_expect(fabs(10 * xs + xs / (0.9 * xs + 0.1) - 10) < 1e-9, "send at %g of its pace", xs);
  drain(&s, end);
  evs_free(&s);
}

Test(evshare, max_min_gives_what_one_leaves_to_the_others) {
  /* A crosses links 0 and 1 (10 B/s each of 10), B link 0 (10 B/s), C
   * link 1 (5 B/s). Link 0 is full at speed 1/2: A and B run at half
   * speed; link 1 then carries 5 of A and C's 5: C runs alone's pace */
  double bw[2] = {10, 10}, end[3] = {0}, five[] = {5}, both[] = {10, 10};
  int l01[] = {0, 1};
  evs s;
  cr_assert_eq(evs_init(&s, 4, 2, bw), 0);
  evs_demand a = {l01, both, 2}, b = {l0, full, 1}, c = {l1, five, 1};
  evs_add(&s, 0, 0, 1.0, &a, 1);
  evs_add(&s, 0, 1, 1.0, &b, 1);
  evs_add(&s, 0, 2, 1.0, &c, 1);
  drain(&s, end);
  cr_expect(fabs(end[0] - 2) < 1e-12 && fabs(end[1] - 2) < 1e-12, "A %g s, B %g s", end[0],
            end[1]);
  cr_expect(fabs(end[2] - 1) < 1e-12, "C %g s (alone 1 s)", end[2]);
  evs_free(&s);
}
