/*
 * topo_json.c -- read a topology from JSON (jansson), with errors that
 * name the place: origin:line:column for syntax, a key path for content.
 */
#include "load/topo_json.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/file.h"
#include "core/mem.h"
#include "load/jparse.h"
#include "load/jpos.h"
#include "load/scenario.h"
#include "net/route.h"
#include "net/topo_gen.h"

/* Into hint (cap bytes): `; did you mean "K"?` naming the key of the
 * space-separated list `valid` closest to `key` (scn_suggest), or "". */
static void only_keys_hint(const char *key, const char *valid, char *hint, size_t cap) {
  char words[128];
  const char *cand[16];
  size_t n = 0;
  snprintf(words, sizeof words, "%s", valid);
  char *save = NULL;
  for (char *w = strtok_r(words, " ", &save); w && n < 16; w = strtok_r(NULL, " ", &save)) cand[n++] = w;
  const char *near = scn_suggest(key, cand, n);
  if (near) snprintf(hint, cap, "; did you mean \"%s\"?", near);
}

/* Reject keys of obj not in the space-separated list `valid`. */
static int only_keys(json_t *obj, const char *valid, const char *origin, const char *path,
                     sc_error *err) {
  const char *key;
  json_t *v;
  json_object_foreach(obj, key, v) {
    const char *p = valid;
    size_t n = strlen(key);
    int ok = 0;
    while (*p && !ok) {
      size_t m = strcspn(p, " ");
      ok = m == n && !strncmp(p, key, n);
      p += m + (p[m] == ' ');
    }
    if (ok) continue;
    /* a scenario at the top level: say which commands read it */
    int scen = !*path && (json_object_get(obj, "plan") || json_object_get(obj, "model"));
    char hint[64] = "";
    only_keys_hint(key, valid, hint, sizeof hint);
    return sc_error_set(err, SC_EINPUT, "%s: %s%s%s: unknown key%s (valid: %s)%s", origin, path,
                        *path ? "." : "", key, hint, valid,
                        scen ? " (a scenario? `stepcast predict FILE` reads it; a topology "
                               "goes in its cluster.topology)" : "");
  }
  return SC_OK;
}

/* Element i of the array `what` ("nodes", "links"): path (cap bytes)
 * receives "what[i]"; el must be an object of only the keys in `keys`. */
static int array_object(json_t *el, const char *what, size_t i, const char *keys,
                        const char *origin, char *path, size_t cap, sc_error *err) {
  snprintf(path, cap, "%s[%zu]", what, i);
  if (!json_is_object(el))
    return sc_error_set(err, SC_EINPUT, "%s: %s: must be an object", origin, path);
  return only_keys(el, keys, origin, path, err);
}

/* 1 when s can be printed as it is in a table, a DOT file or JSON: no
 * control character (terminal escapes), quote or backslash. */
static int plain(const char *s) {
  for (; *s; s++)
    if ((unsigned char)*s < 0x20 || *s == 0x7F || *s == '"' || *s == '\\') return 0;
  return 1;
}

static int load_nodes(topo *t, json_t *nodes, const char *origin, sc_error *err) {
  if (!json_is_array(nodes))
    return sc_error_set(err, SC_EINPUT, "%s: nodes: must be an array of {\"name\", \"kind\"}",
                        origin);
  size_t i;
  json_t *n;
  json_array_foreach(nodes, i, n) {
    char path[32];
    int rc = array_object(n, "nodes", i, "name kind", origin, path, sizeof path, err);
    if (rc) return rc;
    const char *name = json_string_value(json_object_get(n, "name"));
    json_t *kv = json_object_get(n, "kind");
    const char *kind = json_string_value(kv);
    if (kv && !kind)
      return sc_error_set(err, SC_EINPUT,
                          "%s: %s.kind: must be a string (valid: gpu, nvswitch, nic, switch; "
                          "absent = gpu)", origin, path);
    if (!name || !*name || strlen(name) >= sizeof t->nodes[0].name || !plain(name))
      return sc_error_set(err, SC_EINPUT,
                          "%s: %s.name: must be a string of 1 to %zu characters without "
                          "control characters, quotes or backslashes",
                          origin, path, sizeof t->nodes[0].name - 1);
    int k = kind ? topo_kind_from_name(kind) : TOPO_GPU;
    if (k < 0)
      return sc_error_set(err, SC_EINPUT,
                          "%s: %s.kind: '%s' is not a kind (valid: gpu, nvswitch, nic, switch)",
                          origin, path, kind);
    if (topo_add_node(t, name, (topo_kind)k) < 0)
      return sc_error_set(err, SC_ENOMEM, "%s: out of memory", origin);
  }
  return SC_OK;
}

/* A number field of a link: required (def < 0) or defaulted. */
static int num_field(json_t *l, const char *key, double def, double *out, const char *origin,
                     const char *path, sc_error *err) {
  json_t *v = json_object_get(l, key);
  if (!v) {
    if (def < 0) return sc_error_set(err, SC_EINPUT, "%s: %s.%s: missing", origin, path, key);
    *out = def;
    return SC_OK;
  }
  if (!json_is_number(v))
    return sc_error_set(err, SC_EINPUT, "%s: %s.%s: must be a number", origin, path, key);
  *out = json_number_value(v);
  return SC_OK;
}

/* The nodes sorted by name, so that links find their ends in log time
 * (a linear search made 60,000-node files load in quadratic time). */
typedef struct name_ix {
  const char *name; /* borrowed from the topo */
  int id;
} name_ix;

static int cmp_ix(const void *a, const void *b) {
  const name_ix *x = a, *y = b;
  int c = strcmp(x->name, y->name);
  return c ? c : (x->id > y->id) - (x->id < y->id);
}

/* Index t's nodes into *ix (owned by the caller, mem_free); a name given
 * twice is an error naming both places. */
static int index_names(const topo *t, name_ix **ix, const char *origin, sc_error *err) {
  *ix = mem_alloc(sizeof **ix * (size_t)t->n_nodes);
  if (!*ix) return sc_error_set(err, SC_ENOMEM, "%s: out of memory", origin);
  for (int v = 0; v < t->n_nodes; v++) (*ix)[v] = (name_ix){t->nodes[v].name, v};
  qsort(*ix, (size_t)t->n_nodes, sizeof **ix, cmp_ix);
  for (int v = 1; v < t->n_nodes; v++)
    if (!strcmp((*ix)[v].name, (*ix)[v - 1].name))
      return sc_error_set(err, SC_EINPUT,
                          "%s: nodes[%d].name: \"%s\" is also the name of nodes[%d] "
                          "(names must be unique)",
                          origin, (*ix)[v].id, (*ix)[v].name, (*ix)[v - 1].id);
  return SC_OK;
}

static int node_ref(const topo *t, const name_ix *ix, json_t *l, const char *key,
                    const char *origin, const char *path, int *id, sc_error *err) {
  const char *s = json_string_value(json_object_get(l, key));
  if (!s) return sc_error_set(err, SC_EINPUT, "%s: %s.%s: missing node name", origin, path, key);
  name_ix want = {s, -1};
  size_t lo = 0, hi = (size_t)t->n_nodes; /* first entry >= want */
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (cmp_ix(&ix[mid], &want) < 0) lo = mid + 1;
    else hi = mid;
  }
  *id = lo < (size_t)t->n_nodes && !strcmp(ix[lo].name, s) ? ix[lo].id : -1;
  if (*id < 0)
    return sc_error_set(err, SC_EINPUT, "%s: %s.%s: unknown node '%s' (declare it in nodes)",
                        origin, path, key, s);
  return SC_OK;
}

static int load_links(topo *t, const name_ix *ix, json_t *links, const char *origin,
                      sc_error *err) {
  if (!json_is_array(links))
    return sc_error_set(err, SC_EINPUT, "%s: links: must be an array", origin);
  size_t i;
  json_t *l;
  json_array_foreach(links, i, l) {
    char path[32];
    int rc = array_object(l, "links", i, "from to bw_GBps lat_us duplex", origin, path,
                          sizeof path, err);
    int a = -1, b = -1;
    double bw = 0, lat = 0;
    if (!rc) rc = node_ref(t, ix, l, "from", origin, path, &a, err);
    if (!rc) rc = node_ref(t, ix, l, "to", origin, path, &b, err);
    if (!rc) rc = num_field(l, "bw_GBps", -1, &bw, origin, path, err);
    if (!rc) rc = num_field(l, "lat_us", 1.0, &lat, origin, path, err);
    if (rc) return rc;
    /* no hardware is below 1 kB/s or above 1 EB/s; a denormal would
     * make times overflow */
    if (!(bw >= 1e-6 && bw <= 1e9))
      return sc_error_set(err, SC_EINPUT,
                          "%s: %s.bw_GBps: %g; valid: 1e-6..1e9 (GB/s per direction)", origin,
                          path, bw);
    if (!(lat >= 0 && lat <= 1e9) || (lat != 0 && lat < 1e-9))
      return sc_error_set(err, SC_EINPUT, "%s: %s.lat_us: %g; valid: 0 or 1e-9..1e9 (us)",
                          origin, path, lat);
    if (a == b)
      return sc_error_set(err, SC_EINPUT, "%s: %s: links node '%s' to itself", origin, path,
                          t->nodes[a].name);
    json_t *dup = json_object_get(l, "duplex");
    if (dup && !json_is_boolean(dup))
      return sc_error_set(err, SC_EINPUT, "%s: %s.duplex: must be true or false", origin, path);
    int id = dup && json_is_false(dup) ? topo_add_link(t, a, b, bw * 1e9, lat * 1e-6)
                                       : topo_add_duplex(t, a, b, bw * 1e9, lat * 1e-6);
    if (id < 0) return sc_error_set(err, SC_ENOMEM, "%s: out of memory", origin);
  }
  return SC_OK;
}

/* The file's "routing" (optional, any case): how its switches choose
 * among equally short paths (net/route.h); ECMP when absent. */
static int routing(topo *t, json_t *v, const char *origin, sc_error *err) {
  if (!v) return SC_OK;
  int p = route_policy_from_name(json_string_value(v));
  if (p != ROUTE_ECMP && p != ROUTE_DMODK) /* dor needs dimension tags: the generators' */
    return sc_error_set(err, SC_EINPUT,
                        "%s: routing: must be \"ecmp\" (hashed, Ethernet) or \"dmodk\" "
                        "(destination-mod-k, InfiniBand fat-trees); dimension order is the "
                        "torus and mesh generators' own",
                        origin);
  t->routing = p;
  return SC_OK;
}

static int load_root(json_t *root, const char *origin, topo **out, sc_error *err) {
  if (!json_is_object(root))
    return sc_error_set(err, SC_EINPUT, "%s: the topology must be a JSON object", origin);
  int rc = only_keys(root, "name generator nodes links routing", origin, "", err);
  if (rc) return rc;
  json_t *gen = json_object_get(root, "generator");
  const char *name = json_string_value(json_object_get(root, "name"));
  if (json_object_get(root, "name") && (!name || !plain(name) ||
                                       strlen(name) >= sizeof((topo *)0)->name))
    return sc_error_set(err, SC_EINPUT,
                        "%s: name: must be a string of at most %zu bytes without control "
                        "characters, quotes or backslashes", origin,
                        sizeof((topo *)0)->name - 1);
  if (gen) {
    if (!json_is_string(gen))
      return sc_error_set(err, SC_EINPUT, "%s: generator: must be a string such as \"ring:n=8\"",
                          origin);
    if (json_object_get(root, "nodes") || json_object_get(root, "links"))
      return sc_error_set(err, SC_EINPUT, "%s: give either generator or nodes/links, not both",
                          origin);
    if (json_object_get(root, "routing"))
      return sc_error_set(err, SC_EINPUT,
                          "%s: routing: a generator sets its own (rail and fat_tree take "
                          "ecmp=0|1 in the generator string); give routing with nodes/links",
                          origin);
    rc = topo_gen(json_string_value(gen), out, err);
  } else {
    topo *t = topo_new(name ? name : origin);
    if (!t) return sc_error_set(err, SC_ENOMEM, "%s: out of memory", origin);
    json_t *nodes = json_object_get(root, "nodes"), *links = json_object_get(root, "links");
    name_ix *ix = NULL;
    /* at most two directed links per entry: refuse what cannot fit first */
    rc = topo_size_check(origin, (double)json_array_size(nodes), 2.0 * json_array_size(links),
                         err);
    if (!rc)
      rc = nodes ? load_nodes(t, nodes, origin, err)
                 : sc_error_set(err, SC_EINPUT, "%s: nodes: missing (or give a generator)",
                                origin);
    if (!rc) rc = index_names(t, &ix, origin, err);
    if (!rc)
      rc = links ? load_links(t, ix, links, origin, err)
                 : sc_error_set(err, SC_EINPUT, "%s: links: missing", origin);
    mem_free(ix);
    if (!rc) rc = routing(t, json_object_get(root, "routing"), origin, err);
    if (!rc) rc = topo_finalize(t, err);
    if (rc) topo_free(t);
    else *out = t;
  }
  if (rc) return rc;
  rc = topo_check(*out, err, NULL, 0);
  if (rc) {
    topo_free(*out);
    *out = NULL;
  }
  if (rc == SC_EINPUT && !gen) { /* the check names the topology: say which file */
    char msg[sizeof err->msg];
    snprintf(msg, sizeof msg, "%s", err->msg);
    sc_error_set(err, rc, "%s: %s", origin, msg);
  }
  return rc;
}

int topo_json_load_buffer(const char *buf, size_t len, const char *origin, topo **out,
                          sc_error *err) {
  *out = NULL;
  json_error_t je;
  json_t *root;
  int rc = jparse(buf, len, JSON_REJECT_DUPLICATES, &root, &je);
  if (rc == SC_ENOMEM) return sc_error_set(err, rc, "%s: out of memory", origin);
  if (rc) /* worded as the other loaders' */
    return sc_error_set(err, rc, "%s:%d:%d: invalid JSON: %s", origin, je.line, je.column, je.text);
  rc = load_root(root, origin, out, err);
  json_decref(root);
  if (rc == SC_EINPUT) jpos_annotate(err, origin, buf, len); /* where the value is */
  return rc;
}

int topo_json_load_file(const char *path, topo **out, sc_error *err) {
  *out = NULL;
  char *buf;
  size_t len;
  int rc = file_read(path, "topology file", FILE_MAX_TOPOLOGY, &buf, &len, err);
  if (rc) return rc;
  rc = topo_json_load_buffer(buf, len, path, out, err);
  mem_free(buf);
  return rc;
}

int topo_load_spec(const char *spec, topo **out, sc_error *err) {
  size_t n = strlen(spec);
  /* a generator name has no '/', a file may have no .json */
  if ((n > 5 && !strcmp(spec + n - 5, ".json")) || strchr(spec, '/'))
    return topo_json_load_file(spec, out, err);
  int rc = topo_gen(spec, out, err);
  if (rc) return rc;
  rc = topo_check(*out, err, NULL, 0);
  if (rc) {
    topo_free(*out);
    *out = NULL;
  }
  return rc;
}
