/*
 * topo.c -- the topology graph: building, adjacency, checks, DOT export.
 */
#include "net/topo.h"

#include <limits.h>
#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/mem.h"
#include "core/name.h"
#include "core/vec.h"

static const char *const kind_names[TOPO_KIND_COUNT] = {"gpu", "nvswitch", "nic",
                                                        "switch"};

int topo_kind_from_name(const char *s) {
  for (int i = 0; i < TOPO_KIND_COUNT; i++)
    if (name_eq(kind_names[i], s, (size_t)-1, 0)) return i; /* "NVSwitch" too */
  return -1;
}

topo *topo_new(const char *name) {
  topo *t = mem_calloc(1, sizeof *t);
  if (!t) return NULL;
  snprintf(t->name, sizeof t->name, "%s", name ? name : "");
  return t;
}

/* Forget what topo_finalize built. */
static void unfinalize(topo *t) {
  mem_free(t->out_start), mem_free(t->out_link), mem_free(t->in_start), mem_free(t->in_link);
  mem_free(t->gpus);
  t->out_start = t->out_link = t->in_start = t->in_link = t->gpus = NULL;
  t->n_gpus = 0;
}

void topo_free(topo *t) {
  if (!t) return;
  unfinalize(t);
  mem_free(t->nodes);
  mem_free(t->links);
  mem_free(t);
}

int topo_add_node(topo *t, const char *name, topo_kind kind) {
  assert(t && kind >= 0 && kind < TOPO_KIND_COUNT);
  if (vec_grow((void **)&t->nodes, &t->cap_nodes, t->n_nodes + 1L, sizeof *t->nodes))
    return -1;
  topo_node *n = &t->nodes[t->n_nodes];
  /* what snprintf "%s" writes, without its cost (a generated topology
   * names thousands of nodes per job) */
  size_t len = 0;
  while (len < sizeof n->name - 1 && name[len]) len++;
  memcpy(n->name, name, len);
  n->name[len] = '\0';
  n->kind = kind;
  return t->n_nodes++;
}

int topo_add_link(topo *t, int src, int dst, double bw, double lat) {
  assert(t && src >= 0 && src < t->n_nodes && dst >= 0 && dst < t->n_nodes);
  if (vec_grow((void **)&t->links, &t->cap_links, t->n_links + 1L, sizeof *t->links))
    return -1;
  topo_link *l = &t->links[t->n_links];
  l->src = src, l->dst = dst, l->bw = bw, l->lat = lat, l->dim = -1;
  return t->n_links++;
}

int topo_add_duplex(topo *t, int a, int b, double bw, double lat) {
  int id = topo_add_link(t, a, b, bw, lat);
  if (id < 0 || topo_add_link(t, b, a, bw, lat) < 0) return -1;
  return id;
}

/* Counting sort of link ids by key (src or dst) into start/list. */
static int csr(const topo *t, int by_dst, int **start, int **list) {
  int *s = mem_calloc((size_t)t->n_nodes + 1, sizeof *s);
  int *l = mem_alloc(sizeof *l * (size_t)t->n_links);
  int *fill = mem_alloc(sizeof *fill * (size_t)t->n_nodes);
  if (!s || !l || !fill) {
    mem_free(s), mem_free(l), mem_free(fill);
    return -1;
  }
  for (int i = 0; i < t->n_links; i++)
    s[(by_dst ? t->links[i].dst : t->links[i].src) + 1]++;
  for (int v = 0; v < t->n_nodes; v++) s[v + 1] += s[v];
  memcpy(fill, s, sizeof *fill * (size_t)t->n_nodes);
  for (int i = 0; i < t->n_links; i++)
    l[fill[by_dst ? t->links[i].dst : t->links[i].src]++] = i;
  mem_free(fill);
  *start = s, *list = l;
  return 0;
}

int topo_finalize(topo *t, sc_error *err) {
  unfinalize(t);
  if (csr(t, 0, &t->out_start, &t->out_link) || csr(t, 1, &t->in_start, &t->in_link) ||
      !(t->gpus = mem_alloc(sizeof *t->gpus * (size_t)t->n_nodes))) {
    unfinalize(t);
    return sc_error_set(err, SC_ENOMEM, "topology %s: out of memory", t->name);
  }
  for (int v = 0; v < t->n_nodes; v++)
    if (t->nodes[v].kind == TOPO_GPU) t->gpus[t->n_gpus++] = v;
  return SC_OK;
}

/* The first NVSwitch GPU node g links to, or -1. */
static int gpu_switch(const topo *t, int g) {
  for (int k = t->out_start[g]; k < t->out_start[g + 1]; k++) {
    int v = t->links[t->out_link[k]].dst;
    if (t->nodes[v].kind == TOPO_NVSWITCH) return v;
  }
  return -1;
}

/* GPUs switch sw links to, each once (parallel links count one GPU). */
static int switch_gpus(const topo *t, int sw) {
  int n = 0;
  for (int k = t->out_start[sw]; k < t->out_start[sw + 1]; k++) {
    int v = t->links[t->out_link[k]].dst, seen = 0;
    for (int j = t->out_start[sw]; j < k && !seen; j++) seen = t->links[t->out_link[j]].dst == v;
    n += t->nodes[v].kind == TOPO_GPU && !seen;
  }
  return n;
}

int topo_domain_check(const topo *t, int ranks, int per, const char *key, sc_error *err) {
  assert(t->gpus && ranks >= 1 && per >= 1 && ranks <= t->n_gpus);
  int want = per < ranks ? per : ranks;
  for (int r = 0; r < ranks; r++) {
    int sw = gpu_switch(t, t->gpus[r]);
    if (sw < 0) continue;
    int n = switch_gpus(t, sw), got = n < ranks ? n : ranks;
    if (got != want)
      return sc_error_set(err, SC_EINPUT,
                          "%s %d, but topology %s puts %d GPUs on NVSwitch %s (GPU %s, rank "
                          "%d): give %s %d, or a topology whose NVLink domains hold %d",
                          key, per, t->name, n, t->nodes[sw].name, t->nodes[t->gpus[r]].name, r,
                          key, got, want);
  }
  return SC_OK;
}

double topo_bytes(double nodes, double links) {
  /* a node, its two CSR offsets and its place in gpus; a link and its
   * two CSR entries; growing arrays keep up to twice what they hold */
  return 2 * (nodes * (sizeof(topo_node) + 3 * sizeof(int)) +
              links * (sizeof(topo_link) + 2 * sizeof(int)));
}

int topo_size_check(const char *what, double nodes, double links, sc_error *err) {
  double bytes = topo_bytes(nodes, links);
  if (nodes <= TOPO_MAX_NODES && links <= INT_MAX && bytes <= TOPO_MAX_BYTES) return SC_OK;
  return sc_error_set(err, SC_EINPUT,
                      "%s: too large: %.0f nodes and %.0f directed links need about %.3g GB; "
                      "the limit is %.0f nodes and %.3g GB (docs/input.md, Limits)",
                      what, nodes, links, bytes / 1e9, TOPO_MAX_NODES, TOPO_MAX_BYTES / 1e9);
}

int topo_find(const topo *t, const char *name) {
  for (int v = 0; v < t->n_nodes; v++)
    if (!strcmp(t->nodes[v].name, name)) return v;
  return -1;
}

/* Duplicate names: sort pointers to the names. */
static int cmp_names(const void *a, const void *b) {
  return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Reachability of every GPU from the first GPU and back, by BFS over
 * out-links and in-links. Returns -1 or the id of an unreachable GPU. */
static int unreachable_gpu(const topo *t, int *queue, char *seen) {
  for (int dir = 0; dir < 2; dir++) {
    memset(seen, 0, (size_t)t->n_nodes);
    int head = 0, tail = 0;
    queue[tail++] = t->gpus[0];
    seen[t->gpus[0]] = 1;
    while (head < tail) {
      int v = queue[head++];
      const int *st = dir ? t->in_start : t->out_start;
      const int *ls = dir ? t->in_link : t->out_link;
      for (int k = st[v]; k < st[v + 1]; k++) {
        const topo_link *l = &t->links[ls[k]];
        int w = dir ? l->src : l->dst;
        if (!seen[w]) seen[w] = 1, queue[tail++] = w;
      }
    }
    for (int i = 0; i < t->n_gpus; i++)
      if (!seen[t->gpus[i]]) return t->gpus[i];
  }
  return -1;
}

int topo_check(const topo *t, sc_error *err, char *warn, size_t warn_size) {
  if (warn && warn_size) warn[0] = 0;
  assert(t->out_start && "topo_finalize first");
  if (t->n_gpus == 0)
    return sc_error_set(err, SC_EINPUT, "topology %s: no GPU (a node of kind \"gpu\")",
                        t->name);
  for (int i = 0; i < t->n_links; i++) {
    const topo_link *l = &t->links[i];
    if (!(l->bw > 0) || !isfinite(l->bw))
      return sc_error_set(err, SC_EINPUT,
                          "topology %s: link %d (%s -> %s): bandwidth %g is not a "
                          "positive number of bytes/s",
                          t->name, i, t->nodes[l->src].name, t->nodes[l->dst].name, l->bw);
    if (!(l->lat >= 0) || !isfinite(l->lat))
      return sc_error_set(err, SC_EINPUT,
                          "topology %s: link %d (%s -> %s): latency %g must be >= 0 s",
                          t->name, i, t->nodes[l->src].name, t->nodes[l->dst].name, l->lat);
    if (l->src == l->dst)
      return sc_error_set(err, SC_EINPUT, "topology %s: link %d: %s links to itself",
                          t->name, i, t->nodes[l->src].name);
  }
  int *ids = mem_alloc(sizeof *ids * (size_t)t->n_nodes);
  const char **names = mem_alloc(sizeof *names * (size_t)t->n_nodes);
  char *seen = mem_alloc((size_t)t->n_nodes);
  if (!ids || !seen || !names) {
    mem_free(ids), mem_free(seen), mem_free(names);
    return sc_error_set(err, SC_ENOMEM, "topology %s: out of memory", t->name);
  }
  for (int v = 0; v < t->n_nodes; v++) names[v] = t->nodes[v].name;
  qsort(names, (size_t)t->n_nodes, sizeof *names, cmp_names);
  int rc = SC_OK;
  for (int v = 1; v < t->n_nodes && rc == SC_OK; v++)
    if (!strcmp(names[v], names[v - 1]))
      rc = sc_error_set(err, SC_EINPUT, "topology %s: two nodes are named \"%s\"", t->name,
                        names[v]);
  mem_free(names);
  if (rc == SC_OK) {
    int bad = unreachable_gpu(t, ids, seen);
    if (bad >= 0)
      rc = sc_error_set(err, SC_EINPUT,
                        "topology %s: disconnected: GPU %s and GPU %s cannot reach "
                        "each other",
                        t->name, t->nodes[t->gpus[0]].name, t->nodes[bad].name);
  }
  mem_free(ids), mem_free(seen);
  if (rc != SC_OK || !warn) return rc;
  /* asymmetric links: a->b with no b->a of the same bandwidth, looked for
   * among the out-links of b or the in-links of a, whichever are fewer
   * (a star's hub has a link per host: O(links) either way, not O(n^2)) */
  int nwarn = 0;
  for (int i = 0; i < t->n_links; i++) {
    const topo_link *l = &t->links[i];
    int back = 0;
    int n_out = t->out_start[l->dst + 1] - t->out_start[l->dst];
    int n_in = t->in_start[l->src + 1] - t->in_start[l->src];
    if (n_out <= n_in) {
      for (int k = t->out_start[l->dst]; k < t->out_start[l->dst + 1] && !back; k++) {
        const topo_link *m = &t->links[t->out_link[k]];
        back = m->dst == l->src && m->bw == l->bw;
      }
    } else {
      for (int k = t->in_start[l->src]; k < t->in_start[l->src + 1] && !back; k++) {
        const topo_link *m = &t->links[t->in_link[k]];
        back = m->src == l->dst && m->bw == l->bw;
      }
    }
    if (!back && nwarn++ < 4) {
      size_t used = strlen(warn);
      snprintf(warn + used, warn_size - used,
               "%sasymmetric link %s -> %s (%.3g GB/s) has no reverse link of the "
               "same bandwidth",
               used ? "\n" : "", t->nodes[l->src].name, t->nodes[l->dst].name, l->bw / 1e9);
    }
  }
  return SC_OK;
}

void topo_describe(const topo *t, FILE *out) {
  int count[TOPO_KIND_COUNT] = {0};
  for (int v = 0; v < t->n_nodes; v++) count[t->nodes[v].kind]++;
  double lo = INFINITY, hi = 0, llo = INFINITY, lhi = 0;
  for (int i = 0; i < t->n_links; i++) {
    lo = fmin(lo, t->links[i].bw), hi = fmax(hi, t->links[i].bw);
    llo = fmin(llo, t->links[i].lat), lhi = fmax(lhi, t->links[i].lat);
  }
  fprintf(out, "topology     %s\n", t->name);
  fprintf(out, "nodes        %d (gpu %d, nvswitch %d, nic %d, switch %d)\n", t->n_nodes,
          count[TOPO_GPU], count[TOPO_NVSWITCH], count[TOPO_NIC], count[TOPO_SWITCH]);
  fprintf(out, "links        %d directed\n", t->n_links);
  if (t->n_links)
    fprintf(out, "bandwidth    %.3f .. %.3f GB/s per direction\nlatency      %.3f .. %.3f us\n",
            lo / 1e9, hi / 1e9, llo * 1e6, lhi * 1e6);
}

void topo_write_dot(const topo *t, FILE *out) {
  static const char *const shape[TOPO_KIND_COUNT] = {"box", "diamond", "ellipse",
                                                     "hexagon"};
  fprintf(out, "digraph \"%s\" {\n", t->name);
  for (int v = 0; v < t->n_nodes; v++)
    fprintf(out, "  \"%s\" [shape=%s];\n", t->nodes[v].name, shape[t->nodes[v].kind]);
  for (int i = 0; i < t->n_links; i++) {
    const topo_link *l = &t->links[i];
    int twin = -1; /* a reverse link of equal bandwidth: print once */
    for (int k = t->out_start[l->dst]; k < t->out_start[l->dst + 1]; k++) {
      const topo_link *m = &t->links[t->out_link[k]];
      if (m->dst == l->src && m->bw == l->bw) twin = t->out_link[k];
    }
    if (twin >= 0 && twin < i) continue;
    fprintf(out, "  \"%s\" -> \"%s\" [label=\"%.4g GB/s\"%s];\n", t->nodes[l->src].name,
            t->nodes[l->dst].name, l->bw / 1e9, twin >= 0 ? ", dir=both" : "");
  }
  fprintf(out, "}\n");
}
