/*
 * nccl_pipe.h -- how much of NCCL's per-step latency the Simple
 * protocol's pipeline exposes in a ring or a chain (module prefix:
 * nccl_pipe_). coll_nccl.c gives it the chunking (loop iterations, chunk,
 * slices) and the latencies; the rules and their NCCL sources are in
 * nccl_pipe.c.
 */
#ifndef SC_COLL_NCCL_PIPE_H
#define SC_COLL_NCCL_PIPE_H

/* One channel of a Simple ring or chain. Seconds unless stated. */
typedef struct nccl_pipe {
  double iters;    /* loop iterations (chunks per rank and channel), >= 1 */
  int steps;       /* the ring's data steps per iteration (2(n-1), n-1) */
  int prims;       /* primitives per iteration (2n-1, n; a chain: n-1) */
  double spc;      /* slices per chunk, 1..CHUNKSTEPS/SLICESTEPS */
  double cb;       /* one chunk's copy at the channel's bandwidth, c / b */
  double step_lat; /* the ring's mean per-step latency (tuner's / steps) */
  double hop;      /* the slowest hop's per-step latency */
  int fifo;        /* slices a connection holds: NCCL_STEPS / SLICESTEPS */
  int pull;        /* 1: P2P read (each slice waits, see nccl_pipe.c) */
} nccl_pipe;

/* Exposed latency per primitive of a pushing ring after its first
 * iteration, >= 0. */
double nccl_pipe_ring_later(const nccl_pipe *p);

/* The channel's time of a ring (all-reduce, all-gather, reduce-scatter):
 * copies plus exposed latency, without NCCL's baseLat and the launch. */
double nccl_pipe_ring_time(const nccl_pipe *p);

/* The channel's time of a chain (broadcast, reduce): the first chunk
 * across `steps` hops, the others one per period. */
double nccl_pipe_chain_time(const nccl_pipe *p);

#endif /* SC_COLL_NCCL_PIPE_H */
