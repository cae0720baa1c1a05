/*
 * rowhorovod.c -- the Horovod release a row's framework text dates, and
 * its fusion defaults; see rowhorovod.h.
 */
#include "validate/rowhorovod.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#define MiB (1024.0 * 1024.0)
/* before 0.21.0: operations.cc of Horovod 0.16-0.20 (recalled) */
#define VHV_OLD_FUSION (64 * MiB)
#define VHV_OLD_CYCLE 5e-3
/* from 0.21.0: ../shared/reference/horovod operations.cc */
#define VHV_NEW_FUSION (128 * MiB)
#define VHV_NEW_CYCLE 1e-3
/* the first NGC release that could hold Horovod 0.21.0 (2020-11) */
#define VHV_NGC_FIRST_NEW 20.11

/* Case-insensitive search; the match or NULL. */
static const char *vhv_find(const char *text, const char *word) {
  size_t n = strlen(word);
  for (const char *p = text; *p; p++) {
    size_t i = 0;
    while (i < n && p[i] && tolower((unsigned char)p[i]) == word[i]) i++;
    if (i == n) return p;
  }
  return NULL;
}

/* A "YY.MM" release right at p (two digits, '.', two digits, not part of
 * a longer number); 0 when there is none. */
static double vhv_yymm(const char *p) {
  for (int i = 0; i < 5; i++)
    if (i == 2 ? p[i] != '.' : !isdigit((unsigned char)p[i])) return 0;
  if (isdigit((unsigned char)p[5]) || (p[5] == '.' && isdigit((unsigned char)p[6]))) return 0;
  return atof(p);
}

/* After an NGC marker: spaces and at most one word (a framework's name)
 * before the release. */
static double vhv_release_after(const char *p) {
  while (*p == ' ' || *p == '-') p++;
  double r = vhv_yymm(p);
  if (r > 0) return r;
  while (isalpha((unsigned char)*p)) p++;
  while (*p == ' ' || *p == '-') p++;
  return vhv_yymm(p);
}

double vhv_ngc_release(const char *text) {
  static const char *const marks[] = {"ngc", "nvidia release"};
  if (!text) return 0;
  for (size_t m = 0; m < sizeof marks / sizeof *marks; m++)
    for (const char *p = vhv_find(text, marks[m]); p; p = vhv_find(p + 1, marks[m])) {
      double r = vhv_release_after(p + strlen(marks[m]));
      if (r > 0) return r;
    }
  return 0;
}

/* The first "X.Y" release written after a "horovod" in text (every
 * occurrence is tried: "Horovod (MPI), horovod 0.19"), spelled "horovod
 * 0.19", "horovod-0.19", "horovod v0.19", "Horovod==0.19" or "horovod:
 * 0.19": 1 with *major and *minor set, 0 when none is given. */
static int vhv_version(const char *text, long *major, long *minor) {
  for (const char *p = vhv_find(text, "horovod"); p; p = vhv_find(p + 1, "horovod")) {
    const char *q = p + strlen("horovod");
    while (*q == ' ' || *q == '-' || *q == '=' || *q == ':' || *q == 'v' || *q == 'V') q++;
    if (!isdigit((unsigned char)*q)) continue;
    char *end;
    long a = strtol(q, &end, 10);
    if (*end != '.' || !isdigit((unsigned char)end[1])) continue;
    *major = a, *minor = strtol(end + 1, NULL, 10);
    return 1;
  }
  return 0;
}

vhv_defaults vhv_for(const char *text) {
  vhv_defaults d = {VHV_NEW_FUSION, VHV_NEW_CYCLE, 0};
  if (!text) return d;
  long major, minor;
  double ngc = vhv_ngc_release(text);
  /* compared as numbers, not as one decimal: 0.9 is before 0.21, 0.100 after */
  if (vhv_version(text, &major, &minor)) d.before_021 = major == 0 && minor < 21;
  else if (ngc > 0) d.before_021 = ngc < VHV_NGC_FIRST_NEW;
  if (d.before_021) d.fusion_bytes = VHV_OLD_FUSION, d.cycle_s = VHV_OLD_CYCLE;
  return d;
}
