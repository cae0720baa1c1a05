/*
 * cmd_search.c -- `stepcast search [SCENARIO.json] [options]`: the fastest
 * plans that fit, for the scenario's model, cluster and global batch.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "scenario_args.h"
#include "stepcast.h"

static void help(void) {
  printf("usage: stepcast search [SCENARIO.json] [options]\n\n"
         "Walk the parallel plans of the scenario's model, cluster, global batch and\n"
         "dtype (tp, pp, dp, cp for long sequences, ep for MoE, micro-batch, 1F1B or\n"
         "interleaved, ZeRO 1 or 3, recompute) and list the fastest that fit.\n\n");
  scen_args_help();
  printf("  --top N               how many plans to list (default 10, at most 1000)\n"
         "  --max-tp N, --max-pp N, --max-mb N, --max-vpp N   bounds of the space\n"
         "  --all                 also list plans that do not fit in memory\n"
         "  --html FILE           HTML report: time against memory of the plans, Pareto\n"
         "                        front, the chosen plan marked; '-': standard output\n\n"
         "Exit codes (docs/output.md): 0 ok, 1 no plan fits, 2 bad input, 3 I/O error,\n"
         "4 out of memory.\n");
}

/* Parse a positive integer option value; 0 on error (message printed). */
static int positive(const char *opt, const char *v, int max) {
  char *end = NULL;
  long x = v ? strtol(v, &end, 10) : 0;
  if (!v || *end || x < 1 || x > max) {
    fprintf(stderr, "stepcast search: %s expects an integer 1..%d, got '%s'\n", opt, max,
            v ? v : "");
    return 0;
  }
  return (int)x;
}

int cmd_search(int argc, char **argv) {
  scen_args sa;
  if (scen_args_init(&sa, argc)) return 3;
  /* the search chooses the plan: the scenario's own plan is not checked
   * (a plan written for another cluster size must not stand in the way);
   * its batch, dtype and switches are what the search keeps */
  sa.load_flags = SC_LOAD_PLAN_UNCHECKED;
  sc_search_opts o = {0, 0, 0, 0, 1};
  int top = 10, rc = 0;
  const char *html = NULL; /* --html FILE (cli/html_out.c) */
  for (int i = 1; i < argc && !rc; i++) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    int *dst = !strcmp(a, "--top")      ? &top
               : !strcmp(a, "--max-tp") ? &o.max_tp
               : !strcmp(a, "--max-pp") ? &o.max_pp
               : !strcmp(a, "--max-mb") ? &o.max_micro_batch
               : !strcmp(a, "--max-vpp") ? &o.max_vpp
                                         : NULL;
    if (!strcmp(a, "-h") || !strcmp(a, "--help")) { help(); rc = -1; break; }
    if (!strcmp(a, "--all")) { o.require_fit = 0; continue; }
    if (!strcmp(a, "--html") && v) { html = argv[++i]; continue; }
    if (dst) {
      if (!(*dst = positive(a, v, a[2] == 't' && a[3] == 'o' ? 1000 : 4096))) rc = 2;
      i++;
      continue;
    }
    int took = scen_args_take(&sa, "search", argc, argv, &i);
    if (took == 1) continue;
    if (took == 2) { rc = 2; break; }
    fprintf(stderr, "stepcast search: unknown option '%s' (see stepcast search --help)\n", a);
    rc = 2;
  }
  sc_scenario s;
  if (!rc) rc = scen_args_load(&sa, "search", &s);
  if (!rc) {
    sc_candidate *best = malloc(sizeof *best * (size_t)top);
    sc_search_stats st;
    sc_error err = {0};
    int n = 0;
    if (!best) rc = 4;
    else if ((rc = sc_search(&s, &o, best, top, &n, &st, &err)) != SC_OK) {
      fprintf(stderr, "stepcast search: %s\n", err.msg);
      rc = cli_exit_code(rc);
    } else {
      if (!cli_is_stdout(html)) sc_report_search(stdout, sa.fmt, &s, best, n, &st);
      if (html) rc = cli_search_html(html, &s, &o, n ? best : NULL);
      if (!rc && n == 0) rc = 1;
    }
    free(best);
  }
  scen_args_free(&sa);
  return rc < 0 ? 0 : rc;
}
