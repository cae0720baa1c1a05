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
int cmd_trace(int argc, char **argv);
int cmd_dp(int argc, char **argv);

/* output.c: shared by the subcommands (docs/output.md, "Exit codes"). */
#include <stdio.h>

/* The exit code of a library result code: SC_OK 0, SC_EINPUT and
 * SC_EMODEL 2, SC_EIO 3, SC_ENOMEM 4. */
int cli_exit_code(int code);

/* Open a file named on the command line for writing: "-" is standard
 * output. NULL (message printed) when it cannot be opened. */
FILE *cli_open_out(const char *cmd, const char *path);

/* 1 when path is "-" (standard output). */
int cli_is_stdout(const char *path);

/* 0, or 2 after a message when both a and b are "-": one document per
 * invocation on standard output. */
int cli_one_stdout(const char *cmd, const char *a, const char *b);

/* 2 after the message "stepcast CMD: unknown option 'ARG' (see stepcast
 * CMD --help)". */
int cli_unknown_option(const char *cmd, const char *arg);

/* The format `value` names for `cmd`'s --format (value NULL: none given;
 * csv_ok 0 where the command has no CSV output), or -1 after the message
 * "stepcast CMD: --format expects table, json or csv, got 'yaml'". */
int cli_format(const char *cmd, const char *value, int csv_ok);

/* A note on stderr for each override of ov[0..n) ("key.path=value") that
 * sets a key path an earlier one set to another value (`--dtype fp16 ...
 * --dtype fp32`): the last is used (docs/input.md, "Overrides"), but not
 * in silence. shown[i] is ov[i] as typed ("--dtype fp16"; NULL, or shown
 * NULL: it came from --set). The same value twice ("8", "8.0") is not
 * noted, nor a section and a key inside it (`plan=...`, `plan.tp=...`). */
void cli_ov_note_repeats(const char *cmd, const char *const *ov, const char *const *shown, size_t n);

/* Flush and close f (not standard output, which is only flushed); 0, or
 * 3 after a message when anything failed to be written. */
int cli_close_out(const char *cmd, const char *path, FILE *f);

/* html_out.c: the HTML report of a search of s under o to path ("-":
 * standard output), plans fitting or not, `chosen` (may be NULL) marked;
 * the exit code. */
#include "stepcast.h"
int cli_search_html(const char *path, const sc_scenario *s, const sc_search_opts *o,
                    const sc_candidate *chosen);

/* The data directory (the one holding validation/) into buf: from
 * $STEPCAST_DATA, else PREFIX/share/stepcast beside the binary, else
 * data/ of the source tree the binary sits in or was built from. 0, or -1
 * when none exists. */
int cli_data_dir(char *buf, size_t cap);

/* cmd_dp.c: the data-parallel prediction of s (compare: every scheme that
 * applies, fastest first) in fmt to standard output; the exit code. */
int cli_dp_report(const char *cmd, const sc_scenario *s, sc_format fmt, int compare);
/* The step of s's dp.scheme as a Chrome trace to path ("-": standard
 * output); the exit code. */
int cli_dp_trace(const char *cmd, const sc_scenario *s, const char *path);

#endif
