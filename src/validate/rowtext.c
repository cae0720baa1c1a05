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

static int wordch(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'); }

int rowtext_word(const char *text, const char *word) {
  size_t n = strlen(word);
  for (const char *t = text; t && *t; t++)
    if (!strncasecmp(t, word, n) && (t == text || !wordch(t[-1])) && !wordch(t[n])) return 1;
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

static int isdig(char c) { return c >= '0' && c <= '9'; }

double rowtext_count_after(const char *text, const char *key, double dflt) {
  const char *p = text ? strstr(text, key) : NULL;
  if (!p) return dflt;
  p += strlen(key);
  while (*p == ' ' || *p == '~' || *p == '=') p++;
  if (!isdig(*p)) return dflt;
  double v = 0;
  for (;; p++) {
    if (isdig(*p)) v = v * 10 + (*p - '0');
    else if (!(*p == ',' && isdig(p[1]) && isdig(p[2]) && isdig(p[3]) && !isdig(p[4]))) break;
  }
  return v;
}

int rowtext_near(const char *text, const char *anchor, const char *word, size_t span) {
  size_t na = strlen(anchor), nw = strlen(word);
  for (const char *a = text; a && *a; a++) {
    if (strncasecmp(a, anchor, na)) continue;
    const char *from = (size_t)(a - text) > span ? a - span : text;
    /* offsets, not a + na + span: that pointer may lie past the string */
    for (const char *w = from; *w && (w <= a || (size_t)(w - a) <= na + span); w++)
      if (!strncasecmp(w, word, nw)) return 1;
  }
  return 0;
}
