/*
 * cmd_presets.c -- `stepcast presets [--format table|json|csv]`: list what
 * can be named.
 */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "stepcast.h"

int cmd_presets(int argc, char **argv) {
  sc_format fmt = SC_FORMAT_TABLE;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
      printf("usage: stepcast presets [--format table|json|csv]\n\n"
             "List the GPU, model and cluster presets known by name.\n"
             "  --format F   table (default), json or csv\n\n"
             "Exit codes (docs/output.md): 0 ok, 2 bad input, 3 I/O error.\n");
      return 0;
    }
    if (strcmp(argv[i], "--format")) return cli_unknown_option("presets", argv[i]);
    int f = cli_format("presets", i + 1 < argc ? argv[++i] : NULL, 1);
    if (f < 0) return 2;
    fmt = (sc_format)f;
  }
  sc_report_presets(stdout, fmt);
  return 0;
}
