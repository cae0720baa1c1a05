/*
 * chakra_pbc.h -- one Chakra Node message decoded by libprotobuf-c
 * (module prefix: chp_), with the CMake switch SC_CHAKRA_PROTOBUF
 * (Debian: libprotobuf-c-dev, protobuf-c-compiler). The code is generated
 * at build time by protoc-c from src/trace/chakra_et.proto, the part of
 * Chakra's et_def.proto that stepcast reads. Without the switch this
 * module is empty and chakra.c decodes the wire format itself.
 */
#ifndef SC_TRACE_CHAKRA_PBC_H
#define SC_TRACE_CHAKRA_PBC_H

#include <stddef.h>

#include "trace/chakra.h"

#ifdef SC_CHAKRA_PROTOBUF
/* Decode the Node message p[0..n) and append it to g (chakra.h's fields:
 * id, type, control and data dependencies, duration_micros, attributes
 * is_cpu_op, comm_type, comm_size). 0, -1 when malformed, -2 when out of
 * memory. */
int chp_node(ch_graph *g, const unsigned char *p, size_t n);
#endif

#endif
