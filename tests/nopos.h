/*
 * nopos.h -- a loader's message without the "LINE:COLUMN:" that follows
 * its origin (src/load/jpos.h), for tests whose needles name the key path
 * and the message ("t.json: plan.tp: ..."; they look in the message as it
 * is too, for syntax errors' positions); the positions themselves are
 * asserted where they are the point (test_jpos.c). Header-only.
 */
#ifndef SC_TESTS_NOPOS_H
#define SC_TESTS_NOPOS_H

#include <stdio.h>
#include <string.h>

/* msg with "ORIGIN:L:C: " written as "ORIGIN: " into dst (cap bytes). */
static inline const char *nopos(char *dst, size_t cap, const char *msg, const char *origin) {
  size_t o = strlen(origin);
  const char *p = msg + o;
  int line, col, used = 0;
  if (!strncmp(msg, origin, o) && sscanf(p, ":%d:%d: %n", &line, &col, &used) == 2 && used)
    snprintf(dst, cap, "%s: %s", origin, p + used);
  else
    snprintf(dst, cap, "%s", msg);
  return dst;
}

#endif
