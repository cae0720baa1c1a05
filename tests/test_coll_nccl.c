/*
 * test_coll_nccl.c -- NCCL's choice and execution model (src/coll/coll_nccl.c):
 * the pair coll_nccl_time runs is the tuner's argmin, LL/LL128 keep the
 * tuner's form with the bandwidth of the channels that run (one node),
 * ring Simple reduces to it for one chunk of one slice and, pulling
 * (A100), pays the per-step latency once per slice and loop
 * iteration beyond (pushing: tests/test_nccl_pipe.c).
 */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "coll/coll.h"
#include "stepcast.h"

static coll_group a100(int n) {
  coll_group g = {n, n, 80, 300e9, 25e9, 0.6e-6, 2.7e-6, 8, 1, 0, 0, 0};
  return g;
}

Test(coll_nccl, choice_is_tuner_argmin) {
  coll_group g = a100(8);
  for (double b = 1024; b <= 8.0 * (1 << 30); b *= 4) {
    double best = -1;
    int ba = -1, bp = -1;
    for (int a = 0; a < COLL_ALGO_COUNT; a++)
      for (int p = 0; p < COLL_PROTO_COUNT; p++) {
        double t = coll_nccl_tuner_time(COLL_ALL_REDUCE, b, &g, COLL_INTRA_AUTO, a, p);
        if (t >= 0 && (best < 0 || t < best)) best = t, ba = a, bp = p;
      }
    coll_cost c = coll_nccl_time(COLL_ALL_REDUCE, b, &g);
    cr_expect_str_eq(c.algo, coll_algo_name(ba), "bytes %.0f", b);
    cr_expect_str_eq(c.proto, coll_proto_name(bp), "bytes %.0f", b);
    double run = coll_nccl_algo_time(COLL_ALL_REDUCE, b, &g, COLL_INTRA_AUTO, ba, bp);
    cr_expect_float_eq(c.time, run, 1e-12, "bytes %.0f: %g vs %g", b, c.time, run);
  }
}

/* Once every kernel channel runs (LL on 8 ranks: 24 x 512 threads x 8 B x
 * 8 ranks = 768 KiB; LL128: 24 x 640 x 8 = 120 KiB), LL and LL128 are the
 * tuner's latency + size / bandwidth. */
Test(coll_nccl, ll_protocols_keep_tuner_form) {
  coll_group g = a100(8);
  for (int p = COLL_PROTO_LL; p <= COLL_PROTO_LL128; p++)
    for (double b = 1 << 20; b <= 1e9; b *= 8) {
      double t = coll_nccl_algo_time(COLL_ALL_REDUCE, b, &g, COLL_INTRA_AUTO, COLL_ALGO_RING, p);
      double e = coll_nccl_tuner_time(COLL_ALL_REDUCE, b, &g, COLL_INTRA_AUTO, COLL_ALGO_RING, p);
      cr_expect_float_eq(t, e, 1e-12, "proto %d bytes %.0f: %g vs %g", p, b, t, e);
    }
}

/* Fewer channels at small sizes (enqueue.cc topoGetAlgoInfo: while
 * (nBytes < nc * nt * threadThreshold) nc--), by hand. 8 x A100: 12 search
 * rings of 20 GB/s, 24 kernel channels, so one channel's ring LL rate is
 * 240 x 0.5 / 24 = 5 GB/s of busBw. 256 KiB: the LL threshold per channel
 * is 512 threads x 8 B x 8 ranks = 32 KiB, so 8 channels run: busBw
 * min(87.7, 8 x 5) = 40 GB/s, algbw 40 x 8/14; latency 6.6 + 14 x 0.6 =
 * 15.0 us; plus the 20 us launch. */
Test(coll_nccl, ll_small_size_runs_on_fewer_channels) {
  coll_group g = a100(8);
  double b = 256.0 * 1024;
  double t = coll_nccl_algo_time(COLL_ALL_REDUCE, b, &g, COLL_INTRA_AUTO, COLL_ALGO_RING,
                                 COLL_PROTO_LL);
  double e = 20e-6 + 15.0e-6 + b / (40e9 * 8.0 / 14.0);
  cr_expect(fabs(t - e) < 1e-9, "LL 256 KiB: %g us, by hand %g us", t * 1e6, e * 1e6);
  /* the tuner compares all 24 channels: min(87.7, 120) GB/s */
  double tu = coll_nccl_tuner_time(COLL_ALL_REDUCE, b, &g, COLL_INTRA_AUTO, COLL_ALGO_RING,
                                   COLL_PROTO_LL);
  double eu = 20e-6 + 15.0e-6 + b / (87.7e9 * 8.0 / 14.0);
  cr_expect(fabs(tu - eu) < 1e-9, "tuner %g us, by hand %g us", tu * 1e6, eu * 1e6);
  /* LL128, 64 KiB: 640 x 8 B = 5 KiB per channel, 12 channels of 240 x
   * 0.92 / 24 = 9.2 GB/s = 110.4 GB/s (under 12 x 20 = 240); latency 14 +
   * 14 x 1.9 = 40.6 us. */
  b = 64.0 * 1024;
  t = coll_nccl_algo_time(COLL_ALL_REDUCE, b, &g, COLL_INTRA_AUTO, COLL_ALGO_RING,
                          COLL_PROTO_LL128);
  e = 20e-6 + 40.6e-6 + b / (110.4e9 * 8.0 / 14.0);
  cr_expect(fabs(t - e) < 1e-9, "LL128 64 KiB: %g us, by hand %g us", t * 1e6, e * 1e6);
}

/* In the channel-reduced range the time hardly grows with the size: each
 * active channel carries about one threshold's worth (8 x A100, LL: 32 KiB
 * per channel), so 128 KiB on 4 channels and 512 KiB on 16 take the same. */
Test(coll_nccl, ll_channel_reduced_range_is_flat) {
  coll_group g = a100(8);
  double t1 = coll_nccl_algo_time(COLL_ALL_REDUCE, 128.0 * 1024, &g, COLL_INTRA_AUTO,
                                  COLL_ALGO_RING, COLL_PROTO_LL);
  double t2 = coll_nccl_algo_time(COLL_ALL_REDUCE, 512.0 * 1024, &g, COLL_INTRA_AUTO,
                                  COLL_ALGO_RING, COLL_PROTO_LL);
  cr_expect(fabs(t1 - t2) < 1e-9, "128 KiB %g us, 512 KiB %g us", t1 * 1e6, t2 * 1e6);
}

/* Across nodes the channels share the NICs: no per-channel reduction of
 * the bandwidth (2 x 1 A100, 8 KiB of LL on one of its channels). */
Test(coll_nccl, ll_across_nodes_keeps_tuner_form) {
  coll_group g = a100(2);
  g.ranks_per_node = 1;
  double b = 8192;
  double t = coll_nccl_algo_time(COLL_ALL_REDUCE, b, &g, COLL_INTRA_AUTO, COLL_ALGO_RING,
                                 COLL_PROTO_LL);
  double e = coll_nccl_tuner_time(COLL_ALL_REDUCE, b, &g, COLL_INTRA_AUTO, COLL_ALGO_RING,
                                  COLL_PROTO_LL);
  cr_expect(fabs(t - e) < 1e-12, "%g vs %g", t, e);
}

/* On PCIe the channels share the one link: no per-channel reduction of
 * the bandwidth either (8 GPUs without NVLink, 8 KiB on one of 4 channels). */
Test(coll_nccl, ll_on_pcie_keeps_tuner_form) {
  coll_group g = a100(8);
  g.intra_bw = 0;
  double b = 8192;
  double t = coll_nccl_algo_time(COLL_ALL_REDUCE, b, &g, COLL_INTRA_PCIE, COLL_ALGO_RING,
                                 COLL_PROTO_LL);
  double e = coll_nccl_tuner_time(COLL_ALL_REDUCE, b, &g, COLL_INTRA_PCIE, COLL_ALGO_RING,
                                  COLL_PROTO_LL);
  cr_expect(t > 0 && fabs(t - e) < 1e-12, "%g vs %g", t, e);
}

/* 8 ranks, 24 channels, 2 MiB: 10.9 KiB per rank and channel, one chunk,
 * one slice: 2n-1 = 15 primitives against the tuner's 2(n-1) = 14 steps,
 * so exactly one NVLink Simple step latency (3.4 us) more. */
Test(coll_nccl, simple_one_slice_is_tuner_plus_one_step) {
  coll_group g = a100(8);
  double b = 2.0 * (1 << 20);
  double t = coll_nccl_algo_time(COLL_ALL_REDUCE, b, &g, COLL_INTRA_AUTO, COLL_ALGO_RING,
                                 COLL_PROTO_SIMPLE);
  double e = coll_nccl_tuner_time(COLL_ALL_REDUCE, b, &g, COLL_INTRA_AUTO, COLL_ALGO_RING,
                                  COLL_PROTO_SIMPLE);
  cr_expect(fabs(t - e - 3.4e-6) < 1e-9, "exec %g us, tuner %g us", t * 1e6, e * 1e6);
}

/* Large messages: the per-slice latency costs a few per cent of the
 * bandwidth (1 MiB slices at 10 GB/s per channel: 105 us vs 3.4 us),
 * never more than 10 %, and time grows with size. */
Test(coll_nccl, simple_bandwidth_ramp) {
  coll_group g = a100(8);
  double prev = 0;
  for (double b = 1 << 20; b <= 16.0 * (1 << 30); b *= 2) {
    double t = coll_nccl_algo_time(COLL_ALL_REDUCE, b, &g, COLL_INTRA_AUTO, COLL_ALGO_RING,
                                   COLL_PROTO_SIMPLE);
    double e = coll_nccl_tuner_time(COLL_ALL_REDUCE, b, &g, COLL_INTRA_AUTO, COLL_ALGO_RING,
                                    COLL_PROTO_SIMPLE);
    cr_expect(t > prev, "not increasing at %.0f bytes", b);
    cr_expect(t >= e * 0.999, "%.0f bytes: exec %g < tuner %g", b, t, e);
    prev = t;
  }
  double big = 16.0 * (1 << 30);
  double t = coll_nccl_algo_time(COLL_ALL_REDUCE, big, &g, COLL_INTRA_AUTO, COLL_ALGO_RING,
                                 COLL_PROTO_SIMPLE);
  double busbw = big / t * coll_busbw_factor(COLL_ALL_REDUCE, 8) / 1e9;
  cr_expect(busbw > 216 && busbw < 240, "busbw %.1f GB/s", busbw);
}

/* Push (P2P write: everything but Ampere NVLink) pays the per-step
 * latency once per step in the first iteration (the send waits for
 * nothing), pull (P2P read, Ampere) once per primitive and slice: with the
 * arch as the only difference the pull kernel is slower by exactly the
 * extra waits. 2 ranks of a DGX-1 cube-mesh (1 ring, 2 channels), 4 MiB:
 * 1 MiB per rank and channel, one iteration (the chunk is 2 MiB), 2
 * slices of 512 KiB, 3 primitives, 2 steps: pull waits 6 times, push 2.
 * Volta and Ampere share NCCL's hwLat and bandwidth tables here. */
Test(coll_nccl, simple_push_waits_per_primitive_pull_per_slice) {
  coll_group v = {2, 2, 70, 150e9, 25e9, 0.6e-6, 2.7e-6, 8, 1, 0, 0, 0};
  coll_group a = v;
  a.arch = 80;
  double b = 4.0 * (1 << 20);
  double push = coll_nccl_algo_time(COLL_ALL_REDUCE, b, &v, COLL_INTRA_CUBEMESH,
                                    COLL_ALGO_RING, COLL_PROTO_SIMPLE);
  double pull = coll_nccl_algo_time(COLL_ALL_REDUCE, b, &a, COLL_INTRA_CUBEMESH,
                                    COLL_ALGO_RING, COLL_PROTO_SIMPLE);
  cr_expect(fabs(pull - push - 4 * 3.4e-6) < 1e-9, "push %g us, pull %g us", push * 1e6,
            pull * 1e6);
}

/* Which GPUs pull (paths.cc ncclTopoCheckP2p): compute capability 8.0
 * only, and only between GPUs of one host. sm_86 shares the Ampere tables
 * but pushes: on the cube-mesh pair above it is exactly Volta's time. One
 * A100 per node has no P2P peer and pushes: 2 nodes x 1 A100, 64 MiB, ring
 * Simple: 2 NIC channels duplicated to 4 of 25 x 0.88 / 4 = 5.5 GB/s; 8 MiB
 * per rank and channel, 4 chunks of 2 MiB in 2 slices of 1 MiB; 2 steps,
 * both across the network (NET Tree Simple 14 us, ppn 1), 3 primitives:
 * 20 + 8.4 us (baseLat) + 4 x 2 x 2 MiB / 5.5 GB/s + 2 x 14 us (the later chunks
 * hide the step: 14 us < a slice's 190.7 us, and the FIFO's 2 (14 +
 * 381.3) / 4 < 381.3). Pulling would add 3 x 2 x 4 x 14 - 2 x 14 us. */
Test(coll_nccl, only_sm80_peers_in_one_node_pull) {
  coll_group v = {2, 2, 70, 150e9, 25e9, 0.6e-6, 2.7e-6, 8, 1, 0, 0, 0};
  coll_group a86 = v;
  a86.arch = 86;
  double b = 4.0 * (1 << 20);
  double t70 = coll_nccl_algo_time(COLL_ALL_REDUCE, b, &v, COLL_INTRA_CUBEMESH, COLL_ALGO_RING,
                                   COLL_PROTO_SIMPLE);
  double t86 = coll_nccl_algo_time(COLL_ALL_REDUCE, b, &a86, COLL_INTRA_CUBEMESH,
                                   COLL_ALGO_RING, COLL_PROTO_SIMPLE);
  cr_expect(fabs(t86 - t70) < 1e-12, "sm_86 %g us, Volta %g us", t86 * 1e6, t70 * 1e6);
  coll_group one = {2, 1, 80, 300e9, 25e9, 0.6e-6, 2.7e-6, 8, 1, 0, 0, 0};
  double mib = 1024.0 * 1024.0;
  double t = coll_nccl_algo_time(COLL_ALL_REDUCE, 64 * mib, &one, COLL_INTRA_AUTO,
                                 COLL_ALGO_RING, COLL_PROTO_SIMPLE);
  double want = 20e-6 + 8.4e-6 + 4 * 2 * 2 * mib / 5.5e9 + 2 * 14e-6;
  cr_expect(fabs(t - want) < 1e-9, "%g us, want %g us", t * 1e6, want * 1e6);
}

Test(coll_nccl, other_ops_run) {
  coll_group g = a100(8);
  coll_op ops[] = {COLL_ALL_GATHER, COLL_REDUCE_SCATTER, COLL_BROADCAST, COLL_REDUCE,
                   COLL_ALL_TO_ALL, COLL_SEND_RECV};
  for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
    for (double b = 1024; b <= 4.0 * (1 << 30); b *= 16) {
      coll_cost c = coll_nccl_time(ops[i], b, &g);
      cr_expect(c.time > c.launch && isfinite(c.time), "%s %.0f: %g", coll_op_name(ops[i]), b,
                c.time);
    }
  coll_group one = a100(1);
  cr_expect_eq(coll_nccl_time(COLL_ALL_REDUCE, 1e6, &one).time, 0);
}

Test(coll_nccl, per_hop_latencies_add_to_nccls_hardware_latency) {
  /* 8 A100 in one node, 8 bytes: ring LL, 2 (n - 1) = 14 NVLink steps of
   * NCCL's 0.6 us; a cluster stating 1.2 us per hop pays 14 x 0.6 more */
  coll_group g = a100(8);
  coll_cost a = coll_nccl_time(COLL_ALL_REDUCE, 8, &g);
  g.intra_lat = 1.2e-6;
  coll_cost b = coll_nccl_time(COLL_ALL_REDUCE, 8, &g);
  cr_assert_str_eq(a.algo, "ring");
  cr_assert_str_eq(b.algo, "ring");
  cr_assert_float_eq(b.time - a.time, 14 * 0.6e-6, 1e-12, "%g vs %g", b.time, a.time);
  /* the hop's difference is added to each NVLink entry, as NCCL adds a
   * transport's latency (tuning.cc: interLat += latencyInter), not
   * multiplied into it: ring LL128 (1.9 us) and Simple (3.4 us) also pay
   * 14 x 0.6 us more, not 14 x 1.9 and 14 x 3.4 */
  for (int p = COLL_PROTO_LL128; p <= COLL_PROTO_SIMPLE; p++) {
    coll_group h = a100(8);
    double t0 = coll_nccl_tuner_time(COLL_ALL_REDUCE, 8, &h, COLL_INTRA_AUTO, COLL_ALGO_RING, p);
    h.intra_lat = 1.2e-6;
    double t1 = coll_nccl_tuner_time(COLL_ALL_REDUCE, 8, &h, COLL_INTRA_AUTO, COLL_ALGO_RING, p);
    cr_expect(fabs(t1 - t0 - 14 * 0.6e-6) < 1e-12, "proto %d: %g us more", p, (t1 - t0) * 1e6);
  }
  /* the network's hop across 2 nodes: slower when the NIC hop is */
  coll_group m = a100(16);
  m.ranks_per_node = 8;
  coll_cost c = coll_nccl_time(COLL_ALL_REDUCE, 8, &m);
  m.inter_lat = 5.4e-6;
  coll_cost d = coll_nccl_time(COLL_ALL_REDUCE, 8, &m);
  cr_assert_gt(d.time, c.time);
  /* added, not scaled (net_hw_lat): 2.7 us more per network step, whatever
   * the protocol. Ring across 2 nodes: 2 network steps, 5.4 us (8 bytes
   * is below NCCL's 64 B per channel and rank of the ring plateau factor);
   * tree: 2 x log2(2) = 2 network steps, 5.4 us. Scaled, ring LL128's 4.0
   * and Simple's 14.0 us entries would have paid 2 x 4.0 and 2 x 14. */
  struct { int a, p; double more; } add[] = {
      {COLL_ALGO_RING, COLL_PROTO_LL128, 5.4e-6},
      {COLL_ALGO_RING, COLL_PROTO_SIMPLE, 5.4e-6},
      {COLL_ALGO_TREE, COLL_PROTO_SIMPLE, 5.4e-6}};
  for (size_t i = 0; i < sizeof add / sizeof add[0]; i++) {
    coll_group h = a100(16);
    h.ranks_per_node = 8;
    double t0 = coll_nccl_tuner_time(COLL_ALL_REDUCE, 8, &h, COLL_INTRA_AUTO, add[i].a, add[i].p);
    h.inter_lat = 5.4e-6;
    double t1 = coll_nccl_tuner_time(COLL_ALL_REDUCE, 8, &h, COLL_INTRA_AUTO, add[i].a, add[i].p);
    cr_expect(fabs(t1 - t0 - add[i].more) < 1e-12, "algo %d proto %d: %g us more", add[i].a,
              add[i].p, (t1 - t0) * 1e6);
  }
}

/* NCCL's size-dependent refinements (ncclTopoGetAlgoTime, tuning.cc
 * 2.30.7) on 2 x 8 A100, 200 Gb/s per GPU. Tree LL: busBw = min(8 x 25 x
 * 0.88 = 176 x 0.92 = 161.9, 12 x 23.6) = 161.9, / 3.8 = 42.6, capped at
 * llMaxBw 22.5 (AMD's row, rows 233: A100's reference server, DGX A100,
 * has AMD CPUs; Intel's would be 39.0); algbw 11.25 GB/s times
 * treeCorrectionFactor[LL][log2(bytes
 * / 64)]: 64 KiB -> index 10 -> 0.6, 256 KiB -> 12 -> 0.4, 2^30 B -> 24
 * (past the table) -> 1. Latency 6.8 + 2 (7 x 0.6 + 1 x 5.0) = 25.2 us,
 * plus the 20 us launch. */
static coll_group a100x16(void) {
  coll_group g = {16, 8, 80, 300e9, 25e9, 0.6e-6, 2.7e-6, 8, 1, 0, 0, 0};
  return g;
}

Test(coll_nccl, tree_correction_factor) {
  coll_group g = a100x16();
  struct { double bytes, factor; } c[] = {{65536, 0.6}, {262144, 0.4}, {1 << 30, 1.0}};
  for (int i = 0; i < 3; i++) {
    double t = coll_nccl_tuner_time(COLL_ALL_REDUCE, c[i].bytes, &g, COLL_INTRA_AUTO,
                                    COLL_ALGO_TREE, COLL_PROTO_LL);
    double want = (20 + 25.2) * 1e-6 + c[i].bytes / (11.25e9 * c[i].factor);
    cr_expect(fabs(t - want) < 1e-9, "%g B: %g us, want %g", c[i].bytes, t * 1e6, want * 1e6);
  }
}

/* Ring Simple across nodes: latency 8.4 + 28 NVLink steps x max(3.4, 3 x
 * 2.0, AMD's net overhead, row 374) + 2 net steps x 14.0 = 204.4 us,
 * times 1.4 (Ampere) once each channel and rank has 64 B: 16 channels (8
 * NIC rails, doubled: nccl_net.c) x 16 ranks x 64 = 16 KiB. 8 KiB:
 * 204.4; 1 MiB: 286.16. Bandwidth NCCL's own: 8
 * channels x 24 GB/s = 192 GB/s, x 16/30. */
Test(coll_nccl, ring_plateau_latency_across_nodes) {
  coll_group g = a100x16();
  double algbw = 192e9 * 16.0 / 30.0;
  double t1 = coll_nccl_tuner_time(COLL_ALL_REDUCE, 8192, &g, COLL_INTRA_AUTO, COLL_ALGO_RING,
                                   COLL_PROTO_SIMPLE);
  double t2 = coll_nccl_tuner_time(COLL_ALL_REDUCE, 1 << 20, &g, COLL_INTRA_AUTO,
                                   COLL_ALGO_RING, COLL_PROTO_SIMPLE);
  cr_expect(fabs(t1 - 20e-6 - 8192 / algbw - 204.4e-6) < 1e-9, "8 KiB: %g us", t1 * 1e6);
  cr_expect(fabs(t2 - 20e-6 - (1 << 20) / algbw - 1.4 * 204.4e-6) < 1e-9, "1 MiB: %g us",
            t2 * 1e6);
  g.ranks = g.ranks_per_node = 8; /* one node: no plateau */
  double t3 = coll_nccl_tuner_time(COLL_ALL_REDUCE, 1 << 20, &g, COLL_INTRA_AUTO,
                                   COLL_ALGO_RING, COLL_PROTO_SIMPLE);
  double lat1 = (8.4 + 14 * 3.4) * 1e-6, bw1 = 240e9 * 8.0 / 14.0;
  cr_expect(fabs(t3 - 20e-6 - (1 << 20) / bw1 - lat1) < 1e-9, "one node: %g us", t3 * 1e6);
}

/* The host CPU across nodes (tuning.cc ncclTopoTuneModel, getNetOverhead;
 * coll_nccl.c host_cpu_amd): A100 groups are taken as DGX A100's AMD
 * EPYC hosts, H100 as DGX H100's Intel Xeon. 2 x 8 GPUs, ring LL, 8 B:
 * latency 6.6 + 28 NVLink steps x max(0.6, net overhead) + 2 x 2.7 =
 * 6.6 + 28 x 2.0 + 5.4 = 68.0 us on A100 (AMD: 2.0 us, row 374), 6.6 +
 * 28 x 1.0 + 5.4 = 40.0 us on H100 (Intel: 1.0, row 373). LL's busBw cap
 * on two nodes: AMD 22.5 GB/s (row 233), Intel 39.0 (row 230); the ring's
 * busBw x 0.5 is above both (NCCL's 8 channels x 24 GB/s x 0.5 = 96), so
 * 1 GiB takes 2^30 / (cap x 16/30) more. On one node neither applies. */
Test(coll_nccl, host_cpu_sets_net_overhead_and_ll_cap_across_nodes) {
  coll_group a = a100x16(), h = a100x16();
  h.arch = 90;
  h.intra_bw = 450e9;
  h.inter_bw = 50e9;
  /* cluster.host_cpu names the CPU instead: an A100 cluster on Intel
   * hosts (AWS p4d, GCP A2) takes Intel's row, an H100 one on AMD hosts
   * AMD's; Arm reads as Intel's */
  coll_group a_intel = a, h_amd = h, a_arm = a;
  a_intel.host_cpu = SC_CPU_INTEL;
  h_amd.host_cpu = SC_CPU_AMD;
  a_arm.host_cpu = SC_CPU_ARM;
  struct { coll_group *g; double lat_us, cap; } c[] = {
      {&a, 68.0, 22.5e9}, {&h, 40.0, 39.0e9}, {&a_intel, 40.0, 39.0e9},
      {&h_amd, 68.0, 22.5e9}, {&a_arm, 40.0, 39.0e9}};
  for (int i = 0; i < 5; i++) {
    double t8 = coll_nccl_tuner_time(COLL_ALL_REDUCE, 8, c[i].g, COLL_INTRA_AUTO, COLL_ALGO_RING,
                                     COLL_PROTO_LL);
    double big = 1 << 30;
    double tb = coll_nccl_tuner_time(COLL_ALL_REDUCE, big, c[i].g, COLL_INTRA_AUTO,
                                     COLL_ALGO_RING, COLL_PROTO_LL);
    double ratio = 16.0 / 30.0;
    cr_expect(fabs(t8 - 20e-6 - c[i].lat_us * 1e-6 - 8 / (c[i].cap * ratio)) < 1e-12,
              "arch %d cpu %d, 8 B: %g us", c[i].g->arch, c[i].g->host_cpu, t8 * 1e6);
    cr_expect(fabs(tb - 20e-6 - c[i].lat_us * 1e-6 - big / (c[i].cap * ratio)) < 1e-9,
              "arch %d cpu %d, 1 GiB: %g us", c[i].g->arch, c[i].g->host_cpu, tb * 1e6);
  }
  coll_group one = a100(8), one_h = a100(8);
  one_h.arch = 90;
  double t_one = coll_nccl_tuner_time(COLL_ALL_REDUCE, 8, &one, COLL_INTRA_AUTO, COLL_ALGO_RING,
                                      COLL_PROTO_LL);
  double t_one_h = coll_nccl_tuner_time(COLL_ALL_REDUCE, 8, &one_h, COLL_INTRA_AUTO,
                                        COLL_ALGO_RING, COLL_PROTO_LL);
  cr_expect(fabs(t_one - t_one_h) < 1e-9, "one node: no CPU term, %g vs %g us", t_one * 1e6,
            t_one_h * 1e6);
}

/* The public group becomes the module's field by field (coll_group_of,
 * the one conversion coll_api.c and topo_api.c use): distinct values in
 * every field come back in the field of the same name. */
Test(coll_nccl, the_public_group_converts_field_by_field) {
  sc_coll_group g = {.ranks = 16, .ranks_per_node = 8, .arch = 90, .intra_bw = 450e9,
                     .inter_bw = 50e9, .intra_lat = 1e-6, .inter_lat = 5e-6, .node_gpus = 8,
                     .host_gpus = 2};
  coll_group c = coll_group_of(&g);
  cr_expect(c.ranks == 16 && c.ranks_per_node == 8 && c.arch == 90, "%d %d %d", c.ranks,
            c.ranks_per_node, c.arch);
  cr_expect(c.intra_bw == 450e9 && c.inter_bw == 50e9, "%g %g", c.intra_bw, c.inter_bw);
  cr_expect(c.intra_lat == 1e-6 && c.inter_lat == 5e-6, "%g %g", c.intra_lat, c.inter_lat);
  cr_expect(c.node_gpus == 8 && c.host_gpus == 2, "%d %d", c.node_gpus, c.host_gpus);
  coll_cost a = coll_nccl_time(COLL_ALL_REDUCE, 1 << 20, &c);
  cr_expect_eq(sc_coll_nccl_time(SC_COLL_ALL_REDUCE, 1 << 20, &g).time, a.time);
}

/* Ring LL128 on 8 A100 (NVSwitch) as NCCL 2.30.7's source gives it, by
 * hand: ring graph 12 channels x 20 GB/s (search.cc 6 x 40, halved and
 * doubled by ncclTopoDupChannels), busBw = min(0.92 x 240, 12 x 20) =
 * 220.8 GB/s (tuning.cc), latency baseLat 14 + 2(n-1) x 1.9 us, plus
 * COLL_LAUNCH_S 20 us; kernels on 24 channels (connect.cc x2). At 8-16
 * MiB one rank's share of a channel (43-85 KiB) is below one LL128 step
 * (576000 B of payload), so there is no chunk loop to add
 * (docs/network.md "Known misses"). */
Test(coll_nccl, ll128_a100_8_ranks_from_source) {
  coll_group g = a100(8);
  for (double b = 8.0 * (1 << 20); b <= 16.0 * (1 << 20); b *= 2) {
    double t = coll_nccl_algo_time(COLL_ALL_REDUCE, b, &g, COLL_INTRA_AUTO, COLL_ALGO_RING,
                                   COLL_PROTO_LL128);
    double want = 20e-6 + (14.0 + 14 * 1.9) * 1e-6 + b * 14.0 / 8.0 / 220.8e9;
    cr_expect(fabs(t - want) < 1e-9, "%.0f bytes: %g us, want %g us", b, t * 1e6, want * 1e6);
    coll_cost c = coll_nccl_time(COLL_ALL_REDUCE, b, &g);
    cr_expect_str_eq(c.proto, "LL128", "%.0f bytes", b);
    cr_expect_eq(c.channels, 24);
  }
}

/* DGX-1 with P100 (sm_60): 4 NVLink 1 links of 20 GB/s per direction,
 * one to each cube-mesh neighbour. By hand: a ring carries 20 x 128/144
 * = 17.78 GB/s of payload; a 1 GiB all-reduce on one ring of 8 GPUs
 * moves 2 x 7/8 GiB through each GPU, 1.879e9 / 17.78e9 = 0.1057 s. On 8
 * GPUs the cube-mesh (two K4 quads, i joined to i+4) splits into two
 * undirected Hamiltonian cycles (0-1-5-4-6-7-3-2, 0-3-1-2-6-5-7-4), each
 * run both ways: 4 rings, the GPU's 4 links, so NCCL's full time is a
 * quarter of one ring's. On 4 GPUs (one K4) no three directed rings are
 * edge-disjoint (the complete symmetric digraph on 4 vertices has no
 * Hamiltonian decomposition), so 2 rings; V100's doubled pairs keep 4. */
/* All-reduce ring Simple on the cube-mesh on at most max_ch channels (0:
 * NCCL's own count, which one_channel_runs_one_rings_share checks is
 * coll_nccl_algo_time), seconds. */
static double cube_ring(const coll_group *g, double bytes, int max_ch) {
  return coll_nccl_algo_time_ch(COLL_ALL_REDUCE, bytes, g, COLL_INTRA_CUBEMESH, COLL_ALGO_RING,
                                COLL_PROTO_SIMPLE, max_ch);
}

Test(coll_nccl, p100_cubemesh_four_links) {
  cr_expect_eq(coll_cubemesh_links(60), 4);
  cr_expect_eq(coll_cubemesh_links(70), 6);
  cr_expect_eq(coll_cubemesh_rings(8, 60), 4);
  cr_expect_eq(coll_cubemesh_rings(4, 60), 2);
  cr_expect_eq(coll_cubemesh_rings(4, 70), 4);
  cr_expect_eq(coll_cubemesh_rings(5, 60), 1); /* through a peer, on single 0-4 */
  coll_group p = {8, 8, 60, 80e9, 12.5e9, 0.6e-6, 2.7e-6, 8, 1, 0, 0, 0};
  double b = 1024.0 * 1024 * 1024;
  double t = cube_ring(&p, b, 0), t1 = cube_ring(&p, b, 1);
  double want1 = 2 * 7.0 / 8 * b / (20e9 * 128 / 144);
  cr_expect(fabs(t1 / want1 - 1) < 0.02, "one ring: %g s, by hand %g s", t1, want1);
  cr_expect(fabs(t1 / t - 4) < 0.04, "one ring of four: %g vs %g s (x%.3f)", t1, t, t1 / t);
  /* 4 GPUs: 2 rings of 17.78 on P100, 4 of 22.2 on V100 (150 / 6 = 25) */
  coll_group p4 = p, v4;
  p4.ranks = p4.ranks_per_node = p4.node_gpus = 4;
  v4 = p4;
  v4.arch = 70;
  v4.intra_bw = 150e9;
  double tp = cube_ring(&p4, b, 0), tv = cube_ring(&v4, b, 0);
  double wantp = 2 * 3.0 / 4 * b / (2 * 20e9 * 128 / 144);
  cr_expect(fabs(tp / wantp - 1) < 0.02, "4 P100: %g s, by hand %g s", tp, wantp);
  cr_expect(fabs(tp / tv - 2.5) < 0.05, "4 x 22.2 / (2 x 17.8) = 2.5: x%.3f", tp / tv);
}

/* NCCL 1.x's one block a GPU (coll_nccl_algo_time_ch, max_channels 1):
 * on the 8-GPU DGX-1 cube-mesh NCCL 2 finds 6 rings (coll_cubemesh_rings)
 * and one ring moves a sixth of their bytes per second, so at 1 GiB the
 * ring Simple time is about 6 times NCCL's; 0 is NCCL's own count,
 * exactly coll_nccl_algo_time; on PCIe the one ring fills the link as
 * NCCL's two channels do (within 1 %: the chunking differs). */
Test(coll_nccl, one_channel_runs_one_rings_share) {
  coll_group v = {8, 8, 70, 150e9, 25e9, 0.6e-6, 2.7e-6, 8, 1, 0, 0, 0};
  double b = 1024.0 * 1024 * 1024;
  double t = coll_nccl_algo_time(COLL_ALL_REDUCE, b, &v, COLL_INTRA_CUBEMESH, COLL_ALGO_RING,
                                 COLL_PROTO_SIMPLE);
  double t0 = cube_ring(&v, b, 0), t1 = cube_ring(&v, b, 1);
  cr_expect(t0 == t, "max 0 is NCCL's own: %g vs %g s", t0, t);
  cr_expect(coll_cubemesh_rings(8, 70) == 6, "6 rings on 8 GPUs");
  cr_expect(fabs(t1 / t - 6) < 0.06, "one ring of six: %g vs %g s (x%.3f)", t1, t, t1 / t);
  coll_group p = {8, 8, 70, 15.75e9, 25e9, 0, 0, 8, 1, 0, 1, 0};
  double tp = coll_nccl_algo_time(COLL_ALL_REDUCE, b, &p, COLL_INTRA_PCIE, COLL_ALGO_RING,
                                  COLL_PROTO_SIMPLE);
  double tp1 = coll_nccl_algo_time_ch(COLL_ALL_REDUCE, b, &p, COLL_INTRA_PCIE, COLL_ALGO_RING,
                                      COLL_PROTO_SIMPLE, 1);
  cr_expect(fabs(tp1 / tp - 1) < 0.01, "PCIe, one ring fills the link: %g vs %g s", tp1, tp);
}

/* send_recv over two nodes (rank i to i + 1, nccl-tests sendrecv): ranks
 * 7 -> 8 and 15 -> 0 cross the NICs, so the op is no faster than one
 * NIC carries the buffer, however fast NVLink is; inside one node it is
 * NVLink's. (It ran at NVLink's rate on any number of nodes before.) */
Test(coll_nccl, send_recv_across_nodes_is_bound_by_the_nic) {
  coll_group g = a100(16);
  g.ranks_per_node = 8;
  double bytes = 1 << 30;
  double t = coll_nccl_time(COLL_SEND_RECV, bytes, &g).time;
  cr_expect_geq(t, bytes / g.inter_bw, "2 nodes: %g s, one NIC carries it in %g s", t,
                bytes / g.inter_bw);
  coll_group one = a100(8);
  double t1 = coll_nccl_time(COLL_SEND_RECV, bytes, &one).time;
  cr_expect_lt(t1, bytes / g.inter_bw, "1 node: %g s", t1);
  cr_expect_gt(t, 4 * t1, "2 nodes %g s vs 1 node %g s", t, t1);
}

/* NCCL's kernels on an A100 move at most 790.1 GB/s through its memory
 * (NCCL_MEM_BW_SM80: calibration rows 61-62, send/recv between NVLink
 * peers, 4 x 512 MiB / (5503.4 - 2785.4) us, 4 memory bytes per byte
 * sent). By hand: send/recv of 1 GiB on 8 A100 = 20 (launch) + 8.4
 * (baseLat Simple) + 3.4 (NVLink hwLat) us + 4 x 2^30 B / 790.1 GB/s =
 * 5467.8 us (NVLink's 240 GB/s alone: 4505.7 us). A ring all-reduce on 2
 * GPUs moves 2 + 2/1 = 4 memory bytes per bus byte, so its bus bandwidth
 * stays below 790.1 / 4 = 197.5 GB/s; on 8 GPUs 2 + 8/7 = 3.14, a bound
 * of 251 GB/s above NCCL's 12 x 20 = 240 GB/s of NVLink, which holds it
 * still (and an H100, with no measured figure, keeps its links' bound). */
Test(coll_nccl, a100_memory_throughput_bounds_two_gpus_not_eight) {
  coll_group g8 = a100(8);
  double sr = coll_nccl_time(COLL_SEND_RECV, 1 << 30, &g8).time;
  double mem = 4.0 * 536870912.0 / ((5503.4 - 2785.4) * 1e-6); /* B/s */
  double hand = (20 + 8.4 + 3.4) * 1e-6 + 4.0 * (1 << 30) / mem;
  cr_expect(fabs(sr - hand) < 1e-9, "send/recv 1 GiB: %g us, by hand %g", sr * 1e6, hand * 1e6);
  double gib = 1 << 30;
  coll_group g2 = a100(2);
  double bus2 = gib / coll_nccl_time(COLL_ALL_REDUCE, gib, &g2).time; /* factor 1 at n = 2 */
  double bus8 = gib * 14 / 8 / coll_nccl_time(COLL_ALL_REDUCE, gib, &g8).time;
  cr_expect(bus2 < mem / 4 && bus2 > 0.9 * mem / 4, "2 A100: bus %g GB/s, bound %g", bus2 / 1e9,
            mem / 4e9);
  cr_expect(bus8 > mem / 4 + 25e9, "8 A100: bus %g GB/s, not held to 2 GPUs' bound", bus8 / 1e9);
  coll_group h2 = g2;
  h2.arch = 90;
  h2.intra_bw = 450e9;
  double busH = gib / coll_nccl_time(COLL_ALL_REDUCE, gib, &h2).time;
  cr_expect(busH > 300e9, "2 H100: bus %g GB/s, no memory bound measured", busH / 1e9);
  /* a broadcast moves 3 memory bytes per bus byte (collhbm.c): 790.1 / 3
   * = 263 GB/s, above NVLink's 240, which holds 8 A100 as before; held
   * to send/recv's 4 it would fall below 197.5 */
  double bc = gib / coll_nccl_time(COLL_BROADCAST, gib, &g8).time;
  cr_expect(bc > mem / 4 + 10e9, "8 A100 broadcast: bus %g GB/s", bc / 1e9);
}

/* coll_nccl_time_split: every time is monotone in one bandwidth, the
 * smaller of the links' and the memory's, so the time is the larger of
 * the links-alone and memory-alone times, exactly, for every op, size,
 * group and host layout; off A100 the memory part is 0 and the links
 * part is the time. A 2-GPU all-reduce of 1 GiB is held by the memory
 * (4 bytes per bus byte at 790.1 GB/s: 197.5 GB/s, below NVLink's), an
 * 8-GPU one by the links (3.14 bytes: 251 GB/s, above them). */
Test(coll_nccl, time_split_into_links_and_memory) {
  int ns[] = {2, 3, 8, 16};
  for (int arch = 70; arch <= 90; arch += 10)
    for (int op = 0; op < COLL_OP_COUNT; op++)
      for (int i = 0; i < 4; i++)
        for (int gpt = 1; gpt <= 8; gpt += 7)
          for (double b = 1024; b <= 4e9; b *= 7.3) {
            coll_group g = a100(ns[i]);
            g.arch = arch;
            g.ranks_per_node = ns[i] > 8 ? 8 : ns[i];
            g.host_gpus = gpt;
            double links, mem;
            coll_cost c = coll_nccl_time_split(op, b, &g, &links, &mem);
            cr_assert(fabs(fmax(links, mem) - c.time) <= 1e-12 * c.time,
                      "sm%d %s n %d %g B: %g s, links %g, memory %g", arch,
                      coll_op_name(op), ns[i], b, c.time, links, mem);
            if (arch != 80) cr_assert(mem == 0 && links == c.time);
          }
  double gib = 1 << 30, links, mem;
  coll_group g2 = a100(2), g8 = a100(8);
  double t2 = coll_nccl_time_split(COLL_ALL_REDUCE, gib, &g2, &links, &mem).time;
  cr_expect(mem == t2 && links < 0.9 * t2, "2 A100: %g s, links %g, memory %g", t2, links, mem);
  double t8 = coll_nccl_time_split(COLL_ALL_REDUCE, gib, &g8, &links, &mem).time;
  cr_expect(links == t8 && mem < 0.97 * t8, "8 A100: %g s, links %g, memory %g", t8, links, mem);
  cr_expect(fabs(coll_nccl_mem_bw(80) - 4.0 * 536870912.0 / ((5503.4 - 2785.4) * 1e-6)) < 1,
            "%g B/s", coll_nccl_mem_bw(80));
  cr_expect(coll_nccl_mem_bw(90) == 0 && coll_nccl_mem_bw(70) == 0);
}
