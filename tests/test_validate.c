/*
 * test_validate.c -- the validation reader: malformed CSVs are errors
 * naming file:line and the column; rows it cannot model are skipped with
 * a reason; the published sets predict within the accuracy targets.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "stepcast.h"

static const char *HEADER =
    "id,source,model,layers,hidden,heads,kv_heads,ffn,vocab,seq,experts,topk,global_batch,"
    "micro_batch,tp,pp,dp,cp,ep,vpp,sp,zero,recompute,dtype,gpu,gpus,gpus_per_node,"
    "nvlink_domain,nvlink_GBps,nic_Gbps,measured_iter_s,measured_from,notes\n";
static const char *GOOD =
    "r1,test,GPT,24,2304,24,,9216,51200,2048,,,512,16,1,1,32,1,1,1,0,0,full,fp16,"
    "a100-sxm4-80gb,32,8,8,300,200,3.5,iteration_time,\n";

static char *write_tmp(const char *body) {
  static char path[64];
  snprintf(path, sizeof path, "/tmp/sc_val_%d.csv", (int)getpid());
  FILE *f = fopen(path, "w");
  cr_assert_not_null(f);
  fputs(body, f);
  fclose(f);
  return path;
}

static int run_csv(const char *body, sc_validation *vf, sc_error *err) {
  char *p = write_tmp(body);
  int rc = sc_validate_file(p, vf, err);
  unlink(p);
  return rc;
}

Test(validate, good_row_is_predicted) {
  char buf[2048];
  snprintf(buf, sizeof buf, "%s%s", HEADER, GOOD);
  sc_validation vf;
  sc_error err = {0};
  cr_assert_eq(run_csv(buf, &vf, &err), SC_OK, "%s", err.msg);
  cr_assert_eq(vf.n, 1);
  cr_assert_eq(vf.predicted, 1);
  cr_assert(vf.rows[0].predicted > 0);
  sc_validation_free(&vf);
}

Test(validate, garbage_number_names_line_and_column) {
  char buf[2048];
  snprintf(buf, sizeof buf, "%s%s%s", HEADER, GOOD,
           "r2,test,GPT,24,2304,24,,9216,51200,2048,,,512,16,x1,1,32,1,1,1,0,0,full,fp16,"
           "a100-sxm4-80gb,32,8,8,300,200,3.5,iteration_time,\n");
  sc_validation vf;
  sc_error err = {0};
  cr_assert_eq(run_csv(buf, &vf, &err), SC_EINPUT);
  cr_assert(strstr(err.msg, ":3:") && strstr(err.msg, "'tp'") && strstr(err.msg, "x1"),
            "message: %s", err.msg);
}

Test(validate, wrong_field_count_is_an_error) {
  char buf[2048];
  snprintf(buf, sizeof buf, "%s%s", HEADER, "r1,test,GPT,24\n");
  sc_validation vf;
  sc_error err = {0};
  cr_assert_eq(run_csv(buf, &vf, &err), SC_EINPUT);
  cr_assert(strstr(err.msg, ":2:") && strstr(err.msg, "fields"), "message: %s", err.msg);
}

Test(validate, unterminated_quote_is_an_error) {
  char buf[2048];
  snprintf(buf, sizeof buf, "%s%s", HEADER, "r1,\"test,GPT,24\n");
  sc_validation vf;
  sc_error err = {0};
  cr_assert_eq(run_csv(buf, &vf, &err), SC_EINPUT);
  cr_assert(strstr(err.msg, "unterminated"), "message: %s", err.msg);
}

/* One row alone in a file is skipped, and the reason names `what`. */
static void expect_skipped(const char *row, const char *what) {
  char buf[2048];
  snprintf(buf, sizeof buf, "%s%s", HEADER, row);
  sc_validation vf;
  sc_error err = {0};
  cr_assert_eq(run_csv(buf, &vf, &err), SC_OK, "%s", err.msg);
  cr_assert_eq(vf.skipped, 1);
  cr_assert(strstr(vf.rows[0].skipped, what), "reason: %s", vf.rows[0].skipped);
  sc_validation_free(&vf);
}

Test(validate, unknown_gpu_is_skipped_with_reason) {
  expect_skipped("r1,test,GPT,24,2304,24,,9216,51200,2048,,,512,16,1,1,32,1,1,1,0,0,full,fp16,"
                 "tpu-v9,32,8,8,300,200,3.5,iteration_time,\n",
                 "tpu-v9");
}

Test(validate, impossible_plan_is_skipped_with_the_checker_reason) {
  /* tp 5 does not divide 24 heads */
  expect_skipped("r1,test,GPT,24,2304,24,,9216,51200,2048,,,512,16,5,1,32,1,1,1,0,0,full,fp16,"
                 "a100-sxm4-80gb,160,8,8,300,200,3.5,iteration_time,\n",
                 "tp");
}

/* Predicted step time of one MPT-1B row (seq 16384, attention-heavy)
 * with the given source and notes. */
static double flash_row(const char *source, const char *notes) {
  char buf[4096];
  snprintf(buf, sizeof buf,
           "%sr1,%s,MPT-1b,24,2048,16,,8192,50368,16384,,,64,2,1,1,8,1,1,1,0,3,none,bf16,"
           "a100-sxm4-80gb,8,8,8,300,200,16,iteration_time,\"%s\"\n",
           HEADER, source, notes);
  sc_validation vf;
  sc_error err = {0};
  cr_assert_eq(run_csv(buf, &vf, &err), SC_OK, "%s", err.msg);
  cr_assert_eq(vf.predicted, 1);
  double t = vf.rows[0].predicted;
  sc_validation_free(&vf);
  return t;
}

/* The attention kernel comes from the notes (a generation, cuDNN, or
 * "flash attention" = FlashAttention-2), else from the framework the notes
 * name (NeMo / Megatron-Core: cuDNN fused attention), else Megatron-LM's
 * unfused attention -- never from the source column. */
Test(validate, attention_kernel_follows_notes_and_framework_never_source) {
  double fa2 = flash_row("test", "FSDP, flash attention");
  double fa2_named = flash_row("test", "FSDP, FlashAttention-2");
  double fa1_named = flash_row("test", "FSDP, flash attention 1");
  double foundry = flash_row("MosaicML llm-foundry benchmarks", "FSDP, flash attention");
  double unfused = flash_row("test", "FSDP");
  double nemo = flash_row("test", "NeMo 2.0 recipe, FSDP");
  double cudnn = flash_row("test", "FSDP, attention cudnn_flash_te");
  cr_expect_float_eq(fa2, fa2_named, 1e-12 * fa2);
  cr_expect_float_eq(foundry, fa2, 1e-12 * fa2, "the source does not pick a kernel");
  cr_expect_float_eq(nemo, cudnn, 1e-12 * fa2, "NeMo's default is cuDNN fused attention");
  cr_expect(fa1_named > 1.2 * fa2, "FA1 %.3f s vs FA2 %.3f s", fa1_named, fa2);
  cr_expect(unfused > fa2, "unfused %.3f s vs FA2 %.3f s", unfused, fa2);
}

Test(validate, missing_file_is_an_io_error) {
  sc_validation vf;
  sc_error err = {0};
  cr_assert_eq(sc_validate_file("/nonexistent/x.csv", &vf, &err), SC_EIO);
  cr_assert(strstr(err.msg, "/nonexistent/x.csv"), "message: %s", err.msg);
}

/* Load a published set (dir: "training" or "collectives"); skips the test
 * when ../shared is not beside the checkout. */
static void load_set(const char *dir, const char *name, sc_validation *vf) {
  char path[512];
  snprintf(path, sizeof path, "%s/validation/%s/%s", SC_SHARED_DIR, dir, name);
  if (access(path, R_OK) != 0)
    cr_assert_fail("%s not found: this test needs the shared measurement sets beside the checkout",
                   path);
  sc_error err = {0};
  cr_assert_eq(sc_validate_file(path, vf, &err), SC_OK, "%s", err.msg);
  cr_expect_eq(vf->skipped, 0, "%s: %d rows skipped", name, vf->skipped);
}

/* The training sets: every row predicted, none skipped. The constants
 * were not fitted to them. Issue 2 asks for MAPE <= 10 % on every set; the
 * sets are there; the guards sit at 10 % or just above today's figure
 * (docs/accuracy.md), so that a change that makes a set worse fails. */
static void check_set(const char *name, double max_mape) {
  sc_validation vf;
  load_set("training", name, &vf);
  cr_expect(vf.mape <= max_mape, "%s: MAPE %.1f%% above %.1f%%", name, 100 * vf.mape,
            100 * max_mape);
  sc_validation_free(&vf);
}

Test(validate, megatron_sc21) { check_set("megatron_sc21_table1.csv", 0.10); }
Test(validate, megatron_2020) { check_set("megatron_2020_scaling.csv", 0.10); }
/* Read as the rules read every row (FlashAttention-2 where the notes say
 * only "flash attention"): 19.3 % (17.9 % before the head-dimension term
 * of the attention cost, which makes MPT's head-128 attention faster;
 * 19.2 % before FSDP1 was scheduled as it runs, docs/accuracy.md);
 * docs/accuracy.md gives the FA1 reading the evidence supports, which no
 * rule may pick. */
Test(validate, mosaic_fsdp) { check_set("mosaic_fsdp_a100.csv", 0.195); }
/* NeMo and MaxText on H100 and GB200, bf16 and fp8: 6.6 %, every row
 * predicted (the 405B rows with the embedding/loss pipeline split). */
Test(validate, dgxc_benchmarking) { check_set("dgxc_benchmarking.csv", 0.07); }
Test(validate, vtrain_single_node) { check_set("vtrain_single_node.csv", 0.10); }

/* The collective sets (nccl-tests times). Issue 3 asks for MAPE <= 10 %
 * from 1 MiB and <= 25 % below on every set; the bounds are regression
 * guards at the current level (docs/network.md). COLL_LAUNCH_S was fitted
 * to these sets (src/coll/coll_nccl.c): they are not an independent check. */
static void check_coll(const char *name, double max_large, double max_small) {
  sc_validation vf;
  load_set("collectives", name, &vf);
  cr_expect(vf.mape_large <= max_large, "%s: MAPE from 1 MiB %.1f %% > %.1f %%", name,
            100 * vf.mape_large, 100 * max_large);
  cr_expect(vf.mape_small <= max_small, "%s: MAPE below 1 MiB %.1f %% > %.1f %%", name,
            100 * vf.mape_small, 100 * max_small);
  sc_validation_free(&vf);
}

Test(validate, azure_allreduce_a100_h100) { check_coll("azure_allreduce_a100_h100.csv", 0.092, 0.185); }
Test(validate, vtrain_allreduce_a100) { check_coll("vtrain_allreduce_a100.csv", 0.091, 0.25); }
Test(validate, vtrain_allreduce_v100) { check_coll("vtrain_allreduce_v100.csv", 0.075, 0.25); }
/* Not fitted to: 2-32 A100 over 200 Gb/s InfiniBand, single-process and
 * MPI runs. Today's level, far from the targets (docs/network.md
 * says why). Below 1 MiB 62.5 -> 68.1 % when the host floor of its
 * single-process rows (nGpus N: N x 5.48 us, calibrated on another host)
 * was added on top of COLL_LAUNCH_S: the 8-GPU rows (31 us) go from 35 to
 * 43.8 us (docs/accuracy.md); NCCL's tree correction and ring plateau
 * then gave 15.3 / 67.0 %. */
Test(validate, echo_allreduce_a100) { check_coll("echo_allreduce_a100_2_to_32.csv", 0.16, 0.68); }

/* Every report says which sets a constant was chosen on. */
Test(validate, fitted_sets_are_marked_in_sample) {
  sc_validation vf;
  load_set("collectives", "azure_allreduce_a100_h100.csv", &vf);
  cr_assert(strstr(vf.in_sample, "COLL_LAUNCH_S"), "azure: '%s'", vf.in_sample);
  sc_validation_free(&vf);
  load_set("collectives", "echo_allreduce_a100_2_to_32.csv", &vf);
  cr_assert_str_empty(vf.in_sample);
  sc_validation_free(&vf);
}
