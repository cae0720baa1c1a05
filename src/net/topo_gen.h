/*
 * topo_gen.h -- topology generators (module prefix: topo_gen).
 *
 * A generator spec is "name" or "name:key=value,key=value", e.g.
 *   "fat_tree:hosts=1024,radix=32,levels=3,oversub=2,bw=50"
 *   "torus:x=4,y=4,z=4,bw=50"   "dgx1"   "rail:nodes=16,gpus=8,nic=400"
 * Units of the keys: bw and nvlink in GB/s per direction, nic in Gb/s per
 * direction, lat in microseconds. `stepcast topo --list` prints them all.
 */
#ifndef SC_NET_TOPO_GEN_H
#define SC_NET_TOPO_GEN_H

#include <stdio.h>

#include "net/topo.h"

/* Build (and finalize) the topology of a spec. On success *out owns a new
 * topo (topo_free); on error *out is NULL and err names the key or value
 * and what would be valid (SC_EINPUT), or SC_ENOMEM. */
int topo_gen(const char *spec, topo **out, sc_error *err);

/* The nodes and directed links topo_gen(spec) would build, computed
 * without building (SC_OK, or SC_EINPUT as topo_gen). topo_gen refuses a
 * spec beyond TOPO_MAX_BYTES / TOPO_MAX_NODES with these numbers. */
int topo_gen_size(const char *spec, double *nodes, double *links, sc_error *err);

/* One line per generator: its name, keys and defaults. */
void topo_gen_help(FILE *out);

/* Generator i (0-based) of the table: its name, its keys with their
 * defaults ("n=8 bw=25 lat=1") and what it builds (static strings); 0, or
 * -1 past the last. */
int topo_gen_info(int i, const char **name, const char **keys, const char **what);

#endif /* SC_NET_TOPO_GEN_H */
