/*
 * rowtrain.c -- see rowtrain.h. Each rule says where it comes from.
 */
#include "validate/rowtrain.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "validate/rowdefaults.h"
#include "validate/rowtext.h"
#include "validate/rowvalues.h"

static const char *cell(const csv_file *f, const char *col) { return csv_get(f, csv_col(f, col)); }

/* 1 when the cell of col is blank (spaces only) or the column is absent. */
static int blank(const csv_file *f, const char *col) {
  const char *s = cell(f, col);
  while (isspace((unsigned char)*s)) s++;
  return !*s;
}

/* A whole number >= 1 after the word key in text (ignoring case; key's
 * '-' also matches '_'; a letter, digit or '_' right before it is another
 * word, a '-' is an option's "--"), skipping spaces, '=' and ':'; 0 when
 * none. */
static int number_after(const char *text, const char *key) {
  size_t n = strlen(key);
  for (const char *t = text; t && *t; t++) {
    size_t i = 0;
    while (i < n && t[i] && (tolower((unsigned char)t[i]) == key[i] || (key[i] == '-' && t[i] == '_')))
      i++;
    if (i < n || (t > text && (isalnum((unsigned char)t[-1]) || t[-1] == '_')))
      continue;
    const char *v = t + n;
    while (*v == ' ' || *v == '=' || *v == ':') v++;
    char *end;
    long k = strtol(v, &end, 10);
    if (end > v && k >= 1 && k < 1 << 24) return (int)k;
  }
  return 0;
}

/* ------------------------------------------------------ coded plan cells */

/* The fp8 scaling recipe the notes name; else the default of the framework
 * they name, said in assumed:
 *   - torchtitan: its float8 converter without a recipe_name builds
 *     torchao's Float8LinearConfig(), tensorwise scaling computed from the
 *     current tensor (torchao and torchtitan are not in
 *     ../shared/reference: from their public sources, an assumption
 *     docs/accuracy.md states);
 *   - any other (Megatron-LM, NeMo, Megatron-Core: TransformerConfig's
 *     fp8_recipe = "delayed", ../shared/reference/megatron-lm/megatron/
 *     core/transformer/transformer_config.py): delayed scaling. */
static void fp8_recipe(const char *notes, sc_plan *p, char *assumed, size_t an) {
  if (rowtext_has(notes, "mxfp8")) p->fp8_recipe = SC_FP8_MXFP8;
  else if (rowtext_has(notes, "blockwise") || rowtext_has(notes, "block-wise") ||
           rowtext_has(notes, "block scaling"))
    p->fp8_recipe = SC_FP8_BLOCK;
  else if (rowtext_has(notes, "current scaling") || rowtext_has(notes, "tensorwise"))
    p->fp8_recipe = SC_FP8_CURRENT;
  else if (rowtext_has(notes, "delayed")) p->fp8_recipe = SC_FP8_DELAYED;
  else if (rowtext_has(notes, "torchtitan")) {
    p->fp8_recipe = SC_FP8_CURRENT;
    rowv_note(assumed, an, "fp8 tensorwise current scaling (torchtitan/torchao's default)");
  } else {
    p->fp8_recipe = SC_FP8_DELAYED;
    rowv_note(assumed, an, "fp8 delayed scaling (Megatron's --fp8-recipe default)");
  }
}

int rowt_plan_cells(const csv_file *f, const char *path, sc_plan *p, char *assumed, size_t an,
                    int *bad, sc_error *err) {
  int v;
  if (blank(f, "sp")) p->sp = 0; /* rowt_layout decides by framework */
  else if (rowv_flag(cell(f, "sp"), &v)) p->sp = v;
  else csv_malformed(f, path, "sp", "0 or 1 (also true/false, yes/no, on/off)", bad, err);
  if (blank(f, "zero")) p->zero = 0;
  else if (rowv_zero(cell(f, "zero"), &v)) p->zero = v;
  else csv_malformed(f, path, "zero", "0, 1, 2 or 3 (also ZeRO-N, stage N, fsdp, ddp)", bad, err);
  sc_recompute r = SC_RECOMP_NONE;
  if (!blank(f, "recompute") && !rowv_recompute(cell(f, "recompute"), &r))
    csv_malformed(f, path, "recompute", "none, selective, full or blank (also true/false)", bad,
                  err);
  p->recompute = r;
  if (!rowv_dtype(cell(f, "dtype"), &p->dtype))
    csv_malformed(f, path, "dtype",
                  "fp32, tf32, fp16, bf16, fp8 or fp4 (also bfloat16, bf16-mixed, amp)", bad,
                  err);
  if (p->dtype == SC_FP8) fp8_recipe(cell(f, "notes"), p, assumed, an);
  return *bad ? SC_EINPUT : SC_OK;
}

/* ------------------------------------------------------------ the model */

/* Blank shape cells from the preset p; SC_EMODEL when there is none. */
static int shape_blanks(const csv_file *f, const sc_model *p, sc_transformer *m, char *why,
                        size_t wn, char *assumed, size_t an) {
  static const char *const cols[] = {"layers", "hidden", "heads", "vocab", "seq"};
  char list[64] = "";
  for (size_t i = 0; i < sizeof cols / sizeof cols[0]; i++)
    if (blank(f, cols[i])) snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", *list ? ", " : "", cols[i]);
  if (!*list) return SC_OK;
  if (!p) return snprintf(why, wn, "%s blank and the model names no preset to take it from", list), SC_EMODEL;
  const sc_transformer *t = &p->tf;
  if (blank(f, "layers")) m->layers = t->layers;
  if (blank(f, "vocab")) m->vocab = t->vocab;
  if (blank(f, "seq")) m->seq = t->seq;
  if (blank(f, "hidden") || blank(f, "heads")) { /* the schema's kv_heads/ffn defaults need them */
    m->hidden = t->hidden, m->heads = t->heads;
    if (blank(f, "kv_heads")) m->kv_heads = t->kv_heads;
    if (blank(f, "ffn")) m->ffn = t->ffn;
  }
  rowv_note(assumed, an, "%s of preset %s (blank)", list, p->name);
  return SC_OK;
}

/* The preset's per-layer architecture the schema has no column for, when
 * the preset's width, heads and experts are the row's. */
static void layer_fields(const sc_model *p, sc_transformer *m, char *assumed, size_t an) {
  const sc_transformer *t = &p->tf;
  int moe = m->experts > 1;
  if (t->hidden != m->hidden || t->heads != m->heads || (t->experts > 1) != moe ||
      (moe && t->experts != m->experts))
    return;
  char what[96] = "";
  if (t->head_dim > 0 && t->head_dim * m->heads != m->hidden && !m->head_dim) {
    m->head_dim = t->head_dim;
    snprintf(what, sizeof what, "head_dim %d", t->head_dim);
  }
  if (moe && (t->dense_layers || t->moe_every > 1 || t->shared_experts || t->dense_ffn)) {
    m->dense_layers = t->dense_layers, m->moe_every = t->moe_every;
    m->dense_ffn = t->dense_ffn, m->shared_experts = t->shared_experts;
    snprintf(what + strlen(what), sizeof what - strlen(what), "%sMoE layout", *what ? ", " : "");
  }
  if (t->kv_lora_rank > 0) {
    m->q_lora_rank = t->q_lora_rank, m->kv_lora_rank = t->kv_lora_rank;
    m->rope_dim = t->rope_dim, m->v_head_dim = t->v_head_dim;
    if (!m->head_dim) m->head_dim = t->head_dim;
    snprintf(what + strlen(what), sizeof what - strlen(what), "%slatent attention",
             *what ? ", " : "");
  }
  if (*what) rowv_note(assumed, an, "%s of preset %s", what, p->name);
}

int rowt_model(const csv_file *f, const char *model, sc_transformer *m, char *why, size_t wn,
               char *assumed, size_t an) {
  const sc_model *p = rowd_named_preset(model);
  if (shape_blanks(f, p, m, why, wn, assumed, an)) return SC_EMODEL;
  if (p) layer_fields(p, m, assumed, an);
  return SC_OK;
}

/* ----------------------------------------------------------- the layout */

/* Expert tensor parallelism: the `etp` cell, else the notes. */
static int layout_etp(const csv_file *f, const char *path, const char *notes, sc_plan *p,
                      char *why, size_t wn, int *bad, sc_error *err) {
  double v = csv_num(f, path, "etp", 0, 1, bad, err);
  int etp = (int)v;
  if (*bad) return SC_EINPUT;
  if (!etp) etp = number_after(notes, "etp");
  if (!etp) etp = number_after(notes, "expert-tensor-parallel-size");
  if (!etp || etp == p->tp) return SC_OK; /* Megatron's default: the experts' tp is tp */
  if (etp == 1) return p->etp = 1, SC_OK;
  return snprintf(why, wn, "etp %d: stepcast models expert tensor parallelism equal to tp (%d) "
                           "or 1", etp, p->tp), SC_EMODEL;
}

/* The text of a layout the notes give after key, up to a space, comma or
 * ';' (at most cap - 1 bytes into buf); 0 when none; -1 when it is longer
 * (the caller skips the row naming it: an unread layout is not guessed). */
static int layout_in_notes(const char *notes, const char *key, char *buf, size_t cap) {
  size_t n = strlen(key);
  for (const char *t = notes; t && *t; t++) {
    if (strncasecmp(t, key, n)) continue;
    const char *v = t + n;
    while (*v == ' ' || *v == '=' || *v == ':' || *v == '"') v++;
    size_t k = strcspn(v, " ,;\"");
    if (!k) return 0;
    if (k >= cap) return -1;
    memcpy(buf, v, k);
    buf[k] = '\0';
    return 1;
  }
  return 0;
}

/* The pipeline layout the row states: a `pp_layout` cell, Megatron's
 * layout in the notes, or its first/last stage layer counts. */
static int layout_pp(const csv_file *f, const char *path, const char *notes, sc_plan *p,
                     char *why, size_t wn, char *assumed, size_t an, int *bad, sc_error *err) {
  char text[512], bad_why[96] = "";
  int from_cell = !blank(f, "pp_layout");
  if (from_cell) snprintf(text, sizeof text, "%s", cell(f, "pp_layout"));
  int in_notes = from_cell ? 0 : layout_in_notes(notes, "pipeline-model-parallel-layout", text, sizeof text);
  if (!from_cell && !in_notes)
    in_notes = layout_in_notes(notes, "pipeline_model_parallel_layout", text, sizeof text);
  if (in_notes < 0)
    return snprintf(why, wn, "pipeline layout in the notes longer than %zu bytes", sizeof text - 1),
           SC_EMODEL;
  int stated = from_cell || in_notes;
  if (stated && !rowv_pp_layout(text, p, bad_why, sizeof bad_why)) {
    if (from_cell) {
      char want[192]; /* 75 bytes of text + bad_why (96) */
      snprintf(want, sizeof want, "layers per virtual stage (4,8,8) or Megatron's layout "
               "(Et*3|(tt|)*29m|L): %s", bad_why);
      return csv_malformed(f, path, "pp_layout", want, bad, err);
    }
    return snprintf(why, wn, "pipeline layout '%.60s' in the notes: %s", text, bad_why), SC_EMODEL;
  }
  if (!stated) {
    p->pp_first_layers = number_after(notes, "decoder-first-pipeline-num-layers");
    p->pp_last_layers = number_after(notes, "decoder-last-pipeline-num-layers");
    return SC_OK;
  }
  if (p->vpp < 1 && p->n_pp_layout > p->pp && p->n_pp_layout % p->pp == 0) {
    p->vpp = p->n_pp_layout / p->pp;
    p->schedule = SC_SCHED_INTERLEAVED;
    rowv_note(assumed, an, "vpp %d from the pipeline layout (blank)", p->vpp);
  }
  return SC_OK;
}

/* HSDP: the FSDP shard group the row states or its framework's default. */
static void layout_hsdp(const csv_file *f, const char *notes, sc_plan *p, char *assumed,
                        size_t an) {
  if (p->zero < 3) return;
  int shard = (int)strtol(cell(f, "dp_shard"), NULL, 10);
  if (shard < 1) shard = number_after(notes, "dp_shard");
  if (shard < 1) shard = number_after(notes, "data-parallel-shard-degree");
  int cp = p->cp > 0 ? p->cp : 1;
  if (shard >= 1) {
    p->fsdp_shard = shard * cp; /* torchtitan's fsdp mesh is dp_shard x cp */
    return;
  }
  if (!rowtext_word(notes, "hsdp") && !rowtext_has(notes, "hybrid_shard")) return;
  int gpn = (int)strtol(cell(f, "gpus_per_node"), NULL, 10);
  if (gpn < 1) gpn = 8;
  int tp = p->tp > 0 ? p->tp : 1;
  if (gpn % tp || gpn / tp < 1) return;
  p->fsdp_shard = gpn / tp;
  rowv_note(assumed, an, "HSDP shards within a node: %d ranks (HYBRID_SHARD's default)",
            p->fsdp_shard);
}

/* A blank `sp` with tp > 1: what the framework the notes name does. */
static void layout_sp(const csv_file *f, const char *notes, sc_plan *p, char *assumed,
                      size_t an) {
  if (!blank(f, "sp") || p->tp < 2) return;
  if (rowtext_has(notes, "torchtitan") || rowtext_word(notes, "nemo")) {
    p->sp = 1;
    /* torchtitan: its TP plan always shards the norms' sequence (a fact
     * of its code); NeMo: MegatronStrategy's own default is off, but its
     * LLM recipes turn it on with TP -- an assumption, said so */
    rowv_note(assumed, an, "sp 1 (blank; %s)",
              rowtext_has(notes, "torchtitan") ? "torchtitan's TP plan"
                                               : "assumed as NeMo's recipes set it with TP");
  } else {
    rowv_note(assumed, an, "sp 0 (blank; Megatron's default)");
  }
}

int rowt_layout(const csv_file *f, const char *path, const char *notes, sc_plan *p, char *why,
                size_t wn, char *assumed, size_t an, int *bad, sc_error *err) {
  int rc = layout_etp(f, path, notes, p, why, wn, bad, err);
  if (!rc) rc = layout_pp(f, path, notes, p, why, wn, assumed, an, bad, err);
  if (rc) return rc;
  layout_hsdp(f, notes, p, assumed, an);
  layout_sp(f, notes, p, assumed, an);
  /* torchtitan calls F.scaled_dot_product_attention, whose flash backend
   * is FlashAttention-2, unless the notes name a kernel */
  if (rowtext_has(notes, "torchtitan") && p->attention == SC_ATTN_UNFUSED) {
    p->flash_attention = 1;
    p->attention = SC_ATTN_FLASH2;
  }
  return SC_OK;
}

/* ----------------------------------------------------------- the blanks */

/* The one blank degree of tp, pp and cp that makes tp x pp x dp x cp equal
 * gpus (dp and gpus given): set in *p and said in assumed. Nothing when
 * none or several are blank, or when gpus does not divide. */
static void derive_degree(const csv_file *f, sc_plan *p, int gpus, char *assumed, size_t an) {
  static const char *const name[] = {"tp", "pp", "cp"};
  int *deg[] = {&p->tp, &p->pp, &p->cp};
  int which = -1;
  for (int i = 0; i < 3; i++)
    if (blank(f, name[i])) {
      if (which >= 0) return;
      which = i;
    }
  if (which < 0 || p->dp < 1) return;
  long rest = p->dp;
  for (int i = 0; i < 3; i++)
    if (i != which) rest *= *deg[i] > 0 ? *deg[i] : 1;
  if (rest * *deg[which] == gpus || gpus % rest) return;
  *deg[which] = (int)(gpus / rest);
  rowv_note(assumed, an, "%s %d = gpus/(the other degrees) (blank)", name[which], *deg[which]);
}

int rowt_gpus(const csv_file *f, sc_plan *p, int *gpus, char *why, size_t wn, char *assumed,
              size_t an) {
  if (!blank(f, "gpus")) {
    if (!blank(f, "dp")) derive_degree(f, p, *gpus, assumed, an);
    return SC_OK;
  }
  if (p->dp < 1)
    return snprintf(why, wn, "gpus and dp are blank: nothing gives the GPU count"), SC_EMODEL;
  long n = (long)p->tp * p->pp * p->dp * (p->cp > 0 ? p->cp : 1);
  if (n > 1L << 24) return snprintf(why, wn, "gpus blank and tp x pp x dp x cp = %ld", n), SC_EMODEL;
  *gpus = (int)n;
  rowv_note(assumed, an, "gpus %d = tp*pp*dp*cp (blank)", *gpus);
  return SC_OK;
}

void rowt_node(const csv_file *f, sc_cluster *cl, char *assumed, size_t an) {
  int gpn, domain;
  const char *ref = rowd_reference_node(cl->gpu.name, &gpn, &domain);
  if (blank(f, "gpus_per_node")) cl->gpus_per_node = gpn;
  if (!blank(f, "nvlink_domain")) return;
  cl->nvlink_domain = cl->gpus_per_node;
  if (!ref || domain <= cl->gpus_per_node) return;
  cl->nvlink_domain = domain < cl->gpus ? domain : cl->gpus;
  rowv_note(assumed, an, "NVLink domain %d of %s (blank)", cl->nvlink_domain, ref);
}

/* Append ", " (when *list is not empty) and the formatted item to list. */
static void item(char *list, size_t cap, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void item(char *list, size_t cap, const char *fmt, ...) {
  size_t n = strlen(list);
  if (n && n + 2 < cap) n += (size_t)snprintf(list + n, cap - n, ", ");
  if (n + 1 >= cap) return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(list + n, cap - n, fmt, ap);
  va_end(ap);
}

void rowt_blank_notes(const csv_file *f, const sc_plan *p, const sc_cluster *cl, char *assumed,
                      size_t an) {
  static const char *const ones[] = {"tp", "pp", "cp", "ep"};
  char list[160] = "", deg[24] = "";
  if (blank(f, "recompute")) item(list, sizeof list, "recompute none");
  const int val[] = {p->tp, p->pp, p->cp, p->ep}; /* a derived one is said by rowt_gpus */
  for (size_t i = 0; i < sizeof ones / sizeof ones[0]; i++)
    if (blank(f, ones[i]) && val[i] <= 1) snprintf(deg + strlen(deg), sizeof deg - strlen(deg), "%s%s", *deg ? "/" : "", ones[i]);
  if (*deg) item(list, sizeof list, "%s 1", deg);
  if (blank(f, "dp")) item(list, sizeof list, "dp = gpus/(tp*pp*cp)");
  if (blank(f, "micro_batch"))
    item(list, sizeof list, "micro_batch %s", p->pp > 1 ? "1" : "= replica batch");
  if (blank(f, "gpus_per_node")) item(list, sizeof list, "%d GPUs per node", cl->gpus_per_node);
  if (blank(f, "nvlink_GBps"))
    item(list, sizeof list, "nvlink_GBps %.0f of the GPU", cl->nvlink_bw / 1e9);
  if (*list) rowv_note(assumed, an, "blank: %s", list);
}
