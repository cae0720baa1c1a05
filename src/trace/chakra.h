/*
 * chakra.h -- Chakra execution traces (protobuf .et files of MLCommons
 * Chakra, as ASTRA-sim reads them) into a dependency graph (module
 * prefix: ch_).
 *
 * The file is a sequence of messages, each preceded by its length as a
 * varint: one GlobalMetadata, then one Node per operation. This module
 * decodes the protobuf wire format itself (no protobuf library), or with
 * the CMake switch SC_CHAKRA_PROTOBUF through libprotobuf-c
 * (chakra_pbc.h) -- the same fields either way: of a
 * Node it reads id (field 1), name (2), type (3), ctrl_deps (4) and
 * data_deps (5) (packed or not), duration_micros (7) and the attributes
 * (10) is_cpu_op, comm_type and comm_size; other fields are skipped, as
 * protobuf requires. Field numbers are those of Chakra's et_def.proto
 * (schema 0.0.4); the node counts of the Chakra files in ../shared/traces
 * match SOURCES.md (tests/test_trace.c).
 */
#ifndef SC_TRACE_CHAKRA_H
#define SC_TRACE_CHAKRA_H

#include <stdint.h>

#include "core/vec.h"
#include "stepcast.h"

/* Chakra NodeType values. */
enum { CH_COMP = 4, CH_SEND = 5, CH_RECV = 6, CH_COLL = 7, CH_TYPES = 8 };

typedef struct ch_node {
  uint64_t id;
  int type;       /* NodeType; other values are counted, then treated as compute */
  int is_cpu;     /* attribute is_cpu_op */
  double dur;     /* duration_micros, us */
  int coll_op;    /* COMM_COLL: sc_coll_op of comm_type; -1 unknown */
  double bytes;   /* comm_size, bytes; 0 unknown */
  int dep0, ndep; /* its dependencies: deps[dep0 .. dep0+ndep), node indices after ch_load */
} ch_node;

typedef struct ch_graph {
  VEC(ch_node) nodes;
  VEC(uint64_t) deps;       /* ids while decoding, then node indices (-1: not in the file) */
  long types[CH_TYPES + 1]; /* nodes per type; [CH_TYPES]: out of range */
  long missing_deps;        /* dependencies on ids not in the file (dropped) */
  long forward_deps;        /* dependencies on a node of a higher id (dropped) */
  char path[512];
} ch_graph;

/* Is buf (len bytes) a Chakra ET? (a varint length, then a GlobalMetadata
 * message that fits). */
int ch_sniff(const unsigned char *buf, size_t len);

/* Decode buf into g (zeroed); origin names it in messages. SC_OK,
 * SC_EINPUT naming the byte offset and what was wrong, or SC_ENOMEM; on
 * error g may hold partial data (ch_free it). */
int ch_load_buffer(const unsigned char *buf, size_t len, const char *origin, ch_graph *g,
                   sc_error *err);

/* For the decoders: set what attribute name (with integer or bool value
 * v) says of n; count n (its deps[dep0 ..] pushed) and append it to g.
 * 0, or -1 out of memory. */
void ch_attr_set(ch_node *n, const char *name, uint64_t v);
int ch_node_add(ch_graph *g, ch_node *n);

void ch_free(ch_graph *g);

#endif
