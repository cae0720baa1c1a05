/*
 * topo.h -- a cluster network as a directed graph (module prefix: topo_).
 *
 * Nodes are GPUs, NVSwitches, NICs and network switches. Links are
 * directed: a cable is two links, one per direction, each with its own
 * bandwidth (bytes/s) and latency (s). After topo_finalize the out- and
 * in-links of each node are stored compressed (CSR) for routing.
 *
 * Ownership: a topo owns its arrays; topo_free releases everything.
 * Errors on user input (unknown node, bad bandwidth, disconnected graph)
 * are sc_error values naming the element; misuse of the API is assert()ed.
 */
#ifndef SC_NET_TOPO_H
#define SC_NET_TOPO_H

#include <stdio.h>

#include "stepcast.h"

typedef enum topo_kind {
  TOPO_GPU = 0,
  TOPO_NVSWITCH,
  TOPO_NIC,
  TOPO_SWITCH,
  TOPO_KIND_COUNT
} topo_kind;

typedef struct topo_node {
  char name[32];   /* unique, e.g. "n3.gpu5", "leaf12" */
  topo_kind kind;
} topo_node;

typedef struct topo_link {
  int src, dst;    /* node ids */
  double bw;       /* bytes/s, this direction */
  double lat;      /* seconds */
  int dim;         /* routing tag: torus dimension (0, 1, 2) or -1 */
} topo_link;

typedef struct topo {
  char name[256];  /* the JSON file's "name" (at most 255 bytes), the spec or the path */
  topo_node *nodes;
  topo_link *links;
  int n_nodes, cap_nodes;
  int n_links, cap_links;
  /* built by topo_finalize: */
  int *out_start;  /* n_nodes + 1 offsets into out_link */
  int *out_link;   /* link ids grouped by source */
  int *in_start;   /* n_nodes + 1 offsets into in_link */
  int *in_link;    /* link ids grouped by destination */
  int *gpus;       /* node ids of the GPUs, in insertion order */
  int n_gpus;
  int routing;     /* the route_policy (net/route.h) its switches route
                      by; 0, ECMP, unless its generator or file says */
} topo;

int topo_kind_from_name(const char *s); /* -1 if unknown */

/* New empty topology; NULL when out of memory. */
topo *topo_new(const char *name);
void topo_free(topo *t);

/* Add a node; returns its id, or -1 when out of memory. Names are not
 * checked for uniqueness here (topo_check does). */
int topo_add_node(topo *t, const char *name, topo_kind kind);
/* Add one directed link, or both directions; returns the (first) link
 * id or -1 when out of memory. */
int topo_add_link(topo *t, int src, int dst, double bw, double lat);
int topo_add_duplex(topo *t, int a, int b, double bw, double lat);

/* Build the adjacency and the GPU list. SC_OK, or SC_ENOMEM (then t is
 * as before its first topo_finalize: nodes and links only). */
int topo_finalize(topo *t, sc_error *err);

/* The most a topology may hold once finalized (its node and link arrays
 * and their indexes): bigger ones are refused before anything is
 * allocated, with the estimate (docs/input.md, "Limits"). Node and link
 * ids are ints; the routes and flows of a run come on top. */
#define TOPO_MAX_BYTES (2.0 * 1024 * 1024 * 1024)
#define TOPO_MAX_NODES 4e6

/* Bytes of a finalized topology of `nodes` nodes and `links` directed
 * links (doubles: the counts may be beyond any int). */
double topo_bytes(double nodes, double links);

/* SC_OK, or SC_EINPUT naming `what` (a generator or file), the counts,
 * the estimated bytes and the limit when they exceed TOPO_MAX_*. */
int topo_size_check(const char *what, double nodes, double links, sc_error *err);

/* Node id of a name, -1 if none (linear; for loaders and the CLI). */
int topo_find(const topo *t, const char *name);

/* Check for user errors: no GPU, duplicate names, zero/negative/NaN
 * bandwidth or negative latency (naming the link), a GPU that cannot
 * reach another GPU (naming both). Asymmetric links (a->b without b->a,
 * or different bandwidths) are reported in `warn` (may be NULL) but are
 * not errors. Needs topo_finalize. */
int topo_check(const topo *t, sc_error *err, char *warn, size_t warn_size);

/* The NVLink domains of the first `ranks` GPUs against a job that puts
 * `per` ranks in each (its ranks per node or NVLink domain, <= ranks):
 * SC_OK when every one of those GPUs that has an NVSwitch neighbour sees
 * min(per, ranks) of the job's kind of GPUs on it (GPUs without one,
 * single-GPU hosts or direct links, are not judged), else SC_EINPUT
 * naming the GPU, its switch, the count and `key` (what the caller calls
 * `per`). Needs topo_finalize. */
int topo_domain_check(const topo *t, int ranks, int per, const char *key, sc_error *err);

/* Human summary: counts per kind, links, bandwidth range. */
void topo_describe(const topo *t, FILE *out);
/* Graphviz DOT; duplex pairs of equal bandwidth become one edge. */
void topo_write_dot(const topo *t, FILE *out);

#endif /* SC_NET_TOPO_H */
