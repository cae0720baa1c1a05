/*
 * mstream.h -- a report printed into a malloc'd string (module prefix:
 * mstream_), for the entry points that return a document as text
 * (report/text_api.c, recsys/rs_text.c): the writers print into m.f, a
 * memory stream (open_memstream), and the text is the caller's once the
 * stream is closed.
 */
#ifndef SC_CORE_MSTREAM_H
#define SC_CORE_MSTREAM_H

#include <stddef.h>
#include <stdio.h>

#include "stepcast.h"

/* A memory stream the writers print into; buf and len follow it. */
typedef struct mstream {
  FILE *f;    /* the stream; closed by mstream_close */
  char *buf;  /* the text so far, malloc'd by the C library */
  size_t len; /* bytes in buf, without the NUL */
} mstream;

/* Open m: SC_OK, or SC_ENOMEM (said in err) when no stream could be made. */
int mstream_open(mstream *m, sc_error *err);

/* Close m: on SC_OK *out owns the text (free it with free()); when the
 * stream failed (out of memory while writing or closing) nothing is
 * returned, the text is freed and err says SC_ENOMEM. */
int mstream_close(mstream *m, char **out, sc_error *err);

#endif
