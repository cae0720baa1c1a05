/*
 * strategy.c -- per-layer strategies; see strategy.h.
 */
#include "plan/strategy.h"

#include <string.h>

/* 1 when override o covers instance `layer` of block `block`. */
static int covers(const sc_override *o, const char *block, int layer) {
  if (o->block[0]) return !strcmp(o->block, block);
  return layer >= 0 && layer >= o->first && layer <= o->last;
}

void strat_of(const sc_plan *p, const char *block, int layer, strat *out) {
  out->tp = p->tp;
  out->cp = p->cp;
  out->ep = p->ep;
  out->sp = p->sp;
  out->zero = p->zero;
  out->recompute = layer >= 0 ? p->recompute : SC_RECOMP_NONE;
  out->hp = 0;
  for (int i = 0; i < p->n_overrides; i++) {
    const sc_override *o = &p->overrides[i];
    if (!covers(o, block, layer)) continue;
    if (o->tp != SC_INHERIT) out->tp = o->tp;
    if (o->cp != SC_INHERIT) out->cp = o->cp;
    if (o->ep != SC_INHERIT) out->ep = o->ep;
    if (o->sp != SC_INHERIT) out->sp = o->sp;
    if (o->zero != SC_INHERIT) out->zero = o->zero;
    if (o->recompute != SC_INHERIT) out->recompute = (sc_recompute)o->recompute;
  }
  if (out->tp <= 1) out->sp = 0;
}

int strat_equal(const strat *a, const strat *b) {
  return a->tp == b->tp && a->cp == b->cp && a->ep == b->ep && a->sp == b->sp &&
         a->zero == b->zero && a->recompute == b->recompute && a->hp == b->hp;
}
