/*
 * test_accuracy.c -- the accuracy class of a prediction (src/report/
 * accuracy.h): hand-picked scenarios land in the class their GPU and plan
 * say, a GPU or model with no published rows reads "unvalidated", and the
 * C lookup puts every training row of ../shared/validation in the class
 * whose row count the generated table (tools/accuracy/gen_table.py, which
 * classifies from the CSV columns) gives it -- the two rules agree.
 */
#include <criterion/criterion.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/accuracy.h"
#include "stepcast.h"

/* The scenario of a JSON text with overrides, resolved; asserts SC_OK. */
static sc_scenario scen(const char *json, const char *const *ov, size_t n) {
  sc_scenario s;
  sc_error e = {0};
  int rc = sc_scenario_load_string(&s, json, "test", ov, n, &e);
  cr_assert_eq(rc, SC_OK, "%s: %s", json, e.msg);
  return s;
}

/* The class name of s and its table row (NULL = unvalidated). */
static const acc_row *cls(const sc_scenario *s, char *name, size_t cap) {
  acc_class_name(s, name, cap);
  char a[32], d[32], st[32];
  return acc_llm_class(s, a, d, st);
}

static const char LLAMA[] = "{\"model\": \"llama3-70b\", \"cluster\": {\"gpu\": \"h100-sxm5-80gb\", "
                            "\"gpus\": 64}, \"plan\": {\"tp\": 8, \"pp\": 1, \"global_batch\": 64, "
                            "\"dtype\": \"bf16\"}}";

Test(accuracy, hopper_bf16_megatron) {
  sc_scenario s = scen(LLAMA, NULL, 0);
  char name[112];
  const acc_row *r = cls(&s, name, sizeof name);
  cr_expect_str_eq(name, "Hopper 16-bit Megatron-style multi-server");
  cr_assert_not_null(r, "%s: no table row", name);
  cr_expect_gt(r->n, 0);
  cr_expect(r->mape >= 0 && r->mape <= 100 && r->worst != 0, "%s: mape %g worst %g", name,
            r->mape, r->worst);
}

Test(accuracy, dtype_and_style_split_the_class) {
  const char *fp8[] = {"plan.dtype=\"fp8\""};
  const char *z3[] = {"plan.zero=3", "plan.tp=1"};
  const char *b200[] = {"cluster.gpu=\"b200\""};
  const char *v100[] = {"cluster.gpu=\"v100-sxm3-32gb\"", "plan.dtype=\"fp16\"",
                        "model=\"gpt3-1.3b\"", "plan.tp=1", "cluster.gpus=8"};
  const char *a100[] = {"cluster.gpu=\"a100-sxm4-80gb\"", "plan.zero=3", "plan.tp=1"};
  struct { const char *const *ov; size_t n; const char *want; } c[] = {
      {fp8, 1, "Hopper fp8/fp4 Megatron-style multi-server"},
      {z3, 2, "Hopper 16-bit FSDP/ZeRO-3 multi-server"},
      {b200, 1, "Blackwell 16-bit Megatron-style multi-server"},
      {v100, 5, "Volta 16-bit Megatron-style one-server"},
      {a100, 3, "Ampere 16-bit FSDP/ZeRO-3 multi-server"},
  };
  for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
    sc_scenario s = scen(LLAMA, c[i].ov, c[i].n);
    char name[112];
    const acc_row *r = cls(&s, name, sizeof name);
    cr_expect_str_eq(name, c[i].want, "case %zu", i);
    cr_expect_not_null(r, "case %zu (%s): the training sets have such rows", i, name);
  }
}

/* Scale splits the class: a plan whose GPUs fit in one node (gpus <=
 * gpus_per_node) is quoted the one-server rows, a larger one the
 * multi-server rows -- GPT-3 175B on 1,024 A100s is not quoted the
 * single-node runs that make most of Ampere's Megatron-style rows. */
Test(accuracy, scale_splits_the_class) {
  static const char GPT3[] = "{\"model\": \"gpt3-175b\", \"cluster\": {\"gpu\": "
                             "\"a100-sxm4-80gb\", \"gpus\": 1024, \"gpus_per_node\": 8}, "
                             "\"plan\": {\"tp\": 8, \"pp\": 16, \"global_batch\": 1536, "
                             "\"micro_batch\": 1, \"dtype\": \"fp16\"}}";
  const char *node[] = {"model=\"gpt3-1.3b\"", "cluster.gpus=8", "plan.tp=2", "plan.pp=1",
                        "plan.global_batch=64"};
  const char *two[] = {"model=\"gpt3-1.3b\"", "cluster.gpus=16", "plan.tp=2", "plan.pp=1",
                       "plan.global_batch=64"};
  char name[112];
  sc_scenario big = scen(GPT3, NULL, 0);
  const acc_row *multi = cls(&big, name, sizeof name);
  cr_expect_str_eq(name, "Ampere 16-bit Megatron-style multi-server");
  cr_assert_not_null(multi, "%s: no table row", name);
  sc_scenario one = scen(GPT3, node, 5);
  const acc_row *single = cls(&one, name, sizeof name);
  cr_expect_str_eq(name, "Ampere 16-bit Megatron-style one-server");
  cr_assert_not_null(single, "%s: no table row", name);
  cr_expect_neq(multi, single);
  /* the single-node set is the one-server class's, not the multi-server's */
  for (int i = 0; i < multi->n_src; i++)
    cr_expect_str_neq(multi->src[i].file, "vtrain_single_node.csv");
  sc_scenario s16 = scen(GPT3, two, 5);
  cr_expect_eq(cls(&s16, name, sizeof name), multi, "%s", name);
}

Test(accuracy, no_rows_is_unvalidated) {
  const char *amd[] = {"cluster.gpu=\"mi300x\""};
  const char *f32[] = {"plan.dtype=\"fp32\""};
  const char *moe[] = {"model=\"mixtral-8x7b\"", "plan.ep=8"};
  struct { const char *const *ov; size_t n; const char *want; } c[] = {
      {amd, 1, "non-NVIDIA 16-bit Megatron-style multi-server"},
      {f32, 1, "Hopper 32-bit Megatron-style multi-server"},
      {moe, 2, "Hopper 16-bit MoE Megatron-style multi-server"},
  };
  for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
    sc_scenario s = scen(LLAMA, c[i].ov, c[i].n);
    char name[112], text[768];
    cr_expect_null(cls(&s, name, sizeof name), "case %zu: %s has a row", i, name);
    cr_expect_str_eq(name, c[i].want, "case %zu", i);
    acc_text(&s, text, sizeof text);
    cr_expect(strstr(text, "no published runs like this") && strstr(text, "unvalidated"),
              "case %zu: %s", i, text);
  }
}

/* The range the rows cover: a scenario far outside it (a sequence and a
 * cluster past twice the class's largest, a GPU and a dtype its rows never
 * ran) is told each, from the class's own range; one within it nothing. */
Test(accuracy, outside_the_validated_range) {
  sc_scenario in = scen(LLAMA, NULL, 0);
  char name[112];
  const acc_row *row = cls(&in, name, sizeof name);
  cr_assert_not_null(row);
  char text[512];
  acc_where w = {row->range.gpus[1], row->range.seq[0], row->range.hidden[1], NULL, NULL};
  cr_expect_eq(acc_outside(row, &w, text, sizeof text), 0, "%s", text);
  cr_expect_str_eq(text, "");
  acc_text(&in, text, sizeof text);
  cr_expect_null(strstr(text, "outside the validated range"), "%s", text);
  acc_where far = {row->range.gpus[1] * 2.5, row->range.seq[1] * 4, row->range.hidden[0],
                   "no-such-gpu", "fp4"};
  cr_expect_eq(acc_outside(row, &far, text, sizeof text), 4, "%s", text);
  char want[128];
  snprintf(want, sizeof want, "%.0f GPUs (its runs: %.0f to %.0f)", far.gpus,
           row->range.gpus[0], row->range.gpus[1]);
  cr_expect(strstr(text, want), "%s lacks %s", text, want);
  snprintf(want, sizeof want, "seq %.0f tokens", far.seq);
  cr_expect(strstr(text, want), "%s lacks %s", text, want);
  cr_expect(strstr(text, "GPU no-such-gpu (its runs: "), "%s", text);
  cr_expect(strstr(text, "dtype fp4 (its runs: "), "%s", text);
  cr_expect_eq(acc_outside(NULL, &far, text, sizeof text), 0); /* unvalidated: said already */
  /* fp16 counts as bf16; a width in range is not told */
  acc_where half = {0, 0, 0, NULL, "fp16"};
  cr_expect_eq(acc_outside(row, &half, text, sizeof text), 0, "%s", text);
  /* the prediction's line says it under the figures, JSON as an array */
  const char *ov[] = {"model.seq=1048576"};
  sc_scenario s = scen(LLAMA, ov, 1);
  acc_text(&s, text, sizeof text);
  cr_expect(strstr(text, ")\noutside the validated range: seq 1048576 tokens (its runs: "), "%s",
            text);
}

/* Prediction r of s as sc_report_prediction writes it in format fmt (a
 * string the caller frees). */
static char *report_text(sc_format fmt, const sc_scenario *s, const sc_result *r) {
  char *buf = NULL;
  size_t len = 0;
  FILE *out = open_memstream(&buf, &len);
  cr_assert_not_null(out);
  sc_report_prediction(out, fmt, s, r, 0);
  fclose(out);
  return buf;
}

Test(accuracy, report_formats_carry_the_class) {
  sc_scenario s = scen(LLAMA, NULL, 0);
  sc_result r;
  sc_error e = {0};
  cr_assert_eq(sc_predict(&s, &r, &e), SC_OK, "%s", e.msg);
  char *buf = report_text(SC_FORMAT_JSON, &s, &r);
  cr_expect(strstr(buf, "\"accuracy\": {\"class\": \"Hopper 16-bit Megatron-style multi-server\", \"n\": "),
            "%s", buf);
  cr_expect(strstr(buf, "\"in_sample\": [\"dgxc_benchmarking.csv\"]"), "%s", buf);
  /* each file's rows in the class, adding up to n */
  char a[32], d[32], st[32], want[128];
  const acc_row *row = acc_llm_class(&s, a, d, st);
  cr_assert_not_null(row);
  int len = snprintf(want, sizeof want, "\"file_rows\": ["), sum = 0;
  for (int i = 0; i < row->n_src; i++, len = (int)strlen(want)) {
    snprintf(want + len, sizeof want - len, "%s%d", i ? ", " : "", row->src[i].n);
    sum += row->src[i].n;
  }
  snprintf(want + len, sizeof want - len, "]");
  cr_expect_eq(sum, row->n);
  cr_expect(strstr(buf, want), "%s lacks %s", buf, want);
  free(buf);
  buf = report_text(SC_FORMAT_CSV, &s, &r);
  cr_expect(strstr(buf, ",accuracy_class,accuracy_n,accuracy_mape,accuracy_signed,accuracy_worst,"
                       "accuracy_outside\n"),
            "%s", buf);
  cr_expect(strstr(buf, ",Hopper 16-bit Megatron-style multi-server,"), "%s", buf);
  free(buf);
}

/* The table row of validation row v of a set (predicted as scenario s) by
 * the C lookup, its class name into name[96]; NULL when none. */
typedef const acc_row *(*row_class)(const sc_scenario *s, const sc_validation_row *v,
                                    char *name);

/* Every predicted row of the sets matching `pattern` (under ../shared:
 * fails loudly without it), classified by `classify` on the scenario validate
 * predicts for it, counts toward the class table[0..n) lists with that
 * many rows, and none falls outside the table. */
static void expect_counts(const char *pattern, const acc_row *table, int n, row_class classify) {
  glob_t g;
  int rc = glob(pattern, 0, NULL, &g);
  cr_assert_eq(rc, 0, "no sets match %s: ../shared is needed", pattern);
  int count[64] = {0}, unmatched = 0;
  cr_assert_leq(n, 64);
  for (size_t f = 0; f < g.gl_pathc; f++) {
    sc_validation v;
    sc_error e = {0};
    cr_assert_eq(sc_validate_file(g.gl_pathv[f], &v, &e), SC_OK, "%s", e.msg);
    for (int i = 0; i < v.n; i++) {
      if (v.rows[i].skipped[0]) continue;
      sc_scenario s;
      cr_assert_eq(sc_validate_row_scenario(g.gl_pathv[f], v.rows[i].id, &s, &e), SC_OK,
                   "%s %s: %s", g.gl_pathv[f], v.rows[i].id, e.msg);
      char name[96];
      const acc_row *r = classify(&s, &v.rows[i], name);
      if (r) count[r - table]++;
      else unmatched++, cr_log_warn("%s %s: %s has no row", g.gl_pathv[f], v.rows[i].id, name);
    }
    sc_validation_free(&v);
  }
  globfree(&g);
  cr_expect_eq(unmatched, 0, "%d predicted rows of %s fall in no class of the table", unmatched,
               pattern);
  for (int i = 0; i < n; i++)
    cr_expect_eq(count[i], table[i].n, "%s %s %s: the C lookup finds %d rows, the table %d",
                 table[i].key[0], table[i].key[1], table[i].key[2], count[i], table[i].n);
}

static const acc_row *llm_class(const sc_scenario *s, const sc_validation_row *v, char *name) {
  (void)v;
  char a[32], d[32], st[32];
  const acc_row *r = acc_llm_class(s, a, d, st);
  snprintf(name, 96, "%s %s %s", a, d, st);
  return r;
}

/* the row's family as validate predicted it (sc_dp_result.family) */
static const acc_row *dp_class(const sc_scenario *s, const sc_validation_row *v, char *name) {
  return acc_dp_class(s, v->family, name, 96);
}

/* Every predicted training row of ../shared/validation, classified by the
 * C lookup on the scenario validate predicts for it, counts toward the
 * class the generated table lists with that many rows. */
Test(accuracy, table_counts_match_the_c_lookup, .timeout = 600) {
  expect_counts(SC_SHARED_DIR "/validation/training/*.csv", acc_llm, acc_llm_n, llm_class);
}

/* Collectives: op, size against 1 MiB, and whether the ranks fit in one
 * node make the class; an op no set measures is unvalidated. */
Test(accuracy, collective_classes) {
  sc_coll_sweep_opts o;
  sc_coll_sweep_default(&o); /* all-reduce, 8 ranks of one DGX A100 */
  char name[96];
  const acc_row *r = acc_coll_class(&o, 1, name, sizeof name);
  cr_expect_str_eq(name, "all_reduce from 1 MiB intra-node");
  cr_expect(r && r->n > 0, "%s: no rows", name);
  o.ranks = 16, o.ranks_per_node = 8;
  r = acc_coll_class(&o, 0, name, sizeof name);
  cr_expect_str_eq(name, "all_reduce below 1 MiB inter-node");
  cr_expect(r && r->n > 0, "%s: no rows", name);
  int op = sc_coll_op_from_name("all_gather");
  cr_assert_geq(op, 0);
  o.op = (sc_coll_op)op;
  cr_expect_null(acc_coll_class(&o, 1, name, sizeof name), "%s has rows", name);
  cr_expect_str_eq(name, "all_gather from 1 MiB inter-node");
}

/* Data-parallel rows: the builder's kind of each row's model and the
 * family of its scheme (what `stepcast dp` classes a scheme by) put
 * exactly the table's row counts in each class. */
Test(accuracy, dp_table_counts_match_the_c_lookup, .timeout = 600) {
  expect_counts(SC_SHARED_DIR "/validation/dp_training/*.csv", acc_dp, acc_dp_n, dp_class);
}

Test(accuracy, dp_classes) {
  const char *cnn[] = {"model=\"resnet50\"", "cluster.gpu=\"v100-sxm2-16gb\"", "plan.tp=1", "plan.dtype=\"fp16\"",
                       "plan.global_batch=256"};
  sc_scenario s = scen(LLAMA, cnn, 5);
  char name[96];
  cr_expect_not_null(acc_dp_class(&s, "allreduce", name, sizeof name), "%s", name);
  cr_expect_str_eq(name, "CNN allreduce multi-server data-parallel");
  cr_expect_not_null(acc_dp_class(&s, "ps", name, sizeof name), "%s", name);
  /* scale splits the class as for LLM training: 8 GPUs in one node */
  const char *node[] = {"model=\"resnet50\"", "cluster.gpu=\"v100-sxm2-16gb\"", "plan.tp=1",
                        "plan.dtype=\"fp16\"", "plan.global_batch=256", "cluster.gpus=8"};
  sc_scenario one = scen(LLAMA, node, 6);
  const acc_row *r1 = acc_dp_class(&one, "allreduce", name, sizeof name);
  cr_expect_not_null(r1, "%s", name);
  cr_expect_str_eq(name, "CNN allreduce one-server data-parallel");
  cr_expect_neq(r1, acc_dp_class(&s, "allreduce", name, sizeof name));
  sc_scenario llm = scen(LLAMA, NULL, 0);
  cr_expect_null(acc_dp_class(&llm, "allreduce", name, sizeof name), "%s", name);
  cr_expect_str_eq(name, "transformer allreduce multi-server data-parallel");
}

/* Recommendation models: one GPU or several make the class. */
Test(accuracy, recsys_classes) {
  char name[64];
  const acc_row *one = acc_rs_class(1, name, sizeof name);
  cr_expect_str_eq(name, "recsys one GPU training");
  const acc_row *many = acc_rs_class(8, name, sizeof name);
  cr_expect_str_eq(name, "recsys multi-GPU training");
  cr_expect(one && many && one != many && one->n > 0 && many->n > 0, "recsys rows missing");
}
