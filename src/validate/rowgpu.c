/*
 * rowgpu.c -- see rowgpu.h.
 */
#include "validate/rowgpu.h"

#include <stdio.h>
#include <string.h>

#include "hw/gpu_names.h"
#include "validate/rowvalues.h"

const sc_gpu *rowg_gpu(const char *text, char *assumed, size_t an) {
  char note[128];
  const sc_gpu *g = gpun_resolve(text, note, sizeof note);
  if (g && note[0] && assumed) rowv_note(assumed, an, "%s", note);
  return g;
}
