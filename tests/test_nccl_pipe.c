/*
 * test_nccl_pipe.c -- the latency NCCL's Simple pipeline exposes
 * (src/coll/nccl_pipe.c), with arithmetic checkable by hand: the ring's
 * per-step latency is paid once per collective (per step, the send waits
 * for nothing: NCCL's tuner formula) when the slices and the
 * FIFO hide it, whatever the channel count and so the number of chunks;
 * beyond that only the cycle's or the FIFO's excess per primitive; pull
 * pays per slice in every iteration; and through coll_nccl_algo_time a
 * larger message adds only its copies.
 */
#include <criterion/criterion.h>
#include <math.h>

#include "coll/coll.h"
#include "coll/nccl_pipe.h"

#define MIB (1024.0 * 1024.0)

/* One all-reduce channel of 32 ranks: 62 steps, 63 primitives, 2 slices
 * per chunk, a FIFO of 8 steps / 2 per slice = 4 slices. */
static nccl_pipe ring32(double iters, double cb, double step_lat, double hop) {
  nccl_pipe p = {.iters = iters, .steps = 62, .prims = 63, .spc = 2, .cb = cb,
                 .step_lat = step_lat, .hop = hop, .fifo = 4, .pull = 0};
  return p;
}

/* c/b 90 us (45 us a slice). Hidden: cycle 10 - 45 < 0, FIFO 2 (60 + 90)
 * / 4 - 90 = -15 < 0. Cycle: step 60 us -> 60 - 45 = 15 us a primitive.
 * FIFO: hop 151 us -> 2 (151 + 90) / 4 - 90 = 30.5 us a primitive. */
Test(nccl_pipe, later_iterations_expose_only_the_excess) {
  nccl_pipe p = ring32(4, 90e-6, 10e-6, 60e-6);
  cr_expect(nccl_pipe_ring_later(&p) == 0, "%g", nccl_pipe_ring_later(&p));
  p = ring32(4, 90e-6, 60e-6, 60e-6);
  cr_expect(fabs(nccl_pipe_ring_later(&p) - 15e-6) < 1e-12, "%g", nccl_pipe_ring_later(&p));
  p = ring32(4, 90e-6, 20e-6, 151e-6);
  cr_expect(fabs(nccl_pipe_ring_later(&p) - 30.5e-6) < 1e-12, "%g",
            nccl_pipe_ring_later(&p));
}

/* 4 GiB on 32 ranks at 372 GB/s of bus bandwidth, on 16 or on 2
 * channels. 16: 8 MiB per rank and channel, 4 chunks of 2 MiB at 23.25
 * GB/s (c/b 90.2 us); 2: 64 MiB, 32 chunks at 186 GB/s (c/b 11.27 us).
 * The copies are the same, 62 x 4 GiB / 32 / 372 GB/s = 22.37 ms. With
 * a 4 us mean step and a 10 us slowest hop both hide every later
 * iteration (16: cycle 4 - 45.1, FIFO 2 (10 + 90.2) / 4 - 90.2; 2: cycle
 * 4 - 5.64, FIFO 2 (10 + 11.27) / 4 - 11.27 = -0.64): the latency is the
 * first iteration's 62 steps x 4 = 248 us on both, not 4 x 248 and 32 x
 * 248 (once per chunk). */
Test(nccl_pipe, two_or_sixteen_channels_pay_the_latency_once) {
  double bytes = 4.0 * 1024 * MIB, busbw = 372e9, copies = 62 * bytes / 32 / busbw;
  for (int nc = 2; nc <= 16; nc *= 8) {
    double d = bytes / 32 / nc, iters = ceil(d / (2 * MIB)), b = busbw / nc;
    nccl_pipe p = ring32(iters, d / iters / b, 4e-6, 10e-6);
    double lat = nccl_pipe_ring_time(&p) - copies;
    cr_expect(iters == (nc == 16 ? 4 : 32), "%d channels: %g chunks", nc, iters);
    cr_expect(fabs(lat - 62 * 4e-6) < 1e-9, "%d channels: %g us", nc, lat * 1e6);
  }
}

/* The same on 2 channels with a 40.5 us slowest hop: the 4 slices in
 * flight (4 MiB) no longer cover the hop, 2 (40.5 + 11.27) / 4 - 11.27 =
 * 14.61 us a primitive in each of the 31 later chunks: 248 us + 31 x 63 x
 * 14.61 us = 28.78 ms more than the copies. 16 channels still hide it. */
Test(nccl_pipe, few_channels_expose_a_long_hop) {
  double bytes = 4.0 * 1024 * MIB, busbw = 372e9, copies = 62 * bytes / 32 / busbw;
  double cb2 = 2 * MIB / (busbw / 2);
  nccl_pipe p = ring32(32, cb2, 4e-6, 40.5e-6);
  double x = 2 * (40.5e-6 + cb2) / 4 - cb2;
  cr_expect(fabs(x - 14.61e-6) < 0.01e-6, "%g us", x * 1e6);
  double lat = nccl_pipe_ring_time(&p) - copies;
  cr_expect(fabs(lat - (62 * 4e-6 + 31 * 63 * x)) < 1e-9, "%g us", lat * 1e6);
  double cb16 = 2 * MIB / (busbw / 16);
  p = ring32(4, cb16, 4e-6, 40.5e-6);
  cr_expect(fabs(nccl_pipe_ring_time(&p) - copies - 62 * 4e-6) < 1e-9);
}

/* The first iteration, one chunk of 32 ranks: pushing, every primitive
 * but the send waits a step for its peer, 62 x 4 us = 248 us, NCCL's
 * tuner (nsteps x hwLat); the send waits only for its FIFO, which is
 * empty (charged 63 x 4 = 252 us until branch nccl26). Pulling with one
 * slice a primitive, each of the 63 primitives reads after its flag: 252
 * us; with 2 slices, 126 reads, 504 us. */
Test(nccl_pipe, first_iteration_pays_the_tuners_steps) {
  nccl_pipe p = ring32(1, 90e-6, 4e-6, 4e-6);
  double copies = 62 * 90e-6;
  cr_expect(fabs(nccl_pipe_ring_time(&p) - copies - 248e-6) < 1e-12, "push %g us",
            (nccl_pipe_ring_time(&p) - copies) * 1e6);
  p.pull = 1, p.spc = 1;
  cr_expect(fabs(nccl_pipe_ring_time(&p) - copies - 252e-6) < 1e-12, "pull, 1 slice %g us",
            (nccl_pipe_ring_time(&p) - copies) * 1e6);
  p.spc = 2;
  cr_expect(fabs(nccl_pipe_ring_time(&p) - copies - 504e-6) < 1e-12, "pull, 2 slices %g us",
            (nccl_pipe_ring_time(&p) - copies) * 1e6);
}

/* Pull (P2P read) pays the step per slice in every iteration: 4 chunks x
 * 63 primitives x 2 slices x 3.4 us = 1713.6 us over the copies. */
Test(nccl_pipe, pull_waits_per_slice_in_every_iteration) {
  nccl_pipe p = ring32(4, 90e-6, 3.4e-6, 3.4e-6);
  p.pull = 1;
  double lat = nccl_pipe_ring_time(&p) - 4 * 62 * 90e-6;
  cr_expect(fabs(lat - 1713.6e-6) < 1e-9, "%g us", lat * 1e6);
}

/* A chain of 7 hops (broadcast on 8 ranks), 10 chunks of c/b 30 us, 5 us
 * a step: the first chunk 7 x 35 = 245 us, the other 9 one per copy
 * (FIFO round (5 + 60) / 8 < 30): 245 + 270 = 515 us. With a 300 us hop
 * the FIFO binds: (300 + 60) / 8 = 45 us a chunk, 245 + 405 = 650 us. */
Test(nccl_pipe, chain_pays_the_hops_once) {
  nccl_pipe p = {.iters = 10, .steps = 7, .prims = 7, .spc = 1, .cb = 30e-6,
                 .step_lat = 5e-6, .hop = 5e-6, .fifo = 8, .pull = 0};
  cr_expect(fabs(nccl_pipe_chain_time(&p) - 515e-6) < 1e-12, "%g", nccl_pipe_chain_time(&p));
  p.hop = 300e-6;
  cr_expect(fabs(nccl_pipe_chain_time(&p) - 650e-6) < 1e-12, "%g", nccl_pipe_chain_time(&p));
}

/* Through the model: 8 H100 in one node push (P2P write); NCCL's ring
 * search gives 12 x 30 GB/s, 24 kernel channels of 15 GB/s. 1.5 GiB is
 * 8 MiB per rank and channel: 4 chunks of 2 MiB. Time = 20 us launch +
 * 8.4 us baseLat + 4 x 14 x 2 MiB / 15 GB/s + 14 steps x 3.4 us
 * (NVLink Simple ring hwLat, once: a slice of 69.9 us hides it). 3 GiB
 * adds exactly its 4 more chunks' copies. */
Test(nccl_pipe, h100_node_adds_only_copies) {
  coll_group g = {8, 8, 90, 450e9, 50e9, 0, 0, 8, 1, 0, 0, 0};
  double b = 1.5 * 1024 * MIB;
  double t = coll_nccl_algo_time(COLL_ALL_REDUCE, b, &g, COLL_INTRA_AUTO, COLL_ALGO_RING,
                                 COLL_PROTO_SIMPLE);
  double cp = 14 * 2 * MIB / 15e9;
  double want = 20e-6 + 8.4e-6 + 4 * cp + 14 * 3.4e-6;
  cr_expect(fabs(t - want) < 1e-9, "%g us, want %g us", t * 1e6, want * 1e6);
  double t2 = coll_nccl_algo_time(COLL_ALL_REDUCE, 2 * b, &g, COLL_INTRA_AUTO, COLL_ALGO_RING,
                                  COLL_PROTO_SIMPLE);
  cr_expect(fabs(t2 - t - 4 * cp) < 1e-9, "%g us more, want %g", (t2 - t) * 1e6, 4 * cp * 1e6);
}

/* A pulling chain (A100 broadcast / reduce over NVLink) reads each chunk
 * after its flag: one copy plus one step a chunk, (iters + steps - 1) x
 * (c/b + step) = 16 x 35 = 560 us for the chain above (the FIFO round,
 * (5 + 60) / 8, is shorter); pushing it is 515 us. */
Test(nccl_pipe, pulling_chain_pays_a_step_per_chunk) {
  nccl_pipe p = {.iters = 10, .steps = 7, .prims = 7, .spc = 1, .cb = 30e-6,
                 .step_lat = 5e-6, .hop = 5e-6, .fifo = 8, .pull = 1};
  cr_expect(fabs(nccl_pipe_chain_time(&p) - 560e-6) < 1e-12, "%g", nccl_pipe_chain_time(&p));
}

/* Through the model, a broadcast on 8 H100 (24 channels of 15 GB/s, 7
 * NVLink hops of 3.4 us): 12 MiB is one full chunk of 512 KiB per
 * channel, crossing every hop alone: 20 + 8.4 + 7 x (512 KiB / 15 GB/s +
 * 3.4) us. NCCL's loop moves full chunks, then the remainder, so 1 KiB
 * more per channel adds its copy, 1 KiB / 15 GB/s, and 12 MiB more one
 * chunk's copy (the FIFO round, (3.4 + 2 x 35) / 8 us, is shorter); with
 * equal chunks it dropped by a third (2 chunks of 256.5 KiB pipelining). */
Test(nccl_pipe, chain_grows_continuously_past_one_chunk) {
  coll_group g = {8, 8, 90, 450e9, 50e9, 0, 0, 8, 1, 0, 0, 0};
  double chunk = 0.5 * MIB, cb = chunk / 15e9;
  double t1 = coll_nccl_algo_time(COLL_BROADCAST, 24 * chunk, &g, COLL_INTRA_AUTO,
                                  COLL_ALGO_RING, COLL_PROTO_SIMPLE);
  double want = 20e-6 + 8.4e-6 + 7 * (cb + 3.4e-6);
  cr_expect(fabs(t1 - want) < 1e-9, "%g us, want %g us", t1 * 1e6, want * 1e6);
  double t2 = coll_nccl_algo_time(COLL_BROADCAST, 24 * (chunk + 1024), &g, COLL_INTRA_AUTO,
                                  COLL_ALGO_RING, COLL_PROTO_SIMPLE);
  cr_expect(fabs(t2 - t1 - 1024 / 15e9) < 1e-12, "%g us more", (t2 - t1) * 1e6);
  double t3 = coll_nccl_algo_time(COLL_BROADCAST, 48 * chunk, &g, COLL_INTRA_AUTO,
                                  COLL_ALGO_RING, COLL_PROTO_SIMPLE);
  cr_expect(fabs(t3 - t1 - cb) < 1e-12, "%g us more, want %g", (t3 - t1) * 1e6, cb * 1e6);
}
