/*
 * test_trace.c -- profiles to predictions: the Kineto loader (errors name
 * the file and the key path or line:column, never a crash), the replay of
 * small synthetic traces with hand-computed answers (one rank, two ranks
 * joined on their collective), what-if changes that move only what they
 * should, and the replay of every real multi-step Kineto trace of
 * ../shared/traces within 5 % of its measured ProfilerStep.
 */
#include <criterion/criterion.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "stepcast.h"
#include "tmpfile.h"

#define DATA SC_SOURCE_DIR "/tests/data/trace/"
#define TRACES SC_SHARED_DIR "/traces/"

static sc_trace *load(const char *path) {
  sc_trace *t = NULL;
  sc_error err = {0};
  int rc = sc_trace_load(&path, 1, NULL, NULL, &t, &err);
  cr_assert_eq(rc, SC_OK, "loading %s: %s", path, err.msg);
  return t;
}

static sc_trace_result replay(sc_trace *t, const sc_trace_whatif *w) {
  sc_trace_result r;
  sc_error err = {0};
  cr_assert_eq(sc_trace_replay(t, w, &r, &err), SC_OK, "%s", err.msg);
  return r;
}

/* Load a trace written from text; the error (code and message). */
static int load_text(const char *text, sc_error *err) {
  char path[64];
  snprintf(path, sizeof path, "/tmp/sc_trace_%d.json", (int)getpid());
  file_write(path, text);
  sc_trace *t = NULL;
  const char *p = path;
  int rc = sc_trace_load(&p, 1, NULL, NULL, &t, err);
  if (rc == SC_OK) {
    sc_trace_result r;
    rc = sc_trace_replay(t, NULL, &r, err);
  }
  sc_trace_close(t);
  unlink(path);
  return rc;
}

#define US 1e-6

/* tests/data/trace/synth_1rank.json: a 1000 us step: gemm 300 us and an
 * elementwise kernel 200 us on stream 7, then an all-reduce of 40 MB over
 * 8 ranks, 400 us, on stream 20 waiting for them, and a device
 * synchronize that returns 10 us after it and 70 us before the step ends.
 * Critical path: host 10 (first launch) + 10 (launch latency) + 70,
 * kernels 300 + 200, communication 400, synchronisation 10. */
Test(trace, synthetic_replay_is_hand_computed) {
  sc_trace *t = load(DATA "synth_1rank.json");
  sc_trace_result r = replay(t, NULL);
  cr_assert_eq(r.steps, 1);
  cr_assert_float_eq(r.measured_step_s, 1000 * US, 1e-12);
  cr_assert_float_eq(r.predicted_step_s, 1000 * US, 1e-9, "predicted %g", r.predicted_step_s);
  cr_assert_float_eq(r.path.kernels, 500 * US, 1e-9, "kernels %g", r.path.kernels);
  cr_assert_float_eq(r.path.comm, 400 * US, 1e-9, "comm %g", r.path.comm);
  cr_assert_float_eq(r.path.host, 90 * US, 1e-9, "host %g", r.path.host);
  cr_assert_float_eq(r.path.sync, 10 * US, 1e-9, "sync %g", r.path.sync);
  cr_assert_str_eq(r.path.bound, "kernels");
  cr_assert_float_eq(r.gpu_busy_s, 900 * US, 1e-9, "GPU busy 20..920 us: %g", r.gpu_busy_s);
  sc_trace_info in;
  sc_trace_info_get(t, &in);
  cr_assert_eq(in.kernels, 2);
  cr_assert_eq(in.collectives, 1);
  cr_assert_eq(in.arch, 70);
  sc_trace_close(t);
}

/* NCCL's seconds for the synthetic traces' all-reduce of 4e7 bytes over
 * `ranks` V100s, ppn a node, on nic bytes/s: the network defaults of
 * docs/trace.md (V100 NVLink 150 GB/s, 0.6 and 2.7 us latencies). */
static double synth_allreduce_s(int ranks, int ppn, double nic) {
  sc_coll_group g = {ranks, ppn, 70, 150e9, nic, 0.6e-6, 2.7e-6, 0, 1, 0, 0, 0};
  return sc_coll_nccl_time(SC_COLL_ALL_REDUCE, 4e7, &g).time;
}

/* Doubling the data-parallel degree re-times the all-reduce (8 -> 16
 * ranks: a second node) by NCCL's model and moves nothing else. */
Test(trace, doubling_dp_changes_only_the_collective) {
  sc_trace *t = load(DATA "synth_1rank.json");
  sc_trace_result base = replay(t, NULL);
  sc_trace_whatif w;
  sc_trace_whatif_default(&w);
  w.dp_scale = 2;
  sc_trace_result x = replay(t, &w);
  double ratio = synth_allreduce_s(16, 8, 25e9) / synth_allreduce_s(8, 8, 25e9);
  cr_assert_gt(ratio, 1.0, "a second node must cost more: ratio %g", ratio);
  double comm = 400 * US * ratio;
  cr_assert_float_eq(x.comm_predicted_s, comm, 1e-9, "comm %g want %g", x.comm_predicted_s, comm);
  cr_assert_float_eq(x.predicted_step_s, base.predicted_step_s + comm - 400 * US, 1e-9);
  cr_assert_float_eq(x.path.kernels, base.path.kernels, 1e-12);
  cr_assert_float_eq(x.path.host, base.path.host, 1e-12);
  cr_assert_eq(x.comm_retimed, 1);
  cr_assert_eq(x.kernels_scaled, 0);
  sc_trace_close(t);
}

/* One rank's all-reduce of 4 ms, far beyond NCCL's time for its 4e7
 * bytes on 8 V100s (synth_wait.json: synth_1rank.json with the kernel
 * 10x longer): the excess is waiting for the other 7 ranks, which the
 * replay lacks. Doubling the data-parallel degree adds the model's
 * difference (16 ranks - 8 ranks) and keeps the wait; it scaled the
 * whole 4 ms by the ratio, the wait with it. */
Test(trace, a_rank_alone_keeps_its_collectives_wait) {
  sc_trace *t = load(DATA "synth_wait.json");
  sc_trace_whatif w;
  sc_trace_whatif_default(&w);
  w.nic_bw = 25e9, w.ranks_per_node = 8, w.dp_scale = 2; /* the defaults, said */
  sc_trace_result x = replay(t, &w);
  double then = synth_allreduce_s(8, 8, 25e9), now = synth_allreduce_s(16, 8, 25e9);
  cr_assert_lt(then, 4000 * US, "the model's time as traced %g s is under the kernel's", then);
  double comm = 4000 * US - then + now;
  cr_assert_float_eq(x.comm_predicted_s, comm, 1e-9, "comm %g want %g (the whole scaled: %g)",
                     x.comm_predicted_s, comm, 4000 * US * now / then);
  cr_assert_float_eq(x.predicted_step_s, 4600 * US + now - then, 1e-9, "step %g",
                     x.predicted_step_s);
  cr_assert_eq(x.comm_retimed, 1);
  /* the same 8 ranks one per server on 400 Gb/s NICs: the model's
   * difference again, the wait kept */
  sc_trace_whatif_default(&w);
  w.nic_bw = 50e9, w.ranks_per_node = 1;
  x = replay(t, &w);
  now = synth_allreduce_s(8, 1, 50e9);
  cr_assert_float_eq(x.comm_predicted_s, 4000 * US - then + now, 1e-9, "comm %g",
                     x.comm_predicted_s);
  sc_trace_close(t);
}

/* A collective kernel without size args takes it from the nccl:all_reduce
 * annotation around its launch (10,000,000 floats): the same what-if as
 * when the kernel says so. */
Test(trace, size_from_the_nccl_annotation) {
  sc_trace *a = load(DATA "synth_1rank.json"), *b = load(DATA "synth_annot.json");
  sc_trace_whatif w;
  sc_trace_whatif_default(&w);
  w.dp_scale = 2;
  sc_trace_result x = replay(a, &w), y = replay(b, &w);
  cr_assert_eq(y.comm_unsized, 0);
  cr_assert_eq(y.comm_retimed, 1);
  cr_assert_float_eq(y.predicted_step_s, x.predicted_step_s, 1e-12, "%g vs %g", y.predicted_step_s,
                     x.predicted_step_s);
  sc_trace_close(a);
  sc_trace_close(b);
}

/* Another GPU scales the kernels (not the host); the same GPU changes nothing. */
Test(trace, another_gpu_scales_kernels) {
  sc_trace *t = load(DATA "synth_1rank.json");
  sc_trace_result base = replay(t, NULL);
  sc_trace_whatif w;
  sc_trace_whatif_default(&w);
  w.gpu = "v100-sxm2-32gb";
  sc_trace_result same = replay(t, &w);
  cr_assert_float_eq(same.path.kernels, base.path.kernels, 1e-12);
  w.gpu = "h100-sxm5-80gb";
  sc_trace_result x = replay(t, &w);
  cr_assert_eq(x.kernels_scaled, 2);
  cr_assert_lt(x.path.kernels, base.path.kernels / 2, "H100 kernels %g vs V100 %g", x.path.kernels,
               base.path.kernels);
  cr_assert_float_eq(x.path.host, base.path.host, 1e-12);
  w.gpu = "no-such-gpu";
  sc_trace_result bad;
  sc_error err = {0};
  cr_assert_eq(sc_trace_replay(t, &w, &bad, &err), SC_EINPUT);
  cr_assert(strstr(err.msg, "no-such-gpu"), "%s", err.msg);
  sc_trace_close(t);
}

/* Two ranks: rank 1 reaches the all-reduce last (at 600 us) and its
 * kernel takes 320 us; joined, both start at 600 and end at 920, and the
 * step stays 1000 us. Files in any order (ranks are sorted). */
static void joined_two_ranks(const char *first, const char *second) {
  const char *files[] = {first, second};
  sc_trace *t = NULL;
  sc_error err = {0};
  cr_assert_eq(sc_trace_load(files, 2, NULL, NULL, &t, &err), SC_OK, "%s", err.msg);
  sc_trace_result r = replay(t, NULL);
  cr_assert_eq(r.coupled, 1);
  cr_assert_eq(r.steps, 2);
  cr_assert_float_eq(r.predicted_step_s, 1000 * US, 1e-9, "%g", r.predicted_step_s);
  cr_assert_float_eq(r.comm_measured_s, 400 * US, 1e-9); /* rank 0's, as traced */
  cr_assert_float_eq(r.comm_predicted_s, 320 * US, 1e-9, "%g", r.comm_predicted_s);
  sc_trace_close(t);
}

Test(trace, two_ranks_join_their_collective) {
  joined_two_ranks(DATA "synth_2rank_r1.json", DATA "synth_2rank_r0.json");
}

/* Rank 1's host clock 5 ms ahead: aligned on the joined collective's
 * end, the replay is the same as with one clock. */
Test(trace, clocks_aligned_on_collectives) {
  joined_two_ranks(DATA "synth_2rank_r0.json", DATA "synth_2rank_r1_skew.json");
}

/* Overlap off on a trace whose operations already run one at a time. */
Test(trace, overlap_off_serialises) {
  sc_trace *t = load(DATA "synth_1rank.json");
  sc_trace_whatif w;
  sc_trace_whatif_default(&w);
  w.overlap = 0;
  sc_trace_result x = replay(t, &w);
  cr_assert_float_eq(x.predicted_step_s, 1000 * US, 1e-9);
  sc_trace_close(t);
}

/* The Perfetto export is JSON with one event per replayed operation. */
Test(trace, perfetto_export_is_json) {
  sc_trace *t = load(DATA "synth_1rank.json");
  replay(t, NULL);
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  sc_trace_write_perfetto(t, f);
  fclose(f);
  json_error_t je;
  json_t *root = json_loads(buf, 0, &je);
  cr_assert_not_null(root, "%s at %d:%d", je.text, je.line, je.column);
  json_t *ev = json_object_get(root, "traceEvents");
  size_t kernels = 0;
  for (size_t i = 0; i < json_array_size(ev); i++)
    kernels +=
        !strcmp(json_string_value(json_object_get(json_array_get(ev, i), "cat")) ?: "", "kernel");
  cr_assert_eq(kernels, 2);
  json_decref(root);
  free(buf);
  sc_trace_close(t);
}

Test(trace, errors_name_the_place) {
  sc_error err = {0};
  cr_assert_eq(load_text("{\"traceEvents\": [{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", "
                         "\"ts\": 1, \"dur\": -3}]}",
                         &err),
               SC_EINPUT);
  cr_assert(strstr(err.msg, "traceEvents[0].dur"), "%s", err.msg);
  cr_assert_eq(load_text("{\"traceEvents\": [\n{\"ph\": \"X\",", &err), SC_EINPUT);
  cr_assert(strstr(err.msg, ":2:"), "line in %s", err.msg);
  cr_assert_eq(load_text("{\"nodes\": []}", &err), SC_EINPUT);
  cr_assert(strstr(err.msg, "execution trace"), "%s", err.msg);
  cr_assert_eq(
      load_text("{\"traceEvents\": [{\"ph\": \"X\", \"cat\": \"kernel\", \"ts\": 1}]}", &err),
      SC_EINPUT);
  cr_assert(strstr(err.msg, "traceEvents[0].name"), "%s", err.msg);
  /* nothing on a GPU: a clear refusal, not a crash */
  cr_assert_eq(load_text("{\"traceEvents\": []}", &err), SC_EMODEL);
  cr_assert(strstr(err.msg, "no GPU work"), "%s", err.msg);
  /* unknown categories are skipped with a warning */
  cr_assert_eq(
      load_text("{\"traceEvents\": [{\"ph\": \"X\", \"cat\": \"mystery\", \"name\": \"m\", "
                "\"ts\": 1, \"dur\": 1}, {\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", "
                "\"ts\": 1, \"dur\": 1, \"args\": {\"stream\": 7}}]}",
                &err),
      SC_OK, "%s", err.msg);
  const char *missing = "/nonexistent/trace.json";
  sc_trace *t = NULL;
  cr_assert_eq(sc_trace_load(&missing, 1, NULL, NULL, &t, &err), SC_EIO);
  cr_assert_null(t);
}

/* A truncated gzip stream is an error naming the file. */
Test(trace, truncated_gzip) {
  char cmd[512], path[64];
  snprintf(path, sizeof path, "/tmp/sc_trace_trunc_%d.json.gz", (int)getpid());
  snprintf(cmd, sizeof cmd, "gzip -c %s | head -c 300 > %s", DATA "synth_1rank.json", path);
  cr_assert_eq(system(cmd), 0);
  sc_trace *t = NULL;
  sc_error err = {0};
  const char *p = path;
  cr_assert_eq(sc_trace_load(&p, 1, NULL, NULL, &t, &err), SC_EINPUT);
  cr_assert(strstr(err.msg, path), "%s", err.msg);
  unlink(path);
}

/* ------------------------------------------------ real traces (shared) */

static void shared_exists(const char *path) {
  cr_assert_eq(access(path, R_OK), 0,
               "%s is missing: these tests need ../shared/traces (see ../shared/traces/SOURCES.md)",
               path);
}

/* Replay of a real trace within 5 % of its mean ProfilerStep. */
static void within_5pct(const char *name) {
  char path[512];
  snprintf(path, sizeof path, "%s%s", TRACES, name);
  shared_exists(path);
  sc_trace *t = load(path);
  sc_trace_result r = replay(t, NULL);
  cr_assert_gt(r.steps, 1, "%s: a multi-step trace", name);
  double err = fabs(r.predicted_step_s / r.measured_step_s - 1);
  cr_assert_lt(err, 0.05, "%s: measured %.3f ms, replayed %.3f ms (%.1f %%)", name,
               r.measured_step_s * 1e3, r.predicted_step_s * 1e3, 100 * err);
  sc_trace_close(t);
}

Test(trace_real, resnet50_2021_categories) {
  within_5pct("kineto_tb_plugin_resnet50/worker0.1623143566756.pt.trace.json.gz");
}
Test(trace_real, a100_nccl_2rank) { within_5pct("hta/nccl_parser_config/nccl_data.json.gz"); }
Test(trace_real, a100_16rank) {
  within_5pct("hta/negative_queue_length_values_check/rank0.json.gz");
}
Test(trace_real, v100_ddp) { within_5pct("hta/df_index_resolver/df_index_resolver.json.gz"); }
Test(trace_real, a100_8rank_control) { within_5pct("hta/trace_diff/control.json.gz"); }
Test(trace_real, mi250_rocm_toy) {
  within_5pct("hta/amd_trace/mi250_minitoy_train_ROCm6_2_kineto.json.gz");
}

/* The 8-rank DLRM set is one job: its collectives are joined. */
Test(trace_real, dlrm_8rank_one_job) {
  const char *tgz = TRACES "param_dlrm_8rank_v100/dlrm_kineto.tar.gz";
  shared_exists(tgz);
  char dir[64], cmd[256];
  snprintf(dir, sizeof dir, "/tmp/sc_dlrm_%d", (int)getpid());
  snprintf(cmd, sizeof cmd, "mkdir -p %s && tar xzf %s -C %s", dir, tgz, dir);
  cr_assert_eq(system(cmd), 0, "%s", cmd);
  char paths[8][256];
  const char *files[8];
  for (int i = 0; i < 8; i++) {
    snprintf(cmd, sizeof cmd, "ls %s/dlrm_kineto/worker%d_*.json", dir, i);
    FILE *p = popen(cmd, "r");
    cr_assert(p && fgets(paths[i], sizeof paths[i], p), "%s", cmd);
    pclose(p);
    paths[i][strcspn(paths[i], "\n")] = '\0';
    files[i] = paths[i];
  }
  sc_trace *t = NULL;
  sc_error err = {0};
  cr_assert_eq(sc_trace_load(files, 8, NULL, NULL, &t, &err), SC_OK, "%s", err.msg);
  sc_trace_result r = replay(t, NULL);
  cr_assert_eq(r.steps, 8);
  cr_assert_gt(r.coupled, 0);
  double e = fabs(r.predicted_step_s / r.measured_step_s - 1);
  cr_assert_lt(e, 0.05, "measured %g replayed %g", r.measured_step_s, r.predicted_step_s);
  sc_trace_close(t);
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  cr_assert_eq(system(cmd), 0);
}

/* Edge cases: a 64-bit overflowing id loads; the AMD trace is ROCm. */
Test(trace_real, overflowing_id_and_amd) {
  shared_exists(TRACES "hta/large_integer_trace/rank-70.pt.trace.json.gz");
  sc_trace *t = load(TRACES "hta/large_integer_trace/rank-70.pt.trace.json.gz");
  sc_trace_close(t);
  t = load(TRACES "hta/amd_trace/mi250_minitoy_train_ROCm6_2_kineto.json.gz");
  sc_trace_info in;
  sc_trace_info_get(t, &in);
  cr_assert(in.amd);
  cr_assert_gt(in.kernels, 0);
  sc_trace_close(t);
}

/* The Chakra ET of the feeder tests loads with the node counts of
 * SOURCES.md (3,643 COMP and 21 COMM_COLL nodes) and replays. */
Test(trace_real, chakra_feeder_counts) {
  const char *tgz = TRACES "chakra/feeder_tests_trace.tar.gz";
  shared_exists(tgz);
  char dir[64], cmd[256], path[128];
  snprintf(dir, sizeof dir, "/tmp/sc_chakra_%d", (int)getpid());
  snprintf(cmd, sizeof cmd, "mkdir -p %s && tar xzf %s -C %s", dir, tgz, dir);
  cr_assert_eq(system(cmd), 0, "%s", cmd);
  snprintf(path, sizeof path, "%s/tests/data/chakra.0.et", dir);
  sc_trace *t = load(path);
  sc_trace_info in;
  sc_trace_info_get(t, &in);
  cr_assert(in.chakra);
  cr_assert_eq(in.et_comp, 3643);
  cr_assert_eq(in.et_comm_coll, 21);
  sc_trace_result r = replay(t, NULL);
  cr_assert_gt(r.predicted_step_s, 0);
  cr_assert_geq(r.predicted_step_s, r.comm_measured_s / 21, "longer than one collective");
  sc_trace_close(t);
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  cr_assert_eq(system(cmd), 0);
}

/* ASTRA-sim's 8-rank all-reduce microbenchmark: one 1 MiB all-reduce
 * per rank with no duration: its time is NCCL's model over 8 ranks
 * (unknown device: sm80 tables, NVLink 150 GB/s, the defaults). */
Test(trace_real, chakra_astra_allreduce) {
  char paths[8][256];
  const char *files[8];
  for (int i = 0; i < 8; i++) {
    snprintf(paths[i], sizeof paths[i],
             TRACES "astra_sim_microbench_allreduce_8npus_1MB/all_reduce.%d.et", i);
    shared_exists(paths[i]);
    files[i] = paths[i];
  }
  sc_trace *t = NULL;
  sc_error err = {0};
  cr_assert_eq(sc_trace_load(files, 8, NULL, NULL, &t, &err), SC_OK, "%s", err.msg);
  sc_trace_info in;
  sc_trace_info_get(t, &in);
  cr_assert_eq(in.et_comm_coll, 8);
  sc_trace_result r = replay(t, NULL);
  sc_coll_group g8 = {8, 8, 80, 150e9, 25e9, 0.6e-6, 2.7e-6, 0, 1, 0, 0, 0};
  double want = sc_coll_nccl_time(SC_COLL_ALL_REDUCE, 1048576, &g8).time;
  cr_assert_float_eq(r.predicted_step_s, want, 1e-12, "%g vs %g", r.predicted_step_s, want);
  cr_assert_str_eq(r.path.bound, "communication");
  sc_trace_close(t);
}

/* ------------------------------------- execution traces, graph export */

/* Write every rank of t with sc_trace_write_graph, load the files back
 * and check that the replay (as traced and under w) is the same. */
static void round_trip(sc_trace *t, const sc_trace_whatif *w) {
  sc_trace_info in;
  sc_trace_info_get(t, &in);
  cr_assert_leq(in.ranks, 16);
  char paths[16][64];
  const char *files[16];
  for (int r = 0; r < in.ranks; r++) {
    snprintf(paths[r], sizeof paths[r], "/tmp/sc_graph_%d_%d.json", (int)getpid(), r);
    files[r] = paths[r];
    FILE *f = fopen(paths[r], "w");
    cr_assert_not_null(f);
    sc_error err = {0};
    cr_assert_eq(sc_trace_write_graph(t, r, f, &err), SC_OK, "%s", err.msg);
    fclose(f);
  }
  sc_trace *back = NULL;
  sc_error err = {0};
  cr_assert_eq(sc_trace_load(files, in.ranks, NULL, NULL, &back, &err), SC_OK, "%s", err.msg);
  sc_trace_info bi;
  sc_trace_info_get(back, &bi);
  cr_assert_eq(bi.kernels, in.kernels);
  cr_assert_eq(bi.collectives, in.collectives);
  cr_assert_eq(bi.steps, in.steps);
  cr_assert_eq(bi.arch, in.arch);
  for (int pass = 0; pass < 2; pass++) {
    const sc_trace_whatif *x = pass ? w : NULL;
    if (pass && !w) break;
    sc_trace_result a = replay(t, x), b = replay(back, x);
    cr_assert_float_eq(b.predicted_step_s, a.predicted_step_s, 1e-9 * a.predicted_step_s + 1e-15,
                       "pass %d: %.9g read back vs %.9g", pass, b.predicted_step_s,
                       a.predicted_step_s);
    cr_assert_float_eq(b.comm_predicted_s, a.comm_predicted_s, 1e-9 * a.comm_predicted_s + 1e-15);
    cr_assert_eq(b.comm_retimed, a.comm_retimed);
    cr_assert_eq(b.coupled, a.coupled);
  }
  sc_trace_close(back);
  for (int r = 0; r < in.ranks; r++) unlink(paths[r]);
}

/* The exported graph of the synthetic trace is Kineto JSON that loads
 * into the same graph: same replay, as traced and with twice the DP;
 * an edit (the all-reduce 400 -> 200 us) moves the step by 200 us. */
Test(trace, graph_export_round_trip) {
  sc_trace *t = load(DATA "synth_1rank.json");
  sc_trace_whatif w;
  sc_trace_whatif_default(&w);
  w.dp_scale = 2;
  round_trip(t, &w);
  char path[64];
  snprintf(path, sizeof path, "/tmp/sc_graph_edit_%d.json", (int)getpid());
  FILE *f = fopen(path, "w");
  sc_error err = {0};
  cr_assert_eq(sc_trace_write_graph(t, 0, f, &err), SC_OK);
  fclose(f);
  cr_assert_eq(sc_trace_write_graph(t, 1, stdout, &err), SC_EINPUT, "rank out of range");
  cr_assert(strstr(err.msg, "rank 1"), "%s", err.msg);
  json_error_t je;
  json_t *root = json_load_file(path, 0, &je);
  cr_assert_not_null(root, "%s at %d:%d", je.text, je.line, je.column);
  json_t *ev = json_object_get(root, "traceEvents");
  int edited = 0;
  for (size_t i = 0; i < json_array_size(ev); i++) {
    json_t *e = json_array_get(ev, i);
    const char *n = json_string_value(json_object_get(e, "name"));
    if (n && !strncmp(n, "ncclKernel_AllReduce", 20)) {
      cr_assert_float_eq(json_number_value(json_object_get(e, "dur")), 400, 1e-9);
      json_object_set_new(e, "dur", json_real(200)), edited++;
    }
  }
  cr_assert_eq(edited, 1);
  cr_assert_eq(json_dump_file(root, path, 0), 0);
  json_decref(root);
  sc_trace *ed = load(path);
  sc_trace_result a = replay(t, NULL), b = replay(ed, NULL);
  cr_assert_float_eq(b.predicted_step_s, a.predicted_step_s - 200 * US, 1e-9, "%.9g vs %.9g",
                     b.predicted_step_s, a.predicted_step_s);
  sc_trace_close(ed);
  sc_trace_close(t);
  unlink(path);
}

/* tests/data/trace/synth_et.json with its Kineto trace (pid 7): a 100 us
 * step; aten::mm (5..25 us) launches a 30 us GEMM at 10 us that starts at
 * 20, aten::add (40..60) an elementwise kernel that starts at 55; the ET
 * also has aten::relu, which the Kineto trace lacks. Joined, the host
 * items are the two operators (the launches folded into them), the GEMM
 * is launched by aten::mm 15 us after its start, and the replay is the
 * Kineto one: 100 us. */
Test(trace, execution_trace_join_synthetic) {
  const char *files[] = {DATA "synth_et.json", DATA "synth_et_kineto.json"};
  sc_trace *k = load(DATA "synth_et_kineto.json"), *t = NULL;
  sc_error err = {0};
  cr_assert_eq(sc_trace_load(files, 2, NULL, NULL, &t, &err), SC_OK, "%s", err.msg);
  sc_trace_info in, kin;
  sc_trace_info_get(t, &in);
  sc_trace_info_get(k, &kin);
  cr_assert_eq(in.et_ops, 3);
  cr_assert_eq(in.et_matched, 2);
  cr_assert_eq(in.host_calls, 2, "the two operators, their launches folded in");
  cr_assert_eq(in.kernels, 2);
  cr_assert_eq(kin.et_ops, 0);
  cr_assert(strstr(sc_trace_warnings(t), "1 of 3 operators") &&
                strstr(sc_trace_warnings(t), "aten::relu"),
            "%s", sc_trace_warnings(t));
  sc_trace_result a = replay(k, NULL), b = replay(t, NULL);
  cr_assert_float_eq(a.predicted_step_s, 100 * US, 1e-12, "%g", a.predicted_step_s);
  cr_assert_float_eq(b.predicted_step_s, 100 * US, 1e-12, "%g", b.predicted_step_s);
  cr_assert_float_eq(b.gpu_busy_s, 40 * US, 1e-12, "GEMM 20..50, add 55..65: %g", b.gpu_busy_s);
  /* another GPU scales the kernels of the joined graph too */
  sc_trace_whatif w;
  sc_trace_whatif_default(&w);
  w.gpu = "h100-sxm5-80gb";
  sc_trace_result c = replay(t, &w);
  cr_assert_eq(c.kernels_scaled, 2);
  round_trip(t, NULL);
  sc_trace_close(k);
  sc_trace_close(t);
}

/* Execution-trace errors name the node, and an ET needs its Kineto trace. */
Test(trace, execution_trace_errors) {
  sc_error err = {0};
  cr_assert_eq(load_text("{\"schema\": \"1.0.1\", \"pid\": 7, \"nodes\": [{\"id\": 1, \"name\": "
                         "\"aten::mm\"}, {\"name\": \"aten::add\"}]}",
                         &err),
               SC_EINPUT);
  cr_assert(strstr(err.msg, "nodes[1].id"), "%s", err.msg);
  cr_assert_eq(load_text("{\"schema\": \"1.0.1\", \"nodes\": [{\"id\": 1,\n \"name\": }]}", &err),
               SC_EINPUT);
  cr_assert(strstr(err.msg, ":2:"), "line in %s", err.msg);
  cr_assert_eq(load_text("{\"schema\": \"1.0.1\", \"pid\": 7, \"nodes\": [{\"id\": 1, \"name\": "
                         "\"aten::mm\", \"rf_id\": 1e30, \"tid\": 1}]}",
                         &err),
               SC_EINPUT);
  cr_assert(strstr(err.msg, "no durations") && strstr(err.msg, "Kineto"), "%s", err.msg);
  /* an ET with a Kineto trace of another process */
  const char *files[] = {DATA "synth_1rank.json", DATA "synth_et_other_pid.json"};
  sc_trace *t = NULL;
  cr_assert_eq(sc_trace_load(files, 2, NULL, NULL, &t, &err), SC_EINPUT);
  cr_assert(strstr(err.msg, "no Kineto trace of process 4242"), "%s", err.msg);
}

/* Unpack tgz into a fresh folder; the paths of its files matching
 * pattern (a shell glob below the folder), sorted, in paths[n]. */
static int unpack(const char *tgz, const char *tag, const char *pattern, char paths[][256], int n) {
  shared_exists(tgz);
  char dir[64], cmd[512];
  snprintf(dir, sizeof dir, "/tmp/sc_%s_%d", tag, (int)getpid());
  snprintf(cmd, sizeof cmd, "mkdir -p %s && tar xzf %s -C %s 2>/dev/null", dir, tgz, dir);
  cr_assert_eq(system(cmd), 0, "%s", cmd);
  snprintf(cmd, sizeof cmd, "ls %s/%s | sort -V", dir, pattern);
  FILE *p = popen(cmd, "r");
  cr_assert_not_null(p);
  int k = 0;
  while (k < n && fgets(paths[k], 256, p)) paths[k][strcspn(paths[k], "\n")] = '\0', k++;
  pclose(p);
  return k;
}

static void rm_unpacked(const char *tag) {
  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf /tmp/sc_%s_%d", tag, (int)getpid());
  cr_assert_eq(system(cmd), 0);
}

/* The DLRM Kineto traces and their PyTorch execution traces (the same
 * run, 8 ranks) replay to the same step within 2 %; every ET operator is
 * found in its Kineto trace. Both graphs survive the export round trip,
 * with their collectives' sizes (dp x 2 re-times them). */
Test(trace_real, dlrm_execution_traces_within_2pct) {
  char paths[16][256];
  cr_assert_eq(unpack(TRACES "param_dlrm_8rank_v100/dlrm_kineto.tar.gz", "dlrm_k",
                      "dlrm_kineto/worker*.json", paths, 8),
               8);
  cr_assert_eq(unpack(TRACES "param_dlrm_8rank_v100/dlrm_pytorch_et.tar.gz", "dlrm_e",
                      "dlrm_pytorch_et/dlrm_eg_*.json", paths + 8, 8),
               8);
  const char *files[16];
  for (int i = 0; i < 16; i++) files[i] = paths[i];
  sc_trace *k = NULL, *ke = NULL;
  sc_error err = {0};
  cr_assert_eq(sc_trace_load(files, 8, NULL, NULL, &k, &err), SC_OK, "%s", err.msg);
  cr_assert_eq(sc_trace_load(files, 16, NULL, NULL, &ke, &err), SC_OK, "%s", err.msg);
  sc_trace_info in;
  sc_trace_info_get(ke, &in);
  cr_assert_eq(in.ranks, 8);
  cr_assert_eq(in.et_ops, 8 * 1672, "operators of the 8 ETs: %ld", in.et_ops);
  cr_assert_geq(in.et_matched, in.et_ops * 99 / 100, "%ld of %ld", in.et_matched, in.et_ops);
  sc_trace_result a = replay(k, NULL), b = replay(ke, NULL);
  cr_assert_eq(b.coupled, a.coupled, "one job: collectives joined");
  double e = fabs(b.predicted_step_s / a.predicted_step_s - 1);
  cr_assert_lt(e, 0.02, "Kineto %.4f ms, ET %.4f ms", a.predicted_step_s * 1e3,
               b.predicted_step_s * 1e3);
  sc_trace_whatif w;
  sc_trace_whatif_default(&w);
  w.dp_scale = 2;
  round_trip(k, &w);
  round_trip(ke, &w);
  sc_trace_close(k);
  sc_trace_close(ke);
  rm_unpacked("dlrm_k");
  rm_unpacked("dlrm_e");
}

/* HTA's simple-add benchmark: an ET and its Kineto trace (same pid)
 * join with every operator found; the ET alone is refused. */
Test(trace_real, execution_trace_pair) {
  const char *files[] = {TRACES "hta/execution_trace/benchmark_simple_add_et.json.gz",
                         TRACES "hta/execution_trace/benchmark_simple_add_trace.json.gz"};
  shared_exists(files[0]);
  sc_trace *t = NULL;
  sc_error err = {0};
  cr_assert_eq(sc_trace_load(files, 2, NULL, NULL, &t, &err), SC_OK, "%s", err.msg);
  sc_trace_info in;
  sc_trace_info_get(t, &in);
  cr_assert_eq(in.et_ops, 36, "38 nodes less the 2 profiler markers: %ld", in.et_ops);
  cr_assert_eq(in.et_matched, 36);
  cr_assert_eq(in.kernels, 4);
  sc_trace_result r = replay(t, NULL);
  cr_assert_gt(r.span_s, 0);
  sc_trace_close(t);
  const char *alone = TRACES "param_resnet_2gpu_et/resnet_2gpu_et.json.gz";
  cr_assert_eq(sc_trace_load(&alone, 1, NULL, NULL, &t, &err), SC_EINPUT);
  cr_assert(strstr(err.msg, "no durations"), "%s", err.msg);
}
