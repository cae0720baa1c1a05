/*
 * test_hostlink.c -- activation offloading on a server's shared host
 * path (src/cost/hostlink.c): the per-GPU copy rate with GPUs sharing a
 * PCIe uplink and CPU memory, the exposed copies that rate gives in both
 * engines, the pinned CPU memory the offloaded activations need per
 * server and the plans refused for it, and Megatron's CUDA-graph rule.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "cost/compute.h"
#include "cost/hostlink.h"
#include "predict.h" /* scenario_ok, predict_ok */
#include "stepcast.h"

/* GPT-3 1.3B on 64 A100 of dgx-a100 servers, tp 8, pp 1, offloading
 * `layers` layers; the cluster's host side as the preset gives it. */
static sc_scenario offloading(int layers) {
  sc_scenario s = scenario_ok("{\"model\": \"gpt3-1.3b\", \"cluster\": "
                              "{\"preset\": \"dgx-a100\", \"gpus\": 64}, "
                              "\"plan\": {\"tp\": 8, \"pp\": 1, "
                              "\"global_batch\": 256, \"micro_batch\": 4, "
                              "\"recompute\": \"none\"}}");
  s.plan.dp = 0;
  s.plan.offload_layers = layers;
  return s;
}

static sc_result event(const sc_scenario *s) {
  sc_result r;
  sc_error e = {0};
  sc_event_opts o = {1, 0};
  cr_assert_eq(sc_predict_event(s, &o, &r, NULL, &e), SC_OK, "sc_predict_event: %s", e.msg);
  return r;
}

Test(hostlink, two_gpus_per_uplink_halve_each_gpus_rate) {
  sc_scenario s = offloading(0);
  double own = cost_host_bw(&s.cluster.gpu);
  cr_assert_float_eq(own, 26.28e9, 1, "A100 host link %g", own);
  /* dgx-a100: 2 GPUs per PCIe Gen4 switch, the uplink as fast as a GPU's
   * own link: 26.28 / 2 = 13.14 GB/s each */
  cr_expect_eq(s.cluster.host.gpus_per_link, 2);
  cr_expect_float_eq(hostlink_bw(&s.cluster), 13.14e9, 1, "%g", hostlink_bw(&s.cluster));
  s.cluster.host.gpus_per_link = 1;
  cr_expect_float_eq(hostlink_bw(&s.cluster), 26.28e9, 1);
  /* a 40 GB/s uplink for 4 GPUs: 10 GB/s each */
  s.cluster.host.gpus_per_link = 4, s.cluster.host.link_bw = 40e9;
  cr_expect_float_eq(hostlink_bw(&s.cluster), 10e9, 1);
  /* CPU memory of 64 GB/s for the 8 GPUs: 8 GB/s each, below the rest */
  s.cluster.host.mem_bw = 64e9;
  cr_expect_float_eq(hostlink_bw(&s.cluster), 8e9, 1);
  /* more GPUs per uplink than per server: the server's GPUs share it */
  s.cluster.host.mem_bw = 0, s.cluster.host.link_bw = 0, s.cluster.host.gpus_per_link = 16;
  cr_expect_float_eq(hostlink_bw(&s.cluster), 26.28e9 / 8, 1);
}

/* Where each copy outlasts its layer's compute in both passes (a slow
 * host link), the exposed time is micro-batches x (forward + backward
 * copies) less the compute, so halving the rate adds exactly
 * micro-batches x 2 x offloaded bytes per GPU / own rate. */
Test(hostlink, shared_uplink_adds_the_copies_once_more_in_both_engines) {
  sc_scenario s = offloading(12);
  s.cluster.gpu.host_bw = 0.5e9; /* copies much longer than any layer */
  s.cluster.host.gpus_per_link = 1;
  sc_result own = predict_ok(&s);
  s.cluster.host.gpus_per_link = 2;
  sc_result shared = predict_ok(&s), ev = event(&s);
  cr_assert(own.mem.host > 0);
  double per_gpu = own.mem.host / s.cluster.gpus_per_node; /* bytes, one micro-batch */
  double want = own.micro_batches * 2 * per_gpu / 0.5e9;
  cr_expect_float_eq(shared.time.offload - own.time.offload, want, 1e-6 * want,
                     "shared %g s - own %g s, want %g s", shared.time.offload, own.time.offload,
                     want);
  cr_expect_float_eq(shared.step_s - own.step_s, want, 1e-6 * want);
  cr_expect(fabs(ev.time.offload / shared.time.offload - 1) < 0.02,
            "event offload %g s, closed form %g s", ev.time.offload, shared.time.offload);
  cr_expect(fabs(ev.step_s / shared.step_s - 1) < 0.02, "event %g s, closed %g s", ev.step_s,
            shared.step_s);
}

Test(hostlink, pinned_host_memory_per_server_and_its_refusal) {
  sc_scenario s = offloading(12);
  sc_result r = predict_ok(&s);
  sc_scenario t = offloading(0);
  sc_result none = predict_ok(&t);
  /* dgx-a100: 2 TB per server */
  cr_expect_float_eq(r.mem.host_capacity, 2000e9, 1);
  cr_expect(r.mem.fits, "fits with %g of %g bytes", r.mem.host, r.mem.host_capacity);
  cr_expect_eq(none.mem.host, 0);
  /* 12 of 24 layers leave the GPU: the 8 GPUs' offloaded bytes sit in
   * the server's memory (one layer stays on each GPU as the copy buffer) */
  double per_layer = (r.mem.host / 8) / 12;
  cr_expect_float_eq(none.mem.activations - r.mem.activations, (12 - 1) * per_layer,
                     1e-6 * per_layer, "GPU activations %g -> %g, layer %g",
                     none.mem.activations, r.mem.activations, per_layer);
  /* a server with less CPU memory than that: the plan does not fit */
  s.cluster.host.mem_bytes = r.mem.host - 1;
  sc_result over = predict_ok(&s);
  cr_expect(!over.mem.fits, "host %g > capacity %g yet fits", over.mem.host,
            over.mem.host_capacity);
  cr_expect(over.mem.total <= over.mem.capacity, "the GPU memory alone fits");
  s.cluster.host.mem_bytes = r.mem.host;
  cr_expect(predict_ok(&s).mem.fits);
}

Test(hostlink, search_keeps_no_plan_whose_offload_the_server_cannot_hold) {
  sc_scenario s;
  sc_scenario_default(&s); /* GPT-3 175B on 1,024 A100 */
  s.plan.dp = 0;
  /* a host link so fast that offloading is free: offload plans win */
  s.cluster.gpu.host_bw = 1e15;
  s.cluster.host.mem_bw = 0, s.cluster.host.mem_bytes = 0;
  enum { K = 20 };
  sc_candidate best[K];
  int n = 0, offl = 0;
  sc_search_stats st;
  sc_error err = {0};
  cr_assert_eq(sc_search(&s, NULL, best, K, &n, &st, &err), SC_OK, "%s", err.msg);
  for (int i = 0; i < n; i++) offl += best[i].plan.offload_layers > 0;
  cr_assert(offl > 0, "no offloading plan among the %d best with a free host link", n);
  /* 1 GB of CPU memory per server holds no offloaded layer of GPT-3 */
  s.cluster.host.mem_bytes = 1e9;
  cr_assert_eq(sc_search(&s, NULL, best, K, &n, &st, &err), SC_OK, "%s", err.msg);
  cr_assert(n > 0);
  for (int i = 0; i < n; i++)
    cr_expect(best[i].plan.offload_layers == 0, "plan %d offloads %d layers (%g bytes per server)",
              i, best[i].plan.offload_layers, best[i].result.mem.host);
}

Test(hostlink, offloading_with_cuda_graphs_is_refused_and_not_searched) {
  sc_scenario s = offloading(4);
  s.plan.cuda_graphs = 1;
  sc_result r;
  sc_error e = {0};
  cr_expect_eq(sc_predict(&s, &r, &e), SC_EINPUT);
  cr_expect(strstr(e.msg, "plan.offload_layers") && strstr(e.msg, "cuda_graphs"), "%s", e.msg);
  sc_scenario_default(&s); /* GPT-3 175B on 1,024 A100 */
  s.plan.dp = 0;
  s.plan.cuda_graphs = 1;
  s.cluster.gpu.host_bw = 1e15; /* offloading would win if searched */
  s.cluster.host.mem_bw = 0, s.cluster.host.mem_bytes = 0;
  enum { K = 50 };
  sc_candidate best[K];
  int n = 0;
  sc_search_stats st;
  cr_assert_eq(sc_search(&s, NULL, best, K, &n, &st, &e), SC_OK, "%s", e.msg);
  cr_assert(n > 0);
  cr_expect_eq(st.valid, st.tried, "every plan searched is one Megatron accepts");
  for (int i = 0; i < n; i++) cr_expect_eq(best[i].plan.offload_layers, 0, "plan %d", i);
}

Test(hostlink, scenario_keys_set_the_host_side) {
  sc_scenario s = scenario_ok("{\"cluster\": {\"preset\": \"dgx-h100\", "
                              "\"nodes\": 128, \"host_gpus_per_link\": 4, "
                              "\"host_link_GBps\": 64, \"host_mem_GBps\": 300, "
                              "\"host_RAM_GB\": 1024}}");
  cr_expect_eq(s.cluster.host.gpus_per_link, 4);
  cr_expect_float_eq(s.cluster.host.link_bw, 64e9, 1);
  cr_expect_float_eq(s.cluster.host.mem_bw, 300e9, 1);
  cr_expect_float_eq(s.cluster.host.mem_bytes, 1024e9, 1);
  /* min(51.5 own, 64 / 4 = 16, 300 / 8 = 37.5) */
  cr_expect_float_eq(hostlink_bw(&s.cluster), 16e9, 1);
  sc_scenario d;
  sc_scenario_default(&d);
  sc_error e = {0};
  cr_expect_neq(sc_scenario_load_string(&d, "{\"cluster\": {\"host_mem_GBps\": -1}}", "test",
                                        NULL, 0, &e),
                SC_OK);
  cr_expect(strstr(e.msg, "cluster.host_mem_GBps"), "%s", e.msg);
}

/* Another GPU without a cluster preset is another server: the default
 * DGX A100's host side (2 GPUs per uplink, 409.6 GB/s, 2 TB) and NIC no
 * longer apply; its reference system's do (load/refnet.h: H100 -> DGX H100,
 * each GPU its own uplink, 614.4 GB/s, 2 TB, 400 Gb/s); host keys and
 * nic_Gbps in the same document still win; a GPU no preset server carries
 * keeps the base's NIC with an unlimited host side; a preset's GPU, or an
 * edit of the host side alone, keeps the preset's. */
Test(hostlink, another_gpu_without_a_preset_brings_its_reference_servers_host_side) {
  sc_error e = {0};
  sc_scenario s;
  sc_scenario_default(&s);
  cr_assert_gt(s.cluster.host.mem_bw, 0, "the default dgx-a100 states its host side");
  cr_assert_eq(s.cluster.nic_from[0], 0, "the default states its NIC");
  cr_assert_eq(sc_scenario_load_string(&s, "{\"cluster\": {\"gpu\": \"h100-sxm5-80gb\"}}", "test",
                                       NULL, 0, &e),
               SC_OK, "%s", e.msg);
  cr_expect_eq(s.cluster.host.gpus_per_link, 1);
  cr_expect_float_eq(s.cluster.host.mem_bw, 614.4e9, 1e3);
  cr_expect_float_eq(s.cluster.host.mem_bytes, 2000e9, 1e3);
  cr_expect_float_eq(s.cluster.nic_bw, 400e9 / 8, 1);
  cr_expect_str_eq(s.cluster.nic_from, "dgx-h100, the reference system of h100-sxm5-80gb");
  sc_scenario_default(&s);
  cr_assert_eq(sc_scenario_load_string(&s, "{\"cluster\": {\"gpu\": \"h100-sxm5-80gb\", "
                                           "\"host_RAM_GB\": 512, \"nic_Gbps\": 100}}",
                                       "test", NULL, 0, &e),
               SC_OK, "%s", e.msg);
  cr_expect_float_eq(s.cluster.host.mem_bytes, 512e9, 1);
  cr_expect_float_eq(s.cluster.host.mem_bw, 614.4e9, 1e3);
  cr_expect_float_eq(s.cluster.nic_bw, 100e9 / 8, 1, "a stated NIC is never replaced");
  cr_expect_eq(s.cluster.nic_from[0], 0, "%s", s.cluster.nic_from);
  sc_scenario_default(&s);
  cr_assert_eq(sc_scenario_load_string(&s, "{\"cluster\": {\"gpu\": \"v100-sxm2-16gb\"}, "
                                           "\"plan\": {\"dtype\": \"fp16\"}}",
                                       "test", NULL, 0, &e),
               SC_OK, "%s", e.msg);
  cr_expect_eq(s.cluster.host.gpus_per_link, 0);
  cr_expect_eq(s.cluster.host.mem_bw, 0);
  cr_expect_float_eq(s.cluster.nic_bw, 200e9 / 8, 1);
  cr_expect(strstr(s.cluster.nic_from, "has no reference system"), "%s", s.cluster.nic_from);
  sc_scenario_default(&s);
  cr_assert_eq(sc_scenario_load_string(&s, "{\"cluster\": {\"host_RAM_GB\": 512}}", "test", NULL,
                                       0, &e),
               SC_OK, "%s", e.msg);
  cr_expect_float_eq(s.cluster.host.mem_bw, 409.6e9, 1e3);
  cr_expect_eq(s.cluster.host.gpus_per_link, 2);
  sc_scenario_default(&s);
  cr_assert_eq(sc_scenario_load_string(&s, "{\"cluster\": {\"preset\": \"dgx1-v100\", \"nodes\": 128, "
                                           "\"gpu\": \"v100-sxm2-16gb\"}, "
                                           "\"plan\": {\"dtype\": \"fp16\"}}",
                                       "test", NULL, 0, &e),
               SC_OK, "%s", e.msg);
  cr_expect_float_eq(s.cluster.host.mem_bw, 136.5e9, 1e3);
  cr_expect_float_eq(s.cluster.nic_bw, 50e9 / 8, 1);
  cr_expect_str_eq(s.cluster.nic_from, "dgx1-v100, the scenario's cluster preset");
}

/* The node comes with the reference system too: a GB200 is a tray of 4 in
 * an NVLink domain of 72 (gb200-nvl72), an H100 a server of 8 whose domain
 * follows an edited node size; `nodes` counts the new trays; each of
 * gpus_per_node and nvlink_domain the document states is kept; a preset's
 * GPU keeps the preset's node. */
Test(hostlink, another_gpu_without_a_preset_brings_its_reference_systems_node) {
  sc_error e = {0};
  sc_scenario s;
  sc_scenario_default(&s);
  cr_assert_eq(s.cluster.node_from[0], 0, "the default states its node");
  cr_assert_eq(sc_scenario_load_string(&s, "{\"cluster\": {\"gpu\": \"gb200\", \"nodes\": 32}}",
                                       "test", NULL, 0, &e),
               SC_OK, "%s", e.msg);
  cr_expect_eq(s.cluster.gpus_per_node, 4);
  cr_expect_eq(s.cluster.nvlink_domain, 72);
  cr_expect_eq(s.cluster.gpus, 128, "32 trays of 4");
  cr_expect_str_eq(s.cluster.node_from, "gb200-nvl72, the reference system of gb200");
  sc_scenario_default(&s);
  cr_assert_eq(sc_scenario_load_string(&s, "{\"cluster\": {\"gpu\": \"gb200\", \"gpus_per_node\": 8}}",
                                       "test", NULL, 0, &e),
               SC_OK, "%s", e.msg);
  cr_expect_eq(s.cluster.gpus_per_node, 8, "a stated node size is never replaced");
  cr_expect_eq(s.cluster.nvlink_domain, 72, "the rack's domain where unstated");
  sc_scenario_default(&s);
  cr_assert_eq(sc_scenario_load_string(&s, "{\"cluster\": {\"gpu\": \"gb200\", \"gpus_per_node\": 8, "
                                           "\"nvlink_domain\": 8}}",
                                       "test", NULL, 0, &e),
               SC_OK, "%s", e.msg);
  cr_expect_eq(s.cluster.nvlink_domain, 8);
  cr_expect_eq(s.cluster.node_from[0], 0, "%s", s.cluster.node_from);
  sc_scenario_default(&s);
  cr_assert_eq(sc_scenario_load_string(&s, "{\"cluster\": {\"gpu\": \"h100-sxm5-80gb\", "
                                           "\"gpus_per_node\": 4, \"gpus\": 128}}",
                                       "test", NULL, 0, &e),
               SC_OK, "%s", e.msg);
  cr_assert_eq(sc_scenario_resolve(&s, &e), SC_OK, "%s", e.msg);
  cr_expect_eq(s.cluster.nvlink_domain, 4, "a server's domain follows the node");
  sc_scenario_default(&s);
  cr_assert_eq(sc_scenario_load_string(&s, "{\"cluster\": {\"preset\": \"dgx-h100\", \"nodes\": 16, "
                                           "\"gpu\": \"gb200\"}}",
                                       "test", NULL, 0, &e),
               SC_OK, "%s", e.msg);
  cr_expect_eq(s.cluster.gpus_per_node, 8, "the preset's server");
  cr_expect_eq(s.cluster.node_from[0], 0, "%s", s.cluster.node_from);
  /* whole nodes of the new size, and the error says where 4 came from */
  sc_scenario_default(&s);
  cr_expect_eq(sc_scenario_load_string(&s, "{\"cluster\": {\"gpu\": \"gb200\", \"gpus\": 258}}",
                                       "test", NULL, 0, &e),
               SC_EINPUT);
  cr_expect(strstr(e.msg, "gpus_per_node 4 (gb200-nvl72, the reference system of gb200)"), "%s",
            e.msg);
}
