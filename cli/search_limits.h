/*
 * search_limits.h -- the options of `stepcast search` that the library's
 * sc_search_opts_set parses: constraints on the space, its bounds, the
 * budgets, threads, --all, --rerank and --no-rerank (module prefix:
 * search_limits_).
 */
#ifndef SC_CLI_SEARCH_LIMITS_H
#define SC_CLI_SEARCH_LIMITS_H

#include "stepcast.h"

/* The options this module takes, NULL-terminated: they shadow the
 * scenario flags of the same name (--tp fixes the searched degree rather
 * than setting plan.tp). */
extern const char *const search_limits_flags[];

/* The constraints' lines of `stepcast search --help`. */
void search_limits_help(void);

/* Parse one search option at argv[*i] into o (advancing *i past its
 * value): 1 taken, 0 not ours, -1 bad value (the library's message, under
 * the option's name, printed). */
int search_limits_take(int argc, char **argv, int *i, sc_search_opts *o);

#endif
