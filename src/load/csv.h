/*
 * csv.h -- a small RFC 4180 CSV reader (module prefix: csv_).
 *
 * Reads the whole file into memory once; each record is split into
 * fields in place. Quoted fields may hold commas, doubled quotes and line
 * breaks. A header row names the columns.
 */
#ifndef SC_LOAD_CSV_H
#define SC_LOAD_CSV_H

#include <stddef.h>

#include "stepcast.h"

#define CSV_MAX_FIELDS 64

typedef struct csv_file {
  char *buf;                       /* owned: file contents, split in place */
  size_t len;
  size_t pos;                      /* read cursor in buf */
  int line;                        /* 1-based line of the next record */
  int n_cols;                      /* columns named by the header */
  char *header[CSV_MAX_FIELDS];    /* point into buf */
  char *field[CSV_MAX_FIELDS];     /* the current record, into buf */
  int n_fields;                    /* fields in the current record */
  int record_line;                 /* line where the current record starts */
} csv_file;

/* Open path and read its header. On failure returns SC_EIO, SC_EINPUT
 * or SC_ENOMEM with a message naming the file; nothing needs freeing
 * then. */
int csv_open(csv_file *f, const char *path, sc_error *err);

/* Read the next record into f->field. Returns 1 when a record was read,
 * 0 at end of file, or -SC_EINPUT on a malformed record (unterminated
 * quote, too many fields) with err naming file:line. */
int csv_next(csv_file *f, const char *path, sc_error *err);

/* Index of the column named `name`, or -1. */
int csv_col(const csv_file *f, const char *name);

/* Field of the current record in column `col`, "" when absent. */
const char *csv_get(const csv_file *f, int col);

void csv_close(csv_file *f);

/* Read records up to the first whole one (every column) whose "id" is
 * id: 1 with it current; 0 when none is, err then "PATH: no row with id
 * 'ID'; did you mean 'X'? valid: N ids, 'FIRST' .. 'LAST'"; or
 * -SC_EINPUT as csv_next. */
int csv_seek_id(csv_file *f, const char *path, const char *id, sc_error *err);

/* The number in column col of the current record (spaces around it
 * allowed): dflt when blank; else a whole finite number >= min, or dflt
 * after an SC_EINPUT message naming path, line and column in err (the
 * first bad cell of a record only: *bad is set and then left alone). */
double csv_num(const csv_file *f, const char *path, const char *col, double dflt, double min,
               int *bad, sc_error *err);

/* A malformed cell of the current record: unless *bad is already set,
 * err becomes "PATH:LINE: column 'COL': expected WANT, got 'CELL'"; then
 * *bad is set. Returns SC_EINPUT. The one message of a bad cell (csv_num
 * and the validation's readers of rows). */
int csv_malformed(const csv_file *f, const char *path, const char *col, const char *want,
                  int *bad, sc_error *err);

#endif
