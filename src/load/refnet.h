/*
 * refnet.h -- the network of a server the document does not describe
 * (module prefix: refnet_).
 *
 * A cluster section that names another GPU without a cluster preset (`-g
 * h100-sxm5-80gb` on the default scenario, or {"gpu": "b300", "nodes": 4}
 * in a file) describes another server, whose network the base cluster's
 * (the default scenario's DGX A100) does not describe. Where the section
 * does not state them, the NIC per GPU, the host side (uplinks, CPU
 * memory, RAM), the GPUs per node and the NVLink domain (GB200 / GB300:
 * 4 per tray, 72 per rack) are those of the GPU's reference system, the first cluster
 * preset carrying that GPU (clus_reference; the same systems `validate`
 * fills a row's blank NIC and host side from). Values the document
 * states (nic_Gbps, host_*) are never replaced: they are decoded after
 * this. A GPU no preset server carries keeps the base's NIC and an
 * unlimited host side (all 0) and the base's node. The NIC's origin goes
 * to cl->nic_from, the node's to cl->node_from, for the report.
 */
#ifndef SC_LOAD_REFNET_H
#define SC_LOAD_REFNET_H

#include <jansson.h>

#include "stepcast.h"

/* Fill cl's NIC and host side for its GPU (cl->gpu, already decoded) where
 * the cluster object v does not state them, and cl->nic_from and
 * cl->node_from (gpus_per_node, nvlink_domain: each where unstated). Cannot
 * fail. */
void refnet_fill(sc_cluster *cl, const json_t *v);

/* A GPU chosen on a cluster preset (`-g b300` on a file naming dgx-h100)
 * keeps the preset's NIC and host side: the document named that server.
 * Where the GPU is not the preset's own and v states no nic_Gbps, say so
 * in cl->nic_from ("dgx-h100, the scenario's cluster preset"). */
void refnet_note_preset(sc_cluster *cl, const json_t *v, const char *preset);

#endif /* SC_LOAD_REFNET_H */
