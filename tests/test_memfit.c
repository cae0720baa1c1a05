/*
 * test_memfit.c -- the memory verdict of validation rows (issue 8 item 6):
 * every training row ran, so a row the memory model says does not fit is
 * a false verdict that `stepcast validate` counts per file and reports
 * per row; and the memory accounting of the frameworks those rows name.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "stepcast.h"

static const char *HEADER =
    "id,source,model,layers,hidden,heads,kv_heads,ffn,vocab,seq,experts,topk,global_batch,"
    "micro_batch,tp,pp,dp,cp,ep,vpp,sp,zero,recompute,dtype,gpu,gpus,gpus_per_node,"
    "nvlink_domain,nvlink_GBps,nic_Gbps,measured_iter_s,measured_from,notes\n";
/* a 1.3B GPT on 8 A100: fits easily */
static const char *SMALL =
    "small,test,GPT,24,2048,16,,8192,51200,2048,,,64,4,1,1,8,1,1,1,0,0,full,bf16,"
    "a100-sxm4-80gb,8,8,8,300,200,3.5,iteration_time,\n";
/* a 70B-shaped model on one 80 GB GPU: weights alone are 140 GB */
static const char *HUGE =
    "huge,test,GPT,80,8192,64,,28672,32000,2048,,,8,1,1,1,1,1,1,1,0,0,full,bf16,"
    "a100-sxm4-80gb,1,1,1,300,200,60,iteration_time,\n";

static int run_csv(const char *body, sc_validation *vf) {
  char path[64];
  snprintf(path, sizeof path, "/tmp/sc_memfit_%d.csv", (int)getpid());
  FILE *f = fopen(path, "w");
  cr_assert_not_null(f);
  fputs(body, f);
  fclose(f);
  sc_error err = {0};
  int rc = sc_validate_file(path, vf, &err);
  unlink(path);
  cr_assert_eq(rc, SC_OK, "%s", err.msg);
  return rc;
}

Test(memfit, validation_counts_rows_the_memory_model_says_do_not_fit) {
  char buf[4096];
  snprintf(buf, sizeof buf, "%s%s%s", HEADER, SMALL, HUGE);
  sc_validation vf;
  run_csv(buf, &vf);
  cr_assert_eq(vf.n, 2);
  cr_assert_eq(vf.predicted, 2);
  cr_assert_eq(vf.rows[0].fit, 1, "small row: fit %d (%.1f of %.1f GiB)", vf.rows[0].fit,
               vf.rows[0].mem_total / 1073741824.0, vf.rows[0].mem_capacity / 1073741824.0);
  cr_assert_eq(vf.rows[1].fit, -1, "huge row: fit %d (%.1f of %.1f GiB)", vf.rows[1].fit,
               vf.rows[1].mem_total / 1073741824.0, vf.rows[1].mem_capacity / 1073741824.0);
  /* 80 layers x 12 x 8192^2 x 2 bytes of bf16 weights alone pass 80 GB */
  cr_assert(vf.rows[1].mem_total > 80.0 * 12 * 8192.0 * 8192 * 2, "%g", vf.rows[1].mem_total);
  cr_assert_float_eq(vf.rows[1].mem_capacity, 80 * 1073741824.0, 1, "%g", vf.rows[1].mem_capacity);
  cr_assert_eq(vf.no_fit, 1);
  sc_validation_free(&vf);
}

Test(memfit, skipped_rows_have_no_verdict) {
  char buf[4096];
  snprintf(buf, sizeof buf, "%s%s", HEADER,
           "x,test,GPT,24,2048,16,,8192,51200,2048,,,64,4,1,1,8,1,1,1,0,0,full,bf16,"
           "tpu-v9,8,8,8,300,200,3.5,iteration_time,\n");
  sc_validation vf;
  run_csv(buf, &vf);
  cr_assert_eq(vf.skipped, 1);
  cr_assert_eq(vf.rows[0].fit, 0);
  cr_assert_eq(vf.no_fit, 0);
  sc_validation_free(&vf);
}
