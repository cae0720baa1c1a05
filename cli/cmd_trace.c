/*
 * cmd_trace.c -- `stepcast trace`: load the PyTorch profiler traces of one
 * job (one file per rank), replay them, compare with the traced step,
 * name what bounds it, and ask what-if questions (docs/trace.md).
 *
 *   stepcast trace FILE... [--format table|json|csv] [--dp-scale X] [--gpu NAME]
 *       [--nvlink GB/s] [--nic Gb/s] [--ppn N] [--no-overlap] [--comm-model]
 *       [--perfetto OUT.json] [--export-graph OUT.json]
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "stepcast.h"

typedef struct opts {
  const char **files;
  int n_files, format, whatif;
  sc_trace_whatif w;
  const char *perfetto;
  const char *graph; /* --export-graph */
} opts;

static void usage(FILE *out) {
  fputs(
      "usage: stepcast trace FILE... [options]\n"
      "  FILE...            PyTorch profiler (Kineto) traces, .json or .json.gz, or Chakra\n"
      "                     ETs (.et): one file, or one per rank of one job; PyTorch\n"
      "                     execution traces (ET JSON) join the Kineto trace of their pid\n"
      "  --format F         table (default), json or csv (a row as traced, one for the\n"
      "                     what-if)\n"
      "  --perfetto OUT     write the replayed schedule as a Chrome/Perfetto trace ('-':\n"
      "                     standard output, in place of the report)\n"
      "  --export-graph OUT write the loaded graph as Kineto JSON that stepcast trace reads\n"
      "                     back (one file per rank: OUT-rankN.json); edit it and replay\n"
      "what-if (any of these adds a what-if column):\n"
      "  --dp-scale X       data-parallel degree times X (2 = twice the nodes)\n"
      "  --gpu NAME         run on another GPU preset (stepcast presets)\n"
      "  --nvlink GBPS      NVLink per GPU per direction, GB/s\n"
      "  --nic GBITS        network per GPU per direction, Gb/s (default 200)\n"
      "  --ppn N            GPUs per NVLink domain (default 8)\n"
      "  --no-overlap       communication does not overlap computation\n"
      "  --comm-model       collectives take the network model's time, not the traced one\n"
      "\nExit codes (docs/output.md): 0 ok, 2 bad input, 3 I/O error, 4 out of memory.\n",
      out);
}

static int bad(const char *what, const char *val) {
  fprintf(stderr, "stepcast trace: %s '%s' (stepcast trace --help)\n", what,
          val ? val : "(missing)");
  return 2;
}

/* A number in [1e-9, 1e9] from s (no inf, NaN or denormal); -1 when
 * malformed or out of that range. */
static double positive(const char *s) {
  char *end;
  double v = s ? strtod(s, &end) : -1;
  return s && end != s && !*end && v >= 1e-9 && v <= 1e9 ? v : -1;
}

/* One what-if option at argv[*i] (with its value); 1 if it was one, 0 if
 * not, 2 on a bad value. */
static int whatif_opt(opts *o, int argc, char **argv, int *i) {
  const char *a = argv[*i], *v = *i + 1 < argc ? argv[*i + 1] : NULL;
  double x;
  if (!strcmp(a, "--no-overlap")) return o->w.overlap = 0, o->whatif = 1;
  if (!strcmp(a, "--comm-model")) return o->w.comm_model = 1, o->whatif = 1;
  if (!strcmp(a, "--gpu")) {
    if (!v) return bad("--gpu needs a preset name", v), 2;
    o->w.gpu = v, (*i)++;
    return o->whatif = 1;
  }
  const char *names[] = {"--dp-scale", "--nvlink", "--nic", "--ppn"};
  int k = 0;
  while (k < 4 && strcmp(a, names[k])) k++;
  if (k == 4) return 0;
  x = positive(v);
  if (k == 3 && (x < 1 || x != (double)(int)x))
    return bad("--ppn expects a whole number of GPUs per NVLink domain (1, 2, 8, ...), got", v), 2;
  if (x < 0) {
    fprintf(stderr, "stepcast trace: %s expects a number in 1e-9..1e9, got '%s' (stepcast trace "
                    "--help)\n", a, v ? v : "");
    return 2;
  }
  (*i)++;
  if (k == 0)
    o->w.dp_scale = x;
  else if (k == 1)
    o->w.nvlink_bw = x * 1e9;
  else if (k == 2)
    o->w.nic_bw = x * 1e9 / 8;
  else
    o->w.ranks_per_node = (int)x;
  return o->whatif = 1;
}

/* A file named twice would count as two ranks of the job: refuse it. */
static int same_file_twice(const opts *o) {
  for (int i = 1; i < o->n_files; i++)
    for (int k = 0; k < i; k++) {
      struct stat a, b;
      if (!strcmp(o->files[i], o->files[k]) ||
          (!stat(o->files[i], &a) && !stat(o->files[k], &b) && a.st_dev == b.st_dev &&
           a.st_ino == b.st_ino))
        return bad("the same trace is given twice (each file is one rank of the job):",
                   o->files[i]);
    }
  return 0;
}

static int parse(int argc, char **argv, opts *o) {
  o->files = calloc((size_t)argc, sizeof *o->files);
  if (!o->files) return fputs("stepcast trace: out of memory\n", stderr), 4;
  sc_trace_whatif_default(&o->w);
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    int r = whatif_opt(o, argc, argv, &i);
    if (r == 2) return 2;
    if (r) continue;
    if (!strcmp(a, "--help") || !strcmp(a, "-h")) return usage(stdout), -1;
    if (!strcmp(a, "--format")) {
      int f = cli_format("trace", i + 1 < argc ? argv[++i] : NULL, 1);
      if (f < 0) return 2;
      o->format = f;
    } else if (!strcmp(a, "--export-graph")) {
      if (i + 1 >= argc) return bad("--export-graph needs a file name", NULL);
      o->graph = argv[++i];
    } else if (!strcmp(a, "--perfetto")) {
      if (i + 1 >= argc) return bad("--perfetto needs a file name", NULL);
      o->perfetto = argv[++i];
    } else if (a[0] == '-' && a[1])
      return bad("unknown option", a);
    else
      o->files[o->n_files++] = a;
  }
  if (!o->n_files) return usage(stderr), 2;
  if (cli_is_stdout(o->graph))
    return bad("--export-graph writes files (one per rank); '-' (standard output) is for "
               "--perfetto, got", o->graph);
  return same_file_twice(o);
}

static void show_progress(void *ud, double done) {
  const opts *o = ud;
  if (o->n_files > 1 && isatty(2))
    fprintf(stderr, "\rstepcast trace: loaded %d of %d files", (int)(done * o->n_files + 0.5),
            o->n_files);
  if (o->n_files > 1 && isatty(2) && done >= 1) fprintf(stderr, "\r%50s\r", "");
}

/* The replayed schedule to path ('-': standard output, in place of the
 * report: one document per run). */
static int write_perfetto(const sc_trace *t, const char *path) {
  FILE *f = cli_open_out("trace", path);
  if (!f) return 3;
  sc_trace_write_perfetto(t, f);
  return cli_close_out("trace", path, f);
}

/* The loaded graph, one Kineto JSON per rank, named by
 * sc_trace_graph_name: path itself for one rank, else path with "-rankN"
 * before its ".json" (or at its end). */
static int write_graph(const sc_trace *t, const char *path) {
  sc_trace_info in;
  sc_trace_info_get(t, &in);
  for (int r = 0; r < in.ranks; r++) {
    char name[4096];
    sc_trace_graph_name(path, r, in.ranks, name, sizeof name);
    FILE *f = fopen(name, "w");
    if (!f) return fprintf(stderr, "stepcast trace: cannot write %s (%s)\n", name, strerror(errno)), 3;
    sc_error err = {0};
    int rc = sc_trace_write_graph(t, r, f, &err);
    if (fclose(f) && !rc) return fprintf(stderr, "stepcast trace: cannot write %s\n", name), 3;
    if (rc) return fprintf(stderr, "stepcast trace: %s\n", err.msg), 2;
  }
  return 0;
}

static int fail(sc_trace *t, const sc_error *err) {
  fprintf(stderr, "stepcast trace: %s\n", err->msg);
  sc_trace_close(t);
  return err->code == SC_ENOMEM ? 4 : err->code == SC_EIO ? 3 : 2;
}

static int run(opts *o) {
  sc_trace *t;
  sc_error err = {0};
  if (sc_trace_load(o->files, o->n_files, show_progress, o, &t, &err)) return fail(NULL, &err);
  sc_trace_result base, x;
  if (sc_trace_replay(t, NULL, &base, &err)) return fail(t, &err);
  if (o->whatif && sc_trace_replay(t, &o->w, &x, &err)) return fail(t, &err);
  const char *warn = sc_trace_warnings(t);
  if (*warn) fprintf(stderr, "stepcast trace: warning: %s", warn);
  if (!cli_is_stdout(o->perfetto))
    sc_report_trace_replay(stdout, (sc_format)o->format, t, &base, &o->w, o->whatif ? &x : NULL);
  int rc = o->perfetto ? write_perfetto(t, o->perfetto) : 0;
  if (!rc && o->graph) rc = write_graph(t, o->graph);
  sc_trace_close(t);
  return rc;
}

int cmd_trace(int argc, char **argv) {
  opts o = {0};
  int rc = parse(argc, argv, &o);
  if (!rc) rc = run(&o);
  free(o.files);
  return rc < 0 ? 0 : rc;
}
