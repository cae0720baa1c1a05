/*
 * test_fp8_gather.c -- the sequence-parallel collectives of an fp8 layer
 * carry what Transformer Engine gathers per recipe (src/cost/fp8cast.c
 * fp8c_gather_bytes), by hand: GPT-3 175B, tp 8, sp, micro-batch 1,
 * sequence 2048, on a B200 (MXFP8 needs sm100).
 */
#include <criterion/criterion.h>

#include "engine/engine.h"
#include "engine/groups.h"
#include "job/job.h"
#include "lowered.h"

static const xg_task *layer_task(const lowered *l, const char *name) {
  const xg_stage *st = &l->x.stages[0];
  for (int i = 0; i < st->n_runs; i++) {
    const xg_segment *sg = &l->x.segs[l->x.runs[st->first_run + i].segment];
    if (sg->role != WG_ROLE_LAYER) continue;
    for (int j = 0; j < sg->n_tasks; j++) {
      char buf[64];
      const xg_task *t = &l->x.tasks[sg->first_task + j];
      if (!strcmp(lower_task_name(t, buf, sizeof buf), name)) return t;
    }
  }
  cr_assert_fail("no layer task %s", name);
  return NULL;
}

/* The input gather of qkv (its all-gather in forward, its re-gather for
 * the weight gradient) and the output-gradient gather of proj (the
 * backward of rs_proj), in bytes, for recipe r. */
static void gathers(sc_dtype dt, sc_fp8_recipe r, double out[3]) {
  sc_scenario s;
  sc_scenario_default(&s);
  s.cluster.gpu = *sc_gpu_preset("b200");
  s.plan.dtype = dt;
  s.plan.fp8_recipe = r;
  lowered l;
  lowered_make(&l, &s);
  const xg_task *ag = layer_task(&l, "ag_qkv"), *rs = layer_task(&l, "rs_proj");
  out[0] = xg_comm_bytes(ag, 0);
  out[1] = xg_regather_bytes(ag);
  out[2] = xg_comm_bytes(rs, 1);
  cr_expect_float_eq(xg_comm_bytes(ag, 1), 2048.0 * 12288 * 2, 1,
                     "the data gradient's reduce-scatter stays 16-bit: %g", xg_comm_bytes(ag, 1));
  lowered_done(&l);
}

/* One gathered activation is 2048 tokens x 12288 = 25,165,824 elements,
 * 50,331,648 bytes in bf16. fp8 per-tensor: 1 byte an element in all
 * three; MXFP8: 2.0625 (both copies with their E8M0 scales) forward and
 * for the output gradient, 1.03125 (columnwise) for the re-gather. */
Test(fp8_gather, bytes_per_recipe) {
  const double n = 2048.0 * 12288;
  double b[3];
  gathers(SC_BF16, SC_FP8_DELAYED, b);
  for (int i = 0; i < 3; i++) cr_expect_float_eq(b[i], 2 * n, 1, "bf16 gather %d: %g", i, b[i]);
  gathers(SC_FP8, SC_FP8_DELAYED, b);
  for (int i = 0; i < 3; i++) cr_expect_float_eq(b[i], n, 1, "delayed gather %d: %g", i, b[i]);
  gathers(SC_FP8, SC_FP8_MXFP8, b);
  cr_expect_float_eq(b[0], 2.0625 * n, 1, "mxfp8 forward gather %g", b[0]);
  cr_expect_float_eq(b[1], 1.03125 * n, 1, "mxfp8 re-gather %g", b[1]);
  cr_expect_float_eq(b[2], 2.0625 * n, 1, "mxfp8 output-gradient gather %g", b[2]);
  gathers(SC_FP8, SC_FP8_BLOCK, b);
  for (int i = 0; i < 3; i++) cr_expect_float_eq(b[i], 2 * n, 1, "block gather %d: %g", i, b[i]);
}

/* The closed form charges the re-gather what it moves: with the backward
 * collectives beside the GEMMs (tp_async_bwd), the weight gradient's
 * re-gather of qkv's input costs the forward gather's time under
 * delayed scaling (the same rowwise copy) and less under MXFP8 (one copy
 * of the two the forward gathers). */
static void regather_vs_forward(sc_fp8_recipe r, double *ag, double *fwd) {
  sc_scenario s;
  sc_scenario_default(&s);
  s.cluster.gpu = *sc_gpu_preset("b200");
  s.plan.dtype = SC_FP8;
  s.plan.fp8_recipe = r;
  s.plan.tp_async_bwd = 1;
  sc_job *j;
  sc_error err = {0};
  cr_assert_eq(sc_job_open(&s, &j, &err), SC_OK, "%s", err.msg);
  struct eng *e;
  cr_assert_eq(job_prepare(j, NULL, &e, &err), SC_OK, "%s", err.msg);
  *ag = *fwd = -1;
  for (int i = 0; i < e->x->n_tasks; i++) {
    const xg_task *t = &e->x->tasks[i];
    char buf[64];
    if (t->kind != XG_COMM || strcmp(lower_task_name(t, buf, sizeof buf), "ag_qkv")) continue;
    grp_share sh;
    *ag = eng_regather(e, t, &sh);
    *fwd = eng_task_comm(e, t, 0);
    break;
  }
  sc_job_close(j);
  cr_assert(*ag > 0 && *fwd > 0, "recipe %d: ag_qkv re-gather %g s, forward %g s", (int)r, *ag,
            *fwd);
}

Test(fp8_gather, the_closed_form_charges_the_regather_its_bytes) {
  double ag, fwd;
  regather_vs_forward(SC_FP8_DELAYED, &ag, &fwd);
  cr_expect_float_eq(ag, fwd, 1e-15, "delayed: re-gather %g s, forward %g s", ag, fwd);
  regather_vs_forward(SC_FP8_MXFP8, &ag, &fwd);
  cr_expect(ag < 0.75 * fwd, "mxfp8: re-gather %g s of 25.9 MB, forward %g s of 51.9 MB", ag, fwd);
}
