/*
 * name.c -- names compared ignoring case (and underscores); see name.h.
 */
#include "core/name.h"

#include <ctype.h>
#include <string.h>
#include <strings.h>

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

/* name.h */
int name_edit_distance(const char *a, const char *b) {
  enum { N = 64 };
  int la = (int)strnlen(a, N - 1), lb = (int)strnlen(b, N - 1);
  int d[3][N]; /* rows i-2, i-1, i of the table, rolling */
  for (int j = 0; j <= lb; j++) d[1][j] = j;
  d[0][0] = 0;
  for (int i = 1; i <= la; i++) {
    int *cur = d[(i + 1) % 3], *prev = d[i % 3], *pp = d[(i + 2) % 3];
    cur[0] = i;
    for (int j = 1; j <= lb; j++) {
      int cost = tolower((unsigned char)a[i - 1]) != tolower((unsigned char)b[j - 1]);
      int v = prev[j] + 1;
      if (cur[j - 1] + 1 < v) v = cur[j - 1] + 1;
      if (prev[j - 1] + cost < v) v = prev[j - 1] + cost;
      if (i > 1 && j > 1 &&
          tolower((unsigned char)a[i - 1]) == tolower((unsigned char)b[j - 2]) &&
          tolower((unsigned char)a[i - 2]) == tolower((unsigned char)b[j - 1]) &&
          pp[j - 2] + 1 < v)
        v = pp[j - 2] + 1;
      cur[j] = v;
    }
  }
  return d[(la + 1) % 3][lb];
}

/* Length of the common prefix of a and b, ignoring case. */
static size_t name_common(const char *a, const char *b) {
  size_t i = 0;
  while (a[i] && tolower((unsigned char)a[i]) == tolower((unsigned char)b[i])) i++;
  return i;
}

/* name.h: a candidate that starts with `word` first ("h100" ->
 * "h100-sxm5-80gb"), then the smallest edit distance within a limit that
 * grows with the length of word, ties broken by the longest common prefix
 * ("tpp" -> "tp", not "pp"); last, a candidate that `word` starts with
 * ("micro_batch_size" -> "micro_batch"). */
const char *name_suggest(const char *word, const char *const *cands, size_t n) {
  const char *best = NULL;
  size_t len = strlen(word);
  for (size_t i = 0; i < n && len >= 2; i++)
    if (strncasecmp(cands[i], word, len) == 0) return cands[i];
  int limit = len <= 3 ? 1 : len <= 6 ? 2 : 3, best_d = limit + 1;
  size_t best_c = 0;
  for (size_t i = 0; i < n; i++) {
    int d = name_edit_distance(word, cands[i]);
    size_t common = name_common(word, cands[i]);
    if (d < best_d || (d == best_d && best && common > best_c))
      best_d = d, best = cands[i], best_c = common;
  }
  if (best) return best;
  for (size_t i = 0; i < n && len >= 2; i++) {
    size_t lc = strlen(cands[i]);
    if (lc >= 3 && strncasecmp(word, cands[i], lc) == 0) return cands[i];
  }
  return NULL;
}

/* stepcast.h */
const char *sc_name_suggest(const char *word, const char *const *cands, size_t n) {
  return name_suggest(word, cands, n);
}
