/*
 * refnet.c -- a GPU chosen without a cluster preset brings its reference
 * system's network; see refnet.h and docs/input.md ("cluster").
 */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "hw/cluster_presets.h"
#include "load/refnet.h"

void refnet_fill(sc_cluster *cl, const json_t *v) {
  const sc_cluster *ref = clus_reference(cl->gpu.name);
  /* the host side: each key the document gives is decoded after this */
  if (ref) cl->host = ref->host;
  else memset(&cl->host, 0, sizeof cl->host);
  memset(cl->nic_from, 0, sizeof cl->nic_from);
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
  if (!pre || json_object_get(v, "nic_Gbps") || !strcasecmp(pre->gpu.name, cl->gpu.name)) return;
  snprintf(cl->nic_from, sizeof cl->nic_from, "%.24s, the scenario's cluster preset", pre->name);
}
