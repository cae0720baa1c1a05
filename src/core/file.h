/*
 * file.h -- read a whole file into memory (module prefix: file_).
 *
 * The loaders (CSV, topology JSON) parse from a buffer; this is the one
 * place that fills it, through mem_ so that the allocation-failure tests
 * reach it.
 */
#ifndef SC_CORE_FILE_H
#define SC_CORE_FILE_H

#include <stddef.h>

/* Read the file at path into a new NUL-terminated buffer: on SC_OK *buf
 * (free with mem_free) holds *len bytes plus the NUL. SC_EIO when the
 * file cannot be opened (errno says why), SC_ENOMEM when out of memory or
 * when the file is larger than about 2 GiB; *buf is NULL on failure. A read error
 * ends the data like the end of the file. */
int file_read_all(const char *path, char **buf, size_t *len);

#endif /* SC_CORE_FILE_H */
