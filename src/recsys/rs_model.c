/*
 * rs_model.c -- recommendation models: the table-list grammar, the
 * derived sizes of a model (module prefix: rs_ internally, sc_rs_ public).
 *
 * Grammar of a table list (docs/recsys.md):
 *   list   = group { ";" group }
 *   group  = COUNT "x" ROWS "x" DIM "@" H { "+" H }
 *   COUNT  = integer 1..1,000,000     ROWS = integer >= 1 or "?"
 *   DIM    = integer 1..65536         H    = number > 0 (lookups per sample)
 * Blanks around tokens are allowed. A group with k pooling factors is
 * COUNT tables each read by k features.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/mem.h"
#include "recsys/rs_model.h"

#define RS_MAX_TABLES 100000
#define RS_MAX_ROWS 1e15 /* rows of one table (exact integers in a double) */

void sc_rs_model_free(sc_rs_model *m) {
  if (!m) return;
  mem_free(m->tables);
  m->tables = NULL;
  m->n_tables = 0;
}

/* A cursor over the list, for messages that point at the group. */
typedef struct cursor {
  const char *s;     /* the whole list */
  const char *p;     /* next character */
  int group;         /* 1-based group number */
  int first_table;   /* index of the group's first table */
} cursor;

static void skip_blanks(cursor *c) {
  while (*c->p == ' ' || *c->p == '\t') c->p++;
}

static int bad(cursor *c, sc_error *err, const char *what) {
  int col = (int)(c->p - c->s) + 1;
  return sc_error_set(err, SC_EINPUT,
                      "tables: group %d (table t%d), column %d: %s; a group is "
                      "COUNTxROWSxDIM@H[+H...] with COUNT >= 1, ROWS >= 1 or '?', "
                      "DIM 1..65536, H > 0, groups separated by ';' "
                      "(e.g. 2x1000000x128@1;1x500x16@1+10)",
                      c->group, c->first_table, col, what);
}

/* A number at c (integer when `integer`); -1 when none. */
static int number(cursor *c, int integer, double *v) {
  skip_blanks(c);
  if (!isdigit((unsigned char)*c->p) && !(*c->p == '.' && !integer)) return -1;
  char *end;
  errno = 0;
  double x = strtod(c->p, &end);
  if (end == c->p || errno || !isfinite(x)) return -1;
  if (integer) {
    for (const char *q = c->p; q < end; q++)
      if (!isdigit((unsigned char)*q)) return -1;
  }
  c->p = end;
  *v = x;
  return 0;
}

static int expect(cursor *c, char ch) {
  skip_blanks(c);
  if (*c->p != ch) return -1;
  c->p++;
  return 0;
}

/* One group into shape (rows 0 = unknown); its count in *count. */
static int group(cursor *c, sc_rs_table *shape, double *count, sc_error *err) {
  memset(shape, 0, sizeof *shape);
  if (number(c, 1, count) || *count < 1) return bad(c, err, "expected COUNT, an integer >= 1");
  if (*count > RS_MAX_TABLES) return bad(c, err, "COUNT above 100,000 tables");
  if (expect(c, 'x')) return bad(c, err, "expected 'x' after COUNT");
  skip_blanks(c);
  if (*c->p == '?') {
    c->p++;
    shape->rows = 0;
  } else if (number(c, 1, &shape->rows) || shape->rows < 1) {
    return bad(c, err, "expected ROWS, an integer >= 1 or '?' (zero rows is not a table)");
  } else if (shape->rows > RS_MAX_ROWS) {
    return bad(c, err, "ROWS above 1e15");
  }
  if (expect(c, 'x')) return bad(c, err, "expected 'x' after ROWS");
  double dim;
  if (number(c, 1, &dim) || dim < 1 || dim > 65536)
    return bad(c, err, "expected DIM, an integer 1..65536");
  shape->dim = (int)dim;
  if (expect(c, '@')) return bad(c, err, "expected '@H' (lookups per sample) after DIM");
  do {
    double h;
    if (shape->features == SC_RS_MAX_FEATURES)
      return bad(c, err, "more than 4 features read one table");
    if (number(c, 0, &h) || h <= 0 || h > 1e6)
      return bad(c, err, "expected H, lookups per sample, a number in (0, 1e6]");
    shape->hot[shape->features++] = h;
    skip_blanks(c);
  } while (*c->p == '+' && c->p++);
  skip_blanks(c);
  if (*c->p && *c->p != ';') return bad(c, err, "unexpected character");
  return SC_OK;
}

int sc_rs_tables_parse(const char *spec, sc_rs_dist dist, double alpha, sc_rs_model *m,
                       sc_error *err) {
  cursor c = {spec, spec, 1, 0};
  sc_rs_table *t = NULL;
  int n = 0, cap = 0;
  skip_blanks(&c);
  if (!*c.p) return sc_error_set(err, SC_EINPUT, "tables: empty list; expected "
                                                 "COUNTxROWSxDIM@H[;...]");
  for (;;) {
    sc_rs_table shape;
    double count;
    c.first_table = n;
    int rc = group(&c, &shape, &count, err);
    if (rc) { mem_free(t); return rc; }
    if (n + count > RS_MAX_TABLES) {
      mem_free(t);
      return bad(&c, err, "more than 100,000 tables in all");
    }
    if (n + (int)count > cap) {
      int ncap = cap ? cap : 16;
      while (ncap < n + (int)count) ncap *= 2;
      sc_rs_table *nt = mem_realloc(t, sizeof *t * (size_t)ncap);
      if (!nt) { mem_free(t); return sc_error_set(err, SC_ENOMEM, "tables: out of memory"); }
      t = nt;
      cap = ncap;
    }
    shape.dist = dist;
    shape.alpha = alpha;
    for (int i = 0; i < (int)count; i++) {
      t[n] = shape;
      snprintf(t[n].name, sizeof t[n].name, "t%d", n);
      n++;
    }
    if (!*c.p) break;
    c.p++; /* ';' */
    c.group++;
    skip_blanks(&c);
    if (!*c.p) break; /* a trailing ';' */
  }
  sc_rs_model_free(m);
  m->tables = t;
  m->n_tables = n;
  return SC_OK;
}

double rs_table_lookups(const sc_rs_table *t) {
  double h = 0;
  for (int f = 0; f < t->features; f++) h += t->hot[f];
  return h;
}

/* Deep features entering the interaction, and their total width. */
static void deep_features(const sc_rs_model *m, int *nf, long *width) {
  *nf = 0;
  *width = 0;
  for (int i = 0; i < m->n_tables; i++) {
    const sc_rs_table *t = &m->tables[i];
    if (t->wide) continue;
    *nf += t->features;
    *width += (long)t->features * t->dim;
  }
}

int rs_bottom_out(const sc_rs_model *m) {
  return m->n_bottom ? m->bottom[m->n_bottom - 1] : m->dense_features;
}

int sc_rs_interaction_width(const sc_rs_model *m) {
  int nf;
  long w;
  deep_features(m, &nf, &w);
  int b = rs_bottom_out(m);
  if (m->inter == SC_RS_DOT) {
    long f = nf + 1; /* the bottom MLP's vector joins the tables' */
    return (int)(f * (f - 1) / 2 + b);
  }
  /* average pooling, window = stride = s, no padding: floor(w / s) */
  if (m->concat_pool > 1) w /= m->concat_pool;
  return (int)(w + b);
}

/* Parameters of a chain of dense layers from `in` through widths w. */
static double mlp_params(int in, const int *w, int n) {
  double p = 0;
  for (int i = 0; i < n; i++) {
    p += (double)in * w[i] + w[i];
    in = w[i];
  }
  return p;
}

double sc_rs_dense_params(const sc_rs_model *m) {
  double p = mlp_params(m->dense_features, m->bottom, m->n_bottom);
  int d = sc_rs_interaction_width(m);
  if (m->inter == SC_RS_DCNV2) {
    double per = m->cross_rank > 0 ? 2.0 * d * m->cross_rank + d : (double)d * d + d;
    p += per * m->cross_layers;
  }
  return p + mlp_params(d, m->top, m->n_top);
}

double sc_rs_embedding_elems(const sc_rs_model *m) {
  double e = 0;
  for (int i = 0; i < m->n_tables; i++) e += m->tables[i].rows * m->tables[i].dim;
  return e;
}

/* A table's check: the message names it and what would be valid. */
int rs_table_check(const sc_rs_table *t, int i, sc_error *err) {
  if (t->rows == 0) /* '?' of the table list: a measurement set's unknown */
    return sc_error_set(err, SC_EINPUT, "table %d ('%s'): rows unknown ('?') or 0; valid: "
                        "1..1e15 (a table needs at least one row: give its row count)", i, t->name);
  if (!(t->rows >= 1) || t->rows > RS_MAX_ROWS)
    return sc_error_set(err, SC_EINPUT, "table %d ('%s'): rows %g; valid: 1..1e15 (a table "
                        "needs at least one row)", i, t->name, t->rows);
  if (t->dim < 1 || t->dim > 65536)
    return sc_error_set(err, SC_EINPUT, "table %d ('%s'): dim %d; valid: 1..65536", i,
                        t->name, t->dim);
  if (t->features < 1 || t->features > SC_RS_MAX_FEATURES)
    return sc_error_set(err, SC_EINPUT, "table %d ('%s'): %d features; valid: 1..%d", i,
                        t->name, t->features, SC_RS_MAX_FEATURES);
  for (int f = 0; f < t->features; f++)
    if (!(t->hot[f] > 0))
      return sc_error_set(err, SC_EINPUT, "table %d ('%s'): pooling factor %g; valid: > 0",
                          i, t->name, t->hot[f]);
  if (t->dist == SC_RS_POWERLAW && !(t->alpha > 0 && t->alpha < 10))
    return sc_error_set(err, SC_EINPUT, "table %d ('%s'): power-law alpha %g; valid: "
                        "0 < alpha < 10", i, t->name, t->alpha);
  if (t->dist == SC_RS_HISTOGRAM) {
    double pr = 0, pm = 0;
    if (t->hist_n < 1 || t->hist_n > SC_RS_MAX_HIST)
      return sc_error_set(err, SC_EINPUT, "table %d ('%s'): histogram of %d pieces; valid: "
                          "1..%d", i, t->name, t->hist_n, SC_RS_MAX_HIST);
    for (int k = 0; k < t->hist_n; k++) {
      if (!(t->hist_rows[k] > pr && t->hist_rows[k] <= 1 && t->hist_mass[k] >= pm &&
            t->hist_mass[k] <= 1))
        return sc_error_set(err, SC_EINPUT, "table %d ('%s'): histogram piece %d "
                            "[%g, %g]: cumulative row and lookup fractions must increase "
                            "within (0, 1]", i, t->name, k, t->hist_rows[k], t->hist_mass[k]);
      pr = t->hist_rows[k];
      pm = t->hist_mass[k];
    }
    if (pr != 1 || pm != 1)
      return sc_error_set(err, SC_EINPUT, "table %d ('%s'): the histogram's last piece must "
                          "be [1, 1] (all rows, all lookups)", i, t->name);
  }
  return SC_OK;
}

/* The dense part's layers against the kind of interaction: every
 * message names the key and what would be valid (docs/input.md,
 * "Recommendation models"). */
int rs_dense_check(const sc_rs_model *m, sc_error *err) {
  if (m->n_top == 0)
    return sc_error_set(err, SC_EINPUT, "model.top_mlp: none given; valid: 1 to 16 widths "
                        "ending in the prediction layer 1 (one logit per sample), e.g. [1024, "
                        "1024, 512, 256, 1]: a model without it predicts nothing");
  if (m->top[m->n_top - 1] != 1)
    return sc_error_set(err, SC_EINPUT, "model.top_mlp: the last layer is %d wide; valid: "
                        "widths ending in 1 (the prediction layer: one logit per sample, "
                        "which the loss reads), e.g. [1024, 1024, 512, 256, 1]",
                        m->top[m->n_top - 1]);
  if (m->n_bottom > 0 && m->dense_features < 1)
    return sc_error_set(err, SC_EINPUT, "model.bottom_mlp: %d layer%s over 0 dense features; "
                        "valid: model.dense_features >= 1 with a bottom MLP, or no bottom MLP",
                        m->n_bottom, m->n_bottom > 1 ? "s" : "");
  if (m->inter == SC_RS_DCNV2 && m->cross_layers < 1)
    return sc_error_set(err, SC_EINPUT, "model.cross_layers: %d; a dcnv2 interaction needs "
                        "1..64 cross layers (without any it is a concat interaction: "
                        "model.interaction \"concat\")", m->cross_layers);
  int deep = -1;
  for (int t = 0; t < m->n_tables && deep < 0; t++)
    if (!m->tables[t].wide) deep = t;
  if (deep < 0)
    return sc_error_set(err, SC_EINPUT, "model.tables: every table is wide (%d, width-1 "
                        "tables summed into the output); valid: at least one table that is "
                        "not, for the interaction and the MLPs", m->n_tables);
  if (m->inter != SC_RS_DOT) return SC_OK;
  int bo = rs_bottom_out(m);
  for (int t = 0; t < m->n_tables; t++)
    if (!m->tables[t].wide && m->tables[t].dim != bo)
      return sc_error_set(err, SC_EINPUT, "table %d ('%s'): width %d; a dot interaction "
                          "needs every table as wide as %s (%d)%s", t, m->tables[t].name,
                          m->tables[t].dim, m->n_bottom ? "the bottom MLP's output"
                          : "the dense features", bo, m->n_bottom ? "" : ", which no "
                          "model.bottom_mlp maps to the tables' width");
  return SC_OK;
}
