/*
 * rowgpu.h -- the GPU of a measurement row (module prefix: rowg_).
 *
 * A row's `gpu` cell is a preset id in the shipped sets, but rows of other
 * sources write the names nvidia-smi, clouds and papers use ("NVIDIA H100
 * 80GB HBM3", "Tesla V100-SXM2-16GB"). The same reading serves every kind
 * of row (training, collective, data-parallel, recommendation).
 */
#ifndef SC_VALIDATE_ROWGPU_H
#define SC_VALIDATE_ROWGPU_H

#include <stddef.h>

#include "stepcast.h"

/* The preset the cell `text` names (hw/gpu_names.h: gpun_resolve), or NULL
 * when it names none. What the reading took that the text does not say
 * (a form factor or memory size by default) is appended to the row's
 * `assumed` note assumed[0..an), "; "-separated as the other notes. */
const sc_gpu *rowg_gpu(const char *text, char *assumed, size_t an);

#endif /* SC_VALIDATE_ROWGPU_H */
