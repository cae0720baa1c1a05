/*
 * test_dp_schemes.c -- the data-parallel schemes (src/dp/): the scheme
 * vocabulary, the overlap closed form against hand arithmetic, gossip
 * graphs, input errors, and predictions that must move the right way when
 * the fabric changes; the dp_training sets read whole (../shared).
 */
#include <criterion/criterion.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/mem.h"
#include "dp/dp.h"

/* ------------------------------------------------------------ schemes */

Test(dp_schemes, every_scheme_of_the_vocabulary_is_known) {
  /* ../shared/validation/DP-AND-RECSYS.md, "Scheme vocabulary" */
  static const char *const names[] = {
      "single_gpu", "ps_sync", "ps_sync_distributed_replicated", "ps_async",
      "ps_sync_cpu_servers", "replicated_local_nccl", "replicated_local_copy",
      "allreduce_ring_nccl", "allreduce_nccl", "allreduce_mpi_host", "allreduce_kungfu",
      "allreduce_hierarchical", "pair_averaging_async", "neighbor_allreduce_exp2",
      "hierarchical_neighbor_allreduce"};
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
    int s = dp_scheme_from_name(names[i]);
    cr_assert_geq(s, 0, "scheme %s unknown", names[i]);
    cr_assert_str_eq(dp_scheme_name((dp_scheme)s), names[i]);
  }
  cr_assert_eq(dp_scheme_from_name("allreduce_magic"), -1);
  cr_assert(dp_scheme_async(DP_PS_ASYNC) && dp_scheme_async(DP_PAIR_AVERAGING_ASYNC));
  cr_assert(!dp_scheme_async(DP_PS_SYNC));
  cr_assert_str_eq(dp_family_name(dp_scheme_family(DP_HIER_NEIGHBOR)), "gossip");
}

/* ------------------------------------------------------------ overlap */

/* Four layers, 1 s of backward and 10 bytes of gradient each, one
 * tensor; a message costs 0.1 s per byte. */
static dp_layer four[4];
static dp_model four_layers(void) {
  for (int i = 0; i < 4; i++) four[i] = (dp_layer){.grad_bytes = 10, .bwd_s = 1, .tensors = 1};
  return (dp_model){.layers = four, .n = 4, .bwd_s = 4, .grad_bytes = 40, .tensors = 4};
}
static double per_byte(const void *ctx, double bytes, int tensors) {
  (void)ctx, (void)tensors;
  return 0.1 * bytes;
}
static double tenth(const void *ctx, double bytes, int tensors) {
  (void)ctx, (void)tensors, (void)bytes;
  return 0.1;
}

Test(dp_overlap, per_tensor_messages_hide_behind_the_remaining_backward) {
  dp_model m = four_layers();
  dp_fusion fu = {.per_tensor = 1};
  dp_overlap o = {0};
  dp_overlap_run(&m, &fu, per_byte, NULL, 1, 0, &o);
  /* ready at 1, 2, 3, 4; each 1 s: the last ends at 5 */
  cr_assert_float_eq(o.exposed_s, 1.0, 1e-12);
  cr_assert_float_eq(o.comm_s, 4.0, 1e-12);
  cr_assert_eq(o.messages, 4);
  dp_overlap_run(&m, &fu, per_byte, NULL, 0, 0, &o);
  cr_assert_float_eq(o.exposed_s, 4.0, 1e-12, "without overlap all of it is exposed");
  /* NCCL taking half the SMs: each message inside the backward pass
   * stretches it by half its time, and the gradients after it are ready
   * that much later. Layer 1's message [1, 2] (+0.5); layer 2 ready at
   * 2.5, [2.5, 3.5] (+0.5); layer 3 ready at 4, [4, 5] inside the
   * backward, now ending at 5 (+0.5); layer 4 ready at 5.5, [5.5, 6.5],
   * after it. The backward ends 1.5 s late, the exchange 1 s after it */
  dp_overlap_run(&m, &fu, per_byte, NULL, 1, 0.5, &o);
  cr_assert_float_eq(o.overlapped_s, 3.0, 1e-12);
  cr_assert_float_eq(o.stretch_s, 1.5, 1e-12);
  cr_assert_float_eq(o.exposed_s, 2.5, 1e-12);
  /* a 0.9 slowdown (SMs and HBM, dp_gpu_share): ready at 1, 2.9, 4.8,
   * 6.7; the backward ends at 4 + 2.7, the last message at 7.7 */
  dp_overlap_run(&m, &fu, per_byte, NULL, 1, 0.9, &o);
  cr_assert_float_eq(o.stretch_s, 2.7, 1e-12);
  cr_assert_float_eq(o.exposed_s, 3.7, 1e-12);
  /* the share is capped at one: the backward stops while a message runs,
   * so nothing overlaps in effect and the step is what it is with every
   * message after the backward pass (4 s above) */
  dp_overlap_run(&m, &fu, per_byte, NULL, 1, 1.5, &o);
  cr_assert_float_eq(o.exposed_s, 4.0, 1e-12, "a full share is no overlap at all");
}

Test(dp_overlap, buckets_leave_when_full_and_horovod_waits_for_its_cycle) {
  dp_model m = four_layers();
  dp_fusion fu = {.bucket_bytes = 20};
  dp_overlap o = {0};
  dp_overlap_run(&m, &fu, per_byte, NULL, 1, 0, &o);
  /* bucket 1 (layers 0-1) ready at 2, ends 4; bucket 2 ready 4, ends 6 */
  cr_assert_eq(o.messages, 2);
  cr_assert_float_eq(o.exposed_s, 2.0, 1e-12);
  /* Horovod, a 3 s cycle: layer 0, ready at 1 while the thread idles,
   * waits half a cycle: at 2.5 layers 0-1 (20 bytes, ends 4.5); the
   * cycle ran longer than one, so the next starts at once: layers 2-3
   * (ready 3 and 4; ends 6.5) */
  fu.cycle_s = 3;
  dp_overlap_run(&m, &fu, per_byte, NULL, 1, 0, &o);
  cr_assert_eq(o.messages, 2);
  cr_assert_float_eq(o.exposed_s, 2.5, 1e-12);
  /* the threshold splits them: layer 0 at 2.5, then one layer per cycle
   * back to back (3.5, 4.5, 5.5), the last ending at 6.5 */
  fu.bucket_bytes = 10;
  dp_overlap_run(&m, &fu, per_byte, NULL, 1, 0, &o);
  cr_assert_eq(o.messages, 4);
  cr_assert_float_eq(o.exposed_s, 2.5, 1e-12);
  /* a gradient ready after the last message ended waits its half cycle
   * again: with 0.1 s messages, the gradients ready at 1 and 2 leave at
   * 2.5, those at 3 and 4 at 4.5 (ending at 4.6) */
  fu.bucket_bytes = 20;
  dp_overlap_run(&m, &fu, tenth, NULL, 1, 0, &o);
  cr_assert_eq(o.messages, 2);
  cr_assert_float_eq(o.exposed_s, 0.6, 1e-12);
  dp_fusion ddp = {.bucket_bytes = 30, .first_bytes = 10};
  dp_overlap_run(&m, &ddp, per_byte, NULL, 1, 0, &o);
  /* first bucket capped at 10 bytes: layer 0 (ends 2), then 1-3 (ready 4, ends 7) */
  cr_assert_eq(o.messages, 2);
  cr_assert_float_eq(o.exposed_s, 3.0, 1e-12);
}

/* A message that runs past the backward's end slows what is left of it
 * too. DDP with a first bucket of layers 0-2 (30 bytes, ready at 3, [3,
 * 6]) and layer 3 alone: 1 s of backward is left when the first message
 * starts. Half the SMs: it runs at half pace beside the message and ends
 * at 5 (2 s inside, stretch 1 s; counting only the 1 s to the unslowed
 * end gave 0.5 s); layer 3's message [6, 7]. The whole GPU: the backward
 * stops until 6, ends at 7, its message [7, 8]: all 4 s exposed, as with
 * no overlap at all (counting 1 s gave 3 s, less than that). */
Test(dp_overlap, a_message_past_the_backwards_end_slows_the_rest_of_it) {
  dp_model m = four_layers();
  dp_fusion fu = {.bucket_bytes = 10, .first_bytes = 30};
  dp_overlap o = {0};
  dp_overlap_run(&m, &fu, per_byte, NULL, 1, 0.5, &o);
  cr_assert_eq(o.messages, 2);
  cr_assert_float_eq(o.overlapped_s, 2.0, 1e-12);
  cr_assert_float_eq(o.stretch_s, 1.0, 1e-12);
  cr_assert_float_eq(o.exposed_s, 3.0, 1e-12);
  dp_overlap_run(&m, &fu, per_byte, NULL, 1, 1, &o);
  cr_assert_float_eq(o.stretch_s, 3.0, 1e-12);
  cr_assert_float_eq(o.exposed_s, 4.0, 1e-12, "a full share is no overlap at all");
  dp_overlap_run(&m, &fu, per_byte, NULL, 0, 0, &o);
  cr_assert_float_eq(o.exposed_s, 4.0, 1e-12);
}

/* The timeline's layer ends (recorded when the run records): a layer
 * that ends beside a message ends there. Messages of 0.3 s a byte, DDP
 * with a first bucket of layers 0-1 (ready at 2, [2, 8]), then one
 * bucket a layer; half the SMs. Layers 2 and 3 run at half pace beside
 * the first message and end at 4 and 6, the backward's 4 + 2 s of
 * stretch (not at 5 and 6, which is where layer 2's gradient would be
 * ready after the whole message's slowdown; it leaves at 8 either way). */
static double per_byte3(const void *ctx, double bytes, int tensors) {
  (void)ctx, (void)tensors;
  return 0.3 * bytes;
}
Test(dp_overlap, recorded_layer_ends_follow_the_slowed_backward) {
  dp_model m = four_layers();
  dp_fusion fu = {.bucket_bytes = 10, .first_bytes = 20};
  dp_spans rec = {0};
  dp_overlap o = {.rec = &rec};
  dp_overlap_run(&m, &fu, per_byte3, NULL, 1, 0.5, &o);
  cr_assert_float_eq(o.stretch_s, 2.0, 1e-12);
  cr_assert_eq(rec.n, 3, "%d messages recorded", rec.n);
  cr_assert_float_eq(rec.v[1].start, 8.0, 1e-12);
  cr_assert_eq(rec.bwd_n, 4);
  const double want[4] = {1, 2, 4, 6};
  for (int i = 0; i < 4; i++)
    cr_expect_float_eq(rec.bwd_end[i], want[i], 1e-12, "layer %d ends at %g", i, rec.bwd_end[i]);
  cr_assert_float_eq(rec.bwd_end[3], m.bwd_s + o.stretch_s, 1e-12);
  mem_free(rec.v); /* allocated by the library (core/vec.h) */
  mem_free(rec.bwd_end);
}

Test(dp_overlap, framework_defaults) {
  sc_dp_spec spec = {0};
  dp_fusion fu;
  dp_fusion_for(&spec, DP_ALLREDUCE_NCCL, 64, 2, &fu);
  cr_assert_float_eq(fu.bucket_bytes, 25.0 * 1024 * 1024, 1, "DDP bucket_cap_mb 25");
  cr_assert_float_eq(fu.first_bytes, 1024.0 * 1024, 1, "DDP first bucket 1 MiB");
  dp_fusion_for(&spec, DP_ALLREDUCE_MPI_HOST, 64, 2, &fu);
  cr_assert_float_eq(fu.bucket_bytes, 128.0 * 1024 * 1024, 1, "Horovod fusion threshold");
  cr_assert_float_eq(fu.cycle_s, 1e-3, 1e-12, "Horovod cycle time");
  dp_fusion_for(&spec, DP_PS_SYNC, 64, 2, &fu);
  cr_assert(fu.per_tensor, "TensorFlow PS: one transfer per tensor");
  spec.bucket_bytes = 5e6;
  dp_fusion_for(&spec, DP_ALLREDUCE_NCCL, 64, 2, &fu);
  cr_assert_float_eq(fu.bucket_bytes, 5e6, 1);
  spec.bucket_bytes = 0;
  spec.fusion = SC_DP_FUSION_MEGATRON; /* max(40M, 1M x dp) elements */
  dp_fusion_for(&spec, DP_ALLREDUCE_NCCL, 64, 2, &fu);
  cr_assert_float_eq(fu.bucket_bytes, 128e6, 1);
  dp_fusion_for(&spec, DP_ALLREDUCE_NCCL, 8, 4, &fu);
  cr_assert_float_eq(fu.bucket_bytes, 160e6, 1);
}

/* ---------------------------------------------------- MPI in host memory */

/* Two servers of two GPUs; round numbers so each term can be read off.
 * No per-thread limit: a rank's thread moves its share of the server's
 * memory bandwidth, 12e9 / 2 = 6e9 bytes/s. */
static dp_fabric mpi_fabric(void) {
  return (dp_fabric){.gpus = 4, .gpn = 2, .nodes = 2, .net_stream_bw = 1e9, .net_bw = 1e9,
                     .host_bw = 1e9, .host_share = 1, .host_mem_bw = 12e9,
                     .cpu_reduce_bw = 4e9, .loop_bw = 2e9};
}

Test(dp_mpi, the_ring_runs_transfer_then_reduction_on_every_step) {
  dp_fabric f = mpi_fabric();
  cr_assert_float_eq(dp_mpi_thread_bw(&f), 6e9, 1, "the server's 12e9 over its 2 ranks");
  /* 4e9 bytes: blocks of 1e9; a cross-server hop 1 s on one stream (the
   * thread's two copies per step, 4e9 bytes moved at 6e9, take 0.67 s);
   * a rank sums its block on its thread: 3e9 bytes moved at 6e9 = 0.5 s;
   * 3 reduce-scatter steps of 1 + 0.5 s, 3 all-gather steps of 1 s */
  cr_assert_float_eq(dp_mpi_ring_time(&f, 4e9), 7.5, 1e-9);
  /* host copies there and back 2 x 4 s; the fusion buffer in and out on
   * the thread: 2 copies x 2 bytes x 4e9 at 6e9 = 2.67 s; a one-tensor
   * message is reduced in place */
  cr_assert_float_eq(dp_mpi_allreduce_time(&f, 4e9, 2), 7.5 + 8.0 + 16.0 / 6, 1e-9);
  cr_assert_float_eq(dp_mpi_allreduce_time(&f, 4e9, 1), 15.5, 1e-9);
  /* the parts a named topology reuses (allreduce.c ar_mpi): the host
   * side as above, and the ring's sums, 3 x 0.5 s */
  cr_assert_float_eq(dp_mpi_host_side(&f, 4e9, 2), 8.0 + 16.0 / 6, 1e-9);
  cr_assert_float_eq(dp_mpi_host_side(&f, 4e9, 1), 8.0, 1e-9);
  cr_assert_float_eq(dp_mpi_sum_time(&f, 4e9), 1.5, 1e-9);
  /* a network faster than shared memory: the in-server hop (4e9 / 4 /
   * 2e9 = 0.5 s) would bound each step, but the thread's two copies
   * (0.67 s) are longer: 3 x (0.67 + 0.5) + 3 x 0.67 */
  f.net_stream_bw = 4e9;
  cr_assert_float_eq(dp_mpi_ring_time(&f, 4e9), 3.5 + 2.0, 1e-9);
  f.net_stream_bw = 1e9;
  /* one server of four: each rank's thread 12e9 / 4 = 3e9; one copy
   * per step (its shared-memory receive): 2e9 / 3e9 = 0.67 s, over the
   * 0.5 s of the hop; the sum 3e9 / 3e9 = 1 s: 3 x 1.67 + 3 x 0.67 */
  f.nodes = 1, f.gpn = 4;
  cr_assert_eq(dp_mpi_step_copies(&f), 1);
  cr_assert_float_eq(dp_mpi_ring_time(&f, 4e9), 7.0, 1e-9);
  f.gpus = 1;
  cr_assert_float_eq(dp_mpi_allreduce_time(&f, 4e9, 2), 0.0, 1e-12, "one rank: no exchange");
}

Test(dp_mpi, one_thread_copies_and_sums_at_most_its_core_rate) {
  dp_fabric f = mpi_fabric();
  /* a core slower than the rank's share of memory (3e9 < 6e9): the
   * thread's two copies per step take 4e9 / 3e9 = 1.33 s (over the 1 s
   * stream), the sum 3e9 / 3e9 = 1 s: 3 x 2.33 + 3 x 1.33 = 11 s */
  f.core_mem_bw = 3e9;
  cr_assert_float_eq(dp_mpi_thread_bw(&f), 3e9, 1);
  cr_assert_eq(dp_mpi_step_copies(&f), 2);
  cr_assert_float_eq(dp_mpi_ring_time(&f, 4e9), 11.0, 1e-9);
  /* a core faster than the share: the share binds (6e9) */
  f.core_mem_bw = 20e9;
  cr_assert_float_eq(dp_mpi_ring_time(&f, 4e9), 7.5, 1e-9);
}

Test(dp_mpi, above_n_segments_the_reduce_scatter_runs_in_phases) {
  const double MiB = 1048576;
  /* up to n segments of 1 MiB the plain ring: one phase */
  cr_assert_eq(dp_mpi_ring_phases(16, 16 * MiB), 1);
  cr_assert_eq(dp_mpi_ring_phases(16, 1e3), 1);
  cr_assert_eq(dp_mpi_ring_phases(1, 1e9), 1);
  /* above: one phase per segment of a block, rounded to the nearest
   * (Open MPI's num_phases: a remainder of more than half a segment per
   * block adds one) */
  cr_assert_eq(dp_mpi_ring_phases(16, 16 * MiB + 16), 1, "1 byte over a segment per block");
  cr_assert_eq(dp_mpi_ring_phases(16, 102e6), 6, "6.375e6 / 1 MiB = 6.08");
  cr_assert_eq(dp_mpi_ring_phases(16, 16 * 2.5 * MiB), 2, "a half rounds down");
  cr_assert_eq(dp_mpi_ring_phases(16, 16 * 2.6 * MiB), 3);
  cr_assert_eq(dp_mpi_ring_phases(2, 1e30), INT_MAX, "clamped, no overflow");
  /* each phase's step is a message: 4 ranks, blocks of 3 MiB = 3
   * phases; 1 ms per network message: 3 reduce-scatter steps pay 3 ms
   * each, 3 all-gather steps 1 ms each, 12 ms over the latency-free ring */
  dp_fabric f = mpi_fabric();
  double b = 4 * 3 * MiB;
  double free_ring = dp_mpi_ring_time(&f, b);
  f.net_lat = 1e-3;
  cr_assert_float_eq(dp_mpi_ring_time(&f, b) - free_ring, 12e-3, 1e-12);
}

/* ------------------------------------------------------ parameter servers */

Test(dp_ps, the_update_runs_where_the_variables_live) {
  /* a 1 s step of which 0.25 s is the optimizer on the GPU: with the
   * variables on a CPU parameter server TensorFlow applies them there */
  dp_model m = {.opt_s = 0.25};
  dp_fabric f = {.gpus = 8, .gpn = 8, .nodes = 1};
  sc_dp_spec spec = {.ps_place = SC_PS_HOST_CPU};
  dp_ctx c = {.spec = &spec, .m = &m, .f = &f, .scheme = DP_PS_SYNC, .compute_s = 1.0};
  cr_assert_float_eq(dp_ps_worker_compute(&c), 0.75, 1e-12, "variables on the host CPU");
  spec.ps_place = SC_PS_GPU;
  cr_assert_float_eq(dp_ps_worker_compute(&c), 1.0, 1e-12, "variables on GPU 0 keep it");
  c.scheme = DP_PS_SYNC_CPU_SERVERS;
  cr_assert_float_eq(dp_ps_worker_compute(&c), 0.75, 1e-12, "dedicated CPU servers");
  c.scheme = DP_PS_SYNC_DIST_REPLICATED, spec.ps_place = SC_PS_GPU, f.nodes = 2;
  cr_assert_float_eq(dp_ps_worker_compute(&c), 0.75, 1e-12, "PS tasks across servers");
  /* distributed_replicated assigns the updated 1 GB model to the GPU's
   * replica: read + write at 8 GB/s = 0.25 s back on the GPU */
  m.param_bytes = 1e9, f.gpu_mem_bw = 8e9;
  cr_assert_float_eq(dp_ps_worker_compute(&c), 1.0, 1e-12, "the replica's assign");
  c.scheme = DP_PS_SYNC_CPU_SERVERS;
  cr_assert_float_eq(dp_ps_worker_compute(&c), 0.75, 1e-12, "no replica to assign");
}

/* One layer of 1 GB with nothing to hide behind, on fabric f, one PS
 * task on the host CPUs: the scheme's step time, s. */
static double ps_step(dp_scheme scheme, dp_fabric f) {
  static dp_layer one;
  one = (dp_layer){.grad_bytes = 1e9, .tensors = 1};
  dp_model m = {.layers = &one, .n = 1, .grad_bytes = 1e9, .tensors = 1, .micro_steps = 1};
  sc_dp_spec spec = {.ps_place = SC_PS_HOST_CPU};
  dp_ctx c = {.spec = &spec, .m = &m, .f = &f, .scheme = scheme, .compute_s = 1.0};
  dp_cost out;
  sc_error err = {0};
  cr_assert_eq(dp_ps_cost(&c, &out, &err), SC_OK, "%s", err.msg);
  return out.step_s;
}

/* One server of 4 GPUs, variables on its CPUs; one layer of 1 GB of
 * gradient with no backward or forward to hide behind, so the step is
 * compute + push + pull. PCIe 1 GB/s shared by 2 GPUs, CPUs sum at
 * 2 GB/s, GPU links 2 GB/s, no fixed costs. */
static double ps_one_server_step(dp_scheme scheme) {
  return ps_step(scheme, (dp_fabric){.gpus = 4, .gpn = 4, .nodes = 1, .host_share = 2,
                                     .host_bw = 1e9, .cpu_reduce_bw = 2e9, .intra_bw = 2e9,
                                     .loop_bw = 4e9});
}

Test(dp_ps, one_server_pushes_sum_where_the_scheme_sums_and_pulls_only_copy) {
  /* parameter_server: the push is the larger of the PCIe copies (2 GPUs
   * x 1 GB over one 1 GB/s uplink: 2 s) and the CPUs summing 4 pushes and
   * applying (5 x 1 GB / 2 GB/s = 2.5 s); the pull copies 2 s and sums
   * nothing: 1 + 2.5 + 2 */
  cr_assert_float_eq(ps_one_server_step(DP_PS_SYNC), 5.5, 1e-9);
  /* distributed_replicated: replicated copies sum on the GPUs first
   * (2 x 3/4 x 1 GB at 2 GB/s = 0.75 s), one copy of the sum to the host
   * (1 s), over a socket to the PS process (50 us + 1 GB at 4 GB/s =
   * 0.25005 s), the CPUs apply it (0.5 s); in the same step the updated
   * value comes back over the socket (0.25005 s) and is copied to every
   * GPU (2 s): 1 + 2.50005 + 2.25005 */
  cr_assert_float_eq(ps_one_server_step(DP_PS_SYNC_DIST_REPLICATED), 5.7501, 1e-9);
  /* the asynchronous PS is distributed TensorFlow too: parameter_server's
   * 2.5 s push and 2 s pull each cross the socket once more, a worker's
   * own step of 6.0001 s; its 4 workers then share the one PS queue, each
   * putting a quarter of the 2.75005 s push on it (D = 0.6875125 s,
   * Z = 5.3125875 s), and mean value analysis (async.c) gives R(1) = D,
   * R(n) = D (1 + (n-1) R(n-1) / (Z + R(n-1))): 6.28771 s */
  cr_assert_float_eq(ps_one_server_step(DP_PS_ASYNC), 6.28771, 1e-5);
}

/* Two servers of one GPU, two PS tasks (one per server), one layer of
 * 1 GB with nothing to hide behind: PCIe 1 GB/s, network 1 GB/s, CPUs
 * sum at 2 GB/s, no fixed costs. */
static double ps_two_server_step(dp_scheme scheme) {
  return ps_step(scheme, (dp_fabric){.gpus = 2, .gpn = 1, .nodes = 2, .host_share = 1,
                                     .host_bw = 1e9, .cpu_reduce_bw = 2e9, .net_bw = 1e9,
                                     .net_stream_bw = 1e9, .loop_bw = 4e9});
}

Test(dp_ps, distributed_replicated_pulls_inside_the_step) {
  /* parameter_server: the push (1 s to the host, 1 s over the network,
   * 0.5 s apply) = 2.5 s; the pull read by the next forward: half the
   * variable from each of the 2 tasks (0.5 GB over 2 lanes: 0.5 s) and
   * the copy to the GPU (1 s): 1 + 2.5 + 1.5 */
  cr_assert_float_eq(ps_two_server_step(DP_PS_SYNC), 5.0, 1e-9);
  /* distributed_replicated: the variable's PS sends the updated value
   * back to the other server (1 s) and to its GPU (1 s) right after the
   * apply, in the same step: 1 + (2.5 + 2) */
  cr_assert_float_eq(ps_two_server_step(DP_PS_SYNC_DIST_REPLICATED), 5.5, 1e-9);
}

Test(dp_ps, across_servers_each_gpu_copies_on_its_own_uplink_share) {
  /* Two servers of 4 GPUs, two GPUs per 1 GB/s PCIe uplink, as in the
   * one-server case: a GPU's copy of 1 GB shares its uplink with one
   * other GPU (2 s), not with the whole server (4 x 1 GB: 4 s). */
  dp_fabric f = {.gpus = 8, .gpn = 4, .nodes = 2, .host_share = 2, .host_bw = 1e9,
                 .cpu_reduce_bw = 2e9, .intra_bw = 2e9, .net_bw = 1e9, .net_stream_bw = 1e9,
                 .loop_bw = 4e9};
  /* parameter_server: push = the copies (2 s) + the server's 4 GB to the
   * other server's PS task (4 s) + its apply (0.5 s); pull = half the
   * variable for each of the 4 GPUs over 2 lanes (2 GB: 2 s) + each
   * GPU's copy (2 s): 1 + 6.5 + 4 */
  cr_assert_float_eq(ps_step(DP_PS_SYNC, f), 11.5, 1e-9);
  /* distributed_replicated: the towers summed on the GPUs (2 x 3/4 x 1 GB
   * at 2 GB/s = 0.75 s) and one copy of the sum (1 s); 1 GB over the
   * network (1 s), apply (0.5 s), the value back (1 s) and copied to
   * every GPU (2 s): 1 + 1.75 + 4.5 */
  cr_assert_float_eq(ps_step(DP_PS_SYNC_DIST_REPLICATED, f), 7.25, 1e-9);
}

/* ------------------------------------------------------------- graphs */

static int in_degree(const dp_graph *g, int i) {
  int d = 0;
  for (int j = 0; j < g->n; j++) d += j != i && g->w[(size_t)i * g->n + j] != 0;
  return d;
}

Test(dp_graph, exponential_two_graph) {
  dp_graph g;
  sc_error err = {0};
  cr_assert_eq(dp_graph_parse("exp2", 8, &g, &err), SC_OK, "%s", err.msg);
  for (int i = 0; i < 8; i++) {
    cr_assert_eq(in_degree(&g, i), 3, "rank %d hears 1, 2, 4 back", i);
    double sum = 0;
    for (int j = 0; j < 8; j++) sum += g.w[(size_t)i * 8 + j];
    cr_assert_float_eq(sum, 1.0, 1e-12, "uniform mixing weights");
  }
  cr_assert(g.w[(size_t)5 * 8 + 1] > 0, "1 + 4 = 5");
  cr_assert(g.w[(size_t)4 * 8 + 1] == 0, "1 + 3 is not a power of two away");
  dp_graph_free(&g);
}

Test(dp_graph, edges_matrices_and_their_errors) {
  dp_graph g;
  sc_error err = {0};
  cr_assert_eq(dp_graph_parse("0-1,1-2,2-3", 4, &g, &err), SC_OK, "%s", err.msg);
  cr_assert_eq(in_degree(&g, 1), 2);
  dp_graph_free(&g);
  cr_assert_eq(dp_graph_parse("0-1,2-3", 4, &g, &err), SC_EINPUT);
  cr_assert(strstr(err.msg, "dp.graph") && strstr(err.msg, "not connected"), "%s", err.msg);
  cr_assert_eq(dp_graph_parse("0-1,1-7", 4, &g, &err), SC_EINPUT);
  cr_assert(strstr(err.msg, "bad edge"), "%s", err.msg);
  cr_assert_eq(dp_graph_parse("0.5,0.5;0.5,0.5", 2, &g, &err), SC_OK, "%s", err.msg);
  dp_graph_free(&g);
  cr_assert_eq(dp_graph_parse("1,0;0,1", 2, &g, &err), SC_EINPUT, "identity: no mixing");
  cr_assert(strstr(err.msg, "not connected"), "%s", err.msg);
  cr_assert_eq(dp_graph_parse("0.5,0.4;0.5,0.5", 2, &g, &err), SC_EINPUT);
  cr_assert(strstr(err.msg, "sums to"), "%s", err.msg);
  cr_assert_eq(dp_graph_parse("torus", 4, &g, &err), SC_EINPUT);
  cr_assert(strstr(err.msg, "unknown graph"), "%s", err.msg);
}

/* --------------------------------------------------------- prediction */

/* GPT-3 125M, 16 V100 in two servers over 100 Gb/s, 4 sequences per GPU. */
static sc_scenario job16(const char *scheme) {
  sc_scenario s;
  sc_scenario_default(&s);
  s.model = *sc_model_preset("gpt3-125m");
  s.cluster.gpu = *sc_gpu_preset("v100-sxm2-32gb");
  s.cluster.gpus = 16, s.cluster.gpus_per_node = 8, s.cluster.nvlink_domain = 8;
  s.cluster.nvlink_bw = 150e9, s.cluster.nic_bw = 12.5e9 / 8;
  sc_plan_default(&s.plan);
  s.plan.global_batch = 64, s.plan.micro_batch = 4, s.plan.dtype = SC_FP16;
  memset(&s.dp, 0, sizeof s.dp);
  snprintf(s.dp.scheme, sizeof s.dp.scheme, "%s", scheme);
  s.dp.network_bw = 100e9 / 8;
  return s;
}

static sc_dp_result predict(const sc_scenario *s) {
  sc_dp_result r;
  sc_error err = {0};
  cr_assert_eq(sc_dp_predict(s, &r, &err), SC_OK, "%s: %s", s->dp.scheme, err.msg);
  cr_assert(r.step_s >= r.compute_s && r.exposed_s >= 0 && isfinite(r.step_s), "%s", s->dp.scheme);
  cr_assert_float_eq(r.step_s, r.compute_s + r.exposed_s, 1e-9 * r.step_s, "%s", s->dp.scheme);
  return r;
}

Test(dp_predict, every_scheme_predicts_a_step_no_faster_than_compute) {
  for (int i = 0; i < DP_SCHEME_COUNT; i++) {
    if (i == DP_SINGLE_GPU || i == DP_REPLICATED_NCCL || i == DP_REPLICATED_COPY) continue;
    sc_scenario s = job16(dp_scheme_name((dp_scheme)i));
    snprintf(s.dp.graph, sizeof s.dp.graph, "ring");
    sc_dp_result r = predict(&s);
    cr_assert_str_eq(r.scheme, s.dp.scheme);
    cr_assert_float_eq(r.samples_per_s, 64 / r.step_s, 1e-6 * r.samples_per_s);
    cr_assert(r.efficiency > 0 && r.efficiency <= 1 + 1e-9, "%s: %g", r.scheme, r.efficiency);
  }
}

Test(dp_predict, pair_averaging_hides_its_fetch_and_save_behind_the_step) {
  /* async_sgd.py: the peer request and the save depend on no gradient,
   * so with a step long enough to cover both nothing is exposed, and a
   * shorter one exposes only what the longer of the two leaves (not
   * their sum); what a long step still shows is the wait behind the other
   * workers' requests at the busiest NIC (async.c), a sliver of the
   * exchange */
  sc_scenario s = job16("pair_averaging_async");
  s.plan.global_batch = 16 * 64, s.plan.micro_batch = 4; /* 16 micro-steps */
  sc_dp_result big = predict(&s);
  cr_assert(big.exposed_s > 0 && big.exposed_s < 0.01 * big.comm_s,
            "compute %g s covers %g s of exchange (exposed %g)", big.compute_s, big.comm_s,
            big.exposed_s);
  s = job16("pair_averaging_async");
  s.plan.global_batch = 16, s.plan.micro_batch = 1;
  sc_dp_result small = predict(&s);
  cr_assert_lt(small.exposed_s, small.comm_s - small.compute_s + 1e-12,
               "exposed %g s, exchange %g s, compute %g s", small.exposed_s, small.comm_s,
               small.compute_s);
}

Test(dp_predict, the_fabric_moves_the_step_the_right_way) {
  sc_scenario s = job16("allreduce_nccl");
  sc_dp_result fast = predict(&s);
  s.dp.network_bw = 10e9 / 8;
  sc_dp_result slow = predict(&s);
  cr_assert_gt(slow.exposed_s, fast.exposed_s, "10 Gb/s exposes more than 100 Gb/s");
  s = job16("allreduce_nccl");
  s.dp.transport = SC_DP_TR_TCP;
  sc_dp_result tcp = predict(&s);
  cr_assert_gt(tcp.comm_s, fast.comm_s, "sockets are slower than RDMA");
  s = job16("ps_sync_distributed_replicated");
  s.dp.ps_count = 1;
  sc_dp_result one = predict(&s);
  s.dp.ps_count = 2;
  sc_dp_result two = predict(&s);
  cr_assert_lt(two.step_s, one.step_s, "two PS shards serve in parallel");
  s = job16("allreduce_nccl");
  s.dp.fusion = SC_DP_FUSION_NONE;
  sc_dp_result none = predict(&s);
  cr_assert_gt(none.exposed_s, fast.exposed_s, "buckets overlap the backward pass");
}

Test(dp_predict, a_topology_runs_the_exchange_on_the_flow_engine) {
  sc_scenario s = job16("neighbor_allreduce_exp2");
  s.cluster.gpus_per_node = 1, s.cluster.nvlink_domain = 1;
  snprintf(s.cluster.topology, sizeof s.cluster.topology, "expo:n=16,bw=3.125");
  sc_dp_result expo = predict(&s);
  snprintf(s.cluster.topology, sizeof s.cluster.topology, "ring:n=16,bw=3.125");
  sc_dp_result ring = predict(&s);
  /* distance-8 peers cross 8 ring links: far slower than one expo link */
  cr_assert_gt(ring.comm_s, 2 * expo.comm_s, "ring %g, expo %g", ring.comm_s, expo.comm_s);
  snprintf(s.dp.scheme, sizeof s.dp.scheme, "allreduce_ring_nccl");
  sc_dp_result ar = predict(&s);
  snprintf(s.cluster.topology, sizeof s.cluster.topology, "ring:n=16,bw=6.25");
  sc_dp_result ar2 = predict(&s);
  cr_assert_lt(ar2.comm_s, ar.comm_s, "twice the link bandwidth, less time");
}

/* The topology's cable what-ifs (cluster.link_degrade, link_fail) apply
 * to the schemes' exchange as to every engine (engine/netcost.h
 * ncost_topology); without a topology they are an input error that
 * names the key, and a compare where nothing applies says why. */
Test(dp_predict, a_topologys_cable_what_ifs_apply_and_errors_are_told) {
  sc_scenario s = job16("allreduce_ring_nccl");
  s.cluster.gpus_per_node = 1, s.cluster.nvlink_domain = 1;
  snprintf(s.cluster.topology, sizeof s.cluster.topology, "ring:n=16,bw=3.125");
  sc_dp_result whole = predict(&s);
  snprintf(s.cluster.link_degrade, sizeof s.cluster.link_degrade, "gpu0-gpu1:0.5");
  sc_dp_result slowed = predict(&s);
  cr_assert_gt(slowed.comm_s, 1.5 * whole.comm_s, "a ring cable at half speed: %g vs %g s",
               slowed.comm_s, whole.comm_s);
  sc_dp_result r[32];
  sc_error err = {0};
  s.cluster.link_degrade[0] = 0;
  snprintf(s.cluster.link_fail, sizeof s.cluster.link_fail, "gpu0-gpu9");
  cr_assert_eq(sc_dp_compare(&s, r, 32, &err), -SC_EINPUT);
  cr_assert(strstr(err.msg, "cluster.link_fail"), "%s", err.msg);
  s.cluster.topology[0] = 0;
  err = (sc_error){0};
  cr_assert_eq(sc_dp_compare(&s, r, 32, &err), -SC_EINPUT);
  cr_assert(strstr(err.msg, "cluster.link_fail names cables but cluster.topology is empty"),
            "%s", err.msg);
  s.cluster.link_fail[0] = 0;
  snprintf(s.cluster.topology, sizeof s.cluster.topology, "fattree:k=4");
  err = (sc_error){0};
  cr_assert_eq(sc_dp_compare(&s, r, 32, &err), -SC_EINPUT, "no scheme applies: %s", err.msg);
  cr_assert(strstr(err.msg, "fattree") && strstr(err.msg, "fat_tree"), "%s", err.msg);
}

Test(dp_predict, the_timeline_holds_every_message_and_ends_at_the_step) {
  static const char *const schemes[] = {"allreduce_nccl", "allreduce_mpi_host", "ps_sync",
                                        "ps_sync_distributed_replicated"};
  for (size_t k = 0; k < sizeof schemes / sizeof schemes[0]; k++) {
    sc_scenario s = job16(schemes[k]);
    sc_dp_result r = predict(&s);
    sc_span *sp;
    size_t n;
    double step;
    sc_error err = {0};
    cr_assert_eq(sc_dp_timeline(&s, &sp, &n, &step, &err), SC_OK, "%s", err.msg);
    cr_assert_float_eq(step, r.step_s, 1e-12);
    int msgs = 0;
    double last = 0, bwd_end = 0;
    for (size_t i = 0; i < n; i++) {
      cr_assert(sp[i].dur >= 0 && sp[i].start >= 0, "%s span %zu", schemes[k], i);
      if (sp[i].kind == 'D') msgs++, last = fmax(last, sp[i].start + sp[i].dur);
      if (sp[i].kind == 'B') bwd_end = fmax(bwd_end, sp[i].start + sp[i].dur);
    }
    /* PS: pushes and pulls are counted as messages, the timeline shows the pushes */
    cr_assert(msgs == r.messages || 2 * msgs == r.messages, "%s: %d spans, %d messages",
              schemes[k], msgs, r.messages);
    cr_assert_float_eq(sp[n - 1].start + sp[n - 1].dur, step, 1e-9, "%s", schemes[k]);
    cr_assert_leq(last, step + 1e-9);
    /* what runs past the backward pass is the exposed exchange (or less:
     * the exposed part also holds the pulls and the SM slowdown) */
    cr_assert_leq(fmax(0, last - bwd_end), r.exposed_s + 1e-9, "%s", schemes[k]);
    /* the optimizer starts after the backward, slowed by the messages
     * beside it, has ended: the slowdown is in the step, and on the
     * timeline */
    cr_assert_eq(sp[n - 1].kind, 'O');
    /* DDP buckets: each message leaves when its last layer's backward
     * (as slowed by the messages before it) ends, or when the previous
     * message ends */
    for (size_t i = 0; k == 0 && i < n; i++) {
      if (sp[i].kind != 'D') continue;
      int at = 0;
      for (size_t j = 0; j < n && !at; j++)
        at = (sp[j].kind == 'B' || (sp[j].kind == 'D' && j != i)) &&
             fabs(sp[j].start + sp[j].dur - sp[i].start) < 1e-9;
      cr_assert(at, "message %zu at %g starts at no layer's or message's end", i, sp[i].start);
    }
    cr_assert_geq(sp[n - 1].start, bwd_end - 1e-9, "%s: optimizer at %g, backward ends %g",
                  schemes[k], sp[n - 1].start, bwd_end);
    free(sp);
  }
}

Test(dp_predict, jitter_costs_a_barrier_not_an_asynchronous_step) {
  sc_scenario s = job16("allreduce_nccl");
  sc_dp_result calm = predict(&s);
  s.dp.jitter = 0.1;
  sc_dp_result shaky = predict(&s);
  /* 16 workers: the expected largest of 16 standard normals is 1.766 */
  double want = calm.compute_s * 0.1 * 1.766;
  cr_assert_float_eq(shaky.step_s - calm.step_s, want, 0.01 * want, "%g vs %g",
                     shaky.step_s - calm.step_s, want);
  snprintf(s.dp.scheme, sizeof s.dp.scheme, "neighbor_allreduce_exp2");
  sc_dp_result pair = predict(&s);
  s.dp.jitter = 0;
  sc_dp_result pair0 = predict(&s);
  cr_assert_float_eq(pair.step_s - pair0.step_s, pair0.compute_s * 0.1 * 0.5642, 1e-9,
                     "one peer: the larger of two");
  snprintf(s.dp.scheme, sizeof s.dp.scheme, "ps_async");
  sc_dp_result a0 = predict(&s);
  s.dp.jitter = 0.2;
  sc_dp_result a1 = predict(&s);
  cr_assert_float_eq(a1.step_s, a0.step_s, 1e-12, "no barrier, no wait");
}

Test(dp_predict, input_errors_name_the_key) {
  sc_dp_result r;
  sc_error err = {0};
  sc_scenario s = job16("allreduce_magic");
  cr_assert_eq(sc_dp_predict(&s, &r, &err), SC_EINPUT);
  cr_assert(strstr(err.msg, "dp.scheme: unknown scheme 'allreduce_magic'") &&
            strstr(err.msg, "ps_sync"), "%s", err.msg);
  s = job16("ps_sync");
  s.dp.ps_count = 100000;
  cr_assert_eq(sc_dp_predict(&s, &r, &err), SC_EINPUT);
  cr_assert(strstr(err.msg, "dp.ps_count") && strstr(err.msg, "variables"), "%s", err.msg);
  s = job16("neighbor_allreduce_graph");
  snprintf(s.dp.graph, sizeof s.dp.graph, "0-1,2-3");
  cr_assert_eq(sc_dp_predict(&s, &r, &err), SC_EINPUT);
  cr_assert(strstr(err.msg, "not connected"), "%s", err.msg);
  s = job16("allreduce_nccl");
  s.plan.global_batch = 16 * 4096, s.plan.micro_batch = 4096;
  cr_assert_eq(sc_dp_predict(&s, &r, &err), SC_EINPUT);
  cr_assert(strstr(err.msg, "do not fit"), "%s", err.msg);
  s = job16("replicated_local_nccl");
  cr_assert_eq(sc_dp_predict(&s, &r, &err), SC_EINPUT);
  cr_assert(strstr(err.msg, "inside one server"), "%s", err.msg);
}

Test(dp_predict, compare_lists_the_applicable_schemes_fastest_first) {
  sc_scenario s = job16("");
  sc_dp_result r[32];
  sc_error err = {0};
  int n = sc_dp_compare(&s, r, 32, &err);
  cr_assert_geq(n, 10, "%d: %s", n, err.msg);
  int nccl = 0;
  for (int i = 0; i < n; i++) {
    if (i) cr_assert_leq(r[i - 1].step_s, r[i].step_s);
    nccl += !strcmp(r[i].scheme, "allreduce_nccl");
    cr_assert(strcmp(r[i].scheme, "replicated_local_nccl"), "two servers: no replicated");
    cr_assert(strcmp(r[i].scheme, "single_gpu"));
  }
  cr_assert_eq(nccl, 1);
  s.cluster.gpus = 1;
  s.plan.global_batch = 4;
  n = sc_dp_compare(&s, r, 32, &err);
  cr_assert_eq(n, 1);
  cr_assert_str_eq(r[0].scheme, "single_gpu");
  cr_assert_float_eq(r[0].efficiency, 1.0, 1e-12);
}

Test(dp_predict, gradients_follow_the_model) {
  sc_scenario s = job16("allreduce_nccl");
  sc_dp_result r = predict(&s);
  double params = sc_model_params(&s.model);
  /* fp16 gradients of every parameter */
  cr_assert_float_eq(r.grad_bytes, 2 * params, 1e-6 * r.grad_bytes, "%g vs %g", r.grad_bytes,
                     2 * params);
}

/* --------------------------------------------------------- validation */

/* Regression guards at today's figures (docs/accuracy.md), far from the
 * issue's targets (MAPE <= 15 %, ranking >= 85 %): every row predicted,
 * the exchange's own error (scaling efficiency against the one-GPU row)
 * and the ranking of schemes no worse than now. */
static void guard(const char *file, double max_mape, double max_scaling, double min_rank) {
  char path[512];
  snprintf(path, sizeof path, "%s/validation/dp_training/%s", SC_SHARED_DIR, file);
  sc_validation v;
  sc_error err = {0};
  cr_assert_eq(sc_validate_file(path, &v, &err), SC_OK, "needs ../shared: %s", err.msg);
  cr_expect_eq(v.skipped, 0, "%s: %d rows skipped", file, v.skipped);
  cr_expect_leq(v.mape, max_mape, "%s: MAPE %.3f", file, v.mape);
  if (max_scaling > 0)
    cr_expect(v.scaling_rows > 0 && v.scaling_err <= max_scaling, "%s: scaling %.3f over %d rows",
              file, v.scaling_err, v.scaling_rows);
  if (min_rank > 0)
    cr_expect(v.rank_pairs > 0 && v.rank_right / v.rank_pairs >= min_rank, "%s: ranking %.1f/%d",
              file, v.rank_right, v.rank_pairs);
  sc_validation_free(&v);
}

/* branch precnn29: the K80 at its 562 MHz base clock, P100 and K80 at
 * P100's delivered HBM2 bandwidth (docs/calibration.md "Pre-Volta clocks
 * and bandwidth"): MAPE 30.8 -> 18.7 %, scaling 8.5 -> 8.9 %; through
 * winograd29, tfcnn30 and p100nvl30 to 15.3 %, and branch dlperf35's
 * L2Loss ops per variable (model.l2_ops) to 14.8 %: the 15 %
 * target, guarded */
Test(dp_validate, tf_cnn_benchmarks) { guard("tf_cnn_benchmarks_2017.csv", 0.15, 0.08, 0.68); }
/* branch rankdp24: asynchronous workers queue at the shared PS lanes and
 * NICs (src/dp/async.c): ranking 79 -> 83 %, MAPE 26.9 -> 26.4 %; branch
 * review24a, a NIC shared by the other server's workers only: 82 %, 26.3 % */
/* branch kungfu35: the networks as Keras defines them (model.keras: 214
 * ResNet-50 tensors with their conv biases, 190 Inception-v3 tensors
 * without batch-norm scales): MAPE 27.7 -> 26.3 %, ranking 82 -> 80 %
 * (KungFu's 53 more ResNet messages put it behind Horovod-MPI at 16-64
 * per GPU, Horovod-MPI being twice too fast there: docs/accuracy.md) */
Test(dp_validate, kungfu) { guard("kungfu_2xdgx1_allreduce_ps_gossip.csv", 0.27, 0, 0.80); }
/* branch dlamp: AMP's longer compute (plan.amp) leaves the exchange a smaller
 * share of the predicted step, so the scaling error grew 21.9 -> 22.6 % while
 * the MAPE fell 27.1 -> 24.4 % (docs/accuracy.md) */
/* branch dlperf26: the gradients after an overlapped message wait for the
 * slowed backward: MAPE 21.1 -> 20.8 %, scaling 21.5 -> 20.2 % */
/* branch v100amp28: NGC releases before 20.06 run cuBLAS 10, whose 16-bit
 * GEMMs off multiples of 8 (BERT's 30,522-word decoder) use the CUDA
 * cores: MAPE 20.64 -> 20.13 % */
/* branch meta38: Horovod's cycle waits half a cycle on average for a
 * gradient ready while its thread idles (it counted ticks from the
 * backward's start): MAPE 18.4 -> 18.7 %, scaling 20.7 -> 21.0 % */
Test(dp_validate, dlperf) { guard("dlperf_v100_frameworks.csv", 0.205, 0.212, 0); }
/* branch mlperfbert: NVIDIA's BERT all-reduces after the backward pass,
 * TensorFlow's BERT runs padded: 17.4 -> 15.5 % (docs/accuracy.md) */
Test(dp_validate, mlperf) { guard("mlperf_resnet50_bert_v0.7-v2.1.csv", 0.16, 0, 0); }

Test(dp_validate, the_four_sets_are_read_whole) {
  static const char *const files[] = {"tf_cnn_benchmarks_2017.csv",
                                      "kungfu_2xdgx1_allreduce_ps_gossip.csv",
                                      "dlperf_v100_frameworks.csv",
                                      "mlperf_resnet50_bert_v0.7-v2.1.csv"};
  static const int rows[] = {207, 60, 164, 238};
  for (int i = 0; i < 4; i++) {
    char path[512];
    snprintf(path, sizeof path, "%s/validation/dp_training/%s", SC_SHARED_DIR, files[i]);
    FILE *f = fopen(path, "r");
    cr_assert(f, "needs ../shared: %s missing", path);
    fclose(f);
    sc_validation v;
    sc_error err = {0};
    cr_assert_eq(sc_validate_file(path, &v, &err), SC_OK, "%s", err.msg);
    cr_assert_eq(v.kind, SC_VALIDATION_DP);
    cr_assert_eq(v.n, rows[i], "%s: %d rows", files[i], v.n);
    cr_assert_eq(v.predicted + v.skipped, v.n);
    for (int j = 0; j < v.n; j++) {
      const sc_validation_row *r = &v.rows[j];
      if (r->skipped[0]) continue;
      cr_assert(r->predicted > 0 && r->measured > 0, "%s", r->id);
      cr_assert_float_eq(r->ape, fabs(r->predicted - r->measured) / r->measured, 1e-12);
    }
    cr_assert(strstr(v.note, "per family:"), "%s", v.note);
    cr_assert_leq(v.rank_right, v.rank_pairs);
    sc_validation_free(&v);
  }
}

/* ------------------------------------------------- the GPU-GPU link */

/* The fabric `auto` picks for 8 GPUs of a preset in one server, with the
 * preset's link kind replaced by `link` when link >= 0. */
static dp_fabric auto_fabric(const char *gpu, int link) {
  sc_scenario s;
  sc_scenario_default(&s);
  const sc_gpu *g = sc_gpu_preset(gpu);
  cr_assert(g, "no preset %s", gpu);
  s.cluster.gpu = *g;
  if (link >= 0) s.cluster.gpu.link = (sc_gpu_link)link;
  s.cluster.gpus = s.cluster.gpus_per_node = 8;
  s.cluster.nvlink_bw = s.cluster.gpu.nvlink_bw; /* as resolved: the GPU's */
  dp_fabric f;
  sc_error err = {0};
  cr_assert_eq(dp_fabric_resolve(&s, &f, &err), SC_OK, "%s", err.msg);
  return f;
}

/* A PCIe board is PCIe by its preset's link kind, though its nvlink_bw
 * (its slot's rate) is not 0; its own slot sets the bandwidth. */
Test(dp_schemes, auto_intra_follows_the_gpus_link_kind) {
  dp_fabric f = auto_fabric("a100-pcie-80gb", -1);
  cr_assert_eq(f.intra, SC_DP_INTRA_PCIE);
  cr_assert_float_eq(f.intra_bw, 31.5e9 * 0.88, 1, "gen4 x16: %g", f.intra_bw);
  f = auto_fabric("v100-pcie-16gb", -1);
  cr_assert_eq(f.intra, SC_DP_INTRA_PCIE);
  cr_assert_float_eq(f.intra_bw, 15.75e9 * 0.88, 1, "gen3 x16: %g", f.intra_bw);
  f = auto_fabric("a100-pcie-80gb", SC_LINK_NVLINK); /* told it has NVLink */
  cr_assert_eq(f.intra, SC_DP_INTRA_NVSWITCH);
  cr_assert_eq(auto_fabric("a100-sxm4-80gb", -1).intra, SC_DP_INTRA_NVSWITCH);
  cr_assert_eq(auto_fabric("v100-sxm2-16gb", -1).intra, SC_DP_INTRA_CUBEMESH);
  cr_assert_eq(auto_fabric("mi300x", -1).intra, SC_DP_INTRA_NVSWITCH, "Infinity Fabric");
}

/* One CPU thread's memory rate: 16 misses in flight x 64 B / 90 ns
 * (fabric.c), whatever the GPU; on a DGX-1 of 8 ranks it binds before
 * the rank's share of the 136.5 GB/s (17.1 GB/s). */
Test(dp_mpi, the_fabric_gives_one_threads_memory_rate) {
  dp_fabric f = auto_fabric("v100-sxm2-16gb", -1);
  cr_assert_float_eq(f.core_mem_bw, 11.38e9, 0.01e9, "1024 B / 90 ns: %g", f.core_mem_bw);
  cr_assert_float_eq(dp_mpi_thread_bw(&f), f.core_mem_bw, 1, "under 136.5e9 / 8");
}

/* TensorFlow 1.x's replicated NCCL (allreduce.c ar_tf_nccl) runs its
 * per-tensor all-reduces after the backward pass on NCCL 1.x's one ring:
 * on one server of 8 V100 every second of it is exposed, where the
 * replicated copies of the same server hide theirs behind the backward;
 * its exchange is its per-tensor single-ring all-reduces in full. */
Test(dp_predict, tf_replicated_nccl_runs_after_the_backward_on_one_ring) {
  sc_scenario s = job16("replicated_local_nccl");
  s.cluster.gpus = 8, s.plan.global_batch = 32;
  sc_dp_result n = predict(&s);
  cr_assert(n.comm_s > 0, "comm %g", n.comm_s);
  cr_assert_float_eq(n.exposed_s, n.comm_s, 1e-9 * n.comm_s, "exposed %g of %g s", n.exposed_s,
                     n.comm_s);
  snprintf(s.dp.scheme, sizeof s.dp.scheme, "replicated_local_copy");
  sc_dp_result c = predict(&s);
  cr_assert(c.exposed_s < c.comm_s, "copies overlap: %g of %g s", c.exposed_s, c.comm_s);
  snprintf(s.dp.scheme, sizeof s.dp.scheme, "allreduce_ring_nccl");
  sc_dp_result r = predict(&s);
  cr_assert(n.comm_s > 2 * r.comm_s, "one ring (%g s) against NCCL's six (%g s)", n.comm_s,
            r.comm_s);
}
