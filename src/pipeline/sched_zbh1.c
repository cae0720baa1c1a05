/*
 * sched_zbh1.c -- ZB-H1 (Qi, Wan, Huang, Lin: Zero Bubble Pipeline
 * Parallelism, ICLR 2024, arXiv 2311.06231, section 3.1 and figure 3):
 * 1F1B whose backwards are split into B (the input gradient, which the
 * stage before waits for) and W (the weight gradient, which nobody waits
 * for). Stage s warms up with 1F1B's pp - s - 1 forwards, then runs F, B
 * and a W, but keeps s of its W passes pending, which lets the gradient
 * travel back through the later stages at the pace of B alone; the
 * pending W's fill the drain. Stage s holds the activations of 1F1B's
 * pp - s micro-batches plus the inputs of its s pending W's: pp at most,
 * as 1F1B's first stage ("the same peak memory as 1F1B", the paper's
 * table 1). Bubble with equal stages: (pp - 1)(F + B - W) with B the
 * input gradient, which is DeepSeek-V3's (PP - 1)(F + B - 2W) with B the
 * whole backward (its table 2, "ZB1P"). The paper takes F, B and W
 * about equal; the run of this order gives (pp - 1) max(F + B - W, F, B)
 * in general (tests/test_split_sched.c).
 */
#include "pipeline/pipe.h"

/* Pending W's a stage keeps: one per stage after it in the pipeline. */
static int zbh1_delay(const pipe_shape *p, int stage) {
  (void)p;
  return stage;
}

static double zbh1_in_flight(const pipe_shape *p, int stage) {
  if (p->pp <= 1) return 1;
  int f = p->pp - stage + zbh1_delay(p, stage);
  return f < p->m ? f : p->m;
}

/* F, B and W of micro-batch j, chunk 0. */
static pipe_pass zb_pass(char kind, int j) {
  return (pipe_pass){.kind = kind, .mb = j, .split = kind == 'B'};
}

static int zbh1_order(const pipe_shape *p, int stage, pipe_pass *out) {
  if (p->vpp != 1) return -1;
  int m = p->m, n = 0, kf = 0, kb = 0, kw = 0, keep = zbh1_delay(p, stage);
  int warm = p->pp - stage - 1 < m ? p->pp - stage - 1 : m;
  while (kf < warm) out[n++] = zb_pass('F', kf++);
  while (kb < m) {
    if (kf < m) out[n++] = zb_pass('F', kf++);
    out[n++] = zb_pass('B', kb++);
    if (kb - kw > keep) out[n++] = zb_pass('W', kw++);
  }
  while (kw < m) out[n++] = zb_pass('W', kw++);
  return n;
}

/* (pp - 1)(F + B - W) with B the input gradient (the W of a stage's
 * steady state covers part of its wait for each stage down the line),
 * never less than a forward or an input gradient per stage. */
static double zbh1_bubble_split(const pipe_shape *p, double f, double b, double w) {
  double x = f + b - w, big = f > b ? f : b;
  return p->pp > 1 ? (p->pp - 1) * (x > big ? x : big) : 0;
}

static double zbh1_bubble(const pipe_shape *p) { return pipe_bubble_default(p); }

/* Sends on the critical path, sends not holding their stage (receives
 * posted ahead, as the interleaved schedule's overlap_p2p_comm; a
 * modelling choice, the paper does not time its sends): the first
 * micro-batch's trip down and back, and the drain's twice over, 4 (pp - 1)
 * (pipe_makespan's count, tests/test_split_sched.c). */
static double zbh1_p2p(const pipe_shape *p) { return p->pp > 1 ? 4.0 * (p->pp - 1) : 0; }

/* Every backward is split. */
static double zbh1_split_share(const pipe_shape *p, int stage, int chunk) {
  (void)p, (void)stage, (void)chunk;
  return 1;
}

const pipe_sched pipe_zbh1 = {"zb-h1", SC_SCHED_ZBH1, zbh1_bubble, zbh1_p2p, zbh1_in_flight,
                              zbh1_order, NULL, NULL, zbh1_bubble_split, 1, zbh1_split_share,
                              1, NULL};
