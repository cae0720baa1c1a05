/*
 * rowmoe.c -- see rowmoe.h. The row's text is read through rowtext.c.
 */
#include "validate/rowmoe.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "validate/rowtext.h"

/* The spellings of each dispatcher, in sc_moe_dispatcher order. */
static const char *const spell[][3] = {{"alltoall", "all-to-all", "all_to_all"},
                                       {"allgather", "all-gather", "all_gather"},
                                       {"flex", "deepep", "hybridep"}};

/* The dispatcher text names within 24 characters of the word
 * "dispatcher" (anchor) or anywhere (anchor NULL), flex first; -1 if none. */
static int dispatcher_in(const char *text, const char *anchor) {
  for (int d = SC_MOE_FLEX; d >= SC_MOE_ALLTOALL; d--)
    for (int i = 0; i < 3; i++)
      if (anchor ? rowtext_near(text, anchor, spell[d][i], 24) : rowtext_has(text, spell[d][i]))
        return d;
  return -1;
}

/* The dispatcher the notes name, or -1: DeepEP or HybridEP anywhere, else
 * a name near the word "dispatcher". */
static int named_dispatcher(const char *notes) {
  if (rowtext_has(notes, "deepep") || rowtext_has(notes, "hybridep")) return SC_MOE_FLEX;
  return dispatcher_in(notes, "dispatcher");
}

/* A positive whole number after key, with underscores or dashes, then an
 * optional ':' ("--moe-router-num-groups: 8", "num_groups=8"); 0 if none. */
static int number_after(const char *notes, const char *key_us, const char *key_dash) {
  const char *keys[4] = {key_us, key_dash, NULL, NULL};
  char colon[2][48];
  for (int i = 0; i < 2; i++) {
    snprintf(colon[i], sizeof colon[i], "%s:", keys[i]);
    keys[2 + i] = colon[i];
  }
  for (int i = 3; i >= 0; i--) {
    double v = rowtext_after(notes, keys[i], 0);
    if (v >= 1 && v < 1 << 16 && v == (int)v) return (int)v;
  }
  return 0;
}

int rowm_moe(const char *notes, rowd_framework fw, sc_plan *p) {
  p->moe_router_groups = number_after(notes, "num_groups", "num-groups");
  p->moe_router_group_topk = number_after(notes, "group_topk", "group-topk");
  int d = named_dispatcher(notes);
  if (d >= 0) {
    p->moe_dispatcher = (sc_moe_dispatcher)d;
    return 0;
  }
  if (fw == ROWD_FW_MAXTEXT) return 0; /* not Megatron: the scenario default */
  if (rowtext_word(notes, "nemo")) { /* not Nemotron, a model */
    /* NeMo's MoE model configs (MixtralConfig, DeepSeekConfig,
     * Qwen3MoEConfig in nemo/collections/llm/gpt/model/) set
     * moe_token_dispatcher_type = "alltoall" over Megatron-Core's
     * default; NeMo's source is not in ../shared (docs/accuracy.md). */
    p->moe_dispatcher = SC_MOE_ALLTOALL;
    return 1;
  }
  p->moe_dispatcher = SC_MOE_ALLGATHER; /* Megatron's moe_token_dispatcher_type */
  return 1;
}

/* A whole number in a cell, 0 when blank or not one. */
static int cell_int(const char *text) {
  char *end;
  long v = strtol(text, &end, 10);
  return end != text && *end == '\0' && v > 0 && v < 1 << 16 ? (int)v : 0;
}

int rowm_moe_columns(const char *notes, const char *dispatcher, const char *groups,
                     const char *group_topk, rowd_framework fw, sc_plan *p) {
  int dflt = rowm_moe(notes, fw, p);
  int d = dispatcher_in(dispatcher, NULL);
  if (d >= 0) p->moe_dispatcher = (sc_moe_dispatcher)d, dflt = 0;
  if (cell_int(groups)) p->moe_router_groups = cell_int(groups);
  if (cell_int(group_topk)) p->moe_router_group_topk = cell_int(group_topk);
  return dflt;
}
