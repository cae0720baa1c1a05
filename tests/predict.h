/*
 * predict.h -- a scenario that must load (scenario_ok) and predict
 * (predict_ok, sc_predict: the closed form): any error fails the test
 * with the library's message. For the tests that check laws of the
 * prediction rather than its errors.
 * Header-only: each test executable includes it once.
 */
#ifndef SC_TESTS_PREDICT_H
#define SC_TESTS_PREDICT_H

#include <criterion/criterion.h>

#include "stepcast.h"

/* The scenario of JSON text `json` over the defaults (origin "test", no
 * overrides). */
static inline sc_scenario scenario_ok(const char *json) {
  sc_scenario s;
  sc_scenario_default(&s);
  sc_error err = {0};
  cr_assert_eq(sc_scenario_load_string(&s, json, "test", NULL, 0, &err), SC_OK, "%s", err.msg);
  return s;
}

/* sc_predict of s; any error fails the test. */
static inline sc_result predict_ok(const sc_scenario *s) {
  sc_result r;
  sc_error err = {0};
  cr_assert_eq(sc_predict(s, &r, &err), SC_OK, "sc_predict: %s", err.msg);
  return r;
}

#endif
