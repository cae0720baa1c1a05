/*
 * offload.h -- activation offloading's copies on the compute stream's
 * clock (plan.offload_layers; module prefix: offl_).
 *
 * Megatron's CPU offloading (Transformer Engine's cpu_offload context,
 * docs/model.md "Activation offloading on the host path") copies the
 * saved activations of each of the first N layers to host memory on a
 * copy stream while the next layer runs forward, and the compute stream
 * waits for that copy before it goes on (an event wait: the host issues
 * on meanwhile); backward, a layer's activations come back while the
 * layer after it runs its backward, one layer ahead. So an offloaded
 * layer holds the stream for the larger of its own wall time -- its
 * kernels, the collectives that sit on the stream, and the host's stretch
 * of a launch-bound layer -- and its copy, at the GPU's share of the
 * server's host path (hostlink_bw). As before, a layer's copy is set
 * against its own queue (the layers offloaded are alike).
 *
 * In the queue model's terms (analytic.c): a queue maps the GPU clock's
 * lead d over the host's to max(K, d + M) while the host advances by its
 * host time A; the wait makes the GPU clock at least `copy` past where
 * the layer began, d' >= d + copy - A, so the layer with its wait is the
 * queue (K, max(M, copy - A)) -- repetitions and the walks of fsdp.c and
 * dpoverlap.c need nothing else. A faster GPU shortens a layer's wall
 * time, never its stream time below the copy: the step never grows.
 */
#ifndef SC_ENGINE_OFFLOAD_H
#define SC_ENGINE_OFFLOAD_H

#include "engine/engine.h"

/* Seconds to copy one instance of segment sg's saved activations over
 * the host path (0 for a segment that is not a layer, which is not
 * offloaded). */
double offl_copy(const eng *e, const xg_segment *sg);

/* How many instances of run j (forward order) of stage st are offloaded:
 * the stage's first plan.offload_layers layers, in forward order. */
int offl_count(const eng *e, const xg_stage *st, int j);

/* Queue q with the stream's wait on a copy of `copy` seconds (above). */
eng_qsum offl_wait(const eng_qsum *q, double copy);

/* The queue of instance i (forward order) of run j of stage st in pass
 * bwd (0 forward, 1 backward with its recomputation): e->qs's, or, for
 * an offloaded layer, that queue with its wait written into *tmp.
 * Borrowed from e or tmp. */
const eng_qsum *offl_queue(const eng *e, const xg_stage *st, int j, int i, int bwd,
                           eng_qsum *tmp);

#endif
