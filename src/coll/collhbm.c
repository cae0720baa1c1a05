/*
 * collhbm.c -- HBM bytes of NCCL's collective kernels, per GPU.
 *
 * NCCL's ring primitives (prims_simple.h / prims_ll.h / prims_ll128.h,
 * all_reduce.h: send, recvReduceSend, recvReduceCopySend, recvCopySend,
 * recv) move a chunk of c = S / n bytes per step. On each GPU:
 *  - a chunk received lands in the receive FIFO in this GPU's memory
 *    (the peer's kernel, or the NIC with GPUDirect RDMA, writes it) and
 *    this GPU's kernel reads it back: 2 f c, f being the FIFO bytes per
 *    payload byte of the protocol (device.h: Simple 1; LL 16-byte lines
 *    of 8 data + 8 flag bytes, 2; LL128 128-byte lines of 120 data + 8
 *    flag bytes, 128 / 120);
 *  - the local input is read once (its chunks where they enter the ring
 *    or are reduced into it), the output written once;
 *  - what a step sends is built in registers from what it read, so a
 *    send adds nothing on the sender's HBM (the write lands on the
 *    receiver's, counted there).
 * Ring all-reduce: n - 1 reduce-scatter steps and n - 1 all-gather steps
 * each receive a chunk, the input is read (S) and the output written (S):
 * 4 f (n - 1) S / n + 2 S, i.e. 2 + n / (n - 1) bytes per bus byte with
 * Simple (3.14 at n = 8). All-gather and reduce-scatter: n - 1 steps,
 * 2 f (n - 1) S / n + S + S / n. All-to-all: each GPU reads what it sends
 * ((n - 1) S / n), receives the same through the FIFO and writes it out,
 * and copies its own block (2 S / n). Reduce (its root) and send/recv:
 * the payload through the FIFO plus one read and one write of it.
 * Broadcast: a GPU past the root receives the payload through the FIFO
 * and writes it out, reading no input of its own (the root reads its
 * input and writes its output, 2 S): 2 f S + S.
 * NVLS all-reduce: the switch reduces (multimem ld_reduce reads each
 * GPU's slice of the input from every GPU, multimem st writes the result
 * to every GPU): S read and S written per GPU, no FIFO.
 * The tree all-reduce is counted as the ring (the same bus bytes, each
 * chunk through a FIFO once per direction); NCCL's direct P2P mode
 * (writing straight into a peer's output over NVLink) skips the FIFO for
 * some steps, so the ring count is an upper bound there.
 */
#include "coll/collhbm.h"

#include <string.h>

/* FIFO bytes per payload byte (device.h: ncclLLFifoLine, NCCL_LL128_*). */
static double fifo_factor(const char *proto) {
  if (proto && !strcmp(proto, "LL")) return 2.0;              /* 8 data + 8 flag */
  if (proto && !strcmp(proto, "LL128")) return 128.0 / 120.0; /* 15 of 16 words */
  return 1.0;                                                 /* Simple */
}

double collhbm_bytes(coll_op op, double bytes, int n, const char *algo, const char *proto) {
  if (n <= 1 || bytes <= 0) return 0;
  double f = fifo_factor(proto), s = bytes, m = (n - 1.0) / n;
  switch (op) {
  case COLL_ALL_REDUCE:
    if (algo && !strncmp(algo, "nvls", 4)) return 2 * s;
    return 4 * f * m * s + 2 * s;
  case COLL_ALL_GATHER:
  case COLL_REDUCE_SCATTER: return 2 * f * m * s + s + s / n;
  case COLL_ALL_TO_ALL: return (2 + 2 * f) * m * s + 2 * s / n;
  case COLL_BROADCAST: return (2 * f + 1) * s;
  case COLL_REDUCE:
  case COLL_SEND_RECV: return (2 * f + 2) * s;
  case COLL_OP_COUNT: break;
  }
  return 0;
}

double collhbm_per_bus_byte(coll_op op, int n, const char *algo, const char *proto) {
  double bus = coll_busbw_factor(op, n);
  return bus > 0 ? collhbm_bytes(op, 1, n, algo, proto) / bus : 0;
}
