/*
 * file.c -- see file.h.
 */
#include "core/file.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/mem.h"
#include "core/vec.h"

/* Bytes asked of each fread. */
#define FILE_CHUNK 65536

int file_check(const char *path, const char *what, sc_error *err) {
  struct stat st;
  if (!path) return sc_error_set(err, SC_EIO, "%s: no path (NULL)", what);
  if (stat(path, &st))
    return sc_error_set(err, SC_EIO, "%s: cannot read the %s (%s)", path, what, strerror(errno));
  if (S_ISDIR(st.st_mode))
    return sc_error_set(err, SC_EIO, "%s: is a directory; the %s must be a file", path, what);
  return SC_OK;
}

static int too_big(const char *path, const char *what, size_t max, double have, sc_error *err) {
  return sc_error_set(err, SC_EINPUT,
                      "%s: the %s holds %s%.0f bytes; the limit is %zu bytes (%.0f MiB; "
                      "docs/input.md, Limits)",
                      path, what, have > (double)max ? "" : "more than ", have, max,
                      (double)max / 1048576);
}

/* Read fp to its end into *buf; at most max bytes. */
static int read_stream(FILE *fp, const char *path, const char *what, size_t max, char **buf,
                       size_t *len, sc_error *err) {
  char *b = NULL;
  int cap = 0;
  size_t n = 0, got, room;
  do {
    if (n > max) {
      mem_free(b);
      return too_big(path, what, max, (double)max, err);
    }
    /* room for another chunk and the NUL */
    if (vec_grow((void **)&b, &cap, (long)n + FILE_CHUNK + 1, 1)) {
      mem_free(b);
      return sc_error_set(err, SC_ENOMEM, "%s: out of memory reading the %s", path, what);
    }
    room = (size_t)cap - 1 - n;
    got = fread(b + n, 1, room, fp);
    if (memchr(b + n, '\0', got)) {
      size_t at = (size_t)((char *)memchr(b + n, '\0', got) - b);
      mem_free(b);
      return sc_error_set(err, SC_EINPUT,
                          "%s: byte %zu is NUL: the %s must be text", path,
                          at, what);
    }
    n += got;
  } while (got == room);
  if (ferror(fp)) {
    mem_free(b);
    return sc_error_set(err, SC_EIO, "%s: cannot read the %s (%s)", path, what, strerror(errno));
  }
  if (n > max) {
    mem_free(b);
    return too_big(path, what, max, (double)n, err);
  }
  b[n] = '\0';
  *buf = b, *len = n;
  return SC_OK;
}

int file_read(const char *path, const char *what, size_t max, char **buf, size_t *len,
              sc_error *err) {
  *buf = NULL;
  *len = 0;
  int rc = file_check(path, what, err);
  if (rc) return rc;
  FILE *fp = fopen(path, "rb");
  if (!fp)
    return sc_error_set(err, SC_EIO, "%s: cannot read the %s (%s)", path, what, strerror(errno));
  struct stat st;
  if (!fstat(fileno(fp), &st) && S_ISREG(st.st_mode) && (size_t)st.st_size > max) {
    fclose(fp);
    return too_big(path, what, max, (double)st.st_size, err);
  }
  rc = read_stream(fp, path, what, max, buf, len, err);
  fclose(fp);
  return rc;
}

int file_write(const char *path, const char *option, file_writer write, const void *ctx,
               sc_error *err) {
  FILE *f = fopen(path, "w");
  if (!f)
    return sc_error_set(err, SC_EIO, "%s: cannot write %s (%s)", option, path, strerror(errno));
  int rc = write(f, ctx, err);
  int bad = fflush(f) != 0 || ferror(f);
  bad |= fclose(f) != 0;
  if (rc != SC_OK) return rc;
  return bad ? sc_error_set(err, SC_EIO, "%s: cannot write %s", option, path) : SC_OK;
}

int file_write_beside(char **doc, const char *path, const char *option, file_writer write,
                      const void *ctx, sc_error *err) {
  int rc = path ? file_write(path, option, write, ctx, err) : SC_OK;
  if (rc != SC_OK) {
    free(*doc); /* the entries' documents are malloc'd by the C library (mstream) */
    *doc = NULL;
  }
  return rc;
}

int file_name_check(const char *path, const char *option, sc_error *err) {
  if (path && (!*path || !strcmp(path, "-")))
    return sc_error_set(err, SC_EINPUT, "%s: expected a file name, not '%s' (standard output "
                        "is the command's, not the library's)", option, path);
  return SC_OK;
}
