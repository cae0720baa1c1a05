/*
 * output.c -- what every subcommand shares about its outputs: the exit
 * code of a library error, files named on the command line ("-" is
 * standard output), and the data directory (the shipped measurement sets).
 */
#define _XOPEN_SOURCE 700 /* realpath */
#include <limits.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "stepcast.h"

int cli_exit_code(int code) {
  switch (code) {
  case SC_OK: return 0;
  case SC_EIO: return 3;
  case SC_ENOMEM: return 4;
  default: return 2; /* SC_EINPUT, SC_EMODEL: the input is at fault */
  }
}

FILE *cli_open_out(const char *cmd, const char *path) {
  if (!strcmp(path, "-")) return stdout;
  FILE *f = fopen(path, "w");
  if (!f) fprintf(stderr, "stepcast %s: cannot write %s (%s)\n", cmd, path, strerror(errno));
  return f;
}

int cli_close_out(const char *cmd, const char *path, FILE *f) {
  int bad = fflush(f) != 0 || ferror(f);
  if (f != stdout) bad |= fclose(f) != 0;
  if (bad) fprintf(stderr, "stepcast %s: cannot write %s\n", cmd, path);
  return bad ? 3 : 0;
}

int cli_is_stdout(const char *path) { return path && !strcmp(path, "-"); }

int cli_one_stdout(const char *cmd, const char *a, const char *b) {
  if (!cli_is_stdout(a) || !cli_is_stdout(b)) return 0;
  fprintf(stderr, "stepcast %s: only one output can be '-' (standard output)\n", cmd);
  return 2;
}

int cli_format(const char *cmd, const char *value, int csv_ok) {
  int f = value ? sc_format_from_name(value) : -1;
  if (f >= 0 && (csv_ok || f != SC_FORMAT_CSV)) return f;
  const char *valid = csv_ok ? "table, json or csv" : "table or json";
  if (!value) fprintf(stderr, "stepcast %s: --format expects %s\n", cmd, valid);
  else
    fprintf(stderr, "stepcast %s: --format expects %s, got '%s'%s\n", cmd, valid, value,
            f == SC_FORMAT_CSV ? " (this command has no CSV output: docs/output.md)" : "");
  return -1;
}

/* 1 when two override values are the same: the same text, or the same
 * number written two ways ("8" and "8.0"). */
static int same_value(const char *a, const char *b) {
  if (!strcmp(a, b)) return 1;
  char *ea, *eb;
  double x = strtod(a, &ea), y = strtod(b, &eb);
  return ea != a && eb != b && !*ea && !*eb && x == y;
}

void cli_ov_note_repeats(const char *cmd, const char *const *ov, const char *const *shown, size_t n) {
  for (size_t j = 1; j < n; j++) {
    const char *ej = strchr(ov[j], '=');
    size_t len = ej ? (size_t)(ej - ov[j]) : 0;
    for (size_t i = j; len && i-- > 0;) { /* the one it replaces: the latest before it */
      if (strncmp(ov[i], ov[j], len) || ov[i][len] != '=') continue;
      if (!same_value(ov[i] + len + 1, ej + 1))
        fprintf(stderr, "stepcast %s: note: %.*s is given twice, %s%s then %s%s: the last is used\n",
                cmd, (int)len, ov[j], shown && shown[i] ? "" : "--set ",
                shown && shown[i] ? shown[i] : ov[i], shown && shown[j] ? "" : "--set ",
                shown && shown[j] ? shown[j] : ov[j]);
      break;
    }
  }
}

int cli_unknown_option(const char *cmd, const char *arg) {
  fprintf(stderr, "stepcast %s: unknown option '%s' (see stepcast %s --help)\n", cmd, arg, cmd);
  return 2;
}

static int is_dir(const char *path) {
  struct stat st;
  return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* base/rel into buf when base/rel/validation is a directory; 1 then. */
static int data_at(char *buf, size_t cap, const char *base, const char *rel) {
  char probe[PATH_MAX + 64];
  snprintf(probe, sizeof probe, "%s%s%s/validation", base, rel[0] ? "/" : "", rel);
  if (!is_dir(probe)) return 0;
  snprintf(probe, sizeof probe, "%s%s%s", base, rel[0] ? "/" : "", rel);
  char real[PATH_MAX];
  const char *dir = realpath(probe, real) ? real : probe;
  int n = snprintf(buf, cap, "%s", dir);
  return n > 0 && (size_t)n < cap;
}

int cli_data_dir(char *buf, size_t cap) {
  const char *env = getenv("STEPCAST_DATA");
  if (env && env[0]) return data_at(buf, cap, env, "") ? 0 : -1;
  char exe[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (n > 0) {
    exe[n] = '\0';
    char *slash = strrchr(exe, '/');
    if (slash) *slash = '\0';
    /* installed: PREFIX/bin/stepcast -> PREFIX/share/stepcast; a build
     * tree inside the source: SRC/build/stepcast -> SRC/data */
    if (data_at(buf, cap, exe, "../share/stepcast") || data_at(buf, cap, exe, "../data"))
      return 0;
  }
#ifdef SC_INSTALL_DATA_DIR
  if (data_at(buf, cap, SC_INSTALL_DATA_DIR, "")) return 0;
#endif
#ifdef SC_BUILD_DATA_DIR
  if (data_at(buf, cap, SC_BUILD_DATA_DIR, "")) return 0;
#endif
  return -1;
}
