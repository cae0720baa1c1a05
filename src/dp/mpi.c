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
 *      MemcpyOutFusionBuffer, std::memcpy; a message of one tensor is
 *      reduced in place), the gpn ranks of a server sharing its memory
 *      bandwidth, two bytes moved per byte copied;
 *   3. Open MPI's ring (coll/base/coll_base_allreduce.c,
 *      ompi_coll_base_allreduce_intra_ring, the tuned choice for large
 *      commutative reductions): n - 1 reduce-scatter steps, each a
 *      blocking exchange of one block of b/n with the ring neighbours
 *      followed by ompi_op_reduce of the received block on the calling
 *      thread, then n - 1 all-gather steps that only move blocks. All
 *      hops of a step run at once, so a step lasts as long as its
 *      slowest hop: across servers one stream (the TCP BTL opens one
 *      connection per peer, btl_tcp_links = 1), inside a server shared
 *      memory at a socket stream's rate; the gpn ranks
 *      of a server reduce at once, sharing the server's memory
 *      bandwidth (three bytes moved per byte summed).
 *
 * Units: seconds, bytes, bytes/s.
 */
#include <assert.h>
#include <math.h>

#include "dp/dp.h"

double dp_mpi_ring_time(const dp_fabric *f, double bytes) {
  int n = f->gpus;
  if (n <= 1 || !(bytes > 0)) return 0;
  assert(f->cpu_reduce_bw > 0 && f->loop_bw > 0 && (f->nodes == 1 || f->net_stream_bw > 0));
  double blk = bytes / n;
  double local = blk / f->loop_bw + f->host_lat; /* shared memory */
  double hop = f->nodes > 1 ? fmax(local, blk / f->net_stream_bw + f->net_lat + f->net_msg_s)
                            : local;
  double reduce = blk * f->gpn / f->cpu_reduce_bw;
  return (n - 1) * (hop + reduce) + (n - 1) * hop;
}

double dp_mpi_allreduce_time(const dp_fabric *f, double bytes, int tensors) {
  if (f->gpus <= 1 || !(bytes > 0)) return 0;
  assert(f->host_mem_bw > 0);
  double copies = 2 * dp_host_time(f, bytes, f->host_share);
  double fusion = tensors > 1 ? 2 * bytes * f->gpn / (f->host_mem_bw / 2) : 0;
  return copies + fusion + dp_mpi_ring_time(f, bytes);
}
