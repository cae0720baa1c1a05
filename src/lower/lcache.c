/*
 * lcache.c -- a memo of lowered plans; see lcache.h.
 *
 * A set-associative table: the hash of a key's plan picks a set of
 * LCACHE_WAYS slots; a key is found by its hash and then compared byte for
 * byte with the plan, and the rest of the scenario with the memo's
 * context (lcache.ctx, which every used slot shares), so a hit is exactly
 * the scenario lowered before (two scenarios that differ only in padding
 * bytes are a miss, never a wrong hit). A look-up reads the slot headers
 * of one set (a few cache lines) and the entry of a slot only when its
 * hash matches; an entry is allocated when its slot is first filled.
 */
#include "lower/lcache.h"

#include <assert.h>
#include <stddef.h>
#include <string.h>

#include "core/mem.h"
#include "core/memo.h"
#include "core/vec.h"

void lcache_init(lcache *c) { memset(c, 0, sizeof *c); }

void lcache_free(lcache *c) {
  segm_free(&c->segs);
  for (int i = 0; c->slots && i < LCACHE_SLOTS; i++)
    if (c->slots[i].e) {
      xg_free(&c->slots[i].e->x);
      mem_free(c->slots[i].e->full);
      mem_free(c->slots[i].e);
    }
  mem_free(c->slots);
  lcache_init(c);
}

void lcache_clear(lcache *c) {
  segm_clear(&c->segs);
  for (int i = 0; c->slots && i < LCACHE_SLOTS; i++) c->slots[i].used = 0;
  c->has_ctx = 0;
  c->hits = c->misses = 0;
  c->checked = 0;
}

/* 1 when the plan's ZeRO stage reaches the lowering only as the stage
 * recorded in each segment: no per-layer overrides (which may set their
 * own stage) and no HSDP shard under ZeRO 3 (which adds a replica group,
 * lower.c, groups()). */
static int zero_free(const sc_plan *p) {
  return p->n_overrides == 0 && !(p->zero >= 3 && p->fsdp_shard > 0);
}

/* 1 when the plan's recomputation mode reaches the lowering only as the
 * mode recorded in the segments of layer blocks: no overrides and
 * recompute_layers 0 (partial recomputation gives the first layers of
 * each chunk segments of their own). The selective modules
 * (recompute_modules) are the same for every mode: a selective plan's
 * tasks count their re-runs, and the engine uses those counts only when
 * the segment says selective. */
static int recompute_free(const sc_plan *p) {
  return p->n_overrides == 0 && p->recompute_layers == 0;
}

/* The memo's key of a resolved scenario's plan p (the rest of the
 * scenario is the memo's context): p without what the lowering does not
 * read (offload_layers) and, where zero_free and recompute_free, without
 * the ZeRO stage and the recomputation mode (written into the segments on
 * every hit, restamp). Copied byte for byte, padding included. */
static void key_of(const sc_plan *p, sc_plan *k) {
  memcpy(k, p, sizeof *k);
  k->offload_layers = 0;
  if (zero_free(p)) k->zero = 0;
  if (recompute_free(p)) k->recompute = SC_RECOMP_NONE;
}

/* A plan's bytes in four parts: the head (the plain fields), the
 * overrides, the middle (uneven stages, offloading) and the rest (the
 * explicit stage layout and what follows). The fields key_of sets aside
 * are in the head and the middle, so a look-up copies and normalises
 * those two (about 200 bytes, parts_of) and reads the arrays (most of
 * the 4 KiB scenario) where they are. */
#define OV offsetof(sc_plan, overrides)
#define MID offsetof(sc_plan, pp_first_layers)
#define LY offsetof(sc_plan, pp_layout)
_Static_assert(offsetof(sc_plan, zero) < OV && offsetof(sc_plan, recompute) < OV &&
                   offsetof(sc_plan, offload_layers) >= MID &&
                   offsetof(sc_plan, offload_layers) < LY && OV < MID && MID < LY,
               "lcache: a normalised field moved out of the plan's head or middle");

/* The head and middle of plan p into *k (the rest of *k is not set),
 * normalised as key_of does. */
static void parts_of(const sc_plan *p, sc_plan *k) {
  memcpy(k, p, OV);
  memcpy((char *)k + MID, (const char *)p + MID, LY - MID);
  k->offload_layers = 0;
  if (zero_free(p)) k->zero = 0;
  if (recompute_free(p)) k->recompute = SC_RECOMP_NONE;
}

/* Where the plan's stage layout ends. An entry keeps a plan's head, middle
 * and what follows the layout (LCACHE_KEY bytes); its overrides and stage
 * layout, all zero bytes in a search, only where they are not. */
#define AFTER_LY (LY + sizeof(((sc_plan *)0)->pp_layout))
_Static_assert(LCACHE_KEY == OV + (LY - MID) + (sizeof(sc_plan) - AFTER_LY),
               "lcache: a plan's key bytes are its head, middle and tail");
static const unsigned char zeros[sizeof(((sc_plan *)0)->overrides)];
_Static_assert(sizeof zeros >= sizeof(((sc_plan *)0)->pp_layout), "lcache: zeros too short");

/* 1 when p's overrides and stage layout are all zero bytes. */
static int plain(const sc_plan *p) {
  return !memcmp(p->overrides, zeros, sizeof p->overrides) &&
         !memcmp(p->pp_layout, zeros, sizeof p->pp_layout);
}

/* The entry's key bytes of plan p, given k = parts_of(p): k's head and
 * middle, and p's tail after the stage layout. */
static void pack(const sc_plan *k, const sc_plan *p, unsigned char *out) {
  memcpy(out, k, OV);
  memcpy(out + OV, (const char *)k + MID, LY - MID);
  memcpy(out + OV + (LY - MID), (const char *)p + AFTER_LY, sizeof *p - AFTER_LY);
}

/* 1 when key (key_of of some plan) is key_of(p), given k = parts_of(p):
 * key_of(p) is p with k's head and middle. */
static int key_is(const sc_plan *key, const sc_plan *p, const sc_plan *k) {
  const char *a = (const char *)key, *b = (const char *)p;
  return !memcmp(a, k, OV) && !memcmp(a + OV, b + OV, MID - OV) &&
         !memcmp(a + MID, (const char *)k + MID, LY - MID) &&
         !memcmp(a + LY, b + LY, sizeof(sc_plan) - LY);
}

/* Make s's bytes outside its plan the memo's context: when they differ
 * from the context's (another model or cluster), every slot is forgotten
 * (a search looks up one model and cluster throughout). */
static void set_context(lcache *c, const sc_scenario *s) {
  size_t at = offsetof(sc_scenario, plan), after = at + sizeof(sc_plan);
  const char *a = (const char *)&c->ctx, *b = (const char *)s;
  if (c->has_ctx && !memcmp(a, b, at) && !memcmp(a + after, b + after, sizeof *s - after))
    return;
  for (int i = 0; i < LCACHE_SLOTS; i++) c->slots[i].used = 0;
  memcpy(&c->ctx, s, sizeof *s);
  c->has_ctx = 1;
}

/* A hash of the normalised plan (k: its head and middle, p: the plan
 * itself for the arrays), the overrides and explicit stage layout only as
 * far as they are used (most of the plan's bytes are those arrays). The
 * model and cluster are a job's own and rarely differ; the byte
 * comparison decides. */
static uint64_t hash_plan(const sc_plan *k, const sc_plan *p) {
  const char *h0 = (const char *)k, *b = (const char *)p;
  size_t after_ly = LY + sizeof p->pp_layout;
  int n_ov = p->n_overrides > 0 && p->n_overrides <= SC_MAX_OVERRIDES ? p->n_overrides : 0;
  int n_ly = p->n_pp_layout > 0 && p->n_pp_layout <= SC_MAX_PP_LAYOUT ? p->n_pp_layout : 0;
  uint64_t h = memo_hash_bytes(14695981039346656037u, h0, OV);
  h = memo_hash_bytes(h, p->overrides, n_ov * sizeof p->overrides[0]);
  h = memo_hash_bytes(h, h0 + MID, LY - MID);
  h = memo_hash_bytes(h, p->pp_layout, n_ly * sizeof p->pp_layout[0]);
  h = memo_hash_bytes(h, b + after_ly, sizeof *p - after_ly);
  return h ^ (h >> 29);
}

/* The plan's ZeRO stage into every segment of x, its recomputation mode
 * into those of layer blocks (what lower_plan writes there when zero_free
 * and recompute_free: strat_of gives other blocks no recomputation, and a
 * re-layout segment none). */
static void restamp(xg *x, const sc_plan *p) {
  int z = zero_free(p), r = recompute_free(p);
  for (int i = 0; i < x->n_segs; i++) {
    if (z) x->segs[i].zero = p->zero;
    if (r && x->segs[i].role == WG_ROLE_LAYER) x->segs[i].recompute = p->recompute;
  }
}

/* Room in x's arrays for as many elements as `most` counts, exactly (no
 * doubling: the slots' arrays lie closer, and a thread touches fewer
 * pages). 0, or -1 when out of memory. */
static int presize(xg *x, const xg *most) {
  return vec_reserve((void **)&x->tasks, &x->cap_tasks, most->n_tasks, sizeof *x->tasks) ||
         vec_reserve((void **)&x->segs, &x->cap_segs, most->n_segs, sizeof *x->segs) ||
         vec_reserve((void **)&x->runs, &x->cap_runs, most->n_runs, sizeof *x->runs) ||
         vec_reserve((void **)&x->stages, &x->cap_stages, most->n_stages, sizeof *x->stages) ||
         vec_reserve((void **)&x->groups, &x->cap_groups, most->n_groups, sizeof *x->groups);
}

/* The entry of slot sl, allocated on its first use: 0, or -1 when out of
 * memory. */
static int entry_of(lcache_slot *sl) {
  if (sl->e) return 0;
  if (!(sl->e = mem_alloc(sizeof *sl->e))) return -1;
  sl->e->full = NULL;
  xg_init(&sl->e->x);
  return 0;
}

/* 1 when entry e's key is plan p's (normalised), given whether p is plain,
 * its packed key bytes and k = parts_of(p). */
static int entry_is(const lcache_entry *e, int is_plain, const unsigned char *packed,
                    const sc_plan *p, const sc_plan *k) {
  return e->plain == is_plain && !memcmp(e->key, packed, LCACHE_KEY) &&
         (is_plain || key_is(e->full, p, k));
}

/* Plan p (packed key bytes, plain or not) as entry e's key: 0, or -1 when
 * out of memory (the whole plan of one not plain is kept beside). */
static int set_key(lcache_entry *e, int is_plain, const unsigned char *packed, const sc_plan *p) {
  memcpy(e->key, packed, LCACHE_KEY);
  e->plain = is_plain;
  if (is_plain) return 0;
  if (!e->full && !(e->full = mem_alloc(sizeof *e->full))) return -1;
  key_of(p, e->full);
  return 0;
}

/* Raise most's counts to x's. */
static void note_most(xg *most, const xg *x) {
  if (x->n_tasks > most->n_tasks) most->n_tasks = x->n_tasks;
  if (x->n_segs > most->n_segs) most->n_segs = x->n_segs;
  if (x->n_runs > most->n_runs) most->n_runs = x->n_runs;
  if (x->n_stages > most->n_stages) most->n_stages = x->n_stages;
  if (x->n_groups > most->n_groups) most->n_groups = x->n_groups;
}

/* SC_DEBUG_CHECKS: of the misses that took segments from the memo of
 * segments, every this many is lowered again without it and compared (a
 * sample: a debug build's search stays affordable). */
#define SEGM_CHECK_EVERY 4

#ifdef SC_DEBUG_CHECKS
/* Lower s again on its own and compare with the remembered graph: SC_OK,
 * or what the second lowering failed with (out of memory: reported like
 * any other allocation of the call, so that fault injection sees every
 * failure reported). A plan the memo holds lowers, so any other error is
 * the memo's. */
static int recheck(const wg_graph *g, const sc_scenario *s, lower_scratch *scr, const xg *got,
                   sc_error *err) {
  xg fresh;
  xg_init(&fresh);
  int rc = lower_plan(g, s, scr, &fresh, err);
  assert(rc == SC_ENOMEM || (rc == SC_OK && lcache_xg_equal(&fresh, got)));
  xg_free(&fresh);
  return rc;
}
#endif

int lcache_lower(lcache *c, const wg_graph *g, const sc_scenario *s, lower_scratch *scr,
                 const xg **out, sc_error *err) {
  *out = NULL;
  if (!c->slots && !(c->slots = mem_calloc(LCACHE_SLOTS, sizeof *c->slots)))
    return sc_error_set(err, SC_ENOMEM, "out of memory remembering lowered plans");
  set_context(c, s);
  sc_plan k;
  parts_of(&s->plan, &k);
  uint64_t h = hash_plan(&k, &s->plan);
  int is_plain = plain(&s->plan);
  unsigned char packed[LCACHE_KEY];
  pack(&k, &s->plan, packed);
  lcache_slot *set = &c->slots[(size_t)(h & (LCACHE_SETS - 1)) * LCACHE_WAYS], *victim = set;
  c->clock++;
  for (int w = 0; w < LCACHE_WAYS; w++) {
    lcache_slot *sl = &set[w];
    if (sl->used && sl->hash == h && entry_is(sl->e, is_plain, packed, &s->plan, &k)) {
      sl->stamp = c->clock;
      restamp(&sl->e->x, &s->plan);
#ifdef SC_DEBUG_CHECKS
      int rc = recheck(g, s, scr, &sl->e->x, err);
      if (rc != SC_OK) return rc;
#endif
      c->hits++;
      *out = &sl->e->x;
      return SC_OK;
    }
    if (!sl->used || (victim->used && sl->stamp < victim->stamp)) victim = sl;
  }
  c->misses++;
  victim->used = 0;
  if (entry_of(victim) || presize(&victim->e->x, &c->most) ||
      set_key(victim->e, is_plain, packed, &s->plan))
    return sc_error_set(err, SC_ENOMEM, "out of memory remembering lowered plans");
  xg *x = &victim->e->x;
  long seg_hits = c->segs.hits;
  int rc = lower_plan_memo(g, s, scr, &c->segs, x, err);
  if (rc != SC_OK) return rc;
#ifdef SC_DEBUG_CHECKS
  if (c->segs.hits > seg_hits && c->checked++ % SEGM_CHECK_EVERY == 0 &&
      (rc = recheck(g, s, scr, x, err)) != SC_OK)
    return rc;
#else
  (void)seg_hits;
#endif
  note_most(&c->most, x);
  victim->used = 1;
  victim->hash = h;
  victim->stamp = c->clock;
  *out = x;
  return SC_OK;
}

/* ------------------------------------------------------- comparison */

/* The comparison names every field: a new field must be added below
 * (xg_segment.memo_id, a tag of the memo of segments, is not compared:
 * the same graph lowered with or without that memo). */
_Static_assert(sizeof(xg_task) == 192 && sizeof(xg_segment) == 160 && sizeof(xg_stage) == 32 &&
                   sizeof(xg_run) == 8 && sizeof(xg_group) == 12,
               "lcache_xg_equal compares the execution graph field by field: update it");

/* Field f the same bit for bit in *a and *b. */
#define SAME(f) (memcmp(&a->f, &b->f, sizeof a->f) == 0)

static int task_equal(const xg_task *a, const xg_task *b) {
  return SAME(prefix) && SAME(name) && SAME(kind) && SAME(stream) && SAME(op) && SAME(dtype) &&
         SAME(m) && SAME(n) && SAME(k) && SAME(batch) && SAME(flops) && SAME(sq) && SAME(d) &&
         SAME(causal) && SAME(bytes) && SAME(bwd_scale) && SAME(comm_scale) &&
         SAME(host_fwd) && SAME(host_bwd) && SAME(recompute_sel) && SAME(coll) &&
         SAME(group) && SAME(overlap) && SAME(wgrad) && SAME(flex) && SAME(shared) && SAME(flex_inter) &&
         SAME(dep);
}

static int seg_equal(const xg_segment *a, const xg_segment *b) {
  return SAME(block) && SAME(first_task) && SAME(n_tasks) && SAME(tp) && SAME(cp) && SAME(ep) &&
         SAME(sp) && SAME(zero) && SAME(recompute) && SAME(hp) && SAME(etp) && SAME(role) &&
         SAME(dp_group) && SAME(rep_group) && SAME(shard) && SAME(params) &&
         SAME(edp_group) && SAME(eshard) && SAME(params_expert) &&
         SAME(tied_params) && SAME(params_lp) && SAME(params_cast) && SAME(act_bytes) &&
         SAME(act_sel_bytes) && SAME(bwd_extra_bytes) && SAME(recomp_depth) &&
         SAME(input_bytes);
}

static int stage_equal(const xg_stage *a, const xg_stage *b) {
  return SAME(first_run) && SAME(n_runs) && SAME(same_as) && SAME(params) && SAME(layers);
}

int lcache_xg_equal(const xg *a, const xg *b) {
  if (!(SAME(n_tasks) && SAME(n_segs) && SAME(n_runs) && SAME(n_stages) && SAME(n_groups) &&
        SAME(micro_batches) && SAME(vpp) && SAME(pp_group) && SAME(p2p_bytes)))
    return 0;
  for (int i = 0; i < a->n_tasks; i++)
    if (!task_equal(&a->tasks[i], &b->tasks[i])) return 0;
  for (int i = 0; i < a->n_segs; i++)
    if (!seg_equal(&a->segs[i], &b->segs[i])) return 0;
  for (int i = 0; i < a->n_runs; i++)
    if (a->runs[i].segment != b->runs[i].segment || a->runs[i].count != b->runs[i].count)
      return 0;
  for (int i = 0; i < a->n_stages; i++)
    if (!stage_equal(&a->stages[i], &b->stages[i])) return 0;
  for (int i = 0; i < a->n_groups; i++) {
    const xg_group *p = &a->groups[i], *q = &b->groups[i];
    if (p->kind != q->kind || p->ranks != q->ranks || p->stride != q->stride) return 0;
  }
  return 1;
}
