/*
 * cmd_presets.c -- `stepcast presets`: list what can be named.
 */
#include <stdio.h>

#include "cli.h"
#include "stepcast.h"

int cmd_presets(int argc, char **argv) {
  (void)argc;
  (void)argv;
  printf("GPUs (cluster.gpu):\n");
  for (size_t i = 0; i < sc_gpu_preset_count(); i++) {
    const sc_gpu *g = sc_gpu_preset_at(i);
    printf("  %-16s %7.0f TFLOP/s bf16/fp16  %6.0f GB  %5.2f TB/s HBM  %4.0f GB/s NVLink\n",
           g->name, (g->peak_flops[SC_BF16] > 0 ? g->peak_flops[SC_BF16] : g->peak_flops[SC_FP16]) / 1e12,
           g->hbm_bytes / 1e9, g->hbm_bw / 1e12, g->nvlink_bw / 1e9);
  }
  printf("\nModels (model):\n");
  for (size_t i = 0; i < sc_model_preset_count(); i++) {
    const sc_model *m = sc_model_preset_at(i);
    printf("  %-16s %8.1fB params  %3d layers  hidden %5d  heads %3d/%-3d  seq %d\n", m->name,
           sc_model_params(m) / 1e9, m->tf.layers, m->tf.hidden, m->tf.heads, m->tf.kv_heads, m->tf.seq);
  }
  printf("\nClusters (cluster.preset):\n");
  for (size_t i = 0; i < sc_cluster_preset_count(); i++) {
    const sc_cluster *c = sc_cluster_preset_at(i);
    printf("  %-16s %s, %d GPUs per node, NVLink domain %d, NIC %.0f Gb/s per GPU\n", c->name,
           c->gpu.name, c->gpus_per_node, c->nvlink_domain, c->nic_bw * 8 / 1e9);
  }
  return 0;
}
