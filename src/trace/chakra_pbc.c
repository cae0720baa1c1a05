/*
 * chakra_pbc.c -- see chakra_pbc.h.
 */
#include "trace/chakra_pbc.h"

#ifdef SC_CHAKRA_PROTOBUF

#include <stdint.h>

#include "core/mem.h"
#include "trace/chakra_et.pb-c.h"

/* protobuf-c allocates through stepcast's allocator (so the out-of-memory
 * tests reach it); ud is an int set when an allocation failed. */
static void *pbc_alloc(void *ud, size_t n) {
  void *p = mem_alloc(n ? n : 1);
  if (!p) *(int *)ud = 1;
  return p;
}

static void pbc_free(void *ud, void *p) {
  (void)ud;
  mem_free(p);
}

/* The integer or bool value of a, as the wire decoder reads it. */
static uint64_t attr_value(const ChakraProtoMsg__AttributeProto *a) {
  switch (a->value_case) {
    case CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_INT32_VAL:
      return (uint64_t)(int64_t)a->int32_val;
    case CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_INT64_VAL:
      return (uint64_t)a->int64_val;
    case CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_UINT32_VAL:
      return a->uint32_val;
    case CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_UINT64_VAL:
      return a->uint64_val;
    case CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_BOOL_VAL:
      return a->bool_val != 0;
    default:
      return 0;
  }
}

static int push_deps(ch_graph *g, const uint64_t *d, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (VEC_PUSH(g->deps, d[i])) return -1;
  return 0;
}

int chp_node(ch_graph *g, const unsigned char *p, size_t n) {
  int oom = 0;
  ProtobufCAllocator a = {pbc_alloc, pbc_free, &oom};
  ChakraProtoMsg__Node *m = chakra_proto_msg__node__unpack(&a, n, p);
  if (!m) return oom ? -2 : -1;
  ch_node nd = {.id = m->id,
                .type = m->type <= CH_TYPES ? (int)m->type : CH_TYPES,
                .dur = (double)m->duration_micros,
                .coll_op = -1,
                .dep0 = g->deps.n};
  for (size_t i = 0; i < m->n_attr; i++)
    if (m->attr[i]->name) ch_attr_set(&nd, m->attr[i]->name, attr_value(m->attr[i]));
  int rc = push_deps(g, m->ctrl_deps, m->n_ctrl_deps) ||
                   push_deps(g, m->data_deps, m->n_data_deps) || ch_node_add(g, &nd)
               ? -2
               : 0;
  chakra_proto_msg__node__free_unpacked(m, &a);
  return rc;
}

#endif
