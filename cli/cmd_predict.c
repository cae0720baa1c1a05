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
#include "io/report.h"
#include "stepcast.h"

/* Short flags and the key path each one sets. */
typedef struct flag { const char *flag; const char *path; } flag;
static const flag flags[] = {
    {"-m", "model"},           {"--model", "model"},
    {"-g", "cluster.gpu"},     {"--gpu", "cluster.gpu"},
    {"-n", "cluster.gpus"},    {"--gpus", "cluster.gpus"},
    {"--nodes", "cluster.nodes"},
    {"--nic-gbps", "cluster.nic_Gbps"},
    {"--tp", "plan.tp"},       {"--pp", "plan.pp"},   {"--dp", "plan.dp"},
    {"--cp", "plan.cp"},       {"--ep", "plan.ep"},   {"--vpp", "plan.vpp"},
    {"--sp", "plan.sp"},       {"--zero", "plan.zero"},
    {"--mb", "plan.micro_batch"}, {"--gb", "plan.global_batch"},
    {"--schedule", "plan.schedule"}, {"--recompute", "plan.recompute"},
    {"--dtype", "plan.dtype"}, {"--seq", "model.seq"},
};
#define N_FLAGS (sizeof flags / sizeof flags[0])

static void help(void) {
  printf("usage: stepcast predict [SCENARIO.json] [options]\n\n"
         "Predict one training step. Without a scenario file the built-in default\n"
         "(GPT-3 175B on 1,024 A100 80 GB) is used; options override any key.\n\n"
         "  --set KEY=VALUE       set a key path, e.g. --set plan.tp=8 (repeatable)\n");
  for (size_t i = 0; i < N_FLAGS; i++)
    printf("  %-20s  same as --set %s=VALUE\n", flags[i].flag, flags[i].path);
  printf("  --format table|json|csv   output format (default table)\n"
         "  --require-fit         exit 1 when the plan does not fit in memory\n"
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
  rep_chrome_trace(f, s, spans, n);
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
  const char *file = NULL;
  rep_format fmt = REP_TABLE;
  int require_fit = 0, show_ops = 0;
  double train_tokens = 0;
  const char *trace = NULL;
  char **ov = calloc((size_t)argc + 1, sizeof *ov); /* owned strings */
  size_t n_ov = 0;
  int rc = 0;
  for (int i = 1; i < argc && !rc; i++) {
    const char *a = argv[i];
    if (!strcmp(a, "-h") || !strcmp(a, "--help")) { help(); rc = -1; break; }
    if (!strcmp(a, "--require-fit")) { require_fit = 1; continue; }
    if (!strcmp(a, "--ops")) { show_ops = 1; continue; }
    int need = i + 1 < argc;
    if (!strcmp(a, "--format")) {
      int f = need ? rep_format_from(argv[i + 1]) : -1;
      if (f < 0) {
        fprintf(stderr, "stepcast predict: --format expects table, json or csv\n");
        rc = 2;
        break;
      }
      fmt = (rep_format)f;
      i++;
      continue;
    }
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
    if (!strcmp(a, "--set")) {
      if (!need || !strchr(argv[i + 1], '=')) {
        fprintf(stderr, "stepcast predict: --set expects KEY=VALUE, e.g. --set plan.tp=8\n");
        rc = 2;
        break;
      }
      ov[n_ov++] = strdup(argv[++i]);
      continue;
    }
    size_t k;
    for (k = 0; k < N_FLAGS; k++)
      if (!strcmp(a, flags[k].flag)) break;
    if (k < N_FLAGS) {
      if (!need) {
        fprintf(stderr, "stepcast predict: %s expects a value (sets %s)\n", a, flags[k].path);
        rc = 2;
        break;
      }
      size_t len = strlen(flags[k].path) + strlen(argv[i + 1]) + 2;
      ov[n_ov] = malloc(len);
      snprintf(ov[n_ov++], len, "%s=%s", flags[k].path, argv[++i]);
      continue;
    }
    if (a[0] == '-') {
      fprintf(stderr, "stepcast predict: unknown option '%s' (see stepcast predict --help)\n", a);
      rc = 2;
      break;
    }
    if (file) {
      fprintf(stderr, "stepcast predict: one scenario file only (got '%s' and '%s')\n", file, a);
      rc = 2;
      break;
    }
    file = a;
  }
  if (!rc) {
    sc_scenario s;
    sc_result r;
    sc_error err = {0};
    int lrc = file ? sc_scenario_load_file(&s, file, (const char *const *)ov, n_ov, &err)
                   : sc_scenario_load_string(&s, "{}", "<default scenario>",
                                             (const char *const *)ov, n_ov, &err);
    if (lrc == SC_OK) lrc = sc_predict(&s, &r, &err);
    if (lrc != SC_OK) {
      fprintf(stderr, "stepcast predict: %s\n", err.msg);
      rc = lrc == SC_EIO ? 3 : 2;
    } else {
      rep_prediction(stdout, fmt, &s, &r, train_tokens);
      if (show_ops) {
        sc_op_time ops[64];
        int n = sc_explain_layer(&s, ops, 64, &err);
        if (n > 0) rep_layer_ops(stdout, fmt, ops, n);
      }
      if (trace) rc = write_trace(trace, &s);
      if (!rc && require_fit && !r.mem.fits) rc = 1;
    }
  }
  for (size_t i = 0; i < n_ov; i++) free(ov[i]);
  free(ov);
  return rc < 0 ? 0 : rc;
}
