/*
 * interrupt.c -- Ctrl-C for the subcommands that search; see interrupt.h.
 */
#include <string.h>

#include "interrupt.h"

static volatile sig_atomic_t interrupted;

static void on_sigint(int sig) {
  (void)sig;
  interrupted = 1;
}

void interrupt_catch(struct sigaction *old) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_sigint;
  sigaction(SIGINT, &sa, old);
}

void interrupt_release(const struct sigaction *old) { sigaction(SIGINT, old, NULL); }

int interrupt_seen(void) { return interrupted; }
