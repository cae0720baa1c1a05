/*
 * test_route.c -- routes from per-source hop counts (net/route.h): every
 * path is a shortest chain of links from its source to its destination,
 * a pair gets the same path whether its source has its own hop counts or
 * shares the lazy search, and memory grows with the sources, not the
 * pairs; tables that share hop counts share the paths walked from them.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "net/route.h"
#include "net/topo_gen.h"

static topo *gen(const char *spec) {
  topo *t;
  sc_error e = {0};
  cr_assert_eq(topo_gen(spec, &t, &e), SC_OK, "%s: %s", spec, e.msg);
  return t;
}

Test(route, paths_are_shortest_chains) {
  topo *t = gen("fat_tree:hosts=64,radix=8,levels=3");
  for (int pol = ROUTE_ECMP; pol <= ROUTE_DMODK; pol++) {
    route_table *r = route_new(t, (route_policy)pol);
    for (int i = 0; i < t->n_gpus; i++)
      for (int j = 0; j < t->n_gpus; j++) {
        int a = t->gpus[i], b = t->gpus[j];
        const int *p;
        int n;
        cr_assert_eq(route_path(r, a, b, &p, &n), 0);
        cr_assert_eq(n, route_len(r, a, b));
        int v = a;
        for (int k = 0; k < n; k++) {
          cr_assert_eq(t->links[p[k]].src, v, "%d -> %d: link %d does not start at %d", a, b, k, v);
          v = t->links[p[k]].dst;
        }
        cr_assert_eq(v, b);
        /* same leaf: 2 links; same pod: 4; else 6 */
        cr_assert(n == 0 || n == 2 || n == 4 || n == 6, "%d -> %d: %d links", a, b, n);
      }
    route_free(r);
  }
  topo_free(t);
}

Test(route, a_pair_gets_the_same_path_either_way) {
  topo *t = gen("fat_tree:hosts=64,radix=8,levels=3");
  /* table 1 asks each source for one destination only (the lazy search);
   * table 2 asks every pair first (every source gets its own array) */
  route_table *lazy = route_new(t, ROUTE_DMODK), *full = route_new(t, ROUTE_DMODK);
  int saved[64][8];
  int len[64];
  for (int i = 0; i < 64; i++) {
    const int *p;
    cr_assert_eq(route_path(lazy, t->gpus[i], t->gpus[(i * 37 + 11) % 64], &p, &len[i]), 0);
    memcpy(saved[i], p, sizeof *p * (size_t)len[i]);
  }
  for (int i = 0; i < 64; i++)
    for (int j = 0; j < 64; j++) {
      const int *p;
      int n;
      cr_assert_eq(route_path(full, t->gpus[i], t->gpus[j], &p, &n), 0);
    }
  for (int i = 0; i < 64; i++) {
    const int *p;
    int n;
    cr_assert_eq(route_path(full, t->gpus[i], t->gpus[(i * 37 + 11) % 64], &p, &n), 0);
    cr_expect(n == len[i] && !memcmp(p, saved[i], sizeof *p * (size_t)n), "pair %d differs", i);
  }
  route_free(lazy), route_free(full);
  topo_free(t);
}

Test(route, memory_grows_with_the_sources_not_the_pairs) {
  topo *t = gen("fat_tree:hosts=1024,radix=32,levels=3");
  route_table *r = route_new(t, ROUTE_ECMP);
  for (int i = 0; i < t->n_gpus; i++)
    for (int j = 0; j < t->n_gpus; j++) cr_assert_geq(route_len(r, t->gpus[i], t->gpus[j]), 0);
  /* a byte per node per source plus the search's state, and the paths
   * of the first few destinations of each source, asked before it got
   * its hop counts (at most 8 per source, 6 links each, slots of 24 bytes
   * at most half full, arrays grown by doubling): about 2.5 MB (a cache
   * of the 1,047,552 paths took 67 MB) */
  size_t per = (size_t)t->n_nodes, memo = (size_t)t->n_gpus * 8 * (6 * 4 + 2 * 24) * 2;
  cr_expect(route_bytes(r) < (size_t)t->n_gpus * per + 64 * per + memo, "%zu bytes",
            route_bytes(r));
  route_free(r);
  topo_free(t);
}

/* route_len asked before any path (a flow run sizes its steps so: a GPU
 * on one link counts from its leaf's hop counts, route.c) gives the
 * length of the path route_path then walks, between any two nodes, GPUs
 * and switches, on every policy; a leaf's search skips its GPUs (route.c,
 * dist_from) and still reaches every node. */
Test(route, lengths_asked_first_are_the_lengths_of_the_paths) {
  topo *t = gen("fat_tree:hosts=64,radix=8,levels=3,oversub=2");
  for (int pol = ROUTE_ECMP; pol <= ROUTE_DMODK; pol++) {
    route_table *first = route_new(t, (route_policy)pol), *paths = route_new(t, (route_policy)pol);
    int stubs = 0;
    for (int a = 0; a < t->n_nodes; a++)
      for (int b = 0; b < t->n_nodes; b++) {
        int len = route_len(first, a, b);
        const int *p;
        int n;
        cr_assert_eq(route_path(paths, a, b, &p, &n), 0);
        cr_assert_eq(len, n, "policy %d: %s -> %s: route_len %d, path of %d links", pol,
                     t->nodes[a].name, t->nodes[b].name, len, n);
        stubs += t->out_start[a + 1] - t->out_start[a] == 1 && a != b;
      }
    cr_assert_geq(stubs, t->n_gpus, "the GPUs hang on one link each");
    route_free(first), route_free(paths);
  }
  topo_free(t);
}

/* A lazily searched pair's path is remembered: asked again (as a search's
 * flow runs ask the same ring), the same links, and route_len agrees. */
Test(route, remembered_paths_are_the_paths) {
  topo *t = gen("fat_tree:hosts=64,radix=8,levels=3");
  route_table *r = route_new(t, ROUTE_ECMP), *fresh = route_new(t, ROUTE_ECMP);
  for (int rep = 0; rep < 3; rep++)
    for (int i = 0; i < t->n_gpus; i++) {
      int a = t->gpus[i], b = t->gpus[(i + 9) % t->n_gpus];
      const int *p, *q;
      int n, m;
      cr_assert_eq(route_path(r, a, b, &p, &n), 0);
      int saved[64];
      cr_assert(n <= 64);
      memcpy(saved, p, sizeof *p * (size_t)n);
      cr_assert_eq(route_len(r, a, b), n);
      cr_assert_eq(route_path(fresh, a, b, &q, &m), 0);
      cr_assert(m == n && !memcmp(q, saved, sizeof *q * (size_t)n), "pair %d rep %d", i, rep);
    }
  route_free(r), route_free(fresh);
  topo_free(t);
}

/* A host with a single neighbour (every GPU of a fat-tree) routes on its
 * leaf's hop counts (route.c, stub_link): the same paths as from its own.
 * The same fat-tree with a dead-end switch hung on every GPU (new node
 * and link ids after the others, on no shortest path between GPUs) makes
 * every GPU a node with two neighbours, routed from its own hop counts:
 * every pair of GPUs gets the same links either way. */
Test(route, a_host_on_one_link_gets_the_paths_of_its_own_search) {
  const char *spec = "fat_tree:hosts=64,radix=8,levels=3,oversub=2";
  topo *stub = gen(spec), *own = gen(spec);
  int gpus = own->n_gpus;
  for (int i = 0; i < gpus; i++) {
    char name[32];
    snprintf(name, sizeof name, "dead_end%d", i);
    int x = topo_add_node(own, name, TOPO_SWITCH);
    cr_assert(x >= 0 && topo_add_duplex(own, own->gpus[i], x, 1e9, 1e-6) >= 0);
  }
  sc_error e = {0};
  cr_assert_eq(topo_finalize(own, &e), SC_OK, "%s", e.msg);
  cr_assert_eq(own->n_gpus, gpus);
  route_table *a = route_new(stub, ROUTE_ECMP), *b = route_new(own, ROUTE_ECMP);
  for (int i = 0; i < gpus; i++)
    for (int j = 0; j < gpus; j++) {
      const int *p, *q;
      int n, m;
      cr_assert_eq(route_path(a, stub->gpus[i], stub->gpus[j], &p, &n), 0);
      int saved[16];
      cr_assert(n <= 16);
      if (n) memcpy(saved, p, sizeof *p * (size_t)n); /* p is NULL for no link */
      cr_assert_eq(route_path(b, own->gpus[i], own->gpus[j], &q, &m), 0);
      cr_assert(m == n && (n == 0 || !memcmp(q, saved, sizeof *q * (size_t)n)),
                "gpu %d -> gpu %d differ", i, j);
    }
  route_free(a), route_free(b);
  topo_free(stub), topo_free(own);
}

/* The paths of every GPU pair (i, j) of t from table r: links[(i * g +
 * j) * 8 ...] (up to 8 links each), their counts in lens[i * g + j]. */
static void all_paths(route_table *r, const topo *t, int *links, int *lens) {
  int g = t->n_gpus;
  for (int i = 0; i < g; i++)
    for (int j = 0; j < g; j++) {
      const int *p;
      int n;
      cr_assert_eq(route_path(r, t->gpus[i], t->gpus[j], &p, &n), 0);
      cr_assert_leq(n, 8);
      lens[i * g + j] = n;
      if (n) memcpy(links + (i * g + j) * 8, p, sizeof *p * (size_t)n);
    }
}

Test(route, tables_sharing_hop_counts_give_the_same_paths_on_threads) {
  /* a fat-tree (hosts on one link: the leaves' counts are shared) and a
   * torus (every GPU its own source) */
  const char *specs[] = {"fat_tree:hosts=64,radix=8,levels=3", "torus:x=4,y=4,z=2"};
  for (int s = 0; s < 2; s++) {
    topo *t = gen(specs[s]);
    int g = t->n_gpus;
    int *want = calloc((size_t)g * g * 8, sizeof *want);
    int *wlen = calloc((size_t)g * g, sizeof *wlen);
    route_table *alone = route_new(t, ROUTE_ECMP);
    all_paths(alone, t, want, wlen);
    route_free(alone);
    /* four tables on one base's counts, each walking the pairs from its
     * own start (so that they race for the same sources), on threads
     * where there are */
    enum { VIEWS = 4 };
    route_table *base = route_new(t, ROUTE_ECMP), *view[VIEWS];
    int bad[VIEWS] = {0};
    for (int v = 0; v < VIEWS; v++) cr_assert_not_null(view[v] = route_new_sharing(base));
    size_t before = route_bytes(base);
#pragma omp parallel for num_threads(VIEWS) schedule(static, 1)
    for (int v = 0; v < VIEWS; v++)
      for (int k = 0; k < g * g; k++) {
        int pair = (k + v * g * g / VIEWS) % (g * g), i = pair / g, j = pair % g;
        const int *p;
        int n;
        if (route_path(view[v], t->gpus[i], t->gpus[j], &p, &n) != 0 || n != wlen[pair] ||
            (n && memcmp(p, want + pair * 8, sizeof *p * (size_t)n)))
          bad[v]++;
      }
    for (int v = 0; v < VIEWS; v++)
      cr_expect_eq(bad[v], 0, "%s: table %d: %d paths differ", specs[s], v, bad[v]);
    /* the views' searches are the base's: it holds their counts without
     * having asked for a path (hop-count arrays, a byte per node each) */
    cr_expect_geq(route_bytes(base), before + (size_t)t->n_nodes, "%s", specs[s]);
    const int *p;
    int n;
    cr_assert_eq(route_path(base, t->gpus[0], t->gpus[g - 1], &p, &n), 0);
    cr_expect_eq(n, wlen[g - 1]);
    for (int v = 0; v < VIEWS; v++) route_free(view[v]);
    route_free(base);
    free(want), free(wlen);
    topo_free(t);
  }
}

/* The most flows any link carries when every GPU i sends to GPU i + k
 * (mod n) at once, the worst over every shift k. */
static int worst_shift_load(topo *t, route_policy pol) {
  route_table *r = route_new(t, pol);
  int *load = calloc((size_t)t->n_links, sizeof *load), worst = 0, n = t->n_gpus;
  cr_assert(r && load);
  for (int k = 1; k < n; k++) {
    memset(load, 0, sizeof *load * (size_t)t->n_links);
    for (int i = 0; i < n; i++) {
      const int *p;
      int len;
      cr_assert_eq(route_path(r, t->gpus[i], t->gpus[(i + k) % n], &p, &len), 0);
      for (int q = 0; q < len; q++)
        if (++load[p[q]] > worst) worst = load[p[q]];
    }
  }
  free(load);
  route_free(r);
  return worst;
}

Test(route, destination_mod_k_routes_every_shift_without_a_collision) {
  /* a full fat-tree (every switch as many links up as down, all as wide)
   * carries any shift permutation -- NCCL's rings -- with one flow a link
   * under destination-mod-k (Zahavi et al.: the destinations of one leaf
   * take different spines, each destination's path down is its own);
   * hashing (ECMP) puts two or more flows on some spine links */
  const char *specs[] = {"fat_tree:hosts=64,radix=16,levels=2", "fat_tree:hosts=64,radix=8,levels=3",
                         "fat_tree:hosts=128,radix=16,levels=2,gpus=8,nvlink=450"};
  for (int i = 0; i < 3; i++) {
    topo *t = gen(specs[i]);
    cr_expect_eq(t->routing, ROUTE_DMODK, "%s: the generator's default", specs[i]);
    int d = worst_shift_load(t, ROUTE_DMODK), e = worst_shift_load(t, ROUTE_ECMP);
    if (i < 2) cr_expect_eq(d, 1, "%s: destination-mod-k, worst %d flows a link", specs[i], d);
    cr_expect_gt(e, d, "%s: ECMP worst %d, destination-mod-k %d", specs[i], e, d);
    topo_free(t);
  }
  topo *t = gen("fat_tree:hosts=64,radix=16,levels=2,ecmp=1");
  cr_expect_eq(t->routing, ROUTE_ECMP);
  topo_free(t);
  t = gen("torus:x=4,y=4");
  cr_expect_eq(t->routing, ROUTE_DOR);
  topo_free(t);
}

/* Paths walked back from a leaf's hop counts are remembered in a memo the
 * tables of route_new_sharing share (route.c, `walked`): a table asking
 * for pairs another table walked gets the same links as a table of its
 * own, and so does every pair once the memo is full (64 Ki links; here
 * 49,152 pairs of about 6 links). */
Test(route, walked_paths_shared_between_tables_are_the_paths) {
  topo *t = gen("fat_tree:hosts=1024,radix=32,levels=3,oversub=2");
  route_table *a = route_new(t, ROUTE_ECMP), *b = route_new_sharing(a),
              *own = route_new(t, ROUTE_ECMP);
  cr_assert(a && b && own);
  for (int i = 0; i < t->n_gpus; i++)
    for (int k = 1; k <= 48; k++) {
      int s = t->gpus[i], d = t->gpus[(i + 3 * k) % t->n_gpus];
      const int *p, *q;
      int n, m, saved[64];
      cr_assert_eq(route_path(k % 2 ? a : b, s, d, &p, &n), 0);
      cr_assert(n <= 64);
      memcpy(saved, p, sizeof *p * (size_t)n);
      cr_assert_eq(route_path(k % 2 ? b : a, s, d, &q, &m), 0);
      cr_assert(m == n && !memcmp(q, saved, sizeof *q * (size_t)n), "pair %d+%d", i, k);
      cr_assert_eq(route_path(own, s, d, &q, &m), 0);
      cr_assert(m == n && !memcmp(q, saved, sizeof *q * (size_t)n), "own table, pair %d+%d", i,
                k);
    }
  route_free(own), route_free(b), route_free(a);
  topo_free(t);
}
