/*
 * report.c -- tables, JSON and CSV for predictions and validations: the
 * reports of stepcast.h (sc_format, sc_report_*).
 */
#include <math.h>
#include <string.h>

#include "cost/amp.h"
#include "stepcast.h"
#include "hw/gpu_link.h"
#include "plan/plan.h"
#include "plan/plan_attn.h"
#include "report/accuracy.h"
#include "report/esc.h"
#include "report/report_int.h"
#include "validate/validate.h"

#define GIB 1073741824.0

int sc_format_from_name(const char *s) {
  if (!strcmp(s, "table")) return SC_FORMAT_TABLE;
  if (!strcmp(s, "json")) return SC_FORMAT_JSON;
  if (!strcmp(s, "csv")) return SC_FORMAT_CSV;
  return -1;
}

/* The plan's enums by name (plan.h's tables; a value out of range reads
 * as the default, as a resolved plan never has one). */
static const char *sched_name(sc_schedule s) {
  return plan_sched_names[(unsigned)s < PLAN_SCHEDS ? s : SC_SCHED_1F1B];
}

/* The kernel plan p runs on gpu: "auto" (a scenario reported before it
 * was resolved) by its rule, plan/plan_attn.h; never "auto". */
static const char *attn_name(const sc_gpu *gpu, const sc_plan *p) {
  sc_attention a = p->attention;
  if (a == SC_ATTN_AUTO && p->flash_attention) a = plan_attn_auto(gpu->arch, p);
  return p->flash_attention && (unsigned)a < SC_ATTN_AUTO ? plan_attn_names[a] : "unfused";
}

static const char *recomp_name(sc_recompute r) {
  return plan_recomp_names[(unsigned)r < PLAN_RECOMPS ? r : SC_RECOMP_NONE];
}

/* One override as "layers 0-3: recompute full, zero 3". */
static void override_text(const sc_override *o, char *buf, size_t cap) {
  size_t n;
  if (o->block[0]) n = (size_t)snprintf(buf, cap, "block %s:", o->block);
  else if (o->first == o->last) n = (size_t)snprintf(buf, cap, "layer %d:", o->first);
  else n = (size_t)snprintf(buf, cap, "layers %d-%d:", o->first, o->last);
  const char *names[] = {"tp", "cp", "ep", "sp", "zero"};
  const int vals[] = {o->tp, o->cp, o->ep, o->sp, o->zero};
  for (int i = 0; i < 5 && n < cap; i++)
    if (vals[i] != SC_INHERIT)
      n += (size_t)snprintf(buf + n, cap - n, " %s %d", names[i], vals[i]);
  if (o->recompute != SC_INHERIT && n < cap)
    snprintf(buf + n, cap - n, " recompute %s", recomp_name((sc_recompute)o->recompute));
}

/* report_int.h */
int report_marginal(const sc_scenario *s, const sc_memory *m) {
  return sc_memory_band_measured(s) && sc_memory_marginal(m);
}

/* The GPU memory verdict line of s: yes, NO, or marginal where the total
 * is within the memory model's band of the capacity (report_marginal);
 * NO within the capacity where the caller's headroom set fits to 0. */
static void gpu_verdict(FILE *out, const sc_scenario *s, const sc_memory *m) {
  double cap = m->capacity / GIB, tot = m->total / GIB;
  int marginal = report_marginal(s, m);
  if (marginal && m->fits)
    fprintf(out, "\n  fits: marginal -- %.1f of %.1f GiB (%.1f GiB free); within the memory "
                 "model's %.0f %% band (docs/accuracy.md): may not fit\n",
            tot, cap, cap - tot, 100 * SC_MEMORY_BAND);
  else if (marginal && m->total > m->capacity)
    fprintf(out, "\n  fits: marginal, NO -- needs %.1f GiB, the GPU has %.1f GiB (%.1f GiB "
                 "over); within the memory model's %.0f %% band (docs/accuracy.md): may fit\n",
            tot, cap, tot - cap, 100 * SC_MEMORY_BAND);
  else if (m->fits)
    fprintf(out, "\n  fits: yes (%.1f GiB free)\n", cap - tot);
  else if (m->total > m->capacity)
    fprintf(out, "\n  fits: NO -- needs %.1f GiB, the GPU has %.1f GiB (%.1f GiB over)\n",
            tot, cap, tot - cap);
  else if (!(m->host_capacity > 0 && m->host > m->host_capacity)) /* predict --headroom */
    fprintf(out, "\n  fits: NO -- needs %.1f of the GPU's %.1f GiB, leaving %.1f GiB free: "
                 "less than the %.1f GiB of headroom asked for\n", tot, cap, cap - tot,
            m->headroom / GIB);
}

/* Activation offloading's pinned CPU memory per server when the plan
 * offloads: what it needs and, over the server's CPU memory, the verdict
 * with both numbers. */
static void host_verdict(FILE *out, const sc_memory *m) {
  if (m->host <= 0) return;
  if (m->host_capacity > 0 && m->host > m->host_capacity)
    fprintf(out, "%s  fits: NO -- offloaded activations need %.1f GiB of pinned CPU memory per server, "
                 "the server has %.1f GiB (%.1f GiB over)\n",
            m->total <= m->capacity ? "\n" : "", /* the first verdict line */
            m->host / GIB, m->host_capacity / GIB, (m->host - m->host_capacity) / GIB);
  else if (m->host_capacity > 0)
    fprintf(out, "  offloaded activations: %.1f GiB of pinned CPU memory per server (of %.1f GiB)\n",
            m->host / GIB, m->host_capacity / GIB);
  else
    fprintf(out, "  offloaded activations: %.1f GiB of pinned CPU memory per server\n",
            m->host / GIB);
}

/* The time breakdown as (name, seconds) pairs, in report order. */
typedef struct part { const char *name; double s; } part;
static int parts(const sc_result *r, part *p) {
  int n = 0;
  p[n++] = (part){"compute", r->time.compute};
  p[n++] = (part){"host_overhead", r->time.host};
  p[n++] = (part){"tp_comm_exposed", r->time.tp_comm};
  p[n++] = (part){"ep_comm_exposed", r->time.ep_comm};
  p[n++] = (part){"pp_comm_exposed", r->time.pp_comm};
  p[n++] = (part){"pipeline_bubble", r->time.bubble};
  p[n++] = (part){"dp_comm_exposed", r->time.dp_comm};
  p[n++] = (part){"optimizer", r->time.optimizer};
  p[n++] = (part){"offload_exposed", r->time.offload};
  return n;
}

/* report_int.h */
int report_time_parts(const sc_breakdown *t, const char **names, double *secs) {
  sc_result r;
  r.time = *t;
  part pt[REPORT_PARTS];
  int n = parts(&r, pt);
  for (int i = 0; i < n; i++) names[i] = pt[i].name, secs[i] = pt[i].s;
  return n;
}

static void mem_parts(const sc_memory *m, part *p) {
  p[0] = (part){"weights", m->weights};
  p[1] = (part){"gradients", m->gradients};
  p[2] = (part){"optimizer_states", m->optimizer};
  p[3] = (part){"activations", m->activations};
  p[4] = (part){"buffers", m->buffers};
  p[5] = (part){"total", m->total};
}

/* The caveats of a prediction (docs/accuracy.md, "What the table output
 * warns about"): what the validation says about predictions like this
 * one, so that nobody reads more into a number than the model has earned.
 * Each is a sentence into note[i] (NOTE_CAP bytes), '\n' where the table
 * wraps it; returns how many (at most NOTES). */
#define NOTES 3
#define NOTE_CAP 320
static int pred_notes(const sc_scenario *s, const sc_result *r, char note[NOTES][NOTE_CAP]) {
  const char *gpu = s->cluster.gpu.name;
  sc_dtype dt = s->plan.dtype == SC_TF32 || s->plan.dtype == SC_FP32 ? SC_BF16 : s->plan.dtype;
  int calibrated = (s->cluster.gpu.calibrated >> dt) & 1u, n = 0;
  /* against the peak of the plan's own GEMM type: an fp8 plan at 60 % of
   * the bf16 peak is at 30 % of its own, where the fp8 rows predict well */
  if (r->mfu_lowp > 0.60)
    snprintf(note[n++], NOTE_CAP, "MFU above 60 %% -- few published runs get there; on those above 55 %%\n"
                                  "the model was 16 %% optimistic on average, up to 60 %% (docs/accuracy.md)");
  if (r->step_s > 0 && r->time.host > 0.3 * r->step_s)
    snprintf(note[n++], NOTE_CAP, "host-bound (%.0f %% of the step waits for the framework to issue\n"
                                  "kernels): errors up to 30 %% on published runs; a compiled or graph-captured\n"
                                  "framework would not pay it (plan.framework_eager false)",
             100 * r->time.host / r->step_s);
  if (!calibrated)
    snprintf(note[n++], NOTE_CAP, "%s has no %s GEMM calibration measurements; its efficiencies are\n"
                                  "estimates (borrowed from another GPU or type, or given in the input)",
             gpu, sc_dtype_name(dt));
  return n;
}

/* The caveats under the table, each wrapped where its text says. */
static void pred_caveats(FILE *out, const sc_scenario *s, const sc_result *r) {
  char note[NOTES][NOTE_CAP];
  int n = pred_notes(s, r, note);
  for (int i = 0; i < n; i++) {
    fputs("\n  note: ", out);
    for (const char *c = note[i]; *c; c++)
      *c == '\n' ? fputs("\n        ", out) : fputc(*c, out);
  }
  fputc('\n', out);
}

/* JSON's "notes": the plan's recompute-modules note and the caveats, one
 * string each, unwrapped; nothing when there are none. */
static void pred_json_notes(FILE *out, const sc_scenario *s, const sc_result *r) {
  char note[NOTES + 1][NOTE_CAP];
  plan_recmod_note(s, note[0], NOTE_CAP);
  int first = note[0][0] ? 0 : 1, n = 1 + pred_notes(s, r, note + 1);
  if (first == n) return;
  fprintf(out, ", \"notes\": [");
  for (int i = first; i < n; i++) {
    for (char *c = note[i]; *c; c++)
      if (*c == '\n') *c = ' ';
    fputs(i > first ? ", " : "", out);
    esc_json(out, note[i]);
  }
  fputc(']', out);
}

/* The MoE dispatcher line of the plan table (docs/output.md). */
static void moe_dispatch_line(FILE *out, const sc_plan *p) {
  static const char *const name[] = {"all-to-all", "all-gather / reduce-scatter", "flex (DeepEP)"};
  unsigned d = (unsigned)p->moe_dispatcher;
  fprintf(out, "  dispatch  %s", name[d <= SC_MOE_FLEX ? d : 0]);
  /* experts split over the tensor-parallel ranks (etp = tp): each rank
   * routes its sequence shard (src/lower/lower.c experts()) */
  int etp = p->etp > 0 ? p->etp : p->tp;
  if (etp > 1 && p->sp && p->ep > 1) {
    if (p->moe_dispatcher == SC_MOE_ALLGATHER)
      fprintf(out, " over the %d x %d expert group", etp, p->ep);
    else if (p->moe_dispatcher == SC_MOE_FLEX)
      fprintf(out, " to all %d expert-tensor ranks of an expert", etp);
    else
      fprintf(out, ", then all-gather over the %d expert-tensor ranks", etp);
  }
  if (p->moe_dispatcher == SC_MOE_FLEX) fprintf(out, ", %d SMs", p->moe_flex_sms);
  if (p->moe_router_groups > 0 && p->moe_router_group_topk > 0)
    fprintf(out, ", routing limited to %d of %d expert groups", p->moe_router_group_topk,
            p->moe_router_groups);
  else if (p->moe_router_groups > 0) /* plan_moe.c: Megatron's rule */
    fprintf(out, ", routing unlimited (%d router groups without moe_router_group_topk, as "
                 "Megatron runs it)",
            p->moe_router_groups);
  if (p->moe_shared_expert_overlap) fprintf(out, ", shared experts beside it");
  fputc('\n', out);
}

/* What the plan assumes of ZeRO-3 (the FSDP implementation and its
 * schedule) and of MoE (grouped GEMM, imbalance, capacity, dispatcher),
 * for plans where it matters. */
static void fsdp_moe_lines(FILE *out, const sc_scenario *s) {
  const sc_plan *p = &s->plan;
  if (p->zero >= 3 && (unsigned)p->fsdp_impl < PLAN_FSDP_IMPLS) {
    if (p->fsdp_impl == SC_FSDP_DEEPSPEED)
      fprintf(out, "  zero-3    deepspeed: prefetch bucket %.3g, max live %.3g, reuse distance %.3g, "
                   "reduce bucket %.3g elements\n",
              p->ds_prefetch_bucket, p->ds_max_live, p->ds_max_reuse, p->ds_reduce_bucket);
    else
      fprintf(out, "  zero-3    %s: %s, backward prefetch %d, forward prefetch %s\n",
              plan_fsdp_impl_names[p->fsdp_impl], p->fsdp_reshard ? "reshard after forward" : "kept gathered to backward",
              p->fsdp_prefetch,
              p->fsdp_forward_prefetch || p->fsdp_impl == SC_FSDP_XLA ? "explicit" : "implicit");
  }
  if (s->model.kind == SC_MODEL_TRANSFORMER && s->model.tf.experts > 1) {
    char cap[32] = "dropless";
    if (p->moe_capacity > 0) snprintf(cap, sizeof cap, "capacity %.2f", p->moe_capacity);
    fprintf(out, "  moe       grouped GEMM %s, permute %s, busiest rank %.2fx the mean tokens, %s\n",
            p->moe_grouped_gemm ? "on" : "off", p->moe_permute_fusion ? "fused" : "unfused",
            p->moe_capacity > 0 ? p->moe_capacity : p->moe_imbalance, cap);
    moe_dispatch_line(out, p);
  }
}

/* The network line of predict's table, where the cluster states more than
 * its NIC rate: a fabric other than InfiniBand, the topology the network
 * engine runs and its failed or slowed cables (escaped; nothing
 * otherwise, so that runs on different fabrics tell themselves apart). */
static void pred_table_network(FILE *out, const sc_cluster *c) {
  if (!c->fabric && !c->topology[0]) return;
  char t[3 * sizeof c->topology];
  fprintf(out, "  network   %s", sc_fabric_name(c->fabric));
  const char *what[] = {"topology", "failed", "slowed"};
  const char *val[] = {c->topology, c->link_fail, c->link_degrade};
  for (int i = 0; i < 3; i++)
    if (val[i][0]) {
      esc_text(t, sizeof t, val[i]);
      fprintf(out, "; %s %s", what[i], t);
    }
  fputc('\n', out);
}

static void pred_table(FILE *out, const sc_scenario *s, const sc_result *r,
                       double train_tokens) {
  const sc_plan *p = &s->plan;
  const sc_cluster *c = &s->cluster;
  fprintf(out, "stepcast %s prediction\n\n", SC_VERSION);
  char name[sizeof s->model.name], gpu[REPORT_GPU_CAP], path[sizeof s->model.graph.path];
  esc_text(name, sizeof name, s->model.name); /* user text on a terminal */
  report_gpu_label(&c->gpu, gpu);
  esc_text(path, sizeof path, s->model.graph.path);
  if (s->model.kind == SC_MODEL_TRANSFORMER)
    fprintf(out, "  model     %s: %.1fB parameters, %d layers, hidden %d, seq %d\n",
            name, r->params / 1e9, s->model.tf.layers, s->model.tf.hidden,
            s->model.tf.seq);
  else if (s->model.kind == SC_MODEL_CNN)
    fprintf(out, "  model     %s: %.1fM parameters, %dx%d images\n", s->model.name,
            r->params / 1e6, s->model.cnn.image, s->model.cnn.image);
  else if (s->model.kind == SC_MODEL_BERT)
    fprintf(out, "  model     %s: %.1fM parameters, %d layers, hidden %d, seq %d\n",
            s->model.name, r->params / 1e6, s->model.bert.layers, s->model.bert.hidden,
            s->model.bert.seq);
  else
    fprintf(out, "  model     %s: %.1fB parameters, workload graph %s\n", name,
            r->params / 1e9, path);
  char raw[sizeof c->nic_from + 4] = "", from[sizeof raw]; /* where an unstated NIC came from */
  if (c->nic_from[0]) snprintf(raw, sizeof raw, " (%s)", c->nic_from);
  esc_text(from, sizeof from, raw);
  char node[sizeof c->node_from + 48] = "", nraw[sizeof c->node_from + 4] = "";
  char nfrom[sizeof nraw]; /* where an unstated node size came from, when not the NIC's */
  if (c->node_from[0] && strcmp(c->node_from, c->nic_from))
    snprintf(nraw, sizeof nraw, " (%s)", c->node_from);
  esc_text(nfrom, sizeof nfrom, nraw);
  int dom = c->nvlink_domain > 0 ? c->nvlink_domain : c->gpus_per_node;
  if (dom != c->gpus_per_node) /* a rack: one NVLink domain over several nodes */
    snprintf(node, sizeof node, ", %d per NVLink domain%s", dom, nfrom);
  else
    snprintf(node, sizeof node, "%s", nfrom);
  fprintf(out, "  cluster   %d x %s, %d per node%s, %s %.0f GB/s, NIC %.0f Gb/s per GPU%s\n",
          c->gpus, gpu, c->gpus_per_node, node, gpu_link_label(c->gpu.link),
          (c->nvlink_bw > 0 ? c->nvlink_bw : c->gpu.nvlink_bw) / 1e9, c->nic_bw * 8 / 1e9, from);
  pred_table_network(out, c);
  /* a named framework at the end of the line ("auto" adds nothing) */
  int fw = p->framework > SC_FW_AUTO && p->framework < PLAN_FRAMEWORKS;
  fprintf(out, "  plan      tp %d  pp %d  dp %d  cp %d  ep %d  vpp %d  sp %s  zero %d  %s  recompute %s  %s%s  attention %s%s%s\n",
          p->tp, p->pp, p->dp, p->cp, p->ep, p->vpp, p->sp ? "on" : "off", p->zero,
          sched_name(p->schedule), recomp_name(p->recompute), sc_dtype_name(p->dtype),
          amp_on(p) ? " amp" : "", attn_name(&s->cluster.gpu, p), fw ? "  framework " : "",
          fw ? plan_framework_names[p->framework] : "");
  fsdp_moe_lines(out, s);
  if (p->recompute_modules && plan_recmod_used(p)) {
    char mods[160];
    plan_recmod_list(p->recompute_modules, mods, sizeof mods);
    fprintf(out, "  recompute modules %s (selective)\n", mods);
  }
  char note[NOTE_CAP];
  plan_recmod_note(s, note, sizeof note);
  if (note[0]) fprintf(out, "  note: %s\n", note);
  for (int i = 0; i < p->n_overrides; i++) {
    char text[160];
    override_text(&p->overrides[i], text, sizeof text);
    fprintf(out, "  %-9s %s\n", i ? "" : "overrides", text);
  }
  fprintf(out, "  batch     %ld %s = %d micro-batch%s of %ld per pipeline\n\n", p->global_batch,
          s->model.kind == SC_MODEL_CNN ? "images" : "sequences", r->micro_batches,
          r->micro_batches == 1 ? "" : "es", r->micro_batch);
  fprintf(out, "  step time          %10.3f s\n", r->step_s);
  if (s->model.kind == SC_MODEL_CNN)
    fprintf(out, "  throughput         %10.1f images/s\n", r->seq_per_s);
  else
    fprintf(out, "  throughput         %10.0f tokens/s  (%.2f sequences/s)\n", r->tokens_per_s, r->seq_per_s);
  fprintf(out, "  model TFLOP/s/GPU  %10.1f\n", r->tflops_per_gpu);
  if (p->dtype == SC_FP8 || p->dtype == SC_FP4)
    fprintf(out, "  MFU                %10.1f %%  of the dense bf16 peak (%.1f %% of the %s peak)\n",
            r->mfu * 100, r->mfu_lowp * 100, sc_dtype_name(p->dtype));
  else
    fprintf(out, "  MFU                %10.1f %%\n", r->mfu * 100);
  if (train_tokens > 0 && isfinite(train_tokens))
    fprintf(out, "  time to train      %10.1f days for %.3g tokens (%.0f GPU-hours)\n",
            train_tokens / r->tokens_per_s / 86400, train_tokens,
            train_tokens / r->tokens_per_s / 3600 * s->cluster.gpus);
  acc_table_line(out, s, "accuracy"); /* report/accuracy.h: the model's record on runs like this */
  fputc('\n', out);
  part pt[9];
  int n = parts(r, pt);
  fprintf(out, "  where the time goes          seconds   share\n");
  for (int i = 0; i < n; i++)
    fprintf(out, "    %-22s %12.4f  %5.1f %%\n", pt[i].name, pt[i].s,
            r->step_s > 0 ? 100 * pt[i].s / r->step_s : 0);
  part mp[6];
  mem_parts(&r->mem, mp);
  fprintf(out, "\n  memory per GPU (most loaded stage)   GiB\n");
  for (int i = 0; i < 6; i++)
    fprintf(out, "    %-22s %12.2f\n", mp[i].name, mp[i].s / GIB);
  fprintf(out, "    %-22s %12.2f\n", "capacity", r->mem.capacity / GIB);
  gpu_verdict(out, s, &r->mem);
  host_verdict(out, &r->mem);
  pred_caveats(out, s, r);
}

/* report_int.h */
void report_gpu_label(const sc_gpu *g, char *buf) {
  char name[sizeof g->name], keys[REPORT_GPU_CAP - sizeof g->name - 16];
  esc_text(name, sizeof name, g->name);
  if (sc_gpu_changes(g, keys, sizeof keys))
    snprintf(buf, REPORT_GPU_CAP, "%s (modified: %s)", name, keys);
  else
    snprintf(buf, REPORT_GPU_CAP, "%s", name);
}

/* report_int.h */
void report_json_job(FILE *out, const sc_scenario *s) {
  fprintf(out, "\"model\": ");
  esc_json(out, s->model.name);
  fprintf(out, ", \"gpu\": ");
  esc_json(out, s->cluster.gpu.name);
  char keys[REPORT_GPU_CAP];
  if (sc_gpu_changes(&s->cluster.gpu, keys, sizeof keys)) {
    fprintf(out, ", \"gpu_modified\": [\"");
    for (const char *k = keys; *k; k++) { /* "a, b" -> "a", "b": keys are plain words */
      if (*k == ',') fputs("\", \"", out);
      else if (*k != ' ') fputc(*k, out);
    }
    fprintf(out, "\"]");
  }
  fprintf(out, ", \"gpus\": %d", s->cluster.gpus);
}

/* What the cluster took from a reference system rather than the document
 * (sc_cluster.nic_from, node_from) as `validate`'s "assumed" words it,
 * into buf; "" when nothing. */
static void cluster_assumed(const sc_cluster *c, char *buf, size_t n) {
  int dom = c->nvlink_domain > 0 ? c->nvlink_domain : c->gpus_per_node;
  buf[0] = '\0';
  if (c->nic_from[0])
    snprintf(buf, n, "cluster.nic_Gbps %.0f (%s)", c->nic_bw * 8 / 1e9, c->nic_from);
  size_t k = strlen(buf);
  if (c->node_from[0])
    snprintf(buf + k, n - k, "%scluster.gpus_per_node %d, cluster.nvlink_domain %d (%s)",
             k ? "; " : "", c->gpus_per_node, dom, c->node_from);
}

/* JSON's "shape" and "cluster": what the table's model and cluster lines
 * say beyond the names (the model's layers, hidden size and sequence, a
 * CNN's image side, a graph's file; the resolved node size, NVLink domain,
 * GPU link and NIC), so that a program reads what the scenario resolved
 * to (a preset's or a reference system's) without parsing the table. */
static void pred_json_setup(FILE *out, const sc_scenario *s) {
  const sc_model *m = &s->model;
  if (m->kind == SC_MODEL_TRANSFORMER)
    fprintf(out, " \"shape\": {\"layers\": %d, \"hidden\": %d, \"seq\": %d},", m->tf.layers,
            m->tf.hidden, m->tf.seq);
  else if (m->kind == SC_MODEL_BERT)
    fprintf(out, " \"shape\": {\"layers\": %d, \"hidden\": %d, \"seq\": %d},",
            m->bert.layers, m->bert.hidden, m->bert.seq);
  else if (m->kind == SC_MODEL_CNN)
    fprintf(out, " \"shape\": {\"image\": %d},", m->cnn.image);
  else {
    fprintf(out, " \"shape\": {\"graph\": ");
    esc_json(out, m->graph.path);
    fprintf(out, "},");
  }
  const sc_cluster *c = &s->cluster;
  fprintf(out, " \"cluster\": {\"gpus_per_node\": %d, \"nvlink_domain\": %d, \"link\": \"%s\", "
               "\"link_GBps\": %.6g, \"nic_Gbps\": %.6g, \"fabric\": \"%s\", \"topology\": ",
          c->gpus_per_node, c->nvlink_domain > 0 ? c->nvlink_domain : c->gpus_per_node,
          gpu_link_key(c->gpu.link), (c->nvlink_bw > 0 ? c->nvlink_bw : c->gpu.nvlink_bw) / 1e9,
          c->nic_bw * 8 / 1e9, sc_fabric_name(c->fabric));
  if (c->topology[0]) esc_json(out, c->topology);
  else fputs("null", out);
  fputs("},\n", out);
}

/* The fields of a prediction's JSON object, without its braces: the
 * predict document, and each plan of a search's. */
static void pred_json_fields(FILE *out, const sc_scenario *s, const sc_result *r,
                             double train_tokens) {
  const sc_plan *p = &s->plan;
  report_json_job(out, s);
  char assumed[2 * sizeof s->cluster.nic_from + 128];
  cluster_assumed(&s->cluster, assumed, sizeof assumed);
  if (assumed[0]) { /* only a cluster that took something from a reference system */
    fprintf(out, ", \"assumed\": ");
    esc_json(out, assumed);
  }
  fprintf(out, ", \"plan\": {\"tp\": %d, \"pp\": %d, \"dp\": %d, \"cp\": %d, "
               "\"ep\": %d, \"vpp\": %d, \"sp\": %s, \"zero\": %d, \"schedule\": \"%s\", "
               "\"recompute\": \"%s\", \"dtype\": \"%s\", \"attention\": \"%s\", \"global_batch\": %ld, "
               "\"micro_batch\": %ld, \"micro_batches\": %d",
          p->tp, p->pp, p->dp, p->cp, p->ep, p->vpp, p->sp ? "true" : "false",
          p->zero, sched_name(p->schedule), recomp_name(p->recompute), sc_dtype_name(p->dtype),
          attn_name(&s->cluster.gpu, p), p->global_batch, r->micro_batch, r->micro_batches);
  if (amp_on(p)) fprintf(out, ", \"amp\": true"); /* cost/amp.h */
  if (p->framework > SC_FW_AUTO && p->framework < PLAN_FRAMEWORKS) /* named: plan_fw.c */
    fprintf(out, ", \"framework\": \"%s\"", plan_framework_names[p->framework]);
  /* the selective recompute modules, when the plan names them */
  if (p->recompute_modules) fprintf(out, ", \"recompute_modules\": [");
  for (int i = 0, n = 0; i < PLAN_RECMODS; i++)
    if (p->recompute_modules & (1u << i))
      fprintf(out, "%s\"%s\"", n++ ? ", " : "", plan_recmod_names[i]);
  fprintf(out, "%s},\n", p->recompute_modules ? "]" : "");
  fprintf(out, " \"step_s\": %.6g, \"tokens_per_s\": %.6g, \"seq_per_s\": %.6g, "
               "\"tflops_per_gpu\": %.6g, \"mfu\": %.6g, \"mfu_lowp\": %.6g, \"model_flops\": %.6g, \"params\": %.0f,\n",
          r->step_s, r->tokens_per_s, r->seq_per_s, r->tflops_per_gpu, r->mfu, r->mfu_lowp,
          r->model_flops, r->params);
  pred_json_setup(out, s);
  if (train_tokens > 0 && isfinite(train_tokens))
    fprintf(out, " \"train_tokens\": %.6g, \"train_days\": %.6g, \"train_gpu_hours\": %.6g,\n",
            train_tokens, train_tokens / r->tokens_per_s / 86400,
            train_tokens / r->tokens_per_s / 3600 * s->cluster.gpus);
  part pt[9];
  int n = parts(r, pt);
  fprintf(out, " \"time_s\": {");
  for (int i = 0; i < n; i++) fprintf(out, "%s\"%s\": %.6g", i ? ", " : "", pt[i].name, pt[i].s);
  part mp[6];
  mem_parts(&r->mem, mp);
  fprintf(out, "},\n \"memory_bytes\": {");
  /* bytes whole, not to 6 digits (80 GiB is 85899345920, not 8.58993e+10) */
  for (int i = 0; i < 6; i++) fprintf(out, "%s\"%s\": %.0f", i ? ", " : "", mp[i].name, mp[i].s);
  /* headroom: what --headroom kept free, which `fits` was judged under */
  fprintf(out, ", \"capacity\": %.0f, \"headroom\": %.0f", r->mem.capacity, r->mem.headroom);
  if (r->mem.host > 0) /* only plans that offload */
    fprintf(out, ", \"host_offload_per_server\": %.0f, \"host_capacity_per_server\": %.0f",
            r->mem.host, r->mem.host_capacity);
  fprintf(out, "}, \"fits\": %s, \"fits_confidence\": \"%s\"", r->mem.fits ? "true" : "false",
          sc_fits_confidence(s, &r->mem));
  pred_json_notes(out, s, r);
}

/* Every member of a prediction's JSON object, without its braces: the
 * fields and the model's accuracy on runs like it (predict's document,
 * and each plan of a search's). */
static void pred_json_members(FILE *out, const sc_scenario *s, const sc_result *r,
                              double train_tokens) {
  pred_json_fields(out, s, r, train_tokens);
  fprintf(out, ",\n \"accuracy\": {"); /* report/accuracy.h */
  acc_json(out, s);
  fputc('}', out);
}

/* The members of a prediction's JSON object, from "{" to the last member
 * (no closing brace), so that callers can add members (layer_ops). */
static void pred_json(FILE *out, const sc_scenario *s, const sc_result *r,
                      double train_tokens) {
  fputc('{', out);
  pred_json_members(out, s, r, train_tokens);
}

void report_pred_json(FILE *out, const sc_scenario *s, const sc_result *r) {
  pred_json(out, s, r, 0);
}

/* The prediction's CSV columns: the header (header != 0) or the values. */
static void pred_csv_cols(FILE *out, const sc_scenario *s, const sc_result *r, int header) {
  part pt[9], mp[6];
  int n = parts(r, pt);
  mem_parts(&r->mem, mp);
  if (header) {
    fprintf(out, "model,gpu,gpus,tp,pp,dp,cp,ep,vpp,sp,zero,schedule,recompute,dtype,attention,"
                 "micro_batch,global_batch,micro_batches,step_s,tokens_per_s,seq_per_s,"
                 "tflops_per_gpu,mfu,mfu_lowp,model_flops,params");
    for (int i = 0; i < n; i++) fprintf(out, ",%s_s", pt[i].name);
    for (int i = 0; i < 6; i++) fprintf(out, ",mem_%s_bytes", mp[i].name);
    fprintf(out, ",mem_capacity_bytes,mem_headroom_bytes,fits,fits_marginal");
    acc_csv(out, s, 1);
    return;
  }
  const sc_plan *p = &s->plan;
  esc_csv(out, s->model.name, ',');
  esc_csv(out, s->cluster.gpu.name, ',');
  fprintf(out, "%d,%d,%d,%d,%d,%d,%d,%d,%d,%s,%s,%s,%s,%ld,%ld,%d,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,"
               "%.6g,%.0f",
          s->cluster.gpus, p->tp, p->pp, p->dp, p->cp, p->ep, p->vpp, p->sp, p->zero,
          sched_name(p->schedule), recomp_name(p->recompute), sc_dtype_name(p->dtype),
          attn_name(&s->cluster.gpu, p), r->micro_batch, p->global_batch, r->micro_batches,
          r->step_s, r->tokens_per_s, r->seq_per_s, r->tflops_per_gpu, r->mfu, r->mfu_lowp,
          r->model_flops, r->params);
  for (int i = 0; i < n; i++) fprintf(out, ",%.6g", pt[i].s);
  for (int i = 0; i < 6; i++) fprintf(out, ",%.0f", mp[i].s); /* bytes whole, as JSON */
  fprintf(out, ",%.0f,%.0f,%d,%d", r->mem.capacity, r->mem.headroom, r->mem.fits,
          report_marginal(s, &r->mem));
  acc_csv(out, s, 0);
}

static const char OPS_CSV_HEADER[] = "name,kind,fwd_s,bwd_s,flops,bytes,efficiency,path";

static void op_csv(FILE *out, const sc_op_time *o) {
  esc_csv(out, o->name, ',');
  esc_csv(out, o->kind, ',');
  fprintf(out, "%.6g,%.6g,%.6g,%.6g,%.4g,%s", o->fwd_s, o->bwd_s, o->flops, o->bytes, o->eff,
          o->path); /* a fixed name or "" */
}

static void op_json(FILE *out, const sc_op_time *o) {
  fprintf(out, "{\"name\": ");
  esc_json(out, o->name);
  fprintf(out, ", \"kind\": ");
  esc_json(out, o->kind);
  fprintf(out, ", \"fwd_s\": %.6g, \"bwd_s\": %.6g, \"flops\": %.6g, \"bytes\": %.6g, "
               "\"efficiency\": %.4g, \"path\": ", o->fwd_s, o->bwd_s, o->flops, o->bytes, o->eff);
  if (o->path[0]) esc_json(out, o->path);
  else fputs("null", out);
  fputc('}', out);
}

static void ops_json_array(FILE *out, const sc_op_time *ops, int n) {
  fputc('[', out);
  for (int i = 0; i < n; i++) {
    fputs(i ? ",\n  " : "\n  ", out);
    op_json(out, &ops[i]);
  }
  fputc(']', out);
}

/* CSV of a prediction with its layer's operators: one table, a row per
 * operator, the prediction's columns repeated on each (long format). */
static void pred_ops_csv(FILE *out, const sc_scenario *s, const sc_result *r,
                         const sc_op_time *ops, int n) {
  pred_csv_cols(out, s, r, 1);
  fprintf(out, ",op_name,op_kind,op_fwd_s,op_bwd_s,op_flops,op_bytes,op_efficiency,op_path\n");
  for (int i = 0; i < n; i++) {
    pred_csv_cols(out, s, r, 0);
    fputc(',', out);
    op_csv(out, &ops[i]);
    fputc('\n', out);
  }
}

/* The step by operator kind as a table (sc_explain_kinds). */
static void kinds_table(FILE *out, const sc_op_time *k, int n) {
  double tf = 0, tb = 0;
  for (int i = 0; i < n; i++) { tf += k[i].fwd_s; tb += k[i].bwd_s; }
  fprintf(out, "\n  the step by operator kind, first stage,   fwd ms    bwd ms   share\n"
               "  one micro-batch, one GPU (GPU time only)\n");
  for (int i = 0; i < n; i++)
    fprintf(out, "    %-26s %10.3f %9.3f  %5.1f %%\n", k[i].name, k[i].fwd_s * 1e3,
            k[i].bwd_s * 1e3, tf + tb > 0 ? 100 * (k[i].fwd_s + k[i].bwd_s) / (tf + tb) : 0);
  fprintf(out, "    %-26s %10.3f %9.3f\n", "sum", tf * 1e3, tb * 1e3);
}

void sc_report_prediction_ops(FILE *out, sc_format fmt, const sc_scenario *s,
                              const sc_result *r, double train_tokens,
                              const sc_op_time *ops, int n_ops) {
  sc_report_prediction_kinds(out, fmt, s, r, train_tokens, ops, n_ops, NULL, 0);
}

void sc_report_prediction_kinds(FILE *out, sc_format fmt, const sc_scenario *s,
                                const sc_result *r, double train_tokens,
                                const sc_op_time *ops, int n_ops,
                                const sc_op_time *kinds, int n_kinds) {
  if (fmt == SC_FORMAT_JSON) {
    pred_json(out, s, r, train_tokens);
    if (ops) {
      fprintf(out, ",\n \"layer_ops\": ");
      ops_json_array(out, ops, n_ops);
    }
    if (kinds) {
      fprintf(out, ",\n \"op_kinds\": ");
      ops_json_array(out, kinds, n_kinds);
    }
    fprintf(out, "}\n");
  } else if (fmt == SC_FORMAT_CSV && ops) {
    pred_ops_csv(out, s, r, ops, n_ops);
  } else if (fmt == SC_FORMAT_CSV) {
    pred_csv_cols(out, s, r, 1);
    fputc('\n', out);
    pred_csv_cols(out, s, r, 0);
    fputc('\n', out);
  } else {
    pred_table(out, s, r, train_tokens);
    if (ops) sc_report_layer_ops(out, fmt, ops, n_ops);
    if (kinds) kinds_table(out, kinds, n_kinds);
  }
}

void sc_report_prediction(FILE *out, sc_format fmt, const sc_scenario *s,
                          const sc_result *r, double train_tokens) {
  sc_report_prediction_ops(out, fmt, s, r, train_tokens, NULL, 0);
}

void sc_report_layer_ops(FILE *out, sc_format fmt, const sc_op_time *ops, int n) {
  if (fmt == SC_FORMAT_JSON) {
    fprintf(out, "{\"layer_ops\": ");
    ops_json_array(out, ops, n);
    fprintf(out, "}\n");
    return;
  }
  if (fmt == SC_FORMAT_CSV) {
    fprintf(out, "%s\n", OPS_CSV_HEADER);
    for (int i = 0; i < n; i++) {
      op_csv(out, &ops[i]);
      fputc('\n', out);
    }
    return;
  }
  double tf = 0, tb = 0;
  for (int i = 0; i < n; i++) { tf += ops[i].fwd_s; tb += ops[i].bwd_s; }
  fprintf(out, "\n  one layer, one micro-batch, one GPU     fwd ms    bwd ms   share  GEMM eff\n");
  for (int i = 0; i < n; i++) {
    char name[sizeof ops[i].name];
    esc_text(name, sizeof name, ops[i].name);
    fprintf(out, "    %-20s %-5s %10.3f %9.3f  %5.1f %%", name, ops[i].kind,
            ops[i].fwd_s * 1e3, ops[i].bwd_s * 1e3,
            tf + tb > 0 ? 100 * (ops[i].fwd_s + ops[i].bwd_s) / (tf + tb) : 0);
    if (ops[i].eff > 0) fprintf(out, "  %7.1f %%", 100 * ops[i].eff);
    if (ops[i].path[0] && strcmp(ops[i].path, "tile")) fprintf(out, " %s", ops[i].path);
    fputc('\n', out);
  }
  fprintf(out, "    %-26s %10.3f %9.3f\n", "sum", tf * 1e3, tb * 1e3);
}

/* The end of the layout (its latest span's) and, into *at, the span
 * that ends it (0 when none). */
static double trace_end(const sc_span *spans, size_t n, size_t *at) {
  double end = 0;
  *at = 0;
  for (size_t i = 0; i < n; i++)
    if (spans[i].start + spans[i].dur > end) end = spans[i].start + spans[i].dur, *at = i;
  return end;
}

/* The rest of the predicted step after the layout's end, on the compute
 * thread of the stage whose span ends it: the step_s a table reports is
 * the closed form's, the layout a simulation of the schedule over its
 * pass times (they differ in how send/recv overlaps, docs/output.md). */
static void trace_rest(FILE *out, const sc_span *last, double end, double step_s) {
  fprintf(out, ",\n  {\"name\": \"rest of the predicted step\", \"cat\": \"remainder\", "
               "\"ph\": \"X\", \"pid\": %d, \"tid\": 0, ",
          last->stage);
  esc_trace_times(out, end * 1e6, (step_s - end) * 1e6);
  fprintf(out, ", \"args\": {\"note\": \"the closed form's step_s less the end of this layout "
               "(a simulation of the schedule over its pass times)\"}}");
}

void sc_report_trace(FILE *out, const sc_scenario *s, const sc_span *spans, size_t n) {
  sc_report_trace_step(out, s, spans, n, 0);
}

void sc_report_trace_step(FILE *out, const sc_scenario *s, const sc_span *spans, size_t n,
                          double step_s) {
  int stages = 0;
  for (size_t i = 0; i < n; i++)
    if (spans[i].stage + 1 > stages) stages = spans[i].stage + 1;
  int per_stage = stages > 0 ? s->cluster.gpus / stages : 0;
  size_t last;
  double end = trace_end(spans, n, &last);
  fprintf(out, "{\"displayTimeUnit\": \"ms\", \"otherData\": {");
  report_json_job(out, s);
  if (step_s > 0) fprintf(out, ", \"step_s\": %.9g, \"layout_s\": %.9g", step_s, end);
  fprintf(out, "},\n \"traceEvents\": [");
  for (int st = 0; st < stages; st++) {
    fprintf(out, "%s\n  {\"name\": \"process_name\", \"ph\": \"M\", \"pid\": %d, "
                 "\"args\": {\"name\": \"stage %d (%d GPUs)\"}},",
            st ? "," : "", st, st, per_stage);
    fprintf(out, "\n  {\"name\": \"thread_name\", \"ph\": \"M\", \"pid\": %d, \"tid\": 0, "
                 "\"args\": {\"name\": \"compute\"}},", st);
    fprintf(out, "\n  {\"name\": \"thread_name\", \"ph\": \"M\", \"pid\": %d, \"tid\": 1, "
                 "\"args\": {\"name\": \"communication\"}}", st);
  }
  for (size_t i = 0; i < n; i++) {
    const sc_span *sp = &spans[i];
    char name[32];
    const char *cat;
    switch (sp->kind) {
    case 'F': cat = "forward"; break;
    case 'B': cat = "backward"; break;
    case 'W': cat = "weight gradient"; break;
    case 'D': cat = "data-parallel"; break;
    default: cat = "optimizer"; break;
    }
    if (sp->micro_batch >= 0 && sp->chunk > 0)
      snprintf(name, sizeof name, "%c%d.%d", sp->kind, sp->micro_batch, sp->chunk);
    else if (sp->micro_batch >= 0)
      snprintf(name, sizeof name, "%c%d", sp->kind, sp->micro_batch);
    else
      snprintf(name, sizeof name, "%s", sp->kind == 'D' ? "gradient reduction" : "optimizer step");
    fprintf(out, ",\n  {\"name\": \"%s\", \"cat\": \"%s\", \"ph\": \"X\", \"pid\": %d, "
                 "\"tid\": %d, ",
            name, cat, sp->stage, sp->lane);
    esc_trace_times(out, sp->start * 1e6, sp->dur * 1e6);
    if (sp->micro_batch >= 0)
      fprintf(out, ", \"args\": {\"micro_batch\": %d, \"chunk\": %d}", sp->micro_batch,
              sp->chunk);
    fputc('}', out);
  }
  if (n > 0 && step_s > end) trace_rest(out, &spans[last], end, step_s);
  fprintf(out, "\n]}\n");
}

/* ---------------------------------------------------------------- search */

/* Plan c of s as a search lists it: every member of predict's JSON (its
 * accuracy too), and the event engine's step and breakdown when it
 * re-ranked the plans. */
static void search_json_plan(FILE *out, const sc_scenario *s, const sc_candidate *c, int rank) {
  sc_scenario t = *s;
  t.plan = c->plan;
  fprintf(out, "{\"rank\": %d, \"pareto_front\": %s, ", rank, c->pareto ? "true" : "false");
  if (c->event_s > 0) {
    fprintf(out, "\"event_step_s\": %.6g, ", c->event_s);
    report_search_event_json(out, c);
  }
  pred_json_members(out, &t, &c->result, 0);
  const sc_plan *p = &c->plan;
  fprintf(out, ",\n \"searched\": {\"etp\": %d, \"fsdp_shard\": %d, \"pp_first_layers\": %d, "
               "\"pp_last_layers\": %d, \"pp_embedding_in_split\": %s, \"recompute_layers\": %d, "
               "\"offload_layers\": %d}",
          p->etp, p->fsdp_shard, p->pp_first_layers, p->pp_last_layers,
          p->pp_embedding_in_split ? "true" : "false", p->recompute_layers, p->offload_layers);
  fputc('}', out);
}

/* The dtypes of mask m (bit d an sc_dtype) as "bf16, fp8", each between
 * `quote`s ("\"bf16\", \"fp8\"" for JSON). */
static void dtype_list(unsigned m, const char *quote, char *buf, size_t cap) {
  size_t n = 0;
  buf[0] = 0;
  for (int d = 0; d < SC_DTYPE_COUNT && n < cap; d++)
    if (m >> d & 1u)
      n += (size_t)snprintf(buf + n, cap - n, "%s%s%s%s", n ? ", " : "", quote,
                            sc_dtype_name((sc_dtype)d), quote);
}

/* The GEMM types a search held: its stats', or the scenario's one. */
static unsigned searched_dtypes(const sc_scenario *s, const sc_search_stats *st) {
  return st->dtypes ? st->dtypes : 1u << s->plan.dtype;
}

/* The engine that ranked a search's plans, as JSON and CSV name it. */
static const char *ranked_by(const sc_search_stats *st) {
  return st->reranked ? "event" : "closed_form";
}

static void search_json(FILE *out, const sc_scenario *s, const sc_candidate *c, int n,
                        const sc_search_stats *st) {
  char types[96];
  dtype_list(searched_dtypes(s, st), "\"", types, sizeof types);
  fputc('{', out);
  report_json_job(out, s);
  fprintf(out, ", \"global_batch\": %ld, \"dtypes\": [%s],\n \"space\": %ld, \"space_full\": %ld, \"tried\": %ld, "
               "\"valid\": %ld, \"fit\": %ld, \"pruned\": %ld, \"stopped\": \"%s\", \"ranked_by\": \"%s\", "
               "\"seconds\": %.6g,\n \"plans\": [",
          s->plan.global_batch, types, st->total, st->full, st->tried, st->valid, st->fit,
          st->pruned, report_stop_name(st->stopped), ranked_by(st), st->seconds);
  for (int i = 0; i < n; i++) {
    fputs(i ? ",\n  " : "\n  ", out);
    search_json_plan(out, s, &c[i], i + 1);
  }
  fputs("]", out);
  if (n > 0) { /* report/accuracy.h: the best plan's class, once */
    sc_scenario best = *s;
    best.plan = c[0].plan;
    fputs(",\n \"accuracy\": {", out);
    acc_json(out, &best);
    fputc('}', out);
  }
  if (st->has_closest) {
    fputs(",\n \"closest\": ", out);
    search_json_plan(out, s, &st->closest, 0);
  }
  report_search_rejects_json(out, st);
  if (st->rerank_err.code) { /* asked, but the event engine could not */
    fputs(",\n \"rerank_error\": ", out);
    esc_json(out, st->rerank_err.msg);
  }
  fputs("}\n", out);
}

/* One CSV row: plan c ranked `rank` (0: the closest plan, shown when none
 * fits: closest 1), its breakdown, the engine that ranked the plans and
 * how the search stopped. */
static void search_csv_row(FILE *out, const sc_scenario *s, const sc_candidate *c, int rank,
                           const char *ranked_by, const char *stopped) {
  const sc_plan *p = &c->plan;
  const sc_result *r = &c->result;
  fprintf(out, "%d,%d,%d,%d,%d,%d,%d,%d,%ld,%d,%s,%.6g,%.6g,%.6g,%.0f,%d,", rank, c->pareto,
          p->tp, p->pp, p->dp, p->cp, p->ep, p->vpp, p->micro_batch, p->zero,
          recomp_name(p->recompute), r->step_s, r->tokens_per_s, r->mfu, r->mem.total,
          r->mem.fits);
  fprintf(out, "%s,%d,%d,%d,%d,%d,%d,%d,%d", sc_dtype_name(p->dtype), p->etp,
          p->fsdp_shard, p->pp_first_layers, p->pp_last_layers, p->pp_embedding_in_split,
          p->recompute_layers, p->offload_layers, report_marginal(s, &r->mem));
  report_search_time_csv(out, c, 0);
  fprintf(out, ",%s,%d,%s\n", ranked_by, rank == 0, stopped);
}

static void search_csv(FILE *out, const sc_scenario *s, const sc_candidate *c, int n,
                       const sc_search_stats *st) {
  fprintf(out, "rank,pareto_front,tp,pp,dp,cp,ep,vpp,micro_batch,zero,recompute,step_s,tokens_per_s,mfu,memory_bytes,fits,"
               "dtype,etp,fsdp_shard,pp_first_layers,pp_last_layers,pp_embedding_in_split,recompute_layers,offload_layers,fits_marginal");
  report_search_time_csv(out, NULL, 1);
  fprintf(out, ",ranked_by,closest,stopped\n");
  const char *stopped = report_stop_name(st->stopped), *by = ranked_by(st);
  for (int i = 0; i < n; i++) search_csv_row(out, s, &c[i], i + 1, by, stopped);
  if (n == 0 && st->has_closest) search_csv_row(out, s, &st->closest, 0, by, stopped);
}

/* What a searched plan sets beyond the table's columns (docs/search.md):
 * "stages first 23 last 23 recompute 3 layers offload 24 etp 1 hsdp 8",
 * or "" for none of them. */
static void search_extra(const sc_plan *p, char *buf, size_t cap) {
  size_t n = 0;
  buf[0] = 0;
#define EXTRA(...) \
  if (n < cap) n += (size_t)snprintf(buf + n, cap - n, __VA_ARGS__)
  if (p->pp_first_layers || p->pp_last_layers)
    EXTRA("%sstages first %d last %d", n ? " " : "", p->pp_first_layers, p->pp_last_layers);
  if (p->pp_embedding_in_split) EXTRA("%sembedding/loss in split", n ? " " : "");
  if (p->recompute_layers) EXTRA("%srecompute %d layer%s", n ? " " : "", p->recompute_layers,
                                p->recompute_layers == 1 ? "" : "s");
  if (p->offload_layers) EXTRA("%soffload %d layer%s", n ? " " : "", p->offload_layers,
                              p->offload_layers == 1 ? "" : "s");
  if (p->etp == 1 && p->tp > 1) EXTRA("%setp 1", n ? " " : "");
  if (p->fsdp_shard) EXTRA("%shsdp %d", n ? " " : "", p->fsdp_shard);
#undef EXTRA
}

/* One row of the search table of s; '*' marks the Pareto front; the
 * dtype column where the space mixes types (dtype_col). */
static void search_row(FILE *out, const sc_scenario *s, const sc_candidate *c, int rank,
                       int dtype_col) {
  const sc_plan *p = &c->plan;
  const sc_result *r = &c->result;
  char r_txt[16];
  snprintf(r_txt, sizeof r_txt, rank > 0 ? "%d" : "-", rank);
  fprintf(out, "  %4s%c%3d %3d %4d %3d %3d %3d %3ld %4d %-9s %8.3f %10.0f %4.1f%% %7.1f",
          r_txt, c->pareto ? '*' : ' ', p->tp, p->pp, p->dp, p->cp, p->ep, p->vpp,
          p->micro_batch, p->zero, recomp_name(p->recompute), r->step_s, r->tokens_per_s,
          100 * r->mfu, r->mem.total / GIB);
  char extra[160];
  search_extra(p, extra, sizeof extra);
  int marginal = report_marginal(s, &r->mem);
  int more = c->event_s > 0 || extra[0] || !r->mem.fits || marginal; /* no trailing blanks */
  if (dtype_col) fprintf(out, "  %-*s", more ? 5 : 0, sc_dtype_name(p->dtype));
  if (c->event_s > 0) fprintf(out, " %12.3f", c->event_s);
  fprintf(out, "%s%s%s%s\n", extra[0] ? "  " : "", extra, r->mem.fits ? "" : "  does not fit",
          marginal ? "  marginal" : "");
}

/* After the table, where a plan shown is marginal: what the marker means. */
static void search_marginal_note(FILE *out, const sc_scenario *s, const sc_candidate *c, int n) {
  int any = 0;
  for (int i = 0; i < n && !any; i++) any = report_marginal(s, &c[i].result.mem);
  if (!any) return;
  fprintf(out, "\n  marginal: within the memory model's %.0f %% band of the GPU's memory "
               "(docs/accuracy.md): may not fit,\n  or may fit where it does not; --headroom "
               "%.0f%% keeps only plans clear of it\n",
          100 * SC_MEMORY_BAND, 100 * SC_MEMORY_BAND);
}

/* Nothing fits: the plan that needs least memory, where it goes and why
 * it does not fit. */
static void search_closest(FILE *out, const sc_scenario *s, const sc_candidate *c,
                           int dtype_col) {
  const sc_memory *m = &c->result.mem;
  part mp[6];
  mem_parts(m, mp);
  if (m->host_capacity > 0 && m->host > m->host_capacity && m->total <= m->capacity)
    fprintf(out, "\n  no plan fits; the closest needs %.1f GiB per GPU and %.1f GiB of pinned CPU "
                 "memory per server, over the %.1f GiB the server has:\n",
            m->total / GIB, m->host / GIB, m->host_capacity / GIB);
  else if (m->total <= m->capacity) /* search --headroom */
    fprintf(out, "\n  no plan fits; the closest needs %.1f GiB per GPU, within the %.1f GiB the GPU "
                 "has but not the %.1f GiB of headroom asked for:\n",
            m->total / GIB, m->capacity / GIB, m->headroom / GIB);
  else
    fprintf(out, "\n  no plan fits; the closest needs %.1f GiB per GPU, %.1f GiB over the %.1f GiB "
                 "the GPU has:\n",
            m->total / GIB, (m->total - m->capacity) / GIB, m->capacity / GIB);
  search_row(out, s, c, 0, dtype_col);
  if (report_marginal(s, m))
    fprintf(out, "    marginal: within the memory model's %.0f %% band of the GPU's memory "
                 "(docs/accuracy.md): it may fit\n", 100 * SC_MEMORY_BAND);
  fprintf(out, "    memory per GPU:");
  for (int i = 0; i < 6; i++) fprintf(out, " %s %.1f GiB%s", mp[i].name, mp[i].s / GIB, i < 5 ? "," : "\n");
  fprintf(out, "    more GPUs, a smaller global batch or model, or a GPU with more memory would help\n");
}

/* The kernel a search's plans of GEMM type d run: plan.attention "auto"
 * resolved for d, as each candidate's is (plan/plan_attn.h). */
static const char *search_attn_of(const sc_scenario *s, sc_dtype d) {
  sc_plan p = s->plan;
  p.dtype = d;
  return attn_name(&s->cluster.gpu, &p);
}

/* The attention of a search's title: ", attention K", or where the types
 * searched run different kernels "; attention K (bf16), K' (fp8)";
 * nothing for a CNN. */
static void search_attention(const sc_scenario *s, unsigned dts, char *buf, size_t cap) {
  buf[0] = '\0';
  if (s->model.kind == SC_MODEL_CNN) return;
  const char *one = NULL;
  int mixed = 0;
  for (int d = 0; d < SC_DTYPE_COUNT; d++) {
    if (!(dts >> d & 1u)) continue;
    const char *k = search_attn_of(s, (sc_dtype)d);
    mixed |= one && strcmp(k, one) != 0;
    if (!one) one = k;
  }
  if (!one) return;
  if (!mixed) {
    snprintf(buf, cap, ", attention %s", one);
    return;
  }
  size_t n = (size_t)snprintf(buf, cap, "; attention");
  int listed = 0;
  for (int d = 0; d < SC_DTYPE_COUNT && n < cap; d++)
    if (dts >> d & 1u)
      n += (size_t)snprintf(buf + n, cap - n, "%s %s (%s)", listed++ ? "," : "",
                            search_attn_of(s, (sc_dtype)d), sc_dtype_name((sc_dtype)d));
}

void sc_report_search(FILE *out, sc_format fmt, const sc_scenario *s,
                      const sc_candidate *c, int n, const sc_search_stats *st) {
  if (fmt == SC_FORMAT_JSON || fmt == SC_FORMAT_CSV) {
    if (fmt == SC_FORMAT_JSON) search_json(out, s, c, n, st);
    else search_csv(out, s, c, n, st);
    return;
  }
  /* the types searched: one in the title, or a column where they mix */
  unsigned dts = searched_dtypes(s, st);
  int dtype_col = (dts & (dts - 1)) != 0;
  char types[64], attn[160];
  dtype_list(dts, "", types, sizeof types);
  search_attention(s, dts, attn, sizeof attn);
  char gpu[REPORT_GPU_CAP];
  report_gpu_label(&s->cluster.gpu, gpu);
  fprintf(out, "stepcast %s search: %s on %d x %s, global batch %ld, %s%s%s\n", SC_VERSION,
          s->model.name, s->cluster.gpus, gpu, s->plan.global_batch,
          dtype_col ? "dtypes " : "", types, attn);
  pred_table_network(out, &s->cluster); /* as predict says it */
  double walk = st->seconds - st->rerank_seconds; /* plans/s: of the walk alone */
  fprintf(out, "%ld plans tried, %ld valid, %ld fit in memory, %ld pruned, %.3f s (%.0f plans/s, %d thread%s",
          st->tried, st->valid, st->fit, st->pruned, st->seconds,
          walk > 0 ? st->tried / walk : 0, st->threads, st->threads == 1 ? "" : "s");
  if (st->reranked) fprintf(out, "; re-rank %.3f s", st->rerank_seconds);
  fprintf(out, ")\n");
  report_search_stop_text(out, st);
  if (st->reranked)
    fprintf(out, "ranked by the event engine: the closed form's top %d, each re-run (event s: its "
                 "step, docs/event.md);\n* = on the time-vs-memory Pareto front\n\n", n);
  else
    fprintf(out, "ranked by the closed-form engine; * = on the time-vs-memory Pareto front\n\n");
  /* a CNN's throughput is images (tokens_per_s = seq_per_s there), as predict says;
   * no header over no row (no plan valid) */
  if (n > 0 || st->has_closest)
    fprintf(out, "  rank  tp  pp   dp  cp  ep vpp  mb zero recompute   step s   %s   MFU   GiB/GPU%s%s\n",
            s->model.kind == SC_MODEL_CNN ? "images/s" : "tokens/s", dtype_col ? "  dtype" : "",
            st->reranked ? "     event s" : "");
  for (int i = 0; i < n; i++) search_row(out, s, &c[i], i + 1, dtype_col);
  report_search_time_text(out, c, n, st->reranked);
  search_marginal_note(out, s, c, n);
  if (n > 0) { /* report/accuracy.h: the best plan's class, once */
    sc_scenario best = *s;
    best.plan = c[0].plan;
    fputc('\n', out);
    acc_table_line(out, &best, "accuracy, plan 1");
  }
  if (n == 0 && st->has_closest) search_closest(out, s, &st->closest, dtype_col);
  else if (n == 0)
    fprintf(out, "  no plan is valid for this model, cluster and batch under the degrees and "
                 "bounds given (docs/search.md, \"The space\")\n");
  if (n == 0) report_search_rejects_text(out, st);
}

/* ------------------------------------------------------------ validation */

static const char *val_kind_name(val_kind k) {
  return k == VAL_TRAINING     ? "training"
         : k == VAL_COLLECTIVE ? "collective"
         : k == VAL_RECSYS     ? "recsys"
         : k == VAL_DP         ? "dp_training"
                               : "unsupported";
}

/* Recsys sets: MAPE and skipped rows per sharding kind (the row's group),
 * groups in order of first appearance. */
static void val_groups(FILE *out, const val_file *f, int w) {
  for (int j = 0; j < f->n; j++) {
    const char *g = f->rows[j].group;
    int seen = 0;
    for (int k = 0; k < j && !seen; k++) seen = !strcmp(f->rows[k].group, g);
    if (seen) continue;
    int n = 0, pred = 0;
    double sum = 0;
    for (int k = j; k < f->n; k++) {
      if (strcmp(f->rows[k].group, g)) continue;
      n++;
      if (!f->rows[k].skipped[0]) { pred++; sum += f->rows[k].ape; }
    }
    fprintf(out, "%-*s   %-18s %3d rows, %3d predicted, %3d skipped, MAPE %5.1f%%\n", w, "", g,
            n, pred, n - pred, pred ? 100 * sum / pred : 0.0);
  }
}

/* 1 when a training row's memory verdict is marginal: its predicted total
 * within the memory model's band of the GPU's capacity (sc_memory_marginal). */
int report_val_marginal(const sc_validation_row *r) {
  sc_memory m = {.total = r->mem_total, .capacity = r->mem_capacity};
  return r->fit != 0 && sc_memory_marginal(&m);
}

/* The training rows of f whose memory verdict is marginal. */
int report_val_marginal_rows(const sc_validation *f) {
  int n = 0;
  for (int j = 0; j < f->n; j++) n += report_val_marginal(&f->rows[j]);
  return n;
}

/* A training row's memory verdict: "fits" (null when not predicted), how
 * sure it is and the memory it was judged on, GiB. */
static void val_json_fit(FILE *out, const val_row *r) {
  if (!r->fit) {
    fprintf(out, ", \"fits\": null, \"memory_gib\": null, \"capacity_gib\": null, "
                 "\"fits_confidence\": null");
    return;
  }
  fprintf(out, ", \"fits\": %s, \"memory_gib\": %.6g, \"capacity_gib\": %.6g, "
               "\"fits_confidence\": \"%s\"",
          r->fit > 0 ? "true" : "false", r->mem_total / 1073741824.0,
          r->mem_capacity / 1073741824.0, report_val_marginal(r) ? "marginal" : "clear");
}

static void val_json(FILE *out, const val_file *f, int n, unsigned flags) {
  fprintf(out, "{\"files\": [");
  for (int i = 0; i < n; i++) {
    fprintf(out, "%s\n  {\"file\": ", i ? "," : "");
    esc_json(out, f[i].path);
    fprintf(out, ", \"kind\": \"%s\", \"rows\": %d, \"predicted\": %d, \"skipped\": %d, "
                 "\"not_supported_yet\": %d, \"mape\": %.6g, \"median_ape\": %.6g, "
                 "\"max_ape\": %.6g, \"within_10pct\": %d",
            val_kind_name(f[i].kind), f[i].n, f[i].predicted, f[i].skipped,
            f[i].kind == VAL_UNSUPPORTED ? f[i].n : 0, f[i].mape, f[i].median_ape, f[i].max_ape,
            f[i].within_10pct);
    if (flags & SC_REPORT_TIMINGS) fprintf(out, ", \"seconds\": %.6g", f[i].seconds);
    if (f[i].kind == VAL_COLLECTIVE)
      fprintf(out, ", \"mape_below_1mib\": %.6g, \"mape_from_1mib\": %.6g", f[i].mape_small,
              f[i].mape_large);
    if (f[i].kind == VAL_TRAINING)
      fprintf(out, ", \"no_fit\": %d, \"fit_marginal\": %d", f[i].no_fit,
              report_val_marginal_rows(&f[i]));
    fprintf(out, ", \"in_sample\": ");
    if (f[i].in_sample[0]) esc_json(out, f[i].in_sample);
    else fprintf(out, "null");
    if (f[i].kind == VAL_DP) { /* issue 9: families, ranking */
      fprintf(out, ", \"rank_pairs\": %d, \"rank_right\": %.1f, \"scaling_err\": %.6g, "
                   "\"scaling_rows\": %d, \"note\": ", f[i].rank_pairs, f[i].rank_right,
              f[i].scaling_err, f[i].scaling_rows);
      esc_json(out, f[i].note);
    }
    fputc('}', out);
  }
  fprintf(out, "],\n \"rows\": [");
  int first = 1;
  for (int i = 0; i < n; i++)
    for (int j = 0; j < f[i].n; j++) {
      const val_row *r = &f[i].rows[j];
      fprintf(out, "%s\n  {\"file\": ", first ? "" : ",");
      first = 0;
      esc_json(out, f[i].path);
      fprintf(out, ", \"id\": ");
      esc_json(out, r->id);
      fprintf(out, ", \"measured\": %.6g, ", r->measured);
      if (r->skipped[0]) {
        fprintf(out, "\"predicted\": null, \"ape\": null, \"skipped\": ");
        esc_json(out, r->skipped);
      } else {
        fprintf(out, "\"predicted\": %.6g, \"ape\": %.6g, \"skipped\": null", r->predicted, r->ape);
      }
      if (r->group[0]) {
        fprintf(out, ", \"group\": ");
        esc_json(out, r->group);
      }
      fprintf(out, ", \"assumed\": ");
      if (r->assumed[0]) esc_json(out, r->assumed);
      else fprintf(out, "null");
      if (f[i].kind == VAL_TRAINING) val_json_fit(out, r);
      fputc('}', out);
    }
  fprintf(out, "]}\n");
}

static void val_csv(FILE *out, const val_file *f, int n) {
  fprintf(out, "file,kind,id,measured,predicted,ape,skipped,fits,fits_marginal\n");
  for (int i = 0; i < n; i++)
    for (int j = 0; j < f[i].n; j++) {
      const val_row *r = &f[i].rows[j];
      esc_csv(out, f[i].path, ',');
      esc_csv(out, val_kind_name(f[i].kind), ',');
      esc_csv(out, r->id, ',');
      if (r->skipped[0]) {
        fprintf(out, "%.6g,,,", r->measured);
        esc_csv(out, r->skipped, ',');
      } else {
        fprintf(out, "%.6g,%.6g,%.6g,,", r->measured, r->predicted, r->ape);
      }
      fprintf(out, "%s,%s\n", r->fit > 0 ? "yes" : r->fit < 0 ? "no" : "",
              !r->fit ? "" : report_val_marginal(r) ? "1" : "0");
    }
}

/* A training row's memory verdict where it is not a plain "fits": does
 * not fit, or within the memory model's band either side (marginal). */
static void val_row_fit(FILE *out, const val_row *r) {
  double tot = r->mem_total / 1073741824.0, cap = r->mem_capacity / 1073741824.0;
  if (r->fit < 0)
    fprintf(out, "  does not fit: %.1f of %.1f GiB%s", tot, cap,
            report_val_marginal(r) ? " (marginal: within the band, may fit)" : "");
  else if (report_val_marginal(r))
    fprintf(out, "  fits, marginal: %.1f of %.1f GiB", tot, cap);
}

static void val_rows_table(FILE *out, const val_file *f) {
  const char *unit = f->kind == VAL_COLLECTIVE ? "us" : "s/step";
  char text[sizeof f->path];
  esc_text(text, sizeof text, f->path); /* user text on a terminal */
  fprintf(out, "%s\n", text);
  if (f->kind == VAL_UNSUPPORTED) {
    fprintf(out, "  not supported yet: %d rows (%s)\n\n", f->n,
            f->n ? f->rows[0].skipped + strlen("not supported yet: ") : "no rows");
    return;
  }
  fprintf(out, "  %-28s %12s %12s %8s\n", "id", "measured", "predicted", "error");
  for (int j = 0; j < f->n; j++) {
    const val_row *r = &f->rows[j];
    char id[sizeof r->id], why[sizeof r->skipped], assumed[sizeof r->assumed];
    esc_text(id, sizeof id, r->id);
    esc_text(why, sizeof why, r->skipped);
    esc_text(assumed, sizeof assumed, r->assumed);
    if (r->skipped[0])
      fprintf(out, "  %-28s %12.4g %12s %8s  skipped: %s\n", id, r->measured, "-", "-", why);
    else
      fprintf(out, "  %-28s %12.4g %12.4g %+7.1f%%%s%s", id, r->measured, r->predicted,
              100 * (r->predicted - r->measured) / r->measured,
              r->assumed[0] ? "  assumed: " : "", assumed);
    val_row_fit(out, r);
    if (!r->skipped[0]) fputc('\n', out);
  }
  fprintf(out, "  (%s)\n\n", unit);
}

static void val_table(FILE *out, const val_file *f, int n, unsigned flags) {
  if (flags & SC_REPORT_ROWS)
    for (int i = 0; i < n; i++) val_rows_table(out, &f[i]);
  int w = 48; /* the name column fits the longest path */
  for (int i = 0; i < n; i++)
    if ((int)strlen(f[i].path) > w) w = (int)strlen(f[i].path);
  fprintf(out, "%-*s %5s %5s %5s %7s %7s %7s %7s\n", w, "file", "rows", "pred", "skip", "MAPE",
          "median", "max", "<=10%");
  for (int i = 0; i < n; i++) {
    char name[sizeof f[i].path];
    esc_text(name, sizeof name, f[i].path);
    if (f[i].kind == VAL_UNSUPPORTED) {
      fprintf(out, "%-*s %5d not supported yet: %d rows\n", w, name, f[i].n, f[i].n);
      continue;
    }
    fprintf(out, "%-*s %5d %5d %5d %6.1f%% %6.1f%% %6.1f%% %7d\n", w, name, f[i].n,
            f[i].predicted, f[i].skipped, 100 * f[i].mape, 100 * f[i].median_ape,
            100 * f[i].max_ape, f[i].within_10pct);
    if (f[i].kind == VAL_RECSYS) val_groups(out, &f[i], w);
    if (f[i].kind == VAL_TRAINING)
      fprintf(out, "%-*s memory: %d of %d predicted rows do not fit by the memory model (they "
                   "ran: false verdicts); %d within its %.0f %% band of capacity (marginal)\n",
              w, "", f[i].no_fit, f[i].predicted, report_val_marginal_rows(&f[i]), 100 * SC_MEMORY_BAND);
    if (f[i].kind == VAL_COLLECTIVE)
      fprintf(out, "%-*s MAPE below 1 MiB %.1f%% (%d rows), from 1 MiB %.1f%% (%d rows)\n", w,
              "", 100 * f[i].mape_small, f[i].n_small, 100 * f[i].mape_large, f[i].n_large);
    if (f[i].in_sample[0]) fprintf(out, "%-*s IN-SAMPLE: %s\n", w, "", f[i].in_sample);
    if (f[i].note[0]) fprintf(out, "%-*s %s\n", w, "", f[i].note);
    if (flags & SC_REPORT_TIMINGS) fprintf(out, "%-*s %.3f s\n", w, "", f[i].seconds);
  }
}

void sc_report_validation(FILE *out, sc_format fmt, const sc_validation *files, int n,
                          unsigned flags) {
  if (fmt == SC_FORMAT_JSON) val_json(out, files, n, flags);
  else if (fmt == SC_FORMAT_CSV) val_csv(out, files, n);
  else val_table(out, files, n, flags);
}


/* The host side of a cluster preset as activation offloading sees it
 * (sc_host; only what the preset states, 0 meaning not limited). */
static void preset_host(FILE *out, const sc_host *h) {
  if (h->gpus_per_link > 1) {
    fprintf(out, "; host: %d GPUs per uplink", h->gpus_per_link);
    if (h->link_bw > 0) fprintf(out, " of %.0f GB/s", h->link_bw / 1e9);
  } else if (h->link_bw > 0 || h->mem_bw > 0 || h->mem_bytes > 0) {
    fprintf(out, "; host: own link per GPU");
  } else {
    return;
  }
  if (h->mem_bw > 0) fprintf(out, ", CPU memory %.0f GB/s", h->mem_bw / 1e9);
  if (h->mem_bytes > 0) fprintf(out, ", %.0f GB", h->mem_bytes / 1e9);
}
/* ------------------------------------------------------------ collective */

/* The table's first line: the group, and the layout when one thread
 * drives several GPUs. */
static void coll_header(FILE *out, const sc_coll_sweep_opts *o, int flow) {
  fprintf(out, "# %s, %d ranks (%d per node), sm%d, %s %g GB/s, NIC %g Gb/s%s%s",
          sc_coll_op_name(o->op), o->ranks, o->ranks_per_node, o->arch,
          o->pcie ? "PCIe" : "NVLink", o->nvlink_GBps,
          o->nic_Gbps, flow ? ", flow engine: " : "", flow ? o->topo : "");
  if (o->fabric) fprintf(out, ", fabric %s", sc_fabric_name(o->fabric));
  if (o->host_cpu) fprintf(out, ", host CPU %s", sc_host_cpu_name(o->host_cpu));
  if (o->gpus_per_thread > 1) fprintf(out, ", %d GPUs per host thread", o->gpus_per_thread);
  fputc('\n', out);
}

/* The JSON document's head: what the header line says, as keys, so that
 * documents of different sweeps tell themselves apart. */
static void coll_json_head(FILE *out, const sc_coll_sweep_opts *o, int flow) {
  fprintf(out, "{\"op\": \"%s\", \"ranks\": %d, \"ranks_per_node\": %d, \"arch\": %d, "
               "\"link\": \"%s\", \"link_GBps\": %.17g, \"nic_Gbps\": %.17g, "
               "\"fabric\": \"%s\", \"host_cpu\": \"%s\", \"gpus_per_thread\": %d, "
               "\"topology\": ",
          sc_coll_op_name(o->op), o->ranks, o->ranks_per_node, o->arch,
          o->pcie ? "pcie" : "nvlink", o->nvlink_GBps, o->nic_Gbps, sc_fabric_name(o->fabric),
          sc_host_cpu_name(o->host_cpu), o->gpus_per_thread > 1 ? o->gpus_per_thread : 1);
  if (flow) esc_json(out, o->topo);
  else fputs("null", out);
  fputs(", \"rows\": [", out);
}

void sc_report_collective(FILE *out, sc_format fmt, const sc_coll_sweep *s) {
  const sc_coll_sweep_opts *o = &s->opts;
  int flow = o->topo[0] != '\0';
  if (fmt == SC_FORMAT_JSON)
    coll_json_head(out, o, flow);
  else if (fmt == SC_FORMAT_CSV)
    fprintf(out, "bytes,nccl_us,nccl_algbw_GBps,nccl_busbw_GBps,algo,proto%s\n",
            flow ? ",flow_us,flow_busbw_GBps" : "");
  else
    coll_header(out, o, flow);
  if (fmt == SC_FORMAT_TABLE)
    fprintf(out, "%12s %12s %10s %10s %-12s%s\n", "size(B)",
            "time(us)", "algbw", "busbw", "nccl-algo", flow ? "   flow(us)  flow-busbw" : "");
  for (int i = 0; i < s->n; i++) {
    const sc_coll_point *p = &s->points[i];
    double us = p->nccl.time * 1e6, alg = p->algbw / 1e9, bus = p->busbw / 1e9;
    if (fmt == SC_FORMAT_JSON)
      fprintf(out, "%s\n {\"bytes\": %.0f, \"time_us\": %.3f, \"algbw_GBps\": %.3f, "
                   "\"busbw_GBps\": %.3f, \"algo\": \"%s\", \"proto\": \"%s\"",
              i ? "," : "", p->bytes, us, alg, bus, p->nccl.algo, p->nccl.proto);
    else if (fmt == SC_FORMAT_CSV)
      fprintf(out, "%.0f,%.3f,%.3f,%.3f,%s,%s", p->bytes, us, alg, bus, p->nccl.algo,
              p->nccl.proto);
    else
      fprintf(out, "%12.0f %12.2f %10.2f %10.2f %-5s/%-6s", p->bytes, us, alg, bus, p->nccl.algo,
              p->nccl.proto);
    if (flow) {
      double fus = p->flow_s * 1e6, fbus = p->flow_busbw / 1e9;
      if (fmt == SC_FORMAT_JSON) fprintf(out, ", \"flow_us\": %.3f, \"flow_busbw_GBps\": %.3f", fus, fbus);
      else if (fmt == SC_FORMAT_CSV) fprintf(out, ",%.3f,%.3f", fus, fbus);
      else fprintf(out, " %11.2f %11.2f", fus, fbus);
    }
    fputs(fmt == SC_FORMAT_JSON ? "}" : "\n", out);
  }
  if (fmt == SC_FORMAT_JSON) { /* report/accuracy.h: NCCL's model on published runs */
    fprintf(out, "],\n \"accuracy\": ");
    acc_coll_json(out, s);
    fprintf(out, "}\n");
  } else if (fmt == SC_FORMAT_TABLE) {
    acc_coll_table(out, s);
  }
}

/* --------------------------------------------------------------- presets */

static double gpu_tflops16(const sc_gpu *g) {
  return (g->peak_flops[SC_BF16] > 0 ? g->peak_flops[SC_BF16] : g->peak_flops[SC_FP16]) / 1e12;
}

/* The dense peak a GPU has for training: the first of bf16, fp16, tf32
 * and fp32 it has a peak for (fp32 on a K80, fp16 on a V100); its type
 * into *dt. */
static double gpu_dense_tflops(const sc_gpu *g, sc_dtype *dt) {
  static const sc_dtype order[] = {SC_BF16, SC_FP16, SC_TF32, SC_FP32};
  for (size_t i = 0; i < sizeof order / sizeof order[0]; i++)
    if (g->peak_flops[order[i]] > 0) return *dt = order[i], g->peak_flops[order[i]] / 1e12;
  return *dt = SC_FP32, 0;
}

/* layers, hidden, heads, kv_heads, seq of a preset for the CSV and JSON
 * lists (CNNs: 0 but the image size as seq; BERT: its encoder). */
static void preset_shape(const sc_model *m, int sh[5]) {
  memset(sh, 0, 5 * sizeof *sh);
  if (m->kind == SC_MODEL_TRANSFORMER) {
    sh[0] = m->tf.layers, sh[1] = m->tf.hidden, sh[2] = m->tf.heads;
    sh[3] = m->tf.kv_heads, sh[4] = m->tf.seq;
  } else if (m->kind == SC_MODEL_BERT) {
    sh[0] = m->bert.layers, sh[1] = m->bert.hidden, sh[2] = sh[3] = m->bert.heads;
    sh[4] = m->bert.seq;
  }
}

static void presets_table(FILE *out) {
  fprintf(out, "GPUs (cluster.gpu): dense peak, memory, GPU-to-GPU link per direction\n");
  for (size_t i = 0; i < sc_gpu_preset_count(); i++) {
    const sc_gpu *g = sc_gpu_preset_at(i);
    sc_dtype dt;
    double tf = gpu_dense_tflops(g, &dt);
    /* memory in GiB (2^30 B): the unit nvidia-smi and the datasheets'
     * "80 GB" mean; bandwidths in decimal units, as datasheets give them */
    fprintf(out, "  %-16s %7.4g TFLOP/s %-4s  %6.1f GiB  %5.2f TB/s memory  %4.0f GB/s %s\n",
            g->name, tf, sc_dtype_name(dt), g->hbm_bytes / 1073741824.0, g->hbm_bw / 1e12,
            g->nvlink_bw / 1e9, gpu_link_label(g->link));
  }
  fprintf(out, "\nModels (model):\n");
  for (size_t i = 0; i < sc_model_preset_count(); i++) {
    const sc_model *m = sc_model_preset_at(i);
    if (m->kind == SC_MODEL_CNN)
      fprintf(out, "  %-16s %8.4fB params  CNN, %d x %d images\n", m->name,
              sc_model_params(m) / 1e9, m->cnn.image, m->cnn.image);
    else if (m->kind == SC_MODEL_BERT)
      fprintf(out, "  %-16s %8.3fB params  %3d layers  hidden %5d  heads %3d      seq %d (BERT)\n",
              m->name, sc_model_params(m) / 1e9, m->bert.layers, m->bert.hidden,
              m->bert.heads, m->bert.seq);
    else
      fprintf(out, "  %-16s %8.1fB params  %3d layers  hidden %5d  heads %3d/%-3d  seq %d\n",
              m->name, sc_model_params(m) / 1e9, m->tf.layers, m->tf.hidden, m->tf.heads,
              m->tf.kv_heads, m->tf.seq);
  }
  fprintf(out, "\nClusters (cluster.preset):\n");
  for (size_t i = 0; i < sc_cluster_preset_count(); i++) {
    const sc_cluster *c = sc_cluster_preset_at(i);
    /* the GPU-to-GPU domain by its GPU preset's link (Infinity Fabric on
     * AMD; the cluster table holds the GPU's id only) */
    const sc_gpu *g = sc_gpu_preset(c->gpu.name);
    fprintf(out, "  %-18s %s, %d GPUs per node, %s domain %d, NIC %.0f Gb/s per GPU", c->name,
            c->gpu.name, c->gpus_per_node, gpu_link_label(g ? g->link : c->gpu.link),
            c->nvlink_domain, c->nic_bw * 8 / 1e9);
    if (c->fabric) fprintf(out, " (%s)", sc_fabric_name(c->fabric));
    preset_host(out, &c->host);
    fputc('\n', out);
  }
}

/* One preset as a CSV row or JSON object: kind, name and the numbers of
 * that kind (the other CSV columns blank). */
static const char PRESET_CSV_HEADER[] =
    "kind,name,tflops_16bit,hbm_bytes,hbm_Bps,nvlink_Bps,params,layers,hidden,heads,kv_heads,"
    "seq,gpu,gpus_per_node,nvlink_domain,nic_Bps,dense_tflops,dense_dtype,link,fp8_tflops,"
    "fabric,host_gpus_per_link,host_link_Bps,host_mem_Bps,host_mem_bytes\n";

static void presets_csv(FILE *out) {
  fputs(PRESET_CSV_HEADER, out);
  for (size_t i = 0; i < sc_gpu_preset_count(); i++) {
    const sc_gpu *g = sc_gpu_preset_at(i);
    fputs("gpu,", out);
    esc_csv(out, g->name, ',');
    sc_dtype dt;
    double tf = gpu_dense_tflops(g, &dt);
    fprintf(out, "%.15g,%.15g,%.15g,%.15g,,,,,,,,,,,%.15g,%s,%s,%.15g,,,,,\n", gpu_tflops16(g),
            g->hbm_bytes, g->hbm_bw, g->nvlink_bw, tf, sc_dtype_name(dt), gpu_link_key(g->link),
            g->peak_flops[SC_FP8] / 1e12);
  }
  for (size_t i = 0; i < sc_model_preset_count(); i++) {
    const sc_model *m = sc_model_preset_at(i);
    fputs("model,", out);
    esc_csv(out, m->name, ',');
    int sh[5];
    preset_shape(m, sh);
    fprintf(out, ",,,,%.15g,%d,%d,%d,%d,%d,,,,,,,,,,,,,\n", sc_model_params(m), sh[0], sh[1],
            sh[2], sh[3], sh[4]);
  }
  for (size_t i = 0; i < sc_cluster_preset_count(); i++) {
    const sc_cluster *c = sc_cluster_preset_at(i);
    fputs("cluster,", out);
    esc_csv(out, c->name, ',');
    fprintf(out, ",,,,,,,,,,");
    esc_csv(out, c->gpu.name, ',');
    const sc_host *h = &c->host;
    fprintf(out, "%d,%d,%.15g,,,,,%s,%d,%.15g,%.15g,%.15g\n", c->gpus_per_node, c->nvlink_domain,
            c->nic_bw, sc_fabric_name(c->fabric), h->gpus_per_link > 1 ? h->gpus_per_link : 1,
            h->link_bw, h->mem_bw, h->mem_bytes);
  }
}

static void presets_json(FILE *out) {
  fprintf(out, "{\"gpus\": [");
  for (size_t i = 0; i < sc_gpu_preset_count(); i++) {
    const sc_gpu *g = sc_gpu_preset_at(i);
    fprintf(out, "%s\n  {\"name\": ", i ? "," : "");
    esc_json(out, g->name);
    sc_dtype dt;
    double tf = gpu_dense_tflops(g, &dt);
    fprintf(out, ", \"tflops_16bit\": %.15g, \"hbm_bytes\": %.15g, \"hbm_Bps\": %.15g, "
                 "\"nvlink_Bps\": %.15g, \"dense_tflops\": %.15g, \"dense_dtype\": \"%s\", "
                 "\"link\": \"%s\", \"fp8_tflops\": %.15g}",
            gpu_tflops16(g), g->hbm_bytes, g->hbm_bw, g->nvlink_bw, tf, sc_dtype_name(dt),
            gpu_link_key(g->link), g->peak_flops[SC_FP8] / 1e12);
  }
  fprintf(out, "],\n \"models\": [");
  for (size_t i = 0; i < sc_model_preset_count(); i++) {
    const sc_model *m = sc_model_preset_at(i);
    int sh[5];
    preset_shape(m, sh);
    fprintf(out, "%s\n  {\"name\": ", i ? "," : "");
    esc_json(out, m->name);
    fprintf(out, ", \"params\": %.15g, \"layers\": %d, \"hidden\": %d, \"heads\": %d, "
                 "\"kv_heads\": %d, \"seq\": %d}", sc_model_params(m), sh[0], sh[1], sh[2],
            sh[3], sh[4]);
  }
  fprintf(out, "],\n \"clusters\": [");
  for (size_t i = 0; i < sc_cluster_preset_count(); i++) {
    const sc_cluster *c = sc_cluster_preset_at(i);
    fprintf(out, "%s\n  {\"name\": ", i ? "," : "");
    esc_json(out, c->name);
    fprintf(out, ", \"gpu\": ");
    esc_json(out, c->gpu.name);
    const sc_host *h = &c->host;
    fprintf(out, ", \"gpus_per_node\": %d, \"nvlink_domain\": %d, \"nic_Bps\": %.15g, "
                 "\"fabric\": \"%s\", \"host_gpus_per_link\": %d, \"host_link_Bps\": %.15g, "
                 "\"host_mem_Bps\": %.15g, \"host_mem_bytes\": %.15g}",
            c->gpus_per_node, c->nvlink_domain, c->nic_bw, sc_fabric_name(c->fabric),
            h->gpus_per_link > 1 ? h->gpus_per_link : 1, h->link_bw, h->mem_bw, h->mem_bytes);
  }
  fprintf(out, "]}\n");
}

void sc_report_presets(FILE *out, sc_format fmt) {
  if (fmt == SC_FORMAT_JSON) presets_json(out);
  else if (fmt == SC_FORMAT_CSV) presets_csv(out);
  else presets_table(out);
}
