/*
 * predict.c -- a program built against the installed stepcast library:
 * predict one training step of a scenario and print the prediction as
 * JSON, the way `stepcast predict --format json` does.
 *
 *   cc predict.c $(pkg-config --cflags --libs stepcast) -o predict
 *   ./predict                      # the built-in default scenario
 *   ./predict SCENARIO.json [KEY=VALUE...]
 *
 * Exit codes: 0 ok, 2 bad input, 3 unreadable file (docs/output.md).
 */
#include <stdio.h>

#include <stepcast.h>

int main(int argc, char **argv) {
  sc_scenario s;
  sc_error err = {0};
  const char *const *overrides = (const char *const *)(argv + (argc > 1 ? 2 : 1));
  size_t n = argc > 2 ? (size_t)(argc - 2) : 0;
  int rc = argc > 1 ? sc_scenario_load_file(&s, argv[1], overrides, n, &err)
                    : sc_scenario_load_string(&s, "{}", "<default scenario>", NULL, 0, &err);
  sc_result r;
  if (rc == SC_OK) rc = sc_predict(&s, &r, &err);
  if (rc != SC_OK) {
    fprintf(stderr, "predict: %s\n", err.msg);
    return rc == SC_EIO ? 3 : 2;
  }
  fprintf(stderr, "stepcast %s: %.3f s per step, MFU %.1f %%\n", SC_VERSION, r.step_s,
          100 * r.mfu);
  sc_report_prediction(stdout, SC_FORMAT_JSON, &s, &r, 0);
  return 0;
}
