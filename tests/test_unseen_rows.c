/*
 * test_unseen_rows.c -- rows written the way other sources write them
 * (tests/data/unseen_*.csv: one file per schema of ../shared/validation,
 * with spellings, frameworks, GPUs and blank cells the shipped sets do
 * not have; their measured columns are placeholders, never measurements)
 * are all predicted -- none skipped, each a finite positive time -- and
 * every value taken for a blank cell is named in the row's `assumed`
 * text. Rows that truly lack an input are skipped with a reason that
 * names it.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "stepcast.h"
#include "tmpfile.h"

/* Validate tests/data/NAME; every row predicted, finite and positive. */
static void all_predicted(const char *name, sc_validation *vf, int min_rows) {
  char path[512];
  snprintf(path, sizeof path, "%s/tests/data/%s", SC_SOURCE_DIR, name);
  sc_error err = {0};
  cr_assert_eq(sc_validate_file(path, vf, &err), SC_OK, "%s: %s", name, err.msg);
  cr_assert_geq(vf->n, min_rows, "%s: %d rows", name, vf->n);
  for (int i = 0; i < vf->n; i++) {
    const sc_validation_row *r = &vf->rows[i];
    cr_expect_str_eq(r->skipped, "", "%s %s skipped: %s", name, r->id, r->skipped);
    cr_expect(isfinite(r->predicted) && r->predicted > 0, "%s %s: predicted %g", name, r->id,
              r->predicted);
  }
  cr_assert_eq(vf->skipped, 0, "%s: %d skipped", name, vf->skipped);
  cr_assert_eq(vf->predicted, vf->n);
}

/* The row `id` of vf names every one of the NULL-terminated `words` in
 * its assumed text. */
static void assumes(const sc_validation *vf, const char *id, const char *const *words) {
  for (int i = 0; i < vf->n; i++) {
    if (strcmp(vf->rows[i].id, id)) continue;
    for (; *words; words++)
      cr_expect(strstr(vf->rows[i].assumed, *words), "%s: '%s' not in assumed: %s", id, *words,
                vf->rows[i].assumed);
    return;
  }
  cr_assert_fail("no row %s", id);
}

/* The predicted value of row `id` of vf. */
static double pred(const sc_validation *vf, const char *id) {
  for (int i = 0; i < vf->n; i++)
    if (!strcmp(vf->rows[i].id, id)) return vf->rows[i].predicted;
  cr_assert_fail("no row %s", id);
  return 0;
}

#define ASSUMES(vf, id, ...) assumes(vf, id, (const char *const[]){__VA_ARGS__, NULL})

Test(unseen_rows, training) {
  sc_validation vf;
  all_predicted("unseen_training.csv", &vf, 15);
  ASSUMES(&vf, "ut-titan-8b-fsdp2", "dp = gpus/(tp*pp*cp)", "micro_batch = replica batch");
  ASSUMES(&vf, "ut-titan-70b-hsdp", "nic_Gbps 400", "nvlink_GBps 450");
  ASSUMES(&vf, "ut-ds-zero2-7b", "cp/ep 1");
  ASSUMES(&vf, "ut-nemo-70b-cp", "recompute none");
  ASSUMES(&vf, "ut-mcore-qwen3-30b", "head_dim 128", "dispatcher", "nic_Gbps");
  ASSUMES(&vf, "ut-mcore-dsv3", "MoE layout", "latent attention");
  ASSUMES(&vf, "ut-mi300x", "nvlink_GBps 448 of the GPU");
  ASSUMES(&vf, "ut-blank-optional", "seq of preset llama3-8b", "tp/pp/cp/ep 1", "dp = gpus",
          "micro_batch", "nvlink_GBps");
  ASSUMES(&vf, "ut-gpus-blank", "gpus 16 = tp*pp*dp*cp");
  /* the one blank degree that makes the GPUs add up (1 would not) */
  ASSUMES(&vf, "ut-tp-blank", "tp 2 = gpus/(the other degrees)");
  cr_expect_float_eq(pred(&vf, "ut-tp-blank"), pred(&vf, "ut-gpus-blank"), 1e-12,
                     "tp blank with 16 GPUs, pp 2, dp 4 is the tp 2 row");
  ASSUMES(&vf, "ut-hf-repo-id", "vocab, seq of preset llama3.1-8b");
  cr_expect_float_eq(pred(&vf, "ut-gpu-spelled"), pred(&vf, "ut-titan-8b-fsdp2"), 1e-12,
                     "\"NVIDIA H100 80GB HBM3\" is the h100-sxm5-80gb preset");
  ASSUMES(&vf, "ut-gb200-blank-node", "NVLink domain 72 of gb200-nvl72", "4 GPUs per node",
          "nic_Gbps 400 of gb200-nvl72");
  /* an fp8 row's blank recipe is its framework's: torchtitan's torchao
   * tensorwise (current) scaling, Megatron's delayed */
  ASSUMES(&vf, "ut-titan-8b-fp8", "fp8 tensorwise current scaling (torchtitan");
  ASSUMES(&vf, "ut-mcore-8b-fp8-norecipe", "fp8 delayed scaling (Megatron's --fp8-recipe default)");
  cr_expect(pred(&vf, "ut-titan-8b-fp8") != pred(&vf, "ut-titan-8b-fp8-delayed"),
            "the recipe reaches the prediction");
  ASSUMES(&vf, "ut-a100-40gb-nic-blank", "nic_Gbps 200 of dgx-a100-320gb");
  sc_validation_free(&vf);
}

/* A header with the required columns only: every other column reads as
 * blank, and each blank is said (the notes fit the row's assumed text). */
Test(unseen_rows, training_minimal_header) {
  sc_validation vf;
  all_predicted("unseen_training_minimal.csv", &vf, 4);
  ASSUMES(&vf, "um-llama3-8b", "recompute none", "cp/ep 1", "dp = gpus/(tp*pp*cp)",
          "micro_batch = replica batch", "8 GPUs per node", "nvlink_GBps 450 of the GPU");
  ASSUMES(&vf, "um-h200-fp8", "fp8 delayed scaling", "sp 0", "nic_Gbps 400", "micro_batch 1",
          "nvlink_GBps 450");
  sc_validation_free(&vf);
}

/* Headers with the required columns only, for the other schemas. */
Test(unseen_rows, minimal_headers) {
  sc_validation vf;
  all_predicted("unseen_collectives_minimal.csv", &vf, 4);
  ASSUMES(&vf, "ucm-ar-8", "nvlink_GBps 450 of the GPU", "8 GPUs per node");
  ASSUMES(&vf, "ucm-rs-32", "nic_Gbps 400 of dgx-b200");
  sc_validation_free(&vf);
  all_predicted("unseen_dp_training_minimal.csv", &vf, 3);
  ASSUMES(&vf, "udm-rn50-32", "synchronous (blank", "model_variant resnet50_v1.5",
          "8 GPUs/server", "network 3200", "batch_per_gpu 256", "fp16 mixed precision");
  cr_expect(strstr(vf.note, "allreduce"), "families from the schemes: %s", vf.note);
  sc_validation_free(&vf);
  all_predicted("unseen_recsys_minimal.csv", &vf, 2);
  ASSUMES(&vf, "urm-dcnv2-16", "mixed precision (dtype blank)", "optimizer adam",
          "8 GPUs per server", "intra_node_GBps 450", "nic_Gbps 400");
  sc_validation_free(&vf);
}

Test(unseen_rows, collectives) {
  sc_validation vf;
  all_predicted("unseen_collectives.csv", &vf, 12);
  ASSUMES(&vf, "uc-ag-h100-64", "nvlink_GBps 450", "nic_Gbps 400 of dgx-h100");
  ASSUMES(&vf, "uc-ag-b200-32", "nic_Gbps 400 of dgx-b200");
  ASSUMES(&vf, "uc-ar-h100-gpn-blank", "8 GPUs per node");
  cr_expect_float_eq(pred(&vf, "uc-ar-gpu-spelled"), pred(&vf, "uc-ar-h100-16"), 1e-12);
  ASSUMES(&vf, "uc-ar-gb200-64", "72 GPUs per node (blank; NVLink domain of gb200-nvl72)");
  sc_validation_free(&vf);
}

Test(unseen_rows, dp_training) {
  sc_validation vf;
  all_predicted("unseen_dp_training.csv", &vf, 12);
  ASSUMES(&vf, "ud-rn50-ddp-32", "network 1600 Gb/s");
  ASSUMES(&vf, "ud-rn50-variant-blank", "model_variant resnet50_v1.5");
  ASSUMES(&vf, "ud-rn50-batch-blank", "batch_per_gpu 128");
  ASSUMES(&vf, "ud-rn50-gpn-blank", "8 GPUs/server");
  ASSUMES(&vf, "ud-rn101-fp32", "TF32");
  ASSUMES(&vf, "ud-rn50-gpus-blank", "gpus 16 = nodes x gpus_per_node");
  ASSUMES(&vf, "ud-gossip-async", "asynchronous (blank: the scheme");
  /* the A100 40 GB's reference system is found as for training rows (the
   * same rowd_reference_nic), not 10 GbE */
  ASSUMES(&vf, "ud-a100-40gb-net-blank", "network 1600 Gb/s per server (not stated; dgx-a100-320gb)");
  for (int i = 0; i < vf.n; i++) /* "yes" and a scheme in capitals: the synchronous DDP row */
    if (!strcmp(vf.rows[i].id, "ud-sync-yes"))
      cr_expect_float_eq(vf.rows[i].predicted, vf.rows[0].predicted, 1e-12,
                         "ud-sync-yes %g, ud-rn50-ddp-8 %g", vf.rows[i].predicted,
                         vf.rows[0].predicted);
  sc_validation_free(&vf);
}

Test(unseen_rows, recsys) {
  sc_validation vf;
  all_predicted("unseen_recsys.csv", &vf, 10);
  ASSUMES(&vf, "ur-dcnv2-mh-rw", "intra_node_GBps", "nic_Gbps");
  ASSUMES(&vf, "ur-dlrm-planner", "planner", "GPUs per server");
  ASSUMES(&vf, "ur-dcnv2-unknown-dtype", "mixed precision", "optimizer adam");
  ASSUMES(&vf, "ur-dlrm-gpus-blank", "gpus 16 = global_batch / batch_per_gpu");
  ASSUMES(&vf, "ur-dlrm-hotness-col", "pooling factor 20 of hotness");
  ASSUMES(&vf, "ur-dlrm-no-hotness", "one-hot tables");
  /* TorchRec's kinds, however spelled, form one group each */
  for (int i = 0; i < vf.n; i++)
    cr_expect(strcmp(vf.rows[i].group, "TABLE_WISE") && strcmp(vf.rows[i].group, "Row_Wise"),
              "%s: group '%s' not normalised", vf.rows[i].id, vf.rows[i].group);
  sc_validation_free(&vf);
}

/* The one row of a training file with the header of
 * unseen_training.csv; its skip reason. */
static void training_row(const char *row, sc_validation *vf, sc_error *err, int *rc) {
  char path[64], body[4096];
  snprintf(path, sizeof path, "/tmp/sc_unseen_%d.csv", (int)getpid());
  snprintf(body, sizeof body,
           "id,source,model,layers,hidden,heads,kv_heads,ffn,vocab,seq,experts,topk,"
           "global_batch,micro_batch,tp,pp,dp,cp,ep,vpp,sp,zero,recompute,dtype,gpu,gpus,"
           "gpus_per_node,nvlink_domain,nvlink_GBps,nic_Gbps,measured_iter_s,measured_from,"
           "notes,etp,pp_layout\n%s\n",
           row);
  file_write(path, body);
  *rc = sc_validate_file(path, vf, err);
  unlink(path);
}

Test(unseen_rows, a_blank_with_nothing_to_take_is_skipped_naming_it) {
  sc_validation vf;
  sc_error err = {0};
  int rc;
  training_row("x,t,MyModel,24,2048,16,,,50257,,,,64,1,1,1,,1,1,,0,0,none,bf16,h100-sxm5-80gb,8,"
               "8,8,450,,1,p,,,",
               &vf, &err, &rc);
  cr_assert_eq(rc, SC_OK, "%s", err.msg);
  cr_assert_eq(vf.skipped, 1);
  cr_expect(strstr(vf.rows[0].skipped, "seq") && strstr(vf.rows[0].skipped, "no preset"),
            "reason: %s", vf.rows[0].skipped);
  sc_validation_free(&vf);
}

Test(unseen_rows, an_etp_it_cannot_model_is_skipped_naming_it) {
  sc_validation vf;
  sc_error err = {0};
  int rc;
  training_row("x,t,Mixtral-8x7B,32,4096,32,8,14336,32000,4096,8,2,64,1,4,1,2,1,2,,1,1,full,"
               "bf16,h100-sxm5-80gb,8,8,8,450,,1,p,Megatron-Core,2,",
               &vf, &err, &rc);
  cr_assert_eq(rc, SC_OK, "%s", err.msg);
  cr_assert_eq(vf.skipped, 1);
  cr_expect(strstr(vf.rows[0].skipped, "etp 2"), "reason: %s", vf.rows[0].skipped);
  sc_validation_free(&vf);
}

Test(unseen_rows, a_malformed_layout_cell_names_the_column) {
  sc_validation vf;
  sc_error err = {0};
  int rc;
  training_row("x,t,Llama-3-8B,32,4096,32,8,14336,128256,8192,,,64,1,1,4,2,1,1,,0,1,full,"
               "bf16,h100-sxm5-80gb,8,8,8,450,,1,p,,,Et*9|(tt",
               &vf, &err, &rc);
  cr_assert_eq(rc, SC_EINPUT);
  cr_expect(strstr(err.msg, "'pp_layout'") && strstr(err.msg, ":2:"), "message: %s", err.msg);
}

Test(unseen_rows, a_layout_in_the_notes_too_long_to_read_is_skipped_not_ignored) {
  char row[2048], layout[700];
  for (int i = 0; i < 699; i++) layout[i] = (i % 9 == 8) ? '|' : 't';
  layout[699] = '\0';
  snprintf(row, sizeof row,
           "x,t,Llama-3-8B,32,4096,32,8,14336,128256,8192,,,64,1,1,4,2,1,1,,0,1,full,"
           "bf16,h100-sxm5-80gb,8,8,8,450,,1,p,pipeline-model-parallel-layout %s,,", layout);
  sc_validation vf;
  sc_error err = {0};
  int rc;
  training_row(row, &vf, &err, &rc);
  cr_assert_eq(rc, SC_OK, "%s", err.msg);
  cr_assert_eq(vf.skipped, 1, "an unread layout is not replaced by the even split");
  cr_expect(strstr(vf.rows[0].skipped, "pipeline layout in the notes longer"), "reason: %s",
            vf.rows[0].skipped);
  sc_validation_free(&vf);
}

Test(unseen_rows, a_layout_cell_sets_the_stages) {
  sc_validation vf;
  sc_error err = {0};
  int rc;
  /* 32 layers over pp 4 with vpp blank: 8 virtual stages -> vpp 2 */
  training_row("x,t,Llama-3-8B,32,4096,32,8,14336,128256,8192,,,64,1,1,4,2,1,1,,0,1,full,"
               "bf16,h100-sxm5-80gb,8,8,8,450,,1,p,,,\"3,5,4,4,4,4,4,4\"",
               &vf, &err, &rc);
  cr_assert_eq(rc, SC_OK, "%s", err.msg);
  cr_assert_eq(vf.skipped, 0, "%s", vf.rows[0].skipped);
  cr_expect(strstr(vf.rows[0].assumed, "vpp 2 from the pipeline layout"), "%s",
            vf.rows[0].assumed);
  sc_validation_free(&vf);
}

Test(unseen_rows, a_misspelt_dtype_is_malformed_not_guessed) {
  sc_validation vf;
  sc_error err = {0};
  int rc;
  training_row("x,t,Llama-3-8B,32,4096,32,8,14336,128256,8192,,,64,1,1,1,8,1,1,,0,1,full,"
               "brainfloat,h100-sxm5-80gb,8,8,8,450,,1,p,,,",
               &vf, &err, &rc);
  cr_assert_eq(rc, SC_EINPUT);
  cr_expect(strstr(err.msg, "'dtype'") && strstr(err.msg, "brainfloat"), "message: %s", err.msg);
}

Test(unseen_rows, a_collective_without_a_required_cell_is_skipped_naming_it) {
  char path[64];
  snprintf(path, sizeof path, "/tmp/sc_unseen_c_%d.csv", (int)getpid());
  file_write(path, "id,op,bytes,ranks,gpus_per_node,gpu,nvlink_GBps,nic_Gbps,measured_time_us\n"
                   "a,all_reduce,,8,8,h100-sxm5-80gb,,,1\n"
                   "b,all_reduce,1024,,8,h100-sxm5-80gb,,,1\n"
                   "c,all_gather,1024,8,8,,,,1\n"
                   "d,all_reduce,1024,16,8,a40-pcie-48gb,,,1\n");
  sc_validation vf;
  sc_error err = {0};
  int rc = sc_validate_file(path, &vf, &err);
  unlink(path);
  cr_assert_eq(rc, SC_OK, "%s", err.msg);
  cr_assert_eq(vf.skipped, 4, "a blank size, rank count or GPU is never read as 0 or 1");
  static const char *const why[] = {"bytes is blank", "ranks is blank", "gpu is blank",
                                    "no reference system of a40-pcie-48gb"};
  for (int i = 0; i < 4; i++)
    cr_expect(strstr(vf.rows[i].skipped, why[i]), "%s: %s", vf.rows[i].id, vf.rows[i].skipped);
  sc_validation_free(&vf);
}

Test(unseen_rows, a_training_row_without_a_gpu_count_is_skipped_naming_it) {
  sc_validation vf;
  sc_error err = {0};
  int rc;
  training_row("x,t,Llama-3-8B,32,4096,32,8,14336,128256,8192,,,64,1,1,1,,1,1,,0,1,full,"
               "bf16,h100-sxm5-80gb,,8,8,450,,1,p,,,",
               &vf, &err, &rc);
  cr_assert_eq(rc, SC_OK, "%s", err.msg);
  cr_assert_eq(vf.skipped, 1);
  cr_expect(strstr(vf.rows[0].skipped, "gpus and dp are blank"), "reason: %s", vf.rows[0].skipped);
  sc_validation_free(&vf);
}

Test(unseen_rows, a_row_without_its_measurement_is_skipped_not_an_error) {
  sc_validation vf;
  sc_error err = {0};
  int rc;
  training_row("x,t,Llama-3-8B,32,4096,32,8,14336,128256,8192,,,64,1,1,1,8,1,1,,0,1,full,"
               "bf16,h100-sxm5-80gb,8,8,8,450,,,p,,,",
               &vf, &err, &rc);
  cr_assert_eq(rc, SC_OK, "%s", err.msg);
  cr_assert_eq(vf.skipped, 1);
  cr_expect(strstr(vf.rows[0].skipped, "measured_iter_s is blank"), "%s", vf.rows[0].skipped);
  sc_validation_free(&vf);
}
