/*
 * test_moe_permute.c -- how an MoE layer's tokens are rearranged around
 * the dispatcher and what its experts keep, by hand on a small model:
 *  - the permute and unpermute: Transformer Engine's fused kernels
 *    (plan.moe_permute_fusion) read and write (1 + 1/k) x the k copies,
 *    forward and backward; unfused, the graph's own passes;
 *  - Megatron-Core's alltoall dispatcher sorts the received tokens by local
 *    expert after the all-to-all (and the expert-tensor all-gather) and
 *    restores their order before the combine, when a rank holds more than
 *    one expert (sort_chunks_by_idxs); one expert a rank, or the allgather
 *    and flex dispatchers (which permute straight into that order), no
 *    copy;
 *  - the router in fp32 (plan.moe_router_dtype): a cast of its input and
 *    an fp32 GEMM;
 *  - the busiest expert-parallel rank keeps its experts' inputs and
 *    outputs for backward at its own row count (moe_capacity or
 *    moe_imbalance times the mean), as its GEMMs already run them.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "lowered.h"

/* lowered_small_moe at tp 1, dp 8, ep `ep`. */
static sc_scenario small(int ep, sc_moe_dispatcher d) { return lowered_small_moe(1, ep, d); }

static const double MIB = 1048576;

/* The layer's task names from norm2 on, as "name name ...". */
static void moe_names(const lowered *l, char *buf, size_t cap) {
  lowered_names_from(l, "norm2", buf, cap);
}

Test(moe_permute, alltoall_sorts_the_received_tokens_by_local_expert) {
  sc_scenario s = small(4, SC_MOE_ALLTOALL);
  lowered l;
  lowered_make(&l, &s);
  char got[512];
  moe_names(&l, got, sizeof got);
  cr_assert_str_eq(got, "norm2 router route ep_dispatch ep_sort fc1 swiglu fc2 ep_unsort "
                        "ep_combine unroute bias_dropout_add2");
  /* 2 experts a rank; it receives its share of the 8 ranks' 1024 x 2
   * copies: 1024 x 2 = 2048 rows of 1024 16-bit values, 4 MiB, read and
   * written: 8 MiB each way, its gradient the same copy back */
  const xg_task *a = lowered_task(&l, "ep_sort"), *b = lowered_task(&l, "ep_unsort");
  cr_assert(a->kind == XG_MEM && b->kind == XG_MEM);
  cr_assert_float_eq(a->bytes, 8 * MIB, 1e-3, "sort %g", a->bytes);
  cr_assert_float_eq(b->bytes, 8 * MIB, 1e-3, "unsort %g", b->bytes);
  cr_assert_float_eq(a->bwd_scale, 1.0, 1e-12);
  cr_assert(a->host_fwd == 1 && a->host_bwd == 1);
  lowered_done(&l);
}

Test(moe_permute, one_expert_a_rank_or_other_dispatchers_do_not_sort) {
  struct { int ep; sc_moe_dispatcher d; } cases[] = {
      {8, SC_MOE_ALLTOALL}, {4, SC_MOE_ALLGATHER}, {4, SC_MOE_FLEX}};
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    sc_scenario s = small(cases[i].ep, cases[i].d);
    lowered l;
    lowered_make(&l, &s);
    cr_assert_null(lowered_find(&l, "ep_sort"), "case %zu", i);
    cr_assert_null(lowered_find(&l, "ep_unsort"), "case %zu", i);
    lowered_done(&l);
  }
}

Test(moe_permute, the_busiest_rank_sorts_its_own_rows) {
  sc_scenario s = small(4, SC_MOE_ALLTOALL);
  s.plan.moe_imbalance = 1.5;
  lowered l;
  lowered_make(&l, &s);
  const xg_task *a = lowered_task(&l, "ep_sort"), *b = lowered_task(&l, "ep_unsort");
  cr_assert_float_eq(a->bytes, 12 * MIB, 1e-3, "sort %g", a->bytes);
  cr_assert_float_eq(b->bytes, 12 * MIB, 1e-3, "unsort %g", b->bytes);
  lowered_done(&l);
}

Test(moe_permute, etp_sorts_after_the_expert_tensor_gather) {
  /* tp 2 = etp, sequence parallel: a rank routes 512 tokens, its expert-
   * tensor group gathers what both received: 1024 x 2 rows, 4 MiB */
  sc_scenario s = small(4, SC_MOE_ALLTOALL);
  s.plan.tp = 2;
  s.plan.sp = 1;
  lowered l;
  lowered_make(&l, &s);
  char got[512];
  moe_names(&l, got, sizeof got);
  cr_assert_str_eq(got, "norm2 router route ep_dispatch etp_gather ep_sort fc1 swiglu fc2 "
                        "ep_unsort etp_scatter ep_combine unroute bias_dropout_add2");
  cr_assert_float_eq(lowered_task(&l, "ep_sort")->bytes, 8 * MIB, 1e-3);
  cr_assert_float_eq(lowered_task(&l, "ep_unsort")->bytes, 8 * MIB, 1e-3);
  lowered_done(&l);
}

/* Activations per micro-batch of the layer segment at tokens factor cf
 * (imbalance, or capacity when cap). */
static double layer_act(double cf, int cap) {
  sc_scenario s = small(4, SC_MOE_ALLTOALL);
  if (cap) s.plan.moe_capacity = cf;
  else s.plan.moe_imbalance = cf;
  lowered l;
  lowered_make(&l, &s);
  double a = lowered_layer_seg(&l)->act_bytes;
  lowered_done(&l);
  return a;
}

Test(moe_permute, the_busiest_rank_keeps_its_experts_rows) {
  /* a rank's experts keep fc1's input (2048 rows x 1024), swiglu's input
   * (fc1's output, 2048 x 4096) and fc2's input (2048 x 2048), 16-bit:
   * 4 + 16 + 8 = 28 MiB at the mean; the busiest rank at 1.5x keeps 14
   * MiB more, buffers padded to capacity 1.25 7 MiB more; nothing else of
   * the layer changes */
  double base = layer_act(1.0, 0);
  cr_assert_float_eq(layer_act(1.5, 0) - base, 14 * MIB, 1e-3, "imbalance 1.5: %g",
                     layer_act(1.5, 0) - base);
  cr_assert_float_eq(layer_act(1.25, 1) - base, 7 * MIB, 1e-3, "capacity 1.25: %g",
                     layer_act(1.25, 1) - base);
}

Test(moe_permute, engines_agree_with_the_sort) {
  sc_scenario s = small(4, SC_MOE_ALLTOALL);
  sc_result a = lowered_predict(&s, 0), e = lowered_predict(&s, 1);
  cr_assert(fabs(a.step_s / e.step_s - 1) < 0.02, "closed %g event %g", a.step_s, e.step_s);
}

Test(moe_permute, fused_kernels_read_each_token_once_and_write_its_copies) {
  /* a rank's 1024 tokens, 2 copies each of 1024 16-bit values: n = 2 Mi
   * elements; fused, the permute reads 2 MiB and writes 4 MiB, the
   * unpermute reads 4 and writes 2, each backward the same; unfused the
   * graph's 2 passes of n (8 MiB) forward and twice that backward */
  for (int fused = 0; fused <= 1; fused++) {
    sc_scenario s = small(4, SC_MOE_ALLTOALL);
    s.plan.moe_permute_fusion = fused;
    lowered l;
    lowered_make(&l, &s);
    const xg_task *r = lowered_task(&l, "route"), *u = lowered_task(&l, "unroute");
    double want = fused ? 6 * MIB : 8 * MIB, bs = fused ? 1.0 : 2.0;
    cr_assert_float_eq(r->bytes, want, 1e-3, "fused %d: route %g", fused, r->bytes);
    cr_assert_float_eq(u->bytes, want, 1e-3, "fused %d: unroute %g", fused, u->bytes);
    cr_assert_float_eq(r->bwd_scale, bs, 1e-12, "fused %d", fused);
    cr_assert_float_eq(u->bwd_scale, bs, 1e-12, "fused %d", fused);
    lowered_done(&l);
  }
}

Test(moe_permute, fused_is_the_default_and_never_slower) {
  sc_scenario s = small(4, SC_MOE_ALLTOALL);
  lowered l;
  lowered_make(&l, &s);
  cr_assert_eq(l.s.plan.moe_permute_fusion, 1);
  lowered_done(&l);
  s.plan.moe_permute_fusion = 0;
  sc_result off = lowered_predict(&s, 0);
  s.plan.moe_permute_fusion = 1;
  sc_result on = lowered_predict(&s, 0);
  cr_assert(on.step_s < off.step_s, "fused %g unfused %g", on.step_s, off.step_s);
}

Test(moe_permute, an_fp32_router_casts_its_input_and_multiplies_in_fp32) {
  /* Megatron --moe-router-dtype fp32: the rank's 1024 tokens of 1024
   * values cast from 2 to 4 bytes (6 MiB moved), then a 1024 x 8 x 1024
   * GEMM in fp32; "auto" runs it in bf16 with no cast */
  for (int fp32 = 0; fp32 <= 1; fp32++) {
    sc_scenario s = small(4, SC_MOE_ALLTOALL);
    s.plan.moe_router_fp32 = fp32;
    lowered l;
    lowered_make(&l, &s);
    const xg_task *r = lowered_task(&l, "router"), *cast = lowered_find(&l, "cast_router");
    cr_assert(r->kind == XG_GEMM && r->m == 1024 && r->n == 8 && r->k == 1024);
    cr_assert_eq(r->dtype, fp32 ? SC_FP32 : SC_BF16, "fp32 %d: dtype %d", fp32, (int)r->dtype);
    cr_assert_eq(cast != NULL, fp32);
    if (cast) cr_assert_float_eq(cast->bytes, 6 * MIB, 1e-3, "cast %g", cast->bytes);
    lowered_done(&l);
  }
}
