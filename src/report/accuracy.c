/*
 * accuracy.c -- the accuracy class of a prediction and its report lines;
 * see accuracy.h. The figures are accuracy_table.c's (generated).
 */
#include <string.h>

#include "report/accuracy.h"
#include "report/esc.h"

/* The architecture family of a GPU preset's SM version; NULL when no
 * validation set has one (AMD's arch 0, Kepler, Pascal). */
static const char *arch_family(int arch) {
  switch (arch / 10) {
  case 7: return "Volta";
  case 8: return "Ampere";
  case 9: return "Hopper";
  case 10: return "Blackwell";
  default: return NULL; /* AMD's 0, Kepler, Pascal */
  }
}

static const char *dtype_class(sc_dtype d) {
  if (d == SC_FP16 || d == SC_BF16) return "16-bit";
  if (d == SC_FP8 || d == SC_FP4) return "fp8/fp4";
  return "32-bit";
}

/* The kind of model when it is not what the LLM table covers (a dense
 * transformer): "MoE", "workload-graph", "CNN", "BERT"; NULL for a dense
 * transformer. */
static const char *model_class(const sc_scenario *s) {
  switch (s->model.kind) {
  case SC_MODEL_TRANSFORMER: return s->model.tf.experts > 1 ? "MoE" : NULL;
  case SC_MODEL_GRAPH: return "workload-graph";
  case SC_MODEL_CNN: return "CNN";
  case SC_MODEL_BERT: return "BERT";
  default: return "other-model";
  }
}

/* accuracy.h */
const acc_row *acc_llm_class(const sc_scenario *s, char *arch, char *dtype, char *style) {
  const char *a = arch_family(s->cluster.gpu.arch);
  const char *m = model_class(s);
  const char *par = s->plan.zero >= 3 ? "FSDP/ZeRO-3" : "Megatron-style";
  if (a) snprintf(arch, 32, "%s", a);
  else if (s->cluster.gpu.arch == 0) snprintf(arch, 32, "non-NVIDIA");
  else snprintf(arch, 32, "sm_%d", s->cluster.gpu.arch);
  snprintf(dtype, 32, "%s", dtype_class(s->plan.dtype));
  if (m && strcmp(m, "MoE")) snprintf(style, 32, "%s", m); /* tp/pp/zero mean little there */
  else snprintf(style, 32, "%s%s%s", m ? m : "", m ? " " : "", par);
  if (!a || m) return NULL;
  for (int i = 0; i < acc_llm_n; i++)
    if (!strcmp(acc_llm[i].arch, arch) && !strcmp(acc_llm[i].dtype, dtype) &&
        !strcmp(acc_llm[i].style, style))
      return acc_llm[i].n > 0 ? &acc_llm[i] : NULL;
  return NULL;
}

/* The table row of s, NULL when unvalidated. */
static const acc_row *row_of(const sc_scenario *s) {
  char a[32], d[32], st[32];
  return acc_llm_class(s, a, d, st);
}

void acc_class_name(const sc_scenario *s, char *buf, size_t cap) {
  char a[32], d[32], st[32];
  acc_llm_class(s, a, d, st);
  snprintf(buf, cap, "%s %s %s", a, d, st);
}

/* The sets of row r as "a.csv (IN-SAMPLE), b.csv": each IN-SAMPLE set
 * (validate marks it: something was chosen looking at it) says so. */
static void src_list(const acc_row *r, char *buf, size_t cap) {
  size_t n = 0;
  buf[0] = 0;
  for (int i = 0; i < r->n_src && n < cap; i++)
    n += (size_t)snprintf(buf + n, cap - n, "%s%s%s", n ? ", " : "", r->src[i].file,
                          r->src[i].in_sample ? " (IN-SAMPLE)" : "");
}

void acc_text(const sc_scenario *s, char *buf, size_t cap) {
  char name[112], files[512];
  acc_class_name(s, name, sizeof name);
  const acc_row *r = row_of(s);
  if (!r) {
    snprintf(buf, cap, "no published runs like this (%s): the model is unvalidated here", name);
    return;
  }
  src_list(r, files, sizeof files);
  snprintf(buf, cap, "MAPE %.1f %% on %d published %s runs (signed %+.1f %%, worst %+.1f %%; "
                     "from %s)", r->mape, r->n, name, r->signed_err, r->worst, files);
}

void acc_table_line(FILE *out, const sc_scenario *s, const char *label) {
  char text[768];
  acc_text(s, text, sizeof text);
  fprintf(out, "  %-18s %s\n", label, text);
}

/* A JSON array of the sets of r (in_sample != 0: the IN-SAMPLE ones). */
static void src_json(FILE *out, const acc_row *r, int in_sample) {
  fputc('[', out);
  for (int i = 0, k = 0; r && i < r->n_src; i++) {
    if (in_sample && !r->src[i].in_sample) continue;
    fputs(k++ ? ", " : "", out);
    esc_json(out, r->src[i].file);
  }
  fputc(']', out);
}

void acc_json(FILE *out, const sc_scenario *s) {
  char name[112];
  acc_class_name(s, name, sizeof name);
  const acc_row *r = row_of(s);
  fprintf(out, "\"class\": ");
  esc_json(out, name);
  if (r)
    fprintf(out, ", \"n\": %d, \"mape\": %.4g, \"signed\": %.4g, \"worst\": %.4g", r->n,
            r->mape / 100, r->signed_err / 100, r->worst / 100);
  else
    fprintf(out, ", \"n\": 0, \"mape\": null, \"signed\": null, \"worst\": null");
  fprintf(out, ", \"files\": ");
  src_json(out, r, 0);
  fprintf(out, ", \"in_sample\": ");
  src_json(out, r, 1);
}

void acc_csv(FILE *out, const sc_scenario *s, int header) {
  if (header) {
    fprintf(out, ",accuracy_class,accuracy_n,accuracy_mape,accuracy_signed,accuracy_worst");
    return;
  }
  char name[112];
  acc_class_name(s, name, sizeof name);
  const acc_row *r = row_of(s);
  fputc(',', out);
  esc_csv(out, name, ',');
  if (r)
    fprintf(out, "%d,%.4g,%.4g,%.4g", r->n, r->mape / 100, r->signed_err / 100, r->worst / 100);
  else
    fprintf(out, "0,,,");
}
