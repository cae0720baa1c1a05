/*
 * rs_trace.c -- one recsys iteration as Chrome trace JSON for Perfetto
 * (sc_rs_report_trace; docs/recsys.md, "Timeline").
 *
 * The layout is rs_eval's sum (rs_shard.c), phase by phase, on the path of
 * the GPU it calls the slowest (r.worst_gpu): every phase starts when the
 * previous one ends on that path, so the last span ends at r.iter_s.
 *
 *   ids all-to-all | embedding forward | [bottom MLP on GPU 0] |
 *   pooled all-to-all + row-wise reduce-scatter  beside  bottom MLP |
 *   interaction, top MLP | top MLP, interaction backward |
 *   gradient all-to-all + all-gather  beside  bottom MLP backward |
 *   [bottom MLP backward on GPU 0] | embedding backward + update |
 *   exposed all-reduce | dense optimizer | host launches | data reader
 *
 * Each GPU's embedding spans last its own lookup time (rs_ctx fwd/bwd plus
 * the fixed kernel costs the slowest GPU was charged), clipped to the
 * phase: a GPU that finishes early waits for the collective; the time a
 * GPU would run past the phase (the model charges the phase to the GPU
 * slowest over forward + backward) is in its span's args. The all-reduce
 * lane shows the whole all-reduce, ending where its exposed part ends: it
 * then starts no earlier than the end of the gradient all-to-all and
 * all-gather, whose links it shares (rs_eval hides it only under the
 * compute they leave).
 * One process per GPU, at most RS_TRACE_MAX_GPUS (the slowest GPU always
 * among them); times in microseconds.
 */
#include <math.h>
#include <stdio.h>

#include "recsys/rs_shard.h"
#include "report/esc.h"
#include "stepcast_recsys.h"

/* Processes shown at most: Perfetto stays readable, files stay small. */
#define RS_TRACE_MAX_GPUS 64

/* Lanes (threads) of each GPU's process. */
enum { LANE_DENSE, LANE_EMB, LANE_COMM, LANE_AR, LANE_HOST, LANES };

static const char *const lane_name[LANES] = {
    "dense compute (MLPs, interaction, optimizer)", "embedding lookups and update",
    "embedding communication (all-to-all, reduce-scatter)", "dense all-reduce",
    "host and data reader"};

/* Where one GPU's spans go and what they are laid out from. */
typedef struct trace {
  FILE *out;
  const rs_ctx *c;            /* borrowed: evaluated (rs_eval) */
  const sc_rs_plan *p;        /* borrowed */
  const sc_rs_result *r;      /* borrowed: c's evaluation of p */
  int pid;                    /* the GPU */
} trace;

/* Open span `name` on lane tid from start for dur seconds, with its args
 * object open (close with span_end); 0 and nothing written when dur <= 0.
 * Its start and end are rounded to the nanosecond, its duration is their
 * difference: spans that meet in the layout meet in the file. */
static int span(const trace *t, int tid, const char *name, const char *cat, double start,
                double dur) {
  if (!(dur > 0)) return 0;
  double a = round(start * 1e9) / 1e3, e = round((start + dur) * 1e9) / 1e3; /* us */
  fprintf(t->out, ",\n  {\"name\": \"%s\", \"cat\": \"%s\", \"ph\": \"X\", \"pid\": %d, "
                  "\"tid\": %d, \"ts\": %.3f, \"dur\": %.3f, \"args\": {",
          name, cat, t->pid, tid, a, e - a);
  return 1;
}

static void span_end(const trace *t) { fputs("}}", t->out); }

/* A span whose only arg is bytes (a collective's buffer). */
static void coll_span(const trace *t, const char *name, double start, double dur, double bytes,
                      int ranks) {
  if (!span(t, LANE_COMM, name, "communication", start, dur)) return;
  fprintf(t->out, "\"bytes\": %.0f, \"gpus\": %d", bytes, ranks);
  span_end(t);
}

/* 1 when table t's shard (p->s[t]) has a part on GPU g. */
static int on_gpu(const rs_ctx *c, const sc_rs_shard *s, int g) {
  int gpn = c->all.ranks_per_node;
  switch (s->kind) {
  case SC_RS_TABLE_WISE: return s->gpu == g;
  case SC_RS_COLUMN_WISE: return g >= s->gpu && g < s->gpu + s->parts;
  case SC_RS_TABLE_ROW_WISE: return g / gpn == s->gpu;
  default: return 1;
  }
}

/* args: the tables with a shard on this GPU, one array per shard kind
 * (the fused lookup groups), e.g. `, "row_wise": ["t0", "t4"]`. */
static void table_groups(const trace *t) {
  const sc_rs_model *m = &t->c->j->model;
  for (int k = 0; k < SC_RS_SHARD_KINDS; k++) {
    int n = 0;
    for (int i = 0; i < t->p->n; i++) {
      if (t->p->s[i].kind != (sc_rs_shard_kind)k || !on_gpu(t->c, &t->p->s[i], t->pid)) continue;
      if (n) fputs(", ", t->out);
      else fprintf(t->out, ", \"%s\": [", sc_rs_shard_name((sc_rs_shard_kind)k));
      esc_json(t->out, m->tables[i].name);
      n++;
    }
    if (n) fputc(']', t->out);
  }
}

/* This GPU's embedding span of a phase `phase` seconds long whose own time
 * is own: clipped to the phase, the rest said in args. */
static void emb_span(const trace *t, const char *name, double start, double phase, double own,
                     double sent) {
  double dur = own < phase ? own : phase;
  if (!span(t, LANE_EMB, name, "embedding", start, dur)) return;
  fprintf(t->out, "\"gpu_s\": %.6g, \"beyond_path_s\": %.6g", own, own > phase ? own - phase : 0);
  if (sent > 0) fprintf(t->out, ", \"pooled_bytes_sent\": %.0f", sent);
  table_groups(t);
  span_end(t);
}

/* A dense span of `samples` samples. */
static void dense_span(const trace *t, const char *name, const char *cat, double start,
                       double dur, double samples) {
  if (!span(t, LANE_DENSE, name, cat, start, dur)) return;
  fprintf(t->out, "\"samples\": %.0f", samples);
  span_end(t);
}

/* Every span of GPU t->pid. */
static void gpu_spans(const trace *t) {
  const rs_ctx *c = t->c;
  const sc_rs_job *j = c->j;
  const sc_rs_result *r = t->r;
  const rs_dense_time *d = &c->dense;
  const rs_volumes *v = &c->vol;
  int n = j->gpus, g = t->pid, w = r->worst_gpu, serial = j->bottom_on_gpu0 && n > 1;
  double b = (double)j->global_batch / n, B = (double)j->global_batch;
  double fix_f = r->emb_fwd_s - c->fwd[w], fix_b = r->emb_bwd_s - c->bwd[w];
  double bf = serial ? 0 : d->bottom_fwd, bb = serial ? 0 : d->bottom_bwd;
  double sf = serial ? c->dense_global.bottom_fwd : 0, sb = serial ? c->dense_global.bottom_bwd : 0;
  double cf = r->a2a_fwd_s + r->rs_fwd_s, cb = r->a2a_bwd_s + r->ag_bwd_s;
  /* row-wise partial sums over every GPU, or table-row-wise ones alone
   * within a node (rs_shard.c comms) */
  int rs_gpus = v->rs > 0 ? n : c->node.ranks;
  double now = 0;
  coll_span(t, "ids all-to-all", now, r->ids_s, v->ids, n);
  now += r->ids_s;
  emb_span(t, "embedding forward", now, r->emb_fwd_s, c->fwd[g] + fix_f, c->send[g]);
  now += r->emb_fwd_s;
  if (g == 0) dense_span(t, "bottom MLP (whole batch)", "forward", now, sf, B);
  now += sf;
  coll_span(t, "pooled all-to-all", now, r->a2a_fwd_s, v->a2a, n);
  coll_span(t, "row-wise reduce-scatter", now + r->a2a_fwd_s, r->rs_fwd_s, v->rs + v->rs_node,
            rs_gpus);
  dense_span(t, "bottom MLP", "forward", now, bf, b);
  now += cf > bf ? cf : bf;
  dense_span(t, "interaction", "forward", now, d->inter_fwd, b);
  dense_span(t, "top MLP and loss", "forward", now + d->inter_fwd, d->top_fwd - d->inter_fwd, b);
  now += d->top_fwd;
  dense_span(t, "top MLP backward", "backward", now, d->top_bwd - d->inter_bwd, b);
  dense_span(t, "interaction backward", "backward", now + d->top_bwd - d->inter_bwd,
             d->inter_bwd, b);
  now += d->top_bwd;
  double grads = now; /* the top MLP's gradients are ready: the all-reduce may start */
  coll_span(t, "gradient all-to-all", now, r->a2a_bwd_s, v->a2a, n);
  coll_span(t, "row-wise all-gather", now + r->a2a_bwd_s, r->ag_bwd_s, v->rs + v->rs_node,
            rs_gpus);
  dense_span(t, "bottom MLP backward", "backward", now, bb, b);
  now += cb > bb ? cb : bb;
  if (g == 0) dense_span(t, "bottom MLP backward (whole batch)", "backward", now, sb, B);
  now += sb;
  emb_span(t, "embedding backward and update", now, r->emb_bwd_s, c->bwd[g] + fix_b, 0);
  now += r->emb_bwd_s + r->allreduce_s;
  double ar0 = now - c->allreduce_s;
  if (span(t, LANE_AR, "dense all-reduce", "communication", ar0 > grads ? ar0 : grads,
           now - (ar0 > grads ? ar0 : grads))) {
    fprintf(t->out, "\"bytes\": %.0f, \"gpus\": %d, \"exposed_s\": %.6g", v->allreduce, n,
            r->allreduce_s);
    span_end(t);
  }
  dense_span(t, "dense optimizer", "optimizer", now, r->optimizer_s, b);
  now += r->optimizer_s;
  if (span(t, LANE_HOST, "host launches and collective waits", "host", now, r->overhead_s))
    span_end(t);
  now += r->overhead_s;
  if (span(t, LANE_HOST, "data reader", "host", now, r->reader_s)) span_end(t);
}

/* The GPUs shown: all up to the cap, else the first cap - 1 and the
 * slowest (or the first cap when it is among them). */
static int shown_gpu(int i, int n, int worst) {
  if (n <= RS_TRACE_MAX_GPUS || i < RS_TRACE_MAX_GPUS - 1 || worst < RS_TRACE_MAX_GPUS - 1)
    return i;
  return worst;
}

static void process_names(FILE *out, int g, int worst, int first) {
  fprintf(out, "%s\n  {\"name\": \"process_name\", \"ph\": \"M\", \"pid\": %d, \"tid\": 0, "
               "\"ts\": 0, \"args\": {\"name\": \"GPU %d%s\"}}",
          first ? "" : ",", g, g, g == worst ? " (slowest: its path is the iteration)" : "");
  fprintf(out, ",\n  {\"name\": \"process_sort_index\", \"ph\": \"M\", \"pid\": %d, \"tid\": 0, "
               "\"ts\": 0, \"args\": {\"sort_index\": %d}}",
          g, g);
  for (int k = 0; k < LANES; k++)
    fprintf(out, ",\n  {\"name\": \"thread_name\", \"ph\": \"M\", \"pid\": %d, \"tid\": %d, "
                 "\"ts\": 0, \"args\": {\"name\": \"%s\"}}",
            g, k, lane_name[k]);
}

static void write_trace(FILE *out, const rs_ctx *c, const sc_rs_plan *p, const sc_rs_result *r) {
  const sc_rs_job *j = c->j;
  int n = j->gpus, shown = n < RS_TRACE_MAX_GPUS ? n : RS_TRACE_MAX_GPUS;
  fprintf(out, "{\"displayTimeUnit\": \"ms\", \"otherData\": {\"model\": ");
  esc_json(out, j->model.name[0] ? j->model.name : "recsys");
  fprintf(out, ", \"gpu\": ");
  esc_json(out, j->gpu.name);
  fprintf(out, ", \"gpus\": %d, \"gpus_shown\": %d, \"global_batch\": %ld, \"iter_s\": %.9g, "
               "\"slowest_gpu\": %d},\n \"traceEvents\": [",
          n, shown, j->global_batch, r->iter_s, r->worst_gpu);
  for (int i = 0; i < shown; i++)
    process_names(out, shown_gpu(i, n, r->worst_gpu), r->worst_gpu, !i);
  for (int i = 0; i < shown; i++) {
    trace t = {out, c, p, r, shown_gpu(i, n, r->worst_gpu)};
    gpu_spans(&t);
  }
  fprintf(out, "\n]}\n");
}

int sc_rs_report_trace(FILE *out, const sc_rs_job *j, const sc_rs_plan *p, sc_rs_result *res,
                       sc_error *err) {
  rs_ctx c;
  int rc = rs_ctx_open(&c, j, err);
  if (rc) return rc;
  rc = rs_plan_check(&c, p, err);
  if (!rc) {
    sc_rs_result r = {0};
    rs_eval(&c, p, &r);
    write_trace(out, &c, p, &r);
    if (res) *res = r;
  }
  rs_ctx_close(&c);
  return rc;
}
