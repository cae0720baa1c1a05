/*
 * sharedcable.h -- the scenario where a pass's expert all-to-alls and the
 * pipeline's sends share a cable (test_event.c, test_alloc_faults.c):
 * Mixtral 8x7B on 12 A100, one a node, on tests/data/two_switches.json,
 * pp 3 (10 + 11 + the rest of the layers), ep 4, micro-batches of 1, no
 * overlapped gradient reduction. Stage 0 sits on switch A, stage 1 on B,
 * stage 2 half on each, so stage 2's all-to-alls cross the A-B cable that
 * stage 1's sends cross too.
 * Header-only: each test executable includes it once.
 */
#ifndef SC_TESTS_SHAREDCABLE_H
#define SC_TESTS_SHAREDCABLE_H

#include <criterion/criterion.h>
#include <stdio.h>

#include "stepcast.h"

static inline sc_scenario shared_cable(long global_batch) {
  sc_scenario s;
  sc_scenario_default(&s);
  sc_error e = {0};
  char js[1024];
  snprintf(js, sizeof js,
           "{\"model\": \"mixtral-8x7b\", \"cluster\": {\"preset\": \"dgx-a100\", "
           "\"gpus\": 12, \"gpus_per_node\": 1, \"nvlink_domain\": 1, \"topology\": "
           "\"%s/tests/data/two_switches.json\"}, \"plan\": {\"tp\": 1, \"pp\": 3, \"ep\": 4, "
           "\"pp_first_layers\": 10, \"pp_last_layers\": 11, \"global_batch\": %ld, "
           "\"micro_batch\": 1, \"overlap_grad_reduce\": false}}",
           SC_SOURCE_DIR, global_batch);
  cr_assert_eq(sc_scenario_load_string(&s, js, "test", NULL, 0, &e), SC_OK, "%s", e.msg);
  return s;
}

#endif
