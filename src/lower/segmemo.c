/*
 * segmemo.c -- a memo of lowered segments; see segmemo.h for what a
 * segment depends on and why the key covers it.
 *
 * Two tables: contexts, searched linearly once per plan that misses
 * lcache (16 entries: the normalised scenario, compared byte for byte
 * after a hash match, so a hit is exactly a scenario seen before; padding
 * bytes that differ give a miss, never a wrong hit), and segments (64
 * slots: context serial, block, reduced strategy), of which a look-up
 * scans only the current context's, listed when the context is found. A
 * context that is evicted empties its slots, which are reused first.
 */
#include "lower/segmemo.h"

#include <assert.h>
#include <stddef.h>
#include <string.h>

#include "core/mem.h"
#include "core/memo.h"
#include "core/vec.h"

void segm_init(segm *m) { memset(m, 0, sizeof *m); }

void segm_free(segm *m) {
  for (int i = 0; i < m->n_slots; i++) mem_free(m->slots[i].tasks);
  mem_free(m->slots);
  mem_free(m->ctxs);
  segm_init(m);
}

void segm_clear(segm *m) {
  for (int i = 0; i < m->n_slots; i++) m->slots[i].ctx = 0;
  m->n_ctxs = 0;
  m->cur = 0;
  m->n_cur = 0;
  m->hits = m->misses = 0;
}

/* ---------------------------------------------------------- contexts */

/* The fields of a plan lower_segment never reads (segmemo.h), set to
 * fixed values in p. */
static void normalise(sc_plan *p) {
  p->zero = 0;
  p->recompute = SC_RECOMP_NONE;
  p->vpp = 0;
  /* DualPipe's all-to-alls overlap as overlap_ep's do (lower.c): the
   * only thing lower_segment reads of the schedule */
  if (p->schedule == SC_SCHED_DUALPIPE) p->overlap_ep = 1;
  p->schedule = SC_SCHED_1F1B;
  p->recompute_layers = 0;
  p->offload_layers = 0;
}

/* The plan in three parts: the head (the plain fields, before the
 * overrides), the middle (between the overrides and the explicit stage
 * layout) and the rest. The fields normalise() sets are in the head and
 * the middle, so a look-up normalises a copy of those two (about 200 of
 * the plan's 2.3 KB) and compares the rest where it is. */
#define OV offsetof(sc_plan, overrides)
#define MID offsetof(sc_plan, pp_first_layers)
#define LY offsetof(sc_plan, pp_layout)
_Static_assert(offsetof(sc_plan, zero) < OV && offsetof(sc_plan, recompute) < OV &&
                   offsetof(sc_plan, vpp) < OV && offsetof(sc_plan, schedule) < OV &&
                   offsetof(sc_plan, offload_layers) >= MID &&
                   offsetof(sc_plan, offload_layers) < LY &&
                   offsetof(sc_plan, recompute_layers) >= MID &&
                   offsetof(sc_plan, recompute_layers) < LY && OV < MID && MID < LY,
               "segmemo: a normalised field moved out of the plan's head or middle");

/* The head and middle of plan p into *k (the rest of *k is not set),
 * normalised. */
static void parts_of(const sc_plan *p, sc_plan *k) {
  memcpy(k, p, OV);
  memcpy((char *)k + MID, (const char *)p + MID, LY - MID);
  normalise(k);
}

/* A hash of k's head and middle (the arrays, most of the plan's bytes,
 * are left to the byte comparison; the model and cluster are the job's). */
static uint64_t hash_parts(const sc_plan *k) {
  uint64_t h = memo_hash_bytes(14695981039346656037u, k, OV);
  h = memo_hash_bytes(h, (const char *)k + MID, LY - MID);
  return h ^ (h >> 29);
}

/* 1 when key (a context's: a scenario with its plan normalised) is s
 * normalised, given k = parts_of(s's plan). */
static int key_is(const sc_scenario *key, const sc_scenario *s, const sc_plan *k) {
  const char *a = (const char *)&key->plan, *b = (const char *)&s->plan;
  size_t at = offsetof(sc_scenario, plan), after = at + sizeof(sc_plan);
  return !memcmp(a, k, OV) && !memcmp(a + MID, (const char *)k + MID, LY - MID) &&
         !memcmp(a + OV, b + OV, MID - OV) && !memcmp(a + LY, b + LY, sizeof(sc_plan) - LY) &&
         !memcmp(key, s, at) &&
         !memcmp((const char *)key + after, (const char *)s + after, sizeof *s - after);
}

/* Empty the slots of context serial `serial` (evicted). */
static void drop_slots(segm *m, uint64_t serial) {
  for (int i = 0; i < m->n_slots; i++)
    if (m->slots[i].ctx == serial) m->slots[i].ctx = 0;
}

/* List the slots of the current context. */
static void list_slots(segm *m) {
  m->n_cur = 0;
  for (int i = 0; i < m->n_slots; i++)
    if (m->slots[i].ctx == m->cur) m->cur_slots[m->n_cur++] = i;
}

int segm_begin(segm *m, const sc_scenario *s) {
  m->cur = 0;
  m->n_cur = 0;
  if (!m->ctxs && !(m->ctxs = mem_alloc(SEGM_CONTEXTS * sizeof *m->ctxs))) return SC_ENOMEM;
  if (!m->slots && !(m->slots = mem_alloc(SEGM_SLOTS * sizeof *m->slots))) return SC_ENOMEM;
  m->clock++;
  sc_plan k;
  parts_of(&s->plan, &k);
  uint64_t h = hash_parts(&k);
  segm_ctx *victim = &m->ctxs[0];
  for (int i = 0; i < m->n_ctxs; i++) {
    segm_ctx *c = &m->ctxs[i];
    if (c->hash == h && key_is(&c->key, s, &k)) {
      c->stamp = m->clock;
      m->cur = c->serial;
      list_slots(m);
      return SC_OK;
    }
    if (c->stamp < victim->stamp) victim = c;
  }
  if (m->n_ctxs < SEGM_CONTEXTS) { /* a context never filled */
    victim = &m->ctxs[m->n_ctxs++];
    victim->serial = 0;
  }
  if (victim->serial) drop_slots(m, victim->serial);
  victim->serial = ++m->serials;
  victim->hash = h;
  victim->stamp = m->clock;
  victim->key = *s;
  memcpy(&victim->key.plan, &k, OV);
  memcpy((char *)&victim->key.plan + MID, (const char *)&k + MID, LY - MID);
  m->cur = victim->serial;
  return SC_OK;
}

/* ---------------------------------------------------------- segments */

/* The strategy as the memo keys it: the ZeRO stage only as "3 or not",
 * the recomputation mode set aside (segmemo.h). */
static strat key_strat(const strat *st) {
  strat k = *st;
  k.zero = st->zero >= 3 ? 3 : 0;
  k.recompute = SC_RECOMP_NONE;
  return k;
}

static segm_slot *find(segm *m, int b, const strat *k) {
  for (int i = 0; i < m->n_cur; i++) {
    segm_slot *sl = &m->slots[m->cur_slots[i]];
    if (sl->ctx == m->cur && sl->block == b && strat_equal(&sl->st, k)) return sl;
  }
  return NULL;
}

/* Index of a remembered group ordinal in x after the calls were replayed
 * into idx (-1 stays -1). */
static int mapped(const int *idx, int ordinal) { return ordinal < 0 ? ordinal : idx[ordinal]; }

int segm_fetch(segm *m, int b, const strat *st, xg *x) {
  if (!m->cur) return -1;
  strat k = key_strat(st);
  segm_slot *sl = find(m, b, &k);
  if (!sl) {
    m->misses++;
    return -1;
  }
  m->hits++;
  sl->stamp = m->clock;
  int idx[SEGM_CALLS];
  for (int i = 0; i < sl->n_calls; i++) {
    idx[i] = xg_add_group(x, sl->calls[i].kind, sl->calls[i].ranks, sl->calls[i].stride);
    if (idx[i] < 0) return -2;
  }
  if (vec_grow((void **)&x->tasks, &x->cap_tasks, (long)x->n_tasks + sl->n_tasks,
               sizeof *x->tasks))
    return -2;
  int first = x->n_tasks;
  memcpy(&x->tasks[first], sl->tasks, sizeof *sl->tasks * (size_t)sl->n_tasks);
  for (int i = 0; i < sl->n_tasks; i++)
    if (x->tasks[first + i].kind == XG_COMM)
      x->tasks[first + i].group = idx[x->tasks[first + i].group];
  x->n_tasks += sl->n_tasks;
  xg_segment sg = sl->seg;
  sg.first_task = first;
  sg.dp_group = mapped(idx, sg.dp_group);
  sg.edp_group = mapped(idx, sg.edp_group);
  sg.rep_group = mapped(idx, sg.rep_group);
  sg.zero = st->zero;
  sg.recompute = st->recompute;
  int s = xg_add_segment(x, &sg);
  return s < 0 ? -2 : s;
}

/* The ordinal of the first call that returned group index g, or -1. */
static int ordinal(const segm_call *calls, int n, int g) {
  for (int i = 0; i < n; i++)
    if (calls[i].index == g) return i;
  return -1;
}

/* The slot to fill: an unused one (of an evicted context: segm_begin
 * empties those; or never filled, emptied now), or the least recently
 * used. */
static segm_slot *victim(segm *m) {
  segm_slot *v = &m->slots[0];
  for (int i = 0; i < m->n_slots; i++) {
    segm_slot *sl = &m->slots[i];
    if (!sl->ctx) return sl;
    if (sl->stamp < v->stamp) v = sl;
  }
  if (m->n_slots == SEGM_SLOTS) return v;
  v = &m->slots[m->n_slots++];
  memset(v, 0, sizeof *v);
  return v;
}

/* Slot i in the list of the current context's slots (once). */
static void listed(segm *m, int i) {
  for (int j = 0; j < m->n_cur; j++)
    if (m->cur_slots[j] == i) return;
  assert(m->n_cur < SEGM_SLOTS);
  m->cur_slots[m->n_cur++] = i;
}

int segm_keep(segm *m, int b, const strat *st, xg *x, int seg, const segm_call *calls,
              int n_calls) {
  if (!m->cur || n_calls > SEGM_CALLS) return 0;
  xg_segment *sg = &x->segs[seg];
  segm_slot *sl = victim(m);
  sl->ctx = 0; /* unused until complete */
  if (vec_grow((void **)&sl->tasks, &sl->cap_tasks, sg->n_tasks, sizeof *sl->tasks)) return -1;
  memcpy(sl->tasks, &x->tasks[sg->first_task], sizeof *sl->tasks * (size_t)sg->n_tasks);
  for (int i = 0; i < sg->n_tasks; i++) {
    if (sl->tasks[i].kind != XG_COMM) continue;
    int o = ordinal(calls, n_calls, sl->tasks[i].group);
    if (o < 0) return 0; /* a group this segment did not ask for: not kept */
    sl->tasks[i].group = o;
  }
  sl->n_tasks = sg->n_tasks;
  sl->seg = *sg;
  sl->seg.first_task = 0;
  sl->seg.dp_group = ordinal(calls, n_calls, sg->dp_group);
  sl->seg.edp_group = ordinal(calls, n_calls, sg->edp_group);
  sl->seg.rep_group = sg->rep_group < 0 ? sg->rep_group : ordinal(calls, n_calls, sg->rep_group);
  if (sl->seg.dp_group < 0 || sl->seg.edp_group < 0 || (sg->rep_group >= 0 && sl->seg.rep_group < 0)) return 0;
  memcpy(sl->calls, calls, sizeof *calls * (size_t)n_calls);
  sl->n_calls = n_calls;
  sl->block = b;
  sl->st = key_strat(st);
  sl->stamp = m->clock;
  sl->ctx = m->cur;
  sl->id = sg->memo_id = ++m->ids;
  sl->seg.memo_id = sl->id;
  listed(m, (int)(sl - m->slots));
  return 0;
}
