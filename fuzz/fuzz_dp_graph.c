/*
 * fuzz_dp_graph.c -- libFuzzer target for the gossip-graph parser of the
 * data-parallel schemes (dp.graph: a name, an edge list, a mixing
 * matrix): any text must parse into a connected graph or be rejected with
 * a message naming dp.graph, never crash or leak. The first byte picks
 * the number of workers (1..64); files ("@PATH") are not read.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "dp/dp.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 1 || size > 4096) return 0;
  int n = 1 + data[0] % 64;
  char spec[4097];
  memcpy(spec, data + 1, size - 1);
  spec[size - 1] = '\0';
  if (spec[0] == '@') return 0;
  dp_graph g;
  sc_error err = {0};
  int rc = dp_graph_parse(spec, n, &g, &err);
  if (rc == SC_OK) {
    if (g.n != n || dp_graph_connected(&g) != 1) __builtin_trap();
    dp_graph_free(&g);
  } else if (!strstr(err.msg, "dp.graph")) {
    __builtin_trap();
  }
  return 0;
}
