/*
 * cmd_validate.c -- `stepcast validate FILE.csv...`: predict every row of
 * published measurement sets and report the error per row and per file.
 * With no file, every set shipped in the data directory (data/validation,
 * installed as share/stepcast/validation).
 */
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "stepcast.h"

static void help(void) {
  printf("usage: stepcast validate [--format table|json|csv] [--summary] [--timings]\n"
         "                         [--engine closed|event] [--html FILE] [FILE.csv...]\n"
         "       stepcast validate --row ID FILE.csv [--ops] [--engine closed|event]\n"
         "                         [--format table|json|csv]\n\n"
         "Predict every row of measurement CSVs (training sets: seconds per step;\n"
         "collective sets: microseconds) and print each row's error, then per file\n"
         "the MAPE, median and max error and the rows within 10 %%. Rows that cannot\n"
         "be modelled are listed as skipped with the reason. With no file, every set\n"
         "shipped with stepcast (data/validation: training, collectives, dp_training,\n"
         "recsys); sets of models stepcast cannot build yet are counted as \"not\n"
         "supported yet\".\n\n"
         "  --summary   print only the per-file summary (the table; JSON and CSV keep every row)\n"
         "  --engine E  predict training rows with the closed form (closed, default) or\n"
         "              the event engine (event; docs/event.md)\n"
         "  --timings   also print the wall time of each set (output differs run to run)\n"
         "  --html FILE write an HTML report: predicted against measured per set, with\n"
         "              the error bands (docs/report.md); '-': standard output\n"
         "  --row ID    predict one training row as `stepcast predict` would show it\n"
         "              (the scenario its blank cells give, with the full breakdown;\n"
         "              with --engine event, the event engine's report)\n"
         "  --ops       with --row: also list the operators of one layer with their\n"
         "              times, as `stepcast predict --ops` does (closed form)\n\n"
         "Exit codes (docs/output.md): 0 ok, 2 malformed CSV, 3 unreadable file,\n"
         "4 out of memory.\n");
}

/* Under --row's table, what the prediction assumed for the row, as the
 * full table's "assumed: ..." (JSON and CSV print predict's document). */
static void row_assumed(sc_format fmt, const char *assumed) {
  if (fmt == SC_FORMAT_TABLE && assumed[0]) printf("  assumed: %s\n\n", assumed);
}

/* `validate --row ID FILE`: the prediction of one training row. */
static int one_row(const char *path, const char *id, sc_format fmt, int event, int show_ops) {
  sc_scenario s;
  sc_result r;
  sc_error err = {0};
  sc_event_pred *ep = NULL;
  sc_event_opts eo = {1, 0};
  char assumed[256] = ""; /* sc_validation_row.assumed: the full table's "assumed: ..." */
  int rc = sc_validate_row_scenario_assumed(path, id, &s, assumed, sizeof assumed, &err);
  if (rc == SC_OK && s.dp.scheme[0]) return cli_dp_report("validate", &s, fmt, 0);
  if (rc == SC_OK && event) {
    rc = sc_predict_event(&s, &eo, &r, &ep, &err);
    if (rc == SC_OK) sc_scenario_resolve(&s, &err), sc_report_event(stdout, fmt, &s, &r, ep);
    sc_event_pred_free(ep);
    if (rc == SC_OK && fmt == SC_FORMAT_TABLE && assumed[0]) putchar('\n');
    if (rc == SC_OK) return row_assumed(fmt, assumed), 0;
  }
  if (rc == SC_OK && !event) rc = sc_predict(&s, &r, &err);
  if (rc != SC_OK) {
    fprintf(stderr, "stepcast validate: %s\n", err.msg);
    return cli_exit_code(rc);
  }
  sc_scenario_resolve(&s, &err);
  sc_op_time ops[64], kinds[16]; /* --ops: one layer's operators and the step by kind */
  int n = show_ops ? sc_explain_layer(&s, ops, 64, &err) : 0;
  int nk = show_ops && n >= 0 ? sc_explain_kinds(&s, kinds, 16, &err) : 0;
  if (n < 0 || nk < 0) {
    fprintf(stderr, "stepcast validate: %s\n", err.msg);
    return cli_exit_code(n < 0 ? -n : -nk);
  }
  sc_report_prediction_kinds(stdout, fmt, &s, &r, 0, show_ops ? ops : NULL, n,
                             show_ops ? kinds : NULL, nk);
  row_assumed(fmt, assumed);
  return 0;
}

/* The CSVs of every shipped set, in a fixed order, into g, and the length
 * of the data directory's path with its slash in *strip; the exit code. */
static int shipped_sets(glob_t *g, size_t *strip) {
  static const char *const sets[] = {"training", "collectives", "dp_training", "recsys"};
  char dir[4096], pat[4200];
  if (cli_data_dir(dir, sizeof dir)) {
    fprintf(stderr, "stepcast validate: no FILE.csv given and no data directory found "
                    "(data/validation beside the source, share/stepcast of the install, "
                    "or $STEPCAST_DATA)\n");
    return 3;
  }
  for (size_t i = 0; i < sizeof sets / sizeof sets[0]; i++) {
    snprintf(pat, sizeof pat, "%s/validation/%s/*.csv", dir, sets[i]);
    int grc = glob(pat, i ? GLOB_APPEND : 0, NULL, g);
    if (grc == GLOB_NOSPACE) return 4;
    if (grc == GLOB_ABORTED) {
      fprintf(stderr, "stepcast validate: cannot read %s\n", pat);
      return 3;
    }
  }
  if (g->gl_pathc == 0) {
    fprintf(stderr, "stepcast validate: no CSV file under %s/validation\n", dir);
    return 3;
  }
  *strip = strlen(dir) + 1;
  return 0;
}

/* The HTML report of the n sets to path; the exit code. */
static int write_html(const char *path, const sc_validation *sets, int n) {
  FILE *f = cli_open_out("validate", path);
  if (!f) return 3;
  sc_html_validation(f, sets, n);
  return cli_close_out("validate", path, f);
}

/* Validate the n CSVs at paths and report them, each named by its path
 * less the first `strip` characters (the data directory of shipped sets,
 * so that the output does not depend on where stepcast is); the exit
 * code. */
static int run_sets(const char *const *paths, int n, size_t strip, sc_format fmt,
                    unsigned flags, const char *html, int event) {
  sc_validation *sets = calloc((size_t)n, sizeof *sets);
  if (!sets) return 4;
  int done = 0, rc = 0, tty = n > 1 && isatty(STDERR_FILENO);
  for (; done < n && !rc; done++) {
    sc_error err = {0};
    if (tty) /* progress on a terminal only (docs/output.md); cleared below */
      fprintf(stderr, "\r\033[Kstepcast validate: set %d of %d: %s", done + 1, n,
              paths[done] + strip);
    int vrc = sc_validate_file_engine(paths[done], event, &sets[done], &err);
    if (tty) fprintf(stderr, "\r\033[K");
    if (vrc != SC_OK) {
      fprintf(stderr, "stepcast validate: %s\n", err.msg);
      rc = cli_exit_code(vrc);
      break;
    }
    if (strip) memmove(sets[done].path, sets[done].path + strip, strlen(sets[done].path + strip) + 1);
  }
  if (!rc && !cli_is_stdout(html)) sc_report_validation(stdout, fmt, sets, n, flags);
  if (!rc && html) rc = write_html(html, sets, n);
  for (int i = 0; i < done; i++) sc_validation_free(&sets[i]);
  free(sets);
  return rc;
}

/* --engine's value: 1 event, 0 closed, -1 (reported) anything else. */
static int engine_event(const char *v) {
  if (v && !strcmp(v, "event")) return 1;
  if (v && !strcmp(v, "closed")) return 0;
  fprintf(stderr, "stepcast validate: --engine expects 'closed' or 'event'\n");
  return -1;
}

int cmd_validate(int argc, char **argv) {
  for (int i = 1; i + 2 < argc; i++) /* --row ID FILE */
    if (!strcmp(argv[i], "--row")) {
      sc_format f = SC_FORMAT_TABLE;
      const char *file = NULL;
      int ev = 0, ops = 0;
      for (int k = 1; k < argc; k++) {
        if (k == i || k == i + 1) continue;
        if (!strcmp(argv[k], "--ops")) {
          ops = 1;
        } else if (!strcmp(argv[k], "--engine")) {
          ev = engine_event(k + 1 < argc ? argv[++k] : NULL);
          if (ev < 0) return 2;
        } else if (!strcmp(argv[k], "--format")) {
          int v = cli_format("validate", k + 1 < argc ? argv[++k] : NULL, 1);
          if (v < 0) return 2;
          f = (sc_format)v;
        } else if (argv[k][0] == '-' && argv[k][1]) { /* --html, --summary, ... */
          fprintf(stderr, "stepcast validate: %s does not go with --row (valid with --row: "
                          "--format, --engine, --ops)\n", argv[k]);
          return 2;
        } else if (file) {
          fprintf(stderr, "stepcast validate: --row ID takes one FILE.csv, got '%s' and '%s'\n",
                  file, argv[k]);
          return 2;
        } else {
          file = argv[k];
        }
      }
      if (!file) {
        fprintf(stderr, "stepcast validate: --row ID needs the CSV file of that row\n");
        return 2;
      }
      if (ev && ops) {
        fprintf(stderr, "stepcast validate: --ops goes with the closed form, not --engine event\n");
        return 2;
      }
      return one_row(file, argv[i + 1], f, ev, ops);
    }
  sc_format fmt = SC_FORMAT_TABLE;
  unsigned flags = SC_REPORT_ROWS;
  int n = 0, rc = 0;
  const char *html = NULL;
  int event = 0;
  glob_t g = {0};
  const char **paths = calloc((size_t)argc, sizeof *paths);
  if (!paths) return 4;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (!strcmp(a, "-h") || !strcmp(a, "--help")) { help(); goto done; }
    if (!strcmp(a, "--summary")) { flags &= ~SC_REPORT_ROWS; continue; }
    if (!strcmp(a, "--timings")) { flags |= SC_REPORT_TIMINGS; continue; }
    if (!strcmp(a, "--engine")) {
      if ((event = engine_event(i + 1 < argc ? argv[++i] : NULL)) < 0) {
        rc = 2;
        goto done;
      }
      continue;
    }
    if (!strcmp(a, "--html")) {
      if (i + 1 >= argc) {
        fprintf(stderr, "stepcast validate: --html expects a file name ('-': standard output)\n");
        rc = 2;
        goto done;
      }
      html = argv[++i];
      continue;
    }
    if (!strcmp(a, "--format")) {
      int f = cli_format("validate", i + 1 < argc ? argv[++i] : NULL, 1);
      if (f < 0) {
        rc = 2;
        goto done;
      }
      fmt = (sc_format)f;
      continue;
    }
    if (!strcmp(a, "--ops")) {
      fprintf(stderr, "stepcast validate: --ops goes with --row ID FILE.csv (one row's operators)\n");
      rc = 2;
      goto done;
    }
    if (!strcmp(a, "--row")) { /* the --row ID FILE form above needs both */
      fprintf(stderr, "stepcast validate: --row expects a row ID and the FILE.csv that holds it\n");
      rc = 2;
      goto done;
    }
    if (a[0] == '-' && a[1]) {
      rc = cli_unknown_option("validate", a);
      goto done;
    }
    paths[n++] = a;
  }
  if (n == 0) {
    size_t strip = 0;
    if ((rc = shipped_sets(&g, &strip))) goto done;
    rc = run_sets((const char *const *)g.gl_pathv, (int)g.gl_pathc, strip, fmt, flags, html,
                  event);
  } else {
    rc = run_sets(paths, n, 0, fmt, flags, html, event);
  }
done:
  globfree(&g);
  free(paths);
  return rc;
}
