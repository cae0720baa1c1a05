/*
 * html.c -- self-contained HTML reports with SVG charts (sc_html_*,
 * stepcast.h; docs/report.md). Prefix html_ for the page, svg_ for charts.
 *
 * The SVG is written here, directly: no plotting library, no script, no
 * network. Output is deterministic (fixed coordinates to 0.01 px, fixed
 * order, fixed colours), so a report is as reproducible as the JSON.
 *
 * Every chart is one <svg class="chart" data-chart=NAME data-series=N>
 * whose N series are each one element (a <g> or <path>) with class
 * "series" and a data-name: the browser test counts them.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "report/accuracy.h"
#include "report/esc.h"
#include "report/report_int.h"
#include "stepcast.h"

#define GIB 1073741824.0

/* Colours of series, in order (colour-blind-safe Okabe-Ito palette). */
static const char *const PALETTE[] = {"#0072B2", "#E69F00", "#009E73", "#D55E00",
                                      "#CC79A7", "#56B4E9", "#F0E442", "#999999"};
#define N_PALETTE (sizeof PALETTE / sizeof PALETTE[0])

static const char *colour(int i) { return PALETTE[(unsigned)i % N_PALETTE]; }

/* ------------------------------------------------------------------ page */

static void html_head(FILE *out, const char *title) {
  fprintf(out, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>");
  esc_xml(out, title);
  fprintf(out, "</title>\n<style>\n"
               "body{font:14px/1.4 system-ui,sans-serif;margin:24px;color:#222;max-width:1100px}\n"
               "h1{font-size:20px}h2{font-size:16px;margin-top:28px}\n"
               "table{border-collapse:collapse}td,th{padding:2px 10px;text-align:right}\n"
               "th{border-bottom:1px solid #999}td:first-child,th:first-child{text-align:left}\n"
               "svg.chart{display:block;margin:8px 0;background:#fff;border:1px solid #ddd}\n"
               "svg text{font:11px sans-serif;fill:#333}.note{color:#666}\n"
               "</style>\n</head>\n<body>\n<h1>");
  esc_xml(out, title);
  fprintf(out, "</h1>\n<p class=\"note\">stepcast %s. Self-contained: no script, no network; "
               "charts are inline SVG.</p>\n", SC_VERSION);
}

static void html_tail(FILE *out) { fprintf(out, "</body>\n</html>\n"); }

/* ---------------------------------------------------------------- scales */

/* A map from data [d0, d1] to pixels [p0, p1], linear or log10. */
typedef struct scale {
  double d0, d1, p0, p1;
  int log;
} scale;

static double sc_at(const scale *s, double v) {
  double a = s->d0, b = s->d1;
  if (s->log) {
    v = log10(v > 0 ? v : a);
    a = log10(a);
    b = log10(b);
  }
  double t = b > a ? (v - a) / (b - a) : 0.5;
  return s->p0 + t * (s->p1 - s->p0);
}

/* Widen [*lo, *hi] to a range a chart can show: non-empty, and for log
 * scales positive and whole decades. */
static void nice_range(double *lo, double *hi, int log) {
  if (log) {
    if (!(*lo > 0)) *lo = *hi > 0 ? *hi / 10 : 1;
    if (!(*hi > *lo)) *hi = *lo * 10;
    *lo = pow(10, floor(log10(*lo)));
    *hi = pow(10, ceil(log10(*hi)));
    return;
  }
  if (!(*hi > *lo)) *hi = *lo + (*lo != 0 ? fabs(*lo) : 1);
  double step = pow(10, floor(log10(*hi - *lo)));
  *lo = floor(*lo / step) * step;
  *hi = ceil(*hi / step) * step;
}

/* --------------------------------------------------------------- charts */

/* A chart's frame: size, plot area and legend column in pixels. */
typedef struct frame {
  double w, h;             /* whole svg */
  double l, r, t, b;       /* plot area: left, right, top, bottom */
  double legend;           /* x of the legend column, right of the plot */
} frame;

/* A w x h chart whose legend column, legend_w wide, is right of the plot. */
static frame frame_make(double w, double h, double legend_w) {
  return (frame){w, h, 70, w - legend_w - 20, 20, h - 45, w - legend_w};
}

static void svg_open(FILE *out, const char *name, const frame *f, int n_series,
                     const char *caption) {
  fprintf(out, "<h2>");
  esc_xml(out, caption);
  fprintf(out, "</h2>\n<svg class=\"chart\" data-chart=\"%s\" data-series=\"%d\" "
               "xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
               "viewBox=\"0 0 %.0f %.0f\" role=\"img\">\n",
          name, n_series, f->w, f->h, f->w, f->h);
  fprintf(out, "<defs><clipPath id=\"clip-%s\"><rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" "
               "height=\"%.2f\"/></clipPath></defs>\n",
          name, f->l, f->t, f->r - f->l, f->b - f->t);
}

static void svg_close(FILE *out) { fprintf(out, "</svg>\n"); }

/* A number as a short tick label (1.5k, 2M, 0.25). */
static void tick_label(char *buf, size_t cap, double v) {
  double a = fabs(v);
  if (a >= 1e12) snprintf(buf, cap, "%gT", v / 1e12);
  else if (a >= 1e9) snprintf(buf, cap, "%gG", v / 1e9);
  else if (a >= 1e6) snprintf(buf, cap, "%gM", v / 1e6);
  else if (a >= 1e3) snprintf(buf, cap, "%gk", v / 1e3);
  else snprintf(buf, cap, "%g", v);
}

/* Ticks of one axis: decades (log) or 5 steps (linear). */
static int ticks(const scale *s, double *t, int max) {
  int n = 0;
  if (s->log) {
    for (double v = s->d0; v <= s->d1 * 1.0001 && n < max; v *= 10) t[n++] = v;
  } else {
    for (int i = 0; i <= 5 && n < max; i++) t[n++] = s->d0 + (s->d1 - s->d0) * i / 5;
  }
  return n;
}

static void svg_axes(FILE *out, const frame *f, const scale *x, const scale *y,
                     const char *xlabel, const char *ylabel) {
  double t[24];
  char lab[32];
  fprintf(out, "<g class=\"axes\" stroke=\"#bbb\" fill=\"none\">"
               "<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\"/></g>\n",
          f->l, f->t, f->r - f->l, f->b - f->t);
  int n = ticks(x, t, 24);
  for (int i = 0; i < n; i++) {
    double px = sc_at(x, t[i]);
    tick_label(lab, sizeof lab, t[i]);
    fprintf(out, "<line x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\" stroke=\"#eee\"/>"
                 "<text x=\"%.2f\" y=\"%.2f\" text-anchor=\"middle\">%s</text>\n",
            px, f->t, px, f->b, px, f->b + 14, lab);
  }
  n = y ? ticks(y, t, 24) : 0; /* y NULL: the caller labels the rows */
  for (int i = 0; i < n; i++) {
    double py = sc_at(y, t[i]);
    tick_label(lab, sizeof lab, t[i]);
    fprintf(out, "<line x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\" stroke=\"#eee\"/>"
                 "<text x=\"%.2f\" y=\"%.2f\" text-anchor=\"end\">%s</text>\n",
            f->l, py, f->r, py, f->l - 4, py + 4, lab);
  }
  fprintf(out, "<text x=\"%.2f\" y=\"%.2f\" text-anchor=\"middle\">", (f->l + f->r) / 2, f->h - 8);
  esc_xml(out, xlabel);
  fprintf(out, "</text><text transform=\"translate(14,%.2f) rotate(-90)\" "
               "text-anchor=\"middle\">", (f->t + f->b) / 2);
  esc_xml(out, ylabel);
  fprintf(out, "</text>\n");
}

/* Legend entry i at the top right of the plot area. */
static void svg_legend(FILE *out, const frame *f, int i, const char *col, const char *name) {
  double y = f->t + 8 + 15 * i;
  fprintf(out, "<rect x=\"%.2f\" y=\"%.2f\" width=\"10\" height=\"10\" fill=\"%s\"/>"
               "<text x=\"%.2f\" y=\"%.2f\">", f->legend, y - 8, col, f->legend + 15, y + 1);
  esc_xml(out, name);
  fprintf(out, "</text>\n");
}

/* --------------------------------------------------------- a prediction */

typedef struct part { const char *name; double v; } part;

static int time_parts(const sc_result *r, part *p) {
  p[0] = (part){"compute", r->time.compute};
  p[1] = (part){"host overhead", r->time.host};
  p[2] = (part){"TP/CP comm (exposed)", r->time.tp_comm};
  p[3] = (part){"EP all-to-all (exposed)", r->time.ep_comm};
  p[4] = (part){"PP send/recv (exposed)", r->time.pp_comm};
  p[5] = (part){"pipeline bubble", r->time.bubble};
  p[6] = (part){"DP comm (exposed)", r->time.dp_comm};
  p[7] = (part){"optimizer", r->time.optimizer};
  p[8] = (part){"activation offload (exposed)", r->time.offload};
  return 9;
}

/* One horizontal stacked bar of parts p[0..n) (only those > 0 drawn, each
 * a series), scaled to `total` over the plot width; a dashed mark at
 * `limit` when > 0 (memory capacity). */
static void stacked_bar(FILE *out, const char *name, const char *caption, const part *p, int n,
                        double total, double limit, double unit, const char *unit_name) {
  int shown = 0;
  for (int i = 0; i < n; i++) shown += p[i].v > 0;
  frame f = frame_make(1000, 70 + 15 * (shown > 3 ? shown : 3), 330);
  f.l = 20;
  f.b = 60;
  svg_open(out, name, &f, shown, caption);
  double full = fmax(total, limit);
  scale x = {0, full > 0 ? full : 1, f.l, f.r, 0};
  double at = 0;
  int k = 0;
  for (int i = 0; i < n; i++) {
    if (!(p[i].v > 0)) continue;
    double x0 = sc_at(&x, at), x1 = sc_at(&x, at + p[i].v);
    fprintf(out, "<rect class=\"series\" data-name=\"%s\" x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" "
                 "height=\"24\" fill=\"%s\"><title>%s: %.4g %s</title></rect>\n",
            p[i].name, x0, f.t, fmax(x1 - x0, 0.5), colour(i), p[i].name, p[i].v / unit,
            unit_name);
    char lab[96];
    snprintf(lab, sizeof lab, "%s %.3g %s (%.0f %%)", p[i].name, p[i].v / unit, unit_name,
             total > 0 ? 100 * p[i].v / total : 0);
    svg_legend(out, &f, k++, colour(i), lab);
    at += p[i].v;
  }
  if (limit > 0) {
    double lx = sc_at(&x, limit);
    fprintf(out, "<line x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\" stroke=\"#c00\" "
                 "stroke-dasharray=\"4 3\"/><text x=\"%.2f\" y=\"%.2f\" text-anchor=\"end\">"
                 "capacity %.1f %s</text>\n",
            lx, f.t - 6, lx, f.t + 32, lx - 4, f.t + 46, limit / unit, unit_name);
  }
  svg_close(out);
}

/* The step's timeline: a row per pipeline stage (compute above,
 * communication below), a rectangle per span; a series per kind of span
 * present (forward, backward, data-parallel, optimizer). */
static void timeline_chart(FILE *out, const sc_span *sp, size_t n, double step_s) {
  static const char kinds[] = "FBDO";
  static const char *const names[] = {"forward", "backward (with recompute)",
                                      "data-parallel reduce", "optimizer"};
  int stages = 0, present[4] = {0}, n_series = 0;
  double end = step_s;
  for (size_t i = 0; i < n; i++) {
    if (sp[i].stage + 1 > stages) stages = sp[i].stage + 1;
    const char *k = strchr(kinds, sp[i].kind);
    if (k && *k) present[k - kinds] = 1;
    end = fmax(end, sp[i].start + sp[i].dur);
  }
  for (int k = 0; k < 4; k++) n_series += present[k];
  double row = stages > 32 ? 8 : 22;
  frame f = frame_make(1000, 80 + row * stages, 190);
  svg_open(out, "timeline", &f, n_series, "Pipeline timeline of one step (stages x time)");
  double lo = 0;
  nice_range(&lo, &end, 0);
  scale x = {0, end, f.l, f.r, 0};
  svg_axes(out, &f, &x, NULL, "seconds from the start of the step", "pipeline stage");
  for (int st = 0; st < stages; st += stages > 32 ? 8 : 1)
    fprintf(out, "<text x=\"%.2f\" y=\"%.2f\" text-anchor=\"end\">%d</text>\n", f.l - 4,
            f.t + row * st + row / 2 + 4, st);
  for (int k = 0, shown = 0; k < 4; k++) {
    if (!present[k]) continue;
    fprintf(out, "<g class=\"series\" data-name=\"%s\" fill=\"%s\">\n", names[k], colour(k));
    for (size_t i = 0; i < n; i++) {
      if (sp[i].kind != kinds[k]) continue;
      double y0 = f.t + row * sp[i].stage + (sp[i].lane ? row / 2 : 0);
      double x0 = sc_at(&x, sp[i].start), x1 = sc_at(&x, sp[i].start + sp[i].dur);
      fprintf(out, "<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\"/>\n", x0, y0,
              fmax(x1 - x0, 0.3), row / 2 - 1);
    }
    fprintf(out, "</g>\n");
    svg_legend(out, &f, shown++, colour(k), names[k]);
  }
  svg_close(out);
}

/* The summary's memory verdict of s: fits, does NOT fit, or marginal
 * within the memory model's band of the capacity (report_marginal). */
static void mem_word(const sc_scenario *s, const sc_memory *m, char *buf, size_t cap) {
  if (report_marginal(s, m))
    snprintf(buf, cap, "%s, marginal: within the memory model's %.0f %% band, %s",
             m->fits ? "fits" : "does NOT fit", 100 * SC_MEMORY_BAND,
             m->fits ? "may not fit" : "may fit");
  else
    snprintf(buf, cap, "%s", m->fits ? "fits" : "does NOT fit");
}

static void pred_summary(FILE *out, const sc_scenario *s, const sc_result *r,
                         double train_tokens) {
  const sc_plan *p = &s->plan;
  char verdict[128];
  mem_word(s, &r->mem, verdict, sizeof verdict);
  fprintf(out, "<table>\n<tr><th>what</th><th>value</th></tr>\n<tr><td>model</td><td>");
  esc_xml(out, s->model.name);
  fprintf(out, " (%.1fB parameters)</td></tr>\n<tr><td>cluster</td><td>%d x ", r->params / 1e9,
          s->cluster.gpus);
  char gpu[REPORT_GPU_CAP]; /* "a100-sxm4-80gb (modified: hbm_GiB)", as the table */
  report_gpu_label(&s->cluster.gpu, gpu);
  esc_xml(out, gpu);
  fprintf(out, "</td></tr>\n<tr><td>plan</td><td>tp %d, pp %d, dp %d, cp %d, ep %d, vpp %d, "
               "zero %d, micro-batch %ld, global batch %ld</td></tr>\n"
               "<tr><td>step time</td><td>%.4g s</td></tr>\n"
               "<tr><td>throughput</td><td>%.0f %s/s</td></tr>\n"
               "<tr><td>MFU</td><td>%.1f %%</td></tr>\n"
               "<tr><td>memory per GPU</td><td>%.1f of %.1f GiB (%s)</td></tr>\n",
          p->tp, p->pp, p->dp, p->cp, p->ep, p->vpp, p->zero, r->micro_batch, p->global_batch,
          r->step_s, r->tokens_per_s, s->model.kind == SC_MODEL_CNN ? "images" : "tokens",
          100 * r->mfu, r->mem.total / GIB, r->mem.capacity / GIB,
          verdict);
  if (train_tokens > 0 && isfinite(train_tokens) && r->tokens_per_s > 0) /* as the table */
    fprintf(out, "<tr><td>time to train</td><td>%.1f days for %.3g tokens (%.0f "
                 "GPU-hours)</td></tr>\n",
            train_tokens / r->tokens_per_s / 86400, train_tokens,
            train_tokens / r->tokens_per_s / 3600 * s->cluster.gpus);
  fprintf(out, "</table>\n");
  char acc[768]; /* report/accuracy.h: the model's record on runs like this */
  acc_text(s, acc, sizeof acc);
  fprintf(out, "<p class=\"note\">accuracy: ");
  char *nl = strchr(acc, '\n'); /* "outside the validated range: ...", a line of its own */
  if (nl) *nl = '\0';
  esc_xml(out, acc);
  if (nl) fprintf(out, "<br>\n");
  if (nl) esc_xml(out, nl + 1);
  fprintf(out, "</p>\n");
}

void sc_html_prediction(FILE *out, const sc_scenario *s, const sc_result *r,
                        const sc_span *spans, size_t n_spans) {
  sc_html_prediction_ex(out, s, r, spans, n_spans, 0);
}

void sc_html_prediction_ex(FILE *out, const sc_scenario *s, const sc_result *r,
                           const sc_span *spans, size_t n_spans, double train_tokens) {
  char title[sizeof s->model.name + REPORT_GPU_CAP + 64], gpu[REPORT_GPU_CAP];
  report_gpu_label(&s->cluster.gpu, gpu);
  snprintf(title, sizeof title, "stepcast prediction: %s on %d x %s", s->model.name,
           s->cluster.gpus, gpu);
  html_head(out, title);
  pred_summary(out, s, r, train_tokens);
  part tp[9];
  int n = time_parts(r, tp);
  stacked_bar(out, "breakdown", "Where the step's time goes", tp, n, r->step_s, 0, 1, "s");
  if (spans && n_spans) timeline_chart(out, spans, n_spans, r->step_s);
  part mp[5] = {{"weights", r->mem.weights},
                {"gradients", r->mem.gradients},
                {"optimizer states", r->mem.optimizer},
                {"activations", r->mem.activations},
                {"buffers", r->mem.buffers}};
  stacked_bar(out, "memory", "Memory per GPU (most loaded stage) by kind, against capacity", mp,
              5, r->mem.total, r->mem.capacity, GIB, "GiB");
  html_tail(out);
}

/* ------------------------------------------------------------- a search */

/* Write the Pareto front of the n plans (time x, memory y in GiB, both
 * lower is better) as a staircase path: the plans no other plan beats on
 * both. */
static void pareto_path(FILE *out, const sc_candidate *c, int n, const scale *x,
                        const scale *y) {
  /* c is sorted by step time (sc_search): a plan is on the front when its
   * memory is below that of every faster plan */
  double best_mem = INFINITY;
  int first = 1;
  fprintf(out, "<path class=\"series\" data-name=\"Pareto front\" fill=\"none\" "
               "stroke=\"%s\" stroke-width=\"2\" d=\"", colour(3));
  for (int i = 0; i < n; i++) {
    double m = c[i].result.mem.total;
    if (!(m < best_mem)) continue;
    double px = sc_at(x, c[i].result.step_s), py = sc_at(y, m / GIB);
    if (first) fprintf(out, "M%.2f %.2f", px, py);
    else fprintf(out, " H%.2f V%.2f", px, py);
    first = 0;
    best_mem = m;
  }
  fprintf(out, "\"/>\n");
}

/* A dashed horizontal line across frame f at y (GiB on scale y), in
 * colour col, labelled `label` above its left end. */
static void mem_line(FILE *out, const frame *f, const scale *y, double gib, const char *col,
                     const char *label) {
  double py = sc_at(y, gib);
  fprintf(out, "<line x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\" stroke=\"%s\" "
               "stroke-dasharray=\"4 3\"/><text x=\"%.2f\" y=\"%.2f\">%s</text>\n",
          f->l, py, f->r, py, col, f->l + 4, py - 4, label);
}

void sc_html_search(FILE *out, const sc_scenario *s, const sc_candidate *plans, int n,
                    int chosen, const sc_search_stats *st) {
  sc_html_search_ex(out, s, plans, n, chosen, st, 0);
}

void sc_html_search_ex(FILE *out, const sc_scenario *s, const sc_candidate *plans, int n,
                       int chosen, const sc_search_stats *st, double limit) {
  char title[sizeof s->model.name + REPORT_GPU_CAP + 96], gpu[REPORT_GPU_CAP];
  report_gpu_label(&s->cluster.gpu, gpu);
  snprintf(title, sizeof title, "stepcast search: %s on %d x %s, global batch %ld",
           s->model.name, s->cluster.gpus, gpu, s->plan.global_batch);
  html_head(out, title);
  /* memory in GiB, as the tooltips and the tables give it */
  double t0 = INFINITY, t1 = 0, m0 = INFINITY, m1 = 0, cap = s->cluster.gpu.hbm_bytes / GIB;
  double lim = limit > 0 && limit / GIB < cap ? limit / GIB : 0; /* headroom's line */
  fprintf(out, "<p>%ld plans tried, %ld valid, %ld fit in memory; %d shown below (the fastest, "
               "fitting or not).", st->tried, st->valid, st->fit, n);
  if (lim > 0)
    fprintf(out, " Memory headroom: %.1f GiB of each GPU's %.1f GiB kept free, so a plan fits "
                 "under %.1f GiB (the dashed headroom line).", cap - lim, cap, lim);
  fprintf(out, "</p>\n");
  for (int i = 0; i < n; i++) {
    t0 = fmin(t0, plans[i].result.step_s), t1 = fmax(t1, plans[i].result.step_s);
    m0 = fmin(m0, plans[i].result.mem.total / GIB), m1 = fmax(m1, plans[i].result.mem.total / GIB);
  }
  if (n == 0) t0 = 1, t1 = 10, m0 = 0, m1 = 0; /* empty axes, no NaN */
  m1 = fmax(m1, cap);
  nice_range(&t0, &t1, 1);
  m0 = 0;
  nice_range(&m0, &m1, 0);
  frame f = frame_make(1000, 480, 250);
  int has = n > 0, has_chosen = chosen >= 0 && chosen < n;
  svg_open(out, "pareto", &f, has * 2 + has_chosen,
           "Plans: step time against memory per GPU, Pareto front and chosen plan");
  scale x = {t0, t1, f.l, f.r, 1}, y = {m0, m1, f.b, f.t, 0};
  svg_axes(out, &f, &x, &y, "step time, s (log)", "memory per GPU, GiB");
  if (cap > 0) mem_line(out, &f, &y, cap, "#c00", "GPU memory");
  if (lim > 0) {
    char lab[64];
    snprintf(lab, sizeof lab, "headroom: plans fit under %.1f GiB", lim);
    mem_line(out, &f, &y, lim, "#e69f00", lab);
  }
  if (has) {
    fprintf(out, "<g class=\"series\" data-name=\"plans\" fill=\"%s\" fill-opacity=\"0.6\">\n",
            colour(0));
    for (int i = 0; i < n; i++)
      fprintf(out, "<circle cx=\"%.2f\" cy=\"%.2f\" r=\"3\"><title>tp %d pp %d dp %d mb %ld: "
                   "%.4g s, %.1f GiB%s</title></circle>\n",
              sc_at(&x, plans[i].result.step_s), sc_at(&y, plans[i].result.mem.total / GIB),
              plans[i].plan.tp, plans[i].plan.pp, plans[i].plan.dp, plans[i].plan.micro_batch,
              plans[i].result.step_s, plans[i].result.mem.total / GIB,
              report_marginal(s, &plans[i].result.mem) ? " (marginal)" : "");
    fprintf(out, "</g>\n");
    pareto_path(out, plans, n, &x, &y);
    svg_legend(out, &f, 0, colour(0), "plans");
    svg_legend(out, &f, 1, colour(3), "Pareto front");
  }
  if (has_chosen) {
    const sc_candidate *c = &plans[chosen];
    fprintf(out, "<g class=\"series\" data-name=\"chosen\"><circle cx=\"%.2f\" cy=\"%.2f\" "
                 "r=\"8\" fill=\"none\" stroke=\"%s\" stroke-width=\"3\"/></g>\n",
            sc_at(&x, c->result.step_s), sc_at(&y, c->result.mem.total / GIB), colour(2));
    char lab[96];
    snprintf(lab, sizeof lab, "chosen: tp %d pp %d dp %d, %.3g s", c->plan.tp, c->plan.pp,
             c->plan.dp, c->result.step_s);
    svg_legend(out, &f, 2, colour(2), lab);
  }
  svg_close(out);
  html_tail(out);
}

/* ----------------------------------------------------------- validation */

/* Predicted against measured of one set, log-log: the rows (a series), the
 * line of no error and the +-10 % and +-25 % bands (a series). */
static void validation_chart(FILE *out, const sc_validation *v, int idx) {
  double lo = INFINITY, hi = 0;
  for (int i = 0; i < v->n; i++) {
    const sc_validation_row *r = &v->rows[i];
    if (r->skipped[0] || !(r->measured > 0) || !(r->predicted > 0)) continue;
    lo = fmin(lo, fmin(r->measured, r->predicted));
    hi = fmax(hi, fmax(r->measured, r->predicted));
  }
  nice_range(&lo, &hi, 1);
  frame f = frame_make(640, 440, 120);
  char name[32], caption[600];
  snprintf(name, sizeof name, "validation-%d", idx);
  snprintf(caption, sizeof caption, "%s: predicted vs measured (%d rows, MAPE %.1f %%)", v->path,
           v->predicted, 100 * v->mape);
  svg_open(out, name, &f, 2, caption);
  const char *unit = v->kind == SC_VALIDATION_COLLECTIVE ? "us" : "s/step";
  char xl[48], yl[48];
  snprintf(xl, sizeof xl, "measured, %s (log)", unit);
  snprintf(yl, sizeof yl, "predicted, %s (log)", unit);
  scale x = {lo, hi, f.l, f.r, 1}, y = {lo, hi, f.b, f.t, 1};
  svg_axes(out, &f, &x, &y, xl, yl);
  fprintf(out, "<g class=\"series\" data-name=\"error bands\" stroke=\"none\" "
               "clip-path=\"url(#clip-%s)\">\n", name);
  static const double bands[] = {0.25, 0.10};
  static const char *const fills[] = {"#f3e6c8", "#d9ead3"};
  for (int b = 0; b < 2; b++)
    fprintf(out, "<path fill=\"%s\" d=\"M%.2f %.2f L%.2f %.2f L%.2f %.2f L%.2f %.2f Z\"/>\n",
            fills[b], sc_at(&x, lo), sc_at(&y, lo * (1 + bands[b])), sc_at(&x, hi),
            sc_at(&y, hi * (1 + bands[b])), sc_at(&x, hi), sc_at(&y, hi * (1 - bands[b])),
            sc_at(&x, lo), sc_at(&y, lo * (1 - bands[b])));
  fprintf(out, "<path fill=\"none\" stroke=\"#888\" d=\"M%.2f %.2f L%.2f %.2f\"/>\n</g>\n",
          sc_at(&x, lo), sc_at(&y, lo), sc_at(&x, hi), sc_at(&y, hi));
  fprintf(out, "<g class=\"series\" data-name=\"rows\" fill=\"%s\" fill-opacity=\"0.7\">\n",
          colour(0));
  for (int i = 0; i < v->n; i++) {
    const sc_validation_row *r = &v->rows[i];
    if (r->skipped[0] || !(r->measured > 0) || !(r->predicted > 0)) continue;
    fprintf(out, "<circle cx=\"%.2f\" cy=\"%.2f\" r=\"2.5\"><title>", sc_at(&x, r->measured),
            sc_at(&y, r->predicted));
    esc_xml(out, r->id);
    fprintf(out, ": %+.1f %%", 100 * (r->predicted - r->measured) / r->measured);
    sc_memory m = {.total = r->mem_total, .capacity = r->mem_capacity};
    if (r->fit < 0)
      fprintf(out, ", does not fit by the memory model: %.1f of %.1f GiB%s",
              r->mem_total / 1073741824.0, r->mem_capacity / 1073741824.0,
              sc_memory_marginal(&m) ? " (marginal: may fit)" : "");
    else if (r->fit > 0 && sc_memory_marginal(&m))
      fprintf(out, ", fits by the memory model, marginal: %.1f of %.1f GiB",
              r->mem_total / 1073741824.0, r->mem_capacity / 1073741824.0);
    fprintf(out, "</title></circle>\n");
  }
  fprintf(out, "</g>\n");
  svg_legend(out, &f, 0, "#d9ead3", "within 10 %");
  svg_legend(out, &f, 1, "#f3e6c8", "within 25 %");
  svg_close(out);
}

void sc_html_validation(FILE *out, const sc_validation *sets, int n) {
  html_head(out, "stepcast validation: predicted against published measurements");
  fprintf(out, "<table>\n<tr><th>set</th><th>rows</th><th>predicted</th><th>skipped</th>"
               "<th>MAPE</th><th>median</th><th>max</th><th>within 10 %%</th>"
               "<th>do not fit (ran: false verdicts)</th>"
               "<th>marginal (within the memory model's %.0f %% band)</th></tr>\n",
          100 * SC_MEMORY_BAND);
  for (int i = 0; i < n; i++) {
    fprintf(out, "<tr><td>");
    esc_xml(out, sets[i].path);
    if (sets[i].kind == SC_VALIDATION_UNSUPPORTED)
      fprintf(out, "</td><td>%d</td><td colspan=\"8\">not supported yet: %d rows</td></tr>\n",
              sets[i].n, sets[i].n);
    else
      fprintf(out, "</td><td>%d</td><td>%d</td><td>%d</td><td>%.1f %%</td><td>%.1f %%</td>"
                   "<td>%.1f %%</td><td>%d</td>",
              sets[i].n, sets[i].predicted, sets[i].skipped, 100 * sets[i].mape,
              100 * sets[i].median_ape, 100 * sets[i].max_ape, sets[i].within_10pct);
    if (sets[i].kind == SC_VALIDATION_TRAINING)
      fprintf(out, "<td>%d</td><td>%d</td></tr>\n", sets[i].no_fit,
              report_val_marginal_rows(&sets[i]));
    else if (sets[i].kind != SC_VALIDATION_UNSUPPORTED)
      fprintf(out, "<td>-</td><td>-</td></tr>\n");
  }
  fprintf(out, "</table>\n");
  for (int i = 0; i < n; i++)
    if (sets[i].kind != SC_VALIDATION_UNSUPPORTED && sets[i].predicted > 0)
      validation_chart(out, &sets[i], i);
  html_tail(out);
}

/* ----------------------------------------------------------- collective */

/* The sweep's conditions and every size's figures, as the command's
 * table gives them (the chart alone showed neither). */
static void coll_points_table(FILE *out, const sc_coll_sweep *sw, int flow) {
  const sc_coll_sweep_opts *o = &sw->opts;
  fprintf(out, "<p>sm%d, %s %g GB/s per GPU per direction, NIC %g Gb/s per GPU, %s",
          o->arch, o->pcie ? "PCIe" : "NVLink", o->nvlink_GBps, o->nic_Gbps,
          sc_fabric_name(o->fabric));
  if (o->host_cpu) fprintf(out, ", host CPU %s", sc_host_cpu_name(o->host_cpu));
  if (o->gpus_per_thread > 1) fprintf(out, ", %d GPUs per host thread", o->gpus_per_thread);
  fprintf(out, "</p>\n<table>\n<tr><th>size (B)</th><th>time (us)</th><th>algbw (GB/s)</th>"
               "<th>busbw (GB/s)</th><th>NCCL algorithm</th>%s</tr>\n",
          flow ? "<th>flow (us)</th><th>flow busbw (GB/s)</th>" : "");
  for (int i = 0; i < sw->n; i++) {
    const sc_coll_point *p = &sw->points[i];
    fprintf(out, "<tr><td>%.0f</td><td>%.2f</td><td>%.2f</td><td>%.2f</td><td>%s/%s</td>",
            p->bytes, p->nccl.time * 1e6, p->algbw / 1e9, p->busbw / 1e9, p->nccl.algo,
            p->nccl.proto);
    if (flow) fprintf(out, "<td>%.2f</td><td>%.2f</td>", p->flow_s * 1e6, p->flow_busbw / 1e9);
    fprintf(out, "</tr>\n");
  }
  fprintf(out, "</table>\n");
}

void sc_html_collective(FILE *out, const sc_coll_sweep *sw) {
  const sc_coll_sweep_opts *o = &sw->opts;
  char title[400];
  snprintf(title, sizeof title, "stepcast collective: %s over %d ranks (%d per node)%s%s",
           sc_coll_op_name(o->op), o->ranks, o->ranks_per_node, o->topo[0] ? " on " : "",
           o->topo);
  html_head(out, title);
  int flow = o->topo[0] != '\0';
  double b0 = INFINITY, b1 = 0, y1 = 0;
  for (int i = 0; i < sw->n; i++) {
    b0 = fmin(b0, sw->points[i].bytes), b1 = fmax(b1, sw->points[i].bytes);
    y1 = fmax(y1, fmax(sw->points[i].busbw, sw->points[i].flow_busbw) / 1e9);
  }
  nice_range(&b0, &b1, 1);
  double y0 = 0;
  nice_range(&y0, &y1, 0);
  frame f = frame_make(1000, 420, 230);
  svg_open(out, "busbw", &f, sw->n > 0 ? 1 + flow : 0, "Bus bandwidth against message size");
  scale x = {b0, b1, f.l, f.r, 1}, y = {y0, y1, f.b, f.t, 0};
  svg_axes(out, &f, &x, &y, "message size, bytes (log)", "bus bandwidth, GB/s");
  for (int s = 0; s < 1 + flow && sw->n > 0; s++) {
    fprintf(out, "<g class=\"series\" data-name=\"%s\" fill=\"%s\"><path fill=\"none\" "
                 "stroke=\"%s\" stroke-width=\"2\" d=\"", s ? "flow engine" : "NCCL model",
            colour(s), colour(s));
    for (int i = 0; i < sw->n; i++) {
      const sc_coll_point *p = &sw->points[i];
      fprintf(out, "%s%.2f %.2f", i ? " L" : "M", sc_at(&x, p->bytes),
              sc_at(&y, (s ? p->flow_busbw : p->busbw) / 1e9));
    }
    fprintf(out, "\"/>\n");
    for (int i = 0; i < sw->n; i++) { /* each size, its values on hover */
      const sc_coll_point *p = &sw->points[i];
      double t = s ? p->flow_s : p->nccl.time, bus = s ? p->flow_busbw : p->busbw;
      char pick[64] = "";
      if (!s) snprintf(pick, sizeof pick, ", %s/%s", p->nccl.algo, p->nccl.proto);
      fprintf(out, "<circle cx=\"%.2f\" cy=\"%.2f\" r=\"2.5\"><title>%.0f B: %.2f us, "
                   "busbw %.2f GB/s%s</title></circle>\n",
              sc_at(&x, p->bytes), sc_at(&y, bus / 1e9), p->bytes, t * 1e6, bus / 1e9, pick);
    }
    fprintf(out, "</g>\n");
    svg_legend(out, &f, s, colour(s), s ? "flow engine on the topology" : "NCCL model");
  }
  svg_close(out);
  coll_points_table(out, sw, flow);
  html_tail(out);
}
