/*
 * route.h -- routes between nodes of a topology (module prefix: route_).
 *
 * Shortest paths (fewest links). Where several next hops are equally
 * short the policy decides: ECMP picks one by a hash of (src, dst, node),
 * which on a fat-tree gives the usual up/down routes spread over the
 * spines, some colliding (Ethernet's flow hashing); DMODK picks by the
 * destination's digits (destination-mod-k, what InfiniBand's fat-tree
 * routing engine programs: every path to one destination comes down the
 * same spine, and the destinations of one leaf use different spines, so
 * a shift permutation -- NCCL's rings -- meets no collision on a full
 * fat-tree); DOR (dimension order, for tori and meshes) corrects
 * dimension 0 first, then 1, then 2, using the links' `dim` tags. A
 * topology says which it is routed by (topo.routing).
 *
 * Per source asked for, the table keeps its hop counts to every node (one
 * byte per node, from one breadth-first search); a path is walked back
 * from them on each request (its length times the in-degree). So all
 * paths from one source cost one search, and memory grows with the
 * sources, not the pairs (route.c). A source with a single neighbour (a
 * host on its leaf switch) uses its neighbour's hop counts: the same
 * paths, and the hosts of one switch share one search (made at once: every
 * host of the switch walks back from it), and route_len of such a host is
 * its neighbour's hop count plus one. Such paths are remembered, up to
 * 64 Ki links (route.c, ROUTE_MEMO_WALKED): a search asks for the same
 * pairs again and again. A search does not queue a node whose one way
 * out leads back (it reaches nothing new).
 *
 * Ownership: route_new borrows the topo (it must outlive the table).
 *
 * Threads: a table is used by one thread at a time. Tables made by
 * route_new_sharing share their base's hop counts and its memo of paths
 * walked back from them (route.c: each published once, lock-free, and
 * never rewritten): each source's search and each such walk runs once for
 * all of them; each keeps its own lazy search, memo of lazily searched
 * paths and buffers, so that threads route side by side. The paths are
 * the same whichever table asks first.
 */
#ifndef SC_NET_ROUTE_H
#define SC_NET_ROUTE_H

#include <stddef.h>

#include "net/topo.h"

typedef enum route_policy { ROUTE_ECMP = 0, ROUTE_DOR, ROUTE_DMODK } route_policy;

/* "ecmp", "dor", "dmodk". */
const char *route_policy_name(route_policy p);
/* The policy named s (any case), or -1. */
int route_policy_from_name(const char *s);

typedef struct route_table route_table;

/* New table over a finalized topo; NULL when out of memory. */
route_table *route_new(const topo *t, route_policy policy);
/* A table over base's topo and policy that shares base's hop counts;
 * NULL when out of memory. Free it before base (base owns the counts). */
route_table *route_new_sharing(const route_table *base);
void route_free(route_table *r);

/* Failures of route_path. */
enum { ROUTE_UNREACHABLE = -1, ROUTE_NOMEM = -2 };

/* The links of the path src -> dst in order: *links points into the
 * table, *n is their count (0, and *links NULL, when src == dst). The
 * pointer stays valid until the next route_path on the table (copy the
 * path to keep it). The same pair always gets the same path. Returns 0,
 * ROUTE_UNREACHABLE, or ROUTE_NOMEM when memory ran out. */
int route_path(route_table *r, int src, int dst, const int **links, int *n);

/* The number of links of the path src -> dst, or ROUTE_UNREACHABLE /
 * ROUTE_NOMEM. */
int route_len(route_table *r, int src, int dst);

/* Bytes the table holds (hop counts -- shared ones too --, BFS state,
 * path buffer). */
size_t route_bytes(const route_table *r);

#endif /* SC_NET_ROUTE_H */
