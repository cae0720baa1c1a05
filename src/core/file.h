/*
 * file.h -- read a whole file into memory, write a report into one
 * (module prefix: file_).
 *
 * The loaders (scenario, workload graph, CSV, topology JSON, traces)
 * parse from a buffer; this is the one place that fills it, through mem_
 * so that the allocation-failure tests reach it. Every read has a limit:
 * a path naming a directory, a device that never ends (/dev/zero) or a
 * file larger than the loader's limit is refused with a message, never
 * read without bound.
 */
#ifndef SC_CORE_FILE_H
#define SC_CORE_FILE_H

#include <stddef.h>
#include <stdio.h>

#include "stepcast.h"

/* Limits of the inputs (docs/input.md, "Limits"). */
#define FILE_MAX_SCENARIO (16L << 20)  /* scenario JSON */
#define FILE_MAX_DATA (256L << 20)     /* workload graph JSON, measurement CSV */
#define FILE_MAX_TOPOLOGY (1L << 30)   /* topology JSON */

/* Read the text file at path into a new NUL-terminated buffer: on SC_OK
 * *buf (free with mem_free) holds *len bytes plus the NUL. `what` names
 * the file in messages ("scenario file"). Errors (*buf NULL, err says
 * which file and why): SC_EIO when it cannot be opened or read or is a
 * directory; SC_EINPUT when it holds more than max bytes or a NUL byte
 * (not text); SC_ENOMEM. */
int file_read(const char *path, const char *what, size_t max, char **buf, size_t *len,
              sc_error *err);

/* SC_OK when path can be opened as a file (not a directory); else
 * SC_EIO with the reason in err, naming `what`. For readers that stream
 * (gzip traces) and bound their reads themselves. */
int file_check(const char *path, const char *what, sc_error *err);

/* A writer of a report into f from ctx: SC_OK, or an sc_code with err set. */
typedef int (*file_writer)(FILE *f, const void *ctx, sc_error *err);

/* Write a report into the file at path (created or truncated): write(f,
 * ctx, err) prints it. For the text-out entries that also write files, as
 * the command's --trace, --html, --perfetto do. SC_OK; the writer's code;
 * or SC_EIO when the file cannot be created or written, the message
 * "OPTION: cannot write PATH (reason)" naming `option` as the command's
 * does. */
int file_write(const char *path, const char *option, file_writer write, const void *ctx,
               sc_error *err);

/* file_write for a file that goes with a document *doc already made (a
 * text-out entry's): nothing when path is NULL; when the file cannot be
 * written, *doc is freed and set to NULL and the error returned. */
int file_write_beside(char **doc, const char *path, const char *option, file_writer write,
                      const void *ctx, sc_error *err);

/* SC_OK when path (NULL: no file) names a file a text-out entry may
 * write; SC_EINPUT for "" and "-" ("OPTION: expected a file name, not
 * '-' ..."): standard output is the command's, not the library's. */
int file_name_check(const char *path, const char *option, sc_error *err);

#endif /* SC_CORE_FILE_H */
