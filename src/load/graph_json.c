/*
 * graph_json.c -- workload graphs from JSON (docs/graph.md), read
 * strictly: duplicate keys are syntax errors, an unknown key gets a
 * suggestion and the list of valid keys, a wrong type or value names what
 * would be valid, and every content error starts with the origin and the
 * key path ("model.json: blocks[1].ops[3] (op "attn"): ...").
 *
 * A block is loaded in three steps:
 *   1. decode its operators into gj_op (a wg_op prototype plus the names
 *      of its tensors, which point into the JSON document);
 *   2. order them: operators may be written in any order and are added in
 *      a topological order of their data flow (Kahn's algorithm, ties
 *      broken by written position, so a valid written order is kept);
 *   3. add them with wg_add, which infers and checks the shapes, and
 *      compare each declared "shape" with the inferred one.
 * wg_finalize then checks the graph as a whole; its messages name blocks
 * and operators, which gj_finalize turns back into key paths.
 *
 * Ownership: the JSON document lives until the graph is built; the graph
 * (wg_new) is handed to the caller only when everything succeeded.
 */
#include "load/graph_json.h"

#include <errno.h>
#include <math.h>
#include <jansson.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/heap.h"
#include "core/file.h"
#include "core/mem.h"
#include "load/jparse.h"
#include "load/jpos.h"
#include "load/scenario.h"

#define GJ_PATH 192           /* bytes of a key path with its label */
#define GJ_MAX_BLOCKS 10000   /* blocks of a graph */
#define GJ_MAX_OPS 100000     /* operators of one block */
#define GJ_MAX_REPEAT 100000  /* instances of one block (wg_finalize: all layers) */
#define GJ_MAX_SMALL (1L << 20) /* kernel, stride, pad */
#define GJ_MAX_CALLS 1000     /* framework calls of one operator and pass */

/* Where errors go: the origin (file name) prefixes every message. */
typedef struct gj_ctx {
  const char *origin;
  sc_error *err;
} gj_ctx;

/* One operator as written: the prototype for wg_add and its tensors. */
typedef struct gj_op {
  wg_op proto;                 /* kind, fn, tp, name, attributes, presets */
  const char *in[WG_MAX_IN];   /* input tensor names (in the JSON document) */
  int n_in;
  const char *out;             /* output tensor name */
  int rank;                    /* declared output shape; 0 = none declared */
  long dim[WG_MAX_RANK];
} gj_op;

/* ---------------------------------------------------------- operators */

/* Attributes an operator may take, as bits of gj_opdef.attrs. */
enum {
  GJ_A_OUT_FEATURES, GJ_A_IN_FEATURES, GJ_A_BIAS, GJ_A_TIED, GJ_A_PARALLEL, GJ_A_EXPERT,
  GJ_A_EXPERTS, GJ_A_TOPK, GJ_A_HEADS, GJ_A_KV_HEADS, GJ_A_HEAD_DIM, GJ_A_CAUSAL, GJ_A_VOCAB,
  GJ_A_DIM, GJ_A_POSITIONS, GJ_A_OUT_CHANNELS, GJ_A_KERNEL, GJ_A_STRIDE, GJ_A_PAD,
  GJ_A_HIGH_PRECISION, GJ_A_V_HEAD_DIM, GJ_A_KERNEL_W, GJ_A_PAD_W, GJ_A_ROWS, GJ_A_NO_DROPOUT,
  GJ_A_COUNT
};

typedef enum gj_vtype { GJ_LONG, GJ_INT, GJ_BOOL, GJ_TP } gj_vtype;

/* An attribute: its key, JSON type, range and the wg_op field it sets
 * (a long for GJ_LONG, an int for GJ_INT and GJ_BOOL; GJ_TP sets tp). */
typedef struct gj_attr {
  const char *key;
  gj_vtype type;
  long lo, hi;
  size_t off;
} gj_attr;

#define GJ_LONG_ATTR(k, f, lo) {k, GJ_LONG, lo, WG_MAX_DIM, offsetof(wg_op, f)}
#define GJ_INT_ATTR(k, f, lo) {k, GJ_INT, lo, GJ_MAX_SMALL, offsetof(wg_op, f)}
#define GJ_BOOL_ATTR(k, f) {k, GJ_BOOL, 0, 1, offsetof(wg_op, f)}

/* Indexed by GJ_A_*. */
static const gj_attr gj_attrs[GJ_A_COUNT] = {
    GJ_LONG_ATTR("out_features", features, 1),
    GJ_LONG_ATTR("in_features", in_features, 1),
    GJ_BOOL_ATTR("bias", bias),
    GJ_BOOL_ATTR("tied", tied),
    {"parallel", GJ_TP, 0, 0, offsetof(wg_op, tp)},
    GJ_BOOL_ATTR("expert", expert),
    GJ_LONG_ATTR("experts", experts, 1),
    GJ_LONG_ATTR("topk", topk, 1),
    GJ_LONG_ATTR("heads", heads, 1),
    GJ_LONG_ATTR("kv_heads", kv_heads, 1),
    GJ_LONG_ATTR("head_dim", head_dim, 1),
    GJ_BOOL_ATTR("causal", causal),
    GJ_LONG_ATTR("vocab", vocab, 1),
    GJ_LONG_ATTR("dim", features, 1),
    GJ_LONG_ATTR("positions", positions, 0),
    GJ_LONG_ATTR("out_channels", features, 1),
    GJ_INT_ATTR("kernel", kernel, 0),
    GJ_INT_ATTR("stride", stride, 1),
    GJ_INT_ATTR("pad", pad, 0),
    GJ_BOOL_ATTR("high_precision", high_precision),
    GJ_LONG_ATTR("v_head_dim", v_head_dim, 1),
    GJ_INT_ATTR("kernel_w", kernel_w, 1),
    GJ_INT_ATTR("pad_w", pad_w, 0),
    GJ_LONG_ATTR("rows", rows, 1),
    GJ_BOOL_ATTR("no_dropout", no_dropout),
};

/* Keys every operator takes, before its attributes. */
static const char *const gj_op_keys[] = {"name", "op", "in", "out", "shape", "host_calls",
                                         "bwd_scale"};
#define GJ_N_OP_KEYS (sizeof gj_op_keys / sizeof *gj_op_keys)

/* An operator of the format: the wg_ kind and function it maps to, the
 * attributes it takes and the tensor-parallel splits valid for it. */
typedef struct gj_opdef {
  const char *name;
  wg_kind kind;
  wg_fn fn;
  unsigned attrs;   /* bits 1u << GJ_A_* */
  unsigned tps;     /* bits 1u << wg_tp valid for "parallel" */
} gj_opdef;

#define A(x) (1u << GJ_A_##x)
#define TP(x) (1u << WG_TP_##x)
#define GJ_HEAD_ATTRS (A(HEADS) | A(KV_HEADS) | A(HEAD_DIM))
#define GJ_POOL_ATTRS (A(KERNEL) | A(STRIDE) | A(PAD) | A(KERNEL_W) | A(PAD_W))

static const gj_opdef gj_defs[] = {
    {"linear", WG_LINEAR, WG_FN_NONE,
     A(OUT_FEATURES) | A(IN_FEATURES) | A(BIAS) | A(TIED) | A(PARALLEL) | A(EXPERT) | A(EXPERTS) |
         A(HIGH_PRECISION),
     TP(NONE) | TP(COLUMN) | TP(ROW) | TP(VOCAB)},
    {"matmul", WG_MATMUL, WG_FN_NONE, A(PARALLEL), TP(NONE) | TP(HEADS)},
    {"attention", WG_ATTENTION, WG_FN_NONE,
     GJ_HEAD_ATTRS | A(CAUSAL) | A(PARALLEL) | A(V_HEAD_DIM) | A(NO_DROPOUT), TP(NONE) | TP(HEADS)},
    {"conv2d", WG_CONV, WG_FN_NONE, A(OUT_CHANNELS) | GJ_POOL_ATTRS | A(BIAS) | A(HIGH_PRECISION),
     0},
    {"maxpool", WG_POOL, WG_FN_MAX, GJ_POOL_ATTRS, 0},
    {"avgpool", WG_POOL, WG_FN_AVG, GJ_POOL_ATTRS, 0},
    {"layernorm", WG_NORM, WG_FN_LAYERNORM, 0, 0},
    {"rmsnorm", WG_NORM, WG_FN_RMSNORM, 0, 0},
    {"batchnorm", WG_NORM, WG_FN_BATCHNORM, 0, 0},
    {"gelu", WG_ELTWISE, WG_FN_GELU, 0, 0},
    {"swiglu", WG_ELTWISE, WG_FN_SWIGLU, 0, 0},
    {"relu", WG_ELTWISE, WG_FN_RELU, 0, 0},
    {"dropout", WG_ELTWISE, WG_FN_DROPOUT, 0, 0},
    {"add", WG_ELTWISE, WG_FN_ADD, 0, 0},
    {"bias_dropout_add", WG_ELTWISE, WG_FN_BIAS_DROPOUT_ADD, A(NO_DROPOUT), 0},
    {"rope", WG_ELTWISE, WG_FN_ROPE, GJ_HEAD_ATTRS, 0},
    {"softmax", WG_ELTWISE, WG_FN_SOFTMAX, 0, 0},
    {"scale", WG_ELTWISE, WG_FN_SCALE, 0, 0},
    {"concat", WG_ELTWISE, WG_FN_CONCAT, 0, 0},
    {"concat_channels", WG_ELTWISE, WG_FN_CONCAT_CH, 0, 0},
    {"slice", WG_ELTWISE, WG_FN_SLICE, A(ROWS), 0},
    {"embedding", WG_EMBEDDING, WG_FN_NONE, A(VOCAB) | A(DIM) | A(POSITIONS) | A(PARALLEL),
     TP(NONE) | TP(VOCAB)},
    {"interaction", WG_INTERACTION, WG_FN_NONE, 0, 0},
    {"cross_entropy", WG_LOSS, WG_FN_CROSS_ENTROPY, 0, 0},
    {"moe_route", WG_ROUTE, WG_FN_NONE, A(EXPERTS) | A(TOPK), 0},
    {"moe_unroute", WG_UNROUTE, WG_FN_NONE, A(EXPERTS) | A(TOPK), 0},
};
#define GJ_N_DEFS (sizeof gj_defs / sizeof *gj_defs)

#undef A
#undef TP

static const char *const gj_roles[] = {"layer", "first", "last"};     /* wg_role order */
static const char *const gj_dtypes[] = {"act", "fp32", "int", "mask"}; /* wg_elem order */

/* ------------------------------------------------------------- errors */

/* Fail with SC_EINPUT and "origin: PATH: message". */
#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static int gj_fail(const gj_ctx *c, const char *path, const char *fmt, ...) {
  char text[sizeof c->err->msg];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(text, sizeof text, fmt, ap);
  va_end(ap);
  sc_error_set(c->err, SC_EINPUT, "%s: %s: %s", c->origin, path, text);
  return SC_EINPUT;
}

/* Fail with "PATH: expected WHAT, got <value>". */
static int gj_type(const gj_ctx *c, const char *path, const char *what, const json_t *v) {
  char got[96];
  scn_describe(v, got, sizeof got);
  return gj_fail(c, path, "expected %s, got %s", what, got);
}

/* Fail with SC_ENOMEM: "origin: out of memory (while WHAT)". */
static int gj_nomem(const gj_ctx *c, const char *what) {
  sc_error_set(c->err, SC_ENOMEM, "%s: out of memory (%s)", c->origin, what);
  return SC_ENOMEM;
}

/* Pass on an error of a wg_ function (its code and message) under PATH. */
static int gj_pass(const gj_ctx *c, const char *path, int code, const char *msg) {
  return sc_error_set(c->err, code, "%s: %s: %s", c->origin, path, msg);
}

/* "base[i] (op "name")": the path of an operator. */
static void gj_op_path(char *buf, size_t cap, const char *base, int i, const char *name) {
  snprintf(buf, cap, "%s[%d] (op \"%s\")", base, i, name);
}

/* "base.key[i] label" into buf, truncated: key and label may be NULL,
 * i < 0 for no index. Returns buf. */
static const char *gj_path(char *buf, size_t cap, const char *base, const char *key, long i,
                           const char *label) {
  char idx[24] = "";
  if (i >= 0) snprintf(idx, sizeof idx, "[%ld]", i);
  if (snprintf(buf, cap, "%s%s%s%s%s", base, key && *base ? "." : "", key ? key : "", idx,
               label ? label : "") < 0)
    buf[0] = '\0';
  return buf;
}

/* "lo..hi" with a power of two above 1000 written as 2^k. */
static void gj_range(char *buf, size_t cap, long lo, long hi) {
  int k = 0;
  while (k < 62 && (1L << k) < hi) k++;
  if (hi > 1000 && (1L << k) == hi) snprintf(buf, cap, "%ld..2^%d", lo, k);
  else snprintf(buf, cap, "%ld..%ld", lo, hi);
}

/* -------------------------------------------------------------- values */

/* A JSON integer in lo..hi. */
static int gj_long(const gj_ctx *c, const char *path, const json_t *v, long lo, long hi,
                   long *out) {
  json_int_t x = json_is_integer(v) ? json_integer_value(v) : 0;
  if (!json_is_integer(v) || x < lo || x > hi) {
    char what[64], range[32];
    gj_range(range, sizeof range, lo, hi);
    snprintf(what, sizeof what, "an integer in %s", range);
    return gj_type(c, path, what, v);
  }
  *out = (long)x;
  return SC_OK;
}

/* A JSON number in (0, hi], not a denormal. */
static int gj_positive(const gj_ctx *c, const char *path, const json_t *v, double hi,
                       double *out) {
  double x = json_is_number(v) ? json_number_value(v) : 0;
  if (!json_is_number(v) || !(x > 0) || !isnormal(x) || x > hi) {
    char what[64];
    snprintf(what, sizeof what, "a number > 0 and at most %g", hi);
    return gj_type(c, path, what, v);
  }
  *out = x;
  return SC_OK;
}

/* A string of 1 to cap - 1 bytes, pointed to (it lives in the document). */
static int gj_str(const gj_ctx *c, const char *path, const json_t *v, size_t cap,
                  const char **out) {
  if (!json_is_string(v) || json_string_length(v) < 1 || json_string_length(v) >= cap) {
    char what[64];
    snprintf(what, sizeof what, "a name of 1 to %zu characters", cap - 1);
    return gj_type(c, path, what, v);
  }
  *out = json_string_value(v);
  return SC_OK;
}

/* The same, copied into dst[cap]. */
static int gj_name(const gj_ctx *c, const char *path, const json_t *v, char *dst, size_t cap) {
  const char *s = NULL;
  int rc = gj_str(c, path, v, cap, &s);
  if (!rc) snprintf(dst, cap, "%s", s);
  return rc;
}

/* One of names[0..n) as its index, with a suggestion when unknown. */
static int gj_enum(const gj_ctx *c, const char *path, const json_t *v, const char *const *names,
                   size_t n, int *out) {
  char valid[320];
  scn_join(names, n, valid, sizeof valid);
  if (!json_is_string(v)) {
    char what[sizeof valid + 16];
    snprintf(what, sizeof what, "one of %s", valid);
    return gj_type(c, path, what, v);
  }
  const char *s = json_string_value(v);
  for (size_t i = 0; i < n; i++)
    if (!strcmp(s, names[i])) return *out = (int)i, SC_OK;
  const char *near = scn_suggest(s, names, n);
  char got[96], hint[64] = "";
  scn_describe(v, got, sizeof got);
  if (near) snprintf(hint, sizeof hint, " did you mean \"%s\"?", near);
  return gj_fail(c, path, "unknown value %s;%s valid: %s", got, hint, valid);
}

/* A shape: an array of 1 to WG_MAX_RANK integers in 1..2^40. */
static int gj_shape(const gj_ctx *c, const char *path, const json_t *v, int *rank, long *dim) {
  size_t n = json_array_size(v);
  if (!json_is_array(v) || n < 1 || n > WG_MAX_RANK)
    return gj_type(c, path, "a shape: an array of 1 to 4 sizes such as [2048, 768]", v);
  for (size_t i = 0; i < n; i++) {
    char p[GJ_PATH];
    int rc = gj_long(c, gj_path(p, sizeof p, path, NULL, (long)i, NULL), json_array_get(v, i), 1,
                     WG_MAX_DIM, &dim[i]);
    if (rc) return rc;
  }
  *rank = (int)n;
  return SC_OK;
}

/* "[2048, 768]" into buf. */
static void gj_shape_str(char *buf, size_t cap, int rank, const long *dim) {
  size_t len = (size_t)snprintf(buf, cap, "[");
  for (int i = 0; i < rank && len < cap; i++)
    len += (size_t)snprintf(buf + len, cap - len, "%s%ld", i ? ", " : "", dim[i]);
  if (len < cap) snprintf(buf + len, cap - len, "]");
}

/* A required key: its value, or a "missing" error naming what it holds. */
static int gj_need(const gj_ctx *c, const char *base, const char *label, const json_t *obj,
                   const char *key, const char *what, json_t **out) {
  *out = json_object_get(obj, key);
  if (*out) return SC_OK;
  char p[GJ_PATH];
  gj_path(p, sizeof p, base, key, -1, label);
  return gj_fail(c, p, "missing (%s)", what);
}

/* Every key of obj must be in valid[0..n); checked before any value so
 * that a typo is reported first. For an operator (opname not NULL), a key
 * that another operator takes "does not apply". */
static int gj_keys(const gj_ctx *c, const char *base, const char *label, const json_t *obj,
                   const char *const *valid, size_t n, const char *opname) {
  const char *key;
  json_t *v;
  json_object_foreach((json_t *)obj, key, v) {
    size_t i = 0;
    while (i < n && strcmp(key, valid[i])) i++;
    if (i < n) continue;
    char p[GJ_PATH], list[384], hint[64] = "";
    gj_path(p, sizeof p, base, key, -1, label);
    scn_join(valid, n, list, sizeof list);
    for (i = 0; opname && i < GJ_A_COUNT; i++)
      if (!strcmp(key, gj_attrs[i].key))
        return gj_fail(c, p, "does not apply to \"op\": \"%s\", which takes: %s", opname, list);
    const char *near = scn_suggest(key, valid, n);
    if (near) snprintf(hint, sizeof hint, " did you mean \"%s\"?", near);
    /* another stepcast input at the top level: say which command reads it */
    const char *other = *base || label ? ""
                        : json_object_get(obj, "plan") || json_object_get(obj, "cluster")
                            ? " (a scenario? `stepcast predict FILE` reads it)"
                        : json_object_get(obj, "nodes") || json_object_get(obj, "generator")
                            ? " (a topology? `stepcast topo FILE`, or cluster.topology)"
                            : "";
    return gj_fail(c, p, "unknown key;%s valid keys: %s%s", hint, list, other);
  }
  return SC_OK;
}

/* --------------------------------------------------- decoding an op */

/* The keys operator d takes, into keys; returns the count. */
static size_t gj_def_keys(const gj_opdef *d, const char **keys) {
  size_t n = 0;
  for (size_t i = 0; i < GJ_N_OP_KEYS; i++) keys[n++] = gj_op_keys[i];
  for (int a = 0; a < GJ_A_COUNT; a++)
    if (d->attrs & (1u << a)) keys[n++] = gj_attrs[a].key;
  return n;
}

/* "parallel": one of the splits valid for d. */
static int gj_parallel(const gj_ctx *c, const char *path, const json_t *v, const gj_opdef *d,
                       wg_op *o) {
  const char *names[WG_TP_HEADS + 1];
  wg_tp tps[WG_TP_HEADS + 1];
  int n = 0, k = 0;
  for (int t = WG_TP_NONE; t <= WG_TP_HEADS; t++)
    if (d->tps & (1u << t)) tps[n] = (wg_tp)t, names[n++] = wg_tp_name((wg_tp)t);
  int rc = gj_enum(c, path, v, names, (size_t)n, &k);
  if (!rc) o->tp = tps[k];
  return rc;
}

/* Set attribute a of o from v. */
static int gj_attr_set(const gj_ctx *c, const char *path, const json_t *v, const gj_opdef *d,
                       const gj_attr *a, wg_op *o) {
  char *field = (char *)o + a->off;
  long x = 0;
  int rc, i;
  switch (a->type) {
  case GJ_TP: return gj_parallel(c, path, v, d, o);
  case GJ_BOOL:
    if (!json_is_boolean(v)) return gj_type(c, path, "true or false", v);
    i = json_is_true(v);
    memcpy(field, &i, sizeof i);
    return SC_OK;
  case GJ_LONG:
    if (!(rc = gj_long(c, path, v, a->lo, a->hi, &x))) memcpy(field, &x, sizeof x);
    return rc;
  case GJ_INT:
    if (!(rc = gj_long(c, path, v, a->lo, a->hi, &x))) i = (int)x, memcpy(field, &i, sizeof i);
    return rc;
  }
  return SC_OK;
}

/* The attributes of an operator (its keys are already checked). */
static int gj_attrs_of(const gj_ctx *c, const char *base, const char *label, const json_t *v,
                       const gj_opdef *d, wg_op *o) {
  for (int a = 0; a < GJ_A_COUNT; a++) {
    const json_t *x = json_object_get(v, gj_attrs[a].key);
    char p[GJ_PATH];
    gj_path(p, sizeof p, base, gj_attrs[a].key, -1, label);
    int rc = x ? gj_attr_set(c, p, x, d, &gj_attrs[a], o) : SC_OK;
    if (rc) return rc;
  }
  if (o->experts && o->kind == WG_LINEAR && !o->expert) {
    char p[GJ_PATH];
    gj_path(p, sizeof p, base, "experts", -1, label);
    return gj_fail(c, p, "applies to expert layers only; add \"expert\": true");
  }
  return SC_OK;
}

/* "host_calls": [fwd, bwd] and "bwd_scale", presets of the defaults. */
static int gj_presets(const gj_ctx *c, const char *base, const char *label, const json_t *v,
                      wg_op *o) {
  char p[GJ_PATH];
  const json_t *h = json_object_get(v, "host_calls"), *s = json_object_get(v, "bwd_scale");
  int rc = SC_OK;
  gj_path(p, sizeof p, base, "host_calls", -1, label);
  if (h && (!json_is_array(h) || json_array_size(h) != 2))
    return gj_type(c, p, "[forward calls, backward calls], two integers in 1..1000", h);
  for (size_t i = 0; h && i < 2 && !rc; i++) {
    char pi[GJ_PATH];
    long x = 0;
    gj_path(pi, sizeof pi, base, "host_calls", (long)i, label);
    if (!(rc = gj_long(c, pi, json_array_get(h, i), 1, GJ_MAX_CALLS, &x)))
      *(i ? &o->host_bwd : &o->host_fwd) = (int)x;
  }
  gj_path(p, sizeof p, base, "bwd_scale", -1, label);
  if (!rc && s) rc = gj_positive(c, p, s, 1000, &o->bwd_scale);
  return rc;
}

/* "in": 1 to WG_MAX_IN tensor names. */
static int gj_inputs(const gj_ctx *c, const char *base, const char *label, const json_t *v,
                     gj_op *op) {
  char p[GJ_PATH];
  gj_path(p, sizeof p, base, "in", -1, label);
  size_t n = json_array_size(v);
  if (!json_is_array(v) || n < 1 || n > WG_MAX_IN)
    return gj_type(c, p, "an array of 1 to 4 tensor names such as [\"x\"]", v);
  for (size_t i = 0; i < n; i++) {
    int rc = gj_str(c, gj_path(p, sizeof p, base, "in", (long)i, label), json_array_get(v, i),
                    WG_NAME, &op->in[i]);
    if (rc) return rc;
  }
  op->n_in = (int)n;
  return SC_OK;
}

/* Decode operator `v` written at `base` (blocks[b].ops[i]) into op. */
static int gj_op_decode(const gj_ctx *c, const char *base, const json_t *v, gj_op *op) {
  const char *names[GJ_N_DEFS], *keys[GJ_N_OP_KEYS + GJ_A_COUNT];
  char label[WG_NAME + 16] = "", p[GJ_PATH];
  json_t *x;
  int k = 0, rc;
  if (!json_is_object(v))
    return gj_type(c, base, "an operator {\"name\", \"op\", \"in\", \"out\", ...}", v);
  const char *name = json_string_value(json_object_get(v, "name"));
  if (name && strlen(name) < WG_NAME) snprintf(label, sizeof label, " (op \"%s\")", name);
  for (size_t i = 0; i < GJ_N_DEFS; i++) names[i] = gj_defs[i].name;
  gj_path(p, sizeof p, base, "op", -1, label);
  const gj_opdef any = {.attrs = ~0u}; /* without "op", a typo of it comes first */
  if ((!json_object_get(v, "op") &&
       (rc = gj_keys(c, base, label, v, keys, gj_def_keys(&any, keys), NULL))) ||
      (rc = gj_need(c, base, label, v, "op", "the operator, such as \"linear\"", &x)) ||
      (rc = gj_enum(c, p, x, names, GJ_N_DEFS, &k)))
    return rc;
  const gj_opdef *d = &gj_defs[k];
  memset(op, 0, sizeof *op);
  op->proto.kind = d->kind;
  op->proto.fn = d->fn;
  if ((rc = gj_keys(c, base, label, v, keys, gj_def_keys(d, keys), d->name)) ||
      (rc = gj_need(c, base, label, v, "name", "a name for messages", &x)) ||
      (rc = gj_name(c, gj_path(p, sizeof p, base, "name", -1, label), x, op->proto.name,
                    WG_NAME)) ||
      (rc = gj_need(c, base, label, v, "in", "the input tensors", &x)) ||
      (rc = gj_inputs(c, base, label, x, op)) ||
      (rc = gj_need(c, base, label, v, "out", "the output tensor", &x)) ||
      (rc = gj_str(c, gj_path(p, sizeof p, base, "out", -1, label), x, WG_NAME, &op->out)))
    return rc;
  if ((x = json_object_get(v, "shape")) &&
      (rc = gj_shape(c, gj_path(p, sizeof p, base, "shape", -1, label), x, &op->rank, op->dim)))
    return rc;
  if ((rc = gj_presets(c, base, label, v, &op->proto))) return rc;
  return gj_attrs_of(c, base, label, v, d, &op->proto);
}

/* --------------------------------------------------------- ordering */

/* A tensor or operator name and the operator it belongs to. */
typedef struct gj_key {
  const char *s;
  int op;
} gj_key;

static int gj_key_cmp(const void *a, const void *b) {
  const gj_key *x = a, *y = b;
  int d = strcmp(x->s, y->s);
  return d ? d : (x->op > y->op) - (x->op < y->op);
}

static int gj_key_find(const void *key, const void *elem) {
  return strcmp(((const gj_key *)key)->s, ((const gj_key *)elem)->s);
}

/* Sort the operator names (outs 0) or output names (outs 1) of ops[0..n)
 * into names, and fail on the first name used twice. */
static int gj_unique(const gj_ctx *c, const char *base, const gj_op *ops, int n, gj_key *names,
                     int outs) {
  for (int i = 0; i < n; i++) names[i] = (gj_key){outs ? ops[i].out : ops[i].proto.name, i};
  qsort(names, (size_t)n, sizeof *names, gj_key_cmp);
  for (int i = 1; i < n; i++) {
    if (strcmp(names[i].s, names[i - 1].s)) continue;
    int a = names[i - 1].op, b = names[i].op;
    char p[GJ_PATH];
    gj_op_path(p, sizeof p, base, b, ops[b].proto.name);
    if (outs)
      return gj_fail(c, p,
                     "output '%s' is also the output of %s[%d] (op \"%s\"); every tensor is "
                     "produced once",
                     names[i].s, base, a, ops[a].proto.name);
    return gj_fail(c, p, "the name '%s' is also the name of %s[%d]; the operators of a block "
                         "have distinct names", names[i].s, base, a);
  }
  return SC_OK;
}

/* The data flow of a block's operators: edges from the operator that
 * produces a tensor to those that read it. One allocation of ints. */
typedef struct gj_dag {
  int *prod;    /* [n * WG_MAX_IN]: producer of input k of op j, -1 none */
  int *indeg;   /* [n]: edges into op j from operators not yet placed */
  int *start;   /* [n + 1]: readers of op p are users[start[p]..start[p+1]) */
  int *users;   /* [n * WG_MAX_IN] */
  int *seen;    /* [n]: cycle walk, step at which an op was visited */
  int *walk;    /* [n]: cycle walk, ops in visiting order */
} gj_dag;

/* Fill d for ops[0..n), whose outputs are sorted and unique in outs. */
static void gj_dag_build(gj_dag *d, const gj_op *ops, int n, const gj_key *outs) {
  for (int j = 0; j < n; j++)
    for (int k = 0; k < WG_MAX_IN; k++) {
      const gj_key key = {k < ops[j].n_in ? ops[j].in[k] : NULL, -1};
      const gj_key *p = key.s ? bsearch(&key, outs, (size_t)n, sizeof *outs, gj_key_find) : NULL;
      d->prod[j * WG_MAX_IN + k] = p ? p->op : -1;
      if (p) d->indeg[j]++, d->start[p->op + 1]++;
    }
  for (int p = 0; p < n; p++) d->start[p + 1] += d->start[p];
  for (int p = 0; p < n; p++) d->seen[p] = d->start[p]; /* next free slot of p's readers */
  for (int j = 0; j < n; j++)
    for (int k = 0; k < WG_MAX_IN; k++) {
      int p = d->prod[j * WG_MAX_IN + k];
      if (p >= 0) d->users[d->seen[p]++] = j;
    }
}

/* Operator t (mod m) of a loop found at walk[s..s + m), in data-flow
 * order: the walk went from readers to producers, so it reads backwards. */
static int gj_flow(const gj_dag *d, int s, int m, int t) { return d->walk[s + (m - t % m) % m]; }

/* Name a cycle among the operators left unplaced (indeg > 0): walk from
 * the first of them to an unplaced producer until an operator repeats;
 * report the loop in data-flow order from its first written operator. */
static int gj_cycle(const gj_ctx *c, const char *base, const gj_op *ops, int n, gj_dag *d) {
  int cur = 0, len = 0;
  while (d->indeg[cur] == 0) cur++;
  for (int i = 0; i < n; i++) d->seen[i] = -1;
  while (d->seen[cur] < 0) {
    d->seen[cur] = len;
    d->walk[len++] = cur;
    int k = 0;
    while (d->prod[cur * WG_MAX_IN + k] < 0 || d->indeg[d->prod[cur * WG_MAX_IN + k]] == 0) k++;
    cur = d->prod[cur * WG_MAX_IN + k];
  }
  int s = d->seen[cur], m = len - s, t0 = 0;
  for (int t = 1; t < m; t++)
    if (gj_flow(d, s, m, t) < gj_flow(d, s, m, t0)) t0 = t;
  char text[sizeof c->err->msg];
  size_t used = (size_t)snprintf(text, sizeof text, "cycle:");
  for (int t = 0; t <= m && used < sizeof text; t++)
    used += (size_t)snprintf(text + used, sizeof text - used, "%s op '%s'", t ? " ->" : "",
                             ops[gj_flow(d, s, m, t0 + t)].proto.name);
  return gj_fail(c, base, "%s (each reads the output of the one before; operators of a block "
                          "must form a DAG)", text);
}

/* Kahn's algorithm over d: order[0..n) gets the operators, the smallest
 * written index first among those ready. Returns the number placed. */
static int gj_kahn(const gj_dag *d, int n, heap *h, int *order) {
  int placed = 0;
  for (int j = 0; j < n; j++)
    if (d->indeg[j] == 0) heap_push(h, j, j);
  while (!heap_empty(h)) {
    int p = heap_pop(h).id;
    order[placed++] = p;
    for (int u = d->start[p]; u < d->start[p + 1]; u++)
      if (--d->indeg[d->users[u]] == 0) heap_push(h, d->users[u], d->users[u]);
  }
  return placed;
}

/* Check the names of ops[0..n) (written at base, "blocks[b].ops") and
 * put a topological order of them in order[0..n). */
static int gj_order(const gj_ctx *c, const char *base, const gj_op *ops, int n, int *order) {
  size_t un = (size_t)n;
  gj_key *names = mem_calloc(un, sizeof *names);
  int *ints = mem_calloc(un * (2 * WG_MAX_IN + 4) + 1, sizeof *ints); /* gj_dag */
  heap h = {0};
  int rc = SC_OK;
  if (!names || !ints || heap_init(&h, n)) rc = gj_nomem(c, "ordering the operators");
  else if (!(rc = gj_unique(c, base, ops, n, names, 0)) &&
           !(rc = gj_unique(c, base, ops, n, names, 1))) {
    gj_dag d = {.prod = ints, .indeg = ints + un * WG_MAX_IN};
    d.start = d.indeg + un, d.users = d.start + un + 1;
    d.seen = d.users + un * WG_MAX_IN, d.walk = d.seen + un;
    gj_dag_build(&d, ops, n, names);
    if (gj_kahn(&d, n, &h, order) < n) rc = gj_cycle(c, base, ops, n, &d);
  }
  heap_free(&h);
  mem_free(ints);
  mem_free(names);
  return rc;
}

/* ----------------------------------------------------------- blocks */

/* The message of a wg_add error without its "op 'NAME' (kind): " prefix,
 * which the key path already says. */
static const char *gj_unprefixed(const char *msg, const char *name) {
  size_t n = strlen(name);
  if (strncmp(msg, "op '", 4) || strncmp(msg + 4, name, n) || strncmp(msg + 4 + n, "' (", 3))
    return msg;
  const char *p = strstr(msg + 4 + n, "): ");
  return p ? p + 3 : msg;
}

/* Add op (written at base[i]) to the open block; compare its declared
 * shape with the one wg_add inferred. */
static int gj_add(const gj_ctx *c, wg_graph *g, const char *base, const gj_op *op, int i) {
  char p[GJ_PATH];
  sc_error e = {0};
  gj_op_path(p, sizeof p, base, i, op->proto.name);
  if (wg_add(g, &op->proto, op->in, op->n_in, op->out, &e))
    return gj_pass(c, p, e.code, gj_unprefixed(e.msg, op->proto.name));
  const wg_tensor *t = &g->tensors[g->ops[g->n_ops - 1].out];
  if (!op->rank ||
      (t->rank == op->rank && !memcmp(t->dim, op->dim, sizeof *t->dim * (size_t)t->rank)))
    return SC_OK;
  char want[96], got[96];
  gj_shape_str(want, sizeof want, op->rank, op->dim);
  gj_shape_str(got, sizeof got, t->rank, t->dim);
  return gj_fail(c, p, "shape mismatch: \"shape\" declares %s but the operator makes %s of "
                       "its inputs", want, got);
}

/* Decode, order and add the operators of block b (the JSON array ops). */
static int gj_ops(const gj_ctx *c, wg_graph *g, int b, const json_t *arr) {
  char base[32], p[GJ_PATH];
  size_t n = json_array_size(arr);
  snprintf(base, sizeof base, "blocks[%d].ops", b);
  if (!json_is_array(arr) || n < 1 || n > GJ_MAX_OPS)
    return gj_type(c, base, "a non-empty array of operators", arr);
  gj_op *ops = mem_calloc(n, sizeof *ops);
  int *order = mem_calloc(n, sizeof *order);
  int rc = SC_OK;
  if (!ops || !order) rc = gj_nomem(c, "reading the operators");
  for (size_t i = 0; i < n && !rc; i++) {
    rc = gj_op_decode(c, gj_path(p, sizeof p, base, NULL, (long)i, NULL), json_array_get(arr, i),
                      &ops[i]);
  }
  if (!rc) rc = gj_order(c, base, ops, (int)n, order);
  for (size_t i = 0; i < n && !rc; i++) rc = gj_add(c, g, base, &ops[order[i]], order[i]);
  mem_free(order);
  mem_free(ops);
  return rc;
}

/* A block as written, but for its operators. */
typedef struct gj_blockdef {
  char name[WG_NAME];
  int role;                  /* wg_role */
  long repeat;
  const char *input;         /* input tensor: name, shape, element type */
  int rank;
  long dim[WG_MAX_RANK];
  int elem;                  /* wg_elem */
  const char *output;
  json_t *ops;               /* the operators, decoded by gj_ops */
} gj_blockdef;

/* "input": {"name", "shape", "dtype"}. */
static int gj_input(const gj_ctx *c, const char *base, const json_t *v, gj_blockdef *bd) {
  static const char *const keys[] = {"name", "shape", "dtype"};
  char p[GJ_PATH];
  json_t *name, *shape, *dtype;
  int rc;
  if (!json_is_object(v))
    return gj_type(c, base, "the input tensor {\"name\", \"shape\", \"dtype\"}", v);
  if ((rc = gj_keys(c, base, NULL, v, keys, 3, NULL)) ||
      (rc = gj_need(c, base, NULL, v, "name", "the input tensor's name", &name)) ||
      (rc = gj_str(c, gj_path(p, sizeof p, base, "name", -1, NULL), name, WG_NAME, &bd->input)) ||
      (rc = gj_need(c, base, NULL, v, "shape", "the per-sample shape, such as [2048, 768]",
                    &shape)) ||
      (rc = gj_shape(c, gj_path(p, sizeof p, base, "shape", -1, NULL), shape, &bd->rank, bd->dim)))
    return rc;
  bd->elem = WG_ELEM_ACT;
  dtype = json_object_get(v, "dtype");
  return dtype ? gj_enum(c, gj_path(p, sizeof p, base, "dtype", -1, NULL), dtype, gj_dtypes, 4,
                         &bd->elem)
               : SC_OK;
}

/* Decode the keys of block b but its operators; check the name is new
 * and, in a sequence model, that a layer's input runs along the sequence. */
static int gj_block_def(const gj_ctx *c, const wg_graph *g, int b, const json_t *v,
                        gj_blockdef *bd) {
  static const char *const keys[] = {"name", "role", "repeat", "input", "ops", "output"};
  char base[32], in_path[48], p[GJ_PATH];
  json_t *x;
  int rc;
  memset(bd, 0, sizeof *bd);
  snprintf(base, sizeof base, "blocks[%d]", b);
  snprintf(in_path, sizeof in_path, "%s.input", base);
  if (!json_is_object(v))
    return gj_type(c, base, "a block {\"name\", \"input\", \"ops\", \"output\", ...}", v);
  bd->repeat = 1;
  if ((rc = gj_keys(c, base, NULL, v, keys, 6, NULL)) ||
      (rc = gj_need(c, base, NULL, v, "name", "the block's name", &x)) ||
      (rc = gj_name(c, gj_path(p, sizeof p, base, "name", -1, NULL), x, bd->name, WG_NAME)))
    return rc;
  if ((x = json_object_get(v, "role")) &&
      (rc = gj_enum(c, gj_path(p, sizeof p, base, "role", -1, NULL), x, gj_roles, 3, &bd->role)))
    return rc;
  if ((x = json_object_get(v, "repeat")) &&
      (rc = gj_long(c, gj_path(p, sizeof p, base, "repeat", -1, NULL), x, 1, GJ_MAX_REPEAT,
                    &bd->repeat)))
    return rc;
  if ((rc = gj_need(c, base, NULL, v, "input", "the input tensor", &x)) ||
      (rc = gj_input(c, in_path, x, bd)) ||
      (rc = gj_need(c, base, NULL, v, "ops", "the operators", &bd->ops)) ||
      (rc = gj_need(c, base, NULL, v, "output", "the output tensor's name", &x)) ||
      (rc = gj_str(c, gj_path(p, sizeof p, base, "output", -1, NULL), x, WG_NAME, &bd->output)))
    return rc;
  for (int i = 0; i < g->n_blocks; i++)
    if (!strcmp(g->blocks[i].name, bd->name))
      return gj_fail(c, gj_path(p, sizeof p, base, "name", -1, NULL),
                     "'%s' is also the name of blocks[%d]; blocks have distinct names", bd->name,
                     i);
  if (g->seq && bd->role == WG_ROLE_LAYER && bd->dim[0] != g->seq)
    return gj_fail(c, gj_path(p, sizeof p, in_path, "shape", -1, NULL),
                   "dimension 0 is %ld but seq is %ld (in a sequence model dimension 0 of a "
                   "layer's input is the sequence)", bd->dim[0], g->seq);
  return SC_OK;
}

/* Decode and add block b of the graph. */
static int gj_block(const gj_ctx *c, wg_graph *g, int b, const json_t *v) {
  gj_blockdef bd;
  sc_error e = {0};
  char p[48];
  int rc = gj_block_def(c, g, b, v, &bd);
  if (rc) return rc;
  snprintf(p, sizeof p, "blocks[%d].input", b);
  if (wg_block_begin(g, bd.name, (wg_role)bd.role, (int)bd.repeat, bd.input, bd.rank, bd.dim,
                     (wg_elem)bd.elem, &e))
    return gj_pass(c, p, e.code, e.msg);
  if ((rc = gj_ops(c, g, b, bd.ops))) return rc;
  snprintf(p, sizeof p, "blocks[%d].output", b);
  if (wg_block_end(g, bd.output, &e)) return gj_pass(c, p, e.code, e.msg);
  return SC_OK;
}

/* ------------------------------------------------------------- graph */

/* The name quoted after `prefix` in msg ("block 'NAME'") into out[WG_NAME];
 * 0 when msg has no such name. */
static int gj_quoted(const char *msg, const char *prefix, char *out) {
  const char *p = strstr(msg, prefix);
  if (!p) return 0;
  p += strlen(prefix);
  size_t n = strcspn(p, "'");
  if (p[n] != '\'' || n >= WG_NAME) return 0;
  memcpy(out, p, n);
  out[n] = '\0';
  return 1;
}

/* wg_finalize, with its message placed: the block it names becomes
 * blocks[b], the operator blocks[b].ops[i] (op "x"). */
static int gj_finalize(const gj_ctx *c, wg_graph *g, const json_t *blocks) {
  sc_error e = {0};
  char path[GJ_PATH] = "blocks", name[WG_NAME], base[32];
  if (wg_finalize(g, &e) == SC_OK) return SC_OK;
  int b = 0;
  if (!gj_quoted(e.msg, "block '", name)) return gj_pass(c, path, e.code, e.msg);
  while (b < g->n_blocks && strcmp(g->blocks[b].name, name)) b++;
  snprintf(base, sizeof base, "blocks[%d].ops", b);
  snprintf(path, sizeof path, "blocks[%d]", b);
  const json_t *ops = json_object_get(json_array_get(blocks, (size_t)b), "ops");
  for (size_t i = 0; gj_quoted(e.msg, "(output of op '", name) && i < json_array_size(ops); i++) {
    const char *s = json_string_value(json_object_get(json_array_get(ops, i), "name"));
    if (s && !strcmp(s, name)) gj_op_path(path, sizeof path, base, (int)i, name);
  }
  return gj_pass(c, path, e.code, e.msg);
}

/* The keys of the graph but its blocks: name, seq, model_flops, optimizer. */
static int gj_header(const gj_ctx *c, const json_t *root, char *name, long *seq, double *flops,
                     double *bpp) {
  static const char *const keys[] = {"name", "seq", "model_flops", "optimizer", "blocks"};
  static const char *const opt_keys[] = {"bytes_per_param"};
  const json_t *v;
  int rc;
  if (!json_is_object(root))
    return gj_type(c, "(top level)", "a graph object {\"blocks\": [...]}", root);
  if ((rc = gj_keys(c, "", NULL, root, keys, 5, NULL)) ||
      ((v = json_object_get(root, "name")) && (rc = gj_name(c, "name", v, name, 64))) ||
      ((v = json_object_get(root, "seq")) && (rc = gj_long(c, "seq", v, 1, WG_MAX_DIM, seq))) ||
      ((v = json_object_get(root, "model_flops")) &&
       (rc = gj_positive(c, "model_flops", v, 1e30, flops))))
    return rc;
  if (!(v = json_object_get(root, "optimizer"))) return SC_OK;
  if (!json_is_object(v)) return gj_type(c, "optimizer", "an object {\"bytes_per_param\": 34}", v);
  if ((rc = gj_keys(c, "optimizer", NULL, v, opt_keys, 1, NULL))) return rc;
  v = json_object_get(v, "bytes_per_param");
  return v ? gj_positive(c, "optimizer.bytes_per_param", v, 1000, bpp) : SC_OK;
}

/* Build the graph of a parsed document; *out is set on success only. */
static int gj_root(const gj_ctx *c, const json_t *root, wg_graph **out) {
  char name[64];
  long seq = 0;
  double flops = 0, bpp = 0;
  snprintf(name, sizeof name, "%s", c->origin);
  int rc = gj_header(c, root, name, &seq, &flops, &bpp);
  if (rc) return rc;
  const json_t *blocks = json_object_get(root, "blocks");
  size_t n = json_array_size(blocks);
  if (!blocks) return gj_fail(c, "blocks", "missing (the blocks of the model, in order)");
  if (!json_is_array(blocks) || n < 1 || n > GJ_MAX_BLOCKS)
    return gj_type(c, "blocks", "a non-empty array of blocks", blocks);
  wg_graph *g = wg_new(name, seq);
  if (!g) return gj_nomem(c, "making the graph");
  g->model_flops = flops;
  if (bpp > 0) g->opt.bytes_per_param = bpp;
  for (size_t b = 0; b < n && !rc; b++) rc = gj_block(c, g, (int)b, json_array_get(blocks, b));
  if (!rc) rc = gj_finalize(c, g, blocks);
  if (rc) wg_free(g);
  else *out = g;
  return rc;
}

/* Build from a parse result: a syntax error is "origin:line:column:
 * invalid JSON: ...", running out of memory SC_ENOMEM. Frees root. */
static int gj_parsed(const gj_ctx *c, json_t *root, const json_error_t *je, wg_graph **out) {
  if (!root && json_error_code(je) == json_error_out_of_memory)
    return gj_nomem(c, "parsing");
  if (!root)
    return sc_error_set(c->err, SC_EINPUT, "%s:%d:%d: invalid JSON: %s", c->origin, je->line,
                        je->column, je->text);
  int rc = gj_root(c, root, out);
  json_decref(root);
  if (rc == SC_OK) sc_error_set(c->err, SC_OK, "%s", "");
  return rc;
}

int graph_json_load_buffer(const char *buf, size_t len, const char *origin, wg_graph **out,
                           sc_error *err) {
  gj_ctx c = {origin ? origin : "<string>", err};
  json_error_t je;
  *out = NULL;
  json_t *root;
  if (jparse(buf ? buf : "", buf ? len : 0, JSON_REJECT_DUPLICATES, &root, &je) == SC_ENOMEM)
    return gj_nomem(&c, "parsing");
  int rc = gj_parsed(&c, root, &je, out);
  if (rc == SC_EINPUT) /* where the value is */
    jpos_annotate(err, c.origin, buf ? buf : "", buf ? len : 0);
  return rc;
}

int graph_json_load_file(const char *path, wg_graph **out, sc_error *err) {
  *out = NULL;
  char *text;
  size_t len;
  int rc = file_read(path, "graph file", FILE_MAX_DATA, &text, &len, err);
  if (rc) return rc;
  rc = graph_json_load_buffer(text, len, path, out, err);
  mem_free(text);
  return rc;
}
