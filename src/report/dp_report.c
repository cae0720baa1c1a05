/*
 * dp_report.c -- data-parallel scheme predictions as a table, JSON or
 * CSV (sc_report_dp; docs/output.md, "Data-parallel schemes"). One row
 * per scheme in the order given (sc_dp_compare: fastest first).
 */
#include <stdio.h>
#include <string.h>

#include "report/accuracy.h"
#include "report/esc.h"
#include "report/report_int.h"
#include "stepcast.h"

#define GIB 1073741824.0 /* the tables' memory unit, as predict's */

/* Under the rows, where gossip or asynchronous schemes are listed: their
 * step is not the same training as the synchronous schemes' (models
 * averaged with neighbours, stale gradients), so the fastest step is not
 * always the fastest to an accuracy (docs/dp.md, "Time per step, not
 * time to accuracy"). */
static void dp_table_note(FILE *out, const sc_dp_result *r, int n) {
  int gossip = 0, async = 0;
  for (int i = 0; i < n; i++) {
    gossip |= r[i].family && !strcmp(r[i].family, "gossip");
    async |= r[i].async;
  }
  if (!gossip && !async) return;
  fprintf(out, "\n  note: %s%s%s:\n"
               "        their steps are not the synchronous schemes', so this is time per step, not\n"
               "        time to the same accuracy (docs/dp.md)\n",
          gossip ? "gossip schemes average models with neighbours" : "",
          gossip && async ? " and " : "", async ? "async schemes apply stale updates" : "");
}

static void dp_table(FILE *out, const sc_scenario *s, const sc_dp_result *r, int n) {
  char gpu[REPORT_GPU_CAP];
  report_gpu_label(&s->cluster.gpu, gpu);
  fprintf(out, "data-parallel %s on %d x %s (%d per server), global batch %ld\n",
          s->model.name, s->cluster.gpus, gpu,
          s->cluster.gpus_per_node < s->cluster.gpus ? s->cluster.gpus_per_node : s->cluster.gpus,
          s->plan.global_batch);
  if (n > 0)
    fprintf(out, "one GPU: %.4f s compute per step; %.1f MB of gradients per step; memory %.1f of "
                 "%.1f GiB\n\n", r[0].compute_s, r[0].grad_bytes / 1e6, r[0].mem.total / GIB,
            r[0].mem.capacity / GIB);
  fprintf(out, "%-32s %-9s %11s %12s %7s %11s %11s  %s\n", "scheme", "family", "step (s)",
          "samples/s", "eff.", "exposed (s)", "comm (s)", "how");
  for (int i = 0; i < n; i++) {
    const sc_dp_result *x = &r[i];
    fprintf(out, "%-32s %-9s %11.4f %12.1f %6.1f%% %11.4f %11.4f  %s%s\n", x->scheme, x->family,
            x->step_s, x->samples_per_s, 100 * x->efficiency, x->exposed_s, x->comm_s, x->how,
            x->async ? " (async: a worker's mean step)" : "");
  }
  dp_table_note(out, r, n);
  acc_dp_table(out, s, r, n); /* report/accuracy.h */
}

static void dp_json_row(FILE *out, const sc_scenario *s, const sc_dp_result *x) {
  fprintf(out, "{\"scheme\": ");
  esc_json(out, x->scheme);
  fprintf(out, ", \"family\": \"%s\", \"async\": %s, \"step_s\": %.6g, \"samples_per_s\": %.6g, "
               "\"efficiency\": %.4f, \"compute_s\": %.6g, \"comm_s\": %.6g, \"exposed_s\": %.6g, "
               "\"grad_bytes\": %.0f, \"messages\": %d, \"how\": ",
          x->family, x->async ? "true" : "false", x->step_s, x->samples_per_s, x->efficiency,
          x->compute_s, x->comm_s, x->exposed_s, x->grad_bytes, x->messages);
  esc_json(out, x->how);
  /* "unmeasured": the memory model's band (SC_MEMORY_BAND) was measured
   * on LLM training rows only; docs/dp.md says why it does not apply */
  fprintf(out, ", \"memory_GB\": %.4g, \"memory_bytes\": %.0f, \"capacity_bytes\": %.0f, "
               "\"headroom_bytes\": %.0f, \"fits\": %s, \"fits_confidence\": \"unmeasured\", "
               "\"accuracy\": {", x->mem.total / 1e9, x->mem.total, x->mem.capacity,
          x->mem.headroom, x->mem.fits ? "true" : "false");
  acc_dp_json(out, s, x->family); /* report/accuracy.h */
  fprintf(out, "}}");
}

void sc_report_dp(FILE *out, sc_format fmt, const sc_scenario *s, const sc_dp_result *r, int n) {
  if (fmt == SC_FORMAT_TABLE) {
    dp_table(out, s, r, n);
    return;
  }
  if (fmt == SC_FORMAT_JSON) {
    fputc('{', out);
    report_json_job(out, s);
    fprintf(out, ", \"global_batch\": %ld, \"schemes\": [", s->plan.global_batch);
    for (int i = 0; i < n; i++) {
      fprintf(out, "%s\n  ", i ? "," : "");
      dp_json_row(out, s, &r[i]);
    }
    fprintf(out, "\n]}\n");
    return;
  }
  fprintf(out, "scheme,family,async,step_s,samples_per_s,efficiency,compute_s,comm_s,exposed_s,"
               "grad_bytes,messages,how,memory_GB,fits,fits_confidence,memory_bytes,capacity_bytes,"
               "headroom_bytes\n");
  for (int i = 0; i < n; i++) {
    const sc_dp_result *x = &r[i];
    fprintf(out, "%s,%s,%d,%.6g,%.6g,%.4f,%.6g,%.6g,%.6g,%.0f,%d,", x->scheme, x->family,
            x->async, x->step_s, x->samples_per_s, x->efficiency, x->compute_s, x->comm_s,
            x->exposed_s, x->grad_bytes, x->messages);
    esc_csv(out, x->how, ',');
    fprintf(out, "%.4g,%d,unmeasured,%.0f,%.0f,%.0f\n", x->mem.total / 1e9, x->mem.fits,
            x->mem.total, x->mem.capacity, x->mem.headroom);
  }
}
