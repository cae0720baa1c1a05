/*
 * cmd_recsys.c -- `stepcast recsys predict|plan|row`: recommendation
 * models, the iteration time of a sharding of their embedding tables and
 * the planner that searches for the fastest (docs/recsys.md).
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "interrupt.h"
#include "search_limits.h"
#include "stepcast_recsys.h"

int cmd_recsys(int argc, char **argv);

static void help(FILE *out) {
  fprintf(out, "usage: stepcast recsys predict JOB.json [--sharding KIND] [--format table|json|csv]\n"
         "                                       [--trace FILE] [--set KEY=VALUE]\n"
         "       stepcast recsys plan JOB.json [--top K] [--max-seconds S] [--max-evals N]\n"
         "                                    [--headroom X] [--format table|json|csv]\n"
         "                                    [--trace FILE] [--set KEY=VALUE]\n"
         "       stepcast recsys row FILE.csv ID [--format table|json|csv]\n\n"
         "Recommendation models (DLRM, DCNv2, Wide&Deep, synthetic) with embedding tables\n"
         "sharded over GPUs (docs/recsys.md; the JOB.json format is in docs/input.md).\n\n"
         "  predict   time per iteration, its breakdown and memory per GPU of the job's\n"
         "            sharding (or --sharding KIND for every table: data_parallel,\n"
         "            table_wise, table_wise+split, row_wise, column_wise, table_row_wise);\n"
         "            --trace FILE writes the iteration as Chrome trace JSON (Perfetto), a\n"
         "            process per GPU ('-': standard output, in place of the report); of\n"
         "            the planner's best plan when the job gives no sharding\n"
         "  plan      the fastest shardings that fit, with per-GPU load and why (--top K,\n"
         "            1..16, default 5); --max-seconds S or --max-evals N stop its local\n"
         "            search early with the best so far (said in the output); progress\n"
         "            goes to stderr when it is a terminal, Ctrl-C stops it too;\n"
         "            --headroom X keeps memory free on every GPU: GiB (4), or a fraction\n"
         "            of its memory (0.1 or 10%%)\n"
         "  row       predict one row of a recommendation measurement set\n\n"
         "  --set KEY=VALUE   set a key of JOB.json, e.g. --set cluster.gpus=16,\n"
         "                    --set training.optimizer=adagrad, --set sharding=row_wise\n"
         "                    (repeatable; the keys are in docs/input.md)\n\n"
         "Exit codes (docs/output.md): 0 ok, 1 the plan does not fit (predict) or\n"
         "nothing fits (plan), 2 bad input (named), 3 unreadable file, 4 out of memory,\n"
         "130 plan interrupted (Ctrl-C; the best so far is shown).\n");
}

static int fail(int rc, const sc_error *e) {
  fprintf(stderr, "stepcast recsys: %s\n", e->msg);
  return cli_exit_code(rc);
}

typedef struct args {
  const char *file, *id, *sharding, *trace;
  sc_format fmt;
  int top, top_set, budget_set;
  double max_seconds;       /* plan's budgets (0: none) */
  long max_evals;
  double headroom_bytes, headroom_frac; /* plan's --headroom (0: none) */
  int headroom_set;
  const char **ov;          /* --set KEY=VALUE texts (argv's), n_ov of them; owned array */
  size_t n_ov;
} args;

/* --headroom X of `recsys plan` (search_limits_headroom). 0, or 2 after
 * the message. */
static int take_headroom(const char *v, args *a) {
  if (search_limits_headroom("recsys", v, &a->headroom_bytes, &a->headroom_frac)) return 2;
  a->headroom_set = 1;
  return 0;
}

/* --max-seconds S (> 0) or --max-evals N (>= 1) of `recsys plan` at s, v:
 * 1 taken, 0 not these, -1 a bad value (said). */
static int take_budget(const char *s, const char *v, args *a) {
  char *end = NULL;
  if (!strcmp(s, "--max-seconds")) {
    a->max_seconds = strtod(v, &end);
    if (end != v && !*end && a->max_seconds > 0 && a->max_seconds < 1e9) return 1;
    fprintf(stderr, "stepcast recsys: --max-seconds %s: valid: seconds > 0\n", v);
    return -1;
  }
  if (strcmp(s, "--max-evals")) return 0;
  a->max_evals = strtol(v, &end, 10);
  if (end != v && !*end && a->max_evals >= 1) return 1;
  fprintf(stderr, "stepcast recsys: --max-evals %s: valid: an integer >= 1\n", v);
  return -1;
}

static int parse(int argc, char **argv, args *a) {
  memset(a, 0, sizeof *a);
  a->top = 5;
  a->ov = calloc((size_t)argc, sizeof *a->ov);
  if (!a->ov) { fprintf(stderr, "stepcast recsys: out of memory\n"); return 4; }
  for (int i = 2; i < argc; i++) {
    const char *s = argv[i];
    const char *v = i + 1 < argc ? argv[i + 1] : NULL;
    int budget;
    if (!strcmp(s, "-h") || !strcmp(s, "--help")) {
      help(stdout);
      return -1;
    }
    if (!v && !strcmp(s, "--format")) return cli_format("recsys", NULL, 1), 2; /* one wording */
    if (!v && (!strcmp(s, "--sharding") || !strcmp(s, "--top") ||
               !strcmp(s, "--trace") || !strcmp(s, "--set") || !strcmp(s, "--headroom") ||
               !strcmp(s, "--max-seconds") || !strcmp(s, "--max-evals"))) {
      fprintf(stderr, "stepcast recsys: %s expects a value (see stepcast recsys --help)\n", s);
      return 2;
    }
    if (!strcmp(s, "--format") && v) {
      int f = cli_format("recsys", v, 1);
      if (f < 0) return 2;
      a->fmt = (sc_format)f;
      i++;
    } else if (!strcmp(s, "--sharding") && v) {
      a->sharding = v;
      i++;
    } else if (!strcmp(s, "--trace") && v) {
      a->trace = v;
      i++;
    } else if (!strcmp(s, "--set") && v) { /* the same words as predict's (scenario_args.c) */
      if (!strchr(v, '=')) {
        fprintf(stderr, "stepcast recsys: --set expects KEY=VALUE, e.g. --set cluster.gpus=16\n");
        return 2;
      }
      a->ov[a->n_ov++] = v;
      i++;
    } else if (!strcmp(s, "--headroom") && v) {
      if (take_headroom(v, a)) return 2;
      i++;
    } else if (!strcmp(s, "--top") && v) {
      char *end;
      long t = strtol(v, &end, 10);
      a->top = *end || t < 1 || t > 16 ? 0 : (int)t;
      a->top_set = 1;
      if (a->top < 1) {
        fprintf(stderr, "stepcast recsys: --top %s: valid: 1..16\n", v);
        return 2;
      }
      i++;
    } else if (v && (budget = take_budget(s, v, a)) != 0) {
      if (budget < 0) return 2;
      a->budget_set = 1;
      i++;
    } else if (s[0] == '-' && s[1]) {
      return cli_unknown_option("recsys", s);
    } else if (!a->file) a->file = s;
    else if (!a->id) a->id = s;
    else { fprintf(stderr, "stepcast recsys: unexpected argument '%s'\n", s); return 2; }
  }
  if (!a->file) { fprintf(stderr, "stepcast recsys: no JOB.json or FILE.csv given\n"); return 2; }
  cli_ov_note_repeats("recsys", a->ov, NULL, a->n_ov);
  for (size_t i = 0; a->sharding && i < a->n_ov; i++) /* --sharding replaces the document's */
    if (!strncmp(a->ov[i], "sharding=", 9) && strcmp(a->ov[i] + 9, a->sharding))
      fprintf(stderr, "stepcast recsys: note: the sharding is given twice, --set %s then "
                      "--sharding %s: --sharding is used\n", a->ov[i], a->sharding);
  return 0;
}

/* The iteration of plan p of j as a Chrome trace to path; the exit code. */
static int write_trace(const char *path, const sc_rs_job *j, const sc_rs_plan *p) {
  FILE *f = cli_open_out("recsys", path);
  if (!f) return 3;
  sc_error e = {0};
  int rc = sc_rs_report_trace(f, j, p, NULL, &e);
  int io = cli_close_out("recsys", path, f);
  return rc ? fail(rc, &e) : io;
}

/* Predict plan p of j (read from `path`) and report it (and its trace to
 * `trace` when not NULL; "-": in place of the report); the exit code. */
static int predict(const char *path, const sc_rs_job *j, const sc_rs_plan *p, sc_format fmt,
                   const char *trace) {
  sc_rs_result r;
  sc_error e = {0};
  int rc = sc_rs_evaluate(j, p, &r, &e);
  if (rc == SC_EINPUT) { /* the plan's check: say which file's sharding */
    fprintf(stderr, "stepcast recsys: %s: %s\n", path, e.msg);
    return cli_exit_code(rc);
  }
  if (rc) return fail(rc, &e);
  if (!trace || !cli_is_stdout(trace)) sc_rs_report_result(stdout, fmt, j, p, &r);
  int fits = r.fits;
  sc_rs_result_free(&r);
  rc = trace ? write_trace(trace, j, p) : 0;
  if (!rc && cli_is_stdout(trace) && !fits) /* the report that says so is not printed */
    fputs("stepcast recsys: the plan does not fit in GPU memory (exit 1)\n", stderr);
  return rc ? rc : fits ? 0 : 1;
}

/* The planner's progress callback: a line on stderr (a terminal, after a
 * second; *ctx set once one is printed), and stop on Ctrl-C. */
static int progress(void *ctx, long evaluated, double secs) {
  if (isatty(STDERR_FILENO) && secs >= 1.0) {
    fprintf(stderr, "\rrecsys plan: %ld plans evaluated, %.1f s", evaluated, secs);
    *(int *)ctx = 1;
  }
  return interrupt_seen();
}

static int plan(const sc_rs_job *j, const args *a) {
  sc_rs_plan_opts o;
  sc_rs_plan_opts_default(&o);
  o.top = a->top;
  o.max_seconds = a->max_seconds;
  o.max_evals = a->max_evals;
  o.headroom_bytes = a->headroom_bytes;
  o.headroom_frac = a->headroom_frac;
  int shown = 0;
  o.progress = progress;
  o.progress_ctx = &shown;
  sc_rs_plans ps;
  sc_error e = {0};
  struct sigaction old;
  interrupt_catch(&old);
  int rc = sc_rs_plan_search(j, &o, &ps, &e);
  interrupt_release(&old);
  if (shown) fputc('\n', stderr);
  if (rc) return fail(rc, &e);
  if (!a->trace || !cli_is_stdout(a->trace)) sc_rs_report_plans(stdout, a->fmt, j, &ps);
  int ok = ps.n > 0 && ps.res[0].fits, stop = ps.stopped;
  /* --trace: the iteration of the best plan found (rank 1) */
  int io = a->trace && ps.n > 0 ? write_trace(a->trace, j, &ps.plan[0]) : 0;
  if (!io && cli_is_stdout(a->trace) && (stop == SC_RS_STOP_INTERRUPTED || !ok))
    fprintf(stderr, "stepcast recsys plan: %s (the trace is of the best plan found)\n",
            stop == SC_RS_STOP_INTERRUPTED ? "interrupted" : "no plan found fits in GPU memory");
  sc_rs_plans_free(&ps);
  return io ? io : stop == SC_RS_STOP_INTERRUPTED ? 130 : ok ? 0 : 1;
}

/* --sharding KIND over the job's own plan. */
static int override(const sc_rs_job *j, const char *kind, sc_rs_plan *p) {
  int split = !strcmp(kind, "table_wise+split");
  int k = split ? SC_RS_TABLE_WISE : sc_rs_shard_from_name(kind);
  if (k < 0) {
    fprintf(stderr, "stepcast recsys: --sharding %s: valid: data_parallel, table_wise, "
                    "table_wise+split, row_wise, column_wise, table_row_wise\n", kind);
    return 2;
  }
  sc_rs_plan_free(p);
  sc_error e = {0};
  int rc = sc_rs_plan_uniform(j, (sc_rs_shard_kind)k, split, p, &e);
  return rc ? fail(rc, &e) : 0;
}

/* The subcommand sub of the parsed arguments a; the exit code. */
static int checked_run(const char *sub, const args *ap) {
  args a = *ap;
  int rc = 0;
  if (a.sharding && !strcmp(sub, "plan")) {
    fprintf(stderr, "stepcast recsys plan: --sharding sets the plan of `recsys predict`; "
                    "plan searches the shardings itself\n");
    return 2;
  }
  sc_rs_job j;
  sc_rs_plan p;
  sc_error e = {0};
  int autop = 0;
  if (!strcmp(sub, "row")) {
    if (!a.id) { fprintf(stderr, "stepcast recsys row: give FILE.csv and a row ID\n"); return 2; }
    if (a.n_ov) {
      fprintf(stderr, "stepcast recsys row: --set edits a JOB.json (`recsys predict` or `recsys "
                      "plan`); a row's inputs are its cells\n");
      return 2;
    }
    rc = sc_rs_row_job(a.file, a.id, &j, &p, &e);
  } else {
    rc = sc_rs_job_load_file_ex(a.file, a.ov, a.n_ov, &j, &p, &autop, &e);
  }
  if (rc) {
    sc_rs_plan_free(&p);
    sc_rs_job_free(&j);
    return fail(rc, &e);
  }
  if (a.top_set && strcmp(sub, "plan") && (p.n > 0 || a.sharding)) {
    fprintf(stderr, "stepcast recsys %s: --top lists planned shardings (`recsys plan`, or a job "
                    "without one); this job's sharding is given\n", sub);
    rc = 2;
  }
  if (!rc && a.budget_set && strcmp(sub, "plan") && (p.n > 0 || a.sharding)) {
    fprintf(stderr, "stepcast recsys %s: --max-seconds and --max-evals bound the planner "
                    "(`recsys plan`, or a job without a sharding); this job's sharding is given\n",
            sub);
    rc = 2;
  }
  if (!rc && a.headroom_set && strcmp(sub, "plan") && (p.n > 0 || a.sharding)) {
    fprintf(stderr, "stepcast recsys %s: --headroom is memory the planner keeps free "
                    "(`recsys plan`, or a job without a sharding); this job's sharding is given\n",
            sub);
    rc = 2;
  }
  if (!rc && a.trace && !strcmp(sub, "row")) {
    fprintf(stderr, "stepcast recsys row: --trace writes a job's iteration (`recsys predict` "
                    "or `recsys plan` of a JOB.json)\n");
    rc = 2;
  }
  if (!rc && a.sharding) rc = override(&j, a.sharding, &p);
  if (!rc) {
    if (!strcmp(sub, "plan") || (p.n == 0 && !a.sharding)) rc = plan(&j, &a);
    else rc = predict(a.file, &j, &p, a.fmt, a.trace);
  }
  sc_rs_plan_free(&p);
  sc_rs_job_free(&j);
  return rc;
}

int cmd_recsys(int argc, char **argv) {
  if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
    help(argc < 2 ? stderr : stdout); /* no subcommand: a usage error, as topo's and trace's */
    return argc < 2 ? 2 : 0;
  }
  const char *sub = argv[1];
  if (strcmp(sub, "predict") && strcmp(sub, "plan") && strcmp(sub, "row")) {
    fprintf(stderr, "stepcast recsys: unknown subcommand '%s' (predict, plan, row)\n", sub);
    return 2;
  }
  args a;
  int rc = parse(argc, argv, &a);
  if (!rc) rc = checked_run(sub, &a);
  free(a.ov);
  return rc < 0 ? 0 : rc;
}
