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

/* The row of table[0..n) with the class (k0, k1, k2) and rows; NULL if
 * none. */
static const acc_row *find(const acc_row *table, int n, const char *k0, const char *k1,
                           const char *k2) {
  for (int i = 0; i < n; i++)
    if (!strcmp(table[i].key[0], k0) && !strcmp(table[i].key[1], k1) &&
        !strcmp(table[i].key[2], k2))
      return table[i].n > 0 ? &table[i] : NULL;
  return NULL;
}

/* accuracy.h */
const char *acc_scale(const sc_scenario *s) {
  return s->cluster.gpus <= s->cluster.gpus_per_node ? "one-server" : "multi-server";
}

const acc_row *acc_llm_class(const sc_scenario *s, char *arch, char *dtype, char *style) {
  const char *a = arch_family(s->cluster.gpu.arch);
  const char *m = model_class(s);
  const char *par = s->plan.zero >= 3 ? "FSDP/ZeRO-3" : "Megatron-style";
  const char *scale = acc_scale(s);
  if (a) snprintf(arch, 32, "%s", a);
  else if (s->cluster.gpu.arch == 0) snprintf(arch, 32, "non-NVIDIA");
  else snprintf(arch, 32, "sm_%d", s->cluster.gpu.arch);
  snprintf(dtype, 32, "%s", dtype_class(s->plan.dtype));
  /* the longest style, "MoE Megatron-style multi-server", is 31 characters */
  if (m && strcmp(m, "MoE")) snprintf(style, 32, "%s", m); /* tp/pp/zero mean little there */
  else snprintf(style, 32, "%s%s%s %s", m ? m : "", m ? " " : "", par, scale);
  return !a || m ? NULL : find(acc_llm, acc_llm_n, arch, dtype, style);
}

/* A CNN or BERT trained data-parallel (tp, pp and cp 1, ZeRO below 3):
 * the data-parallel class `stepcast dp` quotes (acc_dp_class), its scheme
 * family what the step's exchange is: one NCCL all-reduce of the
 * gradients ("allreduce"; ZeRO 1 and 2 move the same bytes as its
 * reduce-scatter and all-gather) on more than one GPU, "none" on one.
 * Writes the class name into buf; *row is its row or NULL. 0 when s is
 * not such a plan (the LLM classes apply). */
static int dp_like(const sc_scenario *s, char *buf, size_t cap, const acc_row **row) {
  const sc_plan *p = &s->plan;
  if (s->model.kind != SC_MODEL_CNN && s->model.kind != SC_MODEL_BERT) return 0;
  if (p->tp != 1 || p->pp != 1 || p->cp != 1 || p->zero >= 3) return 0;
  *row = acc_dp_class(s, s->cluster.gpus > 1 ? "allreduce" : "none", buf, cap);
  return 1;
}

/* The table row of s, NULL when unvalidated. */
static const acc_row *row_of(const sc_scenario *s) {
  char a[32], d[32], st[32], name[112];
  const acc_row *r;
  if (dp_like(s, name, sizeof name, &r)) return r;
  return acc_llm_class(s, a, d, st);
}

void acc_class_name(const sc_scenario *s, char *buf, size_t cap) {
  char a[32], d[32], st[32];
  const acc_row *r;
  if (dp_like(s, buf, cap, &r)) return;
  acc_llm_class(s, a, d, st);
  snprintf(buf, cap, "%s %s %s", a, d, st);
}

/* 1 when the word w (len bytes) is one of the space-separated words of
 * list; fp16 and bf16 match each other (acc_outside). */
static int listed(const char *list, const char *w) {
  size_t len = strlen(w);
  int half = !strcmp(w, "fp16") || !strcmp(w, "bf16");
  for (const char *p = list; *p;) {
    size_t n = strcspn(p, " ");
    if ((n == len && !strncmp(p, w, n)) ||
        (half && n == 4 && (!strncmp(p, "fp16", 4) || !strncmp(p, "bf16", 4))))
      return 1;
    p += n + strspn(p + n, " ");
  }
  return 0;
}

/* Appends to buf (cap bytes, *n used) "; " (but first) and the text. */
static void append(char *buf, size_t cap, size_t *n, const char *text) {
  if (*n >= cap) return;
  int k = snprintf(buf + *n, cap - *n, "%s%s", *n ? "; " : "", text);
  if (k > 0) *n += (size_t)k > cap - *n ? cap - *n : (size_t)k;
}

/* accuracy.h */
int acc_outside(const acc_row *r, const acc_where *w, char *buf, size_t cap) {
  size_t n = 0;
  int items = 0;
  buf[0] = '\0';
  if (!r) return 0;
  const acc_range *g = &r->range;
  const double *ranges[3] = {g->gpus, g->seq, g->hidden};
  const double vals[3] = {w->gpus, w->seq, w->hidden};
  const char *pre[3] = {"", "seq ", "hidden "};
  const char *unit[3] = {w->gpus == 1 ? " GPU" : " GPUs", " tokens", ""};
  char item[192];
  for (int i = 0; i < 3; i++) {
    const double *rg = ranges[i];
    if (vals[i] <= 0 || rg[1] <= 0) continue;
    if (vals[i] <= rg[1] * ACC_FAR && vals[i] >= rg[0] / ACC_FAR) continue;
    if (rg[0] == rg[1])
      snprintf(item, sizeof item, "%s%.0f%s (its runs: %.0f)", pre[i], vals[i], unit[i], rg[0]);
    else
      snprintf(item, sizeof item, "%s%.0f%s (its runs: %.0f to %.0f)", pre[i], vals[i], unit[i],
               rg[0], rg[1]);
    append(buf, cap, &n, item);
    items++;
  }
  const char *lists[2] = {g->gpu, g->dtype}, *names[2] = {w->gpu, w->dtype};
  for (int i = 0; i < 2; i++) {
    if (!names[i] || !lists[i] || !lists[i][0] || listed(lists[i], names[i])) continue;
    snprintf(item, sizeof item, "%s %.40s (its runs: %.120s)", i ? "dtype" : "GPU", names[i],
             lists[i]);
    append(buf, cap, &n, item);
    items++;
  }
  return items;
}

/* The sets of row r as "a.csv 8 (IN-SAMPLE), b.csv 1440": each set with
 * its rows in the class (so that a class most of whose rows are one
 * set's, such as single-node runs, shows it), each IN-SAMPLE set
 * (validate marks it: something was chosen looking at it) saying so. */
static void src_list(const acc_row *r, char *buf, size_t cap) {
  size_t n = 0;
  buf[0] = 0;
  for (int i = 0; i < r->n_src && n < cap; i++)
    n += (size_t)snprintf(buf + n, cap - n, "%s%s %d%s", n ? ", " : "", r->src[i].file,
                          r->src[i].n, r->src[i].in_sample ? " (IN-SAMPLE)" : "");
}

/* What row r (NULL: none) of the class called name says, as one text,
 * and where w (NULL: not asked) is far outside its range, a second line
 * after a '\n': "outside the validated range: ..." (acc_outside). */
static void row_text(const acc_row *r, const char *name, const char *what, const acc_where *w,
                     char *buf, size_t cap) {
  char files[512], out[512];
  if (!r) {
    snprintf(buf, cap, "no published runs like this (%s): the model is unvalidated here", name);
    return;
  }
  src_list(r, files, sizeof files);
  int n = snprintf(buf, cap,
                   "MAPE %.1f %% on %d published %s %s (signed %+.1f %%, worst %+.1f %%; "
                   "rows per set: %s)",
                   r->mape, r->n, name, what, r->signed_err, r->worst, files);
  if (w && acc_outside(r, w, out, sizeof out) && n > 0 && (size_t)n < cap)
    snprintf(buf + n, cap - (size_t)n, "\noutside the validated range: %s", out);
}

/* Where scenario s stands against a class's range: its GPUs, and for a
 * transformer its sequence, hidden size, GPU preset and dtype. */
static acc_where where_of(const sc_scenario *s) {
  acc_where w = {s->cluster.gpus, 0, 0, NULL, NULL};
  if (s->model.kind == SC_MODEL_TRANSFORMER) {
    w.seq = s->model.tf.seq;
    w.hidden = s->model.tf.hidden;
    w.gpu = s->cluster.gpu.name;
    w.dtype = sc_dtype_name(s->plan.dtype);
  }
  return w;
}

void acc_text(const sc_scenario *s, char *buf, size_t cap) {
  char name[112];
  acc_class_name(s, name, sizeof name);
  acc_where w = where_of(s);
  row_text(row_of(s), name, "runs", &w, buf, cap);
}

void acc_wrap(FILE *out, const char *text, int col, int indent) {
  const char *w = text;
  int first = 1;
  while (*w) {
    if (*w == '\n') { /* a line of its own (row_text's range note) */
      col = fprintf(out, "\n%*s", indent, "") - 1;
      first = 1;
      w++;
      continue;
    }
    size_t len = strcspn(w, " \n");
    /* a number keeps its unit: "+116.9 %" never breaks before the '%' */
    while (w[len] == ' ' && w[len + strspn(w + len, " ")] == '%') {
      len += strspn(w + len, " ");
      len += strcspn(w + len, " \n");
    }
    if (!first && col + 1 + (int)len > ACC_WIDTH) col = fprintf(out, "\n%*s", indent, "") - 1;
    else if (!first) col += fprintf(out, " ");
    col += fprintf(out, "%.*s", (int)len, w);
    first = 0;
    w += len;
    w += strspn(w, " ");
  }
  fputc('\n', out);
}

void acc_table_line(FILE *out, const sc_scenario *s, const char *label) {
  char text[768];
  acc_text(s, text, sizeof text);
  fprintf(out, "  %-18s ", label);
  acc_wrap(out, text, 21, 21);
}

/* A JSON array of the rows each set of r has in the class, in the order
 * of src_json's "files". */
static void src_rows_json(FILE *out, const acc_row *r) {
  fputc('[', out);
  for (int i = 0; r && i < r->n_src; i++) fprintf(out, "%s%d", i ? ", " : "", r->src[i].n);
  fputc(']', out);
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

/* A JSON array of what of w lies outside r's range (acc_outside; [] when
 * nothing), one string per item. */
static void outside_json(FILE *out, const acc_row *r, const acc_where *w) {
  char text[512];
  fputc('[', out);
  if (w && acc_outside(r, w, text, sizeof text))
    for (char *p = text, *e; p; p = e ? e + 2 : NULL) {
      e = strstr(p, "; ");
      if (e) *e = '\0';
      fputs(p == text ? "" : ", ", out);
      esc_json(out, p);
    }
  fputc(']', out);
}

/* The members of an "accuracy" object of row r (NULL: none) called name,
 * w's place against its range (NULL: not asked) as "outside_range". */
static void row_json(FILE *out, const acc_row *r, const char *name, const acc_where *w) {
  fprintf(out, "\"class\": ");
  esc_json(out, name);
  if (r)
    fprintf(out, ", \"n\": %d, \"mape\": %.4g, \"signed\": %.4g, \"worst\": %.4g", r->n,
            r->mape / 100, r->signed_err / 100, r->worst / 100);
  else
    fprintf(out, ", \"n\": 0, \"mape\": null, \"signed\": null, \"worst\": null");
  fprintf(out, ", \"files\": ");
  src_json(out, r, 0);
  fprintf(out, ", \"file_rows\": ");
  src_rows_json(out, r);
  fprintf(out, ", \"in_sample\": ");
  src_json(out, r, 1);
  fprintf(out, ", \"outside_range\": ");
  outside_json(out, r, w);
}

void acc_json(FILE *out, const sc_scenario *s) {
  char name[112];
  acc_class_name(s, name, sizeof name);
  acc_where w = where_of(s);
  row_json(out, row_of(s), name, &w);
}

/* The accuracy CSV columns of row r (NULL: none) called name, w's place
 * against its range: header (header != 0) or values, each with a leading
 * comma (acc_csv's). */
static void row_csv(FILE *out, const acc_row *r, const char *name, const acc_where *w,
                    int header) {
  if (header) {
    fprintf(out, ",accuracy_class,accuracy_n,accuracy_mape,accuracy_signed,accuracy_worst,"
                 "accuracy_outside");
    return;
  }
  char text[512];
  fputc(',', out);
  esc_csv(out, name, ',');
  if (r)
    fprintf(out, "%d,%.4g,%.4g,%.4g,", r->n, r->mape / 100, r->signed_err / 100, r->worst / 100);
  else
    fprintf(out, "0,,,,");
  acc_outside(r, w, text, sizeof text); /* items joined by "; " */
  esc_csv(out, text, '\0');
}

void acc_csv(FILE *out, const sc_scenario *s, int header) {
  char name[112];
  acc_class_name(s, name, sizeof name);
  acc_where w = where_of(s);
  row_csv(out, row_of(s), name, &w, header);
}

/* ------------------------------------------------------------ collective */

const acc_row *acc_coll_class(const sc_coll_sweep_opts *o, int large, char *buf, size_t cap) {
  const char *op = sc_coll_op_name(o->op);
  const char *size = large ? "from 1 MiB" : "below 1 MiB";
  const char *where = o->ranks <= o->ranks_per_node ? "intra-node" : "inter-node";
  snprintf(buf, cap, "%s %s %s", op, size, where);
  return find(acc_coll, acc_coll_n, op, size, where);
}

/* Whether sweep s has sizes below 1 MiB (large == 0) or from 1 MiB (the
 * split of `validate`'s collective MAPEs). */
static int coll_reaches(const sc_coll_sweep *s, int large) {
  for (int i = 0; i < s->n; i++)
    if ((s->points[i].bytes >= 1048576) == (large != 0)) return 1;
  return 0;
}

void acc_coll_table(FILE *out, const sc_coll_sweep *s) {
  for (int large = 0; large < 2; large++) {
    if (!coll_reaches(s, large)) continue;
    char name[96], text[768];
    const acc_row *r = acc_coll_class(&s->opts, large, name, sizeof name);
    acc_where w = {s->opts.ranks, 0, 0, NULL, NULL};
    row_text(r, name, "measurements", &w, text, sizeof text);
    char *nl = strchr(text, '\n'); /* the range note: a comment line of its own */
    if (nl) *nl = '\0';
    fprintf(out, "# accuracy (time(us), NCCL's model): %s\n", text);
    if (nl) fprintf(out, "# %s\n", nl + 1);
  }
}

void acc_coll_json(FILE *out, const sc_coll_sweep *s) {
  fputc('[', out);
  for (int large = 0, k = 0; large < 2; large++) {
    if (!coll_reaches(s, large)) continue;
    char name[96];
    const acc_row *r = acc_coll_class(&s->opts, large, name, sizeof name);
    acc_where w = {s->opts.ranks, 0, 0, NULL, NULL};
    fputs(k++ ? ", {" : "{", out);
    row_json(out, r, name, &w);
    fputc('}', out);
  }
  fputc(']', out);
}

/* --------------------------------------------------------- data-parallel */

/* The model family of a data-parallel scenario: the builder's kind. */
static const char *dp_model(const sc_scenario *s) {
  switch (s->model.kind) {
  case SC_MODEL_CNN: return "CNN";
  case SC_MODEL_BERT: return "BERT";
  case SC_MODEL_GRAPH: return "workload-graph";
  default: return "transformer";
  }
}

const acc_row *acc_dp_class(const sc_scenario *s, const char *family, char *buf, size_t cap) {
  char where[48];
  snprintf(where, sizeof where, "%s data-parallel", acc_scale(s));
  snprintf(buf, cap, "%s %s %s", dp_model(s), family, where);
  return find(acc_dp, acc_dp_n, dp_model(s), family, where);
}

void acc_dp_table(FILE *out, const sc_scenario *s, const sc_dp_result *r, int n) {
  for (int i = 0; i < n; i++) {
    int seen = 0;
    for (int k = 0; k < i && !seen; k++) seen = !strcmp(r[k].family, r[i].family);
    if (seen) continue;
    char name[96], text[768];
    const acc_row *row = acc_dp_class(s, r[i].family, name, sizeof name);
    acc_where w = {s->cluster.gpus, 0, 0, NULL, NULL};
    row_text(row, name, "runs", &w, text, sizeof text);
    int col = fprintf(out, "%s  accuracy, %s:", i ? "" : "\n", r[i].family) - (i ? 0 : 1);
    fputc(' ', out);
    acc_wrap(out, text, col + 1, 4);
  }
}

void acc_dp_json(FILE *out, const sc_scenario *s, const char *family) {
  char name[96];
  acc_where w = {s->cluster.gpus, 0, 0, NULL, NULL};
  row_json(out, acc_dp_class(s, family, name, sizeof name), name, &w);
}

/* ---------------------------------------------------------------- recsys */

const acc_row *acc_rs_class(int gpus, char *buf, size_t cap) {
  const char *where = gpus > 1 ? "multi-GPU" : "one GPU";
  snprintf(buf, cap, "recsys %s training", where);
  return find(acc_rs, acc_rs_n, "recsys", where, "training");
}

void acc_rs_text(int gpus, char *buf, size_t cap) {
  char name[64];
  const acc_row *r = acc_rs_class(gpus, name, sizeof name);
  acc_where w = {gpus, 0, 0, NULL, NULL};
  row_text(r, name, "runs", &w, buf, cap);
}

void acc_rs_csv(FILE *out, int gpus, int header) {
  char name[64];
  acc_where w = {gpus, 0, 0, NULL, NULL};
  row_csv(out, acc_rs_class(gpus, name, sizeof name), name, &w, header);
}

void acc_rs_json(FILE *out, int gpus) {
  char name[64];
  acc_where w = {gpus, 0, 0, NULL, NULL};
  row_json(out, acc_rs_class(gpus, name, sizeof name), name, &w);
}
