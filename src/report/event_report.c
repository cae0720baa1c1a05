/*
 * event_report.c -- the event engine's prediction with its critical path
 * (sc_report_event) and its Chrome trace (sc_report_event_trace).
 */
#include <stdio.h>

#include "engine/event.h"
#include "engine/fleet.h"
#include "job/job.h"
#include "report/esc.h"
#include "report/report_int.h"

/* Lines of the critical path the table shows; the rest are summed. */
#define PATH_LINES 24

static void path_table(FILE *out, const ev_out *ev, double closed) {
  fprintf(out, "\nengine       event: %d rank class%s (%d stage%s x %d replica%s), %ld events, "
               "%ld tasks; closed form %.4f s (%+.2f %%)\n",
          ev->classes, ev->classes == 1 ? "" : "es", ev->stages, ev->stages == 1 ? "" : "s",
          ev->replicas, ev->replicas == 1 ? "" : "s", ev->events, ev->tasks, closed,
          closed > 0 ? 100 * (ev->step_s / closed - 1) : 0);
  fprintf(out, "critical path (its parts add up to the step)\n");
  fprintf(out, "  %-40s %-8s %12s %7s %8s\n", "task", "stream", "seconds", "share", "count");
  double rest = 0;
  long rest_n = 0;
  for (int i = 0; i < ev->n_path; i++) {
    const ev_part *p = &ev->path[i];
    if (i >= PATH_LINES) {
      rest += p->seconds, rest_n += p->count;
      continue;
    }
    fprintf(out, "  %-40s %-8s %12.6f %6.2f%% %8ld\n", ev->names[p->name],
            ev_stream_name(p->stream), p->seconds, 100 * p->seconds / ev->step_s, p->count);
  }
  if (rest > 0)
    fprintf(out, "  %-40s %-8s %12.6f %6.2f%% %8ld\n", "(other tasks)", "", rest,
            100 * rest / ev->step_s, rest_n);
  fprintf(out, "  %-40s %-8s %12.6f %6.2f%%\n", "step", "", ev->step_s, 100.0);
}

static void path_json(FILE *out, const ev_out *ev) {
  fprintf(out, "[");
  for (int i = 0; i < ev->n_path; i++) {
    const ev_part *p = &ev->path[i];
    fprintf(out, "%s\n  {\"task\": ", i ? "," : "");
    esc_json(out, ev->names[p->name]);
    fprintf(out, ", \"stream\": \"%s\", \"time_s\": %.6g, \"share\": %.6g, \"count\": %ld}",
            ev_stream_name(p->stream), p->seconds, p->seconds / ev->step_s, p->count);
  }
  fprintf(out, "]");
}

static void fleet_table(FILE *out, const fleet *f) {
  if (f->groups < 1 || f->alone_s <= 0) return;
  fprintf(out, "\ndata-parallel reduction on the topology: %d groups of a stage at once take "
               "%.3fx one alone (%.6f vs %.6f s, %.3g B all-reduce)\n",
          f->groups, f->factor, f->fleet_s, f->alone_s, f->bytes);
  fprintf(out, "busiest links   %-24s %-24s %8s %12s\n", "from", "to", "util", "bytes");
  for (int i = 0; i < f->n_top; i++)
    fprintf(out, "                %-24s %-24s %7.1f%% %12.4g\n", f->top[i].src, f->top[i].dst,
            100 * f->top[i].util, f->top[i].bytes);
}

static void fleet_json(FILE *out, const fleet *f) {
  if (f->groups < 1 || f->alone_s <= 0) return;
  fprintf(out, ",\n \"dp_fleet\": {\"groups\": %d, \"factor\": %.6g, \"fleet_s\": %.6g, "
               "\"alone_s\": %.6g, \"bytes\": %.6g, \"busiest_links\": [",
          f->groups, f->factor, f->fleet_s, f->alone_s, f->bytes);
  for (int i = 0; i < f->n_top; i++) {
    fprintf(out, "%s{\"from\": ", i ? ", " : "");
    esc_json(out, f->top[i].src);
    fprintf(out, ", \"to\": ");
    esc_json(out, f->top[i].dst);
    fprintf(out, ", \"util\": %.6g, \"bytes\": %.6g}", f->top[i].util, f->top[i].bytes);
  }
  fprintf(out, "]}");
}

void sc_report_event(FILE *out, sc_format fmt, const sc_scenario *s, const sc_result *r,
                     const sc_event_pred *p) {
  const ev_out *ev = event_pred_run(p);
  double closed = sc_event_closed_step(p);
  if (fmt == SC_FORMAT_TABLE) {
    sc_report_prediction(out, fmt, s, r, 0);
    path_table(out, ev, closed);
    fleet_table(out, event_pred_fleet(p));
    return;
  }
  if (fmt == SC_FORMAT_CSV) {
    fprintf(out, "task,stream,seconds,share,count\n");
    for (int i = 0; i < ev->n_path; i++) {
      const ev_part *q = &ev->path[i];
      esc_csv(out, ev->names[q->name], ',');
      fprintf(out, "%s,%.6g,%.6g,%ld\n", ev_stream_name(q->stream), q->seconds,
              q->seconds / ev->step_s, q->count);
    }
    return;
  }
  report_pred_json(out, s, r);
  fprintf(out, ",\n \"engine\": \"event\", \"closed_form_step_s\": %.6g, \"rank_classes\": %d, "
               "\"stages\": %d, \"replicas\": %d, \"events\": %ld, \"tasks\": %ld,\n "
               "\"critical_path\": ",
          closed, ev->classes, ev->stages, ev->replicas, ev->events, ev->tasks);
  path_json(out, ev);
  fleet_json(out, event_pred_fleet(p));
  fprintf(out, "}\n");
}

/* What each stream's thread is called in the trace. */
static const char *stream_label(ev_stream s) {
  static const char *const l[EV_STREAMS] = {
      "compute",           "TP (tensor parallel)",    "CP (context parallel)",
      "EP (expert parallel)", "MP (re-layout)",       "PP (pipeline send/recv)",
      "DP (data parallel)", "offload (host copies)", "host"};
  return l[s];
}

static const char *pass_cat(char k) {
  switch (k) {
  case 'F': return "forward";
  case 'R': return "recompute";
  case 'B': return "backward";
  case 'S': return "send/recv";
  case 'D': return "data-parallel";
  default: return "optimizer";
  }
}

void sc_report_event_trace(FILE *out, const sc_scenario *s, const sc_event_pred *p) {
  const ev_out *ev = event_pred_run(p);
  int per_class = ev->stages > 0 ? s->cluster.gpus / ev->stages : 0;
  fprintf(out, "{\"displayTimeUnit\": \"ms\", \"otherData\": {\"engine\": \"event\", ");
  report_json_job(out, s);
  fprintf(out, ", \"step_s\": %.6g, \"critical_path\": ", ev->step_s);
  path_json(out, ev);
  fprintf(out, "},\n \"traceEvents\": [");
  for (int c = 0; c < ev->classes; c++) {
    int st = c % ev->stages, rep = c / ev->stages;
    fprintf(out, "%s\n  {\"name\": \"process_name\", \"ph\": \"M\", \"pid\": %d, "
                 "\"args\": {\"name\": \"stage %d, replica %d (%d GPUs%s)\"}}",
            c ? "," : "", c, st, rep, ev->replicas > 1 ? per_class / s->plan.dp : per_class,
            ev->replicas > 1 ? " each" : "");
    for (int k = 0; k < EV_HOST; k++)
      fprintf(out, ",\n  {\"name\": \"thread_name\", \"ph\": \"M\", \"pid\": %d, \"tid\": %d, "
                   "\"args\": {\"name\": \"%s\"}}",
              c, k, stream_label(k));
  }
  /* the critical path as its own process: its pieces end to end */
  fprintf(out, ",\n  {\"name\": \"process_name\", \"ph\": \"M\", \"pid\": %d, "
               "\"args\": {\"name\": \"critical path\"}},\n  {\"name\": \"thread_name\", "
               "\"ph\": \"M\", \"pid\": %d, \"tid\": 0, \"args\": {\"name\": \"critical path\"}}",
          ev->classes, ev->classes);
  for (long i = 0; i < ev->n_segs; i++) {
    const ev_seg *g = &ev->segs[i];
    char name[96];
    int st = g->cls % ev->stages, rep = g->cls / ev->stages;
    if (g->kind == 'F' || g->kind == 'B' || g->kind == 'W')
      snprintf(name, sizeof name, "%c%d (stage %d, replica %d)", g->kind, g->mb, st, rep);
    else if (g->kind == 'S')
      snprintf(name, sizeof name, "send/recv of micro-batch %d (from stage %d)", g->mb, st);
    else
      snprintf(name, sizeof name, "%s", g->kind == 'D' ? "gradient reduction" : "optimizer step");
    fprintf(out, ",\n  {\"name\": \"%s\", \"cat\": \"critical path\", \"ph\": \"X\", "
                 "\"pid\": %d, \"tid\": 0, ",
            name, ev->classes);
    esc_trace_times(out, g->start * 1e6, g->dur * 1e6);
    fputc('}', out);
  }
  for (long i = 0; i < ev->n_spans; i++) {
    const ev_span *sp = &ev->spans[i];
    fprintf(out, ",\n  {\"name\": ");
    esc_json(out, ev->names[sp->name]);
    fprintf(out, ", \"cat\": \"%s\", \"ph\": \"X\", \"pid\": %d, \"tid\": %d, ",
            pass_cat(sp->pass), sp->cls, sp->stream);
    esc_trace_times(out, sp->start * 1e6, sp->dur * 1e6);
    if (sp->mb >= 0) fprintf(out, ", \"args\": {\"micro_batch\": %d}", sp->mb);
    fputc('}', out);
  }
  fprintf(out, "\n]}\n");
}
