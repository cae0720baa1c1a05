/*
 * plan_attn.c -- plan.attention "auto"; see plan_attn.h for the rule and
 * its sources.
 */
#include "plan/plan_attn.h"

#include <assert.h>

#include "plan/plan.h"

/* Ampere (sm80) brought FlashAttention-2 and cuDNN's fused attention; TE
 * on Blackwell is sm100. Compute capability x 10. */
#define ATTN_FUSED_ARCH 80
#define ATTN_TE_ARCH 100

int plan_attn_runs_te(int arch, sc_dtype dt) {
  return dt == SC_FP8 || dt == SC_FP4 || arch >= ATTN_TE_ARCH;
}

int plan_attn_te_hint(const sc_plan *p) {
  return p->param_remainders || p->fsdp_impl == SC_FSDP_XLA;
}

sc_attention plan_attn_auto(int arch, const sc_plan *p) {
  if (arch > 0 && arch < ATTN_FUSED_ARCH) return SC_ATTN_UNFUSED;
  if (arch <= 0) return SC_ATTN_FLASH2; /* unknown: not necessarily NVIDIA's */
  /* a named framework says whether it runs TE (PyTorch's SDPA otherwise,
   * FlashAttention-2 on Ampere and Hopper, whatever the GEMMs' dtype) */
  int te = p->framework != SC_FW_AUTO ? plan_fw_te(p) || arch >= ATTN_TE_ARCH
                                      : plan_attn_runs_te(arch, p->dtype) || plan_attn_te_hint(p);
  if (te) return SC_ATTN_CUDNN;
  return SC_ATTN_FLASH2;
}

void plan_attn_resolve(sc_scenario *s) {
  sc_plan *p = &s->plan;
  if (p->attention != SC_ATTN_AUTO) return;
  p->attention = p->flash_attention ? plan_attn_auto(s->cluster.gpu.arch, p) : SC_ATTN_UNFUSED;
  if (p->attention == SC_ATTN_UNFUSED) p->flash_attention = 0;
  assert(p->attention != SC_ATTN_AUTO);
}
