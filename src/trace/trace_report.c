/*
 * trace_report.c -- reports of a replayed trace (sc_report_trace_replay)
 * and its schedule as a Chrome/Perfetto trace (sc_trace_write_perfetto).
 */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "report/esc.h"
#include "stepcast.h"
#include "trace/trace_int.h"

/* s as a JSON string literal (jansson escapes it). */
static void jstr(FILE *out, const char *s) {
  json_t *v = json_string(s ? s : "");
  if (!v) v = json_string("?"); /* not UTF-8 */
  if (v)
    json_dumpf(v, out, JSON_ENCODE_ANY);
  else
    fputs("\"\"", out);
  json_decref(v);
}

static double pct(double now, double base) { return base > 0 ? 100 * (now - base) / base : 0; }

/* ------------------------------------------------------------- table */

static void table_head(FILE *out, const sc_trace *t) {
  sc_trace_info in;
  sc_trace_info_get(t, &in);
  if (in.chakra) { /* communication nodes: COMM_COLL, then COMM_SEND and COMM_RECV */
    fprintf(out,
            "Chakra ET: %d rank%s, %ld compute nodes (%ld GPU, %ld CPU), %ld communication nodes "
            "(%ld collective, %ld send/recv)\n",
            in.ranks, in.ranks == 1 ? "" : "s", in.et_comp, in.kernels, in.host_calls,
            in.collectives, in.et_comm_coll, in.collectives - in.et_comm_coll);
    return;
  }
  fprintf(out, "trace: %d rank%s, %s%s", in.ranks, in.ranks == 1 ? "" : "s",
          in.gpu[0] ? in.gpu : "unknown device", in.amd ? " (ROCm)" : "");
  if (in.arch) fprintf(out, " (sm%d)", in.arch);
  fprintf(out, ", %d ProfilerStep%s on rank 0\n", in.steps, in.steps == 1 ? "" : "s");
  fprintf(out, "       %ld kernels, %ld copies/sets, %ld collectives, %ld host calls\n", in.kernels,
          in.copies, in.collectives, in.host_calls);
  if (in.et_ops)
    fprintf(out,
            "       execution traces: %ld operators, %ld found in the Kineto traces (host calls: "
            "the leaf operators and the calls outside them)\n",
            in.et_ops, in.et_matched);
}

static void table_path(FILE *out, const char *title, const sc_trace_result *r) {
  const sc_trace_path *p = &r->path;
  double tot = p->kernels + p->copies + p->comm + p->host + p->sync;
  fprintf(out, "%s (bound by %s)\n", title, p->bound);
  const char *names[] = {"kernels", "copies", "communication", "host", "synchronisation"};
  const double v[] = {p->kernels, p->copies, p->comm, p->host, p->sync};
  for (int i = 0; i < 5; i++)
    fprintf(out, "  %-16s %10.3f ms %5.1f %%\n", names[i], v[i] * 1e3,
            tot > 0 ? 100 * v[i] / tot : 0);
}

/* The what-if's table; collectives: the job's collective operations (all
 * ranks), those not re-timed being kept as measured. */
static void table_whatif(FILE *out, const sc_trace_whatif *w, const sc_trace_result *b,
                         const sc_trace_result *x, long collectives) {
  const char *sep = ":"; /* the changes, comma-separated */
  fprintf(out, "\nwhat-if");
  if (w->dp_scale != 1) fprintf(out, "%s data-parallel x%g", sep, w->dp_scale), sep = ",";
  if (w->gpu) fprintf(out, "%s gpu %s", sep, w->gpu), sep = ",";
  if (w->nvlink_bw > 0) fprintf(out, "%s nvlink %g GB/s", sep, w->nvlink_bw / 1e9), sep = ",";
  if (w->nic_bw > 0) fprintf(out, "%s nic %g Gb/s", sep, w->nic_bw * 8 / 1e9), sep = ",";
  if (w->ranks_per_node > 0) fprintf(out, "%s %d GPUs/node", sep, w->ranks_per_node), sep = ",";
  if (!w->overlap) fprintf(out, "%s overlap off", sep), sep = ",";
  if (w->comm_model) fprintf(out, "%s collectives from the network model", sep);
  fprintf(out, "\n%-24s %12s %12s %9s\n", "", "as traced", "what-if", "change");
  fprintf(out, "%-24s %9.3f ms %9.3f ms %+8.1f %%\n", "step (predicted)", b->predicted_step_s * 1e3,
          x->predicted_step_s * 1e3, pct(x->predicted_step_s, b->predicted_step_s));
  fprintf(out, "%-24s %9.3f ms %9.3f ms %+8.1f %%\n", "collectives per step",
          b->comm_predicted_s * 1e3, x->comm_predicted_s * 1e3,
          pct(x->comm_predicted_s, b->comm_predicted_s));
  if (x->kernels_scaled)
    fprintf(out,
            "%d kernels scaled to %s by the cost model's ratio per kernel class "
            "(GEMM/conv: tensor throughput, attention, memory-bound: HBM bandwidth)\n",
            x->kernels_scaled, w->gpu);
  /* kept: no message size, or no modelled time as traced to scale (a
   * group of one rank, an unknown collective), or a point-to-point */
  long kept = collectives - x->comm_retimed;
  fprintf(out,
          "%d collectives re-timed by the network model, %ld kept as measured (%d without a "
          "message size)\n",
          x->comm_retimed, kept > 0 ? kept : 0, x->comm_unsized);
  if (x->steps) table_path(out, "what-if critical path per step", x);
}

static void report_table(FILE *out, const sc_trace *t, const sc_trace_result *b,
                         const sc_trace_whatif *w, const sc_trace_result *x) {
  table_head(out, t);
  fprintf(out, "\n%-24s %12s %12s %9s\n", "", "measured", "replayed", "error");
  if (b->steps && !(b->measured_step_s > 0))
    fprintf(out, "%-24s %12s %9.3f ms\n", "step (one iteration)", "-", b->predicted_step_s * 1e3);
  else if (b->steps)
    fprintf(out, "%-24s %9.3f ms %9.3f ms %+8.1f %%\n", "step (mean)", b->measured_step_s * 1e3,
            b->predicted_step_s * 1e3, pct(b->predicted_step_s, b->measured_step_s));
  else
    fprintf(out, "no ProfilerStep in the trace: replayed span %.3f ms\n", b->span_s * 1e3);
  if (!(b->comm_measured_s > 0) && b->comm_predicted_s > 0) /* no traced duration (ASTRA-sim) */
    fprintf(out, "%-24s %12s %9.3f ms\n", "collectives per step", "-", b->comm_predicted_s * 1e3);
  else
    fprintf(out, "%-24s %9.3f ms %9.3f ms\n", "collectives per step", b->comm_measured_s * 1e3,
            b->comm_predicted_s * 1e3);
  if (b->steps && b->predicted_step_s > 0)
    fprintf(out, "%-24s %12s %9.3f ms %6.1f %% of the step\n", "GPU busy per step", "",
            b->gpu_busy_s * 1e3, 100 * b->gpu_busy_s / b->predicted_step_s);
  if (b->coupled) fprintf(out, "%d collectives joined across ranks\n", b->coupled);
  if (b->steps) table_path(out, "\ncritical path per step", b);
  if (x) {
    sc_trace_info in;
    sc_trace_info_get(t, &in);
    table_whatif(out, w, b, x, in.collectives);
  }
}

/* -------------------------------------------------------------- JSON */

static void json_result(FILE *out, const sc_trace_result *r) {
  const sc_trace_path *p = &r->path;
  fprintf(out, "{\"steps\": %d, \"measured_step_s\": %.9g, \"predicted_step_s\": %.9g, ", r->steps,
          r->measured_step_s, r->predicted_step_s);
  fprintf(out, "\"gpu_busy_s\": %.9g, ", r->gpu_busy_s);
  fprintf(out, "\"span_s\": %.9g, \"comm_measured_s\": %.9g, \"comm_predicted_s\": %.9g, ",
          r->span_s, r->comm_measured_s, r->comm_predicted_s);
  fprintf(out,
          "\"comm_retimed\": %d, \"comm_unsized\": %d, \"coupled\": %d, \"kernels_scaled\": %d, ",
          r->comm_retimed, r->comm_unsized, r->coupled, r->kernels_scaled);
  fprintf(out,
          "\"critical_path\": {\"kernels_s\": %.9g, \"copies_s\": %.9g, \"comm_s\": %.9g, "
          "\"host_s\": %.9g, \"sync_s\": %.9g, \"bound\": \"%s\"}}",
          p->kernels, p->copies, p->comm, p->host, p->sync, p->bound);
}

static void json_whatif(FILE *out, const sc_trace_whatif *w) {
  fprintf(out, "{\"dp_scale\": %g, \"gpu\": ", w->dp_scale);
  if (w->gpu)
    jstr(out, w->gpu);
  else
    fputs("null", out);
  /* nvlink_bw and nic_bw in bytes/s, as sc_trace_whatif holds them; the
   * same in the units the options take (--nvlink GB/s, --nic Gb/s) */
  fprintf(out,
          ", \"nvlink_bw\": %g, \"nic_bw\": %g, \"nvlink_GBps\": %g, \"nic_Gbps\": %g, "
          "\"ranks_per_node\": %d, \"overlap\": %s, \"comm_model\": %s}",
          w->nvlink_bw, w->nic_bw, w->nvlink_bw / 1e9, w->nic_bw * 8 / 1e9, w->ranks_per_node,
          w->overlap ? "true" : "false", w->comm_model ? "true" : "false");
}

static void report_json(FILE *out, const sc_trace *t, const sc_trace_result *b,
                        const sc_trace_whatif *w, const sc_trace_result *x) {
  sc_trace_info in;
  sc_trace_info_get(t, &in);
  fputs("{\"jobs\": [{\"files\": [", out);
  for (int i = 0; i < t->job->n + t->n_ch; i++) {
    if (i) fputs(", ", out);
    jstr(out, t->n_ch ? t->ch[i].path : t->job->r[i].path);
  }
  fprintf(out, "], \"ranks\": %d, \"gpu\": ", in.ranks);
  jstr(out, in.gpu);
  fprintf(out,
          ", \"chakra\": %s, \"arch\": %d, \"amd\": %s, \"kernels\": %ld, \"copies\": %ld, "
          "\"collectives\": %ld, ",
          in.chakra ? "true" : "false", in.arch, in.amd ? "true" : "false", in.kernels, in.copies,
          in.collectives);
  if (in.et_ops) fprintf(out, "\"et_ops\": %ld, \"et_matched\": %ld, ", in.et_ops, in.et_matched);
  fprintf(out,
          "\"measured_step_s\": %.9g, \"predicted_step_s\": %.9g, \"critical_path\": \"%s\", "
          "\"replay\": ",
          b->measured_step_s, b->predicted_step_s, b->path.bound);
  json_result(out, b);
  if (x) {
    fputs(", \"whatif\": {\"change\": ", out);
    json_whatif(out, w);
    fputs(", \"result\": ", out);
    json_result(out, x);
    fprintf(out, ", \"step_change\": %.6g}", pct(x->predicted_step_s, b->predicted_step_s) / 100);
  }
  fputs("}]}\n", out);
}

/* --------------------------------------------------------------- CSV */

/* One CSV row of replay r ("as_traced" or "whatif", under w: NULL for as
 * traced) of t: JSON's replay object flattened, and the what-if's
 * settings in named units (as traced: 1, empty, 0 = the trace's). */
static void csv_row(FILE *out, const sc_trace_info *in, const char *replay,
                    const sc_trace_result *r, const sc_trace_whatif *w) {
  const sc_trace_path *p = &r->path;
  fprintf(out, "%s,%d,", replay, in->ranks);
  esc_csv(out, in->gpu, ',');
  fprintf(out, "%d,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%d,%d,%d,%d,%.9g,%.9g,%.9g,%.9g,%.9g,", r->steps,
          r->measured_step_s, r->predicted_step_s, r->span_s, r->gpu_busy_s, r->comm_measured_s,
          r->comm_predicted_s, r->comm_retimed, r->comm_unsized, r->coupled, r->kernels_scaled,
          p->kernels, p->copies, p->comm, p->host, p->sync);
  esc_csv(out, p->bound, ',');
  fprintf(out, "%g,", w ? w->dp_scale : 1);
  esc_csv(out, w && w->gpu ? w->gpu : "", ',');
  fprintf(out, "%g,%g,%d,%d,%d\n", w ? w->nvlink_bw / 1e9 : 0, w ? w->nic_bw * 8 / 1e9 : 0,
          w ? w->ranks_per_node : 0, w ? w->overlap : 1, w ? w->comm_model : 0);
}

/* The replay as one CSV table: a row as traced, and one for the what-if
 * when asked (docs/output.md, "stepcast trace"). */
static void report_csv(FILE *out, const sc_trace *t, const sc_trace_result *b,
                       const sc_trace_whatif *w, const sc_trace_result *x) {
  sc_trace_info in;
  sc_trace_info_get(t, &in);
  fputs("replay,ranks,gpu,steps,measured_step_s,predicted_step_s,span_s,gpu_busy_s,"
        "comm_measured_s,comm_predicted_s,comm_retimed,comm_unsized,coupled,kernels_scaled,"
        "path_kernels_s,path_copies_s,path_comm_s,path_host_s,path_sync_s,bound,dp_scale,"
        "whatif_gpu,nvlink_GBps,nic_Gbps,ranks_per_node,overlap,comm_model\n", out);
  csv_row(out, &in, "as_traced", b, NULL);
  if (x) csv_row(out, &in, "whatif", x, w);
}

void sc_report_trace_replay(FILE *out, sc_format fmt, const sc_trace *t,
                            const sc_trace_result *base, const sc_trace_whatif *w,
                            const sc_trace_result *whatif) {
  if (fmt == SC_FORMAT_JSON)
    report_json(out, t, base, w, whatif);
  else if (fmt == SC_FORMAT_CSV)
    report_csv(out, t, base, w, whatif);
  else
    report_table(out, t, base, w, whatif);
}

/* ---------------------------------------------------------- Perfetto */

/* Thread id of node n in its rank's process: host threads 1.., streams
 * 1000 + stream. */
static long perf_tid(const sc_trace *t, const rp_node *n) {
  if (t->n_ch) return n->is_gpu ? 1000 : 1; /* Chakra: CPU and GPU nodes */
  const tg_rank *r = &t->job->r[n->rank];
  return n->is_gpu ? 1000L + r->gpu.v[n->ref].stream : 1L + r->host.v[n->ref].thread;
}

static const char *perf_name(const sc_trace *t, const rp_node *n) {
  static const char *const cats[] = {"cpu node", "", "gpu node", "", "communication node", ""};
  if (t->n_ch) return cats[n->cat];
  const tg_rank *r = &t->job->r[n->rank];
  if (n->is_gpu) return tg_str(r, r->gpu.v[n->ref].name);
  const tg_host *h = &r->host.v[n->ref];
  return h->kind == TG_CALL ? tg_str(r, h->name) : "ProfilerStep";
}

void sc_trace_write_perfetto(const sc_trace *t, FILE *out) {
  if (!t->replayed) return;
  static const char *const cats[] = {"host", "sync", "kernel", "copy", "communication", "step"};
  fputs("{\"displayTimeUnit\": \"ms\", \"traceEvents\": [\n", out);
  double t0 = INFINITY;
  for (int v = 0; v < t->run.n; v++) t0 = fmin(t0, t->run.nodes[v].start);
  int first = 1;
  for (int v = 0; v < t->run.n; v++) {
    const rp_node *n = &t->run.nodes[v];
    if (n->cat == RP_MARK || (n->cat == RP_SYNC && n->dur == 0 && n->end == n->start)) continue;
    fprintf(out,
            "%s{\"ph\": \"X\", \"pid\": %d, \"tid\": %ld, ", first ? "" : ",\n", n->rank,
            perf_tid(t, n));
    esc_trace_times(out, n->start - t0, n->dur);
    fprintf(out, ", \"cat\": \"%s\", \"name\": ", cats[n->cat]);
    jstr(out, perf_name(t, n));
    fputc('}', out);
    first = 0;
  }
  for (int ri = 0; ri < t->job->n + t->n_ch; ri++)
    fprintf(out,
            "%s{\"ph\": \"M\", \"pid\": %d, \"name\": \"process_name\", \"args\": {\"name\": "
            "\"rank %d (replayed)\"}}",
            first ? "" : ",\n", ri, ri),
        first = 0;
  fputs("\n]}\n", out);
}
