/*
 * rs_dense.c -- MLPs, interaction and dense optimizer of a recommendation
 * model; see rs_dense.h. GEMMs and memory-bound kernels reuse src/cost.
 */
#include "cost/compute.h"
#include "recsys/rs_dense.h"
#include "recsys/rs_model.h"

static double abytes(sc_dtype dt) { return dt == SC_FP16 || dt == SC_BF16 ? 2.0 : 4.0; }


/* One linear layer in -> out for b rows with bias + ReLU: forward GEMM and
 * the fused bias/activation pass; backward: data and weight gradients,
 * the activation gradient and the bias reduction. `first` has no data
 * gradient (its input is data). */
static void layer(const sc_rs_job *j, double b, int in, int out, int first, double *fwd,
                  double *bwd, int *kernels) {
  const sc_gpu *g = &j->gpu;
  double ab = abytes(j->dtype), act = b * out * ab;
  *fwd += cost_gemm(g, j->dtype, b, out, in, 1) + cost_mem(g, 2 * act);
  *bwd += cost_gemm(g, j->dtype, in, out, b, 1) + cost_mem(g, 3 * act) + cost_mem(g, act);
  if (!first) *bwd += cost_gemm(g, j->dtype, b, in, out, 1);
  *kernels += 2 + (first ? 3 : 4);
}

/* Dropout on b x width activations: a uniform float drawn per element
 * into a mask buffer (4 B written; cuRAND's curandGenerateUniform, as
 * HugeCTR's DropoutLayer draws it), then applied: read the activation and
 * the mask, write the output; backward reads the gradient and the mask and
 * writes the gradient. fp32: 16 B per element forward, 12 backward. */
#define RS_DROPOUT_MASK_BYTES 4.0
static void dropout(const sc_rs_job *j, double b, int width, double *fwd, double *bwd,
                    int *kernels, double *kept) {
  double e = b * width, ab = abytes(j->dtype), mk = RS_DROPOUT_MASK_BYTES;
  *fwd += cost_mem(&j->gpu, e * mk) + cost_mem(&j->gpu, e * (2 * ab + mk));
  *bwd += cost_mem(&j->gpu, e * (2 * ab + mk));
  *kernels += 3;
  *kept += e * mk;
}

/* An MLP of n layers; with the model's dropout, after each layer but the
 * last when `last_is_output` (the top MLP's logit). */
static void mlp(const sc_rs_job *j, double b, int in, const int *w, int n, int first,
                int last_is_output, double *fwd, double *bwd, int *kernels, double *kept) {
  for (int i = 0; i < n; i++) {
    layer(j, b, in, w[i], first && i == 0, fwd, bwd, kernels);
    *kept += b * (in + w[i]) * abytes(j->dtype);
    if (j->model.dropout && !(last_is_output && i == n - 1))
      dropout(j, b, w[i], fwd, bwd, kernels, kept);
    in = w[i];
  }
}

/* Deep vectors per sample (features of non-wide tables) and their width. */
static void deep(const sc_rs_model *m, int *nf, double *w) {
  *nf = 0;
  *w = 0;
  for (int i = 0; i < m->n_tables; i++)
    if (!m->tables[i].wide) {
      *nf += m->tables[i].features;
      *w += (double)m->tables[i].features * m->tables[i].dim;
    }
}

/* The interaction (and DCNv2 cross network) for b samples. */
static void interaction(const sc_rs_job *j, double b, double *fwd, double *bwd, int *kernels,
                        double *kept) {
  const sc_rs_model *m = &j->model;
  const sc_gpu *g = &j->gpu;
  double ab = abytes(j->dtype);
  int nf;
  double w;
  deep(m, &nf, &w);
  int bo = rs_bottom_out(m);
  double x = b * (w + bo) * ab;      /* the concatenated input */
  int d = sc_rs_interaction_width(m);
  double y = b * d * ab;
  if (m->inter == SC_RS_DOT) {
    /* Z = X X^T per sample over nf + 1 vectors of width bo, lower
     * triangle: a fused batched kernel (DLRM implementations ship one:
     * NVIDIA's dot_based_interact, FBGEMM's) at the roofline of its
     * FLOPs on the GPU's GEMM rate and its bytes; backward does two. */
    double f = nf + 1, flops = 2.0 * f * f * bo * b;
    double rate = cost_peak(g, j->dtype) * cost_gemm_peak_eff(g, j->dtype);
    double tf = flops / rate, tm = cost_mem(g, x + y);
    *fwd += (tf > tm ? tf : tm) + cost_mem(g, y);
    *bwd += (2 * tf > cost_mem(g, 2 * x + y) ? 2 * tf : cost_mem(g, 2 * x + y)) + cost_mem(g, x);
    *kernels += 6;
    *kept += x + y;
    return;
  }
  *fwd += cost_mem(g, 2 * x);   /* concatenation */
  *bwd += cost_mem(g, 2 * x);   /* split of the gradient */
  *kernels += 2;
  *kept += x;
  if (m->concat_pool > 1) {     /* average pooling: read x, write y; back: read y, write x */
    *fwd += cost_mem(g, x + y);
    *bwd += cost_mem(g, x + y);
    *kernels += 2;
    *kept += y;
  }
  if (m->inter == SC_RS_DCNV2) {
    /* x_{l+1} = x0 * (W x_l + b) + x_l, W full or U V^T of rank r */
    for (int l = 0; l < m->cross_layers; l++) {
      if (m->cross_rank > 0) {
        *fwd += cost_gemm(g, j->dtype, b, m->cross_rank, d, 1) +
                cost_gemm(g, j->dtype, b, d, m->cross_rank, 1);
        *bwd += 2 * (cost_gemm(g, j->dtype, b, m->cross_rank, d, 1) +
                     cost_gemm(g, j->dtype, b, d, m->cross_rank, 1));
      } else {
        *fwd += cost_gemm(g, j->dtype, b, d, d, 1);
        *bwd += 2 * cost_gemm(g, j->dtype, b, d, d, 1);
      }
      *fwd += cost_mem(g, 4 * y);
      *bwd += cost_mem(g, 6 * y);
      *kernels += 8;
      *kept += 2 * y;
    }
  }
}

/* Optimizer arrays of the dense weights read and written (fp32 master
 * weights): SGD weight + grad, Adagrad + accumulator, Adam + 2 moments.
 * Row-wise Adagrad is an embedding optimizer (TorchRec's RowWiseAdagrad
 * runs in FBGEMM's kernels): the dense part of such a job runs Adagrad. */
static double dense_opt_arrays(sc_rs_opt o) {
  return o == SC_RS_SGD ? 3 : o == SC_RS_ADAGRAD || o == SC_RS_ROWWISE_ADAGRAD ? 5 : 7;
}

void rs_dense(const sc_rs_job *j, double b, rs_dense_time *d) {
  const sc_rs_model *m = &j->model;
  *d = (rs_dense_time){0};
  if (b <= 0) return;
  mlp(j, b, m->dense_features, m->bottom, m->n_bottom, 1, 0, &d->bottom_fwd, &d->bottom_bwd,
      &d->kernels, &d->act_bytes);
  interaction(j, b, &d->inter_fwd, &d->inter_bwd, &d->kernels, &d->act_bytes);
  d->top_fwd = d->inter_fwd;
  d->top_bwd = d->inter_bwd;
  mlp(j, b, sc_rs_interaction_width(m), m->top, m->n_top, 0, 1, &d->top_fwd, &d->top_bwd,
      &d->kernels, &d->act_bytes);
  /* loss and its gradient */
  d->top_fwd += cost_mem(&j->gpu, b * 8);
  d->kernels += 4;
  d->optimizer = cost_mem(&j->gpu, sc_rs_dense_params(m) * 4 * dense_opt_arrays(j->opt));
  d->kernels += 2;
}
