/*
 * test_explain_kinds.c -- sc_explain_kinds, the step by operator kind
 * (`predict --ops`): its rows add up to the layers' operators, and a CNN
 * has the kinds a CNN has.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>
#include <unistd.h>

#include "cost/compute.h"
#include "stepcast.h"
#include "tmpfile.h"

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

/* A layer's GEMM rows say what was costed (docs/output.md, --ops): the
 * kernel ("narrow" for the 1024 -> 4 down-projection, "tile" for the
 * default model's GEMMs) and the fraction of peak its time achieves,
 * flops / (fwd_s x peak): for the narrow one below the tile model's
 * efficiency for that shape (1.3 % against 1.8 %), which the column
 * showed before. */
Test(explain_kinds, gemm_rows_give_the_kernel_costed_and_its_achieved_rate) {
  char path[] = "/tmp/sc_narrow_XXXXXX";
  tmp_write(path, "{\"name\": \"narrow\", \"seq\": 4096, \"blocks\": [{\"name\": \"l\", "
                  "\"role\": \"layer\", \"repeat\": 2, \"input\": {\"name\": \"x\", \"shape\": "
                  "[4096, 1024]}, \"ops\": [{\"name\": \"down\", \"op\": \"linear\", \"in\": "
                  "[\"x\"], \"out\": \"h\", \"out_features\": 4}, {\"name\": \"up\", \"op\": "
                  "\"linear\", \"in\": [\"h\"], \"out\": \"y\", \"out_features\": 1024}, "
                  "{\"name\": \"res\", \"op\": \"add\", \"in\": [\"x\", \"y\"], \"out\": "
                  "\"z\"}], \"output\": \"z\"}]}");
  char json[256];
  snprintf(json, sizeof json, "{\"model\": {\"graph\": \"%s\"}, \"cluster\": {\"gpus\": 1}, "
           "\"plan\": {\"tp\": 1, \"pp\": 1, \"vpp\": 1, \"schedule\": \"1f1b\", "
           "\"global_batch\": 8, \"micro_batch\": 1}}", path);
  sc_scenario s;
  sc_error err = {0};
  cr_assert_eq(sc_scenario_load_string(&s, json, "t.json", NULL, 0, &err), SC_OK, "%s", err.msg);
  sc_op_time ops[16];
  int n = sc_explain_layer(&s, ops, 16, &err);
  unlink(path);
  cr_assert_eq(n, 3, "%s", err.msg);
  const sc_op_time *down = row(ops, n, "down"), *res = row(ops, n, "res");
  cr_assert(down && res);
  cr_assert_str_eq(down->path, "narrow");
  double peak = cost_peak(&s.cluster.gpu, s.plan.dtype);
  cr_assert_float_eq(down->eff, down->flops / (down->fwd_s * peak), 1e-12);
  double tile = cost_gemm_eff(&s.cluster.gpu, s.plan.dtype, 4096, 4, 1024, 1);
  cr_assert_lt(down->eff, tile * 0.9, "achieved %g vs the tile model's %g", down->eff, tile);
  cr_assert_str_eq(res->path, "");
  cr_assert_eq(res->eff, 0);

  sc_scenario_default(&s);
  n = sc_explain_layer(&s, ops, 16, &err);
  cr_assert_gt(n, 0, "%s", err.msg);
  const sc_op_time *fc1 = row(ops, n, "fc1");
  cr_assert_not_null(fc1);
  cr_assert_str_eq(fc1->path, "tile");
  peak = cost_peak(&s.cluster.gpu, s.plan.dtype);
  cr_assert_float_eq(fc1->eff, fc1->flops / (fc1->fwd_s * peak), 1e-12);
  cr_assert(fc1->eff > 0.5 && fc1->eff <= s.cluster.gpu.gemm_eff, "fc1 achieves %g", fc1->eff);
}
