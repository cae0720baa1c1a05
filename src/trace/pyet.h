/*
 * pyet.h -- PyTorch execution traces (the JSON "ET" that
 * torch.profiler.ExecutionTraceObserver writes, schemas 1.0.1 to
 * 1.1.x-chakra) into a list of operators (module prefix: pet_).
 *
 * An ET holds every host operator of one process for one iteration: its
 * id, name, parent (its caller), thread and record-function id, but no
 * duration. Of each node this module keeps id, name, parent ("parent" in
 * schema 1.0.1, "ctrl_deps" later), tid and rf_id (top-level keys in
 * 1.0.1, entries of "attrs" later); inputs, outputs and the other keys
 * are skipped. The nodes that name the profiler itself
 * ("[pytorch|profiler|execution_...]") are not operators and are dropped.
 * Ids beyond 64 bits are read as doubles. etjoin.c gives the operators
 * their durations from the Kineto trace of the same process.
 */
#ifndef SC_TRACE_PYET_H
#define SC_TRACE_PYET_H

#include <stddef.h>
#include <stdint.h>

#include "core/vec.h"
#include "stepcast.h"

typedef struct pet_node {
  double id, parent; /* node ids; parent -1 when absent */
  double rf;         /* record-function id: execution order; -1 absent */
  double tid;        /* ET thread id (1 = the first thread); -1 absent */
  uint32_t hash;     /* tg_hash of the name, as Kineto events' */
  int name;          /* offset of the name in the graph's pool */
} pet_node;

typedef struct pet_graph {
  VEC(pet_node) nodes; /* operators, in file order */
  VEC(char) names;     /* NUL-separated name pool */
  double pid;          /* process id ("pid"); -1 absent */
  char schema[32];     /* "schema"; "" absent */
  char path[512];
} pet_graph;

/* Is the JSON text buf (NUL at buf[len]) an execution trace? Its top
 * level is an object whose "nodes" member comes before any
 * "traceEvents" (scanned, nothing kept). */
int pet_sniff(const char *buf, size_t len);

/* Parse buf (len bytes, NUL at buf[len]) into g (zeroed); origin names
 * it in messages. SC_OK, SC_EINPUT naming origin and line:column or the
 * key path (nodes[12].id) and what was expected, or SC_ENOMEM; on error
 * g may hold partial data (pet_free it). */
int pet_load_buffer(const char *buf, size_t len, const char *origin, pet_graph *g, sc_error *err);

static inline const char *pet_str(const pet_graph *g, int off) { return g->names.v + off; }

void pet_free(pet_graph *g);

#endif
