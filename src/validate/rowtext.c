/*
 * rowtext.c -- see rowtext.h.
 */
#include "validate/rowtext.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

int rowtext_has(const char *text, const char *word) {
  size_t n = strlen(word);
  for (; text && *text; text++)
    if (!strncasecmp(text, word, n)) return 1;
  return 0;
}

double rowtext_after(const char *text, const char *key, double dflt) {
  const char *p = text ? strstr(text, key) : NULL;
  if (!p) return dflt;
  p += strlen(key);
  while (*p == ' ' || *p == '~' || *p == '=') p++;
  char *end;
  double v = strtod(p, &end);
  return end == p ? dflt : v;
}
