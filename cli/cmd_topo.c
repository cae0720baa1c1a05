/*
 * cmd_topo.c -- `stepcast topo`: describe, check or export a topology.
 */
#include <stdio.h>

#include "cli.h"

int cmd_topo(int argc, char **argv) {
  (void)argc;
  fprintf(stderr, "%s: not implemented yet\n", argv[0]);
  return 2;
}
