/*
 * trace_int.h -- the sc_trace handle, shared by the files of src/trace/
 * that implement the public trace functions (trace_api.c, trace_report.c).
 */
#ifndef SC_TRACE_INT_H
#define SC_TRACE_INT_H

#include "trace/chakra.h"
#include "trace/pyet.h"
#include "trace/replay.h"
#include "trace/tgraph.h"

struct sc_trace {
  tg_job *job;  /* owned: what was loaded from Kineto traces */
  ch_graph *ch; /* owned: or from Chakra ETs, n_ch of them (one per rank) */
  int n_ch, cap_ch;
  pet_graph *et; /* owned: PyTorch execution traces, n_et, until joined */
  int n_et, cap_et;
  long et_ops, et_matched; /* over the joined ETs (etjoin.h) */
  rp_run run;      /* owned: the last replay's schedule */
  int replayed;    /* run holds a successful replay */
  char warn[1600]; /* sc_trace_warnings' buffer */
};

#endif
