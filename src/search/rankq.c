/*
 * rankq.c -- ranking quality of predictions on a validation set; see
 * rankq.h.
 */
#include "search/rankq.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/mem.h"
#include "load/csv.h"

/* A predicted row and the key of its group. */
typedef struct keyed {
  char key[160];         /* model|layers|hidden|gpus|global_batch */
  char id[64];           /* the row's id */
  double measured, predicted;
} keyed;

static int by_key(const void *a, const void *b) {
  const keyed *x = a, *y = b;
  int c = strcmp(x->key, y->key);
  return c ? c : strcmp(x->id, y->id);
}

static int sign(double x) { return (x > 0) - (x < 0); }

/* Kendall tau-b of n rows (0 when every pair ties). */
static double tau_b(const keyed *r, int n) {
  long conc = 0, disc = 0, tie_p = 0, tie_m = 0;
  for (int i = 0; i < n; i++)
    for (int j = i + 1; j < n; j++) {
      int a = sign(r[i].predicted - r[j].predicted), b = sign(r[i].measured - r[j].measured);
      if (a == 0 && b == 0) continue;
      if (a == 0) tie_p++;
      else if (b == 0) tie_m++;
      else if (a == b) conc++;
      else disc++;
    }
  double d = sqrt((double)(conc + disc + tie_p) * (double)(conc + disc + tie_m));
  return d > 0 ? (conc - disc) / d : 0;
}

static int by_measured(const void *a, const void *b) {
  const rankq_row *x = a, *y = b;
  if (x->measured != y->measured) return x->measured < y->measured ? -1 : 1;
  return strcmp(x->id, y->id);
}

/* Hand group r (n rows, scored tau and ok) to fn, its rows by measured
 * time (scratch: n rows). */
static void report(const keyed *r, int n, double tau, int ok, rankq_row *scratch,
                   rankq_group_fn fn, void *ud) {
  for (int i = 0; i < n; i++) scratch[i] = (rankq_row){r[i].id, r[i].measured, r[i].predicted};
  qsort(scratch, (size_t)n, sizeof *scratch, by_measured);
  fn(ud, r[0].key, scratch, n, tau, ok);
}

/* Score one group of n rows into q (and report it to fn). */
static void score(const keyed *r, int n, double within, rankq *q, rankq_row *scratch,
                  rankq_group_fn fn, void *ud) {
  int best_p = 0;
  double best_m = r[0].measured;
  for (int i = 1; i < n; i++) {
    if (r[i].predicted < r[best_p].predicted) best_p = i;
    if (r[i].measured < best_m) best_m = r[i].measured;
  }
  double tau = tau_b(r, n);
  int ok = r[best_p].measured <= best_m * (1 + within);
  q->groups++;
  q->rows += n;
  q->mean_tau += tau;
  q->best_within += ok;
  if (fn) report(r, n, tau, ok, scratch, fn, ud);
}

/* The group keys of the CSV's rows, matched by id to the predicted rows
 * of v: *n keyed rows in the new array *out. */
static int key_rows(const char *path, const sc_validation *v, keyed **out, int *n,
                    sc_error *err) {
  csv_file f;
  int rc = csv_open(&f, path, err);
  if (rc != SC_OK) return rc;
  static const char *const cols[] = {"id", "model", "layers", "hidden", "gpus", "global_batch"};
  int c[6];
  for (int i = 0; i < 6; i++)
    if ((c[i] = csv_col(&f, cols[i])) < 0) {
      csv_close(&f);
      return sc_error_set(err, SC_EINPUT, "%s: no column '%s' (a training set)", path, cols[i]);
    }
  keyed *k = mem_calloc((size_t)(v->n > 0 ? v->n : 1), sizeof *k);
  if (!k) {
    csv_close(&f);
    return sc_error_set(err, SC_ENOMEM, "out of memory scoring %s", path);
  }
  int m = 0, got;
  while ((got = csv_next(&f, path, err)) == 1) {
    const char *id = csv_get(&f, c[0]);
    for (int i = 0; i < v->n; i++) {
      const sc_validation_row *r = &v->rows[i];
      if (strcmp(r->id, id) || r->skipped[0] || m >= v->n) continue;
      snprintf(k[m].key, sizeof k[m].key, "%s|%s|%s|%s|%s", csv_get(&f, c[1]), csv_get(&f, c[2]),
               csv_get(&f, c[3]), csv_get(&f, c[4]), csv_get(&f, c[5]));
      snprintf(k[m].id, sizeof k[m].id, "%s", r->id);
      k[m].measured = r->measured;
      k[m].predicted = r->predicted;
      m++;
      break;
    }
  }
  csv_close(&f);
  if (got < 0) {
    mem_free(k);
    return -got;
  }
  *out = k;
  *n = m;
  return SC_OK;
}

int rankq_file(const char *path, double within, rankq *out, sc_error *err) {
  return rankq_file_ex(path, within, out, NULL, NULL, err);
}

int rankq_file_ex(const char *path, double within, rankq *out, rankq_group_fn fn, void *ud,
                  sc_error *err) {
  memset(out, 0, sizeof *out);
  sc_validation v;
  int rc = sc_validate_file(path, &v, err);
  if (rc != SC_OK) return rc;
  keyed *k = NULL;
  int n = 0;
  rc = key_rows(path, &v, &k, &n, err);
  sc_validation_free(&v);
  if (rc != SC_OK) return rc;
  rankq_row *scratch = fn ? mem_alloc(sizeof *scratch * (size_t)(n > 0 ? n : 1)) : NULL;
  if (fn && !scratch) {
    mem_free(k);
    return sc_error_set(err, SC_ENOMEM, "out of memory scoring %s", path);
  }
  qsort(k, (size_t)n, sizeof *k, by_key);
  for (int i = 0; i < n;) {
    int j = i + 1;
    while (j < n && !strcmp(k[j].key, k[i].key)) j++;
    if (j - i >= 3) score(k + i, j - i, within, out, scratch, fn, ud);
    i = j;
  }
  if (out->groups > 0) out->mean_tau /= out->groups;
  mem_free(scratch);
  mem_free(k);
  return SC_OK;
}
