/*
 * test_dp_kungfu.c -- KungFu's all-reduce (src/dp/kungfu.c) against hand
 * arithmetic: the BINARY_TREE_STAR graph's hops and per-host traffic for
 * a few host counts, one message's time with round numbers, and the host
 * memory figure the fabric reads (src/dp/fabric.c).
 */
#include <criterion/criterion.h>
#include <math.h>

#include "dp/dp.h"

/* ------------------------------------------------------------- graph */

Test(dp_kungfu, two_dgx1_hosts_cross_two_loopback_and_two_network_hops) {
  dp_kf_plan p;
  dp_kf_plan_for(2, 8, &p);
  /* local -> master1 -> master0 (reduce), master0 -> master1 -> local */
  cr_assert_eq(p.hops_local, 2);
  cr_assert_eq(p.hops_net, 2);
  /* host 0 (root, one child): 7 loopback transfers up and 7 down at 4
   * bytes each (56), 7 + 1 sums at 3 bytes (24), 1 network transfer in
   * and 1 out at 3 bytes (6) = 86; host 1 (one parent): 56 + 21 + 6 = 83 */
  cr_assert_float_eq(p.mem_per_byte, 86.0, 1e-12);
  cr_assert_eq(p.net_edges, 1);
}

Test(dp_kungfu, one_host_is_a_star_with_no_network) {
  dp_kf_plan p;
  dp_kf_plan_for(1, 8, &p);
  cr_assert_eq(p.hops_local, 2);
  cr_assert_eq(p.hops_net, 0);
  cr_assert_float_eq(p.mem_per_byte, 8.0 * 7 + 3.0 * 7, 1e-12);
  cr_assert_eq(p.net_edges, 0);
}

Test(dp_kungfu, the_binary_tree_of_masters_sets_depth_and_the_busiest_host) {
  dp_kf_plan p;
  /* 4 hosts of one GPU: master 0 has children 1 and 2, master 1 has 3:
   * depth 2, so 4 network hops; no loopback; hosts 0 and 1 each have two
   * tree edges; host 0 sums its 2 children (6 bytes) and makes 4
   * transfers (12): 18; host 1 sums 1 (3) + 12 = 15 */
  dp_kf_plan_for(4, 1, &p);
  cr_assert_eq(p.hops_local, 0);
  cr_assert_eq(p.hops_net, 4);
  cr_assert_float_eq(p.mem_per_byte, 18.0, 1e-12);
  cr_assert_eq(p.net_edges, 2);
  /* 7 hosts: master 1 has a parent and children 3 and 4 (three edges,
   * 6 transfers: 18 bytes, plus its 2 sums: 24); depth 2 */
  dp_kf_plan_for(7, 1, &p);
  cr_assert_eq(p.hops_net, 4);
  cr_assert_eq(p.net_edges, 3);
  cr_assert_float_eq(p.mem_per_byte, 24.0, 1e-12);
  /* 8 hosts: master 7 is a child of 3, a grandchild of 1: depth 3 */
  dp_kf_plan_for(8, 1, &p);
  cr_assert_eq(p.hops_net, 6);
}

/* ----------------------------------------------------------- message */

/* Two hosts of two GPUs, round numbers: L = 1, host 0's master sums 2
 * and sends/receives 1 across: 8 + 6 + 6 = 20 bytes of memory per byte. */
static dp_fabric kf_fabric(double mem_bw) {
  return (dp_fabric){.gpus = 4, .gpn = 2, .nodes = 2, .host_bw = 1e9, .host_share = 1,
                     .host_mem_bw = mem_bw, .loop_bw = 2e9, .net_bw = 1e9,
                     .net_stream_bw = 1e9, .tcp = 1};
}

Test(dp_kungfu, a_message_is_copies_first_chunk_and_the_rest_at_the_slowest_rate) {
  const double C = 1024.0 * 1024.0, loop_msg = 50e-6; /* DP_TCP_MSG_S */
  double b = C + 1e9;
  dp_fabric f = kf_fabric(10e9);
  /* copies 2 x b / 1e9; first chunk: 2 loopback hops (50 us + C / 2e9)
   * and 2 network hops (C / 1e9); the other 1e9 bytes at the memory's
   * 20 / 10e9 = 2 ns per byte (the streams' 0.5 and 1 ns are faster) */
  double first = 2 * (loop_msg + C / 2e9) + 2 * (C / 1e9);
  cr_assert_float_eq(dp_kf_allreduce_time(&f, b), 2 * b / 1e9 + first + 2.0, 1e-9);
  /* memory at 100e9 (0.2 ns per byte): the network stream bounds, 1 ns */
  f = kf_fabric(100e9);
  cr_assert_float_eq(dp_kf_allreduce_time(&f, b), 2 * b / 1e9 + first + 1.0, 1e-9);
  /* a tensor under one chunk crosses the hops once, nothing drains */
  double s = 1000;
  cr_assert_float_eq(dp_kf_allreduce_time(&f, s),
                     2 * s / 1e9 + 2 * (loop_msg + s / 2e9) + 2 * (s / 1e9), 1e-12);
  f.gpus = f.gpn = f.nodes = 1;
  cr_assert_float_eq(dp_kf_allreduce_time(&f, b), 0.0, 1e-12);
}

Test(dp_kungfu, more_memory_bandwidth_never_slows_it) {
  double prev = INFINITY;
  for (double mem = 20e9; mem <= 400e9; mem *= 2) {
    dp_fabric f = kf_fabric(mem);
    double t = dp_kf_allreduce_time(&f, 64e6);
    cr_assert_leq(t, prev, "mem %g: %g > %g", mem, t, prev);
    prev = t;
  }
}

/* -------------------------------------------------------- host memory */

Test(dp_kungfu, the_fabric_reads_the_clusters_host_memory_else_the_dgx1s) {
  sc_scenario s;
  sc_scenario_default(&s);
  s.cluster.host.mem_bw = 300e9;
  dp_fabric f;
  sc_error err = {0};
  cr_assert_eq(dp_fabric_resolve(&s, &f, &err), SC_OK, "%s", err.msg);
  cr_assert_float_eq(f.host_mem_bw, 300e9, 1);
  cr_assert_float_eq(f.cpu_reduce_bw, 100e9, 1);
  s.cluster.host.mem_bw = 0;
  cr_assert_eq(dp_fabric_resolve(&s, &f, &err), SC_OK, "%s", err.msg);
  const sc_cluster *dgx1 = sc_cluster_preset("dgx1-v100");
  cr_assert(dgx1);
  /* 2 sockets x 4 channels x 2133 MT/s x 8 bytes */
  cr_assert_float_eq(dgx1->host.mem_bw, 2 * 4 * 2133e6 * 8, 0.1e9);
  cr_assert_float_eq(f.host_mem_bw, dgx1->host.mem_bw, 1);
}
