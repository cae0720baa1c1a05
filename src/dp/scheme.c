/*
 * scheme.c -- the data-parallel scheme vocabulary of
 * ../shared/validation/DP-AND-RECSYS.md ("Scheme vocabulary"), with a
 * user-given gossip graph beside it; see dp.h.
 */
#include <string.h>

#include "dp/dp.h"

static const struct {
  const char *name;
  dp_family family;
  int async;
} dp_schemes[DP_SCHEME_COUNT] = {
    [DP_SINGLE_GPU] = {"single_gpu", DP_FAM_NONE, 0},
    [DP_PS_SYNC] = {"ps_sync", DP_FAM_PS, 0},
    [DP_PS_SYNC_DIST_REPLICATED] = {"ps_sync_distributed_replicated", DP_FAM_PS, 0},
    [DP_PS_ASYNC] = {"ps_async", DP_FAM_PS, 1},
    [DP_PS_SYNC_CPU_SERVERS] = {"ps_sync_cpu_servers", DP_FAM_PS, 0},
    [DP_REPLICATED_NCCL] = {"replicated_local_nccl", DP_FAM_ALLREDUCE, 0},
    [DP_REPLICATED_COPY] = {"replicated_local_copy", DP_FAM_ALLREDUCE, 0},
    [DP_ALLREDUCE_RING_NCCL] = {"allreduce_ring_nccl", DP_FAM_ALLREDUCE, 0},
    [DP_ALLREDUCE_NCCL] = {"allreduce_nccl", DP_FAM_ALLREDUCE, 0},
    [DP_ALLREDUCE_MPI_HOST] = {"allreduce_mpi_host", DP_FAM_ALLREDUCE, 0},
    [DP_ALLREDUCE_KUNGFU] = {"allreduce_kungfu", DP_FAM_ALLREDUCE, 0},
    [DP_ALLREDUCE_HIER] = {"allreduce_hierarchical", DP_FAM_ALLREDUCE, 0},
    [DP_PAIR_AVERAGING_ASYNC] = {"pair_averaging_async", DP_FAM_GOSSIP, 1},
    [DP_NEIGHBOR_EXP2] = {"neighbor_allreduce_exp2", DP_FAM_GOSSIP, 0},
    [DP_HIER_NEIGHBOR] = {"hierarchical_neighbor_allreduce", DP_FAM_GOSSIP, 0},
    [DP_GOSSIP_GRAPH] = {"neighbor_allreduce_graph", DP_FAM_GOSSIP, 0},
};

const char *dp_scheme_name(dp_scheme s) { return dp_schemes[s].name; }
dp_family dp_scheme_family(dp_scheme s) { return dp_schemes[s].family; }
int dp_scheme_async(dp_scheme s) { return dp_schemes[s].async; }

const char *dp_family_name(dp_family f) {
  static const char *const names[] = {"none", "ps", "allreduce", "gossip"};
  return names[f];
}

int dp_scheme_from_name(const char *name) {
  for (int i = 0; i < DP_SCHEME_COUNT; i++)
    if (!strcmp(name, dp_schemes[i].name)) return i;
  return -1;
}

const char *sc_dp_default_scenario(void) {
  return "{\"model\": \"resnet50_v1.5\", \"cluster\": {\"gpu\": \"v100-sxm2-32gb\", "
         "\"gpus\": 16, \"gpus_per_node\": 8, \"nic_Gbps\": 3.125}, \"plan\": "
         "{\"global_batch\": 1024, \"micro_batch\": 64, \"dtype\": \"fp16\"}, \"dp\": "
         "{\"scheme\": \"allreduce_nccl\", \"network_Gbps\": 25}}";
}

int sc_dp_scheme_count(void) { return DP_SCHEME_COUNT; }
const char *sc_dp_scheme_name(int i) {
  return i >= 0 && i < DP_SCHEME_COUNT ? dp_schemes[i].name : NULL;
}
