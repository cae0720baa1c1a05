/*
 * interrupt.h -- Ctrl-C for the subcommands that search (search, recsys
 * plan) (module prefix: interrupt_). While caught, SIGINT only sets a
 * flag, which their progress callbacks return so that the search stops
 * and reports the best it found (exit 130).
 */
#ifndef SC_CLI_INTERRUPT_H
#define SC_CLI_INTERRUPT_H

#include <signal.h>

/* Catch SIGINT from now on; the handler it replaces into *old. */
void interrupt_catch(struct sigaction *old);

/* Put back the handler interrupt_catch replaced. */
void interrupt_release(const struct sigaction *old);

/* 1 once SIGINT was caught, else 0. */
int interrupt_seen(void);

#endif
