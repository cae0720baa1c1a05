/*
 * test_fp8amax.c -- delayed scaling's amax all-reduces (src/engine/
 * fp8amax.c), by hand: GPT-3 1.3B (24 layers, 4 fp8 GEMMs each: qkv,
 * proj, fc1, fc2) on 32 H100 (4 DGX nodes of 8), tp 2, pp 2, vpp 2
 * (interleaved), dp 8, 64 sequences of micro-batch 1: 8 micro-batches a
 * step, 6 layers a model chunk, one fp8_autocast region per chunk.
 *
 *   forward    3 amaxes a GEMM: 6 x 4 x 3 x 4 B = 288 B a reduction
 *   backward   2 amaxes a GEMM: 6 x 4 x 2 x 4 B = 192 B
 *   group      tp x cp x dp = 16 ranks (every rank of a stage), 8 a node
 *   per step   2 chunks x 2 passes x 8 micro-batches = 32 on each stage
 */
#include <criterion/criterion.h>
#include <math.h>

#include "coll/coll.h"
#include "engine/fp8amax.h"
#include "engine/groups.h"
#include "lowered.h"
#include "predict.h"

static sc_scenario small(sc_dtype dt, sc_fp8_recipe r) {
  sc_scenario s = scenario_ok("{\"model\": \"gpt3-1.3b\", \"cluster\": "
                              "{\"preset\": \"dgx-h100\", \"gpus\": 32}, "
                              "\"plan\": {\"tp\": 2, \"pp\": 2, \"vpp\": 2, "
                              "\"schedule\": \"interleaved\", "
                              "\"global_batch\": 64, \"micro_batch\": 1}}");
  s.plan.dtype = dt;
  s.plan.fp8_recipe = r;
  return s;
}

/* Stage st's reductions in pass bwd of scenario in. */
static amax_red red_of(const sc_scenario *in, int st, int bwd) {
  lowered l;
  lowered_make(&l, in);
  eng e;
  lowered_eng(&l, &e);
  amax_red a = amax_of(&e, st, bwd);
  eng_free(&e);
  lowered_done(&l);
  return a;
}

/* NCCL's all-reduce of `bytes` over the 16 ranks of a stage, 8 a node,
 * as the collective model gives it (no topology). */
static double nccl_16(const sc_scenario *in, double bytes) {
  sc_scenario s = *in;
  sc_error err = {0};
  cr_assert_eq(sc_scenario_resolve(&s, &err), SC_OK, "%s", err.msg);
  xg_group g = {XG_GROUP_MP, 16, 1};
  grp gg = grp_make(&s.cluster, &g);
  cr_assert_eq(gg.g.ranks_per_node, 8, "ranks a node %d", gg.g.ranks_per_node);
  return coll_nccl_time(COLL_ALL_REDUCE, bytes, &gg.g).time;
}

Test(fp8amax, count_bytes_and_time) {
  sc_scenario s = small(SC_FP8, SC_FP8_DELAYED);
  for (int st = 0; st < 2; st++) {
    amax_red f = red_of(&s, st, 0), b = red_of(&s, st, 1);
    cr_expect_eq(f.n, 2, "stage %d: %d forward reductions a micro-batch, want 2 (vpp)", st, f.n);
    cr_expect_eq(b.n, 2, "stage %d: %d backward reductions, want 2", st, b.n);
    cr_expect_float_eq(f.bytes, 288, 1e-9, "stage %d forward: %g B, want 6 x 4 x 3 x 4", st,
                       f.bytes);
    cr_expect_float_eq(b.bytes, 192, 1e-9, "stage %d backward: %g B, want 6 x 4 x 2 x 4", st,
                       b.bytes);
    double tf = nccl_16(&s, 288), tb = nccl_16(&s, 192);
    cr_expect(tf > 10e-6 && tf < 1e-3, "an all-reduce of 288 B over 16 ranks: %g s", tf);
    cr_expect_float_eq(f.gpu, tf, 1e-12, "forward %g s, the collective model %g s", f.gpu, tf);
    cr_expect_float_eq(b.gpu, tb, 1e-12, "backward %g s, the collective model %g s", b.gpu, tb);
    /* PyTorch's host: a launch and a torch.distributed call */
    cr_expect(f.host > 0, "host %g s", f.host);
  }
}

/* Only delayed scaling of fp8 GEMMs in an eager framework, over more
 * than one rank, reduces amaxes. */
Test(fp8amax, none_elsewhere) {
  struct {
    const char *what;
    sc_dtype dt;
    sc_fp8_recipe r;
    int eager, gpus;
  } cases[] = {{"bf16", SC_BF16, SC_FP8_DELAYED, 1, 32},
               {"fp8 current scaling", SC_FP8, SC_FP8_CURRENT, 1, 32},
               {"fp8 block scaling", SC_FP8, SC_FP8_BLOCK, 1, 32},
               {"fp8 delayed, compiled (XLA)", SC_FP8, SC_FP8_DELAYED, 0, 32},
               {"fp8 delayed, one rank a stage", SC_FP8, SC_FP8_DELAYED, 1, 2}};
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    sc_scenario s = small(cases[i].dt, cases[i].r);
    s.plan.framework_eager = cases[i].eager;
    s.cluster.gpus = cases[i].gpus;
    if (cases[i].gpus == 2) s.plan.tp = 1, s.plan.dp = 0, s.plan.global_batch = 8;
    amax_red f = red_of(&s, 0, 0), b = red_of(&s, 0, 1);
    cr_expect(f.n == 0 && b.n == 0, "%s: %d and %d reductions, want none", cases[i].what, f.n,
              b.n);
  }
}

/* The step carries them on the tensor-parallel line: against current
 * scaling (the same collectives otherwise; its casts are compute),
 * 8 micro-batches x 2 chunks x (forward + backward) more, and the event
 * engine adds what the closed form adds. */
Test(fp8amax, on_the_step) {
  sc_scenario d = small(SC_FP8, SC_FP8_DELAYED), c = small(SC_FP8, SC_FP8_CURRENT);
  sc_result rd = predict_ok(&d), rc = predict_ok(&c);
  double want = 8 * 2 * (nccl_16(&d, 288) + nccl_16(&d, 192));
  double got = rd.time.tp_comm - rc.time.tp_comm;
  cr_expect_float_eq(got, want, 1e-9 * rd.step_s, "tp line +%g s, want 32 reductions = %g s", got,
                     want);
  sc_event_opts o = {1, 0};
  sc_result ed, ec;
  sc_error err = {0};
  cr_assert_eq(sc_predict_event(&d, &o, &ed, NULL, &err), SC_OK, "%s", err.msg);
  cr_assert_eq(sc_predict_event(&c, &o, &ec, NULL, &err), SC_OK, "%s", err.msg);
  double ev = ed.step_s - ec.step_s, cf = rd.step_s - rc.step_s;
  cr_expect(fabs(ev - cf) < 1e-6 * ed.step_s, "event engine +%g s, closed form +%g s", ev,
            cf);
}
