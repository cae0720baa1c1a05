/*
 * test_ncoll.c -- collectives as NCCL runs them on a topology (net/ncoll):
 * alone on the reference fabric they take the closed form's time; a
 * slower NIC, an oversubscribed fat-tree and a second collective on the
 * same links slow them by what the flow engine sees.
 */
#include <criterion/criterion.h>
#include <math.h>

#include "coll/sched.h"
#include "net/flow.h"
#include "net/ncoll.h"
#include "net/route.h"
#include "net/topo_gen.h"

/* 2 x 8 H100: NVLink 4 (450 GB/s per GPU per direction), 400 Gb/s NICs. */
static const coll_group h100x16 = {16, 8, 90, 450e9, 50e9, 0, 0, 0, 1, 0, 0, 0};

static double on_topo(const char *spec, coll_op op, double bytes, const coll_group *g) {
  topo *t;
  sc_error e = {0};
  cr_assert_eq(topo_gen(spec, &t, &e), SC_OK, "%s: %s", spec, e.msg);
  route_table *rt = route_new(t, ROUTE_ECMP);
  double s = -1;
  cr_assert_eq(ncoll_time(t, rt, op, bytes, g, t->gpus, NULL, NULL, &s, NULL, &e), SC_OK,
               "%s", e.msg);
  route_free(rt);
  topo_free(t);
  return s;
}

Test(ncoll, alone_on_the_reference_fabric_is_the_closed_form) {
  coll_op ops[] = {COLL_ALL_REDUCE, COLL_ALL_GATHER, COLL_REDUCE_SCATTER, COLL_ALL_TO_ALL,
                   COLL_BROADCAST,  COLL_SEND_RECV};
  double sizes[] = {1024, 1 << 20, 1 << 28, 1 << 30};
  for (int i = 0; i < 6; i++)
    for (int k = 0; k < 4; k++) {
      double want = coll_nccl_time(ops[i], sizes[k], &h100x16).time;
      double got = on_topo("rail:nodes=2,gpus=8,nvlink=450,nic=400", ops[i], sizes[k],
                           &h100x16);
      cr_expect(fabs(got - want) <= 0.05 * want, "%s %g B: topology %g s, closed form %g s",
                coll_op_name(ops[i]), sizes[k], got, want);
    }
}

Test(ncoll, all_reduce_bus_bandwidth_on_2x8_h100_rails) {
  /* the case: a flat ring gave 49.8 GB/s; NCCL's rails ~350 */
  double b = 1 << 30;
  double s = on_topo("rail:nodes=2,gpus=8,nvlink=450,nic=400", COLL_ALL_REDUCE, b, &h100x16);
  double busbw = b / s * coll_busbw_factor(COLL_ALL_REDUCE, 16) / 1e9;
  cr_expect(busbw > 300 && busbw < 400, "busbw %g GB/s", busbw);
}

Test(ncoll, half_the_nic_bandwidth_doubles_the_bandwidth_part) {
  double b = 1 << 30;
  double fast = on_topo("rail:nodes=2,gpus=8,nvlink=450,nic=400", COLL_ALL_REDUCE, b, &h100x16);
  double slow = on_topo("rail:nodes=2,gpus=8,nvlink=450,nic=200", COLL_ALL_REDUCE, b, &h100x16);
  cr_expect(slow > 1.9 * fast && slow < 2.05 * fast, "nic 400: %g s, nic 200: %g s", fast,
            slow);
}

Test(ncoll, oversubscribed_fat_tree_slows_the_reduction) {
  /* 64 GPUs one per host, all-reduce across all of them: every ring hop
   * between leaves crosses the leaf uplinks, which oversub=4 quarters */
  coll_group g = {64, 1, 80, 0, 25e9, 0, 0, 0, 1, 0, 0, 0};
  double b = 1 << 28;
  double full = on_topo("fat_tree:hosts=64,radix=8,levels=3,bw=25", COLL_ALL_REDUCE, b, &g);
  double over =
      on_topo("fat_tree:hosts=64,radix=8,levels=3,bw=25,oversub=4", COLL_ALL_REDUCE, b, &g);
  cr_expect(over > 1.5 * full, "non-blocking %g s, oversubscribed 4:1 %g s", full, over);
}

/* The network scales what the links hold, not what the GPU's memory
 * holds (coll_nccl_time_split): 2 A100 all-reduce 1 GiB, held by their
 * memory at 197.5 GB/s of bus bandwidth below NVLink's 240 GB/s in NCCL's
 * closed form. NVLink twice as fast as the closed form's leaves the time
 * as it is (scaling it all gave twice the bus bandwidth, 375 GB/s, past
 * what the memory moves); half as fast halves the links' part alone (the
 * links' 227 GB/s, not the memory's 189, halved). */
Test(ncoll, memory_bound_is_not_scaled_by_the_network) {
  coll_group g = {2, 2, 80, 300e9, 25e9, 0, 0, 0, 1, 0, 0, 0};
  double b = 1 << 30, links, mem;
  double closed = coll_nccl_time_split(COLL_ALL_REDUCE, b, &g, &links, &mem).time;
  cr_assert(mem == closed && links < 0.9 * closed, "closed form %g s, links %g, memory %g",
            closed, links, mem);
  double same = on_topo("rail:nodes=1,gpus=2,nvlink=300", COLL_ALL_REDUCE, b, &g);
  double fast = on_topo("rail:nodes=1,gpus=2,nvlink=600", COLL_ALL_REDUCE, b, &g);
  double slow = on_topo("rail:nodes=1,gpus=2,nvlink=150", COLL_ALL_REDUCE, b, &g);
  double fixed = ncoll_fixed(COLL_ALL_REDUCE, b, &g);
  cr_expect(fabs(same - closed) <= 1e-9 * closed, "reference %g s, closed form %g", same,
            closed);
  cr_expect(fabs(fast - closed) <= 1e-9 * closed, "NVLink x2: %g s, memory-bound %g", fast,
            closed);
  double want = fixed + 2 * (links - fixed);
  cr_expect(fabs(slow - want) <= 0.01 * want, "NVLink / 2: %g s, links' part doubled %g", slow,
            want);
}

/* A dumbbell: GPUs a0, b0 on switch s0, a1, b1 on switch s1, the two
 * switches joined by one 10 GB/s cable, 100 GB/s host links. */
static topo *dumbbell(void) {
  topo *t = topo_new("dumbbell");
  int a0 = topo_add_node(t, "a0", TOPO_GPU), b0 = topo_add_node(t, "b0", TOPO_GPU);
  int a1 = topo_add_node(t, "a1", TOPO_GPU), b1 = topo_add_node(t, "b1", TOPO_GPU);
  int s0 = topo_add_node(t, "s0", TOPO_SWITCH), s1 = topo_add_node(t, "s1", TOPO_SWITCH);
  topo_add_duplex(t, a0, s0, 100e9, 1e-6), topo_add_duplex(t, b0, s0, 100e9, 1e-6);
  topo_add_duplex(t, a1, s1, 100e9, 1e-6), topo_add_duplex(t, b1, s1, 100e9, 1e-6);
  topo_add_duplex(t, s0, s1, 10e9, 1e-6);
  sc_error e = {0};
  cr_assert_eq(topo_finalize(t, &e), SC_OK, "%s", e.msg);
  return t;
}

Test(ncoll, two_collectives_sharing_a_link_each_get_half) {
  /* all-reduce of group A (a0, a1) alone, then beside the same
   * all-reduce of group B (b0, b1): both cross the s0-s1 cable, so while
   * they overlap each runs at half its alone bandwidth */
  topo *t = dumbbell();
  route_table *rt = route_new(t, ROUTE_ECMP);
  sc_error e = {0};
  double b = 1e9;
  sched a, both;
  sched_init(&a), sched_init(&both);
  cr_assert_eq(ncoll_schedule(&a, COLL_ALL_REDUCE, b, 2, 1), 0);
  cr_assert_eq(sched_begin(&both, 2), 0); /* 2(n-1) ring steps, n = 2 */
  for (int i = 0; i < 2; i++) {
    cr_assert_eq(sched_add(&both, i, 1 - i, b / 2), 0);         /* group A */
    cr_assert_eq(sched_add(&both, 2 + i, 2 + (1 - i), b / 2), 0); /* group B */
  }
  int alone_node[2] = {0, 2}, node[4] = {0, 2, 1, 3}; /* a0 a1 | b0 b1 */
  flow_stats s1, s2;
  cr_assert_eq(flow_run(t, rt, &a, alone_node, &s1, &e), SC_OK, "%s", e.msg);
  cr_assert_eq(flow_run(t, rt, &both, node, &s2, &e), SC_OK, "%s", e.msg);
  /* alone: 2 steps of b/2 at 10 GB/s (plus 3 us of path latency each) */
  cr_expect(fabs(s1.time - 2 * (b / 2 / 10e9 + 3e-6)) < 1e-6, "alone %g s", s1.time);
  cr_expect(fabs(s2.time - 2 * (b / 2 / 5e9 + 3e-6)) < 1e-6, "sharing %g s", s2.time);
  sched_free(&a), sched_free(&both);
  route_free(rt);
  topo_free(t);
}

/* The same 8 servers of 8 H100 (NVSwitch, a 400 Gb/s NIC per GPU) on a
 * rail-optimized Clos and on a 2-level fat-tree of radix-16 leaves
 * (fat_tree gpus=8: a server's NICs on one leaf): NCCL's rings pair GPU g
 * of each server, which the rails join on their own switch and the
 * fat-tree routes over its spines (no faster than the rails; how much
 * slower is the routing's hash, docs/network.md); 2:1 and 4:1
 * oversubscription halve and quarter what the spines carry, each
 * slower than the last. */
Test(ncoll, fat_tree_of_the_same_servers_no_faster_than_rails_and_oversubscription_costs) {
  coll_group g = h100x16;
  g.ranks = 64;
  double b = 1 << 28, want = coll_nccl_time(COLL_ALL_REDUCE, b, &g).time;
  double rail = on_topo("rail:nodes=8,gpus=8,nvlink=450,nic=400", COLL_ALL_REDUCE, b, &g);
  cr_expect(fabs(rail - want) <= 0.05 * want, "rails %g s, closed form %g s", rail, want);
  double prev = 0;
  for (int o = 1; o <= 4; o *= 2) {
    char spec[128];
    snprintf(spec, sizeof spec,
             "fat_tree:hosts=64,radix=16,levels=2,oversub=%d,bw=50,gpus=8,nvlink=450", o);
    double t = on_topo(spec, COLL_ALL_REDUCE, b, &g);
    cr_expect(t >= 0.999 * rail, "%s: %g s, rails %g s", spec, t, rail);
    cr_expect(t > 1.3 * prev, "%s: %g s, half the oversubscription %g s", spec, t, prev);
    prev = t;
  }
}

/* rail oversub=N divides the rail-to-spine links: NCCL's rings stay on
 * their rails (all-reduce as fast at 4:1), an all-to-all's cross-rail
 * traffic climbs to the spines and slows. */
Test(ncoll, rail_oversubscription_slows_all_to_all_not_rings) {
  coll_group g = h100x16;
  g.ranks = 64;
  double b = 1 << 28;
  const char *full = "rail:nodes=8,gpus=8,nvlink=450,nic=400";
  const char *over = "rail:nodes=8,gpus=8,nvlink=450,nic=400,oversub=4";
  double ar1 = on_topo(full, COLL_ALL_REDUCE, b, &g), ar4 = on_topo(over, COLL_ALL_REDUCE, b, &g);
  double a2a1 = on_topo(full, COLL_ALL_TO_ALL, b, &g), a2a4 = on_topo(over, COLL_ALL_TO_ALL, b, &g);
  cr_expect(fabs(ar4 - ar1) <= 1e-3 * ar1, "all-reduce 1:1 %g s, 4:1 %g s", ar1, ar4);
  cr_expect(a2a4 > 1.3 * a2a1, "all-to-all 1:1 %g s, 4:1 %g s", a2a1, a2a4);
}
