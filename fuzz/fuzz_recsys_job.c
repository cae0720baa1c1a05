/*
 * fuzz_recsys_job.c -- libFuzzer target for the recsys job loader
 * (src/recsys/rs_json.c, its `--set` overrides, and the value positions
 * of its messages: src/load/jpos.c).
 *
 * Input: a JSON job document, optionally followed by a NUL byte and
 * overrides separated by newlines ("cluster.gpus=16\nsharding=row_wise").
 * The loader reads a file, so the document is written to one first. Every
 * input must load or fail with SC_EINPUT (never crash, leak or trip a
 * sanitizer) and a message; a job that loads with a sharding of its own
 * is evaluated (small jobs only: the planner is not run), and its
 * iteration must be finite and positive, with the exposed parts of its
 * collectives each at most their own time.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz_text.h"
#include "stepcast_recsys.h"

#define MAX_OVERRIDES 8
#define MAX_GPUS 64       /* evaluate jobs up to this many GPUs */
#define MAX_TABLES 4096   /* and tables */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_result(const sc_rs_result *r) {
  if (!(r->iter_s > 0 && isfinite(r->iter_s))) abort();
  if (r->a2a_fwd_exposed_s > r->a2a_fwd_s * (1 + 1e-9) + 1e-18 ||
      r->ag_bwd_exposed_s > r->ag_bwd_s * (1 + 1e-9) + 1e-18 || r->a2a_fwd_exposed_s < 0 ||
      r->rs_fwd_exposed_s < -1e-18 || r->ag_bwd_exposed_s < -1e-18)
    abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *buf = fuzz_text(data, size);
  if (!buf) return 0;
  size_t json_len = strlen(buf);
  const char *ov[MAX_OVERRIDES];
  size_t n_ov = fuzz_overrides(buf, size, ov, MAX_OVERRIDES);
  char path[64];
  snprintf(path, sizeof path, "/tmp/fuzz_recsys_job_%d.json", (int)getpid());
  FILE *f = fopen(path, "wb");
  if (!f) abort();
  if (fwrite(buf, 1, json_len, f) != json_len || fclose(f)) abort();
  sc_rs_job j;
  sc_rs_plan p;
  int autop;
  sc_error err = {0};
  int rc = sc_rs_job_load_file_ex(path, ov, n_ov, &j, &p, &autop, &err);
  if (rc != SC_OK && rc != SC_EINPUT && rc != SC_ENOMEM) abort();
  if (rc != err.code || (rc != SC_OK && err.msg[0] == '\0')) abort();
  if (rc == SC_OK) {
    if (!autop && p.n == j.model.n_tables && j.gpus <= MAX_GPUS && j.model.n_tables <= MAX_TABLES) {
      sc_rs_result r;
      rc = sc_rs_evaluate(&j, &p, &r, &err);
      if (rc == SC_OK) check_result(&r);
      else if (rc != SC_EINPUT || !err.msg[0]) abort();
      if (rc == SC_OK) sc_rs_result_free(&r);
    }
    sc_rs_plan_free(&p);
    sc_rs_job_free(&j);
  }
  free(buf);
  return 0;
}
