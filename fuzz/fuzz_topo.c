/*
 * fuzz_topo.c -- libFuzzer target for the topology JSON loader: any input
 * must load or be rejected with a message, never crash or leak.
 */
#include <stddef.h>
#include <stdint.h>

#include "net/topo_json.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  topo *t = NULL;
  sc_error err = {0};
  if (size > 1 << 16) return 0; /* generators are size-checked; keep runs fast */
  if (topo_json_load_buffer((const char *)data, size, "fuzz", &t, &err) == SC_OK) topo_free(t);
  return 0;
}
