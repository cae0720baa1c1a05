/*
 * cmd_predict.c -- `stepcast predict [SCENARIO.json] [options]`.
 *
 * Options become key-path overrides applied to the scenario JSON before
 * it is checked, so `--tp 8` and `--set plan.tp=8` are the same thing.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "scenario_args.h"
#include "stepcast.h"

static void help(void) {
  printf("usage: stepcast predict [SCENARIO.json] [options]\n\n"
         "Predict one training step. Without a scenario file the built-in default\n"
         "(GPT-3 175B on 1,024 A100 80 GB) is used; options override any key.\n\n");
  scen_args_help();
  printf("  --require-fit         exit 1 when the plan does not fit in memory\n"
         "  --ops                 also list the operators of one layer with their times\n"
         "  --train-tokens N      also print the days to train on N tokens (e.g. 15e12)\n"
         "  --trace FILE          write the step's timeline as Chrome trace JSON (Perfetto)\n\n"
         "Exit codes: 0 ok, 1 does not fit (with --require-fit), 2 bad input, 3 I/O error.\n");
}

/* Lay out the step and write it to path; returns the exit code. */
static int write_trace(const char *path, const sc_scenario *s) {
  sc_span *spans = NULL;
  size_t n = 0;
  double step = 0;
  sc_error err = {0};
  if (sc_timeline(s, &spans, &n, &step, &err) != SC_OK) {
    fprintf(stderr, "stepcast predict: %s\n", err.msg);
    return 2;
  }
  FILE *f = fopen(path, "w");
  if (!f) {
    fprintf(stderr, "stepcast predict: cannot write %s\n", path);
    free(spans);
    return 3;
  }
  sc_report_trace(f, s, spans, n);
  int bad = fclose(f) != 0;
  free(spans);
  if (bad) {
    fprintf(stderr, "stepcast predict: cannot write %s\n", path);
    return 3;
  }
  if (isatty(fileno(stderr)))
    fprintf(stderr, "stepcast: wrote %zu spans of a %.3f s step to %s\n", n, step, path);
  return 0;
}

int cmd_predict(int argc, char **argv) {
  scen_args sa;
  if (scen_args_init(&sa, argc)) return 3;
  int require_fit = 0, show_ops = 0, rc = 0;
  double train_tokens = 0;
  const char *trace = NULL;
  for (int i = 1; i < argc && !rc; i++) {
    const char *a = argv[i];
    int need = i + 1 < argc;
    if (!strcmp(a, "-h") || !strcmp(a, "--help")) { help(); rc = -1; break; }
    if (!strcmp(a, "--require-fit")) { require_fit = 1; continue; }
    if (!strcmp(a, "--ops")) { show_ops = 1; continue; }
    if (!strcmp(a, "--train-tokens")) {
      char *end = NULL;
      train_tokens = need ? strtod(argv[i + 1], &end) : 0;
      if (!need || !end || *end || !(train_tokens > 0)) {
        fprintf(stderr, "stepcast predict: --train-tokens expects a positive number, e.g. 15e12\n");
        rc = 2;
        break;
      }
      i++;
      continue;
    }
    if (!strcmp(a, "--trace")) {
      if (!need) {
        fprintf(stderr, "stepcast predict: --trace expects a file name (Chrome trace JSON)\n");
        rc = 2;
        break;
      }
      trace = argv[++i];
      continue;
    }
    int took = scen_args_take(&sa, "predict", argc, argv, &i);
    if (took == 1) continue;
    if (took == 2) { rc = 2; break; }
    fprintf(stderr, "stepcast predict: unknown option '%s' (see stepcast predict --help)\n", a);
    rc = 2;
  }
  sc_scenario s;
  if (!rc) rc = scen_args_load(&sa, "predict", &s);
  if (!rc) {
    sc_result r;
    sc_error err = {0};
    if (sc_predict(&s, &r, &err) != SC_OK) {
      fprintf(stderr, "stepcast predict: %s\n", err.msg);
      rc = err.code == SC_EIO ? 3 : 2;
    } else {
      sc_report_prediction(stdout, sa.fmt, &s, &r, train_tokens);
      if (show_ops) {
        sc_op_time ops[64];
        int n = sc_explain_layer(&s, ops, 64, &err);
        if (n > 0) sc_report_layer_ops(stdout, sa.fmt, ops, n);
      }
      if (trace) rc = write_trace(trace, &s);
      if (!rc && require_fit && !r.mem.fits) rc = 1;
    }
  }
  scen_args_free(&sa);
  return rc < 0 ? 0 : rc;
}
