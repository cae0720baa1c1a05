/*
 * async.c -- a worker's mean step when asynchronous workers share
 * servers (the asynchronous parameter server, pair averaging); see dp.h.
 *
 * N workers step without a barrier. Each step a worker spends `own`
 * seconds on its own (its compute and the exchange the scheme leaves
 * exposed, its own requests served included) and puts D_j seconds of
 * work on each shared station j (a PS task's NIC or CPUs, a peer's NIC):
 * D_j = what station j does for one round of every worker / N. Those
 * stations serve the requests of all workers that are in progress at
 * once, sharing their rate (concurrent TCP flows through one NIC,
 * gRPC's threads on one PS task): processor sharing.
 *
 * That is a closed queueing network: N customers, one delay station of
 * Z = own - sum D_j (the time a worker does not need the shared
 * stations) and the processor-sharing stations D_j. The old rule,
 * max(own, N x max D_j), is its pair of asymptotic bounds (Lazowska,
 * Zahorjan, Graham, Sevcik, "Quantitative System Performance", 1984,
 * ch. 5: X <= min(N / (D + Z), 1 / D_max)). Processor-sharing stations
 * make the network product-form (BCMP, Baskett et al., JACM 1975, for any
 * service-time distribution), so exact mean value analysis (same book,
 * ch. 6) gives the mean cycle between the bounds: with Q_j(0) = 0,
 *   R_j(n) = D_j (1 + Q_j(n-1)),  X(n) = n / (Z + sum R_j(n)),
 *   Q_j(n) = X(n) R_j(n),
 * and the worker's mean step is Z + sum R_j(N): near `own` when the
 * stations are lightly loaded, near N x max D_j when one saturates, and
 * above both where they cross, by the time a request waits behind the
 * other workers' requests in progress. Nothing fitted.
 *
 * Units: seconds. No allocation: the caller lends q (one double per
 * station).
 */
#include <assert.h>
#include <math.h>

#include "dp/dp.h"

double dp_async_step(int workers, double own, const double *demand, double *q, int stations) {
  assert(stations >= 0 && (stations == 0 || (demand && q)));
  double d_sum = 0;
  for (int j = 0; j < stations; j++) d_sum += demand[j], q[j] = 0;
  if (workers < 1 || !(d_sum > 0)) return own;
  double z = fmax(0, own - d_sum), cycle = own;
  for (int n = 1; n <= workers; n++) {
    double r_sum = 0;
    for (int j = 0; j < stations; j++) r_sum += demand[j] * (1 + q[j]);
    cycle = z + r_sum;
    double x = n / cycle;
    for (int j = 0; j < stations; j++) q[j] = x * demand[j] * (1 + q[j]);
  }
  return cycle;
}
