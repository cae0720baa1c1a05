/*
 * test_explain_kinds.c -- sc_explain_kinds, the step by operator kind
 * (`predict --ops`): its rows add up to the layers' operators, and a CNN
 * has the kinds a CNN has.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "stepcast.h"

static const sc_op_time *row(const sc_op_time *k, int n, const char *name) {
  for (int i = 0; i < n; i++)
    if (!strcmp(k[i].name, name)) return &k[i];
  return NULL;
}

/* GPT-style, one stage: the "gemm" row is every layer's GEMMs plus the
 * output head's, and no more; the rows are distinct. */
Test(explain_kinds, transformer_rows_are_the_layers_summed) {
  sc_scenario s;
  sc_scenario_default(&s);
  s.model.tf.layers = 12;
  s.cluster.gpus = 8;
  sc_plan_default(&s.plan);
  s.plan.tp = 1, s.plan.pp = 1, s.plan.dp = 8;
  s.plan.global_batch = 64, s.plan.micro_batch = 2;
  sc_error err = {0};
  sc_op_time ops[64], k[16];
  int n = sc_explain_layer(&s, ops, 64, &err);
  cr_assert_gt(n, 0, "%s", err.msg);
  int nk = sc_explain_kinds(&s, k, 16, &err);
  cr_assert_gt(nk, 0, "%s", err.msg);
  double layer_gemm = 0;
  for (int i = 0; i < n; i++)
    if (!strcmp(ops[i].kind, "gemm") && strncmp(ops[i].name, "flash", 5))
      layer_gemm += ops[i].fwd_s;
  const sc_op_time *g = row(k, nk, "gemm");
  cr_assert_not_null(g);
  cr_assert_geq(g->fwd_s, 12 * layer_gemm * (1 - 1e-9), "gemm %g < 12 x %g", g->fwd_s, layer_gemm);
  cr_assert_lt(g->fwd_s, 12 * layer_gemm * 1.3, "gemm %g: more than the layers and a head",
               g->fwd_s);
  cr_assert_not_null(row(k, nk, "attention"));
  cr_assert_not_null(row(k, nk, "norm"));
  for (int i = 0; i < nk; i++) {
    cr_assert_str_eq(k[i].kind, "kind");
    cr_assert(k[i].fwd_s >= 0 && k[i].bwd_s >= 0);
    for (int j = i + 1; j < nk; j++) cr_assert_str_neq(k[i].name, k[j].name);
  }
  /* a row limit is respected */
  cr_assert_eq(sc_explain_kinds(&s, k, 2, &err), 2);
}

/* ResNet-50: convolutions, batch norms, element-wise ops and pooling; the
 * convolutions' forward FLOPs are its 4.1 G multiply-adds an image (8.2
 * GFLOP). */
Test(explain_kinds, cnn_has_its_kinds) {
  sc_scenario s;
  sc_error err = {0};
  cr_assert_eq(sc_scenario_load_string(&s,
                 "{\"model\": \"resnet50\", \"cluster\": {\"gpu\": \"h200\", \"gpus\": 1,"
                 " \"gpus_per_node\": 1}, \"plan\": {\"global_batch\": 64, \"micro_batch\": 64,"
                 " \"dtype\": \"fp16\", \"amp\": true}}", "test", NULL, 0, &err), SC_OK, "%s", err.msg);
  sc_op_time k[16];
  int nk = sc_explain_kinds(&s, k, 16, &err);
  cr_assert_gt(nk, 0, "%s", err.msg);
  const char *want[] = {"conv", "norm", "eltwise", "pool"};
  for (int i = 0; i < 4; i++) cr_assert_not_null(row(k, nk, want[i]), "no %s row", want[i]);
  const sc_op_time *c = row(k, nk, "conv");
  double per_image = c->flops / 64;
  cr_assert(per_image > 7.6e9 && per_image < 8.8e9, "conv forward %g FLOP an image", per_image);
  cr_assert_gt(c->bwd_s, c->fwd_s, "backward (data + weight gradients) longer than forward");
  cr_assert_null(row(k, nk, "attention"));
}
