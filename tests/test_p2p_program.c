/*
 * test_p2p_program.c -- the closed form's send/recv on the critical path
 * (pipe_p2p_on_path) against Megatron-LM's 1F1B program run step by step.
 *
 * The program is forward_backward_pipelining_without_interleaving
 * (schedules.py, batch_p2p_comm): warm-up micro-batches are recv_forward,
 * forward, send_forward, each call blocking on its own; then one
 * recv_forward; in the steady state forward, send_forward_recv_backward
 * (one batched exchange with the next stage), backward,
 * send_backward_recv_forward (with the previous stage; the last one a
 * plain send_backward); then the cool-down's recv_backward, backward,
 * send_backward. A transfer starts when both its sender and its receiver
 * have posted it and takes one send/recv; a call returns when all its
 * transfers have ended; the first stage has no previous stage and the
 * last no next, so their calls towards them are no-ops. Stages with equal
 * times and stages with a heavier last one (the loss) are both checked:
 * 2 m - 1 + 2 (pp - 1) for the first (the program: two less),
 * m - 1 + 2 (pp - 1) for the second (exactly).
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "pipeline/pipe.h"

/* An item of a stage's program: a pass, or a blocking call of up to two
 * transfers (-1 = none). */
typedef struct item {
  char kind;   /* 'F', 'B' pass; 'C' call */
  int x[2];    /* transfers of a call */
} item;

typedef struct prog {
  item *it;
  int n;
} prog;

/* Transfer ids: activations of micro-batch mb over boundary b (stage b to
 * b + 1) and gradients back over it. */
static int xf(int m, int b, int mb) { return 2 * (b * m + mb); }
static int xb(int m, int b, int mb) { return 2 * (b * m + mb) + 1; }

static void call(prog *p, int a, int b) {
  if (a < 0 && b < 0) return;
  p->it[p->n++] = (item){'C', {a, b}};
}

/* Stage s's program, as schedules.py runs it. */
static void program(int S, int m, int s, prog *p) {
  int w = S - s - 1 < m ? S - s - 1 : m, rest = m - w;
  int has_prev = s > 0, has_next = s < S - 1;
  p->it = malloc(sizeof *p->it * (size_t)(8 * m + 8));
  p->n = 0;
  for (int i = 0; i < w; i++) {
    call(p, has_prev ? xf(m, s - 1, i) : -1, -1); /* recv_forward */
    p->it[p->n++] = (item){'F', {-1, -1}};
    call(p, has_next ? xf(m, s, i) : -1, -1); /* send_forward */
  }
  if (rest > 0) call(p, has_prev ? xf(m, s - 1, w) : -1, -1);
  for (int i = 0; i < rest; i++) {
    p->it[p->n++] = (item){'F', {-1, -1}};
    /* send_forward_recv_backward */
    call(p, has_next ? xf(m, s, w + i) : -1, has_next ? xb(m, s, i) : -1);
    p->it[p->n++] = (item){'B', {-1, -1}};
    if (i == rest - 1) call(p, has_prev ? xb(m, s - 1, i) : -1, -1); /* send_backward */
    else /* send_backward_recv_forward */
      call(p, has_prev ? xb(m, s - 1, i) : -1, has_prev ? xf(m, s - 1, w + i + 1) : -1);
  }
  for (int i = rest; i < m; i++) {
    call(p, has_next ? xb(m, s, i) : -1, -1); /* recv_backward */
    p->it[p->n++] = (item){'B', {-1, -1}};
    call(p, has_prev ? xb(m, s - 1, i) : -1, -1); /* send_backward */
  }
}

/* Run every stage's program; the step, s. f[s], b[s]: pass times, c: one
 * send/recv. */
static double run(int S, int m, const double *f, const double *b, double c) {
  prog *pg = calloc((size_t)S, sizeof *pg);
  int nx = 2 * S * m, *pc = calloc((size_t)S, sizeof *pc);
  double *t = calloc((size_t)S, sizeof *t), *post[2];
  for (int k = 0; k < 2; k++) {
    post[k] = malloc(sizeof *post[k] * (size_t)nx);
    for (int i = 0; i < nx; i++) post[k][i] = -1;
  }
  for (int s = 0; s < S; s++) program(S, m, s, &pg[s]);
  for (int moved = 1; moved;) {
    moved = 0;
    for (int s = 0; s < S; s++)
      while (pc[s] < pg[s].n) {
        const item *it = &pg[s].it[pc[s]];
        if (it->kind != 'C') {
          t[s] += it->kind == 'F' ? f[s] : b[s];
          pc[s]++, moved = 1;
          continue;
        }
        int ok = 1;
        double end = t[s];
        for (int k = 0; k < 2; k++) {
          int x = it->x[k];
          if (x < 0) continue;
          /* the sender of an activation is the stage before the boundary */
          int bnd = x / 2 / m, sender = x % 2 ? bnd + 1 : bnd;
          double *mine = post[sender == s ? 0 : 1], *theirs = post[sender == s ? 1 : 0];
          if (mine[x] < 0) mine[x] = t[s];
          if (theirs[x] < 0) ok = 0;
          else if ((mine[x] > theirs[x] ? mine[x] : theirs[x]) + c > end)
            end = (mine[x] > theirs[x] ? mine[x] : theirs[x]) + c;
        }
        if (!ok) break;
        t[s] = end;
        pc[s]++, moved = 1;
      }
  }
  double step = 0;
  for (int s = 0; s < S; s++) {
    cr_assert_eq(pc[s], pg[s].n, "stage %d of %d stuck at item %d of %d", s, S, pc[s], pg[s].n);
    if (t[s] > step) step = t[s];
    free(pg[s].it);
  }
  free(pg), free(pc), free(t), free(post[0]), free(post[1]);
  return step;
}

static double fb_of(const void *ud, int s) {
  const double *const *fb = ud;
  return fb[0][s] + fb[1][s];
}

/* The closed form's step for the same stages: the slowest stage's
 * micro-batches, the others' fill and drain, the send/recv on the path. */
static double closed(int S, int m, const double *f, const double *b, double c, double *pp) {
  const double *fb[2] = {f, b};
  int w = 0;
  for (int s = 1; s < S; s++)
    if (f[s] + b[s] > f[w] + b[w]) w = s;
  double others = 0;
  for (int s = 0; s < S; s++)
    if (s != w) others += f[s] + b[s];
  pipe_shape sh = {S, 1, m, 0};
  *pp = pipe_p2p_on_path(&pipe_onef1b, &sh, fb_of, fb, w, c);
  return m * (f[w] + b[w]) + others + *pp;
}

static void check(int S, int m, double last_extra, double c) {
  double *f = malloc(sizeof *f * (size_t)S), *b = malloc(sizeof *b * (size_t)S);
  for (int s = 0; s < S; s++) f[s] = 1, b[s] = 2;
  f[S - 1] += last_extra / 3, b[S - 1] += 2 * last_extra / 3;
  double pp, sim = run(S, m, f, b, c), cf = closed(S, m, f, b, c, &pp);
  double comp = cf - pp; /* the step without send/recv */
  double sends_sim = (sim - comp) / c, sends_cf = pp / c;
  cr_log_info("pp %d m %d last +%g: Megatron's program %g send/recv on the path, closed form %g",
              S, m, last_extra, sends_sim, sends_cf);
  /* a heavier last stage or two stages: exactly; equal stages: two more */
  cr_expect(fabs(sends_sim - sends_cf) <= (last_extra > 0 || S == 2 ? 1e-9 : 2.0 + 1e-9),
            "pp %d, %d micro-batches, last stage +%g: Megatron's 1F1B program puts %g "
            "send/recv on the path, the closed form %g", S, m, last_extra, sends_sim, sends_cf);
  cr_expect(fabs(sim / cf - 1) < 0.005, "pp %d m %d: step %g (program) vs %g (closed form)", S,
            m, sim, cf);
  free(f), free(b);
}

Test(p2p_program, equal_stages_pay_two_per_micro_batch) {
  check(8, 32, 0, 0.1);
  check(4, 16, 0, 0.05);
  check(64, 512, 0, 0.03);
}

Test(p2p_program, a_heavier_last_stage_pays_one_per_micro_batch) {
  check(8, 32, 0.5, 0.1);
  check(64, 512, 0.05, 0.03); /* GPT-1T on pp 64 (SC'21 Table 1): the loss */
  check(4, 12, 0.3, 0.1);
}

Test(p2p_program, two_stages_each_have_one_neighbour) {
  check(2, 32, 0, 0.1);
  check(2, 8, 0.2, 0.1);
}

Test(p2p_program, blocking_send_recv_per_micro_batch) {
  pipe_shape one = {8, 1, 32, 0}, two = {8, 2, 32, 0};
  cr_expect_eq(pipe_p2p_per_mb_blocking(&one, 0), 1);
  cr_expect_eq(pipe_p2p_per_mb_blocking(&one, 3), 2);
  cr_expect_eq(pipe_p2p_per_mb_blocking(&one, 7), 1);
  cr_expect_eq(pipe_p2p_per_mb_blocking(&two, 3), 4);
  cr_expect_eq(pipe_p2p_per_mb_blocking(&two, 7), 3);
  pipe_shape single = {1, 1, 32, 0};
  cr_expect_eq(pipe_p2p_per_mb_blocking(&single, 0), 0);
}
