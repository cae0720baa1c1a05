/*
 * sched.c -- the schedule container and the table of plug-ins.
 */
#include "coll/sched.h"

#include <assert.h>
#include <string.h>

#include "core/mem.h"
#include "core/vec.h"

void sched_init(sched *s) { memset(s, 0, sizeof *s); }

void sched_free(sched *s) {
  mem_free(s->x), mem_free(s->s);
  sched_init(s);
}

void sched_clear(sched *s) { s->nx = s->ns = 0; }

int sched_begin(sched *s, int repeat) {
  assert(repeat >= 0); /* 0: a step that does not run (a ring of one rank) */
  if (s->counting) return 0;
  if (vec_grow((void **)&s->s, &s->caps, s->ns + 1L, sizeof *s->s)) return -1;
  s->s[s->ns++] = (sched_step){s->nx, 0, repeat};
  return 0;
}

int sched_add_switch(sched *s, int src, int dst, int via, double bytes) {
  if (s->counting) return s->counted++, 0;
  assert(s->ns > 0 && "sched_begin first");
  if (vec_grow((void **)&s->x, &s->capx, s->nx + 1L, sizeof *s->x)) return -1;
  s->x[s->nx++] = (sched_xfer){src, dst, via, bytes};
  s->s[s->ns - 1].count++;
  return 0;
}

int sched_add(sched *s, int src, int dst, double bytes) {
  return sched_add_switch(s, src, dst, -1, bytes);
}

double sched_size(const coll_alg *alg, const sched_params *p) {
  sched s;
  sched_init(&s);
  s.counting = 1;
  alg->build(&s, p);
  return s.counted;
}

double sched_bytes(const sched *s) {
  double b = 0;
  for (int i = 0; i < s->ns; i++)
    for (int k = 0; k < s->s[i].count; k++) b += s->x[s->s[i].first + k].bytes * s->s[i].repeat;
  return b;
}

/* Plug-ins, each defined in its own file. */
extern const coll_alg coll_alg_allreduce_ring, coll_alg_reduce_scatter_ring,
    coll_alg_all_gather_ring, coll_alg_allreduce_rhd, coll_alg_allreduce_tree,
    coll_alg_allreduce_hier, coll_alg_allreduce_nvls, coll_alg_all_gather_direct,
    coll_alg_alltoall_direct, coll_alg_alltoall_pairwise, coll_alg_broadcast_chain,
    coll_alg_reduce_chain, coll_alg_send_recv, coll_alg_gossip, coll_alg_allreduce_rails,
    coll_alg_reduce_scatter_rails, coll_alg_all_gather_rails;

static const coll_alg *const algs[] = {
    &coll_alg_allreduce_ring,    &coll_alg_allreduce_tree,   &coll_alg_allreduce_rhd,
    &coll_alg_allreduce_hier,    &coll_alg_allreduce_nvls,   &coll_alg_gossip,
    &coll_alg_reduce_scatter_ring, &coll_alg_all_gather_ring, &coll_alg_all_gather_direct,
    &coll_alg_alltoall_direct,   &coll_alg_alltoall_pairwise, &coll_alg_broadcast_chain,
    &coll_alg_reduce_chain,      &coll_alg_send_recv,
    &coll_alg_allreduce_rails,   &coll_alg_reduce_scatter_rails, &coll_alg_all_gather_rails,
};

int coll_alg_count(void) { return (int)(sizeof algs / sizeof *algs); }

const coll_alg *coll_alg_at(int i) {
  assert(i >= 0 && i < coll_alg_count());
  return algs[i];
}

const coll_alg *coll_alg_find(coll_op op, const char *name) {
  for (int i = 0; i < coll_alg_count(); i++)
    if (algs[i]->op == op && (!name || !strcmp(algs[i]->name, name))) return algs[i];
  return NULL;
}
