/*
 * rowgpu.c -- see rowgpu.h.
 */
#include "validate/rowgpu.h"

#include <stdio.h>
#include <string.h>

#include "hw/gpu_names.h"

const sc_gpu *rowg_gpu(const char *text, char *assumed, size_t an) {
  char note[128];
  const sc_gpu *g = gpun_resolve(text, note, sizeof note);
  size_t used = assumed ? strlen(assumed) : 0;
  if (g && note[0] && assumed && used + 1 < an)
    snprintf(assumed + used, an - used, "%s%s", used ? "; " : "", note);
  return g;
}
