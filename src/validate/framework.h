/*
 * framework.h -- the training framework a measurement row names, read
 * once for every kind of row (module prefix: vfw_). dp_training rows
 * (dp_rows.c) and recsys rows (recsys_rows.c) read their `framework`
 * column through it; docs/accuracy.md says what each kind of row does with
 * the answer.
 *
 * Spellings recognised, ignoring ASCII case (the texts the sets in
 * ../shared/validation use, and their obvious variants):
 *   PyTorch     "pytorch"
 *   TensorFlow  "tensorflow", "tf_cnn" (tf_cnn_benchmarks), "keras",
 *               "tf" + a digit (MLPerf's "tf2.0", NGC's "21.05-tf1")
 *   MXNet       "mxnet"
 *   OneFlow     "oneflow"
 *   Paddle      "paddle" (PaddlePaddle)
 *   KungFu      "kungfu"
 *   HugeCTR     "hugectr"
 * TensorFlow's major version is the number right after "tensorflow"
 * (optionally after '-', '_' or a space: "tensorflow-2.3",
 * "tensorflow 2.x") or after "tf": 1 or 2; an NGC release number
 * ("TensorFlow 21.05") is not a version. A text naming several frameworks
 * ("NGC MXNet 21.05 , NGC PyTorch 21.05 , NGC TensorFlow 21.05-tf1") lists
 * a container's contents, not the implementation that ran.
 */
#ifndef SC_VALIDATE_FRAMEWORK_H
#define SC_VALIDATE_FRAMEWORK_H

#include "stepcast.h"

typedef enum vfw_kind {
  VFW_NONE = 0, /* no framework named */
  VFW_PYTORCH,
  VFW_TENSORFLOW,
  VFW_MXNET,
  VFW_ONEFLOW,
  VFW_PADDLE,
  VFW_KUNGFU,
  VFW_HUGECTR,
  VFW_KIND_COUNT
} vfw_kind;

typedef struct vfw_text {
  vfw_kind first;  /* the framework named first (VFW_NONE: none) */
  vfw_kind sole;   /* the one framework named, VFW_NONE when none or several */
  unsigned named;  /* bit k set: framework k (vfw_kind) is named */
  int n_named;     /* distinct frameworks named */
  int tf_major;    /* TensorFlow's major version (1, 2) as stated, else 0 */
  int horovod;     /* the text names Horovod (its tensor fusion and cycle) */
  int xla;         /* the text names XLA (TensorFlow's fusing compiler) */
} vfw_text;

/* Read a row's framework text (NULL reads as empty). */
vfw_text vfw_read(const char *text);

/* The release of framework `kind` written right after one of its
 * spellings in text (after at most one '-', '_' or space and an optional
 * 'v': "mxnet 1.6.0", "tensorflow-2.3", "tf2.0", "paddle 1.8.3"): 1 with
 * *major and *minor set (*minor -1 when not a digit: "tensorflow-1.x"),
 * 0 when none is written ("MXNet NVIDIA Release 20.06", "TensorFlow
 * 21.05": NGC's YY.MM releases, a major of 10 or more, not the
 * framework's; "keras 2.3": Keras' release, not TensorFlow's). */
int vfw_release(const char *text, vfw_kind kind, int *major, int *minor);

/* 1 when the text names one framework alone with a release whose own GPU
 * builds all predate CUDA 11.0 (so cuBLAS 10 or older ran it, unless a
 * container rebuilt it: the caller asks for no NGC release and a GPU that
 * CUDA 10 runs). The first release that may have CUDA 11 builds, per
 * framework (recalled from each project's published build matrices, not
 * files in ../shared):
 *   TensorFlow 2.4  tensorflow.org "Tested build configurations": 1.15.0
 *                   CUDA 10.0, 2.3.0 CUDA 10.1, 2.4.0 CUDA 11.0
 *   PyTorch 1.7     pytorch.org's binaries: 1.6.0 cu92/cu101/cu102, 1.7.0
 *                   the first cu110
 *   MXNet 1.7       1.6.0 (February 2020) precedes CUDA 11.0 (July 2020);
 *                   later releases are not dated here
 *   Paddle 2.0      paddlepaddle-gpu 1.8.x: post97 and post107 wheels
 *                   (CUDA 9.0, 10.0); 2.0 the first with CUDA 11
 * OneFlow, KungFu, HugeCTR and texts with no release: 0 (not dated). */
int vfw_builds_pre_cuda11(const char *text, const vfw_text *fw);

/* The framework of a dp_training row as plan switches, the first
 * framework named deciding. Graph-mode frameworks (TensorFlow 1.x and
 * 2.x Keras fit, MXNet hybridized or symbolic, OneFlow, Paddle 1.x static
 * graphs, KungFu on TensorFlow, HugeCTR) issue kernels from their C++
 * executors: plan.framework_eager 0, no per-call host time counted, and
 * a CNN pools through cuDNN (TensorFlow, MXNet); PyTorch is an eager
 * framework (framework_eager 1) that pools with ATen's own kernels
 * (cost/pool.h) and whose CNN activations are NCHW by default (plan.channels_last 0 when PyTorch is the only
 * framework named; the others' CNN scripts choose their layout and a
 * container's list says nothing of it: channels_last is left as it is).
 * TensorFlow named alone, without XLA, runs each element-wise op of the
 * graph as its own kernel (plan.fused_kernels 0): its graph optimizer
 * (Grappler's remapper) fuses, on the GPU, convolutions with their bias
 * and ReLU and batch norm with its activation (its MatMul + BiasAdd
 * fusion ran on the CPU alone in TensorFlow 1.x, recalled: a dense
 * layer's BiasAdd is a kernel, as lower.c's BERT chains count it), but no
 * chain of element-wise ops (GELU, dropout, residual add, the attention's scale and
 * mask): that is XLA's auto-clustering, opt-in in TensorFlow 1.x and 2.x
 * (tf.config.optimizer.set_jit, TF_XLA_FLAGS; a script's --xla flag),
 * which the text names when it ran.
 * The attention, on every GPU (before Ampere every row runs it unfused
 * anyway, dp_rows.c): unfused (plan.flash_attention 0: QK^T, scale and
 * mask, softmax, dropout and the product with V as kernels of their own,
 * the heads x seq^2 scores in HBM) where the text names TensorFlow alone
 * -- TensorFlow 1.x and 2.x have no fused attention kernel: BERT's
 * modeling.py and Keras' MultiHeadAttention build it of matmul/einsum,
 * softmax and dropout ops, and XLA fuses the element-wise ops between
 * its two GEMMs but not the GEMMs, so the scores still pass through HBM
 * (recalled from those public sources, not in ../shared/reference) --
 * and where it names MXNet alone with Horovod: gluon-nlp's BERT, whose
 * attention is MXNet's interleaved_matmul_selfatt_qk / _valatt batched
 * GEMMs around a softmax and a dropout (recalled likewise). PyTorch rows
 * keep the plan's fused attention (torch's scaled_dot_product_attention,
 * flash-attn, apex's fmha), and so do NVIDIA's BERT (PyTorch or MXNet
 * without Horovod, container lists: its MLPerf code's fused multi-head
 * attention), Paddle, OneFlow and texts naming no framework: no source
 * in ../shared says which attention those ran (Baidu's MLPerf Paddle
 * BERT is MLPerf-grade code), so the plan's default stands.
 * Returns 1 when the text names a framework, 0 (plan unchanged)
 * otherwise. */
int vfw_plan(const vfw_text *fw, sc_plan *p);

#endif
