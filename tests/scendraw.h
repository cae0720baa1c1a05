/*
 * scendraw.h -- random valid training scenarios for the seeded property
 * tests (test_engine_diff.c, test_metamorphic.c): a splitmix64 generator and
 * draw_scenario(), which writes one scenario as the JSON a user writes --
 * dense and MoE presets, six GPU kinds, tp / pp / dp / cp / ep / etp,
 * interleaving under Megatron's micro-batch rule, uneven and explicit
 * pipeline layouts, ZeRO 0-3 with the four FSDP implementations and HSDP,
 * recompute none / selective / full / partial, activation offload, fp8 /
 * fp4 where the GPU has them, the overlap switches, sequences up to 128k
 * with context parallelism, 8 to 16,384 GPUs, with and without a topology.
 * The rules draw only what Megatron-LM / PyTorch accept. Also the checks of
 * a breakdown both tests make (bd_sum, bd_sane). Static functions: one copy
 * per test executable (Criterion asserts).
 */
#ifndef SC_TEST_SCENDRAW_H
#define SC_TEST_SCENDRAW_H

#include <criterion/criterion.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stepcast.h"

/* splitmix64: the draw's generator (deterministic on every platform). */
typedef struct rng {
  uint64_t s;
} rng;

static uint64_t rng_next(rng *r) {
  uint64_t z = (r->s += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

/* An integer in [0, n). */
static int rng_int(rng *r, int n) { return (int)(rng_next(r) % (uint64_t)n); }

/* 1 with probability 1 / n. */
static int rng_one_in(rng *r, int n) { return rng_int(r, n) == 0; }

/* One of the n values of v. */
static int rng_pick(rng *r, const int *v, int n) { return v[rng_int(r, n)]; }

/* JSON text of one draw, appended piece by piece (bounded buffer). */
typedef struct jbuf {
  char s[2048];
  size_t n;
} jbuf;

static void jb_add(jbuf *b, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int k = vsnprintf(b->s + b->n, sizeof b->s - b->n, fmt, ap);
  va_end(ap);
  cr_assert(k >= 0 && (size_t)k < sizeof b->s - b->n, "draw JSON overflows its buffer");
  b->n += (size_t)k;
}

static const char *const DENSE[] = {"gpt3-1.3b",  "gpt3-13b",     "gpt3-175b",
                                    "llama3-8b",  "llama3-70b",   "llama3.1-405b",
                                    "mpt-7b",     "nemotron4-15b", "llama2-13b"};
static const char *const MOE[] = {"deepseek-v3",  "qwen3-30b-a3b",   "mixtral-8x7b",
                                  "llama4-scout", "mixtral-8x22b",   "qwen3-235b-a22b"};
static const char *const GPUS[] = {"a100-sxm4-80gb", "h100-sxm5-80gb", "h200",
                                   "b200",           "gb200",          "mi300x"};

/* The largest power of two <= x, at least 1. */
static int pow2_floor(long x) {
  int p = 1;
  while ((long)p * 2 <= x) p *= 2;
  return p;
}

/* 1 if tp splits the model's heads, KV heads and MLP evenly. */
static int tp_ok(const sc_transformer *t, int tp) {
  int kv = t->kv_heads ? t->kv_heads : t->heads;
  int ffn = t->ffn ? t->ffn : 4 * t->hidden;
  int dffn = t->dense_ffn ? t->dense_ffn : ffn;
  return t->heads % tp == 0 && kv % tp == 0 && ffn % tp == 0 && dffn % tp == 0;
}

/* Pipeline keys: even stages, or uneven first/last stages, or an explicit
 * layout (Megatron-Core's get_num_layers_to_build); sets *vpp to the
 * interleaving (1 = none). Returns 0 when no layout was drawn. */
static int draw_pipeline(rng *r, jbuf *b, int layers, int pp, int *vpp) {
  *vpp = 1;
  if (pp == 1) return 1;
  int per = layers / pp;
  int kind = rng_int(r, 6); /* 0-3 even, 4 first/last, 5 explicit layout */
  if (layers % pp) kind = 4 + rng_int(r, 2);
  if (kind < 4) {
    if (rng_one_in(r, 2)) {
      int v[] = {2, 3, 4, 6};
      int c = rng_pick(r, v, 4);
      if (per % c == 0) *vpp = c;
    }
  } else if (kind == 4 && pp > 2) {
    /* first and last stages lighter (the embedding and loss stages) */
    int first = per - rng_int(r, per > 1 ? per : 1);
    int rest = layers - first;
    int last = rest / (pp - 1) - rng_int(r, 2);
    if (last < 1) last = 1;
    if ((rest - last) % (pp - 2)) {
      last += (rest - last) % (pp - 2);
    }
    if (last > rest - (pp - 2)) return 0;
    jb_add(b, ", \"pp_first_layers\": %d, \"pp_last_layers\": %d", first, last);
  } else {
    /* explicit layout, one count per stage, summing to the layers */
    int left = layers;
    jb_add(b, ", \"pp_layout\": [");
    for (int i = 0; i < pp; i++) {
      int n = i == pp - 1 ? left : layers / pp + (rng_int(r, 3) - 1);
      if (n < 1) n = 1;
      if (left - n < pp - 1 - i) n = left - (pp - 1 - i);
      jb_add(b, "%s%d", i ? ", " : "", n);
      left -= n;
    }
    jb_add(b, "]");
    if (left != 0) return 0;
  }
  if (*vpp > 1) jb_add(b, ", \"vpp\": %d, \"schedule\": \"interleaved\"", *vpp);
  else if (rng_one_in(r, 8)) jb_add(b, ", \"schedule\": \"gpipe\"");
  return 1;
}

/* Memory keys: ZeRO stage, FSDP implementation, HSDP, recompute, offload;
 * returns the recompute kind drawn (0 none, 1 selective, 2 full, 3 partial). */
static int draw_memory(rng *r, jbuf *b, int layers, int pp, int dpcp, int ep) {
  int zero = rng_int(r, 4);
  jb_add(b, ", \"zero\": %d", zero);
  if (zero == 3) {
    static const char *const IMPL[] = {"fsdp2", "fsdp1", "deepspeed", "xla"};
    int impl = rng_int(r, pp > 1 ? 2 : 4);
    /* DeepSpeed's stage 3 runs neither a pipeline nor its MoE layers */
    if (impl == 2 && (pp > 1 || ep > 1)) impl = 0;
    jb_add(b, ", \"fsdp_impl\": \"%s\"", IMPL[impl]);
    if (impl < 2 && rng_one_in(r, 3)) jb_add(b, ", \"fsdp_reshard\": false");
    if (dpcp >= 4 && rng_one_in(r, 3)) jb_add(b, ", \"fsdp_shard\": %d", pow2_floor(dpcp) / 2);
  }
  int rc = rng_int(r, 4); /* none, selective, full, partial */
  static const char *const RC[] = {"none", "selective", "full", "full"};
  jb_add(b, ", \"recompute\": \"%s\"", RC[rc]);
  if (rc == 3) jb_add(b, ", \"recompute_layers\": %d", 1 + rng_int(r, layers / pp));
  if (rc == 0 && pp == 1 && rng_one_in(r, 4))
    jb_add(b, ", \"offload_layers\": %d", 1 + rng_int(r, layers - 1));
  return rc;
}

/* One scenario JSON in *b (returns 0 when the draw found no valid
 * layout: not an input error, just nothing to try). */
static int draw_scenario(rng *r, jbuf *b) {
  int moe = rng_one_in(r, 2);
  const char *mname = moe ? MOE[rng_int(r, 6)] : DENSE[rng_int(r, 9)];
  const sc_model *m = sc_model_preset(mname);
  cr_assert(m, "no model preset %s", mname);
  const sc_transformer *t = &m->tf;
  const char *gname = GPUS[rng_int(r, 6)];
  const sc_gpu *g = sc_gpu_preset(gname);
  cr_assert(g, "no GPU preset %s", gname);
  int lg = rng_one_in(r, 6) ? 11 + rng_int(r, 4) : 3 + rng_int(r, 8);
  long gpus = 1L << lg;
  int cp = rng_one_in(r, 3) ? 1 << (1 + rng_int(r, 3)) : 1;
  long seq = t->seq;
  if (cp > 1) seq = (long)t->seq * (1L << rng_int(r, 6));
  else if (rng_one_in(r, 4)) seq = t->seq * 2;
  if (seq > 131072) seq = 131072;
  int tp = 1 << rng_int(r, 4);
  while (tp > 1 && !tp_ok(t, tp)) tp /= 2;
  int ppv[] = {1, 1, 2, 4, 8, 16};
  int pp = rng_pick(r, ppv, 6);
  if (pp > t->layers) pp = 1;
  if ((long)tp * pp * cp > gpus) return 0;
  long dp = gpus / ((long)tp * pp * cp);
  int etp1 = moe && tp > 1 && rng_one_in(r, 3);
  int ep = 1;
  if (moe) {
    long room = etp1 ? (long)tp * dp * cp : dp * cp;
    int cap = pow2_floor(room < t->experts ? room : t->experts);
    while (cap > 1 && t->experts % cap) cap /= 2;
    ep = cap > 1 ? 1 << rng_int(r, __builtin_ctz((unsigned)cap) + 1) : 1;
  }
  jb_add(b, "{\"model\": {\"preset\": \"%s\", \"seq\": %ld}, ", mname, seq);
  jb_add(b, "\"cluster\": {\"gpu\": \"%s\", \"gpus\": %ld", gname, gpus);
  if (gpus <= 256 && strcmp(gname, "gb200") && rng_one_in(r, 5)) {
    if (rng_one_in(r, 2))
      jb_add(b, ", \"topology\": \"rail:nodes=%ld,gpus=8\"", gpus / 8);
    else
      jb_add(b, ", \"topology\": \"fat_tree:hosts=%ld,radix=16,levels=%d,oversub=%d,bw=%d\"",
             gpus, gpus > 128 ? 3 : 2, 1 + rng_int(r, 4), rng_one_in(r, 2) ? 25 : 50);
  }
  jb_add(b, "}, \"plan\": {\"tp\": %d, \"pp\": %d, \"cp\": %d, \"dp\": %ld", tp, pp, cp, dp);
  if (moe) jb_add(b, ", \"ep\": %d%s", ep, etp1 ? ", \"etp\": 1" : "");
  jb_add(b, ", \"sp\": %s", tp > 1 && rng_int(r, 4) ? "true" : "false");
  int vpp;
  if (!draw_pipeline(r, b, t->layers, pp, &vpp)) return 0;
  long mb = 1 << rng_int(r, 3);
  long mcount = 1 + rng_int(r, rng_one_in(r, 3) ? 256 : 24);
  if (vpp > 1) mcount = pp * (1 + mcount / pp);
  if (pp == 1 && rng_one_in(r, 2)) mcount = 1;
  jb_add(b, ", \"micro_batch\": %ld, \"global_batch\": %ld", mb, mb * dp * mcount);
  int rc = draw_memory(r, b, t->layers, pp, (int)(dp * cp), ep);
  const char *dt = "bf16";
  if (g->peak_flops[SC_FP8] > 0 && rng_one_in(r, 3)) dt = "fp8";
  if (g->peak_flops[SC_FP4] > 0 && rng_one_in(r, 4)) dt = "fp4";
  jb_add(b, ", \"dtype\": \"%s\"", dt);
  jb_add(b, ", \"overlap_grad_reduce\": %s", rng_int(r, 4) ? "true" : "false");
  jb_add(b, ", \"overlap_param_gather\": %s", rng_int(r, 4) ? "true" : "false");
  if (tp > 1 && rng_one_in(r, 4)) jb_add(b, ", \"overlap_tp\": true");
  if (tp > 1 && rng_one_in(r, 4)) jb_add(b, ", \"tp_async_bwd\": true");
  if (ep > 1 && rc < 2 && (pp == 1 || vpp > 1) && rng_one_in(r, 4)) jb_add(b, ", \"overlap_ep\": true");
  /* Megatron: "CUDA graphs not supported with CPU offloading" */
  if (!strstr(b->s, "offload_layers") && rng_one_in(r, 6)) jb_add(b, ", \"cuda_graphs\": true");
  jb_add(b, "}}");
  return 1;
}

/* The integer in environment variable name, or dflt when it is unset. */
static long env_long(const char *name, long dflt) {
  const char *v = getenv(name);
  return v && *v ? strtol(v, NULL, 10) : dflt;
}

/* Sum of a breakdown's parts (s). */
static double bd_sum(const sc_breakdown *d) {
  return d->compute + d->host + d->tp_comm + d->ep_comm + d->pp_comm + d->bubble + d->dp_comm +
         d->optimizer + d->offload;
}

/* 1 if every part is finite and >= 0. */
static int bd_sane(const sc_breakdown *d) {
  const double v[] = {d->compute, d->host,  d->tp_comm,   d->ep_comm, d->pp_comm,
                      d->bubble,  d->dp_comm, d->optimizer, d->offload};
  for (size_t i = 0; i < sizeof v / sizeof *v; i++)
    if (!isfinite(v[i]) || v[i] < 0) return 0;
  return 1;
}

#endif
