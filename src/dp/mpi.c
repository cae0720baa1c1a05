/*
 * mpi.c -- MPI all-reduce in host memory: Horovod's MPI path with CPU
 * tensors over Open MPI (the `allreduce_mpi_host` scheme); see dp.h.
 *
 * One fused message of b bytes per rank goes through four stages, one
 * after another on the rank's Horovod background thread:
 *
 *   1. host copies: with no GPU all-reduce built in, TensorFlow places
 *      the Horovod op on the CPU and copies each gradient to host memory
 *      and the result back (two PCIe copies, two GPUs per switch uplink);
 *   2. fusion buffer: Horovod copies the message's tensors into its
 *      fusion buffer and the result out of it (MemcpyInFusionBuffer /
 *      MemcpyOutFusionBuffer, std::memcpy on the background thread; a
 *      message of one tensor is reduced in place), two bytes moved per
 *      byte copied, at one thread's rate (f->core_mem_bw) or the rank's
 *      share of the server's memory bandwidth, whichever is lower;
 *   3. Open MPI's ring (coll/base/coll_base_allreduce.c,
 *      ompi_coll_base_allreduce_intra_ring, the tuned choice for large
 *      commutative reductions): n - 1 reduce-scatter steps, each a
 *      blocking exchange of one block of b/n with the ring neighbours
 *      followed by ompi_op_reduce of the received block on the calling
 *      thread, then n - 1 all-gather steps that only move blocks. All
 *      hops of a step run at once, so a step lasts as long as its
 *      slowest hop: across servers one stream (the TCP BTL opens one
 *      connection per peer, btl_tcp_links = 1), inside a server shared
 *      memory at a socket stream's rate; the reduction reads two bytes
 *      and writes one per byte at the thread's rate above. The copies of
 *      a transfer run on the ranks' own threads too (send() and recv()
 *      copy between the user buffer and the kernel in the caller's
 *      system call; the vader BTL's single copy, process_vm_readv, in
 *      the receiver's): across servers the rank before the crossing
 *      copies the block it sends into its socket and the block it
 *      receives out of shared memory, two copies per step; on one
 *      server each rank copies the block it receives, one. A hop lasts
 *      at least those copies at the thread's rate.
 *   4. segments: Open MPI 3.x-4.0's fixed decision
 *      (coll/tuned/coll_tuned_decision_fixed.c,
 *      ompi_coll_tuned_allreduce_intra_dec_fixed; recalled, not in
 *      ../shared/reference) takes the plain ring up to n segments of
 *      1 MiB and above it ompi_coll_base_allreduce_intra_ring_segmented:
 *      the reduce-scatter runs in block / 1 MiB phases (rounded to the
 *      nearest, dp_mpi_ring_phases), each a full
 *      ring of n - 1 steps over one segment of every block (the same
 *      bytes, more messages: each pays the hop's latency and the TCP
 *      message cost); the all-gather then moves whole blocks.
 *
 * Units: seconds, bytes, bytes/s.
 */
#include <assert.h>
#include <limits.h>
#include <math.h>

#include "dp/dp.h"

#define DP_MPI_SEGMENT 1048576.0 /* segsize of the fixed decision, bytes */
#define DP_MPI_COPY_BYTES 2      /* memcpy: one read, one write per byte */
/* sum: two reads, one write per byte of the received block. The ring's
 * ompi_op_reduce(op, source, target, count, dtype) reduces in place:
 * "the original values in the target buffer are reduced with the values
 * in the source buffer and the result is stored in the target buffer"
 * (ompi/op/op.h of Debian's libopenmpi-dev 4.1.4, the inline that the
 * ring calls with the received block as source and the rank's block as
 * target): read source, read target, write target, three streams; the
 * target line is in cache when it is written (just read), so no
 * write-allocate read is added. Whether the buffer is passed in place
 * does not change the sum (Horovod's MPI calls pass MPI_IN_PLACE on its
 * own buffer: horovod/common/ops/nccl_operations.cc line 504 in
 * ../shared/reference, the cross-server step of its hierarchical
 * all-reduce; the CPU path's mpi_operations.cc is not there). */
#define DP_MPI_SUM_BYTES 3

/* ompi_coll_base_allreduce_intra_ring_segmented (coll_base_allreduce.c,
 * lines 662-667 of Open MPI 4.1.4, Debian's openmpi source package; not
 * changed since 1.x as we recall, so 4.0's too): num_phases = count / (size *
 * segcount), one more where the remainder exceeds half of size *
 * segcount (and size elements): the block's segments rounded to the
 * nearest, halves down. In bytes, segcount elements are one segment. */
int dp_mpi_ring_phases(int n, double bytes) {
  if (n <= 1 || !(bytes > n * DP_MPI_SEGMENT)) return 1;
  double whole = n * DP_MPI_SEGMENT, phases = floor(bytes / whole);
  if (bytes - phases * whole > whole / 2) phases += 1;
  return phases < INT_MAX ? (int)phases : INT_MAX;
}

double dp_mpi_thread_bw(const dp_fabric *f) {
  assert(f->host_mem_bw > 0 && f->gpn >= 1);
  double share = f->host_mem_bw / f->gpn;
  return f->core_mem_bw > 0 ? fmin(f->core_mem_bw, share) : share;
}

int dp_mpi_step_copies(const dp_fabric *f) { return f->nodes > 1 ? 2 : 1; }

double dp_mpi_ring_time(const dp_fabric *f, double bytes) {
  int n = f->gpus;
  if (n <= 1 || !(bytes > 0)) return 0;
  assert(f->loop_bw > 0 && (f->nodes == 1 || f->net_stream_bw > 0));
  double blk = bytes / n;
  double lat_local = f->host_lat;
  double lat_net = f->nodes > 1 ? f->net_lat + f->net_msg_s : 0;
  double move = f->nodes > 1 ? fmax(blk / f->loop_bw, blk / f->net_stream_bw) : blk / f->loop_bw;
  move = fmax(move, dp_mpi_step_copies(f) * DP_MPI_COPY_BYTES * blk / dp_mpi_thread_bw(f));
  double lat = fmax(lat_local, lat_net);
  int phases = dp_mpi_ring_phases(n, bytes);
  double scatter = (n - 1) * (move + phases * lat) + dp_mpi_sum_time(f, bytes);
  return scatter + (n - 1) * (move + lat);
}

double dp_mpi_sum_time(const dp_fabric *f, double bytes) {
  int n = f->gpus;
  if (n <= 1 || !(bytes > 0)) return 0;
  return (n - 1) * DP_MPI_SUM_BYTES * (bytes / n) / dp_mpi_thread_bw(f);
}

double dp_mpi_host_side(const dp_fabric *f, double bytes, int tensors) {
  if (f->gpus <= 1 || !(bytes > 0)) return 0;
  double copies = 2 * dp_host_time(f, bytes, f->host_share);
  double fusion = tensors > 1 ? 2 * DP_MPI_COPY_BYTES * bytes / dp_mpi_thread_bw(f) : 0;
  return copies + fusion;
}

double dp_mpi_allreduce_time(const dp_fabric *f, double bytes, int tensors) {
  return dp_mpi_host_side(f, bytes, tensors) + dp_mpi_ring_time(f, bytes);
}
