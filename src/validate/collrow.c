/*
 * collrow.c -- defaults of a collective measurement row (collrow.h).
 */
#include "validate/collrow.h"

#include <stdlib.h>
#include <string.h>

int collrow_host_gpus(const char *notes) {
  const char *key = "nGpus ";
  const char *p = notes ? strstr(notes, key) : NULL;
  if (!p) return 1;
  char *end;
  long n = strtol(p + strlen(key), &end, 10);
  if (end == p + strlen(key) || n < 1 || n > 1024) return 1;
  return (int)n;
}
