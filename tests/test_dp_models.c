/*
 * test_dp_models.c -- the CNN and BERT builders (src/model/cnn.c,
 * bert.c): parameters and forward FLOPs against the published figures of
 * ../shared/validation/MODELS.md, one convolution by hand, the scenario
 * keys of these presets and their errors.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cost/compute.h"
#include "job/dpm.h"
#include "load/graph_json.h"
#include "model/builder.h"

/* The resolved preset `id` built into *g. */
static wg_graph *build(const char *id, sc_model *m) {
  const sc_model *p = sc_model_preset(id);
  cr_assert(p, "no preset %s", id);
  *m = *p;
  sc_error err = {0};
  const model_builder *b = model_builder_for(m->kind);
  cr_assert_eq(b->resolve(m, &err), SC_OK, "%s: %s", id, err.msg);
  wg_graph *g = NULL;
  cr_assert_eq(b->build(m, &g, &err), SC_OK, "%s: %s", id, err.msg);
  return g;
}

/* Forward model FLOPs of the blocks of role `role` (-1: all). */
static double fwd_flops(const wg_graph *g, int role) {
  double f = 0;
  for (int b = 0; b < g->n_blocks; b++) {
    const wg_block *bl = &g->blocks[b];
    if (role >= 0 && (int)bl->role != role) continue;
    for (int j = 0; j < bl->n_ops; j++) f += bl->count * g->ops[bl->first_op + j].model_flops;
  }
  return f;
}

static const wg_op *find_op(const wg_graph *g, const char *block, const char *name) {
  for (int b = 0; b < g->n_blocks; b++) {
    if (strcmp(g->blocks[b].name, block)) continue;
    for (int j = 0; j < g->blocks[b].n_ops; j++)
      if (!strcmp(g->ops[g->blocks[b].first_op + j].name, name))
        return &g->ops[g->blocks[b].first_op + j];
  }
  cr_assert_fail("no op %s in block %s", name, block);
  return NULL;
}

static void within(double got, double want, double tol, const char *what) {
  cr_assert(fabs(got / want - 1) <= tol, "%s: %.6g, published %.6g (%.2f %% off, tolerance %.1f %%)",
            what, got, want, 100 * (got / want - 1), 100 * tol);
}

/* id, exact parameters of the reference definition, published forward
 * FLOPs (1 MAC = 2 FLOPs), MODELS.md. */
typedef struct ref { const char *id; double params, gflops; } ref;

Test(dp_models, cnn_params_and_flops) {
  static const ref refs[] = {
      /* torchvision counts (conv without bias + batch norm gamma/beta);
       * FLOPs: He et al. 3.8 G mult-adds = "~7.7 GFLOPs" (MODELS.md) */
      {"resnet50_v1", 25557032, 7.7},
      {"resnet50_v1.5", 25557032, 2 * 4.09},   /* torchvision "4.09 GFLOPS" (MACs) */
      {"resnet101_v1", 44549160, 2 * 7.6},     /* He et al. 7.6 G mult-adds */
      {"resnet152_v1", 60192808, 2 * 11.3},    /* He et al. 11.3 G mult-adds */
      {"vgg16", 138357544, 2 * 15.47},         /* Keras 138,357,544; torchvision 15.47 */
      /* torchvision 27,161,264 with the auxiliary head, whose 1x1 conv
       * 768x128 (98,304 + BN 256), 5x5 conv 128x768 (2,457,600 + BN 1,536)
       * and FC 768x1000 + 1000 (769,000) make 3,326,696: 23,834,568 */
      {"inception_v3", 23834568, 2 * 5.71},
      {"alexnet_tfcnn", 61100840, 2 * 0.71},   /* torchvision widths */
  };
  for (size_t i = 0; i < sizeof refs / sizeof refs[0]; i++) {
    sc_model m;
    wg_graph *g = build(refs[i].id, &m);
    cr_assert_eq(wg_params(g), refs[i].params, "%s: %.0f parameters, reference %.0f", refs[i].id,
                 wg_params(g), refs[i].params);
    within(fwd_flops(g, -1) / 1e9, refs[i].gflops, 0.01, refs[i].id);
    cr_assert_eq(sc_model_params(&m), refs[i].params, "%s: sc_model_params", refs[i].id);
    /* MFU counts forward + backward = 3 x forward */
    within(g->model_flops, 3 * fwd_flops(g, -1), 1e-12, "model_flops");
    wg_free(g);
  }
}

/* The stem of ResNet-50 by hand: 7x7/2 conv, 3 -> 64 channels, pad 3 on
 * 224: (224 + 6 - 7) / 2 + 1 = 112; 2 x 64 x (7 x 7 x 3) x 112 x 112 =
 * 236,027,904 FLOPs and 64 x 147 = 9,408 weights. */
Test(dp_models, one_conv_by_hand) {
  sc_model m;
  wg_graph *g = build("resnet50", &m);
  const wg_op *c = find_op(g, "stem", "conv1");
  cr_assert_eq(c->flops, 236027904.0, "stem conv FLOPs %.0f", c->flops);
  cr_assert_eq(c->params, 9408.0, "stem conv weights %.0f", c->params);
  const wg_tensor *y = &g->tensors[c->out];
  cr_assert(y->dim[0] == 64 && y->dim[1] == 112 && y->dim[2] == 112, "stem output %ld x %ld x %ld",
            y->dim[0], y->dim[1], y->dim[2]);
  /* v1.5 strides the 3x3 of stage 2's first block: 3x3 over 128 channels
   * onto 28 x 28: 2 x 128 x 1152 x 784; v1 runs it at 28 x 28 too, but
   * its first 1x1 (256 -> 128) runs at 28 x 28 instead of 56 x 56 */
  const wg_op *c2 = find_op(g, "stage2_down", "conv2");
  cr_assert_eq(c2->flops, 2.0 * 128 * 1152 * 784, "v1.5 conv2 %.0f", c2->flops);
  const wg_op *c1 = find_op(g, "stage2_down", "conv1");
  cr_assert_eq(c1->flops, 2.0 * 128 * 256 * 3136, "v1.5 conv1 %.0f", c1->flops);
  wg_free(g);
  g = build("resnet50_v1", &m);
  c1 = find_op(g, "stage2_down", "conv1");
  cr_assert_eq(c1->flops, 2.0 * 128 * 256 * 784, "v1 conv1 %.0f", c1->flops);
  /* residual blocks after the first of a stage are one repeated block */
  int found = 0;
  for (int b = 0; b < g->n_blocks; b++)
    if (!strcmp(g->blocks[b].name, "stage3")) found = g->blocks[b].count;
  cr_assert_eq(found, 5, "stage3 repeats %d (6 blocks: 1 down + 5)", found);
  wg_free(g);
}

/* Inception's 1x7 conv: a rectangular kernel with width padding 3 keeps
 * 17 x 17: 2 x 128 x (1 x 7 x 128) x 289. */
Test(dp_models, rectangular_kernel) {
  sc_model m;
  wg_graph *g = build("inception_v3", &m);
  const wg_op *c = find_op(g, "mixed_6b", "b7x7_2");
  cr_assert_eq(c->flops, 2.0 * 128 * 7 * 128 * 289, "1x7 conv %.0f", c->flops);
  cr_assert_eq(c->params, 7.0 * 128 * 128, "1x7 weights %.0f", c->params);
  const wg_tensor *y = &g->tensors[find_op(g, "mixed_7c", "out")->out];
  cr_assert(y->dim[0] == 2048 && y->dim[1] == 8 && y->dim[2] == 8, "mixed_7c %ld x %ld x %ld",
            y->dim[0], y->dim[1], y->dim[2]);
  double f299 = fwd_flops(g, -1);
  wg_free(g);
  /* KungFu feeds 224 x 224: cost ~ (224 / 299)^2 (MODELS.md); VALID
   * borders take more (the 35 x 35 grid becomes 25 x 25): 0.89 of it */
  m.cnn.image = 224;
  cr_assert_eq(model_builder_for(m.kind)->build(&m, &g, NULL), SC_OK);
  double r = fwd_flops(g, -1) / f299, want = (224.0 / 299) * (224.0 / 299);
  cr_assert(r < want && r > 0.85 * want, "224/299 FLOPs ratio %.3f, (224/299)^2 %.3f", r, want);
  wg_free(g);
}

/* BERT: 110 M (Devlin et al.), 108.9 M for encoder + embeddings; 22.4
 * GFLOPs per 128-token sequence for the encoder and 2 H V per masked
 * position for the MLM decoder (20 positions: 0.94 GFLOPs); BERT-large
 * 334 M encoder + embeddings, 335 GFLOPs at 512 (MODELS.md). */
Test(dp_models, bert_params_and_flops) {
  sc_model m;
  wg_graph *g = build("bert_base", &m);
  within(wg_params(g) / 1e6, 110, 0.01, "bert_base parameters");
  double heads = 0;
  for (int b = 0; b < g->n_blocks; b++)
    if (g->blocks[b].role == WG_ROLE_LAST) heads += wg_block_params(g, b);
  within((wg_params(g) - heads) / 1e6, 108.9, 0.01, "bert_base encoder + embeddings");
  within((fwd_flops(g, WG_ROLE_FIRST) + fwd_flops(g, WG_ROLE_LAYER)) / 1e9, 22.4, 0.01,
         "bert_base encoder GFLOPs at 128");
  within(find_op(g, "heads", "mlm_decoder")->model_flops / 1e9, 0.94, 0.01, "MLM decoder");
  cr_assert_eq(g->tensors[find_op(g, "heads", "mlm_gather")->out].dim[0], 20, "masked positions");
  wg_free(g);
  g = build("bert_large", &m);
  heads = 0;
  for (int b = 0; b < g->n_blocks; b++)
    if (g->blocks[b].role == WG_ROLE_LAST) heads += wg_block_params(g, b);
  within((wg_params(g) - heads) / 1e6, 334, 0.01, "bert_large encoder + embeddings");
  within((fwd_flops(g, WG_ROLE_FIRST) + fwd_flops(g, WG_ROLE_LAYER)) / 1e9, 335, 0.01,
         "bert_large GFLOPs at 512");
  cr_assert_eq(g->tensors[find_op(g, "heads", "mlm_gather")->out].dim[0], 80, "masked positions");
  wg_free(g);
  /* unpadded to 256 tokens on average: 2 x 302.3 M x 256 + 4 x 24 x 256^2
   * x 1024 = 154.8 + 6.4 GFLOPs; the position table stays 512 rows */
  m.bert.tokens = 256;
  cr_assert_eq(model_builder_for(m.kind)->build(&m, &g, NULL), SC_OK);
  within((fwd_flops(g, WG_ROLE_FIRST) + fwd_flops(g, WG_ROLE_LAYER)) / 1e9, 161.2, 0.01,
         "bert_large GFLOPs at 256 tokens");
  within((wg_params(g) - heads) / 1e6, 334, 0.01, "bert_large parameters at 256 tokens");
  wg_free(g);
  m.bert.tokens = 600;
  sc_error err = {0};
  cr_assert_eq(model_builder_for(m.kind)->resolve(&m, &err), SC_EINPUT);
  cr_assert(strstr(err.msg, "model.tokens"), "%s", err.msg);
}

/* model.mlm_all_positions (NVIDIA's 2020 PyTorch BERT): the masked-LM
 * head runs on all 128 positions of BERT-base instead of 20 gathered
 * ones. By hand: the decoder 2 x 768 x 30,522 x 128 = 6.00 GFLOPs (0.94
 * at 20); the head's dense and decoder over 108 more rows, 2 x 768 x
 * (768 + 30,522) x 108 = 5.19 GFLOPs more forward; no gather; the
 * encoder unchanged. Unpadded to 256 tokens, the head runs 256 rows. */
static int has_op(const wg_graph *g, const char *name) {
  for (int i = 0; i < g->n_ops; i++)
    if (!strcmp(g->ops[i].name, name)) return 1;
  return 0;
}

Test(dp_models, bert_mlm_all_positions) {
  sc_model m;
  wg_graph *g = build("bert_base", &m);
  double heads20 = fwd_flops(g, WG_ROLE_LAST), enc20 = fwd_flops(g, WG_ROLE_LAYER);
  wg_free(g);
  m.bert.mlm_all_positions = 1;
  cr_assert_eq(model_builder_for(m.kind)->build(&m, &g, NULL), SC_OK);
  within(find_op(g, "heads", "mlm_decoder")->model_flops / 1e9, 6.00, 0.01,
         "MLM decoder over 128 positions");
  within((fwd_flops(g, WG_ROLE_LAST) - heads20) / 1e9, 5.19, 0.01, "heads' extra GFLOPs");
  cr_assert_float_eq(fwd_flops(g, WG_ROLE_LAYER), enc20, 1e-9 * enc20, "encoder unchanged");
  cr_assert(!has_op(g, "mlm_gather"), "no gather on every position");
  cr_assert_eq(g->tensors[find_op(g, "heads", "mlm_decoder")->out].dim[0], 128, "logits rows");
  wg_free(g);
  g = build("bert_large", &m);
  m.bert.tokens = 256;
  m.bert.mlm_all_positions = 1;
  wg_free(g);
  cr_assert_eq(model_builder_for(m.kind)->build(&m, &g, NULL), SC_OK);
  cr_assert_eq(g->tensors[find_op(g, "heads", "mlm_decoder")->out].dim[0], 256, "unpadded rows");
  wg_free(g);
  m.bert.mlm_all_positions = 2;
  sc_error err = {0};
  cr_assert_eq(model_builder_for(m.kind)->resolve(&m, &err), SC_EINPUT);
  cr_assert(strstr(err.msg, "model.mlm_all_positions"), "%s", err.msg);
  /* the scenario key */
  sc_scenario s;
  const char *keys[] = {"model.mlm_all_positions=1", "cluster.gpus=1", "plan.global_batch=8"};
  cr_assert_eq(sc_scenario_load_string(&s, "{\"model\": \"bert_base\"}", "t", keys, 3, &err),
               SC_OK, "%s", err.msg);
  cr_assert_eq(s.model.bert.mlm_all_positions, 1);
  cr_assert_eq(sc_scenario_load_string(&s, "{\"model\": \"resnet50\"}", "t", keys, 1, &err),
               SC_EINPUT);
  cr_assert(strstr(err.msg, "mlm_all_positions"), "%s", err.msg);
}

/* Scenario keys of these presets, and what fails. */
Test(dp_models, scenario_keys) {
  sc_scenario s;
  sc_error err = {0};
  const char *ok[] = {"model.image=224", "cluster.gpus=1", "plan.tp=1", "plan.pp=1",
                      "plan.global_batch=32"};
  cr_assert_eq(sc_scenario_load_string(&s, "{\"model\": \"inception_v3\"}", "t", ok, 5, &err),
               SC_OK, "%s", err.msg);
  cr_assert_eq(s.model.kind, SC_MODEL_CNN);
  cr_assert_eq(s.model.cnn.image, 224);
  const char *seq[] = {"model.seq=512", "cluster.gpus=1", "plan.tp=1", "plan.pp=1",
                       "plan.global_batch=8"};
  cr_assert_eq(sc_scenario_load_string(&s, "{\"model\": \"bert_base\"}", "t", seq, 5, &err),
               SC_OK, "%s", err.msg);
  cr_assert_eq(s.model.bert.seq, 512);
  sc_result r;
  cr_assert_eq(sc_predict(&s, &r, &err), SC_OK, "%s", err.msg);
  cr_assert(r.step_s > 0 && r.params > 1e8, "step %g params %g", r.step_s, r.params);

  /* 10 classes: the FC is 2048 x 10 + 10 instead of 2048 x 1000 + 1000 */
  cr_assert_eq(sc_scenario_load_string_ex(&s, "{\"model\": {\"preset\": \"resnet50\", \"classes\": 10}}",
                                          "t", NULL, 0, SC_LOAD_PLAN_UNCHECKED, &err),
               SC_OK, "%s", err.msg);
  cr_assert_eq(sc_model_params(&s.model), 25557032.0 - 2049000 + 20490, "params %.0f",
               sc_model_params(&s.model));
  cr_assert_eq(sc_scenario_load_string(&s, "{\"model\": {\"preset\": \"vgg16\", \"layers\": 3}}",
                                       "t", NULL, 0, &err),
               SC_EINPUT);
  cr_assert(strstr(err.msg, "model.layers does not apply to vgg16"), "%s", err.msg);
  cr_assert_eq(sc_scenario_load_string(&s, "{\"model\": {\"preset\": \"vgg16\", \"image\": 32}}",
                                       "t", NULL, 0, &err),
               SC_EINPUT);
  cr_assert(strstr(err.msg, "model.image: 32 pixels is not valid for vgg16"), "%s", err.msg);
  cr_assert_eq(sc_scenario_load_string(&s, "{\"model\": {\"preset\": \"bert_base\", \"seq\": 1024}}",
                                       "t", NULL, 0, &err),
               SC_EINPUT);
  cr_assert(strstr(err.msg, "model.seq"), "%s", err.msg);
  cr_assert_eq(sc_scenario_load_string(&s, "{\"model\": {\"preset\": \"gpt3-125m\", \"image\": 224}}",
                                       "t", NULL, 0, &err),
               SC_EINPUT);
  cr_assert(strstr(err.msg, "model.image applies to CNN presets only"), "%s", err.msg);
}

/* The data-parallel view (src/job/dpm.h): ResNet-50's gradients in
 * backward order, 53 convs + 53 batch norms + the FC = 107 layers and
 * 53 + 2 x 53 + 2 = 161 tensors; the backward GPU time is split between
 * them without loss, and a worker's batch comes from micro_batch. */
Test(dp_models, layers_in_backward_order) {
  sc_scenario s;
  sc_scenario_default(&s);
  s.model = *sc_model_preset("resnet50");
  s.cluster.gpu = *sc_gpu_preset("v100-sxm3-32gb");
  s.cluster.gpus = 16;
  s.plan.tp = 8, s.plan.pp = 4; /* ignored: a worker runs the whole model */
  s.plan.global_batch = 1024;
  s.plan.micro_batch = 64;
  s.plan.dtype = SC_FP16;
  dpm_model m;
  sc_error err = {0};
  cr_assert_eq(dpm_layers(&s, &m, &err), SC_OK, "%s", err.msg);
  cr_assert_eq(m.n, 107, "layers %d", m.n);
  cr_assert_eq(m.tensors, 161, "tensors %d", m.tensors);
  cr_assert_eq(m.params, 25557032.0, "params %.0f", m.params);
  cr_assert_eq(m.batch, 64);
  cr_assert_str_eq(m.layers[0].name, "head.fc");
  cr_assert_str_eq(m.layers[1].name, "stage4[1].conv3_bn");
  cr_assert_str_eq(m.layers[m.n - 1].name, "stem.conv1");
  cr_assert_eq(m.layers[0].params, 2048.0 * 1000 + 1000);
  double sum = m.tail_s;
  for (int i = 0; i < m.n; i++) {
    cr_assert(m.layers[i].bwd_s > 0, "%s: bwd %g", m.layers[i].name, m.layers[i].bwd_s);
    sum += m.layers[i].bwd_s;
  }
  cr_assert(fabs(sum - m.bwd_s) <= 1e-12 * m.bwd_s, "sum %.9g vs backward %.9g", sum, m.bwd_s);
  double fsum = m.head_s;
  for (int i = 0; i < m.n; i++) fsum += m.layers[i].fwd_s;
  cr_assert(fabs(fsum - m.fwd_s) <= 1e-12 * m.fwd_s, "forward sum %.9g vs %.9g", fsum, m.fwd_s);
  /* the stem conv comes first in forward order: nothing before it */
  cr_assert_eq(m.head_s, 0);
  cr_assert(m.layers[m.n - 1].fwd_s > 0 && m.layers[0].fwd_s > 0);
  /* the single-GPU step is the GPU work, unless the host is slower */
  double gpu = m.fwd_s + m.bwd_s + m.optimizer_s;
  cr_assert(m.single_s >= gpu * (1 - 1e-9) && m.single_s < 1.5 * gpu,
            "single %.6g s, GPU sums %.6g s", m.single_s, gpu);
  /* twice the batch: about twice the backward */
  dpm_model m2;
  s.plan.micro_batch = 128;
  cr_assert_eq(dpm_layers(&s, &m2, &err), SC_OK, "%s", err.msg);
  cr_assert(m2.bwd_s > 1.7 * m.bwd_s && m2.bwd_s < 2.1 * m.bwd_s, "bwd %g vs %g", m2.bwd_s,
            m.bwd_s);
  dpm_free(&m);
  dpm_free(&m2);
  cr_assert_null(m.layers);
  s.plan.dtype = SC_FP8; /* V100 has no fp8 */
  cr_assert_neq(dpm_layers(&s, &m, &err), SC_OK);
  cr_assert_eq(m.n, 0);
}

/* Load preset `model` on one GPU at a batch of 64 with the override
 * `key` ("model.x=v"); the loader's code. */
static int load_one_gpu(sc_scenario *s, const char *model, const char *key, sc_error *err) {
  const char *over[] = {key, "cluster.gpus=1", "plan.global_batch=64", "plan.micro_batch=64"};
  char json[96];
  snprintf(json, sizeof json, "{\"model\": \"%s\"}", model);
  return sc_scenario_load_string(s, json, "t", over, 4, err);
}

/* The data-parallel view of a CNN as Keras' applications define it
 * (model.keras): trainable parameters as Keras counts them
 * (../shared/validation/MODELS.md's totals less the batch norms' moving
 * mean and variance, 2 per channel: ResNet50 25,636,712 - 2 x 26,560,
 * InceptionV3 23,851,784 - 2 x 17,216) and the gradient tensors a
 * per-tensor exchange sends: ResNet-50 53 convs with a bias + 53 batch
 * norms (scale, shift) + the FC = 214 (161 without the biases), Inception-v3
 * 94 convs + 94 shifts + the FC = 190 (284 with the scales). A bias on
 * each ResNet convolution is a kernel of its own: a longer backward and
 * forward at the same FLOPs; Inception's missing scale costs nothing. */
static void keras_view(const char *id, int keras, dpm_model *m) {
  sc_scenario s;
  sc_scenario_default(&s);
  s.model = *sc_model_preset(id);
  s.model.cnn.keras = keras;
  s.cluster.gpu = *sc_gpu_preset("v100-sxm2-32gb");
  s.cluster.gpus = 16;
  s.plan.global_batch = 16 * 32;
  s.plan.micro_batch = 32;
  s.plan.dtype = SC_FP32;
  sc_error err = {0};
  cr_assert_eq(dpm_layers(&s, m, &err), SC_OK, "%s: %s", id, err.msg);
}

Test(dp_models, keras_applications) {
  dpm_model r0, r1, i0, i1;
  keras_view("resnet50_v1", 0, &r0);
  keras_view("resnet50_v1", 1, &r1);
  cr_assert_eq(r1.params, 25636712.0 - 2 * 26560, "Keras ResNet50 params %.0f", r1.params);
  cr_assert_eq(r1.params - r0.params, 26560.0, "conv biases %.0f", r1.params - r0.params);
  cr_assert_eq(r0.tensors, 161, "tensors %d", r0.tensors);
  cr_assert_eq(r1.tensors, 214, "Keras tensors %d", r1.tensors);
  cr_assert(r1.fwd_s > 1.02 * r0.fwd_s && r1.bwd_s > 1.01 * r0.bwd_s,
            "bias kernels: forward %.4g vs %.4g s, backward %.4g vs %.4g s", r1.fwd_s, r0.fwd_s,
            r1.bwd_s, r0.bwd_s);
  keras_view("inception_v3", 0, &i0);
  keras_view("inception_v3", 1, &i1);
  cr_assert_eq(i1.params, 23851784.0 - 2 * 17216, "Keras InceptionV3 params %.0f", i1.params);
  cr_assert_eq(i0.tensors, 284, "tensors %d", i0.tensors);
  cr_assert_eq(i1.tensors, 190, "Keras tensors %d", i1.tensors);
  cr_assert(fabs(i1.single_s / i0.single_s - 1) < 1e-3, "Inception step %.5g vs %.5g s",
            i1.single_s, i0.single_s);
  dpm_model v0, v1;
  keras_view("vgg16", 0, &v0);
  keras_view("vgg16", 1, &v1);
  cr_assert(v0.params == v1.params && v0.tensors == v1.tensors && v0.single_s == v1.single_s,
            "Keras' VGG16 is the reference's");
  dpm_model *all[] = {&r0, &r1, &i0, &i1, &v0, &v1};
  for (size_t k = 0; k < sizeof all / sizeof all[0]; k++) dpm_free(all[k]);

  sc_model bad = *sc_model_preset("resnet50_v1");
  bad.cnn.keras = 2;
  sc_error err = {0};
  cr_assert_eq(model_builder_for(bad.kind)->resolve(&bad, &err), SC_EINPUT);
  cr_assert(strstr(err.msg, "model.keras"), "%s", err.msg);
  sc_scenario s;
  cr_assert_eq(load_one_gpu(&s, "inception_v3", "model.keras=1", &err), SC_OK, "%s", err.msg);
  cr_assert_eq(s.model.cnn.keras, 1, "the override sets it");
  cr_assert_eq(load_one_gpu(&s, "bert_base", "model.keras=1", &err), SC_EINPUT);
  cr_assert(strstr(err.msg, "model.keras"), "%s", err.msg);
  /* Keras has no AlexNet, and its ResNet50 is v1 (the "resnet50" preset
   * is v1.5): refused, not built as something Keras does not define */
  const char *none[] = {"alexnet", "resnet50", "resnet50_v1.5"};
  for (size_t k = 0; k < sizeof none / sizeof none[0]; k++) {
    cr_assert_eq(load_one_gpu(&s, none[k], "model.keras=1", &err), SC_EINPUT, "%s", none[k]);
    cr_assert(strstr(err.msg, "model.keras") && strstr(err.msg, "not one of Keras' applications") &&
                  strstr(err.msg, "resnet50_v1,"),
              "%s: %s", none[k], err.msg);
  }
}

/* The workload-graph JSON takes what these builders use: rectangular
 * kernels, channel concatenation, slices; and names what is wrong. */
Test(dp_models, json_graph_attributes) {
  static const char doc[] =
      "{\"name\": \"mini\", \"blocks\": [{\"name\": \"b\", \"input\": {\"name\": \"x\", \"shape\": [8, 17, 17]},"
      " \"ops\": ["
      "  {\"name\": \"c17\", \"op\": \"conv2d\", \"in\": [\"x\"], \"out\": \"a\", \"out_channels\": 4,"
      "   \"kernel\": 1, \"kernel_w\": 7, \"pad_w\": 3, \"shape\": [4, 17, 17]},"
      "  {\"name\": \"c71\", \"op\": \"conv2d\", \"in\": [\"x\"], \"out\": \"b\", \"out_channels\": 6,"
      "   \"kernel\": 7, \"kernel_w\": 1, \"pad\": 3},"
      "  {\"name\": \"cat\", \"op\": \"concat_channels\", \"in\": [\"a\", \"b\", \"x\"], \"out\": \"y\","
      "   \"shape\": [18, 17, 17]},"
      "  {\"name\": \"first\", \"op\": \"slice\", \"in\": [\"y\"], \"out\": \"z\", \"rows\": 2}"
      " ], \"output\": \"z\"}]}";
  wg_graph *g = NULL;
  sc_error err = {0};
  cr_assert_eq(graph_json_load_buffer(doc, strlen(doc), "mini.json", &g, &err), SC_OK, "%s", err.msg);
  cr_assert_eq(g->ops[0].flops, 2.0 * 4 * 7 * 8 * 289, "1x7 conv %.0f", g->ops[0].flops);
  cr_assert_eq(g->ops[1].params, 6.0 * 7 * 8, "7x1 weights %.0f", g->ops[1].params);
  const wg_tensor *z = &g->tensors[g->ops[3].out];
  cr_assert(z->dim[0] == 2 && z->dim[1] == 17, "slice %ld x %ld", z->dim[0], z->dim[1]);
  wg_free(g);
  char bad[sizeof doc + 16];
  snprintf(bad, sizeof bad, "%s", doc);
  char *pad = strstr(bad, "\"pad\": 3");
  pad[7] = '1'; /* the 7x1 conv now makes 13 rows: the concat fails */
  cr_assert_eq(graph_json_load_buffer(bad, strlen(bad), "mini.json", &g, &err), SC_EINPUT);
  cr_assert(strstr(err.msg, "concat_channels wants the height and width"), "%s", err.msg);
}

/* plan.channels_last through a scenario: NCHW slows a tensor-core (fp16)
 * ResNet-50 step by the transposes around its convolutions and leaves the
 * fp32 one (CUDA-core convolutions, cuDNN's NCHW kernels) as it is, but
 * for PyTorch's stem max-pool, whose NCHW and NHWC kernels take their own
 * cycles (cost/pool.h): 0.08 ms of a 184 ms step. */
Test(dp_models, channels_last_key) {
  double t[2][2];
  for (int dt = 0; dt < 2; dt++)
    for (int cl = 0; cl < 2; cl++) {
      sc_scenario s;
      sc_error err = {0};
      const char *set[] = {"cluster.gpu=v100-sxm2-16gb", "cluster.gpus=1", "plan.global_batch=64",
                           dt ? "plan.dtype=fp16" : "plan.dtype=fp32",
                           cl ? "plan.channels_last=true" : "plan.channels_last=false"};
      cr_assert_eq(sc_scenario_load_string(&s, "{\"model\": \"resnet50\"}", "t", set, 5, &err),
                   SC_OK, "%s", err.msg);
      cr_assert_eq(s.plan.channels_last, cl);
      sc_result r;
      cr_assert_eq(sc_predict(&s, &r, &err), SC_OK, "%s", err.msg);
      t[dt][cl] = r.step_s;
    }
  cr_assert(fabs(t[0][0] / t[0][1] - 1) < 1e-3, "fp32: %g vs %g", t[0][0], t[0][1]);
  cr_assert(t[1][0] > 1.2 * t[1][1], "fp16 NCHW %g s, NHWC %g s", t[1][0], t[1][1]);
}

/* Fused batch norm (model.fused_bn, NVIDIA's MXNet ResNet): the first
 * block of stage 1 (56 x 56, width 64, a projection shortcut; E = 256 x
 * 56 x 56 elements at the block's output) moves nothing in its batch
 * norms and ReLUs; its add moves 3 passes of E forward and, backward, its
 * own 3 plus 5 passes of each batch norm: conv1_bn and conv2_bn E / 4
 * each, conv3_bn and shortcut_bn E each: (3 + 5 x 2.5) / 3 = 5.1667 x
 * the forward. The stem keeps batch norm's 3 and 5 passes, its ReLU
 * folded in. Parameters do not change. */
Test(dp_models, fused_batch_norm) {
  sc_model plain, fused;
  wg_graph *g0 = build("resnet50_v1.5", &plain);
  const sc_model *p = sc_model_preset("resnet50_v1.5");
  fused = *p;
  fused.cnn.fused_bn = 1;
  sc_error err = {0};
  const model_builder *b = model_builder_for(fused.kind);
  cr_assert_eq(b->resolve(&fused, &err), SC_OK, "%s", err.msg);
  wg_graph *g1 = NULL;
  cr_assert_eq(b->build(&fused, &g1, &err), SC_OK, "%s", err.msg);
  cr_assert_eq(b->params(&fused), b->params(&plain), "params %.0f vs %.0f", b->params(&fused),
               b->params(&plain));
  static const char *const gone[] = {"conv1_bn", "conv1_relu", "conv2_bn", "conv2_relu",
                                     "conv3_bn", "shortcut_bn", "out"};
  for (size_t i = 0; i < sizeof gone / sizeof gone[0]; i++) {
    const wg_op *o = find_op(g1, "stage1_down", gone[i]);
    cr_assert(o->traffic_e == 0 && o->traffic_b == 0 && o->host_fwd == 0 && o->host_bwd == 0,
              "%s still moves bytes or launches", gone[i]);
    cr_assert(find_op(g0, "stage1_down", gone[i])->traffic_e > 0, "%s unfused", gone[i]);
  }
  const wg_op *a0 = find_op(g0, "stage1_down", "add"), *a1 = find_op(g1, "stage1_down", "add");
  double e = 256.0 * 56 * 56;
  cr_assert_eq(a1->elems, e, "add elements %.0f", a1->elems);
  cr_assert_eq(a1->traffic_e, 3.0, "add passes %g", a1->traffic_e);
  cr_assert(fabs(a1->bwd_scale - (3 + 5 * 2.5) / 3) < 1e-12, "add backward x %.6f, by hand %.6f",
            a1->bwd_scale, (3 + 5 * 2.5) / 3);
  cr_assert_eq(a0->bwd_scale, 1.0, "unfused add backward x %g", a0->bwd_scale);
  const wg_op *s0 = find_op(g1, "stem", "conv1_bn"), *s1 = find_op(g1, "stem", "conv1_relu");
  cr_assert(s0->traffic_e == 3 && fabs(s0->bwd_scale - 5.0 / 3) < 1e-12, "stem batch norm %g x %g",
            s0->traffic_e, s0->bwd_scale);
  cr_assert_eq(s1->traffic_e, 0, "stem ReLU folded into the batch norm kernel");
  wg_free(g0);
  wg_free(g1);

  sc_model vgg = *sc_model_preset("vgg16");
  vgg.cnn.fused_bn = 1;
  cr_assert_eq(b->resolve(&vgg, &err), SC_EINPUT);
  cr_assert(strstr(err.msg, "model.fused_bn"), "%s", err.msg);

  /* the scenario key, and a step that is shorter fused (A100, fp16) */
  sc_scenario s;
  const char *keys[] = {"cluster.gpu=a100-sxm4-80gb", "cluster.gpus=1", "plan.dtype=fp16",
                        "plan.global_batch=256", "plan.micro_batch=256"};
  sc_result r0, r1;
  cr_assert_eq(sc_scenario_load_string(&s, "{\"model\": \"resnet50_v1.5\"}", "t", keys, 5, &err),
               SC_OK, "%s", err.msg);
  cr_assert_eq(sc_predict(&s, &r0, &err), SC_OK, "%s", err.msg);
  cr_assert_eq(sc_scenario_load_string(
                   &s, "{\"model\": {\"preset\": \"resnet50_v1.5\", \"fused_bn\": 1}}", "t", keys, 5,
                   &err),
               SC_OK, "%s", err.msg);
  cr_assert_eq(s.model.cnn.fused_bn, 1);
  cr_assert_eq(sc_predict(&s, &r1, &err), SC_OK, "%s", err.msg);
  cr_assert_eq(load_one_gpu(&s, "resnet101_v1", "model.fused_bn=1", &err), SC_OK, "%s", err.msg);
  cr_assert_eq(s.model.cnn.fused_bn, 1, "the override sets it");
  cr_assert_eq(load_one_gpu(&s, "inception_v3", "model.fused_bn=1", &err), SC_EINPUT);
  cr_assert(strstr(err.msg, "inception_v3 has no fused batch norm"), "%s", err.msg);
  cr_assert(r1.step_s < 0.9 * r0.step_s, "fused %.4f s, unfused %.4f s", r1.step_s, r0.step_s);
}

/* Plain SGD (model.optimizer sgd: tf_cnn_benchmarks' --optimizer default,
 * the KungFu benchmarks): the update reads the fp32 weight and gradient and
 * writes the weight, 12 bytes a parameter, where SGD with momentum (the
 * CNN default) also reads and writes the momentum, 20. The graph's figure
 * says so, and the one-GPU optimizer time (bytes over the GPU's memory
 * rate) falls to 12 / 20 = 0.6 of momentum's, less the kernel's fixed
 * start: ResNet-50's 25.6 M parameters move 307 MB instead of 511 MB. An
 * enum value out of range is refused. */
Test(dp_models, plain_sgd) {
  sc_model mom, sgd = *sc_model_preset("resnet50");
  wg_graph *g0 = build("resnet50", &mom);
  sgd.optimizer = SC_OPT_SGD;
  sc_error err = {0};
  const model_builder *b = model_builder_for(sgd.kind);
  cr_assert_eq(b->resolve(&sgd, &err), SC_OK, "%s", err.msg);
  wg_graph *g1 = NULL;
  cr_assert_eq(b->build(&sgd, &g1, &err), SC_OK, "%s", err.msg);
  cr_assert_eq(mom.optimizer, SC_OPT_DEFAULT, "resolving leaves a blank optimizer blank");
  cr_assert_eq(g0->opt.bytes_per_param, 20.0, "momentum %g B", g0->opt.bytes_per_param);
  cr_assert_eq(g1->opt.bytes_per_param, 12.0, "plain SGD %g B", g1->opt.bytes_per_param);
  wg_free(g0);
  wg_free(g1);

  sc_scenario s;
  const char *keys[] = {"cluster.gpu=v100-sxm2-16gb", "cluster.gpus=1", "plan.dtype=fp32",
                        "plan.global_batch=32", "plan.micro_batch=32"};
  sc_result r0, r1;
  cr_assert_eq(sc_scenario_load_string(&s, "{\"model\": \"resnet50\"}", "t", keys, 5, &err),
               SC_OK, "%s", err.msg);
  cr_assert_eq(sc_predict(&s, &r0, &err), SC_OK, "%s", err.msg);
  cr_assert_eq(sc_scenario_load_string(
                   &s, "{\"model\": {\"preset\": \"resnet50\", \"optimizer\": \"sgd\"}}", "t",
                   keys, 5, &err),
               SC_OK, "%s", err.msg);
  cr_assert_eq(s.model.optimizer, SC_OPT_SGD);
  cr_assert_eq(sc_predict(&s, &r1, &err), SC_OK, "%s", err.msg);
  cr_assert(r0.time.optimizer > 0, "momentum's update %g s", r0.time.optimizer);
  /* each is one kernel: COST_KERNEL_T0 + bytes / (hbm_bw x hbm_eff) */
  double t0 = COST_KERNEL_T0;
  cr_assert(fabs((r1.time.optimizer - t0) / (r0.time.optimizer - t0) - 0.6) < 1e-9,
            "plain SGD %g s over momentum %g s (less %g s of launch), by hand 12 / 20 = 0.6",
            r1.time.optimizer, r0.time.optimizer, t0);
  cr_assert(r1.step_s < r0.step_s, "a shorter step %g vs %g s", r1.step_s, r0.step_s);

  sgd.optimizer = SC_OPT_COUNT;
  cr_assert_eq(b->resolve(&sgd, &err), SC_EINPUT);
  cr_assert(strstr(err.msg, "model.optimizer") && strstr(err.msg, "momentum"), "%s", err.msg);
}

/* Operators with parameters in g, each block's repeats counted; those
 * with a bias into *biased. */
static int param_ops(const wg_graph *g, int *biased) {
  int n = 0;
  *biased = 0;
  for (int b = 0; b < g->n_blocks; b++)
    for (int j = 0; j < g->blocks[b].n_ops; j++) {
      const wg_op *o = &g->ops[g->blocks[b].first_op + j];
      n += g->blocks[b].count * (o->params > 0);
      *biased += g->blocks[b].count * (o->params > 0 && o->bias);
    }
  return n;
}

/* The L2 penalty as TensorFlow scripts build it (model.l2_ops,
 * tf_cnn_benchmarks' weight decay): per weight tensor an L2Loss kernel
 * forward (reads the fp32 weights: 4 bytes a parameter) and the
 * penalty's Mul and AddN backward (20 bytes), three kernels. On one GPU
 * of a graph framework the step grows by exactly 24 bytes a parameter at
 * the GPU's memory rate plus three kernels' fixed cost per variable
 * (VGG16: 16 convolutions and classifiers, each a kernel and a bias
 * variable: 32; three kernels per operator until review35), the update
 * unchanged, and the data-parallel view puts the backward part inside the
 * layers' gradients (it delays them). Out of range and BERT refused. */
Test(dp_models, l2_ops) {
  sc_model m;
  wg_graph *g = build("vgg16", &m);
  int biased, ops = param_ops(g, &biased);
  wg_free(g);
  cr_assert_eq(ops, 16, "VGG16's operators with parameters: %d", ops);
  cr_assert_eq(biased, 16, "each with a bias: %d", biased);
  int vars = ops + biased; /* tf_cnn_benchmarks' variables */
  double p = model_builder_for(m.kind)->params(&m);
  sc_scenario s;
  sc_error err = {0};
  const char *keys[] = {"cluster.gpu=v100-sxm2-16gb", "cluster.gpus=1", "plan.dtype=fp32",
                        "plan.global_batch=32", "plan.micro_batch=32",
                        "plan.framework_eager=false"};
  sc_result r0, r1;
  dpm_model d0, d1;
  cr_assert_eq(sc_scenario_load_string(&s, "{\"model\": \"vgg16\"}", "t", keys, 6, &err), SC_OK,
               "%s", err.msg);
  cr_assert_eq(sc_predict(&s, &r0, &err), SC_OK, "%s", err.msg);
  cr_assert_eq(dpm_layers(&s, &d0, &err), SC_OK, "%s", err.msg);
  cr_assert_eq(sc_scenario_load_string(&s, "{\"model\": {\"preset\": \"vgg16\", \"l2_ops\": 1}}",
                                       "t", keys, 6, &err),
               SC_OK, "%s", err.msg);
  cr_assert_eq(s.model.cnn.l2_ops, 1);
  cr_assert_eq(sc_predict(&s, &r1, &err), SC_OK, "%s", err.msg);
  cr_assert_eq(dpm_layers(&s, &d1, &err), SC_OK, "%s", err.msg);
  sc_scenario_resolve(&s, &err);
  double rate = s.cluster.gpu.hbm_bw * s.cluster.gpu.hbm_eff;
  double want = 24 * p / rate + 3 * vars * COST_KERNEL_T0;
  cr_assert(fabs((r1.step_s - r0.step_s) / want - 1) < 1e-6,
            "the step grows %.6f s, by hand %.6f s (%.0f parameters, %d variables)",
            r1.step_s - r0.step_s, want, p, vars);
  cr_assert_eq(r1.time.optimizer, r0.time.optimizer, "the update is the optimizer's alone");
  double bwd = 20 * p / rate + 2 * vars * COST_KERNEL_T0, got = 0;
  for (int i = 0; i < d0.n; i++) got += d1.layers[i].bwd_s - d0.layers[i].bwd_s;
  cr_assert_eq(d1.n, d0.n, "the same gradients");
  cr_assert(fabs(got / bwd - 1) < 1e-6, "the gradients wait %.6f s more, by hand %.6f s", got,
            bwd);
  dpm_free(&d0);
  dpm_free(&d1);

  const char *two[] = {"model.l2_ops=2"};
  cr_assert_eq(sc_scenario_load_string(&s, "{\"model\": \"vgg16\"}", "t", two, 1, &err),
               SC_EINPUT);
  cr_assert(strstr(err.msg, "model.l2_ops"), "%s", err.msg);
  const char *one[] = {"model.l2_ops=1"};
  cr_assert_eq(sc_scenario_load_string(&s, "{\"model\": \"bert_base\"}", "t", one, 1, &err),
               SC_EINPUT);
  cr_assert(strstr(err.msg, "l2_ops"), "%s", err.msg);
}

/* Count of the operators whose name ends in `suffix`. */
static int count_suffix(const wg_graph *g, const char *suffix) {
  int n = 0;
  size_t ls = strlen(suffix);
  for (int i = 0; i < g->n_ops; i++) {
    size_t l = strlen(g->ops[i].name);
    n += l >= ls && !strcmp(g->ops[i].name + l - ls, suffix);
  }
  return n;
}

/* A convolution's bias is a kernel of its own (TensorFlow 1.x's BiasAdd,
 * PyTorch's add after cudnn_convolution): VGG16's 13 convolutions and
 * fc6, fc7 (AlexNet's 5 and fc6, fc7) each add it over their output, 2
 * passes forward, BiasAddGrad's 1 read backward, nothing kept, no
 * parameters of its own (the conv holds the bias); the ReLU reads it.
 * By hand, conv1_1 of VGG16: 64 x 224 x 224 = 3,211,264 elements an
 * image. Networks whose convolutions have no bias get none. */
Test(dp_models, conv_bias_kernels) {
  sc_model m;
  wg_graph *g = build("vgg16", &m);
  cr_assert_eq(count_suffix(g, "_bias"), 15, "VGG16 bias adds: %d", count_suffix(g, "_bias"));
  const wg_op *b = find_op(g, "conv1", "conv1_1_bias");
  cr_assert_eq(b->kind, WG_ELTWISE);
  cr_assert_float_eq(b->elems, 64.0 * 224 * 224, 1e-6, "elems %g", b->elems);
  cr_assert_float_eq(b->traffic_e * b->bwd_scale, 1.0, 1e-12, "backward passes");
  cr_assert_float_eq(b->traffic_e, 2.0, 1e-12, "forward passes");
  cr_assert_eq(b->saved, 0u, "keeps nothing");
  cr_assert_float_eq(b->params, 0.0, 1e-12, "params");
  const wg_op *r = find_op(g, "conv1", "conv1_1_relu");
  cr_assert_eq(r->in[0], b->out, "the ReLU reads the bias add");
  within(find_op(g, "conv1", "conv1_1")->params, 64.0 * 27 + 64, 1e-12, "conv1_1 keeps its bias");
  wg_free(g);
  g = build("alexnet_tfcnn", &m);
  cr_assert_eq(count_suffix(g, "_bias"), 7, "AlexNet bias adds: %d", count_suffix(g, "_bias"));
  wg_free(g);
  g = build("resnet50_v1", &m);
  cr_assert_eq(count_suffix(g, "_bias"), 0, "ResNet-50's convolutions have no bias");
  wg_free(g);
}
