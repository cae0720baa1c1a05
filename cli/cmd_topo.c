/*
 * cmd_topo.c -- `stepcast topo SPEC [--check] [--dot]`, `stepcast topo --list`
 * (both with --format table|json|csv).
 *
 * SPEC is a generator spec ("fat_tree:hosts=64,radix=8") or a .json file.
 * Describes the topology; --check also reports warnings (asymmetric
 * links); --dot writes Graphviz DOT to stdout. Exit 0, or 2 when the
 * topology is invalid (the message names the element).
 */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "stepcast.h"

static void usage(FILE *out) {
  fputs("usage: stepcast topo SPEC [--check] [--dot] [--format table|json|csv]\n"
        "       stepcast topo --list [--format table|json|csv]\n"
        "\n"
        "Describe a topology: nodes, GPUs, switches, links, bandwidth and latency ranges.\n"
        "  SPEC               a .json file (docs/network.md) or a generator spec\n"
        "                     name:key=value,... (e.g. 'rail:nodes=4,gpus=8')\n"
        "  --check            also report warnings (asymmetric links, ...) and the\n"
        "                     exchange: GPU i and i + n/2 all at once, GB/s per GPU\n"
        "  --dot              write Graphviz DOT to standard output instead\n"
        "  --format F         table (default), json or csv\n"
        "  --list             list the generators with their keys and defaults (JSON: each\n"
        "                     key's default and unit)\n"
        "\n"
        "Exit codes (docs/output.md): 0 ok, 2 bad input, 3 I/O error, 4 out of memory.\n",
        out);
}

int cmd_topo(int argc, char **argv) {
  const char *spec = NULL;
  int dot = 0, check = 0, list = 0, fmt_given = 0;
  sc_format fmt = SC_FORMAT_TABLE;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--dot")) dot = 1;
    else if (!strcmp(argv[i], "--format")) {
      int f = cli_format("topo", i + 1 < argc ? argv[++i] : NULL, 1);
      if (f < 0) return 2;
      fmt = (sc_format)f;
      fmt_given = 1;
    }
    else if (!strcmp(argv[i], "--check")) check = 1;
    else if (!strcmp(argv[i], "--list")) list = 1;
    else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
      usage(stdout);
      return 0;
    } else if (argv[i][0] == '-' || spec) {
      fprintf(stderr, "stepcast topo: unexpected argument '%s' (see stepcast topo --help)\n",
              argv[i]);
      return 2;
    } else spec = argv[i];
  }
  /* --list prints the generators (in --format); a SPEC, --dot or --check
   * beside it was ignored in silence */
  if (list && (spec || dot || check)) {
    fprintf(stderr, "stepcast topo: --list takes only --format (it lists the generators), "
                    "got %s\n", spec ? spec : dot ? "--dot" : "--check");
    return 2;
  }
  if (list) {
    sc_report_topo_generators(stdout, fmt);
    return 0;
  }
  if (dot && (check || fmt_given)) {
    fprintf(stderr, "stepcast topo: --dot writes Graphviz DOT; %s does not go with it\n",
            check ? "--check" : "--format");
    return 2;
  }
  if (!spec) return usage(stderr), 2;
  sc_topo *t;
  sc_error err = {0};
  int rc = sc_topo_load(spec, &t, &err);
  if (rc) {
    fprintf(stderr, "stepcast topo: %s\n", err.msg);
    return cli_exit_code(rc);
  }
  if (dot) {
    sc_topo_write_dot(t, stdout);
  } else {
    char warn[1024] = "";
    double ex = -1; /* --check also runs the half-shift exchange */
    if (check) sc_topo_check(t, &err, warn, sizeof warn);
    if (check && (rc = sc_topo_exchange(t, &ex, &err))) {
      fprintf(stderr, "stepcast topo: %s\n", err.msg);
      sc_topo_free(t);
      return cli_exit_code(rc);
    }
    sc_report_topo_ex(stdout, fmt, t, check ? warn : NULL, ex);
  }
  sc_topo_free(t);
  return 0;
}
