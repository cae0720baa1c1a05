/*
 * pyet.c -- see pyet.h.
 *
 * The text is walked with the pull scanner (jscan.c), one node at a
 * time; messages name the node by its index: "FILE: nodes[12].id:
 * expected a number".
 */
#include "trace/pyet.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/mem.h"
#include "trace/jscan.h"
#include "trace/tgraph.h"

/* One parse: where, and what to report to. */
typedef struct pet_ctx {
  const char *origin;
  pet_graph *g;
  sc_error *err;
  js js;
  char name[1024]; /* the current node's name, decoded */
} pet_ctx;

/* The keys of one node that are read; NAN when absent. */
typedef struct pet_raw {
  js_str name;
  double id, parent, ctrl, rf, tid;
} pet_raw;

static int is(const js_str *s, const char *word) {
  return s->s && strlen(word) == s->len && !memcmp(s->s, word, s->len);
}

/* A number, or NAN for a value of another kind (skipped). */
static int num(js *j, double *out) {
  char c = js_peek(j);
  *out = NAN;
  if (c == '-' || (c >= '0' && c <= '9')) return js_number(j, out);
  return js_skip(j);
}

/* One entry of "attrs": {"name": "rf_id", "type": "uint64", "value": 3}. */
static int attr(js *j, pet_raw *n) {
  if (js_peek(j) != '{') return js_skip(j);
  j->p++;
  js_str key = {0};
  double v = NAN;
  int more = js_peek(j) == '}' ? (j->p++, 0) : 1;
  while (more == 1) {
    js_str k;
    if (js_string(j, &k) || js_eat(j, ':')) return -1;
    int rc = is(&k, "name")    ? (js_peek(j) == '"' ? js_string(j, &key) : js_skip(j))
             : is(&k, "value") ? num(j, &v)
                               : js_skip(j);
    if (rc) return -1;
    more = js_more(j, '}');
  }
  if (more < 0) return -1;
  if (is(&key, "rf_id")) n->rf = v;
  if (is(&key, "tid")) n->tid = v;
  return 0;
}

static int attrs(js *j, pet_raw *n) {
  if (js_peek(j) != '[') return js_skip(j);
  j->p++;
  if (js_peek(j) == ']') return j->p++, 0;
  int more;
  do {
    if (attr(j, n)) return -1;
  } while ((more = js_more(j, ']')) == 1);
  return more;
}

static int member(js *j, const js_str *k, pet_raw *n) {
  if (is(k, "name")) return js_peek(j) == '"' ? js_string(j, &n->name) : js_skip(j);
  if (is(k, "id")) return num(j, &n->id);
  if (is(k, "parent")) return num(j, &n->parent);
  if (is(k, "ctrl_deps")) return num(j, &n->ctrl);
  if (is(k, "rf_id")) return num(j, &n->rf);
  if (is(k, "tid")) return num(j, &n->tid);
  if (is(k, "attrs")) return attrs(j, n);
  return js_skip(j);
}

static int bad(const pet_ctx *c, size_t i, const char *key, const char *what) {
  return sc_error_set(c->err, SC_EINPUT, "%s: nodes[%zu].%s: %s", c->origin, i, key, what);
}

/* Keep node i: an operator (not a profiler marker) with an id and a name. */
static int add_node(pet_ctx *c, const pet_raw *n, size_t i) {
  if (!isfinite(n->id)) return bad(c, i, "id", "expected a number (the node id)");
  if (!n->name.s) return bad(c, i, "name", "expected a string (the operator name)");
  size_t len = js_decode(&n->name, c->name, sizeof c->name);
  if (!strncmp(c->name, "[pytorch|profiler|execution_", 28)) return SC_OK;
  pet_graph *g = c->g;
  double parent = isfinite(n->parent) ? n->parent : isfinite(n->ctrl) ? n->ctrl : -1;
  pet_node nd = {n->id,
                 parent,
                 isfinite(n->rf) ? n->rf : -1,
                 isfinite(n->tid) ? n->tid : -1,
                 tg_hash(c->name, len),
                 g->names.n};
  if (vec_grow((void **)&g->names.v, &g->names.cap, (long)g->names.n + (long)len + 1, 1) ||
      VEC_PUSH(g->nodes, nd))
    return sc_error_set(c->err, SC_ENOMEM, "%s: out of memory", c->origin);
  memcpy(g->names.v + g->names.n, c->name, len + 1);
  g->names.n += (int)len + 1;
  return SC_OK;
}

static int node_member(void *n, js *j, const js_str *k) { return member(j, k, n) ? -1 : 0; }

/* Node i at the scanner. A syntax error returns SC_EINPUT with js.err set. */
static int scan_node(pet_ctx *c, size_t i) {
  js *j = &c->js;
  pet_raw n = {{0}, NAN, NAN, NAN, NAN, NAN};
  if (js_peek(j) != '{') {
    if (js_skip(j)) return SC_EINPUT;
    return bad(c, i, "", "expected an object (one operator)");
  }
  j->p++;
  return js_members(j, node_member, &n) ? SC_EINPUT : add_node(c, &n, i);
}

static int node_elem(void *c, js *j, size_t i) {
  (void)j;
  return scan_node(c, i);
}

static int scan_nodes(pet_ctx *c) {
  int rc = js_array(&c->js, node_elem, c);
  return rc < 0 ? SC_EINPUT : rc;
}

static int root(pet_ctx *c) {
  js *j = &c->js;
  if (js_eat(j, '{')) return SC_EINPUT;
  int more = js_peek(j) == '}' ? (j->p++, 0) : 1, nodes = 0;
  while (more == 1) {
    js_str k, v;
    if (js_string(j, &k) || js_eat(j, ':')) return SC_EINPUT;
    int rc = SC_OK;
    if (is(&k, "nodes"))
      rc = scan_nodes(c), nodes = 1;
    else if (is(&k, "pid"))
      rc = num(j, &c->g->pid) ? SC_EINPUT : SC_OK;
    else if (is(&k, "schema") && js_peek(j) == '"')
      rc = js_string(j, &v) ? SC_EINPUT : (js_decode(&v, c->g->schema, sizeof c->g->schema), 0);
    else
      rc = js_skip(j) ? SC_EINPUT : SC_OK;
    if (rc) return rc;
    more = js_more(j, '}');
  }
  if (more < 0) return SC_EINPUT;
  if (js_peek(j) != '\0') return j->err = "the end of the text", j->err_at = j->p, SC_EINPUT;
  if (!nodes)
    return sc_error_set(c->err, SC_EINPUT,
                        "%s: nodes: missing (expected the array of operators "
                        "of a PyTorch execution trace)",
                        c->origin);
  return SC_OK;
}

int pet_load_buffer(const char *buf, size_t len, const char *origin, pet_graph *g, sc_error *err) {
  pet_ctx *c = mem_calloc(1, sizeof *c);
  origin = origin ? origin : "<buffer>";
  if (!c) return sc_error_set(err, SC_ENOMEM, "%s: out of memory", origin);
  c->origin = origin, c->g = g, c->err = err;
  g->pid = -1;
  snprintf(g->path, sizeof g->path, "%s", origin);
  js_init(&c->js, buf ? buf : "", buf ? len : 0);
  int rc = root(c);
  if (rc == SC_EINPUT && c->js.err) {
    int line, col;
    js_where(&c->js, c->js.err_at, &line, &col);
    rc = sc_error_set(err, SC_EINPUT, "%s:%d:%d: invalid JSON: expected %s%s", origin, line, col,
                      c->js.err, js_end_note(&c->js));
  } else if (rc == SC_OK && isnan(g->pid))
    g->pid = -1;
  mem_free(c);
  return rc;
}

int pet_sniff(const char *buf, size_t len) {
  js j;
  js_init(&j, buf, len);
  if (js_eat(&j, '{')) return 0;
  if (js_peek(&j) == '}') return 0;
  do {
    js_str k;
    if (js_string(&j, &k) || js_eat(&j, ':')) return 0;
    if (is(&k, "nodes")) return js_peek(&j) == '[';
    if (is(&k, "traceEvents")) return 0;
    if (js_skip(&j)) return 0;
  } while (js_more(&j, '}') == 1);
  return 0;
}

void pet_free(pet_graph *g) {
  mem_free(g->nodes.v);
  mem_free(g->names.v);
  memset(g, 0, sizeof *g);
}
