/*
 * test_dp_async.c -- the mean step of asynchronous workers sharing
 * servers (src/dp/async.c, exact mean value analysis) against hand
 * arithmetic, its asymptotic bounds, and its effect on the asynchronous
 * parameter server's ranking.
 */
#include <criterion/criterion.h>
#include <math.h>

#include "dp/dp.h"

Test(dp_async, one_worker_never_waits) {
  double d = 0.4, q;
  cr_assert_float_eq(dp_async_step(1, 1.0, &d, &q, 1), 1.0, 1e-12);
}

Test(dp_async, three_workers_by_hand) {
  /* own 1 s of which 0.5 s at the one server: Z = 0.5.
   * n = 1: R = 0.5, cycle 1, X = 1, Q = 0.5
   * n = 2: R = 0.5 x 1.5 = 0.75, cycle 1.25, X = 1.6, Q = 1.2
   * n = 3: R = 0.5 x 2.2 = 1.1, cycle 1.6 */
  double d = 0.5, q;
  cr_assert_float_eq(dp_async_step(2, 1.0, &d, &q, 1), 1.25, 1e-12);
  cr_assert_float_eq(dp_async_step(3, 1.0, &d, &q, 1), 1.6, 1e-12);
}

Test(dp_async, two_stations_by_hand) {
  /* own 1 s, 0.25 s at each of two servers: Z = 0.5.
   * n = 1: R = 0.25 each, cycle 1, X = 1, Q = 0.25 each
   * n = 2: R = 0.3125 each, cycle 1.125 */
  double d[2] = {0.25, 0.25}, q[2];
  cr_assert_float_eq(dp_async_step(2, 1.0, d, q, 2), 1.125, 1e-12);
}

Test(dp_async, the_step_lies_between_its_bounds_and_tends_to_them) {
  /* Lazowska et al. ch. 5: cycle >= max(own, N x D_max), and a request
   * waits at most behind the other N - 1: cycle <= own + (N - 1) x sum D */
  double d[2] = {0.03, 0.01}, q[2];
  for (int n = 1; n <= 64; n *= 2)
    for (double own = 0.05; own < 2; own *= 3) {
      double c = dp_async_step(n, own, d, q, 2);
      cr_assert_geq(c, fmax(own, n * d[0]) - 1e-12, "n %d own %g: %g", n, own, c);
      cr_assert_leq(c, own + (n - 1) * (d[0] + d[1]) + 1e-12, "n %d own %g: %g", n, own, c);
    }
  /* lightly loaded: the worker's own step; saturated: the busiest server */
  cr_assert_float_eq(dp_async_step(16, 100.0, d, q, 2), 100.0, 1e-2);
  cr_assert_float_eq(dp_async_step(1000, 0.05, d, q, 2), 1000 * 0.03, 0.05);
}

Test(dp_async, no_shared_work_no_wait) {
  double d = 0, q;
  cr_assert_float_eq(dp_async_step(16, 0.7, &d, &q, 1), 0.7, 1e-12);
  cr_assert_float_eq(dp_async_step(16, 0.7, NULL, NULL, 0), 0.7, 1e-12);
}
