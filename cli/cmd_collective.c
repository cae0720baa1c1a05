/*
 * cmd_collective.c -- `stepcast collective`: an nccl-tests-like table.
 */
#include <stdio.h>

#include "cli.h"

int cmd_collective(int argc, char **argv) {
  (void)argc;
  fprintf(stderr, "%s: not implemented yet\n", argv[0]);
  return 2;
}
