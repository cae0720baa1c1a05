/*
 * fsdp1k.c -- the kernels FSDP1 runs around each unit's collectives;
 * fsdp1k.h names each one and its source line.
 */
#include "engine/fsdp1k.h"

#include "cost/compute.h"

double fsdp1k_predivide(double n) {
  long ranks = (long)n, f = 1;
  while (ranks % f == 0 && ranks / f > f) f *= 2;
  return (double)f;
}

/* Bytes of each kernel a unit of p elements runs, e-byte weights over n
 * ranks; 0 for a kernel that does not run. */
typedef struct k_bytes {
  double cast;                  /* fp32 shard -> low-precision shard */
  double cat;                   /* SplitWithSizesBackward */
  double pad, prediv;           /* the whole flat gradient */
  double zeros, postdiv, tofp32, accum; /* the reduced shard */
} k_bytes;

static k_bytes bytes_of(double p, double e, double n) {
  double pre = fsdp1k_predivide(n), s = p / n;
  int mixed = e < 4;
  k_bytes k;
  k.cast = mixed ? (4 + e) * s : 0;
  k.cat = 2 * e * p;
  k.pad = 2 * e * p;
  k.prediv = pre > 1 ? 2 * e * p : 0;
  k.zeros = e * s;
  k.postdiv = n / pre > 1 ? 2 * e * s : 0;
  k.tofp32 = mixed ? (e + 4) * s : 0;
  k.accum = 12 * s;
  return k;
}

fsdp1k_cost fsdp1k_unit(const sc_gpu *g, double params, double e, double n) {
  fsdp1k_cost c = {0, 0, 0};
  if (params <= 0 || n < 2) return c;
  k_bytes k = bytes_of(params, e, n);
  c.cast = cost_mem(g, k.cast);
  c.cat = cost_mem(g, k.cat);
  c.reduce = cost_mem(g, k.pad) + cost_mem(g, k.prediv) + cost_mem(g, k.zeros) +
             cost_mem(g, k.postdiv) + cost_mem(g, k.tofp32) + cost_mem(g, k.accum);
  return c;
}

double fsdp1k_bytes(double params, double e, double n, int gathers) {
  if (params <= 0 || n < 2) return 0;
  k_bytes k = bytes_of(params, e, n);
  return gathers * k.cast + k.cat + k.pad + k.prediv + k.zeros + k.postdiv + k.tofp32 + k.accum;
}

void fsdp1k_launches(double e, double n, int regather, int *fwd, int *bwd) {
  *fwd = *bwd = 0;
  if (n < 2) return;
  k_bytes k = bytes_of(1, e, n);
  *fwd = k.cast > 0;
  *bwd = (regather && k.cast > 0) + (k.cat > 0) + (k.pad > 0) + (k.prediv > 0) + (k.zeros > 0) +
         (k.postdiv > 0) + (k.tofp32 > 0) + (k.accum > 0);
}
