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

/* --headroom X of the other commands (predict, dp, recsys plan): parsed
 * by sc_search_opts_set as search's is, its message printed under
 * `stepcast CMD: --headroom`. 0 with *bytes (bytes) and *frac (0..1) set,
 * or 2 after the message (both unchanged). */
int search_limits_headroom(const char *cmd, const char *v, double *bytes, double *frac);

/* m's fit verdict under that headroom, as search's: a plan fits only
 * where its total is at most the capacity less bytes and frac of it. */
void search_limits_fit(sc_memory *m, double bytes, double frac);

/* The headroom o asked for (bytes) into the memory of the search's plans
 * c[0..n) and of st's closest plan, so that their JSON says it (the search
 * judged their `fits` under it already). */
void search_limits_mark(sc_candidate *c, int n, sc_search_stats *st, const sc_search_opts *o);

#endif
