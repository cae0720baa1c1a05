/*
 * fuzz_topo.c -- libFuzzer target for the topology JSON loader: any input
 * must load or be rejected with a message, never crash or leak.
 */
#define _GNU_SOURCE /* memmem */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "load/topo_json.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  topo *t = NULL;
  sc_error err = {0};
  if (size > 1 << 16) return 0;
  /* A file may name a generator, which legitimately builds topologies of
   * millions of links (seconds each): the fuzzer would report those as
   * slow units. Generators are covered by tests/test_net_topo.c and the
   * benchmark; here only the JSON loader is fuzzed. */
  if (memmem(data, size, "generator", 9)) return 0;
  if (topo_json_load_buffer((const char *)data, size, "fuzz", &t, &err) == SC_OK) topo_free(t);
  return 0;
}
