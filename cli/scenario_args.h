/*
 * scenario_args.h -- the scenario arguments `predict` and `search` share:
 * a scenario file, --set KEY=VALUE, short flags for common keys, --format.
 * Every flag becomes a key-path override applied to the JSON before it is
 * checked, so `--tp 8` and `--set plan.tp=8` are the same thing.
 */
#ifndef SC_CLI_SCENARIO_ARGS_H
#define SC_CLI_SCENARIO_ARGS_H

#include <stddef.h>

#include "stepcast.h"

typedef struct scen_args {
  const char *file;   /* scenario JSON, or NULL for the default */
  char **ov;          /* owned override strings "key.path=value" */
  char **spelled;     /* owned: ov[i] as the user typed it ("-n 0"), or NULL
                         for --set (ov[i] is what was typed) */
  size_t n_ov;
  unsigned load_flags;  /* SC_LOAD_* of sc_scenario_load_file_ex */
  sc_format fmt;      /* --format */
  const char *base;   /* JSON loaded without a file (NULL = "{}", the default
                         scenario); `stepcast dp` gives a dp section */
} scen_args;

/* Prepare for at most argc overrides; 0, or 3 when out of memory. */
int scen_args_init(scen_args *a, int argc);
void scen_args_free(scen_args *a);

/* Consume argv[*i] (and its value, advancing *i) if it is a scenario
 * argument. Returns 1 when consumed, 0 when it is not one, or 2 after
 * printing a message naming `cmd` for a bad one. */
int scen_args_take(scen_args *a, const char *cmd, int argc, char **argv, int *i);

/* The last case of a command's option loop: 0 when argv[*i] was a
 * scenario argument (consumed as scen_args_take does), else 2 after a
 * message: take's own for a bad one, cli_unknown_option's for any other. */
int scen_args_take_last(scen_args *a, const char *cmd, int argc, char **argv, int *i);

/* Load the scenario the arguments describe; returns the exit code (0, 2
 * bad input, 3 unreadable) after printing any error. */
int scen_args_load(const scen_args *a, const char *cmd, sc_scenario *s);

/* Print the help lines of the shared arguments, leaving out the flags in
 * `except` (NULL-terminated; NULL: none) that the command takes itself
 * ("SCENARIO.json": the command describes its own default). */
void scen_args_help(const char *const *except);

#endif
