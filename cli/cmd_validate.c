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
         "  --summary   print only the per-file summary (table format)\n"
         "  --row ID    predict one training row as `stepcast predict` would show it\n"
         "              (the scenario its blank cells give, with the full breakdown)\n\n"
         "Exit codes: 0 ok, 2 malformed CSV, 3 unreadable file.\n");
}

/* `validate --row ID FILE`: the prediction of one training row. */
static int one_row(const char *path, const char *id, sc_format fmt) {
  sc_scenario s;
  sc_result r;
  sc_error err = {0};
  int rc = sc_validate_row_scenario(path, id, &s, &err);
  if (rc == SC_OK) rc = sc_predict(&s, &r, &err);
  if (rc != SC_OK) {
    fprintf(stderr, "stepcast validate: %s\n", err.msg);
    return rc == SC_EIO ? 3 : 2;
  }
  sc_scenario_resolve(&s, &err);
  sc_report_prediction(stdout, fmt, &s, &r, 0);
  return 0;
}

int cmd_validate(int argc, char **argv) {
  for (int i = 1; i + 2 < argc; i++) /* --row ID FILE */
    if (!strcmp(argv[i], "--row")) {
      sc_format f = SC_FORMAT_TABLE;
      const char *file = NULL;
      for (int k = 1; k < argc; k++) {
        if (k == i || k == i + 1) continue;
        if (!strcmp(argv[k], "--format") && k + 1 < argc) {
          int v = sc_format_from_name(argv[++k]);
          if (v < 0) {
            fprintf(stderr, "stepcast validate: --format expects table, json or csv\n");
            return 2;
          }
          f = (sc_format)v;
        } else {
          file = argv[k];
        }
      }
      if (!file) {
        fprintf(stderr, "stepcast validate: --row ID needs the CSV file of that row\n");
        return 2;
      }
      return one_row(file, argv[i + 1], f);
    }
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
