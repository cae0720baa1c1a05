/*
 * nccl_pipe.c -- the latency NCCL's Simple pipeline exposes (nccl_pipe.h).
 *
 * NCCL's Simple ring (src/device/all_reduce.h runRing, prims_simple.h;
 * not in ../shared/reference, read from NCCL 2.18-2.2x): per channel one
 * block runs, for each loop iteration (one chunk per rank; enqueue.cc
 * calcCollChunking: nLoops = DIVUP(nBytes, nChannels x nRanks x
 * chunkSize), chunkSize = stepSize x CHUNKSTEPS, stepSize = buffSize /
 * NCCL_STEPS, init.cc computeBuffSizes), the primitives send, n-2
 * recvReduceSend, recvReduceCopySend, n-2 recvCopySend, recv, each cut
 * into CHUNKSTEPS / SLICESTEPS slices (collectives.h). A slice is one
 * wait / copy / post round: it waits for the peer's slice of the previous
 * primitive (receive) and for a free slot of the next peer's FIFO (send),
 * which holds NCCL_STEPS steps (device.h), NCCL_STEPS / SLICESTEPS slices.
 * Channels are separate blocks with separate connections and run side by
 * side: nothing here is multiplied by the channel count.
 *
 * The rules, each with where it comes from:
 *
 * 1. First iteration: every primitive but the first waits one step's
 *    latency for its peer (the data dependency of the ring; the send
 *    waits only for its FIFO, which is empty): steps x step_lat + steps x
 *    c/b, NCCL's tuner formula (nsteps x hwLat once per collective,
 *    tuning.cc ncclTopoTuneModel). Until branch nccl26 it was prims x
 *    step_lat, one step more. The slice-level simulation's dependencies
 *    (tools/calib/ring_pipeline_sim.py, third table) would hide the step
 *    behind the chunk's other slice here as in later iterations; the
 *    measured single-node push rings (V100 of 3-7 GPUs at one iteration,
 *    the H100 and GB200 training sets) do not show that, so the first
 *    iteration keeps NCCL's fitted per-step figure, which includes
 *    per-slice work of the block (barriers, the system fence before each
 *    post, the flag) that no pipeline hides (docs/network.md, "First
 *    iteration and the flush").
 * 2. Later iterations, push (P2P write and the network): the block goes on
 *    with the next chunk while earlier slices are on the wire, so the step
 *    latency overlaps copies except where one of two bounds binds:
 *    - the ring's cycle: a slice of primitive j waits for the peer's slice
 *      of j-1 plus one step; the other slices of the chunk are copied
 *      meanwhile, so a primitive takes max(c/b, step_lat + c/(spc b)), the
 *      mean step latency because the wait repeats around the ring;
 *    - the FIFO (device.h NCCL_STEPS): slice k+fifo waits for the
 *      receiver to finish slice k, which the sender finished a hop's
 *      latency and one receiver copy earlier, so on the slowest hop each
 *      slice takes at least (hop + 2 c/(spc b)) / fifo.
 *    A slice-level simulation of these dependencies (tools/calib/
 *    ring_pipeline_sim.py) gives per-primitive times 0-4 % below these
 *    (never above) for uniform rings and rings with a slow network hop
 *    between nodes (docs/network.md).
 * 3. Pull (P2P read, Ampere NVLink; paths.cc ncclTopoCheckP2p): the
 *    receiving block reads each slice after its flag, a round trip serial
 *    with its copy: step_lat per slice in every iteration.
 * 4. Chain (broadcast, reduce: CHUNKSTEPS = SLICESTEPS = 1, pattern
 *    PipelineFrom/To): the first chunk crosses the hops with a copy and a
 *    step's latency each; the rest follow one per copy or per FIFO round
 *    of the slowest hop, (hop + 2 c/b) / fifo, c a full chunk (NCCL's
 *    loop moves full chunks, then the remainder, which coll_nccl.c passes
 *    as a fraction of an iteration). No cycle. Pulling, each
 *    chunk (one slice) is a read after its flag, as in rule 3: one per
 *    copy plus a step's latency.
 */
#include "coll/nccl_pipe.h"

#include <assert.h>

static double pos(double x) { return x > 0 ? x : 0; }

double nccl_pipe_ring_later(const nccl_pipe *p) {
  assert(p->spc >= 1 && p->fifo >= 1);
  double cs = p->cb / p->spc; /* one slice's copy */
  double cycle = p->step_lat - (p->spc - 1) * cs;
  double wire = p->spc * (p->hop + 2 * cs) / p->fifo - p->cb;
  return pos(cycle > wire ? cycle : wire);
}

double nccl_pipe_ring_time(const nccl_pipe *p) {
  assert(p->iters >= 1 && p->steps >= 1 && p->prims >= p->steps);
  double copies = p->iters * p->steps * p->cb;
  if (p->pull) return copies + p->iters * p->prims * p->spc * p->step_lat;
  return copies + p->steps * p->step_lat + (p->iters - 1) * p->prims * nccl_pipe_ring_later(p);
}

double nccl_pipe_chain_time(const nccl_pipe *p) {
  assert(p->iters >= 1 && p->steps >= 1 && p->fifo >= 1);
  double period = (p->hop + 2 * p->cb) / p->fifo;
  double own = p->pull ? p->cb + p->step_lat : p->cb; /* rule 3 when pulling */
  if (period < own) period = own;
  return p->steps * (p->cb + p->step_lat) + (p->iters - 1) * period;
}
