/*
 * html_out.c -- `stepcast search --html FILE`: the plan space as a picture
 * (sc_html_search_space). Kept out of cmd_search.c so that the search
 * command only passes the file name on (docs/report.md).
 */
#include <stdio.h>

#include "cli.h"
#include "stepcast.h"

int cli_search_html(const char *path, const sc_scenario *s, const sc_search_opts *o,
                    const sc_candidate *chosen) {
  FILE *f = cli_open_out("search", path);
  if (!f) return 3;
  sc_error err = {0};
  int rc = sc_html_search_space(f, s, o, chosen, &err);
  int io = cli_close_out("search", path, f);
  if (rc != SC_OK) fprintf(stderr, "stepcast search: %s\n", err.msg);
  return rc != SC_OK ? cli_exit_code(rc) : io;
}
