/*
 * topo_gen.c -- topology generators, one function per family behind a
 * table of {name, keys with defaults, build function}.
 *
 * Every builder adds nodes and duplex links to an empty topo and returns
 * 0, or -1 when an allocation failed. Parameter ranges are checked before
 * building (gen_args_check), so builders only see valid values.
 */
#include "net/topo_gen.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/mem.h"
#include "core/name.h"
#include "net/route.h"

#define MAX_KEYS 12

typedef struct gen_args {
  char key[MAX_KEYS][16];
  double val[MAX_KEYS];
  int n;
} gen_args;

static double arg(const gen_args *a, const char *key) {
  for (int i = 0; i < a->n; i++)
    if (!strcmp(a->key[i], key)) return a->val[i];
  return NAN; /* never: defaults are filled in before building */
}
#define A(k) arg(a, k)
#define GB 1e9
#define US 1e-6
#define ADD(x) \
  do { \
    if ((x) < 0) return -1; \
  } while (0)

/* ---------------------------------------------------------- builders */

static int gpu(topo *t, int i) {
  char nm[32];
  snprintf(nm, sizeof nm, "gpu%d", i);
  return topo_add_node(t, nm, TOPO_GPU);
}

static int build_ring(topo *t, const gen_args *a) {
  int n = (int)A("n");
  for (int i = 0; i < n; i++) ADD(gpu(t, i));
  for (int i = 0; i < n && n > 1; i++) {
    if (n == 2 && i == 1) break;
    ADD(topo_add_duplex(t, i, (i + 1) % n, A("bw") * GB, A("lat") * US));
  }
  return 0;
}

/* Torus (wrap = 1) or mesh (wrap = 0) of x*y*z GPUs; links tagged with
 * their dimension for dimension-order routing. */
static int grid(topo *t, const gen_args *a, int wrap) {
  int d[3] = {(int)A("x"), (int)A("y"), (int)A("z")};
  int n = d[0] * d[1] * d[2];
  for (int i = 0; i < n; i++) ADD(gpu(t, i));
  for (int i = 0; i < n; i++) {
    int c[3] = {i % d[0], i / d[0] % d[1], i / (d[0] * d[1])};
    int stride[3] = {1, d[0], d[0] * d[1]};
    for (int k = 0; k < 3; k++) {
      if (d[k] < 2) continue;
      int nxt = c[k] + 1;
      if (nxt == d[k]) {
        if (!wrap || d[k] == 2) continue; /* size 2: one cable, not two */
        nxt = 0;
      }
      int j = i + (nxt - c[k]) * stride[k];
      int id = topo_add_duplex(t, i, j, A("bw") * GB, A("lat") * US);
      ADD(id);
      t->links[id].dim = t->links[id + 1].dim = k;
    }
  }
  return 0;
}
/* dimension-order routing on the tagged links (route.h) */
static int build_torus(topo *t, const gen_args *a) {
  t->routing = ROUTE_DOR;
  return grid(t, a, 1);
}
static int build_mesh(topo *t, const gen_args *a) {
  t->routing = ROUTE_DOR;
  return grid(t, a, 0);
}

/* A fat-tree's routing: InfiniBand's destination-mod-k, or with ecmp=1
 * Ethernet's flow hashing (route.h). Destination-mod-k gives each
 * destination one down link from the spines, as wide as every other
 * port of its leaf here (a rail's spine links, each a share of the rail's
 * NICs, are not: rails keep hashing). */
static void switched(topo *t, const gen_args *a) {
  t->routing = A("ecmp") != 0 ? ROUTE_ECMP : ROUTE_DMODK;
}

/* Star: n GPUs around a switch, or around a parameter-server GPU. */
static int build_star(topo *t, const gen_args *a) {
  int n = (int)A("n");
  for (int i = 0; i < n; i++) ADD(gpu(t, i));
  int hub = A("ps") > 0 ? topo_add_node(t, "ps", TOPO_GPU) : topo_add_node(t, "switch", TOPO_SWITCH);
  ADD(hub);
  for (int i = 0; i < n; i++) ADD(topo_add_duplex(t, i, hub, A("bw") * GB, A("lat") * US));
  return 0;
}

/* k-ary tree of switches of the given depth; GPUs are the leaves. */
static int build_tree(topo *t, const gen_args *a) {
  int k = (int)A("k"), depth = (int)A("depth");
  int level_start = topo_add_node(t, "sw0", TOPO_SWITCH), width = 1, idx = 1;
  ADD(level_start);
  for (int d = 1; d <= depth; d++) {
    int first = t->n_nodes;
    for (int i = 0; i < width * k; i++) {
      char nm[32];
      int v;
      if (d == depth) {
        snprintf(nm, sizeof nm, "gpu%d", i);
        v = topo_add_node(t, nm, TOPO_GPU);
      } else {
        snprintf(nm, sizeof nm, "sw%d", idx++);
        v = topo_add_node(t, nm, TOPO_SWITCH);
      }
      ADD(v);
      ADD(topo_add_duplex(t, level_start + i / k, v, A("bw") * GB, A("lat") * US));
    }
    level_start = first;
    width *= k;
  }
  return 0;
}

/* Exponential graph: GPU i linked with i + 2^j (mod n), both ways. */
static int build_expo(topo *t, const gen_args *a) {
  int n = (int)A("n");
  for (int i = 0; i < n; i++) ADD(gpu(t, i));
  for (int i = 0; i < n; i++)
    for (int s = 1; s < n; s *= 2) {
      int j = (i + s) % n;
      if (s * 2 == n && j < i) continue; /* i + n/2 and j + n/2: one cable */
      ADD(topo_add_duplex(t, i, j, A("bw") * GB, A("lat") * US));
    }
  return 0;
}

/* DGX-1 (V100) hybrid cube-mesh: two fully connected quads plus the
 * cube edges; a pair with two NVLinks gets twice the bandwidth. */
static int build_dgx1(topo *t, const gen_args *a) {
  static const int pairs[16][3] = {{0, 1, 1}, {0, 2, 1}, {0, 3, 2}, {0, 4, 2}, {1, 2, 2},
                                   {1, 3, 1}, {1, 5, 2}, {2, 3, 2}, {2, 6, 1}, {3, 7, 1},
                                   {4, 5, 1}, {4, 6, 1}, {4, 7, 2}, {5, 6, 2}, {5, 7, 1},
                                   {6, 7, 2}};
  for (int i = 0; i < 8; i++) ADD(gpu(t, i));
  for (int p = 0; p < 16; p++)
    ADD(topo_add_duplex(t, pairs[p][0], pairs[p][1], pairs[p][2] * A("bw") * GB,
                        A("lat") * US));
  return 0;
}

/* One server: GPUs on an NVSwitch, and one NIC per GPU if nic > 0.
 * Returns the id of the first GPU. */
static int server(topo *t, int s, int gpus, double nvlink, double nic, double lat) {
  char nm[32];
  snprintf(nm, sizeof nm, "n%d.nvs", s);
  int sw = topo_add_node(t, nm, TOPO_NVSWITCH), first = -1;
  if (sw < 0) return -1;
  for (int g = 0; g < gpus; g++) {
    snprintf(nm, sizeof nm, "n%d.gpu%d", s, g);
    int v = topo_add_node(t, nm, TOPO_GPU);
    if (v < 0 || topo_add_duplex(t, v, sw, nvlink, lat) < 0) return -1;
    if (first < 0) first = v;
    if (nic > 0) {
      snprintf(nm, sizeof nm, "n%d.nic%d", s, g);
      int c = topo_add_node(t, nm, TOPO_NIC);
      if (c < 0 || topo_add_duplex(t, v, c, nic, lat) < 0) return -1;
    }
  }
  return first;
}

/* Rail-optimized Clos (DGX/HGX SuperPOD): NIC g of every server goes to
 * rail switch g; `spines` switches join the rails, with 1/`oversub` of
 * the bandwidth the rail's NICs bring (oversub 2: 2:1 above the rails). */
static int build_rail(topo *t, const gen_args *a) {
  int nodes = (int)A("nodes"), gpus = (int)A("gpus"), spines = (int)A("spines");
  double nvl = A("nvlink") * GB, nic = A("nic") * GB / 8, lat = A("lat") * US;
  int *nic0 = mem_alloc(sizeof *nic0 * (size_t)nodes);
  if (!nic0) return -1;
  int rc = 0;
  for (int s = 0; s < nodes && !rc; s++) {
    int g0 = server(t, s, gpus, nvl, nic, lat);
    if (g0 < 0) rc = -1;
    else nic0[s] = g0 + 1; /* layout: gpu, nic, gpu, nic, ... */
  }
  int rail0 = t->n_nodes;
  for (int g = 0; g < gpus && !rc; g++) {
    char nm[32];
    snprintf(nm, sizeof nm, "rail%d", g);
    int r = topo_add_node(t, nm, TOPO_SWITCH);
    if (r < 0) rc = -1;
    for (int s = 0; s < nodes && !rc; s++)
      if (topo_add_duplex(t, nic0[s] + 2 * g, r, nic, lat) < 0) rc = -1;
  }
  for (int p = 0; p < spines && !rc && gpus > 1; p++) {
    char nm[32];
    snprintf(nm, sizeof nm, "spine%d", p);
    int sp = topo_add_node(t, nm, TOPO_SWITCH);
    if (sp < 0) rc = -1;
    /* each rail switch spreads its nodes' bandwidth over the spines */
    for (int g = 0; g < gpus && !rc; g++)
      if (topo_add_duplex(t, rail0 + g, sp, nic * nodes / spines / A("oversub"), lat) < 0)
        rc = -1;
  }
  mem_free(nic0);
  return rc;
}

/* Hierarchical: servers with an NVSwitch, every NIC on one core switch. */
static int build_hier(topo *t, const gen_args *a) {
  int nodes = (int)A("nodes"), gpus = (int)A("gpus");
  double nvl = A("nvlink") * GB, nic = A("nic") * GB / 8, lat = A("lat") * US;
  int first_nic = -1;
  for (int s = 0; s < nodes; s++) {
    int g0 = server(t, s, gpus, nvl, nic, lat);
    ADD(g0);
    if (first_nic < 0) first_nic = g0 + 1;
  }
  int core = topo_add_node(t, "core", TOPO_SWITCH);
  ADD(core);
  for (int v = 0; v < t->n_nodes; v++)
    if (t->nodes[v].kind == TOPO_NIC) ADD(topo_add_duplex(t, v, core, nic, lat));
  return 0;
}

/* The fat-tree's leaf ports (hosts): single GPUs (gpus = 1), or the NICs
 * of servers of `gpus` GPUs on an NVSwitch, a NIC of `bw` per GPU. The
 * node id of each port into port[hosts]; 0, or -1 when out of memory. */
static int fat_tree_ports(topo *t, const gen_args *a, int *port) {
  int hosts = (int)A("hosts"), gpus = (int)A("gpus");
  if (gpus <= 1) {
    for (int h = 0; h < hosts; h++) ADD(port[h] = gpu(t, h));
    return 0;
  }
  for (int s = 0; s < hosts / gpus; s++) {
    int g0 = server(t, s, gpus, A("nvlink") * GB, A("bw") * GB, A("lat") * US);
    ADD(g0);
    for (int g = 0; g < gpus; g++) port[s * gpus + g] = g0 + 2 * g + 1; /* gpu, nic, ... */
  }
  return 0;
}

/* Folded-Clos fat-tree of radix r switches, 2 or 3 levels; hosts hang off
 * leaves (r/2 each); `oversub` divides the leaf uplink bandwidth. With
 * gpus > 1 the hosts are the NICs of NVSwitch servers (the servers' NICs
 * share leaves, where `rail` puts NIC g of every server on switch g). */
static int build_fat_tree(topo *t, const gen_args *a) {
  switched(t, a);
  int hosts = (int)A("hosts"), r = (int)A("radix"), levels = (int)A("levels");
  int half = r / 2;
  double bw = A("bw") * GB, up = bw / A("oversub"), lat = A("lat") * US;
  int leaves = (hosts + half - 1) / half;
  char nm[32];
  int *port = mem_alloc(sizeof *port * (size_t)hosts);
  if (!port || fat_tree_ports(t, a, port) < 0) {
    mem_free(port);
    return -1;
  }
  int leaf0 = t->n_nodes, rc = 0;
  for (int l = 0; l < leaves && !rc; l++) {
    snprintf(nm, sizeof nm, "leaf%d", l);
    if (topo_add_node(t, nm, TOPO_SWITCH) < 0) rc = -1;
  }
  for (int h = 0; h < hosts && !rc; h++)
    if (topo_add_duplex(t, port[h], leaf0 + h / half, bw, lat) < 0) rc = -1;
  mem_free(port);
  ADD(rc);
  if (levels == 2) {
    int sp0 = t->n_nodes;
    for (int s = 0; s < half; s++) {
      snprintf(nm, sizeof nm, "spine%d", s);
      ADD(topo_add_node(t, nm, TOPO_SWITCH));
    }
    for (int l = 0; l < leaves; l++)
      for (int s = 0; s < half; s++) ADD(topo_add_duplex(t, leaf0 + l, sp0 + s, up, lat));
    return 0;
  }
  int pods = (leaves + half - 1) / half;
  int agg0 = t->n_nodes;
  for (int p = 0; p < pods; p++)
    for (int j = 0; j < half; j++) {
      snprintf(nm, sizeof nm, "p%d.agg%d", p, j);
      ADD(topo_add_node(t, nm, TOPO_SWITCH));
    }
  int core0 = t->n_nodes;
  for (int c = 0; c < half * half; c++) {
    snprintf(nm, sizeof nm, "core%d", c);
    ADD(topo_add_node(t, nm, TOPO_SWITCH));
  }
  for (int l = 0; l < leaves; l++)
    for (int j = 0; j < half; j++)
      ADD(topo_add_duplex(t, leaf0 + l, agg0 + (l / half) * half + j, up, lat));
  for (int p = 0; p < pods; p++)
    for (int j = 0; j < half; j++)
      for (int c = 0; c < half; c++)
        ADD(topo_add_duplex(t, agg0 + p * half + j, core0 + j * half + c, bw, lat));
  return 0;
}

/* Dragonfly: `groups` groups of `routers` routers, fully connected inside
 * a group; `hosts` GPUs per router; each pair of groups joined by one
 * global link (between routers chosen round-robin). */
static int build_dragonfly(topo *t, const gen_args *a) {
  int g = (int)A("groups"), r = (int)A("routers"), h = (int)A("hosts");
  double bw = A("bw") * GB, gbw = A("global_bw") * GB, lat = A("lat") * US;
  char nm[32];
  for (int i = 0; i < g * r * h; i++) ADD(gpu(t, i));
  int r0 = t->n_nodes;
  for (int i = 0; i < g * r; i++) {
    snprintf(nm, sizeof nm, "g%d.r%d", i / r, i % r);
    ADD(topo_add_node(t, nm, TOPO_SWITCH));
  }
  for (int i = 0; i < g * r * h; i++) ADD(topo_add_duplex(t, i, r0 + i / h, bw, lat));
  for (int q = 0; q < g; q++)
    for (int i = 0; i < r; i++)
      for (int j = i + 1; j < r; j++)
        ADD(topo_add_duplex(t, r0 + q * r + i, r0 + q * r + j, bw, lat));
  int rr = 0;
  for (int p = 0; p < g; p++)
    for (int q = p + 1; q < g; q++, rr++)
      ADD(topo_add_duplex(t, r0 + p * r + rr % r, r0 + q * r + rr % r, gbw, lat));
  return 0;
}

/* ------------------------------------------------------------ sizes */

/* Each generator's nodes and duplex links, exactly, computed in doubles
 * from the checked arguments before anything is built, so that a size
 * the machine cannot hold is refused with its estimate (topo_gen). */
typedef struct gen_size {
  double nodes, duplex;
} gen_size;

static gen_size size_ring(const gen_args *a) {
  double n = A("n");
  return (gen_size){n, n < 2 ? 0 : n == 2 ? 1 : n};
}
static gen_size size_grid(const gen_args *a, int wrap) {
  double d[3] = {A("x"), A("y"), A("z")}, n = d[0] * d[1] * d[2], links = 0;
  for (int k = 0; k < 3; k++)
    if (d[k] >= 2) links += n / d[k] * (wrap && d[k] > 2 ? d[k] : d[k] - 1);
  return (gen_size){n, links};
}
static gen_size size_torus(const gen_args *a) { return size_grid(a, 1); }
static gen_size size_mesh(const gen_args *a) { return size_grid(a, 0); }
static gen_size size_star(const gen_args *a) { return (gen_size){A("n") + 1, A("n")}; }
static gen_size size_tree(const gen_args *a) {
  double nodes = 0, w = 1;
  for (int d = 0; d <= (int)A("depth"); d++, w *= A("k")) nodes += w;
  return (gen_size){nodes, nodes - 1};
}
static gen_size size_expo(const gen_args *a) {
  double n = A("n"), steps = ceil(log2(n)); /* s = 1, 2, 4, ... < n */
  int pow2 = steps == log2(n);             /* then s = n/2 joins pairs once */
  return (gen_size){n, n * steps - (pow2 ? n / 2 : 0)};
}
static gen_size size_dgx1(const gen_args *a) { return (gen_size){8, 16}; }
/* servers of `gpus` GPUs on an NVSwitch, with a NIC per GPU */
static gen_size size_servers(const gen_args *a) {
  double per = A("gpus") * (A("nic") > 0 ? 2 : 1);
  return (gen_size){A("nodes") * (1 + per), A("nodes") * per};
}
static gen_size size_rail(const gen_args *a) {
  gen_size s = size_servers(a);
  double g = A("gpus"), sp = g > 1 ? A("spines") : 0;
  return (gen_size){s.nodes + g + sp, s.duplex + g * A("nodes") + sp * g};
}
static gen_size size_hier(const gen_args *a) {
  gen_size s = size_servers(a);
  return (gen_size){s.nodes + 1, s.duplex + (A("nic") > 0 ? A("nodes") * A("gpus") : 0)};
}
static gen_size size_fat_tree(const gen_args *a) {
  double hosts = A("hosts"), half = floor(A("radix") / 2), leaves = ceil(hosts / half);
  /* servers: an NVSwitch each, a NIC per GPU, the GPU's two links */
  double gpus = A("gpus"), sn = gpus > 1 ? hosts / gpus + hosts : 0, sl = gpus > 1 ? 2 * hosts : 0;
  if (A("levels") == 2) return (gen_size){hosts + leaves + half + sn, hosts + leaves * half + sl};
  double pods = ceil(leaves / half);
  return (gen_size){hosts + leaves + pods * half + half * half + sn,
                    hosts + leaves * half + pods * half * half + sl};
}
static gen_size size_dragonfly(const gen_args *a) {
  double g = A("groups"), r = A("routers"), h = A("hosts");
  return (gen_size){g * r * h + g * r, g * r * h + g * r * (r - 1) / 2 + g * (g - 1) / 2};
}

/* ------------------------------------------------------------- table */

typedef struct gen_def {
  const char *name;
  const char *keys;  /* "key=default ..." */
  const char *what;
  int (*build)(topo *t, const gen_args *a);
  gen_size (*size)(const gen_args *a);
} gen_def;

static const gen_def gens[] = {
    {"ring", "n=8 bw=25 lat=1", "n GPUs in a bidirectional ring", build_ring, size_ring},
    {"torus", "x=4 y=4 z=1 bw=25 lat=1", "2D/3D torus (z=1: 2D), dimension-tagged links",
     build_torus, size_torus},
    {"mesh", "x=4 y=4 z=1 bw=25 lat=1", "2D/3D mesh without wrap-around", build_mesh, size_mesh},
    {"star", "n=8 bw=12.5 lat=2 ps=0", "GPUs around a switch (ps=1: around a server GPU)",
     build_star, size_star},
    {"tree", "k=2 depth=3 bw=12.5 lat=2", "k-ary tree of switches, GPUs at the leaves",
     build_tree, size_tree},
    {"expo", "n=16 bw=12.5 lat=2", "exponential graph: i linked with i+2^j", build_expo, size_expo},
    {"dgx1", "bw=25 lat=0.7", "DGX-1 V100 hybrid cube-mesh (bw per NVLink)", build_dgx1, size_dgx1},
    {"rail", "nodes=4 gpus=8 nvlink=300 nic=400 spines=8 lat=1 oversub=1",
     "DGX/HGX servers (NVSwitch, one NIC per GPU) on a rail-optimized Clos; oversub divides "
     "rail-to-spine links", build_rail, size_rail},
    {"dgx", "nodes=4 gpus=8 nvlink=300 nic=400 spines=8 lat=1 oversub=1", "alias of rail",
     build_rail, size_rail},
    {"hier", "nodes=4 gpus=8 nvlink=300 nic=200 lat=1",
     "hierarchical: NVSwitch servers, all NICs on one core switch", build_hier, size_hier},
    {"fat_tree", "hosts=128 radix=16 levels=3 oversub=1 bw=50 lat=1 gpus=1 nvlink=300 ecmp=0",
     "folded-Clos fat-tree (levels 2 or 3), oversub divides leaf uplinks; gpus>1: hosts are "
     "the NICs of NVSwitch servers of that many GPUs; ecmp=1: hashed routes (Ethernet), 0: "
     "destination-mod-k (InfiniBand)", build_fat_tree,
     size_fat_tree},
    {"dragonfly", "groups=4 routers=4 hosts=2 bw=25 global_bw=25 lat=1",
     "dragonfly: all-to-all routers per group, one global link per group pair",
     build_dragonfly, size_dragonfly},
};
#define N_GENS ((int)(sizeof gens / sizeof gens[0]))

void topo_gen_help(FILE *out) {
  int w = 0; /* the longest list of keys: the descriptions line up */
  for (int i = 0; i < N_GENS; i++)
    if ((int)strlen(gens[i].keys) > w) w = (int)strlen(gens[i].keys);
  for (int i = 0; i < N_GENS; i++)
    fprintf(out, "  %-10s %-*s %s\n", gens[i].name, w, gens[i].keys, gens[i].what);
}

int topo_gen_info(int i, const char **name, const char **keys, const char **what) {
  if (i < 0 || i >= N_GENS) return -1;
  *name = gens[i].name, *keys = gens[i].keys, *what = gens[i].what;
  return 0;
}

/* Fill a with the defaults of g. */
static void defaults(const gen_def *g, gen_args *a) {
  a->n = 0;
  const char *p = g->keys;
  while (*p && a->n < MAX_KEYS) {
    int len = 0;
    while (p[len] && p[len] != '=') len++;
    snprintf(a->key[a->n], sizeof a->key[0], "%.*s", len, p);
    a->val[a->n] = strtod(p + len + 1, (char **)&p);
    a->n++;
    while (*p == ' ') p++;
  }
}

/* Range checks shared by all generators. */
static int check_args(const gen_def *g, const gen_args *a, sc_error *err) {
  for (int i = 0; i < a->n; i++) {
    const char *k = a->key[i];
    double v = a->val[i];
    int is_count = strcmp(k, "bw") && strcmp(k, "global_bw") && strcmp(k, "lat") &&
                   strcmp(k, "nvlink") && strcmp(k, "nic") && strcmp(k, "oversub");
    if (is_count && (v != floor(v) || v < 0 || v > 1e6))
      return sc_error_set(err, SC_EINPUT, "generator %s: %s=%g must be a whole number in 0..1e6",
                          g->name, k, v);
    /* GB/s, Gb/s, microseconds, a ratio: finite, and a nonzero value
     * neither below 1e-6 (no hardware; times would overflow) nor above 1e9 */
    int positive = !strcmp(k, "bw") || !strcmp(k, "global_bw") || !strcmp(k, "oversub") ||
                   !strcmp(k, "nvlink") || !strcmp(k, "nic"); /* lat may be 0 */
    if (!is_count && (!(v >= 0) || v > 1e9 || (v != 0 && v < 1e-6) || (positive && v <= 0)))
      return sc_error_set(err, SC_EINPUT, "generator %s: %s=%g: valid: %s1e-6..1e9", g->name, k,
                          v, positive ? "" : "0 or ");
  }
  const char *need2[] = {"n", "hosts", "nodes", "gpus", "x", "k", "groups", "routers",
                         "hosts", "radix"};
  for (size_t j = 0; j < sizeof need2 / sizeof *need2; j++) {
    double v = arg(a, need2[j]);
    int min = !strcmp(need2[j], "n") || !strcmp(need2[j], "k") || !strcmp(need2[j], "radix")
                  ? 2 : 1;
    if (!isnan(v) && v < min)
      return sc_error_set(err, SC_EINPUT, "generator %s: %s=%g must be >= %d", g->name,
                          need2[j], v, min);
  }
  double ecmp = arg(a, "ecmp");
  if (!isnan(ecmp) && ecmp != 0 && ecmp != 1)
    return sc_error_set(err, SC_EINPUT,
                        "generator %s: ecmp=%g: valid are 0 (destination-mod-k routes, "
                        "InfiniBand's) or 1 (hashed routes, Ethernet's ECMP)",
                        g->name, ecmp);
  double lv = arg(a, "levels");
  if (!isnan(lv) && lv != 2 && lv != 3)
    return sc_error_set(err, SC_EINPUT, "generator %s: levels=%g: valid are 2 or 3",
                        g->name, lv);
  double rad = arg(a, "radix");
  if (!isnan(rad) && ((int)rad % 2))
    return sc_error_set(err, SC_EINPUT, "generator %s: radix=%g must be even", g->name, rad);
  if (!isnan(rad) && !isnan(lv)) {
    double half = rad / 2, cap = lv == 2 ? half * rad : half * half * rad;
    if (arg(a, "hosts") > cap)
      return sc_error_set(err, SC_EINPUT,
                          "generator %s: hosts=%g exceed what %g levels of radix %g "
                          "switches connect (%g)",
                          g->name, arg(a, "hosts"), lv, rad, cap);
  }
  double gp = arg(a, "gpus"), ho = arg(a, "hosts");
  if (!isnan(gp) && !isnan(ho) && fmod(ho, gp) != 0)
    return sc_error_set(err, SC_EINPUT,
                        "generator %s: hosts=%g must be whole servers of gpus=%g (valid "
                        "nearby: %g or %g)",
                        g->name, ho, gp, floor(ho / gp) * gp, (floor(ho / gp) + 1) * gp);
  double d = arg(a, "depth"), k = arg(a, "k");
  if (!isnan(d) && (d < 1 || pow(k, d) > 1e6))
    return sc_error_set(err, SC_EINPUT, "generator %s: depth=%g: need 1 <= k^depth <= 1e6",
                        g->name, d);
  double x = arg(a, "x"), y = arg(a, "y"), z = arg(a, "z");
  if (!isnan(x) && (y < 1 || z < 1 || x * y * z > 1e6))
    return sc_error_set(err, SC_EINPUT, "generator %s: x, y, z must be >= 1 (at most 1e6 GPUs)",
                        g->name);
  return SC_OK;
}

/* Into hint (cap bytes): `; did you mean "K"?` naming the key of a
 * closest to the n bytes at word (name_suggest, as a JSON file's keys
 * get), or "". */
static void key_hint(const gen_args *a, const char *word, size_t n, char *hint, size_t cap) {
  char w[16];
  const char *cand[MAX_KEYS];
  for (int i = 0; i < a->n; i++) cand[i] = a->key[i];
  snprintf(w, sizeof w, "%.*s", (int)(n < sizeof w ? n : sizeof w - 1), word);
  const char *near = n < sizeof w ? name_suggest(w, cand, (size_t)a->n) : NULL;
  if (near) snprintf(hint, cap, "; did you mean \"%s\"?", near);
  else if (cap) hint[0] = '\0';
}

/* Parse "key=value,key=value" over the defaults. */
static int parse_args(const gen_def *g, const char *p, gen_args *a, sc_error *err) {
  _Static_assert(MAX_KEYS <= 32, "seen holds one bit per key");
  unsigned seen = 0; /* keys given, by index: one value each */
  while (p && *p) {
    const char *eq = strchr(p, '='), *end = strchr(p, ',');
    if (!end) end = p + strlen(p);
    if (!eq || eq > end)
      return sc_error_set(err, SC_EINPUT, "generator %s: '%.*s' is not key=value (keys: %s)",
                          g->name, (int)(end - p), p, g->keys);
    int i;
    for (i = 0; i < a->n; i++)
      if ((int)strlen(a->key[i]) == eq - p && !strncmp(a->key[i], p, (size_t)(eq - p))) break;
    if (i == a->n) {
      char hint[48];
      key_hint(a, p, (size_t)(eq - p), hint, sizeof hint);
      return sc_error_set(err, SC_EINPUT, "generator %s: unknown key '%.*s'%s (valid: %s)",
                          g->name, (int)(eq - p), p, hint, g->keys);
    }
    if (seen >> i & 1u)
      return sc_error_set(err, SC_EINPUT, "generator %s: %s is given twice (one value per key)",
                          g->name, a->key[i]);
    seen |= 1u << i;
    char *stop;
    char buf[64];
    if (end - eq - 1 >= (long)sizeof buf)
      return sc_error_set(err, SC_EINPUT, "generator %s: %s: the value is %ld characters long; "
                          "at most %zu", g->name, a->key[i], (long)(end - eq - 1), sizeof buf - 1);
    snprintf(buf, sizeof buf, "%.*s", (int)(end - eq - 1), eq + 1);
    a->val[i] = strtod(buf, &stop);
    if (stop == buf || *stop)
      return sc_error_set(err, SC_EINPUT, "generator %s: %s='%s' is not a number", g->name,
                          a->key[i], buf);
    p = *end ? end + 1 : end;
  }
  return check_args(g, a, err);
}

/* Find the generator of spec, parse and check its arguments into a. */
static int parse_spec(const char *spec, const gen_def **out, gen_args *a, sc_error *err) {
  const char *colon = strchr(spec, ':');
  size_t len = colon ? (size_t)(colon - spec) : strlen(spec);
  const gen_def *g = NULL;
  for (int i = 0; i < N_GENS; i++)
    if (name_eq(gens[i].name, spec, len, 0)) g = &gens[i]; /* "Fat_Tree" too */
  if (!g) {
    char names[256] = "";
    for (int i = 0; i < N_GENS; i++)
      snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", i ? ", " : "",
               gens[i].name);
    const char *cand[N_GENS];
    char word[32];
    for (int i = 0; i < N_GENS; i++) cand[i] = gens[i].name;
    snprintf(word, sizeof word, "%.*s", (int)(len < sizeof word ? len : sizeof word - 1), spec);
    const char *near = len < sizeof word ? name_suggest(word, cand, N_GENS) : NULL;
    char hint[48] = "";
    if (near) snprintf(hint, sizeof hint, "; did you mean \"%s\"?", near);
    return sc_error_set(err, SC_EINPUT, "unknown topology generator '%.*s'%s (valid: %s)",
                        (int)len, spec, hint, names);
  }
  *out = g;
  defaults(g, a);
  return parse_args(g, colon ? colon + 1 : NULL, a, err);
}

int topo_gen_size(const char *spec, double *nodes, double *links, sc_error *err) {
  const gen_def *g;
  gen_args a;
  int rc = parse_spec(spec, &g, &a, err);
  if (rc) return rc;
  gen_size sz = g->size(&a);
  *nodes = sz.nodes, *links = 2 * sz.duplex;
  return SC_OK;
}

int topo_gen(const char *spec, topo **out, sc_error *err) {
  *out = NULL;
  const gen_def *g;
  gen_args a;
  int rc = parse_spec(spec, &g, &a, err);
  if (rc) return rc;
  gen_size sz = g->size(&a);
  char what[48];
  snprintf(what, sizeof what, "generator %s", g->name);
  if ((rc = topo_size_check(what, sz.nodes, 2 * sz.duplex, err))) return rc;
  topo *t = topo_new(spec);
  if (!t || g->build(t, &a) < 0) {
    topo_free(t);
    return sc_error_set(err, SC_ENOMEM, "generator %s: out of memory", g->name);
  }
  rc = topo_finalize(t, err);
  if (rc) {
    topo_free(t);
    return rc;
  }
  *out = t;
  return SC_OK;
}
