/*
 * name.h -- matching the names users type against a table's names
 * (module prefix: name_): case and underscores are ignored, so that
 * "All_Reduce", "allreduce" and "all_reduce" are one collective and
 * "Fat_Tree" and "fattree" one topology generator.
 */
#ifndef SC_CORE_NAME_H
#define SC_CORE_NAME_H

#include <stddef.h>

/* 1 when the first n bytes of s (fewer where s ends first) spell the
 * table's name `canon` (NUL-terminated), ignoring case (ASCII) and
 * underscores on both sides; 0 otherwise, and for a NULL s. */
int name_eq(const char *canon, const char *s, size_t n);

#endif /* SC_CORE_NAME_H */
