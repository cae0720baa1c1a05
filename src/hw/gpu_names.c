/*
 * gpu_names.c -- see gpu_names.h.
 *
 * The text is cut into words at every character that is not a letter or a
 * digit ("Tesla V100-SXM2-16GB" -> tesla, v100, sxm2, 16gb); each word is
 * a brand word or a count ("8x": ignored), a GPU model, a form factor, a memory size
 * ("80gb", "80g", or "80" followed by "gb"), a memory type, or unknown.
 * The model picks the rows of `parts` below; what else the text states
 * filters them; the first row left is the answer. The rows of one model
 * are in the order of the documented defaults.
 */
#include "hw/gpu_names.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define MAX_WORDS 12
#define WORD_LEN 24

/* One GPU part: the words that name it and its preset. form "" and mem 0
 * are not checked against the text (the part comes in one form or size,
 * or the text's figure is a module's: MI250X); memtype "" likewise. */
typedef struct part {
  const char *model;   /* the model word, lower case ("a100", "rtx6000ada") */
  const char *form;    /* sxm2..sxm6, pcie, nvl, nvl72, oam, or "" */
  int mem_gb;          /* memory as the datasheet names it, GB; 0 = any */
  const char *memtype; /* hbm2e, hbm3, hbm3e, ... or "" */
  const char *preset;  /* the preset id */
  const char *note;    /* always said when this part is read from text */
} part;

/* The first row of a model is its default; then the rows in the order a
 * half-stated text falls to them (the SXM part before the PCIe one, the
 * larger memory first: docs/input.md "GPU names"). */
static const part parts[] = {
    {"k80", "pcie", 0, "", "k80", "one GK210 die per GPU"},
    {"p100", "pcie", 16, "", "p100-pcie-16gb", NULL}, /* the set id `p100`'s reading */
    {"p100", "sxm2", 16, "", "p100-sxm2-16gb", NULL},
    {"v100", "sxm2", 32, "", "v100-sxm2-32gb", NULL},
    {"v100", "sxm2", 16, "", "v100-sxm2-16gb", NULL},
    {"v100", "sxm3", 32, "", "v100-sxm3-32gb", NULL},
    {"v100", "pcie", 32, "", "v100-pcie-32gb", NULL},
    {"v100", "pcie", 16, "", "v100-pcie-16gb", NULL},
    {"v100s", "pcie", 32, "", "v100s-pcie-32gb", NULL},
    {"a100", "sxm4", 80, "", "a100-sxm4-80gb", NULL},
    {"a100", "sxm4", 40, "", "a100-sxm4-40gb", NULL},
    {"a100", "pcie", 80, "", "a100-pcie-80gb", NULL},
    {"a100", "pcie", 40, "", "a100-pcie-40gb", NULL},
    {"a800", "sxm4", 80, "", "a800-sxm4-80gb", NULL},
    {"a800", "pcie", 80, "", "a800-pcie-80gb", NULL},
    {"a30", "pcie", 24, "", "a30-pcie-24gb", NULL},
    {"a40", "pcie", 48, "", "a40-pcie-48gb", NULL},
    {"a10", "pcie", 24, "", "a10", NULL},
    {"a10g", "", 24, "", "a10", "no public A10G datasheet: the A10's figures"},
    {"a5000", "pcie", 24, "", "rtx-a5000", NULL},
    {"a6000", "pcie", 48, "", "rtx-a6000", NULL},
    {"rtx6000ada", "pcie", 48, "", "rtx-6000-ada", NULL},
    {"4090", "pcie", 24, "", "rtx-4090", NULL},
    {"3090", "pcie", 24, "", "rtx-3090", NULL},
    {"l4", "pcie", 24, "", "l4", NULL},
    {"l40", "pcie", 48, "", "l40", NULL},
    {"l40s", "pcie", 48, "", "l40s", NULL},
    {"t4", "pcie", 16, "", "t4", NULL},
    {"h100", "sxm5", 80, "hbm3", "h100-sxm5-80gb", NULL},
    {"h100", "sxm5", 96, "hbm3", "h100-sxm5-96gb", NULL},
    {"h100", "nvl", 94, "hbm3", "h100-nvl-94gb", NULL},
    {"h100", "pcie", 80, "hbm2e", "h100-pcie-80gb", NULL},
    {"h800", "sxm5", 80, "hbm3", "h800", NULL},
    {"h200", "sxm5", 141, "hbm3e", "h200", NULL},
    {"gh200", "", 144, "hbm3e", "gh200-144gb", NULL},
    {"gh200", "", 96, "hbm3", "gh200-96gb", NULL},
    {"b200", "sxm6", 0, "", "b200", NULL},
    {"gb200", "nvl72", 0, "", "gb200", NULL},
    {"b300", "sxm6", 0, "", "b300", NULL},
    {"gb300", "nvl72", 0, "", "gb300", NULL},
    {"mi250x", "oam", 0, "", "mi250x", "one GCD, half a module, per GPU"},
    {"mi250", "oam", 0, "", "mi250", "one GCD, half a module, per GPU"},
    {"mi300x", "oam", 192, "", "mi300x", NULL},
    {"mi325x", "oam", 256, "", "mi325x", NULL},
    {"mi350x", "oam", 288, "", "mi350x", NULL},
    {"mi355x", "oam", 288, "", "mi355x", NULL},
};
#define N_PARTS (sizeof parts / sizeof parts[0])

/* Brand and filler words: they name no part. */
static const char *const brand_words[] = {
    "nvidia", "amd",  "tesla",  "instinct", "geforce",    "quadro",   "rtx", "gpu",
    "tensor", "core", "hopper", "grace",    "superchip", "generation", "ada", "gcd"};

static const char *const memtypes[] = {"hbm2", "hbm2e", "hbm3", "hbm3e", "gddr6", "gddr6x"};

/* What the text states. */
typedef struct said {
  const char *model;   /* a parts[].model, or NULL */
  char form[8];        /* "" = not said; "sxm" = SXM of any generation */
  int soft_sxm;        /* "DGX"/"HGX": SXM parts where the model has them */
  int mem_gb;          /* 0 = not said */
  char memtype[8];     /* "" = not said */
} said;

static int in_list(const char *w, const char *const *list, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (!strcmp(w, list[i])) return 1;
  return 0;
}

/* 1 when w is a count ("8x" in "8x A100"): it names no part. */
static int count_word(const char *w) {
  size_t d = strspn(w, "0123456789");
  return d > 0 && w[d] == 'x' && w[d + 1] == '\0';
}

/* Cut text into lower-case words; the count, or -1 when there are more
 * than `max` or one is longer than WORD_LEN - 1. */
static int split_words(const char *text, char w[][WORD_LEN], int max) {
  int n = 0;
  for (const char *p = text; *p;) {
    if (!isalnum((unsigned char)*p)) { p++; continue; }
    if (n == max) return -1;
    size_t len = 0;
    while (isalnum((unsigned char)*p)) {
      if (len == WORD_LEN - 1) return -1;
      w[n][len++] = (char)tolower((unsigned char)*p++);
    }
    w[n++][len] = '\0';
  }
  return n;
}

/* A memory size word ("80gb", "80g", "80gib"): its GB, else 0. When the
 * word is a bare number and `next` is "gb", "g" or "gib", that too. */
static int mem_word(const char *w, const char *next, int *used_next) {
  char *end;
  long v = strtol(w, &end, 10);
  *used_next = 0;
  if (end == w || v <= 0 || v > 100000) return 0;
  if (!strcmp(end, "gb") || !strcmp(end, "g") || !strcmp(end, "gib")) return (int)v;
  if (*end == '\0' && next && (!strcmp(next, "gb") || !strcmp(next, "g") || !strcmp(next, "gib")))
    return *used_next = 1, (int)v;
  return 0;
}

/* A form-factor word into s->form; 1 when w is one. */
static int form_word(const char *w, const char *next, int *used_next, said *s) {
  *used_next = 0;
  if (!strcmp(w, "dgx") || !strcmp(w, "hgx")) return s->soft_sxm = 1;
  if (!strcmp(w, "pci") && next && !strcmp(next, "e")) *used_next = 1, w = "pcie";
  if (!strcmp(w, "pci") && next && !strcmp(next, "express")) *used_next = 1, w = "pcie";
  int sxm = !strncmp(w, "sxm", 3) && (w[3] == '\0' || (w[3] >= '2' && w[3] <= '6' && !w[4]));
  if (!sxm && strcmp(w, "pcie") && strcmp(w, "nvl") && strcmp(w, "nvl72") && strcmp(w, "nvl36") &&
      strcmp(w, "oam"))
    return 0;
  snprintf(s->form, sizeof s->form, "%s", strcmp(w, "nvl36") ? w : "nvl72");
  return 1;
}

/* The part model word w names (as parts[].model), or NULL. */
static const char *model_word(const char *w) {
  for (size_t i = 0; i < N_PARTS; i++)
    if (!strcmp(w, parts[i].model)) return parts[i].model;
  return NULL;
}

/* Read the words into *s; 0 when one is unknown, a second model, or a
 * second, different memory size or form factor. */
static int read_words(char w[][WORD_LEN], int n, said *s) {
  memset(s, 0, sizeof *s);
  for (int i = 0; i < n; i++) {
    const char *next = i + 1 < n ? w[i + 1] : NULL;
    int used = 0, gb;
    const char *m;
    char before[8];
    snprintf(before, sizeof before, "%s", s->form);
    if (in_list(w[i], brand_words, sizeof brand_words / sizeof brand_words[0]) || count_word(w[i]))
      continue;
    if (!strcmp(w[i], "6000") && next && !strcmp(next, "ada"))
      m = model_word("rtx6000ada"), used = 1; /* "RTX 6000 Ada" */
    else
      m = model_word(w[i]);
    if (m) {
      if (s->model) return 0;
      s->model = m;
    } else if ((gb = mem_word(w[i], next, &used)) > 0) {
      if (s->mem_gb && s->mem_gb != gb) return 0;
      s->mem_gb = gb;
    } else if (in_list(w[i], memtypes, sizeof memtypes / sizeof memtypes[0])) {
      snprintf(s->memtype, sizeof s->memtype, "%s", w[i]);
    } else if (form_word(w[i], next, &used, s)) {
      if (*before && s->form[0] && strcmp(before, s->form)) return 0;
    } else {
      return 0;
    }
    i += used;
  }
  return s->model != NULL;
}

/* 1 when part p has the form the text states. */
static int form_fits(const part *p, const char *form) {
  if (!*form) return 1;
  if (!strcmp(form, "sxm")) return !strncmp(p->form, "sxm", 3);
  return !strcmp(p->form, form);
}

/* 1 when part p fits everything the text states. */
static int fits(const part *p, const said *s) {
  return p->model == s->model && form_fits(p, s->form) &&
         (!s->mem_gb || !p->mem_gb || p->mem_gb == s->mem_gb) &&
         (!s->memtype[0] || !p->memtype[0] || !strcmp(p->memtype, s->memtype));
}

/* The parts that fit s into out (indices); their count. DGX/HGX keep the
 * SXM parts (and rack parts) when there are any. */
static int candidates(const said *s, int *out) {
  int n = 0, n_sxm = 0;
  for (size_t i = 0; i < N_PARTS; i++)
    if (fits(&parts[i], s)) {
      out[n++] = (int)i;
      n_sxm += !strncmp(parts[i].form, "sxm", 3) || !strcmp(parts[i].form, "nvl72");
    }
  if (!s->soft_sxm || n_sxm == 0) return n;
  int k = 0;
  for (int i = 0; i < n; i++)
    if (!strncmp(parts[out[i]].form, "sxm", 3) || !strcmp(parts[out[i]].form, "nvl72"))
      out[k++] = out[i];
  return k;
}

/* Write what the text left open among the candidates c[0..n) and the
 * chosen part's own note. */
static void write_note(const char *text, const int *c, int n, char *note, size_t len) {
  const part *p = &parts[c[0]];
  int form = 0, mem = 0;
  for (int i = 1; i < n; i++) {
    form |= strcmp(parts[c[i]].form, p->form) != 0;
    mem |= parts[c[i]].mem_gb != p->mem_gb;
  }
  const char *open = form && mem ? "form factor, memory" : form ? "form factor" : "memory";
  if (n > 1 && p->note)
    snprintf(note, len, "'%.32s' read as %s (%s not stated; %s)", text, p->preset, open, p->note);
  else if (n > 1)
    snprintf(note, len, "'%.32s' read as %s (%s not stated)", text, p->preset, open);
  else if (p->note)
    snprintf(note, len, "'%.32s' read as %s (%s)", text, p->preset, p->note);
}

const sc_gpu *gpun_resolve(const char *text, char *note, size_t n) {
  char buf[2];
  if (!note || n == 0) note = buf, n = sizeof buf;
  note[0] = '\0';
  if (!text || !*text) return NULL;
  const sc_gpu *g = sc_gpu_preset(text);
  if (g) return g;
  char w[MAX_WORDS][WORD_LEN];
  said s;
  int nw = split_words(text, w, MAX_WORDS);
  if (nw <= 0 || !read_words(w, nw, &s)) return NULL;
  int c[N_PARTS];
  int nc = candidates(&s, c);
  if (nc == 0) return NULL;
  g = sc_gpu_preset(parts[c[0]].preset);
  if (g) write_note(text, c, nc, note, n);
  return g;
}
