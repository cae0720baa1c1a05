/*
 * test_fsdp1k.c -- the kernels FSDP1 runs around each unit's collectives
 * (src/engine/fsdp1k.h): the pre-divide factor of its default hook, the
 * bytes of each kernel, their time, against arithmetic a reader can redo.
 */
#include <criterion/criterion.h>
#include <math.h>

#include "cost/compute.h"
#include "engine/fsdp1k.h"

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
