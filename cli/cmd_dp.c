/*
 * cmd_dp.c -- `stepcast dp [SCENARIO.json] [options]`: every data-parallel
 * scheme that applies to the job, side by side, fastest first; and the
 * data-parallel path of `stepcast predict` (a scenario with dp.scheme,
 * or `predict --schemes`).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "scenario_args.h"
#include "search_limits.h"
#include "stepcast.h"

/* The comparison reads any scenario's model, cluster and batch and runs a
 * whole replica on every GPU: say on stderr which of the plan's degrees
 * it leaves aside (they were dropped in silence). */
static void note_unused_plan(const char *cmd, const sc_plan *p) {
  char b[320] = "";
  int n = 0;
  const char *key[] = {"tp", "pp", "cp", "ep", "zero"};
  int v[] = {p->tp, p->pp, p->cp, p->ep, p->zero}, none[] = {1, 1, 1, 1, 0};
  for (int k = 0; k < 5; k++)
    if (v[k] > none[k] && n >= 0 && n < (int)sizeof b)
      n += snprintf(b + n, sizeof b - (size_t)n, "%splan.%s %d", n ? ", " : "", key[k], v[k]);
  const char *with[] = {"plan.pp_first_layers", "plan.pp_last_layers", "plan.pp_layout",
                        "plan.overrides", "plan.moe_dispatcher flex"};
  int set[] = {p->pp_first_layers > 0, p->pp_last_layers > 0, p->n_pp_layout > 0,
               p->n_overrides > 0, p->moe_dispatcher == SC_MOE_FLEX};
  for (int k = 0; k < 5; k++)
    if (set[k] && n >= 0 && n < (int)sizeof b)
      n += snprintf(b + n, sizeof b - (size_t)n, "%s%s", n ? ", " : "", with[k]);
  if (n > 0)
    fprintf(stderr, "stepcast %s: note: %s not used: every GPU holds a whole replica "
                    "(data parallelism over cluster.gpus)\n", cmd, b);
}

int cli_dp_report(const char *cmd, const sc_scenario *s, sc_format fmt, int compare,
                  const double headroom[2]) {
  sc_dp_result r[32];
  sc_error err = {0};
  int n = 1, rc = SC_OK;
  if (compare) {
    note_unused_plan(cmd, &s->plan);
    n = sc_dp_compare(s, r, 32, &err);
    if (n < 0) rc = -n;
  } else {
    rc = sc_dp_predict(s, r, &err);
  }
  if (rc != SC_OK) {
    fprintf(stderr, "stepcast %s: %s\n", cmd, err.msg);
    return cli_exit_code(rc);
  }
  for (int k = 0; headroom && k < n; k++) search_limits_fit(&r[k].mem, headroom[0], headroom[1]);
  sc_report_dp(stdout, fmt, s, r, n);
  return 0;
}

int cli_dp_trace(const char *cmd, const sc_scenario *s, const char *path) {
  sc_span *spans = NULL;
  size_t n = 0;
  double step = 0;
  sc_error err = {0};
  int rc = sc_dp_timeline(s, &spans, &n, &step, &err);
  if (rc != SC_OK) {
    fprintf(stderr, "stepcast %s: %s\n", cmd, err.msg);
    return cli_exit_code(rc);
  }
  FILE *f = cli_open_out(cmd, path);
  if (!f) {
    free(spans);
    return 3;
  }
  sc_report_trace(f, s, spans, n);
  free(spans);
  return cli_close_out(cmd, path, f);
}

/* Plan flags that `dp` takes no value from: every GPU holds a whole
 * replica (tp = pp = cp = ep = 1, no ZeRO or sequence parallelism, one
 * 1F1B stage: src/dp/predict.c dp_single), and dp is cluster.gpus. */
static const char *const dp_ignored[] = {"SCENARIO.json", /* help: dp says its own default */
                                         "--tp", "--pp", "--dp", "--cp", "--ep", "--vpp",
                                         "--sp", "--zero", "--schedule", NULL};

static int dp_refused(const char *arg) {
  for (int k = 1; dp_ignored[k]; k++)
    if (!strcmp(arg, dp_ignored[k])) {
      fprintf(stderr, "stepcast dp: %s does not apply: every GPU holds a whole replica "
                      "(data parallelism over cluster.gpus; valid plan flags: --mb, --gb, "
                      "--recompute, --dtype)\n", arg);
      return 1;
    }
  return 0;
}

static void help(void) {
  printf("usage: stepcast dp [SCENARIO.json] [options]\n\n"
         "Predict every data-parallel scheme that applies to the job (parameter servers,\n"
         "all-reduce, gossip; docs/input.md \"dp\") and list them fastest first: time per\n"
         "step, samples/s, scaling efficiency, exposed communication. The plan's batch is\n"
         "split evenly over cluster.gpus; dp.* keys set the transport, PS shards, graph.\n"
         "Without a file: ResNet-50 on 16 V100 (two servers) over 25 GbE, 64 per GPU.\n\n"
         "  SCENARIO.json         the job (default: the ResNet-50 job above)\n");
  scen_args_help(dp_ignored);
  printf("  --headroom X          memory kept free on every GPU: GiB (4), or a fraction of\n"
         "                        its memory (0.1 or 10%%); a scheme fits (JSON \"fits\")\n"
         "                        when its total is at most the capacity less the headroom\n");
  printf("\nExit codes (docs/output.md): 0 ok, 2 bad input, 3 I/O error, 4 out of memory.\n");
}

int cmd_dp(int argc, char **argv) {
  scen_args sa;
  if (scen_args_init(&sa, argc)) return 3;
  /* the plan's parallel degrees do not apply: every GPU is a replica */
  sa.load_flags = SC_LOAD_PLAN_UNCHECKED;
  sa.base = sc_dp_default_scenario();
  int rc = 0;
  double headroom[2] = {0, 0}; /* --headroom: bytes, fraction */
  for (int i = 1; i < argc && !rc; i++) {
    if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
      help();
      rc = -1;
      break;
    }
    if (!strcmp(argv[i], "--headroom")) {
      int need = i + 1 < argc;
      rc = search_limits_headroom("dp", need ? argv[++i] : "", &headroom[0], &headroom[1]);
      continue;
    }
    if (dp_refused(argv[i])) {
      rc = 2;
      break;
    }
    rc = scen_args_take_last(&sa, "dp", argc, argv, &i);
  }
  sc_scenario s;
  if (!rc) rc = scen_args_load(&sa, "dp", &s);
  if (!rc) rc = cli_dp_report("dp", &s, sa.fmt, 1, headroom);
  scen_args_free(&sa);
  return rc < 0 ? 0 : rc;
}
