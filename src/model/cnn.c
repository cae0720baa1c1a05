/*
 * cnn.c -- the CNN builder: the convolutional networks of the data-
 * parallel measurement sets as workload graphs (SC_MODEL_CNN).
 *
 * Architectures (per image; biases only where the reference has them):
 *   ResNet v1 / v1.5   He et al. 2016, Table 1: a 7x7/2 stem conv and a
 *                      3x3/2 max-pool, bottleneck stages of [3,4,6,3]
 *                      (50), [3,4,23,3] (101), [3,8,36,3] (152) blocks of
 *                      width 64/128/256/512 (x4 out), a projection
 *                      shortcut in each stage's first block, global
 *                      average pooling and a 1000-way FC. v1 strides the
 *                      first 1x1 of a down-sampling block (tf_cnn_benchmarks
 *                      resnet50, Keras ResNet50), v1.5 its 3x3
 *                      (torchvision, NVIDIA, MLPerf). Convs without bias,
 *                      each followed by batch norm (torchvision:
 *                      25,557,032 parameters for ResNet-50).
 *   VGG16              Simonyan & Zisserman 2015, configuration D: 3x3
 *                      convs [64,64,M,128,128,M,256x3,M,512x3,M,512x3,M]
 *                      with biases, FC 25088-4096-4096-1000 with dropout
 *                      (Keras VGG16: 138,357,544 parameters).
 *   Inception-v3       Szegedy et al. 2016 as torchvision's inception.py
 *                      (Mixed_5b ... Mixed_7c, BasicConv2d = conv without
 *                      bias + batch norm + ReLU), 299x299, without the
 *                      auxiliary classifier (training-time only in Keras,
 *                      and 3.3 M parameters that DP-AND-RECSYS.md's rows
 *                      do not count).
 *   AlexNet            tf_cnn_benchmarks alexnet_model.py as
 *                      ../shared/validation/MODELS.md describes it: conv
 *                      11x11/4 64 (VALID on 224 + 3), pool 3/2, conv 5x5
 *                      192, pool, conv 3x3 384, 256, 256, pool, FC
 *                      9216-4096-4096-1000 with dropout, biases
 *                      everywhere (61,100,840 parameters).
 * Fully-connected layers are convolutions whose kernel covers the whole
 * input ([c, h, w] -> [n, 1, 1]): the same FLOPs and parameters as a
 * flatten + linear layer, and a GEMM of the same shape.
 *
 * Blocks: the stem is the FIRST block, every residual block (or conv
 * group, Inception module) a LAYER block, identical consecutive residual
 * blocks one block with a repeat count; the pooling, classifier and loss
 * are the LAST block.
 *
 * Memory-bound costs set here (graph.c's defaults follow a transformer):
 * batch norm in training reads its input twice (statistics, then
 * normalisation) and writes once, 3 passes, and its backward reads input
 * and gradient twice (reductions, then the input gradient) and writes
 * once, 5 passes (cuDNN's two-kernel batch norm); ReLU's backward reads
 * its output and the gradient and writes one: 3 passes against 2.
 *
 * Fused batch norm (sc_cnn.fused_bn, ResNets only): NVIDIA's MXNet
 * ResNet-50 (its MLPerf Training implementation and NGC's) runs cuDNN's
 * fused operations on NHWC fp16 tensors: each convolution computes its
 * output's batch-norm statistics in its epilogue, the next convolution
 * applies the scale, bias and ReLU to its input as it loads it (and the
 * weight gradient re-applies them), and the block ends in one
 * scale-bias-add-ReLU kernel (cudnnFusedOps: SCALE_BIAS_ACTIVATION_CONV_
 * BNSTATS, SCALE_BIAS_ACTIVATION_WGRAD, BN_FINALIZE_STATISTICS_TRAINING,
 * SCALE_BIAS_ADD_ACTIVATION_GEN_BITMASK, DACTIVATION_FORK_DBATCHNORM;
 * NVIDIA's MXNet operators NormConvolution, BNStatsFinalize and
 * ScaleBiasAddRelu). Our reading of that code, which is not in
 * ../shared/reference. Modelled as: the block's batch norms and ReLUs
 * move no bytes of their own forward or backward; the block's add moves
 * its 3 passes forward and, backward, its own passes plus each batch
 * norm's 5 (the ReLU derivatives come from the bitmask inside them). The
 * stem's batch norm + ReLU (before the max-pool, which takes no
 * prologue) is cuDNN's BN-activation kernel: batch norm's passes, the
 * ReLU's folded in.
 */
#include <assert.h>
#include <stdio.h>
#include <string.h>

#include "model/builder.h"
#include "model/optimizer.h"

#define BN_TRAFFIC 3.0          /* passes of the forward batch norm */
#define BN_BWD (5.0 / 3.0)      /* backward passes / forward passes */
#define RELU_BWD 1.5
#define BIAS_TRAFFIC 2.0        /* passes of the forward bias add */
#define BIAS_BWD 0.5            /* its backward: the bias gradient reads 1 */
/* The update where model.optimizer is blank: SGD with momentum, what
 * most CNN training scripts run (torchvision's reference scripts, MLPerf
 * ResNet's, NVIDIA's ResNet-50 in PyTorch, MXNet and TensorFlow); its
 * bytes and state in model/optimizer.c. tf_cnn_benchmarks' default is
 * plain `sgd`, which the validator sets for its rows (validate/dp_rows.c). */
#define CNN_DEFAULT_OPTIMIZER SC_OPT_MOMENTUM

static const char *const arch_names[SC_CNN_ARCH_COUNT] = {
    "resnet50_v1", "resnet50_v1.5", "resnet101_v1", "resnet152_v1",
    "vgg16",       "inception_v3",  "alexnet_tfcnn"};

/* The arch's own input size. */
static int default_image(sc_cnn_arch a) {
  return a == SC_CNN_INCEPTION_V3 ? 299 : a == SC_CNN_ALEXNET ? 227 : 224;
}

static int cnn_resolve(sc_model *model, sc_error *err) {
  sc_cnn *m = &model->cnn;
  model->name[sizeof model->name - 1] = '\0';
  if ((unsigned)m->arch >= SC_CNN_ARCH_COUNT)
    return sc_error_set(err, SC_EINPUT, "model.arch: %d is not a CNN architecture (0..%d)",
                        (int)m->arch, SC_CNN_ARCH_COUNT - 1);
  if (m->image == 0) m->image = default_image(m->arch);
  if (m->classes == 0) m->classes = 1000;
  /* the smallest input every stage of the deepest net still fits (the
   * stem and the five stride-2 stages of Inception-v3 need 75) */
  if (m->image < 75 || m->image > 4096)
    return sc_error_set(err, SC_EINPUT,
                        "model.image: %d pixels is not valid for %s (valid: 75..4096; "
                        "%d is the network's own)",
                        m->image, arch_names[m->arch], default_image(m->arch));
  if (m->fused_bn && !model_cnn_is_resnet(m->arch))
    return sc_error_set(err, SC_EINPUT,
                        "model.fused_bn: %s has no fused batch norm (valid: the ResNets)",
                        arch_names[m->arch]);
  if (m->fused_bn != 0 && m->fused_bn != 1)
    return sc_error_set(err, SC_EINPUT, "model.fused_bn: %d is not valid (0 or 1)", m->fused_bn);
  if (m->l2_ops != 0 && m->l2_ops != 1)
    return sc_error_set(err, SC_EINPUT, "model.l2_ops: %d is not valid (0 or 1)", m->l2_ops);
  if (m->keras != 0 && m->keras != 1)
    return sc_error_set(err, SC_EINPUT, "model.keras: %d is not valid (0 or 1)", m->keras);
  if (m->keras && !model_cnn_in_keras(m->arch))
    return sc_error_set(err, SC_EINPUT,
                        "model.keras: %s is not one of Keras' applications (valid: "
                        "resnet50_v1, resnet101_v1, resnet152_v1, vgg16, inception_v3)",
                        arch_names[m->arch]);
  int rc = optim_check(model, err);
  if (rc) return rc;
  if (m->classes < 1 || m->classes > 1000000)
    return sc_error_set(err, SC_EINPUT, "model.classes: %d is not valid (1..1000000)",
                        m->classes);
  return SC_OK;
}

/* ------------------------------------------------------------ helpers */

/* The graph being built and the first error (later calls do nothing). */
typedef struct cnn_ctx {
  wg_graph *g;
  int conv_bias;      /* batch-normalised convolutions keep a bias too */
  int bn_no_scale;    /* batch norms shift only, no scale */
  sc_error *err;
  int rc;
} cnn_ctx;

static wg_op op(const char *name, wg_kind kind, wg_fn fn) { return wg_op_make(name, kind, fn); }

/* Add `o` reading in[0..n) as `out` (nothing once an error is set). */
static void add(cnn_ctx *c, wg_op o, const char *const *in, int n, const char *out) {
  if (!c->rc) c->rc = wg_add(c->g, &o, in, n, out, c->err);
}

static void add1(cnn_ctx *c, wg_op o, const char *in, const char *out) {
  add(c, o, &in, 1, out);
}

/* A kh x kw convolution of `ch` channels (stride s, padding ph, pw). */
static void conv(cnn_ctx *c, const char *name, const char *in, long ch, int kh, int kw, int s,
                 int ph, int pw, int bias) {
  wg_op o = op(name, WG_CONV, WG_FN_NONE);
  o.features = ch;
  o.kernel = kh;
  o.kernel_w = kw == kh ? 0 : kw;
  o.pad = ph;
  o.pad_w = kw == kh ? 0 : pw;
  o.stride = s;
  o.bias = bias;
  add1(c, o, in, name);
}

static void bn(cnn_ctx *c, const char *name, const char *in) {
  wg_op o = op(name, WG_NORM, WG_FN_BATCHNORM);
  o.no_scale = c->bn_no_scale;
  o.traffic_e = BN_TRAFFIC;
  o.bwd_scale = BN_BWD;
  add1(c, o, in, name);
}

/* ReLU in place (torchvision's inplace=True, TF's fused relu): its
 * backward needs its output, which the operator after it keeps already
 * (a conv's or pool's input), so it keeps nothing of its own. */
static void relu(cnn_ctx *c, const char *name, const char *in) {
  wg_op o = op(name, WG_ELTWISE, WG_FN_RELU);
  o.bwd_scale = RELU_BWD;
  add1(c, o, in, name);
  if (!c->rc) c->g->ops[c->g->n_ops - 1].saved = 0;
}

static void pool(cnn_ctx *c, const char *name, const char *in, wg_fn fn, int k, int s, int p) {
  wg_op o = op(name, WG_POOL, fn);
  o.kernel = k, o.stride = s, o.pad = p;
  add1(c, o, in, name);
}

static void bias_add(cnn_ctx *c, const char *name, const char *in);

/* A convolution `pre` and what follows it before the activation, into
 * `post`: its bias (bias 1: VGG, AlexNet), or a batch norm, preceded by
 * the convolution's bias where the network gives its batch-normalised
 * convolutions one too (c->conv_bias: Keras' ResNet50, whose Conv2D
 * layers keep Keras' default use_bias=True; tensors pre, pre_b, post). */
static void conv_norm(cnn_ctx *c, const char *pre, const char *in, long ch, int kh, int kw,
                      int s, int ph, int pw, int bias, const char *post) {
  conv(c, pre, in, ch, kh, kw, s, ph, pw, bias || c->conv_bias);
  if (bias) {
    bias_add(c, post, pre);
    return;
  }
  const char *x = pre;
  char b[WG_NAME];
  if (c->conv_bias) {
    snprintf(b, sizeof b, "%.26s_b", pre);
    bias_add(c, b, pre);
    x = b;
  }
  bn(c, post, x);
}

/* conv + ReLU with, between them, a batch norm (bias 0: the convolution
 * has no bias; tensors pre, pre_bn, pre_relu) or the bias's own kernel
 * (bias 1, bias_add: pre, pre_bias, pre_relu); the output's name into out
 * (cap bytes) when out is not NULL. */
static void conv_relu(cnn_ctx *c, const char *pre, const char *in, long ch, int kh, int kw,
                      int s, int ph, int pw, int bias, char *out, size_t cap) {
  char b[WG_NAME], r[WG_NAME];
  snprintf(b, sizeof b, "%.26s_%s", pre, bias ? "bias" : "bn");
  snprintf(r, sizeof r, "%.26s_relu", pre);
  conv_norm(c, pre, in, ch, kh, kw, s, ph, pw, bias, b);
  relu(c, r, b);
  if (out) snprintf(out, cap, "%s", r);
}

/* conv (no bias) + batch norm + ReLU; writes the output's name into out. */
static void cbr(cnn_ctx *c, const char *pre, const char *in, long ch, int kh, int kw, int s,
                int ph, int pw, char *out, size_t cap) {
  conv_relu(c, pre, in, ch, kh, kw, s, ph, pw, 0, out, cap);
}

/* The bias of a convolution as the kernel of its own that adds it: cuDNN's
 * convolution kernels of 2017-2020 take no bias, so TensorFlow 1.x runs
 * tf.nn.bias_add as a BiasAdd op after Conv2D (tf_cnn_benchmarks'
 * convnet_builder.conv: conv2d, bias_add, relu; recalled, not in
 * ../shared/reference) and PyTorch adds it after cudnn_convolution
 * (ATen's _convolution, output.add_(bias); recalled). Forward: read and
 * write the output (2 passes). Backward: the gradient passes through
 * unchanged and BiasAddGrad (convolution_backward's bias gradient) sums
 * it over the batch and pixels, one read: half the forward's bytes. It
 * keeps nothing for the backward. The classifier's bias (1,000 values an
 * image) is left inside its convolution. */
static void bias_add(cnn_ctx *c, const char *name, const char *in) {
  wg_op o = op(name, WG_ELTWISE, WG_FN_SCALE);
  o.traffic_e = BIAS_TRAFFIC;
  o.bwd_scale = BIAS_BWD;
  add1(c, o, in, name);
  if (!c->rc) c->g->ops[c->g->n_ops - 1].saved = 0;
}

/* conv + bias + ReLU (VGG, AlexNet): the output is pre_relu. */
static void cr(cnn_ctx *c, const char *pre, const char *in, long ch, int k, int s, int p) {
  conv_relu(c, pre, in, ch, k, k, s, p, p, 1, NULL, 0);
}

static void begin(cnn_ctx *c, const char *name, wg_role role, int count, long ch, long h,
                  long w) {
  long dim[3] = {ch, h, w};
  if (!c->rc)
    c->rc = wg_block_begin(c->g, name, role, count, "x", 3, dim, WG_ELEM_ACT, c->err);
}

static void end(cnn_ctx *c, const char *out) {
  if (!c->rc) c->rc = wg_block_end(c->g, out, c->err);
}

/* The shape of the output of the last block. */
static void last_shape(const cnn_ctx *c, long *ch, long *h, long *w) {
  const wg_graph *g = c->g;
  if (c->rc || g->n_blocks == 0) return;
  const wg_tensor *t = &g->tensors[g->blocks[g->n_blocks - 1].output];
  *ch = t->dim[0], *h = t->dim[1], *w = t->dim[2];
}

/* Global average pooling (unless the input is 1 x 1 already), the
 * classifier as a conv over the whole input and the loss. */
static void classifier(cnn_ctx *c, const char *in, long classes, int pool_first) {
  if (c->rc) return;
  const wg_tensor *x = &c->g->tensors[wg_find_tensor(c->g, c->g->n_blocks - 1, in)];
  long h = x->dim[1], w = x->dim[2];
  if (pool_first) {
    pool(c, "avgpool", in, WG_FN_AVG, 0, 1, 0);
    in = "avgpool";
    h = w = 1;
  }
  conv(c, "fc", in, classes, (int)h, (int)w, 1, 0, 0, 1);
  wg_op loss = op("cross_entropy", WG_LOSS, WG_FN_CROSS_ENTROPY);
  add1(c, loss, "fc", "loss");
}

/* ------------------------------------------------------------- ResNet */

/* Fused batch norm: op i (a batch norm or a ReLU) launches nothing of
 * its own and moves no bytes (its work is in the convolutions and the
 * block's add). */
static void fold(cnn_ctx *c, int i) {
  wg_op *o = &c->g->ops[i];
  o->traffic_e = o->traffic_b = 0;
  o->host_fwd = o->host_bwd = 0;
}

/* Fused batch norm: the block's add (op `sum`) becomes the scale-bias-
 * add-ReLU kernel, whose backward also carries the backward of the
 * batch norms bn[0..n) (5 passes each, the ReLU derivatives folded in):
 * its bwd_scale = (its own backward bytes + theirs) / its forward bytes. */
static void fold_block(cnn_ctx *c, int sum, const int *bn_ops, int n) {
  wg_op *a = &c->g->ops[sum];
  assert(a->traffic_b == 0 && a->traffic_e > 0);
  double fwd = a->elems * a->traffic_e, bwd = fwd * a->bwd_scale;
  for (int i = 0; i < n; i++) {
    const wg_op *b = &c->g->ops[bn_ops[i]];
    assert(b->traffic_b == 0);
    bwd += b->elems * b->traffic_e * b->bwd_scale;
    fold(c, bn_ops[i]);
  }
  a->bwd_scale = bwd / fwd;
}

/* Index of the operator added last. */
static int last_op(const cnn_ctx *c) { return c->g->n_ops - 1; }

/* One bottleneck block from x: 1x1 width, 3x3 width, 1x1 4 width, with a
 * projection shortcut when `proj`; the first 1x1 (v1) or the 3x3 (v1.5)
 * strides by s; `fused`: batch norm fused (see the top of the file). */
static void bottleneck(cnn_ctx *c, long width, int s, int proj, int v15, int fused) {
  char a[WG_NAME], b[WG_NAME];
  int bns[4], relus[3], n = 0;
  cbr(c, "conv1", "x", width, 1, 1, v15 ? 1 : s, 0, 0, a, sizeof a);
  if (!c->rc) bns[n++] = last_op(c) - 1, relus[0] = last_op(c);
  cbr(c, "conv2", a, width, 3, 3, v15 ? s : 1, 1, 1, b, sizeof b);
  if (!c->rc) bns[n++] = last_op(c) - 1, relus[1] = last_op(c);
  conv_norm(c, "conv3", b, 4 * width, 1, 1, 1, 0, 0, 0, "conv3_bn");
  if (!c->rc) bns[n++] = last_op(c);
  const char *sc = "x";
  if (proj) {
    conv_norm(c, "shortcut", "x", 4 * width, 1, 1, s, 0, 0, 0, "shortcut_bn");
    if (!c->rc) bns[n++] = last_op(c);
    sc = "shortcut_bn";
  }
  const char *in[2] = {"conv3_bn", sc};
  add(c, op("add", WG_ELTWISE, WG_FN_ADD), in, 2, "add");
  int sum = c->rc ? -1 : last_op(c);
  relu(c, "out", "add");
  if (c->rc || !fused) return;
  relus[2] = last_op(c);
  fold_block(c, sum, bns, n);
  for (int i = 0; i < 3; i++) fold(c, relus[i]);
}

static void resnet(cnn_ctx *c, const sc_cnn *m, const int stages[4]) {
  int v15 = m->arch == SC_CNN_RESNET50_V15;
  char t[WG_NAME];
  begin(c, "stem", WG_ROLE_FIRST, 1, 3, m->image, m->image);
  cbr(c, "conv1", "x", 64, 7, 7, 2, 3, 3, t, sizeof t);
  if (m->fused_bn && !c->rc) fold(c, last_op(c)); /* ReLU inside the BN kernel */
  pool(c, "maxpool", t, WG_FN_MAX, 3, 2, 1);
  end(c, "maxpool");
  for (int s = 0; s < 4; s++) {
    long width = 64L << s, ch = 0, h = 0, w = 0;
    for (int first = 1, n = stages[s]; n > 0; n -= first ? 1 : n, first = 0) {
      char name[WG_NAME];
      snprintf(name, sizeof name, first ? "stage%d_down" : "stage%d", s + 1);
      last_shape(c, &ch, &h, &w);
      begin(c, name, WG_ROLE_LAYER, first ? 1 : n, ch, h, w);
      bottleneck(c, width, first && s > 0 ? 2 : 1, first, v15, m->fused_bn);
      end(c, "out");
    }
  }
  long ch = 0, h = 0, w = 0;
  last_shape(c, &ch, &h, &w);
  begin(c, "head", WG_ROLE_LAST, 1, ch, h, w);
  classifier(c, "x", m->classes, 1);
  end(c, "loss");
}

/* The fully connected head VGG and AlexNet share: fc6 (a convolution over
 * the whole ch x h x w map), fc7, each 4096 wide with ReLU and dropout,
 * then the classifier and the loss. */
static void fc_head(cnn_ctx *c, long ch, long h, long w, long classes) {
  begin(c, "classifier", WG_ROLE_LAST, 1, ch, h, w);
  conv(c, "fc6", "x", 4096, (int)h, (int)w, 1, 0, 0, 1);
  bias_add(c, "fc6_bias", "fc6");
  relu(c, "fc6_relu", "fc6_bias");
  add1(c, op("fc6_dropout", WG_ELTWISE, WG_FN_DROPOUT), "fc6_relu", "fc6_dropout");
  cr(c, "fc7", "fc6_dropout", 4096, 1, 1, 0);
  add1(c, op("fc7_dropout", WG_ELTWISE, WG_FN_DROPOUT), "fc7_relu", "fc7_dropout");
  classifier(c, "fc7_dropout", classes, 0);
  end(c, "loss");
}

/* ---------------------------------------------------------- VGG16 */

static void vgg16(cnn_ctx *c, const sc_cnn *m) {
  static const int convs[5] = {2, 2, 3, 3, 3};
  long ch = 3, h = m->image, w = m->image;
  for (int s = 0; s < 5; s++) {
    char name[WG_NAME], in[WG_NAME] = "x", pre[WG_NAME];
    snprintf(name, sizeof name, "conv%d", s + 1);
    begin(c, name, WG_ROLE_LAYER, 1, ch, h, w);
    for (int i = 0; i < convs[s]; i++) {
      snprintf(pre, sizeof pre, "conv%d_%d", s + 1, i + 1);
      cr(c, pre, in, s < 4 ? 64L << s : 512, 3, 1, 1);
      snprintf(in, sizeof in, "%.26s_relu", pre);
    }
    pool(c, "maxpool", in, WG_FN_MAX, 2, 2, 0);
    end(c, "maxpool");
    last_shape(c, &ch, &h, &w);
  }
  fc_head(c, ch, h, w, m->classes);
}

/* --------------------------------------------------------- AlexNet */

static void alexnet(cnn_ctx *c, const sc_cnn *m) {
  long ch = 0, h = 0, w = 0;
  begin(c, "features1", WG_ROLE_FIRST, 1, 3, m->image, m->image);
  cr(c, "conv1", "x", 64, 11, 4, 0);
  pool(c, "pool1", "conv1_relu", WG_FN_MAX, 3, 2, 0);
  end(c, "pool1");
  last_shape(c, &ch, &h, &w);
  begin(c, "features2", WG_ROLE_LAYER, 1, ch, h, w);
  cr(c, "conv2", "x", 192, 5, 1, 2);
  pool(c, "pool2", "conv2_relu", WG_FN_MAX, 3, 2, 0);
  end(c, "pool2");
  last_shape(c, &ch, &h, &w);
  begin(c, "features3", WG_ROLE_LAYER, 1, ch, h, w);
  cr(c, "conv3", "x", 384, 3, 1, 1);
  cr(c, "conv4", "conv3_relu", 256, 3, 1, 1);
  cr(c, "conv5", "conv4_relu", 256, 3, 1, 1);
  pool(c, "pool5", "conv5_relu", WG_FN_MAX, 3, 2, 0);
  end(c, "pool5");
  last_shape(c, &ch, &h, &w);
  fc_head(c, ch, h, w, m->classes);
}

/* ----------------------------------------------------- Inception-v3 */

/* BasicConv2d of torchvision: "pre" from in, output name into out. */
#define BC(pre, in, ch, kh, kw, s, ph, pw, out) cbr(c, pre, in, ch, kh, kw, s, ph, pw, out, sizeof out)

static void concat(cnn_ctx *c, const char *const *in, int n, const char *out) {
  add(c, op(out, WG_ELTWISE, WG_FN_CONCAT_CH), in, n, out);
}

/* InceptionA (Mixed_5b-d): 1x1 64 | 1x1 48, 5x5 64 | 1x1 64, 3x3 96,
 * 3x3 96 | avg-pool, 1x1 pool_features. */
static void inception_a(cnn_ctx *c, long pf) {
  char b1[WG_NAME], b2[WG_NAME], b3[WG_NAME], b4[WG_NAME];
  BC("b1x1", "x", 64, 1, 1, 1, 0, 0, b1);
  BC("b5x5_1", "x", 48, 1, 1, 1, 0, 0, b2);
  BC("b5x5_2", b2, 64, 5, 5, 1, 2, 2, b2);
  BC("b3x3dbl_1", "x", 64, 1, 1, 1, 0, 0, b3);
  BC("b3x3dbl_2", b3, 96, 3, 3, 1, 1, 1, b3);
  BC("b3x3dbl_3", b3, 96, 3, 3, 1, 1, 1, b3);
  pool(c, "bpool_avg", "x", WG_FN_AVG, 3, 1, 1);
  BC("bpool", "bpool_avg", pf, 1, 1, 1, 0, 0, b4);
  const char *in[4] = {b1, b2, b3, b4};
  concat(c, in, 4, "out");
}

/* InceptionB (Mixed_6a): 3x3/2 384 | 1x1 64, 3x3 96, 3x3/2 96 | max-pool. */
static void inception_b(cnn_ctx *c) {
  char b1[WG_NAME], b2[WG_NAME];
  BC("b3x3", "x", 384, 3, 3, 2, 0, 0, b1);
  BC("b3x3dbl_1", "x", 64, 1, 1, 1, 0, 0, b2);
  BC("b3x3dbl_2", b2, 96, 3, 3, 1, 1, 1, b2);
  BC("b3x3dbl_3", b2, 96, 3, 3, 2, 0, 0, b2);
  pool(c, "bpool", "x", WG_FN_MAX, 3, 2, 0);
  const char *in[3] = {b1, b2, "bpool"};
  concat(c, in, 3, "out");
}

/* InceptionC (Mixed_6b-e): 1x1 192 | 1x1 c7, 1x7 c7, 7x1 192 | 1x1 c7,
 * 7x1 c7, 1x7 c7, 7x1 c7, 1x7 192 | avg-pool, 1x1 192. */
static void inception_c(cnn_ctx *c, long c7) {
  char b1[WG_NAME], b2[WG_NAME], b3[WG_NAME], b4[WG_NAME];
  BC("b1x1", "x", 192, 1, 1, 1, 0, 0, b1);
  BC("b7x7_1", "x", c7, 1, 1, 1, 0, 0, b2);
  BC("b7x7_2", b2, c7, 1, 7, 1, 0, 3, b2);
  BC("b7x7_3", b2, 192, 7, 1, 1, 3, 0, b2);
  BC("b7x7dbl_1", "x", c7, 1, 1, 1, 0, 0, b3);
  BC("b7x7dbl_2", b3, c7, 7, 1, 1, 3, 0, b3);
  BC("b7x7dbl_3", b3, c7, 1, 7, 1, 0, 3, b3);
  BC("b7x7dbl_4", b3, c7, 7, 1, 1, 3, 0, b3);
  BC("b7x7dbl_5", b3, 192, 1, 7, 1, 0, 3, b3);
  pool(c, "bpool_avg", "x", WG_FN_AVG, 3, 1, 1);
  BC("bpool", "bpool_avg", 192, 1, 1, 1, 0, 0, b4);
  const char *in[4] = {b1, b2, b3, b4};
  concat(c, in, 4, "out");
}

/* InceptionD (Mixed_7a): 1x1 192, 3x3/2 320 | 1x1 192, 1x7 192, 7x1 192,
 * 3x3/2 192 | max-pool. */
static void inception_d(cnn_ctx *c) {
  char b1[WG_NAME], b2[WG_NAME];
  BC("b3x3_1", "x", 192, 1, 1, 1, 0, 0, b1);
  BC("b3x3_2", b1, 320, 3, 3, 2, 0, 0, b1);
  BC("b7x7x3_1", "x", 192, 1, 1, 1, 0, 0, b2);
  BC("b7x7x3_2", b2, 192, 1, 7, 1, 0, 3, b2);
  BC("b7x7x3_3", b2, 192, 7, 1, 1, 3, 0, b2);
  BC("b7x7x3_4", b2, 192, 3, 3, 2, 0, 0, b2);
  pool(c, "bpool", "x", WG_FN_MAX, 3, 2, 0);
  const char *in[3] = {b1, b2, "bpool"};
  concat(c, in, 3, "out");
}

/* InceptionE (Mixed_7b-c): 1x1 320 | 1x1 384, (1x3 384 | 3x1 384) |
 * 1x1 448, 3x3 384, (1x3 384 | 3x1 384) | avg-pool, 1x1 192. */
static void inception_e(cnn_ctx *c) {
  char b1[WG_NAME], b2[WG_NAME], b2a[WG_NAME], b2b[WG_NAME], b3[WG_NAME], b3a[WG_NAME],
      b3b[WG_NAME], b4[WG_NAME];
  BC("b1x1", "x", 320, 1, 1, 1, 0, 0, b1);
  BC("b3x3_1", "x", 384, 1, 1, 1, 0, 0, b2);
  BC("b3x3_2a", b2, 384, 1, 3, 1, 0, 1, b2a);
  BC("b3x3_2b", b2, 384, 3, 1, 1, 1, 0, b2b);
  const char *in2[2] = {b2a, b2b};
  concat(c, in2, 2, "b3x3");
  BC("b3x3dbl_1", "x", 448, 1, 1, 1, 0, 0, b3);
  BC("b3x3dbl_2", b3, 384, 3, 3, 1, 1, 1, b3);
  BC("b3x3dbl_3a", b3, 384, 1, 3, 1, 0, 1, b3a);
  BC("b3x3dbl_3b", b3, 384, 3, 1, 1, 1, 0, b3b);
  const char *in3[2] = {b3a, b3b};
  concat(c, in3, 2, "b3x3dbl");
  pool(c, "bpool_avg", "x", WG_FN_AVG, 3, 1, 1);
  BC("bpool", "bpool_avg", 192, 1, 1, 1, 0, 0, b4);
  const char *in[4] = {b1, "b3x3", "b3x3dbl", b4};
  concat(c, in, 4, "out");
}

/* One Inception module as a LAYER block after the previous block. */
static void module(cnn_ctx *c, const char *name, char kind, long arg) {
  long ch = 0, h = 0, w = 0;
  last_shape(c, &ch, &h, &w);
  begin(c, name, WG_ROLE_LAYER, 1, ch, h, w);
  if (c->rc) return;
  switch (kind) {
  case 'A': inception_a(c, arg); break;
  case 'B': inception_b(c); break;
  case 'C': inception_c(c, arg); break;
  case 'D': inception_d(c); break;
  default: inception_e(c); break;
  }
  end(c, "out");
}

static void inception_v3(cnn_ctx *c, const sc_cnn *m) {
  char t[WG_NAME];
  begin(c, "stem", WG_ROLE_FIRST, 1, 3, m->image, m->image);
  BC("conv1a", "x", 32, 3, 3, 2, 0, 0, t);
  BC("conv2a", t, 32, 3, 3, 1, 0, 0, t);
  BC("conv2b", t, 64, 3, 3, 1, 1, 1, t);
  pool(c, "maxpool1", t, WG_FN_MAX, 3, 2, 0);
  BC("conv3b", "maxpool1", 80, 1, 1, 1, 0, 0, t);
  BC("conv4a", t, 192, 3, 3, 1, 0, 0, t);
  pool(c, "maxpool2", t, WG_FN_MAX, 3, 2, 0);
  end(c, "maxpool2");
  module(c, "mixed_5b", 'A', 32);
  module(c, "mixed_5c", 'A', 64);
  module(c, "mixed_5d", 'A', 64);
  module(c, "mixed_6a", 'B', 0);
  module(c, "mixed_6b", 'C', 128);
  module(c, "mixed_6c", 'C', 160);
  module(c, "mixed_6d", 'C', 160);
  module(c, "mixed_6e", 'C', 192);
  module(c, "mixed_7a", 'D', 0);
  module(c, "mixed_7b", 'E', 0);
  module(c, "mixed_7c", 'E', 0);
  long ch = 0, h = 0, w = 0;
  last_shape(c, &ch, &h, &w);
  begin(c, "head", WG_ROLE_LAST, 1, ch, h, w);
  pool(c, "avgpool", "x", WG_FN_AVG, 0, 1, 0);
  add1(c, op("dropout", WG_ELTWISE, WG_FN_DROPOUT), "avgpool", "dropout");
  classifier(c, "dropout", m->classes, 0);
  end(c, "loss");
}

#undef BC

/* ------------------------------------------------------------- build */

static int cnn_build(const sc_model *model, wg_graph **out, sc_error *err) {
  static const int r50[4] = {3, 4, 6, 3}, r101[4] = {3, 4, 23, 3}, r152[4] = {3, 8, 36, 3};
  const sc_cnn *m = &model->cnn;
  *out = NULL;
  /* Keras' applications (sc_cnn.keras): ResNet50's Conv2D layers keep
   * Keras' default use_bias=True (25,636,712 parameters with the batch
   * norms' moving statistics, against torchvision's 25,557,032);
   * InceptionV3's conv2d_bn runs BatchNormalization(scale=False) after a
   * convolution without bias (23,851,784; ../shared/validation/MODELS.md
   * gives both figures) */
  cnn_ctx c = {.g = wg_new(model->name, 0), .err = err, .rc = SC_OK,
               .conv_bias = m->keras && model_cnn_is_resnet(m->arch),
               .bn_no_scale = m->keras && m->arch == SC_CNN_INCEPTION_V3};
  if (!c.g) return sc_error_set(err, SC_ENOMEM, "out of memory building model %s", model->name);
  optim_apply(optim_of(model, CNN_DEFAULT_OPTIMIZER), &c.g->opt);
  switch (m->arch) {
  case SC_CNN_RESNET50_V1: case SC_CNN_RESNET50_V15: resnet(&c, m, r50); break;
  case SC_CNN_RESNET101_V1: resnet(&c, m, r101); break;
  case SC_CNN_RESNET152_V1: resnet(&c, m, r152); break;
  case SC_CNN_VGG16: vgg16(&c, m); break;
  case SC_CNN_INCEPTION_V3: inception_v3(&c, m); break;
  case SC_CNN_ALEXNET: alexnet(&c, m); break;
  default: c.rc = sc_error_set(err, SC_EINPUT, "model.arch: %d is not valid", (int)m->arch);
  }
  return model_build_done(c.g, c.rc, out, err);
}

/* Parameters: the graph's (built here: the spec alone does not list
 * them); -1 when the spec does not build. */
static double cnn_params(const sc_model *model) {
  return model_params_from_graph(&model_cnn, model);
}

int model_cnn_is_resnet(sc_cnn_arch a) {
  return a == SC_CNN_RESNET50_V1 || a == SC_CNN_RESNET50_V15 || a == SC_CNN_RESNET101_V1 ||
         a == SC_CNN_RESNET152_V1;
}

/* keras-applications' resnet_common.py (block1 strides its first 1x1
 * convolution: v1), vgg16.py, inception_v3.py; it has no AlexNet */
int model_cnn_in_keras(sc_cnn_arch a) {
  return a == SC_CNN_RESNET50_V1 || a == SC_CNN_RESNET101_V1 || a == SC_CNN_RESNET152_V1 ||
         a == SC_CNN_VGG16 || a == SC_CNN_INCEPTION_V3;
}

const model_builder model_cnn = {SC_MODEL_CNN, "cnn", cnn_resolve, cnn_build, cnn_params,
                                 cnn_params};
