/*
 * recsys_rows.c -- predict rows of recommendation-model sets; see
 * recsys_rows.h. How a row becomes a job (blank cells are "not published";
 * the choice is what the row's framework or data would have used, the
 * same for every row; docs/accuracy.md lists them):
 *   - tables: the `tables` grammar; Wide&Deep rows give HugeCTR's
 *     slot_size_array (2 wide slots of width 1, then deep slots of the
 *     `emb_dim` deep width), one key per slot (Criteo has one value per
 *     categorical feature);
 *   - unknown row counts (`?`): the total from `embedding_GiB` (or the
 *     "~N GB" the notes quote) spread over the tables in proportion to the
 *     26 published Criteo 1TB cardinalities (the only per-table counts of
 *     that data set, MLPerf DLRM: criteo_counts below);
 *   - ids: power law with the alpha the notes state ("power-law (alpha
 *     1.05"), else uniform;
 *   - dtype `unknown` (MLPerf): mixed precision, as NVIDIA's implementations
 *     train; optimizer `not stated`: SGD for DLRM (the reference optimizer),
 *     Adam for DCNv2 (the notes of its rows);
 *   - the row's framework is the one its `framework` text names
 *     (validate/framework.h: any case; a container's list of several names
 *     none of them);
 *   - HugeCTR *Hash embeddings (sharding_detail) probe a hash table;
 *     TensorFlow rows (distributed-embeddings) issue their ops table by
 *     table, each dispatched by the framework (host cost per op as an
 *     eager framework); PyTorch rows launch kernel by kernel (eager);
 *     every other implementation (HugeCTR, MXNet, mixed framework strings)
 *     runs fused kernels from a C++ runtime or CUDA graphs;
 *   - the NIC of a multi-node row that does not state it: the GPU's
 *     reference system (validate/rowdefaults.c), said in `assumed`;
 *   - Horovod (framework) starts collectives on its 1 ms background cycle;
 *   - HugeCTR (framework) reads every GPU's keys through its data reader:
 *     no all-to-all of lookup ids;
 *   - a hash embedding's capacity is the "vocab_size N" its notes print
 *     (HugeCTR's max_vocabulary_size_per_gpu: every embedding layer
 *     reserves it on every GPU), else its tables' rows;
 *   - PyTorch and TensorFlow (framework) look up in the table's type and
 *     cast the pooled vectors to the compute type (mixed precision);
 *   - "avgpool stride N" (interaction) average-pools the concatenated
 *     embeddings before the MLP;
 *   - "dropout" in an MLP column (HugeCTR Wide&Deep) puts dropout after
 *     every MLP layer but the logit;
 *   - a bottom MLP "on GPU 0" (sharding_detail) runs there for the whole
 *     batch before the all-to-all; so does every PyTorch row's but
 *     TorchRec's (NVIDIA's PyTorch DLRM, whose layout the DLE rows state:
 *     the MLPerf PyTorch rows do not log theirs); otherwise data parallel;
 *   - sharding: single_gpu, table_wise (greedy whole tables), table_wise+split
 *     (oversized tables row-wise), row_wise, hybrid_auto (the planner's
 *     fastest plan: the framework's plan is not logged).
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/mem.h"
#include "validate/framework.h"
#include "validate/recsys_rows.h"
#include "validate/rowdefaults.h"
#include "validate/rowgpu.h"
#include "validate/rowtext.h"
#include "validate/rowvalues.h"

/* Criteo 1TB categorical cardinalities in feature order, rows capped at
 * 40M (MLPerf Training DLRM, e.g. the `tables` column of
 * mlperf_dlrm_v0.7-v2.1.csv and the MLPerf reference's day_fea_count). */
static const double criteo_counts[26] = {
    40000000, 39060, 17295, 7424, 20265, 3, 7122, 1543, 63, 40000000, 3067956, 405282, 10,
    2209, 11938, 155, 4, 976, 14, 40000000, 40000000, 40000000, 590152, 12973, 108, 36};

typedef struct rctx {
  const csv_file *f;
  const char *path;
  sc_error *err;
  int bad;
} rctx;

static const char *cell(rctx *c, const char *col) { return csv_get(c->f, csv_col(c->f, col)); }

/* The cell of col lowercased, '-' and spaces as '_', without spaces around
 * it, into buf (cap bytes; longer cells are cut: no value is that long). */
static const char *lower(rctx *c, const char *col, char *buf, size_t cap) {
  const char *s = cell(c, col);
  while (isspace((unsigned char)*s)) s++;
  size_t n = 0;
  for (; *s && n + 1 < cap; s++)
    buf[n++] = *s == '-' || *s == ' ' ? '_' : (char)tolower((unsigned char)*s);
  while (n > 0 && buf[n - 1] == '_') n--;
  buf[n] = '\0';
  return buf;
}

/* The model kind of the `model` cell in any case, '-' or '_': dlrm;
 * dlrm_dcnv2 (also dcnv2, dlrmv2, dlrm_v2: MLPerf's DLRMv2 is DLRM-DCNv2);
 * wide_and_deep (also wide_deep, wdl); synthetic_*; else the cell. */
static const char *model_kind(rctx *c, char *buf, size_t cap) {
  const char *k = lower(c, "model", buf, cap);
  if (!strcmp(k, "dcnv2") || !strcmp(k, "dlrmv2") || !strcmp(k, "dlrm_v2")) return "dlrm_dcnv2";
  if (!strcmp(k, "wide_deep") || !strcmp(k, "wdl") || !strcmp(k, "wide&deep")) return "wide_and_deep";
  return k;
}

static int malformed(rctx *c, const char *col, const char *want) {
  return csv_malformed(c->f, c->path, col, want, &c->bad, c->err);
}

/* Leading number of column col; dflt when blank; garbage is malformed. */
static double num(rctx *c, const char *col, double dflt) {
  const char *s = cell(c, col);
  while (isspace((unsigned char)*s)) s++;
  if (!*s) return dflt;
  char *end;
  errno = 0;
  double v = strtod(s, &end);
  if (end == s || errno || !isfinite(v) || v < 0) {
    malformed(c, col, "a number >= 0");
    return dflt;
  }
  return v;
}

/* Widths "13-512-256-128" or "2x1024-1" into w (n); "none" = 0 layers. */
static int widths(rctx *c, const char *col, int *w, int max) {
  const char *s = cell(c, col);
  int n = 0;
  if (!*s || !strncasecmp(s, "none", 4)) return 0;
  while (*s && n < max) {
    char *end;
    long v = strtol(s, &end, 10);
    if (end == s || v < 1) return malformed(c, col, "layer widths like 13-512-256"), 0;
    s = end;
    if (*s == 'x') { /* "2x1024": two layers of 1024 */
      long k = v;
      v = strtol(s + 1, &end, 10);
      if (end == s + 1 || v < 1) return malformed(c, col, "layer widths like 2x1024-1"), 0;
      s = end;
      for (long i = 0; i < k && n < max; i++) w[n++] = (int)v;
    } else {
      w[n++] = (int)v;
    }
    if (*s != '-') break;
    s++;
  }
  return n;
}

/* HugeCTR's slot_size_array: 2 wide slots (width 1), then deep slots. */
static int slot_tables(rctx *c, sc_rs_model *m) {
  const char *s = cell(c, "tables");
  int deep = (int)rowtext_after(cell(c, "emb_dim"), "", 16);
  int n = 0;
  for (const char *p = s; *p && *p != ' ' && *p != '('; p++) n += *p == ',';
  n += 1;
  m->tables = mem_calloc((size_t)n, sizeof *m->tables);
  if (!m->tables) return SC_ENOMEM;
  const char *p = s;
  for (int i = 0; i < n; i++) {
    char *end;
    double rows = strtod(p, &end);
    if (end == p || rows < 1) return malformed(c, "tables", "a table list or a slot_size_array");
    sc_rs_table *t = &m->tables[i];
    snprintf(t->name, sizeof t->name, "%s%d", i < 2 ? "wide" : "deep", i < 2 ? i : i - 2);
    t->rows = rows;
    t->dim = i < 2 ? 1 : deep;
    t->wide = i < 2;
    t->features = 1;
    t->hot[0] = 1;
    p = end + (*end == ',');
  }
  m->n_tables = n;
  return SC_OK;
}

/* Fill unknown row counts from the embedding size; SC_EMODEL when none. */
static int fill_rows(rctx *c, sc_rs_job *j, char *assumed, size_t an) {
  sc_rs_model *m = &j->model;
  int unknown = 0;
  for (int t = 0; t < m->n_tables; t++) unknown += m->tables[t].rows <= 0;
  if (!unknown) return SC_OK;
  double gib = num(c, "embedding_GiB", 0), bytes = gib * 1073741824.0;
  if (gib <= 0) {
    double gb = rowtext_after(cell(c, "notes"), "(~", 0);
    bytes = gb * 1e9;
    rowv_note(assumed, an, "embedding size ~%g GB from the notes", gb);
  }
  if (bytes <= 0 || m->n_tables != 26) return SC_EMODEL;
  double elems = bytes / 4, profile = 0;
  for (int t = 0; t < 26; t++) profile += criteo_counts[t] * m->tables[t].dim;
  for (int t = 0; t < 26; t++)
    m->tables[t].rows = fmax(1, floor(criteo_counts[t] * elems / profile));
  rowv_note(assumed, an, "rows per table in Criteo 1TB proportions");
  return SC_OK;
}

/* The `tables` cell with a pooling factor on every group: a group
 * written without "@H" (COUNTxROWSxDIM) takes the `hotness` cell when it
 * is a number (the schema's lookups per table per sample), else 1 (one-
 * hot) when `hotness` is blank, said in assumed; a `hotness` that is not
 * a number leaves the group as written, for the parser to name. Owned by
 * the caller (mem_free); NULL when out of memory. */
static char *tables_spec(rctx *c, char *assumed, size_t an) {
  const char *t = cell(c, "tables"), *hot = cell(c, "hotness");
  size_t groups = 1;
  for (const char *p = t; *p; p++) groups += *p == ';';
  char *out = mem_alloc(strlen(t) + groups * 24 + 1);
  if (!out) return NULL;
  char *end;
  double h = strtod(hot, &end);
  int numeric = end != hot && h > 0 && h < 1e6 && !*end, bare = 0;
  size_t n = 0;
  while (*t) {
    size_t k = strcspn(t, ";");
    memcpy(out + n, t, k);
    n += k;
    int has_at = memchr(t, '@', k) != NULL, empty = strspn(t, " ") == k;
    if (!has_at && !empty && (numeric || !*hot)) {
      n += (size_t)sprintf(out + n, "@%.6g", numeric ? h : 1.0);
      bare = 1;
    }
    t += k;
    if (*t == ';') out[n++] = *t++;
  }
  out[n] = '\0';
  if (bare)
    rowv_note(assumed, an, numeric ? "tables' pooling factor %.6g of hotness" :
                                     "one-hot tables (tables and hotness give none)",
              numeric ? h : 1.0);
  return out;
}

static int model_of(rctx *c, sc_rs_job *j, char *why, size_t wn, char *assumed, size_t an) {
  sc_rs_model *m = &j->model;
  char kbuf[48];
  const char *kind = model_kind(c, kbuf, sizeof kbuf), *notes = cell(c, "notes");
  snprintf(m->name, sizeof m->name, "%s", kind);
  double alpha = rowtext_after(notes, "power-law (alpha", 0);
  sc_rs_dist dist = alpha > 0 ? SC_RS_POWERLAW : SC_RS_UNIFORM;
  int rc;
  if (!strcmp(kind, "wide_and_deep")) {
    rc = slot_tables(c, m);
    m->inter = SC_RS_CONCAT;
  } else if (!strcmp(kind, "dlrm") || !strcmp(kind, "dlrm_dcnv2") ||
             !strncmp(kind, "synthetic_", 10)) {
    sc_error e = {0};
    char *spec = tables_spec(c, assumed, an);
    if (!spec) return sc_error_set(c->err, SC_ENOMEM, "%s: out of memory", c->path);
    rc = sc_rs_tables_parse(spec, dist, alpha, m, &e);
    mem_free(spec);
    if (rc == SC_EINPUT && !c->bad) {
      sc_error_set(c->err, SC_EINPUT, "%s:%d: column 'tables': %s", c->path,
                   c->f->record_line, e.msg);
      c->bad = 1;
    }
    m->inter = !strcmp(kind, "dlrm") ? SC_RS_DOT
               : !strcmp(kind, "dlrm_dcnv2") ? SC_RS_DCNV2 : SC_RS_CONCAT;
  } else {
    snprintf(why, wn, "unknown model '%.64s' (valid: dlrm, dlrm_dcnv2, wide_and_deep, "
             "synthetic_*)", kind);
    return SC_EMODEL;
  }
  if (rc) return rc;
  int w[SC_RS_MAX_LAYERS + 1];
  int nb = widths(c, "bottom_mlp", w, SC_RS_MAX_LAYERS + 1);
  m->dense_features = (int)num(c, "dense_features", nb ? w[0] : 13);
  for (int i = 1; i < nb; i++) m->bottom[m->n_bottom++] = w[i];
  if (m->inter == SC_RS_CONCAT) /* "avgpool stride 7 over concatenated embeddings" */
    m->concat_pool = (int)rowtext_after(cell(c, "interaction"), "avgpool stride", 0);
  if (m->inter == SC_RS_DCNV2) {
    const char *in = cell(c, "interaction");
    m->cross_layers = (int)rowtext_after(in, "(", 3);
    m->cross_rank = (int)rowtext_after(in, "projection", 0);
  }
  /* "2x1024-1 (ReLU, dropout 0.5)": dropout after the hidden layers */
  m->dropout = rowtext_has(cell(c, "top_mlp"), "dropout") ||
               rowtext_has(cell(c, "bottom_mlp"), "dropout");
  int nt = widths(c, "top_mlp", w, SC_RS_MAX_LAYERS + 1);
  int first = nt && w[0] == sc_rs_interaction_width(m); /* the input width, not a layer */
  for (int i = first; i < nt && m->n_top < SC_RS_MAX_LAYERS; i++) m->top[m->n_top++] = w[i];
  if (rc == SC_OK && !c->bad) rc = fill_rows(c, j, assumed, an);
  if (rc == SC_EMODEL)
    snprintf(why, wn, "table row counts not published and no embedding size to spread");
  return rc;
}

/* The dtype cell: fp32, tf32, amp / fp16 / mixed (fp16), bf16 (any
 * spelling rowv_dtype reads), unknown or blank (mixed precision, as
 * NVIDIA's implementations train; said). SC_OK or SC_EINPUT. */
static int dtype_of(rctx *c, sc_rs_job *j, char *assumed, size_t an) {
  char b[32];
  const char *dt = lower(c, "dtype", b, sizeof b);
  sc_dtype d;
  if (!*dt || !strcmp(dt, "unknown") || !strcmp(dt, "not_stated")) {
    j->dtype = SC_FP16;
    rowv_note(assumed, an, "mixed precision (%s)", *dt ? "not logged" : "dtype blank");
  } else if (!strcmp(dt, "mixed") || !strcmp(dt, "amp_fp16")) {
    j->dtype = SC_FP16;
  } else if (!strcmp(dt, "amp_bf16")) {
    j->dtype = SC_BF16;
  } else if (rowv_dtype(dt, &d) && d != SC_FP8 && d != SC_FP4) {
    j->dtype = d;
  } else {
    return malformed(c, "dtype", "fp32, tf32, amp, fp16, bf16 or unknown");
  }
  return SC_OK;
}

/* The optimizer cell, any case, FBGEMM's exact_ prefix dropped: sgd, adagrad
 * (one accumulator per element: torch.optim.Adagrad and TorchRec's
 * Adagrad, TensorFlow's; the TorchRec planner counts its state as the
 * table's size, shard_estimators.py), row-wise Adagrad (rowwise_adagrad,
 * row_wise_adagrad, RowWiseAdagrad: one accumulator per row, TorchRec's
 * RowWiseAdagrad and FBGEMM's exact_rowwise_adagrad, counted as the
 * table's size / dim),
 * adam (HugeCTR's "update_type Global": every row each step), blank or not
 * stated (SGD for DLRM, its reference optimizer; Adam for DCNv2, as its
 * rows' notes state). The name is read the same way whatever the
 * framework: TorchRec keeps Adagrad and row-wise Adagrad apart (OptimType
 * ADAGRAD and ROWWISE_ADAGRAD, embedding_types.py) and its sources in
 * ../shared give no default optimizer, so a row saying "adagrad" is not
 * read as row-wise. SC_OK or SC_EINPUT. */
static int optimizer_of(rctx *c, sc_rs_job *j, char *assumed, size_t an) {
  char b[64];
  const char *opt = lower(c, "optimizer", b, sizeof b);
  if (!strncmp(opt, "exact_", 6)) opt += 6; /* FBGEMM's EmbOptimType names */
  if (!strncmp(opt, "sgd", 3)) j->opt = SC_RS_SGD;
  else if (!strncmp(opt, "adagrad", 7)) j->opt = SC_RS_ADAGRAD;
  else if (!strncmp(opt, "rowwise_adagrad", 15) || !strncmp(opt, "row_wise_adagrad", 16) ||
           !strncmp(opt, "rowwiseadagrad", 14))
    j->opt = SC_RS_ROWWISE_ADAGRAD;
  else if (!strncmp(opt, "adam", 4)) j->opt = strstr(opt, "global") ? SC_RS_ADAM_GLOBAL : SC_RS_ADAM;
  else if (!*opt || !strcmp(opt, "not_stated")) {
    j->opt = j->model.inter == SC_RS_DCNV2 ? SC_RS_ADAM : SC_RS_SGD;
    if (!*opt) rowv_note(assumed, an, "optimizer %s (blank)", j->opt == SC_RS_ADAM ? "adam" : "sgd");
  } else return malformed(c, "optimizer", "sgd, adagrad, rowwise_adagrad, adam or not stated");
  return SC_OK;
}

static int training_of(rctx *c, sc_rs_job *j, char *assumed, size_t an) {
  if (dtype_of(c, j, assumed, an) || optimizer_of(c, j, assumed, an)) return SC_EINPUT;
  j->global_batch = (long)num(c, "global_batch", 0);
  /* the implementation that ran: the one framework the text names (a
   * container's list of several is none of them; validate/framework.h) */
  const char *fwt = cell(c, "framework");
  vfw_text fw = vfw_read(fwt);
  j->kernel = strstr(cell(c, "sharding_detail"), "Hash") ? SC_RS_HASH : SC_RS_FUSED;
  j->emb_bytes = 4;
  j->eager = 0;
  if (fw.sole == VFW_TENSORFLOW) { /* TF + distributed-embeddings: ops per table, dispatched one by one */
    j->kernel = SC_RS_PER_TABLE;
    j->eager = 1;
  }
  if (fw.sole == VFW_PYTORCH) j->eager = 1; /* PyTorch launches kernel by kernel */
  /* PyTorch's embedding_bag and Keras' Embedding return the table's type;
   * mixed precision casts the pooled vectors after the lookup */
  j->pooled_table_type = fw.sole == VFW_PYTORCH || fw.sole == VFW_TENSORFLOW;
  /* NVIDIA's PyTorch DLRM keeps the bottom MLP on GPU 0 (the DLE rows'
   * sharding_detail); PyTorch rows that do not state a layout get it too,
   * except TorchRec's, whose dense part is data parallel */
  j->bottom_on_gpu0 = strstr(cell(c, "sharding_detail"), "bottom MLP on GPU 0") != NULL ||
                      (fw.sole == VFW_PYTORCH && !rowtext_has(fwt, "torchrec"));
  if (fw.horovod) j->coll_cycle_s = 1e-3; /* Horovod's default cycle */
  /* HugeCTR's reader splits keys by owner (named alone or in a list) */
  j->keys_from_reader = fw.named >> VFW_HUGECTR & 1;
  /* a hash embedding's capacity per GPU where the notes give the
   * vocabulary size the run printed (HugeCTR's max_vocabulary_size_per_gpu;
   * docs/accuracy.md): its global Adam sweeps it */
  const char *notes = cell(c, "notes");
  double cap = j->kernel == SC_RS_HASH ? rowtext_count_after(notes, "vocab_size ", 0) : 0;
  if (cap > 0) {
    j->hash_capacity = cap;
    rowv_note(assumed, an, "hash capacity %.0f rows per GPU and layer (the notes' vocab_size)",
              cap);
  }
  return SC_OK;
}

static int cluster_of(rctx *c, sc_rs_job *j, char *why, size_t wn, char *assumed, size_t an) {
  const char *gname = cell(c, "gpu");
  const sc_gpu *gp = rowg_gpu(gname, assumed, an); /* validate/rowgpu.h */
  if (!gp) {
    snprintf(why, wn, *gname ? "unknown GPU '%.40s' (no preset)" : "gpu is blank (required)",
             gname);
    return SC_EMODEL;
  }
  j->gpu = *gp;
  j->gpus = (int)num(c, "gpus", 0);
  if (j->gpus < 1) { /* blank: global_batch / batch_per_gpu, else nodes x gpus_per_node */
    double g = num(c, "global_batch", 0), b = num(c, "batch_per_gpu", 0);
    double n = num(c, "nodes", 0), gpn = num(c, "gpus_per_node", 0);
    int by_batch = b >= 1 && g >= b && fmod(g, b) == 0 && g / b <= 1 << 24;
    if (!by_batch && !(n >= 1 && gpn >= 1 && n * gpn <= 1 << 24)) {
      snprintf(why, wn, "gpus is blank and nothing gives it (global_batch / batch_per_gpu, or "
               "nodes x gpus_per_node)");
      return SC_EMODEL;
    }
    j->gpus = (int)(by_batch ? g / b : n * gpn);
    rowv_note(assumed, an, "gpus %d = %s (blank)", j->gpus,
              by_batch ? "global_batch / batch_per_gpu" : "nodes x gpus_per_node");
  }
  j->gpus_per_node = (int)num(c, "gpus_per_node", 0);
  if (j->gpus_per_node < 1) { /* blank: gpus / nodes, else the reference server's */
    int nodes = (int)num(c, "nodes", 0), ref_gpn, domain;
    const char *ref = rowd_reference_node(gp->name, &ref_gpn, &domain);
    int by_nodes = nodes > 0 && j->gpus % nodes == 0;
    j->gpus_per_node = by_nodes ? j->gpus / nodes : j->gpus < ref_gpn ? j->gpus : ref_gpn;
    if (j->gpus_per_node < 1) j->gpus_per_node = 1;
    if (j->gpus > 1)
      rowv_note(assumed, an, "%d GPUs per server (blank; %s%s)", j->gpus_per_node,
                by_nodes ? "gpus / nodes" : ref ? "as " : "at most 8",
                by_nodes || !ref ? "" : ref);
  }
  const char *in = cell(c, "intra_node");
  j->intra = !strncmp(in, "nvswitch", 8) || !strncmp(in, "nvlink-mesh", 11) ? 1
             : !strncmp(in, "nvlink-hybrid", 13) ? 2
             : !strncmp(in, "pcie", 4) ? 3 : 0;
  j->nvlink_bw = num(c, "intra_node_GBps", 0) * 1e9;
  if (j->nvlink_bw <= 0 && j->gpus_per_node > 1 && j->intra != 3) /* 0: the preset's */
    rowv_note(assumed, an, "intra_node_GBps %.0f of the GPU (blank)", gp->nvlink_bw / 1e9);
  /* TensorFlow (>= 2.4) runs fp32 matrix products in TF32 on Ampere and
   * later unless told not to (tf.config.experimental.enable_tensor_float_32_execution) */
  if (j->dtype == SC_FP32 && j->gpu.arch >= 80 &&
      vfw_read(cell(c, "framework")).sole == VFW_TENSORFLOW) {
    j->dtype = SC_TF32;
    rowv_note(assumed, an, "TF32 matmuls (TensorFlow default on Ampere)");
  }
  double net = num(c, "network_Gbps", 0);
  if (j->gpus > j->gpus_per_node) {
    if (net > 0) j->nic_bw = net * 1e9 / 8 / j->gpus_per_node;
    else {
      const char *ref = NULL;
      j->nic_bw = rowd_reference_nic(j->gpu.name, &ref);
      if (ref)
        rowv_note(assumed, an, "nic_Gbps %.0f of %s (not published)", j->nic_bw * 8 / 1e9,
                  ref);
    }
  }
  return SC_OK;
}

static int plan_of(rctx *c, const sc_rs_job *j, sc_rs_plan *p, char *why, size_t wn,
                   sc_error *err) {
  char b[48];
  const char *sh = lower(c, "sharding", b, sizeof b);
  if (!strncmp(sh, "shardingtype.", 13)) sh += 13; /* TorchRec's enum, printed */
  /* a table too large for any GPU was sliced (distributed-embeddings'
   * column slicing), or the run could not have happened */
  if (!strcmp(sh, "single_gpu") || !strcmp(sh, "table_wise") || !strcmp(sh, "table_wise+split"))
    return sc_rs_plan_uniform(j, SC_RS_TABLE_WISE, 1, p, err);
  if (!strcmp(sh, "row_wise")) return sc_rs_plan_uniform(j, SC_RS_ROW_WISE, 0, p, err);
  /* TorchRec's other kinds, every table the same way */
  int k = sc_rs_shard_from_name(sh);
  if (k >= 0) return sc_rs_plan_uniform(j, (sc_rs_shard_kind)k, 0, p, err);
  if (!strcmp(sh, "hybrid_auto") || !strcmp(sh, "auto") || !strcmp(sh, "planner")) {
    sc_rs_plans ps;
    int rc = sc_rs_plan_search(j, NULL, &ps, err);
    if (rc) return rc;
    if (ps.n == 0) { snprintf(why, wn, "the planner found no plan"); return SC_EMODEL; }
    *p = ps.plan[0];
    ps.plan[0] = (sc_rs_plan){0};
    sc_rs_plans_free(&ps);
    return SC_OK;
  }
  snprintf(why, wn, "unknown sharding '%.20s' (valid: single_gpu, table_wise[+split], "
           "row_wise, column_wise, table_row_wise, data_parallel, hybrid_auto)",
           cell(c, "sharding"));
  return SC_EMODEL;
}

/* 1 when the row's sharding is the planner's (hybrid_auto and its
 * spellings). */
static int valrs_planned(rctx *c) {
  char b[48];
  const char *sh = lower(c, "sharding", b, sizeof b);
  return !strcmp(sh, "hybrid_auto") || !strcmp(sh, "auto") || !strcmp(sh, "planner");
}

int valrs_is_recsys(const csv_file *f) {
  return csv_col(f, "measured_iter_ms") >= 0 && csv_col(f, "tables") >= 0;
}

int valrs_job(const csv_file *f, const char *path, sc_rs_job *j, sc_rs_plan *p, char *assumed,
              size_t an, sc_error *err) {
  rctx c = {f, path, err, 0};
  char why[160] = "";
  sc_rs_job_default(j);
  memset(p, 0, sizeof *p);
  int rc = model_of(&c, j, why, sizeof why, assumed, an);
  if (rc == SC_OK) rc = training_of(&c, j, assumed, an);
  if (rc == SC_OK) rc = cluster_of(&c, j, why, sizeof why, assumed, an);
  if (c.bad) return SC_EINPUT;
  if (rc == SC_OK) {
    sc_error e = {0};
    rc = sc_rs_job_check(j, &e);
    if (rc == SC_EINPUT) { snprintf(why, sizeof why, "%.150s", e.msg); rc = SC_EMODEL; }
  }
  if (rc == SC_OK) rc = plan_of(&c, j, p, why, sizeof why, err);
  if (rc == SC_OK && valrs_planned(&c))
    rowv_note(assumed, an, "the planner's fastest sharding (the run's plan is not published)");
  if (rc == SC_EMODEL) sc_error_set(err, SC_EMODEL, "%s", why);
  return rc;
}

int valrs_row(const csv_file *f, const char *path, val_row *r, sc_error *err) {
  rctx c = {f, path, err, 0};
  r->measured = num(&c, "measured_iter_ms", 0) * 1e-3;
  if (c.bad) return SC_EINPUT;
  if (!*cell(&c, "measured_iter_ms")) { /* nothing to judge against */
    snprintf(r->skipped, sizeof r->skipped, "no measurement: measured_iter_ms is blank");
    return SC_OK;
  }
  if (r->measured <= 0)
    return sc_error_set(err, SC_EINPUT, "%s:%d: the measured value must be > 0", path,
                        f->record_line);
  char sh[48];
  lower(&c, "sharding", sh, sizeof sh); /* one group per kind, however spelled */
  snprintf(r->group, sizeof r->group, "%.31s", strncmp(sh, "shardingtype.", 13) ? sh : sh + 13);
  sc_rs_job j;
  sc_rs_plan p;
  sc_error e = {0};
  int rc = valrs_job(f, path, &j, &p, r->assumed, sizeof r->assumed, &e);
  if (rc == SC_OK) {
    sc_rs_result res;
    rc = sc_rs_evaluate(&j, &p, &res, &e);
    if (rc == SC_OK) {
      r->predicted = res.iter_s;
      if (!res.fits)
        rowv_note(r->assumed, sizeof r->assumed, "predicted not to fit (%.1f of %.1f GiB)",
                  res.mem_bytes / 1073741824.0, res.mem_capacity / 1073741824.0);
      sc_rs_result_free(&res);
    }
  }
  sc_rs_plan_free(&p);
  sc_rs_job_free(&j);
  if (rc == SC_EMODEL || (rc == SC_EINPUT && e.msg[0] && !strstr(e.msg, path))) {
    snprintf(r->skipped, sizeof r->skipped, "%.180s", e.msg);
    return SC_OK;
  }
  if (rc == SC_EINPUT || rc == SC_ENOMEM) {
    if (err) *err = e;
    return rc;
  }
  return SC_OK;
}

int sc_rs_row_job(const char *path, const char *id, sc_rs_job *j, sc_rs_plan *p, sc_error *err) {
  csv_file f;
  sc_rs_job_default(j);
  memset(p, 0, sizeof *p);
  int rc = csv_open(&f, path, err);
  if (rc != SC_OK) return rc;
  if (!valrs_is_recsys(&f)) {
    csv_close(&f);
    return sc_error_set(err, SC_EINPUT, "%s: not a recommendation set (no 'measured_iter_ms' "
                        "and 'tables' columns)", path);
  }
  rc = csv_seek_id(&f, path, id, err);
  if (rc == 1) {
    char assumed[128] = "";
    sc_rs_job_free(j);
    rc = valrs_job(&f, path, j, p, assumed, sizeof assumed, err);
  } else if (rc == 0) {
    rc = SC_EINPUT; /* csv_seek_id said which ids there are */
  }
  csv_close(&f);
  return rc < 0 ? -rc : rc;
}
