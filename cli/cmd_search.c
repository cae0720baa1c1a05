/*
 * cmd_search.c -- `stepcast search [SCENARIO.json] [options]`: the fastest
 * plans that fit, for the scenario's model, cluster and global batch.
 *
 * Ctrl-C stops the search through its progress callback (the library
 * never sees a signal): the best plans so far are printed and the exit
 * code is 130. Progress goes to stderr when it is a terminal and the
 * search has run for a second.
 *
 * The search runs on a searcher opened before the scenario is read, so
 * that its helper threads have started and parked by the time the search
 * wakes them (a thread created when the search starts can wait
 * milliseconds for a core: docs/search.md, "Threads: a pool kept between
 * searches").
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "interrupt.h"
#include "scenario_args.h"
#include "search_limits.h"
#include "stepcast.h"

static void help(void) {
  printf("usage: stepcast search [SCENARIO.json] [options]\n\n"
         "Walk the parallel plans of the scenario's model, cluster, global batch and\n"
         "dtype (tp, pp with uneven stages, dp, cp for long sequences, ep and etp for\n"
         "MoE, micro-batch, 1F1B or interleaved, ZeRO 0-3 and HSDP, recompute, partial\n"
         "recompute, offload) and list the fastest that fit\n"
         "(docs/search.md).\n\n");
  /* the flags the command takes itself and those of swept dimensions */
  static const char *const except[] = {"--tp",   "--pp",     "--dp",       "--cp",  "--ep",
                                       "--zero", "--dtypes", "--headroom", "--mb",  "--vpp",
                                       "--sp",   "--schedule", "--recompute", NULL};
  scen_args_help(except);
  printf("  (--schedule and --sp are refused: the schedule follows vpp, and plans run\n"
         "  sequence parallelism wherever tp > 1)\n"
         "  --top N               how many plans to list (default 10, at most 1000)\n"
         "  --max-tp N, --max-pp N, --max-mb N, --max-vpp N   bounds of the space\n"
         "  --all                 also list plans that do not fit in memory\n");
  search_limits_help();
  printf(
         "  --no-rerank           list the plans in the closed form's order; by default the\n"
         "                        closed form's top N are re-run by the event engine and\n"
         "                        listed in its order (docs/event.md; --rerank: the default)\n"
         "  --threads N           threads (default: every core; same result for any N)\n"
         "  --max-plans N         search only the first N plans of the space\n"
         "  --max-seconds S       stop after S seconds with the best so far\n"
         "  --html FILE           HTML report: time against memory of the plans, Pareto\n"
         "                        front, the chosen plan marked; '-': standard output\n\n"
         "Exit codes (docs/output.md): 0 ok, 1 no plan fits (the closest is shown),\n"
         "2 bad input, 3 I/O error, 4 out of memory, 130 interrupted (Ctrl-C; the best\n"
         "so far is shown).\n");
}

/* Parse --top's value, 1..1000, into *top; 0 on error (message printed in
 * the library's format, as for the other options). */
static int parse_top(const char *v, int *top) {
  char *end = NULL;
  long x = strtol(v, &end, 10);
  if (end == v || *end || x < 1 || x > 1000) {
    fprintf(stderr, "stepcast search: --top: expected an integer 1..1000, got '%s'\n", v);
    return 0;
  }
  *top = (int)x;
  return 1;
}

/* The search's progress callback: a line on stderr (a terminal, after a
 * second), and stop on Ctrl-C. */
static int progress(void *ctx, long done, long total, double secs) {
  if (*(int *)ctx && secs >= 1.0)
    fprintf(stderr, "\rsearch: %ld of %ld plans, %.1f s", done, total, secs);
  return interrupt_seen();
}

/* Plan flags of the shared scenario arguments whose dimension the search
 * sets itself (src/search/space.c) and cannot be fixed: a value given
 * would be dropped, so each is refused with the option that does the
 * job, as `dp` refuses the degrees it does not use. (--mb, --vpp and
 * --recompute fix their dimension: search_limits.c.) */
static const struct {
  const char *flag, *why;
} swept[] = {
    {"--schedule", "the schedule follows vpp (interleaved when vpp > 1): --vpp 1 keeps 1F1B "
                   "only, --vpp N interleaves N chunks"},
    {"--sp", "searched plans run sequence parallelism wherever tp > 1 (Megatron's advice); "
             "fix tp with --tp N"},
};

static int search_refused(const char *arg) {
  for (size_t k = 0; k < sizeof swept / sizeof swept[0]; k++)
    if (!strcmp(arg, swept[k].flag)) {
      fprintf(stderr, "stepcast search: %s does not apply: %s\n", arg, swept[k].why);
      return 1;
    }
  return 0;
}

/* Parse one search option at argv[*i]: 1 taken, 0 not ours, -1 bad value. */
static int take(int argc, char **argv, int *i, sc_search_opts *o, int *top) {
  if (strcmp(argv[*i], "--top")) return search_limits_take(argc, argv, i, o);
  const char *v = ++*i < argc ? argv[*i] : "";
  return parse_top(v, top) ? 1 : -1;
}

/* Run the search of s and print it (MPI: process 0 prints); the exit
 * code. */
static int run(sc_searcher *sr, const scen_args *sa, const sc_scenario *s, sc_search_opts *o,
               int top, int rank, const char *html) {
  sc_candidate *best = malloc(sizeof *best * (size_t)top);
  sc_search_stats st;
  sc_error err = {0};
  int n = 0, rc = 0, tty = rank == 0 && isatty(STDERR_FILENO);
  if (!best) return 4;
  o->progress = progress;
  o->progress_ctx = &tty;
  struct sigaction old;
  interrupt_catch(&old);
  int src = sc_searcher_search(sr, s, o, best, top, &n, &st, &err);
  interrupt_release(&old);
  if (tty && st.seconds >= 1.0) fputc('\n', stderr);
  if (src != SC_OK) {
    if (rank == 0) fprintf(stderr, "stepcast search: %s\n", err.msg);
    rc = cli_exit_code(src);
  } else {
    search_limits_mark(best, n, &st, o);
    if (rank == 0 && !cli_is_stdout(html)) sc_report_search(stdout, sa->fmt, s, best, n, &st);
    if (rank == 0 && st.rerank_err.code && !fflush(stdout)) /* the closed form's order kept */
      fprintf(stderr, "stepcast search: note: not re-ranked: %s\n", st.rerank_err.msg);
    if (rank == 0 && sa->fmt == SC_FORMAT_CSV && st.n_reasons) /* CSV has no row to say it */
      fprintf(stderr, "stepcast search: no plan is valid: %s\n", st.reasons[0].example);
    if (rank == 0 && html) rc = cli_search_html(html, s, o, n ? best : NULL);
    if (!rc) rc = st.stopped == SC_SEARCH_INTERRUPTED ? 130 : n == 0 ? 1 : 0;
  }
  free(best);
  return rc;
}

int cmd_search(int argc, char **argv) {
  scen_args sa;
  if (scen_args_init(&sa, argc)) return 3;
  /* the search chooses the plan: the scenario's own plan is not checked
   * (a plan written for another cluster size must not stand in the way);
   * its batch, dtype and switches are what the search keeps */
  sa.load_flags = SC_LOAD_PLAN_UNCHECKED;
  sc_search_opts o;
  sc_search_opts_default(&o);
  o.rerank = 1; /* the command re-ranks its top N by the event engine (--no-rerank) */
  int top = 10, rc = 0;
  const char *html = NULL; /* --html FILE (cli/html_out.c) */
  for (int i = 1; i < argc && !rc; i++) {
    const char *a = argv[i];
    if (!strcmp(a, "--html")) {
      if (i + 1 >= argc) {
        fprintf(stderr, "stepcast search: --html expects a file name ('-': standard output)\n");
        rc = 2;
        break;
      }
      html = argv[++i];
      continue;
    }
    if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
      help();
      rc = -1;
      break;
    }
    if (search_refused(a)) {
      rc = 2;
      break;
    }
    int t = take(argc, argv, &i, &o, &top);
    if (t == 1) continue;
    if (t < 0) {
      rc = 2;
      break;
    }
    rc = scen_args_take_last(&sa, "search", argc, argv, &i);
  }
  sc_searcher *sr = NULL;
  sc_error err = {0};
  if (!rc && sc_searcher_open(o.threads, &sr, &err) != SC_OK) {
    fprintf(stderr, "stepcast search: %s\n", err.msg);
    rc = 4;
  }
  sc_scenario s;
  if (!rc) rc = scen_args_load(&sa, "search", &s);
  if (!rc && s.dp.scheme[0]) /* searched as any plan: the scheme was dropped in silence */
    fprintf(stderr, "stepcast search: note: dp.scheme %s is not searched: plans are costed as "
                    "tp/pp/dp plans with NCCL's data-parallel reduction (`stepcast dp` compares "
                    "the schemes)\n", s.dp.scheme);
  if (!rc) {
    /* under mpirun (a build with SC_MPI) the processes share the space */
    int rank = sc_mpi_init(&argc, &argv);
    rc = rank < 0 ? 3 : run(sr, &sa, &s, &o, top, rank, html);
    sc_mpi_finalize();
  }
  sc_searcher_close(sr);
  scen_args_free(&sa);
  return rc < 0 ? 0 : rc;
}
