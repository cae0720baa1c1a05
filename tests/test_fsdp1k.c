/*
 * test_fsdp1k.c -- the kernels FSDP1 runs around each unit's collectives
 * (src/engine/fsdp1k.h): the pre-divide factor of its default hook, the
 * bytes of each kernel, their time, their launches on the host, against
 * arithmetic a reader can redo.
 */
#include <criterion/criterion.h>
#include <math.h>

#include "cost/compute.h"
#include "engine/engine.h"
#include "engine/fsdp1k.h"
#include "lowered.h"

Test(fsdp1k, predivide_factor_is_the_default_hooks) {
  /* f = 1, doubled while n % f == 0 and n / f > f (default_hooks.py) */
  static const double n[] = {2, 4, 8, 16, 64, 128, 12};
  static const double want[] = {2, 2, 4, 4, 8, 16, 4};
  for (int i = 0; i < 7; i++)
    cr_assert_eq(fsdp1k_predivide(n[i]), want[i], "n %g: factor %g, expected %g", n[i],
                 fsdp1k_predivide(n[i]), want[i]);
}

Test(fsdp1k, bytes_per_element_of_a_bf16_unit_over_8) {
  /* bf16 (e 2) over 8 ranks, per unit element: the cast before each
   * gather (4 + 2) / 8; the gradient's cat 4, pad 4, pre-divide 4; on the
   * shard zeros 2 / 8, post-divide (factor 8 / 4 = 2) 4 / 8, the cast to
   * fp32 6 / 8, the accumulation 12 / 8. Two gathers: 1.5 + 12 + 3 */
  double p = 1e6;
  cr_assert_float_eq(fsdp1k_bytes(p, 2, 8, 2), 16.5 * p, 1e-9 * p, "%g",
                     fsdp1k_bytes(p, 2, 8, 2));
  cr_assert_float_eq(fsdp1k_bytes(p, 2, 8, 1), 15.75 * p, 1e-9 * p, "%g",
                     fsdp1k_bytes(p, 2, 8, 1));
  /* 2 ranks: the post-divide factor is 2 / 2 = 1, no kernel */
  cr_assert_float_eq(fsdp1k_bytes(p, 2, 2, 1), (6.0 / 2 + 12 + (2 + 6 + 12) / 2.0) * p, 1e-9 * p,
                     "%g", fsdp1k_bytes(p, 2, 2, 1));
  /* fp32 weights: no mixed-precision casts; 8 + 8 + 8 whole, (4 + 8 + 12) / 8 */
  cr_assert_float_eq(fsdp1k_bytes(p, 4, 8, 2), 27 * p, 1e-9 * p, "%g", fsdp1k_bytes(p, 4, 8, 2));
  /* nothing to shard */
  cr_assert_eq(fsdp1k_bytes(p, 2, 1, 2), 0);
  cr_assert_eq(fsdp1k_bytes(0, 2, 8, 2), 0);
}

Test(fsdp1k, each_kernel_costs_its_bytes_on_hbm) {
  const sc_gpu *g = sc_gpu_preset("a100-sxm4-80gb");
  double p = 1e8, bw = g->hbm_bw * g->hbm_eff, t0 = COST_KERNEL_T0;
  fsdp1k_cost c = fsdp1k_unit(g, p, 2, 8);
  cr_assert_float_eq(c.cast, 0.75 * p / bw + t0, 1e-12, "cast %g", c.cast);
  cr_assert_float_eq(c.cat, 4 * p / bw + t0, 1e-12, "cat %g", c.cat);
  /* pad, pre-divide, zeros, post-divide, cast, accumulation: 6 kernels */
  double want = (8 + 3) * p / bw + 6 * t0;
  cr_assert_float_eq(c.reduce, want, 1e-12, "reduce %g, expected %g", c.reduce, want);
  /* 100 M bf16 elements: the cat alone is 0.4 GB, about 0.25 ms */
  cr_assert(c.cat > 2e-4 && c.cat < 3e-4, "cat %g s", c.cat);
}

/* The kernels that run, as framework calls: bf16 over 8 ranks, forward
 * the cast before the gather (1); backward the cast before the gather
 * again, the cat, pad, pre-divide (factor 4), zeros, post-divide (8 / 4
 * = 2), fp32 cast and accumulation (8). */
Test(fsdp1k, launches_of_the_kernels_that_run) {
  int f, b;
  fsdp1k_launches(2, 8, 1, &f, &b);
  cr_assert(f == 1 && b == 8, "bf16 over 8: %d / %d, want 1 / 8", f, b);
  fsdp1k_launches(2, 8, 0, &f, &b);
  cr_assert(f == 1 && b == 7, "not resharded, no second cast: %d / %d", f, b);
  /* 2 ranks: post-divide factor 2 / 2 = 1, no kernel */
  fsdp1k_launches(2, 2, 1, &f, &b);
  cr_assert(f == 1 && b == 7, "bf16 over 2: %d / %d, want 1 / 7", f, b);
  /* fp32 weights: no casts; cat, pad, pre-divide, zeros, post-divide,
   * accumulation */
  fsdp1k_launches(4, 8, 1, &f, &b);
  cr_assert(f == 0 && b == 6, "fp32 over 8: %d / %d, want 0 / 6", f, b);
  fsdp1k_launches(2, 1, 1, &f, &b);
  cr_assert(f == 0 && b == 0, "one rank: nothing runs");
}

/* A 2-layer GPT (h 512) on 8 A100 in ZeRO-3 over dp 8, bf16, with the
 * FSDP implementation impl, lowered; *e borrows it. */
static void fsdp_gpt(lowered *l, eng *e, sc_fsdp_impl impl, int reshard) {
  sc_scenario s;
  sc_scenario_default(&s);
  sc_transformer *m = &s.model.tf;
  m->layers = 2, m->hidden = 512, m->heads = 8, m->kv_heads = 8, m->head_dim = 0;
  m->ffn = 2048, m->vocab = 32000, m->seq = 1024;
  s.cluster.gpus = 8;
  sc_plan_default(&s.plan);
  s.plan.dp = 8, s.plan.zero = 3, s.plan.global_batch = 8, s.plan.micro_batch = 1;
  s.plan.fsdp_impl = impl, s.plan.fsdp_reshard = reshard;
  lowered_make(l, &s);
  eng_init(e);
  e->s = &l->s, e->g = l->g, e->x = &l->x;
}

/* FSDP1's calls join the host time of a layer unit's first task, as its
 * lowered kernels' do (cost_launch each): forward + 1, backward + 8, not
 * in a recomputed forward nor on the unit's other tasks; FSDP2 adds none
 * here (its copies' launches are not counted). */
Test(fsdp1k, launches_charged_on_the_units_first_task) {
  lowered l;
  eng e;
  fsdp_gpt(&l, &e, SC_FSDP1, 1);
  const xg_segment *sg = lowered_layer_seg(&l);
  const xg_task *t0 = &l.x.tasks[sg->first_task], *t1 = &l.x.tasks[sg->first_task + 1];
  double a = cost_launch(&l.s.cluster.gpu);
  cr_assert(t0->kind != XG_COMM && t1->kind != XG_COMM);
  cr_assert_float_eq(eng_task_host(&e, sg, 0, 0, 0), a * (t0->host_fwd + 1), 1e-15);
  cr_assert_float_eq(eng_task_host(&e, sg, 0, 1, 0), a * (t0->host_bwd + 8), 1e-15);
  cr_assert_float_eq(eng_task_host(&e, sg, 0, 0, 1), a * t0->host_fwd, 1e-15, "recomputed");
  cr_assert_float_eq(eng_task_host(&e, sg, 1, 1, 0), a * t1->host_bwd, 1e-15, "second task");
  lowered_done(&l);
  fsdp_gpt(&l, &e, SC_FSDP1, 0);
  sg = lowered_layer_seg(&l);
  t0 = &l.x.tasks[sg->first_task];
  cr_assert_float_eq(eng_task_host(&e, sg, 0, 1, 0), a * (t0->host_bwd + 7), 1e-15,
                     "not resharded: no second cast");
  lowered_done(&l);
  fsdp_gpt(&l, &e, SC_FSDP2, 1);
  sg = lowered_layer_seg(&l);
  t0 = &l.x.tasks[sg->first_task];
  cr_assert_float_eq(eng_task_host(&e, sg, 0, 1, 0), a * t0->host_bwd, 1e-15, "FSDP2");
  lowered_done(&l);
}
