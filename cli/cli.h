/*
 * cli.h -- the subcommands of the stepcast command-line tool. Each takes
 * argv starting at the subcommand name and returns the exit code:
 * 0 success, 1 the prediction ran but something failed (e.g. does not
 * fit with --require-fit), 2 bad input, 3 I/O error.
 */
#ifndef SC_CLI_H
#define SC_CLI_H

int cmd_predict(int argc, char **argv);
int cmd_validate(int argc, char **argv);
int cmd_search(int argc, char **argv);
int cmd_collective(int argc, char **argv);
int cmd_topo(int argc, char **argv);
int cmd_presets(int argc, char **argv);
int cmd_trace(int argc, char **argv);

#endif
