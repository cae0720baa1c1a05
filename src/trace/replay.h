/*
 * replay.h -- replay a traced job as a dependency graph (module prefix:
 * rp_).
 *
 * Every host item and GPU operation of every rank becomes a node with a
 * duration and edges "start >= (pred start or end) + w":
 *   - a host thread is a chain: each item keeps the gap (us) that the
 *     trace shows after the item before it (the Python and framework
 *     work between runtime calls);
 *   - a GPU operation starts after its launch call started plus the launch
 *     latency, after the operation before it on its stream ended, and after
 *     the operation on another stream that it waited for (an event wait: in
 *     the trace it started when that one ended);
 *   - a synchronising call is two nodes: its own time, then the end of the
 *     wait for the GPU operation it waited on; the thread goes on after;
 *   - collectives joined across ranks start together when the last rank
 *     is ready and take the time of the fastest rank's kernel (the one that
 *     did not wait for the others) or the network model's.
 * Nodes are evaluated in topological order (Kahn, a heap keyed by traced
 * time, so ties are deterministic); each remembers which edge bound its
 * start, which gives the critical path of each step.
 */
#ifndef SC_TRACE_REPLAY_H
#define SC_TRACE_REPLAY_H

#include "stepcast.h"
#include "trace/chakra.h"
#include "trace/tgraph.h"

/* A constraint on a node's start: >= (use_start ? from.start : from.end) + w. */
typedef struct rp_edge {
  int from; /* node index */
  int use_start;
  double w;   /* us */
  int is_gap; /* w is host time (a gap or launch latency) */
} rp_edge;

/* What a node's time counts as on the critical path. */
typedef enum rp_cat { RP_HOST = 0, RP_SYNC, RP_KERNEL, RP_COPY, RP_COMM, RP_MARK } rp_cat;

typedef struct rp_node {
  double start, end; /* replayed, us */
  double dur;        /* us */
  double release;    /* earliest start, us (-inf none) */
  double key;        /* traced time, us: the heap order */
  int e0, ne;        /* edges[e0 .. e0+ne) */
  int bound;         /* edge that set start; -1: release */
  int rank, ref;     /* rank and index of its host item or GPU op */
  int cat;           /* rp_cat */
  int is_gpu;
} rp_node;

/* Node indices of one rank's items. */
typedef struct rp_map {
  int *hf, *hl; /* host item -> its first and last node (a sync: 2) */
  int *gn;      /* GPU op -> node */
} rp_map;

/* A replay: owned arrays, reused by the next replay of the same job. */
typedef struct rp_run {
  rp_node *nodes;
  int n, cap;
  rp_edge *edges;
  int n_edges, cap_edges;
  rp_map *map; /* one per rank */
  int n_map;
  char warn[512];
} rp_run;

/* Replay job j under w (NULL: as traced) into run and fill r. SC_OK,
 * SC_EINPUT (bad what-if), SC_EMODEL (nothing to replay), SC_ENOMEM. */
int rp_replay(rp_run *run, const tg_job *j, const sc_trace_whatif *w, sc_trace_result *r,
              sc_error *err);

/* Replay n Chakra ETs (one per rank; each its own dependency graph,
 * starting at 0): every node after its dependencies, for its traced
 * duration; a collective with no duration, or every collective with
 * w->comm_model, takes NCCL's modelled time over n ranks (or its group
 * under the what-if). The step is the longest rank. */
int rp_replay_chakra(rp_run *run, const ch_graph *g, int n, const sc_trace_whatif *w,
                     sc_trace_result *r, sc_error *err);

void rp_free(rp_run *run);

#endif
