/*
 * jparse.c -- see jparse.h.
 */
#include "load/jparse.h"

#include <string.h>

#include "stepcast.h"

int jparse(const char *buf, size_t len, size_t flags, json_t **root, json_error_t *je) {
  json_error_t again;
  memset(je, 0, sizeof *je); /* jansson leaves the code unset on some failures */
  memset(&again, 0, sizeof again);
  *root = json_loadb(buf, len, flags, je);
  if (*root) return SC_OK;
  if (!je->text[0] || json_error_code(je) == json_error_out_of_memory) return SC_ENOMEM;
  *root = json_loadb(buf, len, flags, &again);
  if (*root) return SC_OK;
  if (again.line == je->line && again.column == je->column && !strcmp(again.text, je->text))
    return SC_EINPUT;
  return SC_ENOMEM;
}
