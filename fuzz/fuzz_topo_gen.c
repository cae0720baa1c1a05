/*
 * fuzz_topo_gen.c -- libFuzzer target for topology generator specs
 * ("fat_tree:hosts=64,radix=8", what `--topo` and cluster.topology take):
 * any text must be sized (topo_gen_size) or refused with a message, never
 * crash, hang or allocate without bound; a spec the generator accepts
 * must build exactly the nodes and links it announced.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "net/topo_gen.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size > 512) return 0;
  char spec[513];
  memcpy(spec, data, size);
  spec[size] = '\0';
  sc_error err = {0};
  double nodes = 0, links = 0;
  int rc = topo_gen_size(spec, &nodes, &links, &err);
  if (rc != SC_OK && (rc != SC_EINPUT || !err.msg[0])) abort();
  /* large topologies are legitimate but slow to build: size them only */
  if (rc != SC_OK || nodes > 20000 || links > 100000) return 0;
  topo *t = NULL;
  rc = topo_gen(spec, &t, &err);
  if (rc == SC_OK && (t->n_nodes != nodes || t->n_links != links)) abort();
  if (rc != SC_OK && rc != SC_EINPUT && rc != SC_ENOMEM) abort();
  if (rc == SC_OK) {
    char warn[256];
    rc = topo_check(t, &err, warn, sizeof warn);
    if (rc != SC_OK && rc != SC_EINPUT && rc != SC_ENOMEM) abort();
  }
  topo_free(t);
  return 0;
}
