/*
 * test_validate.c -- the validation reader: malformed CSVs are errors
 * naming file:line and the column; rows it cannot model are skipped with
 * a reason; the published sets predict within the accuracy targets.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "stepcast.h"
#include "tmpfile.h"
#include "load/csv.h"
#include "validate/rowdefaults.h"

static const char *HEADER =
    "id,source,model,layers,hidden,heads,kv_heads,ffn,vocab,seq,experts,topk,global_batch,"
    "micro_batch,tp,pp,dp,cp,ep,vpp,sp,zero,recompute,dtype,gpu,gpus,gpus_per_node,"
    "nvlink_domain,nvlink_GBps,nic_Gbps,measured_iter_s,measured_from,notes\n";
static const char *GOOD =
    "r1,test,GPT,24,2304,24,,9216,51200,2048,,,512,16,1,1,32,1,1,1,0,0,full,fp16,"
    "a100-sxm4-80gb,32,8,8,300,200,3.5,iteration_time,\n";

/* sc_validate_file of a file of HEADER and then `rows`. */
static int run_csv(const char *rows, sc_validation *vf, sc_error *err) {
  char path[64], body[8192];
  snprintf(path, sizeof path, "/tmp/sc_val_%d.csv", (int)getpid());
  snprintf(body, sizeof body, "%s%s", HEADER, rows);
  file_write(path, body);
  int rc = sc_validate_file(path, vf, err);
  unlink(path);
  return rc;
}

Test(validate, good_row_is_predicted) {
  sc_validation vf;
  sc_error err = {0};
  cr_assert_eq(run_csv(GOOD, &vf, &err), SC_OK, "%s", err.msg);
  cr_assert_eq(vf.n, 1);
  cr_assert_eq(vf.predicted, 1);
  cr_assert(vf.rows[0].predicted > 0);
  sc_validation_free(&vf);
}

Test(validate, garbage_number_names_line_and_column) {
  char buf[2048];
  snprintf(buf, sizeof buf, "%s%s", GOOD,
           "r2,test,GPT,24,2304,24,,9216,51200,2048,,,512,16,x1,1,32,1,1,1,0,0,full,fp16,"
           "a100-sxm4-80gb,32,8,8,300,200,3.5,iteration_time,\n");
  sc_validation vf;
  sc_error err = {0};
  cr_assert_eq(run_csv(buf, &vf, &err), SC_EINPUT);
  cr_assert(strstr(err.msg, ":3:") && strstr(err.msg, "'tp'") && strstr(err.msg, "x1"),
            "message: %s", err.msg);
}

Test(validate, wrong_field_count_is_an_error) {
  sc_validation vf;
  sc_error err = {0};
  cr_assert_eq(run_csv("r1,test,GPT,24\n", &vf, &err), SC_EINPUT);
  cr_assert(strstr(err.msg, ":2:") && strstr(err.msg, "fields"), "message: %s", err.msg);
}

Test(validate, unterminated_quote_is_an_error) {
  sc_validation vf;
  sc_error err = {0};
  cr_assert_eq(run_csv("r1,\"test,GPT,24\n", &vf, &err), SC_EINPUT);
  cr_assert(strstr(err.msg, "unterminated"), "message: %s", err.msg);
}

/* One row alone in a file is skipped, and the reason names `what`. */
static void expect_skipped(const char *row, const char *what) {
  sc_validation vf;
  sc_error err = {0};
  cr_assert_eq(run_csv(row, &vf, &err), SC_OK, "%s", err.msg);
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
 * with the given source and notes; its vocabulary a multiple of 128, so
 * that NeMo's padding of it (plan.vocab_multiple) changes nothing. */
static double flash_row(const char *source, const char *notes) {
  char buf[4096];
  snprintf(buf, sizeof buf,
           "r1,%s,MPT-1b,24,2048,16,,8192,50432,16384,,,64,2,1,1,8,1,1,1,0,3,none,bf16,"
           "a100-sxm4-80gb,8,8,8,300,200,16,iteration_time,\"%s\"\n",
           source, notes);
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

/* The attention rowd_attention gives a row whose notes name no framework
 * (Megatron-LM of its time), by GPU generation and dtype. */
static sc_attention megatron_lm_attention(int arch, sc_dtype dt) {
  sc_plan p;
  sc_plan_default(&p);
  p.dtype = dt;
  rowd_attention("config table of the same README: TP8 PP4", ROWD_FW_UNKNOWN, arch, &p);
  cr_assert_eq(p.flash_attention, p.attention != SC_ATTN_UNFUSED);
  return p.attention;
}

/* Megatron-LM without a framework named: its local unfused attention on
 * Ampere/Hopper in 16 bits, Transformer Engine's cuDNN fused attention
 * where it can only run through TE (fp8/fp4: Megatron's low-precision
 * path is TE's; Blackwell: no Megatron-LM that runs there predates TE as
 * its default). What the notes state still wins. */
Test(validate, megatron_lm_attention_follows_te_where_te_is_required) {
  cr_expect_eq(megatron_lm_attention(80, SC_FP16), SC_ATTN_UNFUSED);
  cr_expect_eq(megatron_lm_attention(90, SC_BF16), SC_ATTN_UNFUSED);
  cr_expect_eq(megatron_lm_attention(0, SC_BF16), SC_ATTN_UNFUSED, "unknown GPU: as before");
  cr_expect_eq(megatron_lm_attention(90, SC_FP8), SC_ATTN_CUDNN);
  cr_expect_eq(megatron_lm_attention(100, SC_BF16), SC_ATTN_CUDNN);
  cr_expect_eq(megatron_lm_attention(100, SC_FP8), SC_ATTN_CUDNN);
  cr_expect_eq(megatron_lm_attention(100, SC_FP4), SC_ATTN_CUDNN);
  sc_plan p;
  sc_plan_default(&p);
  p.dtype = SC_BF16;
  rowd_attention("FlashAttention-2", ROWD_FW_UNKNOWN, 100, &p);
  cr_expect_eq(p.attention, SC_ATTN_FLASH2, "the notes win over the default");
}

/* NeMo names the framework only as a word: a Nemotron model's name alone
 * is no framework (Megatron-LM's defaults); NeMo's options still are. */
Test(validate, framework_nemo_is_a_word_not_nemotron) {
  cr_expect_eq(rowd_framework_of("NeMo 2.0 recipe"), ROWD_FW_MCORE);
  cr_expect_eq(rowd_framework_of("llm/nemo_megatron launcher"), ROWD_FW_MCORE);
  cr_expect_eq(rowd_framework_of("Nemotron-4 15B, squared ReLU"), ROWD_FW_UNKNOWN);
  cr_expect_eq(rowd_framework_of("nemotron4-340b-synth.yaml, distributed_fused_adam"), ROWD_FW_MCORE);
  cr_expect_eq(rowd_framework_of("Nemotron on MaxText"), ROWD_FW_MAXTEXT);
}

/* Step time of one small GPT row on `gpu` in `dtype` with the given notes. */
static double gen_row(const char *gpu, const char *dtype, const char *notes) {
  char buf[4096];
  snprintf(buf, sizeof buf,
           "r1,test,GPT,8,4096,32,8,14336,32000,8192,,,16,1,4,1,2,1,1,1,1,1,none,%s,"
           "%s,8,4,72,900,400,1,iteration_time,\"%s\"\n",
           dtype, gpu, notes);
  sc_validation vf;
  sc_error err = {0};
  cr_assert_eq(run_csv(buf, &vf, &err), SC_OK, "%s", err.msg);
  cr_assert_eq(vf.predicted, 1, "%s", vf.rows[0].skipped);
  double t = vf.rows[0].predicted;
  sc_validation_free(&vf);
  return t;
}

/* The same rule through a whole row: a GB200 row that names no framework
 * predicts exactly what it predicts with "cudnn" in its notes; an A100 bf16
 * row keeps the slower unfused attention. */
Test(validate, blackwell_row_without_framework_runs_te_attention) {
  double plain = gen_row("gb200", "bf16", "TP4");
  double cudnn = gen_row("gb200", "bf16", "TP4, cudnn");
  cr_expect_float_eq(plain, cudnn, 1e-12 * cudnn, "gb200 %.6f vs cudnn %.6f", plain, cudnn);
  double plain8 = gen_row("gb200", "fp8", "TP4");
  double cudnn8 = gen_row("gb200", "fp8", "TP4, cudnn");
  cr_expect_float_eq(plain8, cudnn8, 1e-12 * cudnn8);
  double a100 = gen_row("a100-sxm4-80gb", "bf16", "TP4");
  double a100_cudnn = gen_row("a100-sxm4-80gb", "bf16", "TP4, cudnn");
  cr_expect(a100 > a100_cudnn, "A100 unfused %.4f s vs cuDNN %.4f s", a100, a100_cudnn);
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
/* NeMo and MaxText on H100 and GB200, bf16 and fp8: 4.7 % (4.6 % before the
 * frameworks' memory defaults, validate/rowmem.c, moved the gradient reduce and
 * the fp8 weight cast; 4.7 % before
 * Transformer Engine's fp8 casts and fp8 gathers were costed), every row
 * predicted (the 405B rows with the embedding/loss pipeline split). */
/* 4.93 -> 5.01 % when NCCL's inter-node search set the kernels' channels
 * across nodes (8 NIC rails: 16 CTAs, not one per NVLink doubled to 32;
 * src/coll/nccl_net.c): the overlapped collectives take fewer SMs from the
 * GEMMs (src/engine/groups.c), so the multi-node H100 rows, already
 * 6-13 % fast, got 0.1-0.3 % faster. */
Test(validate, dgxc_benchmarking) { check_set("dgxc_benchmarking.csv", 0.052); }
Test(validate, vtrain_single_node) { check_set("vtrain_single_node.csv", 0.10); }

/* Issue 8's criterion on dgxc: the signed mean error of every GPU x dtype
 * (H100 and GB200, bf16 and fp8) within 5 %. Guarded at 7 % since session
 * 34's attention (FlashAttention's level read as Azure's forward+backward
 * figure, its ramp and causal tile refitted to the kernel rows: every
 * group about 1-3 points faster, GB200 fp8 -5.60 -> -6.85 %, GB200 bf16
 * +0.5 -> -0.3 %: what stays is GB200's fp8 GEMMs); 5.7 % before (5.5 %
 * until branch nccl26, whose first Simple iteration pays NCCL's tuner
 * steps, not one per primitive: GB200 fp8 -5.27 -> -5.60 %, its
 * tensor-parallel collectives one NVLink step each faster; the
 * collective set of pushing rings, vtrain_allreduce_v100, 6.70 -> 6.42 %,
 * docs/network.md "First iteration and the flush"). GB200 fp8
 * was -5.1 % since Transformer Engine's fp8 sequence-parallel gathers were
 * costed (1 byte an element; H100 fp8 went +4.71 -> +1.27 % with them, the
 * set 4.90 -> 4.63 %; plan.tp_async_bwd, off by default, would take GB200
 * fp8 to about -8 %); the criterion itself is reported as not
 * met for that group (docs/accuracy.md). The rows' gpu and dtype are read
 * from the CSV; its records and vf.rows are in the same order. */
Test(validate, dgxc_signed_error_per_generation_and_dtype) {
  sc_validation vf;
  load_set("training", "dgxc_benchmarking.csv", &vf);
  char path[512];
  snprintf(path, sizeof path, "%s/validation/training/dgxc_benchmarking.csv", SC_SHARED_DIR);
  csv_file f;
  sc_error err = {0};
  cr_assert_eq(csv_open(&f, path, &err), SC_OK, "%s", err.msg);
  char key[8][48];
  double sum[8] = {0};
  int cnt[8] = {0}, nk = 0;
  for (int i = 0; csv_next(&f, path, &err) == 1; i++) {
    cr_assert(i < vf.n);
    cr_assert_str_eq(csv_get(&f, csv_col(&f, "id")), vf.rows[i].id);
    char k[48];
    snprintf(k, sizeof k, "%s %s", csv_get(&f, csv_col(&f, "gpu")),
             csv_get(&f, csv_col(&f, "dtype")));
    int j = 0;
    while (j < nk && strcmp(key[j], k)) j++;
    if (j == nk) {
      cr_assert(nk < 8);
      snprintf(key[nk++], sizeof key[0], "%s", k);
    }
    const sc_validation_row *r = &vf.rows[i];
    sum[j] += (r->predicted - r->measured) / r->measured;
    cnt[j]++;
  }
  csv_close(&f);
  cr_assert_eq(nk, 4, "H100 and GB200 x bf16 and fp8: %d groups", nk);
  for (int j = 0; j < nk; j++)
    cr_expect(fabs(sum[j] / cnt[j]) <= 0.07, "%s: signed mean %+.2f%% over %d rows", key[j],
              100 * sum[j] / cnt[j], cnt[j]);
  sc_validation_free(&vf);
}

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
/* 7.2 % from 1 MiB since branch echo35 (A100's memory throughput of
 * NCCL's kernels; 8.6 before). */
Test(validate, vtrain_allreduce_a100) { check_coll("vtrain_allreduce_a100.csv", 0.075, 0.25); }
Test(validate, vtrain_allreduce_v100) { check_coll("vtrain_allreduce_v100.csv", 0.075, 0.25); }
/* Not fitted to: 2-32 A100 over 200 Gb/s InfiniBand, single-process and
 * MPI runs. Today's level, far from the targets (docs/network.md
 * says why). Below 1 MiB 62.5 -> 68.1 % when the host floor of its
 * single-process rows (nGpus N: N x 5.48 us, calibrated on another host)
 * was added on top of COLL_LAUNCH_S: the 8-GPU rows (31 us) go from 35 to
 * 43.8 us (docs/accuracy.md); NCCL's tree correction and ring plateau
 * then gave 15.3 / 67.0 %. */
/* Then 19.4 / 30.1 % when a thread driving N GPUs stopped paying
 * COLL_LAUNCH_S on top of its host floor (max(kernel + 2.43 us, N x 5.48
 * us)): its 2-8 GPU rows below 64 KiB went from +25..+227 % to
 * +5..+44 %, and from 1 MiB the kernels' own mid-size shortfall, which
 * the 20 us had hidden, shows (docs/network.md "The host side"). */
/* Then 17.7 / 28.4 % (branch echo29) with NCCL's AMD host terms across
 * nodes for A100 and the -g N host's per-channel term (calibration rows
 * 83-90); both were added while splitting this set's errors, so it is
 * marked IN-SAMPLE for them (docs/network.md "Echo by size and node
 * count"). Then 16.1 / 28.4 % (branch echo35) with A100's memory
 * throughput of NCCL's kernels (calibration rows 61-62), added while
 * examining this set's two-GPU rows: IN-SAMPLE for it too. */
Test(validate, echo_allreduce_a100) { check_coll("echo_allreduce_a100_2_to_32.csv", 0.165, 0.29); }

/* Every report says which sets a constant was chosen on. */
Test(validate, fitted_sets_are_marked_in_sample) {
  sc_validation vf;
  load_set("collectives", "azure_allreduce_a100_h100.csv", &vf);
  cr_assert(strstr(vf.in_sample, "COLL_LAUNCH_S"), "azure: '%s'", vf.in_sample);
  sc_validation_free(&vf);
  load_set("training", "dgxc_benchmarking.csv", &vf);
  cr_assert(strstr(vf.in_sample, "rowd_attention"), "dgxc: '%s'", vf.in_sample);
  sc_validation_free(&vf);
  load_set("collectives", "echo_allreduce_a100_2_to_32.csv", &vf);
  cr_assert(strstr(vf.in_sample, "per-channel"), "echo: '%s'", vf.in_sample);
  cr_assert(strstr(vf.in_sample, "memory throughput"), "echo: '%s'", vf.in_sample);
  sc_validation_free(&vf);
}

/* csv_seek_id: the row of an id, the whole ones only; a missing id is said
 * with the closest (a prefix first: run-01 -> run-010), the count and the
 * first and last ids (the message of
 * `validate --row` and `recsys row`), and a file of no rows says so. */
Test(validate, seek_id_finds_the_row_or_names_the_valid_ids) {
  char path[] = "/tmp/sc_seek_XXXXXX";
  tmp_write(path, "id,x\nrun-001,1\nrun-002\nrun-002,2\nrun-010,3\n");
  csv_file f;
  sc_error err = {0};
  cr_assert_eq(csv_open(&f, path, &err), SC_OK, "%s", err.msg);
  cr_assert_eq(csv_seek_id(&f, path, "run-002", &err), 1);
  cr_assert_str_eq(csv_get(&f, csv_col(&f, "x")), "2", "the whole row, not the short one");
  csv_close(&f);
  cr_assert_eq(csv_open(&f, path, &err), SC_OK, "%s", err.msg);
  cr_assert_eq(csv_seek_id(&f, path, "run-01", &err), 0);
  char want[256];
  snprintf(want, sizeof want, "%s: no row with id 'run-01'; did you mean 'run-010'? valid: 3 ids, "
           "'run-001' .. 'run-010'", path);
  cr_assert(!strncmp(err.msg, want, strlen(want)), "%s", err.msg);
  cr_assert_eq(err.code, SC_EINPUT);
  csv_close(&f);
  file_write(path, "id,x\n");
  cr_assert_eq(csv_open(&f, path, &err), SC_OK, "%s", err.msg);
  cr_assert_eq(csv_seek_id(&f, path, "a", &err), 0);
  cr_assert(strstr(err.msg, "no row with id 'a'; the file has no rows"), "%s", err.msg);
  csv_close(&f);
  unlink(path);
}
