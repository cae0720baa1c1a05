/*
 * test_job_quiet.c -- job_quiet_checks: the search's first pass rejects
 * plans without formatting their messages, with the same verdict (code)
 * as the loud checks, and leaves valid plans and their memory as they
 * were; job_plan, the plan the search writes its points into.
 */
#include <criterion/criterion.h>
#include <string.h>

#include "job/job.h"
#include "memsame.h"
#include "stepcast.h"

/* Qwen3-30B-A3B has 4 KV heads: tp 8 is rejected by the plan check. */
static sc_job *open_qwen(sc_plan *base) {
  sc_scenario s;
  sc_scenario_default(&s);
  s.model = *sc_model_preset("qwen3-30b-a3b");
  s.cluster.gpu = *sc_gpu_preset("h100-sxm5-80gb");
  s.cluster.gpus = 64;
  s.plan.tp = 2, s.plan.pp = 1, s.plan.cp = 1, s.plan.ep = 8, s.plan.dp = 0;
  s.plan.micro_batch = 1;
  s.plan.global_batch = 256;
  sc_error err = {0};
  cr_assert_eq(sc_scenario_resolve(&s, &err), SC_OK, "%s", err.msg);
  sc_job *j;
  cr_assert_eq(sc_job_open(&s, &j, &err), SC_OK, "%s", err.msg);
  *base = s.plan;
  return j;
}

Test(job_quiet, same_verdicts_no_messages) {
  sc_plan ok, bad;
  sc_job *j = open_qwen(&ok);
  bad = ok;
  bad.tp = 8, bad.dp = 0;
  sc_error loud = {0}, quiet = {0};
  sc_memory m1, m2;
  /* loud: the message names the key */
  cr_assert_eq(job_lower(j, &bad, &m1, &loud), SC_EINPUT);
  cr_assert(strstr(loud.msg, "plan.tp"), "%s", loud.msg);
  cr_assert_eq(job_check(j, &bad, &loud), SC_EINPUT);
  cr_assert(strstr(loud.msg, "kv_heads"), "%s", loud.msg);
  /* quiet: the same code, no message */
  job_quiet_checks(j, 1);
  memset(quiet.msg, 'x', sizeof quiet.msg - 1);
  cr_assert_eq(job_lower(j, &bad, &m1, &quiet), SC_EINPUT);
  cr_assert_eq(quiet.code, SC_EINPUT);
  cr_assert_str_eq(quiet.msg, "");
  cr_assert_eq(job_check(j, &bad, &quiet), SC_EINPUT);
  cr_assert_str_eq(quiet.msg, "");
  /* a valid plan: the same memory quiet and loud */
  cr_assert_eq(job_lower(j, &ok, &m1, &quiet), SC_OK);
  job_quiet_checks(j, 0);
  cr_assert_eq(job_lower(j, &ok, &m2, &loud), SC_OK, "%s", loud.msg);
  cr_assert(mem_same(&m1, &m2));
  /* off again: messages are back */
  cr_assert_eq(job_check(j, &bad, &loud), SC_EINPUT);
  cr_assert(strstr(loud.msg, "kv_heads"), "%s", loud.msg);
  sc_job_close(j);
}

/* job_plan (the search's points written into the job's copy of its
 * plan): the job's base plan afresh on every call, whatever the plan
 * resolved or rejected before it left; job_lower and job_check of NULL
 * evaluate it as they do the same plan given. */
Test(job_plan, fresh_base_evaluated_as_given) {
  sc_plan ok;
  sc_job *j = open_qwen(&ok);
  sc_plan four = ok;
  four.tp = 4, four.dp = 0;
  sc_error err = {0};
  sc_memory given, in_place, given4, in_place4;
  cr_assert_eq(job_lower(j, &ok, &given, &err), SC_OK, "%s", err.msg);
  cr_assert_eq(job_lower(j, &four, &given4, &err), SC_OK, "%s", err.msg);
  cr_assert(given.weights != given4.weights, "tp 2 and tp 4 hold different weights");
  sc_plan *p = job_plan(j);
  cr_assert(!memcmp(p, &ok, sizeof ok), "job_plan after a resolved plan: the base plan");
  p->tp = 8, p->dp = 0; /* 4 KV heads: rejected */
  cr_assert_eq(job_check(j, NULL, &err), SC_EINPUT);
  cr_assert(strstr(err.msg, "kv_heads"), "%s", err.msg);
  p = job_plan(j);
  cr_assert(!memcmp(p, &ok, sizeof ok), "job_plan after a rejected plan: the base plan");
  cr_assert_eq(job_lower(j, NULL, &in_place, &err), SC_OK, "%s", err.msg);
  cr_assert(mem_same(&given, &in_place));
  p = job_plan(j);
  p->tp = 4, p->dp = 0;
  cr_assert_eq(job_lower(j, NULL, &in_place4, &err), SC_OK, "%s", err.msg);
  cr_assert(mem_same(&given4, &in_place4));
  cr_assert_eq(job_current(j)->plan.tp, 4);
  sc_job_close(j);
}
