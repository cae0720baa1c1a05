/*
 * test_framework.c -- the framework a measurement row names
 * (src/validate/framework.c): the spellings of the validation sets, case,
 * TensorFlow's major version, container lists, and the plan switches of a
 * dp_training row.
 */
#include <criterion/criterion.h>

#include "validate/framework.h"

/* One text's reading, checked field by field with the text in the message. */
static void expect(const char *text, vfw_kind first, vfw_kind sole, int tf_major, int horovod) {
  vfw_text t = vfw_read(text);
  cr_expect_eq(t.first, first, "'%s': first %d, want %d", text, t.first, first);
  cr_expect_eq(t.sole, sole, "'%s': sole %d, want %d", text, t.sole, sole);
  cr_expect_eq(t.tf_major, tf_major, "'%s': tf_major %d, want %d", text, t.tf_major, tf_major);
  cr_expect_eq(t.horovod, horovod, "'%s': horovod %d, want %d", text, t.horovod, horovod);
}

Test(framework, spellings_of_the_sets) {
  expect("tensorflow-2.3", VFW_TENSORFLOW, VFW_TENSORFLOW, 2, 0);
  expect("tf2.0", VFW_TENSORFLOW, VFW_TENSORFLOW, 2, 0); /* MLPerf's spelling */
  expect("TF2.0", VFW_TENSORFLOW, VFW_TENSORFLOW, 2, 0);
  expect("TensorFlow 2.x (Keras)", VFW_TENSORFLOW, VFW_TENSORFLOW, 2, 0);
  expect("tensorflow-2 (distributed-embeddings, Horovod)", VFW_TENSORFLOW, VFW_TENSORFLOW, 2, 1);
  expect("tensorflow-1.15 (NGC 20.03, Horovod, DALI)", VFW_TENSORFLOW, VFW_TENSORFLOW, 1, 1);
  expect("tensorflow-1.x (tf_cnn_benchmarks)", VFW_TENSORFLOW, VFW_TENSORFLOW, 1, 0);
  expect("kungfu (tensorflow-1.13)", VFW_KUNGFU, VFW_NONE, 1, 0);
  expect("PyTorch NVIDIA Release 21.05", VFW_PYTORCH, VFW_PYTORCH, 0, 0);
  expect("pytorch (NVIDIA DLRM)", VFW_PYTORCH, VFW_PYTORCH, 0, 0);
  expect("MxNet NVIDIA Release 22.04", VFW_MXNET, VFW_MXNET, 0, 0);
  expect("PaddlePaddle (branch: develop, commitID: 605e7f0)", VFW_PADDLE, VFW_PADDLE, 0, 0);
  expect("oneflow 0.2.0", VFW_ONEFLOW, VFW_ONEFLOW, 0, 0);
  expect("Merlin HugeCTR with NVIDIA DL Frameworks Release 20.06", VFW_HUGECTR, VFW_HUGECTR, 0,
         0);
  expect("CUDA 11.6", VFW_NONE, VFW_NONE, 0, 0);
  expect("NGC MLPerf v2.1/2.0", VFW_NONE, VFW_NONE, 0, 0);
  expect("", VFW_NONE, VFW_NONE, 0, 0);
  expect(NULL, VFW_NONE, VFW_NONE, 0, 0);
}

/* An NGC release number is not a TensorFlow version; "tf" inside a word
 * or without a digit names nothing; a container list names no one
 * implementation. */
Test(framework, versions_and_lists) {
  expect("NGC MXNet 21.05 , NGC PyTorch 21.05 , NGC TensorFlow 21.05-tf1", VFW_MXNET, VFW_NONE,
         1, 0);
  expect("NVIDIA Release 22.04 Tensorflow, MxNet, pytorch, hugectr", VFW_TENSORFLOW, VFW_NONE, 0,
         0);
  expect("TensorFlow 21.05", VFW_TENSORFLOW, VFW_TENSORFLOW, 0, 0);
  expect("mytf2 build", VFW_NONE, VFW_NONE, 0, 0);
  expect("tf records", VFW_NONE, VFW_NONE, 0, 0);
  vfw_text t = vfw_read("NVIDIA PyTorch/TensorFlow/MxNet/HugeCTR");
  cr_expect_eq(t.n_named, 4);
  cr_expect(t.named >> VFW_HUGECTR & 1);
  cr_expect(!(t.named >> VFW_PADDLE & 1));
}

/* The release written after a framework's name, and whether that
 * release's own GPU builds all predate CUDA 11.0. */
Test(framework, releases_and_their_cuda) {
  static const struct {
    const char *text;
    vfw_kind kind;
    int found, major, minor, pre11;
  } cases[] = {
      {"mxnet 1.6.0 (gluon-nlp, Horovod)", VFW_MXNET, 1, 1, 6, 1},
      {"MXNet 1.8.0", VFW_MXNET, 1, 1, 8, 0},
      {"paddle 1.8.3", VFW_PADDLE, 1, 1, 8, 1},
      {"PaddlePaddle 2.0.0", VFW_PADDLE, 1, 2, 0, 0},
      {"tensorflow-2.3", VFW_TENSORFLOW, 1, 2, 3, 1},
      {"tensorflow-2.4", VFW_TENSORFLOW, 1, 2, 4, 0},
      {"tf2.0", VFW_TENSORFLOW, 1, 2, 0, 1},
      {"tensorflow-1.x (tf_cnn_benchmarks)", VFW_TENSORFLOW, 1, 1, -1, 1},
      {"pytorch 1.6 (pytorch/examples)", VFW_PYTORCH, 1, 1, 6, 1},
      {"PyTorch 1.9.0", VFW_PYTORCH, 1, 1, 9, 0},
      {"pytorch v1.5.1", VFW_PYTORCH, 1, 1, 5, 1},
      /* no release of the framework's own: not dated */
      {"MXNet NVIDIA Release 20.06", VFW_MXNET, 0, 0, 0, 0},
      {"PaddlePaddle (branch: develop, commitID: 605e7f0)", VFW_PADDLE, 0, 0, 0, 0},
      {"TensorFlow 21.05", VFW_TENSORFLOW, 0, 0, 0, 0},
      {"keras 2.3.1", VFW_TENSORFLOW, 0, 0, 0, 0},
      {"oneflow 0.2.0", VFW_ONEFLOW, 1, 0, 2, 0},
      /* several frameworks: a container's list, not one release */
      {"kungfu (tensorflow-1.13)", VFW_TENSORFLOW, 1, 1, 13, 0},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    int major = 0, minor = 0;
    int found = vfw_release(cases[i].text, cases[i].kind, &major, &minor);
    cr_expect_eq(found, cases[i].found, "'%s': found %d", cases[i].text, found);
    if (found && cases[i].found)
      cr_expect(major == cases[i].major && minor == cases[i].minor, "'%s': %d.%d, want %d.%d",
                cases[i].text, major, minor, cases[i].major, cases[i].minor);
    vfw_text t = vfw_read(cases[i].text);
    cr_expect_eq(vfw_builds_pre_cuda11(cases[i].text, &t), cases[i].pre11, "'%s'",
                 cases[i].text);
  }
}

/* Framework texts of the dp_training rows as plan switches. */
Test(framework, plan_switches) {
  sc_plan p;
  sc_plan_default(&p);
  vfw_text t = vfw_read("tensorflow-1.x (tf_cnn_benchmarks)");
  cr_assert_eq(vfw_plan(&t, &p), 1);
  cr_assert_eq(p.framework_eager, 0);
  t = vfw_read("pytorch 1.5 (NGC 20.03, APEX, DALI)");
  cr_assert_eq(vfw_plan(&t, &p), 1);
  cr_assert_eq(p.framework_eager, 1);
  t = vfw_read("tf2.0");
  cr_assert_eq(vfw_plan(&t, &p), 1);
  cr_assert_eq(p.framework_eager, 0, "MLPerf's tf2.0 is TensorFlow: a graph executor");
  t = vfw_read("mxnet 1.6.0 (gluon-nlp, Horovod)");
  cr_assert_eq(vfw_plan(&t, &p), 1);
  cr_assert_eq(p.framework_eager, 0);
  /* the first named decides */
  t = vfw_read("NGC PyTorch 22.04 , NGC MXNet 22.04");
  cr_assert_eq(vfw_plan(&t, &p), 1);
  cr_assert_eq(p.framework_eager, 1);
  p.framework_eager = 0;
  t = vfw_read("caffe2");
  cr_assert_eq(vfw_plan(&t, &p), 0);
  cr_assert_eq(p.framework_eager, 0, "unknown text leaves the plan");
}

/* The activation layout: PyTorch's default memory format is NCHW, so a
 * text naming PyTorch alone turns channels_last off; a container list
 * naming PyTorch among others, and the other frameworks, leave it. */
Test(framework, plan_layout) {
  sc_plan p;
  sc_plan_default(&p);
  cr_assert_eq(p.channels_last, 1, "default: NHWC");
  vfw_text t = vfw_read("tensorflow-1.15 (NGC 20.03, Horovod, DALI)");
  vfw_plan(&t, &p);
  cr_assert_eq(p.channels_last, 1);
  t = vfw_read("NVIDIA PyTorch/TensorFlow/MxNet/HugeCTR");
  vfw_plan(&t, &p);
  cr_assert_eq(p.channels_last, 1, "a container list says nothing of the layout");
  t = vfw_read("pytorch 1.5 (NGC 20.03, APEX, DALI)");
  vfw_plan(&t, &p);
  cr_assert_eq(p.channels_last, 0);
  t = vfw_read("mxnet 1.6.0 (Horovod)");
  vfw_plan(&t, &p);
  cr_assert_eq(p.channels_last, 0, "MXNet leaves what the plan says");
}

/* cuDNN autotuning: TensorFlow and MXNet time the algorithms by default,
 * with a library on top too (Horovod, KungFu); PyTorch (cudnn.benchmark
 * off by default), Paddle and a container list naming several
 * frameworks keep the heuristic's kernel. */
Test(framework, conv_autotune) {
  static const struct {
    const char *text;
    int autotune;
  } cases[] = {
      {"tensorflow-1.x (tf_cnn_benchmarks)", 1},
      {"horovod 0.16.1 (tensorflow-1.13, OpenMPI 4.0.0)", 1},
      {"mxnet 1.6.0 (Horovod)", 1},
      {"kungfu (tensorflow-1.13)", 1},
      {"NGC MXNet 21.05 , NGC PyTorch 21.05 , NGC TensorFlow 21.05-tf1", 0},
      {"MXNet, TensorFlow", 0},
      {"paddle 1.8.3", 0},
      {"pytorch 1.5 (NGC 20.03, APEX, DALI)", 0},
      {"NVIDIA PyTorch/TensorFlow/MxNet/HugeCTR", 0},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    sc_plan p;
    sc_plan_default(&p);
    cr_assert_eq(p.conv_autotune, 0, "default: the heuristic's kernel");
    vfw_text t = vfw_read(cases[i].text);
    vfw_plan(&t, &p);
    cr_assert_eq(p.conv_autotune, cases[i].autotune, "%s", cases[i].text);
  }
}
