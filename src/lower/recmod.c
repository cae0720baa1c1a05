/*
 * recmod.c -- what Megatron-Core's selective recompute modules keep and
 * re-run; see recmod.h and docs/model.md ("Selective recompute modules").
 *
 * Sources (../shared/reference/megatron-lm): transformer_config.py lists
 * the modules and which of them discard their output;
 * transformer_layer.py checkpoints the input and pre-MLP norms only where
 * they are not an IdentityOp (with Transformer Engine the norm before a
 * lone linear is fused into it) and the dense MLP only in a layer that is
 * not MoE.
 */
#include "lower/recmod.h"

/* 1 when norm op o's output has one reader and it is a linear layer. */
static int fused_norm(const wg_graph *g, const wg_op *o) {
  const wg_tensor *y = &g->tensors[o->out];
  if (o->kind != WG_NORM || y->uses != 1) return 0;
  const wg_block *bl = &g->blocks[o->block];
  for (int j = bl->first_op; j < bl->first_op + bl->n_ops; j++) {
    const wg_op *r = &g->ops[j];
    for (int i = 0; i < r->n_in; i++)
      if (r->in[i] == o->out) return r->kind == WG_LINEAR;
  }
  return 0;
}

unsigned rm_bits(const wg_graph *g, int opi, unsigned en) {
  const wg_op *o = &g->ops[opi];
  unsigned b = o->recmod & en;
  if ((b & SC_RECMOD_LAYERNORM) && fused_norm(g, o)) b &= ~(unsigned)SC_RECMOD_LAYERNORM;
  return b;
}

int rm_depth(const wg_graph *g, int opi, unsigned en) {
  unsigned b = rm_bits(g, opi, en) & ~(unsigned)SC_RECMOD_CORE_ATTN;
  int n = 0;
  for (; b; b &= b - 1) n++;
  return n;
}

/* The outermost enabled module op opi is in (one bit), or 0. */
static unsigned outer(const wg_graph *g, int opi, unsigned en) {
  unsigned b = rm_bits(g, opi, en);
  if (b & SC_RECMOD_MOE) return SC_RECMOD_MOE;
  return b & (~b + 1);
}

int rm_inside(const wg_graph *g, int opi, unsigned en) { return outer(g, opi, en) != 0; }

int rm_discarded(const wg_graph *g, int t, unsigned en) {
  int p = g->tensors[t].producer;
  if (p < 0) return 0;
  unsigned d = rm_bits(g, p, en) & RM_DISCARDING;
  if (!d) return 0;
  const wg_block *bl = &g->blocks[g->ops[p].block];
  for (int j = bl->first_op; j < bl->first_op + bl->n_ops; j++)
    for (int i = 0; i < g->ops[j].n_in; i++)
      if (g->ops[j].in[i] == t && !(rm_bits(g, j, en) & d)) return 1;
  return 0;
}

/* 1 when one of the first `below` inputs of op o is tensor t. */
static int reads(const wg_op *o, int t, int below) {
  for (int i = 0; i < below && i < o->n_in; i++)
    if (o->in[i] == t) return 1;
  return 0;
}

int rm_keeps_input(const wg_graph *g, int opi, int i, unsigned en) {
  const wg_op *o = &g->ops[opi];
  unsigned m = outer(g, opi, en);
  int t = o->in[i], p = g->tensors[t].producer;
  if (!m || reads(o, t, i)) return 0;
  if (p >= 0 && g->ops[p].block == o->block && outer(g, p, en) == m) return 0; /* inside */
  if (rm_discarded(g, t, en)) return 0;
  const wg_block *bl = &g->blocks[o->block];
  for (int j = bl->first_op; j < opi; j++)
    if (outer(g, j, en) == m && reads(&g->ops[j], t, WG_MAX_IN)) return 0; /* kept already */
  return 1;
}
