/*
 * collrow.c -- defaults of a collective measurement row (collrow.h).
 */
#include "validate/collrow.h"

#include <math.h>

#include "validate/rowtext.h"

int collrow_host_gpus(const char *notes) {
  double n = rowtext_after(notes, "nGpus ", 1);
  return n >= 1 && n <= 1024 && n == floor(n) ? (int)n : 1;
}
