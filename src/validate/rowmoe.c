/*
 * rowmoe.c -- see rowmoe.h.
 */
#include "validate/rowmoe.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* The first place in hay where needle starts, ignoring case, or NULL. */
static const char *find(const char *hay, const char *needle) {
  size_t n = strlen(needle);
  for (; *hay; hay++)
    if (strncasecmp(hay, needle, n) == 0) return hay;
  return NULL;
}

/* 1 when one of the names starts within `span` characters of p (p's
 * string may end sooner). */
static int near(const char *p, size_t span, const char *const *names, int n) {
  for (size_t i = 0; i < span && p[i]; i++)
    for (int k = 0; k < n; k++)
      if (strncasecmp(p + i, names[k], strlen(names[k])) == 0) return 1;
  return 0;
}

/* The dispatcher the notes name, or -1. */
static int named_dispatcher(const char *notes) {
  static const char *const flex[] = {"flex", "deepep", "hybridep"};
  static const char *const a2a[] = {"alltoall", "all-to-all", "all_to_all"};
  static const char *const ag[] = {"allgather", "all-gather", "all_gather"};
  if (find(notes, "deepep") || find(notes, "hybridep")) return SC_MOE_FLEX;
  /* within 24 characters before or after the word ("flex dispatcher",
   * "dispatcher type: alltoall") */
  for (const char *d = find(notes, "dispatcher"); d; d = find(d + 1, "dispatcher")) {
    const char *p = d - notes > 24 ? d - 24 : notes;
    size_t span = (size_t)(d - p) + strlen("dispatcher") + 24;
    if (near(p, span, flex, 3)) return SC_MOE_FLEX;
    if (near(p, span, a2a, 3)) return SC_MOE_ALLTOALL;
    if (near(p, span, ag, 3)) return SC_MOE_ALLGATHER;
  }
  return -1;
}

/* The integer after `key` (and any of " :=") in the notes, either
 * spelling of key's underscores; 0 when absent. */
static int number_after(const char *notes, const char *key_us, const char *key_dash) {
  const char *k = find(notes, key_us);
  size_t n = strlen(key_us);
  if (!k) k = find(notes, key_dash), n = strlen(key_dash);
  if (!k) return 0;
  const char *p = k + n;
  while (*p == ' ' || *p == ':' || *p == '=') p++;
  if (!isdigit((unsigned char)*p)) return 0;
  long v = strtol(p, NULL, 10);
  return v > 0 && v < 1 << 16 ? (int)v : 0;
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
  p->moe_dispatcher = SC_MOE_ALLGATHER; /* Megatron's moe_token_dispatcher_type */
  return 1;
}

/* A whole number in text, 0 when blank or not one. */
static int cell_int(const char *text) {
  char *end;
  long v = strtol(text, &end, 10);
  return end != text && *end == '\0' && v > 0 && v < 1 << 16 ? (int)v : 0;
}

int rowm_moe_columns(const char *notes, const char *dispatcher, const char *groups,
                     const char *group_topk, rowd_framework fw, sc_plan *p) {
  int dflt = rowm_moe(notes, fw, p);
  static const char *const flex[] = {"flex", "deepep", "hybridep"};
  static const char *const a2a[] = {"alltoall", "all-to-all", "all_to_all"};
  static const char *const ag[] = {"allgather", "all-gather", "all_gather"};
  size_t n = strlen(dispatcher);
  if (near(dispatcher, n, flex, 3)) p->moe_dispatcher = SC_MOE_FLEX, dflt = 0;
  else if (near(dispatcher, n, a2a, 3)) p->moe_dispatcher = SC_MOE_ALLTOALL, dflt = 0;
  else if (near(dispatcher, n, ag, 3)) p->moe_dispatcher = SC_MOE_ALLGATHER, dflt = 0;
  if (cell_int(groups)) p->moe_router_groups = cell_int(groups);
  if (cell_int(group_topk)) p->moe_router_group_topk = cell_int(group_topk);
  return dflt;
}
