/*
 * rs_json.c -- a recsys job from JSON (sc_rs_job_load_file; the format is
 * in docs/input.md, "Recommendation models"). Unknown keys and wrong types
 * are errors naming the key path and what would be valid.
 */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/file.h"
#include "core/mem.h"
#include "load/jparse.h"
#include "load/jpos.h"
#include "load/scenario.h"
#include "recsys/rs_keys.h"
#include "validate/rowdefaults.h"
#include "stepcast_recsys.h"

typedef struct jctx {
  const char *path;
  sc_error *err;
} jctx;

static int fail(jctx *c, const char *key, const char *want) {
  return sc_error_set(c->err, SC_EINPUT, "%s: %s: expected %s", c->path, key, want);
}

/* fail() naming the value found: "..., got string \"abc\"". */
static int fail_got(jctx *c, const char *key, const char *want, const json_t *x) {
  char got[80];
  scn_describe(x, got, sizeof got);
  return sc_error_set(c->err, SC_EINPUT, "%s: %s: expected %s, got %s", c->path, key, want, got);
}

/* Every key of o must be in the NULL-terminated list `ok`. */
static int keys_ok(jctx *c, json_t *o, const char *where, const char *const *ok) {
  const char *k;
  json_t *v;
  json_object_foreach(o, k, v) {
    int found = 0;
    for (int i = 0; ok[i] && !found; i++) found = !strcmp(k, ok[i]);
    if (!found) {
      char valid[256] = "", hint[80] = "";
      size_t n = 0;
      for (; ok[n]; n++)
        snprintf(valid + strlen(valid), sizeof valid - strlen(valid), "%s%s", n ? ", " : "", ok[n]);
      const char *near = scn_suggest(k, ok, n); /* as an override's message says it */
      if (near) snprintf(hint, sizeof hint, " did you mean \"%s\"?", near);
      /* a training scenario's keys: say which command reads that file */
      int scen = !*where && (!strcmp(k, "plan") || !strcmp(k, "description") || !strcmp(k, "dp"));
      return sc_error_set(c->err, SC_EINPUT, "%s: %s%s%s: unknown key;%s valid: %s%s", c->path, where,
                          *where ? "." : "", k, hint, valid,
                          scen ? " (a training scenario? `stepcast predict FILE` reads it)" : "");
    }
  }
  return SC_OK;
}

/* A number at key (dflt when absent); SC_EINPUT when not a number >= min. */
static int getnum(jctx *c, json_t *o, const char *where, const char *key, double min, double *v) {
  json_t *x = json_object_get(o, key);
  if (!x) return SC_OK;
  char k[96];
  snprintf(k, sizeof k, "%s.%s", where, key);
  if (!json_is_number(x) || json_number_value(x) < min) {
    char want[64];
    if (isinf(min)) snprintf(want, sizeof want, "a number");
    else snprintf(want, sizeof want, "a number >= %g", min);
    return fail_got(c, k, want, x);
  }
  *v = json_number_value(x);
  return SC_OK;
}

/* Like getnum, for a number in min..max: a value out of it is refused,
 * not clamped. */
static int getin(jctx *c, json_t *o, const char *where, const char *key, double min,
                 double max, int whole, double *v) {
  double x = *v;
  int rc = getnum(c, o, where, key, -HUGE_VAL, &x);
  if (rc) return rc;
  if ((whole && x != floor(x)) || x < min || x > max) {
    char k[96], want[64];
    snprintf(k, sizeof k, "%s.%s", where, key);
    snprintf(want, sizeof want, "a %s in %.15g..%.15g", whole ? "whole number" : "number", min,
             max);
    const json_t *got = json_object_get(o, key); /* NULL: the default, out of range */
    return got ? fail_got(c, k, want, got) : fail(c, k, want);
  }
  *v = x;
  return SC_OK;
}

/* Like getin, for a whole number in min..max (GPU and node indices,
 * part counts, widths): a fraction or a huge value is refused, not
 * truncated. */
static int getwhole(jctx *c, json_t *o, const char *where, const char *key, double min,
                    double max, double *v) {
  return getin(c, o, where, key, min, max, 1, v);
}

/* A boolean at where.key into *v: 0 when absent; SC_EINPUT when not true
 * or false. */
static int getbool(jctx *c, json_t *o, const char *where, const char *key, int *v) {
  json_t *x = json_object_get(o, key);
  if (x && !json_is_boolean(x)) {
    char k[96];
    snprintf(k, sizeof k, "%s.%s", where, key);
    return fail_got(c, k, "true or false", x);
  }
  *v = x && json_is_true(x);
  return SC_OK;
}

/* One accepted spelling of a named value and the value it stands for. */
typedef struct rs_name {
  const char *name;
  int value;
} rs_name;

/* The string x (at key path `key`) looked up in names (ended by a NULL
 * name) into *v, left as it is when x is absent; SC_EINPUT naming every
 * spelling ("a, b or c") when x is not one of them. */
static int getname(jctx *c, json_t *x, const char *key, const rs_name *names, int *v) {
  if (!x) return SC_OK;
  const char *s = json_is_string(x) ? json_string_value(x) : "";
  int n = 0;
  for (; names[n].name; n++)
    if (!strcmp(s, names[n].name)) {
      *v = names[n].value;
      return SC_OK;
    }
  char want[160] = "";
  for (int i = 0; i < n; i++)
    snprintf(want + strlen(want), sizeof want - strlen(want), "%s%s",
             i == 0 ? "" : i == n - 1 ? " or " : ", ", names[i].name);
  return fail(c, key, want);
}

static int widths(jctx *c, json_t *o, const char *where, const char *key, int *w, int *n) {
  json_t *a = json_object_get(o, key);
  if (!a) return SC_OK;
  char k[96];
  snprintf(k, sizeof k, "%s.%s", where, key);
  if (!json_is_array(a) || json_array_size(a) > SC_RS_MAX_LAYERS)
    return fail(c, k, "an array of at most 16 layer widths");
  size_t i;
  json_t *x;
  *n = 0;
  json_array_foreach(a, i, x) {
    if (!json_is_integer(x) || json_integer_value(x) < 1 || json_integer_value(x) > 1 << 20)
      return fail(c, k, "layer widths, integers 1..1048576");
    w[(*n)++] = (int)json_integer_value(x);
  }
  return SC_OK;
}

/* An id distribution: "uniform", {"powerlaw": a} or {"histogram": [[r, m]...]}. */
static int dist_of(jctx *c, json_t *x, const char *k, sc_rs_table *t) {
  const char *want = "\"uniform\", {\"powerlaw\": ALPHA} or {\"histogram\": [[ROW_FRACTION, "
                     "LOOKUP_FRACTION], ...]} (cumulative, ending [1, 1])";
  t->dist = SC_RS_UNIFORM;
  if (!x) return SC_OK;
  if (json_is_string(x) && !strcmp(json_string_value(x), "uniform")) return SC_OK;
  if (!json_is_object(x) || json_object_size(x) != 1) return fail(c, k, want);
  json_t *a = json_object_get(x, "powerlaw"), *h = json_object_get(x, "histogram");
  if (a && json_is_number(a)) {
    t->dist = SC_RS_POWERLAW;
    t->alpha = json_number_value(a);
    return SC_OK;
  }
  if (!h || !json_is_array(h) || json_array_size(h) < 1 || json_array_size(h) > SC_RS_MAX_HIST)
    return fail(c, k, want);
  size_t i;
  json_t *p;
  json_array_foreach(h, i, p) {
    if (!json_is_array(p) || json_array_size(p) != 2 || !json_is_number(json_array_get(p, 0)) ||
        !json_is_number(json_array_get(p, 1)))
      return fail(c, k, want);
    t->hist_rows[i] = json_number_value(json_array_get(p, 0));
    t->hist_mass[i] = json_number_value(json_array_get(p, 1));
  }
  t->dist = SC_RS_HISTOGRAM;
  t->hist_n = (int)json_array_size(h);
  return SC_OK;
}

static int table_of(jctx *c, json_t *o, int i, sc_rs_table *t, int *count) {
  const char *const *ok = rs_keys_table;
  char where[48];
  snprintf(where, sizeof where, "model.tables[%d]", i);
  if (!json_is_object(o)) return fail(c, where, "a table object {\"rows\", \"dim\", ...}");
  int rc = keys_ok(c, o, where, ok);
  if (rc) return rc;
  memset(t, 0, sizeof *t);
  json_t *nm = json_object_get(o, "name");
  if (nm && !json_is_string(nm)) return fail(c, where, "a string \"name\"");
  if (nm && strlen(json_string_value(nm)) >= sizeof t->name) /* was cut in silence */
    return sc_error_set(c->err, SC_EINPUT, "%s: %s.name: '%s' is %zu bytes; valid: at most %zu",
                        c->path, where, json_string_value(nm), strlen(json_string_value(nm)),
                        sizeof t->name - 1);
  snprintf(t->name, sizeof t->name, "%s", nm ? json_string_value(nm) : "");
  double rows = 0, dim = 0, cnt = 1;
  if ((rc = getnum(c, o, where, "rows", 0, &rows)) || (rc = getnum(c, o, where, "dim", 0, &dim)) ||
      (rc = getnum(c, o, where, "count", 1, &cnt)))
    return rc;
  t->rows = rows;
  t->dim = dim <= 65536 ? (int)dim : 0;
  *count = cnt <= 100000 ? (int)cnt : 100000;
  json_t *p = json_object_get(o, "pooling");
  char k[64];
  snprintf(k, sizeof k, "%s.pooling", where);
  if (!p) { t->features = 1; t->hot[0] = 1; }
  else if (json_is_number(p)) { t->features = 1; t->hot[0] = json_number_value(p); }
  else if (json_is_array(p) && json_array_size(p) >= 1 && json_array_size(p) <= SC_RS_MAX_FEATURES) {
    size_t f;
    json_t *h;
    json_array_foreach(p, f, h) {
      if (!json_is_number(h)) return fail(c, k, "lookups per sample: a number or 1-4 numbers");
      t->hot[t->features++] = json_number_value(h);
    }
  } else return fail(c, k, "lookups per sample: a number or an array of 1-4 numbers");
  json_t *w = json_object_get(o, "wide");
  t->wide = w && json_is_true(w);
  snprintf(k, sizeof k, "%s.ids", where);
  return dist_of(c, json_object_get(o, "ids"), k, t);
}

static int by_name(const void *a, const void *b) {
  const sc_rs_table *x = *(const sc_rs_table *const *)a, *y = *(const sc_rs_table *const *)b;
  int d = strcmp(x->name, y->name);
  return d ? d : (x > y) - (x < y);
}

/* The sharding names tables: two tables of one name (given twice, or a
 * name the copies or unnamed tables also get, "t3", "emb_0") are an
 * error naming both. */
static int names_unique(jctx *c, const sc_rs_model *m) {
  const sc_rs_table **ix = mem_alloc(sizeof *ix * (size_t)m->n_tables);
  if (!ix) return sc_error_set(c->err, SC_ENOMEM, "%s: out of memory", c->path);
  for (int t = 0; t < m->n_tables; t++) ix[t] = &m->tables[t];
  qsort(ix, (size_t)m->n_tables, sizeof *ix, by_name);
  int rc = SC_OK;
  for (int t = 1; t < m->n_tables && !rc; t++)
    if (!strcmp(ix[t]->name, ix[t - 1]->name))
      rc = sc_error_set(c->err, SC_EINPUT, "%s: model.tables: tables %d and %d are both named "
                        "'%s'; give each table its own name (the sharding refers to them by name)",
                        c->path, (int)(ix[t - 1] - m->tables), (int)(ix[t] - m->tables),
                        ix[t]->name);
  mem_free(ix);
  return rc;
}

static int tables_of(jctx *c, json_t *a, json_t *ids, sc_rs_model *m) {
  if (json_is_string(a)) {
    sc_rs_table d = {0};
    int rc = dist_of(c, ids, "model.ids", &d);
    if (rc) return rc;
    sc_error e = {0};
    rc = sc_rs_tables_parse(json_string_value(a), d.dist, d.alpha, m, &e);
    if (rc) return sc_error_set(c->err, rc, "%s: model.%s", c->path, e.msg);
    for (int t = 0; t < m->n_tables && d.dist == SC_RS_HISTOGRAM; t++) {
      m->tables[t].hist_n = d.hist_n;
      memcpy(m->tables[t].hist_rows, d.hist_rows, sizeof d.hist_rows);
      memcpy(m->tables[t].hist_mass, d.hist_mass, sizeof d.hist_mass);
    }
    return SC_OK;
  }
  if (!json_is_array(a) || json_array_size(a) < 1)
    return fail(c, "model.tables", "at least one table: a table list string "
                                   "(COUNTxROWSxDIM@H;...) or an array of table objects");
  size_t i;
  json_t *o;
  json_array_foreach(a, i, o) {
    sc_rs_table t;
    int count = 1, rc = table_of(c, o, (int)i, &t, &count);
    if (rc) return rc;
    if (m->n_tables + count > 100000) return fail(c, "model.tables", "at most 100,000 tables");
    sc_rs_table *nt = mem_realloc(m->tables, sizeof *nt * (size_t)(m->n_tables + count));
    if (!nt) return sc_error_set(c->err, SC_ENOMEM, "%s: out of memory", c->path);
    m->tables = nt;
    for (int k = 0; k < count; k++) {
      sc_rs_table *x = &m->tables[m->n_tables];
      *x = t;
      if (!t.name[0] || count > 1)
        snprintf(x->name, sizeof x->name, "%.20s%s%d", t.name[0] ? t.name : "t",
                 t.name[0] ? "_" : "", t.name[0] ? k : m->n_tables);
      m->n_tables++;
    }
  }
  return names_unique(c, m);
}

/* The keys of the dense part a model may give only for the interaction
 * that reads them: cross layers only for dcnv2, concat_pool only for a
 * concatenation (the layers' values, the top MLP's presence included,
 * are sc_rs_job_check's: rs_dense_check). */
static int layers_given(jctx *c, json_t *o, const sc_rs_model *m) {
  const char *dcn[] = {"cross_layers", "cross_rank"};
  for (int i = 0; i < 2; i++)
    if (m->inter != SC_RS_DCNV2 && json_object_get(o, dcn[i]))
      return sc_error_set(c->err, SC_EINPUT, "%s: model.%s: read only by a dcnv2 interaction "
                          "(model.kind dlrm_dcnv2 or model.interaction \"dcnv2\"); this "
                          "model's is %s", c->path, dcn[i],
                          m->inter == SC_RS_DOT ? "dot" : "concat");
  if (m->inter == SC_RS_DOT && json_object_get(o, "concat_pool"))
    return sc_error_set(c->err, SC_EINPUT, "%s: model.concat_pool: read only by a concat or "
                        "dcnv2 interaction (a dot interaction pools nothing)", c->path);
  return SC_OK;
}

static int model_of(jctx *c, json_t *o, sc_rs_model *m) {
  const char *const *ok = rs_keys_model;
  if (!json_is_object(o)) return fail(c, "model", "an object");
  int rc = keys_ok(c, o, "model", ok);
  if (rc) return rc;
  json_t *k = json_object_get(o, "kind"), *in = json_object_get(o, "interaction");
  if (k && !json_is_string(k)) return fail(c, "model.kind", "dlrm, dlrm_dcnv2, wide_and_deep or synthetic");
  const char *kind = k ? json_string_value(k) : "dlrm";
  if (!strcmp(kind, "dlrm")) m->inter = SC_RS_DOT;
  else if (!strcmp(kind, "dlrm_dcnv2")) { m->inter = SC_RS_DCNV2; m->cross_layers = 3; }
  else if (!strcmp(kind, "wide_and_deep") || !strcmp(kind, "synthetic")) m->inter = SC_RS_CONCAT;
  else return fail(c, "model.kind", "dlrm, dlrm_dcnv2, wide_and_deep or synthetic");
  static const rs_name inters[] = {
      {"dot", SC_RS_DOT}, {"dcnv2", SC_RS_DCNV2}, {"concat", SC_RS_CONCAT}, {NULL, 0}};
  int inter = (int)m->inter;
  if ((rc = getname(c, in, "model.interaction", inters, &inter))) return rc;
  m->inter = (sc_rs_interaction)inter;
  json_t *nm = json_object_get(o, "name");
  if (nm && !json_is_string(nm)) return fail(c, "model.name", "a string");
  snprintf(m->name, sizeof m->name, "%s", nm ? json_string_value(nm) : kind);
  double df = 13, cl = m->cross_layers, cr = 0, cp = 0;
  if ((rc = getwhole(c, o, "model", "dense_features", 0, 1 << 20, &df)) ||
      (rc = getwhole(c, o, "model", "cross_layers", 0, 64, &cl)) ||
      (rc = getwhole(c, o, "model", "cross_rank", 0, 1 << 20, &cr)) ||
      (rc = getwhole(c, o, "model", "concat_pool", 0, 1 << 20, &cp)) ||
      (rc = widths(c, o, "model", "bottom_mlp", m->bottom, &m->n_bottom)) ||
      (rc = widths(c, o, "model", "top_mlp", m->top, &m->n_top)))
    return rc;
  m->dense_features = (int)df, m->cross_layers = (int)cl; /* whole, in range */
  m->cross_rank = (int)cr, m->concat_pool = (int)cp;
  if ((rc = getbool(c, o, "model", "dropout", &m->dropout))) return rc;
  json_t *t = json_object_get(o, "tables");
  if (!t) return fail(c, "model.tables", "the embedding tables (a list string or objects)");
  if ((rc = tables_of(c, t, json_object_get(o, "ids"), m))) return rc;
  return layers_given(c, o, m);
}

/* A job across nodes that leaves cluster.nic_Gbps out: the NIC of the
 * GPU's reference system (the first cluster preset with that GPU and a
 * network, as validation fills a row's blank NIC: docs/accuracy.md),
 * else a training scenario's default (sc_scenario_default: DGX A100's
 * 200 Gb/s HDR per GPU); said in j->assumed. */
static void default_nic(sc_rs_job *j) {
  const char *ref = NULL;
  double bw = rowd_reference_nic(j->gpu.name, &ref);
  if (!ref) {
    sc_scenario def;
    sc_scenario_default(&def);
    bw = def.cluster.nic_bw;
  }
  j->nic_bw = bw;
  if (ref)
    snprintf(j->assumed, sizeof j->assumed, "cluster.nic_Gbps %.0f of %s (not given)",
             bw * 8 / 1e9, ref);
  else
    snprintf(j->assumed, sizeof j->assumed, "cluster.nic_Gbps %.0f, a training scenario's "
             "(not given; no cluster preset has %.40s)", bw * 8 / 1e9, j->gpu.name);
}

static int cluster_of(jctx *c, json_t *o, sc_rs_job *j) {
  const char *const *ok = rs_keys_cluster;
  if (!o) return SC_OK; /* one GPU (sc_rs_job_default) */
  if (!json_is_object(o)) return fail(c, "cluster", "an object");
  int rc = keys_ok(c, o, "cluster", ok);
  if (rc) return rc;
  json_t *g = json_object_get(o, "gpu");
  const sc_gpu *gp = g && json_is_string(g) ? sc_gpu_preset(json_string_value(g)) : NULL;
  if (gp) j->gpu = *gp;
  if (g && !gp) {
    char hint[96] = "";
    if (json_is_string(g)) scn_gpu_hint(json_string_value(g), hint, sizeof hint);
    return sc_error_set(c->err, SC_EINPUT, "%s: cluster.gpu: expected a GPU preset id (stepcast "
                        "presets)%s", c->path, hint);
  }
  double n = j->gpus, gpn = 0, nvl = 0, nic = 0;
  if ((rc = getnum(c, o, "cluster", "gpus", 1, &n)) ||
      (rc = getnum(c, o, "cluster", "gpus_per_node", 1, &gpn)) ||
      (rc = getnum(c, o, "cluster", "nvlink_GBps", 0, &nvl)) ||
      (rc = getnum(c, o, "cluster", "nic_Gbps", 0, &nic)))
    return rc;
  /* the scenario's ranges (docs/input.md "cluster"): 0 = the GPU's / none */
  if (nvl != 0 && (nvl < 1e-3 || nvl > 1e6))
    return fail(c, "cluster.nvlink_GBps", "0 or GB/s per direction in 0.001..1e6");
  if (nic != 0 && (nic < 1e-2 || nic > 1e7))
    return fail(c, "cluster.nic_Gbps", "0 or Gb/s per GPU in 0.01..1e7");
  if (n != floor(n) || n > 65536) return fail(c, "cluster.gpus", "a whole number of GPUs, 1..65536");
  if (gpn != floor(gpn) || gpn > 65536)
    return fail(c, "cluster.gpus_per_node", "a whole number of GPUs, 1..65536");
  j->gpus = (int)fmin(n, 1 << 20);
  j->gpus_per_node = gpn > 0 ? (int)fmin(gpn, 1 << 20) : (j->gpus < 8 ? j->gpus : 8);
  j->nvlink_bw = nvl * 1e9;
  j->nic_bw = nic * 1e9 / 8;
  if (!json_object_get(o, "nic_Gbps") && j->gpus > j->gpus_per_node) default_nic(j);
  static const rs_name intras[] = {{"nvswitch", 1}, {"cubemesh", 2}, {"pcie", 3}, {NULL, 0}};
  return getname(c, json_object_get(o, "intra"), "cluster.intra", intras, &j->intra);
}

static int training_of(jctx *c, json_t *o, sc_rs_job *j) {
  const char *const *ok = rs_keys_training;
  if (!o) return SC_OK;
  if (!json_is_object(o)) return fail(c, "training", "an object");
  int rc = keys_ok(c, o, "training", ok);
  if (rc) return rc;
  double b = (double)j->global_batch, eb = j->emb_bytes, cyc = 0, rb = 0, rsmp = 0;
  double cap = j->hash_capacity;
  if ((rc = getwhole(c, o, "training", "global_batch", 1, 1e12, &b)) ||
      (rc = getwhole(c, o, "training", "embedding_bytes", 2, 4, &eb)) ||
      (rc = getin(c, o, "training", "collective_cycle_ms", 0, 1e4, 0, &cyc)) ||
      (rc = getin(c, o, "training", "hash_capacity_rows", 0, 1e15, 0, &cap)) ||
      (rc = getin(c, o, "training", "reader_ms_per_batch", 0, 1e7, 0, &rb)) ||
      (rc = getin(c, o, "training", "reader_us_per_sample", 0, 1e7, 0, &rsmp)))
    return rc;
  /* each in its range: refused above it, not clamped */
  j->reader_batch_s = rb * 1e-3;
  j->reader_sample_s = rsmp * 1e-6;
  j->coll_cycle_s = cyc * 1e-3;
  j->hash_capacity = cap; /* rows (as a table's: at most 1e15) */
  j->global_batch = (long)b;
  j->emb_bytes = (int)eb;
  static const rs_name dtypes[] = {{"fp32", SC_FP32}, {"tf32", SC_TF32}, {"amp", SC_FP16},
                                   {"fp16", SC_FP16}, {"bf16", SC_BF16}, {NULL, 0}};
  static const rs_name opts[] = {{"sgd", SC_RS_SGD}, {"adagrad", SC_RS_ADAGRAD},
                                 {"adam", SC_RS_ADAM}, {"adam_global", SC_RS_ADAM_GLOBAL},
                                 {"rowwise_adagrad", SC_RS_ROWWISE_ADAGRAD}, {NULL, 0}};
  static const rs_name kernels[] = {
      {"fused", SC_RS_FUSED}, {"hash", SC_RS_HASH}, {"per_table", SC_RS_PER_TABLE}, {NULL, 0}};
  int dtype = (int)j->dtype, opt = (int)j->opt, kernel = (int)j->kernel;
  if ((rc = getname(c, json_object_get(o, "dtype"), "training.dtype", dtypes, &dtype)) ||
      (rc = getname(c, json_object_get(o, "optimizer"), "training.optimizer", opts, &opt)) ||
      (rc = getname(c, json_object_get(o, "kernel"), "training.kernel", kernels, &kernel)) ||
      (rc = getbool(c, o, "training", "eager", &j->eager)) ||
      (rc = getbool(c, o, "training", "bottom_mlp_on_gpu0", &j->bottom_on_gpu0)) ||
      (rc = getbool(c, o, "training", "keys_from_reader", &j->keys_from_reader)) ||
      (rc = getbool(c, o, "training", "pooled_in_table_type", &j->pooled_table_type)))
    return rc;
  j->dtype = (sc_dtype)dtype;
  j->opt = (sc_rs_opt)opt;
  j->kernel = (sc_rs_kernel)kernel;
  return SC_OK;
}

/* The index of the table named by x (a name or an index); -1 if none. */
static int table_ref(const sc_rs_model *m, json_t *x) {
  if (json_is_integer(x)) {
    json_int_t i = json_integer_value(x);
    return i >= 0 && i < m->n_tables ? (int)i : -1;
  }
  if (!json_is_string(x)) return -1;
  for (int t = 0; t < m->n_tables; t++)
    if (!strcmp(m->tables[t].name, json_string_value(x))) return t;
  return -1;
}

/* A sharding entry's "table" that names no table: say what was given
 * and what is valid. */
static int no_table(jctx *c, const char *where, const sc_rs_model *m, json_t *x) {
  int n = m->n_tables;
  const char *first = m->tables[0].name, *last = m->tables[n - 1].name;
  if (json_is_string(x))
    return sc_error_set(c->err, SC_EINPUT, "%s: %s.table: no table is named '%s'; valid: a "
                        "name ('%s'%s%s%s) or an index 0..%d", c->path, where,
                        json_string_value(x), first, n > 1 ? (n > 2 ? " .. '" : ", '") : "",
                        n > 1 ? last : "", n > 1 ? "'" : "", n - 1);
  if (json_is_integer(x))
    return sc_error_set(c->err, SC_EINPUT, "%s: %s.table: no table %lld; valid: an index "
                        "0..%d or a name", c->path, where, (long long)json_integer_value(x), n - 1);
  return fail(c, where, "\"table\": a table name of the model or an index");
}

static int sharding_of(jctx *c, json_t *o, const sc_rs_job *j, sc_rs_plan *p, int *autop) {
  *autop = 0;
  if (!o) return SC_OK;
  const char *kinds = "data_parallel, table_wise, table_wise+split, row_wise, column_wise, "
                      "table_row_wise or auto";
  if (json_is_string(o)) {
    const char *s = json_string_value(o);
    if (!strcmp(s, "auto")) { *autop = 1; return SC_OK; }
    int split = !strcmp(s, "table_wise+split");
    int k = split ? SC_RS_TABLE_WISE : sc_rs_shard_from_name(s);
    if (k < 0) return fail(c, "sharding", kinds);
    sc_error e = {0};
    int rc = sc_rs_plan_uniform(j, (sc_rs_shard_kind)k, split, p, &e);
    if (rc) return sc_error_set(c->err, rc, "%s: %s", c->path, e.msg);
    return SC_OK;
  }
  if (!json_is_array(o)) return fail(c, "sharding", "a kind name, \"auto\" or one entry per table");
  if (sc_rs_plan_alloc(p, j->model.n_tables))
    return sc_error_set(c->err, SC_ENOMEM, "%s: out of memory", c->path);
  for (int t = 0; t < p->n; t++) p->s[t] = (sc_rs_shard){SC_RS_DATA_PARALLEL, -1, 1};
  const char *const *ok = rs_keys_shard;
  size_t i;
  json_t *x;
  json_array_foreach(o, i, x) {
    char where[48];
    snprintf(where, sizeof where, "sharding[%d]", (int)i);
    if (!json_is_object(x)) return fail(c, where, "{\"table\", \"kind\", \"gpu\"}");
    int rc = keys_ok(c, x, where, ok);
    if (rc) return rc;
    int t = table_ref(&j->model, json_object_get(x, "table"));
    if (t < 0) return no_table(c, where, &j->model, json_object_get(x, "table"));
    if (p->s[t].gpu >= 0)
      return sc_error_set(c->err, SC_EINPUT, "%s: %s: table %d ('%s') already has an entry; "
                          "give one per table", c->path, where, t, j->model.tables[t].name);
    json_t *k = json_object_get(x, "kind");
    int kind = k && json_is_string(k) ? sc_rs_shard_from_name(json_string_value(k)) : -1;
    if (kind < 0) return fail(c, where, "\"kind\": data_parallel, table_wise, row_wise, "
                                         "column_wise or table_row_wise");
    double g = 0, node = 0, parts = 1;
    if ((rc = getwhole(c, x, where, "gpu", 0, 65535, &g)) ||
        (rc = getwhole(c, x, where, "node", 0, 65535, &node)) ||
        (rc = getwhole(c, x, where, "parts", 1, 65536, &parts)))
      return rc;
    p->s[t] = (sc_rs_shard){(sc_rs_shard_kind)kind,
                            (int)fmin(kind == SC_RS_TABLE_ROW_WISE ? node : g, 1 << 20),
                            (int)fmin(parts, 1 << 20)};
  }
  for (int t = 0; t < p->n; t++)
    if (p->s[t].gpu < 0)
      return sc_error_set(c->err, SC_EINPUT, "%s: sharding: table %d ('%s') has no entry; "
                          "give one per table", c->path, t, j->model.tables[t].name);
  return SC_OK;
}

int sc_rs_job_load_file(const char *path, sc_rs_job *j, sc_rs_plan *plan, int *auto_plan,
                        sc_error *err) {
  return sc_rs_job_load_file_ex(path, NULL, 0, j, plan, auto_plan, err);
}

int sc_rs_job_load_file_ex(const char *path, const char *const *overrides, size_t n_overrides,
                           sc_rs_job *j, sc_rs_plan *plan, int *auto_plan, sc_error *err) {
  sc_rs_job_default(j);
  memset(plan, 0, sizeof *plan);
  *auto_plan = 0;
  json_error_t je;
  char *buf;
  size_t len;
  int frc = file_read(path, "recsys job file", FILE_MAX_SCENARIO, &buf, &len, err);
  if (frc) return frc;
  json_t *root;
  frc = jparse(buf, len, JSON_REJECT_DUPLICATES, &root, &je);
  if (frc) mem_free(buf);
  if (frc == SC_ENOMEM) return sc_error_set(err, frc, "%s: out of memory", path);
  if (frc)
    return sc_error_set(err, SC_EINPUT, "%s:%d:%d: invalid JSON: %s", path, je.line, je.column,
                        je.text);
  jctx c = {path, err};
  const char *const *ok = rs_keys_top;
  int rc = json_is_object(root) ? keys_ok(&c, root, "", ok) : fail(&c, "(top)", "an object");
  if (!rc && n_overrides) rc = rs_keys_apply(root, overrides, n_overrides, err);
  if (!rc) rc = model_of(&c, json_object_get(root, "model"), &j->model);
  if (!rc) rc = cluster_of(&c, json_object_get(root, "cluster"), j);
  if (!rc) rc = training_of(&c, json_object_get(root, "training"), j);
  if (!rc) {
    sc_error e = {0};
    rc = sc_rs_job_check(j, &e);
    if (rc) sc_error_set(err, rc, "%s: %s", path, e.msg);
  }
  if (!rc) rc = sharding_of(&c, json_object_get(root, "sharding"), j, plan, auto_plan);
  json_decref(root);
  if (rc == SC_EINPUT && n_overrides) rs_keys_blame(err, path, overrides, n_overrides);
  if (rc == SC_EINPUT) jpos_annotate(err, path, buf, len); /* where the value is */
  mem_free(buf);
  if (rc) {
    sc_rs_plan_free(plan);
    sc_rs_job_free(j);
  }
  return rc;
}
