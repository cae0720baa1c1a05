/*
 * abi_layout.c -- print the layout of the structs of include/stepcast.h
 * and include/stepcast_recsys.h that the Python module mirrors with ctypes (python/stepcast), one line
 * per struct ("S NAME SIZE") and per field ("F NAME FIELD OFFSET SIZE"),
 * so that python/tests/test_abi.py can compare them with the ctypes
 * structs field for field. Built by CMake (sc_abi_layout) or by the test
 * itself with the C compiler.
 */
#include <stddef.h>
#include <stdio.h>

#include "stepcast.h"
#include "stepcast_recsys.h"

#define S(T) printf("S %s %zu\n", #T, sizeof(T))
#define F(T, f) printf("F %s %s %zu %zu\n", #T, #f, offsetof(T, f), sizeof(((T *)0)->f))

int main(void) {
  S(sc_error);
  F(sc_error, code);
  F(sc_error, msg);
  S(sc_search_opts);
  F(sc_search_opts, max_tp);
  F(sc_search_opts, max_pp);
  F(sc_search_opts, max_micro_batch);
  F(sc_search_opts, max_vpp);
  F(sc_search_opts, require_fit);
  F(sc_search_opts, threads);
  F(sc_search_opts, max_plans);
  F(sc_search_opts, max_seconds);
  F(sc_search_opts, rerank);
  F(sc_search_opts, progress);
  F(sc_search_opts, progress_ctx);
  F(sc_search_opts, tp);
  F(sc_search_opts, pp);
  F(sc_search_opts, dp);
  F(sc_search_opts, cp);
  F(sc_search_opts, ep);
  F(sc_search_opts, zero_stages);
  F(sc_search_opts, dtypes);
  F(sc_search_opts, headroom_bytes);
  F(sc_search_opts, headroom_frac);
  F(sc_search_opts, micro_batch);
  F(sc_search_opts, vpp);
  F(sc_search_opts, recompute);
  S(sc_coll_sweep_opts);
  F(sc_coll_sweep_opts, op);
  F(sc_coll_sweep_opts, ranks);
  F(sc_coll_sweep_opts, ranks_per_node);
  F(sc_coll_sweep_opts, arch);
  F(sc_coll_sweep_opts, nvlink_GBps);
  F(sc_coll_sweep_opts, nic_Gbps);
  F(sc_coll_sweep_opts, min_bytes);
  F(sc_coll_sweep_opts, max_bytes);
  F(sc_coll_sweep_opts, factor);
  F(sc_coll_sweep_opts, topo);
  F(sc_coll_sweep_opts, algo);
  F(sc_coll_sweep_opts, gpus_per_thread);
  F(sc_coll_sweep_opts, fabric);
  F(sc_coll_sweep_opts, pcie);
  F(sc_coll_sweep_opts, host_cpu);
  S(sc_trace_whatif);
  F(sc_trace_whatif, dp_scale);
  F(sc_trace_whatif, gpu);
  F(sc_trace_whatif, comm_model);
  F(sc_trace_whatif, overlap);
  F(sc_trace_whatif, nvlink_bw);
  F(sc_trace_whatif, nic_bw);
  F(sc_trace_whatif, ranks_per_node);
  S(sc_predict_json_opts);
  F(sc_predict_json_opts, ops);
  F(sc_predict_json_opts, train_tokens);
  F(sc_predict_json_opts, event);
  F(sc_predict_json_opts, trace);
  F(sc_predict_json_opts, html);
  S(sc_validate_json_opts);
  F(sc_validate_json_opts, event);
  F(sc_validate_json_opts, timings);
  F(sc_validate_json_opts, html);
  S(sc_rs_plan_opts);
  F(sc_rs_plan_opts, top);
  F(sc_rs_plan_opts, exhaustive_max);
  F(sc_rs_plan_opts, local_iters);
  F(sc_rs_plan_opts, max_seconds);
  F(sc_rs_plan_opts, max_evals);
  F(sc_rs_plan_opts, progress);
  F(sc_rs_plan_opts, progress_ctx);
  F(sc_rs_plan_opts, headroom_bytes);
  F(sc_rs_plan_opts, headroom_frac);
  return 0;
}
