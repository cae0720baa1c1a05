/*
 * refnet.c -- a GPU chosen without a cluster preset brings its reference
 * system's network; see refnet.h and docs/input.md ("cluster").
 */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "hw/cluster_presets.h"
#include "load/refnet.h"

/* The node size and NVLink domain of cl from ref where v states neither
 * key (each kept where stated), and their origin in cl->node_from. A
 * domain equal to the reference's node size follows gpus_per_node (0, as
 * scn_cluster_relax leaves a single-server preset); a rack's (gb200-nvl72:
 * 72 over trays of 4) stays. */
static void refnet_node(sc_cluster *cl, const json_t *v, const sc_cluster *ref) {
  int gpn = json_object_get(v, "gpus_per_node") != NULL;
  int dom = json_object_get(v, "nvlink_domain") != NULL;
  memset(cl->node_from, 0, sizeof cl->node_from);
  if (gpn && dom) return; /* both stated: the document's */
  if (!ref) {
    snprintf(cl->node_from, sizeof cl->node_from, "the default's: %.40s has no reference system",
             cl->gpu.name);
    return;
  }
  if (!gpn) cl->gpus_per_node = ref->gpus_per_node;
  if (!dom) cl->nvlink_domain = ref->nvlink_domain == ref->gpus_per_node ? 0 : ref->nvlink_domain;
  snprintf(cl->node_from, sizeof cl->node_from, "%.24s, the reference system of %.40s", ref->name,
           cl->gpu.name);
}

void refnet_fill(sc_cluster *cl, const json_t *v) {
  const sc_cluster *ref = clus_reference(cl->gpu.name);
  /* the host side: each key the document gives is decoded after this */
  if (ref) cl->host = ref->host;
  else memset(&cl->host, 0, sizeof cl->host);
  memset(cl->nic_from, 0, sizeof cl->nic_from);
  refnet_node(cl, v, ref);
  if (json_object_get(v, "nic_Gbps")) return; /* stated: the document's */
  if (ref) {
    cl->nic_bw = ref->nic_bw;
    snprintf(cl->nic_from, sizeof cl->nic_from, "%.24s, the reference system of %.40s", ref->name,
             cl->gpu.name);
  } else {
    snprintf(cl->nic_from, sizeof cl->nic_from, "the default's: %.40s has no reference system",
             cl->gpu.name);
  }
}

void refnet_note_preset(sc_cluster *cl, const json_t *v, const char *preset) {
  const sc_cluster *pre = sc_cluster_preset(preset);
  memset(cl->nic_from, 0, sizeof cl->nic_from);
  memset(cl->node_from, 0, sizeof cl->node_from);
  if (!pre || json_object_get(v, "nic_Gbps") || !strcasecmp(pre->gpu.name, cl->gpu.name)) return;
  snprintf(cl->nic_from, sizeof cl->nic_from, "%.24s, the scenario's cluster preset", pre->name);
}
