/*
 * cmd_validate.c -- `stepcast validate FILE.csv...`: predict every row of
 * published measurement sets and report the error per row and per file.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "stepcast.h"

static void help(void) {
  printf("usage: stepcast validate [--format table|json|csv] [--summary] FILE.csv...\n\n"
         "Predict every row of measurement CSVs (training sets: seconds per step;\n"
         "collective sets: microseconds) and print each row's error, then per file\n"
         "the MAPE, median and max error and the rows within 10 %%. Rows that cannot\n"
         "be modelled are listed as skipped with the reason.\n\n"
         "  --summary   print only the per-file summary (table format)\n\n"
         "Exit codes: 0 ok, 2 malformed CSV, 3 unreadable file.\n");
}

int cmd_validate(int argc, char **argv) {
  sc_format fmt = SC_FORMAT_TABLE;
  int rows = 1, n = 0, rc = 0;
  sc_validation *files = calloc((size_t)argc, sizeof *files);
  if (!files) return 3;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (!strcmp(a, "-h") || !strcmp(a, "--help")) { help(); goto done; }
    if (!strcmp(a, "--summary")) { rows = 0; continue; }
    if (!strcmp(a, "--format")) {
      int f = i + 1 < argc ? sc_format_from_name(argv[++i]) : -1;
      if (f < 0) {
        fprintf(stderr, "stepcast validate: --format expects table, json or csv\n");
        rc = 2;
        goto done;
      }
      fmt = (sc_format)f;
      continue;
    }
    if (a[0] == '-') {
      fprintf(stderr, "stepcast validate: unknown option '%s'\n", a);
      rc = 2;
      goto done;
    }
    sc_error err = {0};
    int vrc = sc_validate_file(a, &files[n], &err);
    if (vrc != SC_OK) {
      fprintf(stderr, "stepcast validate: %s\n", err.msg);
      rc = vrc == SC_EIO ? 3 : 2;
      goto done;
    }
    n++;
  }
  if (n == 0) {
    fprintf(stderr, "stepcast validate: no CSV file given (e.g. stepcast validate "
                    "../shared/validation/training/*.csv)\n");
    rc = 2;
    goto done;
  }
  sc_report_validation(stdout, fmt, files, n, rows);
done:
  for (int i = 0; i < n; i++) sc_validation_free(&files[i]);
  free(files);
  return rc;
}
