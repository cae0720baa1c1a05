/*
 * fuzz_recsys_tables.c -- libFuzzer target for the recommendation table
 * list parser (sc_rs_tables_parse) and what follows it: any bytes must
 * give SC_OK or an error value naming the group, never a crash, a leak or
 * undefined behaviour. A list that parses is also checked and, when small,
 * evaluated table-wise on 2 GPUs, with the fused kernels and as a
 * per-table framework.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_text.h"
#include "stepcast_recsys.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *s = fuzz_text(data, size);
  if (!s) return 0;
  sc_rs_job j;
  sc_rs_job_default(&j);
  j.model.inter = SC_RS_CONCAT;
  j.gpus = 2;
  sc_error err = {0};
  if (sc_rs_tables_parse(s, SC_RS_POWERLAW, 1.05, &j.model, &err) == SC_OK &&
      j.model.n_tables <= 64) {
    for (int t = 0; t < j.model.n_tables; t++)
      if (j.model.tables[t].rows <= 0) j.model.tables[t].rows = 1000;
    sc_rs_plan p;
    if (sc_rs_job_check(&j, &err) == SC_OK &&
        sc_rs_plan_uniform(&j, SC_RS_TABLE_WISE, 1, &p, &err) == SC_OK) {
      sc_rs_result r;
      if (sc_rs_evaluate(&j, &p, &r, &err) == SC_OK) sc_rs_result_free(&r);
      /* and as a per-table framework (TensorFlow's sparse gradients,
       * rs_tfsparse.c): SGD's scatter-add or another optimizer's Unique */
      j.kernel = SC_RS_PER_TABLE;
      j.opt = size & 1 ? SC_RS_ADAGRAD : SC_RS_SGD;
      if (sc_rs_evaluate(&j, &p, &r, &err) == SC_OK) sc_rs_result_free(&r);
      sc_rs_plan_free(&p);
    }
  }
  sc_rs_job_free(&j);
  free(s);
  return 0;
}
