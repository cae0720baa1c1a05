/*
 * whatif.c -- see whatif.h.
 */
#include "trace/whatif.h"

#include <math.h>
#include <string.h>
#include <strings.h>

#include "cost/compute.h"
#include "hw/gpu_names.h"
#include "load/scenario.h"

/* Network defaults when the what-if names none. Latencies are those of
 * the server presets (src/hw/cluster_presets.c: 0.6 us per NVLink hop,
 * 2.7 us per network traversal); the NIC is one 200 Gb/s HDR InfiniBand
 * port per GPU (DGX A100 datasheet: 8 x 200 Gb/s for 8 GPUs). */
#define WI_NVLINK_LAT 0.6e-6
#define WI_NIC_LAT 2.7e-6
#define WI_NIC_BW (200e9 / 8)
#define WI_RANKS_PER_NODE 8

/* Traced device names (deviceProperties) to presets: the name as
 * hw/gpu_names.h reads it (nvidia-smi's spellings, "NVIDIA L40S"), else a
 * substring of the name, else the SM version. */
const sc_gpu *wi_traced_gpu(const char *name, int arch) {
  const sc_gpu *named = name ? gpun_resolve(name, NULL, 0) : NULL;
  if (named) return named;
  static const struct {
    const char *key, *preset;
  } t[] = {{"V100", "v100-sxm2-32gb"}, {"A100-SXM4-40GB", "a100-sxm4-40gb"},
           {"A100", "a100-sxm4-80gb"}, {"H100", "h100-sxm5-80gb"},
           {"H200", "h200"},           {"GB200", "gb200"},
           {"B200", "b200"},           {"MI300", "mi300x"}};
  for (size_t i = 0; name && i < sizeof t / sizeof t[0]; i++)
    if (strstr(name, t[i].key)) return sc_gpu_preset(t[i].preset);
  switch (arch) {
    case 70:
      return sc_gpu_preset("v100-sxm2-32gb");
    case 80:
      return sc_gpu_preset("a100-sxm4-80gb");
    case 90:
      return sc_gpu_preset("h100-sxm5-80gb");
    case 100:
      return sc_gpu_preset("b200");
    default:
      return NULL;
  }
}

/* Kernel time of class cl on g relative to a unit of work (s). */
static double class_time(const sc_gpu *g, int cl, int fp32) {
  sc_dtype dt = fp32 ? SC_FP32 : SC_FP16;
  switch (cl) {
    case TG_CL_GEMM:
      return 1.0 / (cost_peak(g, dt) * cost_gemm_peak_eff(g, dt));
    case TG_CL_ATTN:
      return 1.0 / (cost_peak(g, SC_FP16) * g->attn_eff);
    case TG_CL_MEM:
      return cost_mem(g, 1e9);
    default:
      return 1.0;
  }
}

static int bad_value(sc_error *err, const char *key, const char *valid) {
  return sc_error_set(err, SC_EINPUT, "trace what-if: %s: %s", key, valid);
}

static int check(const sc_trace_whatif *w, sc_error *err) {
  if (!(w->dp_scale > 0) || !isfinite(w->dp_scale))
    return bad_value(err, "dp_scale", "expected a number > 0 (2 = twice the data-parallel degree)");
  if (w->nvlink_bw < 0 || w->nic_bw < 0 || !isfinite(w->nvlink_bw) || !isfinite(w->nic_bw))
    return bad_value(err, "nvlink_bw/nic_bw", "expected bytes/s >= 0 (0 = default)");
  if (w->ranks_per_node < 0) return bad_value(err, "ranks_per_node", "expected >= 0 (0 = 8)");
  return SC_OK;
}

/* The largest group under dp_scale must stay within what the NCCL model
 * takes (the limit of `stepcast collective`, src/coll/sweep.c): beyond
 * it the rank count overflowed and collectives silently kept their
 * traced time. */
#define WI_MAX_RANKS (1 << 24)
/* A scaled group is whole ranks: group x dp_scale a whole number >= 1 (it
 * was rounded in silence: x0.3 of 2 ranks ran over 1, said as x0.3). */
static int check_whole(double group, double dp_scale, sc_error *err) {
  double x = group * dp_scale;
  if (x >= 1 && fabs(x - round(x)) <= 1e-9 * x) return SC_OK;
  double lo = x < 1 ? 1 : floor(x), hi = x < 1 ? 2 : ceil(x); /* the nearest whole ranks */
  return sc_error_set(err, SC_EINPUT,
                      "trace what-if: dp_scale: %g times the traced group of %.0f ranks is %g "
                      "ranks; expected a scale that gives whole ranks, a multiple of 1/%.0f "
                      "(nearby: %g or %g)", dp_scale, group, x, group, lo / group, hi / group);
}

static int check_ranks(const tg_rank *r, double dp_scale, sc_error *err) {
  if (dp_scale == 1) return SC_OK; /* the traced groups: ints already */
  double most = r->world > 0 ? r->world : 1;
  for (int i = 0; i < r->gpu.n; i++)
    if (r->gpu.v[i].kind == TG_COMM && r->gpu.v[i].group > most) most = r->gpu.v[i].group;
  /* the groups whatif_ranks scales: the world's, or every one when the
   * world is unknown */
  int rc = r->world > 0 ? check_whole(r->world, dp_scale, err) : SC_OK;
  for (int i = 0; i < r->gpu.n && !rc && r->world <= 0; i++)
    if (r->gpu.v[i].kind == TG_COMM) rc = check_whole(r->gpu.v[i].group, dp_scale, err);
  if (rc) return rc;
  if (most * dp_scale <= WI_MAX_RANKS) return SC_OK;
  if (most * 2 > WI_MAX_RANKS) /* not even x2: no scale up to offer */
    return sc_error_set(err, SC_EINPUT,
                        "trace what-if: dp_scale: the traced group of %.0f ranks times %g is over "
                        "%d ranks, the NCCL model's range; expected a scale of at most %g",
                        most, dp_scale, WI_MAX_RANKS, WI_MAX_RANKS / most);
  return sc_error_set(err, SC_EINPUT,
                      "trace what-if: dp_scale: %g times the traced group of %.0f ranks is over "
                      "%d ranks; expected at most %.0f",
                      dp_scale, most, WI_MAX_RANKS, floor(WI_MAX_RANKS / most));
}

int wi_prepare(wi_ctx *c, const tg_rank *r, const sc_trace_whatif *w, sc_error *err) {
  memset(c, 0, sizeof *c);
  if (w)
    c->w = *w;
  else
    sc_trace_whatif_default(&c->w);
  int rc = check(&c->w, err);
  if (rc) return rc;
  c->from = wi_traced_gpu(r->device, r->arch);
  c->world = r->world;
  rc = check_ranks(r, c->w.dp_scale, err);
  if (rc) return rc;
  if (c->w.gpu) {
    c->to = sc_gpu_preset(c->w.gpu);
    if (!c->to) {
      char hint[96];
      scn_gpu_hint(c->w.gpu, hint, sizeof hint);
      return sc_error_set(err, SC_EINPUT,
                          "trace what-if: gpu: unknown GPU preset '%s'%s (`stepcast presets` "
                          "lists them)", c->w.gpu, hint);
    }
    if (!c->from)
      return sc_error_set(err, SC_EMODEL,
                          "trace what-if: gpu: the traced device '%s' matches no preset, so its "
                          "kernels cannot be scaled to %s",
                          r->device[0] ? r->device : "(unnamed)", c->w.gpu);
  }
  c->network_changed = c->w.dp_scale != 1 || c->to || c->w.nvlink_bw > 0 || c->w.nic_bw > 0 ||
                       c->w.ranks_per_node > 0;
  return SC_OK;
}

double wi_coll_model(const wi_ctx *c, const tg_gpu *g, const sc_gpu *gpu, int ranks) {
  if (g->coll_op < 0 || !(g->bytes > 0) || ranks < 1) return 0;
  int rpn = c->w.ranks_per_node > 0 ? c->w.ranks_per_node : WI_RANKS_PER_NODE;
  if (rpn > ranks) rpn = ranks;
  while (ranks % rpn) rpn--; /* ranks_per_node divides ranks */
  double nvl = c->w.nvlink_bw > 0          ? c->w.nvlink_bw
               : gpu && gpu->nvlink_bw > 0 ? gpu->nvlink_bw
                                           : 150e9;
  sc_coll_group grp = {.ranks = ranks,
                       .ranks_per_node = rpn,
                       .arch = gpu && gpu->arch ? gpu->arch : 80,
                       .intra_bw = nvl,
                       .inter_bw = c->w.nic_bw > 0 ? c->w.nic_bw : WI_NIC_BW,
                       .intra_lat = WI_NVLINK_LAT,
                       .inter_lat = WI_NIC_LAT,
                       .host_gpus = 1, /* a traced framework: one GPU per process */
                       /* a PCIe board's slot at its generation's rate unless
                        * --nvlink names a link (docs/network.md "PCIe nodes") */
                       .pcie = !(c->w.nvlink_bw > 0) && gpu && gpu->link == SC_LINK_PCIE};
  return sc_coll_nccl_time((sc_coll_op)g->coll_op, g->bytes, &grp).time;
}

/* Ranks of collective g under the what-if: a collective over the whole
 * traced world (or of unknown world) grows with the data-parallel degree. */
static int whatif_ranks(const wi_ctx *c, const tg_gpu *g) {
  int dp_wide = c->world <= 0 || g->group == c->world;
  double r = dp_wide ? g->group * c->w.dp_scale : g->group;
  return r < 1 ? 1 : (int)lround(r);
}

/* A collective's measured us under the network change, given NCCL's
 * modelled seconds as traced (then) and under the what-if (now). Joined
 * over every rank of its job, the kernel is the fastest rank's (the last
 * to arrive waited for no one): its time scales by now / then, which
 * keeps the measured calibration. Otherwise it includes waiting for ranks
 * the replay does not have (one rank's file, or fewer files than the
 * world): what it lasted beyond the model's time as traced is taken as
 * that wait, which a network does not change, and kept; the rest scales.
 * (The whole time scaled: a 2.4 ms all-reduce of 31.5 MB on 2 A100s,
 * 0.19 ms in the model, was 40 ms on a 100 Gb/s NIC, where the model
 * gives 3.1 ms.) */
static double coll_scaled(double dur, int joined, double then, double now) {
  double t = then * 1e6;
  if (joined || dur <= t) return dur * now / then;
  return now * 1e6 + (dur - t);
}

double wi_duration(const wi_ctx *c, const tg_gpu *g, int joined, int *retimed) {
  *retimed = 0;
  if (g->kind != TG_COMM) {
    if (!c->to) return g->dur;
    return g->dur * class_time(c->to, g->cls, g->fp32) / class_time(c->from, g->cls, g->fp32);
  }
  if (!c->w.comm_model && !c->network_changed) return g->dur;
  const sc_gpu *to = c->to ? c->to : c->from;
  double now = wi_coll_model(c, g, to, whatif_ranks(c, g));
  if (!(now > 0)) return g->dur;
  if (c->w.comm_model) return *retimed = 1, now * 1e6;
  wi_ctx base = *c; /* the traced network: defaults, traced GPU */
  sc_trace_whatif_default(&base.w);
  double then = wi_coll_model(&base, g, c->from, g->group);
  if (!(then > 0)) return g->dur; /* a group of one: no ratio to scale by */
  *retimed = 1;
  return coll_scaled(g->dur, joined, then, now);
}
