/*
 * tmpfile.h -- text written to a file for the tests that load one
 * (scenario, graph, topology, trace, validation and recsys files); any
 * failure to write fails the test. The caller removes the file.
 * Header-only: each test executable includes it once.
 */
#ifndef SC_TESTS_TMPFILE_H
#define SC_TESTS_TMPFILE_H

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>

/* Write text to the file at path, created or truncated. */
static inline void file_write(const char *path, const char *text) {
  FILE *f = fopen(path, "w");
  cr_assert_not_null(f, "cannot write %s", path);
  int ok = fputs(text, f) >= 0;
  ok &= fclose(f) == 0;
  cr_assert(ok, "cannot write %s", path);
}

/* Write text to a new file named after the mkstemp template path (ending
 * in XXXXXX), which receives the name. */
static inline void tmp_write(char *path, const char *text) {
  int fd = mkstemp(path);
  cr_assert(fd >= 0, "mkstemp %s", path);
  FILE *f = fdopen(fd, "w");
  cr_assert_not_null(f, "cannot write %s", path);
  int ok = fputs(text, f) >= 0;
  ok &= fclose(f) == 0;
  cr_assert(ok, "cannot write %s", path);
}

#endif
