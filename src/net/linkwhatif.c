/*
 * linkwhatif.c -- failed and degraded cables of a topology; see
 * linkwhatif.h.
 */
#include "net/linkwhatif.h"

#include <stdlib.h>
#include <string.h>

#include "core/mem.h"

/* Per link: 0 = failed, else its bandwidth factor. */
typedef struct edit {
  double *factor;
} edit;

/* Find the cable "a-b" (the split is at a '-' that leaves two node
 * names); its node ids in *u, *v. 0 or -1. */
static int cable(const topo *t, const char *s, size_t len, int *u, int *v) {
  char buf[160];
  if (len >= sizeof buf) return -1;
  memcpy(buf, s, len);
  buf[len] = 0;
  for (char *d = strchr(buf, '-'); d; d = strchr(d + 1, '-')) {
    *d = 0;
    *u = topo_find(t, buf), *v = topo_find(t, d + 1);
    *d = '-';
    if (*u >= 0 && *v >= 0) return 0;
  }
  return -1;
}

/* Mark the links between u and v with factor f; how many were marked. */
static int mark(const topo *t, int u, int v, double f, double *factor) {
  int n = 0;
  for (int l = 0; l < t->n_links; l++)
    if ((t->links[l].src == u && t->links[l].dst == v) ||
        (t->links[l].src == v && t->links[l].dst == u))
      factor[l] *= f, n++;
  return n;
}

/* Parse one list into factor[]; SC_OK or SC_EINPUT. */
static int parse(const topo *t, const char *list, int degrade, const char *key, double *factor,
                 sc_error *err) {
  for (const char *p = list; p && *p;) {
    const char *end = strchr(p, ',');
    size_t len = end ? (size_t)(end - p) : strlen(p);
    size_t name_len = len;
    double f = 0;
    if (degrade) {
      const char *colon = memchr(p, ':', len);
      char *e = NULL;
      f = colon ? strtod(colon + 1, &e) : -1;
      if (!colon || e != p + len || !(f > 0 && f <= 1))
        return sc_error_set(err, SC_EINPUT,
                            "%s: '%.*s' needs a bandwidth factor in (0, 1], e.g. "
                            "\"n0.nic0-rail0:0.5\"", key, (int)len, p);
      name_len = (size_t)(colon - p);
    }
    int u, v;
    if (cable(t, p, name_len, &u, &v) || !mark(t, u, v, f, factor))
      return sc_error_set(err, SC_EINPUT,
                          "%s: no cable '%.*s' in topology %s (name it by its two nodes, "
                          "\"a-b\", as `stepcast topo SPEC --dot` lists them)",
                          key, (int)name_len, p, t->name);
    p = end ? end + 1 : NULL;
  }
  return SC_OK;
}

/* A copy of t without the failed links and with the degraded ones
 * scaled; NULL when out of memory. */
static topo *rebuild(const topo *t, const double *factor) {
  topo *n = topo_new(t->name);
  if (!n) return NULL;
  n->routing = t->routing;
  int ok = 1;
  for (int v = 0; v < t->n_nodes && ok; v++)
    ok = topo_add_node(n, t->nodes[v].name, t->nodes[v].kind) == v;
  for (int l = 0; l < t->n_links && ok; l++) {
    if (factor[l] <= 0) continue;
    const topo_link *k = &t->links[l];
    int id = topo_add_link(n, k->src, k->dst, k->bw * factor[l], k->lat);
    if (id < 0) ok = 0;
    else n->links[id].dim = k->dim;
  }
  if (!ok) {
    topo_free(n);
    return NULL;
  }
  return n;
}

int lwi_apply(topo **t, const char *fail, const char *degrade, const char *key_fail,
              const char *key_degrade, sc_error *err) {
  if ((!fail || !*fail) && (!degrade || !*degrade)) return SC_OK;
  const topo *old = *t;
  double *factor = mem_alloc(sizeof *factor * (size_t)(old->n_links > 0 ? old->n_links : 1));
  if (!factor) return sc_error_set(err, SC_ENOMEM, "out of memory editing the topology");
  for (int l = 0; l < old->n_links; l++) factor[l] = 1;
  int rc = parse(old, degrade, 1, key_degrade, factor, err);
  if (rc == SC_OK) rc = parse(old, fail, 0, key_fail, factor, err);
  topo *n = NULL;
  if (rc == SC_OK && !(n = rebuild(old, factor)))
    rc = sc_error_set(err, SC_ENOMEM, "out of memory editing the topology");
  mem_free(factor);
  if (rc == SC_OK) rc = topo_finalize(n, err);
  if (rc == SC_OK) {
    sc_error e = {0};
    if (topo_check(n, &e, NULL, 0) != SC_OK)
      rc = sc_error_set(err, SC_EINPUT, "%s: with the failed cables '%s' the job is "
                        "disconnected: %s", key_fail, fail ? fail : "", e.msg);
  }
  if (rc != SC_OK) {
    topo_free(n);
    return rc;
  }
  topo_free(*t);
  *t = n;
  return SC_OK;
}
