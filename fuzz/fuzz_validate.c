/*
 * fuzz_validate.c -- libFuzzer target for the measurement CSV reader and
 * the row-to-scenario mapping of `stepcast validate`: any bytes must give
 * SC_OK or an error value, never a crash, a leak or undefined behaviour.
 * The input is written to a private temporary file because
 * sc_validate_file reads a path, as the CLI does.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "stepcast.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static char path[64];
  if (!path[0]) snprintf(path, sizeof path, "/tmp/fuzz_validate_%d.csv", (int)getpid());
  FILE *f = fopen(path, "wb");
  if (!f) return 0;
  fwrite(data, 1, size, f);
  fclose(f);
  sc_validation vf;
  sc_error err = {0};
  if (sc_validate_file(path, &vf, &err) == SC_OK) sc_validation_free(&vf);
  return 0;
}
