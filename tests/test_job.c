/*
 * test_job.c -- a prepared job evaluates many plans, each exactly as
 * sc_predict does, without reading any file after it is opened.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "predict.h" /* predict_ok */
#include "stepcast.h"
#include "tmpfile.h"

Test(job, every_plan_as_sc_predict_and_no_file_read_after_open) {
  /* a topology file, deleted once the job is open */
  char path[] = "/tmp/sc_job_topo_XXXXXX";
  tmp_write(path, "{\"generator\": \"fat_tree:hosts=64,radix=16,levels=2,oversub=2,bw=25\"}\n");
  char json[64];
  snprintf(json, sizeof json, "%s.json", path);
  cr_assert_eq(rename(path, json), 0);

  sc_scenario s;
  sc_scenario_default(&s);
  s.cluster.gpus = 64;
  s.plan.pp = 8;
  s.plan.global_batch = 64;
  snprintf(s.cluster.topology, sizeof s.cluster.topology, "%s", json);
  sc_job *j;
  sc_error err = {0};
  cr_assert_eq(sc_job_open(&s, &j, &err), SC_OK, "%s", err.msg);
  sc_result want[3];
  int pps[3] = {8, 4, 2};
  for (int i = 0; i < 3; i++) {
    s.plan.pp = pps[i];
    want[i] = predict_ok(&s); /* reads the topology file */
  }
  cr_assert_eq(unlink(json), 0);
  for (int round = 0; round < 2; round++)
    for (int i = 0; i < 3; i++) {
      sc_plan p = s.plan;
      p.pp = pps[i];
      sc_result r;
      cr_assert_eq(sc_job_predict(j, &p, &r, &err), SC_OK, "pp %d: %s", pps[i], err.msg);
      cr_assert(r.step_s == want[i].step_s && r.mem.total == want[i].mem.total,
                "pp %d, round %d: job %g s, sc_predict %g s", pps[i], round, r.step_s,
                want[i].step_s);
    }
  /* a bad plan is an input error naming the key; the job stays usable */
  sc_plan bad = s.plan;
  bad.tp = 5;
  sc_result r;
  cr_assert_eq(sc_job_predict(j, &bad, &r, &err), SC_EINPUT);
  cr_assert(strstr(err.msg, "plan.tp: 5 does not divide model.heads 96"), "%s", err.msg);
  cr_assert_eq(sc_job_predict(j, NULL, &r, &err), SC_OK, "%s", err.msg);
  cr_assert_eq(sc_job_scenario(j)->cluster.gpus, 64);
  sc_job_close(j);
}

Test(job, timeline_and_layer_ops_of_a_job) {
  sc_scenario s;
  sc_scenario_default(&s);
  s.plan.pp = 4;
  s.plan.global_batch = 32;
  sc_job *j;
  sc_error err = {0};
  cr_assert_eq(sc_job_open(&s, &j, &err), SC_OK, "%s", err.msg);
  sc_span *spans = NULL;
  size_t n = 0;
  double step = 0;
  cr_assert_eq(sc_job_timeline(j, NULL, &spans, &n, &step, &err), SC_OK, "%s", err.msg);
  cr_assert(n > 0 && step > 0);
  free(spans);
  sc_op_time ops[64];
  int k = sc_job_explain_layer(j, NULL, ops, 64, &err);
  cr_assert(k > 10, "%d ops", k);
  cr_assert_str_eq(ops[0].name, "norm1");
  cr_assert_str_eq(ops[1].name, "ag_qkv");
  sc_job_close(j);
}

Test(job, open_reports_the_topology_error) {
  sc_scenario s;
  sc_scenario_default(&s);
  snprintf(s.cluster.topology, sizeof s.cluster.topology, "%s", "/nonexistent/topo.json");
  sc_job *j = (sc_job *)&s; /* must be reset to NULL */
  sc_error err = {0};
  cr_assert_eq(sc_job_open(&s, &j, &err), SC_EIO, "%s", err.msg);
  cr_assert_null(j);
  cr_assert(strstr(err.msg, "/nonexistent/topo.json"), "%s", err.msg);
}
