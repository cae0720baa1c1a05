/*
 * tgraph_write.h -- a traced rank written back as a PyTorch profiler
 * (Kineto) trace that the Kineto loader reads into the same graph
 * (module prefix: tgw_).
 *
 * What the replay uses, and only that: ProfilerSteps (user_annotation),
 * host items (cuda_runtime, with their correlation ids), GPU operations
 * (kernel, gpu_memcpy, gpu_memset, with stream and correlation; a
 * collective with "Collective name", "In/Out msg nelems" in bytes
 * (dtype "Byte") and "Group size"), deviceProperties and distributedInfo.
 * What the loader would otherwise infer from the times is stated: every
 * GPU operation has a number ("stepcast op"), every host call the one it
 * waits for ("stepcast wait op", -1 none) and its time after that wait
 * ("stepcast own us"), so an edited kernel length moves the calls that
 * wait for it. Times are written with 17 significant digits, so the graph
 * read back replays to the same step. A user may edit the file (a
 * kernel's dur, a collective's size, events removed or added) and replay
 * it.
 */
#ifndef SC_TRACE_TGRAPH_WRITE_H
#define SC_TRACE_TGRAPH_WRITE_H

#include <stdio.h>

#include "trace/tgraph.h"

void tgw_write(const tg_rank *r, FILE *out);

#endif
