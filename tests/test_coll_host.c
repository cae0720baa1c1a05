/*
 * test_coll_host.c -- the host side of a collective (src/coll/coll_nccl.c,
 * coll_host_time) and the process layout a collective row states
 * (src/validate/collrow.c).
 *
 * A benchmark that issues collectives back to back runs each at the
 * slower of the GPU's time and the host's; one thread driving N GPUs
 * (nccl-tests -g N) enqueues and launches N kernels per op, 5.186 us each
 * and 0.312 us more per channel the op runs on (collective_benchmarks.csv
 * rows 83-90, least squares: 43.83 us / 8 GPUs at one channel, 101.9 at
 * 24), while its GPUs
 * run the kernels back to back, 2.43 us apart (host_overheads.csv row 1).
 */
#include <criterion/criterion.h>
#include <math.h>

#include "coll/coll.h"
#include "validate/collrow.h"

/* 8 A100 on NVSwitch, NCCL's per-hop latencies, host_gpus GPUs a thread */
static coll_group a100x8(int host_gpus) {
  coll_group g = {8, 8, 80, 300e9, 25e9, 0.6e-6, 2.7e-6, 8, host_gpus, 0, 0, 0};
  return g;
}

#define US 1e-6

/* 8 x (5.186 + 0.312) = 43.984 us on one channel, 8 x (5.186 + 24 x
 * 0.312) = 101.392 us on 24 */
Test(coll_host, host_time_is_per_gpu_and_channel_of_the_thread) {
  coll_group g = a100x8(8);
  cr_expect(fabs(coll_host_time(&g, 1) - 43.984 * US) < 1e-12, "8 GPUs: %g s",
            coll_host_time(&g, 1));
  cr_expect(fabs(coll_host_time(&g, 24) - 101.392 * US) < 1e-12, "8 GPUs, 24 channels: %g s",
            coll_host_time(&g, 24));
  g.host_gpus = 1;
  cr_expect(fabs(coll_host_time(&g, 1) - 5.498 * US) < 1e-12);
  g.host_gpus = 0; /* unset = one GPU per process */
  cr_expect(fabs(coll_host_time(&g, 2) - 5.81 * US) < 1e-12);
}

/* One thread driving 8 A100 (-g 8), ring LL: NCCL keeps one channel per
 * 512 threads x 8 B x 8 ranks = 32 KiB (enqueue.cc), so 256 KiB runs on 8
 * channels, 1 MiB on all 24; the host's 8 x (5.186 + 8 x 0.312) = 61.456
 * us and 8 x (5.186 + 24 x 0.312) = 101.392 us are above the kernels
 * (26.5 and 35.9 us) and are the ops' times (rows 86 and 88 measure 61.38
 * and 101.9 us). */
Test(coll_host, host_time_grows_with_the_channels_nccl_keeps) {
  coll_group all = a100x8(8);
  coll_cost a = coll_nccl_time(COLL_ALL_REDUCE, 256 * 1024, &all);
  coll_cost b = coll_nccl_time(COLL_ALL_REDUCE, 1 << 20, &all);
  cr_expect_str_eq(a.proto, "LL");
  cr_expect_str_eq(b.proto, "LL");
  cr_expect(fabs(a.time - 61.456 * US) < 1e-9, "256 KiB: %g us", a.time / US);
  cr_expect(fabs(b.time - 101.392 * US) < 1e-9, "1 MiB: %g us", b.time / US);
}

/* 1 KiB all-reduce on 8 A100 runs ring LL: 20 (launch) + 6.6 (baseLat) +
 * 14 steps x 0.6 (NVLink LL) = 35.0 us plus 1024 B on the one channel NCCL
 * keeps (240 x 0.5 / 24 = 5 GB/s of busBw) / (5 GB/s x 8/14) = 0.36 us,
 * GPU-bound with one GPU per process; one thread driving all
 * 8 takes 8 x (5.186 + 0.312) = 43.984 us, and the op costs that. */
Test(coll_host, one_thread_for_eight_gpus_is_host_bound_when_small) {
  coll_group one = a100x8(1), all = a100x8(8);
  coll_cost a = coll_nccl_time(COLL_ALL_REDUCE, 1024, &one);
  coll_cost b = coll_nccl_time(COLL_ALL_REDUCE, 1024, &all);
  double gpu = (20 + 6.6 + 14 * 0.6) * US + 1024 / (5e9 * 8 / 14);
  cr_expect(fabs(a.time - gpu) < 1e-9, "one GPU a process: %g us, expected %g", a.time / US,
            gpu / US);
  cr_expect(fabs(b.time - 43.984 * US) < 1e-9, "8 GPUs a thread: %g us", b.time / US);
  cr_expect_str_eq(a.proto, b.proto, "the layout does not change NCCL's choice");
}

/* The kernels' own time (time - launch, what the training engines use) is
 * the same whatever drives them. One thread driving the GPUs (-g N)
 * costs max(kernel + the stream's launch gap 2.43 us, N x (5.186 + 0.312
 * x channels) us): its per-op host work is what rows 83-90 measured, no
 * COLL_LAUNCH_S on top; one
 * GPU per process keeps kernel + COLL_LAUNCH_S (20 us, fitted). */
Test(coll_host, kernel_time_does_not_depend_on_the_layout) {
  coll_group one = a100x8(1), all = a100x8(8);
  for (double b = 1024; b <= 1 << 30; b *= 8) {
    coll_cost x = coll_nccl_time(COLL_ALL_REDUCE, b, &one);
    coll_cost y = coll_nccl_time(COLL_ALL_REDUCE, b, &all);
    double kernel = x.time - x.launch;
    cr_expect(fabs(kernel - (y.time - y.launch)) < 1e-12, "%g B", b);
    cr_expect(fabs(x.time - (kernel + 20 * US)) < 1e-12, "%g B: one GPU a process", b);
    int as_host_or_kernel = 0; /* the host at some channel count, or the kernels */
    for (int nc = 1; nc <= 24; nc++)
      if (fabs(y.time - fmax(kernel + 2.43 * US, coll_host_time(&all, nc))) < 1e-12)
        as_host_or_kernel = 1;
    cr_expect(as_host_or_kernel, "%g B: 8 GPUs a thread: %g us, kernel %g us", b, y.time / US,
              kernel / US);
  }
  coll_cost big8 = coll_nccl_time(COLL_ALL_REDUCE, 1 << 30, &all);
  cr_expect(fabs(big8.launch - 2.43 * US) < 1e-12, "1 GiB: launch %g us", big8.launch / US);
}

/* Two GPUs a thread, 8 B: the kernel (ring LL: 6.6 + 2 x 0.6 = 7.8 us,
 * plus 8 B on one channel of 5 GB/s) and its launch gap (10.2 us) hide
 * under the host's 2 x (5.186 + 0.312) = 10.996 us, where one GPU a process pays
 * 20 + 7.8 us and the 8 B. */
Test(coll_host, two_gpus_a_thread_small_is_host_bound) {
  coll_group g = {2, 2, 80, 300e9, 25e9, 0.6e-6, 2.7e-6, 8, 2, 0, 0, 0};
  coll_cost c = coll_nccl_time(COLL_ALL_REDUCE, 8, &g);
  cr_expect(fabs(c.time - 10.996 * US) < 1e-12, "%g us", c.time / US);
  g.host_gpus = 1;
  coll_cost d = coll_nccl_time(COLL_ALL_REDUCE, 8, &g);
  cr_expect(fabs(d.time - ((20 + 7.8) * US + 8 / 5e9)) < 1e-12, "%g us", d.time / US);
}

/* The tree keeps NCCL's plain LL thread threshold (tuning.cc multiplies
 * only the ring's by the ranks): 2 x 8 A100, 64 KiB runs tree LL on
 * min(16 kernel channels, 64 KiB / (512 threads x 8 B)) = 16 channels, so
 * a thread driving 8 of the GPUs spends 8 x (5.186 + 16 x 0.312) = 81.424
 * us, above the kernels; with the ring's threshold (x 16 ranks) it would
 * have been one channel, 43.984 us. */
Test(coll_host, tree_ll_keeps_the_plain_thread_threshold) {
  coll_group g = {16, 8, 80, 300e9, 25e9, 0.6e-6, 2.7e-6, 8, 8, 0, 0, 0};
  coll_cost c = coll_nccl_time(COLL_ALL_REDUCE, 65536, &g);
  cr_expect_str_eq(c.algo, "tree");
  cr_expect_str_eq(c.proto, "LL");
  cr_expect(fabs(c.time - 81.424 * US) < 1e-9, "%g us", c.time / US);
}

Test(collrow, host_gpus_from_the_nccl_tests_header) {
  cr_expect_eq(collrow_host_gpus("x; nccl-tests header: nThread 1 nGpus 8 minBytes 8 maxBytes 1"), 8);
  cr_expect_eq(collrow_host_gpus("nGpus 2"), 2);
  cr_expect_eq(collrow_host_gpus("single node, in-place, NCCL 2.18.5"), 1, "not stated: one");
  cr_expect_eq(collrow_host_gpus(""), 1);
  cr_expect_eq(collrow_host_gpus(NULL), 1);
  cr_expect_eq(collrow_host_gpus("nGpus 0"), 1, "implausible count: one");
  cr_expect_eq(collrow_host_gpus("nGpus -3"), 1);
  cr_expect_eq(collrow_host_gpus("nGpus many"), 1);
  cr_expect_eq(collrow_host_gpus("nGpus 4096"), 1);
}
