/*
 * allreduce_nvls.c -- NVSwitch in-switch reduction (NVLink SHARP): every
 * GPU writes its buffer into the switch, which reduces, and the switch
 * multicasts the result back: bytes up and bytes down per GPU, in two
 * steps. Closed form: 2 alpha + 2 bytes/bw... with full-duplex links the
 * two directions overlap in NCCL; here they are sequential steps, so
 * 2 (alpha + bytes/bw).
 */
#include "coll/sched.h"

static int build(sched *s, const sched_params *p) {
  if (sched_begin(s, 1)) return -1;
  for (int i = 0; i < p->n; i++)
    if (sched_add_switch(s, i, SCHED_SWITCH, i, p->bytes)) return -1;
  if (sched_begin(s, 1)) return -1;
  for (int i = 0; i < p->n; i++)
    if (sched_add_switch(s, SCHED_SWITCH, i, i, p->bytes)) return -1;
  return 0;
}

static double closed(const sched_params *p) { return 2 * (p->alpha + p->bytes / p->bw); }

const coll_alg coll_alg_allreduce_nvls = {"nvls", COLL_ALL_REDUCE, build, closed, 1, 0};
