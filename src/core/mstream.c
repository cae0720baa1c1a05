/*
 * mstream.c -- see mstream.h.
 */
#include "core/mstream.h"

#include <stdlib.h>

int mstream_open(mstream *m, sc_error *err) {
  m->buf = NULL;
  m->len = 0;
  m->f = open_memstream(&m->buf, &m->len);
  return m->f ? SC_OK : sc_error_set(err, SC_ENOMEM, "out of memory for the output");
}

int mstream_close(mstream *m, char **out, sc_error *err) {
  int bad = ferror(m->f) != 0;
  bad |= fclose(m->f) != 0;
  if (bad || !m->buf) {
    free(m->buf);
    return sc_error_set(err, SC_ENOMEM, "out of memory for the output");
  }
  *out = m->buf;
  return SC_OK;
}
