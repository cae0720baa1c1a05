/*
 * kungfu.c -- KungFu's all-reduce over its Go runtime (allreduce_kungfu),
 * as ../shared/reference/kungfu runs it; see dp.h.
 *
 * What the source does with one all-reduce of b bytes (a gradient tensor:
 * sync_sgd.py's group_all_reduce, NCCL only with nccl=True, so the
 * tensors go through TensorFlow's copies to host memory and back):
 *
 *   - session.go runStrategiesWithHash: the buffer is cut into
 *     ceil(b / 1 MiB) chunks, each run on its own goroutine at once, each
 *     through the reduce graph and then the broadcast graph of the
 *     strategy its hash picks. BINARY_TREE_STAR (the default across
 *     hosts; STAR on one host, strategy.go autoSelect) is a list of ONE
 *     strategy, so every chunk takes the same graph and the same masters.
 *   - topology.go genBinaryTreeStar: the first rank of each host is its
 *     master; the others are a star around it; the masters form a binary
 *     tree (master i's children 2i+1, 2i+2). GenDefaultReduceGraph is the
 *     reverse with a self-loop on every rank.
 *   - session.go runGraphs: on the reduce graph a rank receives every
 *     predecessor's chunk (recvOnto, in parallel), sums each into its
 *     buffer (kb.Transform2 on the CPU, float32) and then sends the sum on;
 *     on the broadcast graph it receives the whole chunk from its parent
 *     (recvInto) and then sends it to its children. A chunk therefore
 *     crosses, one after the other, the local hop to its master, the tree
 *     up to the root and down again, and the local hop back: store and
 *     forward, 2 + 2 x depth hops.
 *   - Every byte goes through sockets (TCP; over loopback inside a host):
 *     a send copies it from the process into the kernel (one read, one
 *     write of host memory) and a receive copies it out (one read, one
 *     write); across hosts the NIC's DMA reads or writes it once more.
 *
 * So per byte of buffer the busiest host's memory carries (L = gpn - 1
 * local peers, c children and p parent of its master in the tree):
 *   8 L            L loopback transfers up and L down, 4 bytes each
 *   3 (L + c)      the master's sums, 3 bytes each (two reads, one write)
 *   6 (p + c)      its network transfers (p + c out and p + c in), a
 *                  socket copy and a DMA each
 * and the chunks, all in flight at once, drain at the slowest of: that
 * memory traffic at the server's memory bandwidth, one socket stream per
 * connection (each connection carries the buffer once per direction), the
 * host's NIC ((p + c) buffers per direction). A message costs the
 * device-to-host and host-to-device copies of the whole tensor (the
 * KungFu op's input and output), the first chunk's way through every hop,
 * and the rest of the buffer at the drain rate.
 */
#include <math.h>

#include "dp/dp.h"

#define DP_KF_CHUNK (1024.0 * 1024.0) /* session.go chunkSize = 1 Mi bytes */
#define DP_KF_LOOP_BYTES 4    /* loopback: send copy + receive copy, r+w each */
#define DP_KF_NET_BYTES 3     /* across hosts: a socket copy (r+w) + the NIC's DMA */
#define DP_KF_SUM_BYTES 3     /* Transform2: two reads, one write */

/* The tree of masters: children of master i among k (GenBinaryTree). */
static int kf_children(int i, int k) { return (2 * i + 1 < k) + (2 * i + 2 < k); }

/* Depth of the binary tree of k masters (the deepest master's level). */
static int kf_depth(int k) {
  int d = 0;
  for (int last = k - 1; last > 0; last = (last - 1) / 2) d++;
  return d;
}

void dp_kf_plan_for(int nodes, int gpn, dp_kf_plan *p) {
  int L = gpn > 1 ? gpn - 1 : 0;
  p->hops_local = L > 0 ? 2 : 0;
  p->hops_net = 2 * kf_depth(nodes);
  p->mem_per_byte = 0;
  p->net_edges = 0;
  for (int i = 0; i < nodes; i++) {
    int c = kf_children(i, nodes), par = i > 0;
    double m = DP_KF_LOOP_BYTES * 2.0 * L + DP_KF_SUM_BYTES * (double)(L + c) +
               DP_KF_NET_BYTES * 2.0 * (par + c);
    if (m > p->mem_per_byte) p->mem_per_byte = m;
    if (par + c > p->net_edges) p->net_edges = par + c;
  }
}

/* Seconds per byte at which the chunks drain (the slowest resource); on
 * a named topology the flow engine's rate stands for the network's. */
static double kf_drain(const dp_fabric *f, const dp_kf_plan *p) {
  double r = p->mem_per_byte / f->host_mem_bw;
  if (p->hops_local) r = fmax(r, 1 / f->loop_bw);
  if (f->topo_rate > 0) return fmax(r, f->topo_rate);
  if (p->hops_net) {
    r = fmax(r, p->net_edges / f->net_bw);
    r = fmax(r, 1 / f->net_stream_bw);
  }
  return r;
}

double dp_kf_allreduce_time(const dp_fabric *f, double bytes) {
  if (f->gpus <= 1 || bytes <= 0) return 0;
  dp_kf_plan p;
  dp_kf_plan_for(f->nodes, f->gpn, &p);
  double chunk = fmin(bytes, DP_KF_CHUNK);
  double first = p.hops_local * dp_loop_time(f, chunk);
  if (p.hops_net) first += p.hops_net * dp_net_time(f, chunk, 1);
  return 2 * dp_host_time(f, bytes, f->host_share) + first + (bytes - chunk) * kf_drain(f, &p);
}
