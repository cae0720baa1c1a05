/*
 * rejects.c -- the reasons no plan of a search was valid (rejects.h).
 */
#include <stdio.h>
#include <string.h>

#include "core/mem.h"
#include "search/rejects.h"

/* Distinct reasons tracked (the first SC_SEARCH_REASONS by count are
 * reported). */
#define REJECTS_KEYS 32

typedef struct reason {
  char key[64];          /* the message up to its first ':' */
  long count;
  char example[sizeof ((sc_error *)0)->msg];
} reason;

/* The key of message msg into key: its text before the first ':' (the
 * key path every plan check starts with), or the first 63 bytes. */
static void key_of(const char *msg, char *key, size_t cap) {
  size_t n = strcspn(msg, ":\n");
  if (n >= cap) n = cap - 1;
  memcpy(key, msg, n);
  key[n] = 0;
}

/* Count message msg under its key among rs[0..*n) (in the order met). */
static void count(reason *rs, int *n, const char *msg) {
  char key[64];
  key_of(msg, key, sizeof key);
  for (int i = 0; i < *n; i++)
    if (!strcmp(rs[i].key, key)) {
      rs[i].count++;
      return;
    }
  if (*n == REJECTS_KEYS) return; /* rare: more distinct keys than tracked */
  reason *r = &rs[(*n)++];
  memcpy(r->key, key, sizeof key);
  r->count = 1;
  snprintf(r->example, sizeof r->example, "%s", msg);
}

/* The n reasons of rs into st, most plans first (ties: met first). */
static void keep(reason *rs, int n, sc_search_stats *st) {
  st->n_reasons = 0;
  while (st->n_reasons < SC_SEARCH_REASONS) {
    int b = -1;
    for (int i = 0; i < n; i++)
      if (rs[i].count > 0 && (b < 0 || rs[i].count > rs[b].count)) b = i;
    if (b < 0) break;
    sc_search_reason *o = &st->reasons[st->n_reasons++];
    o->count = rs[b].count;
    memcpy(o->example, rs[b].example, sizeof o->example);
    rs[b].count = 0;
  }
}

int rejects_explain(sc_job *job, const space_pt *pts, long n, sc_search_stats *st,
                    sc_error *err) {
  reason *rs = mem_alloc(sizeof *rs * REJECTS_KEYS);
  if (!rs) return sc_error_set(err, SC_ENOMEM, "out of memory explaining the rejected plans");
  int nr = 0, rc = SC_OK;
  long m = n < REJECTS_MAX ? n : REJECTS_MAX;
  for (long i = 0; i < m && rc == SC_OK; i++) {
    sc_memory mem;
    sc_error e = {0};
    space_apply(&pts[i], job_plan(job));
    int r = job_lower(job, NULL, &mem, &e);
    if (r == SC_EINPUT) count(rs, &nr, e.msg);
    else if (r != SC_OK) *err = e, rc = r;
  }
  if (rc == SC_OK) {
    st->rechecked = m;
    keep(rs, nr, st);
  }
  mem_free(rs);
  return rc;
}

/* Fixed degree `name` = v that cannot divide the GPUs: its message into
 * buf; 0 when it can (or is not fixed). */
static int bad_degree(const char *name, int v, int gpus, char *buf, size_t cap) {
  if (v <= 0 || gpus % v == 0) return 0;
  snprintf(buf, cap, "%s: %d does not divide the %d GPUs (cluster.gpus)", name, v, gpus);
  return 1;
}

/* The expert-parallel degree o->ep that no plan can have: its message. */
static int bad_ep(int ep, int experts, char *buf, size_t cap) {
  if (ep <= 1) return 0;
  if (experts <= 1)
    snprintf(buf, cap, "ep: %d on a model without experts; valid: 1", ep);
  else if (experts % ep || (ep & (ep - 1)))
    snprintf(buf, cap, "ep: %d; the search tries powers of two dividing the model's %d experts",
             ep, experts);
  else return 0;
  return 1;
}

/* Bits of mask (bit 63: "more") as a list into buf: the numbers, or (rec)
 * the recomputation kinds' names. */
static void list_of(uint64_t mask, int rec, char *buf, size_t cap) {
  size_t n = 0;
  buf[0] = 0;
  for (int b = 0; b < 64 && n < cap; b++) {
    if (!(mask >> b & 1)) continue;
    const char *sep = n ? (rec ? "," : ", ") : "";
    if (rec) n += (size_t)snprintf(buf + n, cap - n, "%s%s", sep, b < SPACE_RECOMP_KINDS ? space_recomp_names[b] : "?");
    else if (b < 63) n += (size_t)snprintf(buf + n, cap - n, "%s%d", sep, b);
    else n += (size_t)snprintf(buf + n, cap - n, "%smore above 62", sep);
  }
}

/* The fixed micro-batch, vpp or recomputation of o that empties base's
 * space while the degrees leave plans: its message into buf (the values
 * the other constraints allow); 0 when there is none such. */
static int bad_inner(const sc_scenario *base, const wg_graph *g, const sc_search_opts *o,
                     char *buf, size_t cap) {
  if (!o->micro_batch && !o->vpp && !o->recompute) return 0;
  sc_search_opts r = *o;
  uint64_t seen = 0;
  char valid[256], given[64];
  r.micro_batch = r.vpp = 0, r.recompute = 0;
  if (space_probe(base, g, &r, 0, &seen) == 0) return 0; /* the degrees' doing */
  r = *o, r.micro_batch = 0;
  if (o->micro_batch && space_probe(base, g, &r, SPACE_PROBE_MB, &seen) > 0) {
    list_of(seen, 0, valid, sizeof valid);
    snprintf(buf, cap, "micro_batch: %d (--mb) divides no plan's per-replica batch (global batch "
                       "%ld / dp) under the other constraints; valid there (up to "
                       "max_micro_batch %d): %s", o->micro_batch, base->plan.global_batch,
             o->max_micro_batch, valid);
    return 1;
  }
  r = *o, r.vpp = 0;
  if (o->vpp && space_probe(base, g, &r, SPACE_PROBE_VPP, &seen) > 0) {
    list_of(seen, 0, valid, sizeof valid);
    snprintf(buf, cap, "vpp: %d (--vpp) fits no plan under the other constraints (interleaving "
                       "needs pp > 1, vpp dividing every stage's layers and micro-batches in "
                       "groups of pp); valid there (up to max_vpp %d): %s", o->vpp, o->max_vpp,
             valid);
    return 1;
  }
  r = *o, r.recompute = 0;
  if (o->recompute && space_probe(base, g, &r, SPACE_PROBE_RECOMPUTE, &seen) > 0) {
    list_of(seen, 1, valid, sizeof valid);
    list_of(o->recompute, 1, given, sizeof given);
    int void_sel = (o->recompute & SC_SEARCH_RECOMP_SELECTIVE) && space_selective_void(base, g);
    snprintf(buf, cap, "recompute: no plan under the other constraints has %s (--recompute)%s; "
                       "valid there: %s", given,
             void_sel ? " (selective recomputation re-runs nothing in this model: its plans "
                        "are the none plans)" : "", valid);
    return 1;
  }
  snprintf(buf, cap, "the fixed micro-batch, vpp and recomputation: no plan under the "
                     "constraints given has them together, though each alone leaves plans");
  return 1;
}

void rejects_empty(const sc_scenario *base, const wg_graph *g, const sc_search_opts *o,
                   sc_search_stats *st) {
  char *m = st->reasons[0].example;
  size_t cap = sizeof st->reasons[0].example;
  int gpus = base->cluster.gpus;
  long gb = base->plan.global_batch;
  long long fixed = (long long)(o->tp ? o->tp : 1) * (o->pp ? o->pp : 1) * (o->cp ? o->cp : 1) *
                    (o->dp ? o->dp : 1);
  st->rechecked = 0;
  st->n_reasons = 1;
  st->reasons[0].count = 0;
  if (bad_degree("tp", o->tp, gpus, m, cap) || bad_degree("pp", o->pp, gpus, m, cap) ||
      bad_degree("cp", o->cp, gpus, m, cap) || bad_degree("dp", o->dp, gpus, m, cap) ||
      bad_ep(o->ep, space_experts(g), m, cap))
    return;
  if (o->pp > g->layers)
    snprintf(m, cap, "pp: %d stages for the model's %d layers", o->pp, g->layers);
  else if (o->dp > 0 && gb % o->dp)
    snprintf(m, cap, "dp: %d does not divide the global batch %ld (Megatron: micro-batch x dp "
                     "divides it)", o->dp, gb);
  else if (fixed > gpus || gpus % fixed)
    snprintf(m, cap, "the fixed degrees' product (tp x pp x cp x dp) %lld %s the %d GPUs "
                     "(cluster.gpus)", fixed, fixed > gpus ? "is more than" : "does not divide",
             gpus);
  else if (o->tp && o->pp && o->cp && o->dp) /* every degree fixed, their product short */
    snprintf(m, cap, "tp %d x pp %d x cp %d x dp %d = %lld GPUs, but cluster.gpus is %d; valid: "
                     "degrees whose product is %d", o->tp, o->pp, o->cp, o->dp, fixed, gpus, gpus);
  else if (bad_inner(base, g, o, m, cap))
    return;
  else if (o->tp && o->pp && o->dp) /* only cp left, and no cp fills the cluster */
    snprintf(m, cap, "tp %d x pp %d x dp %d = %lld GPUs leave cp %lld for the %d GPUs "
                     "(cluster.gpus), which no plan under the constraints given takes (cp splits "
                     "model.seq %d)", o->tp, o->pp, o->dp, fixed, gpus / fixed, gpus,
             base->model.kind == SC_MODEL_TRANSFORMER ? base->model.tf.seq : 0);
  else if (o->dp > 0)
    snprintf(m, cap, "no tp (powers of two up to max_tp %d), pp (up to max_pp %d) and cp leave "
                     "dp %d (dp = GPUs / (tp x pp x cp)) under the constraints given",
             o->max_tp, o->max_pp, o->dp);
  else
    snprintf(m, cap, "no tp (powers of two up to max_tp %d), pp (up to max_pp %d) and cp leave a "
                     "dp that divides the global batch %ld under the constraints given",
             o->max_tp, o->max_pp, gb);
}
