/*
 * kineto.h -- PyTorch profiler (Kineto) Chrome-trace JSON into a traced
 * rank (module prefix: kin_).
 *
 * Reads the categories of current Kineto (cpu_op, user_annotation,
 * cuda_runtime, cuda_driver, kernel, gpu_memcpy, gpu_memset) and of the
 * 2021 releases (Operator, Runtime, Kernel, Memcpy, Memset), CUDA and
 * ROCm (hip* calls). Events of other categories are counted and named in
 * a warning; flows, metadata and instant events are ignored. Integers
 * beyond 64 bits (some "Comms Id" args) are read as doubles.
 */
#ifndef SC_TRACE_KINETO_H
#define SC_TRACE_KINETO_H

#include <stddef.h>

#include "trace/tgraph.h"

/* Parse len bytes of buf (plain JSON, with buf[len] == '\0': the scanner
 * reads numbers with strtod; origin names it in messages) into
 * r, which must be zeroed; warnings go to j (may be NULL). SC_OK, or
 * SC_EINPUT with err naming origin, the line and column or the key path
 * (traceEvents[12].dur) and what was expected, or SC_ENOMEM. On error r
 * may hold partial data: free it with tg_rank_free. */
int kin_load_buffer(const char *buf, size_t len, const char *origin, tg_rank *r, tg_job *j,
                    sc_error *err);

/* Read path through zlib (plain files pass through): on SC_OK *buf
 * (mem_free it) holds *len bytes and a NUL. SC_EIO unreadable, SC_EINPUT
 * a truncated or corrupt gzip stream, SC_ENOMEM. */
int kin_read_file(const char *path, char **buf, size_t *len, sc_error *err);

#endif
