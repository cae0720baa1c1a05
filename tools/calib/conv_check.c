/*
 * conv_check.c -- the convolution model (src/cost/conv.c) against the
 * per-kernel times of a real ResNet-50 training trace.
 *
 *   conv_check [--gpu PRESET --dtype D] [FILE]   model vs measurement for every conv pass
 *   conv_check --fit [FILE]   grid-search cost_conv_params (eff_cuda, k0,
 *                             wino, wgrad_eff, wgrad_w, wgrad_k1, wino_wgrad,
 *                             dgrad_stride), minimising
 *                             the mean absolute log error over all passes
 *
 * FILE (default tools/calib/kineto_resnet50_v100_convs.txt, made by
 * tools/calib/kineto_conv.py): "n c h w k r s p q stride fwd dgrad wgrad"
 * in microseconds, one convolution per line. The trace's GPU is a Tesla
 * V100-DGXS-32GB (the V100 SXM2's 80 SMs and clocks): costed as the
 * v100-sxm2-32gb preset, in fp32. --gpu and --dtype (fp16, bf16, tf32,
 * fp32) cost another file, e.g. tools/calib/conv_bench.py's on an H200:
 *   conv_check --gpu h200 --dtype fp16 data/measured/conv_h200/conv_fp16_cl.txt
 * (the NCHW files also pay cuDNN's transposes in stepcast: conv_transposes,
 * which this check leaves out; it compares the convolution kernels).
 *
 * Build: cc -O2 -Iinclude -Isrc tools/calib/conv_check.c build/libstepcast.a -ljansson -lz -lm -fopenmp
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/dtype.h"
#include "cost/conv.h"

typedef struct meas { cost_conv cv; double us[3]; } meas;

static int load(const char *path, meas *m, int max) {
  FILE *f = fopen(path, "r");
  if (!f) {
    perror(path);
    exit(3);
  }
  char line[256];
  int n = 0;
  while (n < max && fgets(line, sizeof line, f)) {
    if (line[0] == '#') continue;
    double h, w, st;
    cost_conv *c = &m[n].cv;
    if (sscanf(line, "%lf %lf %lf %lf %lf %lf %lf %lf %lf %lf %lf %lf %lf", &c->n, &c->c, &h, &w,
               &c->k, &c->r, &c->s, &c->p, &c->q, &st, &m[n].us[0], &m[n].us[1], &m[n].us[2]) != 13)
      continue;
    c->stride = (int)st;
    c->first = n == 0;
    n++;
  }
  fclose(f);
  return n;
}

static sc_dtype DT = SC_FP32; /* the compute type of the file's passes (--dtype) */

/* Mean absolute log error of pr over the passes (and its count). */
static double score(const sc_gpu *g, const cost_conv_params *pr, const meas *m, int n, int print) {
  static const char *const pass[3] = {"fwd", "dgrad", "wgrad"};
  double sum = 0, tot[2][3] = {{0}};
  int cnt = 0;
  for (int i = 0; i < n; i++)
    for (int p = 0; p < 3; p++) {
      if (m[i].us[p] <= 0) continue;
      double t = cost_conv_time_ex(g, pr, DT, &m[i].cv, (cost_conv_pass)p) * 1e6;
      sum += fabs(log(t / m[i].us[p]));
      cnt++;
      tot[0][p] += m[i].us[p], tot[1][p] += t;
      if (print)
        printf("%4.0f->%4.0f %1.0fx%1.0f s%d %3.0fx%-3.0f %-5s measured %7.1f us model %7.1f us %+6.1f %%\n",
               m[i].cv.c, m[i].cv.k, m[i].cv.r, m[i].cv.s, m[i].cv.stride, m[i].cv.p, m[i].cv.q,
               pass[p], m[i].us[p], t, 100 * (t / m[i].us[p] - 1));
    }
  if (print)
    for (int p = 0; p < 3; p++)
      printf("total %-5s measured %.2f ms model %.2f ms (%+.1f %%)\n", pass[p], tot[0][p] / 1e3,
             tot[1][p] / 1e3, 100 * (tot[1][p] / tot[0][p] - 1));
  return sum / cnt;
}

int main(int argc, char **argv) {
  const char *gpu = "v100-sxm2-32gb", *path = "tools/calib/kineto_resnet50_v100_convs.txt";
  int fit = 0;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--fit")) fit = 1;
    else if (!strcmp(argv[i], "--gpu") && i + 1 < argc) gpu = argv[++i];
    else if (!strcmp(argv[i], "--dtype") && i + 1 < argc) {
      int d = dtype_from_name(argv[i + 1], strlen(argv[i + 1]));
      if (d < 0) {
        fprintf(stderr, "conv_check: unknown dtype %s (fp16, bf16, tf32, fp32)\n", argv[i + 1]);
        return 2;
      }
      DT = (sc_dtype)d, i++;
    } else path = argv[i];
  }
  static meas m[512];
  int n = load(path, m, 512);
  const sc_gpu *g = sc_gpu_preset(gpu);
  if (!g) {
    fprintf(stderr, "conv_check: unknown GPU preset %s\n", gpu);
    return 2;
  }
  cost_conv_params best = COST_CONV_DEFAULT;
  if (fit) {
    /* coordinate descent over a grid per parameter from the best of a
     * coarse start grid, 10 rounds */
    double bs = INFINITY;
    cost_conv_params p = best;
    for (p.eff_cuda = 0.5; p.eff_cuda <= 1.0001; p.eff_cuda += 0.1)
      for (p.wino = 1.5; p.wino <= 3.0001; p.wino += 0.5)
        for (p.wgrad_k1 = 250; p.wgrad_k1 <= 8000; p.wgrad_k1 *= 2)
          for (p.k0 = 0; p.k0 <= 256; p.k0 = p.k0 ? 4 * p.k0 : 16) {
            double s = score(g, &p, m, n, 0);
            if (s < bs) bs = s, best = p;
          }
    typedef struct axis { double *v, lo, hi, step; } axis;
    axis ax[] = {{&best.eff_cuda, 0.4, 1.0, 0.01},   {&best.k0, 0, 256, 8},
                 {&best.wino, 1.0, 3.0, 0.05},       {&best.wgrad_eff, 0.4, 1.6, 0.02},
                 {&best.wgrad_k1, 100, 10000, 50},   {&best.wgrad_w, 0, 4, 0.05}, {&best.wino_wgrad, 1.0, 3.0, 0.05},
                 {&best.dgrad_stride, 0.3, 1.0, 0.01}};
    for (int round = 0; round < 10; round++)
      for (size_t a = 0; a < sizeof ax / sizeof ax[0]; a++) {
        double keep = *ax[a].v;
        for (double v = ax[a].lo; v <= ax[a].hi + 1e-9; v += ax[a].step) {
          *ax[a].v = v;
          double s = score(g, &best, m, n, 0);
          if (s < bs) bs = s, keep = v;
        }
        *ax[a].v = keep;
      }
    printf("fit: eff_cuda %.2f k0 %.0f wino %.2f wgrad_eff %.2f wgrad_w %.2f wgrad_k1 %.0f "
           "wino_wgrad %.2f dgrad_stride %.2f: mean |log err| %.4f\n",
           best.eff_cuda, best.k0, best.wino, best.wgrad_eff, best.wgrad_w, best.wgrad_k1,
           best.wino_wgrad, best.dgrad_stride, bs);
  }
  double s = score(g, &best, m, n, 1);
  printf("%d convolutions, mean |log error| %.4f (%.1f %%)\n", n, s, 100 * (exp(s) - 1));
  return 0;
}
