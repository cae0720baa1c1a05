/*
 * linkwhatif.h -- what-ifs on a topology's links (module prefix: lwi_):
 * failed cables (both directions removed; routes go around them where the
 * topology allows) and degraded ones (bandwidth multiplied).
 *
 * A cable is named by its two nodes, "a-b" (node names as `stepcast topo
 * SPEC` lists them, e.g. "n0.nic3-rail3"); lists are comma-separated.
 * Degraded cables carry a factor: "a-b:0.5".
 */
#ifndef SC_NET_LINKWHATIF_H
#define SC_NET_LINKWHATIF_H

#include "net/topo.h"

/* Apply `fail` and `degrade` (either may be NULL or "") to *t: on success
 * *t is a new topology (the old one freed) or unchanged when there is
 * nothing to apply. Errors (*t unchanged): SC_EINPUT naming the key
 * (`key_fail` / `key_degrade`, e.g. "cluster.link_fail"), the cable that
 * does not exist or the bad factor, or the GPUs a failure disconnects;
 * SC_ENOMEM. */
int lwi_apply(topo **t, const char *fail, const char *degrade, const char *key_fail,
              const char *key_degrade, sc_error *err);

#endif
