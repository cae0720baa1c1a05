/*
 * sched_dualpipe.c -- DualPipe (DeepSeek-AI, DeepSeek-V3 Technical
 * Report, arXiv 2412.19437, section 3.2.1, figure 5 and table 2).
 *
 * Half of the micro-batches enter at stage 0 and run down the pipeline
 * (chunk 0), the other half enter at stage pp-1 and run up it (chunk 1):
 * rank s holds the layers of stage s for the first and of stage pp-1-s
 * for the second, so twice the parameters of one stage. Each rank runs
 * eight phases (h = min(s, pp-1-s); "phase 0" is the direction that
 * reaches the rank first, the one in which it is the h-th stage). The
 * report draws the schedule (its figure 5, 8 ranks and 20 micro-batches)
 * without the rule; the phases below are those of DeepSeek's open-source
 * dualpipe.py (github.com/deepseek-ai/DualPipe) as recalled, which is
 * not in ../shared/reference and was not checked line by line: phase 5's
 * count is the one for which every rank runs m/2 forwards and backwards
 * of each direction (tests/test_split_sched.c), and the run of the order
 * gives the report's table 2 bubble:
 *   1. 2 (pp/2 - h - 1) forwards of phase 0
 *   2. h + 1 pairs: a forward of phase 0, a forward of phase 1
 *   3. pp/2 - h - 1 times: backward of phase 1 split (B, then its W),
 *      forward of phase 1
 *   4. m/2 - pp + h + 1 times: the overlapped pairs forward 0 + backward 1,
 *      forward 1 + backward 0 (the steady state)
 *   5. pp/2 - h - 1 times: backward 1, then the pair forward 1 + backward 0
 *   6. h + 1 times: backward 1, backward 0, the second half of them split
 *      (their W's deferred)
 *   7. pp/2 - h - 1 times: a W, then a split backward 0
 *   8. the h + 1 W's left.
 * A pair "forward + backward" of two micro-batches is the report's F&B
 * chunk, whose all-to-alls and send/recv run under the other pass's
 * compute: the pair starts when both of its inputs are there, without
 * waiting for their sends, and runs its two passes back to back (their
 * sum is the pair's time when the communication is hidden; the all-to-
 * alls are charged as combined 1F1B's, engine eng_other_window). Phase 4
 * needs a pass at rank 0 (h 0): m/2 >= pp, so m >= 2 pp; pp and m even.
 * Bubble with equal stages (the report's table 2, B the whole backward,
 * F&B = F + B): (pp/2 - 1)(F&B + B - 3W), which the run of this order
 * gives where the forward is no longer than the input gradient and the
 * input gradient no shorter than the weight gradient; in general
 * (pp/2 - 1)(F + max(F, b) + max(b - w, 0)), b the input gradient
 * (dual_bubble_split, tests/test_split_sched.c).
 */
#include "pipeline/pipe.h"

/* A rank's order being laid out. */
typedef struct dual_rank {
  const pipe_shape *p;
  int dir0;          /* the direction (chunk) of phase 0 */
  int nf[2], nb[2];  /* forwards and backwards laid out, per phase */
  int wscan;         /* out[] before this holds no split B whose W is
                        pending: W's run oldest first */
  pipe_pass *out;    /* the order (caller's, room for 3 m) */
  int n;
} dual_rank;

/* A forward of phase ph; pair: overlapped with the backward after it. */
static void dual_f(dual_rank *r, int ph, int pair) {
  int c = r->dir0 ^ ph;
  r->out[r->n++] = (pipe_pass){'F', c * (r->p->m / 2) + r->nf[ph]++, c, 0, pair};
}

/* A backward of phase ph; split: its weight gradients wait for a W. */
static void dual_b(dual_rank *r, int ph, int split) {
  int c = r->dir0 ^ ph;
  r->out[r->n++] = (pipe_pass){'B', c * (r->p->m / 2) + r->nb[ph]++, c, split, 0};
}

/* The W of the oldest split backward still pending. */
static void dual_w(dual_rank *r) {
  while (r->out[r->wscan].kind != 'B' || !r->out[r->wscan].split) r->wscan++;
  pipe_pass b = r->out[r->wscan++];
  r->out[r->n++] = (pipe_pass){'W', b.mb, b.chunk, 0, 0};
}

static int dual_valid(const pipe_shape *p) {
  return p->dual && p->pp >= 2 && p->pp % 2 == 0 && p->m % 2 == 0 && p->m >= 2 * p->pp;
}

static int dual_order(const pipe_shape *p, int stage, pipe_pass *out) {
  if (!dual_valid(p)) return -1;
  int half = p->pp / 2, h = stage < p->pp - 1 - stage ? stage : p->pp - 1 - stage;
  dual_rank r = {p, stage >= half, {0, 0}, {0, 0}, 0, out, 0};
  for (int i = 0; i < 2 * (half - h - 1); i++) dual_f(&r, 0, 0);          /* 1 */
  for (int i = 0; i < h + 1; i++) dual_f(&r, 0, 0), dual_f(&r, 1, 0);        /* 2 */
  for (int i = 0; i < half - h - 1; i++) {                              /* 3 */
    dual_b(&r, 1, 1), dual_w(&r), dual_f(&r, 1, 0);
  }
  for (int i = 0; i < p->m / 2 - p->pp + h + 1; i++) {                  /* 4 */
    /* the last rank runs its first pair one pass after the other */
    dual_f(&r, 0, i > 0 || stage != p->pp - 1), dual_b(&r, 1, 0);
    dual_f(&r, 1, 1), dual_b(&r, 0, 0);
  }
  for (int i = 0; i < half - h - 1; i++) {                              /* 5 */
    dual_b(&r, 1, 0), dual_f(&r, 1, 1), dual_b(&r, 0, 0);
  }
  int zb = 0, steps = h + 1;                                            /* 6 */
  for (int i = 0; i < steps; i++) {
    if (i == steps / 2 && h % 2 == 1) zb = 1;
    dual_b(&r, 1, zb);
    if (i == steps / 2 && h % 2 == 0) zb = 1;
    dual_b(&r, 0, zb);
  }
  for (int i = 0; i < half - h - 1; i++) dual_w(&r), dual_b(&r, 0, 1);  /* 7 */
  for (int i = 0; i < h + 1; i++) dual_w(&r);                           /* 8 */
  return r.n;
}

/* The report's activations: pp + 1 micro-batches (its table 2). */
static double dual_in_flight(const pipe_shape *p, int stage) {
  (void)stage;
  return p->pp + 1 < p->m ? p->pp + 1 : p->m;
}

/* (pp/2 - 1)(F&B + B - 3W), B the whole backward, F&B = F + B, in the
 * split's terms (b the input gradient): (pp/2 - 1)(F + 2b - w) for
 * F <= b and w <= b; the run of the order gives the max() forms. */
static double dual_bubble_split(const pipe_shape *p, double f, double b, double w) {
  double big = f > b ? f : b, rest = b > w ? b - w : 0;
  return p->pp > 1 ? (p->pp / 2 - 1) * (f + big + rest) : 0;
}

/* Without the split (b the whole backward, w 0) over f + b with f = b:
 * (pp/2 - 1) 3/2 (the engines use dual_bubble_split). */
static double dual_bubble(const pipe_shape *p) { return p->pp > 1 ? (p->pp / 2 - 1) * 1.5 : 0; }

/* Sends on the critical path: the pairs' inputs arrive under their other
 * pass, so only the fill and the drain wait for sends: 2 (pp - 1), and
 * pp/2 - 2 more where the forward is no longer than the input gradient
 * (the usual case; pipe_makespan's count, tests/test_split_sched.c). */
static double dual_p2p(const pipe_shape *p) {
  if (p->pp <= 1) return 0;
  return 2.0 * (p->pp - 1) + (p->pp / 2 > 2 ? p->pp / 2 - 2 : 0);
}

/* Split backwards, of the m/2 of a chunk: phase 3's (phase 1) and phase
 * 7's (phase 0), pp/2 - h - 1 each, and the second half of phase 6's
 * h + 1 pairs, (h+1)/2 of phase 1 rounded down and of phase 0 rounded up
 * (pp - h - 1 in all; the rest run whole, their weight gradients at once). */
static double dual_split_share(const pipe_shape *p, int stage, int chunk) {
  int h = stage < p->pp - 1 - stage ? stage : p->pp - 1 - stage;
  int ph = chunk ^ (stage >= p->pp / 2), n = p->pp / 2 - h - 1 + (h + 1 + !ph) / 2;
  return p->m > 0 ? n / (p->m / 2.0) : 0;
}

/* Pairs: phase 4's two per step and phase 5's one, of the rank's m
 * forwards (a pair holds one): 2 (m/2 - pp + h + 1) + pp/2 - h - 1, one
 * fewer on the last rank (its first pair runs unpaired); fewest at h 0,
 * the last rank: m - 3 pp/2 of m. */
static double dual_paired_share(const pipe_shape *p) {
  double n = p->m - 1.5 * p->pp;
  return p->m > 0 && n > 0 ? n / p->m : 0;
}

const pipe_sched pipe_dualpipe = {"dualpipe", SC_SCHED_DUALPIPE, dual_bubble, dual_p2p,
                                  dual_in_flight, dual_order, NULL, NULL, dual_bubble_split, 1,
                                  dual_split_share, 1, dual_paired_share};
