/*
 * name.c -- names compared ignoring case (and underscores); see name.h.
 */
#include "core/name.h"

#include <ctype.h>

int name_eq(const char *canon, const char *s, size_t n, int underscores) {
  if (!canon || !s) return 0;
  const char *end = s;
  while ((size_t)(end - s) < n && *end) end++;
  while (*canon || s < end) {
    if (underscores && *canon == '_') { canon++; continue; }
    if (underscores && s < end && *s == '_') { s++; continue; }
    if (!*canon || s == end || tolower((unsigned char)*canon) != tolower((unsigned char)*s))
      return 0;
    canon++, s++;
  }
  return 1;
}
