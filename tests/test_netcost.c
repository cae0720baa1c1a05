/*
 * test_netcost.c -- the link-load bound of a collective on a topology
 * (ncost_bound) never exceeds the flow engine's time (ncost_time), and is
 * close to it where the bandwidth dominates, so that a search's best-first
 * pass prunes on it without changing what it finds.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "coll/sched.h"
#include "engine/netcost.h"
#include "load/topo_json.h"
#include "net/flow.h"
#include "net/route.h"

/* ncost on topology `spec` (a generator or a file) of `gpus` GPUs, the
 * rest of the cluster zero; any error fails the test. ncost_close it. */
static ncost *open_on(const char *spec, int gpus) {
  sc_cluster c;
  memset(&c, 0, sizeof c);
  snprintf(c.topology, sizeof c.topology, "%s", spec);
  c.gpus = gpus;
  ncost *n;
  sc_error e = {0};
  cr_assert_eq(ncost_open(&c, &n, &e), SC_OK, "%s", e.msg);
  return n;
}

/* Over every op the search costs, power-of-two groups and strides and
 * sizes 1 KiB .. 64 GiB on topology `spec` of `gpus` GPUs (NVLink domains
 * of `domain`): bound <= time; returns the smallest bound/time at 1 GiB
 * and more. */
static double check_bound(const char *spec, int gpus, int domain) {
  ncost *n = open_on(spec, gpus);
  sc_error e = {0};
  static const coll_op ops[] = {COLL_ALL_GATHER, COLL_REDUCE_SCATTER, COLL_ALL_REDUCE,
                                COLL_SEND_RECV, COLL_ALL_TO_ALL};
  double tightest = INFINITY;
  for (size_t o = 0; o < sizeof ops / sizeof *ops; o++)
    for (int ranks = 2; ranks <= gpus && ranks <= (ops[o] == COLL_SEND_RECV ? 2 : 64); ranks *= 2)
      for (int stride = 1; stride * ranks <= gpus; stride *= 4) {
        int per = domain / stride < 1 ? 1 : domain / stride;
        if (per > ranks) per = ranks;
        for (int k = 10; k <= 36; k += 2) {
          double b = ldexp(1, k);
          double t = ncost_time(n, ops[o], b, ranks, stride, 0, per, 0);
          double lo = ncost_bound(n, ops[o], b, ranks, stride, 0, per, 0);
          cr_assert(lo > 0 && lo <= t, "%s: op %d over %d ranks stride %d, %g bytes: bound %g s > flow %g s",
                    spec, ops[o], ranks, stride, b, lo, t);
          if (k >= 30 && lo / t < tightest) tightest = lo / t;
          /* the bound of a larger size is never below a smaller one's */
          cr_assert(ncost_bound(n, ops[o], 2 * b, ranks, stride, 0, per, 0) >= lo);
        }
      }
  cr_assert_eq(ncost_error(n, &e), SC_OK, "%s", e.msg);
  ncost_close(n);
  return tightest;
}

Test(netcost, bound_below_flow_and_tight_on_an_oversubscribed_fat_tree) {
  double r = check_bound("fat_tree:hosts=256,radix=16,levels=3,oversub=2,bw=50", 256, 8);
  cr_assert(r > 0.9, "bound only %.3f of the flow time at large sizes", r);
}

Test(netcost, bound_below_flow_on_a_torus_and_a_rail_network) {
  check_bound("torus:x=4,y=4,z=4,bw=50", 64, 1);
  check_bound("rail:nodes=8,gpus=8", 64, 8);
}

Test(netcost, bound_is_the_nccl_time_when_larger) {
  ncost *n = open_on("fat_tree:hosts=32,radix=8,levels=2,oversub=2,bw=50", 32);
  cr_assert_eq(ncost_bound(n, COLL_ALL_REDUCE, 1e6, 16, 1, 0, 8, 1.0), 1.0);
  cr_assert_eq(ncost_bound(n, COLL_ALL_REDUCE, 1e6, 1, 1, 0, 1, 0.5), 0.5);
  ncost_close(n);
}

/* The flow-engine time of a send/recv of `bytes` from GPU 0 to GPU
 * `stride` of topology spec, run directly (no rounding of the size). */
static double direct_send(const char *spec, double bytes, int stride) {
  topo *t = NULL;
  sc_error e = {0};
  cr_assert_eq(topo_load_spec(spec, &t, &e), SC_OK, "%s", e.msg);
  route_table *rt = route_new(t, ROUTE_ECMP);
  cr_assert_not_null(rt);
  sched s;
  sched_init(&s);
  sched_params p = {0};
  p.n = 2;
  p.ppn = 1;
  p.chunks = 1;
  p.bytes = bytes;
  const coll_alg *a = coll_alg_find(COLL_SEND_RECV, "ring");
  cr_assert_not_null(a);
  cr_assert_eq(a->build(&s, &p), 0);
  int node[2] = {t->gpus[0], t->gpus[stride]};
  flow_stats st;
  cr_assert_eq(flow_run(t, rt, &s, node, &st, &e), SC_OK, "%s", e.msg);
  sched_free(&s);
  route_free(rt);
  topo_free(t);
  return st.time;
}

/* ncost_time runs the flow engine at the size rounded to 16 significant
 * bits and scales: within 0.002 % of a direct run at the exact size, for
 * sizes off the grid (a few KiB apart, as a search's stages are). */
Test(netcost, rounded_sizes_agree_with_direct_runs) {
  const char *spec = "fat_tree:hosts=64,radix=8,levels=3,oversub=2,bw=50";
  ncost *n = open_on(spec, 64);
  static const double sizes[] = {98304 + 4096, 4803608576.0, 4803612672.0, 123456789.0, 777.0};
  for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++)
    for (int stride = 1; stride <= 32; stride *= 4) {
      double t = ncost_time(n, COLL_SEND_RECV, sizes[i], 2, stride, 0, 1, 0);
      double d = direct_send(spec, sizes[i], stride);
      cr_assert(fabs(t - d) <= 2e-5 * d, "%g bytes over stride %d: %.9g s, direct %.9g s", sizes[i],
                stride, t, d);
    }
  ncost_close(n);
}

/* ncost on tests/data/two_switches.json: gpu0-3 on switch A, gpu4-7 on
 * switch B, one 5 GB/s cable between them, 100 GB/s host links. */
static ncost *two_switches(void) {
  return open_on(SC_SOURCE_DIR "/tests/data/two_switches.json", 8);
}

/* A send from gpu0 to gpu4 crosses the cable: 1 GB at 5 GB/s, 0.2 s
 * (and 3 us of latency). With the window of 8 ranks every group like it
 * ({0,4}, {1,5}, {2,6}, {3,7}: engine/place.h) sends at once, the four
 * share the cable at 1.25 GB/s each: 0.8 s; with a window of 4 the
 * groups of two members 2 apart ({0,2}, {1,3}) stay on switch A, where
 * each has its own host links: the time alone. */
Test(netcost, groups_sharing_one_cable_each_take_their_share) {
  ncost *n = two_switches();
  double alone = ncost_time(n, COLL_SEND_RECV, 1e9, 2, 4, 0, 1, 0);
  cr_assert(fabs(alone - 0.2) < 0.002, "alone %g s, want 0.2 s", alone);
  double all = ncost_time(n, COLL_SEND_RECV, 1e9, 2, 4, 8, 1, 0);
  cr_assert(fabs(all - 4 * alone) < 0.004 * all, "four at once %g s, alone %g s", all, alone);
  /* the bound stays below (the search prunes on it) */
  double lo = ncost_bound(n, COLL_SEND_RECV, 1e9, 2, 4, 8, 1, 0);
  cr_assert(lo > 0 && lo <= all, "bound %g s, four at once %g s", lo, all);
  double in_a = ncost_time(n, COLL_SEND_RECV, 1e9, 2, 2, 0, 1, 0);
  double in_a_all = ncost_time(n, COLL_SEND_RECV, 1e9, 2, 2, 4, 1, 0);
  cr_assert(in_a < alone / 10 && in_a_all == in_a, "inside switch A: alone %g s, both %g s", in_a,
            in_a_all);
  /* NCCL's time when larger, as alone */
  cr_assert_eq(ncost_time(n, COLL_SEND_RECV, 1e9, 2, 4, 8, 1, 5.0), 5.0);
  sc_error e = {0};
  cr_assert_eq(ncost_error(n, &e), SC_OK, "%s", e.msg);
  ncost_close(n);
}

/* Rings crossing the cable: two groups of 4 ranks 2 apart ({0,2,4,6},
 * {1,3,5,7}) each cross it twice per ring step, one way each; both at
 * once put twice the bytes on it: twice the time of one alone. */
Test(netcost, two_rings_on_one_cable_take_twice_as_long) {
  ncost *n = two_switches();
  double alone = ncost_time(n, COLL_ALL_GATHER, 1e9, 4, 2, 0, 1, 0);
  double both = ncost_time(n, COLL_ALL_GATHER, 1e9, 4, 2, 8, 1, 0);
  cr_assert(fabs(both - 2 * alone) < 0.004 * both, "both %g s, alone %g s", both, alone);
  ncost_close(n);
}

/* The bound with the other groups stays below the time on an
 * oversubscribed fat-tree, whatever the window. */
Test(netcost, bound_below_the_time_of_every_group_at_once) {
  ncost *n = open_on("fat_tree:hosts=64,radix=8,levels=3,oversub=4,bw=25", 64);
  sc_error e = {0};
  static const coll_op ops[] = {COLL_ALL_GATHER, COLL_ALL_REDUCE, COLL_ALL_TO_ALL};
  for (size_t o = 0; o < sizeof ops / sizeof *ops; o++)
    for (int ranks = 2; ranks <= 16; ranks *= 2)
      for (int stride = 1; stride * ranks <= 64; stride *= 2)
        for (int window = stride * ranks; window <= 64; window *= 4) {
          double t = ncost_time(n, ops[o], 1e9, ranks, stride, window, 1, 0);
          double one = ncost_time(n, ops[o], 1e9, ranks, stride, 0, 1, 0);
          double lo = ncost_bound(n, ops[o], 1e9, ranks, stride, window, 1, 0);
          cr_assert(lo <= t && one <= t * (1 + 1e-9),
                    "op %d, %d ranks stride %d window %d: bound %g, alone %g, all %g s", ops[o],
                    ranks, stride, window, lo, one, t);
        }
  cr_assert_eq(ncost_error(n, &e), SC_OK, "%s", e.msg);
  ncost_close(n);
}

/* Want mode (ncost_want, ncost_help): a collective the memo lacks is
 * posted, not computed, and costs the NCCL time given; a view that helps
 * computes it into the shared memo, after which want mode finds it
 * (nothing posted) and gives what a run without want mode gives, bit for
 * bit; a collective whose transfers pass the flow engine's limit fails
 * quietly in the helper and is reported by its poster's own run. */
Test(netcost, want_mode_posts_and_a_helper_computes) {
  const char *spec = "torus:x=4,y=4,z=4,bw=25"; /* no closed form: the flow engine runs */
  ncost *plain = open_on(spec, 64), *n = open_on(spec, 64), *helper = NULL;
  sc_error e = {0};
  cr_assert_eq(ncost_open_sharing(n, &helper, &e), SC_OK, "%s", e.msg);
  const double b = 3e8, nccl = 1e-9;
  double want = ncost_time(plain, COLL_ALL_REDUCE, b, 16, 4, 0, 1, nccl);
  double lo = ncost_bound(plain, COLL_ALL_REDUCE, b, 16, 4, 0, 1, nccl);
  cr_assert(want > nccl && lo > nccl && lo <= want, "time %g s, bound %g s", want, lo);

  ncost_want(n, 1);
  cr_assert_eq(ncost_time(n, COLL_ALL_REDUCE, b, 16, 4, 0, 1, nccl), nccl);
  cr_assert_eq(ncost_bound(n, COLL_ALL_REDUCE, b, 16, 4, 0, 1, nccl), nccl);
  cr_assert(ncost_failed(n), "want mode with a collective posted: not the prediction");
  cr_assert_eq(ncost_want(n, 0), 1, "posted");
  cr_assert(!ncost_failed(n) && ncost_error(n, &e) == SC_OK);
  int helped = 0;
  while (ncost_help(helper)) helped++;
  cr_assert(helped >= 1 && helped <= 2, "helped %d", helped);

  ncost_want(n, 1);
  double t = ncost_time(n, COLL_ALL_REDUCE, b, 16, 4, 0, 1, nccl);
  double l = ncost_bound(n, COLL_ALL_REDUCE, b, 16, 4, 0, 1, nccl);
  cr_assert_eq(ncost_want(n, 0), 0, "nothing posted once the helper computed it");
  cr_assert(t == want && l == lo, "time %.17g s (alone %.17g), bound %.17g s (alone %.17g)", t,
            want, l, lo);

  ncost_close(helper);
  ncost_close(n);
  ncost_close(plain);

  /* an all-to-all of 4,096 ranks: 16.8 M transfers, past the limit */
  spec = "torus:x=16,y=16,z=16,bw=25";
  plain = open_on(spec, 4096), n = open_on(spec, 4096);
  cr_assert_eq(ncost_open_sharing(n, &helper, &e), SC_OK, "%s", e.msg);
  ncost_want(n, 1);
  ncost_time(n, COLL_ALL_TO_ALL, b, 4096, 1, 0, 1, nccl);
  cr_assert_eq(ncost_want(n, 0), 1);
  while (ncost_help(helper)) {
  }
  cr_assert_eq(ncost_error(helper, &e), SC_OK, "a helper reports nothing");
  double a2a = ncost_time(n, COLL_ALL_TO_ALL, b, 4096, 1, 0, 1, nccl);
  double a2a_plain = ncost_time(plain, COLL_ALL_TO_ALL, b, 4096, 1, 0, 1, nccl);
  int rc = ncost_error(n, &e), rc_plain = ncost_error(plain, &e);
  cr_assert_neq(rc_plain, SC_OK, "the limit");
  cr_assert(a2a == a2a_plain && rc == rc_plain, "all-to-all %g s (rc %d), alone %g s (rc %d)",
            a2a, rc, a2a_plain, rc_plain);
  ncost_close(helper);
  ncost_close(n);
  ncost_close(plain);
}
