/*
 * test_optimizer.c -- model.optimizer (src/model/optimizer.c): the names,
 * and for ResNet-50 (25.6 M parameters) each optimizer's update time and
 * optimizer-state memory, by hand.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "cost/compute.h"
#include "model/optimizer.h"
#include "stepcast.h"

/* ResNet-50 v1.5 on one V100 in fp32 (no master copy) with optimizer name
 * (NULL: the preset's own) into *r. */
static void run(const char *name, sc_result *r) {
  char js[160];
  snprintf(js, sizeof js, "{\"model\": {\"preset\": \"resnet50\"%s%s%s}}",
           name ? ", \"optimizer\": \"" : "", name ? name : "", name ? "\"" : "");
  const char *keys[] = {"cluster.gpu=v100-sxm2-16gb", "cluster.gpus=1", "plan.dtype=fp32",
                        "plan.global_batch=64", "plan.micro_batch=64"};
  sc_scenario s;
  sc_error err = {0};
  cr_assert_eq(sc_scenario_load_string(&s, js, "t", keys, 5, &err), SC_OK, "%s: %s", js,
               err.msg);
  cr_assert_eq(sc_predict(&s, r, &err), SC_OK, "%s: %s", js, err.msg);
}

Test(optimizer, names) {
  static const char *const names[] = {"sgd", "momentum", "adam", "lamb", "adagrad"};
  static const sc_optimizer want[] = {SC_OPT_SGD, SC_OPT_MOMENTUM, SC_OPT_ADAM, SC_OPT_LAMB,
                                      SC_OPT_ADAGRAD};
  for (int i = 0; i < 5; i++) {
    sc_optimizer o = SC_OPT_DEFAULT;
    cr_assert_eq(optim_from_name(names[i], &o), SC_OK, "%s", names[i]);
    cr_assert_eq(o, want[i], "%s", names[i]);
    cr_assert_str_eq(optim_name(o), names[i]);
  }
  sc_optimizer o = SC_OPT_LAMB;
  cr_assert_eq(optim_from_name("adamw", &o), SC_OK);
  cr_assert_eq(o, SC_OPT_ADAM, "adamw is Adam's bytes");
  cr_assert_eq(optim_from_name("Adam", &o), SC_EINPUT, "names are lower case");
  cr_assert_eq(optim_from_name("default", &o), SC_EINPUT, "blank, not \"default\"");
  cr_assert_eq(o, SC_OPT_ADAM, "untouched on error");
}

/* Per optimizer, bytes per parameter of the update and of its state:
 *   sgd 12 / 0, momentum 20 / 4, adam 34 / 8, lamb 58 / 8, adagrad 20 / 4.
 * In fp32 memory.optimizer is P x state (no master copy): momentum
 * 4 x 25.56 M = 102 MB, Adam 204 MB, plain SGD 0; the total differs by
 * exactly that. The update is one kernel, t0 + P x bytes / rate, so
 * (t - t0) scales with the bytes: momentum / sgd = 20 / 12, lamb / adam =
 * 58 / 34. The blank optimizer is momentum's. */
Test(optimizer, resnet50_time_and_memory_by_hand) {
  static const char *const names[] = {"sgd", "momentum", "adam", "lamb", "adagrad"};
  static const double bytes[] = {12, 20, 34, 58, 20}, state[] = {0, 4, 8, 8, 4};
  sc_result r[5], d;
  for (int i = 0; i < 5; i++) run(names[i], &r[i]);
  run(NULL, &d);
  double P = r[0].params, t0 = COST_KERNEL_T0;
  cr_assert(P > 25.5e6 && P < 25.6e6, "ResNet-50 v1.5 has 25.56 M parameters, got %g", P);
  double rate = P * 12 / (r[0].time.optimizer - t0); /* bytes/s the update streams at */
  cr_assert(rate > 500e9 && rate < 900e9, "V100 HBM2 rate %g B/s", rate);
  for (int i = 0; i < 5; i++) {
    cr_assert(fabs(r[i].mem.optimizer - P * state[i]) < 1, "%s: state %g B, by hand %g",
              names[i], r[i].mem.optimizer, P * state[i]);
    double t = t0 + P * bytes[i] / rate;
    cr_assert(fabs(r[i].time.optimizer - t) < 1e-9 * t, "%s: update %g s, by hand %g s",
              names[i], r[i].time.optimizer, t);
    cr_assert(fabs((r[i].mem.total - r[0].mem.total) - P * state[i]) < 1,
              "%s: total %g vs sgd %g", names[i], r[i].mem.total, r[0].mem.total);
  }
  cr_assert(fabs(r[1].mem.optimizer - 102.2e6) < 0.1e6, "momentum 4 B x 25.56 M = %g",
            r[1].mem.optimizer);
  cr_assert_eq(d.mem.optimizer, r[1].mem.optimizer, "blank = momentum");
  cr_assert_eq(d.time.optimizer, r[1].time.optimizer, "blank = momentum");
}

/* Under pure fp16 (no AMP) the 16-bit parameters keep an fp32 master
 * copy beside the state: plain SGD 4 B, momentum 8 B a parameter. */
Test(optimizer, master_copy_of_16bit_parameters) {
  const char *keys[] = {"cluster.gpu=v100-sxm2-16gb", "cluster.gpus=1", "plan.dtype=fp16",
                        "plan.amp=false", "plan.global_batch=64", "plan.micro_batch=64"};
  sc_scenario s;
  sc_error err = {0};
  sc_result a, b;
  cr_assert_eq(sc_scenario_load_string(
                   &s, "{\"model\": {\"preset\": \"resnet50\", \"optimizer\": \"sgd\"}}", "t",
                   keys, 6, &err),
               SC_OK, "%s", err.msg);
  cr_assert_eq(sc_predict(&s, &a, &err), SC_OK, "%s", err.msg);
  s.model.optimizer = SC_OPT_MOMENTUM;
  cr_assert_eq(sc_predict(&s, &b, &err), SC_OK, "%s", err.msg);
  cr_assert(fabs(a.mem.optimizer - 4 * a.params) < 1, "sgd + master %g, by hand 4 x %g",
            a.mem.optimizer, a.params);
  cr_assert(fabs(b.mem.optimizer - 8 * b.params) < 1, "momentum + master %g, by hand 8 x %g",
            b.mem.optimizer, b.params);
}

/* The transformer and graph builders update with their own optimizer:
 * model.optimizer set on them through the C API is refused, naming the
 * field and what is valid, as the JSON loader refuses the key (it was
 * ignored: the prediction came back as Adam's). */
Test(optimizer, refused_on_transformer_and_graph) {
  static const char *const models[] = {"{\"model\": \"llama2-7b\"}",
                                       "{\"model\": \"examples/graphs/gpt-2layer.json\"}"};
  const char *keys[] = {"cluster.gpu=h100-sxm5-80gb", "cluster.gpus=4", "plan.tp=4",
                        "plan.pp=1"};
  for (size_t i = 0; i < sizeof models / sizeof models[0]; i++) {
    sc_scenario s;
    sc_error err = {0};
    sc_result r;
    cr_assert_eq(sc_scenario_load_string(&s, models[i], "t", keys, 4, &err), SC_OK, "%s: %s",
                 models[i], err.msg);
    cr_assert_eq(sc_predict(&s, &r, &err), SC_OK, "%s blank: %s", models[i], err.msg);
    s.model.optimizer = SC_OPT_SGD;
    cr_assert_eq(sc_predict(&s, &r, &err), SC_EINPUT, "%s with sgd: %s", models[i], err.msg);
    cr_assert(strstr(err.msg, "model.optimizer: sgd") && strstr(err.msg, "CNN and BERT") &&
                  strstr(err.msg, "SC_OPT_DEFAULT"),
              "%s: %s", models[i], err.msg);
  }
}
