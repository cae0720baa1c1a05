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
#include "search_limits.h"
#include "stepcast.h"

static void help(void) {
  printf("usage: stepcast predict [SCENARIO.json] [options]\n\n"
         "Predict one training step. Without a scenario file the built-in default\n"
         "(GPT-3 175B on 1,024 A100 80 GB) is used; options override any key.\n\n");
  scen_args_help(NULL);
  printf("  --schemes             data-parallel: every scheme that applies, fastest first\n"
         "                        (the same as `stepcast dp`; a scenario with dp.scheme\n"
         "                        predicts that scheme alone)\n"
         "  --require-fit         exit 1 when the plan does not fit in memory\n"
         "  --headroom X          memory kept free on every GPU: GiB (4), or a fraction of\n"
         "                        its memory (0.1 or 10%%); the plan fits when its total\n"
         "                        is at most the capacity less the headroom, as in search\n"
         "  --ops                 also list the operators of one layer with their times, and\n"
         "                        the whole step by operator kind\n"
         "  --train-tokens N      also print the days to train on N tokens (e.g. 15e12)\n"
         "  --trace FILE          write the step's timeline as Chrome trace JSON (Perfetto);\n"
         "                        '-' writes it to standard output instead of the report\n"
         "  --engine NAME         closed (the closed form, default) or event (the event\n"
         "                        engine: streams, pipeline, critical path; docs/event.md)\n"
         "  --html FILE           write a self-contained HTML report (breakdown, timeline,\n"
         "                        memory; docs/report.md); '-': standard output\n\n"
         "Exit codes (docs/output.md): 0 ok, 1 does not fit (with --require-fit), 2 bad\n"
         "input, 3 I/O error, 4 out of memory.\n");
}

/* Lay out the step (before anything is printed, so that a timeline too
 * large leaves no half-written output); the exit code. */
static int layout(const sc_scenario *s, sc_span **spans, size_t *n, double *step) {
  sc_error err = {0};
  int rc = sc_timeline(s, spans, n, step, &err);
  if (rc != SC_OK) fprintf(stderr, "stepcast predict: %s\n", err.msg);
  return cli_exit_code(rc);
}

/* Write the step's spans as a Chrome trace to `trace` and as an HTML
 * report to `html` (either may be NULL; "-": standard output); returns
 * the exit code. */
static int write_files(const char *trace, const char *html, const sc_scenario *s,
                       const sc_result *r, const sc_span *spans, size_t n, double step,
                       double train_tokens) {
  int rc = 0;
  for (int k = 0; k < 2 && !rc; k++) {
    const char *path = k ? html : trace;
    if (!path) continue;
    FILE *f = cli_open_out("predict", path);
    if (!f) {
      rc = 3;
      break;
    }
    if (k) sc_html_prediction_ex(f, s, r, spans, n, train_tokens);
    else sc_report_trace_step(f, s, spans, n, r->step_s);
    rc = cli_close_out("predict", path, f);
    if (!rc && isatty(fileno(stderr)) && !cli_is_stdout(path))
      fprintf(stderr, "stepcast: wrote %s of a %.3f s step (%zu spans) to %s\n",
              k ? "an HTML report" : "the trace", step, n, path);
  }
  return rc;
}

/* The prediction of s in fmt to standard output (with the operators of
 * one layer when show_ops); the exit code. */
static int report(const sc_scenario *s, const sc_result *r, sc_format fmt, int show_ops,
                  double train_tokens) {
  sc_op_time ops[64], kinds[16];
  int n = 0, nk = 0;
  if (show_ops) {
    sc_error err = {0};
    n = sc_explain_layer(s, ops, 64, &err);
    if (n >= 0) nk = sc_explain_kinds(s, kinds, 16, &err);
    if (n < 0 || nk < 0) {
      fprintf(stderr, "stepcast predict: %s\n", err.msg);
      return cli_exit_code(n < 0 ? -n : -nk);
    }
  }
  sc_report_prediction_kinds(stdout, fmt, s, r, train_tokens, show_ops ? ops : NULL, n,
                             show_ops ? kinds : NULL, nk);
  return 0;
}

/* `predict --engine event`: the event engine's prediction with its
 * critical path, and its trace; the exit code. */
static int predict_event(const sc_scenario *s, sc_format fmt, const char *trace,
                         int require_fit, const double headroom[2]) {
  sc_event_opts eo = {1, trace != NULL};
  sc_event_pred *p = NULL;
  sc_result r;
  sc_error err = {0};
  int rc = sc_predict_event(s, &eo, &r, &p, &err);
  if (rc != SC_OK) {
    fprintf(stderr, "stepcast predict: %s\n", err.msg);
    return cli_exit_code(rc);
  }
  search_limits_fit(&r.mem, headroom[0], headroom[1]);
  if (!cli_is_stdout(trace)) sc_report_event(stdout, fmt, s, &r, p);
  if (trace) {
    FILE *f = cli_open_out("predict", trace);
    if (f) sc_report_event_trace(f, s, p);
    rc = f ? cli_close_out("predict", trace, f) : 3;
  }
  sc_event_pred_free(p);
  if (!rc && require_fit && !r.mem.fits) rc = 1;
  return rc;
}

int cmd_predict(int argc, char **argv) {
  scen_args sa;
  if (scen_args_init(&sa, argc)) return 3;
  int require_fit = 0, show_ops = 0, schemes = 0, rc = 0;
  double train_tokens = 0, headroom[2] = {0, 0}; /* --headroom: bytes, fraction */
  const char *trace = NULL, *html = NULL;
  int event = 0;
  for (int i = 1; i < argc && !rc; i++) {
    const char *a = argv[i];
    int need = i + 1 < argc;
    if (!strcmp(a, "--engine")) {
      if (need && (!strcmp(argv[i + 1], "event") || !strcmp(argv[i + 1], "closed"))) {
        event = !strcmp(argv[++i], "event");
        continue;
      }
      fprintf(stderr, "stepcast predict: --engine expects 'closed' or 'event'\n");
      rc = 2;
      break;
    }
    if (!strcmp(a, "-h") || !strcmp(a, "--help")) { help(); rc = -1; break; }
    if (!strcmp(a, "--require-fit")) { require_fit = 1; continue; }
    if (!strcmp(a, "--ops")) { show_ops = 1; continue; }
    if (!strcmp(a, "--schemes")) { schemes = 1; continue; }
    if (!strcmp(a, "--headroom")) {
      rc = search_limits_headroom("predict", need ? argv[++i] : "", &headroom[0], &headroom[1]);
      continue;
    }
    if (!strcmp(a, "--train-tokens")) {
      char *end = NULL;
      train_tokens = need ? strtod(argv[i + 1], &end) : 0;
      if (!need || !end || *end || !(train_tokens >= 1 && train_tokens <= 1e18)) {
        fprintf(stderr, "stepcast predict: --train-tokens expects a number of tokens in "
                        "1..1e18, e.g. 15e12, got '%s'\n", need ? argv[i + 1] : "");
        rc = 2;
        break;
      }
      i++;
      continue;
    }
    if (!strcmp(a, "--trace") || !strcmp(a, "--html")) {
      if (!need) {
        fprintf(stderr, "stepcast predict: %s expects a file name ('-': standard output)\n", a);
        rc = 2;
        break;
      }
      *(a[2] == 't' ? &trace : &html) = argv[++i];
      continue;
    }
    rc = scen_args_take_last(&sa, "predict", argc, argv, &i);
  }
  if (!rc) rc = cli_one_stdout("predict", trace, html);
  sc_scenario s;
  if (!rc) rc = scen_args_load(&sa, "predict", &s);
  if (!rc && event && (html || show_ops || train_tokens > 0 || schemes || s.dp.scheme[0])) {
    fprintf(stderr, "stepcast predict: --engine event writes the table, JSON or CSV and "
                    "--trace; --html, --ops, --train-tokens and data-parallel schemes go with the "
                    "closed form\n");
    rc = 2;
  } else if (!rc && event) {
    rc = predict_event(&s, sa.fmt, trace, require_fit, headroom);
    scen_args_free(&sa);
    return rc;
  }
  if (!rc && (schemes || s.dp.scheme[0])) {
    if (html || show_ops || (trace && schemes)) {
      fprintf(stderr, "stepcast predict: --html and --ops are not available for a "
                      "data-parallel scenario, --trace only for one scheme (dp.scheme)\n");
      rc = 2;
    } else {
      if (!cli_is_stdout(trace)) rc = cli_dp_report("predict", &s, sa.fmt, schemes, headroom);
      if (!rc && trace) rc = cli_dp_trace("predict", &s, trace);
    }
  } else if (!rc) {
    sc_result r;
    sc_error err = {0};
    if (s.cluster.straggler_slowdown > 0)
      fprintf(stderr, "stepcast predict: note: cluster.straggler_slowdown is a what-if of "
                      "--engine event (docs/event.md); the closed form does not model it\n");
    int prc = sc_predict(&s, &r, &err);
    if (prc != SC_OK) {
      fprintf(stderr, "stepcast predict: %s\n", err.msg);
      rc = cli_exit_code(prc);
    } else {
      search_limits_fit(&r.mem, headroom[0], headroom[1]);
      /* a file named "-" takes standard output in place of the report:
       * one document per invocation */
      sc_span *spans = NULL;
      size_t n = 0;
      double step = 0;
      if (trace || html) rc = layout(&s, &spans, &n, &step);
      if (!rc && !cli_is_stdout(trace) && !cli_is_stdout(html))
        rc = report(&s, &r, sa.fmt, show_ops, train_tokens);
      if (!rc && (trace || html)) rc = write_files(trace, html, &s, &r, spans, n, step, train_tokens);
      free(spans);
      if (!rc && require_fit && !r.mem.fits) rc = 1;
    }
  }
  scen_args_free(&sa);
  return rc < 0 ? 0 : rc;
}
