/*
 * cli.h -- the subcommands of the stepcast command-line tool. Each takes
 * argv starting at the subcommand name and returns the exit code:
 * 0 success, 1 the prediction ran but something failed (e.g. does not
 * fit with --require-fit), 2 bad input, 3 I/O error, 4 out of memory
 * (docs/output.md).
 */
#ifndef SC_CLI_H
#define SC_CLI_H

#include <stddef.h>

int cmd_predict(int argc, char **argv);
int cmd_validate(int argc, char **argv);
int cmd_search(int argc, char **argv);
int cmd_collective(int argc, char **argv);
int cmd_topo(int argc, char **argv);
int cmd_presets(int argc, char **argv);

/* output.c: shared by the subcommands (docs/output.md, "Exit codes"). */
#include <stdio.h>

/* The exit code of a library result code: SC_OK 0, SC_EINPUT and
 * SC_EMODEL 2, SC_EIO 3, SC_ENOMEM 4. */
int cli_exit_code(int code);

/* Open a file named on the command line for writing: "-" is standard
 * output. NULL (message printed) when it cannot be opened. */
FILE *cli_open_out(const char *cmd, const char *path);

/* Flush and close f (not standard output, which is only flushed); 0, or
 * 3 after a message when anything failed to be written. */
int cli_close_out(const char *cmd, const char *path, FILE *f);

/* The data directory (the one holding validation/) into buf: from
 * $STEPCAST_DATA, else PREFIX/share/stepcast beside the binary, else
 * data/ of the source tree the binary sits in or was built from. 0, or -1
 * when none exists. */
int cli_data_dir(char *buf, size_t cap);

#endif
