/*
 * topo_json.h -- topology files (module prefix: topo_json).
 *
 * A topology file is one JSON object (docs/network.md has the reference):
 *
 *   {"name": "two-servers",
 *    "nodes": [{"name": "gpu0", "kind": "gpu"}, {"name": "sw", "kind": "switch"}],
 *    "links": [{"from": "gpu0", "to": "sw", "bw_GBps": 25, "lat_us": 1}]}
 *
 * kind is gpu, nvswitch, nic or switch; a link is duplex (both directions,
 * same bandwidth) unless "duplex": false. Instead of nodes and links a
 * file may name a generator: {"generator": "fat_tree:hosts=64,radix=8"}.
 */
#ifndef SC_LOAD_TOPO_JSON_H
#define SC_LOAD_TOPO_JSON_H

#include <stddef.h>

#include "net/topo.h"

/* Load and check a topology from JSON text (origin names it in messages)
 * or a file. On success *out owns a finalized, checked topo; on error
 * *out is NULL and err says where (origin:line:column for syntax, the key
 * path such as links[3].to for content) and what would be valid, or
 * SC_ENOMEM when memory (jansson's included) ran out. */
int topo_json_load_buffer(const char *buf, size_t len, const char *origin, topo **out,
                          sc_error *err);
int topo_json_load_file(const char *path, topo **out, sc_error *err);

/* A topology from a spec: a generator spec ("ring:n=8"), or a path to a
 * .json file. */
int topo_load_spec(const char *spec, topo **out, sc_error *err);

#endif /* SC_LOAD_TOPO_JSON_H */
