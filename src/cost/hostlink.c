/*
 * hostlink.c -- host copy bandwidth per GPU when the GPUs of a server
 * copy at once (module prefix: hostlink_).
 *
 * cost_host_bw is what one GPU reaches alone: nvbandwidth's
 * host_to_device / device_to_host copy-engine tests run one GPU at a time
 * (../shared/calibration/interconnect_p2p_bandwidth.csv rows 3-4: "8
 * links within 0.10 GB/s of each other", measured link by link;
 * azure_gpu_microbenchmarks.csv rows 67-77, one value per GPU type).
 * Activation offloading copies on every GPU of the server at the same
 * moment (with pp 1 every GPU runs the same layer), so each GPU gets
 *
 *   min(own link, uplink / GPUs behind it, CPU memory bw / GPUs per server)
 *
 * -- the uplink and the memory are shared evenly (the copies are equal
 * and simultaneous, so max-min fair sharing gives equal shares). The
 * per-server figures are cluster presets (src/hw/cluster_presets.c) with
 * their sources.
 */
#include "cost/hostlink.h"

#include "cost/compute.h"

double hostlink_bw(const sc_cluster *c) {
  const sc_host *h = &c->host;
  double own = cost_host_bw(&c->gpu), bw = own;
  int share = h->gpus_per_link > 1 ? h->gpus_per_link : 1;
  if (share > c->gpus_per_node && c->gpus_per_node > 0) share = c->gpus_per_node;
  double uplink = (h->link_bw > 0 ? h->link_bw : own) / share;
  if (uplink < bw) bw = uplink;
  if (h->mem_bw > 0 && c->gpus_per_node > 0) {
    double mem = h->mem_bw / c->gpus_per_node;
    if (mem < bw) bw = mem;
  }
  return bw;
}

double hostlink_capacity(const sc_cluster *c) { return c->host.mem_bytes; }
