/*
 * test_partial_floor.c -- the memory bound the search drops partial
 * recomputation plans by (docs/search.md, "Partial recomputation bounded
 * by full"): for every plan with full recomputation of every layer in
 * three spaces, job_mem_floor_partial after its job_lower is at most the
 * memory of each of its partial variants (the same point recomputing the
 * first N layers of each chunk, job_mem_floor_partial(j, N)), and it is a
 * real cut: above the GPU's memory for most variants that do not fit
 * (Llama-3 70B: 645 of 692; Mixtral fp8 65 of 93; GPT-3 13B in fp16 AMP
 * 2,565 of 2,838), and never for one that fits; and six more plan kinds
 * (every_plan_kind) where the bound must hold for every variant.
 */
#include <criterion/criterion.h>
#include <math.h>

#include "core/mem.h"
#include "job/job.h"
#include "search/space.h"
#include "searchcases.h"
#include "stepcast.h"

/* 1 when b is a's partial variant: the same point but for
 * recompute_layers (> 0 in b). */
static int partial_of(const space_pt *a, const space_pt *b) {
  return b->recompute == SC_RECOMP_FULL && b->recompute_layers > 0 && a->tp == b->tp &&
         a->pp == b->pp && a->dp == b->dp && a->cp == b->cp && a->ep == b->ep &&
         a->vpp == b->vpp && a->micro_batch == b->micro_batch &&
         a->fsdp_shard == b->fsdp_shard && a->first == b->first && a->last == b->last &&
         a->offload_layers == b->offload_layers && a->zero == b->zero &&
         a->emb_loss == b->emb_loss && a->etp == b->etp && a->dtype == b->dtype;
}

/* Every full plan of in's space and its partial variants, as above: how
 * many variants the bound drops (above the GPU); *variants lowered,
 * *unfit of them that do not fit. */
static long check_space(const sc_scenario *in, long *variants, long *unfit) {
  sc_error err = {0};
  sc_scenario base;
  base_of(in, &base);
  sc_job *j;
  cr_assert_eq(sc_job_open(&base, &j, &err), SC_OK, "%s", err.msg);
  sc_search_opts o;
  sc_search_opts_default(&o);
  o.max_tp = 8, o.max_pp = 16, o.max_micro_batch = 8, o.max_vpp = 2;
  space_pt *pts;
  long n, dropped = 0;
  *variants = *unfit = 0;
  cr_assert_eq(space_build(&base, job_graph(j), &o, &pts, &n, &err), SC_OK, "%s", err.msg);
  for (long i = 0; i < n; i++) {
    if (pts[i].recompute != SC_RECOMP_FULL || pts[i].recompute_layers > 0) continue;
    sc_plan p;
    sc_memory m;
    space_plan(&base.plan, &pts[i], &p);
    if (job_lower(j, &p, &m, &err) != SC_OK) continue;
    /* the variants follow their full plan in the canonical order */
    double fl[8];
    long k0 = i + 1, k1 = k0;
    for (; k1 < n && k1 - k0 < 8 && partial_of(&pts[i], &pts[k1]); k1++) {
      fl[k1 - k0] = job_mem_floor_partial(j, pts[k1].recompute_layers);
    }
    for (long k = k0; k < k1; k++) {
      space_plan(&base.plan, &pts[k], &p);
      if (job_lower(j, &p, &m, &err) != SC_OK) continue;
      ++*variants;
      cr_assert(fl[k - k0] <= m.total,
                "plan %ld (%d of every chunk's layers recomputed): memory %.17g below the "
                "bound %.17g of plan %ld",
                k, pts[k].recompute_layers, m.total, fl[k - k0], i);
      if (!m.fits) ++*unfit;
      if (fl[k - k0] > m.capacity) {
        cr_assert(!m.fits, "plan %ld fits under a bound above the GPU", k);
        dropped++;
      }
    }
  }
  mem_free(pts);
  sc_job_close(j);
  return dropped;
}

Test(partial_floor, llama_default_network) {
  sc_scenario s = llama();
  long variants, unfit, dropped = check_space(&s, &variants, &unfit);
  cr_assert(variants > 100, "only %ld partial variants", variants);
  /* measured: 645 of the 692 that do not fit */
  cr_assert(dropped >= unfit * 9 / 10, "the bound drops only %ld of the %ld of %ld variants "
            "that do not fit", dropped, unfit, variants);
}

Test(partial_floor, moe_fp8) {
  sc_scenario s = moe_fp8();
  long variants, unfit, dropped = check_space(&s, &variants, &unfit);
  cr_assert(variants > 10, "only %ld partial variants", variants);
  cr_assert(dropped >= unfit / 2, "the bound drops only %ld of the %ld of %ld variants that "
            "do not fit", dropped, unfit, variants);
}

/* fp16 AMP (fp32 weights, 16-bit copies per micro-batch in flight): the
 * copies move from "once" to "per micro-batch" in a partial variant. */
Test(partial_floor, gpt3_amp) {
  sc_scenario s;
  sc_scenario_default(&s);
  s.cluster.gpus = 64;
  s.plan.global_batch = 128;
  s.model = *sc_model_preset("gpt3-13b");
  s.plan.dtype = SC_FP16;
  s.plan.amp = 1;
  long variants, unfit, dropped = check_space(&s, &variants, &unfit);
  cr_assert(variants > 10, "only %ld partial variants", variants);
  cr_assert(dropped >= unfit / 2, "the bound drops only %ld of the %ld of %ld variants that "
            "do not fit", dropped, unfit, variants);
}

/* The other plan kinds the search produces, each a space whose every
 * partial variant check_space compares with its bound: 16-bit AMP, fp32
 * without flash attention (the 5as/h term kept), context parallelism
 * (long sequences), ZeRO 3 as DeepSpeed schedules it, MXFP8 with fp8
 * primary weights on a B200, and dense layers among MoE ones (two layer
 * blocks in one stage). The bound must hold in every one (the search's
 * SC_DEBUG_CHECKS build checks only those it drops). */
Test(partial_floor, every_plan_kind) {
  static const char *const cases[] = {
      "{\"model\": \"llama3-70b\", \"cluster\": {\"gpu\": \"h100-sxm5-80gb\", \"gpus\": 512}, "
      "\"plan\": {\"global_batch\": 512, \"dtype\": \"bf16\", \"amp\": true}}",
      "{\"model\": \"llama3-70b\", \"cluster\": {\"gpu\": \"h100-sxm5-80gb\", \"gpus\": 512}, "
      "\"plan\": {\"global_batch\": 512, \"dtype\": \"fp32\", \"flash_attention\": false}}",
      "{\"model\": {\"preset\": \"llama3-70b\", \"seq\": 65536}, \"cluster\": {\"gpu\": \"h200\", "
      "\"gpus\": 512}, \"plan\": {\"global_batch\": 512}}",
      "{\"model\": \"llama3-70b\", \"cluster\": {\"gpu\": \"h100-sxm5-80gb\", \"gpus\": 512}, "
      "\"plan\": {\"global_batch\": 512, \"fsdp_impl\": \"deepspeed\"}}",
      "{\"model\": \"llama3-70b\", \"cluster\": {\"gpu\": \"b200\", \"gpus\": 512}, \"plan\": "
      "{\"global_batch\": 512, \"dtype\": \"fp8\", \"fp8_recipe\": \"mxfp8\", "
      "\"fp8_param\": true}}",
      "{\"model\": {\"preset\": \"mixtral-8x7b\", \"dense_layers\": 4, \"moe_every\": 2}, "
      "\"cluster\": {\"gpu\": \"a100-sxm4-40gb\", \"gpus\": 64}, "
      "\"plan\": {\"global_batch\": 256}}",
  };
  for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
    sc_scenario s;
    sc_error err = {0};
    cr_assert_eq(sc_scenario_load_string_ex(&s, cases[c], "case", NULL, 0, SC_LOAD_PLAN_UNCHECKED,
                                            &err),
                 SC_OK, "case %zu: %s", c, err.msg);
    long variants, unfit;
    check_space(&s, &variants, &unfit);
    cr_assert(variants > 100 && unfit > 10, "case %zu: only %ld partial variants, %ld unfit", c,
              variants, unfit);
  }
}
