/*
 * framework.c -- see framework.h.
 */
#include "validate/framework.h"

#include "validate/rowtext.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* The spellings of each framework (framework.h). "tf" is special: it
 * names TensorFlow only followed by a digit and not preceded by a letter
 * or digit (spelled_at). */
static const struct {
  const char *word;
  vfw_kind kind;
} spellings[] = {
    {"pytorch", VFW_PYTORCH}, {"tensorflow", VFW_TENSORFLOW}, {"tf_cnn", VFW_TENSORFLOW},
    {"keras", VFW_TENSORFLOW}, {"tf", VFW_TENSORFLOW},        {"mxnet", VFW_MXNET},
    {"oneflow", VFW_ONEFLOW}, {"paddle", VFW_PADDLE},         {"kungfu", VFW_KUNGFU},
    {"hugectr", VFW_HUGECTR},
};

/* 1 when word (lower case) starts at text[i], ignoring ASCII case. */
static int at(const char *text, size_t i, const char *word) {
  return !strncasecmp(text + i, word, strlen(word));
}

/* 1 when the spelling w names its framework at text[i]. */
static int spelled_at(const char *text, size_t i, const char *w) {
  if (!at(text, i, w)) return 0;
  if (strcmp(w, "tf")) return 1;
  return (i == 0 || !isalnum((unsigned char)text[i - 1])) &&
         isdigit((unsigned char)text[i + 2]);
}

/* TensorFlow's major version stated at p (just after "tensorflow" or
 * "tf"): a 1 or 2 standing alone, after at most one '-', '_' or space;
 * 0 when none (an NGC release number such as 21.05 is not one). */
static int major_at(const char *p) {
  if (*p == '-' || *p == '_' || *p == ' ') p++;
  if (!isdigit((unsigned char)*p)) return 0;
  char *end = NULL;
  long v = strtol(p, &end, 10);
  return v == 1 || v == 2 ? (int)v : 0;
}

vfw_text vfw_read(const char *text) {
  vfw_text t = {VFW_NONE, VFW_NONE, 0, 0, 0, 0, 0};
  for (size_t i = 0; text && text[i]; i++) {
    for (size_t k = 0; k < sizeof spellings / sizeof spellings[0]; k++) {
      const char *w = spellings[k].word;
      if (!spelled_at(text, i, w)) continue;
      vfw_kind kind = spellings[k].kind;
      if (!(t.named >> kind & 1)) {
        t.named |= 1u << kind;
        t.n_named++;
        if (t.first == VFW_NONE) t.first = kind;
      }
      if (kind == VFW_TENSORFLOW && !t.tf_major && (!strcmp(w, "tf") || !strcmp(w, "tensorflow")))
        t.tf_major = major_at(text + i + strlen(w));
    }
  }
  t.sole = t.n_named == 1 ? t.first : VFW_NONE;
  t.horovod = rowtext_has(text, "horovod");
  t.xla = rowtext_word(text, "xla"); /* a word: not "xlarge" */
  return t;
}

int vfw_release(const char *text, vfw_kind kind, int *major, int *minor) {
  for (size_t i = 0; text && text[i]; i++)
    for (size_t k = 0; k < sizeof spellings / sizeof spellings[0]; k++) {
      const char *w = spellings[k].word;
      /* Keras' own release is not TensorFlow's */
      if (spellings[k].kind != kind || !strcmp(w, "keras") || !spelled_at(text, i, w)) continue;
      const char *p = text + i + strlen(w);
      if (*p == '-' || *p == '_' || *p == ' ') p++;
      if (*p == 'v' || *p == 'V') p++;
      if (!isdigit((unsigned char)*p)) continue;
      char *end = NULL;
      long a = strtol(p, &end, 10);
      /* "tf2" alone is no release; a two-digit major is NGC's YY.MM */
      if (*end != '.' || a >= 10) continue;
      *major = (int)a;
      *minor = isdigit((unsigned char)end[1]) ? (int)strtol(end + 1, NULL, 10) : -1;
      return 1;
    }
  return 0;
}

/* The first release of each framework that may have CUDA 11 builds
 * (framework.h says where each comes from). */
static const struct {
  vfw_kind kind;
  int major, minor;
} first_cuda11[] = {
    {VFW_TENSORFLOW, 2, 4}, {VFW_PYTORCH, 1, 7}, {VFW_MXNET, 1, 7}, {VFW_PADDLE, 2, 0}};

int vfw_builds_pre_cuda11(const char *text, const vfw_text *fw) {
  int major, minor;
  if (fw->sole == VFW_NONE || !vfw_release(text, fw->sole, &major, &minor)) return 0;
  for (size_t k = 0; k < sizeof first_cuda11 / sizeof first_cuda11[0]; k++) {
    if (first_cuda11[k].kind != fw->sole) continue;
    if (major != first_cuda11[k].major) return major < first_cuda11[k].major;
    return minor >= 0 && minor < first_cuda11[k].minor;
  }
  return 0;
}

/* 1 when the row's framework runs the attention unfused on every GPU
 * (framework.h): TensorFlow named alone, with or without XLA, or MXNet
 * named alone with Horovod (gluon-nlp's BERT, not NVIDIA's). */
static int unfused_attention(const vfw_text *fw) {
  return fw->sole == VFW_TENSORFLOW || (fw->sole == VFW_MXNET && fw->horovod);
}

/* 1 when the row's convolutions run in a framework that times cuDNN's
 * algorithms and keeps the fastest by default: TensorFlow
 * (TF_CUDNN_USE_AUTOTUNE) or MXNet (MXNET_CUDNN_AUTOTUNE_DEFAULT), with or
 * without a library on top (Horovod, KungFu), and no other framework
 * named (a container's list does not say which ran). PyTorch autotunes
 * only with cudnn.benchmark, which a row does not say; PaddlePaddle only
 * with FLAGS_cudnn_exhaustive_search; OneFlow's default is not known
 * here: these keep cuDNN's heuristics (all recalled). */
static int autotunes(const vfw_text *fw) {
  unsigned tuners = 1u << VFW_TENSORFLOW | 1u << VFW_MXNET;
  unsigned others = 1u << VFW_PYTORCH | 1u << VFW_ONEFLOW | 1u << VFW_PADDLE;
  return (fw->named & tuners) && !(fw->named & others) &&
         (fw->named & tuners) != tuners;
}

int vfw_plan(const vfw_text *fw, sc_plan *p) {
  if (fw->first == VFW_NONE) return 0;
  p->framework_eager = fw->first == VFW_PYTORCH;
  /* PyTorch's default memory format is torch.contiguous_format (NCHW;
   * channels_last is opt-in, PyTorch 1.5 onwards) */
  if (fw->sole == VFW_PYTORCH) p->channels_last = 0;
  p->conv_autotune = autotunes(fw);
  /* TensorFlow without XLA: unfused element-wise kernels (framework.h) */
  if (fw->sole == VFW_TENSORFLOW && !fw->xla) p->fused_kernels = 0;
  if (unfused_attention(fw)) {
    p->flash_attention = 0;
    p->attention = SC_ATTN_UNFUSED;
  }
  return 1;
}
