/*
 * hostlink.h -- the rate at which each GPU of a server copies to and from
 * CPU memory while every GPU of the server copies at once (module prefix:
 * hostlink_), as activation offloading does (docs/model.md "Activation
 * offloading").
 */
#ifndef SC_COST_HOSTLINK_H
#define SC_COST_HOSTLINK_H

#include "stepcast.h"

/* Per-GPU host copy bandwidth, bytes/s per direction, with all
 * c->gpus_per_node GPUs copying in the same direction at once: the least
 * of the GPU's own host link (cost_host_bw), its share of the uplink it
 * shares with c->host.gpus_per_link - 1 others, and its share of the
 * server's CPU memory bandwidth. */
double hostlink_bw(const sc_cluster *c);

/* Server CPU memory the offloaded activations may pin, bytes (0 = not
 * limited). */
double hostlink_capacity(const sc_cluster *c);

#endif
