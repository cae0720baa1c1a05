/*
 * fuzz_replay.h -- the replay step of the trace targets (fuzz_kineto.c,
 * fuzz_pyet.c): a job that loaded replays to a result that `check`
 * accepts (it aborts otherwise), or fails with a message. Header-only:
 * each target includes it once.
 */
#ifndef SC_FUZZ_REPLAY_H
#define SC_FUZZ_REPLAY_H

#include <stdlib.h>

#include "trace/replay.h"

/* Replay j (rp_replay, no what-if); abort on an error without a message. */
static inline void fuzz_replay(const tg_job *j, void (*check)(const sc_trace_result *)) {
  rp_run run = {0};
  sc_trace_result res;
  sc_error err = {0};
  int rc = rp_replay(&run, j, NULL, &res, &err);
  if (rc == SC_OK)
    check(&res);
  else if (!err.msg[0])
    abort();
  rp_free(&run);
}

#endif
