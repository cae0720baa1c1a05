/*
 * dtype.h -- the names of the numeric types, for the library's readers of
 * them (module prefix: dtype_; sc_dtype_name and sc_dtype_bytes are the
 * public entry points, stepcast.h).
 */
#ifndef SC_CORE_DTYPE_H
#define SC_CORE_DTYPE_H

#include <stddef.h>

#include "stepcast.h"

/* Each sc_dtype's name, in enum order ("fp32", "tf32", ...): the one
 * table (the scenario's dtype keys, the search's --dtypes, validation
 * rows). */
extern const char *const dtype_names[SC_DTYPE_COUNT];

/* The dtype called name[0..len) exactly (case counts), or -1. */
int dtype_from_name(const char *name, size_t len);

#endif /* SC_CORE_DTYPE_H */
