/*
 * search_limits.h -- the user's constraints on `stepcast search`'s space
 * (module prefix: search_limits_).
 */
#ifndef SC_CLI_SEARCH_LIMITS_H
#define SC_CLI_SEARCH_LIMITS_H

#include "stepcast.h"

/* The options this module takes, NULL-terminated: they shadow the
 * scenario flags of the same name (--tp fixes the searched degree rather
 * than setting plan.tp). */
extern const char *const search_limits_flags[];

/* The options' lines of `stepcast search --help`. */
void search_limits_help(void);

/* Parse one constraint option at argv[*i] into o (advancing *i past its
 * value): 1 taken, 0 not ours, -1 bad value (message printed). */
int search_limits_take(int argc, char **argv, int *i, sc_search_opts *o);

#endif
