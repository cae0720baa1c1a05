/*
 * rs_report.c -- text and JSON reports of recsys predictions and plans
 * (sc_rs_report_result, sc_rs_report_plans; docs/output.md). Fixed
 * formats, fixed order: outputs are deterministic.
 */
#include <stdio.h>
#include <string.h>

#include "report/accuracy.h"
#include "report/esc.h"
#include "recsys/rs_model.h"
#include "stepcast_recsys.h"

#define MS(x) ((x) * 1e3)
#define GIB(x) ((x) / 1073741824.0)
/* What this memory count leaves out and a training process holds beyond
 * its tensors: the CUDA context, NCCL and cuBLAS workspaces and allocator
 * slack, about 1 GiB (src/engine/memory.c BUFFER_FIXED: what PyTorch
 * reports reserved on an idle training process). A plan that fits with
 * less than this free is `tight`: it may not fit (docs/recsys.md). */
#define RS_UNCOUNTED_BYTES 1073741824.0

/* 1 when r fits with less than RS_UNCOUNTED_BYTES of its GPU free. */
static int tight(const sc_rs_result *r) {
  return r->fits && r->mem_capacity - r->mem_bytes < RS_UNCOUNTED_BYTES;
}

/* The memory line of r: the fullest GPU against one GPU's memory (less
 * the planner's headroom), the verdict, and why a tight fit may not. */
static void memory_text(FILE *out, const sc_rs_result *r) {
  fprintf(out, "memory        %.2f GiB on GPU %d of %.2f GiB", GIB(r->mem_bytes), r->fullest_gpu,
          GIB(r->mem_capacity));
  if (r->mem_headroom > 0) fprintf(out, ", %.2f GiB kept free", GIB(r->mem_headroom));
  if (!r->fits && r->mem_bytes <= r->mem_capacity)
    fprintf(out, ": DOES NOT FIT the headroom (%.2f GiB allowed)\n",
            GIB(r->mem_capacity - r->mem_headroom));
  else if (!tight(r))
    fprintf(out, ": %s\n", r->fits ? "fits" : "DOES NOT FIT");
  else
    fprintf(out, ": fits, tight (%.2f GiB free)\n              less than the ~1 GiB of CUDA "
                 "context, NCCL and cuBLAS workspaces this count\n              leaves out, so "
                 "it may not fit (docs/recsys.md); --headroom 1 keeps plans clear of it\n",
            GIB(r->mem_capacity - r->mem_bytes));
}

/* Counts of each shard kind in p. */
static void kinds(const sc_rs_plan *p, int *k) {
  memset(k, 0, sizeof *k * SC_RS_SHARD_KINDS);
  for (int t = 0; t < p->n; t++) k[p->s[t].kind]++;
}

/* The mix of shard kinds of p, "20 table_wise, 6 row_wise", into buf. */
static void plan_mix(const sc_rs_plan *p, char *buf, size_t cap) {
  int k[SC_RS_SHARD_KINDS];
  kinds(p, k);
  size_t n = 0;
  buf[0] = '\0';
  for (int i = 0; i < SC_RS_SHARD_KINDS && n < cap; i++)
    if (k[i]) {
      int w = snprintf(buf + n, cap - n, "%s%d %s", n ? ", " : "", k[i],
                       sc_rs_shard_name((sc_rs_shard_kind)i));
      if (w > 0) n += (size_t)w;
    }
}

static void plan_line(FILE *out, const sc_rs_plan *p) {
  char mix[256];
  plan_mix(p, mix, sizeof mix);
  fputs(mix, out);
}

static void shard_text(FILE *out, const sc_rs_shard *s) {
  fprintf(out, "%s", sc_rs_shard_name(s->kind));
  if (s->kind == SC_RS_TABLE_WISE) fprintf(out, " gpu %d", s->gpu);
  else if (s->kind == SC_RS_COLUMN_WISE) fprintf(out, " gpus %d-%d", s->gpu, s->gpu + s->parts - 1);
  else if (s->kind == SC_RS_TABLE_ROW_WISE) fprintf(out, " node %d", s->gpu);
}

static void result_text(FILE *out, const sc_rs_job *j, const sc_rs_plan *p,
                        const sc_rs_result *r, int tables) {
  const sc_rs_model *m = &j->model;
  double rows = 0;
  for (int t = 0; t < m->n_tables; t++) rows += m->tables[t].rows;
  fprintf(out, "model         %s: %d tables, %.4g M rows, %.2f GiB embeddings (fp%d), "
               "%.3g M dense parameters\n",
          m->name[0] ? m->name : "recsys", m->n_tables, rows / 1e6,
          GIB(sc_rs_embedding_elems(m) * j->emb_bytes), j->emb_bytes * 8,
          sc_rs_dense_params(m) / 1e6);
  fprintf(out, "cluster       %d x %s (%d per node), batch %ld (%ld per GPU)\n", j->gpus,
          j->gpu.name, j->gpus_per_node, j->global_batch, j->global_batch / j->gpus);
  if (j->assumed[0]) fprintf(out, "assumed       %s\n", j->assumed);
  fprintf(out, "sharding      ");
  plan_line(out, p);
  char sps[32]; /* 4 significant digits, kept: 7.000e+04, not 7e+04; 4525, not 4525. */
  int w = snprintf(sps, sizeof sps, "%#.4g", r->samples_per_s);
  if (w > 0 && w < (int)sizeof sps && sps[w - 1] == '.') sps[w - 1] = '\0';
  fprintf(out, "\n\niteration     %9.3f ms   %s samples/s\n", MS(r->iter_s), sps);
  char acc[768]; /* report/accuracy.h: the model's record on runs like this */
  acc_rs_text(j->gpus, acc, sizeof acc);
  fprintf(out, "accuracy      ");
  acc_wrap(out, acc, 14, 14);
  fprintf(out, "  ids all-to-all       %9.3f ms\n", MS(r->ids_s));
  fprintf(out, "  embedding forward    %9.3f ms  (GPU %d)\n", MS(r->emb_fwd_s), r->worst_gpu);
  fprintf(out, "  pooled all-to-all    %9.3f ms fwd  %9.3f ms bwd   exposed %.3f / %.3f\n",
          MS(r->a2a_fwd_s), MS(r->a2a_bwd_s), MS(r->a2a_fwd_exposed_s),
          MS(r->a2a_bwd_exposed_s));
  fprintf(out, "  row-wise RS / AG     %9.3f ms fwd  %9.3f ms bwd   exposed %.3f / %.3f\n",
          MS(r->rs_fwd_s), MS(r->ag_bwd_s), MS(r->rs_fwd_exposed_s), MS(r->ag_bwd_exposed_s));
  fprintf(out, "  dense (MLP, inter.)  %9.3f ms fwd  %9.3f ms bwd\n", MS(r->dense_fwd_s),
          MS(r->dense_bwd_s));
  fprintf(out, "  embedding backward   %9.3f ms  (incl. optimizer update)\n", MS(r->emb_bwd_s));
  fprintf(out, "  exposed all-reduce   %9.3f ms\n", MS(r->allreduce_s));
  fprintf(out, "  dense optimizer      %9.3f ms\n", MS(r->optimizer_s));
  fprintf(out, "  host launches        %9.3f ms beyond the GPU\n", MS(r->overhead_s));
  if (j->reader_batch_s > 0 || j->reader_sample_s > 0)
    fprintf(out, "  data reader          %9.3f ms beyond the rest\n", MS(r->reader_s));
  memory_text(out, r);
  if (r->gpu_emb_s && r->gpus <= 64) {
    fprintf(out, "per GPU       lookups ms / memory GiB\n");
    for (int g = 0; g < r->gpus; g++)
      fprintf(out, "  gpu %-3d %9.3f %9.2f\n", g, MS(r->gpu_emb_s[g]), GIB(r->gpu_mem[g]));
  }
  if (tables && p->n <= 64) {
    fprintf(out, "tables\n");
    for (int t = 0; t < p->n; t++) {
      const sc_rs_table *tb = &m->tables[t];
      fprintf(out, "  %-12s %12.0f x %-5d @%-6g ", tb->name, tb->rows, tb->dim,
              rs_table_lookups(tb));
      shard_text(out, &p->s[t]);
      fputc('\n', out);
    }
  }
}

/* The job's model, GPU and GPUs as predict's JSON names them ("model",
 * "gpu", "gpu_modified" where the preset was changed, "gpus"), each
 * member followed by ", ". */
static void job_json(FILE *out, const sc_rs_job *j) {
  fputs("\"model\": ", out);
  esc_json(out, j->model.name[0] ? j->model.name : "recsys");
  fputs(", \"gpu\": ", out);
  esc_json(out, j->gpu.name);
  char keys[256];
  if (sc_gpu_changes(&j->gpu, keys, sizeof keys)) {
    fputs(", \"gpu_modified\": [\"", out);
    for (const char *k = keys; *k; k++) /* "a, b" -> "a", "b": keys are plain words */
      if (*k == ',') fputs("\", \"", out);
      else if (*k != ' ') fputc(*k, out);
    fputs("\"]", out);
  }
  fprintf(out, ", \"gpus\": %d, \"gpus_per_node\": %d, \"global_batch\": %ld, ", j->gpus,
          j->gpus_per_node, j->global_batch);
}

static void result_json(FILE *out, const sc_rs_job *j, const sc_rs_plan *p,
                        const sc_rs_result *r) {
  fputc('{', out);
  job_json(out, j);
  fprintf(out, "\"iter_s\": %.6g, \"samples_per_s\": %.6g, \"breakdown\": {\"ids_s\": %.6g, "
               "\"emb_fwd_s\": %.6g, \"a2a_fwd_s\": %.6g, \"a2a_bwd_s\": %.6g, "
               "\"rs_fwd_s\": %.6g, \"ag_bwd_s\": %.6g, \"a2a_fwd_exposed_s\": %.6g, "
               "\"a2a_bwd_exposed_s\": %.6g, \"rs_fwd_exposed_s\": %.6g, "
               "\"ag_bwd_exposed_s\": %.6g, \"dense_fwd_s\": %.6g, "
               "\"dense_bwd_s\": %.6g, \"emb_bwd_s\": %.6g, \"allreduce_s\": %.6g, "
               "\"optimizer_s\": %.6g, \"overhead_s\": %.6g}, ",
          r->iter_s, r->samples_per_s, r->ids_s, r->emb_fwd_s, r->a2a_fwd_s, r->a2a_bwd_s,
          r->rs_fwd_s, r->ag_bwd_s, r->a2a_fwd_exposed_s, r->a2a_bwd_exposed_s,
          r->rs_fwd_exposed_s, r->ag_bwd_exposed_s, r->dense_fwd_s, r->dense_bwd_s,
          r->emb_bwd_s, r->allreduce_s, r->optimizer_s, r->overhead_s);
  if (j->reader_batch_s > 0 || j->reader_sample_s > 0)
    fprintf(out, "\"reader_s\": %.6g, ", r->reader_s);
  fprintf(out, "\"volumes\": {\"ids_bytes\": %.15g, \"a2a_bytes\": %.15g, \"rs_bytes\": %.15g, "
               "\"rs_node_bytes\": %.15g, \"allreduce_bytes\": %.15g}, ",
          r->ids_bytes, r->a2a_bytes, r->rs_bytes, r->rs_node_bytes, r->allreduce_bytes);
  /* bytes whole (80 GiB is 85899345920, not 8.58993e+10); "unmeasured": the memory model's band (SC_MEMORY_BAND) was measured
   * on LLM training rows only; docs/recsys.md says why it does not apply */
  fprintf(out, "\"memory\": {\"max_bytes\": %.0f, \"gpu\": %d, \"capacity_bytes\": %.0f, "
               "\"headroom_bytes\": %.0f, \"fits\": %s, \"fits_confidence\": \"unmeasured\", "
               "\"tight\": %s}, \"worst_gpu\": %d, \"gpus\": [",
          r->mem_bytes, r->fullest_gpu, r->mem_capacity, r->mem_headroom,
          r->fits ? "true" : "false", tight(r) ? "true" : "false", r->worst_gpu);
  for (int g = 0; r->gpu_emb_s && g < r->gpus; g++)
    fprintf(out, "%s{\"emb_s\": %.6g, \"mem_bytes\": %.0f}", g ? ", " : "", r->gpu_emb_s[g],
            r->gpu_mem[g]);
  fprintf(out, "], \"sharding\": [");
  for (int t = 0; t < p->n; t++) {
    fprintf(out, "%s{\"table\": ", t ? ", " : "");
    esc_json(out, j->model.tables[t].name);
    fprintf(out, ", \"kind\": \"%s\", \"gpu\": %d, \"parts\": %d}",
            sc_rs_shard_name(p->s[t].kind), p->s[t].gpu, p->s[t].parts);
  }
  fprintf(out, "], \"assumed\": ");
  if (j->assumed[0]) esc_json(out, j->assumed);
  else fputs("null", out);
  fprintf(out, ", \"accuracy\": {"); /* report/accuracy.h */
  acc_rs_json(out, j->gpus);
  fprintf(out, "}}");
}

/* The CSV columns of a prediction (header != 0: their names): the job,
 * JSON's members flattened (reader_s 0 without a reader), the memory as
 * mem_*, the mix of shard kinds, the accuracy columns (predict's names).
 * Per GPU and per table only JSON has. */
static void result_csv(FILE *out, const sc_rs_job *j, const sc_rs_plan *p,
                       const sc_rs_result *r, int header) {
  if (header) {
    fputs("model,gpu,gpus,gpus_per_node,global_batch,iter_s,samples_per_s,ids_s,emb_fwd_s,"
          "a2a_fwd_s,a2a_bwd_s,rs_fwd_s,ag_bwd_s,a2a_fwd_exposed_s,a2a_bwd_exposed_s,"
          "rs_fwd_exposed_s,ag_bwd_exposed_s,dense_fwd_s,dense_bwd_s,emb_bwd_s,allreduce_s,"
          "optimizer_s,overhead_s,reader_s,ids_bytes,a2a_bytes,rs_bytes,rs_node_bytes,"
          "allreduce_bytes,mem_max_bytes,mem_gpu,mem_capacity_bytes,mem_headroom_bytes,fits,"
          "tight,worst_gpu,sharding", out);
    acc_rs_csv(out, j->gpus, 1);
    return;
  }
  esc_csv(out, j->model.name[0] ? j->model.name : "recsys", ',');
  esc_csv(out, j->gpu.name, ',');
  fprintf(out, "%d,%d,%ld,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,"
               "%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,",
          j->gpus, j->gpus_per_node, j->global_batch, r->iter_s, r->samples_per_s, r->ids_s,
          r->emb_fwd_s, r->a2a_fwd_s, r->a2a_bwd_s, r->rs_fwd_s, r->ag_bwd_s,
          r->a2a_fwd_exposed_s, r->a2a_bwd_exposed_s, r->rs_fwd_exposed_s, r->ag_bwd_exposed_s,
          r->dense_fwd_s, r->dense_bwd_s, r->emb_bwd_s, r->allreduce_s, r->optimizer_s,
          r->overhead_s, r->reader_s);
  fprintf(out, "%.15g,%.15g,%.15g,%.15g,%.15g,%.0f,%d,%.0f,%.0f,%d,%d,%d,", r->ids_bytes,
          r->a2a_bytes, r->rs_bytes, r->rs_node_bytes, r->allreduce_bytes, r->mem_bytes,
          r->fullest_gpu, r->mem_capacity, r->mem_headroom, r->fits, tight(r), r->worst_gpu);
  char mix[256];
  plan_mix(p, mix, sizeof mix);
  esc_csv(out, mix, '\0');
  acc_rs_csv(out, j->gpus, 0);
}

void sc_rs_report_result(FILE *out, sc_format fmt, const sc_rs_job *j, const sc_rs_plan *p,
                         const sc_rs_result *r) {
  if (fmt == SC_FORMAT_CSV) {
    result_csv(out, j, p, r, 1);
    fputc('\n', out);
    result_csv(out, j, p, r, 0);
    fputc('\n', out);
    return;
  }
  if (fmt == SC_FORMAT_JSON) {
    result_json(out, j, p, r);
    fputc('\n', out);
  } else {
    result_text(out, j, p, r, 1);
  }
}

/* How the planner ended (sc_rs_plans.stopped), as JSON and the table
 * name it. */
static const char *stop_name(int stopped) {
  return stopped == SC_RS_STOP_MAX_SECONDS  ? "max_seconds"
         : stopped == SC_RS_STOP_MAX_EVALS  ? "max_evals"
         : stopped == SC_RS_STOP_INTERRUPTED ? "interrupted"
                                             : "complete";
}

/* The plans as one CSV table: a row per plan, its rank, the prediction's
 * columns (result_csv), why, and how the planner ended. */
static void plans_csv(FILE *out, const sc_rs_job *j, const sc_rs_plans *ps) {
  fputs("rank,", out);
  result_csv(out, j, NULL, NULL, 1);
  fputs(",why,evaluated,stopped\n", out);
  for (int i = 0; i < ps->n; i++) {
    fprintf(out, "%d,", i + 1);
    result_csv(out, j, &ps->plan[i], &ps->res[i], 0);
    fputc(',', out);
    esc_csv(out, ps->why[i], ',');
    fprintf(out, "%ld,%s\n", ps->evaluated, stop_name(ps->stopped));
  }
}

void sc_rs_report_plans(FILE *out, sc_format fmt, const sc_rs_job *j, const sc_rs_plans *ps) {
  if (fmt == SC_FORMAT_CSV) {
    plans_csv(out, j, ps);
    return;
  }
  if (fmt == SC_FORMAT_JSON) {
    fprintf(out, "{\"evaluated\": %ld, \"exhaustive\": %s, \"stopped\": \"%s\", "
                 "\"eval_bound_reached\": %s, \"plans\": [",
            ps->evaluated, ps->exhaustive ? "true" : "false", stop_name(ps->stopped),
            ps->bounded ? "true" : "false");
    for (int i = 0; i < ps->n; i++) {
      fprintf(out, "%s\n {\"rank\": %d, \"why\": ", i ? "," : "", i + 1);
      esc_json(out, ps->why[i]);
      fprintf(out, ", \"prediction\": ");
      result_json(out, j, &ps->plan[i], &ps->res[i]);
      fputc('}', out);
    }
    fprintf(out, "]}\n");
    return;
  }
  fprintf(out, "%ld plans evaluated (%s); %s:\n\n", ps->evaluated,
          ps->exhaustive ? ps->stopped ? "enumeration" : "every plan enumerated"
                         : "greedy + local search",
          ps->n && !ps->res[0].fits ? ps->stopped ? "none of those evaluated fits, those that "
                                                    "need least memory"
                                                  : "none fits, those that need least memory"
                                    : "the fastest that fit");
  if (ps->stopped)
    fprintf(out, "stopped early (%s) after %ld plans evaluated: the best found so far; a larger "
                 "budget may find faster plans\n\n", stop_name(ps->stopped), ps->evaluated);
  if (ps->bounded && !ps->stopped)
    fprintf(out, "local search reached its bound of 300,000 evaluations (docs/recsys.md, "
                 "\"Speed\"): the best found within it\n\n");
  if (ps->n && ps->res[0].mem_headroom > 0)
    fprintf(out, "headroom: %.2f GiB kept free on every GPU, a plan fits in %.2f of its %.2f "
                 "GiB\n\n", GIB(ps->res[0].mem_headroom),
            GIB(ps->res[0].mem_capacity - ps->res[0].mem_headroom),
            GIB(ps->res[0].mem_capacity));
  fprintf(out, "  #  %10s  %8s  %s\n", "iter ms", "mem GiB", "sharding");
  for (int i = 0; i < ps->n; i++) {
    fprintf(out, "  %d  %10.3f  %8.2f  ", i + 1, MS(ps->res[i].iter_s), GIB(ps->res[i].mem_bytes));
    plan_line(out, &ps->plan[i]);
    fprintf(out, "%s\n     %s\n", tight(&ps->res[i]) ? "  tight" : "", ps->why[i]);
  }
  int any = 0;
  for (int i = 0; i < ps->n; i++) any |= tight(&ps->res[i]);
  if (any)
    fprintf(out, "\n  tight: fits with less than the ~1 GiB of CUDA context, NCCL and cuBLAS "
                 "workspaces this\n  count leaves out: it may not fit (docs/recsys.md); "
                 "--headroom 1 keeps only plans clear of it\n");
  if (ps->n) {
    fprintf(out, "\nbest plan\n");
    result_text(out, j, &ps->plan[0], &ps->res[0], 1);
  }
}
