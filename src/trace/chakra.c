/*
 * chakra.c -- see chakra.h.
 */
#include "trace/chakra.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/mem.h"
#include "trace/chakra_pbc.h"
#include "trace/tgraph.h"

/* A cursor over protobuf wire data. */
typedef struct pb {
  const unsigned char *p, *end;
} pb;

static int pb_varint(pb *b, uint64_t *v) {
  *v = 0;
  for (int shift = 0; shift < 64 && b->p < b->end; shift += 7) {
    unsigned char x = *b->p++;
    *v |= (uint64_t)(x & 0x7f) << shift;
    if (x < 0x80) return 0;
  }
  return -1;
}

/* The length-delimited field at b: its bytes as a sub-cursor. */
static int pb_bytes(pb *b, pb *sub) {
  uint64_t n;
  if (pb_varint(b, &n) || n > (uint64_t)(b->end - b->p)) return -1;
  *sub = (pb){b->p, b->p + n};
  b->p += n;
  return 0;
}

#ifndef SC_CHAKRA_PROTOBUF /* the built-in decoder of Node messages */
/* Skip a field of wire type wt. */
static int pb_skip(pb *b, int wt) {
  uint64_t v;
  pb sub;
  size_t fixed = wt == 1 ? 8 : wt == 5 ? 4 : 0;
  if (wt == 0) return pb_varint(b, &v);
  if (wt == 2) return pb_bytes(b, &sub);
  if (!fixed || fixed > (size_t)(b->end - b->p)) return -1;
  b->p += fixed;
  return 0;
}

#endif

/* ------------------------------------------------------------- nodes */

/* Chakra CollectiveCommType -> sc_coll_op (ALL_REDUCE, ALL_TO_ALL,
 * ALL_GATHER, REDUCE_SCATTER, BROADCAST). */
static int coll_of(uint64_t t) {
  static const int op[] = {SC_COLL_ALL_REDUCE, SC_COLL_ALL_TO_ALL, SC_COLL_ALL_GATHER,
                           SC_COLL_REDUCE_SCATTER, SC_COLL_BROADCAST};
  return t < sizeof op / sizeof op[0] ? op[t] : -1;
}

void ch_attr_set(ch_node *n, const char *name, uint64_t v) {
  if (!strcmp(name, "is_cpu_op"))
    n->is_cpu = v != 0;
  else if (!strcmp(name, "comm_type"))
    n->coll_op = coll_of(v);
  else if (!strcmp(name, "comm_size"))
    n->bytes = (double)v;
}

int ch_node_add(ch_graph *g, ch_node *n) {
  n->ndep = g->deps.n - n->dep0;
  g->types[n->type]++;
  return VEC_PUSH(g->nodes, *n);
}

#ifndef SC_CHAKRA_PROTOBUF
/* One AttributeProto: name (field 1) and an integer or bool value (any
 * varint field). */
static int attr(pb *b, ch_node *n) {
  char name[32] = "";
  uint64_t key, v = 0;
  while (b->p < b->end) {
    if (pb_varint(b, &key)) return -1;
    int f = (int)(key >> 3), wt = (int)(key & 7);
    pb s;
    if (f == 1 && wt == 2) {
      if (pb_bytes(b, &s)) return -1;
      size_t len =
          (size_t)(s.end - s.p) < sizeof name - 1 ? (size_t)(s.end - s.p) : sizeof name - 1;
      memcpy(name, s.p, len), name[len] = '\0';
    } else if (wt == 0) {
      if (pb_varint(b, &v)) return -1;
    } else if (pb_skip(b, wt))
      return -1;
  }
  ch_attr_set(n, name, v);
  return 0;
}

/* Dependencies (field 4 or 5), packed or one per field: 0, -1 when
 * malformed, -2 when out of memory. */
static int dep(ch_graph *g, pb *b, int wt) {
  uint64_t v;
  if (wt == 0) return pb_varint(b, &v) ? -1 : VEC_PUSH(g->deps, v) ? -2 : 0;
  pb s;
  if (wt != 2 || pb_bytes(b, &s)) return -1;
  while (s.p < s.end) {
    if (pb_varint(&s, &v)) return -1;
    if (VEC_PUSH(g->deps, v)) return -2;
  }
  return 0;
}

/* One Node message into g: 0, -1 when malformed, -2 out of memory. */
static int node(ch_graph *g, pb *b) {
  ch_node n = {.coll_op = -1, .dep0 = g->deps.n};
  uint64_t key, v;
  while (b->p < b->end) {
    if (pb_varint(b, &key)) return -1;
    int f = (int)(key >> 3), wt = (int)(key & 7), rc;
    pb s;
    if (f == 4 || f == 5)
      rc = dep(g, b, wt);
    else if (wt == 0 && (f == 1 || f == 3 || f == 7)) {
      rc = pb_varint(b, &v);
      if (f == 1)
        n.id = v;
      else if (f == 3)
        n.type = v <= CH_TYPES ? (int)v : CH_TYPES;
      else
        n.dur = (double)v;
    } else if (f == 10 && wt == 2)
      rc = pb_bytes(b, &s) || attr(&s, &n) ? -1 : 0;
    else
      rc = pb_skip(b, wt);
    if (rc) return rc;
  }
  return ch_node_add(g, &n) ? -2 : 0;
}

#endif

/* Dependencies as node indices (UINT64_MAX: an id not in the file, or
 * a node with an id not below the node's own: ids follow execution
 * order, and dropping these keeps the graph acyclic). */
static int resolve(ch_graph *g) {
  tg_kv *ids = mem_alloc((size_t)(g->nodes.n ? g->nodes.n : 1) * sizeof *ids);
  if (!ids) return -1;
  for (int i = 0; i < g->nodes.n; i++) ids[i] = (tg_kv){(double)g->nodes.v[i].id, i};
  if (g->nodes.n) qsort(ids, (size_t)g->nodes.n, sizeof *ids, tg_kv_cmp);
  for (int i = 0; i < g->nodes.n; i++) {
    const ch_node *n = &g->nodes.v[i];
    for (int k = n->dep0; k < n->dep0 + n->ndep; k++) {
      int at = tg_kv_last_le(ids, g->nodes.n, (double)g->deps.v[k]);
      int found = at >= 0 && ids[at].key == (double)g->deps.v[k];
      int forward = g->deps.v[k] >= n->id; /* on a later node: would allow a cycle */
      g->deps.v[k] = found && !forward ? (uint64_t)ids[at].idx : UINT64_MAX;
      g->missing_deps += !found, g->forward_deps += found && forward;
    }
  }
  mem_free(ids);
  return 0;
}

int ch_sniff(const unsigned char *buf, size_t len) {
  pb b = {buf, buf + len}, m;
  uint64_t key;
  if (!len || buf[0] == '{' || buf[0] == '[' || pb_bytes(&b, &m)) return 0;
  /* GlobalMetadata: version (1) or attributes (2), length-delimited */
  return m.p < m.end && !pb_varint(&m, &key) && (key == 0x0a || key == 0x12);
}

int ch_load_buffer(const unsigned char *buf, size_t len, const char *origin, ch_graph *g,
                   sc_error *err) {
  pb b = {buf, buf + len}, m;
  snprintf(g->path, sizeof g->path, "%s", origin);
  if (pb_bytes(&b, &m))
    return sc_error_set(err, SC_EINPUT, "%s: not a Chakra ET (no GlobalMetadata message)", origin);
  while (b.p < b.end) {
    size_t at = (size_t)(b.p - buf);
#ifdef SC_CHAKRA_PROTOBUF /* libprotobuf-c */
    int rc = pb_bytes(&b, &m) ? -1 : chp_node(g, m.p, (size_t)(m.end - m.p));
#else
    int rc = pb_bytes(&b, &m) ? -1 : node(g, &m);
#endif
    if (rc == -2) return sc_error_set(err, SC_ENOMEM, "%s: out of memory", origin);
    if (rc)
      return sc_error_set(err, SC_EINPUT,
                          "%s: byte %zu: node %d is truncated or malformed (expected a "
                          "length-delimited Chakra Node message)",
                          origin, at, g->nodes.n);
  }
  if (resolve(g)) return sc_error_set(err, SC_ENOMEM, "%s: out of memory", origin);
  return SC_OK;
}

void ch_free(ch_graph *g) {
  mem_free(g->nodes.v);
  mem_free(g->deps.v);
  memset(g, 0, sizeof *g);
}
