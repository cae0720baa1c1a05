/*
 * file.c -- see file.h.
 */
#include "core/file.h"

#include <stdio.h>

#include "core/mem.h"
#include "core/vec.h"
#include "stepcast.h"

/* Bytes asked of each fread. */
#define FILE_CHUNK 65536

int file_read_all(const char *path, char **buf, size_t *len) {
  *buf = NULL;
  *len = 0;
  FILE *fp = fopen(path, "rb");
  if (!fp) return SC_EIO;
  char *b = NULL;
  int cap = 0;
  size_t n = 0, got, room;
  do {
    /* room for another chunk and the NUL */
    if (vec_grow((void **)&b, &cap, (long)n + FILE_CHUNK + 1, 1)) {
      mem_free(b);
      fclose(fp);
      return SC_ENOMEM;
    }
    room = (size_t)cap - 1 - n;
    got = fread(b + n, 1, room, fp);
    n += got;
  } while (got == room);
  fclose(fp);
  b[n] = '\0';
  *buf = b, *len = n;
  return SC_OK;
}
