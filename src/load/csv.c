/*
 * csv.c -- RFC 4180 CSV reader; see csv.h.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/file.h"
#include "core/mem.h"
#include "load/csv.h"
#include "load/scenario.h"

/* Split one record starting at f->pos into fields, in place. */
static int split(csv_file *f, const char *path, sc_error *err) {
  char *p = f->buf + f->pos, *end = f->buf + f->len;
  f->n_fields = 0;
  f->record_line = f->line;
  if (p >= end) return 0;
  for (;;) {
    if (f->n_fields >= CSV_MAX_FIELDS)
      return -sc_error_set(err, SC_EINPUT, "%s:%d: more than %d fields in a row",
                           path, f->record_line, CSV_MAX_FIELDS);
    char *out = p, *start = p;
    if (*p == '"') {
      p++;
      for (;;) {
        if (p >= end)
          return -sc_error_set(err, SC_EINPUT,
                               "%s:%d: unterminated quoted field (a field that "
                               "starts with \" must end with \")",
                               path, f->record_line);
        if (*p == '"' && p[1] == '"') { *out++ = '"'; p += 2; continue; }
        if (*p == '"') { p++; break; }
        if (*p == '\n') f->line++;
        *out++ = *p++;
      }
    } else {
      while (p < end && *p != ',' && *p != '\n' && *p != '\r') *out++ = *p++;
    }
    f->field[f->n_fields++] = start;
    if (p < end && *p == ',') { *out = '\0'; p++; continue; }
    /* a record ends at LF, CRLF or a lone CR (old Mac files) */
    int eol = 0;
    if (p < end && *p == '\r') p++, eol = 1;
    if (p < end && *p == '\n') p++, eol = 1;
    if (!eol && p < end) {
      *out = '\0';
      return -sc_error_set(err, SC_EINPUT,
                           "%s:%d: unexpected text after a quoted field "
                           "(expected a comma or the end of the line)",
                           path, f->record_line);
    }
    *out = '\0';
    f->line++;
    f->pos = (size_t)(p - f->buf);
    return 1;
  }
}

int csv_open(csv_file *f, const char *path, sc_error *err) {
  memset(f, 0, sizeof *f);
  int rc = file_read(path, "CSV file", FILE_MAX_DATA, &f->buf, &f->len, err);
  if (rc) return rc;
  f->line = 1;
  /* skip a UTF-8 byte-order mark */
  if (f->len >= 3 && (unsigned char)f->buf[0] == 0xEF &&
      (unsigned char)f->buf[1] == 0xBB && (unsigned char)f->buf[2] == 0xBF)
    f->pos = 3;
  rc = split(f, path, err);
  if (rc <= 0) {
    csv_close(f);
    if (rc == 0) return sc_error_set(err, SC_EINPUT, "%s: empty file (expected a header row)", path);
    return -rc;
  }
  f->n_cols = f->n_fields;
  for (int i = 0; i < f->n_cols; i++) f->header[i] = f->field[i];
  return SC_OK;
}

int csv_next(csv_file *f, const char *path, sc_error *err) {
  int rc;
  do {
    rc = split(f, path, err);
  } while (rc == 1 && f->n_fields == 1 && f->field[0][0] == '\0'); /* blank line */
  return rc;
}

int csv_col(const csv_file *f, const char *name) {
  for (int i = 0; i < f->n_cols; i++)
    if (strcmp(f->header[i], name) == 0) return i;
  return -1;
}

const char *csv_get(const csv_file *f, int col) {
  if (col < 0 || col >= f->n_fields) return "";
  return f->field[col];
}

#define CSV_SUGGEST_IDS 1024 /* ids looked at for a suggestion, at most */

int csv_seek_id(csv_file *f, const char *path, const char *id, sc_error *err) {
  const char *seen[CSV_SUGGEST_IDS], *last = NULL; /* into f->buf, which the records are split in */
  size_t n = 0;
  long rows = 0;
  int col = csv_col(f, "id"), rc;
  while ((rc = csv_next(f, path, err)) == 1) {
    if (f->n_fields != f->n_cols) continue;
    const char *v = csv_get(f, col);
    if (!strcmp(v, id)) return 1;
    if (n < CSV_SUGGEST_IDS) seen[n++] = v;
    last = v;
    rows++;
  }
  if (rc < 0) return rc;
  if (!rows) return sc_error_set(err, SC_EINPUT, "%s: no row with id '%s'; the file has no rows",
                                 path, id), 0;
  const char *hint = scn_suggest(id, seen, n);
  char mean[96] = "";
  if (hint) snprintf(mean, sizeof mean, " did you mean '%.64s'?", hint);
  sc_error_set(err, SC_EINPUT, "%s: no row with id '%s';%s valid: %ld ids, '%.64s' .. '%.64s' "
               "(`stepcast validate %s --format csv` lists them)", path, id, mean, rows, seen[0],
               last, path);
  return 0;
}

void csv_close(csv_file *f) {
  mem_free(f->buf);
  memset(f, 0, sizeof *f);
}

double csv_num(const csv_file *f, const char *path, const char *col, double dflt, double min,
               int *bad, sc_error *err) {
  const char *s = csv_get(f, csv_col(f, col));
  while (isspace((unsigned char)*s)) s++;
  if (!*s) return dflt;
  char *end;
  errno = 0;
  double v = strtod(s, &end);
  while (isspace((unsigned char)*end)) end++;
  if (*end || errno || !isfinite(v) || v < min) {
    char want[128];
    snprintf(want, sizeof want, "a number >= %g%s", min,
             errno == ERANGE ? " within a double's range (0, or 1e-307..1e308 in magnitude)" : "");
    csv_malformed(f, path, col, want, bad, err);
    return dflt;
  }
  return v;
}

int csv_malformed(const csv_file *f, const char *path, const char *col, const char *want,
                  int *bad, sc_error *err) {
  if (!*bad)
    sc_error_set(err, SC_EINPUT, "%s:%d: column '%s': expected %s, got '%s'", path,
                 f->record_line, col, want, csv_get(f, csv_col(f, col)));
  *bad = 1;
  return SC_EINPUT;
}
