/*
 * test_coll_fabric.c -- cluster.fabric (src/coll/fabrics.c): InfiniBand is
 * the model without a fabric, bit for bit; another fabric's latency enters
 * NCCL's formulas as an addition to every NET hwLat entry (its traversal
 * over InfiniBand's 2.7 us, once per network step) and its efficiency as
 * the share of the NIC line rate, with arithmetic checkable by hand; an
 * explicit nic_latency_us wins over the fabric's; names round-trip.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "coll/coll.h"
#include "coll/fabrics.h"
#include "load/scenario.h"
#include "stepcast.h"

/* n ranks of 8-GPU H100 nodes, 200 Gb/s per GPU, no latencies given. */
static coll_group h100(int n, int fabric) {
  coll_group g = {n, 8, 90, 450e9, 25e9, 0, 0, 8, 1, fabric, 0, 0};
  return g;
}

static double tuner(const coll_group *g, double bytes, coll_algo a, coll_proto p) {
  return coll_nccl_tuner_time(COLL_ALL_REDUCE, bytes, g, COLL_INTRA_AUTO, a, p);
}

Test(fabric, infiniband_is_the_model_without_a_fabric) {
  /* fabric 0 with no latency = NCCL's 2.7 us stated explicitly, exactly */
  for (int n = 16; n <= 64; n *= 2)
    for (double b = 8; b <= 8e9; b *= 16) {
      coll_group ib = h100(n, SC_FABRIC_INFINIBAND), given = ib;
      given.inter_lat = 2.7e-6;
      coll_cost x = coll_nccl_time(COLL_ALL_REDUCE, b, &ib);
      coll_cost y = coll_nccl_time(COLL_ALL_REDUCE, b, &given);
      cr_expect(x.time == y.time, "n %d bytes %.0f: %.17g vs %.17g", n, b, x.time, y.time);
      cr_expect_str_eq(x.algo, y.algo);
      cr_expect_str_eq(x.proto, y.proto);
    }
}

/* Ring LL across 4 nodes: 2(4-1) = 6 network steps of hwLat NET Ring LL
 * 2.7 us + (L - 2.7) = L each; the bandwidth part is the same (tcpxo
 * keeps InfiniBand's efficiency), so tcpxo - infiniband = 6 (43.5 - 2.7)
 * = 244.8 us at any size. */
Test(fabric, ring_ll_pays_the_fabric_latency_per_network_step) {
  coll_group ib = h100(32, SC_FABRIC_INFINIBAND), tx = h100(32, SC_FABRIC_TCPXO);
  for (double b = 8; b <= 1e6; b *= 8) {
    double d = tuner(&tx, b, COLL_ALGO_RING, COLL_PROTO_LL) -
               tuner(&ib, b, COLL_ALGO_RING, COLL_PROTO_LL);
    cr_expect(fabs(d - 244.8e-6) < 1e-12, "bytes %.0f: %.6f us", b, d * 1e6);
  }
}

/* Tree LL across 2 nodes: 2 log2(2) = 2 network hops of hwLat NET Tree LL
 * 5.0 us + (43.5 - 2.7): 2 x 40.8 = 81.6 us more. The protocol's own
 * 5.0 us is not scaled: a multiplicative rule would give 2 x 5.0 x
 * (43.5 / 2.7 - 1) = 151.1 us. */
Test(fabric, tree_ll_pays_the_fabric_latency_per_level) {
  coll_group ib = h100(16, SC_FABRIC_INFINIBAND), tx = h100(16, SC_FABRIC_TCPXO);
  double d = tuner(&tx, 64, COLL_ALGO_TREE, COLL_PROTO_LL) -
             tuner(&ib, 64, COLL_ALGO_TREE, COLL_PROTO_LL);
  cr_expect(fabs(d - 2 * (43.5 - 2.7) * 1e-6) < 1e-12, "%.6f us", d * 1e6);
  cr_expect(fabs(d - 81.6e-6) < 1e-9, "%.6f us", d * 1e6);
}

/* Ring Simple, 2 x 8 GPUs, 1 GiB, the same latency given to both (the
 * explicit one wins over efa's): only the efficiency differs, in the time
 * the kernels take (NCCL's tuner compares its own 8 x 24 GB/s on both).
 * busBw = 8 GPUs x 25 GB/s x eff (176 GB/s on InfiniBand, 186 on efa),
 * algbw = busBw x 16/30: the difference is 2^30 x 30/16 x (1/176e9 -
 * 1/186e9) = 615.1 us; the per-slice latencies are the same on both. */
Test(fabric, efficiency_scales_the_network_bus_bandwidth) {
  coll_group ib = h100(16, SC_FABRIC_INFINIBAND), efa = h100(16, SC_FABRIC_EFA);
  ib.inter_lat = efa.inter_lat = 2.7e-6;
  double b = 1073741824.0;
  cr_expect(tuner(&ib, b, COLL_ALGO_RING, COLL_PROTO_SIMPLE) ==
                tuner(&efa, b, COLL_ALGO_RING, COLL_PROTO_SIMPLE),
            "the tuner's own busBw does not see the efficiency");
  double d = coll_nccl_algo_time(COLL_ALL_REDUCE, b, &ib, COLL_INTRA_AUTO, COLL_ALGO_RING,
                                 COLL_PROTO_SIMPLE) -
             coll_nccl_algo_time(COLL_ALL_REDUCE, b, &efa, COLL_INTRA_AUTO, COLL_ALGO_RING,
                                 COLL_PROTO_SIMPLE);
  double want = b * 30 / 16 * (1 / 176e9 - 1 / 186e9);
  cr_expect(fabs(d - want) < 1e-12, "%.6f us, want %.6f us", d * 1e6, want * 1e6);
  cr_expect(fabs(want - 615.1e-6) < 0.1e-6, "%.6f us", want * 1e6);
  /* and all-to-all's network share: bytes (n - ppn) / n at 25 GB/s x eff */
  double a_ib = coll_nccl_algo_time(COLL_ALL_TO_ALL, b, &ib, COLL_INTRA_AUTO, COLL_ALGO_RING,
                                    COLL_PROTO_SIMPLE);
  double a_efa = coll_nccl_algo_time(COLL_ALL_TO_ALL, b, &efa, COLL_INTRA_AUTO, COLL_ALGO_RING,
                                     COLL_PROTO_SIMPLE);
  double w2 = b / 2 * (1 / (25e9 * 0.88) - 1 / (25e9 * 0.93));
  cr_expect(fabs(a_ib - a_efa - w2) < 1e-12, "%.6f us, want %.6f", (a_ib - a_efa) * 1e6, w2 * 1e6);
}

/* One node: nothing crosses the network, every fabric is the same. */
Test(fabric, one_node_does_not_see_the_fabric) {
  for (int f = 0; f < SC_FABRIC_COUNT; f++) {
    coll_group g = h100(8, f), ib = h100(8, 0);
    for (double b = 8; b <= 8e9; b *= 32)
      cr_expect(coll_nccl_time(COLL_ALL_REDUCE, b, &g).time ==
                    coll_nccl_time(COLL_ALL_REDUCE, b, &ib).time,
                "fabric %s bytes %.0f", sc_fabric_name(f), b);
  }
}

Test(fabric, names_round_trip) {
  for (int f = 0; f < SC_FABRIC_COUNT; f++)
    cr_expect_eq(sc_fabric_from_name(sc_fabric_name(f)), f);
  cr_expect_eq(sc_fabric_from_name("EFA"), SC_FABRIC_EFA);
  cr_expect_eq(sc_fabric_from_name("ib"), -1);
  cr_expect_eq(sc_fabric_from_name(NULL), -1);
  cr_expect_str_eq(sc_fabric_name(99), "infiniband");
  cr_expect(sc_fabric_latency(SC_FABRIC_INFINIBAND) == 2.7e-6);
  cr_expect(fabs(sc_fabric_latency(SC_FABRIC_TCPXO) - 43.5e-6) < 1e-15);
}

static sc_scenario load(const char *json) {
  sc_scenario s;
  sc_error err = {0};
  int rc = sc_scenario_load_string(&s, json, "t.json", NULL, 0, &err);
  cr_assert_eq(rc, SC_OK, "%s: %s", json, err.msg);
  return s;
}

Test(fabric, scenario_fabric_sets_latency_unless_given) {
  sc_scenario s =
      load("{\"cluster\": {\"nodes\": 16, \"preset\": \"dgx-h100\", \"fabric\": \"efa\"}}");
  cr_expect_eq(s.cluster.fabric, SC_FABRIC_EFA);
  cr_expect(fabs(s.cluster.nic_lat - 70.9e-6) < 1e-15, "%g", s.cluster.nic_lat);
  s = load("{\"cluster\": {\"nodes\": 16, \"preset\": \"dgx-h100\", \"fabric\": \"efa\", "
           "\"nic_latency_us\": 5}}");
  cr_expect_eq(s.cluster.fabric, SC_FABRIC_EFA);
  cr_expect(fabs(s.cluster.nic_lat - 5e-6) < 1e-15, "%g", s.cluster.nic_lat);
  s = load("{\"cluster\": {\"preset\": \"gcp-a3-mega\", \"nodes\": 16}}");
  cr_expect_eq(s.cluster.fabric, SC_FABRIC_TCPXO);
  cr_expect(fabs(s.cluster.nic_lat - 43.5e-6) < 1e-15, "%g", s.cluster.nic_lat);
  s = load("{\"cluster\": {\"nodes\": 16, \"preset\": \"aws-p5\", "
           "\"fabric\": \"infiniband\"}}");
  cr_expect_eq(s.cluster.fabric, SC_FABRIC_INFINIBAND);
  cr_expect(s.cluster.nic_lat == 2.7e-6, "%g", s.cluster.nic_lat);
  s = load("{\"cluster\": {\"preset\": \"dgx-h100\", \"nodes\": 16}}");
  cr_expect_eq(s.cluster.fabric, SC_FABRIC_INFINIBAND);
}

Test(fabric, scenario_bad_fabric_names_the_valid_ones) {
  sc_scenario s;
  sc_error err = {0};
  int rc = sc_scenario_load_string(&s, "{\"cluster\": {\"fabric\": \"ethernet\"}}", "t.json",
                                   NULL, 0, &err);
  cr_expect_eq(rc, SC_EINPUT);
  cr_expect(strstr(err.msg, "cluster.fabric") && strstr(err.msg, "infiniband, roce, efa, tcpxo"),
            "%s", err.msg);
}
